/* workloads/ev6-micro/e_fp_ind.c - EV6 micro: 8 independent FP adds and 8 multiplies, two FP pipes. */
#include "fp.h"

/*
 * Body: 8 addt on f13..f20 (+ 0.0) and 8 mult on f21..f28 (x 1.0), interleaved, then nop, nop,
 * subq n, bne: 20 instructions, 5 quadpacks.
 * Expected 8 cycles/iteration: adds issue only on FA and multiplies only on FM (HRM §2.2,
 * Table 2-2), each pipelined at one a cycle (GCC ev6.md reserves the pipe one cycle): 8 of each
 * take 8 cycles; each register's chain is one 4-cycle operation per iteration (Table 2-4); fetch
 * needs 5 cycles; the 15-entry FP queue (HRM Fig. 2-1) fills and map waits for it, which does
 * not change the rate.
 */
#define P(a, m) "\taddt $f" #a ",$f11,$f" #a "\n\tmult $f" #m ",$f10,$f" #m "\n"
/* clang-format off */
__asm__(K_BEGIN("k_e_fp_ind") FP_SETUP
	"\tcpys $f12,$f12,$f13\n\tcpys $f12,$f12,$f14\n\tcpys $f12,$f12,$f15\n"
	"\tcpys $f12,$f12,$f16\n\tcpys $f12,$f12,$f17\n\tcpys $f12,$f12,$f18\n"
	"\tcpys $f12,$f12,$f19\n\tcpys $f12,$f12,$f20\n\tcpys $f12,$f12,$f21\n"
	"\tcpys $f12,$f12,$f22\n\tcpys $f12,$f12,$f23\n\tcpys $f12,$f12,$f24\n"
	"\tcpys $f12,$f12,$f25\n\tcpys $f12,$f12,$f26\n\tcpys $f12,$f12,$f27\n"
	"\tcpys $f12,$f12,$f28\n"
	"\t.align 6\n"
	"1:\t" P(13, 21) P(14, 22) P(15, 23) P(16, 24) P(17, 25) P(18, 26) P(19, 27) P(20, 28)
	"\tnop\n\tnop\n"
	"\tsubq $16,1,$16\n"
	"\tbne $16,1b\n"
	"\taddt $f13,$f28,$f13\n"
	"\tstt $f13,24($17)\n"
	"\tret $31,($26),1\n" K_END("k_e_fp_ind"));
/* clang-format on */
void k_e_fp_ind(long n, double *k);

int main(int argc, char **argv)
{
	long n = micro_iters(argc, argv, 5000);

	k_e_fp_ind(n, fp_k);
	return fp_report("e_fp_ind", n);
}
