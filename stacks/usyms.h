/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of user stack frames: from the ELF files the process mapped
 * (elfsyms.h), found through the process itself or, by build id, among
 * files only root can change (doc/stacks.md: what root may trust), named
 * when the kernel reports a new stack, so that a process that exited at
 * once is named too.  No libbpf; unit-tested without root against fake
 * /proc trees and test binaries.
 */
#ifndef DISKIO_USYMS_H
#define DISKIO_USYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "abi.h"

/*
 * Why a user frame has no name (USYM_NAMED: it has one).  usym_unknown_name()
 * is the word in JSON's "user_unknown".
 */
enum usym_unknown {
	USYM_NAMED = 0,
	USYM_NOT_RECORDED,	/* the process's mappings were never read (gone first) */
	USYM_ANONYMOUS,		/* memory of no file: JIT code */
	USYM_FILE_GONE,		/* the file could not be opened through the process,
				 * nor found by build id in a file only root can change */
	USYM_UNTRUSTED,		/* only a file another user can change, or one others
				 * cannot read, has its build id */
	USYM_NOT_ELF,
	USYM_MALFORMED,
	USYM_TOO_BIG,		/* over elfsyms.h's limits */
	USYM_STRIPPED,		/* no symbols, and no debug file */
	USYM_NO_SYMBOL,		/* read, but no function holds the address */
	USYM_OVER_BUDGET,	/* the interval's time or the cache's memory was used up */
	USYM_NO_MEMORY,
	USYM_NR,
};
const char *usym_unknown_name(enum usym_unknown why);

struct usyms;

/* Longest frame name made. */
#define USYMS_NAME_MAX 256

/* proc_root is "/proc" (a test's fake directory otherwise). */
struct usyms *usyms_new(const char *proc_root);
void usyms_free(struct usyms *us);

/* Where stripped binaries' symbols are looked up in separate debug files, by
 * build id: DIR/.build-id/ab/cdef....debug, as gdb and perf do (Debian's
 * *-dbgsym packages install them there), if the file and every directory
 * above it are ones only root can change, without following a symlink.
 * USYMS_DEBUG_DIR by default; NULL turns the lookup off.  0, or -errno. */
#define USYMS_DEBUG_DIR "/usr/lib/debug"
int usyms_set_debug_dir(struct usyms *us, const char *dir);

/* --debug-dir: one more such directory, searched after it (NULL: none). */
int usyms_add_debug_dir(struct usyms *us, const char *dir);

/* Whether dir (absolute) and every directory above it are ones only root
 * can change, reached without a symlink: where debug files are trusted. */
bool usyms_trusted_dir(const struct usyms *us, const char *dir);

/* Files owned by uid are trusted as root's are: for tests that run
 * unprivileged; diskio never calls it. */
void usyms_trust_owner(struct usyms *us, uid_t uid);

/* The time the symbolizer may take per interval (0: no limit, the
 * default); work past it is skipped, its frames USYM_OVER_BUDGET.
 * usyms_new_interval() starts the next interval's budget. */
void usyms_set_budget(struct usyms *us, uint64_t ns);
void usyms_new_interval(struct usyms *us);

/*
 * Record tgid's executable mappings (PROC_ROOT/TGID/maps) and read each
 * mapped file through PROC_ROOT/TGID/map_files/ (never by its path),
 * identified by (start_ns, exec_id): a known process returns 0 at once,
 * another with the same pid, or the same after exec(), replaces it.
 * 0, or -errno when the maps cannot be read (the process is gone).
 * usyms_add_pid() is usyms_add_process(us, tgid, 0, 0).
 */
int usyms_add_process(struct usyms *us, uint32_t tgid, uint64_t start_ns, uint64_t exec_id);
int usyms_add_pid(struct usyms *us, uint32_t tgid);

/* Read diskio's own mappings: the system libraries it maps (libc, the
 * loader) are cached, to name by build id a process that exits before its
 * mappings could be read. */
void usyms_add_own_files(struct usyms *us);

/* Forget tgid's mappings: usyms_process_exited() only if it is that
 * process.  The files stay cached (least recently used go first). */
void usyms_forget_pid(struct usyms *us, uint32_t tgid);
void usyms_process_exited(struct usyms *us, uint32_t tgid, uint64_t start_ns);

/* Name addr in tgid's recorded mappings: "function+0xoff"; "[unknown]
 * module+0xoff" (off: the offset in the file) when no symbol holds it or
 * the file could not be read; "[vdso]+0xoff"; "[unknown] 0xADDR" in
 * anonymous memory and outside every recorded mapping.  addr is named as
 * given.  Returns buf; *why (if why is not NULL) says why it is unknown. */
char *usyms_format(struct usyms *us, uint32_t tgid, uint64_t addr, char *buf, size_t size);
char *usyms_format_why(struct usyms *us, uint32_t tgid, uint64_t addr, char *buf, size_t size,
		       enum usym_unknown *why);

/*
 * A user stack as the kernel captured it (EVENT_USER_STACK, nframes no more
 * than it holds): its frames are named now, each by build id and file
 * offset where the kernel gave them (from a file the process mapped, else
 * one only root can change: the system libraries diskio itself or any
 * process mapped, the process's executable found by the path the kernel
 * gave if only root can change it, debug files), else by address in the
 * process's mappings, read now if new.  Names are kept per (tgid, stack id)
 * until usyms_free(), so that a process that has exited is named.  0, or
 * -errno (-ENOSPC: USYMS_MAX_STACKS).
 */
int usyms_add_stack(struct usyms *us, const struct user_stack_event *event);

/* Frame index (innermost 0) of tgid's user stack stack_id, at addr: its
 * name from usyms_add_stack(), else usyms_format_why()'s. */
char *usyms_frame(struct usyms *us, uint32_t tgid, int32_t stack_id, uint32_t index,
		  uint64_t addr, char *buf, size_t size, enum usym_unknown *why);

struct usyms_stats {
	size_t files, cache_bytes, processes, stacks;
	uint64_t unknown[USYM_NR];	/* frames of captured stacks, by why */
	uint64_t recovered;		/* frames inserted: callers of a frameless frame 0 */
};
void usyms_stats(const struct usyms *us, struct usyms_stats *out);

/* Whether usyms_add_stack() found the caller of frame 0 of tgid's user
 * stack stack_id, which the frame pointer walk skips (frame 0 kept no
 * frame: libc's syscall wrappers), by frame 0's .eh_frame rule and the
 * stack bytes of the event: *addr, its address; it is frame index 1 of
 * usyms_frame(), the kernel's frame 1 is index 2. */
bool usyms_inserted_frame(struct usyms *us, uint32_t tgid, int32_t stack_id, uint64_t *addr);

#endif /* DISKIO_USYMS_H */
