// SPDX-License-Identifier: GPL-2.0
/*
 * The user symbolizer's ELF files (elf_cache.h).
 *
 * A list from the most to the least recently used; a lookup walks it
 * (4,096 files at most, and a file is looked up once per mapping read, not
 * per frame).  A file is read through the descriptor it was checked with:
 * symbols under elfsyms.h's limits, .eh_frame under ehframe.h's; a debug
 * file is opened by build id only if root alone can change it
 * (trusted_files.h) and anyone may read it, since its names go to every
 * process of that build id.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_cache.h"
#include "path.h"
#include "trusted_files.h"

static int replace_string(char **field, const char *value)
{
	char *copy = NULL;

	if (value && !(copy = strdup(value)))
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

int elf_cache_init(struct elf_cache *c, const char *debug_dir)
{
	*c = (struct elf_cache){ 0 };
	return elf_cache_set_debug_dir(c, debug_dir);
}

int elf_cache_set_debug_dir(struct elf_cache *c, const char *dir)
{
	return replace_string(&c->debug_dir, dir);
}

int elf_cache_set_extra_debug_dir(struct elf_cache *c, const char *dir)
{
	return replace_string(&c->extra_debug_dir, dir);
}

static void file_unlink(struct elf_cache *c, struct elf_file *f)
{
	if (f->newer)
		f->newer->older = f->older;
	else
		c->newest = f->older;
	if (f->older)
		f->older->newer = f->newer;
	else
		c->oldest = f->newer;
	f->newer = f->older = NULL;
}

static void file_push_newest(struct elf_cache *c, struct elf_file *f)
{
	f->older = c->newest;
	f->newer = NULL;
	if (c->newest)
		c->newest->newer = f;
	c->newest = f;
	if (!c->oldest)
		c->oldest = f;
}

void elf_cache_touch(struct elf_cache *c, struct elf_file *f)
{
	if (c->newest == f)
		return;
	file_unlink(c, f);
	file_push_newest(c, f);
}

static void file_free(struct elf_cache *c, struct elf_file *f)
{
	file_unlink(c, f);
	c->nfiles--;
	c->bytes -= f->bytes;
	elf_symbols_free(f->elf);
	eh_frame_free(f->eh);
	free(f);
}

void elf_cache_free(struct elf_cache *c)
{
	while (c->oldest)
		file_free(c, c->oldest);
	free(c->debug_dir);
	free(c->extra_debug_dir);
	c->debug_dir = c->extra_debug_dir = NULL;
}

/* Room for bytes more: the least recently used files nothing points to go. */
static bool make_room(struct elf_cache *c, size_t bytes)
{
	struct elf_file *f = c->oldest;

	while (f && (c->bytes + bytes > ELF_CACHE_MAX_BYTES || c->nfiles >= ELF_CACHE_MAX_FILES)) {
		struct elf_file *newer = f->newer;

		if (!f->users)
			file_free(c, f);
		f = newer;
	}
	return c->bytes + bytes <= ELF_CACHE_MAX_BYTES && c->nfiles < ELF_CACHE_MAX_FILES;
}

static bool same_identity(const struct elf_file *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec && f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

struct elf_file *elf_cache_find(const struct elf_cache *c, const struct stat *st)
{
	for (struct elf_file *f = c->newest; f; f = f->older)
		if (same_identity(f, st))
			return f;
	return NULL;
}

static bool has_build_id(const struct elf_symbols *elf, const unsigned char *id, size_t len)
{
	size_t have;
	const unsigned char *mine = elf_build_id(elf, &have);

	return mine && have == len && !memcmp(mine, id, len);
}

bool elf_file_has_build_id(const struct elf_file *f, const unsigned char *id, size_t len)
{
	return has_build_id(f->elf, id, len);
}

struct elf_file *elf_cache_find_build_id(struct elf_cache *c, const unsigned char *id,
					 size_t len, bool *untrusted_seen)
{
	for (struct elf_file *f = c->newest; f; f = f->older) {
		if (!has_build_id(f->elf, id, len))
			continue;
		if (f->trusted && f->public) {
			elf_cache_touch(c, f);
			return f;
		}
		*untrusted_seen = true;
	}
	return NULL;
}

/* As gdb and perf find them: DEBUG_DIR/.build-id/ab/cdef....debug. */
int elf_cache_open_debug_file(const struct elf_cache *c, const unsigned char *id, size_t len,
			      struct stat *st)
{
	const char *dirs[] = { c->debug_dir, c->extra_debug_dir };
	char path[PATH_MAX], hex[2 * ELF_BUILD_ID_MAX + 1];

	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		int fd;

		if (!dirs[i] ||
		    !build_path(path, "%s/.build-id/%.2s/%s.debug", dirs[i], hex, hex + 2))
			continue;
		fd = open_trusted_file("/", path, c->trusted_uid, NULL, st);
		/* Names anyone may read: they go to every process of that build id. */
		if (fd >= 0 && (st->st_mode & S_IROTH))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

/* A stripped file's .symtab from its debug file (same build id: same addresses). */
static void add_debug_symbols(const struct elf_cache *c, struct elf_file *f)
{
	struct elf_symbols *debug = NULL;
	const unsigned char *id;
	struct stat st;
	size_t len;
	int fd;

	id = elf_build_id(f->elf, &len);
	fd = elf_cache_open_debug_file(c, id, len, &st);
	if (fd < 0)
		return;
	if (elf_symbols_read(fd, (uint64_t)st.st_size, &ELF_LIMITS, ELF_SYMTAB_ONLY, &debug) ==
		    ELF_OK &&
	    has_build_id(debug, id, len)) {
		elf_take_symbols(f->elf, debug);
		f->status = ELF_OK;
	}
	elf_symbols_free(debug);
	close(fd);
}

int elf_cache_add(struct elf_cache *c, int fd, const struct stat *st, bool trusted,
		  const char *module, struct elf_file **out)
{
	struct elf_file *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->size = st->st_size;
	f->mtime = st->st_mtim;
	f->trusted = trusted;
	f->public = st->st_mode & S_IROTH;
	snprintf(f->module, sizeof(f->module), "%s", module);
	f->status = elf_symbols_read(fd, (uint64_t)st->st_size, &ELF_LIMITS, 0, &f->elf);
	if (f->status == ELF_OK && !elf_has_segments(f->elf))
		f->status = ELF_MALFORMED;	/* no offset can be placed */
	/* Stripped, or only its exports (.dynsym: libc's local functions
	 * have no name there): its debug file's .symtab, if there is one. */
	if ((f->status == ELF_STRIPPED || (f->status == ELF_OK && !elf_has_all_symbols(f->elf))) &&
	    elf_has_segments(f->elf))
		add_debug_symbols(c, f);
	/* Under its own cap (ehframe.h), through the same descriptor. */
	if (f->status != ELF_NOT_ELF && elf_has_segments(f->elf))
		eh_frame_read(fd, (uint64_t)st->st_size, &f->eh);
	f->bytes = sizeof(*f) + elf_symbols_bytes(f->elf) + eh_frame_bytes(f->eh);
	if (!make_room(c, f->bytes)) {
		elf_symbols_free(f->elf);
		eh_frame_free(f->eh);
		free(f);
		return -ENOSPC;
	}
	file_push_newest(c, f);
	c->nfiles++;
	c->bytes += f->bytes;
	*out = f;
	return 0;
}
