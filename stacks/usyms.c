// SPDX-License-Identifier: GPL-2.0
/*
 * Names of user stack frames (usyms.h).
 *
 * diskio runs as root and reads files other users wrote, so it trusts
 * nothing a user can change (doc/stacks.md).  The kernel gives each new
 * user stack as build ids and file offsets at the I/O (EVENT_USER_STACK),
 * so that a process that exits at once can still be named: its frames are
 * named then, from the files the process itself mapped (read through
 * /proc/PID/map_files/ and checked against the maps line:
 * trusted_files.h), or, when it is gone, from a file with that build id
 * that only root can change (one diskio itself or another process mapped,
 * its executable by the path the kernel gave, or a debug file).  The
 * files are kept in elf_cache.h's cache; a process's mappings until it
 * exits (EVENT_STACK_PROCESS_EXIT); the names of each stack, interned, for
 * the whole run.  Each interval's work has a time budget, and what cannot
 * be named says why.
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
#include "elf_cache.h"
#include "elfsyms.h"
#include "path.h"
#include "resources.h"
#include "root_only.h"
#include "scan.h"
#include "sorted.h"
#include "strpool.h"
#include "trusted_files.h"
#include "usyms.h"

/*
 * Limits of the symbolizer's memory besides --stacks-mem and the ELF
 * files' (elf_cache.h), in doc/stacks.md.
 */
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
	uint64_t mount_ns;		/* diskio's mount namespace (its inode), 0 unknown */
	struct process *processes[USYMS_PID_BUCKETS];
	size_t nprocesses, all_mappings;
	struct elf_cache files;		/* its trusted_uid: root's, or a test's own user */
	struct named_stack *stacks[USYMS_STACK_BUCKETS];
	size_t nstacks;
	struct res_table names;
	void *names_buf;
	uint64_t clock;
	uint64_t budget_ns, spent_ns;	/* per interval; 0: no budget */
	uint64_t unknown[USYM_NR];	/* frames named unknown, by why */
	uint64_t recovered;		/* frames inserted by an .eh_frame rule */
};

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

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
	us->names_buf = malloc(USYMS_NAMES_BYTES);
	if (!us->proc_root || elf_cache_init(&us->files, USYMS_DEBUG_DIR) || !us->names_buf ||
	    res_table_init(&us->names, us->names_buf, USYMS_NAMES_BYTES, 16384)) {
		usyms_free(us);
		errno = ENOMEM;
		return NULL;
	}
	if (build_path(path, "%s/self", proc_root))
		us->mount_ns = mount_ns_of(path);
	return us;
}

int usyms_set_debug_dir(struct usyms *us, const char *dir)
{
	return us ? elf_cache_set_debug_dir(&us->files, dir) : -EINVAL;
}

int usyms_add_debug_dir(struct usyms *us, const char *dir)
{
	return us ? elf_cache_set_extra_debug_dir(&us->files, dir) : -EINVAL;
}

void usyms_trust_owner(struct usyms *us, uid_t uid)
{
	if (us)
		us->files.trusted_uid = uid;
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
	elf_cache_free(&us->files);
	free(us->names_buf);
	free(us->proc_root);
	free(us);
}

bool usyms_trusted_dir(const struct usyms *us, const char *dir)
{
	return us && directory_only_root_can_change(dir, us->files.trusted_uid);
}

/* Why a frame in f is unknown, as far as the file says. */
static enum usym_unknown why_of_file(const struct elf_file *f)
{
	return unknown_of_status(f->status);
}

/*
 * The file open on fd read into the cache, within the interval's time:
 * NULL with *why (USYM_OVER_BUDGET when the time or the cache's room is
 * used up).
 */
static struct elf_file *read_file(struct usyms *us, int fd, const struct stat *st,
				  bool trusted, const char *module, enum usym_unknown *why)
{
	struct elf_file *f = NULL;
	uint64_t since;
	int err;

	if (over_budget(us)) {
		*why = USYM_OVER_BUDGET;
		return NULL;
	}
	since = monotonic_now();
	err = elf_cache_add(&us->files, fd, st, trusted, module, &f);
	charge(us, since);
	if (err)
		*why = err == -ENOMEM ? USYM_NO_MEMORY : USYM_OVER_BUDGET;
	return f;
}

/* ---- processes ---- */

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

/* How many mapped files are opened at once while the process may exit. */
#define EARLY_OPENS 256

/* The cache entry of the file path_fd holds, checked against its maps line
 * and read now if new; NULL with *why. */
static struct elf_file *mapped_file(struct usyms *us, const char *pid_dir, int path_fd,
				    const struct maps_line *l, enum usym_unknown *why)
{
	struct elf_file *f;
	struct stat st;
	bool trusted;
	int fd;

	*why = USYM_FILE_GONE;
	if (path_fd < 0 || fstat(path_fd, &st) ||
	    !is_mapped_file(&st, l->inode, l->major, l->minor))
		return NULL;
	f = elf_cache_find(&us->files, &st);
	if (f) {
		elf_cache_touch(&us->files, f);
		return f;
	}
	fd = reopen_for_reading(path_fd, &st);
	if (fd < 0)
		return NULL;
	trusted = !l->deleted && trusted_in_process(pid_dir, l->path, &st, us->files.trusted_uid);
	f = read_file(us, fd, &st, trusted, base_name(l->path), why);
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
			path_fds[n] = open_mapped_file(pid_dir, l.start, l.end);
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
					path_fds[i] = open_mapped_file(pid_dir, l->start, l->end);
				m->file = mapped_file(us, pid_dir, path_fds[i], l, &m->why);
			}
			if (m->file) {
				m->file->users++;
				m->why = why_of_file(m->file);
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

	if (file && why_of_file(file) == USYM_NAMED)
		name = elf_symbol_at(file->elf, offset, &into);
	if (name) {
		snprintf(buf, size, "%s+0x%" PRIx64, name, into);
		return USYM_NAMED;
	}
	snprintf(buf, size, "[unknown] %s+0x%" PRIx64, module, offset);
	if (!file)
		return file_why ? file_why : USYM_FILE_GONE;
	return why_of_file(file) == USYM_NAMED ? USYM_NO_SYMBOL : why_of_file(file);
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

/* ---- stacks named at capture ---- */

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
	bool untrusted_seen = false;
	struct elf_file *f;
	struct stat st;
	int fd;

	*module = NULL;
	for (size_t i = 0; p && i < p->nmappings; i++) {
		const struct mapping *m = &p->mappings[i];

		if (m->file && elf_file_has_build_id(m->file, id, len)) {
			*module = mapping_module(p, m);
			return m->file;
		}
	}
	f = elf_cache_find_build_id(&us->files, id, len, &untrusted_seen);
	if (f) {
		*module = f->module;
		return f;
	}
	*why = untrusted_seen ? USYM_UNTRUSTED : USYM_FILE_GONE;
	fd = elf_cache_open_debug_file(&us->files, id, len, &st);
	if (fd < 0)
		return NULL;
	f = elf_cache_find(&us->files, &st);
	if (!f)
		f = read_file(us, fd, &st, true, "[debug file]", why);
	close(fd);
	if (!f || !elf_file_has_build_id(f, id, len) || !f->public)
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

/*
 * The name of the recovered frame at ra: by the process's mappings when the
 * mapping's file was read, else in frame 1's file if ra falls in an
 * executable segment of it (frame 1's address, event->user_ret, less its
 * file offset places that file).  A mapping whose file could not be opened
 * (the process exited between its maps and its map_files/) is named the
 * second way, as the kernel's frames are: by build id.
 */
static enum usym_unknown name_recovered(struct usyms *us, const struct process *p,
					const struct user_stack_event *event, uint64_t ra,
					char *buf, size_t size)
{
	const struct mapping *m = p ? find_mapping(p, ra) : NULL;
	const struct stack_frame_id *next = &event->frames[1];
	enum usym_unknown why = USYM_NOT_RECORDED, by_build_id;
	const char *module;
	struct elf_file *f;
	uint64_t offset, vaddr;
	bool exec;

	if (m && (m->kind != MAPPING_FILE || m->file))
		return name_by_mapping(p, ra, buf, size);
	if (m)
		why = name_by_mapping(p, ra, buf, size);
	else
		snprintf(buf, size, "[unknown] 0x%" PRIx64, ra);
	if (event->nframes < 2 || next->status != STACK_FRAME_BUILD_ID || !event->user_ret ||
	    event->user_ret < next->offset)
		return why;
	by_build_id = why;
	f = file_by_build_id(us, p, next->build_id, STACK_BUILD_ID_SIZE, &module, &by_build_id);
	if (!f)
		return m ? why : by_build_id;
	offset = ra - (event->user_ret - next->offset);
	if (!elf_offset_vaddr(f->elf, offset, &vaddr, &exec) || !exec)
		return m ? why : USYM_NOT_RECORDED;
	return name_in_file(f, by_build_id, module, offset, buf, size);
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
	fd = open_trusted_file(root_path, path, us->files.trusted_uid, &expected, &st);
	if (fd < 0)
		return;
	if (!elf_cache_find(&us->files, &st)) {
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
	out->files = us->files.nfiles;
	out->cache_bytes = us->files.bytes;
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
