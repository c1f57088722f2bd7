/* tests/machine/progs/argsenv.c - Alpha test program: arguments, environment, stdin, files, dirs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	char buf[4096], *names[64], path[512];
	const char *v = getenv("AXPROF_TEST_VAR");
	size_t n = 0, total = 0;
	struct dirent *de;
	struct stat st;
	ssize_t r;
	DIR *d;
	int fd;

	for (int i = 1; i < argc; i++)
		printf("argv[%d] = '%s'\n", i, argv[i]);
	printf("AXPROF_TEST_VAR = %s\n", v ? v : "(unset)");
	while ((r = read(0, buf, sizeof(buf))) > 0)
		total += (size_t)r;
	printf("stdin bytes: %zu\n", total);
	printf("isatty(0): %d\n", isatty(0));

	/* A scratch directory with three files, listed in sorted order. */
	snprintf(path, sizeof(path), "%s/d", argc > 1 ? argv[1] : "/tmp");
	if (mkdir(path, 0755) && errno != EEXIST)
		return 1;
	for (int i = 0; i < 3; i++) {
		char f[600];

		snprintf(f, sizeof(f), "%s/file%d", path, 2 - i);
		fd = open(f, O_CREAT | O_WRONLY | O_TRUNC, 0644);
		if (fd < 0)
			return 1;
		if (write(fd, "abcdefgh", (size_t)(i + 1) * 2) < 0)
			return 1;
		close(fd);
	}
	d = opendir(path);
	while (d && (de = readdir(d)) && n < 64)
		if (de->d_name[0] != '.')
			names[n++] = strdup(de->d_name);
	if (d)
		closedir(d);
	qsort(names, n, sizeof(names[0]), cmp);
	for (size_t i = 0; i < n; i++) {
		char f[600];

		snprintf(f, sizeof(f), "%s/%s", path, names[i]);
		if (stat(f, &st))
			return 1;
		printf("%s %lld bytes mode %o\n", names[i], (long long)st.st_size,
		       (unsigned)st.st_mode & 0777);
		unlink(f);
		free(names[i]);
	}
	printf("rmdir: %d\n", rmdir(path));
	printf("open missing: %d errno ENOENT %d\n", open("/nonexistent/x", O_RDONLY),
	       errno == ENOENT);
	printf("readlink /proc/self/exe ends in argsenv: %d\n",
	       (r = readlink("/proc/self/exe", buf, sizeof(buf) - 1)) > 7 &&
		       !memcmp(buf + r - 7, "argsenv", 7));
	return argc > 2 ? atoi(argv[2]) : 0;
}
