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

/* Said once while writes fail (a full disk), not at every frame. */
static void say(struct history_writer *w, const char *what, const char *path, int err)
{
	if (w->warn && !w->failed)
		fprintf(w->warn, "diskio: --record: %s %s: %s\n", what, path, strerror(err));
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
 * (*keep), the index of its chunks rebuilt into idx, and the time of its
 * last frame (*last_ns, 0: none).  A record whose CRC differs is passed
 * over to the next whole one.
 */
static void scan_file(struct history_writer *w, const uint8_t *buf, size_t len, uint64_t *keep,
		      struct hbuf *idx, uint64_t *last_ns)
{
	uint64_t header_offset = 0, header_end = 0;
	size_t off = HISTORY_MAGIC_LEN;

	*keep = off;
	*last_ns = 0;
	while (off < len) {
		struct history_record r;
		uint8_t e[HISTORY_INDEX_ENTRY];

		if (history_record_get(buf, len, off, &r) == HISTORY_RECORD_OK) {
			/* a copy stands for its header where that was damaged */
			if (r.type == HISTORY_REC_HEADER ||
			    (r.type == HISTORY_REC_HEADER_COPY && off != header_end))
				header_offset = off;
			if (r.type == HISTORY_REC_HEADER || r.type == HISTORY_REC_HEADER_COPY)
				header_end = r.end;
			if ((r.type == HISTORY_REC_CHUNK || r.type == HISTORY_REC_FRAME) &&
			    r.body_len >= 8)
				*last_ns = get_le64(r.body);
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

/* The records put in w->record written; a failure cuts them back, so
 * that the file ends at a whole record. */
static int write_records(struct history_writer *w)
{
	int err = write_all(w->fd, w->record.bytes, w->record.len);

	if (err) {
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
	int n = scandir(w->dir, &names, NULL, alphasort);
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
		char path[4096];
		struct stat st;

		if (strlen(name) == 14 && !strcmp(name + 10, ".dkr") &&
		    snprintf(path, sizeof(path), "%s/%s", w->dir, name) < (int)sizeof(path) &&
		    !stat(path, &st))
			total += st.st_size;
	}
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char day[16], path[4096];
		struct stat st;

		if (strlen(name) != 14 || strcmp(name + 10, ".dkr"))
			continue;
		memcpy(day, name, 10);
		day[10] = '\0';
		if (!strcmp(day, w->day))
			break;
		if (strcmp(day, oldest_kept) >= 0 && (!w->max_bytes || total <= w->max_bytes))
			break;
		if (!history_day_path(path, sizeof(path), w->dir, day, ".dkr") || stat(path, &st))
			continue;
		if (unlink(path) == 0)
			total -= st.st_size;
		if (history_day_path(path, sizeof(path), w->dir, day, ".dki"))
			unlink(path);
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

/* A magic a flipped byte damaged, before whole records: put right. */
static int repair_magic(struct history_writer *w, enum history_magic magic, const char *path)
{
	if (magic != HISTORY_MAGIC_DAMAGED)
		return 0;
	if (pwrite(w->fd, HISTORY_MAGIC, HISTORY_MAGIC_LEN, 0) != HISTORY_MAGIC_LEN)
		return -errno ?: -EIO;
	w->magic_repaired = true;
	if (w->warn)
		fprintf(w->warn, "diskio: --record: %s: its first 8 bytes were damaged; put right\n",
			path);
	return 0;
}

/* The run's header, and its copy right after it (one flipped byte leaves
 * the other). */
static int write_header(struct history_writer *w)
{
	struct hbuf head = { 0 };
	int err;

	w->header_offset = w->size;
	w->record.len = 0;
	err = history_header_encode(&w->header, &head) ?:
	      history_record_put(&w->record, HISTORY_REC_HEADER, head.bytes, head.len) ?:
	      history_record_put(&w->record, HISTORY_REC_HEADER_COPY, head.bytes, head.len) ?:
	      write_records(w);
	hbuf_free(&head);
	return err;
}

/* The day file's last frame, found at its open: no run recorded from its
 * time to this run's next frame, a gap to mark unless this run's own. */
static void note_last_frame(struct history_writer *w, uint64_t last_ns)
{
	if (!last_ns)
		return;
	w->recorded_ns = last_ns;
	w->gap_open = true;
}

/* A sync that fails on the way is said; the end's is the run's error. */
static int sync_and_say(struct history_writer *w)
{
	int err = sync_files(w);

	if (err && w->warn)
		fprintf(w->warn, "diskio: --record: cannot sync in %s: %s\n", w->dir,
			strerror(-err));
	return err;
}

/* The day file of day opened for appending: cut back to its last whole
 * record, its index rebuilt, and this run's header written. */
static int open_day(struct history_writer *w, const char *day)
{
	char path[4096], index_path[4096];
	struct hbuf idx = { 0 };
	struct stat st;
	uint64_t keep = 0, last_ns = 0;
	enum history_magic magic = HISTORY_MAGIC_OK;
	int err = 0;

	if (!history_day_path(path, sizeof(path), w->dir, day, ".dkr") ||
	    !history_day_path(index_path, sizeof(index_path), w->dir, day, ".dki"))
		return -ENAMETOOLONG;
	w->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0640);
	if (w->fd < 0 || fstat(w->fd, &st)) {
		err = -errno;
		say(w, "cannot open", path, -err);
		close_files(w);
		return err;
	}
	if ((size_t)st.st_size >= HISTORY_MAGIC_LEN) {
		uint8_t *buf = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, w->fd, 0);

		if (buf == MAP_FAILED) {
			err = -errno;
		} else if ((magic = history_magic_of(buf, st.st_size)) == HISTORY_MAGIC_NONE) {
			err = -EBADMSG;
		} else {
			scan_file(w, buf, st.st_size, &keep, &idx, &last_ns);
			w->cut_bytes = st.st_size - keep;
		}
		if (buf != MAP_FAILED)
			munmap(buf, st.st_size);
	} else if (st.st_size) {
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
	err = repair_magic(w, magic, path);
	if (!err && !keep) {
		if (ftruncate(w->fd, 0) || pwrite(w->fd, HISTORY_MAGIC, HISTORY_MAGIC_LEN, 0) !=
		    HISTORY_MAGIC_LEN)
			err = -errno;
		keep = HISTORY_MAGIC_LEN;
	} else if (!err && keep < (uint64_t)st.st_size && ftruncate(w->fd, keep)) {
		err = -errno;
	}
	if (!err && lseek(w->fd, keep, SEEK_SET) < 0)
		err = -errno;
	w->size = keep;
	/* The index, rebuilt from what the data holds: never ahead of it. */
	w->index_fd = err ? -1 : open(index_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (!err && (w->index_fd < 0 || write_all(w->index_fd, idx.bytes, idx.len)))
		err = -errno ?: -EIO;
	w->index_size = idx.len;
	hbuf_free(&idx);
	if (!err)
		err = write_header(w);
	if (!err)
		note_last_frame(w, last_ns);
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

/* A gap record from..to put in w->record. */
static int put_gap(struct history_writer *w, uint64_t from_ns, uint64_t to_ns)
{
	uint8_t body[HISTORY_GAP_BODY];

	put_le64(body, from_ns);
	put_le64(body + 8, to_ns);
	return history_record_put(&w->record, HISTORY_REC_GAP, body, sizeof(body));
}

/*
 * The open gap, if any, put in w->record before the frame of time_ns
 * that follows it (interval_s long): from the file's last frame to this
 * frame's start, or to the last frame not written when that is later.
 */
static int put_open_gap(struct history_writer *w, uint64_t time_ns, double interval_s)
{
	uint64_t length_ns = interval_s > 0 ? (uint64_t)(interval_s * 1e9) : 0;
	uint64_t to_ns = time_ns > length_ns ? time_ns - length_ns : 0;

	if (!w->gap_open)
		return 0;
	if (w->unrecorded && w->unrecorded_to_ns > to_ns)
		to_ns = w->unrecorded_to_ns;
	/* Less than the millisecond that times are shown to (or a run that
	 * began before the last frame it found ended) is no gap. */
	return to_ns >= w->recorded_ns + HISTORY_GAP_MIN_NS ?
	       put_gap(w, w->recorded_ns, to_ns) : 0;
}

/* A frame written: the gap before it, if any, is closed. */
static void frame_recorded(struct history_writer *w, uint64_t time_ns)
{
	if (w->unrecorded) {
		w->gaps++;
		if (w->warn)
			fprintf(w->warn, "diskio: --record: recording again in %s; the %llu frames "
				"not written are marked as a gap\n", w->dir,
				(unsigned long long)w->unrecorded);
	}
	w->gap_open = false;
	w->failed = false;
	w->unrecorded = 0;
	w->recorded_ns = time_ns;
}

/* The index entry of a chunk: a write that fails is cut back, so that the
 * entries stay 32 bytes apart; the next open rebuilds what is missing. */
static void write_index_entry(struct history_writer *w, uint64_t time_ns, uint64_t offset)
{
	uint8_t e[HISTORY_INDEX_ENTRY];

	index_entry(e, time_ns, offset, w->header_offset);
	if (write_all(w->index_fd, e, sizeof(e))) {
		if (!ftruncate(w->index_fd, w->index_size))
			lseek(w->index_fd, w->index_size, SEEK_SET);
		return;
	}
	w->index_size += sizeof(e);
}

static int append_frame(struct history_writer *w, const struct frame *f)
{
	uint64_t time_ns = (uint64_t)f->wall.tv_sec * 1000000000ULL + f->wall.tv_nsec;
	bool chunk = !w->chunk_frames || w->chunk_frames >= HISTORY_CHUNK_FRAMES ||
		     f->wall.tv_sec - w->chunk_start_s >= HISTORY_CHUNK_SECONDS;
	uint64_t offset;
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
	w->record.len = 0;
	put_le64(stamp, time_ns);
	err = history_frame_encode(f, w->stacks, &w->names, &w->frame) ?:
	      hbuf_put(&w->body, stamp, 8) ?: put_open_gap(w, time_ns, f->interval_s);
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
	/* the gap and the frame after it go in one write, or neither */
	offset = w->size + w->record.len;
	err = history_record_put(&w->record, chunk ? HISTORY_REC_CHUNK : HISTORY_REC_FRAME,
				 w->body.bytes, w->body.len) ?: write_records(w);
	if (err) {
		w->chunk_frames = 0;	/* the stream lost a frame: the next starts anew */
		return err;
	}
	w->chunk_frames++;
	frame_recorded(w, time_ns);
	if (chunk)
		write_index_entry(w, time_ns, offset);
	return 0;
}

/* Frame f of time_ns could not be written: the gap it opens (or widens)
 * is marked before the next frame that can be. */
static void frame_unrecorded(struct history_writer *w, uint64_t time_ns, int err)
{
	/* no frame before it, of this run or in the file: from the run's start */
	if (!w->recorded_ns)
		w->recorded_ns = (uint64_t)w->header.start_s * 1000000000ULL;
	w->gap_open = true;
	w->unrecorded++;
	w->frames_unrecorded++;
	w->unrecorded_to_ns = time_ns;
	if (!w->failed) {
		w->failed = true;
		if (w->warn)
			fprintf(w->warn, "diskio: --record: cannot record in %s: %s; the frames not "
				"written will be marked as a gap\n", w->dir, strerror(-err));
	}
}

int history_writer_frame(struct history_writer *w, const struct frame *f, uint64_t now_ns)
{
	uint64_t time_ns = (uint64_t)f->wall.tv_sec * 1000000000ULL + f->wall.tv_nsec;
	char day[16];
	int err = 0;

	history_day_of(f->wall.tv_sec, day);
	if (w->fd >= 0 && strcmp(day, w->day)) {
		sync_and_say(w);
		close_files(w);
	}
	if (w->fd < 0) {
		err = open_day(w, day);
		if (!err && !w->synced_ns)
			w->synced_ns = now_ns;
	}
	if (!err)
		err = append_frame(w, f);
	if (err) {
		frame_unrecorded(w, time_ns, err);
		return err;
	}
	if (now_ns - w->synced_ns >= HISTORY_SYNC_NS) {
		err = sync_and_say(w);
		w->synced_ns = now_ns;
	}
	return err;
}

uint64_t history_writer_gaps(const struct history_writer *w)
{
	/* the open gap, which the finish marks where it has a file to */
	return w->gaps + (w->unrecorded && w->fd >= 0 ? 1 : 0);
}

int history_writer_finish(struct history_writer *w)
{
	int err = 0;

	/* Frames not written at the end: their gap, from the last frame to
	 * the last of them, is the record's last word. */
	if (w->unrecorded) {
		if (w->fd < 0) {
			err = -EIO;
		} else {
			w->record.len = 0;
			err = put_gap(w, w->recorded_ns, w->unrecorded_to_ns) ?: write_records(w);
		}
		if (!err) {
			w->gaps++;
			w->unrecorded = 0;
			w->gap_open = false;
		}
	}
	err = sync_files(w) ?: err;
	close_files(w);
	return err;
}

void history_writer_free(struct history_writer *w)
{
	close_files(w);
	if (w->z_ready)
		deflateEnd(&w->z);
	w->z_ready = false;
	hbuf_free(&w->frame);
	hbuf_free(&w->body);
	hbuf_free(&w->record);
	history_names_out_free(&w->names);
}
