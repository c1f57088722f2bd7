/* tests/machine/progs/procself.c - Alpha test program: /proc/self/{cmdline,maps,exe} show the
 * Alpha process (its arguments, its and libc's mappings, its program), not the emulator's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The file's bytes with each NUL shown as '|', after `label`. */
static void show_cmdline(const char *path, const char *label)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f) {
		printf("%s: cannot open\n", label);
		return;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!buf[i])
			buf[i] = '|';
	printf("%s: %.*s\n", label, (int)n, buf);
}

/* Does the line set already hold s? (a small set of "perms path" strings) */
static int seen(char set[][1024], int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(set[i], s))
			return 1;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The distinct (permissions, file) pairs of the program's, libc's and ld.so's mappings, and
 * whether every line has Linux's shape. */
static void show_maps(const char *exe)
{
	static char set[64][1024];
	char line[1024], perms[8], path[512];
	unsigned long lo, hi, off, ino;
	unsigned int maj, min;
	int n = 0, bad = 0, stack = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f) {
		printf("/proc/self/maps: cannot open\n");
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu %511s", &lo, &hi, perms, &off, &maj,
			   &min, &ino, path) < 7 ||
		    lo >= hi || strlen(perms) != 4) {
			bad++;
			continue;
		}
		if (!strcmp(path, "[stack]"))
			stack++;
		if (strcmp(path, exe) && !strstr(path, "/libc.so") && !strstr(path, "/ld-linux"))
			continue;
		if (ino == 0)
			bad++;
		snprintf(line, sizeof(line), "%s %s", perms, strrchr(path, '/') + 1);
		if (n < 64 && !seen(set, n, line))
			snprintf(set[n++], sizeof(set[0]), "%s", line);
	}
	fclose(f);
	qsort(set, (size_t)n, sizeof(set[0]), cmp);
	for (int i = 0; i < n; i++)
		printf("maps: %s\n", set[i]);
	printf("maps: %d malformed lines, %d [stack]\n", bad, stack);
}

int main(int argc, char **argv)
{
	char exe[4096], buf[4096], path[64];
	ssize_t n;

	(void)argc;
	(void)argv;
	show_cmdline("/proc/self/cmdline", "/proc/self/cmdline");
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)getpid());
	show_cmdline(path, "/proc/PID/cmdline");
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		return 1;
	exe[n] = 0;
	printf("exe is the program: %s\n", strstr(exe, "procself") ? "yes" : exe);
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)getpid());
	n = readlink(path, buf, sizeof(buf) - 1);
	buf[n < 0 ? 0 : n] = 0;
	printf("/proc/PID/exe is the same: %s\n", strcmp(buf, exe) ? "no" : "yes");
	show_maps(exe);
	return 0;
}
