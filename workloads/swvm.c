/* workloads/swvm.c - a switch-dispatched stack bytecode VM whose cases call helpers. */
/*
 * The classic interpreter loop: `switch (op)` over a dense opcode set (GCC: a GP-relative jump
 * table), one or two instructions in many cases, calls in others (a hash mix, a modulo through
 * libc's __remq, a bounds check that never fails), and a mispredicted indirect jump per
 * bytecode. The program counts to N, mixing the counter into an accumulator.
 *
 * Usage: swvm [N]   (default 40000 iterations of the bytecode loop)
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
		fprintf(stderr, "swvm: stack overflow\n");
		exit(1);
	}
}

static __attribute__((noipa)) int64_t vm_run(const struct ins *code, int64_t *steps)
{
	int64_t stack[32], local[4] = { 0 }, n = 0;
	int sp = 0, pc = 0;

	for (;;) {
		const struct ins *in = &code[pc++];

		n++;
		switch (in->op) {
		case PUSHI:
			stack[sp++] = in->arg;
			break;
		case LOAD:
			stack[sp++] = local[in->arg];
			break;
		case STORE:
			local[in->arg] = stack[--sp];
			break;
		case ADD:
			sp--;
			stack[sp - 1] += stack[sp];
			break;
		case SUB:
			sp--;
			stack[sp - 1] -= stack[sp];
			break;
		case MUL:
			sp--;
			stack[sp - 1] *= stack[sp];
			break;
		case MOD:
			sp--;
			stack[sp - 1] %= stack[sp];
			break;
		case LT:
			sp--;
			stack[sp - 1] = stack[sp - 1] < stack[sp];
			break;
		case JZ:
			if (!stack[--sp])
				pc = in->arg;
			break;
		case JMP:
			pc = in->arg;
			break;
		case MIX:
			sp--;
			stack[sp - 1] = vm_mix(stack[sp - 1], stack[sp]);
			break;
		case CHECK:
			vm_check(sp, 32);
			break;
		case DUP:
			stack[sp] = stack[sp - 1];
			sp++;
			break;
		case POP:
			sp--;
			break;
		default:
			*steps = n;
			return stack[sp - 1];
		}
	}
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

	printf("swvm: n=%" PRId32 " steps=%" PRId64 " acc=%016" PRIx64 "\n", n, steps,
	       (uint64_t)acc);
	return 0;
}
