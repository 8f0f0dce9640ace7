/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --files (issue 35): the kernel's counts per (row, file) turned into an
 * interval's file rows, and the files' names.
 *
 * The kernel's file counts are the interval's (each snapshot drains its
 * map): each step adds them to the files' totals since start.  A file is
 * named when the kernel
 * sends its names (files_name_event()), against the mount table as it is
 * then, so that a file deleted or a filesystem unmounted since keeps its
 * path; a file never named shows as "MAJ:MIN:INO".  Pure but for reading
 * the mount table's file, whose path comes in.
 */
#ifndef DISKIO_FILES_H
#define DISKIO_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abi.h"
#include "resources.h"
#include "snapshot.h"

#define FILES_METADATA	"[metadata]"
#define FILES_UNKNOWN	"[unknown]"
#define FILES_SWAP	"[swap]"
#define FILES_OTHERS	"[other files]"
/* A file_row's key.kind beyond enum file_kind: the files cut by --files-top. */
#define FILES_KIND_OTHERS	3

/* One line of the frame's files. */
struct file_row {
	struct file_key key;		/* ino 0 for metadata, unknown and others */
	/* set by the tally: the row's process and names */
	uint32_t tgid;
	res_key comm_name, device_name;
	const char *path;		/* the files', valid until the next step */
	bool unlinked;			/* i_nlink was 0: "(deleted)" */
	uint32_t nfiles;		/* files in the line: more than 1 for FILES_OTHERS */
	uint64_t bytes[2], ios[2];	/* IO_READ, IO_WRITE: of the interval, or totals */
};

struct file_seen {
	struct file_key key;
	uint64_t total[4];		/* since start: bytes r/w, ios r/w */
	uint64_t delta[4];		/* this step */
	bool unlinked;
};

/* A file's name, by its identity: filesystem, inode number and generation
 * (a number given again is another file, with a name of its own). */
struct file_name {
	uint32_t fs_dev;
	uint32_t generation;
	uint64_t ino;
	char *path;
};

/* The mount table of another mount namespace, read in this step. */
struct files_ns_table {
	uint32_t mnt_ns;		/* its inode number */
	char *text;			/* NULL: no process of it was found */
	size_t len;
};

struct files {
	const char *mountinfo_path;	/* "/proc/self/mountinfo" */
	char *mountinfo;		/* its text as last read */
	size_t mountinfo_len;
	bool mountinfo_read;		/* in this step already */
	/* "/proc" (NULL: diskio's mount namespace only), the namespace
	 * mountinfo_path is of, and those of others read in this step */
	const char *proc_root;
	uint32_t own_mnt_ns;
	struct files_ns_table *ns_tables;
	size_t nns_tables, ns_tables_capacity;
	struct file_seen *seen;		/* sorted by key */
	size_t nseen, seen_capacity;
	struct file_name *names;	/* sorted by (fs_dev, ino, generation) */
	size_t nnames, names_capacity;
	struct file_row *rows;
	size_t nrows, rows_capacity;
	char **paths;			/* the rows' own strings ("MAJ:MIN:INO") */
	size_t npaths, paths_capacity;
};

/* mountinfo_path: the mount table names are joined with; proc_root
 * ("/proc", NULL: none), where a name read in another mount namespace
 * finds that namespace's table (struct file_name_event's mnt_ns): its
 * process's, or any process's of it. */
void files_init(struct files *f, const char *mountinfo_path, const char *proc_root);
void files_free(struct files *f);

/* A name event of size bytes, as it came from the kernel.  0; 1 when the
 * name cannot be made (the kernel found no dentry or a path too deep, or
 * no mount of the file's filesystem is in the mount table of the namespace
 * the names were read in, or no process of that namespace is left to read
 * its table): the file stays "MAJ:MIN:INO"; or -ENOMEM. */
int files_name_event(struct files *f, const void *data, size_t size);

/*
 * The step: the snapshot's file counts (n of them) against those seen
 * before, into f->rows: those with I/O in the interval (cumulative: since
 * start), grouped by row (key.who), each group's files by bytes, most
 * first; with top > 0, the files after the top-th of a group summed into
 * one FILES_OTHERS line (metadata and unknown are always shown).
 * 0, or -ENOMEM (f->rows then empty).
 */
int files_step(struct files *f, const struct snapshot_file *files, size_t n, bool cumulative,
	       uint32_t top);

/* The order of a step's lines, for qsort() of struct file_row: grouped by
 * row, then files before metadata and unknown, most bytes first, then by
 * key. */
int files_row_order(const void *a, const void *b);

#endif /* DISKIO_FILES_H */
