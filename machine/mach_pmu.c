/* machine/mach_pmu.c - 21164 performance counters: overflow and interrupt delivery. */
/*
 * Semantics (DCPI SOSP'97 §4, 21164): a counter armed with period P overflows when P more events
 * have been counted. The interrupt is delivered EV5_IRQ_DELAY (6) cycles after the overflow, with
 * the PC of the instruction at the head of the issue stage at the delivery cycle (the oldest
 * instruction not yet issued). In the model an instruction is at the head of issue during the
 * cycles (previous issue, own issue]; so an interrupt due at cycle D is given the PC of the first
 * retired instruction whose issue cycle is >= D, and mach_ev5_irq_take() returns it after that
 * instruction's retire. Consequently CYCLES samples per PC are proportional to its head-of-issue
 * cycles (the truth file's `head`), which the tests check.
 *
 * Event cycles: CYCLES counts every cycle; RETIRED, DMISS, DTBMISS, BRANCHMP count at the
 * instruction's issue cycle; IMISS and ITBMISS at the cycle the block's fetch started (an I-cache
 * miss usually outlasts the 6-cycle delay, so the sample lands on the missing instruction, as the
 * paper observes).
 *
 * Arming is one-shot, as DCPI's handler writes the counter in every interrupt: after an overflow
 * the counter keeps counting but raises nothing until re-armed. Re-arming after the overflow
 * (what the sampler does, with a new randomised period) counts the new period from the overflow
 * point, so nothing is lost or counted twice between overflow and re-arm; events counted in the
 * meantime are remembered with their cycles, so an overflow that falls among them is raised at
 * the right cycle.
 */
#include "mach_ev5_model.h"

void ev5_pmu_init(struct mach_ev5 *m)
{
	for (unsigned int e = 0; e < MACH_EV_NR; e++) {
		m->next_ov[e] = UINT64_MAX;
		m->period[e] = 0;
		m->ovpend[e] = false;
		m->evlog_n[e] = 0;
	}
	m->nirq = 0;
	m->min_due = UINT64_MAX;
	m->issue_check = UINT64_MAX;
}

/*
 * The counters of every instruction (RETIRED) or some (LOADS, FPOPS) count at most one event per
 * instruction, and every counter stays below its next_ov between instructions. So none of them
 * can overflow before count[RETIRED] has grown by the smallest next_ov - count among them:
 * ev5_pmu_issue() tests only that, and this is recomputed whenever one of their next_ov moves.
 */
void ev5_pmu_issue_limit(struct mach_ev5 *m)
{
	static const enum mach_event ev[] = { MACH_EV_RETIRED, MACH_EV_LOADS, MACH_EV_FPOPS };
	uint64_t left = UINT64_MAX, ret = m->count[MACH_EV_RETIRED];

	for (unsigned int i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		if (m->next_ov[ev[i]] - m->count[ev[i]] < left)
			left = m->next_ov[ev[i]] - m->count[ev[i]];
	m->issue_check = left > UINT64_MAX - ret ? UINT64_MAX : ret + left;
}

/* ev5_pmu_issue() reached issue_check: the overflows due, in the order RETIRED, LOADS, FPOPS. */
void ev5_pmu_issue_check(struct mach_ev5 *m, uint64_t cycle)
{
	if (m->count[MACH_EV_RETIRED] >= m->next_ov[MACH_EV_RETIRED])
		ev5_pmu_overflow(m, MACH_EV_RETIRED, cycle);
	if (m->count[MACH_EV_LOADS] >= m->next_ov[MACH_EV_LOADS])
		ev5_pmu_overflow(m, MACH_EV_LOADS, cycle);
	if (m->count[MACH_EV_FPOPS] >= m->next_ov[MACH_EV_FPOPS])
		ev5_pmu_overflow(m, MACH_EV_FPOPS, cycle);
	ev5_pmu_issue_limit(m);
}

static void update_min_due(struct mach_ev5 *m)
{
	uint64_t md = UINT64_MAX;

	for (unsigned int i = 0; i < m->nirq; i++)
		if (!m->irq[i].assigned && m->irq[i].due < md)
			md = m->irq[i].due;
	m->min_due = md;
}

/* Counter `e` overflowed at count `ov`, at cycle `cycle`: queue the interrupt. */
static void raise_irq(struct mach_ev5 *m, enum mach_event e, uint64_t ov, uint64_t cycle)
{
	struct ev5_irq *q;

	m->ovpend[e] = true;
	m->ov_at[e] = ov;
	m->evlog_n[e] = 0;
	/* CYCLES needs no log (count == cycle); other events log until re-armed */
	m->next_ov[e] = e == MACH_EV_CYCLES ? UINT64_MAX : m->count[e] + 1;
	if (m->nirq == EV5_IRQ_Q) {
		m->irq_dropped++;
		return;
	}
	q = &m->irq[m->nirq++];
	q->event = (uint8_t)e;
	q->assigned = false;
	q->ov = ov;
	q->due = cycle + EV5_IRQ_DELAY;
	q->pc = 0;
	if (q->due <= m->cur && m->hist_n) {
		/* raised late (re-armed after its overflow): find who was at the head back then */
		uint64_t n = m->hist_n < EV5_HIST ? m->hist_n : EV5_HIST;

		for (uint64_t k = m->hist_n - n; k < m->hist_n; k++) {
			unsigned int h = k % EV5_HIST;

			if (m->hist_t[h] >= q->due || k + 1 == m->hist_n) {
				q->pc = m->hist_pc[h];
				break;
			}
		}
		q->assigned = true;
		return;
	}
	if (q->due < m->min_due)
		m->min_due = q->due;
}

static void overflow(struct mach_ev5 *m, enum mach_event e, uint64_t cycle)
{
	if (m->ovpend[e]) {
		unsigned int n = m->evlog_n[e];

		/* waiting for the re-arm: remember when each event happened */
		if (n < EV5_EVLOG) {
			m->evlog_cnt[e][n] = m->count[e];
			m->evlog_cyc[e][n] = cycle;
			m->evlog_n[e] = n + 1;
			m->next_ov[e] = m->count[e] + 1;
		} else {
			m->next_ov[e] = UINT64_MAX;
		}
		return;
	}
	raise_irq(m, e, m->count[e], cycle);
}

void ev5_pmu_overflow(struct mach_ev5 *m, enum mach_event e, uint64_t cycle)
{
	overflow(m, e, cycle);
	ev5_pmu_issue_limit(m);
}

void ev5_pmu_cycles(struct mach_ev5 *m, uint64_t to)
{
	uint64_t ov = m->next_ov[MACH_EV_CYCLES];

	if (ov <= to && !m->ovpend[MACH_EV_CYCLES])
		raise_irq(m, MACH_EV_CYCLES, ov, ov);
}

void ev5_pmu_assign(struct mach_ev5 *m, uint64_t pc, uint64_t t)
{
	for (unsigned int i = 0; i < m->nirq; i++) {
		struct ev5_irq *q = &m->irq[i];

		if (!q->assigned && q->due <= t) {
			q->assigned = true;
			q->pc = pc;
		}
	}
	update_min_due(m);
}

bool mach_ev5_irq_take(struct mach_ev5 *m, struct mach_irq *irq)
{
	unsigned int best = EV5_IRQ_Q;

	for (unsigned int i = 0; i < m->nirq; i++)
		if (m->irq[i].assigned && (best == EV5_IRQ_Q || m->irq[i].due < m->irq[best].due))
			best = i;
	if (best == EV5_IRQ_Q)
		return false;
	irq->event = (enum mach_event)m->irq[best].event;
	irq->pc = m->irq[best].pc;
	irq->cycle = m->irq[best].due;
	m->nirq--;
	for (unsigned int i = best; i < m->nirq; i++)
		m->irq[i] = m->irq[i + 1];
	return true;
}

static void pmu_arm(struct mach_ev5 *m, enum mach_event event, uint64_t period)
{
	uint64_t next;

	m->period[event] = period;
	if (!period) {
		m->next_ov[event] = UINT64_MAX;
		m->ovpend[event] = false;
		return;
	}
	if (!m->ovpend[event]) {
		m->next_ov[event] = m->count[event] + period;
		return;
	}
	/* re-arm after an overflow: the new period runs from the overflow point */
	next = m->ov_at[event] + period;
	m->ovpend[event] = false;
	if (next > m->count[event]) {
		m->next_ov[event] = next;
		return;
	}
	if (event == MACH_EV_CYCLES) {
		raise_irq(m, event, next, next);
		return;
	}
	{
		unsigned int n = m->evlog_n[event], i;
		uint64_t cyc = m->cur;
		uint64_t lc[EV5_EVLOG], ly[EV5_EVLOG];

		for (i = 0; i < n; i++) {
			if (m->evlog_cnt[event][i] == next) {
				cyc = m->evlog_cyc[event][i];
				break;
			}
		}
		/* keep the events after the new overflow for the next re-arm */
		memcpy(lc, m->evlog_cnt[event], sizeof(lc));
		memcpy(ly, m->evlog_cyc[event], sizeof(ly));
		raise_irq(m, event, next, cyc);
		for (unsigned int j = 0; j < n; j++) {
			if (lc[j] > next) {
				unsigned int k = m->evlog_n[event]++;

				m->evlog_cnt[event][k] = lc[j];
				m->evlog_cyc[event][k] = ly[j];
			}
		}
	}
}

void mach_ev5_pmu_arm(struct mach_ev5 *m, enum mach_event event, uint64_t period)
{
	if ((unsigned int)event >= MACH_EV_NR)
		return;
	pmu_arm(m, event, period);
	ev5_pmu_issue_limit(m);
}
