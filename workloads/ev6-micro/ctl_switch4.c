/* workloads/ev6-micro/ctl_switch4.c - EV6 micro: a switch through a jump table, four cases in rotation. */
#include "ctl_switch.h"

/*
 * The kernel of ctl_switch.h with mask 3: the jmp goes to case 0, 1, 2, 3, 0, ...
 * Expected 15 cycles/iteration, 12 instructions [U]: one JMP misprediction per iteration: the
 * line predictor remembers the last target of the jmp's line, which is never the next one (HRM
 * §2.1.1 [U: no other indirect-target predictor]). Block A fetched at 0: and issues at 3, s8addq
 * 4, ldq 5, jmp 8 (load-use 3, Table 2-4); the JSR-class penalty of 8 (HRM Table 2-1, counted
 * from the jmp's issue [U: A12]) lets the case block issue at 16, fetched at 13; C at 14, the
 * next A at 15. (Revised from 3 + 8 = 11, which ignored when the jmp resolves: EXPECTED.md.)
 */
int main(int argc, char **argv)
{
	return ctl_switch_main("ctl_switch4", argc, argv, 3);
}
