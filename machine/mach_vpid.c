/* machine/mach_vpid.c - virtual process ids: the guest's pids, mapped to the host's. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mach_int.h"

/*
 * The guest runs as in a pid namespace of its own (Linux pid_namespaces(7)): it sees virtual
 * pids, never the host's, so what it stores (ld.so, getpid() in its output, /proc/<pid>/) and
 * what the profiles carry are the same from run to run.
 *
 * - The first process of a run is MACH_VPID_FIRST (1000, our choice [U]: above the numbers a
 *   reader takes for special, like Linux's 1 for init); each fork/vfork/clone of a process
 *   gives the next number of the run, as Linux gives the next free pid.
 * - The first process's parent (the shell or recorder outside the run) is MACH_VPID_PARENT
 *   (999 [U]: getppid() > 0, as programs under qemu-alpha see); a process whose parent died
 *   has parent 1, the init it is reparented to. Any other pid outside the run (a host process
 *   group or session) reads as 0, as Linux's pid_vnr() gives for a pid outside the caller's
 *   namespace; kill() and wait4() of a pid that is not one of the run's fail with ESRCH /
 *   ECHILD.
 * - Threads keep their ids (mach_thread.c: the first thread's is the pid).
 *
 * Every host process of the run maps one table (a memfd, MAP_SHARED: inherited over fork and,
 * with --pid-table FD, over the execve of an Alpha program, which re-executes axprof in the
 * same host process): the next number and the (virtual, host) pairs of the live processes. A
 * parent takes the child's number before the host fork and writes the pair before fork()
 * returns in either process; a pair is freed when its process is reaped by wait4/waitid.
 *
 * Numbers are deterministic when one process forks at a time (a shell, a parent starting its
 * workers, fork/exec/pipe programs); two processes of a run forking at the same host moment
 * take the next numbers in host order. The table holds MACH_VPID_SLOTS live processes: past
 * that fork fails with EAGAIN, as Linux's does at pid_max.
 */

#define VPID_MAGIC 0x64697076u /* "vpid" */

struct vpid_slot {
	int32_t vpid; /* 0: free */
	int32_t host; /* 0: not yet written */
};

struct mach_vpids {
	uint32_t magic;
	int32_t next; /* the next process's number */
	int32_t parent; /* the host pid of the first process's parent */
	struct vpid_slot slot[MACH_VPID_SLOTS];
};

static int32_t load(const int32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void store(int32_t *p, int32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static struct vpid_slot *slot_of_vpid(struct mach_vpids *t, int32_t vpid)
{
	for (unsigned int i = 0; i < MACH_VPID_SLOTS; i++)
		if (load(&t->slot[i].vpid) == vpid)
			return &t->slot[i];
	return NULL;
}

static struct vpid_slot *slot_of_host(struct mach_vpids *t, pid_t host)
{
	for (unsigned int i = 0; i < MACH_VPID_SLOTS; i++)
		if (load(&t->slot[i].host) == host && load(&t->slot[i].vpid) > 0)
			return &t->slot[i];
	return NULL;
}

/* Claim a free slot for vpid (host not yet known): the slot or NULL when all are taken. */
static struct vpid_slot *claim(struct mach_vpids *t, int32_t vpid)
{
	for (unsigned int i = 0; i < MACH_VPID_SLOTS; i++) {
		int32_t zero = 0;

		if (load(&t->slot[i].vpid))
			continue;
		if (__atomic_compare_exchange_n(&t->slot[i].vpid, &zero, vpid, false,
						__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			store(&t->slot[i].host, 0);
			return &t->slot[i];
		}
	}
	return NULL;
}

static int map_table(struct mach *m, int fd)
{
	void *p = mmap(NULL, sizeof(struct mach_vpids), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (p == MAP_FAILED)
		return -errno;
	m->vpids = p;
	m->vpid_fd = fd;
	return 0;
}

int mach_vpid_init(struct mach *m, int inherit_fd)
{
	struct vpid_slot *s;
	int fd, ret;

	m->vpid_fd = -1;
	if (inherit_fd > 0) {
		/* An execve'd Alpha program: the table of the run, our pair already in it. */
		struct stat st;

		if (fstat(inherit_fd, &st) || st.st_size != (off_t)sizeof(struct mach_vpids))
			return -EBADF;
		ret = map_table(m, inherit_fd);
		if (ret)
			return ret;
		if (fcntl(inherit_fd, F_SETFD, FD_CLOEXEC))
			return -errno;
		s = slot_of_host(m->vpids, getpid());
		if (m->vpids->magic != VPID_MAGIC || !s)
			return -EBADF;
		m->pid = load(&s->vpid);
		return 0;
	}
	/* Never 0-2 (a closed stdin): --pid-table 0 means none. */
	ret = memfd_create("axprof-pids", MFD_CLOEXEC);
	if (ret < 0)
		return -errno;
	fd = fcntl(ret, F_DUPFD_CLOEXEC, 3);
	close(ret);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, sizeof(struct mach_vpids))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = map_table(m, fd);
	if (ret) {
		close(fd);
		return ret;
	}
	m->vpids->magic = VPID_MAGIC;
	m->vpids->next = MACH_VPID_FIRST + 1;
	m->vpids->parent = getppid();
	s = claim(m->vpids, MACH_VPID_FIRST);
	store(&s->host, getpid());
	m->pid = MACH_VPID_FIRST;
	return 0;
}

void mach_vpid_exit(struct mach *m)
{
	if (m->vpids)
		munmap(m->vpids, sizeof(struct mach_vpids));
	if (m->vpid_fd >= 0)
		close(m->vpid_fd);
	m->vpids = NULL;
	m->vpid_fd = -1;
}

int32_t mach_vpid_alloc(struct mach *m)
{
	int32_t v;

	if (!m->vpids)
		return -EAGAIN;
	v = __atomic_fetch_add(&m->vpids->next, 1, __ATOMIC_ACQ_REL);
	if (v <= 0 || !claim(m->vpids, v))
		return -EAGAIN;
	return v;
}

void mach_vpid_bind(struct mach *m, int32_t vpid, pid_t host)
{
	struct vpid_slot *s = m->vpids ? slot_of_vpid(m->vpids, vpid) : NULL;

	if (s)
		store(&s->host, host);
}

void mach_vpid_free(struct mach *m, int32_t vpid)
{
	struct vpid_slot *s = m->vpids && vpid > 0 ? slot_of_vpid(m->vpids, vpid) : NULL;

	if (!s)
		return;
	store(&s->host, 0);
	store(&s->vpid, 0);
}

pid_t mach_vpid_to_host(struct mach *m, int32_t vpid)
{
	struct vpid_slot *s;
	pid_t h;

	if (vpid <= 0 || !m->vpids)
		return -1;
	s = slot_of_vpid(m->vpids, vpid);
	h = s ? load(&s->host) : 0;
	return h > 0 ? h : -1;
}

int32_t mach_vpid_of_host(struct mach *m, pid_t host)
{
	struct vpid_slot *s;

	if (host <= 0 || !m->vpids)
		return 0;
	s = slot_of_host(m->vpids, host);
	return s ? load(&s->vpid) : 0;
}

int mach_vpid_keep_fd(struct mach *m, bool keep)
{
	if (m->vpid_fd < 0)
		return -EBADF;
	return fcntl(m->vpid_fd, F_SETFD, keep ? 0 : FD_CLOEXEC) ? -errno : m->vpid_fd;
}

int64_t mach_vpid_wait_arg(struct mach *m, int64_t pid)
{
	pid_t h;

	if (pid == 0 || pid == -1)
		return pid; /* our process group, any child */
	h = mach_vpid_to_host(m, (int32_t)(pid < 0 ? -pid : pid));
	if (h < 0)
		return -ECHILD;
	return pid < 0 ? -(int64_t)h : h;
}

int mach_vpid_kill_all(struct mach *m, int host_sig)
{
	bool any = false;

	for (unsigned int i = 0; m->vpids && i < MACH_VPID_SLOTS; i++) {
		struct vpid_slot *s = &m->vpids->slot[i];
		int32_t v = load(&s->vpid);
		pid_t h = load(&s->host);

		if (v > 0 && h > 0 && v != m->pid && !kill(h, host_sig))
			any = true;
	}
	return any ? 0 : -ESRCH;
}

int32_t mach_vpid_ppid(struct mach *m)
{
	pid_t h = getppid();
	int32_t v = mach_vpid_of_host(m, h);

	if (v)
		return v;
	return m->vpids && h == m->vpids->parent ? MACH_VPID_PARENT : 1;
}
