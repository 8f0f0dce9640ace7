/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ELF files the user symbolizer has read, each read once and kept by
 * identity (device, inode, size, mtime: a build id alone proves nothing,
 * anyone can write any build id into a file), with its symbols (its own,
 * or its separate debug file's, found by build id), its .eh_frame, and
 * whether it may name the frames of processes that did not map it.
 * Bounded: past ELF_CACHE_MAX_BYTES or ELF_CACHE_MAX_FILES the least
 * recently used files go first, but never one a kept process maps.  A
 * file that gave no symbols is kept too, with its status, so that every
 * process mapping it does not parse it again.
 */
#ifndef DISKIO_ELF_CACHE_H
#define DISKIO_ELF_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "ehframe.h"
#include "elfsyms.h"

#define ELF_CACHE_MAX_BYTES ((size_t)64 << 20)
#define ELF_CACHE_MAX_FILES 4096

struct elf_file {
	struct elf_file *newer, *older;	/* the cache's LRU list */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct elf_symbols *elf;	/* NULL when out of memory */
	struct eh_frame *eh;		/* its .eh_frame, NULL without one */
	enum elf_status status;		/* ELF_OK: it has symbols (its own or its
					 * debug file's) and segments to place them */
	bool trusted;			/* only root can change it: names any process... */
	bool public;			/* ...if anyone may read it (a root-only file's
					 * names never go to a process that only claims
					 * its build id) */
	char module[64];		/* its base name when first read */
	uint32_t users;			/* mappings of kept processes: kept while > 0 */
	size_t bytes;
};

struct elf_cache {
	struct elf_file *newest, *oldest;
	size_t nfiles, bytes;
	char *debug_dir;		/* NULL: no separate debug files */
	char *extra_debug_dir;		/* --debug-dir, searched after it */
	uid_t trusted_uid;		/* trusted as root is: a test's own user */
};

/* An empty cache looking for debug files under debug_dir (may be NULL).
 * 0, or -ENOMEM. */
int elf_cache_init(struct elf_cache *c, const char *debug_dir);
void elf_cache_free(struct elf_cache *c);

/* Where debug files are looked for by build id (DIR/.build-id/ab/cdef....debug),
 * and a second place after it; NULL: none.  0, or -ENOMEM. */
int elf_cache_set_debug_dir(struct elf_cache *c, const char *dir);
int elf_cache_set_extra_debug_dir(struct elf_cache *c, const char *dir);

/* The file st describes, if it is cached (as it is now: same size, mtime). */
struct elf_file *elf_cache_find(const struct elf_cache *c, const struct stat *st);

/* Marks f used now: the last to be evicted. */
void elf_cache_touch(struct elf_cache *c, struct elf_file *f);

/*
 * Reads the file open on fd (st: its stat) into the cache, as trusted (see
 * struct elf_file) or not, named module; its debug file's symbols too when
 * it has none or only exported ones.  0 and *out; -ENOMEM; -ENOSPC when
 * no room can be made (every file left is mapped by a kept process).
 */
int elf_cache_add(struct elf_cache *c, int fd, const struct stat *st, bool trusted,
		  const char *module, struct elf_file **out);

/* Whether f has this build id. */
bool elf_file_has_build_id(const struct elf_file *f, const unsigned char *id, size_t len);

/* The most recently used file with this build id that may name any
 * process's frames (trusted and public), marked used; NULL, and
 * *untrusted_seen set when only others have it. */
struct elf_file *elf_cache_find_build_id(struct elf_cache *c, const unsigned char *id,
					 size_t len, bool *untrusted_seen);

/* A separate debug file with this build id under the debug directories,
 * only root can change and anyone may read: open for reading, its stat
 * in *st; -1 if none. */
int elf_cache_open_debug_file(const struct elf_cache *c, const unsigned char *id, size_t len,
			      struct stat *st);

#endif /* DISKIO_ELF_CACHE_H */
