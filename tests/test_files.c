// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for --files (issue 35): how a bio is classified (file_kind_of(),
 * abi.h: the rule the BPF program runs), a path put together from the names
 * the kernel sends and the mount table (filepath.c), and the interval's file
 * rows (files.c): changes of running totals, names, "(deleted)", --files-top.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>
#include <sys/stat.h>

#include "filepath.h"
#include "files.h"

/* ---- the classification ---- */

#define PAGE_CACHE (FILE_FACT_PAGE | FILE_FACT_MAPPING | FILE_FACT_HOST)

Test(file_kind, direct_io_is_its_files_whatever_the_buffer)
{
	/* the buffer maps another file, cached, not in I/O: still the dio's */
	cr_assert_eq(file_kind_of(FILE_FACT_DIRECT | PAGE_CACHE | FILE_FACT_REGULAR), FILE_KIND_FILE);
	cr_assert_eq(file_kind_of(FILE_FACT_DIRECT | FILE_FACT_PAGE | FILE_FACT_MAPPING |
				  FILE_FACT_ANON), FILE_KIND_FILE);
}

Test(file_kind, page_cache_in_its_own_io_is_the_files)
{
	cr_assert_eq(file_kind_of(PAGE_CACHE | FILE_FACT_REGULAR | FILE_FACT_CACHE_IO),
		     FILE_KIND_FILE);
	/* another direct I/O (not iomap's) from a buffer that maps a file */
	cr_assert_eq(file_kind_of(PAGE_CACHE | FILE_FACT_REGULAR), FILE_KIND_UNKNOWN);
}

Test(file_kind, metadata)
{
	cr_assert_eq(file_kind_of(FILE_FACT_META | PAGE_CACHE | FILE_FACT_REGULAR |
				  FILE_FACT_CACHE_IO), FILE_KIND_METADATA, "REQ_META wins");
	cr_assert_eq(file_kind_of(PAGE_CACHE | FILE_FACT_BDEV | FILE_FACT_CACHE_IO),
		     FILE_KIND_METADATA, "a block device's buffers");
	cr_assert_eq(file_kind_of(FILE_FACT_PAGE), FILE_KIND_METADATA, "a page of no mapping");
	cr_assert_eq(file_kind_of(PAGE_CACHE | FILE_FACT_CACHE_IO), FILE_KIND_METADATA,
		     "a directory's own pages");
}

/* issue 47: a folio in the swap cache, going out (anonymous) or coming in
 * (no mapping yet): [swap], not [unknown] and [metadata] */
Test(file_kind, swap_both_ways)
{
	cr_assert_eq(file_kind_of(FILE_FACT_SWAP | FILE_FACT_PAGE | FILE_FACT_MAPPING |
				  FILE_FACT_ANON), FILE_KIND_SWAP, "swap-out");
	cr_assert_eq(file_kind_of(FILE_FACT_SWAP | FILE_FACT_PAGE), FILE_KIND_SWAP, "swap-in");
	cr_assert_eq(file_kind_of(FILE_FACT_DIRECT | FILE_FACT_SWAP), FILE_KIND_FILE,
		     "a direct I/O's buffer is not what it carries");
	cr_assert_eq(file_kind_of(FILE_FACT_META | FILE_FACT_SWAP), FILE_KIND_METADATA);
}

Test(file_kind, unknown)
{
	cr_assert_eq(file_kind_of(0), FILE_KIND_UNKNOWN, "no page");
	cr_assert_eq(file_kind_of(FILE_FACT_PAGE | FILE_FACT_MAPPING | FILE_FACT_ANON),
		     FILE_KIND_UNKNOWN, "anonymous memory not in the swap cache");
	cr_assert_eq(file_kind_of(FILE_FACT_PAGE | FILE_FACT_MAPPING), FILE_KIND_UNKNOWN,
		     "a mapping of no host");
}

/* ---- paths ---- */

/* A name event of the names given innermost first; its size as sent. */
static size_t event_of(struct file_name_event *e, bool root, int n, ...)
{
	va_list ap;
	size_t at = 0;

	memset(e, 0, sizeof(*e));
	e->type = EVENT_FILE_NAME;
	e->fs_dev = (253 << MINORBITS) | 2;
	e->ino = 12;
	e->flags = root ? FILE_NAME_ROOT : 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		const char *name = va_arg(ap, const char *);

		memcpy(e->names + at, name, strlen(name) + 1);
		at += strlen(name) + 1;
	}
	va_end(ap);
	e->depth = n;
	e->bytes = at;
	return offsetof(struct file_name_event, names) + at;
}

Test(filepath, names_innermost_first_make_the_path)
{
	struct file_name_event e;
	char out[64];
	size_t size = event_of(&e, true, 3, "b", "dir", "x");

	cr_assert(filepath_inside(&e, size, out, sizeof(out)));
	cr_assert_str_eq(out, "/x/dir/b");
	size = event_of(&e, true, 0);
	cr_assert(filepath_inside(&e, size, out, sizeof(out)));
	cr_assert_str_eq(out, "/", "the root itself");
}

Test(filepath, a_walk_short_of_the_root_is_no_path)
{
	struct file_name_event e;
	char out[64];
	size_t size = event_of(&e, false, 2, "b", "dir");

	cr_assert_not(filepath_inside(&e, size, out, sizeof(out)));
	cr_assert_str_eq(out, "");
}

Test(filepath, bad_events_are_refused)
{
	struct file_name_event e;
	char out[64];
	size_t size = event_of(&e, true, 2, "b", "dir");

	cr_assert_not(filepath_inside(&e, size - 1, out, sizeof(out)), "cut short");
	e.depth = 3;
	cr_assert_not(filepath_inside(&e, size, out, sizeof(out)), "more names than bytes");
	e.depth = 1;
	cr_assert_not(filepath_inside(&e, size, out, sizeof(out)), "bytes left over");
	size = event_of(&e, true, 2, "a/b", "dir");
	cr_assert_not(filepath_inside(&e, size, out, sizeof(out)), "a name with a slash");
	size = event_of(&e, true, 2, "", "dir");
	cr_assert_not(filepath_inside(&e, size, out, sizeof(out)), "an empty name");
	size = event_of(&e, true, 2, "b", "dir");
	cr_assert_not(filepath_inside(&e, size, out, 6), "no room for /dir/b and its NUL");
	cr_assert(filepath_inside(&e, size, out, 7));
	cr_assert_str_eq(out, "/dir/b");
}

static const char mountinfo[] =
	"22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n"
	"40 22 253:2 / /mnt/x rw,relatime shared:2 - ext4 /dev/zram2 rw\n"
	"41 22 253:2 /sub /srv/bind\\040dir rw,relatime shared:2 - ext4 /dev/zram2 rw\n"
	"42 22 253:3 /data /data rw - xfs /dev/zram3 rw\n";

Test(filepath, the_mount_point_joins_the_path_inside)
{
	char out[128];

	cr_assert(filepath_mounted(mountinfo, strlen(mountinfo), 253, 2, "/dir/b", out,
				   sizeof(out)));
	cr_assert_str_eq(out, "/mnt/x/dir/b");
	cr_assert(filepath_mounted(mountinfo, strlen(mountinfo), 254, 1, "/etc/passwd", out,
				   sizeof(out)));
	cr_assert_str_eq(out, "/etc/passwd", "the root mount: no double slash");
}

Test(filepath, the_mount_of_the_longest_root_that_holds_it)
{
	char out[128];

	cr_assert(filepath_mounted(mountinfo, strlen(mountinfo), 253, 2, "/sub/f", out,
				   sizeof(out)));
	cr_assert_str_eq(out, "/srv/bind dir/f", "the bind mount, \\040 undone");
	cr_assert(filepath_mounted(mountinfo, strlen(mountinfo), 253, 2, "/subway", out,
				   sizeof(out)));
	cr_assert_str_eq(out, "/mnt/x/subway", "/sub does not hold /subway");
	cr_assert(filepath_mounted(mountinfo, strlen(mountinfo), 253, 3, "/data", out,
				   sizeof(out)));
	cr_assert_str_eq(out, "/data");
	cr_assert_not(filepath_mounted(mountinfo, strlen(mountinfo), 253, 3, "/other", out,
				       sizeof(out)), "no mount holds it");
	cr_assert_not(filepath_mounted(mountinfo, strlen(mountinfo), 8, 1, "/a", out,
				       sizeof(out)), "not mounted");
	cr_assert_not(filepath_mounted(mountinfo, strlen(mountinfo), 253, 2, "/dir/b", out, 8),
		      "no room");
}

/* ---- the interval's file rows ---- */

static char mountinfo_path[] = "/tmp/diskio-test-files.XXXXXX";

static void write_mountinfo(void)
{
	int fd = mkstemp(mountinfo_path);

	cr_assert(fd >= 0);
	cr_assert_eq(write(fd, mountinfo, strlen(mountinfo)), (ssize_t)strlen(mountinfo));
	close(fd);
}

static void remove_mountinfo(void)
{
	unlink(mountinfo_path);
}

static struct snapshot_file entry(uint32_t tgid, const char *comm, uint32_t kind, uint64_t ino,
				  uint64_t read, uint64_t written)
{
	struct snapshot_file f = { 0 };

	f.key.who.tgid = tgid;
	f.key.who.dev = (253 << MINORBITS) | 2;
	snprintf(f.key.who.comm, sizeof(f.key.who.comm), "%s", comm);
	f.key.kind = kind;
	if (kind == FILE_KIND_FILE) {
		f.key.fs_dev = (253 << MINORBITS) | 2;
		f.key.ino = ino;
	}
	f.counts.bytes[IO_READ] = read;
	f.counts.bytes[IO_WRITE] = written;
	f.counts.ios[IO_READ] = read / 4096;
	f.counts.ios[IO_WRITE] = written / 4096;
	return f;
}

static void name(struct files *f, uint64_t ino, const char *leaf)
{
	struct file_name_event e;
	size_t size = event_of(&e, true, 2, leaf, "dir");

	e.ino = ino;
	cr_assert_eq(files_name_event(f, &e, size), 0);
}

/* The same, of the inode's generation gen. */
static void name_generation(struct files *f, uint64_t ino, uint32_t gen, const char *leaf)
{
	struct file_name_event e;
	size_t size = event_of(&e, true, 2, leaf, "dir");

	e.ino = ino;
	e.generation = gen;
	cr_assert_eq(files_name_event(f, &e, size), 0);
}

TestSuite(files_rows, .init = write_mountinfo, .fini = remove_mountinfo);

/* issue 47: a file deleted, its number given to a new file (another
 * generation): two lines, each with its own name and counts, -a too. */
Test(files_rows, an_inode_number_given_again_is_another_file)
{
	struct files f;
	struct snapshot_file s[2] = {
		entry(7, "dd", FILE_KIND_FILE, 12, 0, 8 << 20),
		entry(7, "dd", FILE_KIND_FILE, 12, 0, 4 << 20),
	};

	s[0].key.generation = 100;
	s[1].key.generation = 101;
	files_init(&f, mountinfo_path, NULL);
	name_generation(&f, 12, 100, "a");
	cr_assert_eq(files_step(&f, s, 1, false, 0), 0);
	name_generation(&f, 12, 101, "b");
	cr_assert_eq(files_step(&f, s + 1, 1, false, 0), 0);
	cr_assert_eq(f.nrows, 1);
	cr_assert_str_eq(f.rows[0].path, "/mnt/x/dir/b");
	cr_assert_eq(f.rows[0].bytes[IO_WRITE], 4 << 20);
	cr_assert_eq(files_step(&f, NULL, 0, true, 0), 0);
	cr_assert_eq(f.nrows, 2, "one line for two files");
	cr_assert_str_eq(f.rows[0].path, "/mnt/x/dir/a");
	cr_assert_eq(f.rows[0].bytes[IO_WRITE], 8 << 20);
	cr_assert_str_eq(f.rows[1].path, "/mnt/x/dir/b");
	cr_assert_eq(f.rows[1].bytes[IO_WRITE], 4 << 20);
	files_free(&f);
}

Test(files_rows, an_interval_shows_the_changes_named)
{
	struct files f;
	struct snapshot_file s[3] = {
		entry(7, "dd", FILE_KIND_FILE, 12, 0, 1 << 20),
		entry(7, "dd", FILE_KIND_METADATA, 0, 0, 8192),
		entry(9, "cat", FILE_KIND_FILE, 13, 4096, 0),
	};

	files_init(&f, mountinfo_path, NULL);
	name(&f, 12, "a");
	cr_assert_eq(files_step(&f, s, 3, false, 0), 0);
	cr_assert_eq(f.nrows, 3);
	/* grouped by process row, files first */
	cr_assert_str_eq(f.rows[0].path, "/mnt/x/dir/a");
	cr_assert_eq(f.rows[0].bytes[IO_WRITE], 1 << 20);
	cr_assert_eq(f.rows[0].ios[IO_WRITE], 256);
	cr_assert_str_eq(f.rows[1].path, FILES_METADATA);
	cr_assert_str_eq(f.rows[2].path, "253:2:13", "never named");

	/* the next interval: the kernel's map holds only its own counts */
	s[0].counts = (struct file_counts){ .bytes[IO_WRITE] = 4096, .ios[IO_WRITE] = 1,
					    .flags = FILE_UNLINKED };
	cr_assert_eq(files_step(&f, s, 1, false, 0), 0);
	cr_assert_eq(f.nrows, 1);
	cr_assert_eq(f.rows[0].bytes[IO_WRITE], 4096);
	cr_assert(f.rows[0].unlinked);
	/* -a: totals since start, of files with no I/O in the interval too */
	cr_assert_eq(files_step(&f, NULL, 0, true, 0), 0);
	cr_assert_eq(f.nrows, 3);
	cr_assert_eq(f.rows[0].bytes[IO_WRITE], (1 << 20) + 4096);
	cr_assert_eq(f.rows[0].ios[IO_WRITE], 257);
	files_free(&f);
}

Test(files_rows, a_new_file_before_the_others_takes_no_ones_counts)
{
	struct files f;
	struct snapshot_file s[2] = {
		entry(9, "cat", FILE_KIND_FILE, 13, 4096, 0),
		entry(7, "dd", FILE_KIND_FILE, 12, 0, 8192),
	};

	files_init(&f, mountinfo_path, NULL);
	cr_assert_eq(files_step(&f, s, 1, false, 0), 0);
	/* dd's key sorts before cat's, which is seen already */
	s[0].counts.bytes[IO_READ] = 2048;
	cr_assert_eq(files_step(&f, s, 2, false, 0), 0);
	cr_assert_eq(f.nrows, 2);
	cr_assert_eq(f.rows[0].key.who.tgid, 7);
	cr_assert_eq(f.rows[0].bytes[IO_WRITE], 8192);
	cr_assert_eq(f.rows[1].bytes[IO_READ], 2048, "cat's interval, not its total");
	cr_assert_eq(f.rows[1].bytes[IO_WRITE], 0);
	cr_assert_eq(files_step(&f, NULL, 0, true, 0), 0);
	cr_assert_eq(f.rows[1].bytes[IO_READ], 4096 + 2048, "cat's total");
	files_free(&f);
}

/* issue 47: a name that cannot be made is said (files_name_event() 1, a
 * loss the tally counts), and the file stays MAJ:MIN:INO */
Test(files_rows, a_name_that_cannot_be_made_is_said)
{
	struct files f;
	struct file_name_event e;
	struct snapshot_file s = entry(7, "dd", FILE_KIND_FILE, 12, 4096, 0);
	size_t size;

	files_init(&f, mountinfo_path, NULL);
	size = event_of(&e, false, 2, "a", "dir");	/* no root: no dentry, too deep */
	cr_assert_eq(files_name_event(&f, &e, size), 1);
	size = event_of(&e, true, 2, "a", "dir");
	e.fs_dev = (8 << MINORBITS) | 99;		/* a filesystem of no mount here */
	cr_assert_eq(files_name_event(&f, &e, size), 1);
	cr_assert_eq(files_step(&f, &s, 1, false, 0), 0);
	cr_assert_str_eq(f.rows[0].path, "253:2:12");
	files_free(&f);
}

/* issue 47: the mount table is read again in each interval: a filesystem
 * unmounted since names no file under its old mount point */
Test(files_rows, an_unmounted_filesystem_names_no_file)
{
	struct files f;
	struct file_name_event e;
	size_t size;
	FILE *table;

	files_init(&f, mountinfo_path, NULL);
	name(&f, 12, "a");
	cr_assert_eq(files_step(&f, NULL, 0, false, 0), 0);
	table = fopen(mountinfo_path, "w");	/* unmounted: an empty table */
	cr_assert_not_null(table);
	fclose(table);
	size = event_of(&e, true, 2, "b", "dir");
	e.ino = 13;
	cr_assert_eq(files_name_event(&f, &e, size), 1, "named under a mount that is gone");
	files_free(&f);
}

Test(files_rows, a_new_name_replaces_the_old)
{
	struct files f;
	struct snapshot_file s = entry(7, "dd", FILE_KIND_FILE, 12, 4096, 0);

	files_init(&f, mountinfo_path, NULL);
	name(&f, 12, "a");
	name(&f, 12, "renamed");
	cr_assert_eq(files_step(&f, &s, 1, false, 0), 0);
	cr_assert_str_eq(f.rows[0].path, "/mnt/x/dir/renamed");
	files_free(&f);
}

Test(files_rows, files_top_sums_the_rest_on_one_line)
{
	struct files f;
	struct snapshot_file s[5] = {
		entry(7, "dd", FILE_KIND_FILE, 1, 0, 4096),
		entry(7, "dd", FILE_KIND_FILE, 2, 0, 3 * 4096),
		entry(7, "dd", FILE_KIND_FILE, 3, 0, 2 * 4096),
		entry(7, "dd", FILE_KIND_UNKNOWN, 0, 4096, 0),
		entry(8, "cp", FILE_KIND_FILE, 4, 0, 4096),
	};

	files_init(&f, mountinfo_path, NULL);
	cr_assert_eq(files_step(&f, s, 5, false, 1), 0);
	cr_assert_eq(f.nrows, 4);
	cr_assert_eq(f.rows[0].key.ino, 2, "the most bytes first");
	cr_assert_eq(f.rows[0].nfiles, 1);
	cr_assert_str_eq(f.rows[1].path, FILES_OTHERS);
	cr_assert_eq(f.rows[1].nfiles, 2);
	cr_assert_eq(f.rows[1].bytes[IO_WRITE], 3 * 4096, "files 3 and 1");
	cr_assert_eq(f.rows[1].ios[IO_WRITE], 3);
	cr_assert_str_eq(f.rows[2].path, FILES_UNKNOWN, "not a file: always shown");
	cr_assert_eq(f.rows[3].key.who.tgid, 8);
	files_free(&f);
}

/* ---- issue 47: names read in another mount namespace ---- */

static char proc_root[] = "/tmp/diskio-test-proc.XXXXXX";

/* proc_root/path, made with text (NULL: a directory). */
static void proc_file(const char *path, const char *text)
{
	char full[256];
	FILE *out;

	snprintf(full, sizeof(full), "%s/%s", proc_root, path);
	if (!text) {
		cr_assert(!mkdir(full, 0755), "%s: %s", full, strerror(errno));
		return;
	}
	out = fopen(full, "w");
	cr_assert(out, "%s: %s", full, strerror(errno));
	fputs(text, out);
	fclose(out);
}

static uint32_t proc_ino(const char *path)
{
	char full[256];
	struct stat st;

	snprintf(full, sizeof(full), "%s/%s", proc_root, path);
	cr_assert(!stat(full, &st), "%s: %s", full, strerror(errno));
	return (uint32_t)st.st_ino;
}

/* A fake /proc: diskio's own namespace (self), a container's of two
 * processes, 42 and 77 (their ns/mnt one inode, a link), where 253:2 is
 * mounted on /srv/data only, and a namespace no process is left in. */
static void make_proc(void)
{
	char from[256], to[256];

	write_mountinfo();
	cr_assert(mkdtemp(proc_root));
	proc_file("self", NULL);
	proc_file("self/ns", NULL);
	proc_file("self/ns/mnt", "");
	proc_file("42", NULL);
	proc_file("42/ns", NULL);
	proc_file("42/ns/mnt", "");
	proc_file("42/mountinfo", "60 59 253:2 / /srv/data rw - ext4 /dev/zram2 rw\n");
	proc_file("77", NULL);
	proc_file("77/ns", NULL);
	snprintf(from, sizeof(from), "%s/42/ns/mnt", proc_root);
	snprintf(to, sizeof(to), "%s/77/ns/mnt", proc_root);
	cr_assert(!link(from, to));
	proc_file("77/mountinfo", "60 59 253:2 / /srv/data rw - ext4 /dev/zram2 rw\n");
	proc_file("gone", "");
}

static void remove_proc(void)
{
	char cmd[300];

	remove_mountinfo();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proc_root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(files_namespaces, .init = make_proc, .fini = remove_proc);

/* The name of ino read by process pid in namespace mnt_ns: its path, or
 * NULL when it cannot be made. */
static const char *named_in(struct files *f, uint64_t ino, uint32_t pid, uint32_t mnt_ns)
{
	struct file_name_event e;
	size_t size = event_of(&e, true, 2, "a", "dir");
	struct snapshot_file s = entry(pid, "app", FILE_KIND_FILE, ino, 0, 4096);

	e.ino = ino;
	e.tgid = pid;
	e.mnt_ns = mnt_ns;
	if (files_name_event(f, &e, size))
		return NULL;
	cr_assert_eq(files_step(f, &s, 1, false, 0), 0);
	cr_assert_eq(f->nrows, 1);
	return f->rows[0].path;
}

Test(files_namespaces, a_name_is_joined_with_the_mount_table_it_was_read_in)
{
	struct files f;
	char own[32];

	files_init(&f, mountinfo_path, proc_root);
	snprintf(own, sizeof(own), "%s", named_in(&f, 12, 7, proc_ino("self/ns/mnt")));
	cr_assert_str_eq(own, "/mnt/x/dir/a", "diskio's own namespace: its table");
	cr_assert_str_eq(named_in(&f, 13, 42, proc_ino("42/ns/mnt")), "/srv/data/dir/a",
			 "the container's: its process's table, not diskio's /mnt/x");
	files_free(&f);
}

Test(files_namespaces, a_process_gone_leaves_its_namespace_to_another)
{
	struct files f;
	char path[256];

	snprintf(path, sizeof(path), "rm -rf '%s/42'", proc_root);
	cr_assert_eq(system(path), 0);
	files_init(&f, mountinfo_path, proc_root);
	/* 42 exited at once after its I/O: 77 is of the same namespace */
	cr_assert_str_eq(named_in(&f, 13, 42, proc_ino("77/ns/mnt")), "/srv/data/dir/a");
	files_free(&f);
}

Test(files_namespaces, no_process_left_in_a_namespace_is_a_name_unmade)
{
	struct files f;
	struct file_name_event e;
	size_t size = event_of(&e, true, 2, "a", "dir");

	files_init(&f, mountinfo_path, proc_root);
	/* 42 is now another namespace's process (its pid given again): not
	 * its table, and no process is of the one the name was read in */
	e.tgid = 42;
	e.mnt_ns = proc_ino("gone");
	cr_assert_eq(files_name_event(&f, &e, size), 1, "never diskio's /mnt/x/dir/a");
	files_free(&f);
}
