/* machine/mach_ev6_pmu.c - 21264 performance counters: overflow and interrupt delivery. */
/*
 * Aggregate mode [HRM 6.10; Linux asm/wrperfmon.h]: the counters count the events of
 * enum mach_event the 21264 has (CYCLES, RETIRED, the miss and mispredict events, BCMISS and
 * REPLAY of PCTR1). The sampler arms a counter with a (randomised) period through pmu_arm; it
 * overflows when that many more events have been counted.
 *
 * When: the model counts an instruction's events as it retires it, at its retire cycle (CYCLES:
 * every cycle up to it). The interrupt is delivered `irq_delay` cycles after the overflow [U].
 * Which PC (the skid): an out-of-order machine takes an interrupt at a retire boundary, so the
 * PC it reports is that of the oldest instruction not yet retired at the delivery cycle — the
 * first instruction whose retire cycle is >= the delivery cycle — not the instruction that
 * caused the event (ProfileMe, MICRO'97 §2, is the 21264's answer to exactly that). In the model
 * mach_ev6_irq_take() returns the interrupt right after that instruction, with its PC. CYCLES
 * samples per PC are therefore proportional to the cycles each instruction spent as the oldest
 * unretired one (the truth file's head cycles for EV6).
 *
 * Arming is one-shot, as on the EV5 model: after an overflow the counter keeps counting but
 * raises nothing until re-armed; a re-arm counts the new period from the overflow point.
 */
#include "mach_ev6_model.h"

void ev6_pmu_init(struct mach_ev6 *m)
{
	for (unsigned int e = 0; e < MACH_EV_NR; e++) {
		m->next_ov[e] = UINT64_MAX;
		m->ovpend[e] = false;
	}
	m->nirq = 0;
	m->nready = 0;
	m->min_due = UINT64_MAX;
}

static void update_min_due(struct mach_ev6 *m)
{
	m->min_due = UINT64_MAX;
	for (unsigned int i = m->nready; i < m->nirq; i++)
		if (m->irq[i].due < m->min_due)
			m->min_due = m->irq[i].due;
}

/* The interrupt at i reports pc: it joins the ready ones at the front of the queue. */
static void ready(struct mach_ev6 *m, unsigned int i, uint64_t pc)
{
	struct ev6_irq q = m->irq[i];

	m->irq[i] = m->irq[m->nready];
	m->irq[m->nready] = q;
	m->irq_pc[m->nready++] = pc;
}

/* Counter `e` overflowed at count `ov`, at cycle `cycle`: queue its interrupt. */
static void raise_irq(struct mach_ev6 *m, enum mach_event e, uint64_t ov, uint64_t cycle)
{
	struct ev6_irq *q;

	m->ovpend[e] = true;
	m->ov_at[e] = ov;
	m->next_ov[e] = UINT64_MAX;
	if (m->nirq == EV6_IRQ_Q) {
		m->irq_dropped++;
		return;
	}
	q = &m->irq[m->nirq++];
	q->event = (uint8_t)e;
	q->due = cycle + m->p.irq_delay;
	if (q->due <= m->r_t && m->hist_n) {
		/* raised late (a re-arm after its overflow point): who was oldest back then */
		uint64_t n = m->hist_n < EV6_HIST ? m->hist_n : EV6_HIST, pc = 0;

		for (uint64_t k = m->hist_n - n; k < m->hist_n; k++) {
			pc = m->hist_pc[k % EV6_HIST];
			if (m->hist_t[k % EV6_HIST] >= q->due)
				break;
		}
		ready(m, m->nirq - 1, pc);
		return;
	}
	if (q->due < m->min_due)
		m->min_due = q->due;
}

void ev6_pmu_overflow(struct mach_ev6 *m, enum mach_event e)
{
	if (m->ovpend[e]) {
		m->next_ov[e] = UINT64_MAX;
		return;
	}
	if (e == MACH_EV_CYCLES)
		raise_irq(m, e, m->next_ov[e], m->next_ov[e]);
	else
		raise_irq(m, e, m->count[e], m->r_t);
}

/* The instruction at pc retired at cycle t: interrupts due by then report pc. */
void ev6_pmu_deliver(struct mach_ev6 *m, uint64_t pc, uint64_t t)
{
	for (unsigned int i = m->nready; i < m->nirq; i++)
		if (m->irq[i].due <= t)
			ready(m, i, pc);
	update_min_due(m);
}

bool mach_ev6_irq_take(struct mach_ev6 *m, struct mach_irq *irq)
{
	if (!m->nready)
		return false;
	irq->event = (enum mach_event)m->irq[0].event;
	irq->pc = m->irq_pc[0];
	irq->cycle = m->irq[0].due;
	m->nirq--;
	m->nready--;
	for (unsigned int i = 0; i < m->nirq; i++)
		m->irq[i] = m->irq[i + 1];
	for (unsigned int i = 0; i < m->nready; i++)
		m->irq_pc[i] = m->irq_pc[i + 1];
	return true;
}

void mach_ev6_pmu_arm(struct mach_ev6 *m, enum mach_event event, uint64_t period)
{
	uint64_t next;

	if ((unsigned int)event >= MACH_EV_NR)
		return;
	if (!period) {
		m->next_ov[event] = UINT64_MAX;
		m->ovpend[event] = false;
		return;
	}
	if (!m->ovpend[event]) {
		m->next_ov[event] = m->count[event] + period;
		return;
	}
	next = m->ov_at[event] + period; /* from the overflow point */
	m->ovpend[event] = false;
	if (next > m->count[event]) {
		m->next_ov[event] = next;
		return;
	}
	raise_irq(m, event, next, event == MACH_EV_CYCLES ? next : m->r_t);
}
