/* daemon/dmn_kern.c - the kernel map: the kernel image and its modules (dmn_lib.h KERNEL IMAGES). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "dmn_int.h"
#include "dmn_kern.h"
#include "img.h"

/*
 * DCPI SOSP'97 §4.3: "the daemon ... attributes samples in the kernel to the kernel image and
 * loaded modules". The kernel map is read when the daemon starts; a module loaded later is
 * mapped when one of its samples arrives (dmn_kern_reread: the module list read again, at most
 * once in kernel_reread_ms, so kernel pcs no image will ever claim do not re-read it at every
 * sample); until then its samples are counted unknown.
 */

#define KREREAD_MS 1000 /* [U] the default rate limit of dmn_kern_reread */

#define KSRC_PROC "/proc/kallsyms"
#define KMOD_PROC "/proc/modules"
#define KNOTES_SYS "/sys/kernel/notes"

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

const char *dmn_kernel_note(const struct dmn *d)
{
	return d->kern_note;
}

/* Named files must read; the running kernel's may not (then *ok false, the reason noted). */
static int load_text(struct dmn *d, const char *named, const char *dflt, char **buf, size_t *len,
		     bool *ok)
{
	struct ax_error e;
	int ret;

	*ok = false;
	if (!named && !(d->opts.flags & DMN_KERNEL))
		return 0;
	ret = dmn_read_text(named ? named : dflt, buf, len, &e);
	if (ret && named)
		return dmn_fail_with(d, ret, &e);
	if (ret) {
		snprintf(d->kern_note, sizeof(d->kern_note), "%s", e.msg);
		return 0;
	}
	*ok = true;
	return 0;
}

/* The directory for symbol images: DIR/kernel, absolute (index paths outlive the cwd). */
static int kdir(struct dmn *d, char *out, size_t size)
{
	char *abs = realpath(pdb_dir(d->db), NULL);

	if (!abs)
		return dmn_fail(d, -errno, "%s: realpath: %s", pdb_dir(d->db), strerror(errno));
	snprintf(out, size, "%s/kernel", abs);
	free(abs);
	if (mkdir(out, 0777) && errno != EEXIST)
		return dmn_fail(d, -errno, "%s: mkdir: %s", out, strerror(errno));
	return 0;
}

/*
 * Map [lo, lo + size) with bias to a symbol image of the symbols k->s[from..to) of module mod
 * (NULL: the kernel) with build-id id (idlen bytes; 0: FNV of the contents).
 */
static int map_syms(struct dmn *d, const struct dmn_ksyms *k, const char *mod, uint64_t lo,
		    uint64_t size, uint64_t bias, const uint8_t *id, size_t idlen)
{
	size_t n = 0, cap = k ? k->n : 0;
	uint64_t *addr = calloc(cap ? cap : 1, sizeof(*addr));
	const char **name = calloc(cap ? cap : 1, sizeof(*name));
	uint8_t hid[8];
	char dir[4200], path[5000], key[PDB_KEY_MAX + 1];
	struct dmn_image *im;
	struct ax_error e;
	struct stat st;
	int ret;

	if (!addr || !name) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < cap; i++) {
		const struct dmn_ksym *s = &k->s[i];

		if (!dmn_ksym_is_text(s->type) || s->addr < lo || s->addr - lo >= size ||
		    (mod ? !s->module || strcmp(s->module, mod) : s->module != NULL))
			continue;
		addr[n] = s->addr - bias;
		name[n++] = s->name;
	}
	if (!idlen) {
		uint64_t h = fnv(0xcbf29ce484222325ull, mod ? mod : "vmlinux",
				 strlen(mod ? mod : "vmlinux") + 1);

		h = fnv(h, &size, sizeof(size));
		for (size_t i = 0; i < n; i++) {
			h = fnv(h, &addr[i], sizeof(addr[i]));
			h = fnv(h, name[i], strlen(name[i]) + 1);
		}
		for (int i = 0; i < 8; i++)
			hid[i] = (uint8_t)(h >> (56 - 8 * i));
		id = hid;
		idlen = 8;
	}
	ret = pdb_image_key(key, id, idlen, "", 0, 0);
	if (!ret)
		ret = kdir(d, dir, sizeof(dir));
	if (ret)
		goto out;
	/* DIR/kernel/KEY/vmlinux or DIR/kernel/KEY/MODULE.ko: the tools show the file name */
	snprintf(path, sizeof(path), "%s/%s", dir, key);
	if (mkdir(path, 0777) && errno != EEXIST) {
		ret = dmn_fail(d, -errno, "%s: mkdir: %s", path, strerror(errno));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s/%s%s", dir, key,
		 mod		     ? mod :
		 d->opts.kernel_name ? d->opts.kernel_name :
				       "vmlinux",
		 mod ? ".ko" : "");
	if (stat(path, &st)) { /* the same key, the same contents: written once */
		ret = dmn_kelf_write(path, lo - bias, size, id, idlen, addr, name, n, &e);
		if (ret) {
			dmn_fail_with(d, ret, &e);
			goto out;
		}
	}
	ret = dmn_image_get(d, path, &im);
	if (!ret)
		ret = dmn_maps_add(&d->kmap, lo, lo + size, bias, im);
	if (!ret)
		d->st.kernel_images++;
out:
	free(addr);
	free(name);
	return ret;
}

/* Check the vmlinux against the running kernel (build-id, _stext) and map its code. */
static int map_vmlinux(struct dmn *d, const struct dmn_ksyms *k, const uint8_t *bid, size_t blen)
{
	const char *path = d->opts.vmlinux;
	const struct img_symbol *s;
	struct dmn_image *im;
	struct ax_error e;
	struct img *elf;
	const char *anchor;
	bool checked = false;
	uint64_t at;
	int ret = dmn_image_get(d, path, &im);

	if (ret)
		return ret;
	if (blen) {
		if (im->desc.build_id_len != blen || memcmp(im->desc.build_id, bid, blen))
			return dmn_fail(
				d, -ESTALE,
				"%s: its build-id is not the running kernel's (%s): another "
				"kernel's symbols would be wrong; give the vmlinux of the "
				"kernel profiled",
				path, d->opts.kernel_notes ? d->opts.kernel_notes : KNOTES_SYS);
		checked = true;
	}
	anchor = k && dmn_ksyms_find(k, "_stext", &at) ? "_stext" :
		 k && dmn_ksyms_find(k, "_text", &at)  ? "_text" :
							 NULL;
	if (anchor) {
		ret = img_open(path, IMG_ANY_MACHINE, &elf, &e);
		if (ret)
			return dmn_fail_with(d, ret, &e);
		s = img_symbol_by_name(elf, anchor); /* the same symbol in both */
		ret = !s || s->value != at ? -ESTALE : 0;
		img_close(elf);
		if (ret)
			return dmn_fail(d, ret,
					"%s: its %s is not at 0x%llx as the running kernel's "
					"kallsyms says: not the kernel profiled",
					path, anchor, (unsigned long long)at);
		checked = true;
	}
	if (!checked)
		return dmn_fail(d, -ESTALE,
				"%s: nothing to check it against (no readable %s and no kallsyms): "
				"give --kernel-notes or --kallsyms saved from the kernel profiled",
				path, KNOTES_SYS);
	for (size_t i = 0; i < im->nseg; i++) {
		const struct dmn_seg *sg = &im->seg[i];

		if (!(sg->flags & PF_X) || !sg->memsz)
			continue;
		ret = dmn_maps_add(&d->kmap, sg->vaddr, sg->vaddr + sg->memsz, 0, im);
		if (ret)
			return ret;
	}
	d->st.kernel_images++;
	return 0;
}

/* A System.map agrees with kallsyms (its _stext), or is refused. */
static int check_system_map(struct dmn *d, const struct dmn_ksyms *map, const struct dmn_ksyms *k)
{
	uint64_t a, b;

	if (!k)
		return dmn_fail(
			d, -ESTALE,
			"%s: nothing to check it against (no readable kallsyms): a System.map "
			"of another kernel would give wrong symbols",
			d->opts.system_map);
	if ((!dmn_ksyms_find(map, "_stext", &a) || !dmn_ksyms_find(k, "_stext", &b)) &&
	    (!dmn_ksyms_find(map, "_text", &a) || !dmn_ksyms_find(k, "_text", &b)))
		return dmn_fail(d, -ESTALE, "%s: no _stext or _text to check it with",
				d->opts.system_map);
	if (a != b)
		return dmn_fail(d, -ESTALE,
				"%s: _stext at 0x%llx, the running kernel's at 0x%llx: another "
				"kernel's System.map",
				d->opts.system_map, (unsigned long long)a, (unsigned long long)b);
	return 0;
}

static int parse_all(struct dmn *d, struct dmn_ksyms *ks, bool *have_ks, struct dmn_ksyms *sm,
		     bool *have_sm, struct dmn_kmods *km, bool *have_km, uint8_t *bid, size_t *blen)
{
	char *t = NULL;
	size_t len;
	bool ok;
	struct ax_error e;
	const char *what = d->opts.kallsyms ? d->opts.kallsyms : KSRC_PROC;
	int ret = 0;

	if (d->opts.kallsyms_text) { /* the hosted machine's system calls */
		t = strdup(d->opts.kallsyms_text);
		len = t ? strlen(t) : 0;
		ok = t != NULL;
		what = d->opts.kernel_name ? d->opts.kernel_name : "kallsyms";
		if (!t)
			ret = dmn_fail(d, -ENOMEM, "%s: out of memory", what);
	} else {
		ret = load_text(d, d->opts.kallsyms, KSRC_PROC, &t, &len, &ok);
	}
	if (!ret && ok) {
		ret = dmn_ksyms_parse(t, len, what, true, ks, &e);
		if (ret && (d->opts.kallsyms || d->opts.kallsyms_text))
			dmn_fail_with(d, ret, &e);
		else if (ret)
			snprintf(d->kern_note, sizeof(d->kern_note), "%s", e.msg);
		else
			*have_ks = true;
		if (!d->opts.kallsyms && !d->opts.kallsyms_text)
			ret = 0;
	}
	free(t);
	t = NULL;
	if (!ret && d->opts.system_map) {
		ret = dmn_read_text(d->opts.system_map, &t, &len, &e);
		if (!ret)
			ret = dmn_ksyms_parse(t, len, d->opts.system_map, false, sm, &e);
		if (ret)
			dmn_fail_with(d, ret, &e);
		else
			*have_sm = true;
		free(t);
		t = NULL;
		if (!ret)
			ret = check_system_map(d, sm, *have_ks ? ks : NULL);
	}
	if (!ret && (d->opts.modules || *have_ks)) {
		ret = load_text(d, d->opts.modules, KMOD_PROC, &t, &len, &ok);
		if (!ret && ok) {
			ret = dmn_kmods_parse(t, len, d->opts.modules ? d->opts.modules : KMOD_PROC,
					      km, &e);
			if (ret && d->opts.modules)
				dmn_fail_with(d, ret, &e);
			else if (ret) /* /proc/modules hidden: the kernel alone */
				ret = 0;
			else
				*have_km = true;
		}
		free(t);
		t = NULL;
	}
	if (!ret) {
		ret = load_text(d, d->opts.kernel_notes, KNOTES_SYS, &t, &len, &ok);
		if (!ret && ok && !dmn_notes_build_id((const uint8_t *)t, len, bid, blen) &&
		    d->opts.kernel_notes)
			ret = dmn_fail(d, -EINVAL, "%s: no GNU build-id note in it",
				       d->opts.kernel_notes);
		free(t);
	}
	return ret;
}

int dmn_kern_load(struct dmn *d)
{
	struct dmn_ksyms ks = { 0 }, sm = { 0 };
	struct dmn_kmods km = { 0 };
	bool have_ks = false, have_sm = false, have_km = false;
	uint8_t bid[20];
	size_t blen = 0;
	uint64_t lo, hi;
	int ret;

	if (!(d->opts.flags & DMN_KERNEL) && !d->opts.kallsyms && !d->opts.kallsyms_text &&
	    !d->opts.modules && !d->opts.vmlinux && !d->opts.system_map && !d->opts.kernel_notes) {
		snprintf(d->kern_note, sizeof(d->kern_note), "no kernel symbols asked for");
		return 0;
	}
	ret = parse_all(d, &ks, &have_ks, &sm, &have_sm, &km, &have_km, bid, &blen);
	if (!ret && d->opts.vmlinux) {
		ret = map_vmlinux(d, have_ks ? &ks : NULL, bid, blen);
	} else if (!ret && (have_sm || have_ks)) {
		const struct dmn_ksyms *k = have_sm ? &sm : &ks;

		if (dmn_ksyms_text_range(k, &lo, &hi))
			ret = map_syms(d, k, NULL, lo, hi - lo, 0, bid, blen);
	}
	for (size_t i = 0; !ret && have_km && i < km.n; i++)
		ret = map_syms(d, have_ks ? &ks : NULL, km.m[i].name, km.m[i].addr, km.m[i].size,
			       km.m[i].addr, NULL, 0);
	d->kern_reread = !ret && have_km && !d->opts.kallsyms_text;
	if (d->kern_reread &&
	    ((d->opts.kallsyms && !(d->kern_ksyms_path = strdup(d->opts.kallsyms))) ||
	     (d->opts.modules && !(d->kern_mods_path = strdup(d->opts.modules)))))
		ret = dmn_fail(d, -ENOMEM, "out of memory");
	if (!ret && d->kmap.n)
		d->kern_note[0] = 0;
	else if (!ret && !d->kern_note[0])
		snprintf(d->kern_note, sizeof(d->kern_note), "no kernel symbols found");
	dmn_ksyms_free(&ks);
	dmn_ksyms_free(&sm);
	dmn_kmods_free(&km);
	return ret;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Is module mod mapped as the list says (its range, its image)? */
static bool mod_mapped(struct dmn *d, const struct dmn_kmod *mod)
{
	const struct dmn_map *m = dmn_maps_find(&d->kmap, mod->addr);
	const char *base;
	size_t n = strlen(mod->name);

	if (!m || m->start != mod->addr || m->end != mod->addr + mod->size)
		return false;
	base = strrchr(m->img->path, '/');
	base = base ? base + 1 : m->img->path;
	return !strncmp(base, mod->name, n) && !strcmp(base + n, ".ko");
}

bool dmn_kern_reread(struct dmn *d)
{
	uint64_t now,
		gap = (uint64_t)(d->opts.kernel_reread_ms ? d->opts.kernel_reread_ms : KREREAD_MS) *
		      1000000ull;
	struct dmn_ksyms ks = { 0 };
	struct dmn_kmods km = { 0 };
	struct ax_error e;
	bool tried = false, have_ks = false, mapped = false;
	char *t = NULL;
	size_t len;
	int ret;

	if (!d->kern_reread)
		return false;
	now = mono_ns();
	if (d->kern_reread_ns && now - d->kern_reread_ns < gap)
		return false;
	d->kern_reread_ns = now;
	/* A list that no longer reads or parses: the map stays as it is. */
	ret = dmn_read_text(d->kern_mods_path ? d->kern_mods_path : KMOD_PROC, &t, &len, &e);
	if (!ret)
		ret = dmn_kmods_parse(t, len, "modules", &km, &e);
	free(t);
	t = NULL;
	if (ret)
		return false;
	for (size_t i = 0; i < km.n; i++) {
		if (mod_mapped(d, &km.m[i]))
			continue;
		if (!tried) { /* their symbols: kallsyms read again, once (the module's are new) */
			tried = true;
			ret = dmn_read_text(d->kern_ksyms_path ? d->kern_ksyms_path : KSRC_PROC, &t,
					    &len, &e);
			if (!ret)
				ret = dmn_ksyms_parse(t, len, "kallsyms", true, &ks, &e);
			free(t);
			t = NULL;
			have_ks = !ret; /* else the module is mapped without symbols */
		}
		if (!map_syms(d, have_ks ? &ks : NULL, km.m[i].name, km.m[i].addr, km.m[i].size,
			      km.m[i].addr, NULL, 0))
			mapped = true;
	}
	dmn_ksyms_free(&ks);
	dmn_kmods_free(&km);
	return mapped;
}
