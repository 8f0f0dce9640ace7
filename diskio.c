// SPDX-License-Identifier: GPL-2.0
/*
 * diskio's loader: opens, configures, loads and attaches diskio.bpf.c, polls
 * its events and copies its maps into plain snapshots.  All bookkeeping is in
 * tally.c, all output in the views (view.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "diskio.h"
#include "diskio.skel.h"
#include "cgroups.h"
#include "crashfree.h"
#include "devname.h"
#include "events.h"
#include "maps.h"
#include "mapsize.h"
#include "msg.h"
#include "options.h"
#include "probe.h"
#include "atomic_file.h"
#include "prom.h"
#include "stacks.h"
#include "symbolize.h"
#include "tally.h"
#include "terminal.h"
#include "top.h"
#include "view.h"

#define DEFAULT_RINGBUF_KB	1024	/* aggregated mode: crashes and new user stacks */
#define DEFAULT_TRACE_RINGBUF_KB (16 * 1024)
#define DEFAULT_PERF_KB		256	/* per CPU, trace mode */
#define DEFAULT_PERF_CRASHES_KB	16	/* per CPU: crash events only */
#define DEFAULT_PERF_STACKS_KB	256	/* per CPU, --stacks: new user stacks, 5 KiB each */
#define TRACE_POLL_MS		50
#define OWNER_SWEEP_NS		(10ULL * 1000000000ULL)

static volatile sig_atomic_t exiting;
/* SIGHUP to a service (--prom, not on a terminal): rewrite the files now. */
static volatile sig_atomic_t reload_requested;
static volatile sig_atomic_t sighup_reloads;
static bool verbose;

static void on_signal(int sig)
{
	if (sig == SIGHUP && sighup_reloads)
		reload_requested = 1;
	else
		exiting = 1;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level != LIBBPF_WARN && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static bool env_flag(const char *name)
{
	const char *value = getenv(name);

	return value && *value && strcmp(value, "0");
}

/* ---- configuration, before load ---- */

struct run {
	const struct options *opts;
	struct diskio_bpf *skel;
	struct events events;
	struct tally tally;
	struct crashfree saved_crash;	/* --state, read before the tally starts */
	struct snapshot snapshot;
	struct view view;
	bool top;			/* the top view, on a terminal */
	struct terminal terminal;
	int nr_cpus;
	struct map_plan plan;
	bool use_ringbuf;
	bool track_inflight;		/* -L, -T, -p, -c, --cgroup */
	bool bio_complete_failed;	/* attaching handle_bio_complete failed */
	bool output_broken;
	bool failed;			/* an error after the start: exit 1 */
	bool owners_used;		/* writeback is charged to its dirtier */
	bool utf8;			/* the locale's characters are UTF-8 */
	struct prom_totals prom;	/* --prom */
	bool prom_failing;		/* the last write of --prom failed */
	int64_t realtime_offset_ns;	/* CLOCK_REALTIME - CLOCK_MONOTONIC at start */
	uint64_t owners_swept_ns;
	char cgroup_mount[PATH_MAX];	/* "" without cgroup2 */
	uint64_t cgroup_ids[MAX_FILTER_CGROUPS];
	uint32_t cgroup_levels[MAX_FILTER_CGROUPS];
	/* --stacks */
	struct symbolizer *symbolizer;
	uint8_t *stack_ids_read;	/* by stack id: its frames are in the tally */
	uint32_t nstack_ids;
};

static void set_filters(struct diskio_bpf *skel, const struct options *opts,
			const uint32_t *devs)
{
	memcpy((void *)skel->rodata->filter_pids, opts->pids, sizeof(opts->pids));
	skel->rodata->nr_filter_pids = opts->nr_pids;
	memcpy((void *)skel->rodata->filter_devs, devs, opts->nr_devices * sizeof(*devs));
	skel->rodata->nr_filter_devs = opts->nr_devices;
	memcpy((void *)skel->rodata->filter_comm, opts->comm, sizeof(opts->comm));
	skel->rodata->filter_by_comm = opts->filter_comm;
}

static void set_cgroup_filter(struct run *run)
{
	struct diskio_bpf *skel = run->skel;

	memcpy((void *)skel->rodata->filter_cgroups, run->cgroup_ids, sizeof(run->cgroup_ids));
	memcpy((void *)skel->rodata->filter_cgroup_levels, run->cgroup_levels,
	       sizeof(run->cgroup_levels));
	skel->rodata->nr_filter_cgroups = run->opts->nr_cgroups;
}

/* Page-cache dirtying: dirtied bytes, and the owners of writeback. */
static void choose_dirty_hook(struct run *run, const struct kernel_hooks *hooks)
{
	struct diskio_bpf *skel = run->skel;
	bool rows = !run->opts->trace;

	run->owners_used = rows && hooks->dirty_folio && !run->opts->submitter;
	skel->rodata->charge_owner = run->owners_used;
	skel->rodata->page_shift = __builtin_ctzl(sysconf(_SC_PAGESIZE));
	bpf_program__set_autoload(skel->progs.handle_dirty_folio, rows && hooks->dirty_folio);
	if (rows && !hooks->dirty_folio)
		warn("no writeback_dirty_folio tracepoint (Linux 5.17+): no dirtied bytes, "
		     "writeback is charged to its submitter");
}

/* block_io_start/done from Linux 6.5, block_rq_issue/complete before. */
static void choose_block_hooks(struct diskio_bpf *skel, const struct kernel_hooks *hooks,
			       bool trace)
{
	bool fallback = !hooks->io_start || env_flag("DISKIO_FORCE_RQ_HOOKS");

	skel->rodata->rq_fallback_hooks = fallback;
	skel->rodata->getrq_hook = fallback && hooks->getrq;
	bpf_program__set_autoload(skel->progs.handle_getrq, fallback && hooks->getrq);
	bpf_program__set_autoload(skel->progs.handle_io_start, !fallback);
	bpf_program__set_autoload(skel->progs.handle_io_done, !fallback);
	bpf_program__set_autoload(skel->progs.handle_rq_issue, fallback || trace);
	bpf_program__set_autoload(skel->progs.handle_rq_complete, fallback);
	/* Attached later, if at all: see bio_stamps_seen in diskio.bpf.c. */
	bpf_program__set_autoattach(skel->progs.handle_bio_complete, false);
}

static void choose_exit_hook(struct diskio_bpf *skel, const struct kernel_hooks *hooks)
{
	bpf_program__set_autoload(skel->progs.handle_exit,
				  hooks->process_exit && hooks->exit_group_dead);
	bpf_program__set_autoload(skel->progs.handle_exit_legacy,
				  hooks->process_exit && !hooks->exit_group_dead);
	if (!hooks->process_exit)
		warn("no sched_process_exit tracepoint: crashes are not seen");
}

static uint32_t pages_for_kb(uint32_t kb)
{
	uint32_t pages = 1, wanted = (kb * 1024ULL + 4095) / 4096;

	while (pages < wanted)
		pages <<= 1;
	return pages;
}

static uint32_t ring_bytes(const struct options *opts)
{
	return pages_for_kb(opts->buffer_kb ? opts->buffer_kb :
			    opts->trace ? DEFAULT_TRACE_RINGBUF_KB : DEFAULT_RINGBUF_KB) * 4096;
}

/* The ring buffer or perf buffer, and where its reader is woken. */
static void choose_events_channel(struct diskio_bpf *skel, const struct options *opts,
				  bool use_ringbuf)
{
	skel->rodata->use_ringbuf = use_ringbuf;
	bpf_map__set_autocreate(use_ringbuf ? skel->maps.perf_events : skel->maps.events, false);
	/* In trace mode wake the reader when an eighth of the ring is full;
	 * crash events alone wake it at once. */
	if (use_ringbuf && opts->trace)
		skel->rodata->ringbuf_wakeup_bytes = ring_bytes(opts) / 8;
}

/* Every map sized for this run and this many CPUs (mapsize.h). */
static void size_maps(struct run *run, const struct kernel_hooks *hooks)
{
	const struct options *opts = run->opts;
	struct diskio_bpf *skel = run->skel;
	const char *owner_entries = getenv("DISKIO_OWNER_MAP_ENTRIES");	/* tests */
	const char *stats_entries = getenv("DISKIO_STATS_MAP_ENTRIES");	/* tests */
	struct map_needs needs = {
		.rows = !opts->trace,
		.track_inflight = run->track_inflight,
		.owners = run->owners_used,
		.legacy_exit_hook = hooks->process_exit && !hooks->exit_group_dead,
		.stacks = opts->stacks != 0,
		.ringbuf_bytes = run->use_ringbuf ? ring_bytes(opts) : 0,
		.perf_pages_wanted = pages_for_kb(opts->buffer_kb ? opts->buffer_kb :
						  opts->trace ? DEFAULT_PERF_KB :
						  opts->stacks ? DEFAULT_PERF_STACKS_KB :
						  DEFAULT_PERF_CRASHES_KB),
		.perf_pages_given = opts->buffer_kb,
	};
	struct map_plan *plan = &run->plan;

	map_plan_for(&needs, run->nr_cpus, plan);
	if (owner_entries && run->owners_used)	/* a test filling the map */
		plan->owners_entries = strtoul(owner_entries, NULL, 10) ?: 1;
	if (stats_entries && needs.rows)	/* a test filling both row maps */
		plan->stats_entries = plan->overflow_stats_entries =
			strtoul(stats_entries, NULL, 10) ?: 1;
	bpf_map__set_max_entries(skel->maps.stats, plan->stats_entries);
	bpf_map__set_max_entries(skel->maps.overflow_stats, plan->overflow_stats_entries);
	bpf_map__set_max_entries(skel->maps.device_latency, plan->device_latency_entries);
	bpf_map__set_max_entries(skel->maps.row_latency, plan->row_latency_entries);
	bpf_map__set_max_entries(skel->maps.inflight, plan->inflight_slots);
	bpf_map__set_max_entries(skel->maps.inflight_ids, plan->inflight_buckets);
	bpf_map__set_max_entries(skel->maps.owners, plan->owners_entries);
	bpf_map__set_max_entries(skel->maps.crashed_groups, plan->crashed_groups_entries);
	bpf_map__set_max_entries(skel->maps.stack_traces, plan->stack_traces_entries);
	bpf_map__set_max_entries(skel->maps.stack_counts, plan->stack_counts_entries);
	bpf_map__set_max_entries(skel->maps.stack_processes, plan->stack_processes_entries);
	bpf_map__set_max_entries(skel->maps.user_stack_scratch, plan->user_stack_scratch_entries);
	if (plan->ringbuf_bytes)
		bpf_map__set_max_entries(skel->maps.events, plan->ringbuf_bytes);
}

static void configure(struct run *run, const struct kernel_hooks *hooks, const uint32_t *devs)
{
	const struct options *opts = run->opts;
	struct diskio_bpf *skel = run->skel;

	set_filters(skel, opts, devs);
	set_cgroup_filter(run);
	choose_dirty_hook(run, hooks);
	skel->rodata->track_inflight = run->track_inflight;
	skel->rodata->trace_events = opts->trace;
	skel->rodata->aggregate = !opts->trace;
	skel->rodata->stacks_mode = opts->stacks;
	choose_block_hooks(skel, hooks, opts->trace);
	choose_exit_hook(skel, hooks);
	choose_events_channel(skel, opts, run->use_ringbuf);
	size_maps(run, hooks);
}

/* ---- attach ---- */

/* block_bio_complete is needed for -L and -T, and for the latency of
 * bio-based disks once the kernel has been seen stamping their bios. */
static int attach_bio_complete(struct run *run)
{
	struct diskio_bpf *skel = run->skel;

	if (skel->links.handle_bio_complete || run->bio_complete_failed ||
	    !(run->track_inflight || skel->bss->bio_stamps_seen))
		return 0;
	skel->links.handle_bio_complete = bpf_program__attach(skel->progs.handle_bio_complete);
	if (skel->links.handle_bio_complete)
		return 0;
	run->bio_complete_failed = true;
	return -errno;
}

/* ---- events ---- */

/* The difference of the wall clock to CLOCK_MONOTONIC, by which events'
 * kernel times (bpf_ktime_get_ns()) become wall-clock times. */
static int64_t realtime_offset_ns(void)
{
	struct timespec wall;
	uint64_t mono = monotonic_ns();

	clock_gettime(CLOCK_REALTIME, &wall);
	return (int64_t)((uint64_t)wall.tv_sec * 1000000000ULL + wall.tv_nsec - mono);
}

/* An event's CLOCK_MONOTONIC time as seconds since diskio started, and as
 * the wall clock. */
static void event_time(const struct run *run, uint64_t time_ns, struct event_time *when)
{
	uint64_t start_ns = run->tally.start_ns;
	uint64_t wall_ns = time_ns + (uint64_t)run->realtime_offset_ns;

	when->since_start_s = time_ns > start_ns ? (double)(time_ns - start_ns) / 1e9 : 0.0;
	when->wall.tv_sec = wall_ns / 1000000000ULL;
	when->wall.tv_nsec = wall_ns % 1000000000ULL;
}

/* An event record of the channel (events.h's on_event).  data may be
 * unaligned (perf buffer samples are 4-byte aligned): events are copied
 * before use. */
static void handle_event(void *ctx, const void *data, size_t size)
{
	struct run *run = ctx;
	uint32_t type;

	if (size < sizeof(type))
		return;
	memcpy(&type, data, sizeof(type));
	if (type == EVENT_IO && size >= sizeof(struct block_io_event)) {
		struct block_io_event event;
		struct event_time when;

		memcpy(&event, data, sizeof(event));
		tally_io_event(&run->tally);
		event_time(run, event.time_ns, &when);
		run->view.io_event(&run->view, &event,
				   devname_lookup(&run->tally.devnames, event.dev), &when);
	} else if (type == EVENT_USER_STACK &&
		   size >= offsetof(struct user_stack_event, frames)) {
		/* Only the frames the kernel gave are sent: copied up to size. */
		static struct user_stack_event event;
		size_t frames = (size - offsetof(struct user_stack_event, frames)) /
				sizeof(event.frames[0]);

		memcpy(&event, data, size < sizeof(event) ? size : sizeof(event));
		if (event.nframes > frames)
			event.nframes = (uint32_t)frames;
		symbolizer_user_stack(run->symbolizer, &event);
	} else if (type == EVENT_STACK_PROCESS_EXIT &&
		   size >= sizeof(struct stack_process_exit_event)) {
		struct stack_process_exit_event event;

		memcpy(&event, data, sizeof(event));
		symbolizer_process_exited(run->symbolizer, event.tgid, event.start_ns);
	} else if (type == EVENT_CRASH && size >= sizeof(struct crash_event)) {
		struct crash_event event;
		struct event_time when;

		memcpy(&event, data, sizeof(event));
		tally_crash_event(&run->tally, &event, monotonic_ns());
		event_time(run, event.time_ns, &when);
		if (run->view.crash_event)
			run->view.crash_event(&run->view, &event, &when);
	}
}

static int open_events(struct run *run)
{
	const struct options *opts = run->opts;
	uint32_t pages;

	run->events.on_event = handle_event;
	run->events.ctx = run;
	if (run->use_ringbuf)
		return events_open_ringbuf(&run->events, bpf_map__fd(run->skel->maps.events));
	/* Batch wakeups: once a quarter of a CPU's buffer holds events in
	 * trace mode; at every event otherwise (crashes only). */
	pages = run->plan.perf_pages_per_cpu;
	return events_open_perfbuf(&run->events, bpf_map__fd(run->skel->maps.perf_events), pages,
				   opts->trace ? pages * 4096 / 4 : 1);
}

static void check_output(struct run *run);
static void screen_size(struct screen *screen, const struct options *opts, bool utf8);

/* The top view's keys: q ends the run as Ctrl-C does; a changes what the
 * tally keeps for the next frames; the rest is the view's. */
static void read_keys(struct run *run)
{
	char keys[256];
	ssize_t n = terminal_read_keys(&run->terminal, keys, sizeof(keys));
	bool changed;

	if (n <= 0)
		return;		/* the terminal is gone: no more keys */
	changed = top_feed_keys(&run->view, keys, n);
	run->tally.config.cumulative = top_state(&run->view)->cumulative;
	if (top_state(&run->view)->quit)
		exiting = 1;
	else if (changed)
		top_redraw(&run->view);
}

/* The top view waits for events, keys and SIGWINCH at once, so that a key
 * or a resize is drawn at once.  >= 0 or -errno, like events_poll(). */
static int poll_top(struct run *run, int timeout_ms)
{
	struct pollfd fds[] = {
		{ .fd = events_fd(&run->events), .events = POLLIN },
		{ .fd = run->terminal.keys_fd, .events = POLLIN },
		{ .fd = run->terminal.resize_fd, .events = POLLIN },
	};
	int err = 0;

	if (poll(fds, 3, timeout_ms) < 0)
		return -errno;
	if (fds[0].revents)
		err = events_drain(&run->events);
	if (fds[2].revents) {
		terminal_resized(&run->terminal);
		screen_size(&run->view.screen, run->opts, run->utf8);
		top_redraw(&run->view);
	}
	if (fds[1].revents)
		read_keys(run);
	if (fds[1].revents || fds[2].revents)
		check_output(run);
	return err;
}

/* Wait for events until deadline_ns (CLOCK_MONOTONIC) or a signal. */
static void wait_for_events(struct run *run, uint64_t deadline_ns)
{
	/* A reader slower than the kernel still ends the interval on time. */
	run->events.deadline_ns = deadline_ns;
	while (!exiting && !reload_requested) {
		uint64_t now = monotonic_ns();
		int timeout_ms, err;

		if (now >= deadline_ns)
			break;
		timeout_ms = (deadline_ns - now + 999999) / 1000000;
		if (run->opts->trace && timeout_ms > TRACE_POLL_MS)
			timeout_ms = TRACE_POLL_MS;
		if (run->top)
			err = poll_top(run, timeout_ms);
		else
			err = events_poll(&run->events, timeout_ms);
		if (err < 0 && err != -EINTR) {
			fail("reading events failed: %s", strerror(-err));
			run->failed = true;
			exiting = 1;
		}
	}
}

/* The maps a snapshot reads; at_exit: also the I/Os still in flight. */
static struct snapshot_maps snapshot_maps_of(const struct run *run, bool at_exit)
{
	struct diskio_bpf *skel = run->skel;
	bool rows = !run->opts->trace;

	return (struct snapshot_maps){
		.lost = bpf_map__fd(skel->maps.lost),
		.crash_counts = bpf_map__fd(skel->maps.crash_counts),
		.stats = rows ? bpf_map__fd(skel->maps.stats) : -1,
		.overflow_stats = rows ? bpf_map__fd(skel->maps.overflow_stats) : -1,
		.device_latency = rows && !run->track_inflight ?
				  bpf_map__fd(skel->maps.device_latency) : -1,
		.row_latency = rows && run->track_inflight ? bpf_map__fd(skel->maps.row_latency) : -1,
		.inflight_ids = at_exit && run->track_inflight ?
				bpf_map__fd(skel->maps.inflight_ids) : -1,
		.stack_counts = rows && run->opts->stacks ? bpf_map__fd(skel->maps.stack_counts) : -1,
		.stack_traces = bpf_map__fd(skel->maps.stack_traces),
		.stack_ids_read = run->stack_ids_read,
		.nstack_ids = run->nstack_ids,
	};
}

/* The maps as they are now; at_exit: also the I/Os still in flight. */
static int take_snapshot(struct run *run, bool at_exit)
{
	struct snapshot_maps maps = snapshot_maps_of(run, at_exit);
	int err = snapshot_read(&run->snapshot, &maps, run->nr_cpus);

	run->snapshot.perf_lost_records = run->events.perf_lost_records;
	if (err) {
		fail("reading the BPF maps failed: %s", strerror(-err));
		run->failed = true;
	}
	return err;
}

/* Owners of files not dirtied for OWNER_TTL_NS go, every OWNER_SWEEP_NS. */
static void sweep_owners(struct run *run, uint64_t now_ns)
{
	if (!run->owners_used || now_ns - run->owners_swept_ns < OWNER_SWEEP_NS)
		return;
	run->owners_swept_ns = now_ns;
	owners_forget_older(bpf_map__fd(run->skel->maps.owners),
			    now_ns > OWNER_TTL_NS ? now_ns - OWNER_TTL_NS : 0);
}

/* Rows of exited processes: their kernel entries go, what they held then
 * kept for the next frame. */
static int forget_rows(struct run *run)
{
	struct snapshot_maps maps = snapshot_maps_of(run, false);
	int err = snapshot_forget(&run->snapshot, &maps, run->tally.forget, run->tally.nforget,
				  run->nr_cpus);

	/* Their stacks' counts; the stacks themselves stay (ids are never
	 * given to another stack). */
	if (!err)
		err = snapshot_forget_stacks(&run->snapshot, &maps, run->tally.forget_stacks,
					     run->tally.nforget_stacks);
	if (err) {
		fail("deleting exited processes' rows from the BPF maps failed: %s",
		     strerror(-err));
		run->failed = true;
	}
	return err;
}

/* ---- output ---- */

/* The screen: for the top view every line of the terminal (nothing is
 * written after the last). */
static void screen_size(struct screen *screen, const struct options *opts, bool utf8)
{
	screen->utf8 = utf8;
	if (!terminal_size(&screen->rows, &screen->cols))
		screen->rows = screen->cols = 0;
	screen->max_rows = opts->rows;
	screen->clear = !opts->no_clear;
}

static void check_output(struct run *run)
{
	if (fflush(stdout) == EOF || ferror(stdout)) {
		/* A closed pipe (diskio -b | head -1) ends diskio quietly. */
		if (errno != EPIPE) {
			fail("writing output failed: %s", strerror(errno));
			run->failed = true;
		}
		run->output_broken = true;
		exiting = 1;
	}
}

/* The top view, and the terminal under it. */
static int start_top(struct run *run)
{
	const struct options *opts = run->opts;
	struct top_settings settings = {
		.interval_s = opts->interval_s,
		.sort = opts->sort,
		.cumulative = opts->cumulative,
		.per_process_latency = opts->per_process_latency,
		.by_cgroup = opts->by_cgroup,
		.utf8 = run->utf8,
	};

	if (view_top(&run->view, stdout, &settings)) {
		fail("out of memory");
		return -1;
	}
	run->top = true;
	return terminal_start(&run->terminal, !opts->no_clear);
}

static int choose_view(struct run *run)
{
	const struct options *opts = run->opts;
	enum output_mode output = opts->output;

	if (output == OUTPUT_AUTO && !isatty(STDOUT_FILENO))
		output = OUTPUT_BATCH;
	if (opts->quiet)
		view_quiet(&run->view, stdout);
	else if (opts->trace && output == OUTPUT_JSON)
		view_trace_json(&run->view, stdout);
	else if (opts->trace)
		view_trace_batch(&run->view, stdout);
	else if (output == OUTPUT_JSON)
		view_json(&run->view, stdout);
	else if (output == OUTPUT_BATCH)
		view_batch(&run->view, stdout);
	else if (start_top(run))
		return -1;
	screen_size(&run->view.screen, opts, run->utf8);
	run->view.histograms = opts->histograms;
	/* Batch and JSON print each row's stacks; the top view keeps each
	 * row's heaviest for its Enter overlay (top.c draws it itself). */
	if (opts->stacks)
		run->view.stacks = symbolizer_namer(run->symbolizer);
	/* The top view too: a frame reaches the terminal in one write. */
	if (!opts->quiet && (output != OUTPUT_AUTO || run->top))
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	return 0;
}

static int render_prom(FILE *out, void *arg)
{
	struct run *run = arg;

	return prom_render(out, &run->prom, &run->tally.devices, &run->tally.crash);
}

/* The --prom file, rewritten whole.  A failure (a full disk) leaves the
 * last complete file in place: one warning, then a note once it is written
 * again; collection goes on meanwhile. */
static void write_prom(struct run *run)
{
	const char *path = run->opts->prom_path;
	int err;

	if (!path)
		return;
	err = atomic_file_write(path, render_prom, run);
	if (err && !run->prom_failing)
		warn("cannot write %s: %s; it keeps its last complete contents, diskio goes on "
		     "and tries again every interval", path, strerror(-err));
	else if (!err && run->prom_failing)
		fprintf(stderr, "diskio: note: %s is written again\n", path);
	run->prom_failing = err != 0;
}

static void save_crash_state(struct run *run)
{
	const char *path = run->opts->state_path;
	int err;

	if (!path)
		return;
	err = crashfree_save(&run->tally.crash, path, monotonic_ns());
	if (err)
		warn("cannot save state file %s: %s", path, strerror(-err));
}

/* ---- the loop ---- */

static void end_interval(struct run *run, bool final)
{
	struct timespec wall;
	struct frame frame;

	events_drain(&run->events);
	if (attach_bio_complete(run))
		warn("cannot attach to block_bio_complete: bio-based disks' latency is not measured");
	if (take_snapshot(run, false)) {
		exiting = 1;
		return;
	}
	clock_gettime(CLOCK_REALTIME, &wall);
	tally_frame(&run->tally, &run->snapshot, monotonic_ns(), &wall, final, &frame);
	screen_size(&run->view.screen, run->opts, run->utf8);
	view_show_frame(&run->view, &frame);
	if (run->opts->prom_path)
		prom_add_frame(&run->prom, &frame, monotonic_ns());
	write_prom(run);
	tally_close_interval(&run->tally);
	symbolizer_new_interval(run->symbolizer);
	if (forget_rows(run)) {
		exiting = 1;
		return;
	}
	sweep_owners(run, monotonic_ns());
	save_crash_state(run);
	check_output(run);
}

/* At exit the --prom file gets the I/O of the unfinished interval too (the
 * views' summary covers the intervals shown): the last snapshot's rows,
 * taken after the summary so that what it showed stays as it was. */
static void write_final_prom(struct run *run, const struct summary *summary)
{
	uint64_t lost[LOST_NR_CAUSES];
	struct timespec wall;
	struct frame frame;

	if (!run->opts->prom_path)
		return;
	clock_gettime(CLOCK_REALTIME, &wall);
	tally_frame(&run->tally, &run->snapshot, monotonic_ns(), &wall, true, &frame);
	prom_add_frame(&run->prom, &frame, monotonic_ns());
	for (int cause = 0; cause < LOST_NR_CAUSES; cause++)
		lost[cause] = summary->lost[cause] + frame.lost[cause];
	prom_finish(&run->prom, lost);
	write_prom(run);
}

static void finish(struct run *run)
{
	struct timespec wall;
	struct summary summary;

	run->events.deadline_ns = 0;	/* the last read takes everything */
	events_drain(&run->events);
	if (!take_snapshot(run, true)) {
		clock_gettime(CLOCK_REALTIME, &wall);
		tally_summary(&run->tally, &run->snapshot, monotonic_ns(), &wall, &summary);
		/* A closed output gets no summary; the --prom file and the
		 * folded stacks still get everything. */
		if (!run->output_broken) {
			run->view.summary(&run->view, &summary);
			check_output(run);
		}
		write_final_prom(run, &summary);
	}
}

static void run_loop(struct run *run)
{
	const struct options *opts = run->opts;
	uint64_t interval_ns = (uint64_t)(opts->interval_s * 1e9);
	uint64_t deadline = run->tally.start_ns + interval_ns, done = 0;

	while (!exiting) {
		wait_for_events(run, deadline);
		if (exiting)
			break;
		if (reload_requested) {
			/* systemctl reload: the files now, the interval goes on. */
			reload_requested = 0;
			write_prom(run);
			save_crash_state(run);
			continue;
		}
		done++;
		end_interval(run, opts->count && done == opts->count);
		if (opts->count && done >= opts->count)
			break;
		deadline += interval_ns;
		/* After a long stall, start afresh instead of catching up. */
		if (deadline < monotonic_ns())
			deadline = monotonic_ns() + interval_ns;
	}
}

/* ---- --stacks ---- */

/* The symbolizers and what the loader keeps of stacks, before the
 * programs run.  Without kernel symbols (kptr_restrict) kernel frames are
 * addresses: a warning, not a failure. */
static int start_stacks(struct run *run)
{
	const struct options *opts = run->opts;
	/* A quarter of each interval at most: a file slow to read never makes
	 * an interval late (README, "Stacks"). */
	const struct symbolizer_options symbolizer = {
		.kernel = opts->stacks & STACKS_KERNEL,
		.user = opts->stacks & STACKS_USER,
		.kallsyms = "/proc/kallsyms",
		.proc_root = "/proc",
		.debug_dir = opts->debug_dir,
		.budget_ns = (uint64_t)(opts->interval_s * 1e9 / 4),
		.top = opts->stacks_top,
	};

	if (!opts->stacks)
		return 0;
	run->symbolizer = symbolizer_new(&symbolizer, warn);
	run->nstack_ids = run->plan.stack_traces_entries;
	run->stack_ids_read = calloc(run->nstack_ids, 1);
	if (!run->symbolizer || !run->stack_ids_read) {
		fail("out of memory");
		return -1;
	}
	return 0;
}

/* A file written at exit or every interval (--prom, --folded): one that
 * cannot be is refused now, with hint after the reason. */
static int check_output_file(const char *option, const char *path, const char *hint)
{
	int err = path ? atomic_file_check(path) : 0;

	if (err)
		fail("cannot write %s file %s: %s%s", option, path, strerror(-err), hint);
	return err;
}

static int render_folded(FILE *out, void *arg)
{
	struct run *run = arg;

	return folded_write(out, run->tally.stacks, run->tally.nstacks,
			    symbolizer_namer(run->symbolizer));
}

/* At exit: the run's stacks as folded lines, replacing FILE whole. */
static void write_folded(struct run *run)
{
	const char *path = run->opts->folded_path;
	int err;

	if (!path)
		return;
	err = atomic_file_write(path, render_folded, run);
	if (err) {
		fail("cannot write --folded %s: %s", path, strerror(-err));
		run->failed = true;
	}
}

/* ---- setup ---- */

/* The cgroup2 mount, and --cgroup paths as ids and levels. */
static int resolve_cgroups(struct run *run)
{
	if (cgroup2_mount("/proc/mounts", run->cgroup_mount, sizeof(run->cgroup_mount)))
		run->cgroup_mount[0] = '\0';
	return cgroup_resolve_args(run->cgroup_mount, run->opts->cgroups, run->opts->nr_cgroups,
				   run->cgroup_ids, run->cgroup_levels, stderr);
}

static bool process_alive(uint32_t tgid)
{
	return kill(tgid, 0) == 0 || errno != ESRCH;
}

/* The state read at read_ns becomes the tally's, its progress resuming at
 * the tally's start: loading the programs is not counted as running. */
static void adopt_saved_crash(struct run *run, uint64_t read_ns)
{
	uint64_t startup_ns = run->tally.start_ns - read_ns;

	crashfree_free(&run->tally.crash);
	run->tally.crash = run->saved_crash;
	memset(&run->saved_crash, 0, sizeof(run->saved_crash));
	run->tally.crash.operational_mark_ns += startup_ns;
	run->tally.crash.crashfree_mark_ns += startup_ns;
}

static void start_prom(struct run *run, const struct kernel_hooks *hooks)
{
	const struct options *opts = run->opts;
	struct prom_config config = {
		.max_rows = opts->prom_rows,
		.idle_ns = opts->prom_idle_s * 1000000000ULL,
		.by_cgroup = opts->by_cgroup,
		.dirtied = hooks->dirty_folio,
		.version = DISKIO_VERSION,
	};

	prom_init(&run->prom, &config);
}

/* Read the state file; open, configure, load and attach; then the tally and
 * the events channel. */
static int start(struct run *run, const struct kernel_hooks *hooks, const uint32_t *devs)
{
	const struct options *opts = run->opts;
	struct tally_config config = {
		.cumulative = opts->cumulative,
		.per_process_latency = opts->per_process_latency,
		.trace = opts->trace,
		.sort = opts->sort,
		.by_cgroup = opts->by_cgroup,
		.latency_from_rows = run->track_inflight,
		.cgroup_mount = run->cgroup_mount[0] ? run->cgroup_mount : NULL,
		.crash_interval_ns = opts->crash_interval_s * 1000000000ULL,
		.sysfs_root = "/sys",
		.process_alive = process_alive,
		.warn = stderr,
		.stacks_mem = opts->stacks ? opts->stacks_mem : 0,
		.stacks_top = opts->stacks_top,
	};
	uint64_t state_read_ns = 0;
	int err;

	/* Before anything is loaded: a file that cannot be written costs nothing. */
	if (check_output_file("--prom", opts->prom_path, " (its directory must exist and be "
			      "writable; node_exporter's is /var/lib/prometheus/node-exporter)") ||
	    check_output_file("--folded", opts->folded_path, ""))
		return -1;
	if (opts->state_path) {
		state_read_ns = monotonic_ns();
		if (crashfree_load(&run->saved_crash, opts->state_path, config.crash_interval_ns,
				   state_read_ns, stderr) < 0)
			return -1;
	}
	run->skel = diskio_bpf__open();
	if (!run->skel) {
		fail("cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	configure(run, hooks, devs);
	if (start_stacks(run))
		return -1;
	err = diskio_bpf__load(run->skel);
	if (err) {
		fail("cannot load the BPF programs: %s (run with -v for the verifier's log)",
		     strerror(-err));
		return -1;
	}
	err = diskio_bpf__attach(run->skel);
	if (!err)
		err = attach_bio_complete(run);
	if (err) {
		fail("cannot attach to the block tracepoints: %s", strerror(-err));
		return -1;
	}
	run->skel->bss->inflight_armed = true;
	if (tally_init(&run->tally, &config, monotonic_ns())) {
		fail("out of memory");
		return -1;
	}
	run->realtime_offset_ns = realtime_offset_ns();
	if (run->symbolizer)
		symbolizer_namer(run->symbolizer)->table = &run->tally.stack_table;
	if (opts->state_path)
		adopt_saved_crash(run, state_read_ns);
	start_prom(run, hooks);
	if (open_events(run))
		return -1;
	return 0;
}

static void cleanup(struct run *run)
{
	terminal_stop(&run->terminal);
	view_top_free(&run->view);
	events_free(&run->events);
	diskio_bpf__destroy(run->skel);
	tally_free(&run->tally);
	crashfree_free(&run->saved_crash);
	snapshot_free(&run->snapshot);
	prom_free(&run->prom);
	symbolizer_free(run->symbolizer);
	free(run->stack_ids_read);
}

/* With fd 0, 1 or 2 closed at start, the next open() would take its place:
 * an epoll or map fd would receive the output.  They go to /dev/null. */
static int reopen_std_fds(void)
{
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		int null_fd;

		if (fcntl(fd, F_GETFD) != -1 || errno != EBADF)
			continue;
		null_fd = open("/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY);
		if (null_fd < 0)
			return -1;
		/* The lowest free fd: this one, the lower ones are open by now. */
		if (null_fd != fd)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct options opts;
	struct run run = { .opts = &opts, .terminal = { .keys_fd = -1, .resize_fd = -1 } };
	struct kernel_hooks hooks = {};
	uint32_t devs[MAX_FILTER_DEVS] = {};
	struct sigaction action = { .sa_handler = on_signal };
	int err;

	if (reopen_std_fds())
		return EXIT_START;
	options_parse(argc, argv, &opts);
	verbose = opts.verbose;
	run.utf8 = locale_is_utf8();
	if (devname_resolve_args("/sys", opts.devices, opts.nr_devices, devs, stderr) ||
	    resolve_cgroups(&run))
		return EXIT_USAGE;
	if (check_system() || probe_hooks(&hooks))
		return EXIT_START;
	libbpf_set_print(print_libbpf);
	run.nr_cpus = libbpf_num_possible_cpus();
	if (run.nr_cpus <= 0) {
		fail("cannot count CPUs: %s", strerror(-run.nr_cpus));
		return EXIT_START;
	}
	run.use_ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1 &&
			  !env_flag("DISKIO_FORCE_PERF_BUFFER");
	run.track_inflight = opts.per_process_latency || opts.trace || opts.nr_pids ||
			     opts.filter_comm || opts.nr_cgroups;

	err = start(&run, &hooks, devs);
	if (!err) {
		sigaction(SIGINT, &action, NULL);
		sigaction(SIGTERM, &action, NULL);
		sigaction(SIGHUP, &action, NULL);	/* the terminal went away, or a reload */
		signal(SIGPIPE, SIG_IGN);
		err = choose_view(&run);
	}
	if (!err) {
		/* On a terminal (the top view) SIGHUP still means it went away. */
		sighup_reloads = opts.prom_path && !run.top;
		write_prom(&run);
		if (run.view.start)
			run.view.start(&run.view);
		check_output(&run);
		run_loop(&run);
		/* The top view's one-line summary goes to the normal screen. */
		terminal_stop(&run.terminal);
		finish(&run);
		write_folded(&run);
		save_crash_state(&run);
	}
	cleanup(&run);
	return err || run.failed ? EXIT_START : 0;
}
