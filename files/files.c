// SPDX-License-Identifier: GPL-2.0
/* --files: the interval's file rows and the files' names (files.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "array.h"
#include "files.h"
#include "filepath.h"
#include "sorted.h"

/* The mount namespace of process pid ("self" when pid is 0) under
 * proc_root: its inode number, or 0. */
static uint32_t mnt_ns_of(const char *proc_root, uint32_t pid)
{
	char path[256];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "%s/%u/ns/mnt", proc_root, pid);
	else
		snprintf(path, sizeof(path), "%s/self/ns/mnt", proc_root);
	return stat(path, &st) ? 0 : (uint32_t)st.st_ino;
}

void files_init(struct files *f, const char *mountinfo_path, const char *proc_root)
{
	memset(f, 0, sizeof(*f));
	f->mountinfo_path = mountinfo_path;
	f->proc_root = proc_root;
	if (proc_root)
		f->own_mnt_ns = mnt_ns_of(proc_root, 0);
}

static void free_ns_tables(struct files *f)
{
	for (size_t i = 0; i < f->nns_tables; i++)
		free(f->ns_tables[i].text);
	f->nns_tables = 0;
}

static void free_paths(struct files *f)
{
	for (size_t i = 0; i < f->npaths; i++)
		free(f->paths[i]);
	f->npaths = 0;
}

void files_free(struct files *f)
{
	for (size_t i = 0; i < f->nnames; i++)
		free(f->names[i].path);
	free_paths(f);
	free(f->paths);
	free(f->names);
	free(f->seen);
	free(f->rows);
	free(f->mountinfo);
	free_ns_tables(f);
	free(f->ns_tables);
	memset(f, 0, sizeof(*f));
}

/* The whole text of the file at path (allocated, *len bytes), or NULL. */
static char *read_text(const char *path, size_t *len)
{
	char *text = NULL;
	FILE *in, *out;
	char buf[4096];
	size_t n;

	*len = 0;
	in = fopen(path, "re");
	if (!in)
		return NULL;
	out = open_memstream(&text, len);
	if (!out) {
		fclose(in);
		return NULL;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		fwrite(buf, 1, n, out);
	fclose(in);
	if (fclose(out)) {
		free(text);
		return NULL;
	}
	return text;
}

/* The mount table, read again at most once a step. */
static void read_mountinfo(struct files *f)
{
	char *text;
	size_t len;

	if (f->mountinfo_read || !f->mountinfo_path)
		return;
	f->mountinfo_read = true;
	text = read_text(f->mountinfo_path, &len);
	if (!text)
		return;
	free(f->mountinfo);
	f->mountinfo = text;
	f->mountinfo_len = len;
}

/* The mount table of namespace mnt_ns as process pid of it, or else any
 * process of it, has it: read once a step (NULL text: none is left). */
static const struct files_ns_table *ns_table(struct files *f, uint32_t pid, uint32_t mnt_ns)
{
	struct files_ns_table *t;
	char path[256];
	DIR *proc;
	struct dirent *e;

	for (size_t i = 0; i < f->nns_tables; i++)
		if (f->ns_tables[i].mnt_ns == mnt_ns)
			return &f->ns_tables[i];
	if (array_reserve((void **)&f->ns_tables, &f->ns_tables_capacity, f->nns_tables + 1,
			  sizeof(*f->ns_tables)))
		return NULL;
	t = &f->ns_tables[f->nns_tables++];
	*t = (struct files_ns_table){ .mnt_ns = mnt_ns };
	/* the process's own, if it is still there and still of it (a pid
	 * given again is another's) */
	if (pid && mnt_ns_of(f->proc_root, pid) == mnt_ns) {
		snprintf(path, sizeof(path), "%s/%u/mountinfo", f->proc_root, pid);
		t->text = read_text(path, &t->len);
		if (t->text && mnt_ns_of(f->proc_root, pid) == mnt_ns)
			return t;
		free(t->text);
		t->text = NULL;
	}
	/* gone: a process that lives on in the namespace (a container's) */
	proc = opendir(f->proc_root);
	while (proc && (e = readdir(proc))) {
		uint32_t other;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		other = (uint32_t)strtoul(e->d_name, NULL, 10);
		if (other == pid || mnt_ns_of(f->proc_root, other) != mnt_ns)
			continue;
		snprintf(path, sizeof(path), "%s/%u/mountinfo", f->proc_root, other);
		t->text = read_text(path, &t->len);
		if (t->text && mnt_ns_of(f->proc_root, other) == mnt_ns)
			break;
		free(t->text);
		t->text = NULL;
	}
	if (proc)
		closedir(proc);
	return t;
}

static int compare_name(const void *key, const void *element)
{
	const struct file_name *a = key, *b = element;

	if (a->fs_dev != b->fs_dev)
		return a->fs_dev < b->fs_dev ? -1 : 1;
	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	if (a->generation != b->generation)
		return a->generation < b->generation ? -1 : 1;
	return 0;
}

static const char *name_of(const struct files *f, const struct file_key *key)
{
	struct file_name want = { .fs_dev = key->fs_dev, .ino = key->ino,
				  .generation = key->generation };
	size_t at = sorted_find(&want, f->names, f->nnames, sizeof(*f->names), compare_name);

	/* sorted_find() gives where it would be */
	return at < f->nnames && !compare_name(&want, &f->names[at]) ? f->names[at].path : NULL;
}

/* The path of a named file, its mount point joined to its path inside,
 * into *out (allocated): 0, -ENOENT (no mount of its filesystem), -ENOMEM.
 * The mount table is that of the namespace the names were read in (by
 * process pid): diskio's own, or another's. */
static int mounted_path(struct files *f, uint32_t fs_dev, const char *inside, uint32_t pid,
			uint32_t mnt_ns, char **out)
{
	uint32_t major = fs_dev >> MINORBITS, minor = fs_dev & MINORMASK;
	static char path[FILEPATH_MAX];
	const char *table;
	size_t len;

	/* the mount table as it is in this interval (read once in it): a
	 * filesystem unmounted since is not named under its old mount point */
	read_mountinfo(f);
	table = f->mountinfo;
	len = f->mountinfo_len;
	if (f->proc_root && mnt_ns && f->own_mnt_ns && mnt_ns != f->own_mnt_ns) {
		const struct files_ns_table *t = ns_table(f, pid, mnt_ns);

		if (!t)
			return -ENOMEM;
		table = t->text;
		len = t->len;
	}
	if (!filepath_mounted(table, len, major, minor, inside, path, sizeof(path)))
		return -ENOENT;
	*out = strdup(path);
	return *out ? 0 : -ENOMEM;
}

int files_name_event(struct files *f, const void *data, size_t size)
{
	static struct file_name_event event;
	static char inside[FILEPATH_MAX];
	struct file_name want;
	size_t at;
	char *path;
	int err;

	memset(&event, 0, sizeof(event));
	memcpy(&event, data, size < sizeof(event) ? size : sizeof(event));
	if (size < offsetof(struct file_name_event, names) ||
	    !filepath_inside(&event, size, inside, sizeof(inside)))
		return 1;	/* stays "MAJ:MIN:INO" */
	err = mounted_path(f, event.fs_dev, inside, event.tgid, event.mnt_ns, &path);
	if (err)
		return err == -ENOENT ? 1 : err;
	want = (struct file_name){ .fs_dev = event.fs_dev, .ino = event.ino,
				   .generation = event.generation, .path = path };
	at = sorted_find_after(&want, f->names, f->nnames, sizeof(*f->names), compare_name);
	if (at > 0 && !compare_name(&want, &f->names[at - 1])) {
		/* named again (out of the kernel's LRU, or a new file of that
		 * number): the newer name; the older one may be in the frame
		 * shown, and goes with the frame's own strings at the next step */
		char *old = f->names[at - 1].path;

		if (array_reserve((void **)&f->paths, &f->paths_capacity, f->npaths + 1,
				  sizeof(*f->paths))) {
			free(path);
			return -ENOMEM;
		}
		f->paths[f->npaths++] = old;
		f->names[at - 1].path = path;
		return 0;
	}
	if (array_reserve((void **)&f->names, &f->names_capacity, f->nnames + 1,
			  sizeof(*f->names))) {
		free(path);
		return -ENOMEM;
	}
	memmove(&f->names[at + 1], &f->names[at], (f->nnames - at) * sizeof(*f->names));
	f->names[at] = want;
	f->nnames++;
	return 0;
}

static int compare_key(const void *key, const void *element)
{
	return memcmp(key, element, sizeof(struct file_key));
}

static int compare_seen(const void *a, const void *b)
{
	return compare_key(a, b);
}

/* The seen entry of key among the first sorted (sorted by key), else a
 * new one at the end (the caller sorts them all again).  NULL: no memory. */
static struct file_seen *seen_of(struct files *f, size_t sorted, const struct file_key *key)
{
	size_t at = sorted_find(key, f->seen, sorted, sizeof(*f->seen), compare_key);
	struct file_seen *s;

	if (at < sorted && !compare_key(key, &f->seen[at]))
		return &f->seen[at];
	if (array_reserve((void **)&f->seen, &f->seen_capacity, f->nseen + 1, sizeof(*f->seen)))
		return NULL;
	s = &f->seen[f->nseen++];
	memset(s, 0, sizeof(*s));
	s->key = *key;
	return s;
}

/* The interval's counts of a file (the kernel's, drained). */
static void take_change(struct file_seen *s, const struct file_counts *interval)
{
	const uint64_t values[4] = { interval->bytes[0], interval->bytes[1], interval->ios[0],
				     interval->ios[1] };

	for (int i = 0; i < 4; i++) {
		s->delta[i] = values[i];
		s->total[i] += values[i];
	}
	if (interval->flags & FILE_UNLINKED)
		s->unlinked = true;
}

int files_row_order(const void *pa, const void *pb)
{
	const struct file_row *a = pa, *b = pb;
	int who = memcmp(&a->key.who, &b->key.who, sizeof(a->key.who));
	uint64_t sa = a->bytes[0] + a->bytes[1], sb = b->bytes[0] + b->bytes[1];

	if (who)
		return who;
	if ((a->key.kind == FILE_KIND_FILE) != (b->key.kind == FILE_KIND_FILE))
		return a->key.kind == FILE_KIND_FILE ? -1 : 1;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	return compare_key(&a->key, &b->key);
}

static char *keep_path(struct files *f, const char *text)
{
	char *copy;

	if (array_reserve((void **)&f->paths, &f->paths_capacity, f->npaths + 1,
			  sizeof(*f->paths)))
		return NULL;
	copy = strdup(text);
	if (copy)
		f->paths[f->npaths++] = copy;
	return copy;
}

static const char *path_of(struct files *f, const struct file_key *key)
{
	const char *named;
	char text[64];

	if (key->kind == FILE_KIND_METADATA)
		return FILES_METADATA;
	if (key->kind == FILE_KIND_SWAP)
		return FILES_SWAP;
	if (key->kind != FILE_KIND_FILE)
		return FILES_UNKNOWN;
	named = name_of(f, key);
	if (named)
		return named;
	snprintf(text, sizeof(text), "%u:%u:%llu", key->fs_dev >> MINORBITS,
		 key->fs_dev & MINORMASK, (unsigned long long)key->ino);
	named = keep_path(f, text);
	return named ? named : "?";
}

/* With top, a group's files after the top-th become one line. */
static size_t cut_to_top(struct file_row *rows, size_t n, uint32_t top)
{
	size_t out = 0;

	for (size_t i = 0; i < n;) {
		size_t end = i, kept = 0;

		while (end < n && !memcmp(&rows[end].key.who, &rows[i].key.who,
					  sizeof(rows[i].key.who)))
			end++;
		for (size_t j = i; j < end; j++) {
			struct file_row *r = &rows[j];

			if (r->key.kind != FILE_KIND_FILE || kept < top) {
				kept += r->key.kind == FILE_KIND_FILE;
				rows[out++] = *r;
			} else if (kept == top) {	/* the first cut: the others' line */
				kept++;
				rows[out] = *r;
				memset(&rows[out].key, 0, sizeof(rows[out].key));
				rows[out].key.who = r->key.who;
				rows[out].key.kind = FILES_KIND_OTHERS;
				rows[out].path = FILES_OTHERS;
				rows[out].unlinked = false;
				out++;
			} else {
				struct file_row *others = &rows[out - 1];

				others->nfiles++;
				for (int k = 0; k < 2; k++) {
					others->bytes[k] += r->bytes[k];
					others->ios[k] += r->ios[k];
				}
			}
		}
		i = end;
	}
	return out;
}

int files_step(struct files *f, const struct snapshot_file *files, size_t n, bool cumulative,
	       uint32_t top)
{
	size_t nrows = 0, sorted = f->nseen;

	f->nrows = 0;
	f->mountinfo_read = false;
	free_ns_tables(f);
	free_paths(f);
	for (size_t i = 0; i < f->nseen; i++)
		memset(f->seen[i].delta, 0, sizeof(f->seen[i].delta));
	for (size_t i = 0; i < n; i++) {
		/* the kernel's keys are unique: a new one is not looked for
		 * among the new */
		struct file_seen *s = seen_of(f, sorted, &files[i].key);

		if (!s) {
			if (f->nseen)
				qsort(f->seen, f->nseen, sizeof(*f->seen), compare_seen);
			return -ENOMEM;
		}
		take_change(s, &files[i].counts);
	}
	if (f->nseen > sorted)
		qsort(f->seen, f->nseen, sizeof(*f->seen), compare_seen);
	if (array_reserve((void **)&f->rows, &f->rows_capacity, f->nseen, sizeof(*f->rows)))
		return -ENOMEM;
	for (size_t i = 0; i < f->nseen; i++) {
		const struct file_seen *s = &f->seen[i];
		const uint64_t *v = cumulative ? s->total : s->delta;
		struct file_row *r;

		if (!(v[0] | v[1] | v[2] | v[3]))
			continue;
		r = &f->rows[nrows++];
		memset(r, 0, sizeof(*r));
		r->key = s->key;
		r->path = path_of(f, &s->key);
		r->unlinked = s->unlinked;
		r->nfiles = s->key.kind == FILE_KIND_FILE;
		r->bytes[0] = v[0];
		r->bytes[1] = v[1];
		r->ios[0] = v[2];
		r->ios[1] = v[3];
	}
	if (nrows)	/* rows is NULL before the first file */
		qsort(f->rows, nrows, sizeof(*f->rows), files_row_order);
	f->nrows = top ? cut_to_top(f->rows, nrows, top) : nrows;
	return 0;
}
