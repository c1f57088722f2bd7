/* tests/daemon/test_dmn.c - the daemon library: image maps, attribution, merging, flushing. */
#include "pdb/pdb_test.h"

#include <fcntl.h>
#include <elf.h>
#include <sys/stat.h>

#include "axp.h"
#include "dmn_lib.h"
#include "hotlist.h"
#include "vs_abi.h"

/*
 * The image is this test program itself (/proc/self/exe): an ELF64 file with an executable
 * PT_LOAD segment, which is all the daemon needs from an image.
 */

static char exe[4096];
static uint64_t text_vaddr, text_off, text_size; /* the executable PT_LOAD */

/* Read straight from the file with <elf.h>, independently of image/ which the daemon uses. */
static void find_text(void)
{
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	Elf64_Ehdr eh;
	int fd;

	assert_true(n > 0);
	exe[n] = 0;
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	assert_int_equal(eh.e_phentsize, sizeof(Elf64_Phdr));
	for (size_t i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;

		assert_int_equal(pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))),
				 sizeof(ph));
		if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
			text_vaddr = ph.p_vaddr;
			text_off = ph.p_offset;
			text_size = ph.p_memsz;
			break;
		}
	}
	close(fd);
	assert_true(text_size >= 0x1000);
}

static struct dmn *new_dmn(const char *dir, unsigned int flags, const char *proc_root)
{
	struct dmn_opts o = { .db_dir = dir, .flags = flags, .proc_root = proc_root };
	struct ax_error err;
	struct dmn *d;

	assert_int_equal(dmn_new(&d, &o, &err), 0);
	return d;
}

/* ---- record builders ---- */

struct stream {
	uint8_t b[16384];
	size_t n;
};

static void put(struct stream *s, const void *r, size_t len)
{
	assert_true(s->n + len <= sizeof(s->b));
	memcpy(s->b + s->n, r, len);
	s->n += len;
}

static void put_sample(struct stream *s, uint32_t pid, uint64_t pc, uint32_t count, uint8_t ev,
		       bool kernel)
{
	struct vs_rec_sample r = { { VS_REC_SAMPLE, sizeof(r) },       pid, pc, count, ev,
				   kernel ? VS_SF_KERNEL : VS_SF_USER, 0 };

	put(s, &r, sizeof(r));
}

static void put_hotlist(struct stream *s, uint32_t pid, uint64_t pc, uint8_t dest,
			const struct hotlist *h)
{
	uint8_t buf[VS_REC_HOTLIST_MAX] = { 0 };
	struct vs_rec_hotlist r = { { VS_REC_HOTLIST, 0 }, pid, pc, 0, dest, { 0 } };
	int n = hotlist_pack(h, buf + sizeof(r), sizeof(buf) - sizeof(r));

	assert_true(n > 0);
	r.packed_len = (uint32_t)n;
	r.h.len = (uint16_t)VS_REC_HOTLIST_SIZE((size_t)n);
	memcpy(buf, &r, sizeof(r));
	put(s, buf, r.h.len);
}

static void put_latency(struct stream *s, uint32_t pid, uint64_t pc, uint32_t dloads,
			uint32_t mloads)
{
	struct vs_rec_latency r;

	memset(&r, 0, sizeof(r));
	r.h.type = VS_REC_LATENCY;
	r.h.len = sizeof(r);
	r.pid = pid;
	r.pc = pc;

	r.level[AXP_LVL_DCACHE] = dloads;
	r.level[AXP_LVL_MEMORY] = mloads;
	r.hist[vs_lat_bucket(2)] += dloads;
	r.hist[vs_lat_bucket(80)] += mloads;
	r.latency_sum = 2ull * dloads + 80ull * mloads;
	put(s, &r, sizeof(r));
}

static void put_conflict(struct stream *s, uint32_t pid, uint64_t pc, uint64_t prior,
			 uint32_t count, uint16_t dist)
{
	struct vs_rec_conflict r = {
		{ VS_REC_CONFLICT, sizeof(r) }, pid, pc, prior, count, VS_CNF_STORE_LOAD, 0, dist
	};

	put(s, &r, sizeof(r));
}

static void put_vcount(struct stream *s, uint32_t pid, uint64_t pc, uint32_t count)
{
	struct vs_rec_vcount r = { { VS_REC_VCOUNT, sizeof(r) }, pid, pc, count, 0 };

	put(s, &r, sizeof(r));
}

/* A VS_REC_STACK of depth frames (pc[0] the sampled pc). */
static void put_stack(struct stream *s, uint32_t pid, uint32_t count, uint8_t flags,
		      const uint64_t *pc, uint16_t depth)
{
	uint8_t b[VS_REC_STACK_SIZE(VS_STACK_MAX)];
	struct vs_rec_stack r = { { VS_REC_STACK, (uint16_t)VS_REC_STACK_SIZE(depth) },
				  pid,
				  count,
				  VS_EV_CYCLES,
				  flags,
				  depth };

	memcpy(b, &r, sizeof(r));
	memcpy(b + sizeof(r), pc, 8 * (size_t)depth);
	put(s, b, VS_REC_STACK_SIZE(depth));
}

static void feed_all(struct dmn *d, const struct stream *s)
{
	assert_int_equal(dmn_feed(d, s->b, s->n, true), (long)s->n);
}

static char *image_key(void)
{
	static struct pdb_image img;
	struct ax_error err;

	assert_int_equal(pdb_image_describe(exe, &img, &err), 0);
	return img.key;
}

/* The profile the daemon stored for the test image in epoch 1 (the database closed again). */
static struct pdb_prof *load_image(const char *dir)
{
	struct pdb_prof *p;
	struct ax_error err;
	struct pdb_db *db;

	assert_int_equal(pdb_open(dir, false, &db, &err), 0);
	assert_int_equal(pdb_load(db, 1, image_key(), &p), 0);
	pdb_close(db);
	return p;
}

/* ---- tests ---- */

static void test_dmn_attribute_exec_bias(void **state)
{
	char *dir = tdir_new(), key[PDB_KEY_MAX + 1];
	struct dmn *d = new_dmn(dir, 0, NULL);
	uint64_t bias = 0x555500000000ull, off;

	(void)state;
	assert_int_equal(dmn_exec(d, 100, exe, bias), 0);
	assert_true(dmn_attribute(d, 100, bias + text_vaddr + 0x40, key, &off));
	assert_int_equal(off, text_vaddr + 0x40);
	assert_string_equal(key, image_key());
	assert_true(dmn_attribute(d, 100, bias + text_vaddr + text_size - 4, NULL, &off));
	assert_false(dmn_attribute(d, 100, bias + text_vaddr + text_size, NULL, &off));
	assert_false(dmn_attribute(d, 100, bias + text_vaddr - 4, NULL, &off));
	assert_false(dmn_attribute(d, 101, bias + text_vaddr + 0x40, NULL, &off));
	/* exec replaces the image map; exit forgets the process. */
	assert_int_equal(dmn_exec(d, 100, exe, 0x7000000000ull), 0);
	assert_false(dmn_attribute(d, 100, bias + text_vaddr + 0x40, NULL, &off));
	assert_true(dmn_attribute(d, 100, 0x7000000000ull + text_vaddr, NULL, &off));
	assert_int_equal(off, text_vaddr);
	assert_int_equal(dmn_exit(d, 100), 0);
	assert_false(dmn_attribute(d, 100, 0x7000000000ull + text_vaddr, NULL, &off));
	/* A file that does not exist cannot be mapped; the message names it. */
	assert_int_equal(dmn_exec(d, 102, "/nonexistent/prog", 0), -ENOENT);
	assert_non_null(strstr(dmn_errmsg(d), "/nonexistent/prog"));
	assert_int_equal(dmn_last_error(d)->code, -ENOENT);
	assert_ptr_equal(dmn_last_error(d)->msg, dmn_errmsg(d));
	dmn_free(d);
	tdir_free(dir);
}

/* ABI 5: a sample's pid is its thread's; VS_REC_TASK names the process and the command. */
static void test_dmn_threads_of_task_records(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	uint64_t pc = 0x555500000000ull + text_vaddr + 0x40;
	struct vs_rec_task t = { { VS_REC_TASK, sizeof(t) }, 100, 4194305, 0, "worker" };
	const struct dmn_thread *th;
	struct dmn_stats st;
	struct stream s = { .n = 0 };
	size_t n;

	(void)state;
	assert_int_equal(dmn_exec(d, 100, exe, 0x555500000000ull), 0);
	put(&s, &t, sizeof(t));
	put_sample(&s, 4194305, pc, 5, VS_EV_CYCLES, false); /* the thread: process 100 */
	put_sample(&s, 100, pc, 3, VS_EV_CYCLES, false); /* the first thread: tid = pid */
	put_sample(&s, 4194399, pc, 2, VS_EV_CYCLES, false); /* unnamed: its own process */
	put(&s, &t, sizeof(t)); /* named again (another CPU): no new row */
	memcpy(t.comm, "renamed\0\0", 10);
	put(&s, &t, sizeof(t)); /* prctl(PR_SET_NAME): a new row from here */
	put_sample(&s, 4194305, pc, 7, VS_EV_CYCLES, false);
	feed_all(d, &s);
	dmn_get_stats(d, &st);
	assert_int_equal(st.records[VS_REC_TASK], 3);
	assert_int_equal(st.samples, 17);
	assert_int_equal(st.samples_unknown, 2);
	assert_int_equal(st.threads, 2);
	th = dmn_threads(d, &n);
	assert_int_equal(n, 2);
	assert_int_equal(th[0].pid, 100);
	assert_int_equal(th[0].tid, 4194305);
	assert_string_equal(th[0].comm, "worker");
	assert_int_equal(th[0].samples, 5);
	assert_string_equal(th[1].comm, "renamed");
	assert_int_equal(th[1].samples, 7);
	/* The database keeps them: samples per (pid, tid), the thread's names (threads.prof). */
	assert_int_equal(dmn_flush(d), 0);
	{
		struct pdb_prof *p, *u;
		struct pdb_task *tk;
		struct pdb_unknown *un;
		struct pdb_thread *tt;
		size_t nt;

		assert_int_equal(pdb_load(dmn_db(d), 1, image_key(), &p), 0);
		assert_int_equal(pdb_prof_tasks(p, &tk, &nt), 0);
		assert_int_equal(nt, 2); /* (100, 100): 3, (100, 4194305): 5 + 7 */
		assert_int_equal(tk[0].pid, 100);
		assert_int_equal(tk[0].tid, 100);
		assert_int_equal(tk[0].count, 3);
		assert_int_equal(tk[1].pid, 100);
		assert_int_equal(tk[1].tid, 4194305);
		assert_int_equal(tk[1].count, 12);
		free(tk);
		pdb_prof_free(p);
		assert_int_equal(pdb_load(dmn_db(d), 1, PDB_KEY_UNKNOWN, &u), 0);
		assert_int_equal(pdb_prof_unknowns(u, &un, &nt), 0);
		assert_int_equal(nt, 1); /* the unnamed thread's, in its own process */
		assert_int_equal(un[0].pid, 4194399);
		assert_int_equal(un[0].tid, 4194399);
		free(un);
		assert_int_equal(pdb_prof_threads(u, &tt, &nt), 0);
		assert_int_equal(nt, 1);
		assert_int_equal(tt[0].pid, 100);
		assert_int_equal(tt[0].tid, 4194305);
		assert_int_equal(tt[0].nnames, 2);
		assert_string_equal(tt[0].name[0], "worker");
		assert_string_equal(tt[0].name[1], "renamed");
		free(tt);
		pdb_prof_free(u);
	}
	/* A forked child forgets the parent's threads. */
	dmn_discard(d);
	th = dmn_threads(d, &n);
	assert_int_equal(n, 0);
	dmn_free(d);
	tdir_free(dir);
}

static void test_dmn_mmap_file_offset_and_munmap(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	uint64_t start = 0x7f0000000000ull + (text_off & 0xfff), off;
	uint64_t page = text_off & ~0xfffull, len = 0x4000;

	(void)state;
	/* mmap of the text segment's pages, as /proc/PID/maps would show it. */
	start = 0x7f0000000000ull;
	assert_int_equal(dmn_mmap(d, 7, start, len, page, exe), 0);
	assert_true(dmn_attribute(d, 7, start + (text_off - page), NULL, &off));
	assert_int_equal(off, text_vaddr);
	assert_true(dmn_attribute(d, 7, start + 0x3ffc, NULL, &off));
	/* Unmapping the middle splits the region. */
	assert_int_equal(dmn_munmap(d, 7, start + 0x1000, 0x2000), 0);
	assert_true(dmn_attribute(d, 7, start + 0xffc, NULL, &off));
	assert_false(dmn_attribute(d, 7, start + 0x1000, NULL, &off));
	assert_false(dmn_attribute(d, 7, start + 0x2ffc, NULL, &off));
	assert_true(dmn_attribute(d, 7, start + 0x3000, NULL, &off));
	assert_int_equal(off, text_vaddr - (text_off - page) + 0x3000);
	/* A new mapping over an old one replaces it. */
	assert_int_equal(dmn_mmap(d, 7, start, 0x2000, page + 0x1000, exe), 0);
	assert_true(dmn_attribute(d, 7, start, NULL, &off));
	assert_int_equal(off, text_vaddr - (text_off - page) + 0x1000);
	assert_int_equal(dmn_mmap(d, 7, start, 0, 0, exe), -EINVAL);
	dmn_free(d);
	tdir_free(dir);
}

static void test_dmn_feed_samples_and_flush(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	uint64_t bias = 0x10000000ull, pc = bias + text_vaddr + 0x100;
	struct stream s = { .n = 0 };
	struct dmn_stats st;
	struct pdb_prof *p, *u;
	struct pdb_db *db;
	struct ax_error err;
	struct pdb_unknown *un;
	size_t nu;

	(void)state;
	assert_int_equal(dmn_exec(d, 100, exe, bias), 0);
	put_sample(&s, 100, pc, 5, VS_EV_CYCLES, false);
	put_sample(&s, 100, pc, 7, VS_EV_CYCLES, false);
	put_sample(&s, 100, pc + 4, 3, VS_EV_IMISS, false);
	put_sample(&s, 999, pc, 11, VS_EV_CYCLES, false); /* a pid nobody mapped */
	put_sample(&s, 100, pc, 2, VS_EV_CYCLES, true); /* kernel mode: no kernel image */
	feed_all(d, &s);
	dmn_get_stats(d, &st);
	assert_int_equal(st.records[VS_REC_SAMPLE], 5);
	assert_int_equal(st.samples, 28);
	assert_int_equal(st.samples_unknown, 13);
	assert_int_equal(st.samples_kernel, 2);
	assert_int_equal(st.damaged, 0);
	assert_int_equal(dmn_flush(d), 0);
	dmn_get_stats(d, &st);
	assert_int_equal(st.flushes, 1);
	assert_int_equal(st.last_epoch, 1);

	assert_int_equal(pdb_open(dir, false, &db, &err), 0);
	assert_int_equal(pdb_load(db, 1, image_key(), &p), 0);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, text_vaddr + 0x100), 12);
	assert_int_equal(pdb_prof_count(p, PDB_EV_IMISS, text_vaddr + 0x104), 3);
	assert_int_equal(pdb_prof_total(p, PDB_EV_CYCLES), 12);
	pdb_prof_free(p);
	assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &u), 0);
	assert_int_equal(pdb_prof_unknowns(u, &un, &nu), 0);
	assert_int_equal(nu, 2);
	assert_int_equal(un[0].pid, 100); /* sorted by (pid, pc, event) */
	assert_int_equal(un[0].count, 2);
	assert_int_equal(un[1].pid, 999);
	assert_int_equal(un[1].count, 11);
	free(un);
	pdb_prof_free(u);

	/* A second flush adds; nothing is stored twice. */
	assert_int_equal(dmn_flush(d), 0);
	s.n = 0;
	put_sample(&s, 100, pc, 1, VS_EV_CYCLES, false);
	feed_all(d, &s);
	assert_int_equal(dmn_flush(d), 0);
	assert_int_equal(pdb_load(db, 1, image_key(), &p), 0);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, text_vaddr + 0x100), 13);
	pdb_prof_free(p);
	/* A new epoch takes the next flush. */
	uint32_t e;

	assert_int_equal(pdb_epoch_new(db, &e), 0);
	assert_int_equal(e, 2);
	feed_all(d, &s);
	assert_int_equal(dmn_flush(d), 0);
	assert_int_equal(pdb_load(db, 2, image_key(), &p), 0);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, text_vaddr + 0x100), 1);
	pdb_prof_free(p);
	pdb_close(db);
	dmn_free(d);
	tdir_free(dir);
}

/*
 * The merge tries the region it found last before searching (dmn_lookup_hot, p->hint): a region
 * unmapped, moved or cut between two records of the same pc must not answer from that memory.
 */
static void test_dmn_feed_after_map_changes(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	uint64_t page = text_off & ~0xfffull, a = 0x7f0000000000ull, b = 0x7f1000000000ull;
	uint64_t pc = a + (text_off - page) + 0x40, off;
	struct stream s = { .n = 0 };
	struct dmn_stats st;
	struct pdb_prof *p;
	struct pdb_db *db;
	struct ax_error err;

	(void)state;
	assert_int_equal(dmn_mmap(d, 7, a, 0x4000, page, exe), 0);
	put_sample(&s, 7, pc, 5, VS_EV_CYCLES, false); /* text_vaddr + 0x40 */
	feed_all(d, &s);
	assert_int_equal(dmn_munmap(d, 7, a, 0x4000), 0); /* gone: the next one is unknown */
	feed_all(d, &s);
	dmn_get_stats(d, &st);
	assert_int_equal(st.samples_unknown, 5);
	/* Mapped again one page further into the file: the same pc, another offset. */
	assert_int_equal(dmn_mmap(d, 7, a, 0x4000, page + 0x1000, exe), 0);
	feed_all(d, &s);
	/* Another region first (the cache moves to it), then a cut that leaves pc's page. */
	s.n = 0;
	put_sample(&s, 7, b + (text_off - page) + 0x80, 2, VS_EV_CYCLES, false);
	assert_int_equal(dmn_mmap(d, 7, b, 0x4000, page, exe), 0);
	feed_all(d, &s);
	assert_int_equal(dmn_munmap(d, 7, b + 0x2000, 0x1000), 0);
	s.n = 0;
	put_sample(&s, 7, pc, 1, VS_EV_CYCLES, false);
	put_sample(&s, 7, b + 0x2000, 1, VS_EV_CYCLES, false); /* in the cut */
	feed_all(d, &s);
	dmn_get_stats(d, &st);
	assert_int_equal(st.samples_unknown, 5 + 1);
	assert_true(dmn_attribute(d, 7, pc, NULL, &off));
	assert_int_equal(off, text_vaddr + 0x40 + 0x1000);
	assert_int_equal(dmn_flush(d), 0);
	assert_int_equal(pdb_open(dir, false, &db, &err), 0);
	assert_int_equal(pdb_load(db, 1, image_key(), &p), 0);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, text_vaddr + 0x40), 5);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, text_vaddr + 0x40 + 0x1000), 5 + 1);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, text_vaddr + 0x80), 2);
	assert_int_equal(pdb_prof_total(p, PDB_EV_CYCLES), 5 + 6 + 2);
	pdb_prof_free(p);
	pdb_close(db);
	dmn_free(d);
	tdir_free(dir);
}

/* With the sampler's configuration, every stored sample carries its event's period. */
static void test_dmn_stores_periods(void **state)
{
	char *dir = tdir_new();
	struct vs_config cfg;
	struct dmn_opts o = { .db_dir = dir, .cfg = &cfg };
	uint64_t bias = 0x10000000ull, pc = bias + text_vaddr + 0x100;
	struct stream s = { .n = 0 };
	struct pdb_period pr;
	struct ax_error err;
	struct pdb_prof *p;
	struct dmn *d;
	double m;

	(void)state;
	assert_int_equal(vs_config_default(&cfg, VS_MODE_CYCLES), 0);
	cfg.period[VS_EV_CYCLES] = (struct vs_period){ 6000, 6400 };
	cfg.period[VS_EV_DMISS] = (struct vs_period){ 100, 121 };
	/* prime:100-121 is 101, 103, 107, 109 or 113: a mean of 106.6, not 110.5 (2M = 213.2,
	 * rounded to 213) */
	cfg.period[VS_EV_IMISS] = (struct vs_period){ 100, 121 };
	cfg.period_prime = 1u << VS_EV_IMISS;
	assert_int_equal(dmn_new(&d, &o, &err), 0);
	cfg.period[VS_EV_CYCLES].lo = 1; /* the library keeps its own copy */
	assert_int_equal(dmn_exec(d, 100, exe, bias), 0);
	put_sample(&s, 100, pc, 5, VS_EV_CYCLES, false);
	put_sample(&s, 100, pc + 4, 7, VS_EV_CYCLES, false);
	put_sample(&s, 100, pc, 3, VS_EV_DMISS, false);
	put_sample(&s, 100, pc, 4, VS_EV_IMISS, false);
	put_sample(&s, 100, pc, 2, VS_EV_CYCLES, true); /* unknown: no period kept */
	feed_all(d, &s);
	assert_int_equal(dmn_flush(d), 0);
	feed_all(d, &s);
	assert_int_equal(dmn_flush(d), 0);
	p = load_image(dir);
	pdb_prof_period(p, PDB_EV_CYCLES, &pr);
	assert_int_equal(pr.samples, 24);
	assert_int_equal(pr.events2, 24 * 12400);
	assert_true(pdb_prof_mean_period(p, PDB_EV_DMISS, &m) && m == 110.5);
	assert_true(pdb_prof_mean_period(p, PDB_EV_IMISS, &m) && m == 106.5);
	assert_false(pdb_prof_mean_period(p, PDB_EV_BRANCHMP, &m));
	pdb_prof_free(p);
	dmn_free(d);
	tdir_free(dir);
}

/* Without it, the samples are stored without a period. */
static void test_dmn_no_config_no_periods(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	uint64_t bias = 0x10000000ull, pc = bias + text_vaddr + 0x100;
	struct stream s = { .n = 0 };
	struct pdb_prof *p;
	double m;

	(void)state;
	assert_int_equal(dmn_exec(d, 100, exe, bias), 0);
	put_sample(&s, 100, pc, 5, VS_EV_CYCLES, false);
	feed_all(d, &s);
	assert_int_equal(dmn_flush(d), 0);
	p = load_image(dir);
	assert_int_equal(pdb_prof_total(p, PDB_EV_CYCLES), 5);
	assert_false(pdb_prof_mean_period(p, PDB_EV_CYCLES, &m));
	pdb_prof_free(p);
	dmn_free(d);
	tdir_free(dir);
}

static void test_dmn_feed_observer_records(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	uint64_t bias = 0x20000000ull, pc = bias + text_vaddr + 0x200;
	struct stream s = { .n = 0 };
	struct hotlist h;
	struct hotlist_rng rng;
	struct dmn_stats st;
	struct pdb_prof *p;
	struct pdb_value *vals;
	struct pdb_lat *lats;
	struct pdb_conflict *cf;
	struct pdb_count *vc;
	size_t n;

	(void)state;
	hotlist_rng_seed(&rng, 1);
	assert_int_equal(hotlist_init(&h, 8), 0);
	for (int i = 0; i < 100; i++)
		hotlist_insert(&h, i < 95 ? 0x3c8 : 0x1000, &rng);
	assert_int_equal(dmn_exec(d, 5, exe, bias), 0);
	put_hotlist(&s, 5, pc, 2, &h);
	put_latency(&s, 5, pc, 9, 1);
	put_conflict(&s, 5, pc + 8, pc, 4, 2); /* prior in the same image */
	put_conflict(&s, 5, pc + 8, 0x1000, 1, 9); /* prior nowhere: kept as a raw pc */
	put_vcount(&s, 5, pc, 6);
	put_vcount(&s, 77, pc, 6); /* unknown pid: dropped, counted */
	feed_all(d, &s);
	dmn_get_stats(d, &st);
	assert_int_equal(st.records[VS_REC_HOTLIST], 1);
	assert_int_equal(st.records[VS_REC_LATENCY], 1);
	assert_int_equal(st.records[VS_REC_CONFLICT], 2);
	assert_int_equal(st.records[VS_REC_VCOUNT], 2);
	assert_int_equal(st.obs_unknown, 1);
	assert_int_equal(dmn_flush(d), 0);

	p = load_image(dir);
	assert_int_equal(pdb_prof_values(p, &vals, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(vals[0].offset, text_vaddr + 0x200);
	assert_int_equal(vals[0].dest, 2);
	assert_int_equal(vals[0].h.n, 100);
	free(vals);
	assert_int_equal(pdb_prof_latencies(p, &lats, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(lats[0].lat.level[AXP_LVL_DCACHE], 9);
	assert_int_equal(lats[0].lat.level[AXP_LVL_MEMORY], 1);
	assert_int_equal(lats[0].lat.latency_sum, 98);
	free(lats);
	assert_int_equal(pdb_prof_conflicts(p, &cf, &n), 0);
	assert_int_equal(n, 2);
	/* Sorted by (load, key, prior): the unattributed one ("" key) first. */
	assert_string_equal(cf[0].prior_key, "");
	assert_int_equal(cf[0].prior_offset, 0x1000);
	assert_int_equal(cf[0].count, 1);
	assert_string_equal(cf[1].prior_key, image_key());
	assert_int_equal(cf[1].load_offset, text_vaddr + 0x208);
	assert_int_equal(cf[1].prior_offset, text_vaddr + 0x200);
	assert_int_equal(cf[1].count, 4);
	assert_int_equal(cf[1].dist_min, 2);
	free(cf);
	assert_int_equal(pdb_prof_vcounts(p, &vc, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(vc[0].count, 6);
	free(vc);
	pdb_prof_free(p);
	dmn_free(d);
	tdir_free(dir);
}

static void put_pme(struct stream *s, uint64_t pc, uint8_t status, uint8_t pair, int32_t pair_lat,
		    const uint32_t lat[5])
{
	struct vs_rec_profileme r;

	memset(&r, 0, sizeof(r));
	r.h.type = VS_REC_PROFILEME;
	r.h.len = sizeof(r);
	r.pid = 5;
	r.pc = pc;
	r.status = status;
	r.pair = pair;
	r.flags = VS_SF_USER;
	if (pair == 2) {
		r.pair_dist = 7;
		r.pair_lat = pair_lat;
	}
	if (status == VS_PME_RETIRED) {
		memcpy(r.lat, lat, sizeof(r.lat));
		for (int i = 0; i < 5; i++)
			r.span += lat[i];
		r.retire_delay = 1;
		r.events = VS_PME_E_DMISS;
	} else {
		r.span = 4;
	}
	put(s, &r, sizeof(r));
}

/* ProfileMe records: per-pc aggregates; a pair's useful overlap [PM 5.2.3] from the latencies
 * and the intra-pair fetch latency; the interval per sample is half the pair interval. */
/* record -g: stacks go to the sampled pc's image, frames named by image and offset; a frame in
 * no image keeps its raw pc (counted), a stack whose sampled pc is in no image is dropped. */
static void test_dmn_stores_stacks(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	uint64_t bias = 0x20000000ull, t = bias + text_vaddr;
	const uint64_t a[3] = { t + 0x200, t + 0x84, 0x7000 }, b[2] = { 0x9000, t + 0x84 };
	struct stream s = { .n = 0 };
	struct dmn_stats st;
	struct pdb_stack *v;
	struct pdb_prof *p;
	size_t n;

	(void)state;
	assert_int_equal(dmn_exec(d, 5, exe, bias), 0);
	put_stack(&s, 5, 3, 0, a, 3);
	put_stack(&s, 5, 2, 0, a, 3); /* the same stack: counts add */
	put_stack(&s, 5, 1, VS_STK_TRUNCATED, a, 2);
	put_stack(&s, 5, 4, 0, b, 2); /* sampled pc in no image: dropped, counted */
	feed_all(d, &s);
	dmn_get_stats(d, &st);
	assert_int_equal(st.records[VS_REC_STACK], 4);
	assert_int_equal(st.stacks, 6);
	assert_int_equal(st.stacks_unknown, 4);
	assert_int_equal(st.stack_frames_unknown, 2);
	assert_int_equal(dmn_flush(d), 0);
	p = load_image(dir);
	assert_int_equal(pdb_prof_stacks(p, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].flags, 0);
	assert_int_equal(v[0].depth, 3);
	assert_int_equal(v[0].count, 5);
	assert_string_equal(v[0].frame[0].key, image_key());
	assert_int_equal(v[0].frame[0].offset, text_vaddr + 0x200);
	assert_int_equal(v[0].frame[1].offset, text_vaddr + 0x84);
	assert_string_equal(v[0].frame[2].key, "");
	assert_int_equal(v[0].frame[2].offset, 0x7000);
	assert_int_equal(v[1].flags, PDB_STK_TRUNCATED);
	assert_int_equal(v[1].count, 1);
	free(v);
	pdb_prof_free(p);
	dmn_free(d);
	tdir_free(dir);
}

static void test_dmn_profileme_aggregates_pairs(void **state)
{
	static const uint32_t la[5] = { 2, 1, 0, 3, 1 }, lb[5] = { 2, 1, 1, 1, 1 };
	char *dir = tdir_new();
	struct vs_config cfg;
	struct dmn_opts o = { .db_dir = dir, .cfg = &cfg };
	uint64_t bias = 0x20000000ull, pc = bias + text_vaddr + 0x300, off = text_vaddr + 0x300;
	struct stream s = { .n = 0 };
	struct ax_error err;
	struct pdb_prof *p;
	struct pdb_pme *t;
	struct dmn *d;
	size_t n;

	(void)state;
	assert_int_equal(vs_config_default(&cfg, VS_MODE_PROFILEME), 0);
	cfg.pme_period = (struct vs_period){ 1000, 1200 };
	cfg.pme_window = 50;
	assert_int_equal(dmn_new(&d, &o, &err), 0);
	assert_int_equal(dmn_exec(d, 5, exe, bias), 0);
	/* a: fetched at 0, issues at 3, in progress 0..6; b: fetched at 2, issues at 2 + 4 = 6
	 * (within a's progress: useful for a), in progress 2..7 (a issued at 3: useful for b) */
	put_pme(&s, pc, VS_PME_RETIRED, 1, 0, la);
	put_pme(&s, pc + 4, VS_PME_RETIRED, 2, 2, lb);
	/* a pair whose second aborted: no useful overlap for the first; the second's partner
	 * issued at 3 - 40 < 0, before it was fetched: none for it either */
	put_pme(&s, pc, VS_PME_RETIRED, 1, 0, la);
	put_pme(&s, pc + 4, VS_PME_AB_MISPREDICT, 2, 40, lb);
	put_pme(&s, pc, VS_PME_AB_STLD, 0, 0, la); /* a single */
	feed_all(d, &s);
	assert_int_equal(dmn_flush(d), 0);
	p = load_image(dir);
	assert_int_equal(pdb_prof_profileme(p, &t, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(t[0].offset, off);
	assert_int_equal(t[0].pme.status[VS_PME_RETIRED], 2);
	assert_int_equal(t[0].pme.status[VS_PME_AB_STLD], 1);
	assert_int_equal(t[0].pme.events[2], 2); /* D-cache misses */
	assert_int_equal(t[0].pme.lat_sum[3], 6);
	assert_int_equal(t[0].pme.retire_delay_sum, 2);
	assert_int_equal(t[0].pme.hist[vs_lat_bucket(6)], 2);
	assert_int_equal(t[0].pme.pair_samples, 2);
	assert_int_equal(t[0].pme.useful, 1);
	assert_int_equal(t[0].pme.inprog_sum, 12);
	assert_int_equal(t[0].pme.wsum, 100);
	assert_int_equal(t[0].pme.samples_p, 3);
	assert_int_equal(t[0].pme.events2, 3 * 1100); /* (1000 + 1200) / 2: two samples a pair */
	assert_int_equal(t[1].offset, off + 4);
	assert_int_equal(t[1].pme.status[VS_PME_RETIRED], 1);
	assert_int_equal(t[1].pme.status[VS_PME_AB_MISPREDICT], 1);
	assert_int_equal(t[1].pme.useful, 1);
	assert_int_equal(t[1].pme.inprog_sum, 5 + 4);
	free(t);
	pdb_prof_free(p);
	dmn_free(d);
	tdir_free(dir);
}

/* A retired ProfileMe record with a branch history; the second of a pair carries dist, lat. */
static void put_pme_path(struct stream *s, uint64_t pc, uint8_t pair, uint16_t dist, int32_t lat,
			 uint16_t path)
{
	struct vs_rec_profileme r;

	memset(&r, 0, sizeof(r));
	r.h.type = VS_REC_PROFILEME;
	r.h.len = sizeof(r);
	r.pid = 5;
	r.pc = pc;
	r.status = VS_PME_RETIRED;
	r.pair = pair;
	r.flags = VS_SF_USER;
	r.path = path;
	r.lat[0] = 1;
	r.span = 1;
	if (pair == 2) {
		r.pair_dist = dist;
		r.pair_lat = lat;
	}
	put(s, &r, sizeof(r));
}

/* The same records into pmpaths.prof (pdb.h PDB_FT_PMPATHS; [PM] §5.3): each sample's history
 * into its instruction's history list; each pair's partner, with its fetch distance in
 * instructions and its direction, into
 * the partner list; a partner outside the image counted apart. */
static void test_dmn_profileme_paths_and_partners(void **state)
{
	char *dir = tdir_new();
	struct vs_config cfg;
	struct dmn_opts o = { .db_dir = dir, .cfg = &cfg };
	uint64_t bias = 0x20000000ull, pc = bias + text_vaddr + 0x300, off = text_vaddr + 0x300;
	struct stream s = { .n = 0 };
	struct pdb_partner pt;
	struct hotlist_item top[4];
	struct ax_error err;
	struct pdb_prof *p;
	struct pdb_pmp *t;
	struct dmn *d;
	size_t n;

	(void)state;
	assert_int_equal(vs_config_default(&cfg, VS_MODE_PROFILEME), 0);
	cfg.pme_window = 50;
	assert_int_equal(dmn_new(&d, &o, &err), 0);
	assert_int_equal(dmn_exec(d, 5, exe, bias), 0);
	for (int i = 0; i < 3; i++) { /* a (history 0xabc) then b 9 instructions later */
		put_pme_path(&s, pc, 1, 0, 0, 0xabc);
		put_pme_path(&s, pc + 0x20, 2, 9, 5, 0x123);
	}
	put_pme_path(&s, pc, 1, 0, 0, 0x001); /* b 2 instructions later */
	put_pme_path(&s, pc + 0x20, 2, 2, 6, 0x123);
	put_pme_path(&s, pc, 1, 0, 0, 0xabc); /* b outside every image */
	put_pme_path(&s, 0x10, 2, 4, 3, 0x777);
	put_pme_path(&s, pc, 0, 0, 0, 0xabc); /* a single */
	feed_all(d, &s);
	assert_int_equal(dmn_flush(d), 0);
	p = load_image(dir);
	assert_int_equal(pdb_prof_pmpaths(p, &t, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(t[0].offset, off);
	assert_int_equal(t[0].pp.hist.n, 6);
	assert_int_equal(hotlist_top(&t[0].pp.hist, top, 4), 2);
	assert_int_equal(top[0].value, 0xabc);
	assert_int_equal(top[0].count, 5);
	assert_int_equal(top[1].value, 0x001);
	assert_int_equal(t[0].pp.other, 1);
	assert_int_equal(t[0].pp.partners.n, 4);
	assert_int_equal(hotlist_top(&t[0].pp.partners, top, 4), 2);
	assert_int_equal(pdb_pmp_partner_decode(top[0].value, &pt), 0);
	assert_int_equal(top[0].count, 3);
	assert_int_equal(pt.offset, off + 0x20);
	assert_int_equal(pt.dist, 9);
	assert_true(pt.later);
	assert_false(pt.cycles);
	assert_int_equal(pdb_pmp_partner_decode(top[1].value, &pt), 0);
	assert_int_equal(pt.dist, 2);
	assert_false(pt.cycles);
	assert_int_equal(t[1].offset, off + 0x20);
	assert_int_equal(t[1].pp.hist.n, 4);
	assert_int_equal(t[1].pp.other, 0);
	assert_int_equal(hotlist_top(&t[1].pp.partners, top, 4), 2);
	assert_int_equal(pdb_pmp_partner_decode(top[0].value, &pt), 0);
	assert_int_equal(top[0].count, 3);
	assert_int_equal(pt.offset, off);
	assert_int_equal(pt.dist, 9);
	assert_false(pt.later);
	free(t);
	pdb_prof_free(p);
	dmn_free(d);
	tdir_free(dir);
}

static void test_dmn_feed_rejects_damage(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	struct stream s = { .n = 0 };
	struct dmn_stats st;
	struct hotlist h;
	struct hotlist_rng rng;
	uint8_t junk[8] = { 0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0 };
	size_t at;

	(void)state;
	hotlist_rng_seed(&rng, 2);
	hotlist_init(&h, 4);
	hotlist_insert(&h, 1, &rng);
	put_sample(&s, 1, 0x1000, 1, VS_EV_CYCLES, false); /* good */
	put_sample(&s, 1, 0x1002, 1, VS_EV_CYCLES, false); /* pc not a multiple of 4 */
	put_sample(&s, 1, 0x1000, 0, VS_EV_CYCLES, false); /* zero count */
	put_sample(&s, 1, 0x1000, 1, 200, false); /* unknown event */
	put(&s, junk, sizeof(junk)); /* an implausible length: resync */
	at = s.n;
	put_hotlist(&s, 1, 0x1000, 3, &h);
	s.b[at + 30] ^= 0xff; /* inside the packed hotlist: checksum */
	put_sample(&s, 1, 0x1000, 2, VS_EV_CYCLES, false); /* good */
	assert_int_equal(dmn_feed(d, s.b, s.n, true), (long)s.n);
	dmn_get_stats(d, &st);
	assert_int_equal(st.records[VS_REC_SAMPLE], 2);
	assert_int_equal(st.samples, 3);
	assert_int_equal(st.damaged, 5);
	assert_int_equal(st.records[VS_REC_HOTLIST], 0);

	/* A record split across two reads waits for its end; a truncated one at EOF is damage. */
	s.n = 0;
	put_sample(&s, 1, 0x2000, 1, VS_EV_CYCLES, false);
	put_sample(&s, 1, 0x2000, 1, VS_EV_CYCLES, false);
	assert_int_equal(dmn_feed(d, s.b, 30, false), 24);
	assert_int_equal(dmn_feed(d, s.b + 24, s.n - 24, false), 24);
	assert_int_equal(dmn_feed(d, s.b, 10, true), 10);
	dmn_get_stats(d, &st);
	assert_int_equal(st.samples, 5);
	assert_int_equal(st.damaged, 6);
	/* A later version's record type is skipped whole. */
	s.n = 0;
	{
		uint8_t future[16] = { 0x20, 0x00, 16, 0 };

		put(&s, future, sizeof(future));
	}
	put_sample(&s, 1, 0x2000, 1, VS_EV_CYCLES, false);
	feed_all(d, &s);
	dmn_get_stats(d, &st);
	assert_int_equal(st.records[0], 1);
	assert_int_equal(st.samples, 6);
	assert_int_equal(st.damaged, 6);
	dmn_free(d);
	tdir_free(dir);
}

static void test_dmn_stats_records_kept_per_cpu(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	struct vs_rec_stats r;
	struct dmn_stats st;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.h.type = VS_REC_STATS;
	r.h.len = sizeof(r);
	r.st.samples = 10;
	r.st.samples_user = 10;
	assert_int_equal(dmn_feed(d, &r, sizeof(r), true), (long)sizeof(r));
	r.st.samples = 15; /* cumulative: replaces CPU 0's */
	r.st.samples_user = 15;
	assert_int_equal(dmn_feed(d, &r, sizeof(r), true), (long)sizeof(r));
	r.cpu = 1;
	r.st.samples = 4;
	r.st.samples_user = 4;
	assert_int_equal(dmn_feed(d, &r, sizeof(r), true), (long)sizeof(r));
	dmn_get_stats(d, &st);
	assert_int_equal(st.stats_cpus, 2);
	assert_int_equal(st.vs.samples, 19);
	dmn_free(d);
	tdir_free(dir);
}

static void test_dmn_proc_maps(void **state)
{
	char *dir = tdir_new(), *proc = tdir_new(), key[PDB_KEY_MAX + 1];
	struct dmn *d = new_dmn(dir, DMN_PROC_MAPS, proc);
	uint64_t start = 0x7f1234560000ull, page = text_off & ~0xfffull, off;
	char line[10000];
	struct stream s = { .n = 0 };
	struct dmn_stats st;

	(void)state;
	mkdir(tpath(proc, "4242"), 0777);
	snprintf(line, sizeof(line),
		 "55d0c0000000-55d0c0001000 r--p 00000000 08:01 1234 %s\n"
		 "%llx-%llx r-xp %08llx 08:01 1234 %s\n"
		 "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n"
		 "7ffd00100000-7ffd00102000 r-xp 00000000 00:00 0 [vdso]\n",
		 exe, (unsigned long long)start, (unsigned long long)(start + 0x10000),
		 (unsigned long long)page, exe);
	spit(tpath(proc, "4242/maps"), line, strlen(line));
	/* A pid first seen in a record is looked up in PROC/PID/maps. */
	put_sample(&s, 4242, start + (text_off - page) + 0x10, 3, VS_EV_CYCLES, false);
	put_sample(&s, 4343, start, 1, VS_EV_CYCLES, false); /* no such process */
	feed_all(d, &s);
	dmn_get_stats(d, &st);
	assert_int_equal(st.proc_reads, 1);
	assert_int_equal(st.samples_unknown, 1);
	assert_true(dmn_attribute(d, 4242, start + (text_off - page) + 0x10, key, &off));
	assert_int_equal(off, text_vaddr + 0x10);
	assert_string_equal(key, image_key());
	assert_false(dmn_attribute(d, 4242, 0x7ffd00100000ull, NULL, &off)); /* [vdso] */
	assert_int_equal(dmn_proc_refresh(d, 4242), 0);
	assert_int_equal(dmn_proc_refresh(d, 4343), -ENOENT);
	/* Once the process is gone, reaping forgets it. */
	unlink(tpath(proc, "4242/maps"));
	rmdir(tpath(proc, "4242"));
	dmn_reap(d);
	dmn_get_stats(d, &st);
	assert_int_equal(st.procs, 0);
	dmn_free(d);
	tdir_free(dir);
	tdir_free(proc);
}

static void test_dmn_load_events_file(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	char text[13000];
	uint64_t off;

	(void)state;
	snprintf(text, sizeof(text),
		 "# saved by axprof record\n"
		 "exec 10 0x1000000 %s\n"
		 "map 11 0x2000000 %s\n"
		 "mmap 12 0x30000000 0x4000 0x%llx %s\n"
		 "munmap 12 0x30000000 0x1000\n"
		 "exit 11\n",
		 exe, exe, (unsigned long long)(text_off & ~0xfffull), exe);
	spit(tpath(dir, "ev"), text, strlen(text));
	assert_int_equal(dmn_load_events(d, tpath(dir, "ev")), 0);
	assert_true(dmn_attribute(d, 10, 0x1000000 + text_vaddr, NULL, &off));
	assert_int_equal(off, text_vaddr);
	assert_false(dmn_attribute(d, 11, 0x2000000 + text_vaddr, NULL, &off));
	assert_false(dmn_attribute(d, 12, 0x30000000, NULL, &off));
	assert_true(dmn_attribute(d, 12, 0x30001000, NULL, &off));
	spit(tpath(dir, "bad"), "exec 1 0x0 /bin/sh\nfrobnicate 3\n", 31);
	assert_int_equal(dmn_load_events(d, tpath(dir, "bad")), -EINVAL);
	assert_non_null(strstr(dmn_errmsg(d), ":2:"));
	dmn_free(d);
	tdir_free(dir);
}

static void test_dmn_discard_drops_memory_profiles(void **state)
{
	char *dir = tdir_new();
	struct dmn *d = new_dmn(dir, 0, NULL);
	struct stream s = { .n = 0 };
	struct pdb_db *db;
	struct ax_error err;
	struct pdb_prof *p;

	(void)state;
	assert_int_equal(dmn_exec(d, 3, exe, 0), 0);
	put_sample(&s, 3, text_vaddr, 4, VS_EV_CYCLES, false);
	feed_all(d, &s);
	dmn_discard(d);
	assert_int_equal(dmn_flush(d), 0);
	assert_int_equal(pdb_open(dir, false, &db, &err), 0);
	assert_int_equal(pdb_load(db, 1, image_key(), &p), -ENOENT);
	pdb_close(db);
	dmn_free(d);
	tdir_free(dir);
}

/*
 * A flush is one transaction: with the nth creation, write or rename failing it stores nothing
 * (no image, no index entry, no unknown sample), says what it kept, and the next flush stores
 * everything exactly once.
 */
static void test_dmn_flush_all_or_nothing(void **state)
{
	static const enum pdb_op ops[] = { PDB_OP_OPEN, PDB_OP_WRITE, PDB_OP_RENAME };
	uint64_t bias = 0x10000000ull, pc = bias + text_vaddr + 0x100;
	unsigned int failures = 0;

	(void)state;
	for (unsigned int i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		for (int nth = 1;; nth++) {
			struct fault_plan plan = { ops[i], nth, EIO, 0, 0 };
			char *dir = tdir_new();
			struct dmn *d = new_dmn(dir, 0, NULL);
			struct stream s = { .n = 0 };
			struct pdb_image *list;
			struct pdb_prof *p;
			struct pdb_db *db;
			size_t n;
			int ret;

			assert_int_equal(dmn_exec(d, 100, exe, bias), 0);
			put_sample(&s, 100, pc, 5, VS_EV_CYCLES, false);
			put_sample(&s, 100, pc + 4, 3, VS_EV_IMISS, false);
			put_vcount(&s, 100, pc, 9);
			put_sample(&s, 999, pc, 11, VS_EV_CYCLES, false);
			feed_all(d, &s);
			pdb_set_fault_hook(fault_cb, &plan);
			ret = dmn_flush(d);
			pdb_set_fault_hook(NULL, NULL);
			if (plan.fired && ret) {
				failures++;
				assert_non_null(strstr(dmn_errmsg(d), "nothing was stored"));
				/* Nothing of the flush is there (a committed journal is finished). */
				assert_int_equal(pdb_open(dir, false, &db, NULL), 0);
				assert_int_equal(pdb_image_list(db, 1, &list, &n), 0);
				assert_int_equal(n, 0);
				assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &p), 0);
				assert_true(pdb_prof_is_empty(p));
				pdb_prof_free(p);
				pdb_close(db);
				assert_int_equal(dmn_flush(d), 0);
			} else {
				assert_int_equal(ret, 0);
			}
			/* Stored exactly once. */
			assert_int_equal(pdb_open(dir, false, &db, NULL), 0);
			assert_int_equal(pdb_load(db, 1, image_key(), &p), 0);
			assert_int_equal(pdb_prof_total(p, PDB_EV_CYCLES), 5);
			assert_int_equal(pdb_prof_total(p, PDB_EV_IMISS), 3);
			assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, text_vaddr + 0x100), 5);
			pdb_prof_free(p);
			assert_int_equal(pdb_load(db, 1, PDB_KEY_UNKNOWN, &p), 0);
			assert_false(pdb_prof_is_empty(p));
			pdb_prof_free(p);
			assert_int_equal(pdb_image_list(db, 1, &list, &n), 0);
			assert_int_equal(n, 1);
			assert_true(list[0].flags & PDB_IMG_INDEXED);
			pdb_image_list_free(list, n);
			pdb_close(db);
			dmn_free(d);
			tdir_free(dir);
			if (!plan.fired)
				break;
		}
	}
	assert_true(failures >= 10);
}

static void test_dmn_event_mapping(void **state)
{
	(void)state;
	assert_int_equal(dmn_pdb_event(VS_EV_CYCLES), PDB_EV_CYCLES);
	assert_int_equal(dmn_pdb_event(VS_EV_IMISS), PDB_EV_IMISS);
	assert_int_equal(dmn_pdb_event(VS_EV_DMISS), PDB_EV_DMISS);
	assert_int_equal(dmn_pdb_event(VS_EV_BRANCHMP), PDB_EV_BRANCHMP);
	assert_int_equal(dmn_pdb_event(VS_EV_REPLAYS), PDB_EV_REPLAY);
	assert_int_equal(dmn_pdb_event(VS_EV_INSNS), PDB_EV_RETIRED);
	assert_true(dmn_pdb_event(VS_EV_USER6) < PDB_EV_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dmn_attribute_exec_bias),
		cmocka_unit_test(test_dmn_threads_of_task_records),
		cmocka_unit_test(test_dmn_mmap_file_offset_and_munmap),
		cmocka_unit_test(test_dmn_feed_samples_and_flush),
		cmocka_unit_test(test_dmn_feed_after_map_changes),
		cmocka_unit_test(test_dmn_stores_periods),
		cmocka_unit_test(test_dmn_no_config_no_periods),
		cmocka_unit_test(test_dmn_feed_observer_records),
		cmocka_unit_test(test_dmn_stores_stacks),
		cmocka_unit_test(test_dmn_profileme_aggregates_pairs),
		cmocka_unit_test(test_dmn_profileme_paths_and_partners),
		cmocka_unit_test(test_dmn_feed_rejects_damage),
		cmocka_unit_test(test_dmn_stats_records_kept_per_cpu),
		cmocka_unit_test(test_dmn_proc_maps),
		cmocka_unit_test(test_dmn_load_events_file),
		cmocka_unit_test(test_dmn_discard_drops_memory_profiles),
		cmocka_unit_test(test_dmn_flush_all_or_nothing),
		cmocka_unit_test(test_dmn_event_mapping),
	};

	find_text();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
