/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crash-free tracker's state file (--state): a struct crashfree
 * (crashfree.h) saved so that crash-free hours add up across runs and
 * reboots, and loaded back by a reader that refuses any file whose counts
 * could be forged and never writes through one that is not diskio's.
 * outputs/state_file.c is the output that calls these two.
 */
#ifndef DISKIO_CRASHFREE_STATE_H
#define DISKIO_CRASHFREE_STATE_H

#include <stdint.h>
#include <stdio.h>
#include "crashfree.h"

/* Return values of crashfree_load() besides 0 and -errno. */
#define CRASHFREE_LOAD_NO_FILE 1
#define CRASHFREE_LOAD_DAMAGED 2

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
 * bytes outside '!'..'~', '\\' and '"' are written as \xHH (lower-case hex:
 * lib/escape.h's rule), and the empty name as "". Files written before
 * that rule spelled the backslash \\, which is still read. Numbers are plain decimal
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

#endif /* DISKIO_CRASHFREE_STATE_H */
