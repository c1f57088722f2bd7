/* kmod/interp/exec_loop.h - the executor and its run loop, for axp_run() and inlined observers. */
#ifndef AXP_EXEC_LOOP_H
#define AXP_EXEC_LOOP_H

#include "axp.h"
#include "decode_int.h"
#include "fp.h"

/*
 * Semantics follow the Alpha Architecture Handbook v4 (ch. 4, instruction descriptions); where the
 * handbook leaves a choice to the implementation, qemu-alpha's behaviour (the project's reference,
 * checked by tests/diff) is followed, e.g. loads to R31/F31 are not performed (prefetch hints) and
 * STx_C compares the reserved value (QEMU's cmpxchg model of the lock flag).
 *
 * Contract (axp.h): an instruction either completes, with every side effect, or is not executed at all
 * and the run stops with a reason. The one exception is AXP_STOP_ARITH under the full policy: like the
 * hardware, the trapping instruction writes its result and the trap is reported after it.
 */

static inline uint64_t sext32(uint64_t v)
{
	return (uint64_t)(int64_t)(int32_t)(uint32_t)v;
}

/* Byte mask for the EXT/INS/MSK families and ZAPNOT (Handbook 4.6.3). */
static inline uint64_t zapnot(uint64_t v, unsigned int mask)
{
	/* Spread mask bits 0-6 to the low bit of bytes 0-6 (no carries: the partial products
	 * land 7 bits apart), bit 7 to byte 7, then fill each byte. Checked on all 256 masks. */
	uint64_t m = (((uint64_t)(mask & 0x7f) * 0x0002040810204081ull) & 0x0101010101010101ull) |
		     ((uint64_t)((mask >> 7) & 1) << 56);

	return v & (m * 0xff);
}

static uint64_t exec_bytes(unsigned int op, uint64_t va, uint64_t vb)
{
	unsigned int b = vb & 7, sh = 8 * b;

	switch (op) {
	case AXP_OP_MSKBL:
		return zapnot(va, ~(0x01u << b) & 0xff);
	case AXP_OP_MSKWL:
		return zapnot(va, ~(0x03u << b) & 0xff);
	case AXP_OP_MSKLL:
		return zapnot(va, ~(0x0fu << b) & 0xff);
	case AXP_OP_MSKQL:
		return zapnot(va, ~(0xffu << b) & 0xff);
	case AXP_OP_MSKWH:
		return zapnot(va, ~((0x03u << b) >> 8) & 0xff);
	case AXP_OP_MSKLH:
		return zapnot(va, ~((0x0fu << b) >> 8) & 0xff);
	case AXP_OP_MSKQH:
		return zapnot(va, ~((0xffu << b) >> 8) & 0xff);
	case AXP_OP_EXTBL:
		return (va >> sh) & 0xff;
	case AXP_OP_EXTWL:
		return (va >> sh) & 0xffff;
	case AXP_OP_EXTLL:
		return (va >> sh) & 0xffffffff;
	case AXP_OP_EXTQL:
		return va >> sh;
	case AXP_OP_EXTWH:
		return (va << ((64 - sh) & 63)) & 0xffff;
	case AXP_OP_EXTLH:
		return (va << ((64 - sh) & 63)) & 0xffffffff;
	case AXP_OP_EXTQH:
		return va << ((64 - sh) & 63);
	case AXP_OP_INSBL:
		return (va & 0xff) << sh;
	case AXP_OP_INSWL:
		return (va & 0xffff) << sh;
	case AXP_OP_INSLL:
		return (va & 0xffffffff) << sh;
	case AXP_OP_INSQL:
		return va << sh;
	case AXP_OP_INSWH:
		return b ? (va & 0xffff) >> (64 - sh) : 0;
	case AXP_OP_INSLH:
		return b ? (va & 0xffffffff) >> (64 - sh) : 0;
	case AXP_OP_INSQH:
		return b ? va >> (64 - sh) : 0;
	case AXP_OP_ZAP:
		return zapnot(va, ~vb & 0xff);
	case AXP_OP_ZAPNOT:
		return zapnot(va, vb & 0xff);
	case AXP_OP_SRL:
		return va >> (vb & 63);
	case AXP_OP_SLL:
		return va << (vb & 63);
	case AXP_OP_SRA:
		return (uint64_t)((int64_t)va >> (vb & 63));
	default:
		return 0;
	}
}

static uint64_t cmpbge(uint64_t va, uint64_t vb)
{
	uint64_t r = 0;

	for (unsigned int i = 0; i < 8; i++)
		if (((va >> (8 * i)) & 0xff) >= ((vb >> (8 * i)) & 0xff))
			r |= 1u << i;
	return r;
}

/* MVI (Handbook 4.13): byte/word vectors in a quadword. */
static uint64_t exec_mvi(unsigned int op, uint64_t va, uint64_t vb)
{
	uint64_t r = 0;
	unsigned int i;

	switch (op) {
	case AXP_OP_PERR:
		for (i = 0; i < 64; i += 8) {
			unsigned int x = (va >> i) & 0xff, y = (vb >> i) & 0xff;
			r += x > y ? x - y : y - x;
		}
		return r;
	case AXP_OP_UNPKBW:
		for (i = 0; i < 4; i++)
			r |= ((vb >> (8 * i)) & 0xff) << (16 * i);
		return r;
	case AXP_OP_UNPKBL:
		return (vb & 0xff) | (((vb >> 8) & 0xff) << 32);
	case AXP_OP_PKWB:
		for (i = 0; i < 4; i++)
			r |= ((vb >> (16 * i)) & 0xff) << (8 * i);
		return r;
	case AXP_OP_PKLB:
		return (vb & 0xff) | (((vb >> 32) & 0xff) << 8);
	case AXP_OP_MINSB8:
	case AXP_OP_MAXSB8:
		for (i = 0; i < 64; i += 8) {
			int8_t x = (int8_t)(va >> i), y = (int8_t)(vb >> i);
			int8_t m = (op == AXP_OP_MINSB8) == (x < y) ? x : y;
			r |= (uint64_t)(uint8_t)m << i;
		}
		return r;
	case AXP_OP_MINUB8:
	case AXP_OP_MAXUB8:
		for (i = 0; i < 64; i += 8) {
			uint8_t x = (uint8_t)(va >> i), y = (uint8_t)(vb >> i);
			uint8_t m = (op == AXP_OP_MINUB8) == (x < y) ? x : y;
			r |= (uint64_t)m << i;
		}
		return r;
	case AXP_OP_MINSW4:
	case AXP_OP_MAXSW4:
		for (i = 0; i < 64; i += 16) {
			int16_t x = (int16_t)(va >> i), y = (int16_t)(vb >> i);
			int16_t m = (op == AXP_OP_MINSW4) == (x < y) ? x : y;
			r |= (uint64_t)(uint16_t)m << i;
		}
		return r;
	case AXP_OP_MINUW4:
	case AXP_OP_MAXUW4:
		for (i = 0; i < 64; i += 16) {
			uint16_t x = (uint16_t)(va >> i), y = (uint16_t)(vb >> i);
			uint16_t m = (op == AXP_OP_MINUW4) == (x < y) ? x : y;
			r |= (uint64_t)m << i;
		}
		return r;
	default:
		return 0;
	}
}

static inline unsigned int popcount64(uint64_t v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

static inline unsigned int clz64(uint64_t v)
{
	unsigned int n = 0;

	if (!v)
		return 64;
	while (!(v & (1ull << 63))) {
		v <<= 1;
		n++;
	}
	return n;
}

static inline unsigned int ctz64(uint64_t v)
{
	unsigned int n = 0;

	if (!v)
		return 64;
	while (!(v & 1)) {
		v >>= 1;
		n++;
	}
	return n;
}

/* Integer branch conditions (Handbook 4.3). */
static bool int_cond(unsigned int op, uint64_t v)
{
	int64_t s = (int64_t)v;

	switch (op) {
	case AXP_OP_BLBC:
	case AXP_OP_CMOVLBC:
		return !(v & 1);
	case AXP_OP_BLBS:
	case AXP_OP_CMOVLBS:
		return v & 1;
	case AXP_OP_BEQ:
	case AXP_OP_CMOVEQ:
		return v == 0;
	case AXP_OP_BNE:
	case AXP_OP_CMOVNE:
		return v != 0;
	case AXP_OP_BLT:
	case AXP_OP_CMOVLT:
		return s < 0;
	case AXP_OP_BGE:
	case AXP_OP_CMOVGE:
		return s >= 0;
	case AXP_OP_BLE:
	case AXP_OP_CMOVLE:
		return s <= 0;
	case AXP_OP_BGT:
	case AXP_OP_CMOVGT:
		return s > 0;
	default:
		return false;
	}
}

/*
 * FP branch conditions test the register as a signed quadword with -0.0 treated as +0.0 (Handbook
 * 4.9: "FBxx ... -0 compares equal to +0"), as qemu-alpha does (no NaN special case).
 */
static bool fp_cond(unsigned int op, uint64_t v)
{
	int64_t s = (int64_t)v;
	uint64_t mag = v & ~(1ull << 63);

	switch (op) {
	case AXP_OP_FBEQ:
		return mag == 0;
	case AXP_OP_FBNE:
		return mag != 0;
	case AXP_OP_FBLT:
		return mag != 0 && s < 0;
	case AXP_OP_FBGE:
		return mag == 0 || s >= 0;
	case AXP_OP_FBLE:
		return s <= 0;
	case AXP_OP_FBGT:
		return s > 0;
	default:
		return false;
	}
}

static inline int stop(struct axp_stop_info *info, enum axp_stop reason, uint64_t addr, int err)
{
	info->reason = reason;
	info->addr = addr;
	info->err = err;
	return -EAGAIN;
}

/* Integer operate formats (opcodes 0x10-0x13, 0x1c). Returns 0, or 1 when the result is valid but an
 * overflow trap follows (info set). */
static inline __attribute__((__always_inline__)) int
exec_opr(struct axp_ctx *ctx, const struct axp_insn *d, const struct axp_run_cfg *cfg,
	 uint64_t *res, struct axp_stop_info *info)
{
	uint64_t va = ctx->r[d->ra];
	uint64_t vb = d->islit ? d->lit : ctx->r[d->rb];
	uint64_t r, t;
	unsigned __int128 p;

	switch (d->op) {
	case AXP_OP_ADDL:
		r = sext32(va + vb);
		break;
	case AXP_OP_S4ADDL:
		r = sext32((va << 2) + vb);
		break;
	case AXP_OP_S8ADDL:
		r = sext32((va << 3) + vb);
		break;
	case AXP_OP_SUBL:
		r = sext32(va - vb);
		break;
	case AXP_OP_S4SUBL:
		r = sext32((va << 2) - vb);
		break;
	case AXP_OP_S8SUBL:
		r = sext32((va << 3) - vb);
		break;
	case AXP_OP_ADDQ:
		r = va + vb;
		break;
	case AXP_OP_S4ADDQ:
		r = (va << 2) + vb;
		break;
	case AXP_OP_S8ADDQ:
		r = (va << 3) + vb;
		break;
	case AXP_OP_SUBQ:
		r = va - vb;
		break;
	case AXP_OP_S4SUBQ:
		r = (va << 2) - vb;
		break;
	case AXP_OP_S8SUBQ:
		r = (va << 3) - vb;
		break;
	case AXP_OP_CMPBGE:
		r = cmpbge(va, vb);
		break;
	case AXP_OP_CMPEQ:
		r = va == vb;
		break;
	case AXP_OP_CMPULT:
		r = va < vb;
		break;
	case AXP_OP_CMPULE:
		r = va <= vb;
		break;
	case AXP_OP_CMPLT:
		r = (int64_t)va < (int64_t)vb;
		break;
	case AXP_OP_CMPLE:
		r = (int64_t)va <= (int64_t)vb;
		break;
	/* /V forms: overflow raises an integer-overflow arithmetic trap (Handbook 4.4). */
	case AXP_OP_ADDLV:
		t = sext32(va) + sext32(vb);
		r = sext32(t);
		goto check_v;
	case AXP_OP_SUBLV:
		t = sext32(va) - sext32(vb);
		r = sext32(t);
		goto check_v;
	case AXP_OP_ADDQV:
		r = va + vb;
		t = ((~(va ^ vb) & (va ^ r)) >> 63) ? ~r : r;
		goto check_v;
	case AXP_OP_SUBQV:
		r = va - vb;
		t = (((va ^ vb) & (va ^ r)) >> 63) ? ~r : r;
		goto check_v;
	case AXP_OP_MULLV:
		t = (uint64_t)((int64_t)(int32_t)va * (int64_t)(int32_t)vb);
		r = sext32(t);
		goto check_v;
	case AXP_OP_MULQV:
		p = (unsigned __int128)((__int128)(int64_t)va * (__int128)(int64_t)vb);
		r = (uint64_t)p;
		t = ((uint64_t)(p >> 64) == (uint64_t)((int64_t)r >> 63)) ? r : ~r;
		goto check_v;
	case AXP_OP_MULL:
		r = sext32(va * vb);
		break;
	case AXP_OP_MULQ:
		r = va * vb;
		break;
	case AXP_OP_UMULH:
		r = (uint64_t)(((unsigned __int128)va * vb) >> 64);
		break;
	case AXP_OP_AND:
		r = va & vb;
		break;
	case AXP_OP_BIC:
		r = va & ~vb;
		break;
	case AXP_OP_BIS:
		r = va | vb;
		break;
	case AXP_OP_ORNOT:
		r = va | ~vb;
		break;
	case AXP_OP_XOR:
		r = va ^ vb;
		break;
	case AXP_OP_EQV:
		r = va ^ ~vb;
		break;
	case AXP_OP_CMOVLBS:
	case AXP_OP_CMOVLBC:
	case AXP_OP_CMOVEQ:
	case AXP_OP_CMOVNE:
	case AXP_OP_CMOVLT:
	case AXP_OP_CMOVGE:
	case AXP_OP_CMOVLE:
	case AXP_OP_CMOVGT:
		r = int_cond(d->op, va) ? vb : ctx->r[d->rc];
		break;
	case AXP_OP_AMASK:
		r = vb & ~cfg->amask;
		break;
	case AXP_OP_IMPLVER:
		r = cfg->implver;
		break;
	case AXP_OP_SEXTB:
		r = (uint64_t)(int64_t)(int8_t)vb;
		break;
	case AXP_OP_SEXTW:
		r = (uint64_t)(int64_t)(int16_t)vb;
		break;
	case AXP_OP_CTPOP:
		r = popcount64(vb);
		break;
	case AXP_OP_CTLZ:
		r = clz64(vb);
		break;
	case AXP_OP_CTTZ:
		r = ctz64(vb);
		break;
	case AXP_OP_PERR:
	case AXP_OP_UNPKBW:
	case AXP_OP_UNPKBL:
	case AXP_OP_PKWB:
	case AXP_OP_PKLB:
	case AXP_OP_MINSB8 ... AXP_OP_MAXSW4:
		r = exec_mvi(d->op, va, vb);
		break;
	case AXP_OP_FTOIT:
		r = ctx->f[d->ra];
		break;
	case AXP_OP_FTOIS:
		r = sext32(axp_s_to_mem(ctx->f[d->ra]));
		break;
	default:
		r = exec_bytes(d->op, va, vb);
		break;
	}
	*res = r;
	return 0;

check_v:
	*res = r;
	if (t != r) {
		info->exc_sum = AXP_EXC_IOV;
		stop(info, AXP_STOP_ARITH, 0, 0);
		return 1;
	}
	return 0;
}

/* Natural alignment check; LDQ_U/STQ_U clear the low bits instead. */
static inline bool is_misaligned(uint64_t ea, unsigned int size)
{
	return ea & (size - 1);
}

/*
 * FP operate instructions. fp_ops.c leaves the context unchanged when qemu-alpha would trap; under
 * the full policy the hardware (and qemu) write the result and FPCR first, so apply axp_fp_eval's
 * effect and report the trap after it (returns 1).
 */
static int exec_fp(struct axp_ctx *ctx, const struct axp_insn *d, unsigned int handback,
		   struct axp_stop_info *info)
{
	struct axp_fp_out out;
	int err = axp_fp_exec(ctx, d, handback, info);

	if (err != -EAGAIN || info->reason != AXP_STOP_ARITH || (handback & AXP_HB_ARITH))
		return err;
	if (axp_fp_eval(ctx, d, &out))
		return -EAGAIN;
	if (out.dest != AXP_NO_DEST && out.dest != 31)
		ctx->f[out.dest] = out.value;
	ctx->fpcr = out.fpcr;
	return 1;
}

/*
 * The run loop's copy of the memory system's struct axp_direct (asked once per run), with the
 * page mask worked out once; npages 0 when there is none (every access then fails the test). It
 * lives in the loop's frame, so that writing a register (a uint64_t, as npages is) does not make
 * the compiler load the fields again. load_page and store_page are the first address of the page
 * the last direct load (store) passed the permission test on, or 1 (none: no page starts at an odd
 * address): a naturally aligned access to that page needs no other test. They are forgotten
 * whenever the executor calls the memory system or an observer that may (not an inlined one:
 * axp_run_inline()), as either may change permissions.
 */
struct direct_view {
	uint8_t *host;
	const uint8_t *perm;
	uint64_t npages, page_mask, page_base; /* page_base: ~page_mask */
	uint64_t load_page, store_page;
	unsigned int page_shift;
	uint8_t load_mask, load_ok, store_mask, store_ok;
};

#define DIRECT_NO_PAGE 1ull

static inline void direct_forget(struct direct_view *dv)
{
	dv->load_page = DIRECT_NO_PAGE;
	dv->store_page = DIRECT_NO_PAGE;
}

static inline void direct_view_init(struct direct_view *dv, const struct axp_direct *dir)
{
	*dv = (struct direct_view){ .npages = 0 };
	direct_forget(dv);
	if (!dir || dir->page_shift < 1 || dir->page_shift > 63)
		return;
	dv->host = dir->host;
	dv->perm = dir->perm;
	dv->npages = dir->npages;
	dv->page_shift = dir->page_shift;
	dv->page_mask = (1ull << dir->page_shift) - 1;
	dv->page_base = ~dv->page_mask;
	dv->load_mask = dir->load_mask;
	dv->load_ok = dir->load_ok;
	dv->store_mask = dir->store_mask;
	dv->store_ok = dir->store_ok;
}

/* direct_aligned_ok() when va is not in the page it remembers: the permission test. */
static inline bool direct_page_ok(struct direct_view *dv, uint64_t va, uint64_t *page, uint8_t mask,
				  uint8_t ok)
{
	uint64_t pn = va >> dv->page_shift;

	if (pn >= dv->npages || (dv->perm[pn] & mask) != ok)
		return false;
	*page = va & dv->page_base;
	return true;
}

/* May the executor do this naturally aligned access itself (it stays inside its page)? *page:
 * the view's load_page or store_page, for `mask` and `ok` of the same kind. */
static inline bool direct_aligned_ok(struct direct_view *dv, uint64_t va, uint64_t *page,
				     uint8_t mask, uint8_t ok)
{
	if (__builtin_expect((va & dv->page_base) == *page, 1))
		return true;
	return direct_page_ok(dv, va, page, mask, ok);
}

/* May the executor do this unaligned access itself? */
static inline bool direct_unaligned_ok(const struct direct_view *dv, uint64_t va, unsigned int size,
				       uint8_t mask, uint8_t ok)
{
	uint64_t pn = va >> dv->page_shift;

	return pn < dv->npages && (dv->perm[pn] & mask) == ok &&
	       (va & dv->page_mask) <= dv->page_mask + 1 - size;
}

/* Little-endian host memory (the hosts the core runs on: Alpha and x86-64 are). */
static inline uint64_t direct_load(const uint8_t *p, unsigned int size)
{
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;

	switch (size) {
	case 1:
		return *p;
	case 2:
		__builtin_memcpy(&v2, p, 2);
		return v2;
	case 4:
		__builtin_memcpy(&v4, p, 4);
		return v4;
	default:
		__builtin_memcpy(&v8, p, 8);
		return v8;
	}
}

static inline void direct_store(uint8_t *p, unsigned int size, uint64_t v)
{
	uint32_t v4 = (uint32_t)v;
	uint16_t v2 = (uint16_t)v;

	switch (size) {
	case 1:
		*p = (uint8_t)v;
		break;
	case 2:
		__builtin_memcpy(p, &v2, 2);
		break;
	case 4:
		__builtin_memcpy(p, &v4, 4);
		break;
	default:
		__builtin_memcpy(p, &v, 8);
		break;
	}
}

/* What exec_insn() did, when it completed the instruction (else -EAGAIN: not executed). */
enum axp_exec {
	AXP_EXEC_NEXT, /* control falls through to pc + 4 */
	AXP_EXEC_JUMP, /* control went elsewhere (*next): a taken branch or a jump */
	AXP_EXEC_TRAP, /* an arithmetic trap follows (full policy; info set); *next as for NEXT */
	AXP_EXEC_STALE, /* not executed: `d` is a window entry marked stale (op AXP_OP_NR) */
};

/*
 * The common operations: exec_insn()'s fast path, the threaded loops' tables and handlers (exec.c,
 * exec_plain.h) expand this one list. AXP_FAST_OPS(X) gives X(KIND, id, args...) for each, KIND
 * one of OPR (integer operate: Rc = expr), BCOND (conditional branch), LOAD_ / STORE_ (integer and
 * LDT/STT memory access at ea & mask: size, mask, then the loaded value's conversion, destination
 * and commit label, or the stored value), ADDR (LDA/LDAH: Ra = val), LINK (BR/BSR/JMP family:
 * Ra = pc + 4, then to target). A context whose handlers are macros named after the kinds expands
 * AXP_FAST_OPS(AXP_FAST_APPLY); a table needs only the id. The operand macros F_RA, F_RB, F_RC,
 * F_ISLIT, F_LIT, F_MDISP, F_BDISP are the context's (see exec_insn()); VA, VB and BDISP_TARGET
 * are built on them. Each item expands to a whole statement list. Handbook v4 ch. 4 for every
 * operation's semantics.
 */
#define VA (ctx->r[F_RA])
#define VB (F_ISLIT ? (uint64_t)F_LIT : ctx->r[F_RB])
#define BDISP_TARGET (pc + 4 + (uint64_t)((int64_t)F_BDISP * 4))
#define AXP_FAST_APPLY(kind, ...) kind(__VA_ARGS__)
#define AXP_FAST_OPS(X)                                                                \
	X(OPR, ADDL, sext32(VA + VB))                                                  \
	X(OPR, S4ADDL, sext32((VA << 2) + VB))                                         \
	X(OPR, S8ADDL, sext32((VA << 3) + VB))                                         \
	X(OPR, SUBL, sext32(VA - VB))                                                  \
	X(OPR, ADDQ, VA + VB)                                                          \
	X(OPR, S4ADDQ, (VA << 2) + VB)                                                 \
	X(OPR, S8ADDQ, (VA << 3) + VB)                                                 \
	X(OPR, SUBQ, VA - VB)                                                          \
	X(OPR, S4SUBQ, (VA << 2) - VB)                                                 \
	X(OPR, S8SUBQ, (VA << 3) - VB)                                                 \
	X(OPR, CMPEQ, VA == VB)                                                        \
	X(OPR, CMPULT, VA < VB)                                                        \
	X(OPR, CMPULE, VA <= VB)                                                       \
	X(OPR, CMPLT, (int64_t)VA < (int64_t)VB)                                       \
	X(OPR, CMPLE, (int64_t)VA <= (int64_t)VB)                                      \
	X(OPR, AND, VA &VB)                                                            \
	X(OPR, BIC, VA & ~VB)                                                          \
	X(OPR, BIS, VA | VB)                                                           \
	X(OPR, ORNOT, VA | ~VB)                                                        \
	X(OPR, XOR, VA ^ VB)                                                           \
	X(OPR, EQV, VA ^ ~VB)                                                          \
	X(OPR, SRL, VA >> (VB & 63))                                                   \
	X(OPR, SLL, VA << (VB & 63))                                                   \
	X(OPR, SRA, (uint64_t)((int64_t)VA >> (VB & 63)))                              \
	X(OPR, EXTBL, (VA >> (8 * (VB & 7))) & 0xff)                                   \
	X(OPR, EXTWL, (VA >> (8 * (VB & 7))) & 0xffff)                                 \
	X(OPR, EXTLL, (VA >> (8 * (VB & 7))) & 0xffffffff)                             \
	X(OPR, EXTQL, VA >> (8 * (VB & 7)))                                            \
	X(OPR, INSBL, (VA & 0xff) << (8 * (VB & 7)))                                   \
	X(OPR, EXTWH, (VA << ((64 - 8 * (VB & 7)) & 63)) & 0xffff)                     \
	X(OPR, EXTLH, (VA << ((64 - 8 * (VB & 7)) & 63)) & 0xffffffff)                 \
	X(OPR, EXTQH, VA << ((64 - 8 * (VB & 7)) & 63))                                \
	X(OPR, INSWL, (VA & 0xffff) << (8 * (VB & 7)))                                 \
	X(OPR, INSLL, (VA & 0xffffffff) << (8 * (VB & 7)))                             \
	X(OPR, INSQL, VA << (8 * (VB & 7)))                                            \
	X(OPR, MSKBL, zapnot(VA, ~(0x01u << (VB & 7)) & 0xff))                         \
	X(OPR, MSKWL, zapnot(VA, ~(0x03u << (VB & 7)) & 0xff))                         \
	X(OPR, MSKLL, zapnot(VA, ~(0x0fu << (VB & 7)) & 0xff))                         \
	X(OPR, MSKQL, zapnot(VA, ~(0xffu << (VB & 7)) & 0xff))                         \
	X(OPR, ZAPNOT, zapnot(VA, VB & 0xff))                                          \
	X(OPR, ZAP, zapnot(VA, ~VB & 0xff))                                            \
	X(OPR, CMOVEQ, VA == 0 ? VB : ctx->r[F_RC])                                    \
	X(OPR, CMOVNE, VA != 0 ? VB : ctx->r[F_RC])                                    \
	X(OPR, CMOVLBS, (VA & 1) ? VB : ctx->r[F_RC])                                  \
	X(OPR, CMOVLBC, !(VA & 1) ? VB : ctx->r[F_RC])                                 \
	X(OPR, CMOVLT, (int64_t)VA < 0 ? VB : ctx->r[F_RC])                            \
	X(OPR, CMOVGE, (int64_t)VA >= 0 ? VB : ctx->r[F_RC])                           \
	X(OPR, CMOVLE, (int64_t)VA <= 0 ? VB : ctx->r[F_RC])                           \
	X(OPR, CMOVGT, (int64_t)VA > 0 ? VB : ctx->r[F_RC])                            \
	X(OPR, MULL, sext32(VA *VB))                                                   \
	X(OPR, MULQ, VA *VB)                                                           \
	X(OPR, UMULH, (uint64_t)(((unsigned __int128)VA * VB) >> 64))                  \
	X(OPR, SEXTB, (uint64_t)(int64_t)(int8_t)VB)                                   \
	X(OPR, SEXTW, (uint64_t)(int64_t)(int16_t)VB)                                  \
	X(ADDR, LDA, ctx->r[F_RB] + (int64_t)F_MDISP, ctx->r[F_RB] + (int64_t)F_MDISP) \
	X(ADDR, LDAH, ctx->r[F_RB] + (int64_t)F_MDISP,                                 \
	  ctx->r[F_RB] + (uint64_t)((int64_t)F_MDISP * 65536))                         \
	X(LOAD_, LDQ, 8, ~0ull, val, F_RA, commit_int)                                 \
	X(LOAD_, LDL, 4, ~0ull, sext32(val), F_RA, commit_int)                         \
	X(LOAD_, LDBU, 1, ~0ull, val, F_RA, commit_int)                                \
	X(LOAD_, LDWU, 2, ~0ull, val, F_RA, commit_int)                                \
	X(STORE_, STQ, 8, ~0ull, ctx->r[F_RA])                                         \
	X(STORE_, STL, 4, ~0ull, ctx->r[F_RA])                                         \
	X(STORE_, STB, 1, ~0ull, ctx->r[F_RA])                                         \
	X(STORE_, STW, 2, ~0ull, ctx->r[F_RA])                                         \
	X(LOAD_, LDQ_U, 8, ~7ull, val, F_RA, commit_int)                               \
	X(STORE_, STQ_U, 8, ~7ull, ctx->r[F_RA])                                       \
	X(LOAD_, LDT, 8, ~0ull, val, 32 + F_RA, commit)                                \
	X(STORE_, STT, 8, ~0ull, ctx->f[F_RA])                                         \
	X(BCOND, BEQ, VA == 0)                                                         \
	X(BCOND, BNE, VA != 0)                                                         \
	X(BCOND, BLT, (int64_t)VA < 0)                                                 \
	X(BCOND, BGE, (int64_t)VA >= 0)                                                \
	X(BCOND, BLE, (int64_t)VA <= 0)                                                \
	X(BCOND, BGT, (int64_t)VA > 0)                                                 \
	X(BCOND, BLBC, !(VA & 1))                                                      \
	X(BCOND, BLBS, VA & 1)                                                         \
	X(LINK, BR, BDISP_TARGET)                                                      \
	X(LINK, BSR, BDISP_TARGET)                                                     \
	X(LINK, JMP, ctx->r[F_RB] & ~(uint64_t)3)                                      \
	X(LINK, JSR, ctx->r[F_RB] & ~(uint64_t)3)                                      \
	X(LINK, RET, ctx->r[F_RB] & ~(uint64_t)3)                                      \
	X(LINK, JSR_CO, ctx->r[F_RB] & ~(uint64_t)3)

/*
 * Execute the decoded instruction `d` (operation `op`, read from it before any store) at `pc`.
 * Returns an AXP_EXEC_* with the registers written, *next the address control goes to and `ev`
 * filled if non-NULL; or -EAGAIN when it was not executed (context unchanged, info set). The
 * caller writes ctx->pc (the run loop keeps it in a local); exec_insn() sets it to pc before it
 * calls any memory operation, which may read it.
 *
 * With `full` (the loop without a decode cache or an observer), only the operation of `word` has
 * been decoded (d is full, with its word set): the common operations take their fields from the
 * word, and the general code decodes the rest into *full first.
 */
static inline __attribute__((__always_inline__)) int
exec_insn(struct axp_ctx *ctx, const struct axp_insn *d, uint8_t op, uint32_t word,
	  struct axp_insn *full, uint64_t pc, uint64_t *next_pc, const struct axp_run_cfg *cfg,
	  struct direct_view *dir, struct axp_event *ev, struct axp_stop_info *info)
{
	const struct axp_op_info *oi;
	uint64_t next = pc + 4, ea = 0, val = 0, sval = 0, loaded;
	unsigned int dest = AXP_NO_DEST, size = 0;
	struct axp_access acc;
	bool taken = false, is_load = false, is_store = false;
	int err, trap = 0;

	if (ev)
		acc = (struct axp_access){ 0, AXP_LVL_UNKNOWN };
		/*
	 * The common operations, dispatched by one jump on the operation: integer operates that
	 * cannot trap, LDA/LDAH, aligned-or-fixed-up integer loads and stores, branches and jumps.
	 * They write their integer result to its register and then zero R31 (cheaper than a test),
	 * so nothing reads R31 in between. Anything else, and any case one of them cannot finish
	 * simply (a load to R31, an unaligned access the policy hands back), goes to the general
	 * code below, which starts from scratch: nothing has changed by then.
	 */
		/* The fields: decoded, or from the word (`full`; axp.h draws the formats). */
#define F_RA (full ? (word >> 21) & 31 : d->ra)
#define F_RB (full ? (word >> 16) & 31 : d->rb)
#define F_RC (full ? word & 31 : d->rc)
#define F_ISLIT (full ? (word >> 12) & 1 : d->islit)
#define F_LIT (full ? (word >> 13) & 0xff : d->lit)
#define F_MDISP (full ? (int32_t)(int16_t)word : d->disp)
#define F_BDISP (full ? (int32_t)(word << 11) >> 11 : d->disp)
#define OPR(id, expr)         \
	case AXP_OP_##id:     \
		val = (expr); \
		dest = F_RC;  \
		goto commit_int;
#define BCOND(id, cond)                      \
	case AXP_OP_##id:                    \
		if (cond) {                  \
			taken = true;        \
			next = BDISP_TARGET; \
		}                            \
		goto written;
#define ADDR(id, ea_expr, val_expr) \
	case AXP_OP_##id:           \
		ea = (ea_expr);     \
		val = (val_expr);   \
		dest = F_RA;        \
		goto commit_int;
#define LINK(id, target)         \
	case AXP_OP_##id:        \
		val = pc + 4;    \
		dest = F_RA;     \
		next = (target); \
		taken = true;    \
		goto commit_int;
#define LOAD_(id, sz, mask, conv, dst, to)                                                       \
	case AXP_OP_##id:                                                                        \
		ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask);                                 \
		size = sz;                                                                       \
		if (F_RA == 31)                                                                  \
			break;                                                                   \
		if (__builtin_expect(!is_misaligned(ea, sz), 1)) {                               \
			if (!dir || !direct_aligned_ok(dir, ea, &dir->load_page, dir->load_mask, \
						       dir->load_ok))                            \
				goto id##_call;                                                  \
		} else if (cfg->handback & AXP_HB_UNALIGNED) {                                   \
			break;                                                                   \
		} else if (!dir ||                                                               \
			   !direct_unaligned_ok(dir, ea, sz, dir->load_mask, dir->load_ok)) {    \
			goto id##_call;                                                          \
		}                                                                                \
		val = direct_load(dir->host + ea, sz);                                           \
		goto id##_loaded;                                                                \
		id##_call : ctx->pc = pc;                                                        \
		if (dir)                                                                         \
			direct_forget(dir);                                                      \
		acc = (struct axp_access){ 0, AXP_LVL_UNKNOWN };                                 \
		err = cfg->mem->load(cfg->mem_priv, ea, sz, &loaded, &acc);                      \
		if (err)                                                                         \
			return stop(info, AXP_STOP_LOAD_FAULT, ea, err);                         \
		val = loaded;                                                                    \
		id##_loaded : val = conv;                                                        \
		is_load = true;                                                                  \
		dest = dst;                                                                      \
		goto to;
#define STORE_(id, sz, mask, src)                                                                  \
	case AXP_OP_##id:                                                                          \
		ea = (ctx->r[F_RB] + (int64_t)F_MDISP) & (mask);                                   \
		size = sz;                                                                         \
		sval = src;                                                                        \
		if (__builtin_expect(!is_misaligned(ea, sz), 1)) {                                 \
			if (!dir || !direct_aligned_ok(dir, ea, &dir->store_page, dir->store_mask, \
						       dir->store_ok))                             \
				goto id##_call;                                                    \
		} else if (cfg->handback & AXP_HB_UNALIGNED) {                                     \
			break;                                                                     \
		} else if (!dir ||                                                                 \
			   !direct_unaligned_ok(dir, ea, sz, dir->store_mask, dir->store_ok)) {    \
			goto id##_call;                                                            \
		}                                                                                  \
		direct_store(dir->host + ea, sz, sval);                                            \
		goto id##_stored;                                                                  \
		id##_call : ctx->pc = pc;                                                          \
		if (dir)                                                                           \
			direct_forget(dir);                                                        \
		acc = (struct axp_access){ 0, AXP_LVL_UNKNOWN };                                   \
		err = cfg->mem->store(cfg->mem_priv, ea, sz, sval, &acc);                          \
		if (err)                                                                           \
			return stop(info, AXP_STOP_STORE_FAULT, ea, err);                          \
		id##_stored : is_store = true;                                                     \
		goto written;

	/* (every value of the byte has a case: no range check before the jump) */
	_Static_assert(AXP_OP_NR < 256, "operations fit a byte");
	switch ((uint8_t)op) {
		AXP_FAST_OPS(AXP_FAST_APPLY)
	case AXP_OP_INVALID:
		return stop(info, AXP_STOP_ILLEGAL, 0, 0);
	case AXP_OP_NR ... 255:
		return AXP_EXEC_STALE;
	default:
		break;
	}
#undef F_RA
#undef F_RB
#undef F_RC
#undef F_ISLIT
#undef F_LIT
#undef F_MDISP
#undef F_BDISP
#undef OPR
#undef BCOND
#undef LOAD_
#undef STORE_
#undef ADDR
#undef LINK
	/* The general code: the memory operations it calls may read ctx->pc. */
	ea = 0;
	size = 0;
	if (full) {
		axp_decode_inline(word, full);
		d = full;
	}
	oi = &axp_op_info[op];
	ctx->pc = pc;
	if (dir)
		direct_forget(dir);
	acc = (struct axp_access){ 0, AXP_LVL_UNKNOWN };

	switch (oi->fmt) {
	case AXP_FMT_OPR:
	case AXP_FMT_FTI:
		trap = exec_opr(ctx, d, cfg, &val, info);
		if (trap && (cfg->handback & AXP_HB_ARITH))
			return -EAGAIN;
		dest = d->rc;
		break;

	case AXP_FMT_MEM:
		ea = ctx->r[d->rb] + (int64_t)d->disp;
		if (op == AXP_OP_LDA) {
			val = ea;
			dest = d->ra;
			break;
		}
		if (op == AXP_OP_LDAH) {
			val = ctx->r[d->rb] + (uint64_t)((int64_t)d->disp * 65536);
			dest = d->ra;
			break;
		}
		if (oi->flags & AXP_F_VAX)
			return stop(info, AXP_STOP_VAX_FP, 0, 0);
		size = axp_mem_size(oi->flags);
		if (op == AXP_OP_LDQ_U || op == AXP_OP_STQ_U)
			ea &= ~(uint64_t)7;
		if (oi->flags & AXP_F_LD) {
			/* Loads to R31/F31 are prefetch hints and are not performed. */
			if (d->ra == 31)
				break;
			if ((oi->flags & AXP_F_LOCK) && (cfg->handback & AXP_HB_LLSC))
				return stop(info, AXP_STOP_LLSC, ea, 0);
			if (is_misaligned(ea, size) &&
			    ((cfg->handback & AXP_HB_UNALIGNED) || (oi->flags & AXP_F_LOCK)))
				return stop(info, AXP_STOP_UNALIGNED, ea, 0);
			err = cfg->mem->load(cfg->mem_priv, ea, size, &loaded, &acc);
			if (err)
				return stop(info, AXP_STOP_LOAD_FAULT, ea, err);
			val = loaded;
			is_load = true;
			switch (op) {
			case AXP_OP_LDL:
			case AXP_OP_LDL_L:
				val = sext32(val);
				break;
			case AXP_OP_LDS:
				val = axp_s_from_mem((uint32_t)val);
				break;
			default:
				break;
			}
			if (oi->flags & AXP_F_LOCK) {
				ctx->lock_addr = ea;
				ctx->lock_value = val;
			}
			dest = (oi->flags & AXP_F_FA) ? 32 + d->ra : d->ra;
			break;
		}
		/* Stores. */
		sval = (oi->flags & AXP_F_FA) ? ctx->f[d->ra] : ctx->r[d->ra];
		if (op == AXP_OP_STS)
			sval = axp_s_to_mem(sval);
		if (oi->flags & AXP_F_LOCK) {
			uint64_t cur;

			if (cfg->handback & AXP_HB_LLSC)
				return stop(info, AXP_STOP_LLSC, ea, 0);
			/*
			 * QEMU model: at the reserved address, a compare-and-swap of the store's size
			 * against the value LDx_L read (truncated to that size) stores; Ra reports
			 * whether the old memory value, sign-extended, equals that whole value. The
			 * two differ only for mixed sizes (LDQ_L + STL_C), which the architecture
			 * leaves UNPREDICTABLE. The reservation is cleared either way.
			 */
			val = 0;
			if (ea == ctx->lock_addr) {
				uint64_t mask = size == 4 ? 0xffffffffull : UINT64_MAX;

				if (is_misaligned(ea, size))
					return stop(info, AXP_STOP_UNALIGNED, ea, 0);
				err = cfg->mem->load(cfg->mem_priv, ea, size, &cur, &acc);
				if (err)
					return stop(info, AXP_STOP_STORE_FAULT, ea, err);
				if ((cur & mask) == (ctx->lock_value & mask)) {
					err = cfg->mem->store(cfg->mem_priv, ea, size, sval, &acc);
					if (err)
						return stop(info, AXP_STOP_STORE_FAULT, ea, err);
					is_store = true;
				}
				val = (size == 4 ? sext32(cur) : cur) == ctx->lock_value;
			}
			ctx->lock_addr = AXP_NO_LOCK;
			dest = d->ra;
			break;
		}
		if (is_misaligned(ea, size) && (cfg->handback & AXP_HB_UNALIGNED))
			return stop(info, AXP_STOP_UNALIGNED, ea, 0);
		err = cfg->mem->store(cfg->mem_priv, ea, size, sval, &acc);
		if (err)
			return stop(info, AXP_STOP_STORE_FAULT, ea, err);
		is_store = true;
		break;

	case AXP_FMT_BRA:
		if (oi->flags & AXP_F_DA) { /* BR, BSR */
			val = next;
			dest = d->ra;
			taken = true;
		} else if (oi->flags & AXP_F_FA) {
			taken = fp_cond(op, ctx->f[d->ra]);
		} else {
			taken = int_cond(op, ctx->r[d->ra]);
		}
		if (taken)
			next = pc + 4 + (uint64_t)((int64_t)d->disp * 4);
		break;

	case AXP_FMT_JMP:
		val = pc + 4;
		dest = d->ra;
		next = ctx->r[d->rb] & ~(uint64_t)3;
		taken = true;
		break;

	case AXP_FMT_MSC:
		switch (op) {
		case AXP_OP_RPCC:
			if (!cfg->mem->rpcc)
				return stop(info, AXP_STOP_UNSUPPORTED, 0, 0);
			val = cfg->mem->rpcc(cfg->mem_priv);
			dest = d->ra;
			break;
		case AXP_OP_RC:
		case AXP_OP_RS:
			val = ctx->intr_flag;
			ctx->intr_flag = op == AXP_OP_RS;
			dest = d->ra;
			break;
		case AXP_OP_MB:
		case AXP_OP_WMB:
			if (cfg->mem->fence)
				cfg->mem->fence(cfg->mem_priv,
						op == AXP_OP_MB ? AXP_BARRIER_MB : AXP_BARRIER_WMB);
			break;
		default: /* TRAPB, EXCB and cache hints: no architectural effect here */
			break;
		}
		break;

	case AXP_FMT_ITF:
		if (oi->flags & AXP_F_VAX)
			return stop(info, AXP_STOP_VAX_FP, 0, 0);
		val = op == AXP_OP_ITOFS ? axp_s_from_mem((uint32_t)ctx->r[d->ra]) : ctx->r[d->ra];
		dest = 32 + d->rc;
		break;

	case AXP_FMT_FPO:
		if (oi->flags & AXP_F_VAX)
			return stop(info, AXP_STOP_VAX_FP, 0, 0);
		/* IEEE arithmetic, conversions, copies, FCMOV, FPCR moves: fp_ops.c. */
		err = exec_fp(ctx, d, cfg->handback, info);
		if (err < 0)
			return err;
		trap = err;
		dest = (oi->flags & AXP_F_DA) ? 32 + d->ra :
		       (oi->flags & AXP_F_DC) ? 32 + d->rc :
						63;
		if (dest == 63)
			dest = AXP_NO_DEST;
		else
			val = ctx->f[dest - 32];
		goto written;

	case AXP_FMT_PAL:
		if (op == AXP_OP_CALL_PAL)
			return stop(info, AXP_STOP_CALL_PAL, 0, 0);
		return stop(info, AXP_STOP_ILLEGAL, 0, 0);

	case AXP_FMT_PCD:
	default:
		return stop(info, AXP_STOP_ILLEGAL, 0, 0);
	}

commit:
	/* Commit: R31 and F31 are never written. */
	if (dest < 31)
		ctx->r[dest] = val;
	else if (dest >= 32 && dest < 63)
		ctx->f[dest - 32] = val;
	else
		dest = AXP_NO_DEST;
	goto written;
commit_int:
	ctx->r[dest] = val;
	ctx->r[31] = 0;
	if (dest == 31)
		dest = AXP_NO_DEST;
written:
	*next_pc = next;
	if (ev) {
		ev->pc = pc;
		ev->next_pc = next;
		ev->word = d->word;
		ev->op = (uint16_t)op;
		ev->dest = dest;
		ev->size = size;
		ev->value = val;
		ev->ea = ea;
		ev->store_value = sval;
		ev->acc = acc;
		ev->is_load = is_load;
		ev->is_store = is_store;
		ev->taken = taken;
		ev->insn = d;
	}
	if (trap)
		return AXP_EXEC_TRAP;
	return taken ? AXP_EXEC_JUMP : AXP_EXEC_NEXT;
}

/*
 * The decoded page axp_run() reads from (axp_mem_ops.insn_page): [va, va + 4 * n) with its
 * entries, or n = 0 when there is none.
 */
struct insn_window {
	const struct axp_insn *insn;
	uint64_t va, n;
};

/* fetch_insn() at pc: the entry, or NULL (fetch fault, or fetch_insn() broke its contract with a
 * stale entry: info set). */
static inline __attribute__((__always_inline__)) const struct axp_insn *
fetch_entry(uint64_t pc, const struct axp_run_cfg *cfg, struct axp_stop_info *info)
{
	const struct axp_insn *dp;
	int err;

	dp = cfg->mem->fetch_insn(cfg->mem_priv, pc, &err);
	if (__builtin_expect(!dp || dp->op >= AXP_OP_NR, 0)) {
		info->word = 0;
		stop(info, AXP_STOP_FETCH_FAULT, pc, dp ? -EINVAL : err);
		return NULL;
	}
	return dp;
}

/*
 * The window missed (another page, a stale entry, or none yet): fetch_insn() at pc, then move the
 * window to that page if the memory system offers it. Returns the instruction or NULL (info set).
 */
static __attribute__((__noinline__)) const struct axp_insn *
window_miss(uint64_t pc, const struct axp_run_cfg *cfg, struct insn_window *w,
	    struct axp_stop_info *info)
{
	const struct axp_insn *dp = fetch_entry(pc, cfg, info);

	if (!dp)
		return NULL;
	w->n = 0;
	if (cfg->mem->insn_page) {
		w->insn = cfg->mem->insn_page(cfg->mem_priv, pc, &w->va, &w->n);
		if (!w->insn)
			w->n = 0;
	}
	return dp;
}

/*
 * An observer as a run loop instance calls it after each completed instruction: with the
 * argument the instance was given (the same for the whole run: axp_run() gives cfg->obs) and the
 * event; returns true to stop the run after that instruction (AXP_STOP_OBSERVER).
 */
typedef bool (*axp_observe_fn)(const void *arg, const struct axp_event *ev);

/*
 * The loop, instantiated with and without an observer (`observe` NULL: none) and with and without
 * the memory system's decoded-instruction fast path, so the common cases pay nothing for what they
 * do not use. axp_run() passes obs_call(), which calls cfg->obs->insn; axp_run_inline() callers
 * pass their own function, which the compiler inlines here (no indirect call per instruction).
 *
 * With the fast path the executor works on the window's entry itself, not a copy: the only thing a
 * store into the instruction's own word changes there is `op` (set to AXP_OP_NR), which the
 * executor has read before any store. The observer gets a copy taken before execution, or with
 * `entry` (inlined observers, which read ev->op, not ev->insn->op) the entry itself; an `entry`
 * observer also keeps axp_run_inline()'s contract (no context, no memory system), so neither
 * ctx->pc nor the direct view's pages are brought up to date for it.
 *
 * Straight-line code runs in segments: where the window lookup finds pc, `seg` is how many
 * instructions may run from there on before anything needs checking (the budget left, and the
 * window's end), and after an instruction that falls through the next one is simply the next
 * entry (one that a store has marked stale comes back from exec_insn() as AXP_EXEC_STALE, and is
 * fetched again). Only a control transfer, a stale entry or the segment's end looks pc up again.
 * The run has executed budget - left - seg instructions at any point.
 *
 * pc lives in a local: ctx->pc is written before each memory operation the loop calls (fetch,
 * fetch_insn; exec_insn() does the same for its own), before an observer (but an `entry` one),
 * and when the run ends.
 * The memory system's direct access description is copied too (struct direct_view).
 */
static inline __attribute__((__always_inline__)) enum axp_stop
run_loop(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, uint64_t budget,
	 struct axp_stop_info *info, axp_observe_fn observe, const void *arg, bool cached,
	 bool entry)
{
	struct direct_view dir;
	const struct axp_insn *dp = NULL, *wbase = NULL;
	struct insn_window nw;
	struct axp_insn d;
	struct axp_event ev;
	uint64_t left = budget, seg = 0, pc = ctx->pc, next = pc, wva = 0, wlen = 0;
	unsigned int op;
	bool halt = false;
	int ret;

	direct_view_init(&dir, cfg->mem->direct ? cfg->mem->direct(cfg->mem_priv) : NULL);
	info->exc_sum = 0;
	if (!left)
		goto budget;
lookup:
	/* dp: the instruction at pc */
	if (cached) {
		uint64_t off = pc - wva;

		if (__builtin_expect(off < wlen && !(off & 3), 1)) {
			dp = wbase + (off >> 2);
			seg = (wlen - off) >> 2;
			if (seg > left)
				seg = left;
			left -= seg;
			goto have;
		}
miss:
		ctx->pc = pc;
		direct_forget(&dir);
		if (!cfg->mem->insn_page) {
			/* no page to move to (the kernel glue): fetch_insn() for each instruction,
			 * called here rather than through window_miss() */
			dp = fetch_entry(pc, cfg, info);
			if (!dp)
				goto fault;
		} else {
			dp = window_miss(pc, cfg, &nw, info);
			if (!dp)
				goto fault;
			wbase = nw.insn;
			wva = nw.va;
			wlen = 4 * nw.n;
		}
	} else {
		uint32_t word;
		int err;

		ctx->pc = pc;
		direct_forget(&dir);
		err = cfg->mem->fetch(cfg->mem_priv, pc, &word);
		if (err) {
			info->word = 0;
			stop(info, AXP_STOP_FETCH_FAULT, pc, err);
			goto fault;
		}
		dp = &d;
		seg = 1;
		left--;
		if (observe) {
			axp_decode_inline(word, &d);
			goto have;
		}
		/* only the operation: exec_insn() takes the fields from the word */
		d.word = word;
		op = axp_decode_op(word);
		ret = exec_insn(ctx, &d, op, word, &d, pc, &next, cfg, &dir, NULL, info);
		goto done;
	}
	/* the entry fetch_insn() gave: alone */
	seg = 1;
	left--;
have:
	op = dp->op;
	if (observe && cached && !entry)
		d = *dp; /* the observer's copy (see above) */
	ret = exec_insn(ctx, dp, op, 0, NULL, pc, &next, cfg, &dir, observe ? &ev : NULL, info);
done:
	if (__builtin_expect(ret < 0, 0))
		goto stopped;
	if (cached && __builtin_expect(ret == AXP_EXEC_STALE, 0)) {
		left += seg;
		seg = 0;
		goto miss;
	}
	seg--;
	if (observe) {
		/* The executor read the window's entry (reading the fresh copy back at once would
		 * stall on store forwarding); the observer gets the copy (or the entry). */
		if (cached)
			ev.insn = entry ? dp : &d;
		if (!entry) {
			ctx->pc = next;
			direct_forget(&dir);
		}
		/* (one call site: an inlined observer is expanded once) */
		halt = observe(arg, &ev);
	}
	if (entry && __builtin_expect(ret == AXP_EXEC_NEXT && !halt, 1)) {
		/* the common case with an inlined observer: on to the next instruction, no other
		 * test (placed first; every instruction that fell through comes here) */
fell_through:
		pc += 4;
		if (cached && __builtin_expect(seg != 0, 1)) {
			dp++;
			goto have;
		}
		if (left)
			goto lookup;
		goto budget;
	}
	if (__builtin_expect(ret == AXP_EXEC_TRAP, 0)) {
		ctx->pc = next; /* the trapping instruction completed */
		goto stopped;
	}
	if (observe && halt) {
		ctx->pc = next;
		info->reason = AXP_STOP_OBSERVER;
		info->word = dp->word;
		info->pc = next;
		goto out;
	}
	if (ret == AXP_EXEC_NEXT)
		goto fell_through;
	pc = next;
	left += seg;
	seg = 0;
	if (left)
		goto lookup;
budget:
	ctx->pc = pc;
	info->reason = AXP_STOP_BUDGET;
	if (left + seg != budget)
		info->word = dp->word;
	info->pc = pc;
	goto out;
stopped:
	info->word = dp->word;
	if (ret < 0)
		ctx->pc = pc;
fault:
	info->pc = pc;
out:
	info->executed = budget - left - seg;
	return info->reason;
}

/* axp_run()'s observer (arg: cfg->obs): its insn(), then its stop flag. */
static inline __attribute__((__always_inline__)) bool obs_call(const void *arg,
							       const struct axp_event *ev)
{
	const struct axp_observer *obs = arg;

	obs->insn(obs->priv, ev);
	return obs->stop && *obs->stop;
}

/*
 * axp_run() with observe(arg, ev), a function the caller's compiler sees doing what
 * cfg->obs->insn and its stop flag do, inlined in the loop (arg: what it needs, e.g. a local
 * struct of pointers the loop then keeps in registers). Only the loop with the
 * decoded-instruction fast path (the hosted machine's) is instantiated; without it, this is
 * axp_run(). `observe` gets the window's entry as ev->insn: every field as decoded except op,
 * which is ev->op. It reads nothing of the context (ctx->pc is not written before it: the event
 * has pc and next_pc) and calls no memory operation (the executor keeps the pages whose access
 * it checked across it).
 */
static inline __attribute__((__always_inline__)) enum axp_stop
axp_run_inline(struct axp_ctx *ctx, const struct axp_run_cfg *cfg, uint64_t budget,
	       struct axp_stop_info *info, axp_observe_fn observe, const void *arg)
{
	if (!cfg->mem->fetch_insn)
		return axp_run(ctx, cfg, budget, info);
	return run_loop(ctx, cfg, budget, info, observe, arg, true, true);
}

#endif /* AXP_EXEC_LOOP_H */
