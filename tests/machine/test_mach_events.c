/* tests/machine/test_mach_events.c - the machine's process events: exec, mmap, munmap, fork, exit. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "mach_int.h"

#define CODE 0x120000000ull

/* Instruction words (Alpha Architecture Handbook formats). */
#define LDA(ra, rb, disp) ((0x08u << 26) | ((ra) << 21) | ((rb) << 16) | ((disp)&0xffffu))
#define BIS(ra, rb, rc) ((0x11u << 26) | ((ra) << 21) | ((rb) << 16) | (0x20u << 5) | (rc))
#define CALLSYS 0x83u
#define NR_FORK 2
#define NR_MMAP 71
#define NR_MUNMAP 73
#define NR_MPROTECT 74
#define NR_MREMAP 341
#define NR_EXIT_GROUP 405
#define LDAH(ra, rb, disp) ((0x09u << 26) | ((ra) << 21) | ((rb) << 16) | ((disp)&0xffffu))

enum { EV_EXEC, EV_MMAP, EV_MUNMAP, EV_FORK, EV_EXIT };

struct ev {
	int type;
	int32_t pid, other; /* fork: parent, child; exit: code */
	uint64_t start, len, off;
	unsigned int prot;
	char path[PATH_MAX];
};

struct log {
	struct ev ev[512];
	size_t n;
};

static struct ev *add(struct log *l, int type, int32_t pid)
{
	struct ev *e = &l->ev[l->n < 511 ? l->n++ : 511];

	memset(e, 0, sizeof(*e));
	e->type = type;
	e->pid = pid;
	return e;
}

static void on_exec(void *priv, int32_t pid, const char *path, uint64_t bias)
{
	struct ev *e = add(priv, EV_EXEC, pid);

	snprintf(e->path, sizeof(e->path), "%s", path);
	e->start = bias;
}

static void on_mmap(void *priv, int32_t pid, const struct mach_map_event *mp)
{
	struct ev *e = add(priv, EV_MMAP, pid);

	e->start = mp->start;
	e->len = mp->len;
	e->off = mp->off;
	e->prot = mp->prot;
	snprintf(e->path, sizeof(e->path), "%s", mp->path ? mp->path : "");
}

static void on_munmap(void *priv, int32_t pid, uint64_t start, uint64_t len)
{
	struct ev *e = add(priv, EV_MUNMAP, pid);

	e->start = start;
	e->len = len;
}

static void on_fork(void *priv, int32_t parent, int32_t child)
{
	add(priv, EV_FORK, child)->other = parent;
}

static void on_exit_ev(void *priv, int32_t pid, int code, int sig)
{
	add(priv, EV_EXIT, pid)->other = sig ? 128 + sig : code;
}

static struct mach *new_machine(struct log *l)
{
	struct mach_events ev = { .exec = on_exec,
				  .mmap = on_mmap,
				  .munmap = on_munmap,
				  .fork = on_fork,
				  .exit = on_exit_ev,
				  .priv = l };
	struct mach *m;

	assert_int_equal(mach_new(&m, NULL), 0);
	mach_set_events(m, &ev);
	return m;
}

/* A machine running hand-made code at CODE (a page mapped without events). */
static struct mach *code_machine(struct log *l, const uint32_t *w, size_t n)
{
	struct mach *m = new_machine(l);
	uint64_t va;

	assert_int_equal(mach_mem_map(m->mem, CODE, MACH_PAGE_SIZE, MACH_PROT_R | MACH_PROT_X,
				      MACH_MAP_FIXED, -1, 0, &va),
			 0);
	assert_int_equal(mach_mem_poke(m->mem, CODE, w, n * 4), 0);
	m->ctx.pc = CODE;
	return m;
}

static const char *ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail) ? s + a - b : NULL;
}

/* The bytes the machine maps at e->start are the file's at e->off. */
static void assert_maps_file(struct mach *m, const struct ev *e)
{
	uint8_t want[256], got[256];
	int fd = open(e->path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, want, sizeof(want), (off_t)e->off), sizeof(want));
	close(fd);
	assert_int_equal(mach_mem_read(m->mem, e->start, got, sizeof(got)), 0);
	assert_memory_equal(want, got, sizeof(want));
}

static const struct ev *find_exec_map(const struct log *l, const char *tail, size_t from)
{
	for (size_t i = from; i < l->n; i++)
		if (l->ev[i].type == EV_MMAP && (l->ev[i].prot & MACH_MAP_PROT_X) &&
		    ends_with(l->ev[i].path, tail))
			return &l->ev[i];
	return NULL;
}

static void test_mach_events_dynamic_program_exec_mmap_exit(void **state)
{
	const char *build = getenv("BUILD") ? getenv("BUILD") : "build";
	char prog[PATH_MAX], real[PATH_MAX], five[] = "5";
	char *argv[] = { prog, five, NULL }, *envp[] = { NULL };
	struct log *l = calloc(1, sizeof(*l));
	struct mach_load_info li;
	struct mach_result res;
	const struct ev *e;
	struct ax_error err;
	struct mach *m;
	size_t loaded;

	(void)state;
	snprintf(prog, sizeof(prog), "%s/workloads/exitcode", build);
	if (access(prog, X_OK) || access("/usr/alpha-linux-gnu/lib/libc.so.6.1", R_OK)) {
		free(l);
		skip(); /* make workloads; the Alpha sysroot */
	}
	assert_non_null(realpath(prog, real));
	m = new_machine(l);
	assert_int_equal(mach_load(m, prog, argv, envp, &li, &err), 0);

	/* exec first: the program and its load bias */
	assert_true(l->n > 0);
	assert_int_equal(l->ev[0].type, EV_EXEC);
	assert_int_equal(l->ev[0].pid, MACH_VPID_FIRST); /* virtual (mach_vpid.c) */
	assert_string_equal(l->ev[0].path, real);
	assert_int_equal(l->ev[0].start, li.load_bias);
	/* the loader's mappings: the program's text and the interpreter's, from the files */
	e = find_exec_map(l, "/workloads/exitcode", 1);
	assert_non_null(e);
	assert_int_equal(e->prot, MACH_MAP_PROT_R | MACH_MAP_PROT_X);
	assert_maps_file(m, e);
	e = find_exec_map(l, "/lib/ld-linux.so.2", 1);
	assert_non_null(e);
	assert_int_equal(e->start, li.interp_base);
	assert_int_equal(e->off, 0);
	assert_maps_file(m, e);
	assert_null(find_exec_map(l, "libc.so.6.1", 0));
	loaded = l->n;

	assert_int_equal(mach_run(m), 5);
	/* ld.so maps libc with mmap(2): executable, the file at the right offset */
	e = find_exec_map(l, "/lib/libc.so.6.1", loaded);
	assert_non_null(e);
	assert_maps_file(m, e);
	/* ld.so's segment layout: a data segment mapped over the reservation, gaps unmapped */
	for (e = NULL; loaded < l->n; loaded++)
		if (l->ev[loaded].type == EV_MUNMAP)
			e = &l->ev[loaded];
	assert_non_null(e);
	assert_int_equal(e->start % MACH_PAGE_SIZE, 0);
	/* exit last, with the status */
	assert_int_equal(l->ev[l->n - 1].type, EV_EXIT);
	assert_int_equal(l->ev[l->n - 1].other, 5);
	mach_get_result(m, &res);
	assert_true(res.exited);
	assert_int_equal(res.exit_code, 5);
	assert_int_equal(res.status, 5);
	assert_false(res.timed);
	assert_true(res.insns > 1000);
	assert_true(res.syscalls > 10);
	mach_free(m);
	free(l);
}

static void test_mach_events_file_mmap_mprotect_munmap(void **state)
{
	char path[] = "/tmp/axprof-events-XXXXXX";
	uint8_t page[3 * MACH_PAGE_SIZE];
	int fd = mkstemp(path);
	struct log *l = calloc(1, sizeof(*l));
	struct mach *m;

	(void)state;
	assert_true(fd >= 0);
	for (size_t i = 0; i < sizeof(page); i++)
		page[i] = (uint8_t)(i * 7 + i / MACH_PAGE_SIZE);
	assert_int_equal(write(fd, page, sizeof(page)), sizeof(page));
	{
		/* mmap(0, 8K, R|X, MAP_PRIVATE, fd, 8K); mprotect R; mprotect R|X; munmap */
		const uint32_t w[] = {
			LDA(16, 31, 0),
			LDA(17, 31, 8192),
			LDA(18, 31, 5),
			LDA(19, 31, 2),
			LDA(20, 31, (uint32_t)fd),
			LDA(21, 31, 8192),
			LDA(0, 31, NR_MMAP),
			CALLSYS,
			BIS(31, 0, 9),
			BIS(31, 9, 16),
			LDA(17, 31, 8192),
			LDA(18, 31, 1),
			LDA(0, 31, NR_MPROTECT),
			CALLSYS,
			BIS(31, 9, 16),
			LDA(17, 31, 8192),
			LDA(18, 31, 5),
			LDA(0, 31, NR_MPROTECT),
			CALLSYS,
			BIS(31, 9, 16),
			LDA(17, 31, 8192),
			LDA(0, 31, NR_MUNMAP),
			CALLSYS,
			LDA(16, 31, 0),
			LDA(0, 31, NR_EXIT_GROUP),
			CALLSYS,
		};

		m = code_machine(l, w, sizeof(w) / sizeof(w[0]));
	}
	assert_int_equal(mach_run(m), 0);
	close(fd);
	assert_int_equal(l->n, 5);
	assert_int_equal(l->ev[0].type, EV_MMAP);
	assert_string_equal(l->ev[0].path, path);
	assert_int_equal(l->ev[0].off, 8192);
	assert_int_equal(l->ev[0].len, 8192);
	assert_int_equal(l->ev[0].prot, MACH_MAP_PROT_R | MACH_MAP_PROT_X);
	assert_int_equal(l->ev[1].type, EV_MUNMAP); /* no longer executable */
	assert_int_equal(l->ev[1].start, l->ev[0].start);
	assert_int_equal(l->ev[2].type, EV_MMAP); /* executable again: the same file piece */
	assert_int_equal(l->ev[2].start, l->ev[0].start);
	assert_int_equal(l->ev[2].off, 8192);
	assert_string_equal(l->ev[2].path, path);
	assert_int_equal(l->ev[3].type, EV_MUNMAP);
	assert_int_equal(l->ev[3].start, l->ev[0].start);
	assert_int_equal(l->ev[3].len, 8192);
	assert_int_equal(l->ev[4].type, EV_EXIT);
	unlink(path);
	mach_free(m);
	free(l);
}

static void test_mach_events_mremap_moves_the_file(void **state)
{
	char path[] = "/tmp/axprof-events-XXXXXX";
	uint8_t data[2 * MACH_PAGE_SIZE] = { 1, 2, 3 };
	int fd = mkstemp(path);
	struct log *l = calloc(1, sizeof(*l));
	struct mach *m;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, sizeof(data)), sizeof(data));
	{
		/* mmap(0, 16K, R|X, MAP_PRIVATE, fd, 0); shrink to 8K in place; move it to
		 * 0x13000000 (MREMAP_MAYMOVE|MREMAP_FIXED) */
		const uint32_t w[] = {
			LDA(16, 31, 0),
			LDA(17, 31, 16384),
			LDA(18, 31, 5),
			LDA(19, 31, 2),
			LDA(20, 31, (uint32_t)fd),
			LDA(21, 31, 0),
			LDA(0, 31, NR_MMAP),
			CALLSYS,
			BIS(31, 0, 9),
			BIS(31, 9, 16),
			LDA(17, 31, 16384),
			LDA(18, 31, 8192),
			LDA(19, 31, 0),
			LDA(0, 31, NR_MREMAP),
			CALLSYS,
			BIS(31, 9, 16),
			LDA(17, 31, 8192),
			LDA(18, 31, 8192),
			LDA(19, 31, 3),
			LDAH(20, 31, 0x1300),
			LDA(0, 31, NR_MREMAP),
			CALLSYS,
			LDA(16, 31, 0),
			LDA(0, 31, NR_EXIT_GROUP),
			CALLSYS,
		};

		m = code_machine(l, w, sizeof(w) / sizeof(w[0]));
	}
	assert_int_equal(mach_run(m), 0);
	close(fd);
	unlink(path);
	assert_int_equal(l->n, 5);
	assert_int_equal(l->ev[0].type, EV_MMAP);
	assert_int_equal(l->ev[0].len, 16384);
	assert_int_equal(l->ev[1].type, EV_MUNMAP); /* the tail that went */
	assert_int_equal(l->ev[1].start, l->ev[0].start + 8192);
	assert_int_equal(l->ev[1].len, 8192);
	assert_int_equal(l->ev[2].type, EV_MUNMAP); /* moved: the old place... */
	assert_int_equal(l->ev[2].start, l->ev[0].start);
	assert_int_equal(l->ev[3].type, EV_MMAP); /* ...and the new one, the same file */
	assert_int_equal(l->ev[3].start, 0x13000000ull);
	assert_int_equal(l->ev[3].len, 8192);
	assert_int_equal(l->ev[3].off, 0);
	assert_int_equal(l->ev[3].prot, MACH_MAP_PROT_R | MACH_MAP_PROT_X);
	assert_string_equal(l->ev[3].path, path);
	assert_int_equal(l->ev[4].type, EV_EXIT);
	mach_free(m);
	free(l);
}

static void test_mach_events_fork_in_the_child(void **state)
{
	const uint32_t w[] = {
		LDA(0, 31, NR_FORK), CALLSYS, LDA(16, 31, 0), LDA(0, 31, NR_EXIT_GROUP), CALLSYS,
	};
	struct log *l = calloc(1, sizeof(*l));
	struct mach_result res;
	int32_t me = MACH_VPID_FIRST; /* virtual pids (mach_vpid.c): the child is the next */
	struct mach *m = code_machine(l, w, sizeof(w) / sizeof(w[0]));
	int st = 0;

	(void)state;
	assert_int_equal(mach_run(m), 0);
	mach_get_result(m, &res);
	if (res.pid != me) {
		/* The child (no cmocka here): a fork event first, its exit last. */
		bool ok = l->n == 2 && l->ev[0].type == EV_FORK && l->ev[0].other == me &&
			  l->ev[0].pid == me + 1 && res.pid == me + 1 && l->ev[1].type == EV_EXIT &&
			  l->ev[1].pid == me + 1;

		_exit(ok ? 0 : 3);
	}
	/* The parent: no fork event, its own exit. */
	assert_int_equal(l->n, 1);
	assert_int_equal(l->ev[0].type, EV_EXIT);
	assert_int_equal(l->ev[0].pid, me);
	assert_true(wait(&st) > 0);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	mach_free(m);
	free(l);
}

static void test_mach_events_none_set_is_fine(void **state)
{
	const uint32_t w[] = { LDA(16, 31, 9), LDA(0, 31, NR_EXIT_GROUP), CALLSYS };
	struct log *l = calloc(1, sizeof(*l));
	struct mach *m = code_machine(l, w, 3);

	(void)state;
	mach_set_events(m, NULL);
	assert_int_equal(mach_run(m), 9);
	assert_int_equal(l->n, 0);
	mach_free(m);
	free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mach_events_dynamic_program_exec_mmap_exit),
		cmocka_unit_test(test_mach_events_file_mmap_mprotect_munmap),
		cmocka_unit_test(test_mach_events_mremap_moves_the_file),
		cmocka_unit_test(test_mach_events_fork_in_the_child),
		cmocka_unit_test(test_mach_events_none_set_is_fine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
