/*
 * bench/kirq_guest.c - the guest /init of bench/kernel-irq.sh (issue 18 item 2: where a sampling
 * interrupt's guest instructions go). Not a test: it prints figures and markers on the console.
 *
 * Loads axp_interp.ko and axprof.ko, prints the modules' text symbols from /proc/kallsyms
 * ("KIRQ-SYM addr type name [module]": the host cannot know where the modules were loaded), then
 * for each mode in kirq_modes (default floor,cycles,vprof,vreplay) spins a register loop of
 * kirq_n iterations with sampling stopped and again with it started, between the markers
 * "KIRQ-START mode" and "KIRQ-STOP mode" (the host turns QEMU's execution log on and off there,
 * and answers with a line on the console, which the guest waits for),
 * and prints "KIRQ-TIME mode off_ns on_ns interrupts": under -icount the guest clock counts
 * instructions, so (on - off) / interrupts is what an interrupt cost the loop, a cross-check of
 * the trace's count. Modes use the kernel test's configuration (periods 46,000-50,000 cycles:
 * ~5,210 interrupts/s at the nominal 250 MHz) and each mode's default share and budget.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <time.h>
#include <unistd.h>

#include "axprof_ioctl.h"
#include "kt_module.h"

#define PERIOD_LO 46000 /* as tests/kernel/init.c */
#define PERIOD_HI 50000

static volatile unsigned long sink;

/* The interrupted program: a loop with no system calls and no memory but one store. */
static void spin(long n)
{
	unsigned long a = 1, b = 2;
	long i;

	for (i = 0; i < n; i++) {
		a = a * 3 + b;
		b ^= a >> 7;
	}
	sink = a + b;
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void print_module_symbols(void)
{
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f) {
		printf("KIRQ-ERROR /proc/kallsyms: %s\n", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[axprof]") || strstr(line, "[axp_interp]"))
			printf("KIRQ-SYM %s", line);
	fclose(f);
}

static uint64_t interrupts(int fd)
{
	struct axprof_glue g;

	if (ioctl(fd, AXPROF_IOC_GLUE, &g))
		return 0;
	return g.c[AXPROF_G_TICKS] + g.c[AXPROF_G_FLOOR_TICKS];
}

/*
 * The host answers each marker with a line on the console once QEMU's log is switched. The wait
 * spins in user mode between non-blocking reads: blocked in read(), the kernel's idle loop would
 * fill the log while the host answers.
 */
static void wait_host(void)
{
	char c;
	int i;

	for (i = 0; i < 100000; i++) {
		if (read(0, &c, 1) == 1 && c == '\n')
			return;
		spin(20000);
	}
	printf("KIRQ-ERROR no answer from the host on the console\n");
}

static void drain(int fd)
{
	static char buf[64 * 1024];

	while (read(fd, buf, sizeof(buf)) > 0)
		;
}

static void run_mode(int fd, const char *mode, long n)
{
	struct axprof_drv drv = { 0 };
	struct vs_config cfg;
	unsigned int m;
	int64_t t0, t1, t2, t3;
	uint64_t i0, i1;

	if (!strcmp(mode, "floor") || !strcmp(mode, "cycles"))
		m = VS_MODE_CYCLES;
	else if (!strcmp(mode, "vprof"))
		m = VS_MODE_VPROF;
	else if (!strcmp(mode, "vreplay"))
		m = VS_MODE_VREPLAY;
	else {
		printf("KIRQ-ERROR unknown mode %s (floor, cycles, vprof, vreplay)\n", mode);
		return;
	}
	vs_config_default(&cfg, m);
	cfg.period[VS_EV_CYCLES].lo = PERIOD_LO;
	cfg.period[VS_EV_CYCLES].hi = PERIOD_HI;
	cfg.buf_bytes = 1u << 20;
	if (!strcmp(mode, "floor"))
		drv.flags = AXPROF_DRV_FLOOR;
	if (ioctl(fd, VS_IOC_SET_CONFIG, &cfg) || ioctl(fd, AXPROF_IOC_SET_DRV, &drv)) {
		printf("KIRQ-ERROR %s: configuring: %s\n", mode, strerror(errno));
		return;
	}
	t0 = now_ns();
	spin(n);
	t1 = now_ns();
	printf("KIRQ-START %s\n", mode);
	fflush(stdout);
	wait_host();
	spin(n / 8); /* the pieces of the wait (the idle loop) end before sampling starts */
	i0 = interrupts(fd);
	if (ioctl(fd, VS_IOC_START, NULL)) {
		printf("KIRQ-ERROR %s: start: %s\n", mode, strerror(errno));
		return;
	}
	t2 = now_ns();
	spin(n);
	t3 = now_ns();
	ioctl(fd, VS_IOC_STOP, NULL);
	i1 = interrupts(fd);
	printf("KIRQ-STOP %s\n", mode);
	fflush(stdout);
	wait_host();
	printf("KIRQ-TIME %s %lld %lld %llu\n", mode, (long long)(t1 - t0), (long long)(t3 - t2),
	       (unsigned long long)(i1 - i0));
	fflush(stdout);
	drain(fd);
}

int main(void)
{
	const char *modes = getenv("kirq_modes");
	const char *ns = getenv("kirq_n");
	long n = ns ? atol(ns) : 4000000;
	char list[256], *mode, *save;
	int fd, e1, e2;

	fcntl(0, F_SETFL, fcntl(0, F_GETFL) | O_NONBLOCK);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	spin(1000000); /* first-run costs (page faults) out of the first mode's figures */
	e1 = load_module("/modules/axp_interp.ko", "");
	e2 = load_module("/modules/axprof.ko", "");
	fd = open("/dev/axprof", O_RDWR);
	if (e1 || e2 || fd < 0) {
		printf("KIRQ-ERROR loading the modules: axp_interp %d, axprof %d, open %d\n", e1,
		       e2, fd < 0 ? -errno : 0);
	} else {
		print_module_symbols();
		snprintf(list, sizeof(list), "%s", modes ? modes : "floor,cycles,vprof,vreplay");
		for (mode = strtok_r(list, ",", &save); mode; mode = strtok_r(NULL, ",", &save))
			run_mode(fd, mode, n > 0 ? n : 4000000);
	}
	printf("KIRQ-DONE\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	return 0;
}
