/* tests/axp_asm.h - test support: Alpha instruction encoders and a flat two-region memory. */
#ifndef AXP_ASM_H
#define AXP_ASM_H

#include <string.h>

#include "axp.h"

/* ---- instruction encoders (Alpha Architecture Handbook v4, 3.3) ---- */
static inline uint32_t asm_opr(unsigned opc, unsigned ra, unsigned rb, unsigned fn, unsigned rc)
{
	return opc << 26 | ra << 21 | rb << 16 | fn << 5 | rc;
}

static inline uint32_t asm_opri(unsigned opc, unsigned ra, unsigned lit, unsigned fn, unsigned rc)
{
	return opc << 26 | ra << 21 | lit << 13 | 1u << 12 | fn << 5 | rc;
}

static inline uint32_t asm_mem(unsigned opc, unsigned ra, unsigned rb, int disp)
{
	return opc << 26 | ra << 21 | rb << 16 | ((uint32_t)disp & 0xffff);
}

static inline uint32_t asm_bra(unsigned opc, unsigned ra, int disp)
{
	return opc << 26 | ra << 21 | ((uint32_t)disp & 0x1fffff);
}

/* ---- a flat memory: code at FLAT_CODE, data at FLAT_DATA, FLAT_SZ bytes each ---- */
#define FLAT_CODE 0x120000000ull
#define FLAT_DATA 0x140000000ull
#define FLAT_SZ 8192

struct flatmem {
	uint8_t code[FLAT_SZ];
	uint8_t data[FLAT_SZ];
	unsigned int loads, stores; /* accesses performed */
};

static inline uint8_t *flat_at(struct flatmem *m, uint64_t va, unsigned int size)
{
	if (va - FLAT_CODE <= FLAT_SZ - size)
		return m->code + (va - FLAT_CODE);
	if (va - FLAT_DATA <= FLAT_SZ - size)
		return m->data + (va - FLAT_DATA);
	return NULL;
}

static inline void flat_put(struct flatmem *m, unsigned int idx, uint32_t word)
{
	memcpy(m->code + 4 * idx, &word, 4);
}

/* An access's bytes, a fixed-size copy per Alpha access size (1, 2, 4, 8), as the kernel glue's
 * user_load()/user_store() switch on the size: a variable-size memcpy() is a library call per
 * load or store, which bench_interp would count as the interpreter's time. */
static inline void flat_copy(void *dst, const void *src, unsigned int size)
{
	switch (size) {
	case 1:
		memcpy(dst, src, 1);
		break;
	case 2:
		memcpy(dst, src, 2);
		break;
	case 4:
		memcpy(dst, src, 4);
		break;
	case 8:
		memcpy(dst, src, 8);
		break;
	default:
		memcpy(dst, src, size);
	}
}

static inline int flat_fetch(void *priv, uint64_t va, uint32_t *w)
{
	uint8_t *p = flat_at(priv, va, 4);

	if (!p)
		return -EFAULT;
	memcpy(w, p, 4);
	return 0;
}

/* Loads report a D-cache hit of 2 cycles, so observers see a latency. */
static inline int flat_load(void *priv, uint64_t va, unsigned int size, uint64_t *v,
			    struct axp_access *acc)
{
	struct flatmem *m = priv;
	uint8_t *p = flat_at(m, va, size);

	if (!p)
		return -EFAULT;
	*v = 0;
	flat_copy(v, p, size);
	acc->latency = 2;
	acc->level = AXP_LVL_DCACHE;
	m->loads++;
	return 0;
}

static inline int flat_store(void *priv, uint64_t va, unsigned int size, uint64_t v,
			     struct axp_access *acc)
{
	struct flatmem *m = priv;
	uint8_t *p = flat_at(m, va, size);

	(void)acc;
	if (!p)
		return -EFAULT;
	flat_copy(p, &v, size);
	m->stores++;
	return 0;
}

static const struct axp_mem_ops flat_ops __attribute__((unused)) = {
	.fetch = flat_fetch,
	.load = flat_load,
	.store = flat_store,
};

#endif /* AXP_ASM_H */
