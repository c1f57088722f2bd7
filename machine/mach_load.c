/* machine/mach_load.c - ELF64 Alpha program loader and initial stack, as Linux/Alpha execve. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mach_int.h"

/*
 * What Linux 6.1 fs/binfmt_elf.c load_elf_binary() does, for Alpha (asm/elf.h, processor.h),
 * without address randomisation (as under `setarch -R`):
 *   - ET_EXEC segments at their addresses; ET_DYN programs at ELF_ET_DYN_BASE
 *     (TASK_UNMAPPED_BASE + 16 MB) aligned to the largest PT_LOAD p_align;
 *   - the PT_INTERP interpreter (ET_DYN) wherever mmap puts it: first fit from
 *     TASK_UNMAPPED_BASE (load_elf_interp maps at address 0);
 *   - each PT_LOAD mapped from the file (filesz), the rest of its last file page zeroed
 *     (padzero) and anonymous pages up to memsz (the bss);
 *   - brk starts at the page-aligned end of the program's highest segment;
 *   - the stack is the 8 MB below STACK_TOP (0x120000000), built by create_elf_tables().
 */

#define ELF_MAX_PHNUM (65536u / sizeof(Elf64_Phdr))

/* Alpha cache shapes for AT_L1I/L1D/L2/L3_CACHESHAPE (asm/auxvec.h encoding: bits 0-3 ways,
 * 4-7 log2 line size, 8-31 size >> 8), those Linux reports for the 21164 (setup.c
 * determine_cpu_caches: 8 KB direct-mapped I and D caches with 32-byte lines, a 96 KB 3-way
 * S-cache with 64-byte lines; the board cache is unknown here: -1). */
#define CSHAPE(size, lg_line, ways) ((((uint64_t)(size) >> 8) << 8) | ((lg_line) << 4) | (ways))
#define EV5_L1I_SHAPE CSHAPE(8 * 1024, 5, 1)
#define EV5_L1D_SHAPE CSHAPE(8 * 1024, 5, 1)
#define EV5_L2_SHAPE CSHAPE(96 * 1024, 6, 3)
#define EV5_L3_SHAPE ((uint64_t)-1)

struct elf_file {
	int fd;
	const char *name; /* as the user or the program named it, for messages */
	const char *host; /* its host path (the mmap events') */
	uint64_t size; /* the file's size in bytes */
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
};

static inline uint64_t page_down(uint64_t v)
{
	return v & ~MACH_PAGE_MASK;
}

static inline uint64_t page_up(uint64_t v)
{
	return (v + MACH_PAGE_MASK) & ~MACH_PAGE_MASK;
}

static int read_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

static void elf_close(struct elf_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	free(f->ph);
	f->ph = NULL;
	f->fd = -1;
}

/* Open and check an Alpha ELF file (the checks of load_elf_binary/load_elf_interp). */
static int elf_open(struct elf_file *f, const char *hostpath, const char *name,
		    struct ax_error *err)
{
	unsigned char *id = f->eh.e_ident;
	struct stat st;
	size_t phsize;
	int ret;

	f->name = name;
	f->ph = NULL;
	f->fd = open(hostpath, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0) {
		int e = errno;

		ret = e == ENOENT || e == ENOTDIR ? -ENOENT : -e;
		return ax_fail(err, ret, "%s: %s", name, strerror(e));
	}
	if (fstat(f->fd, &st)) {
		ret = ax_syserr(err, -errno, name, "fstat");
		elf_close(f);
		return ret;
	}
	f->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : UINT64_MAX;
	if (read_full(f->fd, &f->eh, sizeof(f->eh), 0) || memcmp(id, ELFMAG, SELFMAG)) {
		ax_fail(err, -ENOEXEC, "%s: not an ELF file", name);
		goto out_noexec;
	}
	if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB ||
	    f->eh.e_machine != EM_ALPHA) {
		ax_fail(err, -ENOEXEC,
			"%s: not an Alpha program (ELF class %u, data %u, machine %u)", name,
			id[EI_CLASS], id[EI_DATA], f->eh.e_machine);
		goto out_noexec;
	}
	if (f->eh.e_type != ET_EXEC && f->eh.e_type != ET_DYN) {
		ax_fail(err, -ENOEXEC, "%s: not an executable (ELF type %u)", name, f->eh.e_type);
		goto out_noexec;
	}
	if (f->eh.e_phentsize != sizeof(Elf64_Phdr) || f->eh.e_phnum < 1 ||
	    f->eh.e_phnum > ELF_MAX_PHNUM) {
		ax_fail(err, -ENOEXEC, "%s: bad program headers (%u of %u bytes)", name,
			f->eh.e_phnum, f->eh.e_phentsize);
		goto out_noexec;
	}
	phsize = (size_t)f->eh.e_phnum * sizeof(Elf64_Phdr);
	f->ph = malloc(phsize);
	if (!f->ph) {
		elf_close(f);
		return ax_fail(err, -ENOMEM, "%s: out of memory", name);
	}
	if (read_full(f->fd, f->ph, phsize, f->eh.e_phoff)) {
		ax_fail(err, -ENOEXEC,
			"%s: truncated or corrupt: program headers past the end of the file", name);
		goto out_noexec;
	}
	return 0;

out_noexec:
	elf_close(f);
	return -ENOEXEC;
}

/*
 * A PT_LOAD segment that can be mapped whole (what qemu-alpha checks before it maps, where
 * Linux would map it and fault later): its file bytes inside the file, no more of them than
 * its memory size, nothing wrapping around, an alignment of 0 or a power of two that its
 * address and offset agree on (and they agree on the page).
 */
static int elf_check_load(const struct elf_file *f, unsigned int i, struct ax_error *err)
{
	const Elf64_Phdr *p = &f->ph[i];
	uint64_t a = p->p_align > 1 ? p->p_align : 1;

	if (p->p_offset > f->size || p->p_filesz > f->size - p->p_offset) {
		return ax_fail(
			err, -ENOEXEC,
			"%s: truncated or corrupt: PT_LOAD segment %u needs file bytes 0x%llx-0x%llx "
			"but the file has only 0x%llx bytes",
			f->name, i, (unsigned long long)p->p_offset,
			(unsigned long long)(p->p_offset + p->p_filesz),
			(unsigned long long)f->size);
	}
	if (p->p_filesz > p->p_memsz || p->p_memsz > MACH_TASK_SIZE ||
	    p->p_vaddr > MACH_TASK_SIZE - p->p_memsz) {
		return ax_fail(
			err, -ENOEXEC,
			"%s: bad PT_LOAD segment %u (address 0x%llx, file size 0x%llx, memory size "
			"0x%llx)",
			f->name, i, (unsigned long long)p->p_vaddr, (unsigned long long)p->p_filesz,
			(unsigned long long)p->p_memsz);
	}
	if ((a & (a - 1)) || (p->p_vaddr & (a - 1)) != (p->p_offset & (a - 1)) ||
	    (p->p_vaddr & MACH_PAGE_MASK) != (p->p_offset & MACH_PAGE_MASK)) {
		return ax_fail(
			err, -ENOEXEC,
			"%s: bad PT_LOAD segment %u: address 0x%llx and offset 0x%llx do not agree "
			"on alignment 0x%llx",
			f->name, i, (unsigned long long)p->p_vaddr, (unsigned long long)p->p_offset,
			(unsigned long long)p->p_align);
	}
	return 0;
}

/* Extent of the PT_LOAD segments: [lo, hi) page aligned; max alignment. */
static int elf_extent(const struct elf_file *f, uint64_t *lo, uint64_t *hi, uint64_t *align,
		      struct ax_error *err)
{
	bool any = false;

	*lo = UINT64_MAX;
	*hi = 0;
	*align = MACH_PAGE_SIZE;
	for (unsigned int i = 0; i < f->eh.e_phnum; i++) {
		const Elf64_Phdr *p = &f->ph[i];
		int ret;

		if (p->p_type != PT_LOAD)
			continue;
		ret = elf_check_load(f, i, err);
		if (ret)
			return ret;
		any = true;
		if (page_down(p->p_vaddr) < *lo)
			*lo = page_down(p->p_vaddr);
		if (page_up(p->p_vaddr + p->p_memsz) > *hi)
			*hi = page_up(p->p_vaddr + p->p_memsz);
		if (p->p_align > *align && !(p->p_align & (p->p_align - 1)))
			*align = p->p_align;
	}
	if (!any) {
		ax_fail(err, -ENOEXEC, "%s: no PT_LOAD segment", f->name);
		return -ENOEXEC;
	}
	return 0;
}

static unsigned int elf_prot(uint32_t pf)
{
	return ((pf & PF_R) ? MACH_PROT_R : 0) | ((pf & PF_W) ? MACH_PROT_W : 0) |
	       ((pf & PF_X) ? MACH_PROT_X : 0);
}

/* Map every PT_LOAD at bias + p_vaddr; *end gets the end of the highest segment. */
static int elf_map(struct mach *m, const struct elf_file *f, uint64_t bias, uint64_t *end,
		   struct ax_error *err)
{
	static const uint8_t zeros[MACH_PAGE_SIZE];
	uint64_t va;
	int ret;

	*end = 0;
	for (unsigned int i = 0; i < f->eh.e_phnum; i++) {
		const Elf64_Phdr *p = &f->ph[i];
		uint64_t start = bias + p->p_vaddr, fstart = page_down(start);
		uint64_t fend = start + p->p_filesz, mend = start + p->p_memsz;
		unsigned int prot = elf_prot(p->p_flags);

		if (p->p_type != PT_LOAD)
			continue;
		if (fend > fstart) {
			ret = mach_mem_map(m->mem, fstart, fend - fstart, prot, MACH_MAP_FIXED,
					   f->fd, page_down(p->p_offset), &va);
			if (ret)
				goto fail;
			mach_ev_mmap(m, fstart, fend - fstart, prot, f->fd, f->host,
				     page_down(p->p_offset));
			/* padzero(): the rest of the last file page belongs to the bss. */
			if ((fend & MACH_PAGE_MASK) && mend > fend)
				mach_mem_poke(m->mem, fend, zeros, page_up(fend) - fend);
		}
		if (page_up(mend) > page_up(fend)) {
			uint64_t a = page_up(fend) > fstart ? page_up(fend) : fstart;

			ret = mach_mem_map(m->mem, a, page_up(mend) - a, prot, MACH_MAP_FIXED, -1,
					   0, &va);
			if (ret)
				goto fail;
			mach_ev_mmap(m, a, page_up(mend) - a, prot, -1, NULL, 0);
		}
		if (mend > *end)
			*end = mend;
	}
	return 0;

fail:
	ax_fail(err, ret, "%s: cannot map segment at 0x%llx: %s", f->name,
		(unsigned long long)(bias + f->ph[0].p_vaddr), strerror(-ret));
	return ret;
}

/* The program header table's address in memory (AT_PHDR): PT_PHDR, else the PT_LOAD that
 * covers e_phoff in the file. */
static uint64_t elf_phdr_addr(const struct elf_file *f, uint64_t bias)
{
	for (unsigned int i = 0; i < f->eh.e_phnum; i++)
		if (f->ph[i].p_type == PT_PHDR)
			return bias + f->ph[i].p_vaddr;
	for (unsigned int i = 0; i < f->eh.e_phnum; i++) {
		const Elf64_Phdr *p = &f->ph[i];

		if (p->p_type == PT_LOAD && f->eh.e_phoff >= p->p_offset &&
		    f->eh.e_phoff < p->p_offset + p->p_filesz)
			return bias + p->p_vaddr + (f->eh.e_phoff - p->p_offset);
	}
	return 0;
}

/* Confined (the interpreter): the sysroot's or DIR's file, by its host path; "" if none. */
static const char *confined_path(struct mach *m, const char *path, char *buf, size_t len)
{
	char tmp[PATH_MAX + 32];
	const char *r;

	buf[0] = 0;
	if (!mach_confine_path(m, AT_FDCWD, path, MACH_CF_FOLLOW, tmp, sizeof(tmp), &r) &&
	    mach_confine_host_path(m, r, buf, len))
		buf[0] = 0;
	mach_confine_release(m);
	return buf;
}

const char *mach_path(struct mach *m, const char *path, char *buf, size_t len)
{
	int n;

	if (m->confine.on)
		return confined_path(m, path, buf, len);
	if (!m->sysroot[0] || path[0] != '/' || !path[1])
		return path;
	n = snprintf(buf, len, "%s%s", m->sysroot, path);
	if (n < 0 || (size_t)n >= len || access(buf, F_OK))
		return path;
	return buf;
}

/* Stack writer: strings and words pushed downwards from the top. */
struct stk {
	struct mach *m;
	uint64_t p;
	int err;
};

static uint64_t push_bytes(struct stk *s, const void *data, uint64_t len)
{
	s->p -= len;
	if (mach_mem_poke(s->m->mem, s->p, data, len))
		s->err = -E2BIG;
	return s->p;
}

static void put_word(struct stk *s, uint64_t va, uint64_t v)
{
	if (mach_mem_poke(s->m->mem, va, &v, 8))
		s->err = -E2BIG;
}

static uint64_t count(char *const v[])
{
	uint64_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* fs/binfmt_elf.c create_elf_tables() (6.1) for Alpha. */
static int build_stack(struct mach *m, const char *execfn, char *const argv[], char *const envp[],
		       const struct elf_file *prog, struct mach_load_info *info)
{
	const char *platform =
		m->cfg.implver == 0	       ? "ev4" :
		m->cfg.implver == 1	       ? ((m->cfg.amask & AXP_AMASK_BWX) ? "ev56" : "ev5") :
		(m->cfg.amask & AXP_AMASK_CIX) ? "ev67" :
						 "ev6";
	uint64_t argc = count(argv), envc = count(envp), *argp, *envpp, aux[2 * 32];
	uint64_t sp, items, i, va, n = 0;
	unsigned char rnd[16];
	struct stk s = { m, MACH_STACK_TOP, 0 };
	int ret;

	ret = mach_mem_map(m->mem, MACH_STACK_TOP - MACH_STACK_SIZE, MACH_STACK_SIZE,
			   MACH_PROT_R | MACH_PROT_W, MACH_MAP_FIXED, -1, 0, &va);
	if (ret)
		return ret;
	argp = calloc(argc + 1, sizeof(*argp));
	envpp = calloc(envc + 1, sizeof(*envpp));
	if (!argp || !envpp) {
		ret = -ENOMEM;
		goto out;
	}
	/* bprm->p starts one pointer below the top; then the file name, the environment and
	 * the arguments, each block copied last string first (copy_strings). */
	s.p -= 8;
	info->execfn = push_bytes(&s, execfn, strlen(execfn) + 1);
	for (i = envc; i-- > 0;)
		envpp[i] = push_bytes(&s, envp[i], strlen(envp[i]) + 1);
	m->arg_end = s.p;
	for (i = argc; i-- > 0;)
		argp[i] = push_bytes(&s, argv[i], strlen(argv[i]) + 1);
	m->arg_start = s.p;
	/* arch_align_stack() is the identity on Alpha; the platform string, then AT_RANDOM's
	 * 16 bytes (deterministic here: the machine is reproducible). */
	info->platform = push_bytes(&s, platform, strlen(platform) + 1);
	for (i = 0; i < sizeof(rnd); i++)
		rnd[i] = (unsigned char)(0xa5 ^ (i * 29));
	info->random = push_bytes(&s, rnd, sizeof(rnd));

#define AUX(type, val)             \
	do {                       \
		aux[n++] = (type); \
		aux[n++] = (val);  \
	} while (0)
	AUX(34, EV5_L1I_SHAPE); /* ARCH_DLINFO: AT_L1I_CACHESHAPE */
	AUX(35, EV5_L1D_SHAPE); /* AT_L1D_CACHESHAPE */
	AUX(36, EV5_L2_SHAPE); /* AT_L2_CACHESHAPE */
	AUX(37, EV5_L3_SHAPE); /* AT_L3_CACHESHAPE */
	AUX(AT_HWCAP, m->cfg.amask); /* ELF_HWCAP = ~amask(-1): the features present */
	AUX(AT_PAGESZ, MACH_PAGE_SIZE);
	AUX(AT_CLKTCK, 100); /* CLOCKS_PER_SEC (USER_HZ) */
	AUX(AT_PHDR, info->phdr);
	AUX(AT_PHENT, sizeof(Elf64_Phdr));
	AUX(AT_PHNUM, prog->eh.e_phnum);
	AUX(AT_BASE, info->interp_base);
	AUX(AT_FLAGS, 0);
	AUX(AT_ENTRY, info->prog_entry);
	AUX(AT_UID, getuid());
	AUX(AT_EUID, geteuid());
	AUX(AT_GID, getgid());
	AUX(AT_EGID, getegid());
	AUX(AT_SECURE, 0);
	AUX(AT_RANDOM, info->random);
	AUX(AT_EXECFN, info->execfn);
	AUX(AT_PLATFORM, info->platform);
	AUX(AT_NULL, 0);
#undef AUX

	/* sp = STACK_ADD(p, ei_index); bprm->p = STACK_ROUND(sp, items): 16-byte aligned. */
	items = (argc + 1) + (envc + 1) + 1;
	sp = (s.p - n * 8 - items * 8) & ~(uint64_t)15;
	va = sp;
	put_word(&s, va, argc);
	va += 8;
	for (i = 0; i < argc; i++, va += 8)
		put_word(&s, va, argp[i]);
	put_word(&s, va, 0);
	va += 8;
	for (i = 0; i < envc; i++, va += 8)
		put_word(&s, va, envpp[i]);
	put_word(&s, va, 0);
	va += 8;
	for (i = 0; i < n; i++, va += 8)
		put_word(&s, va, aux[i]);
	info->sp = sp;
	ret = s.err;
	if (!ret && sp < MACH_STACK_TOP - MACH_STACK_SIZE / 4)
		ret = -E2BIG; /* arguments may use a quarter of the stack (bprm limit) */
out:
	free(argp);
	free(envpp);
	return ret;
}

int mach_load(struct mach *m, const char *path, char *const argv[], char *const envp[],
	      struct mach_load_info *info, struct ax_error *err)
{
	struct elf_file prog = { .fd = -1 }, interp = { .fd = -1 };
	char interp_name[PATH_MAX], hostbuf[PATH_MAX];
	uint64_t lo, hi, align, end, bias = 0, ibias = 0;
	bool has_interp = false;
	int ret;

	memset(info, 0, sizeof(*info));
	ret = elf_open(&prog, path, path, err);
	if (ret)
		return ret;
	if (!realpath(path, m->exe))
		snprintf(m->exe, sizeof(m->exe), "%s", path);
	mach_set_comm(m, strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	ret = elf_extent(&prog, &lo, &hi, &align, err);
	if (ret)
		goto out;

	for (unsigned int i = 0; i < prog.eh.e_phnum; i++) {
		const Elf64_Phdr *p = &prog.ph[i];
		const char *hp;

		if (p->p_type != PT_INTERP)
			continue;
		if (p->p_offset > prog.size || p->p_filesz > prog.size - p->p_offset) {
			ret = ax_fail(
				err, -ENOEXEC,
				"%s: truncated or corrupt: PT_INTERP is past the end of the file",
				path);
			goto out;
		}
		if (p->p_filesz < 2 || p->p_filesz > PATH_MAX ||
		    read_full(prog.fd, interp_name, p->p_filesz, p->p_offset) ||
		    interp_name[p->p_filesz - 1]) {
			ax_fail(err, -ENOEXEC, "%s: bad PT_INTERP", path);
			ret = -ENOEXEC;
			goto out;
		}
		hp = mach_path(m, interp_name, hostbuf, sizeof(hostbuf));
		ret = elf_open(&interp, hp, interp_name, err);
		if (ret == -ENOENT) {
			ax_fail(err, ret,
				"%s: interpreter %s not found (sysroot %s; see --sysroot)", path,
				interp_name, m->sysroot[0] ? m->sysroot : "none");
			goto out;
		}
		if (ret) {
			char why[AX_ERROR_MAX];

			snprintf(why, sizeof(why), "%s", err ? err->msg : "");
			ax_fail(err, -ELIBBAD, "%s: interpreter %s (sysroot %s; see --sysroot)",
				path, why, m->sysroot[0] ? m->sysroot : "none");
			ret = -ELIBBAD;
			goto out;
		}
		interp.host = hp;
		has_interp = true;
		break;
	}

	if (prog.eh.e_type == ET_DYN) {
		bias = (MACH_ET_DYN_BASE - lo) & ~(align - 1);
		if (!mach_mem_find_free(m->mem, bias + lo, hi - lo) ||
		    mach_mem_find_free(m->mem, bias + lo, hi - lo) != bias + lo) {
			ax_fail(err, -ENOMEM, "%s: no room for the program", path);
			ret = -ENOMEM;
			goto out;
		}
	}
	prog.host = m->exe;
	mach_ev_exec(m, m->exe, bias);
	ret = elf_map(m, &prog, bias, &end, err);
	if (ret)
		goto out;
	info->load_bias = bias;
	info->prog_entry = prog.eh.e_entry + bias;
	info->phdr = elf_phdr_addr(&prog, bias);
	info->phnum = prog.eh.e_phnum;
	info->brk = page_up(end);
	mach_mem_brk_init(m->mem, info->brk);
	info->entry = info->prog_entry;

	if (has_interp) {
		uint64_t ilo, ihi, ialign, iend;

		ret = elf_extent(&interp, &ilo, &ihi, &ialign, err);
		if (ret) {
			char why[AX_ERROR_MAX];

			snprintf(why, sizeof(why), "%s", err ? err->msg : "");
			ax_fail(err, ret, "%s: interpreter %s (host file %s)", path, why,
				interp.host);
			goto out;
		}
		if (interp.eh.e_type == ET_DYN) {
			uint64_t base = mach_mem_find_free(m->mem, 0, ihi - ilo);

			if (!base) {
				ax_fail(err, -ENOMEM, "%s: no room for the interpreter",
					interp_name);
				ret = -ENOMEM;
				goto out;
			}
			ibias = base - ilo;
		}
		ret = elf_map(m, &interp, ibias, &iend, err);
		if (ret)
			goto out;
		info->interp_base = ibias + ilo;
		info->entry = interp.eh.e_entry + ibias;
	}

	ret = build_stack(m, path, argv, envp, &prog, info);
	if (ret) {
		ax_fail(err, ret, "%s: arguments and environment too large", path);
		goto out;
	}

	/* start_thread(): pc, usp; ELF_PLAT_INIT: r0 = 0; everything else zero. The FPCR and
	 * software control word of a fresh process (flush_thread: ieee_state 0). */
	memset(&m->ctx, 0, sizeof(m->ctx));
	m->ctx.pc = info->entry;
	m->ctx.r[30] = info->sp;
	m->ctx.lock_addr = AXP_NO_LOCK;
	m->ieee_state = 0;
	m->ctx.fpcr = (2ull << 58) | mach_swcr_to_fpcr(0);
out:
	elf_close(&prog);
	elf_close(&interp);
	return ret;
}
