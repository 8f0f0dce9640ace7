// SPDX-License-Identifier: GPL-2.0
/* --record's files (history_write.h; the bytes are doc/record-format.md's). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "history_write.h"
#include "root_only.h"

void history_day_of(int64_t t, char day[16])
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	strftime(day, 16, "%Y-%m-%d", &tm);
}

bool history_day_path(char *path, size_t size, const char *dir, const char *day,
		      const char *suffix)
{
	int n = snprintf(path, size, "%s/%s%s", dir, day, suffix);

	return n > 0 && (size_t)n < size;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = v >> (8 * i);
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void say(struct history_writer *w, const char *what, const char *path, int err)
{
	if (w->warn)
		fprintf(w->warn, "diskio: --record: %s %s: %s\n", what, path, strerror(err));
}

/* name in the record's directory, opened by root_only.h's rule (no
 * symlink, no hard link, root's, mode 0600): a descriptor, or -errno after
 * one line. */
static int open_in_dir(struct history_writer *w, const char *name, int flags)
{
	char why[REFUSAL_SIZE];
	int fd = open_file_to_write(w->dirfd, name, flags, 0600, geteuid(), why);

	if (fd < 0 && w->warn)
		fprintf(w->warn, "diskio: --record: %s/%s %s; diskio writes there only to a "
			"regular file of root's: remove it\n", w->dir, name, why);
	return fd;
}

static int write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t done = write(fd, p, n);

		if (done < 0 && errno == EINTR)
			continue;
		if (done <= 0)
			return done < 0 ? -errno : -EIO;
		p = (const char *)p + done;
		n -= done;
	}
	return 0;
}

int history_writer_init(struct history_writer *w)
{
	w->fd = w->index_fd = -1;
	w->day[0] = '\0';
	memset(&w->z, 0, sizeof(w->z));
	/* Raw deflate: each chunk one stream, without zlib's header. */
	if (deflateInit2(&w->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -ENOMEM;
	w->z_ready = true;
	return 0;
}

/* One index entry for the chunk at offset. */
static void index_entry(uint8_t e[HISTORY_INDEX_ENTRY], uint64_t time_ns, uint64_t offset,
			uint64_t header_offset)
{
	memset(e, 0, HISTORY_INDEX_ENTRY);
	put_le64(e, time_ns);
	put_le64(e + 8, offset);
	put_le64(e + 16, header_offset);
	{
		uint32_t crc = crc32(0, e, 24);

		for (int i = 0; i < 4; i++)
			e[24 + i] = crc >> (8 * i);
	}
}

/*
 * The day file's records as they are: the end of the last whole one
 * (*keep), the index of its chunks rebuilt into idx, and the last header
 * seen.  A record whose CRC differs is passed over to the next whole one.
 */
static void scan_file(struct history_writer *w, const uint8_t *buf, size_t len, uint64_t *keep,
		      struct hbuf *idx)
{
	uint64_t header_offset = 0;
	size_t off = HISTORY_MAGIC_LEN;

	*keep = off;
	while (off < len) {
		struct history_record r;
		uint8_t e[HISTORY_INDEX_ENTRY];

		if (history_record_get(buf, len, off, &r) == HISTORY_RECORD_OK) {
			if (r.type == HISTORY_REC_HEADER)
				header_offset = off;
			if (r.type == HISTORY_REC_CHUNK && r.body_len >= 8) {
				index_entry(e, get_le64(r.body), off, header_offset);
				hbuf_put(idx, e, sizeof(e));
			}
			off = *keep = r.end;
			continue;
		}
		/* Damage: the next whole record, if any, goes on from there;
		 * with none after it, the tail was torn: cut from *keep on. */
		off = history_next_record(buf, len, off);
		if (off < len)
			w->bad_records++;
	}
}

static int write_record(struct history_writer *w, uint8_t type, const void *body, size_t len)
{
	int err;

	w->record.len = 0;
	err = history_record_put(&w->record, type, body, len);
	if (!err)
		err = write_all(w->fd, w->record.bytes, w->record.len);
	if (err) {
		/* A record half written is cut: the file ends at a whole one. */
		if (ftruncate(w->fd, w->size))
			err = -errno;
		return err;
	}
	w->size += w->record.len;
	return 0;
}

/* Whole files out, oldest first, past the days or the bytes kept; never
 * the day being written. */
static void retire_files(struct history_writer *w)
{
	struct dirent **names = NULL;
	int n = scandirat(w->dirfd, ".", &names, NULL, alphasort);
	char oldest_kept[16] = "";
	uint64_t total = 0;

	if (n < 0)
		return;
	if (w->keep_days && w->day[0]) {
		struct tm tm = { 0 };

		if (strptime(w->day, "%Y-%m-%d", &tm)) {
			time_t t = timegm(&tm) - (time_t)(w->keep_days - 1) * 86400;

			history_day_of(t, oldest_kept);
		}
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		struct stat st;

		if (strlen(name) == 14 && !strcmp(name + 10, ".dkr") &&
		    !fstatat(w->dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
			total += st.st_size;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char day[16], index_name[24];
		struct stat st;

		if (strlen(name) != 14 || strcmp(name + 10, ".dkr"))
			continue;
		memcpy(day, name, 10);
		day[10] = '\0';
		if (!strcmp(day, w->day))
			break;
		if (strcmp(day, oldest_kept) >= 0 && (!w->max_bytes || total <= w->max_bytes))
			break;
		if (fstatat(w->dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		/* unlinkat() removes an entry, never what a symlink names */
		if (unlinkat(w->dirfd, name, 0) == 0)
			total -= st.st_size;
		snprintf(index_name, sizeof(index_name), "%s.dki", day);
		unlinkat(w->dirfd, index_name, 0);
	}
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static void close_files(struct history_writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	if (w->index_fd >= 0)
		close(w->index_fd);
	w->fd = w->index_fd = -1;
}

static int sync_files(struct history_writer *w)
{
	int err = 0;

	/* The data first: an index entry never points past what is durable. */
	if (w->fd >= 0 && fdatasync(w->fd))
		err = -errno;
	if (w->index_fd >= 0 && fdatasync(w->index_fd) && !err)
		err = -errno;
	return err;
}

/* Whether fd of size bytes starts as a record does: the magic, or with
 * fewer bytes its start (a record whose first write was cut short, begun
 * anew); anything else is no file of diskio's, never overwritten.  0 or
 * -EBADMSG (-errno). */
static int starts_as_magic(int fd, size_t size)
{
	uint8_t start[HISTORY_MAGIC_LEN];

	if (size > HISTORY_MAGIC_LEN)
		size = HISTORY_MAGIC_LEN;
	if (pread(fd, start, size, 0) != (ssize_t)size)
		return -errno ?: -EIO;
	return memcmp(start, HISTORY_MAGIC, size) ? -EBADMSG : 0;
}

int history_writer_check_day(struct history_writer *w, const char *day)
{
	static const char *const suffixes[] = { ".dkr", ".dki" };

	for (int i = 0; i < 2; i++) {
		char name[24];
		struct stat st;
		int fd, err = 0;

		snprintf(name, sizeof(name), "%s%s", day, suffixes[i]);
		if (fstatat(w->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
			continue;
		fd = open_in_dir(w, name, O_RDWR);
		if (fd < 0)
			return fd;
		if (i == 0 && !fstat(fd, &st))
			err = starts_as_magic(fd, st.st_size);
		close(fd);
		if (err) {
			if (w->warn)
				fprintf(w->warn, "diskio: --record: %s/%s is not a record of "
					"diskio; move it away or choose another directory\n",
					w->dir, name);
			return err;
		}
	}
	return 0;
}

/* The day file of day opened for appending: cut back to its last whole
 * record, its index rebuilt, and this run's header written. */
static int open_day(struct history_writer *w, const char *day)
{
	char path[4096], name[24], index_name[24];
	struct hbuf idx = { 0 };
	struct stat st;
	uint64_t keep = 0;
	int err = 0;

	if (!history_day_path(path, sizeof(path), w->dir, day, ".dkr"))
		return -ENAMETOOLONG;
	snprintf(name, sizeof(name), "%s.dkr", day);
	snprintf(index_name, sizeof(index_name), "%s.dki", day);
	w->fd = open_in_dir(w, name, O_RDWR | O_CREAT);
	if (w->fd < 0)
		return w->fd;
	if (fstat(w->fd, &st)) {
		err = -errno;
		say(w, "cannot open", path, -err);
		close_files(w);
		return err;
	}
	if ((size_t)st.st_size >= HISTORY_MAGIC_LEN) {
		uint8_t *buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, w->fd, 0);

		if (buf == MAP_FAILED) {
			err = -errno;
		} else if (memcmp(buf, HISTORY_MAGIC, HISTORY_MAGIC_LEN)) {
			err = -EBADMSG;
		} else {
			scan_file(w, buf, st.st_size, &keep, &idx);
			w->cut_bytes = st.st_size - keep;
		}
		if (buf != MAP_FAILED)
			munmap(buf, st.st_size);
	} else if (st.st_size) {
		err = starts_as_magic(w->fd, st.st_size);
		w->cut_bytes = st.st_size;	/* a magic cut short: begun anew */
	}
	if (err) {
		say(w, "not a record of diskio (or unreadable):", path, -err);
		hbuf_free(&idx);
		close_files(w);
		return err;
	}
	if (w->bad_records && w->warn)
		fprintf(w->warn, "diskio: --record: %s: %llu damaged records passed over\n", path,
			(unsigned long long)w->bad_records);
	if (!keep) {
		if (ftruncate(w->fd, 0) || pwrite(w->fd, HISTORY_MAGIC, HISTORY_MAGIC_LEN, 0) !=
		    HISTORY_MAGIC_LEN)
			err = -errno;
		keep = HISTORY_MAGIC_LEN;
	} else if (keep < (uint64_t)st.st_size && ftruncate(w->fd, keep)) {
		err = -errno;
	}
	if (!err && lseek(w->fd, keep, SEEK_SET) < 0)
		err = -errno;
	w->size = keep;
	/* The index, rebuilt from what the data holds: never ahead of it. */
	if (!err) {
		w->index_fd = open_in_dir(w, index_name, O_WRONLY | O_CREAT);
		if (w->index_fd < 0) {
			hbuf_free(&idx);
			err = w->index_fd;
			close_files(w);
			return err;		/* said */
		}
		err = ftruncate(w->index_fd, 0) ? -errno :
		      write_all(w->index_fd, idx.bytes, idx.len);
	}
	hbuf_free(&idx);
	if (!err) {
		struct hbuf head = { 0 };

		w->header_offset = w->size;
		err = history_header_encode(&w->header, &head) ?:
		      write_record(w, HISTORY_REC_HEADER, head.bytes, head.len);
		hbuf_free(&head);
	}
	if (err) {
		say(w, "cannot write", path, -err);
		close_files(w);
		return err;
	}
	snprintf(w->day, sizeof(w->day), "%s", day);
	w->chunk_frames = 0;
	retire_files(w);
	return 0;
}

static int append_frame(struct history_writer *w, const struct frame *f)
{
	uint64_t time_ns = (uint64_t)f->wall.tv_sec * 1000000000ULL + f->wall.tv_nsec;
	bool chunk = !w->chunk_frames || w->chunk_frames >= HISTORY_CHUNK_FRAMES ||
		     f->wall.tv_sec - w->chunk_start_s >= HISTORY_CHUNK_SECONDS;
	uint64_t offset = w->size;
	uint8_t stamp[8];
	int err;

	if (chunk) {
		deflateReset(&w->z);
		history_names_out_reset(&w->names);
		w->chunk_frames = 0;
		w->chunk_start_s = f->wall.tv_sec;
	}
	w->frame.len = 0;
	w->body.len = 0;
	put_le64(stamp, time_ns);
	err = history_frame_encode(f, w->stacks, &w->names, &w->frame) ?: hbuf_put(&w->body, stamp, 8);
	if (err)
		return err;
	w->z.next_in = w->frame.bytes;
	w->z.avail_in = w->frame.len;
	do {
		if (hbuf_reserve(&w->body, 65536))
			return -ENOMEM;
		w->z.next_out = w->body.bytes + w->body.len;
		w->z.avail_out = w->body.cap - w->body.len;
		if (deflate(&w->z, Z_SYNC_FLUSH) == Z_STREAM_ERROR)
			return -EIO;
		w->body.len = w->body.cap - w->z.avail_out;
	} while (w->z.avail_out == 0);
	err = write_record(w, chunk ? HISTORY_REC_CHUNK : HISTORY_REC_FRAME, w->body.bytes,
			   w->body.len);
	if (err) {
		w->chunk_frames = 0;	/* the stream lost a frame: the next starts anew */
		return err;
	}
	w->chunk_frames++;
	if (chunk) {
		uint8_t e[HISTORY_INDEX_ENTRY];

		index_entry(e, time_ns, offset, w->header_offset);
		err = write_all(w->index_fd, e, sizeof(e));
	}
	return err;
}

int history_writer_frame(struct history_writer *w, const struct frame *f, uint64_t now_ns)
{
	char day[16];
	int err = 0;

	history_day_of(f->wall.tv_sec, day);
	if (w->fd >= 0 && strcmp(day, w->day)) {
		err = sync_files(w);
		close_files(w);
	}
	if (!err && w->fd < 0) {
		err = open_day(w, day);
		if (!err && !w->synced_ns)
			w->synced_ns = now_ns;
	}
	if (!err)
		err = append_frame(w, f);
	if (!err && now_ns - w->synced_ns >= HISTORY_SYNC_NS) {
		err = sync_files(w);
		w->synced_ns = now_ns;
	}
	if (err && !w->failed) {
		w->failed = true;
		if (w->warn)
			fprintf(w->warn, "diskio: --record: cannot record in %s: %s\n", w->dir,
				strerror(-err));
	}
	return err;
}

int history_writer_finish(struct history_writer *w)
{
	int err = sync_files(w);

	close_files(w);
	return err ?: (w->failed ? -EIO : 0);
}

void history_writer_free(struct history_writer *w)
{
	close_files(w);
	if (w->dirfd >= 0)
		close(w->dirfd);
	w->dirfd = -1;
	if (w->z_ready)
		deflateEnd(&w->z);
	w->z_ready = false;
	hbuf_free(&w->frame);
	hbuf_free(&w->body);
	hbuf_free(&w->record);
	history_names_out_free(&w->names);
}
