/* tests/interp/test_decode_ref.c - axp_decode() and axp_decode_op() against the reference decoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "interp/decode_ref.h"

/*
 * Every comparison goes through check_word(): the first few differences are printed (word, field,
 * both values), and the test fails at its end with the first one.
 */
struct tally {
	unsigned long words, bad;
	char first[160];
};

static void check_word(struct tally *t, uint32_t word)
{
	char msg[160];

	t->words++;
	if (!dref_check(word, msg, sizeof(msg)))
		return;
	if (t->bad++ < 10)
		print_message("  %s\n", msg);
	if (t->bad == 1)
		snprintf(t->first, sizeof(t->first), "%s", msg);
}

static void tally_end(const struct tally *t, const char *what)
{
	print_message("  %s: %lu words, %lu differ\n", what, t->words, t->bad);
	if (t->bad)
		fail_msg("%s: %lu of %lu words differ; first: %s", what, t->bad, t->words,
			 t->first);
}

static int setup(void **state)
{
	(void)state;
	return dref_init();
}

/* xorshift64 (Marsaglia 2003) from a fixed seed: the same words every run. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ------------------------------------------------------------------------------------------ */
/* The reference itself, on words alpha-linux-gnu-as assembled (objdump -d shows them). */

static void test_decode_ref_anchors(void **state)
{
	static const struct {
		uint32_t word;
		unsigned int op;
		int32_t disp;
		const char *src;
	} v[] = {
		{ 0x47ff041f, AXP_OP_BIS, 0x041f, "nop" },
		{ 0x6bfa8001, AXP_OP_RET, 1, "ret $31,($26),1" },
		{ 0x5fff041f, AXP_OP_CPYS, 0x041f, "fnop" },
		{ 0x5822f003, AXP_OP_ADDS, (int16_t)0xf003, "adds/sui $f1,$f2,$f3" },
		{ 0x5be05581, AXP_OP_CVTST, 0x5581, "cvtst $f0,$f1" },
		{ 0x5be0d581, AXP_OP_CVTST, (int16_t)0xd581, "cvtst/s $f0,$f1" },
		{ 0x60004000, AXP_OP_MB, 0x4000, "mb" },
		{ 0x00000083, AXP_OP_CALL_PAL, 0x83, "callsys" },
		{ 0xc3ffffff, AXP_OP_BR, -1, "br $31,." },
		{ 0xd340ffff, AXP_OP_BSR, 0xffff, "bsr $26,.+0x40000" },
		{ 0xa43efff8, AXP_OP_LDQ, -8, "ldq $1,-8($30)" },
		{ 0x20227fff, AXP_OP_LDA, 0x7fff, "lda $1,0x7fff($2)" },
		{ 0x73e10002, AXP_OP_SEXTB, 2, "sextb $1,$2" },
		{ 0x53e2f563, AXP_OP_SQRTT, (int16_t)0xf563, "sqrtt/sui $f2,$f3" },
		{ 0x5fe1a602, AXP_OP_CVTQLSV, (int16_t)0xa602, "cvtql/sv $f1,$f2" },
		{ 0x503f0482, AXP_OP_ITOFT, 0x0482, "itoft $1,$f2" },
		{ 0x703f0f02, AXP_OP_FTOIS, 0x0f02, "ftois $f1,$2" },
		{ 0x73e10602, AXP_OP_CTPOP, 0x0602, "ctpop $1,$2" },
		{ 0x6b5b448d, AXP_OP_JSR, 0x048d, "jsr $26,($27),0x1278" },
		{ 0x63e3f800, AXP_OP_WH64, 0xf800, "wh64 ($3)" },
		/* The same words with an operand rule broken: not instructions. */
		{ 0x5b805581, AXP_OP_INVALID, 0x5581, "cvtst with Fa = f28" },
		{ 0x70010002, AXP_OP_INVALID, 2, "sextb with Ra = r0" },
		{ 0x73e11602, AXP_OP_INVALID, 0x1602, "ctpop with a literal" },
		{ 0x503e0482, AXP_OP_INVALID, 0x0482, "itoft with Rb = r30" },
		{ 0x04000000, AXP_OP_INVALID, 0, "opcode 0x01 (reserved)" },
		{ 0x63e34001, AXP_OP_INVALID, 0x4001, "0x18 function 0x4001" },
	};
	unsigned int i;
	int32_t disp;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		unsigned int op = dref_op_of(v[i].word);

		if (op != v[i].op)
			fail_msg("%s (0x%08x): reference %s, expected %s", v[i].src, v[i].word,
				 dref_name(op), dref_name(v[i].op));
		if (dref_disp_of(v[i].word, &disp) && disp != v[i].disp)
			fail_msg("%s (0x%08x): reference disp %d, expected %d", v[i].src, v[i].word,
				 disp, v[i].disp);
	}
}

/* Each ops.def row at its canonical word (Ra = Rb = 31, no literal): the reference finds that row,
 * and decode.c agrees. */
static void test_decode_ref_ops(void **state)
{
	struct tally t = { 0 };
	unsigned int i;

	(void)state;
	for (i = 0; i < DREF_NOPS; i++) {
		const struct dref_op *e = &dref_ops[i];
		uint32_t word = (uint32_t)e->opc << 26 | 31u << 21 | 31u << 16;

		switch (dref_sel_of(e->opc)) {
		case DREF_FN7:
		case DREF_FN6:
		case DREF_FN11:
			word |= (uint32_t)e->fn << 5;
			break;
		case DREF_MSC:
			word |= e->fn;
			break;
		case DREF_JMP:
			word |= (uint32_t)e->fn << 14;
			break;
		case DREF_OPC:
		case DREF_NONE:
			break;
		}
		if (dref_op_of(word) != e->op)
			fail_msg("ops.def %s: canonical word 0x%08x is %s to the reference", e->id,
				 word, dref_name(dref_op_of(word)));
		check_word(&t, word);
	}
	tally_end(&t, "ops.def canonical words");
}

/*
 * Every key (insn[31:26], insn[11:5]) with the other 19 bits (insn[25:12], insn[4:0]) all zero,
 * all one, each one alone set, each one alone clear, and 300 pseudo-random fillings.
 */
#define KEY_RANDOM 300

static uint32_t key_fill(unsigned int key, uint32_t other)
{
	/* `other`'s bits 18:5 go to insn[25:12], bits 4:0 to insn[4:0]. */
	return (uint32_t)(key >> 7) << 26 | (uint32_t)(key & 0x7f) << 5 |
	       (other >> 5 & 0x3fff) << 12 | (other & 31);
}

static void test_decode_ref_keys(void **state)
{
	struct tally t = { 0 };
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned int key, b, r;

	(void)state;
	for (key = 0; key < AXP_KEY_NR; key++) {
		check_word(&t, key_fill(key, 0));
		check_word(&t, key_fill(key, 0x7ffff));
		for (b = 0; b < 19; b++) {
			check_word(&t, key_fill(key, 1u << b));
			check_word(&t, key_fill(key, 0x7ffff & ~(1u << b)));
		}
		for (r = 0; r < KEY_RANDOM; r++)
			check_word(&t, key_fill(key, (uint32_t)rng_next(&s)));
	}
	tally_end(&t, "keys x fillings");
}

/*
 * The opcodes whose operation lies outside insn[11:5] or depends on the registers: 0x14-0x18 and
 * 0x1a with every value of insn[15:0] (the whole fn11 with insn[4:0]; 0x18's function; 0x1a's
 * kind and hint), and 0x10-0x13, 0x1c likewise (fn7, the literal bit, SBZ bits), each with
 * (Ra, Rb) = (31, 31), (31, 0), (0, 31), (0, 0), (30, 17).
 */
static void test_decode_ref_functions(void **state)
{
	static const uint8_t opcs[] = { 0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
					0x16, 0x17, 0x18, 0x1a, 0x1c };
	static const uint8_t regs[][2] = { { 31, 31 }, { 31, 0 }, { 0, 31 }, { 0, 0 }, { 30, 17 } };
	struct tally t = { 0 };
	unsigned int i, j, lo;

	(void)state;
	for (i = 0; i < sizeof(opcs); i++)
		for (j = 0; j < sizeof(regs) / sizeof(regs[0]); j++)
			for (lo = 0; lo < 0x10000; lo++)
				check_word(&t, (uint32_t)opcs[i] << 26 |
						       (uint32_t)regs[j][0] << 21 |
						       (uint32_t)regs[j][1] << 16 | lo);
	tally_end(&t, "functions in full");
}

/* Stop 33's sweep found CVTDG and CVTGD decoded with Fa != F31 (Handbook 4.10.11: Fa must be
 * F31): they are invalid, with Fa = F31 they decode. */
static void test_decode_ref_vax_fa(void **state)
{
	static const struct {
		uint32_t word;
		unsigned int op;
	} cases[] = {
		{ 0x540003c0, AXP_OP_INVALID }, /* CVTDG/C $f0,$f0 with Fa = f0 */
		{ 0x55bf95a3, AXP_OP_INVALID }, /* CVTGD/S (fn11 0x4ad) $f31,$f3 with Fa = f13 */
		{ 0x57e003c0, AXP_OP_CVTDG }, /* the same CVTDG with Fa = f31 */
		{ 0x57ff95a3, AXP_OP_CVTGD }, /* the same CVTGD with Fa = f31 */
	};
	unsigned int i;
	struct axp_insn d;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		axp_decode(cases[i].word, &d);
		if (d.op != cases[i].op || axp_decode_op(cases[i].word) != cases[i].op)
			fail_msg("word 0x%08x: decoded %u, want %u", cases[i].word, d.op,
				 cases[i].op);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_ref_anchors),
		cmocka_unit_test(test_decode_ref_ops),
		cmocka_unit_test(test_decode_ref_keys),
		cmocka_unit_test(test_decode_ref_functions),
		cmocka_unit_test(test_decode_ref_vax_fa),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
