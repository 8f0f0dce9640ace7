// SPDX-License-Identifier: GPL-2.0
/*
 * diskio: who is doing I/O to which disk, did we lose any events, and how
 * stable has this machine been.  Loads diskio.bpf.c, drains its maps once per
 * interval, and prints the top, batch or JSON view.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "diskio.h"
#include "diskio.skel.h"
#include "crashfree.h"
#include "devname.h"
#include "iostats.h"
#include "options.h"
#include "pmem_metrics.h"
#include "render.h"
#include "resources.h"
#include "trace.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

#define NAMES_TABLE_BYTES	(1U << 20)
#define NAMES_TABLE_BUCKETS	4096
#define DEFAULT_RINGBUF_KB	1024	/* aggregated mode: crash events only */
#define DEFAULT_TRACE_RINGBUF_KB (16 * 1024)
#define DEFAULT_PERF_KB		256	/* per CPU */
#define TRACE_POLL_MS		50
/* Rows of processes that are gone are forgotten after this many idle intervals. */
#define IDLE_INTERVALS_BEFORE_FORGET 2

static volatile sig_atomic_t exiting;

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("diskio: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	if (level == LIBBPF_INFO && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool has_capability(int cap)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &header, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* Everything diskio needs from the system, checked before touching BPF so
 * that a missing piece gets a sentence instead of a verifier log. */
static int check_system(void)
{
	if (!has_capability(CAP_SYS_ADMIN) &&
	    !(has_capability(CAP_BPF) && has_capability(CAP_PERFMON))) {
		fail("needs root (or CAP_BPF and CAP_PERFMON) to load BPF programs: run it with sudo");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fail("this kernel has no BTF (/sys/kernel/btf/vmlinux): diskio needs a kernel built "
		     "with CONFIG_DEBUG_INFO_BTF=y (Linux 5.5 or later)");
		return -1;
	}
	return 0;
}

/* Which hooks this kernel has, read from its BTF. */
struct kernel_hooks {
	bool bio_queue;		/* block_bio_queue and block_bio_complete */
	bool io_start;		/* block_io_start and block_io_done (Linux 6.5+) */
	bool rq_issue;		/* block_rq_issue and block_rq_complete */
	bool exit_group_dead;	/* sched_process_exit passes group_dead */
	bool process_exit;
};

static bool btf_has_tracepoint(const struct btf *btf, const char *name)
{
	char type_name[128];

	snprintf(type_name, sizeof(type_name), "btf_trace_%s", name);
	return btf__find_by_name_kind(btf, type_name, BTF_KIND_TYPEDEF) > 0;
}

/* Number of arguments the tracepoint passes after its context pointer. */
static int btf_tracepoint_args(const struct btf *btf, const char *name)
{
	const struct btf_type *type;
	char type_name[128];
	int id;

	snprintf(type_name, sizeof(type_name), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, type_name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -1;
	type = btf__type_by_id(btf, id);			/* typedef */
	type = btf__type_by_id(btf, type->type);		/* pointer */
	if (!type || !btf_is_ptr(type))
		return -1;
	type = btf__type_by_id(btf, type->type);		/* function prototype */
	if (!type || !btf_is_func_proto(type))
		return -1;
	return btf_vlen(type) - 1;
}

static int probe_hooks(struct kernel_hooks *hooks)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf) {
		fail("cannot read the kernel's BTF: %s", strerror(errno));
		return -1;
	}
	hooks->bio_queue = btf_has_tracepoint(btf, "block_bio_queue") &&
			   btf_has_tracepoint(btf, "block_bio_complete");
	hooks->io_start = btf_has_tracepoint(btf, "block_io_start") &&
			  btf_has_tracepoint(btf, "block_io_done");
	hooks->rq_issue = btf_has_tracepoint(btf, "block_rq_issue") &&
			  btf_has_tracepoint(btf, "block_rq_complete");
	hooks->process_exit = btf_has_tracepoint(btf, "sched_process_exit");
	hooks->exit_group_dead = btf_tracepoint_args(btf, "sched_process_exit") >= 2;
	btf__free(btf);
	if (!hooks->bio_queue || !(hooks->io_start || hooks->rq_issue)) {
		fail("this kernel has no block tracepoints (block_bio_queue, block_io_start or "
		     "block_rq_issue): it needs CONFIG_BLOCK and CONFIG_TRACEPOINTS");
		return -1;
	}
	return 0;
}

static bool env_flag(const char *name)
{
	const char *value = getenv(name);

	return value && *value && strcmp(value, "0");
}

/* ---- state of a run ---- */

struct device_latency_seen {
	uint32_t dev;
	uint64_t latency_ns, ios;
};

struct crash_seen {
	char comm[TASK_COMM_LEN];
	uint64_t received;	/* events received, plus those recovered from the map */
	uint64_t short_before;	/* shortfall at the previous drain */
};

struct run {
	const struct options *opts;
	struct diskio_bpf *skel;
	struct ring_buffer *ringbuf;
	struct perf_buffer *perfbuf;
	struct devname_cache devnames;
	struct res_table names;
	void *names_buf;
	res_key unknown_name;
	struct iostats procs;
	struct pmem_metrics devices;
	struct crashfree crash;
	struct device_latency_seen *latency_seen;
	size_t nlatency_seen;
	struct crash_seen *crashes;
	size_t ncrashes;
	uint64_t lost_seen[LOST_NR_KERNEL_CAUSES];	/* kernel counters at the last drain */
	uint64_t lost[LOST_NR_REASONS];			/* this interval */
	uint64_t lost_run[LOST_NR_REASONS];		/* since start */
	uint64_t perf_lost_records;	/* sum of PERF_RECORD_LOST counts */
	uint64_t perf_lost_reported;	/* perf buffer losses reported so far */
	struct crash_event crash_events[16];		/* crashes seen this interval */
	size_t ncrash_events;
	uint64_t start_ns;
	int nr_cpus;
	bool output_broken;
	enum output_mode output;
	/* I/Os are tracked to completion (-L, -p, -c): device latency is the
	 * sum of the rows', the kernel keeps no per-device latency then. */
	bool latency_from_rows;
	bool bio_complete_needed;	/* attach handle_bio_complete */
	bool bio_complete_failed;	/* ... and that was tried in vain */
	/* trace mode */
	uint64_t trace_received;
	uint64_t trace_received_run;
};

static res_key intern_name(struct run *run, const char *name, size_t len)
{
	res_key key;

	if (res_intern(&run->names, name, len, &key) == RES_OK)
		return key;
	run->lost[LOST_REASON_NAMES_TABLE]++;
	return run->unknown_name;
}

static void save_crash_state(struct run *run, uint64_t now)
{
	int err;

	if (!run->opts->state_path)
		return;
	err = crashfree_save(&run->crash, run->opts->state_path, now);
	if (err)
		fail("warning: cannot save state file %s: %s", run->opts->state_path,
		     strerror(-err));
}

static struct crash_seen *crash_seen_of(struct run *run, const char *comm)
{
	struct crash_seen *seen;

	for (size_t i = 0; i < run->ncrashes; i++)
		if (!strncmp(run->crashes[i].comm, comm, TASK_COMM_LEN))
			return &run->crashes[i];
	seen = realloc(run->crashes, (run->ncrashes + 1) * sizeof(*seen));
	if (!seen)
		return NULL;
	run->crashes = seen;
	seen = &run->crashes[run->ncrashes++];
	memset(seen, 0, sizeof(*seen));
	strncpy(seen->comm, comm, TASK_COMM_LEN - 1);
	return seen;
}

static void record_crash(struct run *run, const char *comm, uint64_t at_ns)
{
	uint64_t now = monotonic_ns();

	if (crashfree_record_crash(&run->crash, comm, at_ns))
		fail("warning: out of memory recording a crash of %s", comm);
	crashfree_update(&run->crash, now);
	save_crash_state(run, now);
}

/* An event's CLOCK_MONOTONIC time as seconds since diskio started. */
static double seconds_since_start(const struct run *run, uint64_t time_ns)
{
	return time_ns > run->start_ns ? (double)(time_ns - run->start_ns) / 1e9 : 0.0;
}

static void handle_crash_event(struct run *run, const struct crash_event *event)
{
	struct crash_event copy = *event;
	struct crash_seen *seen;

	copy.comm[TASK_COMM_LEN - 1] = '\0';
	seen = crash_seen_of(run, copy.comm);
	if (seen)
		seen->received++;
	if (run->ncrash_events < sizeof(run->crash_events) / sizeof(run->crash_events[0]))
		run->crash_events[run->ncrash_events++] = copy;
	record_crash(run, copy.comm, copy.time_ns);
	if (run->opts->trace)
		trace_print_crash(stdout, run->output == OUTPUT_JSON, &copy,
				  seconds_since_start(run, copy.time_ns));
}

static void handle_io_event(struct run *run, const struct block_io_event *event)
{
	const char *device = devname_lookup(&run->devnames, event->dev);

	run->trace_received++;
	trace_print_io(stdout, run->output == OUTPUT_JSON, event, device,
		       seconds_since_start(run, event->time_ns));
}

static void handle_event(struct run *run, const void *data, size_t size)
{
	uint32_t type;

	if (size < sizeof(type))
		return;
	memcpy(&type, data, sizeof(type));
	if (type == EVENT_IO && size >= sizeof(struct block_io_event))
		handle_io_event(run, data);
	else if (type == EVENT_CRASH && size >= sizeof(struct crash_event))
		handle_crash_event(run, data);
}

static int on_ringbuf_event(void *ctx, void *data, size_t size)
{
	handle_event(ctx, data, size);
	return 0;
}

/* perf buffer records, read raw so that wakeups can be batched. */
struct perf_sample {
	struct perf_event_header header;
	uint32_t size;
	char data[];
};

struct perf_lost_record {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

static enum bpf_perf_event_ret on_perf_record(void *ctx, int cpu, struct perf_event_header *header)
{
	struct run *run = ctx;

	(void)cpu;
	if (header->type == PERF_RECORD_SAMPLE) {
		struct perf_sample *sample = (struct perf_sample *)header;

		handle_event(run, sample->data, sample->size);
	} else if (header->type == PERF_RECORD_LOST) {
		run->perf_lost_records += ((struct perf_lost_record *)header)->lost;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

/* Read what the events channel holds, whether or not it woke us up: trace
 * events are submitted without a wakeup until a batch has gathered. */
static int drain_events(struct run *run)
{
	return run->ringbuf ? ring_buffer__consume(run->ringbuf) :
			      perf_buffer__consume(run->perfbuf);
}

/* Wait for events until deadline_ns (CLOCK_MONOTONIC) or a signal. */
static void wait_for_events(struct run *run, uint64_t deadline_ns)
{
	while (!exiting) {
		uint64_t now = monotonic_ns();
		int timeout_ms, err;

		if (now >= deadline_ns)
			break;
		timeout_ms = (deadline_ns - now + 999999) / 1000000;
		if (run->opts->trace && timeout_ms > TRACE_POLL_MS)
			timeout_ms = TRACE_POLL_MS;
		err = run->ringbuf ? ring_buffer__poll(run->ringbuf, timeout_ms) :
				     perf_buffer__poll(run->perfbuf, timeout_ms);
		if (err >= 0)
			err = drain_events(run);
		if (err < 0 && err != -EINTR) {
			fail("reading events failed: %s", strerror(-err));
			exiting = 1;
		}
	}
}

static void drain_lost(struct run *run)
{
	int fd = bpf_map__fd(run->skel->maps.lost);
	uint64_t values[run->nr_cpus], perf_lost;

	for (uint32_t cause = 0; cause < LOST_NR_KERNEL_CAUSES; cause++) {
		uint64_t sum = 0;

		if (bpf_map_lookup_elem(fd, &cause, values))
			continue;
		for (int cpu = 0; cpu < run->nr_cpus; cpu++)
			sum += values[cpu];
		if (cause != LOST_PERF_OUTPUT)
			run->lost[cause] += sum - run->lost_seen[cause];
		run->lost_seen[cause] = sum;
	}
	/* Both count the same dropped samples: the kernel's PERF_RECORD_LOST
	 * comes late (when the buffer has room), the BPF side's count at once. */
	perf_lost = run->lost_seen[LOST_PERF_OUTPUT];
	if (run->perf_lost_records > perf_lost)
		perf_lost = run->perf_lost_records;
	run->lost[LOST_REASON_PERF_BUFFER] += perf_lost - run->perf_lost_reported;
	run->perf_lost_reported = perf_lost;
}

/* Crash counts in the kernel are exact even when events were lost: a
 * shortfall that lasts from one drain to the next (so it is not an event
 * still on its way) is recorded as crashes now, without their details. */
static void drain_crash_counts(struct run *run, bool final)
{
	int fd = bpf_map__fd(run->skel->maps.crash_counts);
	char key[TASK_COMM_LEN], next[TASK_COMM_LEN];
	void *prev = NULL;
	uint64_t count;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, sizeof(key));
		prev = key;
		if (bpf_map_lookup_elem(fd, key, &count))
			continue;
		key[TASK_COMM_LEN - 1] = '\0';
		struct crash_seen *seen = crash_seen_of(run, key);
		uint64_t shortfall, missing;

		if (!seen)
			continue;
		shortfall = count > seen->received ? count - seen->received : 0;
		missing = final ? shortfall :
			  (shortfall < seen->short_before ? shortfall : seen->short_before);
		for (uint64_t i = 0; i < missing; i++)
			record_crash(run, key, monotonic_ns());
		seen->received += missing;
		seen->short_before = shortfall - missing;
	}
}

static uint64_t latency_delta(struct run *run, uint32_t dev, const struct dev_latency *now,
			      uint64_t *ios)
{
	struct device_latency_seen *seen = NULL;
	uint64_t ns;

	for (size_t i = 0; i < run->nlatency_seen; i++)
		if (run->latency_seen[i].dev == dev)
			seen = &run->latency_seen[i];
	if (!seen) {
		seen = realloc(run->latency_seen, (run->nlatency_seen + 1) * sizeof(*seen));
		if (!seen) {
			*ios = 0;
			return 0;
		}
		run->latency_seen = seen;
		seen = &run->latency_seen[run->nlatency_seen++];
		memset(seen, 0, sizeof(*seen));
		seen->dev = dev;
	}
	ns = now->latency_ns - seen->latency_ns;
	*ios = now->ios - seen->ios;
	seen->latency_ns = now->latency_ns;
	seen->ios = now->ios;
	return ns;
}

static struct pmem_device *device_metrics(struct run *run, uint32_t dev)
{
	return pmem_device_get(&run->devices, devname_lookup(&run->devnames, dev));
}

static void drain_device_latency(struct run *run)
{
	int fd = bpf_map__fd(run->skel->maps.device_latency);
	uint32_t key, next, *prev = NULL;
	struct dev_latency value;

	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct pmem_device *metrics;
		uint64_t ns, ios;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &value))
			continue;
		ns = latency_delta(run, key, &value, &ios);
		if (!ios)
			continue;
		metrics = device_metrics(run, key);
		if (!metrics)
			continue;
		pmem_add(&run->devices, metrics, PMEM_LATENCY_NS, ns);
		pmem_add(&run->devices, metrics, PMEM_LATENCY_IOS, ios);
	}
}

static void sum_cpu_stats(const struct proc_dev_stats *per_cpu, int nr_cpus,
			  struct proc_dev_stats *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (int cpu = 0; cpu < nr_cpus; cpu++) {
		for (int c = 0; c < IO_NR_CLASSES; c++) {
			sum->bytes[c] += per_cpu[cpu].bytes[c];
			sum->ios[c] += per_cpu[cpu].ios[c];
		}
		sum->flushes += per_cpu[cpu].flushes;
		sum->latency_ns += per_cpu[cpu].latency_ns;
		sum->latency_ios += per_cpu[cpu].latency_ios;
	}
}

static void drain_stats(struct run *run)
{
	int fd = bpf_map__fd(run->skel->maps.stats);
	struct proc_dev_key key, next, *prev = NULL;
	struct proc_dev_stats values[run->nr_cpus], value;
	uint64_t counters[PMEM_NR_COUNTERS];
	int last_counter;

	iostats_begin_interval(&run->procs);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct proc_io *row;
		bool created;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, values))
			continue;
		sum_cpu_stats(values, run->nr_cpus, &value);
		iostats_counters_from_kernel(&value, counters);
		row = iostats_record(&run->procs, &key, counters, &created);
		if (!row) {
			run->lost[LOST_REASON_NAMES_TABLE]++;
			continue;
		}
		if (created) {
			const char *device = devname_lookup(&run->devnames, key.dev);

			row->comm_name = intern_name(run, key.comm, strnlen(key.comm, TASK_COMM_LEN));
			row->device_name = intern_name(run, device, strlen(device));
		}
	}
	/* Device sums come from the rows' changes of this interval. */
	last_counter = run->latency_from_rows ? PMEM_LATENCY_IOS : PMEM_FLUSHES;
	for (size_t i = 0; i < run->procs.count; i++) {
		struct proc_io *row = &run->procs.rows[i];
		struct pmem_device *metrics;

		if (!row->updated)
			continue;
		metrics = device_metrics(run, row->key.dev);
		if (!metrics)
			continue;
		for (int c = PMEM_READ_BYTES; c <= last_counter; c++)
			if (row->delta[c])
				pmem_add(&run->devices, metrics, c, row->delta[c]);
	}
}

static bool process_alive(uint32_t tgid, void *arg)
{
	(void)arg;
	return kill(tgid, 0) == 0 || errno != ESRCH;
}

static void forget_kernel_row(const struct proc_dev_key *key, void *arg)
{
	struct run *run = arg;

	bpf_map_delete_elem(bpf_map__fd(run->skel->maps.stats), key);
}

static bool row_has_values(const struct proc_io *row, bool cumulative)
{
	const uint64_t *v = iostats_values(row, cumulative);

	for (int c = PMEM_READ_BYTES; c <= PMEM_FLUSHES; c++)
		if (v[c])
			return true;
	return false;
}

static void screen_size(struct screen *screen, const struct options *opts)
{
	struct winsize ws;

	screen->rows = 0;
	screen->cols = 0;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row) {
		screen->rows = ws.ws_row - 1;	/* keep the cursor line free */
		screen->cols = ws.ws_col;
	}
	screen->max_rows = opts->rows;
	screen->clear = !opts->no_clear;
}

static void check_output(struct run *run)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		/* A closed pipe (diskio -b | head -1) ends diskio quietly. */
		if (errno != EPIPE)
			fail("writing output failed: %s", strerror(errno));
		run->output_broken = true;
		exiting = 1;
	}
}

/* block_bio_complete is needed for -L and -T, and for the latency of
 * bio-based disks once the kernel has been seen stamping their bios. */
static int attach_bio_complete(struct run *run)
{
	struct diskio_bpf *skel = run->skel;

	if (skel->links.handle_bio_complete || run->bio_complete_failed ||
	    !(run->bio_complete_needed || skel->bss->bio_stamps_seen))
		return 0;
	skel->links.handle_bio_complete = bpf_program__attach(skel->progs.handle_bio_complete);
	if (skel->links.handle_bio_complete)
		return 0;
	run->bio_complete_failed = true;
	return -errno;
}

/* The interval's lost records and received events join the run's totals. */
static void close_interval_counts(struct run *run)
{
	for (int i = 0; i < LOST_NR_REASONS; i++)
		run->lost_run[i] += run->lost[i];
	memset(run->lost, 0, sizeof(run->lost));
	run->trace_received_run += run->trace_received;
	run->trace_received = 0;
}

static void end_interval(struct run *run, bool final)
{
	const struct options *opts = run->opts;
	struct frame frame = {
		.interval_s = opts->interval_s,
		.cumulative = opts->cumulative,
		.per_process_latency = opts->per_process_latency,
		.names = &run->names,
		.devices = &run->devices,
		.crash = &run->crash,
	};
	struct proc_io **rows = NULL;
	size_t nrows = 0;
	uint64_t now;

	drain_events(run);
	if (attach_bio_complete(run))
		fail("warning: cannot attach to block_bio_complete: bio-based disks' latency "
		     "is not measured");
	drain_crash_counts(run, final);
	drain_lost(run);
	devname_refresh(&run->devnames);
	now = monotonic_ns();
	crashfree_update(&run->crash, now);
	save_crash_state(run, now);
	clock_gettime(CLOCK_REALTIME, &frame.wall);

	if (opts->trace) {
		trace_print_interval(stdout, run->output == OUTPUT_JSON, &frame.wall,
				     opts->interval_s, run->trace_received, run->lost);
		goto done;
	}

	drain_stats(run);
	drain_device_latency(run);
	pmem_flush(&run->devices);

	rows = calloc(run->procs.count ? run->procs.count : 1, sizeof(*rows));
	if (rows) {
		for (size_t i = 0; i < run->procs.count; i++)
			if (row_has_values(&run->procs.rows[i], opts->cumulative))
				rows[nrows++] = &run->procs.rows[i];
		iostats_sort(rows, nrows, opts->sort, opts->cumulative, &run->names);
	}
	frame.rows = rows;
	frame.nrows = nrows;
	memcpy(frame.lost, run->lost, sizeof(frame.lost));
	frame.crash_events = run->crash_events;
	frame.ncrash_events = run->ncrash_events;

	switch (run->output) {
	case OUTPUT_JSON:
		render_json(stdout, &frame);
		break;
	case OUTPUT_BATCH:
		render_batch(stdout, &frame);
		break;
	case OUTPUT_AUTO: {
		struct screen screen;

		screen_size(&screen, opts);
		render_top(stdout, &frame, &screen);
		break;
	}
	}
	free(rows);
	iostats_end_interval(&run->procs, IDLE_INTERVALS_BEFORE_FORGET, opts->cumulative,
			     process_alive, forget_kernel_row, run);
done:
	close_interval_counts(run);
	run->ncrash_events = 0;
	check_output(run);
}

/* I/Os remembered at submission whose completion was never seen: after the
 * load is over, these are completions the kernel ran no hook for. */
static uint64_t count_unfinished(struct run *run)
{
	int fd = bpf_map__fd(run->skel->maps.inflight);
	uint32_t slots = bpf_map__max_entries(run->skel->maps.inflight);
	uint64_t count = 0;

	for (uint32_t index = 0; index < slots; index++) {
		struct { uint64_t id; struct inflight io; } slot;

		if (!bpf_map_lookup_elem(fd, &index, &slot) && slot.id)
			count++;
	}
	return count;
}

static void print_summary(struct run *run)
{
	struct timespec wall;

	/* What was lost in the unfinished interval belongs to the run too. */
	drain_lost(run);
	if (run->opts->trace)
		run->lost[LOST_REASON_COMPLETION_UNSEEN] += count_unfinished(run);
	close_interval_counts(run);
	clock_gettime(CLOCK_REALTIME, &wall);
	render_summary(stdout, run->output == OUTPUT_JSON, &wall,
		       (double)(monotonic_ns() - run->start_ns) / 1e9, run->lost_run,
		       run->opts->trace ? &run->trace_received_run : NULL, &run->crash);
	check_output(run);
}

/* ---- setup ---- */

static int resolve_devices(const struct options *opts, uint32_t *devs)
{
	for (uint32_t i = 0; i < opts->nr_devices; i++) {
		const char *name = opts->devices[i];
		int is_partition = 0, err;

		if (!strncmp(name, "/dev/", 5))
			name += 5;	/* people type the device node's path */
		err = devname_resolve("/sys", name, &devs[i], &is_partition);

		if (err == -ENOENT) {
			fail("no such block device '%s' (see lsblk; give a name or MAJ:MIN)",
			     opts->devices[i]);
			return -1;
		}
		if (err) {
			fail("invalid device '%s': give a disk name (vda) or MAJ:MIN (254:0)",
			     opts->devices[i]);
			return -1;
		}
		if (is_partition)
			fprintf(stderr, "diskio: %s is a partition: showing its whole disk %u:%u\n",
				opts->devices[i], kdev_major(devs[i]), kdev_minor(devs[i]));
	}
	return 0;
}

static uint32_t pages_for_kb(uint32_t kb)
{
	uint32_t pages = 1, wanted = (kb * 1024ULL + 4095) / 4096;

	while (pages < wanted)
		pages <<= 1;
	return pages;
}

static int configure(struct run *run, const struct kernel_hooks *hooks, const uint32_t *devs,
		     bool use_ringbuf)
{
	const struct options *opts = run->opts;
	struct diskio_bpf *skel = run->skel;
	bool fallback = !hooks->io_start || env_flag("DISKIO_FORCE_RQ_HOOKS");
	bool track = opts->per_process_latency || opts->trace || opts->nr_pids || opts->filter_comm;
	uint32_t ring_kb;

	memcpy((void *)skel->rodata->filter_pids, opts->pids, sizeof(opts->pids));
	skel->rodata->nr_filter_pids = opts->nr_pids;
	memcpy((void *)skel->rodata->filter_devs, devs, opts->nr_devices * sizeof(*devs));
	skel->rodata->nr_filter_devs = opts->nr_devices;
	memcpy((void *)skel->rodata->filter_comm, opts->comm, sizeof(opts->comm));
	skel->rodata->filter_by_comm = opts->filter_comm;
	skel->rodata->track_inflight = track;
	run->latency_from_rows = track;
	skel->rodata->trace_events = opts->trace;
	skel->rodata->aggregate = !opts->trace;
	skel->rodata->use_ringbuf = use_ringbuf;
	skel->rodata->rq_fallback_hooks = fallback;

	/* Attached later, if at all: see bio_stamps_seen in diskio.bpf.c. */
	bpf_program__set_autoattach(skel->progs.handle_bio_complete, false);
	run->bio_complete_needed = track;
	bpf_program__set_autoload(skel->progs.handle_io_start, !fallback);
	bpf_program__set_autoload(skel->progs.handle_io_done, !fallback);
	bpf_program__set_autoload(skel->progs.handle_rq_issue, fallback || opts->trace);
	bpf_program__set_autoload(skel->progs.handle_rq_complete, fallback);
	bpf_program__set_autoload(skel->progs.handle_exit,
				  hooks->process_exit && hooks->exit_group_dead);
	bpf_program__set_autoload(skel->progs.handle_exit_legacy,
				  hooks->process_exit && !hooks->exit_group_dead);
	if (!hooks->process_exit)
		fprintf(stderr, "diskio: warning: no sched_process_exit tracepoint: crashes are not seen\n");

	if (!track)
		bpf_map__set_max_entries(skel->maps.inflight, 1);
	else
		bpf_map__set_max_entries(skel->maps.device_latency, 1);
	if (opts->trace)
		bpf_map__set_max_entries(skel->maps.stats, 1);
	if (hooks->exit_group_dead)	/* only the legacy exit hook needs it */
		bpf_map__set_max_entries(skel->maps.crashed_groups, 1);
	if (use_ringbuf) {
		ring_kb = opts->buffer_kb ? opts->buffer_kb :
			  opts->trace ? DEFAULT_TRACE_RINGBUF_KB : DEFAULT_RINGBUF_KB;
		bpf_map__set_max_entries(skel->maps.events, pages_for_kb(ring_kb) * 4096);
		/* In trace mode wake the reader when an eighth of the ring is
		 * full; crash events alone wake it at once. */
		skel->rodata->ringbuf_wakeup_bytes = opts->trace ? pages_for_kb(ring_kb) * 4096 / 8 : 0;
		bpf_map__set_autocreate(skel->maps.perf_events, false);
	} else {
		bpf_map__set_autocreate(skel->maps.events, false);
	}
	return 0;
}

static int open_events(struct run *run, bool use_ringbuf)
{
	const struct options *opts = run->opts;

	if (use_ringbuf) {
		run->ringbuf = ring_buffer__new(bpf_map__fd(run->skel->maps.events),
						on_ringbuf_event, run, NULL);
		if (!run->ringbuf) {
			fail("cannot open the ring buffer: %s", strerror(errno));
			return -1;
		}
	} else {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.config = PERF_COUNT_SW_BPF_OUTPUT,
			.sample_type = PERF_SAMPLE_RAW,
			.sample_period = 1,
		};
		uint32_t kb = opts->buffer_kb ? opts->buffer_kb : DEFAULT_PERF_KB;
		uint32_t pages = pages_for_kb(kb);

		/* Batch wakeups: once a quarter of a CPU's buffer holds events
		 * in trace mode; at every event otherwise (crashes only). */
		attr.watermark = 1;
		attr.wakeup_watermark = opts->trace ? pages * 4096 / 4 : 1;
		run->perfbuf = perf_buffer__new_raw(bpf_map__fd(run->skel->maps.perf_events), pages,
						    &attr, on_perf_record, run, NULL);
		if (!run->perfbuf) {
			fail("cannot open the perf buffer: %s", strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void cleanup(struct run *run)
{
	ring_buffer__free(run->ringbuf);
	perf_buffer__free(run->perfbuf);
	diskio_bpf__destroy(run->skel);
	devname_free(&run->devnames);
	iostats_free(&run->procs);
	pmem_free(&run->devices);
	crashfree_free(&run->crash);
	free(run->names_buf);
	free(run->latency_seen);
	free(run->crashes);
}

int main(int argc, char **argv)
{
	struct options opts;
	struct run run = { .opts = &opts };
	struct kernel_hooks hooks = {};
	uint32_t devs[MAX_FILTER_DEVS] = {};
	struct sigaction action = { .sa_handler = on_signal };
	bool use_ringbuf;
	uint64_t next_deadline, interval_ns, done = 0;
	int err = 1;

	options_parse(argc, argv, &opts);
	verbose = opts.verbose;
	if (resolve_devices(&opts, devs))
		return EXIT_USAGE;
	if (check_system() || probe_hooks(&hooks))
		return EXIT_START;
	libbpf_set_print(print_libbpf);

	run.output = opts.output;
	if (run.output == OUTPUT_AUTO && !isatty(STDOUT_FILENO))
		run.output = OUTPUT_BATCH;
	run.nr_cpus = libbpf_num_possible_cpus();
	if (run.nr_cpus <= 0) {
		fail("cannot count CPUs: %s", strerror(-run.nr_cpus));
		return EXIT_START;
	}
	devname_init(&run.devnames, "/sys");
	iostats_init(&run.procs);
	pmem_init(&run.devices);
	run.names_buf = malloc(NAMES_TABLE_BYTES);
	if (!run.names_buf ||
	    res_table_init(&run.names, run.names_buf, NAMES_TABLE_BYTES, NAMES_TABLE_BUCKETS) ||
	    res_intern_str(&run.names, "?", &run.unknown_name)) {
		fail("out of memory");
		goto out;
	}

	use_ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1 &&
		      !env_flag("DISKIO_FORCE_PERF_BUFFER");
	run.skel = diskio_bpf__open();
	if (!run.skel) {
		fail("cannot open the BPF object: %s", strerror(errno));
		goto out;
	}
	configure(&run, &hooks, devs, use_ringbuf);
	err = diskio_bpf__load(run.skel);
	if (err) {
		fail("cannot load the BPF programs: %s (run with -v for the verifier's log)",
		     strerror(-err));
		goto out;
	}
	err = diskio_bpf__attach(run.skel);
	if (!err)
		err = attach_bio_complete(&run);
	if (err) {
		fail("cannot attach to the block tracepoints: %s", strerror(-err));
		goto out;
	}
	err = open_events(&run, use_ringbuf);
	if (err)
		goto out;

	run.start_ns = monotonic_ns();
	if (opts.state_path) {
		int loaded = crashfree_load(&run.crash, opts.state_path,
					    opts.crash_interval_s * 1000000000ULL, run.start_ns,
					    stderr);
		if (loaded < 0) {
			err = 1;
			goto out;
		}
	} else {
		crashfree_init(&run.crash, opts.crash_interval_s * 1000000000ULL, run.start_ns);
	}

	sigaction(SIGINT, &action, NULL);
	sigaction(SIGTERM, &action, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (run.output != OUTPUT_AUTO)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);

	if (opts.trace)
		trace_print_columns(stdout, run.output == OUTPUT_JSON);
	else if (run.output == OUTPUT_BATCH)
		render_batch_columns(stdout);
	else if (run.output == OUTPUT_AUTO && !opts.no_clear)
		fputs("\033[H\033[2J", stdout);
	check_output(&run);

	interval_ns = (uint64_t)(opts.interval_s * 1e9);
	next_deadline = run.start_ns + interval_ns;
	while (!exiting) {
		wait_for_events(&run, next_deadline);
		if (exiting)
			break;
		done++;
		end_interval(&run, opts.count && done == opts.count);
		if (opts.count && done >= opts.count)
			break;
		next_deadline += interval_ns;
		/* After a long stall, start afresh instead of catching up. */
		if (next_deadline < monotonic_ns())
			next_deadline = monotonic_ns() + interval_ns;
	}
	if (!run.output_broken) {
		drain_events(&run);
		drain_crash_counts(&run, true);
		print_summary(&run);
	}
	save_crash_state(&run, monotonic_ns());
	err = 0;
out:
	cleanup(&run);
	return err ? EXIT_START : 0;
}
