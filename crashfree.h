/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Crash-free interval bookkeeping for diskio, as memfaultd counts it: whole
 * operational and crash-free intervals, crashes in total and per comm, on a
 * monotonic clock the caller passes in (readings within 2^63 ns of the marks).
 * doc/design.md, "How the numbers are kept", explains.  Not thread-safe.
 */
#ifndef DISKIO_CRASHFREE_H
#define DISKIO_CRASHFREE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define CRASHFREE_COMM_LEN 16
#define CRASHFREE_DEFAULT_INTERVAL_NS (UINT64_C(3600) * UINT64_C(1000000000))

/* Return values of crashfree_load() besides 0 and -errno. */
#define CRASHFREE_LOAD_NO_FILE 1
#define CRASHFREE_LOAD_DAMAGED 2

struct crashfree_process {
	char comm[CRASHFREE_COMM_LEN];
	uint64_t crashes;
};

struct crashfree {
	uint64_t interval_ns;
	uint64_t operational_mark_ns, crashfree_mark_ns;   /* on the injected clock */
	uint64_t operational_intervals, crashfree_intervals; /* cumulative counts */
	uint64_t crashes;
	struct crashfree_process *by_process; size_t nprocesses, capacity; /* sorted by comm */
};

/* What one update counted. */
struct crashfree_counted {
	uint64_t operational, crashfree;
};

/*
 * Start a fresh tracker whose intervals begin at now_ns. An interval_ns of 0
 * would make every instant a whole interval, so it is replaced with
 * CRASHFREE_DEFAULT_INTERVAL_NS; one of 2^63 or more is cut to 2^63 - 1.
 */
void crashfree_init(struct crashfree *cf, uint64_t interval_ns, uint64_t now_ns);

/* Release the per-process table; cf may be initialised again afterwards. */
void crashfree_free(struct crashfree *cf);

/*
 * Count the whole operational and crash-free intervals elapsed up to now_ns,
 * add them to the cumulative counts and return them. Call it at least once
 * per interval: as in memfaultd, a crash between two updates further apart
 * than one interval also cancels crash-free time before the crash that has
 * not been counted yet.
 */
struct crashfree_counted crashfree_update(struct crashfree *cf, uint64_t now_ns);

/*
 * A crash of process `comm` at time at_ns (may be earlier than the last
 * update). comm is cut to CRASHFREE_COMM_LEN - 1 bytes like the kernel's
 * task comm; NULL counts as the empty name. Returns 0 or -ENOMEM. On -ENOMEM
 * the crash-free mark has still moved (that needs no memory) but the crash
 * is not counted, so that crashes always equals the sum of the per-process
 * counts.
 */
int crashfree_record_crash(struct crashfree *cf, const char *comm, uint64_t at_ns);

/*
 * Put back a process as a saved state lists it: comm, cut as
 * crashfree_record_crash() cuts it, with `crashes` crashes. Only the table
 * changes, not cf->crashes nor the marks: the reader restores the total
 * itself and checks that it is the sum. Returns 0, -EEXIST if comm is listed
 * already (cf unchanged) or -ENOMEM.
 */
int crashfree_restore_process(struct crashfree *cf, const char *comm, uint64_t crashes);

/*
 * State file: versioned text, at most 255 bytes per line, every line ending
 * in '\n':
 *
 *   diskio-crashfree 1
 *   interval_ns=3600000000000
 *   operational_intervals=12
 *   crashfree_intervals=9
 *   crashes=4
 *   operational_progress_ns=1500000000000
 *   crashfree_progress_ns=60000000000
 *   process collectd 1
 *   process my\x20daemon 3
 *   end
 *
 * Key lines may come in any order but each exactly once; process lines may
 * come anywhere before "end". Progress is the time elapsed into the current
 * interval (now - mark), so only time while diskio runs counts. In a comm,
 * bytes outside '!'..'~', '\\' and '"' are written as \xHH (lower-case hex),
 * the backslash as \\, and the empty name as "". Numbers are plain decimal
 * without sign or leading zeros. Loading rejects anything else, and
 * numbers this module cannot have written: 0 or >= 2^63 interval_ns,
 * progress not below interval_ns, more crash-free than operational time
 * (the invariant in doc/design.md), operational time beyond 2^64 ns, a process
 * with 0 crashes or listed twice, per-process counts not adding up to
 * crashes.
 *
 * crashfree_save() stores the state that crashfree_update(cf, now_ns) would
 * leave (whole intervals elapsed since the last update are counted in the
 * file, progress stays below the interval) without modifying cf. It writes
 * with atomic_file_write_mode(), durable: a new temporary file in the same
 * directory, flushed and fsynced, renamed over PATH and the directory
 * fsynced, so PATH is always either the old or the new state. A PATH.tmp
 * (where earlier versions wrote: left by a crash, or a planted symlink) is
 * removed, never written through. The file is made with mode 0600
 * whatever the umask, owned by the user the caller runs as. Returns 0 or
 * -errno (-EINVAL for an interval_ns that crashfree_init() would not set);
 * the temporary file is removed on failure.
 */
int crashfree_save(const struct crashfree *cf, const char *path, uint64_t now_ns);

/*
 * Load the state saved at PATH and restore each mark as now_ns - progress.
 * Nothing is ever written through PATH, and only a file with a state file's
 * start is ever moved. In this order:
 *
 * 1. PATH's directory must exist, be a directory and let the caller create
 *    files in it (the saves' temporary files); else -errno (-ENOENT,
 *    -ENOTDIR, -EACCES, -EROFS, ...).
 * 2. PATH itself, looked at without following it: missing is
 *    CRASHFREE_LOAD_NO_FILE. A symlink (-ELOOP), a directory (-EISDIR) or
 *    anything else not a regular file (-EINVAL: FIFO, socket, device) is
 *    refused without being opened. So is a file not owned by geteuid(), or
 *    writable by its group or others (-EPERM): its counts could be forged.
 * 3. The file is opened with O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC and must
 *    be the one checked (-EAGAIN if it was replaced meanwhile).
 * 4. A file that does not start with "diskio-crashfree" and then a space
 *    or a newline (an empty file included) is not a diskio state file: it
 *    is refused (-EBADMSG) and left as it is.
 * 5. A diskio state file that is truncated, of another version, badly
 *    formed or holds impossible numbers is damaged: it is renamed, without
 *    replacing anything, to the first free name of PATH.corrupt,
 *    PATH.corrupt.1, ... PATH.corrupt.999, this line is written:
 *       "diskio: warning: state file PATH is damaged (REASON); moved aside
 *       to NAME, starting fresh"
 *    and CRASHFREE_LOAD_DAMAGED (2) is returned with cf fresh. If it cannot
 *    be moved (all names taken, a rename error, the file replaced since it
 *    was read), it stays where it is and -errno is returned (-EEXIST when
 *    every name is taken).
 * 6. Otherwise it is loaded: 0.
 *
 * Every negative return is a refusal: one "diskio: ..." line saying what
 * to do was written to warn, nothing on disk was changed, and cf is fresh
 * (the caller is expected to give up rather than save over PATH). A read
 * error is -errno the same way. "Fresh" means crashfree_init(cf,
 * interval_ns, now_ns). cf need not be initialised before the call; warn
 * may be NULL.
 *
 * A file counted with another interval_ns than the requested one: crash
 * counts (total and per process) are kept because they do not depend on
 * the interval, but interval counts and progress restart from zero, since
 * hours and minutes cannot be added up and the output reports every count
 * with one interval length. Returns 0 and writes one "diskio: note: ..."
 * line to warn saying so.
 */
int crashfree_load(struct crashfree *cf, const char *path, uint64_t interval_ns,
		   uint64_t now_ns, FILE *warn);

#endif /* DISKIO_CRASHFREE_H */
