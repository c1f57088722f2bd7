/* tests/machine/test_mach_sys.c - unit tests of the Linux/Alpha system-call layer (mach_sys*.c). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "mach_sys.h"

#define BUF 0x100000000ull /* a scratch page for arguments and results */

static int setup(void **state)
{
	struct mach *m;
	uint64_t va;

	if (mach_new(&m, NULL))
		return -1;
	if (mach_mem_map(m->mem, BUF, 4 * MACH_PAGE_SIZE, MACH_PROT_R | MACH_PROT_W, MACH_MAP_FIXED,
			 -1, 0, &va))
		return -1;
	m->err = fopen("/dev/null", "w");
	m->prog = "test";
	*state = m;
	return 0;
}

static int teardown(void **state)
{
	struct mach *m = *state;

	fclose(m->err);
	mach_free(m);
	return 0;
}

/* Issue system call `nr` with up to six arguments as the program would (pc past the callsys). */
static void sys(struct mach *m, unsigned int nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
		uint64_t a4)
{
	m->ctx.pc = 0x120000004ull;
	m->ctx.r[0] = nr;
	m->ctx.r[16] = a0;
	m->ctx.r[17] = a1;
	m->ctx.r[18] = a2;
	m->ctx.r[19] = a3;
	m->ctx.r[20] = a4;
	m->ctx.r[21] = 0;
	mach_syscall(m);
}

static void put_str(struct mach *m, uint64_t va, const char *s)
{
	assert_int_equal(mach_mem_write(m->mem, va, s, strlen(s) + 1), 0);
}

static void test_mach_sys_errno_translation_uses_alpha_values(void **state)
{
	(void)state;
	assert_int_equal(mach_errno_to_alpha(ENOENT), 2);
	assert_int_equal(mach_errno_to_alpha(EAGAIN), 35);
	assert_int_equal(mach_errno_to_alpha(EDEADLK), 11);
	assert_int_equal(mach_errno_to_alpha(ENOSYS), 78);
	assert_int_equal(mach_errno_to_alpha(ENOTEMPTY), 66);
	assert_int_equal(mach_errno_to_alpha(ELOOP), 62);
	assert_int_equal(mach_errno_to_alpha(EOVERFLOW), 112);
	assert_int_equal(mach_errno_to_alpha(ENOTSUP), 45); /* EOPNOTSUPP */
	assert_int_equal(mach_errno_to_alpha(0), 22);
	assert_int_equal(mach_errno_to_alpha(100000), 22);
}

static void test_mach_sys_signal_numbers_map_both_ways(void **state)
{
	(void)state;
	assert_int_equal(mach_signo_to_alpha(SIGUSR1), 30);
	assert_int_equal(mach_signo_to_alpha(SIGCHLD), 20);
	assert_int_equal(mach_signo_to_alpha(SIGBUS), 10);
	assert_int_equal(mach_signo_to_alpha(SIGSEGV), 11);
	assert_int_equal(mach_signo_to_host(30), SIGUSR1);
	assert_int_equal(mach_signo_to_host(10), SIGBUS);
	assert_int_equal(mach_signo_to_host(MACH_SIGINFO), SIGPWR);
	assert_int_equal(mach_signo_to_host(MACH_SIGEMT), 0);
	assert_int_equal(mach_signo_to_host(40), 40);
	assert_string_equal(mach_signame(11), "SIGSEGV");
	assert_string_equal(mach_sysname(67), "stat");
	assert_string_equal(mach_sysname(531), "geteuid");
	assert_null(mach_sysname(533));
}

static void test_mach_sys_fpcr_and_swcr_conversions(void **state)
{
	(void)state;
	/* A fresh process: every trap disabled (Linux flush_thread, qemu's default FPCR). */
	assert_int_equal(mach_swcr_to_fpcr(0) | (2ull << 58), 0x680e800000000000ull);
	for (uint64_t sw = 0; sw < (1u << 7); sw += 2) {
		uint64_t w = sw | (1ull << 17) | (1ull << 12);

		assert_int_equal(mach_fpcr_to_swcr(mach_swcr_to_fpcr(w)), w);
	}
	assert_int_equal(mach_swcr_to_fpcr(1ull << 17) >> 63, 1); /* status sets SUM */
}

static void test_mach_sys_open_flags_translate(void **state)
{
	(void)state;
	assert_int_equal(mach_oflags_to_host(01 | 01000 | 02000), O_WRONLY | O_CREAT | O_TRUNC);
	assert_int_equal(mach_oflags_to_host(010000000 | 04), O_CLOEXEC | O_NONBLOCK);
	assert_int_equal(mach_oflags_to_host(0100000 | 0200000), O_DIRECTORY | O_NOFOLLOW);
	assert_int_equal(mach_oflags_to_alpha(O_RDWR | O_APPEND) & ~0400000ull, 02 | 010);
}

static void test_mach_sys_errors_set_a3_and_positive_errno(void **state)
{
	struct mach *m = *state;

	put_str(m, BUF, "/nonexistent/file");
	sys(m, MACH_NR_open, BUF, 0, 0, 7, 0);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], 2); /* ENOENT */
	sys(m, MACH_NR_close, 9999, 0, 0, 7, 0);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], 9); /* EBADF */
	/* A buffer outside the address space is EFAULT, not a crash. */
	sys(m, MACH_NR_write, 1, 0x10, 5, 0, 0);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], 14);
	sys(m, MACH_NR_getxpid, 0, 0, 0, 7, 0);
	assert_int_equal(m->ctx.r[19], 0);
	/* virtual pids (mach_vpid.c): the first process, its parent outside the run */
	assert_int_equal(m->ctx.r[0], MACH_VPID_FIRST);
	assert_int_equal(m->ctx.r[20], MACH_VPID_PARENT);
	/* Pids outside the run are not visible: kill ESRCH, wait4 ECHILD, a host group 0. */
	sys(m, MACH_NR_kill, 4242, 0, 0, 7, 0);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], 3); /* ESRCH */
	sys(m, MACH_NR_kill, MACH_VPID_FIRST, 0, 0, 7, 0);
	assert_int_equal(m->ctx.r[19], 0); /* itself */
	sys(m, MACH_NR_wait4, 4242, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], 10); /* ECHILD */
	sys(m, MACH_NR_getpgid, 4242, 0, 0, 7, 0);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], 3); /* ESRCH */
	sys(m, MACH_NR_getxuid, 0, 0, 0, 7, 0);
	assert_int_equal(m->ctx.r[0], getuid());
	assert_int_equal(m->ctx.r[20], geteuid());
}

static void test_mach_sys_pipe_read_write_through_guest_memory(void **state)
{
	struct mach *m = *state;
	int rfd, wfd;
	char back[8];

	sys(m, MACH_NR_pipe, 0, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 0);
	rfd = (int)m->ctx.r[0];
	wfd = (int)m->ctx.r[20];
	put_str(m, BUF, "alpha");
	sys(m, MACH_NR_write, (uint64_t)wfd, BUF, 5, 0, 0);
	assert_int_equal(m->ctx.r[0], 5);
	sys(m, MACH_NR_read, (uint64_t)rfd, BUF + 100, 5, 0, 0);
	assert_int_equal(m->ctx.r[0], 5);
	assert_int_equal(mach_mem_read(m->mem, BUF + 100, back, 5), 0);
	assert_memory_equal(back, "alpha", 5);
	/* A read into a read-only page fails with EFAULT and reads nothing. */
	assert_int_equal(
		mach_mem_protect(m->mem, BUF + MACH_PAGE_SIZE, MACH_PAGE_SIZE, MACH_PROT_R), 0);
	sys(m, MACH_NR_write, (uint64_t)wfd, BUF, 5, 0, 0);
	sys(m, MACH_NR_read, (uint64_t)rfd, BUF + MACH_PAGE_SIZE, 5, 0, 0);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], 14);
	close(rfd);
	close(wfd);
}

static void test_mach_sys_stat64_fields_are_converted(void **state)
{
	struct mach *m = *state;
	char path[] = "/tmp/test_mach_sys.XXXXXX";
	int fd = mkstemp(path);
	struct stat st;
	uint64_t q;
	uint32_t w;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	assert_int_equal(fstat(fd, &st), 0);
	put_str(m, BUF, path);
	sys(m, MACH_NR_stat64, BUF, BUF + 512, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 0);
	/* struct stat64 of asm/stat.h: dev 0, ino 8, rdev 16, size 24, blocks 32, mode 40, uid 44,
	 * gid 48, blksize 52, nlink 56, atime 64, mtime 80, ctime 96. */
	assert_int_equal(mach_mem_read(m->mem, BUF + 512 + 8, &q, 8), 0);
	assert_int_equal(q, st.st_ino);
	assert_int_equal(mach_mem_read(m->mem, BUF + 512 + 24, &q, 8), 0);
	assert_int_equal(q, 10);
	assert_int_equal(mach_mem_read(m->mem, BUF + 512 + 40, &w, 4), 0);
	assert_int_equal(w, st.st_mode);
	assert_int_equal(mach_mem_read(m->mem, BUF + 512 + 56, &w, 4), 0);
	assert_int_equal(w, 1);
	assert_int_equal(mach_mem_read(m->mem, BUF + 512 + 80, &q, 8), 0);
	assert_int_equal(q, (uint64_t)st.st_mtim.tv_sec);
	/* The old struct stat: size at 32 (after seven 32-bit words and padding). */
	sys(m, MACH_NR_fstat, (uint64_t)fd, BUF + 1024, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 0);
	assert_int_equal(mach_mem_read(m->mem, BUF + 1024 + 32, &q, 8), 0);
	assert_int_equal(q, 10);
	assert_int_equal(mach_mem_read(m->mem, BUF + 1024 + 8, &w, 4), 0);
	assert_int_equal(w, st.st_mode);
	close(fd);
	unlink(path);
}

static void test_mach_sys_mmap_brk_and_flags(void **state)
{
	struct mach *m = *state;
	uint64_t va;

	/* mmap(NULL, 20000, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS (Alpha 0x12), -1, 0) */
	m->ctx.r[21] = 0;
	sys(m, MACH_NR_mmap, 0, 20000, 3, 0x12, (uint64_t)-1);
	assert_int_equal(m->ctx.r[19], 0);
	va = m->ctx.r[0];
	assert_int_equal(va, MACH_UNMAPPED_BASE);
	assert_true(mach_mem_range_ok(m->mem, va, 3 * MACH_PAGE_SIZE, MACH_PROT_W));
	/* MAP_FIXED is 0x100 on Alpha. */
	sys(m, MACH_NR_mmap, 0x300000000ull, 8192, 1, 0x112, (uint64_t)-1);
	assert_int_equal(m->ctx.r[0], 0x300000000ull);
	sys(m, MACH_NR_munmap, va, 3 * MACH_PAGE_SIZE, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 0);
	assert_false(mach_mem_range_ok(m->mem, va, 1, MACH_PROT_R));
	/* brk never fails: it answers the current break. */
	mach_mem_brk_init(m->mem, 0x120040000ull);
	sys(m, MACH_NR_brk, 0, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], 0x120040000ull);
	assert_int_equal(m->ctx.r[19], 0);
	sys(m, MACH_NR_brk, 0x120050000ull, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], 0x120050000ull);
	sys(m, MACH_NR_brk, 0x100, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[0], 0x120050000ull);
	assert_int_equal(m->ctx.r[19], 0);
}

static void test_mach_sys_sigaction_mask_and_ieee_control(void **state)
{
	struct mach *m = *state;
	uint64_t act[3] = { 0x120001000ull, MACH_SA_SIGINFO, 1ull << 1 }, old[3], set;

	assert_int_equal(mach_mem_write(m->mem, BUF, act, sizeof(act)), 0);
	sys(m, MACH_NR_rt_sigaction, MACH_SIGUSR2, BUF, 0, 8, 0x120002000ull);
	assert_int_equal(m->ctx.r[19], 0);
	sys(m, MACH_NR_rt_sigaction, MACH_SIGUSR2, 0, BUF + 64, 8, 0);
	assert_int_equal(mach_mem_read(m->mem, BUF + 64, old, sizeof(old)), 0);
	assert_memory_equal(old, act, sizeof(act));
	assert_int_equal(m->sigact[MACH_SIGUSR2].restorer, 0x120002000ull);
	sys(m, MACH_NR_rt_sigaction, MACH_SIGKILL, BUF, 0, 8, 0);
	assert_int_equal(m->ctx.r[19], 1);
	sys(m, MACH_NR_rt_sigaction, MACH_SIGUSR2, BUF, 0, 16, 0);
	assert_int_equal(m->ctx.r[0], 22); /* sigsetsize must be 8 */
	/* SIG_BLOCK is 1 on Alpha; KILL and STOP cannot be blocked. */
	set = (1ull << (MACH_SIGUSR1 - 1)) | (1ull << (MACH_SIGKILL - 1));
	assert_int_equal(mach_mem_write(m->mem, BUF, &set, 8), 0);
	sys(m, MACH_NR_rt_sigprocmask, 1, BUF, BUF + 8, 8, 0);
	assert_int_equal(m->ctx.r[19], 0);
	assert_int_equal(m->sigmask, 1ull << (MACH_SIGUSR1 - 1));
	/* SSI_IEEE_FP_CONTROL: enable the division-by-zero trap (IEEE_TRAP_ENABLE_DZE). */
	set = 1ull << 2;
	assert_int_equal(mach_mem_write(m->mem, BUF, &set, 8), 0);
	m->ctx.fpcr = 2ull << 58;
	sys(m, MACH_NR_osf_setsysinfo, 14, BUF, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 0);
	assert_false(m->ctx.fpcr & (1ull << 50)); /* DZED clear */
	assert_true(m->ctx.fpcr & (1ull << 49)); /* INVD still set */
	assert_int_equal(m->ctx.fpcr & (3ull << 58), 2ull << 58); /* rounding kept */
	sys(m, MACH_NR_osf_getsysinfo, 45, BUF + 8, 8, 0, 0);
	assert_int_equal(mach_mem_read(m->mem, BUF + 8, &set, 8), 0);
	assert_int_equal(set, 1ull << 2);
}

static void test_mach_sys_unknown_call_fails_enosys_named_once(void **state)
{
	struct mach *m = *state;
	char buf[512] = "";

	fclose(m->err);
	m->err = fmemopen(buf, sizeof(buf), "w");
	sys(m, MACH_NR_swapon, 0, 0, 0, 0, 0);
	fflush(m->err);
	assert_false(m->exited);
	assert_int_equal(m->ctx.r[19], 1);
	assert_int_equal(m->ctx.r[0], (uint64_t)mach_errno_to_alpha(ENOSYS));
	assert_non_null(
		strstr(buf, "unsupported system call 322 (swapon) at pc 0x120000000: ENOSYS\n"));
	sys(m, MACH_NR_swapon, 0, 0, 0, 0, 0); /* the same call again: no second line */
	sys(m, 599, 0, 0, 0, 0, 0);
	fflush(m->err);
	assert_false(m->exited);
	assert_int_equal(m->ctx.r[0], (uint64_t)mach_errno_to_alpha(ENOSYS));
	assert_non_null(strstr(buf, "599 (unknown)"));
	assert_null(strstr(strstr(buf, "swapon") + 1, "swapon"));
}

static void test_mach_sys_uname_reports_alpha(void **state)
{
	struct mach *m = *state;
	char machine[65];

	sys(m, MACH_NR_uname, BUF, 0, 0, 0, 0);
	assert_int_equal(m->ctx.r[19], 0);
	assert_int_equal(mach_mem_read(m->mem, BUF + 4 * 65, machine, 65), 0);
	assert_string_equal(machine, "alpha");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mach_sys_errno_translation_uses_alpha_values),
		cmocka_unit_test(test_mach_sys_signal_numbers_map_both_ways),
		cmocka_unit_test(test_mach_sys_fpcr_and_swcr_conversions),
		cmocka_unit_test(test_mach_sys_open_flags_translate),
		cmocka_unit_test_setup_teardown(test_mach_sys_errors_set_a3_and_positive_errno,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_sys_pipe_read_write_through_guest_memory,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_sys_stat64_fields_are_converted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mach_sys_mmap_brk_and_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_sys_sigaction_mask_and_ieee_control,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_sys_unknown_call_fails_enosys_named_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mach_sys_uname_reports_alpha, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
