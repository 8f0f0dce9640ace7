/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the libFuzzer targets: a check that reports and aborts (libFuzzer
 * then saves the input as a crash), and a scratch directory for targets that
 * need files, removed at exit.
 */
#ifndef DISKIO_FUZZ_UTIL_H
#define DISKIO_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_CHECK(cond, ...) do {						\
		if (!(cond))							\
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);	\
	} while (0)

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 4, 5)));

/* A fresh directory for this process in TMPDIR, else on tmpfs when /dev/shm is
 * there, removed with everything in it at exit (not after a crash: then by
 * scripts/fuzz.sh). Aborts if it cannot be made. */
const char *fuzz_scratch_dir(void);

/* Removes every file, symlink and directory below dir, keeping dir. */
void fuzz_empty_dir(const char *dir);

/* For LLVMFuzzerInitialize(): a -max_len= under max_len in *argv is raised
 * to it, and added when there is none (scripts/fuzz.sh gives every target
 * 4096 bytes; a whole ELF file needs more).  Over 256 arguments: unchanged. */
void fuzz_raise_max_len(int *argc, char ***argv, int max_len);

/* Writes data[0..len) to path (created 0600, truncated). Aborts on failure. */
void fuzz_write_file(const char *path, const uint8_t *data, size_t len);

#endif /* DISKIO_FUZZ_UTIL_H */
