// SPDX-License-Identifier: GPL-2.0
/*
 * Names for stack frames (--stacks).
 *
 * Kernel: /proc/kallsyms is read once into one array sorted by address, the
 * names in one string pool; a frame is a binary search.
 *
 * User: diskio runs as root and reads files other users wrote, so it
 * trusts nothing a user can change (doc/stacks.md).  The kernel gives
 * each new user stack as build ids and file offsets at the I/O
 * (EVENT_USER_STACK), so a process that exits at once can still be named;
 * its frames are named then, from the files the process itself mapped,
 * opened through /proc/PID/map_files/ and checked against the maps line,
 * or, when it is gone, from a file with that build id that only root can
 * change (one diskio itself or another process mapped, or a debug file).
 * ELF files are cached by identity (device, inode, size, mtime), read under
 * elfsyms.h's limits, evicted least recently used past USYMS_MAX_CACHE_BYTES;
 * a process's mappings are kept until it exits (EVENT_STACK_PROCESS_EXIT);
 * each interval's work has a time budget.  What cannot be named says why.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "array.h"
#include "ehframe.h"
#include "elfsyms.h"
#include "path.h"
#include "resources.h"
#include "root_only.h"
#include "scan.h"
#include "sorted.h"
#include "strpool.h"
#include "symbolize.h"

static void chomp(char *line, ssize_t *len)
{
	while (*len > 0 && (line[*len - 1] == '\n' || line[*len - 1] == '\r'))
		line[--*len] = '\0';
}

/* ---- kernel ---- */

struct ksyms {
	struct ksym *syms;
	size_t count;
	char *names;		/* every name and module name, NUL-separated */
};

/* A symbol while the file is read: offsets into the pool, and the line it came from. */
struct ksym_raw {
	uint64_t addr;
	uint32_t name, module;
	uint32_t line;
};

struct kallsyms_line {
	uint64_t addr;
	char type;
	const char *name, *module;	/* module "" for the kernel itself */
	size_t name_len, module_len;
};

/* "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]"; anything else is skipped. */
static bool parse_kallsyms_line(const char *s, struct kallsyms_line *out)
{
	if (!scan_hex(&s, &out->addr) || !scan_char(&s, ' ') || !*s)
		return false;
	out->type = *s++;
	if (!scan_char(&s, ' '))
		return false;
	out->name = s;
	out->name_len = strcspn(s, " \t");
	if (!out->name_len)
		return false;
	s += out->name_len;
	scan_blanks(&s);
	out->module = "";
	out->module_len = 0;
	if (*s == '[') {
		const char *end = strchr(s, ']');

		if (!end || end == s + 1)
			return false;
		out->module = s + 1;
		out->module_len = end - s - 1;
		s = end + 1;
		scan_blanks(&s);
	}
	return *s == '\0';
}

static bool is_function_type(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static int compare_ksym_raw(const void *a, const void *b)
{
	const struct ksym_raw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases at one address: the first listed wins, whatever qsort does. */
	return x->line < y->line ? -1 : x->line > y->line;
}

struct kallsyms_reader {
	struct strpool pool;
	struct ksym_raw *raw;
	size_t count, cap;
	size_t zero_addresses;	/* function lines hidden by kptr_restrict */
	uint32_t last_module;	/* module lines come in runs: one copy of the name a run */
};

static bool same_module(const struct kallsyms_reader *r, const struct kallsyms_line *l)
{
	const char *last = r->pool.bytes + r->last_module;

	return strlen(last) == l->module_len && !memcmp(last, l->module, l->module_len);
}

static bool add_kallsyms_symbol(struct kallsyms_reader *r, const struct kallsyms_line *l)
{
	struct ksym_raw *sym;

	if (array_reserve((void **)&r->raw, &r->cap, r->count + 1, sizeof(*r->raw)))
		return false;
	sym = &r->raw[r->count];
	sym->addr = l->addr;
	sym->line = (uint32_t)r->count;
	if (!strpool_add(&r->pool, l->name, l->name_len, &sym->name))
		return false;
	if (!same_module(r, l) && !strpool_add(&r->pool, l->module, l->module_len, &r->last_module))
		return false;
	sym->module = r->last_module;
	r->count++;
	return true;
}

static int read_kallsyms(FILE *f, struct kallsyms_reader *r)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	/* Offset 0 is "", the kernel's module name, before any line is read. */
	if (!strpool_add(&r->pool, "", 0, &r->last_module))
		return -ENOMEM;
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct kallsyms_line l;

		chomp(line, &len);
		if (!parse_kallsyms_line(line, &l) || !is_function_type(l.type))
			continue;
		if (!l.addr) {
			r->zero_addresses++;
			continue;
		}
		if (r->count >= UINT32_MAX || !add_kallsyms_symbol(r, &l)) {
			err = -ENOMEM;
			break;
		}
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	return err;
}

static struct ksyms *ksyms_from_reader(struct kallsyms_reader *r)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	size_t i;

	if (!ks)
		return NULL;
	ks->syms = calloc(r->count, sizeof(*ks->syms));
	if (!ks->syms) {
		free(ks);
		return NULL;
	}
	qsort(r->raw, r->count, sizeof(*r->raw), compare_ksym_raw);
	ks->names = strpool_take(&r->pool);
	for (i = 0; i < r->count; i++) {
		struct ksym *sym = &ks->syms[ks->count];

		/* One name an address (the first listed): ksyms_find need not pick among aliases. */
		if (ks->count && sym[-1].addr == r->raw[i].addr)
			continue;
		sym->addr = r->raw[i].addr;
		sym->name = ks->names + r->raw[i].name;
		sym->module = ks->names + r->raw[i].module;
		ks->count++;
	}
	return ks;
}

struct ksyms *ksyms_load(const char *path)
{
	struct kallsyms_reader r = { 0 };
	struct ksyms *ks = NULL;
	FILE *f;
	int err;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	f = fopen(path, "re");
	if (!f)
		return NULL;
	err = read_kallsyms(f, &r);
	fclose(f);
	if (!err && !r.count)
		/* All zero: kptr_restrict hides the addresses from this user. */
		err = r.zero_addresses ? -EPERM : -ENODATA;
	if (!err) {
		ks = ksyms_from_reader(&r);
		if (!ks)
			err = -ENOMEM;
	}
	free(r.raw);
	strpool_free(&r.pool);
	if (err)
		errno = -err;
	return ks;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->names);
	free(ks);
}

static int compare_addr_to_ksym(const void *key, const void *element)
{
	uint64_t addr = *(const uint64_t *)key;
	const struct ksym *sym = element;

	return addr < sym->addr ? -1 : addr > sym->addr;
}

const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr)
{
	size_t after;

	if (!ks)
		return NULL;
	after = sorted_find_after(&addr, ks->syms, ks->count, sizeof(*ks->syms),
				  compare_addr_to_ksym);
	return after ? &ks->syms[after - 1] : NULL;
}

char *ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t size)
{
	const struct ksym *sym = ksyms_find(ks, addr);

	if (!buf || !size)
		return buf;
	if (!sym)
		snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
	else if (*sym->module)
		snprintf(buf, size, "%s+0x%" PRIx64 " [%s]", sym->name, addr - sym->addr,
			 sym->module);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, sym->name, addr - sym->addr);
	return buf;
}

/* ---- user: trusted files ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}


/* A regular file only root can change (root_only.h). */
static bool is_trusted_file(const struct stat *st, uid_t trusted_uid)
{
	return S_ISREG(st->st_mode) && who_else_can_change(st, trusted_uid) == NOBODY_ELSE;
}

/*
 * open_dirs_only_root_can_change() up to path's last component, which is looked at (not
 * opened) with fstatat and must be a file only root can change.  0 and
 * *parent (the last directory, for the caller to close), *last and *st, or
 * -1.
 */
static int walk_trusted(int dirfd, const char *path, uid_t trusted_uid, int *parent,
			const char **last, struct stat *st)
{
	int fd = open_dirs_only_root_can_change(dirfd, path, trusted_uid, true, last);

	if (fd < 0)
		return -1;
	if (fstatat(fd, *last, st, AT_SYMLINK_NOFOLLOW) || !is_trusted_file(st, trusted_uid)) {
		close(fd);
		return -1;
	}
	*parent = fd;
	return 0;
}

/* Opens for reading the file an O_PATH descriptor holds (not a path that
 * could have changed since): through /proc/self/fd, non-blocking. */
static int reopen_for_reading(int path_fd, const struct stat *expected)
{
	char path[64];
	struct stat st;

	/* What it holds now: a regular file, the one expected (no FIFO, device
	 * or symlink swapped in since it was looked at). */
	if (fstat(path_fd, &st) || !S_ISREG(st.st_mode) || st.st_dev != expected->st_dev ||
	    st.st_ino != expected->st_ino)
		return -1;
	/* The descriptor holds that file: reopening it reaches no other. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", path_fd);
	return open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
}

/* Opens path under root_dir ("/", or a process's root) (a debug file, an
 * executable) if it and every directory above it are ones only root can
 * change, and it is the file expected (when expected is not NULL: same
 * device and inode); -1 otherwise. */
static int open_trusted(const char *root_dir, const char *path, uid_t trusted_uid,
			const struct stat *expected, struct stat *st)
{
	const char *last;
	int root, parent, file, fd = -1;

	if (path[0] != '/')
		return -1;
	root = open(root_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return -1;
	if (walk_trusted(root, path, trusted_uid, &parent, &last, st)) {
		close(root);
		return -1;
	}
	close(root);
	if (!expected || (st->st_dev == expected->st_dev && st->st_ino == expected->st_ino)) {
		file = openat(parent, last, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (file >= 0) {
			fd = reopen_for_reading(file, st);
			close(file);
		}
	}
	close(parent);
	return fd;
}

/* ---- user: the ELF file cache ---- */

/*
 * Limits of the symbolizer's memory besides --stacks-mem (doc/stacks.md).
 * Files are evicted least recently used first when their bytes exceed
 * USYMS_MAX_CACHE_BYTES; files that mappings of a live process still point
 * to are kept.
 */
#define USYMS_MAX_CACHE_BYTES ((size_t)64 << 20)
#define USYMS_MAX_FILES 4096
#define USYMS_MAX_PROCESSES STACK_PROCESSES_ENTRIES
#define USYMS_MAX_MAPPINGS 4096			/* executable mappings a process */
#define USYMS_MAX_ALL_MAPPINGS (1 << 18)	/* of every process kept */
#define USYMS_MAX_STACKS 65536			/* user stacks named at capture */
#define USYMS_NAMES_BYTES ((size_t)16 << 20)	/* their names */
#define USYMS_PID_BUCKETS 1024
#define USYMS_STACK_BUCKETS 4096
#define NO_NAME UINT32_MAX

static const char *const unknown_names[USYM_NR] = {
	[USYM_NAMED] = NULL,
	[USYM_NOT_RECORDED] = "not_recorded",
	[USYM_ANONYMOUS] = "anonymous",
	[USYM_FILE_GONE] = "file_gone",
	[USYM_UNTRUSTED] = "untrusted",
	[USYM_NOT_ELF] = "not_elf",
	[USYM_MALFORMED] = "malformed",
	[USYM_TOO_BIG] = "too_big",
	[USYM_STRIPPED] = "stripped",
	[USYM_NO_SYMBOL] = "no_symbol",
	[USYM_OVER_BUDGET] = "over_budget",
	[USYM_NO_MEMORY] = "no_memory",
};

const char *usym_unknown_name(enum usym_unknown why)
{
	return (unsigned int)why < USYM_NR ? unknown_names[why] : "unknown";
}

static enum usym_unknown unknown_of_status(enum elf_status status)
{
	switch (status) {
	case ELF_OK:
		return USYM_NAMED;
	case ELF_NOT_ELF:
		return USYM_NOT_ELF;
	case ELF_TOO_BIG:
		return USYM_TOO_BIG;
	case ELF_STRIPPED:
		return USYM_STRIPPED;
	case ELF_NO_MEMORY:
		return USYM_NO_MEMORY;
	default:
		return USYM_MALFORMED;
	}
}

/*
 * One file, read once, cached by identity: device, inode, size and mtime
 * (the build id alone proves nothing: anyone can write any build id).  A
 * file that gave no symbols is cached too, with why, so that every process
 * mapping it does not parse it again.
 */
struct elf_file {
	struct elf_file *newer, *older;	/* the LRU list */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	struct elf_symbols *elf;	/* NULL when out of memory */
	struct eh_frame *eh;		/* its .eh_frame, NULL without one */
	enum usym_unknown why;		/* USYM_NAMED when it has symbols */
	bool trusted;			/* only root can change it: names any process... */
	bool public;			/* ...if anyone may read it (a root-only file's
					 * names never go to a process that only claims
					 * its build id) */
	char module[64];		/* its base name when first read */
	uint32_t users;			/* mappings of kept processes */
	size_t bytes;
};

enum mapping_kind {
	MAPPING_FILE,
	MAPPING_SPECIAL,	/* [vdso], [vsyscall]: named, no file to read */
	MAPPING_ANONYMOUS,	/* JIT code and the like */
};

struct mapping {
	uint64_t start, end, offset;
	enum mapping_kind kind;
	struct elf_file *file;		/* NULL: why */
	enum usym_unknown why;
	uint32_t module;		/* in its process's names: the file's base name, or
					 * "[vdso]"; unset if anonymous */
};

/* A process as it was when its mappings were read. */
struct process {
	struct process *next;		/* in its hash bucket */
	uint32_t tgid;
	uint64_t start_ns, exec_id;
	uint64_t used;			/* usyms.clock when last used: the oldest goes first */
	size_t nmappings;
	struct mapping *mappings;	/* sorted by start */
	char *names;			/* the mappings' module names, in one block */
};

static const char *mapping_module(const struct process *p, const struct mapping *m)
{
	return p->names + m->module;
}

/* A user stack's frames, named when the kernel gave them (EVENT_USER_STACK). */
struct named_stack {
	struct named_stack *next;	/* in its hash bucket */
	uint32_t tgid;
	int32_t stack_id;
	uint32_t nframes;
	res_key *names;			/* NO_NAME: "[unknown] 0xADDR" */
	uint8_t *why;			/* enum usym_unknown */
	bool inserted;			/* names[1] is the caller of a frameless frame 0 */
	uint64_t inserted_addr;		/* (the kernel's stack lacks it): its address */
};

struct usyms {
	char *proc_root;
	char *debug_dir;		/* NULL: no separate debug files */
	char *extra_debug_dir;		/* --debug-dir, searched after it */
	uid_t trusted_uid;		/* root, or a test's own user */
	uint64_t mount_ns;		/* diskio's mount namespace (its inode), 0 unknown */
	struct process *processes[USYMS_PID_BUCKETS];
	size_t nprocesses, all_mappings;
	struct elf_file *newest, *oldest;
	size_t nfiles, cache_bytes;
	struct named_stack *stacks[USYMS_STACK_BUCKETS];
	size_t nstacks;
	struct res_table names;
	void *names_buf;
	uint64_t clock;
	uint64_t budget_ns, spent_ns;	/* per interval; 0: no budget */
	uint64_t unknown[USYM_NR];	/* frames named unknown, by why */
	uint64_t recovered;		/* frames inserted by an .eh_frame rule */
};

static uint64_t monotonic_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The inode of PID_DIR/ns/mnt: which mount namespace it is in (0: unknown). */
static uint64_t mount_ns_of(const char *pid_dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (!build_path(path, "%s/ns/mnt", pid_dir) || stat(path, &st))
		return 0;
	return st.st_ino;
}

static bool over_budget(const struct usyms *us)
{
	return us->budget_ns && us->spent_ns >= us->budget_ns;
}

static void charge(struct usyms *us, uint64_t since)
{
	us->spent_ns += monotonic_now() - since;
}

struct usyms *usyms_new(const char *proc_root)
{
	char path[PATH_MAX];
	struct usyms *us;

	if (!proc_root) {
		errno = EINVAL;
		return NULL;
	}
	us = calloc(1, sizeof(*us));
	if (!us)
		return NULL;
	us->proc_root = strdup(proc_root);
	us->debug_dir = strdup(USYMS_DEBUG_DIR);
	us->names_buf = malloc(USYMS_NAMES_BYTES);
	if (!us->proc_root || !us->debug_dir || !us->names_buf ||
	    res_table_init(&us->names, us->names_buf, USYMS_NAMES_BYTES, 16384)) {
		usyms_free(us);
		errno = ENOMEM;
		return NULL;
	}
	if (build_path(path, "%s/self", proc_root))
		us->mount_ns = mount_ns_of(path);
	return us;
}

static int replace_string(char **field, const char *value)
{
	char *copy = NULL;

	if (value && !(copy = strdup(value)))
		return -ENOMEM;
	free(*field);
	*field = copy;
	return 0;
}

int usyms_set_debug_dir(struct usyms *us, const char *dir)
{
	return us ? replace_string(&us->debug_dir, dir) : -EINVAL;
}

int usyms_add_debug_dir(struct usyms *us, const char *dir)
{
	return us ? replace_string(&us->extra_debug_dir, dir) : -EINVAL;
}

void usyms_trust_owner(struct usyms *us, uid_t uid)
{
	if (us)
		us->trusted_uid = uid;
}

void usyms_set_budget(struct usyms *us, uint64_t ns)
{
	if (us)
		us->budget_ns = ns;
}

void usyms_new_interval(struct usyms *us)
{
	if (us)
		us->spent_ns = 0;
}

static void file_unlink(struct usyms *us, struct elf_file *f)
{
	if (f->newer)
		f->newer->older = f->older;
	else
		us->newest = f->older;
	if (f->older)
		f->older->newer = f->newer;
	else
		us->oldest = f->newer;
	f->newer = f->older = NULL;
}

static void file_push_newest(struct usyms *us, struct elf_file *f)
{
	f->older = us->newest;
	f->newer = NULL;
	if (us->newest)
		us->newest->newer = f;
	us->newest = f;
	if (!us->oldest)
		us->oldest = f;
}

static void file_touch(struct usyms *us, struct elf_file *f)
{
	if (us->newest == f)
		return;
	file_unlink(us, f);
	file_push_newest(us, f);
}

static void file_free(struct usyms *us, struct elf_file *f)
{
	file_unlink(us, f);
	us->nfiles--;
	us->cache_bytes -= f->bytes;
	elf_symbols_free(f->elf);
	eh_frame_free(f->eh);
	free(f);
}

/* Room for bytes more: the least recently used files nothing points to go. */
static bool make_room(struct usyms *us, size_t bytes)
{
	struct elf_file *f = us->oldest;

	while (f && (us->cache_bytes + bytes > USYMS_MAX_CACHE_BYTES ||
		     us->nfiles >= USYMS_MAX_FILES)) {
		struct elf_file *newer = f->newer;

		if (!f->users)
			file_free(us, f);
		f = newer;
	}
	return us->cache_bytes + bytes <= USYMS_MAX_CACHE_BYTES && us->nfiles < USYMS_MAX_FILES;
}

static void process_free(struct usyms *us, struct process *p)
{
	for (size_t i = 0; i < p->nmappings; i++) {
		if (p->mappings[i].file)
			p->mappings[i].file->users--;
	}
	us->all_mappings -= p->nmappings;
	free(p->mappings);
	free(p->names);
	free(p);
}

void usyms_free(struct usyms *us)
{
	if (!us)
		return;
	for (size_t i = 0; i < USYMS_PID_BUCKETS; i++) {
		while (us->processes[i]) {
			struct process *p = us->processes[i];

			us->processes[i] = p->next;
			process_free(us, p);
		}
	}
	for (size_t i = 0; i < USYMS_STACK_BUCKETS; i++) {
		while (us->stacks[i]) {
			struct named_stack *s = us->stacks[i];

			us->stacks[i] = s->next;
			free(s);
		}
	}
	while (us->oldest)
		file_free(us, us->oldest);
	free(us->names_buf);
	free(us->proc_root);
	free(us->debug_dir);
	free(us->extra_debug_dir);
	free(us);
}

static bool same_identity(const struct elf_file *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec && f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static struct elf_file *find_file_by_identity(struct usyms *us, const struct stat *st)
{
	for (struct elf_file *f = us->newest; f; f = f->older)
		if (same_identity(f, st))
			return f;
	return NULL;
}

static bool has_build_id(const struct elf_file *f, const unsigned char *id, size_t len)
{
	size_t have;
	const unsigned char *mine = elf_build_id(f->elf, &have);

	return mine && have == len && !memcmp(mine, id, len);
}

/* A separate debug file by build id, as gdb and perf find it
 * (DEBUG_DIR/.build-id/ab/cdef....debug), if only root can change it. */
static int open_debug_file(const struct usyms *us, const unsigned char *id, size_t len,
			   struct stat *st)
{
	const char *dirs[] = { us->debug_dir, us->extra_debug_dir };
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
		fd = open_trusted("/", path, us->trusted_uid, NULL, st);
		/* Names anyone may read: they go to every process of that build id. */
		if (fd >= 0 && (st->st_mode & S_IROTH))
			return fd;
		if (fd >= 0)
			close(fd);
	}
	return -1;
}

bool usyms_trusted_dir(const struct usyms *us, const char *dir)
{
	return us && directory_only_root_can_change(dir, us->trusted_uid);
}

/* A stripped file's .symtab from its debug file (same build id: same addresses). */
static void add_debug_symbols(struct usyms *us, struct elf_file *f)
{
	struct elf_symbols *debug = NULL;
	const unsigned char *id;
	struct stat st;
	size_t len;
	int fd;

	id = elf_build_id(f->elf, &len);
	fd = open_debug_file(us, id, len, &st);
	if (fd < 0)
		return;
	if (elf_symbols_read(fd, (uint64_t)st.st_size, &ELF_LIMITS, ELF_SYMTAB_ONLY, &debug) ==
		    ELF_OK &&
	    has_build_id(&(struct elf_file){ .elf = debug }, id, len)) {
		elf_take_symbols(f->elf, debug);
		f->why = USYM_NAMED;
	}
	elf_symbols_free(debug);
	close(fd);
}

/* Reads the file open on fd into a new cache entry; NULL with *why when it cannot be. */
static struct elf_file *read_file(struct usyms *us, int fd, const struct stat *st,
				  bool trusted, const char *module, enum usym_unknown *why)
{
	struct elf_file *f;
	enum elf_status status;
	uint64_t since = monotonic_now();

	if (over_budget(us)) {
		*why = USYM_OVER_BUDGET;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f) {
		*why = USYM_NO_MEMORY;
		return NULL;
	}
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->size = st->st_size;
	f->mtime = st->st_mtim;
	f->trusted = trusted;
	f->public = st->st_mode & S_IROTH;
	snprintf(f->module, sizeof(f->module), "%s", module);
	status = elf_symbols_read(fd, (uint64_t)st->st_size, &ELF_LIMITS, 0, &f->elf);
	f->why = unknown_of_status(status);
	if (f->why == USYM_NAMED && !elf_has_segments(f->elf))
		f->why = USYM_MALFORMED;
	/* Stripped, or only its exports (.dynsym: libc's local functions
	 * have no name there): its debug file's .symtab, if there is one. */
	if ((f->why == USYM_STRIPPED || (f->why == USYM_NAMED && !elf_has_all_symbols(f->elf))) &&
	    elf_has_segments(f->elf))
		add_debug_symbols(us, f);
	/* Under its own cap (ehframe.h), through the same descriptor. */
	if (f->why != USYM_NOT_ELF && elf_has_segments(f->elf))
		eh_frame_read(fd, (uint64_t)st->st_size, &f->eh);
	f->bytes = sizeof(*f) + elf_symbols_bytes(f->elf) + eh_frame_bytes(f->eh);
	charge(us, since);
	if (!make_room(us, f->bytes)) {
		elf_symbols_free(f->elf);
		eh_frame_free(f->eh);
		free(f);
		*why = USYM_OVER_BUDGET;
		return NULL;
	}
	file_push_newest(us, f);
	us->nfiles++;
	us->cache_bytes += f->bytes;
	return f;
}

/* ---- user: processes ---- */

struct maps_line {
	uint64_t start, end, offset, inode;
	uint32_t major, minor;
	bool executable;
	const char *path;	/* "" for an anonymous mapping */
	bool deleted;		/* the path had " (deleted)", now cut off */
};

/* "START-END PERMS OFFSET MAJ:MIN INODE [PATH]"; false for anything else. */
static bool parse_maps_line(char *line, struct maps_line *out)
{
	static const char deleted[] = " (deleted)";
	const char *s = line;
	uint64_t major, minor;
	size_t len;

	if (!scan_hex(&s, &out->start) || !scan_char(&s, '-') ||
	    !scan_hex(&s, &out->end) || out->end <= out->start || !scan_char(&s, ' '))
		return false;
	if (strnlen(s, 4) < 4 || s[4] != ' ')
		return false;
	out->executable = s[2] == 'x';
	s += 5;
	if (!scan_hex(&s, &out->offset) || !scan_char(&s, ' ') ||
	    !scan_hex(&s, &major) || !scan_char(&s, ':') || !scan_hex(&s, &minor) ||
	    !scan_char(&s, ' ') || !scan_decimal(&s, &out->inode) || major > UINT32_MAX ||
	    minor > UINT32_MAX)
		return false;
	out->major = (uint32_t)major;
	out->minor = (uint32_t)minor;
	if (*s && *s != ' ')
		return false;
	scan_blanks(&s);
	out->path = s;
	len = strlen(s);
	out->deleted = len > sizeof(deleted) - 1 &&
		       !strcmp(s + len - (sizeof(deleted) - 1), deleted);
	if (out->deleted)
		line[s - line + len - (sizeof(deleted) - 1)] = '\0';
	return true;
}

/*
 * The file st describes is the one a maps line names: same inode, same
 * device.  Anonymous devices (major 0: btrfs subvolumes, overlayfs) can
 * show another number in maps than stat gives: the inode decides there.
 */
static bool is_mapped_file(const struct stat *st, const struct maps_line *l)
{
	if (!S_ISREG(st->st_mode) || (uint64_t)st->st_ino != l->inode)
		return false;
	if (major(st->st_dev) == l->major && minor(st->st_dev) == l->minor)
		return true;
	return major(st->st_dev) == 0 && l->major == 0;
}

/* How many mapped files are opened at once while the process may exit. */
#define EARLY_OPENS 256

/*
 * The file a mapping maps, through the mapping itself (PID_DIR/map_files/:
 * what the process has, deleted or replaced at its path or not, in
 * whatever mount namespace), opened O_PATH: no open of a device or FIFO,
 * and a descriptor that outlives the process.  Never by the path in the
 * maps line: its owner may have swapped it.
 */
static int open_mapping_path(const char *pid_dir, const struct maps_line *l)
{
	char path[PATH_MAX];

	if (!build_path(path, "%s/map_files/%" PRIx64 "-%" PRIx64, pid_dir, l->start, l->end))
		return -1;
	return open(path, O_PATH | O_CLOEXEC);
}

/* Whether only root can change the file at path in the process's mount
 * namespace (st: the file mapped, which must be the one found there). */
static bool trusted_in_process(const struct usyms *us, const char *pid_dir, const char *path,
			       const struct stat *st)
{
	char root_path[PATH_MAX];
	struct stat found;
	const char *last;
	int root, parent;
	bool trusted = false;

	if (!is_trusted_file(st, us->trusted_uid) || path[0] != '/' ||
	    !build_path(root_path, "%s/root", pid_dir))
		return false;
	root = open(root_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return false;
	if (!walk_trusted(root, path, us->trusted_uid, &parent, &last, &found)) {
		trusted = found.st_dev == st->st_dev && found.st_ino == st->st_ino;
		close(parent);
	}
	close(root);
	return trusted;
}

/* The cache entry of the file path_fd holds, checked against its maps line
 * and read now if new; NULL with *why. */
static struct elf_file *mapped_file(struct usyms *us, const char *pid_dir, int path_fd,
				    const struct maps_line *l, enum usym_unknown *why)
{
	struct elf_file *f;
	struct stat st;
	int fd;

	*why = USYM_FILE_GONE;
	if (path_fd < 0 || fstat(path_fd, &st) || !is_mapped_file(&st, l))
		return NULL;
	f = find_file_by_identity(us, &st);
	if (f) {
		file_touch(us, f);
		return f;
	}
	fd = reopen_for_reading(path_fd, &st);
	if (fd < 0)
		return NULL;
	f = read_file(us, fd, &st,
		      !l->deleted && trusted_in_process(us, pid_dir, l->path, &st),
		      base_name(l->path), why);
	close(fd);
	return f;
}

static bool is_special_mapping(const char *path)
{
	return !strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]");
}

static bool same_file_line(const struct maps_line *a, const struct maps_line *b)
{
	return a->inode == b->inode && a->major == b->major && a->minor == b->minor &&
	       !strcmp(a->path, b->path);
}

static int compare_mappings(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* The whole of PID_DIR/maps at once (the process may exit any moment),
 * up to MAPS_MAX bytes. */
#define MAPS_MAX ((size_t)16 << 20)

static char *read_maps_text(const char *pid_dir)
{
	char path[PATH_MAX], *text = NULL;
	size_t len = 0, cap = 0;
	int fd;

	if (!build_path(path, "%s/maps", pid_dir)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n;

		/* Room to read a page at least, and for the NUL. */
		if (cap - len < 4096 &&
		    array_reserve_max((void **)&text, &cap, len + 4096, MAPS_MAX + 1, 1))
			break;
		n = read(fd, text + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (text)
		text[len] = '\0';
	else
		errno = ENOMEM;
	return text;
}

/*
 * A process's executable mappings from its maps text: first every mapped
 * file is opened O_PATH (fast: what races the process's exit), then each is
 * checked and read.
 */
static int read_mappings(struct usyms *us, const char *pid_dir, char *text, struct process *p)
{
	struct maps_line *lines = NULL;
	struct strpool names = { 0 };
	int *path_fds = NULL;
	size_t n = 0, lines_cap = 0, fds_cap = 0, opened = 0;
	int err = 0;

	for (char *line = text, *next; line && *line; line = next) {
		struct maps_line l;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_maps_line(line, &l) || !l.executable)
			continue;
		if (n == USYMS_MAX_MAPPINGS || us->all_mappings + n >= USYMS_MAX_ALL_MAPPINGS)
			break;
		if (array_reserve((void **)&lines, &lines_cap, n + 1, sizeof(*lines)) ||
		    array_reserve((void **)&path_fds, &fds_cap, n + 1, sizeof(*path_fds))) {
			err = -ENOMEM;
			break;
		}
		lines[n] = l;
		path_fds[n] = -1;
		/* Mappings of one file come in runs: one descriptor a run. */
		if (l.path[0] == '/' && (!n || !same_file_line(&lines[n - 1], &l)) &&
		    opened < EARLY_OPENS) {
			path_fds[n] = open_mapping_path(pid_dir, &l);
			opened += path_fds[n] >= 0;
		}
		n++;
	}
	if (!err && n) {
		p->mappings = calloc(n, sizeof(*p->mappings));
		if (!p->mappings)
			err = -ENOMEM;
	}
	for (size_t i = 0; i < n && !err; i++) {
		const struct maps_line *l = &lines[i];
		struct mapping *m = &p->mappings[p->nmappings];

		*m = (struct mapping){ .start = l->start, .end = l->end, .offset = l->offset };
		if (l->path[0] == '/') {
			m->kind = MAPPING_FILE;
			if (i && same_file_line(&lines[i - 1], l) && p->nmappings &&
			    m[-1].kind == MAPPING_FILE) {
				m->file = m[-1].file;
				m->why = m[-1].why;
			} else {
				if (path_fds[i] < 0)
					path_fds[i] = open_mapping_path(pid_dir, l);
				m->file = mapped_file(us, pid_dir, path_fds[i], l, &m->why);
			}
			if (m->file) {
				m->file->users++;
				m->why = m->file->why;
			}
			/* One copy of a name a run of mappings: a process may map
			 * one file thousands of times. */
			if (i && same_file_line(&lines[i - 1], l) && p->nmappings)
				m->module = m[-1].module;
			else if (!strpool_add(&names, base_name(l->path), strlen(base_name(l->path)),
					   &m->module))
				err = -ENOMEM;
		} else if (is_special_mapping(l->path)) {
			m->kind = MAPPING_SPECIAL;
			if (!strpool_add(&names, l->path, strlen(l->path), &m->module))
				err = -ENOMEM;
		} else {
			/* Anonymous, [heap], [stack], memfd:... without a path: nothing to read. */
			m->kind = MAPPING_ANONYMOUS;
			m->why = USYM_ANONYMOUS;
		}
		p->nmappings++;
	}
	p->names = strpool_take(&names);
	for (size_t i = 0; i < n; i++)
		if (path_fds[i] >= 0)
			close(path_fds[i]);
	free(lines);
	free(path_fds);
	us->all_mappings += p->nmappings;
	/* The kernel lists mappings in order; a fake file need not. */
	if (p->nmappings)
		qsort(p->mappings, p->nmappings, sizeof(*p->mappings), compare_mappings);
	return err;
}

static struct process **process_slot(struct usyms *us, uint32_t tgid)
{
	struct process **slot = &us->processes[tgid % USYMS_PID_BUCKETS];

	while (*slot && (*slot)->tgid != tgid)
		slot = &(*slot)->next;
	return slot;
}

static void forget_process(struct usyms *us, struct process **slot)
{
	struct process *p = *slot;

	*slot = p->next;
	us->nprocesses--;
	process_free(us, p);
}

void usyms_forget_pid(struct usyms *us, uint32_t tgid)
{
	struct process **slot;

	if (!us)
		return;
	slot = process_slot(us, tgid);
	if (*slot)
		forget_process(us, slot);
}

void usyms_process_exited(struct usyms *us, uint32_t tgid, uint64_t start_ns)
{
	struct process **slot;

	if (!us)
		return;
	slot = process_slot(us, tgid);
	if (*slot && (*slot)->start_ns == start_ns)
		forget_process(us, slot);
}

/* The least recently used process goes (its exit was not seen). */
static void forget_oldest_process(struct usyms *us)
{
	struct process **oldest = NULL;

	for (size_t i = 0; i < USYMS_PID_BUCKETS; i++)
		for (struct process **slot = &us->processes[i]; *slot; slot = &(*slot)->next)
			if (!oldest || (*slot)->used < (*oldest)->used)
				oldest = slot;
	if (oldest)
		forget_process(us, oldest);
}

/* Reads PID_DIR/maps ("/proc/123", "/proc/self") and the files mapped. */
static int read_process(struct usyms *us, uint32_t tgid, const char *pid_dir,
			uint64_t start_ns, uint64_t exec_id, struct process **out)
{
	struct process *p;
	uint64_t since;
	char *text;
	int err;

	if (over_budget(us))
		return -EAGAIN;
	since = monotonic_now();
	text = read_maps_text(pid_dir);
	if (!text)
		return -errno;
	p = calloc(1, sizeof(*p));
	if (!p) {
		free(text);
		return -ENOMEM;
	}
	p->tgid = tgid;
	p->start_ns = start_ns;
	p->exec_id = exec_id;
	p->used = ++us->clock;
	err = read_mappings(us, pid_dir, text, p);
	free(text);
	charge(us, since);
	if (err) {
		process_free(us, p);
		return err;
	}
	*out = p;
	return 0;
}

int usyms_add_process(struct usyms *us, uint32_t tgid, uint64_t start_ns, uint64_t exec_id)
{
	struct process **slot, *p;
	char path[PATH_MAX];
	int err;

	if (!us)
		return -EINVAL;
	slot = process_slot(us, tgid);
	if (*slot) {
		if ((*slot)->start_ns == start_ns && (*slot)->exec_id == exec_id) {
			(*slot)->used = ++us->clock;
			return 0;
		}
		/* Another process with the pid, or another program after exec(). */
		forget_process(us, slot);
	}
	while (us->nprocesses >= USYMS_MAX_PROCESSES ||
	       (us->nprocesses && us->all_mappings >= USYMS_MAX_ALL_MAPPINGS - USYMS_MAX_MAPPINGS))
		forget_oldest_process(us);
	if (!build_path(path, "%s/%u", us->proc_root, tgid))
		return -ENAMETOOLONG;
	err = read_process(us, tgid, path, start_ns, exec_id, &p);
	if (err)
		return err;
	slot = process_slot(us, tgid);
	p->next = *slot;
	*slot = p;
	us->nprocesses++;
	return 0;
}

int usyms_add_pid(struct usyms *us, uint32_t tgid)
{
	return usyms_add_process(us, tgid, 0, 0);
}

static int compare_addr_to_mapping(const void *key, const void *element)
{
	uint64_t addr = *(const uint64_t *)key;
	const struct mapping *m = element;

	return addr < m->start ? -1 : addr > m->start;
}

/* The mapping holding addr: the last to start at or below it, if it ends above. */
static const struct mapping *find_mapping(const struct process *p, uint64_t addr)
{
	size_t after = sorted_find_after(&addr, p->mappings, p->nmappings, sizeof(*p->mappings),
					 compare_addr_to_mapping);

	if (!after || addr >= p->mappings[after - 1].end)
		return NULL;
	return &p->mappings[after - 1];
}

/* "function+0xoff", or "[unknown] module+0xoff" and *why, for offset in m's file. */
static enum usym_unknown name_in_file(const struct elf_file *file, enum usym_unknown file_why,
				      const char *module, uint64_t offset, char *buf,
				      size_t size)
{
	const char *name = NULL;
	uint64_t into = 0;

	if (file && file->why == USYM_NAMED)
		name = elf_symbol_at(file->elf, offset, &into);
	if (name) {
		snprintf(buf, size, "%s+0x%" PRIx64, name, into);
		return USYM_NAMED;
	}
	snprintf(buf, size, "[unknown] %s+0x%" PRIx64, module, offset);
	if (!file)
		return file_why ? file_why : USYM_FILE_GONE;
	return file->why == USYM_NAMED ? USYM_NO_SYMBOL : file->why;
}

static enum usym_unknown name_by_mapping(const struct process *p, uint64_t addr, char *buf,
					 size_t size)
{
	const struct mapping *m = p ? find_mapping(p, addr) : NULL;

	if (!m || m->kind == MAPPING_ANONYMOUS) {
		snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
		return m ? USYM_ANONYMOUS : USYM_NOT_RECORDED;
	}
	if (m->kind == MAPPING_SPECIAL) {
		snprintf(buf, size, "%s+0x%" PRIx64, mapping_module(p, m), addr - m->start);
		return USYM_NAMED;
	}
	return name_in_file(m->file, m->why, mapping_module(p, m), addr - m->start + m->offset,
			    buf, size);
}

char *usyms_format(struct usyms *us, uint32_t tgid, uint64_t addr, char *buf, size_t size)
{
	return usyms_format_why(us, tgid, addr, buf, size, NULL);
}

char *usyms_format_why(struct usyms *us, uint32_t tgid, uint64_t addr, char *buf, size_t size,
		       enum usym_unknown *why)
{
	enum usym_unknown w;

	if (!buf || !size)
		return buf;
	w = name_by_mapping(us ? *process_slot(us, tgid) : NULL, addr, buf, size);
	if (why)
		*why = w;
	return buf;
}

/* ---- user: stacks named at capture ---- */

void usyms_add_own_files(struct usyms *us)
{
	struct process *self = NULL;
	char path[PATH_MAX];

	if (!us || !build_path(path, "%s/self", us->proc_root))
		return;
	if (!read_process(us, 0, path, 0, 0, &self))
		process_free(us, self);	/* the files stay cached, trusted or not */
}

/* The file with this build id that may name p's frames: one p mapped, else
 * one only root can change (seen mapped by anyone, or a debug file). */
static struct elf_file *file_by_build_id(struct usyms *us, const struct process *p,
					 const unsigned char *id, size_t len, const char **module,
					 enum usym_unknown *why)
{
	struct elf_file *f;
	struct stat st;
	int fd;

	*module = NULL;
	for (size_t i = 0; p && i < p->nmappings; i++) {
		const struct mapping *m = &p->mappings[i];

		if (m->file && has_build_id(m->file, id, len)) {
			*module = mapping_module(p, m);
			return m->file;
		}
	}
	*why = USYM_FILE_GONE;
	for (f = us->newest; f; f = f->older) {
		if (!has_build_id(f, id, len))
			continue;
		if (f->trusted && f->public) {
			file_touch(us, f);
			*module = f->module;
			return f;
		}
		*why = USYM_UNTRUSTED;
	}
	fd = open_debug_file(us, id, len, &st);
	if (fd < 0)
		return NULL;
	f = find_file_by_identity(us, &st);
	if (!f)
		f = read_file(us, fd, &st, true, "[debug file]", why);
	close(fd);
	if (!f || !has_build_id(f, id, len) || !f->public)
		return NULL;
	*module = f->module;
	return f;
}

static void add_exe_by_path(struct usyms *us, const struct user_stack_event *event);

/* Frame i of event, in process p's mappings (NULL: gone); *exe_tried: the
 * executable was looked for by path already, for an earlier frame. */
static enum usym_unknown name_frame(struct usyms *us, const struct process *p,
				    const struct user_stack_event *event, uint32_t i,
				    bool *exe_tried, char *buf, size_t size)
{
	const struct stack_frame_id *frame = &event->frames[i];
	enum usym_unknown why = USYM_FILE_GONE;
	const char *module;
	struct elf_file *f;

	if (frame->status == STACK_FRAME_IP)
		return name_by_mapping(p, frame->offset, buf, size);
	if (frame->status != STACK_FRAME_BUILD_ID)
		return USYM_NOT_RECORDED;
	f = file_by_build_id(us, p, frame->build_id, STACK_BUILD_ID_SIZE, &module, &why);
	/* Its maps read too late (empty: the process was exiting), or not
	 * at all: the executable by the path the kernel gave, once. */
	if (!f && !*exe_tried) {
		*exe_tried = true;
		add_exe_by_path(us, event);
		f = file_by_build_id(us, p, frame->build_id, STACK_BUILD_ID_SIZE, &module, &why);
	}
	if (!f) {
		buf[0] = '\0';
		return why;
	}
	return name_in_file(f, why, module, frame->offset, buf, size);
}

/* The file and file offset of frame i of event (NULL: unknown). */
static struct elf_file *frame_file(struct usyms *us, const struct process *p,
				   const struct user_stack_event *event, uint32_t i,
				   uint64_t *offset)
{
	const struct stack_frame_id *frame = &event->frames[i];
	enum usym_unknown why;
	const char *module;

	if (frame->status == STACK_FRAME_IP) {
		const struct mapping *m = p ? find_mapping(p, frame->offset) : NULL;

		if (!m || m->kind != MAPPING_FILE || !m->file)
			return NULL;
		*offset = frame->offset - m->start + m->offset;
		return m->file;
	}
	if (frame->status != STACK_FRAME_BUILD_ID)
		return NULL;
	*offset = frame->offset;
	return file_by_build_id(us, p, frame->build_id, STACK_BUILD_ID_SIZE, &module, &why);
}

/*
 * The caller of frame 0 when frame 0 kept no frame of its own, which the
 * frame pointer walk skips: the return address its .eh_frame rule places
 * in the stack bytes the kernel copied, if the CFA is the stack pointer
 * plus an offset (rbp-based: the function has a frame, the walk was right)
 * and the word is within the bytes copied, and not frame 1 already.  With
 * the process's mappings it must lie in an executable mapping.
 */
static bool recover_caller(struct usyms *us, const struct process *p,
			   const struct user_stack_event *event, uint64_t *ra)
{
	struct elf_file *f;
	struct eh_rule rule;
	uint64_t offset, vaddr;
	int64_t at;
	bool exec;

	if (!event->nframes || !event->user_sp || event->stack_len != USER_STACK_BYTES)
		return false;
	f = frame_file(us, p, event, 0, &offset);
	if (!f || !f->eh || !elf_offset_vaddr(f->elf, offset, &vaddr, &exec) || !exec ||
	    eh_frame_rule(f->eh, vaddr, &rule) != EH_OK || rule.cfa_reg != EH_REG_RSP ||
	    __builtin_add_overflow(rule.cfa_offset, rule.ra_offset, &at) || at < 0 ||
	    at > (int64_t)USER_STACK_BYTES - 8)
		return false;
	memcpy(ra, event->stack_bytes + at, sizeof(*ra));
	if (!*ra || *ra == event->user_ret)
		return false;
	/* Mappings read too late are empty (the process was exiting). */
	if (p && p->nmappings) {
		const struct mapping *m = find_mapping(p, *ra);

		return m && m->kind != MAPPING_ANONYMOUS;
	}
	return true;
}

/* The name of the recovered frame at ra: by the process's mappings, else
 * in frame 1's file if ra falls in an executable segment of it (frame 1's
 * address, event->user_ret, less its file offset places that file). */
static enum usym_unknown name_recovered(struct usyms *us, const struct process *p,
					const struct user_stack_event *event, uint64_t ra,
					char *buf, size_t size)
{
	const struct stack_frame_id *next = &event->frames[1];
	enum usym_unknown why = USYM_NOT_RECORDED;
	const char *module;
	struct elf_file *f;
	uint64_t offset, vaddr;
	bool exec;

	if (p && find_mapping(p, ra))
		return name_by_mapping(p, ra, buf, size);
	snprintf(buf, size, "[unknown] 0x%" PRIx64, ra);
	if (event->nframes < 2 || next->status != STACK_FRAME_BUILD_ID || !event->user_ret ||
	    event->user_ret < next->offset)
		return why;
	f = file_by_build_id(us, p, next->build_id, STACK_BUILD_ID_SIZE, &module, &why);
	if (!f)
		return why;
	offset = ra - (event->user_ret - next->offset);
	if (!elf_offset_vaddr(f->elf, offset, &vaddr, &exec) || !exec)
		return USYM_NOT_RECORDED;
	return name_in_file(f, why, module, offset, buf, size);
}

static struct named_stack **stack_slot(struct usyms *us, uint32_t tgid, int32_t stack_id)
{
	struct named_stack **slot =
		&us->stacks[(tgid * 31u + (uint32_t)stack_id) % USYMS_STACK_BUCKETS];

	while (*slot && ((*slot)->tgid != tgid || (*slot)->stack_id != stack_id))
		slot = &(*slot)->next;
	return slot;
}

/*
 * The executable of a process that is gone, by the path the kernel gave,
 * in the process's mount namespace: diskio's own when it is the same, else
 * through its parent's root when the parent lives there.  Only a file that
 * is the one the process ran (device and inode from the kernel) and that
 * only root can change, in directories only root can change, walked
 * without following a symlink: cached as trusted, to be found by build id.
 */
static void add_exe_by_path(struct usyms *us, const struct user_stack_event *event)
{
	char path[PATH_MAX], root_path[PATH_MAX];
	struct stat expected = { 0 }, st;
	size_t len = 0;
	int fd;

	if (!event->exe_depth || event->exe_depth > EXE_PATH_DEPTH || !event->mnt_ns)
		return;
	for (uint32_t i = event->exe_depth; i-- > 0;) {
		const char *name = event->exe_names[i];
		size_t n = strnlen(name, EXE_NAME_LEN);

		if (!n)
			continue;	/* a mount point crossed */
		/* A name cut at EXE_NAME_LEN, or with a '/', is no path. */
		if (n >= EXE_NAME_LEN - 1 || memchr(name, '/', n) || len + n + 2 > sizeof(path))
			return;
		path[len++] = '/';
		memcpy(path + len, name, n);
		len += n;
	}
	path[len] = '\0';
	expected.st_dev = makedev(event->exe_dev >> 20, event->exe_dev & 0xfffff);
	expected.st_ino = (ino_t)event->exe_ino;
	if (event->mnt_ns == us->mount_ns) {
		snprintf(root_path, sizeof(root_path), "/");
	} else {
		char parent_dir[PATH_MAX];

		if (!event->parent_tgid ||
		    !build_path(parent_dir, "%s/%u", us->proc_root, event->parent_tgid) ||
		    mount_ns_of(parent_dir) != event->mnt_ns ||
		    !build_path(root_path, "%s/root", parent_dir))
			return;
	}
	fd = open_trusted(root_path, path, us->trusted_uid, &expected, &st);
	if (fd < 0)
		return;
	if (!find_file_by_identity(us, &st)) {
		enum usym_unknown why;

		read_file(us, fd, &st, true, base_name(path), &why);
	}
	close(fd);
}

/* Name at of stack s is name (empty: none), found or not for why. */
static void store_name(struct usyms *us, struct named_stack *s, uint32_t at, bool over,
		       enum usym_unknown why, const char *name)
{
	/* Not found where the process was not read for want of time. */
	if (over && (why == USYM_FILE_GONE || why == USYM_NOT_RECORDED))
		why = USYM_OVER_BUDGET;
	if (!name[0]) {
		s->names[at] = NO_NAME;
	} else if (res_intern_str(&us->names, name, &s->names[at])) {
		/* The table of names is full: USYMS_NAMES_BYTES. */
		s->names[at] = NO_NAME;
		why = USYM_OVER_BUDGET;
	}
	s->why[at] = (uint8_t)why;
	if (why != USYM_NAMED)
		us->unknown[why]++;
}

int usyms_add_stack(struct usyms *us, const struct user_stack_event *event)
{
	struct named_stack **slot, *s;
	const struct process *p;
	char name[USYMS_NAME_MAX];
	bool exe_tried = false, over, inserted;
	uint32_t nframes, named;
	uint64_t ra = 0;

	if (!us || !event)
		return -EINVAL;
	nframes = event->nframes < STACK_MAX_FRAMES ? event->nframes : STACK_MAX_FRAMES;
	/* Read the process now, while it may still live; gone, its frames
	 * are named by build id from files only root can change. */
	over = usyms_add_process(us, event->tgid, event->start_ns, event->exec_id) == -EAGAIN;
	p = *process_slot(us, event->tgid);
	if (p && (p->start_ns != event->start_ns || p->exec_id != event->exec_id))
		p = NULL;
	inserted = nframes && recover_caller(us, p, event, &ra);
	slot = stack_slot(us, event->tgid, event->user_stack);
	if (*slot) {
		s = *slot;
		*slot = s->next;
		free(s);
		us->nstacks--;
	}
	if (us->nstacks >= USYMS_MAX_STACKS)
		return -ENOSPC;
	named = nframes + inserted;
	s = calloc(1, sizeof(*s) + named * (sizeof(res_key) + 1));
	if (!s)
		return -ENOMEM;
	s->tgid = event->tgid;
	s->stack_id = event->user_stack;
	s->nframes = named;
	s->names = (res_key *)(s + 1);
	s->why = (uint8_t *)(s->names + named);
	s->inserted = inserted;
	s->inserted_addr = ra;
	if (inserted)
		us->recovered++;
	/* The event's frames first (the executable may be looked for by path
	 * on the way), then the recovered caller, which goes between frames 0
	 * and 1: the kernel's frame i is then name i + 1 from 1 on. */
	for (uint32_t i = 0; i < nframes; i++)
		store_name(us, s, inserted && i ? i + 1 : i, over,
			   name_frame(us, p, event, i, &exe_tried, name, sizeof(name)), name);
	if (inserted)
		store_name(us, s, 1, over, name_recovered(us, p, event, ra, name, sizeof(name)),
			   name);
	slot = stack_slot(us, event->tgid, event->user_stack);
	s->next = *slot;
	*slot = s;
	us->nstacks++;
	return 0;
}

char *usyms_frame(struct usyms *us, uint32_t tgid, int32_t stack_id, uint32_t index,
		  uint64_t addr, char *buf, size_t size, enum usym_unknown *why)
{
	const struct named_stack *s;
	enum usym_unknown w;
	const char *name;

	if (!buf || !size)
		return buf;
	s = us ? *stack_slot(us, tgid, stack_id) : NULL;
	if (!s || index >= s->nframes) {
		usyms_format_why(us, tgid, addr, buf, size, &w);
	} else {
		w = s->why[index];
		name = s->names[index] == NO_NAME ? NULL :
		       res_lookup(&us->names, s->names[index], NULL);
		if (name)
			snprintf(buf, size, "%s", name);
		else
			snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
	}
	if (why)
		*why = w;
	return buf;
}

void usyms_stats(const struct usyms *us, struct usyms_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!us)
		return;
	out->files = us->nfiles;
	out->cache_bytes = us->cache_bytes;
	out->processes = us->nprocesses;
	out->stacks = us->nstacks;
	memcpy(out->unknown, us->unknown, sizeof(out->unknown));
	out->recovered = us->recovered;
}

bool usyms_inserted_frame(struct usyms *us, uint32_t tgid, int32_t stack_id, uint64_t *addr)
{
	const struct named_stack *s = us ? *stack_slot(us, tgid, stack_id) : NULL;

	if (!s || !s->inserted)
		return false;
	*addr = s->inserted_addr;
	return true;
}

/* ---- the symbolizer the views are handed: kernel and user frames ---- */

struct symbolizer {
	struct ksyms *ksyms;	/* NULL: kernel frames print as addresses */
	struct usyms *usyms;	/* NULL without user stacks */
	struct stack_namer namer;
};

static char *name_kernel_frame(void *ctx, uint64_t addr, char *buf, size_t size)
{
	const struct symbolizer *sym = ctx;

	if (!sym->ksyms) {
		snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
		return buf;
	}
	return ksyms_format(sym->ksyms, addr, buf, size);
}

static char *name_user_frame(void *ctx, const struct user_frame *frame, char *buf, size_t size,
			     const char **unknown)
{
	const struct symbolizer *sym = ctx;
	enum usym_unknown why;

	usyms_frame(sym->usyms, frame->tgid, frame->stack_id, frame->index, frame->addr, buf, size,
		    &why);
	*unknown = usym_unknown_name(why);
	return buf;
}

static bool user_inserted(void *ctx, uint32_t tgid, int32_t stack_id, uint64_t *addr)
{
	const struct symbolizer *sym = ctx;

	return usyms_inserted_frame(sym->usyms, tgid, stack_id, addr);
}

static uint64_t frames_recovered(void *ctx)
{
	const struct symbolizer *sym = ctx;

	return sym->usyms ? sym->usyms->recovered : 0;
}

struct symbolizer *symbolizer_new(const struct symbolizer_options *o,
				  void (*warn)(const char *fmt, ...))
{
	struct symbolizer *sym = calloc(1, sizeof(*sym));

	if (!sym)
		return NULL;
	sym->namer = (struct stack_namer){
		.kernel = name_kernel_frame,
		.user = name_user_frame,
		.user_inserted = user_inserted,
		.frames_recovered = frames_recovered,
		.ctx = sym,
		.top = o->top,
	};
	if (o->kernel) {
		sym->ksyms = ksyms_load(o->kallsyms);
		if (!sym->ksyms)
			warn("cannot read kernel symbols from %s: %s; kernel frames are shown as "
			     "addresses", o->kallsyms, strerror(errno));
	}
	if (!o->user)
		return sym;
	sym->usyms = usyms_new(o->proc_root);
	if (!sym->usyms || (o->debug_dir && usyms_add_debug_dir(sym->usyms, o->debug_dir))) {
		symbolizer_free(sym);
		return NULL;
	}
	if (o->debug_dir && !usyms_trusted_dir(sym->usyms, o->debug_dir))
		warn("--debug-dir %s: a directory other users can change (or a path through a "
		     "symlink): its debug files are not used", o->debug_dir);
	usyms_add_own_files(sym->usyms);
	usyms_set_budget(sym->usyms, o->budget_ns);
	return sym;
}

void symbolizer_free(struct symbolizer *sym)
{
	if (!sym)
		return;
	ksyms_free(sym->ksyms);
	usyms_free(sym->usyms);
	free(sym);
}

struct stack_namer *symbolizer_namer(struct symbolizer *sym)
{
	return sym ? &sym->namer : NULL;
}

void symbolizer_user_stack(struct symbolizer *sym, const struct user_stack_event *event)
{
	if (sym && sym->usyms)
		usyms_add_stack(sym->usyms, event);
}

void symbolizer_process_exited(struct symbolizer *sym, uint32_t tgid, uint64_t start_ns)
{
	if (sym)
		usyms_process_exited(sym->usyms, tgid, start_ns);
}

void symbolizer_new_interval(struct symbolizer *sym)
{
	if (sym)
		usyms_new_interval(sym->usyms);
}
