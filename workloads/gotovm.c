/* workloads/gotovm.c - the swvm bytecode VM dispatched by computed goto (labels as values). */
/*
 * swvm's bytecode and handlers, dispatched as Lua's luaV_execute and CPython do: `goto
 * *disp[op]` through a table of 8-byte label addresses (`s8addq op,base,t; ldq t,0(t);
 * jmp (t)`), the base kept in a callee-saved register. The CFG must resolve that table or every
 * handler looks unreachable.
 *
 * Usage: gotovm [N]   (default 40000 iterations of the bytecode loop)
 * Output: N, bytecodes executed and the accumulator; exit status 0.
 */
#include <inttypes.h>

#include "wl.h"

enum { PUSHI, LOAD, STORE, ADD, SUB, MUL, MOD, LT, JZ, JMP, MIX, CHECK, DUP, POP, HALT };

struct ins {
	uint8_t op;
	int32_t arg;
};

static __attribute__((noipa)) int64_t vm_mix(int64_t a, int64_t b)
{
	return (int64_t)wl_mix((uint64_t)a, (uint64_t)b) >> 8;
}

static __attribute__((noipa)) void vm_check(int64_t sp, int64_t max)
{
	if (sp < 0 || sp >= max) {
		fprintf(stderr, "gotovm: stack overflow\n");
		exit(1);
	}
}

static __attribute__((noipa)) int64_t vm_run(const struct ins *code, int64_t *steps)
{
	/* GCC's labels as values: one table of 8-byte code addresses (s8addq; ldq; jmp) */
	static void *const disp[] = {
		[PUSHI] = &&do_pushi, [LOAD] = &&do_load, [STORE] = &&do_store,
		[ADD] = &&do_add,     [SUB] = &&do_sub,	  [MUL] = &&do_mul,
		[MOD] = &&do_mod,     [LT] = &&do_lt,	  [JZ] = &&do_jz,
		[JMP] = &&do_jmp,     [MIX] = &&do_mix,	  [CHECK] = &&do_check,
		[DUP] = &&do_dup,     [POP] = &&do_pop,	  [HALT] = &&do_halt,
	};
	int64_t stack[32], local[4] = { 0 }, n = 0;
	const struct ins *in;
	int sp = 0, pc = 0;

#define NEXT                             \
	do {                             \
		in = &code[pc++];        \
		n++;                     \
		goto *disp[in->op & 15]; \
	} while (0)
	NEXT;
do_pushi:
	stack[sp++] = in->arg;
	NEXT;
do_load:
	stack[sp++] = local[in->arg];
	NEXT;
do_store:
	local[in->arg] = stack[--sp];
	NEXT;
do_add:
	sp--;
	stack[sp - 1] += stack[sp];
	NEXT;
do_sub:
	sp--;
	stack[sp - 1] -= stack[sp];
	NEXT;
do_mul:
	sp--;
	stack[sp - 1] *= stack[sp];
	NEXT;
do_mod:
	sp--;
	stack[sp - 1] %= stack[sp];
	NEXT;
do_lt:
	sp--;
	stack[sp - 1] = stack[sp - 1] < stack[sp];
	NEXT;
do_jz:
	if (!stack[--sp])
		pc = in->arg;
	NEXT;
do_jmp:
	pc = in->arg;
	NEXT;
do_mix:
	sp--;
	stack[sp - 1] = vm_mix(stack[sp - 1], stack[sp]);
	NEXT;
do_check:
	vm_check(sp, 32);
	NEXT;
do_dup:
	stack[sp] = stack[sp - 1];
	sp++;
	NEXT;
do_pop:
	sp--;
	NEXT;
do_halt:
	*steps = n;
	return stack[sp - 1];
#undef NEXT
}

int main(int argc, char **argv)
{
	int32_t n = (int32_t)wl_arg(argc, argv, 40000);
	const struct ins code[] = {
		{ PUSHI, 0 }, { STORE, 0 }, { PUSHI, 1 }, { STORE, 1 }, /* 0: i = 0, acc = 1 */
		{ LOAD, 0 },  { PUSHI, n }, { LT, 0 },	  { JZ, 26 }, /* 4: while (i < n) */
		{ LOAD, 1 },  { LOAD, 0 },  { MIX, 0 },	  { STORE, 1 }, /* 8: acc = mix(acc, i) */
		{ CHECK, 0 }, { LOAD, 0 },  { PUSHI, 7 }, { MOD, 0 }, /* 12: if (i % 7) */
		{ JZ, 21 },   { LOAD, 1 },  { PUSHI, 3 }, { MUL, 0 }, /* 16 */
		{ STORE, 1 }, { LOAD, 0 },  { PUSHI, 1 }, { ADD, 0 }, /* 20: acc *= 3; i++ */
		{ STORE, 0 }, { JMP, 4 },   { LOAD, 1 },  { DUP, 0 }, /* 24 */
		{ POP, 0 },   { HALT, 0 },
	};
	int64_t steps = 0, acc = vm_run(code, &steps);

	printf("gotovm: n=%" PRId32 " steps=%" PRId64 " acc=%016" PRIx64 "\n", n, steps,
	       (uint64_t)acc);
	return 0;
}
