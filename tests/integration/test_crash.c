// SPDX-License-Identifier: GPL-2.0
/*
 * Crash-free integration tests of diskio, run as root against the real
 * kernel (issue 3): children that die by core-dumping signals are counted
 * once each, by process name, and nothing else is; operational and
 * crash-free intervals move as crashfree.h's rules say; --state adds runs up
 * and moves a damaged file aside; batch mode shows the same facts.
 *
 * Timing: diskio runs with 0.5-s intervals and --crash-interval 1, so the
 * interval line k (1-based) is written at a time T_k >= start + k * 0.5 s
 * (deadlines are start + k * interval; a stall only makes T_k later), and
 * T_k - start is at most the time between starting diskio and reading the
 * line, and at most the summary's duration_s.  Hence, without a state file,
 * floor(k / 2) <= operational_intervals(k) <= whole seconds elapsed.
 */
#include "harness.h"

#include <pthread.h>
#include <sys/resource.h>

#define INTERVAL	"0.5"
#define INTERVAL_MS	500
#define CRASH_IVAL	"1"
#define NSEC		1000000000LL
#define MAX_LINES	256	/* arrival stamps kept per run (runs print ~12 lines) */

/* ------------------------------------------------------------- tmp dir -- */

static char tmpdir[64];

static void rm_tmpdir(void)
{
	DIR *dir;
	struct dirent *e;

	if (!tmpdir[0])
		return;
	dir = opendir(tmpdir);
	if (dir) {
		while ((e = readdir(dir))) {
			char path[PATH_MAX];

			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
			unlink(path);
		}
		closedir(dir);
	}
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

static void setup(void)
{
	h_setup();
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/diskio-crash-XXXXXX");
	cr_assert(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static void teardown(void)
{
	h_teardown();	/* kills leftover children first */
	rm_tmpdir();
}

TestSuite(crash, .init = setup, .fini = teardown, .timeout = 40);

static void tmp_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* ------------------------------------------------------------ children -- */

enum death {
	DIE_SEGV,		/* write through a NULL pointer */
	DIE_ABORT,		/* abort() */
	DIE_THREAD_SEGV,	/* 4 threads running, then one of them faults */
	DIE_TERM,		/* raise(SIGTERM) */
	DIE_KILL,		/* raise(SIGKILL) */
	DIE_EXIT3,		/* exit status 3 */
};

/* Exit codes of a child that failed to set itself up. */
enum {
	CHILD_ERR_RLIMIT = 40,
	CHILD_ERR_CHDIR,
	CHILD_ERR_NAME,
	CHILD_ERR_THREAD,
	CHILD_ERR_SURVIVED,
};

static volatile uintptr_t null_address;	/* 0, hidden from the compiler */
static pthread_barrier_t threads_ready;
static char thread_comm[16];

static void write_through_null(void)
{
	*(volatile int *)null_address = 1;
}

static void *crash_thread(void *arg)
{
	long index = (long)arg;

	/* The threads have a name of their own (whichever thread exits last,
	 * the crash belongs to the process, which is named by its main thread). */
	prctl(PR_SET_NAME, thread_comm, 0, 0, 0);
	pthread_barrier_wait(&threads_ready);
	if (index == 3)
		write_through_null();
	for (;;)
		pause();
	return NULL;
}

/*
 * Fork a child named comm that dies as `how` says.  core_dir NULL: the child
 * sets RLIMIT_CORE to 0 (no core file); otherwise it sets it unlimited and
 * changes to core_dir, where a core file may be written.  Returns its pid;
 * reap it with expect_death().
 */
static pid_t spawn_death(const char *comm, enum death how, const char *core_dir)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0, "fork: %s", strerror(errno));
	if (!pid) {
		struct rlimit core = { 0, 0 };
		sigset_t none;
		static const int reset[] = { SIGSEGV, SIGABRT, SIGTERM, SIGBUS, SIGILL, SIGFPE };

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		/* Whatever the test runner installed: default actions, nothing blocked. */
		for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
			signal(reset[i], SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (core_dir)
			core.rlim_cur = core.rlim_max = RLIM_INFINITY;
		if (setrlimit(RLIMIT_CORE, &core))
			_exit(CHILD_ERR_RLIMIT);
		if (core_dir && chdir(core_dir))
			_exit(CHILD_ERR_CHDIR);
		if (prctl(PR_SET_NAME, comm, 0, 0, 0))
			_exit(CHILD_ERR_NAME);
		switch (how) {
		case DIE_SEGV:
			write_through_null();
			break;
		case DIE_ABORT:
			abort();
		case DIE_THREAD_SEGV: {
			pthread_t threads[3];

			if (pthread_barrier_init(&threads_ready, NULL, 4))
				_exit(CHILD_ERR_THREAD);
			for (long i = 1; i <= 3; i++)
				if (pthread_create(&threads[i - 1], NULL, crash_thread, (void *)i))
					_exit(CHILD_ERR_THREAD);
			pthread_barrier_wait(&threads_ready);
			for (;;)
				pause();
		}
		case DIE_TERM:
			raise(SIGTERM);
			break;
		case DIE_KILL:
			raise(SIGKILL);
			break;
		case DIE_EXIT3:
			/* _exit: the same exit_group(3) for the kernel, without
			 * running the test runner's atexit handlers in the child. */
			_exit(3);
		}
		_exit(CHILD_ERR_SURVIVED);
	}
	h_track_child(pid);
	return pid;
}

/* Reap pid and assert that it was killed by sig (sig 0: that it exited with
 * exit_code).  Returns the wait status. */
static int expect_death(pid_t pid, const char *comm, int sig, int exit_code)
{
	char why[64];
	int status;

	if (h_wait_pid(pid, 10000, &status)) {
		h_kill_child(pid);
		cr_assert_fail("child %s (%d) still alive after 10 s", comm, (int)pid);
	}
	h_status_str(status, why, sizeof(why));
	if (sig)
		cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == sig,
			  "child %s (%d): %s, expected death by signal %d (%s)", comm, (int)pid,
			  why, sig, strsignal(sig));
	else
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == exit_code,
			  "child %s (%d): %s, expected exit %d", comm, (int)pid, why, exit_code);
	return status;
}

/* ----------------------------------------------------------- JSON crash -- */

struct crash_obj {
	int64_t interval_s, op, cf, crashes;
	struct h_jv by;		/* "by_process":{...} */
};

/* The "crash" object of an interval line or of the summary line. */
static bool crash_of_line(const char *line, struct crash_obj *c)
{
	struct h_jv root, obj;

	/* The summary is a flat record: its "crash" is where an interval's is. */
	if (!h_json_parse(line, &root))
		return false;
	return h_json_get(root, "crash", &obj) &&
	       h_json_get_int(obj, "interval_s", &c->interval_s) &&
	       h_json_get_int(obj, "operational_intervals", &c->op) &&
	       h_json_get_int(obj, "crashfree_intervals", &c->cf) &&
	       h_json_get_int(obj, "crashes", &c->crashes) &&
	       h_json_get(obj, "by_process", &c->by) && c->by.len && c->by.p[0] == '{';
}

/* Count of comm in by_process; -1 if absent. */
static int64_t by_count(struct h_jv by, const char *comm)
{
	struct h_jv key, val;
	size_t pos = 0;
	int64_t n;

	while (h_json_next_member(by, &pos, &key, &val))
		if (h_json_str_eq(key, comm))
			return h_json_int(val, &n) ? n : -2;
	return -1;
}

static bool in_list(const char *name, const char *const *list)
{
	for (size_t i = 0; list && list[i]; i++)
		if (!strcmp(name, list[i]))
			return true;
	return false;
}

/* Sum of the counts of by_process entries not in mine (other processes of
 * the machine that crashed meanwhile); logs them. */
static int64_t by_unrelated(struct h_jv by, const char *const *mine)
{
	struct h_jv key, val;
	size_t pos = 0;
	int64_t sum = 0, n;

	while (h_json_next_member(by, &pos, &key, &val)) {
		char name[64];

		if (h_json_str(key, name, sizeof(name)) < 0 || in_list(name, mine))
			continue;
		if (h_json_int(val, &n))
			sum += n;
		cr_log_info("an unrelated process crashed meanwhile: \"%s\":%.*s", name,
			    (int)val.len, val.p);
	}
	return sum;
}

/* The summary's duration_s, or -1. */
static double summary_duration(const struct h_diskio *d)
{
	struct h_jv root, v;
	char buf[32];

	for (size_t i = d->nlines; i-- > 0;) {
		if (!h_json_is_summary(d->lines[i]))
			continue;
		if (!h_json_parse(d->lines[i], &root) || !h_json_get(root, "duration_s", &v) ||
		    v.len >= sizeof(buf))
			return -1;
		memcpy(buf, v.p, v.len);
		buf[v.len] = '\0';
		return strtod(buf, NULL);
	}
	return -1;
}

/* The last line, which must be the JSON summary. */
static const char *summary_line(const struct h_diskio *d)
{
	const char *last = d->nlines ? d->lines[d->nlines - 1] : "";

	cr_assert(h_json_is_summary(last), "last line is not the summary: %.300s", last);
	return last;
}

/* One entry of a "crash_events" array. */
struct event {
	int64_t pid;
	char comm[64];
	char signal[16];
	bool core_dumped;
	size_t line;		/* index into d->lines */
};

/* Every crash event of every interval line, in order; returns how many. */
static size_t collect_events(const struct h_diskio *d, struct event *evs, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv root, arr, obj, v;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_parse(d->lines[i], &root) ||
		    !h_json_get(root, "crash_events", &arr))
			continue;
		cr_expect(arr.len && arr.p[0] == '[', "line %zu: crash_events is not an array", i);
		while (h_json_next_elem(arr, &pos, &obj) && n < max) {
			struct event *e = &evs[n++];

			memset(e, 0, sizeof(*e));
			e->line = i;
			cr_expect(h_json_get_int(obj, "pid", &e->pid),
				  "line %zu: event without pid: %.*s", i, (int)obj.len, obj.p);
			cr_expect(h_json_get(obj, "comm", &v) &&
				  h_json_str(v, e->comm, sizeof(e->comm)) >= 0,
				  "line %zu: event without comm: %.*s", i, (int)obj.len, obj.p);
			cr_expect(h_json_get(obj, "signal", &v) &&
				  h_json_str(v, e->signal, sizeof(e->signal)) >= 0,
				  "line %zu: event without signal: %.*s", i, (int)obj.len, obj.p);
			cr_expect(h_json_get(obj, "core_dumped", &v) &&
				  ((v.len == 4 && !memcmp(v.p, "true", 4)) ||
				   (v.len == 5 && !memcmp(v.p, "false", 5))),
				  "line %zu: event without boolean core_dumped: %.*s", i,
				  (int)obj.len, obj.p);
			e->core_dumped = v.len == 4;
		}
	}
	return n;
}

/* Assert exactly one event of comm, with pid, signal and core_dumped; return it. */
static const struct event *expect_one_event(const struct event *evs, size_t n, const char *comm,
					    pid_t pid, const char *signal, bool core_dumped)
{
	const struct event *found = NULL;
	int count = 0;

	for (size_t i = 0; i < n; i++) {
		if (strcmp(evs[i].comm, comm))
			continue;
		count++;
		found = &evs[i];
	}
	cr_expect_eq(count, 1, "%d crash events of \"%s\" over all intervals, expected 1", count,
		     comm);
	if (!found)
		return NULL;
	cr_expect_eq(found->pid, pid, "crash event of \"%s\": pid %" PRId64 ", expected %d", comm,
		     found->pid, (int)pid);
	cr_expect_str_eq(found->signal, signal, "crash event of \"%s\": signal %s, expected %s",
			 comm, found->signal, signal);
	cr_expect_eq(found->core_dumped, core_dumped, "crash event of \"%s\": core_dumped %s, "
		     "but the wait status says %s", comm, found->core_dumped ? "true" : "false",
		     core_dumped ? "core dumped" : "no core dumped");
	return found;
}

/* ------------------------------------------------------------ timing -- */

/* Arrival times of stdout lines (ms, h_now_ms), 0 where not stamped. */
struct stamps {
	int64_t at[MAX_LINES];
};

static void stamp_read(const struct h_diskio *d, struct stamps *s)
{
	int64_t now = h_now_ms();

	for (size_t i = 0; i < d->nlines && i < MAX_LINES; i++)
		if (!s->at[i])
			s->at[i] = now;
}

/* Read lines until n more interval lines have come, stamping each line
 * when it is read (a line is written no later than it is read). */
static void follow_intervals(struct h_diskio *d, int n, struct stamps *s)
{
	int64_t deadline = h_now_ms() + 5000 + n * 1500;
	int seen = 0;

	while (seen < n) {
		int64_t left = deadline - h_now_ms();
		const char *line = h_diskio_next_line(d, left > 0 ? (int)left : 0);

		if (!line) {
			h_diskio_dump(d, "intervals missing");
			cr_assert_fail("diskio printed %d of %d intervals in time", seen, n);
		}
		stamp_read(d, s);
		if (h_line_is_interval(line))
			seen++;
	}
}

static int count_interval_lines(const struct h_diskio *d)
{
	int n = 0;

	for (size_t i = 0; i < d->nlines; i++)
		n += h_line_is_interval(d->lines[i]);
	return n;
}

/*
 * Check every interval line's crash object against the clock: interval_s 1;
 * operational and crash-free intervals and crashes never decrease;
 * crash-free <= operational; and, with base_ns of operational time loaded
 * from a state file (0: none),
 *   floor((base + k * 0.5 s) / 1 s) <= operational(k)
 *                                   <= floor((base + elapsed) / 1 s)
 * where elapsed is the time from t0 (just before diskio was started) to the
 * line's arrival, and the summary's duration_s.  The summary repeats the
 * last interval's intervals.  Fills objs[] (one per interval line, at most
 * max) and returns how many interval lines there are.
 */
static int check_progression(const struct h_diskio *d, int64_t t0_ms, struct stamps *s,
			     int64_t base_ns, struct crash_obj *objs, int max)
{
	struct crash_obj prev = { .op = -1 }, sum;
	double duration = summary_duration(d);
	int64_t end = h_now_ms();
	int k = 0;

	cr_expect_gt(duration, 0, "no duration_s in the summary");
	for (size_t i = 0; i < d->nlines; i++) {
		struct crash_obj c;
		int64_t lower, upper, at;

		if (!h_json_is_interval(d->lines[i]))
			continue;
		k++;
		if (!crash_of_line(d->lines[i], &c))
			cr_assert_fail("interval line %d has no valid crash object: %.400s", k,
				       d->lines[i]);
		if (k <= max)
			objs[k - 1] = c;
		at = i < MAX_LINES && s->at[i] ? s->at[i] : end;
		/* The last record may be the partial interval diskio was
		 * stopped in: it ends before a whole INTERVAL_MS more. */
		lower = (base_ns + (int64_t)(k - (strstr(d->lines[i], "\"partial\":true") != NULL)) *
				   INTERVAL_MS * 1000000LL) / NSEC;
		upper = (base_ns + (at - t0_ms) * 1000000LL) / NSEC;
		if (duration > 0) {
			int64_t by_duration = (base_ns + (int64_t)((duration + 0.0005) * NSEC)) /
					      NSEC;

			if (by_duration < upper)
				upper = by_duration;
		}
		cr_expect_eq(c.interval_s, 1, "line %d: crash interval_s %" PRId64, k,
			     c.interval_s);
		cr_expect(c.op >= lower && c.op <= upper,
			  "interval line %d (read %" PRId64 " ms after start, summary duration "
			  "%.3f s, %" PRId64 " ns loaded): operational_intervals %" PRId64
			  ", expected %" PRId64 "..%" PRId64, k, at - t0_ms, duration, base_ns,
			  c.op, lower, upper);
		cr_expect_leq(c.cf, c.op, "line %d: crashfree_intervals %" PRId64
			      " > operational_intervals %" PRId64, k, c.cf, c.op);
		if (prev.op >= 0) {
			cr_expect_geq(c.op, prev.op, "line %d: operational_intervals went down: %"
				      PRId64 " -> %" PRId64, k, prev.op, c.op);
			cr_expect_geq(c.cf, prev.cf, "line %d: crashfree_intervals went down: %"
				      PRId64 " -> %" PRId64, k, prev.cf, c.cf);
			cr_expect_geq(c.crashes, prev.crashes, "line %d: crashes went down: %"
				      PRId64 " -> %" PRId64, k, prev.crashes, c.crashes);
		}
		prev = c;
	}
	cr_expect_geq(k, 3, "only %d interval lines", k);
	cr_assert_leq(k, max, "%d interval lines, more than the test expects", k);
	cr_assert(crash_of_line(summary_line(d), &sum), "summary without a crash object: %.400s",
		  summary_line(d));
	cr_expect(sum.op == prev.op && sum.cf == prev.cf && sum.crashes >= prev.crashes,
		  "summary crash (%" PRId64 "/%" PRId64 ", %" PRId64 " crashes) differs from the "
		  "last interval's (%" PRId64 "/%" PRId64 ", %" PRId64 " crashes)", sum.cf, sum.op,
		  sum.crashes, prev.cf, prev.op, prev.crashes);
	return k;
}

/* Log the crash objects of all lines (for a failing assertion). */
static void log_crash_objects(const struct h_diskio *d)
{
	for (size_t i = 0; i < d->nlines; i++) {
		const char *at = strstr(d->lines[i], "\"crash\":");

		cr_log_info("line %zu: %.300s", i, at ? at : d->lines[i]);
	}
}

/* ---------------------------------------------------------- state file -- */

struct state {
	uint64_t interval_ns, op, cf, crashes, op_progress, cf_progress;
	int nprocs;
	struct {
		char comm[64];
		uint64_t crashes;
	} procs[32];
};

/* Parse a state file as crashfree_state.h documents it; false (and why) if it is
 * not exactly that. */
static bool read_state(const char *path, struct state *st, char *why, size_t why_size)
{
	static const char *const keys[] = { "interval_ns", "operational_intervals",
		"crashfree_intervals", "crashes", "operational_progress_ns",
		"crashfree_progress_ns" };
	uint64_t *values[] = { &st->interval_ns, &st->op, &st->cf, &st->crashes,
			       &st->op_progress, &st->cf_progress };
	bool seen[6] = { false };
	char buf[16384], *line, *next;
	bool ended = false;
	ssize_t len = h_read_file(path, buf, sizeof(buf));

	memset(st, 0, sizeof(*st));
	if (len < 0) {
		snprintf(why, why_size, "cannot read it: %s", strerror((int)-len));
		return false;
	}
	if ((size_t)len != strlen(buf)) {
		snprintf(why, why_size, "it holds a NUL byte");
		return false;
	}
	if (!len || buf[len - 1] != '\n') {
		snprintf(why, why_size, "it does not end in a newline");
		return false;
	}
	if (strncmp(buf, "diskio-crashfree 1\n", 19)) {
		snprintf(why, why_size, "it does not start with \"diskio-crashfree 1\"");
		return false;
	}
	for (line = buf + 19; *line; line = next) {
		char *eq;

		next = strchr(line, '\n');
		*next++ = '\0';
		if (ended) {
			snprintf(why, why_size, "a line after \"end\": %.100s", line);
			return false;
		}
		if (!strcmp(line, "end")) {
			ended = true;
			continue;
		}
		if (!strncmp(line, "process ", 8) && st->nprocs < 32) {
			char *space = strrchr(line, ' ');

			snprintf(st->procs[st->nprocs].comm, sizeof(st->procs[0].comm), "%.*s",
				 (int)(space - line - 8), line + 8);
			st->procs[st->nprocs++].crashes = strtoull(space + 1, NULL, 10);
			continue;
		}
		eq = strchr(line, '=');
		if (!eq) {
			snprintf(why, why_size, "unknown line: %.100s", line);
			return false;
		}
		*eq = '\0';
		for (int i = 0; i < 6; i++) {
			if (strcmp(line, keys[i]))
				continue;
			if (seen[i]) {
				snprintf(why, why_size, "%.64s twice", line);
				return false;
			}
			seen[i] = true;
			*values[i] = strtoull(eq + 1, NULL, 10);
		}
	}
	for (int i = 0; i < 6; i++) {
		if (!seen[i]) {
			snprintf(why, why_size, "no %s line", keys[i]);
			return false;
		}
	}
	if (!ended) {
		snprintf(why, why_size, "no \"end\" line");
		return false;
	}
	return true;
}

static uint64_t state_process(const struct state *st, const char *comm)
{
	for (int i = 0; i < st->nprocs; i++)
		if (!strcmp(st->procs[i].comm, comm))
			return st->procs[i].crashes;
	return 0;
}

static int64_t state_op_ns(const struct state *st)
{
	return (int64_t)(st->op * (uint64_t)NSEC + st->op_progress);
}

static int64_t state_cf_ns(const struct state *st)
{
	return (int64_t)(st->cf * (uint64_t)NSEC + st->cf_progress);
}

static void log_file(const char *what, const char *path)
{
	char buf[4096];

	if (h_read_file(path, buf, sizeof(buf)) >= 0)
		cr_log_info("%s (%s):\n%s", what, path, buf);
}

/* Assert diskio's state file is valid, parse it, and check no PATH.tmp is left. */
static void expect_valid_state(const char *path, struct state *st, const char *when)
{
	char why[256], tmp[PATH_MAX];

	if (!read_state(path, st, why, sizeof(why))) {
		log_file("state file", path);
		cr_assert_fail("%s: state file %s is not valid: %s", when, path, why);
	}
	cr_expect_eq(st->interval_ns, (uint64_t)NSEC, "%s: state interval_ns %" PRIu64, when,
		     st->interval_ns);
	cr_expect_lt(st->op_progress, (uint64_t)NSEC, "%s: operational_progress_ns %" PRIu64,
		     when, st->op_progress);
	cr_expect_lt(st->cf_progress, (uint64_t)NSEC, "%s: crashfree_progress_ns %" PRIu64,
		     when, st->cf_progress);
	cr_expect_leq(state_cf_ns(st), state_op_ns(st), "%s: more crash-free than operational "
		      "time in the state file", when);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	cr_expect(access(tmp, F_OK) && errno == ENOENT, "%s: %s was left behind", when, tmp);
}

/* ============================================================== tests == */

/*
 * 1. While `diskio --json --crash-interval 1 0.5` runs, six children die:
 * SIGSEGV, abort(), SIGSEGV in one thread of four, SIGTERM, SIGKILL, exit 3.
 * Exactly the first three are crashes, each counted once under its comm,
 * with one event each carrying its pid, signal and core-dump flag.  The
 * crash-free count falls behind the operational count and then grows again.
 */
Test(crash, six_deaths_three_crashes)
{
	const int tag = (int)(getpid() % 1000);
	char segv[16], abrt[16], thr[16], term[16], kill9[16], ex3[16];
	const char *mine[8];
	struct crash_obj objs[64], last, sum;
	struct event evs[64];
	struct stamps stamps = { { 0 } };
	struct h_diskio d;
	pid_t p_segv, p_abrt, p_thr, p_term, p_kill, p_ex3;
	int st_segv, st_abrt, st_thr, nlines, first_crash_line = 0, intervals_before;
	int64_t t0, burst_start, burst_ms, unrelated;
	size_t nevs;
	bool behind = false;

	snprintf(segv, sizeof(segv), "cf-segv-%03d", tag);
	snprintf(abrt, sizeof(abrt), "cf-abrt-%03d", tag);
	snprintf(thr, sizeof(thr), "cf-thr-%03d", tag);
	snprintf(thread_comm, sizeof(thread_comm), "cf-tw-%03d", tag);
	snprintf(term, sizeof(term), "cf-term-%03d", tag);
	snprintf(kill9, sizeof(kill9), "cf-kill-%03d", tag);
	snprintf(ex3, sizeof(ex3), "cf-exit-%03d", tag);
	mine[0] = segv; mine[1] = abrt; mine[2] = thr; mine[3] = thread_comm;
	mine[4] = term; mine[5] = kill9; mine[6] = ex3; mine[7] = NULL;

	t0 = h_now_ms();
	h_diskio_start(&d, H_ARGS("--json", "--crash-interval", CRASH_IVAL, INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	stamp_read(&d, &stamps);
	/* Crash just after a half-second update (an odd interval line), so that
	 * the next whole-second update counts an operational interval but not a
	 * crash-free one. */
	while (count_interval_lines(&d) % 2 == 0)
		follow_intervals(&d, 1, &stamps);
	intervals_before = count_interval_lines(&d);

	burst_start = h_now_ms();
	p_segv = spawn_death(segv, DIE_SEGV, NULL);
	st_segv = expect_death(p_segv, segv, SIGSEGV, 0);
	p_abrt = spawn_death(abrt, DIE_ABORT, NULL);
	st_abrt = expect_death(p_abrt, abrt, SIGABRT, 0);
	p_thr = spawn_death(thr, DIE_THREAD_SEGV, NULL);
	st_thr = expect_death(p_thr, thr, SIGSEGV, 0);
	p_term = spawn_death(term, DIE_TERM, NULL);
	expect_death(p_term, term, SIGTERM, 0);
	p_kill = spawn_death(kill9, DIE_KILL, NULL);
	expect_death(p_kill, kill9, SIGKILL, 0);
	p_ex3 = spawn_death(ex3, DIE_EXIT3, NULL);
	expect_death(p_ex3, ex3, 0, 3);
	burst_ms = h_now_ms() - burst_start;
	cr_log_info("the six children lived and died in %" PRId64 " ms", burst_ms);

	/* At least 3 s after the last crash, then two more intervals and SIGINT. */
	follow_intervals(&d, 6, &stamps);
	h_diskio_finish(&d, 2);

	nlines = check_progression(&d, t0, &stamps, 0, objs, 64);
	cr_assert_geq(nlines, intervals_before + 8, "%d interval lines", nlines);
	last = objs[nlines - 1];
	cr_assert(crash_of_line(summary_line(&d), &sum));

	/* Counted: exactly the three crashes, once each, by process name. */
	for (int which = 0; which < 2; which++) {
		const struct crash_obj *c = which ? &sum : &last;
		const char *what = which ? "summary" : "last interval";

		unrelated = by_unrelated(c->by, mine);
		cr_expect_eq(c->crashes - unrelated, 3, "%s: crashes %" PRId64 " (%" PRId64
			     " of unrelated processes), expected 3 of ours: %.*s", what, c->crashes,
			     unrelated, (int)c->by.len, c->by.p);
		cr_expect_eq(by_count(c->by, segv), 1, "%s: by_process \"%s\": %" PRId64
			     " (SIGSEGV)", what, segv, by_count(c->by, segv));
		cr_expect_eq(by_count(c->by, abrt), 1, "%s: by_process \"%s\": %" PRId64
			     " (abort)", what, abrt, by_count(c->by, abrt));
		cr_expect_eq(by_count(c->by, thr), 1, "%s: by_process \"%s\": %" PRId64
			     " (SIGSEGV in 1 of 4 threads: one crash of the process)", what, thr,
			     by_count(c->by, thr));
		cr_expect_eq(by_count(c->by, thread_comm), -1, "%s: the crash is listed under its "
			     "threads' name \"%s\", not the process's", what, thread_comm);
		cr_expect_eq(by_count(c->by, term), -1, "%s: SIGTERM counted as a crash", what);
		cr_expect_eq(by_count(c->by, kill9), -1, "%s: SIGKILL counted as a crash", what);
		cr_expect_eq(by_count(c->by, ex3), -1, "%s: exit(3) counted as a crash", what);
	}

	/* One event each, with pid, signal and core-dump flag. */
	nevs = collect_events(&d, evs, 64);
	expect_one_event(evs, nevs, segv, p_segv, "SIGSEGV", WCOREDUMP(st_segv));
	expect_one_event(evs, nevs, abrt, p_abrt, "SIGABRT", WCOREDUMP(st_abrt));
	expect_one_event(evs, nevs, thr, p_thr, "SIGSEGV", WCOREDUMP(st_thr));
	for (size_t i = 0; i < nevs; i++) {
		cr_expect(strcmp(evs[i].comm, term) && strcmp(evs[i].comm, kill9) &&
			  strcmp(evs[i].comm, ex3) && strcmp(evs[i].comm, thread_comm),
			  "crash event for \"%s\" (pid %" PRId64 ", %s)", evs[i].comm, evs[i].pid,
			  evs[i].signal);
		/* The first interval line (1-based) with one of our events. */
		if (in_list(evs[i].comm, mine) && !first_crash_line)
			for (size_t l = 0; l <= evs[i].line; l++)
				first_crash_line += h_json_is_interval(d.lines[l]);
	}
	cr_assert_gt(first_crash_line, intervals_before, "our crash events are in interval line "
		     "%d, but the children died after line %d", first_crash_line,
		     intervals_before);

	/* Intervals: before the crashes, crash-free == operational (nothing crashed);
	 * after them crash-free falls behind, by at most one interval (all crashes
	 * fell within half a second), and grows again. */
	for (int k = 1; k <= nlines; k++) {
		const struct crash_obj *c = &objs[k - 1];
		bool quiet = c->crashes == 0;

		if (k < first_crash_line) {
			cr_expect(!quiet || c->cf == c->op, "line %d, before any crash: "
				  "crash-free %" PRId64 " != operational %" PRId64, k, c->cf,
				  c->op);
			continue;
		}
		behind |= c->cf < c->op;
		if (c->crashes == 3)	/* ours, and nothing else crashed */
			cr_expect_leq(c->op - c->cf, burst_ms < 400 ? 1 : 2,
				      "line %d: crash-free %" PRId64 " is more than %d behind "
				      "operational %" PRId64 " after one burst of crashes", k,
				      c->cf, burst_ms < 400 ? 1 : 2, c->op);
	}
	cr_expect(behind, "after the crashes, crashfree_intervals never fell below "
		  "operational_intervals");
	cr_expect_geq(last.cf, objs[first_crash_line - 1].cf + 2,
		      "crashfree_intervals did not grow again after the crashes: %" PRId64
		      " at the crash line %d, %" PRId64 " at the end (3.5 s later)",
		      objs[first_crash_line - 1].cf, first_crash_line, last.cf);
	if (!behind || last.cf < objs[first_crash_line - 1].cf + 2)
		log_crash_objects(&d);
	h_diskio_free(&d);
}

/*
 * 2. A run in which the test causes no crash: the counts follow the clock
 * (about 3.5 s in: 3 or 4 operational intervals) and, with no crash at all,
 * every operational interval is a crash-free one.
 */
Test(crash, intervals_follow_the_clock_without_crash)
{
	struct crash_obj objs[64];
	struct stamps stamps = { { 0 } };
	struct h_diskio d;
	int64_t t0 = h_now_ms();
	bool quiet = true;
	int n;

	h_diskio_start(&d, H_ARGS("--json", "--crash-interval", CRASH_IVAL, INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	stamp_read(&d, &stamps);
	follow_intervals(&d, 5, &stamps);
	h_diskio_finish(&d, 2);

	n = check_progression(&d, t0, &stamps, 0, objs, 64);
	cr_assert_geq(n, 8, "only %d interval lines in ~4 s", n);
	cr_expect(objs[6].op >= 3 && objs[6].op <= 4, "3.5 s in (interval line 7): "
		  "operational_intervals %" PRId64 ", expected 3 or 4", objs[6].op);
	cr_expect_geq(objs[n - 1].op, 4, "%d half-second intervals: operational_intervals %"
		      PRId64, n, objs[n - 1].op);
	for (int k = 0; k < n; k++)
		quiet &= objs[k].crashes == 0 && objs[k].by.len == 2;
	if (!quiet) {
		cr_log_info("some process on the machine crashed during the run: crash-free == "
			    "operational not checked");
	} else {
		for (int k = 0; k < n; k++)
			cr_expect_eq(objs[k].cf, objs[k].op, "interval line %d, no crash at all: "
				     "crashfree_intervals %" PRId64 " != operational_intervals %"
				     PRId64, k + 1, objs[k].cf, objs[k].op);
	}
	cr_expect(strstr(d.err, "warning") == NULL, "diskio warned: %s", d.err);
	h_diskio_free(&d);
}

/* Start `diskio --json --crash-interval 1 --state PATH 0.5`. */
static void start_with_state(struct h_diskio *d, const char *path)
{
	h_diskio_start(d, H_ARGS("--json", "--crash-interval", CRASH_IVAL, "--state", path,
				 INTERVAL), NULL);
}

/*
 * 3. --state: run 1 (one SIGSEGV child "cf-state") and run 2 (no crash) add
 * up: run 2 starts with run 1's crash and counts, operational time goes on
 * from run 1's (progress into the current interval included), and crash-free
 * time grows exactly as much as operational time while nothing crashes.
 */
Test(crash, state_two_runs_add_up)
{
	static const char *const mine[] = { "cf-state", NULL };
	char path[PATH_MAX];
	struct crash_obj o1[64], o2[64];
	struct stamps s1 = { { 0 } }, s2 = { { 0 } };
	struct state st1, st2;
	struct h_diskio d;
	int64_t t0, t_start1, t_reap, t_end, gap, unrelated;
	double duration;
	char head[32];
	int n1, n2;
	pid_t pid;

	tmp_path(path, sizeof(path), "state");

	/* Run 1: a missing file starts fresh, silently. */
	t0 = t_start1 = h_now_ms();
	start_with_state(&d, path);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	stamp_read(&d, &s1);
	pid = spawn_death("cf-state", DIE_SEGV, NULL);
	expect_death(pid, "cf-state", SIGSEGV, 0);
	t_reap = h_now_ms();
	follow_intervals(&d, 2, &s1);
	h_diskio_finish(&d, 2);
	t_end = h_now_ms();
	n1 = check_progression(&d, t0, &s1, 0, o1, 64);
	cr_expect(strstr(d.err, "warning") == NULL, "run 1 (no state file yet) warned: %s", d.err);
	unrelated = by_unrelated(o1[n1 - 1].by, mine);
	cr_expect_eq(o1[n1 - 1].crashes - unrelated, 1, "run 1: crashes %" PRId64,
		     o1[n1 - 1].crashes);
	cr_expect_eq(by_count(o1[n1 - 1].by, "cf-state"), 1, "run 1: by_process: %.*s",
		     (int)o1[n1 - 1].by.len, o1[n1 - 1].by.p);
	duration = summary_duration(&d);
	h_diskio_free(&d);

	cr_assert(!access(path, F_OK), "no state file %s after run 1", path);
	cr_expect(h_read_file(path, head, sizeof(head)) > 0 &&
		  !strncmp(head, "diskio-crashfree 1\n", 19),
		  "state file does not start with \"diskio-crashfree 1\": %.20s", head);
	expect_valid_state(path, &st1, "after run 1");
	log_file("state after run 1", path);
	cr_expect_eq(state_process(&st1, "cf-state"), 1, "state after run 1: cf-state %" PRIu64,
		     state_process(&st1, "cf-state"));
	cr_expect_eq(st1.crashes, 1 + (uint64_t)unrelated, "state after run 1: crashes %" PRIu64,
		     st1.crashes);
	cr_expect_geq(st1.op, (uint64_t)o1[n1 - 1].op, "state after run 1: %" PRIu64
		      " operational intervals, the last line showed %" PRId64, st1.op,
		      o1[n1 - 1].op);
	/* Saved at exit: all the run's time, from start to exit. */
	cr_expect(state_op_ns(&st1) >= (int64_t)(duration * NSEC) - 1000000 &&
		  state_op_ns(&st1) <= (t_end - t_start1) * 1000000LL,
		  "state after run 1: %" PRId64 " ns of operational time, run lasted %.3f s "
		  "(summary) .. %" PRId64 " ms (wall)", state_op_ns(&st1), duration,
		  t_end - t_start1);
	/* The crash, after the first interval line and before the child was
	 * reaped, moved the crash-free mark to its time: crash-free time lags by
	 * the time from the last crash-free interval counted to the crash.  If
	 * the child was reaped within 1 s, no interval was counted before. */
	gap = state_op_ns(&st1) - state_cf_ns(&st1);
	cr_expect(gap > 0 && gap <= (t_reap - t_start1) * 1000000LL,
		  "state after run 1: crash-free time is %" PRId64 " ns behind operational time; "
		  "the crash came at most %" PRId64 " ms after start", gap, t_reap - t_start1);
	if (t_reap - t_start1 < 1000)
		cr_expect_geq(gap, (int64_t)INTERVAL_MS * 1000000LL, "state after run 1: "
			      "crash-free time is only %" PRId64 " ns behind operational time; the "
			      "crash came %d .. %" PRId64 " ms after start", gap, INTERVAL_MS,
			      t_reap - t_start1);

	/* Run 2, no crash. */
	t0 = h_now_ms();
	start_with_state(&d, path);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	stamp_read(&d, &s2);
	follow_intervals(&d, 2, &s2);
	h_diskio_finish(&d, 2);
	t_end = h_now_ms();
	n2 = check_progression(&d, t0, &s2, state_op_ns(&st1), o2, 64);
	cr_expect(strstr(d.err, "warning") == NULL, "run 2 warned: %s", d.err);
	cr_expect_eq(by_count(o2[0].by, "cf-state"), 1, "run 2's first interval: by_process %.*s, "
		     "expected \"cf-state\":1 from the state file", (int)o2[0].by.len, o2[0].by.p);
	cr_expect_eq(o2[0].crashes - by_unrelated(o2[0].by, mine), 1,
		     "run 2's first interval: crashes %" PRId64 ", expected 1 from the state file",
		     o2[0].crashes);
	cr_expect_geq(o2[0].op, (int64_t)st1.op, "run 2's first interval: operational_intervals %"
		      PRId64 ", the state file had %" PRIu64, o2[0].op, st1.op);
	cr_expect_geq(o2[n2 - 1].op, o1[n1 - 1].op + 2, "run 2 ends at %" PRId64 " operational "
		      "intervals, run 1 at %" PRId64 ": the runs do not add up", o2[n2 - 1].op,
		      o1[n1 - 1].op);
	cr_expect_eq(by_count(o2[n2 - 1].by, "cf-state"), 1, "run 2's last interval: by_process "
		     "%.*s", (int)o2[n2 - 1].by.len, o2[n2 - 1].by.p);
	duration = summary_duration(&d);
	h_diskio_free(&d);

	expect_valid_state(path, &st2, "after run 2");
	log_file("state after run 2", path);
	cr_expect_eq(state_process(&st2, "cf-state"), 1, "state after run 2: cf-state %" PRIu64,
		     state_process(&st2, "cf-state"));
	cr_expect(state_op_ns(&st2) - state_op_ns(&st1) >= (int64_t)(duration * NSEC) - 1000000 &&
		  state_op_ns(&st2) - state_op_ns(&st1) <= (t_end - t0) * 1000000LL,
		  "run 2 added %" PRId64 " ns of operational time to the state file; it lasted "
		  "%.3f s (summary) .. %" PRId64 " ms (wall)",
		  state_op_ns(&st2) - state_op_ns(&st1), duration, t_end - t0);
	if (st2.crashes == st1.crashes)
		cr_expect_eq(state_cf_ns(&st2) - state_cf_ns(&st1),
			     state_op_ns(&st2) - state_op_ns(&st1),
			     "run 2 had no crash but added %" PRId64 " ns of crash-free and %"
			     PRId64 " ns of operational time",
			     state_cf_ns(&st2) - state_cf_ns(&st1),
			     state_op_ns(&st2) - state_op_ns(&st1));
	else
		cr_log_info("another process crashed during run 2: crash-free time not compared");
}

/*
 * 4. A state file damaged between runs (garbage written over diskio's own
 * file after its first line) is moved aside to STATE.corrupt with one
 * warning line; diskio starts fresh, exits 0 and leaves a valid state file
 * behind.  (A file without that first line is not diskio's: test_state.c.)
 */
Test(crash, damaged_state_moved_aside)
{
	static const char garbage[] = "diskio-crashfree 1\n\x7f" "ELF\x02\x01 diskio-crashfree 1?"
				      "\n\xff\xfe\x00crashes=banana\nprocess \n";
	const size_t garbage_len = sizeof(garbage) - 1;
	const char *const mine[] = { "cf-old", NULL };
	char path[PATH_MAX], corrupt[PATH_MAX], buf[4096];
	const char *warn_prefix = "diskio: warning: state file";
	struct crash_obj objs[64];
	struct stamps stamps = { { 0 } };
	struct state before, after;
	struct h_diskio d;
	int64_t t0, t_end;
	double duration;
	ssize_t len;
	int n, warnings = 0;
	pid_t pid;
	int fd;

	tmp_path(path, sizeof(path), "state");
	tmp_path(corrupt, sizeof(corrupt), "state.corrupt");

	/* A state file written by diskio, with one crash of "cf-old". */
	start_with_state(&d, path);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	pid = spawn_death("cf-old", DIE_SEGV, NULL);
	expect_death(pid, "cf-old", SIGSEGV, 0);
	h_diskio_finish(&d, 2);
	h_diskio_free(&d);
	expect_valid_state(path, &before, "before the damage");
	cr_assert_eq(state_process(&before, "cf-old"), 1, "the first run did not save cf-old's "
		     "crash");

	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, garbage, garbage_len), (ssize_t)garbage_len, "write garbage");
	close(fd);

	t0 = h_now_ms();
	start_with_state(&d, path);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	stamp_read(&d, &stamps);
	follow_intervals(&d, 2, &stamps);
	h_diskio_finish(&d, 2);		/* asserts exit 0 */
	t_end = h_now_ms();

	for (const char *line = d.err; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t line_len = nl ? (size_t)(nl - line) : strlen(line);

		if (!strncmp(line, warn_prefix, strlen(warn_prefix))) {
			warnings++;
			cr_expect(memmem(line, line_len, ".corrupt", 8) != NULL,
				  "the warning does not mention .corrupt: %.*s", (int)line_len,
				  line);
			cr_expect(memmem(line, line_len, path, strlen(path)) != NULL,
				  "the warning does not name %s: %.*s", path, (int)line_len, line);
		}
		line = nl ? nl + 1 : NULL;
	}
	cr_expect_eq(warnings, 1, "%d lines starting \"%s\" on stderr, expected 1: %s", warnings,
		     warn_prefix, d.err);

	len = h_read_file(corrupt, buf, sizeof(buf));
	cr_expect_eq(len, (ssize_t)garbage_len, "%s: %zd bytes (%s), expected the %zu garbage "
		     "bytes", corrupt, len, len < 0 ? strerror((int)-len) : "read", garbage_len);
	if (len == (ssize_t)garbage_len)
		cr_expect(!memcmp(buf, garbage, garbage_len), "%s does not hold the garbage",
			  corrupt);

	/* Fresh: no old crash, no old operational time. */
	n = check_progression(&d, t0, &stamps, 0, objs, 64);
	cr_expect_eq(by_count(objs[0].by, "cf-old"), -1, "after the damaged file, the first "
		     "interval still lists cf-old: %.*s", (int)objs[0].by.len, objs[0].by.p);
	cr_expect_eq(objs[0].crashes - by_unrelated(objs[0].by, mine), 0,
		     "after the damaged file, the first interval shows %" PRId64 " crashes",
		     objs[0].crashes);
	cr_expect_leq(objs[n - 1].op, 3, "after the damaged file, %" PRId64 " operational "
		      "intervals after ~2.5 s", objs[n - 1].op);
	duration = summary_duration(&d);
	h_diskio_free(&d);

	expect_valid_state(path, &after, "after the run with a damaged file");
	log_file("state after the damaged run", path);
	cr_expect_eq(state_process(&after, "cf-old"), 0, "the new state file has cf-old's crash");
	cr_expect(state_op_ns(&after) >= (int64_t)(duration * NSEC) - 1000000 &&
		  state_op_ns(&after) <= (t_end - t0) * 1000000LL,
		  "the new state file has %" PRId64 " ns of operational time; the run lasted "
		  "%.3f s (summary) .. %" PRId64 " ms (wall)", state_op_ns(&after), duration,
		  t_end - t0);
	len = h_read_file(corrupt, buf, sizeof(buf));
	cr_expect(len == (ssize_t)garbage_len && !memcmp(buf, garbage, garbage_len),
		  "%s changed after the run", corrupt);
}

/* Split "by_process=a:1,b:2" and find comm; count of comm (-1 absent) and
 * the sum of the others in *others. */
static int64_t batch_by_process(const char *field, const char *comm, int64_t *others)
{
	char list[512], *item, *save = NULL;
	int64_t mine = -1;

	*others = 0;
	snprintf(list, sizeof(list), "%.*s", (int)strcspn(field, " \t"), field);
	if (!strcmp(list, "-"))
		return -1;
	for (item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *colon = strrchr(item, ':');
		int64_t n;

		if (!colon)
			return -2;
		*colon = '\0';
		n = strtoll(colon + 1, NULL, 10);
		if (!strcmp(item, comm))
			mine = n;
		else
			*others += n;
	}
	return mine;
}

/*
 * 5. Batch mode shows the same facts: a "# crash ..." line per interval
 * (and after the summary) with crashes=1 and by_process=COMM:1 once the
 * abort() child died, and one "# crash-event pid=PID comm=COMM signal=SIGABRT" line.
 */
Test(crash, batch_crash_lines)
{
	/* key=value fields of a "# crash" line, found by name */
	static const char *const keys[] = { "interval_s=", "operational_intervals=",
		"crashfree_intervals=", "crashes=", "by_process=" };
	enum { K_INTERVAL, K_OP, K_CF, K_CRASHES, K_BY, NKEYS };
	char comm[16], event_prefix[128], core_flag[32], comm_field[32];
	struct h_diskio d;
	int status, crash_lines = 0, counted_lines = 0, events = 0;
	const char *last_crash = NULL;
	pid_t pid;

	snprintf(comm, sizeof(comm), "cf-babrt-%03d", (int)(getpid() % 1000));
	h_diskio_start(&d, H_ARGS("-b", "--crash-interval", CRASH_IVAL, INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	pid = spawn_death(comm, DIE_ABORT, NULL);
	status = expect_death(pid, comm, SIGABRT, 0);
	h_diskio_finish(&d, 2);

	snprintf(event_prefix, sizeof(event_prefix), "# crash-event pid=%d comm=%s signal=SIGABRT",
		 (int)pid, comm);
	snprintf(core_flag, sizeof(core_flag), " core_dumped=%d", WCOREDUMP(status) ? 1 : 0);
	snprintf(comm_field, sizeof(comm_field), " comm=%s ", comm);
	for (size_t i = 0; i < d.nlines; i++) {
		const char *line = d.lines[i];
		const char *val[NKEYS];
		char *f[16];
		int nf;

		if (!strncmp(line, "# crash-event ", 14)) {
			if (strstr(line, comm_field)) {
				size_t plen = strlen(event_prefix);

				events++;
				cr_expect(!strncmp(line, event_prefix, plen) &&
					  (line[plen] == ' ' || !line[plen]),
					  "crash-event line \"%s\", expected \"%s ...\"", line,
					  event_prefix);
				cr_expect(strstr(line, core_flag) != NULL,
					  "crash-event line \"%s\" without \"%s\" (the wait "
					  "status)", line, core_flag);
			}
			continue;
		}
		if (strncmp(line, "# crash ", 8))
			continue;
		crash_lines++;
		last_crash = line;
		nf = h_split_fields(line, f, 16);
		for (int key = 0; key < NKEYS; key++)
			val[key] = NULL;
		for (int k = 2; k < nf && k < 16; k++)
			for (int key = 0; key < NKEYS; key++)
				if (!val[key] && !strncmp(f[k], keys[key], strlen(keys[key])))
					val[key] = f[k] + strlen(keys[key]);
		for (int key = 0; key < NKEYS; key++)
			cr_expect(val[key] != NULL, "no %s in \"%s\"", keys[key], line);
		if (val[K_INTERVAL] && val[K_CRASHES] && val[K_BY]) {
			int64_t others, ours = batch_by_process(val[K_BY], comm, &others);
			int64_t crashes = strtoll(val[K_CRASHES], NULL, 10);

			cr_expect_str_eq(val[K_INTERVAL], "1", "interval_s in \"%s\"", line);
			if (ours >= 0) {
				counted_lines++;
				cr_expect_eq(ours, 1, "%s: %s:%" PRId64, line, comm, ours);
				cr_expect_eq(crashes - others, 1, "\"%s\": crashes=%" PRId64
					     " with %" PRId64 " of other processes", line, crashes,
					     others);
			}
		}
		h_free_fields(f, nf, 16);
	}
	cr_expect_geq(crash_lines, 3, "only %d \"# crash \" lines", crash_lines);
	cr_expect_geq(counted_lines, 2, "only %d \"# crash \" lines list by_process=%s:1",
		      counted_lines, comm);
	cr_expect_eq(events, 1, "%d \"# crash-event\" lines for %s, expected 1", events, comm);
	cr_expect(last_crash && last_crash == d.lines[d.nlines - 1], "the summary does not end "
		  "with a \"# crash\" line");
	if (last_crash) {
		int64_t others;
		const char *by = strstr(last_crash, " by_process=");

		cr_expect(by && batch_by_process(by + 12, comm, &others) == 1,
			  "the summary's crash line does not list %s:1: %s", comm, last_crash);
		cr_expect(strstr(last_crash, " crashes=1 ") || (by && others > 0),
			  "the summary's crash line: %s", last_crash);
	}
	if (events != 1 || counted_lines < 2)
		h_diskio_dump(&d, "batch crash lines");
	h_diskio_free(&d);
}

/*
 * 6. Whether or not a core file was written: a SIGSEGV child with an
 * unlimited core size (in the temp dir) and one with RLIMIT_CORE 0 are both
 * crashes, and each event's core_dumped says what the wait status says.
 */
Test(crash, core_dumped_or_not)
{
	const int tag = (int)(getpid() % 1000);
	const char *mine[3];
	char with[16], without[16], pattern[256] = "";
	struct crash_obj last;
	struct event evs[32];
	struct h_diskio d;
	int st_with, st_without;
	pid_t p_with, p_without;
	size_t nevs;

	snprintf(with, sizeof(with), "cf-core-%03d", tag);
	snprintf(without, sizeof(without), "cf-nocore-%03d", tag);
	mine[0] = with; mine[1] = without; mine[2] = NULL;
	h_read_file("/proc/sys/kernel/core_pattern", pattern, sizeof(pattern));

	h_diskio_start(&d, H_ARGS("--json", "--crash-interval", CRASH_IVAL, INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	p_with = spawn_death(with, DIE_SEGV, tmpdir);
	st_with = expect_death(p_with, with, SIGSEGV, 0);
	p_without = spawn_death(without, DIE_SEGV, NULL);
	st_without = expect_death(p_without, without, SIGSEGV, 0);
	h_diskio_finish(&d, 2);

	if (!WCOREDUMP(st_with))
		cr_log_info("no core was dumped with an unlimited RLIMIT_CORE (core_pattern %s): "
			    "only checking that core_dumped matches", pattern);
	if (pattern[0] != '|')
		cr_expect(!WCOREDUMP(st_without), "a core was dumped with RLIMIT_CORE 0");
	nevs = collect_events(&d, evs, 32);
	expect_one_event(evs, nevs, with, p_with, "SIGSEGV", WCOREDUMP(st_with));
	expect_one_event(evs, nevs, without, p_without, "SIGSEGV", WCOREDUMP(st_without));
	cr_assert(crash_of_line(summary_line(&d), &last));
	cr_expect_eq(last.crashes - by_unrelated(last.by, mine), 2, "crashes %" PRId64,
		     last.crashes);
	cr_expect_eq(by_count(last.by, with), 1, "by_process %.*s", (int)last.by.len, last.by.p);
	cr_expect_eq(by_count(last.by, without), 1, "by_process %.*s", (int)last.by.len,
		     last.by.p);
	h_diskio_free(&d);
}
