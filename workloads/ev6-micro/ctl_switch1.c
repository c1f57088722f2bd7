/* workloads/ev6-micro/ctl_switch1.c - EV6 micro: a switch through a jump table, always the same case. */
#include "ctl_switch.h"

/*
 * The kernel of ctl_switch.h with mask 0: the jmp always goes to case 0.
 * Expected 3 cycles/iteration, 12 instructions: 3 aligned blocks fetched one a cycle; the jmp's
 * target is the line predictor's prediction (HRM §2.1.1), right every time after the first
 * [U: A1 and that a JMP predicted by the line predictor costs nothing more]; the br and bne are
 * predicted taken; no chain is longer than 1 cycle except the table load (3, Table 2-4), which
 * only confirms the predicted target.
 */
int main(int argc, char **argv)
{
	return ctl_switch_main("ctl_switch1", argc, argv, 0);
}
