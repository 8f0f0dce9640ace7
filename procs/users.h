/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iotop's USER column (issue 33): a uid's name as `ps -o user` shows it,
 * from the passwd file, read by diskio itself: glibc's getpwuid() needs
 * NSS's shared libraries at run time, which the static binary cannot load.
 * The names are kept, and read again when the file changes (its identity,
 * size or times); a uid without one is shown as its number.  Pure: the
 * file is a parameter, so tests use one of their own.
 */
#ifndef DISKIO_USERS_H
#define DISKIO_USERS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* A passwd name is kept when it is shorter than this (a Linux login name
 * has at most 32 bytes); a longer one is shown as the uid's number. */
#define USER_NAME_MAX	256
/* Room for users_name(): a name, or a uid's 10 digits. */
#define USER_NAME_SIZE	USER_NAME_MAX

/* The file's first this many bytes are read (a passwd file of 100,000 users
 * has 6 MB). */
#define USERS_FILE_MAX	(64U << 20)

struct user_entry {
	uint32_t uid;
	uint32_t name;		/* offset in names */
};

struct users {
	char path[PATH_MAX];
	struct user_entry *entries;	/* by uid, the first line of each */
	size_t count;
	char *names;
	/* The file as it was read; read false: not read (missing), no names. */
	bool read;
	uint64_t dev, ino, size;
	struct timespec mtime, ctime;
};

/* No names yet: users_refresh() reads them. */
void users_init(struct users *u, const char *passwd_path);
void users_free(struct users *u);

/* Read the file again if it changed since it was last read (or it is
 * gone: no names then); true when the names may have changed.  Without
 * memory, the names stay as they were. */
bool users_refresh(struct users *u);

/* uid's name, or its number when the file gives it none, in buf
 * (USER_NAME_SIZE bytes) or the users' own memory, valid until the next
 * users_refresh(). */
const char *users_name(const struct users *u, uint32_t uid, char *buf, size_t size);

/* -u's USER (issue 48), as iotop takes it: a number is a uid (in the file
 * or not), else a name in the file.  0 with *uid, or -ENOENT. */
int users_uid(const struct users *u, const char *user, uint32_t *uid);

/* The n users given to -u, read against the passwd file, into uids.  0, or
 * -1 after one "diskio: ..." line on err (an unknown name). */
int users_resolve_args(const char *passwd_path, const char *const *users, uint32_t n,
		       uint32_t *uids, FILE *err);

/* The passwd file's text (len bytes, any) into u's names, replacing them;
 * users_refresh() reads the file into it.  0, or -ENOMEM with u as it was.
 * A line is NAME:PASSWORD:UID:..., the first for a uid wins (as
 * getpwuid()); lines that are not (comments, NIS's +/- entries, a uid that
 * is no 32-bit number, an empty or too long name) are skipped. */
int users_parse(struct users *u, const char *text, size_t len);

#endif /* DISKIO_USERS_H */
