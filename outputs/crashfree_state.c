// SPDX-License-Identifier: GPL-2.0
/*
 * The crash-free tracker's state file, --state (crashfree_state.h): its
 * text format, a strict parser (one spelling per value, no number a save
 * could not have written), the durable atomic save, and a load that trusts
 * nothing it reads (the directory and the file are checked before the file
 * is opened, a foreign file is left alone, a damaged one is moved aside).
 * Apart from the tracker (../crashfree.c), whose counting needs no file,
 * because this is where diskio, as root, reads and renames a path the user
 * chose. It never calls libbpf: unit-tested without root and fuzzed
 * (tests/fuzz/fuzz_state.c); state_file.c makes it the --state output, as
 * prom_file.c does prom.c.
 */
#define _GNU_SOURCE		/* renameat2(), RENAME_NOREPLACE */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "crashfree_state.h"
#include "escape.h"
#include "root_only.h"

#define NSEC_PER_SEC UINT64_C(1000000000)

#define STATE_MAGIC "diskio-crashfree"
#define STATE_HEADER STATE_MAGIC " 1"
#define STATE_END "end"
#define STATE_PROCESS_PREFIX "process "
/* Far above the longest line written (a 15-byte comm escaped to 60 bytes). */
#define STATE_MAX_LINE 255
#define REASON_LEN 128
/* Only its owner may read or write the file, whatever the umask. */
#define STATE_FILE_MODE 0600
/* Names a damaged file may be moved to: PATH.corrupt, PATH.corrupt.1 .. .999. */
#define CORRUPT_NAMES 1000

_Static_assert(sizeof(unsigned long long) == sizeof(uint64_t),
	       "strtoull must parse exactly the uint64_t range");

enum state_key {
	KEY_INTERVAL,
	KEY_OPERATIONAL_INTERVALS,
	KEY_CRASHFREE_INTERVALS,
	KEY_CRASHES,
	KEY_OPERATIONAL_PROGRESS,
	KEY_CRASHFREE_PROGRESS,
	KEY_COUNT,
};

static const char *const state_key_names[KEY_COUNT] = {
	[KEY_INTERVAL] = "interval_ns",
	[KEY_OPERATIONAL_INTERVALS] = "operational_intervals",
	[KEY_CRASHFREE_INTERVALS] = "crashfree_intervals",
	[KEY_CRASHES] = "crashes",
	[KEY_OPERATIONAL_PROGRESS] = "operational_progress_ns",
	[KEY_CRASHFREE_PROGRESS] = "crashfree_progress_ns",
};

/* Bytes a comm keeps as they are (lib/escape.h's rule, with the quote of
 * the empty name reserved); anything else would split or hide a token. */
static bool comm_byte_is_plain(unsigned char byte)
{
	return escape_keeps(byte, "\"");
}

static void write_escaped_comm(FILE *out, const char *comm)
{
	if (!*comm)
		fputs("\"\"", out);
	else
		escape_write(out, comm, strlen(comm), "\"");
}

static void write_state(FILE *out, const struct crashfree *cf, uint64_t now_ns)
{
	uint64_t values[KEY_COUNT] = {
		[KEY_INTERVAL] = cf->interval_ns,
		[KEY_OPERATIONAL_INTERVALS] = cf->operational_intervals,
		[KEY_CRASHFREE_INTERVALS] = cf->crashfree_intervals,
		[KEY_CRASHES] = cf->crashes,
		[KEY_OPERATIONAL_PROGRESS] = now_ns - cf->operational_mark_ns,
		[KEY_CRASHFREE_PROGRESS] = now_ns - cf->crashfree_mark_ns,
	};
	size_t key, i;

	fputs(STATE_HEADER "\n", out);
	for (key = 0; key < KEY_COUNT; key++)
		fprintf(out, "%s=%" PRIu64 "\n", state_key_names[key], values[key]);
	for (i = 0; i < cf->nprocesses; i++) {
		fputs(STATE_PROCESS_PREFIX, out);
		write_escaped_comm(out, cf->by_process[i].comm);
		fprintf(out, " %" PRIu64 "\n", cf->by_process[i].crashes);
	}
	fputs(STATE_END "\n", out);
}

static char *path_with_suffix(const char *path, const char *suffix)
{
	size_t path_len = strlen(path), suffix_len = strlen(suffix);
	char *joined = malloc(path_len + suffix_len + 1);

	if (!joined)
		return NULL;
	memcpy(joined, path, path_len);
	memcpy(joined + path_len, suffix, suffix_len + 1);
	return joined;
}

/* The directory that holds path's entry: "." for a bare name. NULL: no memory. */
static char *parent_directory(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, slash - path);
}

static int errno_or_eio(void)
{
	return errno ? -errno : -EIO;
}

struct state_to_save {
	const struct crashfree *cf;
	uint64_t now_ns;
};

static int render_state(FILE *out, void *arg)
{
	const struct state_to_save *state = arg;

	write_state(out, state->cf, state->now_ns);
	return 0;
}

int crashfree_save(const struct crashfree *cf, const char *path, uint64_t now_ns)
{
	struct crashfree snapshot = *cf;
	struct state_to_save state = { &snapshot, now_ns };
	char *tmp_path;
	int err = 0;

	if (cf->interval_ns == 0 || cf->interval_ns > INT64_MAX)
		return -EINVAL;
	/* Shares cf's process table, which crashfree_update() never touches. */
	crashfree_update(&snapshot, now_ns);

	/*
	 * PATH.tmp is where earlier diskio saves wrote: one left by a crashed
	 * save, or planted as a symlink, is removed.  The new file is made
	 * under another name, never through one already there.
	 */
	tmp_path = path_with_suffix(path, ".tmp");
	if (!tmp_path)
		return -ENOMEM;
	if (unlink(tmp_path) && errno != ENOENT)
		err = -errno;
	free(tmp_path);
	if (err)
		return err;
	return atomic_file_write_mode(path, STATE_FILE_MODE, true, render_state, &state);
}

enum line_status {
	LINE_READ,
	LINE_END_OF_FILE,
	LINE_DAMAGED,
	LINE_READ_ERROR,
};

/*
 * One '\n'-terminated line without the '\n'. Reads byte by byte so that a
 * NUL cannot hide the rest of a line and a huge line is never buffered.
 */
static enum line_status read_line(FILE *in, char line[STATE_MAX_LINE + 1],
				  const char **damage, int *read_errno)
{
	size_t len = 0;
	int byte;

	for (;;) {
		errno = 0;
		byte = getc(in);
		if (byte == EOF) {
			if (ferror(in)) {
				*read_errno = errno ? errno : EIO;
				return LINE_READ_ERROR;
			}
			if (len == 0)
				return LINE_END_OF_FILE;
			*damage = "truncated: last line has no newline";
			return LINE_DAMAGED;
		}
		if (byte == '\n') {
			line[len] = '\0';
			return LINE_READ;
		}
		if (byte == '\0') {
			*damage = "NUL byte";
			return LINE_DAMAGED;
		}
		if (len == STATE_MAX_LINE) {
			*damage = "line too long";
			return LINE_DAMAGED;
		}
		line[len++] = (char)byte;
	}
}

/* Plain decimal only: strtoull alone would accept "-1", " 1" and "+1". */
static const char *parse_number(const char *text, uint64_t *value)
{
	unsigned long long parsed;
	char *end;

	if (*text < '0' || *text > '9')
		return "not a number";
	if (text[0] == '0' && text[1] != '\0')
		return "number with a leading zero";
	errno = 0;
	parsed = strtoull(text, &end, 10);
	if (errno == ERANGE)
		return "number too large";
	if (errno || end == text || *end != '\0')
		return "not a number";
	*value = parsed;
	return NULL;
}

static int hex_digit_value(char digit)
{
	if (digit >= '0' && digit <= '9')
		return digit - '0';
	if (digit >= 'a' && digit <= 'f')
		return digit - 'a' + 10;
	return -1;
}

/*
 * Decode a comm written by write_escaped_comm(). Only its exact output is
 * accepted, and "\\\\", the backslash of files written before diskio took
 * lib/escape.h's rule (which writes it "\\x5c"): a name has one spelling
 * per version, and duplicates are seen once decoded.
 */
static const char *parse_escaped_comm(const char *token, size_t len,
				      char name[CRASHFREE_COMM_LEN])
{
	size_t in = 0, out = 0;

	memset(name, 0, CRASHFREE_COMM_LEN);
	if (len == 2 && token[0] == '"' && token[1] == '"')
		return NULL;
	if (len == 0)
		return "empty process name";

	while (in < len) {
		unsigned char byte = (unsigned char)token[in];

		if (byte == '\\' && in + 1 < len && token[in + 1] == '\\') {
			in += 2;
		} else if (byte == '\\' && in + 3 < len && token[in + 1] == 'x') {
			int high = hex_digit_value(token[in + 2]);
			int low = hex_digit_value(token[in + 3]);

			if (high < 0 || low < 0)
				return "bad escape in process name";
			byte = (unsigned char)(high << 4 | low);
			if (byte == '\0' || comm_byte_is_plain(byte))
				return "needless or NUL escape in process name";
			in += 4;
		} else if (byte == '\\') {
			return "bad escape in process name";
		} else if (comm_byte_is_plain(byte)) {
			in++;
		} else {
			return "unescaped byte in process name";
		}
		if (out == CRASHFREE_COMM_LEN - 1)
			return "process name longer than 15 bytes";
		name[out++] = (char)byte;
	}
	return NULL;
}

/* Not damage: the file may be fine, so it must not be moved aside. */
static const char out_of_memory[] = "out of memory";

/* "process <escaped-comm> <count>" */
static const char *parse_process_line(const char *line, struct crashfree *loaded)
{
	const char *token = line + strlen(STATE_PROCESS_PREFIX);
	const char *space = strchr(token, ' ');
	char name[CRASHFREE_COMM_LEN];
	const char *damage;
	uint64_t crashes;
	int err;

	if (!space)
		return "process line without a count";
	damage = parse_escaped_comm(token, (size_t)(space - token), name);
	if (damage)
		return damage;
	damage = parse_number(space + 1, &crashes);
	if (damage)
		return damage;
	if (crashes == 0)
		return "process with no crashes";

	err = crashfree_restore_process(loaded, name, crashes);
	if (err == -EEXIST)
		return "duplicate process";
	if (err)
		return out_of_memory;
	return NULL;
}

struct parsed_state {
	uint64_t values[KEY_COUNT];
	bool seen[KEY_COUNT];
};

static const char *parse_key_line(const char *line, const char *equals,
				  struct parsed_state *state)
{
	size_t name_len = (size_t)(equals - line);
	const char *damage;
	size_t key;

	for (key = 0; key < KEY_COUNT; key++) {
		if (strlen(state_key_names[key]) == name_len &&
		    !memcmp(state_key_names[key], line, name_len))
			break;
	}
	if (key == KEY_COUNT)
		return "unknown key";
	if (state->seen[key])
		return "duplicate key";
	damage = parse_number(equals + 1, &state->values[key]);
	if (damage)
		return damage;
	state->seen[key] = true;
	return NULL;
}

/* Numbers a save by this module can never produce. */
static const char *check_consistency(const struct parsed_state *state,
				     const struct crashfree *loaded)
{
	uint64_t interval = state->values[KEY_INTERVAL];
	uint64_t operational = state->values[KEY_OPERATIONAL_INTERVALS];
	uint64_t crashfree = state->values[KEY_CRASHFREE_INTERVALS];
	uint64_t operational_progress = state->values[KEY_OPERATIONAL_PROGRESS];
	uint64_t crashfree_progress = state->values[KEY_CRASHFREE_PROGRESS];
	uint64_t operational_time, crashfree_time, crash_sum = 0;
	size_t i;

	if (interval == 0 || interval > INT64_MAX)
		return "interval_ns out of range";
	if (operational_progress >= interval || crashfree_progress >= interval)
		return "progress not below interval_ns";
	if (crashfree > operational)
		return "more crash-free than operational intervals";
	/* Over 584 years of running: no clock this module was fed gets there. */
	if (__builtin_mul_overflow(operational, interval, &operational_time) ||
	    __builtin_add_overflow(operational_time, operational_progress,
				   &operational_time))
		return "operational time too large";
	/* crashfree <= operational, so only adding the progress can overflow. */
	if (__builtin_add_overflow(crashfree * interval, crashfree_progress,
				   &crashfree_time) ||
	    crashfree_time > operational_time)
		return "more crash-free than operational time";

	for (i = 0; i < loaded->nprocesses; i++) {
		if (__builtin_add_overflow(crash_sum, loaded->by_process[i].crashes,
					   &crash_sum))
			return "per-process crashes too large";
	}
	if (crash_sum != state->values[KEY_CRASHES])
		return "per-process crashes do not add up to crashes";
	return NULL;
}

enum parse_result {
	PARSE_OK,
	PARSE_DAMAGED,
	PARSE_READ_ERROR,
};

/*
 * Fill loaded (interval_ns, counts, processes) and progress[] from in.
 * On PARSE_DAMAGED, reason says why; on PARSE_READ_ERROR, *read_errno.
 */
static enum parse_result parse_state(FILE *in, struct crashfree *loaded,
				     uint64_t *operational_progress,
				     uint64_t *crashfree_progress,
				     char reason[REASON_LEN], int *read_errno)
{
	struct parsed_state state = { { 0 }, { false } };
	char line[STATE_MAX_LINE + 1];
	const char *damage = NULL;
	unsigned int line_number = 0;
	enum line_status status;
	size_t key;

	for (;;) {
		line_number++;
		status = read_line(in, line, &damage, read_errno);
		if (status == LINE_READ_ERROR)
			return PARSE_READ_ERROR;
		if (status == LINE_END_OF_FILE) {
			damage = line_number == 1 ? "empty file" : "truncated: no end line";
			break;
		}
		if (status == LINE_DAMAGED)
			break;

		/* Foreign files were turned away before: this one starts with the magic. */
		if (line_number == 1) {
			if (!strcmp(line, STATE_HEADER))
				continue;
			damage = "unsupported format version";
			break;
		}
		if (!strcmp(line, STATE_END)) {
			errno = 0;
			if (getc(in) != EOF) {
				damage = "data after end line";
				line_number++;
				break;
			}
			if (ferror(in)) {
				*read_errno = errno ? errno : EIO;
				return PARSE_READ_ERROR;
			}
			break;
		}
		if (!strncmp(line, STATE_PROCESS_PREFIX, strlen(STATE_PROCESS_PREFIX))) {
			damage = parse_process_line(line, loaded);
		} else {
			const char *equals = strchr(line, '=');

			damage = equals ? parse_key_line(line, equals, &state)
					: "unrecognised line";
		}
		if (damage == out_of_memory) {
			*read_errno = ENOMEM;
			return PARSE_READ_ERROR;
		}
		if (damage)
			break;
	}
	if (damage) {
		snprintf(reason, REASON_LEN, "line %u: %s", line_number, damage);
		return PARSE_DAMAGED;
	}

	for (key = 0; key < KEY_COUNT; key++) {
		if (!state.seen[key]) {
			snprintf(reason, REASON_LEN, "missing %s", state_key_names[key]);
			return PARSE_DAMAGED;
		}
	}
	damage = check_consistency(&state, loaded);
	if (damage) {
		snprintf(reason, REASON_LEN, "%s", damage);
		return PARSE_DAMAGED;
	}

	loaded->interval_ns = state.values[KEY_INTERVAL];
	loaded->operational_intervals = state.values[KEY_OPERATIONAL_INTERVALS];
	loaded->crashfree_intervals = state.values[KEY_CRASHFREE_INTERVALS];
	loaded->crashes = state.values[KEY_CRASHES];
	*operational_progress = state.values[KEY_OPERATIONAL_PROGRESS];
	*crashfree_progress = state.values[KEY_CRASHFREE_PROGRESS];
	return PARSE_OK;
}

static void warn_line(FILE *warn, const char *format, ...)
	__attribute__((format(printf, 2, 3)));

static void warn_line(FILE *warn, const char *format, ...)
{
	va_list args;

	if (!warn)
		return;
	va_start(args, format);
	vfprintf(warn, format, args);
	va_end(args);
	fflush(warn);
}

/* Rename from to to, atomically, unless to exists: 0 or -errno (-EEXIST). */
static int rename_without_replacing(const char *from, const char *to)
{
	if (!renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* A filesystem without RENAME_NOREPLACE: link() never replaces either. */
	if (link(from, to))
		return -errno;
	if (unlink(from)) {
		int err = -errno;

		unlink(to);
		return err;
	}
	return 0;
}

/*
 * Keep the damaged file for a post-mortem under the first free name of
 * PATH.corrupt, PATH.corrupt.1, ...: an older copy is never replaced.  The
 * entry is moved only if it is still the file that was read (st).  0, or
 * -errno after one "diskio: ..." line: the file is left where it was.
 */
static int move_damaged_aside(const char *path, const struct stat *st,
			      const char *reason, FILE *warn)
{
	size_t size = strlen(path) + sizeof(".corrupt.4294967295");
	char *corrupt_path = malloc(size);
	struct stat now;
	int err = -EEXIST;

	if (!corrupt_path) {
		err = -ENOMEM;
	} else if (lstat(path, &now)) {
		err = -errno;
	} else if (now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		err = -EAGAIN;
	} else {
		for (unsigned int copy = 0; copy < CORRUPT_NAMES && err == -EEXIST; copy++) {
			if (copy)
				snprintf(corrupt_path, size, "%s.corrupt.%u", path, copy);
			else
				snprintf(corrupt_path, size, "%s.corrupt", path);
			err = rename_without_replacing(path, corrupt_path);
		}
	}
	if (!err)
		warn_line(warn, "diskio: warning: state file %s is damaged (%s); "
			  "moved aside to %s, starting fresh\n", path, reason, corrupt_path);
	else if (err == -EEXIST)
		warn_line(warn, "diskio: state file %s is damaged (%s) and %s.corrupt to "
			  "%s.corrupt.%u all exist; remove old copies or the file\n",
			  path, reason, path, path, CORRUPT_NAMES - 1);
	else if (err == -EAGAIN)
		warn_line(warn, "diskio: state file %s is damaged (%s) and was replaced while "
			  "diskio read it; try again\n", path, reason);
	else
		warn_line(warn, "diskio: state file %s is damaged (%s) and could not be moved "
			  "aside (%s); move or remove it\n", path, reason, strerror(-err));
	free(corrupt_path);
	return err;
}

/*
 * The directory that will hold the file and the saves' temporary files:
 * there, a directory, and one diskio may create files in.  0, or -errno
 * after one "diskio: ..." line.
 */
static int check_directory(const char *path, FILE *warn)
{
	char *directory = parent_directory(path);
	struct stat st;
	int err = 0;

	if (!directory) {
		warn_line(warn, "diskio: out of memory checking state file %s\n", path);
		return -ENOMEM;
	}
	if (stat(directory, &st)) {
		err = -errno;
		if (err == -ENOENT)
			warn_line(warn, "diskio: directory %s of state file %s does not exist; "
				  "create it or choose another --state path\n", directory, path);
		else
			warn_line(warn, "diskio: cannot reach directory %s of state file %s: %s; "
				  "choose another --state path\n", directory, path,
				  strerror(-err));
	} else if (!S_ISDIR(st.st_mode)) {
		err = -ENOTDIR;
		warn_line(warn, "diskio: %s, the directory of state file %s, is not a "
			  "directory; choose another --state path\n", directory, path);
	} else if (faccessat(AT_FDCWD, directory, W_OK | X_OK, AT_EACCESS)) {
		err = -errno;
		warn_line(warn, "diskio: cannot create files in directory %s of state file %s: "
			  "%s; choose another --state path\n", directory, path, strerror(-err));
	}
	free(directory);
	return err;
}

static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFDIR:
		return "a directory";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	default:
		return "not a regular file";
	}
}

/*
 * Whether the entry st describes may be read as diskio's state: a regular
 * file (never a symlink, FIFO or device, which are not even opened) of the
 * user diskio runs as, that nobody else may write.  0, or -errno after one
 * "diskio: ..." line.
 */
static int check_file(const char *path, const struct stat *st, FILE *warn)
{
	uid_t user = geteuid();

	if (S_ISLNK(st->st_mode)) {
		warn_line(warn, "diskio: state file %s is a symbolic link, which diskio does "
			  "not follow; give the path of the file itself\n", path);
		return -ELOOP;
	}
	if (!S_ISREG(st->st_mode)) {
		warn_line(warn, "diskio: state file %s is %s, not a regular file; "
			  "choose another --state path\n", path, file_kind(st->st_mode));
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	/* Its own user's, not merely root's: the counts are that user's. */
	if (st->st_uid != user) {
		warn_line(warn, "diskio: state file %s belongs to uid %u, not to uid %u that "
			  "diskio runs as; its counts cannot be trusted: chown or remove it\n",
			  path, (unsigned int)st->st_uid, (unsigned int)user);
		return -EPERM;
	}
	switch (who_else_can_change(st, user)) {
	case NOBODY_ELSE:
		return 0;
	case ITS_OWNER:		/* not reached: the owner is user */
		return -EPERM;
	case OTHERS:
	case ITS_GROUP:
		break;
	}
	warn_line(warn, "diskio: state file %s is writable by %s (mode %04o); its counts "
		  "cannot be trusted: chmod go-w or remove it\n", path,
		  (st->st_mode & S_IWOTH) ? "others" : "its group",
		  (unsigned int)(st->st_mode & 07777));
	return -EPERM;
}

/*
 * Open the entry checked as seen_st, without following a symlink or
 * blocking on a FIFO put there since, and make sure it is the same file.
 * A FILE, or NULL with *err set after one "diskio: ..." line.
 */
static FILE *open_checked(const char *path, const struct stat *seen_st, FILE *warn,
			  int *err)
{
	struct stat st;
	FILE *in;
	int fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		*err = -errno;
		warn_line(warn, "diskio: cannot open state file %s: %s; "
			  "fix its permissions or remove it\n", path, strerror(-*err));
		return NULL;
	}
	if (fstat(fd, &st)) {
		*err = -errno;
		warn_line(warn, "diskio: cannot read state file %s: %s; fix or remove it\n",
			  path, strerror(-*err));
		close(fd);
		return NULL;
	}
	if (st.st_dev != seen_st->st_dev || st.st_ino != seen_st->st_ino) {
		*err = -EAGAIN;
		warn_line(warn, "diskio: state file %s was replaced while diskio read it; "
			  "try again\n", path);
		close(fd);
		return NULL;
	}
	in = fdopen(fd, "r");
	if (!in) {
		*err = -errno;
		warn_line(warn, "diskio: cannot read state file %s: %s; fix or remove it\n",
			  path, strerror(-*err));
		close(fd);
	}
	return in;
}

/*
 * Whether in starts as a state file of any version does: the magic, then a
 * space or the end of the line.  Rewinds in.  0, or -errno of a read error.
 */
static int read_magic(FILE *in, bool *is_state_file)
{
	char start[sizeof(STATE_MAGIC)];
	size_t magic_len = sizeof(STATE_MAGIC) - 1;
	size_t got;

	errno = 0;
	got = fread(start, 1, sizeof(start), in);
	if (ferror(in))
		return errno_or_eio();
	*is_state_file = got == sizeof(start) && !memcmp(start, STATE_MAGIC, magic_len) &&
			 (start[magic_len] == ' ' || start[magic_len] == '\n');
	rewind(in);
	return 0;
}

/* Seconds for humans: "3600", "0.5". */
static void format_seconds(char *text, size_t size, uint64_t ns)
{
	uint64_t fraction = ns % NSEC_PER_SEC;
	size_t len;

	if (!fraction) {
		snprintf(text, size, "%" PRIu64, ns / NSEC_PER_SEC);
		return;
	}
	snprintf(text, size, "%" PRIu64 ".%09" PRIu64, ns / NSEC_PER_SEC, fraction);
	len = strlen(text);
	while (len && text[len - 1] == '0')
		text[--len] = '\0';
}

int crashfree_load(struct crashfree *cf, const char *path, uint64_t interval_ns,
		   uint64_t now_ns, FILE *warn)
{
	uint64_t operational_progress = 0, crashfree_progress = 0;
	char reason[REASON_LEN] = "";
	struct crashfree loaded;
	enum parse_result result;
	bool is_state_file = false;	/* gcc -O1 cannot see read_magic() set it */
	int read_errno = 0, err;
	struct stat st;
	FILE *in;

	crashfree_init(cf, interval_ns, now_ns);

	err = check_directory(path, warn);
	if (err)
		return err;
	if (lstat(path, &st)) {
		err = errno;
		if (err == ENOENT)
			return CRASHFREE_LOAD_NO_FILE;
		warn_line(warn, "diskio: cannot look at state file %s: %s; "
			  "choose another --state path\n", path, strerror(err));
		return -err;
	}
	err = check_file(path, &st, warn);
	if (err)
		return err;
	in = open_checked(path, &st, warn, &err);
	if (!in)
		return err;

	err = read_magic(in, &is_state_file);
	if (err) {
		fclose(in);
		warn_line(warn, "diskio: cannot read state file %s: %s; fix or remove it\n",
			  path, strerror(-err));
		return err;
	}
	if (!is_state_file) {
		fclose(in);
		warn_line(warn, "diskio: %s is not a diskio state file (it does not start with "
			  "\"" STATE_MAGIC "\"); leaving it alone: choose another --state "
			  "path\n", path);
		return -EBADMSG;
	}

	crashfree_init(&loaded, interval_ns, now_ns);
	result = parse_state(in, &loaded, &operational_progress, &crashfree_progress,
			     reason, &read_errno);
	fclose(in);

	if (result == PARSE_READ_ERROR) {
		crashfree_free(&loaded);
		warn_line(warn, "diskio: cannot read state file %s: %s; "
			  "fix or remove it\n", path, strerror(read_errno));
		return -read_errno;
	}
	if (result == PARSE_DAMAGED) {
		crashfree_free(&loaded);
		err = move_damaged_aside(path, &st, reason, warn);
		return err ? err : CRASHFREE_LOAD_DAMAGED;
	}

	if (loaded.interval_ns != cf->interval_ns) {
		char saved_seconds[48], requested_seconds[48];

		format_seconds(saved_seconds, sizeof(saved_seconds), loaded.interval_ns);
		format_seconds(requested_seconds, sizeof(requested_seconds),
			       cf->interval_ns);
		warn_line(warn, "diskio: note: state file %s counted %s-second intervals, "
			  "now %s: interval counts restart, crash counts kept\n",
			  path, saved_seconds, requested_seconds);
		loaded.interval_ns = cf->interval_ns;
		loaded.operational_intervals = 0;
		loaded.crashfree_intervals = 0;
		operational_progress = 0;
		crashfree_progress = 0;
	}
	/* Modular: wraps below the clock's zero if diskio started soon after boot. */
	loaded.operational_mark_ns = now_ns - operational_progress;
	loaded.crashfree_mark_ns = now_ns - crashfree_progress;
	*cf = loaded;
	return 0;
}
