// SPDX-License-Identifier: GPL-2.0
/*
 * --record DIR as an output (outputs.h): every frame appended to DIR's day
 * file by history_write.h, whose header says where and how the run was
 * made (host, boot, kernel, interval and the filter it used); with
 * --stacks the rows' stacks go in named by the run's symbolizer.  DIR is
 * root's and nobody else's to write (root_only.h), made 0700 with its
 * parents when missing, and held by one diskio at a time: DIR/lock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "history_write.h"
#include "msg.h"
#include "output.h"
#include "root_only.h"

struct record_file {
	struct output output;		/* first: the list holds its address */
	struct history_writer writer;
	bool stacks;			/* --stacks */
	int lock_fd;			/* DIR/lock, flock()ed while the run lasts */
};

/* "-D zram0 -p 42 -c dd --cgroup /x": the filter as given, so that a
 * replay says what the record left out. */
static void describe_filter(const struct options *opts, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
#define ADD(...) do { if (n < size) n += snprintf(buf + n, size - n, __VA_ARGS__); } while (0)
	for (uint32_t i = 0; i < opts->nr_devices; i++)
		ADD("%s-D %s", n ? " " : "", opts->devices[i]);
	for (uint32_t i = 0; i < opts->nr_pids; i++)
		ADD("%s-p %u", n ? " " : "", opts->pids[i]);
	for (uint32_t i = 0; i < opts->nr_users; i++)
		ADD("%s-u %s", n ? " " : "", opts->users[i]);
	if (opts->filter_comm)
		ADD("%s-c %s", n ? " " : "", opts->comm);
	for (uint32_t i = 0; i < opts->nr_cgroups; i++)
		ADD("%s--cgroup %s", n ? " " : "", opts->cgroups[i]);
#undef ADD
}

static void read_boot_id(char *buf, size_t size)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "re");

	buf[0] = '\0';
	if (f && fgets(buf, size, f))
		buf[strcspn(buf, "\n")] = '\0';
	if (f)
		fclose(f);
}

/*
 * DIR/lock held (flock, released when diskio ends however it ends), with
 * the holder's pid in it for the next one's message.  0, or the exit status
 * after one line.
 */
static int lock_dir(struct record_file *r)
{
	const char *dir = r->writer.dir;
	char why[REFUSAL_SIZE], pid[32];
	ssize_t n;
	int fd = open_file_to_write(r->writer.dirfd, "lock", O_RDWR | O_CREAT, 0600, geteuid(),
				    why);

	if (fd < 0) {
		fail("--record %s/lock %s; remove it", dir, why);
		return refused_to_write(fd) ? EXIT_USAGE : EXIT_START;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int err = errno;

		n = err == EWOULDBLOCK ? pread(fd, pid, sizeof(pid) - 1, 0) : -1;
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(fd);
		if (err != EWOULDBLOCK) {
			fail("cannot lock --record directory %s: %s", dir, strerror(err));
			return EXIT_START;
		}
		fail("--record %s: another diskio%s%s%s records there; stop it or choose another "
		     "directory", dir, pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
		return EXIT_RECORD_BUSY;
	}
	n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, n, 0) != n) {
		fail("cannot write --record %s/lock: %s", dir, strerror(errno));
		close(fd);
		return EXIT_START;
	}
	r->lock_fd = fd;
	return 0;
}

/* DIR opened (made when missing), locked, and today's files checked: a
 * place diskio will not write in costs nothing, and is EXIT_USAGE. */
static int check(struct output *o, uint64_t now_ns)
{
	struct record_file *r = (struct record_file *)o;
	const char *dir = r->writer.dir;
	char why[REFUSAL_SIZE], day[16];
	int fd, status, err;

	(void)now_ns;
	fd = open_dir_to_write(dir, geteuid(), true, false, why);
	if (fd < 0) {
		fail("--record %s %s; diskio records only in a directory of root's that nobody "
		     "else can write (a missing one is made, mode 0700)", dir, why);
		return refused_to_write(fd) ? EXIT_USAGE : EXIT_START;
	}
	r->writer.dirfd = fd;
	status = lock_dir(r);
	if (status)
		return status;
	history_day_of(time(NULL), day);
	err = history_writer_check_day(&r->writer, day);
	if (err)
		return refused_to_write(err) || err == -EBADMSG ? EXIT_USAGE : EXIT_START;
	return 0;
}

/* --stacks: the rows' stacks go in with their frames' names, as the run
 * names them, so that a replay needs no symbolizer. */
static void start(struct output *o, struct tally *t, uint64_t now_ns)
{
	struct record_file *r = (struct record_file *)o;

	(void)now_ns;
	if (r->stacks)
		r->writer.stacks = tally_stack_namer(t);
}

static void frame(struct output *o, const struct frame *f, uint64_t now_ns)
{
	/* A failure has been said once; the next frames try again. */
	history_writer_frame(&((struct record_file *)o)->writer, f, now_ns);
}

/* The gaps this run leaves, counting the one finish() marks. */
static void summarize(struct output *o, struct summary *s)
{
	s->recording = true;
	s->record_gaps = history_writer_gaps(&((struct record_file *)o)->writer);
}

/* Frames that could not be written and then were are a gap in the record,
 * not a failure: only a write or sync failing at the end is. */
static int finish(struct output *o, const struct output_end *end)
{
	struct record_file *r = (struct record_file *)o;
	int err = history_writer_finish(&r->writer);

	(void)end;
	if (err)
		fail("cannot finish the --record files in %s: %s", r->writer.dir, strerror(-err));
	return err ? -1 : 0;
}

static void free_output(struct output *o)
{
	struct record_file *r = (struct record_file *)o;

	history_writer_free(&r->writer);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	free(r);
}

struct output *record_file_output(const struct options *opts)
{
	struct record_file *r = calloc(1, sizeof(*r));
	struct history_header *h;
	struct utsname uts;

	if (!r)
		return NULL;
	h = &r->writer.header;
	history_header_init(h);
	if (!uname(&uts)) {
		snprintf(h->host, sizeof(h->host), "%s", uts.nodename);
		snprintf(h->kernel, sizeof(h->kernel), "%s", uts.release);
	}
	read_boot_id(h->boot_id, sizeof(h->boot_id));
	describe_filter(opts, h->filter, sizeof(h->filter));
	h->interval_ns = (uint64_t)(opts->interval_s * 1e9);
	h->start_s = time(NULL);
	r->writer.dir = opts->record_dir;
	r->writer.keep_days = opts->record_days;
	r->writer.max_bytes = opts->record_max;
	r->writer.warn = stderr;
	r->writer.dirfd = r->lock_fd = -1;
	r->stacks = opts->stacks != 0;
	if (history_writer_init(&r->writer)) {
		free(r);
		return NULL;
	}
	r->output = (struct output){
		.check = check, .start = start, .frame = frame, .summarize = summarize,
		.finish = finish, .free = free_output,
	};
	return &r->output;
}
