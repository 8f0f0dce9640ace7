// SPDX-License-Identifier: GPL-2.0
/* A uid's name from the passwd file (users.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "array.h"
#include "sorted.h"
#include "strpool.h"
#include "users.h"

void users_init(struct users *u, const char *passwd_path)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->path, sizeof(u->path), "%s", passwd_path ? passwd_path : "");
}

static void drop_names(struct users *u)
{
	free(u->entries);
	free(u->names);
	u->entries = NULL;
	u->names = NULL;
	u->count = 0;
}

void users_free(struct users *u)
{
	drop_names(u);
	memset(u, 0, sizeof(*u));
}

/* The uid field: decimal digits only, to UINT32_MAX - 1 ((uid_t)-1 is no
 * uid), and nothing else up to its ':'. */
static bool parse_uid(const char *field, size_t len, uint32_t *uid)
{
	uint64_t v = 0;

	if (!len || len > 10)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (field[i] < '0' || field[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(field[i] - '0');
	}
	if (v >= UINT32_MAX)
		return false;
	*uid = (uint32_t)v;
	return true;
}

/* Line line[0..len) as (name, uid); false for a line that is no entry. */
static bool parse_line(const char *line, size_t len, const char **name, size_t *name_len,
		       uint32_t *uid)
{
	const char *end = line + len, *colon, *password, *uid_field, *uid_end;

	if (!len || line[0] == '#' || line[0] == '+' || line[0] == '-')
		return false;
	colon = memchr(line, ':', len);
	if (!colon || colon == line || (size_t)(colon - line) >= USER_NAME_MAX ||
	    memchr(line, '\0', (size_t)(colon - line)))
		return false;
	password = colon + 1;
	colon = memchr(password, ':', (size_t)(end - password));
	if (!colon)
		return false;
	uid_field = colon + 1;
	uid_end = memchr(uid_field, ':', (size_t)(end - uid_field));
	if (!uid_end)
		uid_end = end;
	if (!parse_uid(uid_field, (size_t)(uid_end - uid_field), uid))
		return false;
	*name = line;
	*name_len = (size_t)(password - 1 - line);
	return true;
}

struct numbered_entry {
	struct user_entry entry;
	size_t line;		/* its order in the file: the first wins */
};

static int compare_numbered(const void *pa, const void *pb)
{
	const struct numbered_entry *a = pa, *b = pb;

	if (a->entry.uid != b->entry.uid)
		return (a->entry.uid > b->entry.uid) - (a->entry.uid < b->entry.uid);
	return (a->line > b->line) - (a->line < b->line);
}

int users_parse(struct users *u, const char *text, size_t len)
{
	struct numbered_entry *found = NULL;
	struct user_entry *entries;
	size_t nfound = 0, capacity = 0, kept = 0;
	struct strpool pool = { 0 };
	const char *line = text, *end = text + len;

	while (line < end) {
		const char *newline = memchr(line, '\n', (size_t)(end - line));
		size_t line_len = (size_t)((newline ? newline : end) - line);
		const char *name;
		size_t name_len;
		uint32_t uid, offset;

		if (parse_line(line, line_len, &name, &name_len, &uid)) {
			if (array_reserve((void **)&found, &capacity, nfound + 1, sizeof(*found)) ||
			    !strpool_add(&pool, name, name_len, &offset)) {
				free(found);
				strpool_free(&pool);
				return -ENOMEM;
			}
			found[nfound].entry = (struct user_entry){ uid, offset };
			found[nfound].line = nfound;
			nfound++;
		}
		line += line_len + 1;
	}
	entries = malloc((nfound ? nfound : 1) * sizeof(*entries));
	if (!entries) {
		free(found);
		strpool_free(&pool);
		return -ENOMEM;
	}
	if (nfound)
		qsort(found, nfound, sizeof(*found), compare_numbered);
	for (size_t i = 0; i < nfound; i++)
		if (!kept || found[i].entry.uid != entries[kept - 1].uid)
			entries[kept++] = found[i].entry;
	free(found);
	drop_names(u);
	u->entries = entries;
	u->count = kept;
	u->names = strpool_take(&pool);
	return 0;
}

/* The whole file, at most USERS_FILE_MAX bytes of it, into *text (to free). */
static int read_text(int fd, char **text, size_t *len)
{
	size_t capacity = 0, n = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t got;

		if (n == USERS_FILE_MAX)
			break;
		if (array_reserve((void **)&buf, &capacity, n + 65536 < USERS_FILE_MAX ?
				  n + 65536 : USERS_FILE_MAX, 1)) {
			free(buf);
			return -ENOMEM;
		}
		got = read(fd, buf + n, capacity - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			free(buf);
			return -errno;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	*text = buf;
	*len = n;
	return 0;
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

bool users_refresh(struct users *u)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	bool had = u->read;
	int fd;

	/* Opened non-blocking: a FIFO in its place never stalls diskio. */
	fd = u->path[0] ? open(u->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		drop_names(u);
		u->read = false;
		return had;
	}
	if (u->read && u->dev == (uint64_t)st.st_dev && u->ino == (uint64_t)st.st_ino &&
	    u->size == (uint64_t)st.st_size && same_time(&u->mtime, &st.st_mtim) &&
	    same_time(&u->ctime, &st.st_ctim)) {
		close(fd);
		return false;
	}
	if (read_text(fd, &text, &len) || users_parse(u, text, len)) {
		close(fd);
		free(text);
		return false;	/* the names as they were; tried again next time */
	}
	close(fd);
	free(text);
	u->read = true;
	u->dev = st.st_dev;
	u->ino = st.st_ino;
	u->size = st.st_size;
	u->mtime = st.st_mtim;
	u->ctime = st.st_ctim;
	return true;
}

static int compare_uid(const void *key, const void *element)
{
	uint32_t uid = *(const uint32_t *)key, other = ((const struct user_entry *)element)->uid;

	return (uid > other) - (uid < other);
}

const char *users_name(const struct users *u, uint32_t uid, char *buf, size_t size)
{
	size_t at = u->count ? sorted_find(&uid, u->entries, u->count, sizeof(*u->entries),
					   compare_uid) : 0;

	if (at < u->count && u->entries[at].uid == uid)
		return u->names + u->entries[at].name;
	snprintf(buf, size, "%" PRIu32, uid);
	return buf;
}

int users_uid(const struct users *u, const char *user, uint32_t *uid)
{
	/* iotop's order: a number is a uid, passwd or not; else a name. */
	if (parse_uid(user, strlen(user), uid))
		return 0;
	for (size_t i = 0; i < u->count; i++) {
		if (!strcmp(u->names + u->entries[i].name, user)) {
			*uid = u->entries[i].uid;
			return 0;
		}
	}
	return -ENOENT;
}

int users_resolve_args(const char *passwd_path, const char *const *users, uint32_t n,
		       uint32_t *uids, FILE *err)
{
	struct users u;
	int status = 0;

	if (!n)
		return 0;
	users_init(&u, passwd_path);
	users_refresh(&u);
	for (uint32_t i = 0; i < n && !status; i++) {
		if (users_uid(&u, users[i], &uids[i])) {
			fprintf(err, "diskio: no user '%s' in %s: give a user name or a numeric uid\n",
				users[i], passwd_path);
			status = -1;
		}
	}
	users_free(&u);
	return status;
}
