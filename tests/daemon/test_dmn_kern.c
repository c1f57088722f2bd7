/* tests/daemon/test_dmn_kern.c - kernel images: kallsyms/modules parsing, the kernel map. */
#include "pdb/pdb_test.h"

#include <errno.h>

#include "dmn_kern.h"
#include "dmn_lib.h"
#include "img.h"
#include "vs_abi.h"

#define K0 0xfffffc0000310000ull /* an Alpha kernel's text */
#define M0 0xfffffc0001000000ull /* module "alpha" */
#define M1 0xfffffc0001100000ull /* module "beta" */

/* Unsorted, a duplicate address, data symbols, modules' symbols. */
static const char kallsyms[] = "fffffc0000310400 T sys_write\n"
			       "fffffc0000310000 T _stext\n"
			       "fffffc0000310000 T __start\n"
			       "fffffc0000310100 t entSys\n"
			       "fffffc0000310800 T vfs_read\n"
			       "fffffc0000400000 D jiffies\n"
			       "fffffc0000310c00 T _etext\n"
			       "fffffc0001100010 t beta_fn\t[beta]\n"
			       "fffffc0001000040 T alpha_two\t[alpha]\n"
			       "fffffc0001000000 t alpha_one\t[alpha]";
static const char modules[] = "alpha 4096 0 - Live 0xfffffc0001000000 (O)\n"
			      "beta 8192 1 alpha, Live 0xfffffc0001100000\n";

static int parse_ks(const char *t, bool mods, struct dmn_ksyms *k, struct ax_error *e)
{
	return dmn_ksyms_parse(t, strlen(t), "ks", mods, k, e);
}

static int parse_km(const char *t, struct dmn_kmods *m, struct ax_error *e)
{
	return dmn_kmods_parse(t, strlen(t), "mods", m, e);
}

static void test_ksyms_sorted_with_modules(void **state)
{
	struct dmn_ksyms k;
	struct ax_error e;
	uint64_t lo, hi, a;

	(void)state;
	assert_int_equal(parse_ks(kallsyms, true, &k, &e), 0);
	assert_int_equal(k.n, 10);
	for (size_t i = 1; i < k.n; i++)
		assert_true(k.s[i - 1].addr <= k.s[i].addr);
	/* The two names at one address keep their input order. */
	assert_string_equal(k.s[0].name, "_stext");
	assert_string_equal(k.s[1].name, "__start");
	assert_string_equal(k.s[2].name, "entSys");
	assert_int_equal(k.s[2].type, 't');
	assert_null(k.s[2].module);
	assert_string_equal(k.s[7].name, "alpha_one");
	assert_string_equal(k.s[7].module, "alpha");
	assert_string_equal(k.s[9].module, "beta");
	assert_true(dmn_ksyms_find(&k, "vfs_read", &a));
	assert_int_equal(a, K0 + 0x800);
	assert_false(dmn_ksyms_find(&k, "alpha_one", &a)); /* a module's, not the kernel's */
	assert_true(dmn_ksyms_text_range(&k, &lo, &hi));
	assert_int_equal(lo, K0);
	assert_int_equal(hi, K0 + 0xc00);
	dmn_ksyms_free(&k);
}

static void test_ksyms_hostile(void **state)
{
	static const char *const bad[] = {
		"fffffc0000310000 T\n", /* truncated: no name */
		"fffffc0000310000\n",
		"fffffc00003100",
		"fffffc0000310000 T a\nfffffc00",
		"xyz T a\n",
		"1fffffc0000310000 T a\n", /* 17 digits */
		"fffffc0000310000 TT a\n",
		"fffffc0000310000 T a\t[mod\n",
		"fffffc0000310000 T a\t[m] extra\n",
		"fffffc0000310000T a\n",
		"",
		"\n",
	};
	struct dmn_ksyms k;
	struct ax_error e;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = parse_ks(bad[i], true, &k, &e);

		if (ret != -EINVAL)
			fail_msg("case %zu parsed (%d)", i, ret);
		assert_non_null(strstr(e.msg, "ks"));
	}
	/* The line is named. */
	assert_int_equal(parse_ks("fffffc0000310000 T a\nfffffc0000310004 T\n", true, &k, &e),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "ks:2:"));
	/* A NUL inside a line. */
	assert_int_equal(dmn_ksyms_parse("fffffc0000310000 T a\0b\n", 23, "ks", true, &k, &e),
			 -EINVAL);
	/* Hidden addresses (kptr_restrict) are refused, not used. */
	assert_int_equal(parse_ks("0000000000000000 T a\n0000000000000000 t b\n", true, &k, &e),
			 -EINVAL);
	assert_non_null(strstr(e.msg, "kptr_restrict"));
	/* System.map has no module column. */
	assert_int_equal(parse_ks("fffffc0000310000 T a\t[m]\n", false, &k, &e), -EINVAL);
	assert_int_equal(parse_ks("fffffc0000310000 T a\n", false, &k, &e), 0);
	dmn_ksyms_free(&k);
}

static void test_kmods_parse_and_hostile(void **state)
{
	struct dmn_kmods m;
	struct ax_error e;

	(void)state;
	assert_int_equal(parse_km("beta 8192 1 alpha, Live 0xfffffc0001100000\n"
				  "alpha 4096 0 - Live 0xfffffc0001000000 (O)\n",
				  &m, &e),
			 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.m[0].name, "alpha"); /* sorted by address */
	assert_int_equal(m.m[1].size, 8192);
	assert_ptr_equal(dmn_kmods_find(&m, M0), &m.m[0]);
	assert_ptr_equal(dmn_kmods_find(&m, M0 + 4095), &m.m[0]);
	assert_null(dmn_kmods_find(&m, M0 + 4096));
	assert_ptr_equal(dmn_kmods_find(&m, M1 + 8191), &m.m[1]);
	assert_null(dmn_kmods_find(&m, M0 - 1));
	dmn_kmods_free(&m);

	static const char *const bad[] = {
		"alpha 4096 0 - Live\n", /* truncated */
		"alpha 4096 0 - Live 0xfffffc00\nbeta 81",
		"alpha 40x6 0 - Live 0xfffffc0001000000\n",
		"alpha 4096 0 - Live fffffc0001000000\n",
		"alpha 4096 0 - Live 0x0000000000000000\n", /* hidden */
		"alpha 0 0 - Live 0xfffffc0001000000\n",
		"alpha 4096 0 - Live 0xfffffc0001000000 O\n",
		/* overlapping ranges */
		"alpha 8192 0 - Live 0xfffffc0001000000\nbeta 16 0 - Live 0xfffffc0001001000\n",
		/* a name twice */
		"alpha 16 0 - Live 0xfffffc0001000000\nalpha 16 0 - Live 0xfffffc0001100000\n",
		"alpha 16 0 - Live 0xffffffffffffffff\n", /* wraps */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parse_km(bad[i], &m, &e) != -EINVAL)
			fail_msg("case %zu parsed", i);
	assert_int_equal(parse_km(bad[7], &m, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "overlap"));
	assert_int_equal(parse_km(bad[8], &m, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "twice"));
}

static void test_notes_build_id(void **state)
{
	uint8_t notes[64] = { 0 }, id[20];
	uint32_t h[3] = { 4, 6, 1 }; /* a note of another type first */
	size_t n = 0;

	(void)state;
	memcpy(notes, h, 12);
	memcpy(notes + 12, "GNU", 4);
	h[1] = 8;
	h[2] = 3;
	memcpy(notes + 24, h, 12);
	memcpy(notes + 36, "GNU", 4);
	memcpy(notes + 40, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	assert_true(dmn_notes_build_id(notes, 48, id, &n));
	assert_int_equal(n, 8);
	assert_memory_equal(id, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	assert_false(dmn_notes_build_id(notes, 47, id, &n)); /* truncated */
	h[1] = 0xfffffff0u; /* a hostile size */
	memcpy(notes + 24, h, 12);
	assert_false(dmn_notes_build_id(notes, 48, id, &n));
}

/* ---- the kernel map ---- */

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void put_ksample(uint8_t *b, size_t *n, uint64_t pc, uint32_t count, bool kernel)
{
	struct vs_rec_sample r = { { VS_REC_SAMPLE, sizeof(r) },       7, pc, count, VS_EV_CYCLES,
				   kernel ? VS_SF_KERNEL : VS_SF_USER, 0 };

	memcpy(b + *n, &r, sizeof(r));
	*n += sizeof(r);
}

static int new_kdmn(const char *dir, const char *ks, const char *mods, const char *vml,
		    const char *notes, struct dmn **d, struct ax_error *e)
{
	struct dmn_opts o = { .db_dir = tpath(dir, "db"),
			      .kallsyms = ks,
			      .modules = mods,
			      .vmlinux = vml,
			      .kernel_notes = notes };
	char db[4096];

	snprintf(db, sizeof(db), "%s", o.db_dir);
	o.db_dir = db;
	return dmn_new(d, &o, e);
}

/* A daemon of the kernel whose /proc/kallsyms and /proc/modules read ks[0 .. ks_len) and
 * mods[0 .. mods_len) (written to dir/kallsyms and dir/modules). */
static int kdmn_texts(const char *dir, const char *ks, size_t ks_len, const char *mods,
		      size_t mods_len, struct dmn **d, struct ax_error *e)
{
	char kp[4096], mp[4096];

	snprintf(kp, sizeof(kp), "%s", tpath(dir, "kallsyms"));
	snprintf(mp, sizeof(mp), "%s", tpath(dir, "modules"));
	write_file(kp, ks, ks_len);
	write_file(mp, mods, mods_len);
	return new_kdmn(dir, kp, mp, NULL, NULL, d, e);
}

/* The symbol image of key in db: its function at off. */
static void check_fn(const char *dir, const char *key, const char *file, uint64_t off,
		     const char *name)
{
	const struct img_symbol *f;
	struct ax_error e;
	struct img *im;

	assert_int_equal(img_open(tpath(dir, "db/kernel/%s/%s", key, file), 0, &im, &e), 0);
	f = img_function_at(im, off);
	assert_non_null(f);
	assert_string_equal(f->name, name);
	img_close(im);
}

static void test_kernel_map_kallsyms_and_modules(void **state)
{
	char *dir = tdir_new(), key[PDB_KEY_MAX + 1], kk[PDB_KEY_MAX + 1], ka[PDB_KEY_MAX + 1],
	     kb[PDB_KEY_MAX + 1];
	uint8_t b[4096];
	size_t n = 0;
	struct dmn_stats st;
	struct ax_error e;
	struct pdb_db *db;
	struct pdb_prof *p;
	struct dmn *d;
	uint64_t off;

	(void)state;
	assert_int_equal(
		kdmn_texts(dir, kallsyms, strlen(kallsyms), modules, strlen(modules), &d, &e), 0);
	assert_string_equal(dmn_kernel_note(d), "");
	dmn_get_stats(d, &st);
	assert_int_equal(st.kernel_images, 3);

	/* The kernel: offsets are addresses. */
	assert_true(dmn_attribute(d, 7, K0 + 0x404, kk, &off));
	assert_int_equal(off, K0 + 0x404);
	check_fn(dir, kk, "vmlinux", off, "sys_write");
	check_fn(dir, kk, "vmlinux", K0 + 0x104, "entSys");
	assert_false(dmn_attribute(d, 7, K0 + 0xc00, key, &off)); /* past _etext */
	/* Modules: offsets from their load address; each its own image. */
	assert_true(dmn_attribute(d, 7, M0 + 0x44, ka, &off));
	assert_int_equal(off, 0x44);
	check_fn(dir, ka, "alpha.ko", off, "alpha_two");
	check_fn(dir, ka, "alpha.ko", 0x8, "alpha_one");
	assert_true(dmn_attribute(d, 7, M1 + 0x1ff0, kb, &off));
	assert_int_equal(off, 0x1ff0);
	check_fn(dir, kb, "beta.ko", 0x10, "beta_fn");
	assert_string_not_equal(ka, kb);
	assert_string_not_equal(ka, kk);
	assert_false(dmn_attribute(d, 7, M0 + 0x1000, key, &off)); /* between modules */

	put_ksample(b, &n, K0 + 0x404, 5, true);
	put_ksample(b, &n, K0 + 0x808, 2, true);
	put_ksample(b, &n, M0 + 0x44, 3, true);
	put_ksample(b, &n, M0 + 0x2000, 4, true); /* no module there */
	assert_int_equal(dmn_feed(d, b, n, true), (long)n);
	dmn_get_stats(d, &st);
	assert_int_equal(st.samples_kernel, 14);
	assert_int_equal(st.samples_kernel_unknown, 4);
	assert_int_equal(st.samples_unknown, 4);
	assert_int_equal(dmn_flush(d), 0);
	dmn_free(d);

	assert_int_equal(pdb_open(tpath(dir, "db"), false, &db, &e), 0);
	assert_int_equal(pdb_load(db, 1, kk, &p), 0);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, K0 + 0x404), 5);
	assert_int_equal(pdb_prof_total(p, PDB_EV_CYCLES), 7);
	pdb_prof_free(p);
	assert_int_equal(pdb_load(db, 1, ka, &p), 0);
	assert_int_equal(pdb_prof_count(p, PDB_EV_CYCLES, 0x44), 3);
	pdb_prof_free(p);
	pdb_close(db);

	/* The same modules loaded elsewhere (another boot) are the same images. */
	static const char moved[] = "alpha 4096 0 - Live 0xfffffc0002000000 (O)\n";
	static const char moved_ks[] = "fffffc0000310000 T _stext\n"
				       "fffffc0002000040 T alpha_two\t[alpha]\n"
				       "fffffc0002000000 t alpha_one\t[alpha]\n";
	assert_int_equal(kdmn_texts(dir, moved_ks, strlen(moved_ks), moved, strlen(moved), &d, &e),
			 0);
	assert_true(dmn_attribute(d, 7, 0xfffffc0002000044ull, key, &off));
	assert_string_equal(key, ka);
	assert_int_equal(off, 0x44);
	dmn_free(d);
	tdir_free(dir);
}

static void put_khot(uint8_t *b, size_t *n, uint32_t pid, uint64_t pc, uint64_t value)
{
	uint8_t buf[VS_REC_HOTLIST_MAX] = { 0 };
	struct vs_rec_hotlist r = { { VS_REC_HOTLIST, 0 }, pid, pc, 0, 1, { 0 } };
	struct hotlist_rng rng;
	struct hotlist h;
	int k;

	hotlist_rng_seed(&rng, 1);
	assert_int_equal(hotlist_init(&h, 8), 0);
	for (k = 0; k < 10; k++)
		hotlist_insert(&h, value, &rng);
	k = hotlist_pack(&h, buf + sizeof(r), sizeof(buf) - sizeof(r));
	assert_true(k > 0);
	r.packed_len = (uint32_t)k;
	r.h.len = (uint16_t)VS_REC_HOTLIST_SIZE((size_t)k);
	memcpy(buf, &r, sizeof(r));
	memcpy(b + *n, buf, r.h.len);
	*n += r.h.len;
}

/* --kernel-values: hotlists of kernel instructions (no mode flag in the record) are filed under
 * vmlinux and the modules like their samples; one no image claims is counted unknown. */
static void test_kernel_values_filed_under_kernel_images(void **state)
{
	char *dir = tdir_new(), kk[PDB_KEY_MAX + 1], ka[PDB_KEY_MAX + 1];
	uint8_t b[8192];
	size_t n = 0, nv;
	struct pdb_value *vals;
	struct dmn_stats st;
	struct ax_error e;
	struct pdb_db *db;
	struct pdb_prof *p;
	struct dmn *d;
	uint64_t off;

	(void)state;
	assert_int_equal(
		kdmn_texts(dir, kallsyms, strlen(kallsyms), modules, strlen(modules), &d, &e), 0);
	assert_true(dmn_attribute(d, 7, K0 + 0x404, kk, &off));
	assert_true(dmn_attribute(d, 7, M0 + 0x44, ka, &off));
	put_ksample(b, &n, K0 + 0x404, 5, true);
	put_ksample(b, &n, M0 + 0x44, 3, true);
	put_khot(b, &n, 7, K0 + 0x404, 0x1234);
	put_khot(b, &n, 0, M0 + 0x44, 0x55); /* a kernel thread's (pid 0) */
	put_khot(b, &n, 7, M0 + 0x2000, 0x66); /* no module there */
	assert_int_equal(dmn_feed(d, b, n, true), (long)n);
	dmn_get_stats(d, &st);
	assert_int_equal(st.records[VS_REC_HOTLIST], 3);
	assert_int_equal(st.obs_unknown, 1);
	assert_int_equal(dmn_flush(d), 0);
	dmn_free(d);

	assert_int_equal(pdb_open(tpath(dir, "db"), false, &db, &e), 0);
	assert_int_equal(pdb_load(db, 1, kk, &p), 0);
	assert_int_equal(pdb_prof_values(p, &vals, &nv), 0);
	assert_int_equal(nv, 1);
	assert_int_equal(vals[0].offset, K0 + 0x404);
	assert_int_equal(vals[0].h.n, 10);
	assert_int_equal(vals[0].h.value[0], 0x1234);
	free(vals);
	pdb_prof_free(p);
	assert_int_equal(pdb_load(db, 1, ka, &p), 0);
	assert_int_equal(pdb_prof_values(p, &vals, &nv), 0);
	assert_int_equal(nv, 1);
	assert_int_equal(vals[0].offset, 0x44);
	free(vals);
	pdb_prof_free(p);
	pdb_close(db);
	tdir_free(dir);
}

/*
 * The hosted machine's pseudo-kernel (machine/mach_kern.h): kallsyms text in memory and the
 * image name [kernel]; the running kernel's files are not read. Text that does not parse is
 * refused with its name in the message.
 */
static void test_kernel_map_hosted_text(void **state)
{
	static const char text[] = "fffffc0000010030 T sys_exit\n"
				   "fffffc0000010040 T sys_write\n"
				   "fffffc0000010050 T _etext\n";
	char *dir = tdir_new(), db[4096], key[PDB_KEY_MAX + 1];
	struct dmn_opts o = { .kallsyms_text = text, .kernel_name = "[kernel]" };
	uint8_t b[256];
	size_t n = 0;
	struct dmn_stats st;
	struct ax_error e;
	struct dmn *d;
	uint64_t off;

	(void)state;
	snprintf(db, sizeof(db), "%s", tpath(dir, "db"));
	o.db_dir = db;
	assert_int_equal(dmn_new(&d, &o, &e), 0);
	dmn_get_stats(d, &st);
	assert_int_equal(st.kernel_images, 1);
	assert_true(dmn_attribute(d, 7, 0xfffffc0000010044ull, key, &off));
	assert_int_equal(off, 0xfffffc0000010044ull);
	check_fn(dir, key, "[kernel]", off, "sys_write");
	check_fn(dir, key, "[kernel]", 0xfffffc0000010030ull, "sys_exit");
	assert_false(dmn_attribute(d, 7, 0xfffffc0000010050ull, key, &off)); /* at _etext */
	put_ksample(b, &n, 0xfffffc0000010040ull, 6, true);
	assert_int_equal(dmn_feed(d, b, n, true), (long)n);
	dmn_get_stats(d, &st);
	assert_int_equal(st.samples_kernel, 6);
	assert_int_equal(st.samples_kernel_unknown, 0);
	dmn_free(d);

	o.kallsyms_text = "fffffc0000010030 T\n"; /* no name */
	assert_int_not_equal(dmn_new(&d, &o, &e), 0);
	assert_non_null(strstr(e.msg, "[kernel]"));
	tdir_free(dir);
}

static void test_kernel_map_refuses_bad_input(void **state)
{
	char *dir = tdir_new(), ks[4096];
	struct ax_error e;
	struct dmn *d = NULL;

	(void)state;
	assert_int_equal(kdmn_texts(dir, "fffffc0000310000 T _stext\nfffffc00003", 36, modules,
				    strlen(modules), &d, &e),
			 -EINVAL);
	assert_null(d);
	assert_non_null(strstr(e.msg, "kallsyms:2:"));
	assert_int_equal(
		kdmn_texts(dir, kallsyms, strlen(kallsyms),
			   "a 8192 0 - Live 0xfffffc0001000000\nb 8 0 - Live 0xfffffc0001000010\n",
			   67, &d, &e),
		-EINVAL);
	assert_non_null(strstr(e.msg, "overlap"));
	/* A named file that is not there. */
	snprintf(ks, sizeof(ks), "%s", tpath(dir, "none"));
	assert_int_equal(new_kdmn(dir, ks, NULL, NULL, NULL, &d, &e), -ENOENT);
	assert_non_null(strstr(e.msg, "none"));
	tdir_free(dir);
}

/* A vmlinux is used only when it is the running kernel's: build-id, then _stext. */
static void test_kernel_map_vmlinux_checked(void **state)
{
	char *dir = tdir_new(), ks[4096], vml[4096], notes[4096], key[PDB_KEY_MAX + 1];
	static const uint64_t addr[] = { K0, K0 + 0x400 };
	static const char *const names[] = { "_stext", "sys_write" };
	const uint8_t id[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t nb[24] = { 4, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0 };
	struct ax_error e;
	struct dmn *d;
	uint64_t off;

	(void)state;
	snprintf(ks, sizeof(ks), "%s", tpath(dir, "kallsyms"));
	snprintf(vml, sizeof(vml), "%s", tpath(dir, "vmlinux"));
	snprintf(notes, sizeof(notes), "%s", tpath(dir, "notes"));
	assert_int_equal(dmn_kelf_write(vml, K0, 0x1000, id, 8, addr, names, 2, &e), 0);
	write_file(ks, kallsyms, strlen(kallsyms));
	memcpy(nb + 16, id, 8);
	write_file(notes, (const char *)nb, 24);
	/* Nothing to check it against: refused. */
	assert_int_equal(new_kdmn(dir, NULL, NULL, vml, NULL, &d, &e), -ESTALE);
	assert_non_null(strstr(e.msg, "nothing to check"));
	/* The right build-id: mapped, offsets are addresses. */
	assert_int_equal(new_kdmn(dir, NULL, NULL, vml, notes, &d, &e), 0);
	assert_true(dmn_attribute(d, 7, K0 + 0x404, key, &off));
	assert_string_equal(key, "b-0102030405060708");
	assert_int_equal(off, K0 + 0x404);
	dmn_free(d);
	/* With kallsyms too, whose _stext agrees. */
	assert_int_equal(new_kdmn(dir, ks, NULL, vml, notes, &d, &e), 0);
	dmn_free(d);
	/* Another kernel's build-id. */
	nb[23] ^= 1;
	write_file(notes, (const char *)nb, 24);
	assert_int_equal(new_kdmn(dir, ks, NULL, vml, notes, &d, &e), -ESTALE);
	assert_non_null(strstr(e.msg, "build-id"));
	/* Another kernel's kallsyms (_stext elsewhere). */
	write_file(ks, "fffffc0000320000 T _stext\n", 26);
	assert_int_equal(new_kdmn(dir, ks, NULL, vml, NULL, &d, &e), -ESTALE);
	assert_non_null(strstr(e.msg, "_stext"));
	tdir_free(dir);
}

/*
 * A module loaded after the daemon started: its first kernel sample re-reads the module list
 * (and kallsyms for its symbols) and is filed under it; a second re-read within
 * kernel_reread_ms does not happen (a module loaded then stays unknown until the next one).
 */
static void test_kernel_map_module_loaded_later(void **state)
{
	static const char ks1[] = "fffffc0000310000 T _stext\n"
				  "fffffc0000310400 T sys_write\n"
				  "fffffc0000310c00 T _etext\n"
				  "fffffc0001000000 t alpha_one\t[alpha]\n";
	static const char mods1[] = "alpha 4096 0 - Live 0xfffffc0001000000 (O)\n";
	static const char ks2[] = "fffffc0000310000 T _stext\n"
				  "fffffc0000310400 T sys_write\n"
				  "fffffc0000310c00 T _etext\n"
				  "fffffc0001000000 t alpha_one\t[alpha]\n"
				  "fffffc0001100010 t beta_fn\t[beta]\n";
	static const char mods2[] = "alpha 4096 0 - Live 0xfffffc0001000000 (O)\n"
				    "beta 8192 1 alpha, Live 0xfffffc0001100000\n";
	static const char mods3[] = "alpha 4096 0 - Live 0xfffffc0001000000 (O)\n"
				    "beta 8192 1 alpha, Live 0xfffffc0001100000\n"
				    "gamma 4096 0 - Live 0xfffffc0001200000\n";
	char *dir = tdir_new(), ks[4096], mods[4096], db[4096], kb[PDB_KEY_MAX + 1];
	struct dmn_opts o = { .kernel_reread_ms = 3600 * 1000 };
	uint8_t b[4096];
	size_t n = 0;
	struct dmn_stats st;
	struct ax_error e;
	struct dmn *d;
	uint64_t off;

	(void)state;
	snprintf(ks, sizeof(ks), "%s", tpath(dir, "kallsyms"));
	snprintf(mods, sizeof(mods), "%s", tpath(dir, "modules"));
	snprintf(db, sizeof(db), "%s", tpath(dir, "db"));
	write_file(ks, ks1, strlen(ks1));
	write_file(mods, mods1, strlen(mods1));
	o.db_dir = db;
	o.kallsyms = ks;
	o.modules = mods;
	assert_int_equal(dmn_new(&d, &o, &e), 0);
	dmn_get_stats(d, &st);
	assert_int_equal(st.kernel_images, 2);
	assert_false(dmn_attribute(d, 7, M1 + 0x14, kb, &off));

	/* beta is loaded: its sample maps it */
	write_file(ks, ks2, strlen(ks2));
	write_file(mods, mods2, strlen(mods2));
	put_ksample(b, &n, M1 + 0x14, 3, true);
	assert_int_equal(dmn_feed(d, b, n, true), (long)n);
	dmn_get_stats(d, &st);
	assert_int_equal(st.samples_kernel, 3);
	assert_int_equal(st.samples_kernel_unknown, 0);
	assert_int_equal(st.kernel_images, 3);
	assert_true(dmn_attribute(d, 7, M1 + 0x14, kb, &off));
	assert_int_equal(off, 0x14);
	check_fn(dir, kb, "beta.ko", off, "beta_fn");

	/* gamma within the rate limit: not read, its samples unknown */
	write_file(mods, mods3, strlen(mods3));
	n = 0;
	put_ksample(b, &n, 0xfffffc0001200008ull, 2, true);
	put_ksample(b, &n, M1 + 0x14, 1, true);
	assert_int_equal(dmn_feed(d, b, n, true), (long)n);
	dmn_get_stats(d, &st);
	assert_int_equal(st.samples_kernel_unknown, 2);
	assert_int_equal(st.kernel_images, 3);
	assert_int_equal(dmn_flush(d), 0);
	dmn_free(d);

	/* With no rate limit to speak of (1 ms), gamma's next sample maps it. */
	o.kernel_reread_ms = 1;
	write_file(mods, mods2, strlen(mods2));
	assert_int_equal(dmn_new(&d, &o, &e), 0);
	write_file(mods, mods3, strlen(mods3));
	n = 0;
	put_ksample(b, &n, 0xfffffc0001200008ull, 2, true);
	assert_int_equal(dmn_feed(d, b, n, true), (long)n);
	dmn_get_stats(d, &st);
	assert_int_equal(st.samples_kernel_unknown, 0);
	assert_int_equal(st.kernel_images, 4);
	dmn_free(d);
	tdir_free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ksyms_sorted_with_modules),
		cmocka_unit_test(test_ksyms_hostile),
		cmocka_unit_test(test_kmods_parse_and_hostile),
		cmocka_unit_test(test_notes_build_id),
		cmocka_unit_test(test_kernel_map_kallsyms_and_modules),
		cmocka_unit_test(test_kernel_values_filed_under_kernel_images),
		cmocka_unit_test(test_kernel_map_hosted_text),
		cmocka_unit_test(test_kernel_map_refuses_bad_input),
		cmocka_unit_test(test_kernel_map_vmlinux_checked),
		cmocka_unit_test(test_kernel_map_module_loaded_later),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
