/* tests/interp/fpcheck/fpcheck_alpha.c - run FP instruction vectors under qemu-alpha. */
/*
 * Built with alpha-linux-gnu-gcc and run under `qemu-alpha -L /usr/alpha-linux-gnu`. Reads vectors
 * from stdin, one a line:   WORD FA FB FC FPCR   (hex; WORD is the instruction, its register
 * fields are 1/2/3 or 31). For each it sets FPCR (MT_FPCR), loads $f1..$f3 and the integer $1
 * (= FA, for ITOFx), clears $3, executes WORD, and prints
 *     TRAP F3 F1 FPCR R3
 * TRAP is 1 when SIGFPE arrived; then F3/F1/FPCR/R3 are the values the signal context held (the
 * state at the trap), otherwise the values after the instruction. With -v it also prints the values
 * after the handler returned. The instruction stubs are generated into an executable buffer once,
 * one per distinct WORD, before any vector runs.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

struct vec {
	uint32_t word;
	uint64_t fa, fb, fc, fpcr;
};

/* The block a stub reads and writes through $16. */
struct frame {
	uint64_t fa, fb, fc, fpcr; /* in */
	uint64_t out_fc, out_fpcr, out_fa, out_r3; /* out */
};

#define STUB_WORDS 16
#define TRAP_PC_OFFSET 32 /* the instruction after WORD, relative to the stub */

static volatile sig_atomic_t trapped;
static uint64_t trap_fc, trap_fa, trap_fpcr, trap_pc, trap_r3;
static int trap_code;

static void on_fpe(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	(void)sig;
	trapped = 1;
	trap_code = si->si_code;
	trap_fc = uc->uc_mcontext.sc_fpregs[3];
	trap_fa = uc->uc_mcontext.sc_fpregs[1];
	trap_fpcr = uc->uc_mcontext.sc_fpcr;
	trap_r3 = uc->uc_mcontext.sc_regs[3];
	trap_pc = uc->uc_mcontext.sc_pc;
}

/* Encode a memory-format instruction. */
static uint32_t mem(unsigned int opc, unsigned int ra, unsigned int rb, int disp)
{
	return (opc << 26) | (ra << 21) | (rb << 16) | ((uint32_t)disp & 0xffff);
}

static uint32_t fpo(unsigned int opc, unsigned int fa, unsigned int fb, unsigned int fn,
		    unsigned int fc)
{
	return (opc << 26) | (fa << 21) | (fb << 16) | (fn << 5) | fc;
}

static void emit_stub(uint32_t *p, uint32_t word)
{
	int i = 0;

	p[i++] = mem(0x23, 0, 16, 24); /* ldt $f0,24($16) */
	p[i++] = fpo(0x17, 0, 0, 0x024, 0); /* mt_fpcr $f0 */
	p[i++] = mem(0x23, 1, 16, 0); /* ldt $f1,0($16) */
	p[i++] = mem(0x23, 2, 16, 8); /* ldt $f2,8($16) */
	p[i++] = mem(0x23, 3, 16, 16); /* ldt $f3,16($16) */
	p[i++] = mem(0x29, 1, 16, 0); /* ldq $1,0($16) */
	p[i++] = 0x47ff0403; /* bis $31,$31,$3 */
	p[i++] = word;
	p[i++] = fpo(0x17, 0, 0, 0x025, 0); /* mf_fpcr $f0 */
	p[i++] = mem(0x27, 3, 16, 32); /* stt $f3,32($16) */
	p[i++] = mem(0x27, 0, 16, 40); /* stt $f0,40($16) */
	p[i++] = mem(0x27, 1, 16, 48); /* stt $f1,48($16) */
	p[i++] = mem(0x2d, 3, 16, 56); /* stq $3,56($16) */
	p[i++] = 0x6bfa8001; /* ret $31,($26),1 */
	while (i < STUB_WORDS)
		p[i++] = 0x47ff041f; /* nop */
}

static int cmp_word(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
	size_t nvec = 0, cap = 1024, nstub = 0, i;
	struct vec *v = malloc(cap * sizeof(*v));
	uint32_t *words, *code;
	char line[256];
	struct sigaction sa;

	if (!v)
		return 1;
	while (fgets(line, sizeof(line), stdin)) {
		unsigned long w;
		unsigned long long a, b, c, f;

		if (sscanf(line, "%lx %llx %llx %llx %llx", &w, &a, &b, &c, &f) != 5)
			continue;
		if (nvec == cap) {
			cap *= 2;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				return 1;
		}
		v[nvec++] = (struct vec){ (uint32_t)w, a, b, c, f };
	}
	words = malloc((nvec + 1) * sizeof(*words));
	if (!words)
		return 1;
	for (i = 0; i < nvec; i++)
		words[i] = v[i].word;
	qsort(words, nvec, sizeof(*words), cmp_word);
	for (i = 0; i < nvec; i++)
		if (nstub == 0 || words[nstub - 1] != words[i])
			words[nstub++] = words[i];
	code = mmap(NULL, (nstub + 1) * STUB_WORDS * 4, PROT_READ | PROT_WRITE | PROT_EXEC,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	for (i = 0; i < nstub; i++)
		emit_stub(code + i * STUB_WORDS, words[i]);
	__asm__ volatile("call_pal 0x86" ::: "memory"); /* imb */

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fpe;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGFPE, &sa, NULL);

	for (i = 0; i < nvec; i++) {
		struct frame fr = { v[i].fa, v[i].fb, v[i].fc, v[i].fpcr, 0, 0, 0, 0 };
		uint32_t *slot = bsearch(&v[i].word, words, nstub, sizeof(*words), cmp_word);
		uint32_t *stub = code + (slot - words) * STUB_WORDS;

		trapped = 0;
		((void (*)(struct frame *))stub)(&fr);
		if (trapped) {
			/* A trap anywhere but at WORD, or not FPE_FLTINV, is reported as TRAP 2. */
			int odd = trap_pc != (uint64_t)(uintptr_t)stub + TRAP_PC_OFFSET ||
				  trap_code != FPE_FLTINV;

			printf("%d %016llx %016llx %016llx %016llx", odd ? 2 : 1,
			       (unsigned long long)trap_fc, (unsigned long long)trap_fa,
			       (unsigned long long)trap_fpcr, (unsigned long long)trap_r3);
		} else {
			printf("0 %016llx %016llx %016llx %016llx", (unsigned long long)fr.out_fc,
			       (unsigned long long)fr.out_fa, (unsigned long long)fr.out_fpcr,
			       (unsigned long long)fr.out_r3);
		}
		if (verbose && trapped)
			printf("  | after %016llx %016llx %016llx", (unsigned long long)fr.out_fc,
			       (unsigned long long)fr.out_fa, (unsigned long long)fr.out_fpcr);
		printf("\n");
	}
	return 0;
}
