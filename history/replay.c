// SPDX-License-Identifier: GPL-2.0
/* --replay DIR (replay.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "array.h"
#include "history_list.h"
#include "history_read.h"
#include "history_write.h"
#include "msg.h"
#include "replay.h"
#include "replay_sum.h"
#include "replay_window.h"
#include "top.h"
#include "diagnose.h"
#include "view.h"

/* The top view's replay: every file of the window mapped, every frame's
 * place, found without inflating (history_scan_positions()). */
struct replay_files {
	struct {
		uint8_t *buf;
		size_t len;
	} *files;
	size_t nfiles, files_cap;
	struct history_position *at;
	size_t n, cap;
	const struct replay_window *window;
};

static volatile sig_atomic_t replay_stopped;

static void on_stop(int sig)
{
	(void)sig;
	replay_stopped = 1;
}

struct replay {
	const struct options *opts;
	struct replay_window window;
	struct view view;
	struct history_reader reader;
	struct replay_sum sum;		/* -a */
	struct replay_totals totals;	/* the summary */
	bool header_shown;		/* the reader's header was printed */
	bool done;			/* past --end, or stdout went away */
	/* what the exit status says (replay_status()) */
	uint64_t frames_shown;
	uint64_t damaged;		/* records passed over, files not records */
	bool failed;			/* a day file unread, out of memory */
	int diagnosis;			/* --diagnose's status (diagnose.h) */
};

/* A file of dir, whole, read-only: its bytes and length, or NULL with
 * errno set (0: the file is empty, as a recorder leaves it at first).
 * Only a regular file, reached without a symlink (ELOOP; EINVAL for the
 * rest): a replay as root does not read what another user's record
 * directory points at, nor wait on a FIFO. */
static uint8_t *map_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *p = MAP_FAILED;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), saved;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		saved = errno;
	else if (!S_ISREG(st.st_mode))
		saved = EINVAL;
	else if (!st.st_size)
		saved = 0;
	else if ((p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		saved = errno;
	else
		saved = 0;
	close(fd);
	errno = saved;
	if (p == MAP_FAILED)
		return NULL;
	*len = st.st_size;
	return p;
}

/* A day file that could not be opened: one line, and the replay ends with
 * EXIT_START (a file retired by its recorder meanwhile is no error). */
static void day_file_unread(struct replay *rp, const char *path)
{
	if (!errno || errno == ENOENT)
		return;
	fail("--replay: cannot read %s: %s", path, strerror(errno));
	rp->failed = rp->done = true;
}

/* "2026-11-26T03:00:00.000Z" of milliseconds since the epoch. */
static void format_utc_ms(char *buf, size_t size, int64_t ms)
{
	int64_t millis = (ms % 1000 + 1000) % 1000;	/* before 1970 too */
	struct timespec t = { .tv_sec = (ms - millis) / 1000, .tv_nsec = millis * 1000000 };

	format_utc(buf, size, &t);
}

/* "# record ..." or {"type":"record",...}: the run the next frames are of. */
static void show_header(struct replay *rp, const struct history_header *h)
{
	struct view *v = &rp->view;
	struct timespec start = { .tv_sec = h->start_s };
	char when[32];

	snprintf(v->host, sizeof(v->host), "%s", h->host);
	snprintf(v->record_filter, sizeof(v->record_filter), "%s", h->filter);
	if (rp->opts->diagnose_s)
		return;		/* one diagnosis of the window, nothing before it */
	if (rp->opts->output == OUTPUT_JSON) {
		struct jsonw *w = &v->json;

		jsonw_object(w, NULL);
		json_write_record_head(w, "record", &start, v->host);
		jsonw_string(w, "boot_id", h->boot_id, strlen(h->boot_id));
		jsonw_string(w, "kernel", h->kernel, strlen(h->kernel));
		jsonw_double(w, "interval_s", "%g", (double)h->interval_ns / 1e9);
		if (h->filter[0])
			jsonw_string(w, "filter", h->filter, strlen(h->filter));
		else
			jsonw_null(w, "filter");
		jsonw_object_end(w);
		jsonw_end_record(w);
		return;
	}
	format_utc(when, sizeof(when), &start);
	fprintf(v->out, "# record time=%s host=", when);
	batch_write_name(v->out, h->host, strlen(h->host));
	fputs(" boot_id=", v->out);
	batch_write_name(v->out, h->boot_id, strlen(h->boot_id));
	fputs(" kernel=", v->out);
	batch_write_name(v->out, h->kernel, strlen(h->kernel));
	fprintf(v->out, " interval_s=%g filter=", (double)h->interval_ns / 1e9);
	batch_write_name(v->out, h->filter, strlen(h->filter));
	fputc('\n', v->out);
}

/* "# gap FROM TO" or {"type":"gap","from":…,"to":…}: time the record holds
 * no frame of (frames that could not be written, or no recorder ran), when
 * it meets the window. */
static void show_gap(struct replay *rp, uint64_t from_ns, uint64_t to_ns)
{
	struct timespec from = { .tv_sec = from_ns / 1000000000ULL,
				 .tv_nsec = from_ns % 1000000000ULL };
	struct timespec to = { .tv_sec = to_ns / 1000000000ULL, .tv_nsec = to_ns % 1000000000ULL };
	struct view *v = &rp->view;
	char from_text[32], to_text[32];

	if ((int64_t)(to_ns / 1000000ULL) < rp->window.begin_ms ||
	    (int64_t)(from_ns / 1000000ULL) > rp->window.end_ms || rp->opts->diagnose_s)
		return;
	format_utc(from_text, sizeof(from_text), &from);
	format_utc(to_text, sizeof(to_text), &to);
	if (rp->opts->output == OUTPUT_JSON) {
		jsonw_object(&v->json, NULL);
		jsonw_string(&v->json, "type", "gap", 3);
		jsonw_string(&v->json, "from", from_text, strlen(from_text));
		jsonw_string(&v->json, "to", to_text, strlen(to_text));
		jsonw_object_end(&v->json);
		jsonw_end_record(&v->json);
		return;
	}
	fprintf(v->out, "# gap %s %s\n", from_text, to_text);
}

/* The stacks of the frame r read, named as recorded: NULL when the run had
 * no --stacks (or shown is false). */
static const struct stack_namer *recorded_stacks(const struct history_reader *r, bool shown)
{
	return shown && r->frame.stacks_on ? &r->frame.namer : NULL;
}

static void show_frame(struct replay *rp, struct frame *f)
{
	if (!replay_window_holds(&rp->window, &f->wall)) {
		int64_t ms = (int64_t)f->wall.tv_sec * 1000 + f->wall.tv_nsec / 1000000;

		rp->done = ms > rp->window.end_ms;
		return;
	}
	/* The column line waits for the first frame: a replay with none
	 * prints nothing on stdout. */
	if (!rp->frames_shown && rp->view.start)
		rp->view.start(&rp->view);
	if (!rp->header_shown) {
		show_header(rp, &rp->reader.header);
		rp->header_shown = true;
	}
	rp->frames_shown++;
	/* -a: the window's totals; else the frame as the run showed it (its
	 * changes, or with the run's -a its totals since the run's start). */
	if (replay_totals_add(&rp->totals, f) ||
	    (rp->opts->cumulative && replay_sum_add(&rp->sum, f, rp->opts->sort))) {
		fail("out of memory");
		rp->failed = rp->done = true;
		return;
	}
	if (rp->opts->cumulative)
		f->cumulative = true;
	/* -a sums no stacks: the window's rows show none */
	rp->view.stacks = recorded_stacks(&rp->reader, !rp->opts->cumulative);
	view_show_frame(&rp->view, f);
	if (fflush(rp->view.out) || ferror(rp->view.out))
		rp->done = true;	/* a reader that went away (| head) */
}

/* The window's summary, as a live run ends (batch and JSON; none when no
 * frame was shown, or when stdout went away). */
static void show_summary(struct replay *rp)
{
	struct summary s;

	if (!rp->view.summary || ferror(rp->view.out) || !replay_totals_summary(&rp->totals, &s))
		return;
	rp->view.summary(&rp->view, &s);
}

static int add_position(const struct history_position *p, void *arg)
{
	struct replay_files *rf = arg;
	struct timespec t = { .tv_sec = p->time_ns / 1000000000ULL,
			      .tv_nsec = p->time_ns % 1000000000ULL };

	if (!replay_window_holds(rf->window, &t))
		return 0;
	if (array_reserve((void **)&rf->at, &rf->cap, rf->n + 1, sizeof(*rf->at)))
		return -ENOMEM;
	rf->at[rf->n] = *p;
	rf->at[rf->n++].file = rf->nfiles;
	return 0;
}

/* For the top view: the day file's frames in the window, their places. */
static void find_frames(struct replay *rp, struct replay_files *rf, const char *path)
{
	size_t len = 0;
	uint8_t *buf = map_file(path, &len);

	if (!buf) {
		day_file_unread(rp, path);
		return;
	}
	if (history_magic_of(buf, len) == HISTORY_MAGIC_NONE) {
		warn("--replay: %s is not a record of diskio", path);
		rp->damaged++;
		munmap(buf, len);
		return;
	}
	if (array_reserve((void **)&rf->files, &rf->files_cap, rf->nfiles + 1,
			  sizeof(*rf->files))) {
		fail("out of memory");
		rp->failed = rp->done = true;
		munmap(buf, len);
		return;
	}
	rf->window = &rp->window;
	if (history_scan_positions(buf, len, add_position, rf)) {
		fail("out of memory");
		rp->failed = rp->done = true;
	}
	rf->files[rf->nfiles].buf = buf;
	rf->files[rf->nfiles++].len = len;
}

/* Frame i of rf on the top view. */
static bool read_at(struct replay *rp, struct replay_files *rf, size_t i)
{
	const struct history_position *p = &rf->at[i];

	return history_reader_at(&rp->reader, rf->files[p->file].buf, rf->files[p->file].len,
				 p) == HISTORY_FRAME;
}

/* Frame i of the window; with -a the window's totals from its first frame
 * to frame i, summed anew at each step (a step back forgets what it left). */
static void show_at(struct replay *rp, struct replay_files *rf, size_t i)
{
	struct frame *f = &rp->reader.frame.frame;

	if (rp->opts->cumulative) {
		replay_sum_free(&rp->sum);
		if (replay_sum_init(&rp->sum)) {
			fail("out of memory");
			return;
		}
		for (size_t k = 0; k < i; k++) {
			if (read_at(rp, rf, k) && replay_sum_add(&rp->sum, f, rp->opts->sort)) {
				fail("out of memory");
				return;
			}
		}
	}
	if (!read_at(rp, rf, i))
		return;
	if (rp->opts->cumulative) {
		if (replay_sum_add(&rp->sum, f, rp->opts->sort)) {
			fail("out of memory");
			return;
		}
		f->cumulative = true;
	}
	snprintf(rp->view.host, sizeof(rp->view.host), "%s", rp->reader.header.host);
	snprintf(rp->view.record_filter, sizeof(rp->view.record_filter), "%s",
		 rp->reader.header.filter);
	rp->view.record_interval_s = (double)rp->reader.header.interval_ns / 1e9;
	rp->view.record_gap_from_ns = rf->at[i].gap_from_ns;
	rp->view.record_gap_to_ns = rf->at[i].gap_to_ns;
	/* -a sums no stacks: the window's rows show none */
	rp->view.stacks = recorded_stacks(&rp->reader, !rp->opts->cumulative);
	view_show_frame(&rp->view, f);
	fflush(rp->view.out);
}

/* Now, in milliseconds since the epoch: what times before now count from. */
static int64_t now_ms(void)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* The first frame at or after the time text names, or i when it is none. */
static size_t frame_at(const struct replay_files *rf, const char *text, size_t i)
{
	int64_t ms;

	if (replay_parse_time(text, now_ms(), &ms))
		return i;
	for (size_t k = 0; k < rf->n; k++)
		if ((int64_t)(rf->at[k].time_ns / 1000000ULL) >= ms)
			return k;
	return rf->n - 1;
}

/* The top view steps through the window's frames: [ and ] one back and on,
 * g to a time; q, Ctrl-C or SIGTERM end it. */
static void replay_top(struct replay *rp, struct replay_files *rf)
{
	struct sigaction stop = { .sa_handler = on_stop };
	size_t i = 0;

	sigaction(SIGINT, &stop, NULL);
	sigaction(SIGTERM, &stop, NULL);
	show_at(rp, rf, i);
	while (!replay_stopped) {
		struct pollfd fds[VIEW_MAX_WATCHED];
		struct view_input in = { 0 };
		size_t n = view_watched(&rp->view, fds, VIEW_MAX_WATCHED), was = i;
		char go[32];
		int steps;

		if (!n || poll(fds, n, -1) < 0)
			break;
		view_take_input(&rp->view, fds, n, &in);
		fflush(rp->view.out);	/* what a key or a resize drew */
		if (in.quit)
			break;
		steps = top_take_replay_keys(&rp->view, go, sizeof(go));
		if (steps < 0)
			i = (size_t)-steps > i ? 0 : i + steps;
		else if (steps > 0)
			i = i + steps >= rf->n ? rf->n - 1 : i + steps;
		if (go[0])
			i = frame_at(rf, go, i);
		if (i != was)
			show_at(rp, rf, i);
	}
	view_close(&rp->view, false);
}

/* One day file: its frames in the window, from the index's chunk on. */
static void replay_file(struct replay *rp, const char *dir, const char *day)
{
	char path[4096];
	size_t len = 0, index_len = 0;
	uint8_t *buf, *index = NULL;

	if (!history_day_path(path, sizeof(path), dir, day, ".dkr"))
		return;
	if (!(buf = map_file(path, &len))) {
		day_file_unread(rp, path);
		return;
	}
	if (!history_reader_open(&rp->reader, buf, len)) {
		warn("--replay: %s is not a record of diskio", path);
		rp->damaged++;
		munmap(buf, len);
		return;
	}
	if (rp->window.begin_ms != INT64_MIN &&
	    history_day_path(path, sizeof(path), dir, day, ".dki") &&
	    (index = map_file(path, &index_len)))
		history_reader_seek(&rp->reader, index, index_len,
				    (uint64_t)rp->window.begin_ms * 1000000ULL);
	rp->header_shown = false;
	while (!rp->done) {
		enum history_item item = history_reader_next(&rp->reader);

		if (item == HISTORY_END)
			break;
		if (item == HISTORY_HEADER)
			rp->header_shown = false;
		else if (item == HISTORY_GAP)
			show_gap(rp, rp->reader.gap_from_ns, rp->reader.gap_to_ns);
		else
			show_frame(rp, &rp->reader.frame.frame);
	}
	if (rp->reader.magic_damaged)
		warn("--replay: %s/%s.dkr: its first 8 bytes are damaged; its records were read",
		     dir, day);
	if (rp->reader.bad_records)
		warn("--replay: %s/%s.dkr: %llu damaged records passed over", dir, day,
		     (unsigned long long)rp->reader.bad_records);
	rp->damaged += rp->reader.bad_records;
	rp->reader.bad_records = 0;
	if (index)
		munmap(index, index_len);
	munmap(buf, len);
}

/* "2026-11-26.dkr": a day file of --record, its day into day; other
 * files (the index, a lock, anything else) are not. */
static bool is_day_file(const char *name, char day[16])
{
	static const char form[] = "####-##-##.dkr";	/* #: a digit */

	if (strlen(name) != sizeof(form) - 1)
		return false;
	for (size_t i = 0; form[i]; i++)
		if (form[i] == '#' ? name[i] < '0' || name[i] > '9' : name[i] != form[i])
			return false;
	memcpy(day, name, 10);
	day[10] = '\0';
	return true;
}

/* DIR's day files in the window's days, oldest first: shown, or with rf
 * their frames found for the top view.  0, or -1 when DIR cannot be read. */
static int replay_dir(struct replay *rp, const char *dir, struct replay_files *rf)
{
	struct dirent **names;
	char first[16] = "", last[16] = "~";
	int n = scandir(dir, &names, NULL, alphasort);

	if (n < 0) {
		fail("cannot read --replay directory %s: %s", dir, strerror(errno));
		return -1;
	}
	if (rp->window.begin_ms != INT64_MIN)
		history_day_of(rp->window.begin_ms / 1000, first);
	if (rp->window.end_ms != INT64_MAX)
		history_day_of(rp->window.end_ms / 1000, last);
	for (int i = 0; i < n; i++) {
		char day[16], path[4096];

		if (is_day_file(names[i]->d_name, day) && !rp->done) {
			if (strcmp(day, first) < 0 || strcmp(day, last) > 0)
				;
			else if (!rf)
				replay_file(rp, dir, day);
			else if (history_day_path(path, sizeof(path), dir, day, ".dkr"))
				find_frames(rp, rf, path);
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

/* What a directory holds, for a replay that showed nothing. */
struct record_span {
	unsigned int day_files;
	uint64_t frames;
	uint64_t first_ns, last_ns;
};

static int widen_span(const struct history_position *p, void *arg)
{
	struct record_span *span = arg;

	if (!span->frames || p->time_ns < span->first_ns)
		span->first_ns = p->time_ns;
	if (!span->frames || p->time_ns > span->last_ns)
		span->last_ns = p->time_ns;
	span->frames++;
	return 0;
}

/* Every day file of dir, whatever the window: its frames' first and last
 * times (found without inflating). */
static void find_span(const char *dir, struct record_span *span)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort);

	*span = (struct record_span){ 0 };
	for (int i = 0; i < n; i++) {
		char day[16], path[4096];
		size_t len = 0;
		uint8_t *buf;

		if (is_day_file(names[i]->d_name, day)) {
			span->day_files++;
			if (history_day_path(path, sizeof(path), dir, day, ".dkr") &&
			    (buf = map_file(path, &len))) {
				history_scan_positions(buf, len, widen_span, span);
				munmap(buf, len);
			}
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* No frame to show: one line that says why, and what the directory has
 * (so the window can be set right). */
static void say_nothing_shown(const struct replay *rp)
{
	const char *dir = rp->opts->replay_dir;
	const char *readable = rp->damaged ? " that could be read" : "";
	bool from = rp->window.begin_ms != INT64_MIN, to = rp->window.end_ms != INT64_MAX;
	struct record_span span;
	char begin[32], end[32], first[32], last[32];

	find_span(dir, &span);
	if (!span.day_files) {
		fail("--replay %s: no records: no day file (YYYY-MM-DD.dkr) in it; give the DIR "
		     "of --record", dir);
		return;
	}
	if (!span.frames) {
		fail("--replay %s: %s", dir, rp->damaged ?
		     "no frame could be read, only damaged records" :
		     "no records: its day files hold no frame");
		return;
	}
	format_utc_ms(begin, sizeof(begin), rp->window.begin_ms);
	format_utc_ms(end, sizeof(end), rp->window.end_ms);
	format_utc_ms(first, sizeof(first), span.first_ns / 1000000);
	format_utc_ms(last, sizeof(last), span.last_ns / 1000000);
	fail("--replay %s: no frame%s%s%s%s%s%s; its %llu frames run from %s to %s", dir, readable,
	     from && to ? " between " : from ? " from " : to ? " up to " : "",
	     from ? begin : "", from && to ? " and " : "", to ? end : "",
	     from && !to ? " on" : "", (unsigned long long)span.frames, first, last);
}

/*
 * The exit status once the replay is over, the worst first: EXIT_START (a
 * day file unread, out of memory), EXIT_NOTHING (no frame shown: said
 * here, and it wins over damage, since nothing at all was shown),
 * EXIT_DAMAGED (frames shown, damaged records passed over), else 0.
 */
static int replay_status(const struct replay *rp)
{
	if (rp->failed)
		return EXIT_START;
	if (!rp->frames_shown) {
		say_nothing_shown(rp);
		return EXIT_NOTHING;
	}
	/* --diagnose: the trouble found wins over damage passed over, which
	 * stderr said */
	if (rp->diagnosis)
		return rp->diagnosis;
	return rp->damaged ? EXIT_DAMAGED : 0;
}

/* Batch lines or JSON records: each day file read in turn, shown as it is
 * read, the window's summary at the end. */
static int replay_lines(struct replay *rp)
{
	struct options shown = *rp->opts;

	if (view_open(&rp->view, &shown, locale_is_utf8(), NULL, NULL, stdout))
		return EXIT_START;
	if (replay_dir(rp, rp->opts->replay_dir, NULL)) {
		view_free(&rp->view);
		return EXIT_START;
	}
	if (rp->frames_shown)
		show_summary(rp);
	fflush(stdout);
	rp->diagnosis = view_diagnose_status(&rp->view);
	view_free(&rp->view);
	return replay_status(rp);
}

/* The top view: the window's frames found first, so that a replay with
 * none (or a DIR it cannot read) leaves the terminal as it was. */
static int replay_on_top(struct replay *rp, struct replay_files *rf)
{
	struct options shown = *rp->opts;

	if (replay_dir(rp, rp->opts->replay_dir, rf))
		return EXIT_START;
	if (rp->failed || !rf->n)
		return replay_status(rp);
	if (view_open(&rp->view, &shown, locale_is_utf8(), NULL, NULL, stdout))
		return EXIT_START;
	replay_top(rp, rf);
	rp->frames_shown = rf->n;
	view_free(&rp->view);
	/* the damage the frames stepped through met, now the screen is back
	 * (no count: a frame visited twice counts its damage twice) */
	if (rp->reader.bad_records)
		warn("--replay: %s: damaged records passed over", rp->opts->replay_dir);
	rp->damaged += rp->reader.bad_records;
	return replay_status(rp);
}

int replay_main(const struct options *opts)
{
	struct replay rp = { .opts = opts };
	struct replay_files rf = { 0 };
	const char *bad = NULL, *why;
	int status;

	tzset();	/* times without a zone are local: TZ's */
	why = replay_window_of(opts->begin, opts->end, now_ms(), &rp.window, &bad);
	if (why && bad) {
		fail("invalid time '%s': %s; give " REPLAY_TIME_FORMS, bad, why);
		return EXIT_USAGE;
	}
	if (why) {
		char begin[32], end[32];

		format_utc_ms(begin, sizeof(begin), rp.window.begin_ms);
		format_utc_ms(end, sizeof(end), rp.window.end_ms);
		fail("--end %s (%s) is before --begin %s (%s): give an END at or after BEGIN",
		     opts->end, end, opts->begin, begin);
		return EXIT_USAGE;
	}
	replay_totals_init(&rp.totals);
	if (history_reader_init(&rp.reader) || replay_sum_init(&rp.sum)) {
		fail("out of memory");
		return EXIT_START;
	}
	status = view_is_top(opts) ? replay_on_top(&rp, &rf) : replay_lines(&rp);
	for (size_t i = 0; i < rf.nfiles; i++)
		munmap(rf.files[i].buf, rf.files[i].len);
	free(rf.files);
	free(rf.at);
	replay_sum_free(&rp.sum);
	replay_totals_free(&rp.totals);
	history_reader_free(&rp.reader);
	return status;
}

int replay_list_main(const struct options *opts)
{
	struct history_runs runs = { 0 };
	int err = history_runs_of_dir(&runs, opts->list_dir, stderr);
	int status = 0;

	if (err == -ENOMEM) {
		fail("out of memory");
		status = EXIT_START;
	} else if (err) {
		fail("cannot read --list directory %s: %s", opts->list_dir, strerror(-err));
		status = EXIT_START;
	} else if (!runs.n) {
		warn("--list: no records of diskio in %s", opts->list_dir);
		status = EXIT_NOTHING;
	} else {
		history_runs_print(&runs, stdout, opts->output == OUTPUT_JSON);
		if (fflush(stdout) || ferror(stdout))
			status = EXIT_START;
		else if (runs.bad_records)
			status = EXIT_DAMAGED;
	}
	history_runs_free(&runs);
	return status;
}
