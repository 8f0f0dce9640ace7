// SPDX-License-Identifier: GPL-2.0
/*
 * Trace mode (-T) and lost-event accounting, run as root against the real
 * kernel:
 *  - known O_DIRECT I/O on a zram disk (bio-based: block_bio_queue/complete)
 *    and a loop device (blk-mq: block_io_start/done) shows one event per I/O
 *    with the right pid, comm, op, sector, bytes and a latency, in JSON and
 *    in batch lines of exactly 8 fields;
 *  - exactness under a 4k random-read load (fio, or two C readers without
 *    fio) that overruns a deliberately tiny events buffer: events received +
 *    events lost == I/Os completed per /proc/diskstats, with lost > 0, for the
 *    ring buffer and the perf buffer (DISKIO_FORCE_PERF_BUFFER=1) on zram, and
 *    for the ring buffer on the loop device; with an ample buffer lost == 0
 *    and every I/O is received;
 *  - every JSON trace line is valid JSON, and each "lost" object's events is
 *    the sum of its by_cause counts.
 *
 * Under load, diskio's stdout goes to a file in /dev/shm (not a pipe), so
 * that a slow test reader cannot make diskio lose events.
 */
#include "harness.h"

#define MiB		(1024ULL * 1024ULL)
#define DEV_SIZE	(64ULL * MiB)
#define INTERVAL	"0.5"
#define INTERVAL_MS	500
#define LOAD_MS		2000	/* fio's runtime */
#define LOAD_JOBS	2
#define TINY_KB		"4"	/* ring buffer: one 4 KiB page, ~50 events */
/* 64 MiB: ~800k events of backlog while diskio reads (zram loads here run at
 * 80k-380k I/Os per second, and diskio keeps up with all of them). */
#define AMPLE_KB	"65536"
/* With the ample buffers, the load stops at this many I/Os a job: both
 * jobs' fit in 64 MiB even on one CPU and if diskio read none until the
 * load's end (a 64-byte struct block_io_event takes 80 bytes with the perf
 * buffer's header, 72 in the ring buffer), so a lost event says the buffer
 * failed, not that two fio jobs on two CPUs outran the reader for a while,
 * as they once did at 1.1 M I/Os a second. */
#define AMPLE_LOAD_IOS	300000

/* Output files of diskio runs, removed by the suite's .fini even when an
 * assertion ends a test early. */
#define MAX_OUT_FILES 8
static char out_files[MAX_OUT_FILES][256];

static void remember_file(const char *path)
{
	for (int i = 0; i < MAX_OUT_FILES; i++) {
		if (!out_files[i][0]) {
			snprintf(out_files[i], sizeof(out_files[i]), "%s", path);
			return;
		}
	}
}

static void trace_fini(void)
{
	h_teardown();	/* stops diskio and the load first */
	for (int i = 0; i < MAX_OUT_FILES; i++) {
		if (out_files[i][0])
			unlink(out_files[i]);
		out_files[i][0] = '\0';
	}
}

TestSuite(trace, .init = h_setup, .fini = trace_fini, .timeout = 60);

/* ============================================================ lines == */

/* Interval lines of trace mode: "# interval ..." or {"type":"interval",...}
 * (JSON records start with their type). */
static bool trace_is_interval(const char *line)
{
	return !strncmp(line, "# interval ", 11) || !strncmp(line, "{\"type\":\"interval\",", 19);
}

static bool trace_is_summary(const char *line)
{
	return !strncmp(line, "# summary ", 10) || !strncmp(line, "{\"type\":\"summary\",", 18);
}

/* Value of " key=N" in a batch '#' line; false if absent. */
static bool batch_kv(const char *line, const char *key, int64_t *out)
{
	char pat[64];
	const char *at;
	char *end;

	snprintf(pat, sizeof(pat), " %s=", key);
	at = strstr(line, pat);
	if (!at)
		return false;
	at += strlen(pat);
	if (!isdigit((unsigned char)*at))
		return false;
	*out = strtoll(at, &end, 10);
	return *end == ' ' || *end == '\0';
}

/* Sum of every " lost_<cause>=N" of a batch '#' line; -1 if one is malformed. */
static int64_t batch_lost_causes(const char *line, int *ncauses)
{
	int64_t sum = 0;

	*ncauses = 0;
	for (const char *p = strstr(line, " lost_"); p; p = strstr(p + 1, " lost_")) {
		const char *eq = strchr(p, '=');
		char *end;

		if (!eq || !isdigit((unsigned char)eq[1]))
			return -1;
		sum += strtoll(eq + 1, &end, 10);
		(*ncauses)++;
	}
	return sum;
}

/* A JSON number (integer or not) into *out. */
static bool json_number(struct h_jv v, double *out)
{
	char buf[64], *end;

	if (!v.len || v.len >= sizeof(buf))
		return false;
	memcpy(buf, v.p, v.len);
	buf[v.len] = '\0';
	if (!(isdigit((unsigned char)buf[0]) || buf[0] == '-'))
		return false;
	*out = strtod(buf, &end);
	return !*end;
}

/* ========================================================== events == */

#define TRACE_FIELDS 8	/* time_s pid comm device op sector bytes latency_us */

/* One trace record, from a batch line or a JSON object. */
struct tev {
	double time;
	int64_t pid;
	char comm[64];		/* batch: as printed (escaped); JSON: unescaped */
	char device[32];
	char op[16];
	int64_t sector, bytes;
	double latency_us;
};

static bool parse_i64(const char *f, size_t len, int64_t *out)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf) || !isdigit((unsigned char)f[0]))
		return false;
	memcpy(buf, f, len);
	buf[len] = '\0';
	errno = 0;
	*out = strtoll(buf, &end, 10);
	return !errno && !*end;
}

static bool parse_double(const char *f, size_t len, double *out)
{
	char buf[64], *end;

	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, f, len);
	buf[len] = '\0';
	*out = strtod(buf, &end);
	return !*end;
}

static void copy_field(char *dst, size_t size, const char *f, size_t len)
{
	snprintf(dst, size, "%.*s", (int)len, f);
}

/* A batch data line: exactly 8 fields, integers and numbers where they belong. */
static bool tev_from_batch(const char *line, struct tev *e)
{
	const char *f[TRACE_FIELDS + 1];
	size_t len[TRACE_FIELDS + 1];

	memset(e, 0, sizeof(*e));
	if (h_split_view(line, f, len, TRACE_FIELDS + 1) != TRACE_FIELDS)
		return false;
	copy_field(e->comm, sizeof(e->comm), f[2], len[2]);
	copy_field(e->device, sizeof(e->device), f[3], len[3]);
	copy_field(e->op, sizeof(e->op), f[4], len[4]);
	return parse_double(f[0], len[0], &e->time) && parse_i64(f[1], len[1], &e->pid) &&
	       parse_i64(f[5], len[5], &e->sector) && parse_i64(f[6], len[6], &e->bytes) &&
	       parse_double(f[7], len[7], &e->latency_us);
}

/* A JSON event object {"type":"event","time":"ISO","ts":..,"time_s":..,
 * "pid":..,"comm":..,"device":..,"op":..,"sector":..,"bytes":..,
 * "latency_us":..}: every key, with its type. */
static bool tev_from_json(struct h_jv obj, struct tev *e)
{
	struct h_jv v;
	double ts;

	memset(e, 0, sizeof(*e));
	return h_json_get(obj, "type", &v) && h_json_str_eq(v, "event") &&
	       h_json_get(obj, "time", &v) && v.len == 26 && v.p[0] == '"' && v.p[24] == 'Z' &&
	       h_json_get(obj, "ts", &v) && json_number(v, &ts) && ts > 1e9 &&
	       h_json_get(obj, "time_s", &v) && json_number(v, &e->time) &&
	       h_json_get_int(obj, "pid", &e->pid) &&
	       h_json_get(obj, "comm", &v) && h_json_str(v, e->comm, sizeof(e->comm)) >= 0 &&
	       h_json_get(obj, "device", &v) &&
	       h_json_str(v, e->device, sizeof(e->device)) >= 0 &&
	       h_json_get(obj, "op", &v) && h_json_str(v, e->op, sizeof(e->op)) >= 0 &&
	       h_json_get_int(obj, "sector", &e->sector) &&
	       h_json_get_int(obj, "bytes", &e->bytes) &&
	       h_json_get(obj, "latency_us", &v) && json_number(v, &e->latency_us);
}

/* An op string the kernel's rwbs letters allow: optional F (preflush), the
 * operation (R, W, D, DE, F, N), then F (FUA), A (readahead), S (sync), M
 * (metadata) in that order, each at most once. */
static bool rwbs_valid(const char *op, char first)
{
	static const char order[] = "FASM";
	const char *p = op, *o = order;

	if (*p == 'F' && p[1] == first)
		p++;
	if (*p++ != first)
		return false;
	for (; *p; p++) {
		const char *at = strchr(o, *p);

		if (!at)
			return false;
		o = at + 1;
	}
	return true;
}

/* ================================================= diskio to a file == */

/* diskio with stdout and stderr in files under H_STATE_DIR. */
struct tdiskio {
	pid_t pid;
	char out_path[256], err_path[256];
	int out_fd;		/* read end, following the file */
	char head[32];		/* first bytes of the line being read */
	size_t head_len;
	int64_t lines, intervals;
	bool exited;
	int status;
};

static void td_start(struct tdiskio *t, const char *const args[], const char *const env_add[])
{
	static int seq;
	const char *path = h_diskio_path();
	const char *argv[32];
	size_t n = 0;
	int out, err;

	memset(t, 0, sizeof(*t));
	t->out_fd = -1;
	cr_assert(!access(path, X_OK), "diskio binary %s is not executable: set DISKIO=/abs/path",
		  path);
	snprintf(t->out_path, sizeof(t->out_path), H_STATE_DIR "/trace-%d-%d.out", (int)getpid(),
		 seq);
	snprintf(t->err_path, sizeof(t->err_path), H_STATE_DIR "/trace-%d-%d.err", (int)getpid(),
		 seq++);
	remember_file(t->out_path);
	remember_file(t->err_path);
	out = open(t->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	err = open(t->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	cr_assert(out >= 0 && err >= 0, "create %s: %s", t->out_path, strerror(errno));
	argv[n++] = path;
	for (size_t i = 0; args[i] && n < 31; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	fflush(NULL);
	t->pid = fork();
	cr_assert(t->pid >= 0, "fork: %s", strerror(errno));
	if (!t->pid) {
		int devnull = open("/dev/null", O_RDONLY);

		prctl(PR_SET_PDEATHSIG, SIGTERM);
		dup2(devnull, 0);
		dup2(out, 1);
		dup2(err, 2);
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
		for (size_t i = 0; env_add && env_add[i]; i++)
			putenv((char *)env_add[i]);
		execv(path, (char *const *)argv);
		dprintf(2, "td_start: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	h_track_child(t->pid);
	close(out);
	close(err);
	t->out_fd = open(t->out_path, O_RDONLY | O_CLOEXEC);
	cr_assert(t->out_fd >= 0, "open %s: %s", t->out_path, strerror(errno));
}

/* Take in what diskio appended; notice its exit. */
static void td_pump(struct tdiskio *t)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(t->out_fd, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (t->head_len < sizeof(t->head) - 1)
					t->head[t->head_len++] = buf[i];
				continue;
			}
			t->head[t->head_len] = '\0';
			t->lines++;
			if (trace_is_interval(t->head))
				t->intervals++;
			t->head_len = 0;
		}
	}
	if (!t->exited && waitpid(t->pid, &t->status, WNOHANG) == t->pid) {
		t->exited = true;
		h_untrack_child(t->pid);
	}
}

/* diskio's stderr, for messages (static buffer). */
static const char *td_stderr(const struct tdiskio *t)
{
	static char buf[4096];

	if (h_read_file(t->err_path, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "(unreadable)");
	return buf[0] ? buf : "(empty)";
}

/* Wait until diskio printed at least lines lines and intervals interval lines. */
static void td_wait(struct tdiskio *t, int64_t lines, int64_t intervals, int timeout_ms,
		    const char *what)
{
	int64_t deadline = h_now_ms() + timeout_ms;

	for (;;) {
		td_pump(t);
		if (t->lines >= lines && t->intervals >= intervals)
			return;
		if (t->exited || h_now_ms() >= deadline)
			break;
		h_sleep_ms(20);
	}
	td_pump(t);
	if (t->lines >= lines && t->intervals >= intervals)
		return;
	cr_assert_fail("%s: diskio printed %" PRId64 " lines, %" PRId64 " intervals within %d ms "
		       "(%s); stderr: %s", what, t->lines, t->intervals, timeout_ms,
		       t->exited ? "it exited" : "still running", td_stderr(t));
}

/* SIGINT, wait for the exit; assert exit 0. */
static void td_stop(struct tdiskio *t)
{
	char why[64];

	if (!t->exited) {
		kill(t->pid, SIGINT);
		if (h_wait_pid(t->pid, H_EXIT_TIMEOUT_MS, &t->status)) {
			h_kill_child(t->pid);
			t->status = -1;
		}
		t->exited = true;
	}
	td_pump(t);
	cr_assert(t->status != -1 && WIFEXITED(t->status) && WEXITSTATUS(t->status) == 0,
		  "diskio after SIGINT: %s; stderr: %s",
		  h_status_str(t->status, why, sizeof(why)), td_stderr(t));
}

/* The whole output file, NUL-terminated (free it). */
static char *td_slurp(const struct tdiskio *t, size_t *size)
{
	int fd = open(t->out_path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *buf;
	size_t len = 0;

	cr_assert(fd >= 0 && !fstat(fd, &st), "open %s: %s", t->out_path, strerror(errno));
	buf = malloc(st.st_size + 1);
	cr_assert(buf, "out of memory");
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, st.st_size - len);

		if (n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = '\0';
	*size = len;
	return buf;
}

static void td_free(struct tdiskio *t)
{
	if (t->pid > 0 && !t->exited) {
		h_kill_child(t->pid);
		t->exited = true;
	}
	if (t->out_fd >= 0)
		close(t->out_fd);
	t->out_fd = -1;
	unlink(t->out_path);
	unlink(t->err_path);
}

/* ======================================================= BPF stats == */

/* run_cnt and recursion_misses of diskio's program name (bpftool prog show;
 * run_cnt needs kernel.bpf_stats_enabled=1).  false if not found. */
static bool prog_stats(pid_t diskio, const char *name, int64_t *run_cnt, int64_t *misses)
{
	uint32_t ids[64];
	int n = h_pid_bpf_prog_ids(diskio, ids, 64);

	*run_cnt = *misses = -1;
	for (int i = 0; i < n; i++) {
		char id[16];
		struct h_result r;
		const char *at;

		snprintf(id, sizeof(id), "%u", ids[i]);
		h_run(H_ARGS("bpftool", "prog", "show", "id", id), NULL, NULL, 10000, &r);
		at = strstr(r.out, " name ");
		if (r.status == 0 && at && !strncmp(at + 6, name, strlen(name)) &&
		    isspace((unsigned char)at[6 + strlen(name)])) {
			at = strstr(r.out, "run_cnt ");
			if (at)
				*run_cnt = strtoll(at + 8, NULL, 10);
			at = strstr(r.out, "recursion_misses ");
			*misses = at ? strtoll(at + 17, NULL, 10) : 0;
			h_result_free(&r);
			return true;
		}
		h_result_free(&r);
	}
	return false;
}

/* ============================================================= load == */

/* total_ios of the first job's "read" in fio's JSON output; -1 if absent. */
static int64_t fio_read_ios(const char *out)
{
	const char *start = strstr(out, "\n{");
	struct h_jv root, jobs, job, read;
	size_t pos = 0;
	int64_t ios;

	start = !strncmp(out, "{", 1) ? out : start ? start + 1 : NULL;
	if (!start || !h_json_parse(start, &root) || !h_json_get(root, "jobs", &jobs) ||
	    !h_json_next_elem(jobs, &pos, &job) || !h_json_get(job, "read", &read) ||
	    !h_json_get_int(read, "total_ios", &ios))
		return -1;
	return ios;
}

/* Without fio: jobs children reading 4 KiB at random aligned offsets with
 * O_DIRECT for ms milliseconds. */
static void c_load(const struct h_dev *dev, int jobs, int ms)
{
	pid_t pids[8];

	for (int j = 0; j < jobs; j++) {
		fflush(NULL);
		pids[j] = fork();
		cr_assert(pids[j] >= 0, "fork: %s", strerror(errno));
		if (!pids[j]) {
			uint32_t x = 0x9e3779b9U ^ (uint32_t)getpid();
			int64_t deadline;
			void *buf;
			int fd;

			h__child_prepare(-1);
			prctl(PR_SET_NAME, "trace-load", 0, 0, 0);
			if (posix_memalign(&buf, 4096, 4096))
				_exit(H_IO_ERR_ALLOC);
			fd = open(dev->path, O_RDONLY | O_DIRECT);
			if (fd < 0)
				_exit(H_IO_ERR_OPEN);
			deadline = h_now_ms() + ms;
			while (h_now_ms() < deadline) {
				for (int k = 0; k < 256; k++) {
					x ^= x << 13;
					x ^= x >> 17;
					x ^= x << 5;
					if (pread(fd, buf, 4096,
						  (off_t)(x % (DEV_SIZE / 4096)) * 4096) != 4096)
						_exit(H_IO_ERR_READ);
				}
			}
			_exit(H_IO_OK);
		}
		h_track_child(pids[j]);
	}
	for (int j = 0; j < jobs; j++)
		h_expect_child_ok(pids[j], ms + H_CHILD_TIMEOUT_MS);
}

/* 4k random reads, O_DIRECT, psync, LOAD_JOBS jobs for LOAD_MS on dev.
 * Returns the reads the load itself counted (fio), or -1 (C loop). */
static int64_t run_load(const struct h_dev *dev, int64_t ios_per_job)
{
	char filename[96], runtime[32], numjobs[32], io_size[48];
	struct h_result r;
	char why[64];
	int64_t ios;

	if (!h_have_program("fio")) {
		cr_log_info("fio not found: using %d C readers instead", LOAD_JOBS);
		c_load(dev, LOAD_JOBS, LOAD_MS);
		return -1;
	}
	snprintf(filename, sizeof(filename), "--filename=%s", dev->path);
	snprintf(runtime, sizeof(runtime), "--runtime=%dms", LOAD_MS);
	snprintf(numjobs, sizeof(numjobs), "--numjobs=%d", LOAD_JOBS);
	/* 0: as many as the runtime allows (time_based); else that many 4 KiB
	 * reads a job (io_size, which wraps around the disk), within it */
	snprintf(io_size, sizeof(io_size), "--io_size=%" PRId64, ios_per_job * 4096);
	h_run(ios_per_job ?
	      H_ARGS("fio", "--name=trace-load", filename, "--rw=randread", "--bs=4k",
		     "--direct=1", "--ioengine=psync", numjobs, runtime, io_size,
		     "--group_reporting", "--output-format=json") :
	      H_ARGS("fio", "--name=trace-load", filename, "--rw=randread", "--bs=4k",
		     "--direct=1", "--ioengine=psync", numjobs, runtime, "--time_based",
		     "--group_reporting", "--output-format=json"),
	      NULL, NULL, LOAD_MS + 20000, &r);
	cr_assert(r.status == 0, "fio: %s; stderr: %.500s", h_status_str(r.status, why, sizeof(why)),
		  r.err);
	ios = fio_read_ios(r.out);
	h_result_free(&r);
	return ios;
}

/* ======================================================== analysis == */

struct trace_out {
	int64_t lines;
	int64_t data;		/* event records */
	int64_t bad;		/* records that do not parse (wrong field count, types) */
	int64_t other_dev;	/* records of another device than the -D one */
	int64_t invalid_json;
	int64_t intervals, iv_events, iv_lost, iv_bad_lost;
	int64_t starts, starts_late;	/* JSON: start records, those not first */
	bool summary;
	int64_t s_events, s_lost;
	int64_t s_ringbuf, s_perf, s_inflight;
	int64_t s_unseen;	/* completions the kernel ran no hook for */
};

/* The "lost" object {"events":N,"by_cause":{...}}: N into *events, and
 * whether N is the sum of the causes (all integers); cause values out. */
static bool json_lost(struct h_jv obj, int64_t *events, int64_t *ringbuf, int64_t *perf,
		      int64_t *inflight, int64_t *unseen)
{
	struct h_jv lost, causes, key, val;
	size_t pos = 0;
	int64_t sum = 0, v;
	int n = 0;

	if (!h_json_get(obj, "lost", &lost) || !h_json_get_int(lost, "events", events) ||
	    !h_json_get(lost, "by_cause", &causes) || !causes.len || causes.p[0] != '{')
		return false;
	while (h_json_next_member(causes, &pos, &key, &val)) {
		if (!h_json_int(val, &v) || v < 0)
			return false;
		sum += v;
		n++;
	}
	if (ringbuf)
		*ringbuf = h_json_get_int(causes, "ringbuf_full", &v) ? v : -1;
	if (perf)
		*perf = h_json_get_int(causes, "perf_buffer", &v) ? v : -1;
	if (inflight)
		*inflight = h_json_get_int(causes, "inflight_full", &v) ? v : -1;
	if (unseen)
		*unseen = h_json_get_int(causes, "completion_unseen", &v) ? v : 0;
	/* The four causes are always present. */
	return n >= 4 && h_json_get_int(causes, "ringbuf_full", &v) &&
	       h_json_get_int(causes, "perf_buffer", &v) &&
	       h_json_get_int(causes, "inflight_full", &v) &&
	       h_json_get_int(causes, "stats_map_full", &v) &&
	       h_json_get_int(causes, "names_table_full", &v) && sum == *events;
}

/* Count what diskio printed (batch or JSON) in text; device: the -D device. */
static void analyze(char *text, bool json, const char *device, struct trace_out *o)
{
	char *save = NULL;
	int logged = 0;

	memset(o, 0, sizeof(*o));
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		o->lines++;
		if (!json) {
			struct tev e;
			int ncauses;

			if (!strncmp(line, "# interval ", 11)) {
				int64_t ev = -1, lost = -1;

				o->intervals++;
				if (!batch_kv(line, "events", &ev) || !batch_kv(line, "lost", &lost) ||
				    batch_lost_causes(line, &ncauses) != lost || ncauses < 4) {
					o->iv_bad_lost++;
					if (logged++ < 5)
						cr_log_error("bad interval line: %.400s", line);
				}
				o->iv_events += ev > 0 ? ev : 0;
				o->iv_lost += lost > 0 ? lost : 0;
			} else if (!strncmp(line, "# summary ", 10)) {
				o->summary = true;
				if (!batch_kv(line, "events", &o->s_events) ||
				    !batch_kv(line, "lost", &o->s_lost) ||
				    batch_lost_causes(line, &ncauses) != o->s_lost)
					cr_expect_fail("bad summary line: %.400s", line);
				batch_kv(line, "lost_ringbuf_full", &o->s_ringbuf);
				batch_kv(line, "lost_perf_buffer", &o->s_perf);
				batch_kv(line, "lost_completion_unseen", &o->s_unseen);
				batch_kv(line, "lost_inflight_full", &o->s_inflight);
			} else if (line[0] != '#') {
				o->data++;
				if (!tev_from_batch(line, &e)) {
					o->bad++;
					if (logged++ < 5)
						cr_log_error("bad trace line: %.400s", line);
				} else if (strcmp(e.device, device)) {
					o->other_dev++;
				}
			}
			continue;
		}
		/* JSON: every line is one valid object. */
		struct h_jv root, v;
		struct tev e;

		if (!h_json_parse(line, &root) || !root.len || root.p[0] != '{') {
			o->invalid_json++;
			if (logged++ < 5)
				cr_log_error("invalid JSON line: %.400s", line);
			continue;
		}
		if (!strncmp(line, "{\"type\":\"start\",", 16)) {
			o->starts++;
			o->starts_late += o->lines > 1;
		} else if (trace_is_summary(line)) {
			o->summary = true;
			if (!h_json_get_int(root, "events", &o->s_events) ||
			    !json_lost(root, &o->s_lost, &o->s_ringbuf, &o->s_perf, &o->s_inflight,
					      &o->s_unseen))
				cr_expect_fail("bad summary object: %.600s", line);
		} else if (h_json_get(root, "interval_s", &v)) {
			int64_t ev = -1, lost = -1;

			o->intervals++;
			if (!trace_is_interval(line) || !h_json_get_int(root, "events", &ev) ||
			    !json_lost(root, &lost, NULL, NULL, NULL, NULL)) {
				o->iv_bad_lost++;
				if (logged++ < 5)
					cr_log_error("bad interval object: %.600s", line);
			}
			o->iv_events += ev > 0 ? ev : 0;
			o->iv_lost += lost > 0 ? lost : 0;
		} else if (h_json_get(root, "op", &v)) {
			o->data++;
			if (!tev_from_json(root, &e)) {
				o->bad++;
				if (logged++ < 5)
					cr_log_error("bad event object: %.400s", line);
			} else if (strcmp(e.device, device)) {
				o->other_dev++;
			}
		}
	}
}

/* ======================================================= exactness == */

enum buffer_kind { RING, PERF };

struct exact_result {
	struct trace_out o;
	int64_t completed;	/* reads + writes completed per /proc/diskstats */
	int64_t load_ios;	/* the load's own count, -1 if unknown */
	double load_s;
	int64_t start_runs, done_runs, done_misses;	/* -1: unknown */
};

/*
 * While `diskio -T (-b|--json) -D DEV --buffer-kb KB 0.5` runs with its
 * stdout in a file, the load runs on dev; two intervals after it, SIGINT.
 * /proc/diskstats is read before diskio starts and after it stopped.
 */
static void exact_run(const struct h_dev *dev, enum buffer_kind kind, const char *kb, bool json,
		      struct exact_result *res)
{
	const char *const ring_env[] = { NULL };
	const char *const perf_env[] = { "DISKIO_FORCE_PERF_BUFFER=1", NULL };
	struct h_diskstats before, after, delta;
	struct tdiskio t;
	int64_t t0, intervals;
	size_t size;
	char *text;

	memset(res, 0, sizeof(*res));
	cr_assert(h_diskstats_read(dev->name, &before), "%s not in /proc/diskstats", dev->name);
	td_start(&t, H_ARGS("-T", json ? "--json" : "-b", "-D", dev->name, "--buffer-kb", kb,
			    INTERVAL), kind == PERF ? perf_env : ring_env);
	/* Batch prints its column line once attached; JSON its first interval. */
	td_wait(&t, 1, 0, H_ATTACH_TIMEOUT_MS, "attach");

	t0 = h_now_ms();
	res->load_ios = run_load(dev, strcmp(kb, AMPLE_KB) ? 0 : AMPLE_LOAD_IOS);
	res->load_s = (h_now_ms() - t0) / 1000.0;

	td_pump(&t);
	intervals = t.intervals;
	td_wait(&t, 0, intervals + 2, 4 * INTERVAL_MS + 5000, "two intervals after the load");
	res->start_runs = res->done_runs = res->done_misses = -1;
	if (dev->kind == H_LOOP) {
		int64_t misses;

		prog_stats(t.pid, "handle_io_start", &res->start_runs, &misses);
		prog_stats(t.pid, "handle_io_done", &res->done_runs, &res->done_misses);
	}
	td_stop(&t);
	cr_assert(h_diskstats_read(dev->name, &after));
	delta = h_diskstats_delta(&before, &after);
	res->completed = (int64_t)(delta.read_ios + delta.write_ios);

	text = td_slurp(&t, &size);
	analyze(text, json, dev->name, &res->o);
	free(text);
	td_free(&t);

	cr_log_info("%s %s buffer %s KiB %s: load %.2f s, completed %" PRId64 " (%.0f/s; load "
		    "counted %" PRId64 "), received %" PRId64 " (%.0f/s), lost %" PRId64
		    " (ringbuf_full %" PRId64 ", perf_buffer %" PRId64 ", inflight_full %" PRId64
		    "), intervals %" PRId64 ", output %zu bytes",
		    dev->name, kind == PERF ? "perf" : "ring", kb, json ? "json" : "batch",
		    res->load_s, res->completed, res->completed / res->load_s, res->load_ios,
		    res->o.data, res->o.data / res->load_s, res->o.s_lost, res->o.s_ringbuf,
		    res->o.s_perf, res->o.s_inflight, res->o.intervals, size);
	cr_expect_eq(delta.discard_ios, 0, "%s: %" PRIu64 " discards during a read load", dev->name,
		     delta.discard_ios);
	if (res->load_ios >= 0)
		cr_expect_eq(res->load_ios, res->completed,
			     "fio counted %" PRId64 " reads, /proc/diskstats %" PRId64 " I/Os on %s: "
			     "something else used the device", res->load_ios, res->completed,
			     dev->name);
}

/* What every exactness run must show, and received + lost == completed. */
static void expect_exact(const char *what, const struct exact_result *res)
{
	const struct trace_out *o = &res->o;
	int64_t received = o->data;
	char runs[320] = "";

	cr_expect(o->summary, "%s: no summary line", what);
	cr_expect_eq(o->bad, 0, "%s: %" PRId64 " of %" PRId64 " trace records do not parse", what,
		     o->bad, o->data);
	cr_expect_eq(o->invalid_json, 0, "%s: %" PRId64 " lines are not valid JSON", what,
		     o->invalid_json);
	cr_expect_eq(o->other_dev, 0, "%s: %" PRId64 " records of another device under -D", what,
		     o->other_dev);
	cr_expect_eq(o->iv_bad_lost, 0, "%s: %" PRId64 " interval lines with a bad lost count",
		     what, o->iv_bad_lost);
	cr_expect_geq(o->intervals, 4, "%s: only %" PRId64 " interval lines", what, o->intervals);
	cr_expect(o->starts_late == 0 && o->starts <= 1, "%s: %" PRId64 " start records, %" PRId64
		  " not the first line", what, o->starts, o->starts_late);
	cr_expect_eq(o->s_events, received, "%s: summary events=%" PRId64 " but %" PRId64
		     " records printed", what, o->s_events, received);
	cr_expect_eq(o->iv_events, received, "%s: interval events sum to %" PRId64 " but %" PRId64
		     " records printed", what, o->iv_events, received);
	cr_expect_eq(o->iv_lost, o->s_lost, "%s: interval lost sum to %" PRId64 ", summary lost=%"
		     PRId64, what, o->iv_lost, o->s_lost);
	cr_expect_gt(res->completed, 10000, "%s: the load completed only %" PRId64 " I/Os", what,
		     res->completed);
	if (res->start_runs >= 0 && res->done_runs >= 0)
		snprintf(runs, sizeof(runs), "; diskio's BPF programs ran (all devices, %s): "
			 "handle_io_start %" PRId64 " times, handle_io_done %" PRId64 " times "
			 "(%+" PRId64 "), handle_io_done recursion_misses %" PRId64,
			 "kernel.bpf_stats_enabled=1", res->start_runs, res->done_runs,
			 res->done_runs - res->start_runs, res->done_misses);
	else if (res->start_runs >= 0 || res->done_runs >= 0 || res->done_misses >= 0)
		snprintf(runs, sizeof(runs), "; handle_io_done recursion_misses %" PRId64 " (run "
			 "counts need kernel.bpf_stats_enabled=1)", res->done_misses);
	cr_expect_eq(received + o->s_lost, res->completed,
		     "%s: received %" PRId64 " + lost %" PRId64 " = %" PRId64 ", but %" PRId64
		     " I/Os completed per /proc/diskstats (%+" PRId64 ")%s", what, received,
		     o->s_lost, received + o->s_lost, res->completed,
		     received + o->s_lost - res->completed, runs);
	if (runs[0])
		cr_log_info("%s%s", what, runs);
}

/* 2. Ring buffer of 4 KiB under ~70k reads/s: events are lost, and counted. */
Test(trace, zram_tiny_ringbuf_received_plus_lost_is_completed)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct exact_result res;

	exact_run(z, RING, TINY_KB, false, &res);
	expect_exact("zram, 4 KiB ring buffer", &res);
	cr_expect_gt(res.o.s_lost, 0, "a 4 KiB ring buffer lost nothing under %" PRId64
		     " I/Os: the load is too light to test the loss accounting", res.completed);
	cr_expect_eq(res.o.s_ringbuf + res.o.s_unseen, res.o.s_lost,
		     "lost %" PRId64 " but ringbuf_full=%" PRId64 " completion_unseen=%" PRId64,
		     res.o.s_lost, res.o.s_ringbuf, res.o.s_unseen);
	cr_expect_eq(res.o.s_inflight, 0, "inflight_full=%" PRId64, res.o.s_inflight);
}

/* 3. The same load with a 64 MiB ring buffer: nothing lost, all received. */
Test(trace, zram_ample_ringbuf_loses_nothing)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct exact_result res;

	exact_run(z, RING, AMPLE_KB, false, &res);
	expect_exact("zram, 64 MiB ring buffer", &res);
	cr_expect_eq(res.o.s_lost, 0, "lost %" PRId64 " events with a 64 MiB ring buffer",
		     res.o.s_lost);
	cr_expect_eq(res.o.data, res.completed, "received %" PRId64 " of %" PRId64 " I/Os",
		     res.o.data, res.completed);
}

/* 4a. The perf buffer fallback, 4 KiB per CPU: failed bpf_perf_event_output
 * calls and PERF_RECORD_LOST count the same drops; diskio reports the larger. */
Test(trace, zram_tiny_perf_buffer_received_plus_lost_is_completed)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct exact_result res;

	exact_run(z, PERF, TINY_KB, false, &res);
	expect_exact("zram, 4 KiB perf buffer (DISKIO_FORCE_PERF_BUFFER=1)", &res);
	cr_expect_gt(res.o.s_lost, 0, "a 4 KiB perf buffer lost nothing under %" PRId64 " I/Os",
		     res.completed);
	cr_expect_eq(res.o.s_perf + res.o.s_unseen, res.o.s_lost,
		     "lost %" PRId64 " but perf_buffer=%" PRId64 " completion_unseen=%" PRId64,
		     res.o.s_lost, res.o.s_perf, res.o.s_unseen);
	cr_expect_eq(res.o.s_ringbuf, 0, "ringbuf_full=%" PRId64 " with the perf buffer",
		     res.o.s_ringbuf);
}

/* 4b. The perf buffer fallback, 64 MiB per CPU: nothing lost. */
Test(trace, zram_ample_perf_buffer_loses_nothing)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct exact_result res;

	exact_run(z, PERF, AMPLE_KB, false, &res);
	expect_exact("zram, 64 MiB perf buffer (DISKIO_FORCE_PERF_BUFFER=1)", &res);
	cr_expect_eq(res.o.s_lost, 0, "lost %" PRId64 " events with a 64 MiB perf buffer",
		     res.o.s_lost);
	cr_expect_eq(res.o.data, res.completed, "received %" PRId64 " of %" PRId64 " I/Os",
		     res.o.data, res.completed);
}

/* 5. blk-mq (loop over /dev/shm): events at block_io_done, tiny ring buffer. */
Test(trace, loop_tiny_ringbuf_received_plus_lost_is_completed)
{
	const struct h_dev *l = h_loop_create(DEV_SIZE);
	struct exact_result res;

	exact_run(l, RING, TINY_KB, false, &res);
	expect_exact("loop, 4 KiB ring buffer", &res);
	/* loop runs at ~50k I/Os per second here: diskio sometimes keeps up
	 * even with one page, so a loss is not required (zram's tests require it). */
	if (!res.o.s_lost)
		cr_log_info("loop: a 4 KiB ring buffer lost nothing under %" PRId64 " I/Os",
			    res.completed);
	cr_expect_eq(res.o.s_ringbuf + res.o.s_unseen, res.o.s_lost,
		     "lost %" PRId64 " but ringbuf_full=%" PRId64 " completion_unseen=%" PRId64,
		     res.o.s_lost, res.o.s_ringbuf, res.o.s_unseen);
}

/* 6. JSON under loss: every line valid JSON, each "lost" object's events is
 * the sum of its by_cause counts (json_lost), and the exactness holds. */
Test(trace, json_lines_valid_and_lost_object_consistent)
{
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct exact_result res;

	exact_run(z, RING, TINY_KB, true, &res);
	expect_exact("zram, 4 KiB ring buffer, --json", &res);
	cr_expect_eq(res.o.starts, 1, "%" PRId64 " start records", res.o.starts);
	cr_expect_gt(res.o.s_lost, 0, "nothing lost: the lost objects were not exercised");
	cr_expect_eq(res.o.s_ringbuf + res.o.s_unseen, res.o.s_lost, "summary lost %" PRId64
		     " but by_cause.ringbuf_full=%" PRId64 " completion_unseen=%" PRId64,
		     res.o.s_lost, res.o.s_ringbuf, res.o.s_unseen);
}

/* ======================================================= known I/O == */

/* 8 x 4 KiB writes at scattered offsets, then 4 x 8 KiB reads. */
static const struct h_io known_ops[] = {
	{ 'w', 0, 4096, 1 },
	{ 'w', 12288, 4096, 1 },
	{ 'w', 65536, 4096, 1 },
	{ 'w', 1 * MiB, 4096, 1 },
	{ 'w', 1 * MiB + 8192, 4096, 1 },
	{ 'w', 5 * MiB, 4096, 1 },
	{ 'w', 33 * MiB, 4096, 1 },
	{ 'w', 63 * MiB, 4096, 1 },
	{ 'r', 0, 8192, 1 },
	{ 'r', 65536, 8192, 1 },
	{ 'r', 5 * MiB, 8192, 1 },
	{ 'r', 32 * MiB, 8192, 1 },
};
#define N_KNOWN (sizeof(known_ops) / sizeof(known_ops[0]))

/* Wait for n trace interval lines that end after this call, then SIGINT;
 * assert exit 0 and a summary. */
static void trace_finish(struct h_diskio *d, int n)
{
	int64_t deadline = h_now_ms() + 5000 + n * 3000;
	int seen = 0;
	bool summary = false;
	char why[64];
	int status;

	while (h_diskio_pump(d, 0))
		;
	d->next = d->nlines;
	while (seen < n) {
		int64_t left = deadline - h_now_ms();
		const char *line = h_diskio_next_line(d, left > 0 ? (int)left : 0);

		if (!line) {
			h_diskio_dump(d, "intervals missing");
			cr_assert_fail("diskio printed %d of %d trace intervals", seen, n);
		}
		seen += trace_is_interval(line);
	}
	status = h_diskio_stop(d, SIGINT, H_EXIT_TIMEOUT_MS);
	if (!(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
		h_diskio_dump(d, "bad exit");
		cr_assert_fail("diskio after SIGINT: %s", h_status_str(status, why, sizeof(why)));
	}
	for (size_t i = 0; i < d->nlines; i++)
		summary |= trace_is_summary(d->lines[i]);
	cr_expect(summary, "no summary line in diskio's output");
}

/* 1. `diskio -T (--json|-b) -D DEV 0.5` while a child named comm does
 * known_ops on dev: exactly one event per I/O of the child, in order, with
 * its pid, comm, device, op, sector (offset / 512), bytes and a latency. */
static void known_io(const struct h_dev *dev, const char *comm, const char *printed_comm,
		     bool json)
{
	struct tev ev[64];
	struct h_diskio d;
	int n = 0, bad = 0, batch_lines = 0;
	char write_op[16] = "", read_op[16] = "";
	pid_t pid;

	h_diskio_start(&d, H_ARGS("-T", json ? "--json" : "-b", "-D", dev->name, INTERVAL), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	pid = h_spawn_io(comm, dev->path, known_ops, N_KNOWN, NULL);
	h_expect_child_ok(pid, H_CHILD_TIMEOUT_MS);
	trace_finish(&d, 2);

	for (size_t i = 0; i < d.nlines; i++) {
		const char *line = d.lines[i];
		struct tev e;

		if (json) {
			struct h_jv root, v;

			if (!h_json_parse(line, &root)) {
				cr_expect_fail("line %zu is not valid JSON: %.300s", i, line);
				continue;
			}
			if (!h_json_get(root, "op", &v))
				continue;
			if (!tev_from_json(root, &e)) {
				cr_expect_fail("event %zu lacks a key or has a wrong type: %.300s",
					       i, line);
				bad++;
				continue;
			}
		} else {
			const char *f[TRACE_FIELDS + 1];
			size_t len[TRACE_FIELDS + 1];
			int nf;

			if (i == 0)
				cr_expect(!strcmp(line, "# time_s pid comm device op sector bytes "
						  "latency_us"), "first line is not the trace "
					  "column line: %.200s", line);
			if (line[0] == '#')
				continue;
			batch_lines++;
			nf = h_split_view(line, f, len, TRACE_FIELDS + 1);
			cr_expect_eq(nf, TRACE_FIELDS, "line %zu has %d fields, not %d: %s", i, nf,
				     TRACE_FIELDS, line);
			cr_expect(!strchr(line, '\t'), "line %zu has a raw tab: %s", i, line);
			if (!tev_from_batch(line, &e)) {
				cr_expect_fail("line %zu does not parse: %s", i, line);
				bad++;
				continue;
			}
		}
		cr_expect_str_eq(e.device, dev->name, "event on %s under -D %s: %.300s", e.device,
				 dev->name, line);
		if (e.pid != pid)
			continue;
		if (n < 64)
			ev[n] = e;
		n++;
	}
	if (!json)
		cr_log_info("%s: %d batch data lines", dev->name, batch_lines);
	cr_assert_eq(n, (int)N_KNOWN, "%d events for pid %d (%s) on %s, expected %zu (one per I/O)",
		     n, (int)pid, comm, dev->name, N_KNOWN);
	for (size_t k = 0; k < N_KNOWN; k++) {
		const struct h_io *op = &known_ops[k];
		const struct tev *e = &ev[k];
		char first = op->op == 'w' ? 'W' : 'R';

		cr_expect_str_eq(e->comm, printed_comm, "event %zu: comm '%s', expected '%s'", k,
				 e->comm, printed_comm);
		cr_expect(rwbs_valid(e->op, first), "event %zu (%c at %" PRIu64 "): op '%s' is not "
			  "%c + rwbs flag letters", k, op->op, op->offset, e->op, first);
		cr_expect_eq(e->sector, (int64_t)(op->offset / 512), "event %zu (%c at %" PRIu64
			     "): sector %" PRId64 ", expected %" PRIu64, k, op->op, op->offset,
			     e->sector, op->offset / 512);
		cr_expect_eq(e->bytes, (int64_t)op->size, "event %zu (%c at %" PRIu64 "): bytes %"
			     PRId64 ", expected %u", k, op->op, op->offset, e->bytes, op->size);
		cr_expect_gt(e->latency_us, 0.0, "event %zu: latency_us %.1f", k, e->latency_us);
		cr_expect_geq(e->time, 0.0, "event %zu: time %.6f", k, e->time);
		if (k && e->time < ev[k - 1].time)
			cr_expect_fail("event %zu at %.6f s is before event %zu at %.6f s", k,
				       e->time, k - 1, ev[k - 1].time);
		/* The same kind of I/O gets the same letters every time. */
		char *seen = op->op == 'w' ? write_op : read_op;

		if (!seen[0])
			snprintf(seen, 16, "%s", e->op);
		cr_expect_str_eq(e->op, seen, "event %zu: op '%s', earlier %c I/O had '%s'", k,
				 e->op, op->op, seen);
	}
	/* O_DIRECT writes are REQ_SYNC: the kernel's rwbs says "WS" for them
	 * (block_bio_queue shows "WS" and, on Linux 6.x, "RS" for O_DIRECT reads). */
	cr_expect_str_eq(write_op, "WS", "O_DIRECT writes shown as '%s', the kernel says WS",
			 write_op);
	cr_log_info("%s: %zu events of pid %d, writes '%s', reads '%s'", dev->name, N_KNOWN,
		    (int)pid, write_op, read_op);
	h_diskio_free(&d);
}

/* 1a. zram: events from block_bio_complete for bios remembered at queue. */
Test(trace, zram_known_io_one_json_event_per_io)
{
	known_io(h_zram_create(DEV_SIZE), "trace-zw", "trace-zw", true);
}

/* 1b. loop: events from block_io_done for requests remembered at start. */
Test(trace, loop_known_io_one_json_event_per_io)
{
	known_io(h_loop_create(DEV_SIZE), "trace-lw", "trace-lw", true);
}

/* 1c. Batch: 8 fields on every data line, even with blanks in the comm. */
Test(trace, zram_known_io_batch_lines_have_8_fields)
{
	known_io(h_zram_create(DEV_SIZE), "trace z\tb", "trace\\x20z\\x09b", false);
}

/* 1d. Batch on the loop device. */
Test(trace, loop_known_io_batch_lines_have_8_fields)
{
	known_io(h_loop_create(DEV_SIZE), "trace-lb", "trace-lb", false);
}

/*
 * Issue 46: -T streams.  With a 10 s interval and stdout a pipe, a write's
 * line comes long before its interval ends: diskio reads the channel and
 * flushes what it printed every 50 ms.  The bound, a second after the
 * writer ended, leaves room for a busy machine; without streaming the line
 * would wait for the interval's end, 10 s after the start.
 */
Test(trace, batch_event_arrives_before_its_interval_ends)
{
	static const struct h_io one_write[] = { { 'w', 0, 4096, 1 } };
	const struct h_dev *z = h_zram_create(DEV_SIZE);
	struct h_diskio d;
	int64_t ended_ms, seen_ms = -1;
	pid_t pid;

	h_diskio_start(&d, H_ARGS("-T", "-b", "-D", z->name, "10"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	pid = h_spawn_io("trace-now", z->path, one_write, 1, NULL);
	h_expect_child_ok(pid, H_CHILD_TIMEOUT_MS);
	ended_ms = h_now_ms();
	for (;;) {
		int64_t left = ended_ms + 8000 - h_now_ms();
		const char *line = h_diskio_next_line(&d, left > 0 ? (int)left : 0);
		int line_pid;

		if (!line)
			break;
		if (line[0] != '#' && sscanf(line, "%*f %d", &line_pid) == 1 && line_pid == pid) {
			seen_ms = h_now_ms();
			break;
		}
	}
	if (seen_ms < 0)
		h_diskio_dump(&d, "no event line");
	cr_assert_geq(seen_ms, 0, "no line of the write within 8 s (the interval is 10 s)");
	cr_log_info("the write's line came %" PRId64 " ms after its writer ended",
		    seen_ms - ended_ms);
	cr_expect_lt(seen_ms - ended_ms, 1000, "the write's line came %" PRId64 " ms after its "
		     "writer ended: not streamed", seen_ms - ended_ms);
	h_diskio_stop(&d, SIGINT, 5000);
	h_diskio_free(&d);
}
