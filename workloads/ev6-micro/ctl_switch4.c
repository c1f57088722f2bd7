/* workloads/ev6-micro/ctl_switch4.c - EV6 micro: a switch through a jump table, four cases in rotation. */
#include "ctl_switch.h"

/*
 * The kernel of ctl_switch.h with mask 3: the jmp goes to case 0, 1, 2, 3, 0, ...
 * Expected 3 + 8 = 11 cycles/iteration, 12 instructions [U]: as ctl_switch1 (3 fetch cycles),
 * plus one JMP misprediction per iteration: the line predictor remembers the last target of the
 * jmp's line, which is never the next one (HRM §2.1.1 [U: no other indirect-target predictor]),
 * at the JSR-class mispredict penalty of 8 cycles (HRM Table 2-1) added to the fetch-bound time
 * [U: A4].
 */
int main(int argc, char **argv)
{
	return ctl_switch_main("ctl_switch4", argc, argv, 3);
}
