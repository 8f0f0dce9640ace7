/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotop's COMMAND (issue 33): a process's whole command line as one line,
 * its arguments joined by single spaces, at most CMDLINE_MAX bytes of it,
 * then "…".  The bytes are kept as the process wrote them: each view
 * escapes them as it escapes names (batch's \xHH, JSON's \u00XX, the top
 * view's printable_name()), so that a command line, like a name, never
 * splits an awk field or reaches a terminal as control characters.  Pure.
 */
#ifndef DISKIO_CMDLINE_H
#define DISKIO_CMDLINE_H

#include <stddef.h>

/* The bytes of a command line kept; a longer one is cut there (between
 * UTF-8 characters) and CMDLINE_CUT follows. */
#define CMDLINE_MAX	256
#define CMDLINE_CUT	"\xe2\x80\xa6"	/* U+2026 HORIZONTAL ELLIPSIS */
/* Room for a command line, its cut mark and a NUL. */
#define CMDLINE_SIZE	(CMDLINE_MAX + sizeof(CMDLINE_CUT))

/*
 * argv as /proc/PID/cmdline and mm->arg_start hold it (each argument
 * followed by a NUL), args[0..len), of a command line of whole bytes in
 * all (more than len when only its start was read), into out as one line:
 * each NUL between two arguments a space, the NULs that end it dropped;
 * cut to CMDLINE_MAX bytes, without a UTF-8 character cut in two at the
 * end, and CMDLINE_CUT after it when there was more.  Returns its length;
 * 0 (out "") for a command line of no argument (a kernel thread's, a
 * zombie's).
 */
size_t cmdline_join(const char *args, size_t len, size_t whole, char out[CMDLINE_SIZE]);

/* "[name]": a process without a command line (a kernel thread, or one
 * whose command line could not be read), as ps shows it; name[0..len) cut
 * as cmdline_join() cuts.  Returns its length. */
size_t cmdline_bracketed(const char *name, size_t len, char out[CMDLINE_SIZE]);

#endif /* DISKIO_CMDLINE_H */
