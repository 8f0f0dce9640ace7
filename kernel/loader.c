// SPDX-License-Identifier: GPL-2.0
/*
 * The loader (loader.h): diskio.bpf.c's skeleton opened, configured for this
 * kernel and run, loaded, attached; its maps read and pruned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "abi.h"
#include "diskio.skel.h"
#include "loader.h"
#include "maps.h"
#include "msg.h"

#define DEFAULT_RINGBUF_KB	1024	/* aggregated mode: crashes and new user stacks */
#define DEFAULT_TRACE_RINGBUF_KB (16 * 1024)
#define DEFAULT_PERF_KB		256	/* per CPU, trace mode */
#define DEFAULT_PERF_CRASHES_KB	16	/* per CPU: crash events only */
#define DEFAULT_PERF_STACKS_KB	256	/* per CPU, --stacks: new user stacks, 5 KiB each */
#define OWNER_SWEEP_NS		(10ULL * 1000000000ULL)

static bool verbose;

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level != LIBBPF_WARN && !verbose)
		return 0;
	return vfprintf(stderr, fmt, args);
}

void loader_log_libbpf(bool verbose_log)
{
	verbose = verbose_log;
	libbpf_set_print(print_libbpf);
}

static bool env_flag(const char *name)
{
	const char *value = getenv(name);

	return value && *value && strcmp(value, "0");
}

int loader_plan(struct loader *l, const struct options *opts)
{
	l->opts = opts;
	l->nr_cpus = libbpf_num_possible_cpus();
	if (l->nr_cpus <= 0) {
		fail("cannot count CPUs: %s", strerror(-l->nr_cpus));
		return -1;
	}
	l->use_ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 1 &&
			 !env_flag("DISKIO_FORCE_PERF_BUFFER");
	l->track_inflight = opts->per_process_latency || opts->trace || opts->nr_pids ||
			    opts->nr_users || opts->filter_comm || opts->nr_cgroups;
	/* Tracked I/Os are all timed; trace mode keeps no histograms. */
	l->latency_sample_every = l->track_inflight ? 0 : opts->latency_sample;
	l->exec_cmdlines = !opts->trace && !opts->quiet && !opts->by_cgroup;
	return 0;
}

/* ---- configuration, before load ---- */

static void set_filters(struct diskio_bpf *skel, const struct options *opts,
			const struct loader_filters *filters)
{
	memcpy((void *)skel->rodata->filter_pids, opts->pids, sizeof(opts->pids));
	skel->rodata->nr_filter_pids = opts->nr_pids;
	memcpy((void *)skel->rodata->filter_uids, filters->uids,
	       opts->nr_users * sizeof(*filters->uids));
	skel->rodata->nr_filter_uids = opts->nr_users;
	memcpy((void *)skel->rodata->filter_devs, filters->devs,
	       opts->nr_devices * sizeof(*filters->devs));
	skel->rodata->nr_filter_devs = opts->nr_devices;
	memcpy((void *)skel->rodata->filter_comm, opts->comm, sizeof(opts->comm));
	skel->rodata->filter_by_comm = opts->filter_comm;
	memcpy((void *)skel->rodata->filter_cgroups, filters->cgroup_ids,
	       opts->nr_cgroups * sizeof(*filters->cgroup_ids));
	memcpy((void *)skel->rodata->filter_cgroup_levels, filters->cgroup_levels,
	       opts->nr_cgroups * sizeof(*filters->cgroup_levels));
	skel->rodata->nr_filter_cgroups = opts->nr_cgroups;
}

/* Page-cache dirtying: dirtied bytes, and the owners of writeback. */
static void choose_dirty_hook(struct loader *l, const struct kernel_hooks *hooks)
{
	struct diskio_bpf *skel = l->skel;
	bool rows = !l->opts->trace;

	l->owners_used = rows && hooks->dirty_folio && !l->opts->submitter;
	skel->rodata->charge_owner = l->owners_used;
	skel->rodata->page_shift = __builtin_ctzl(sysconf(_SC_PAGESIZE));
	bpf_program__set_autoload(skel->progs.handle_dirty_folio, rows && hooks->dirty_folio);
	if (rows && !hooks->dirty_folio)
		warn("no writeback_dirty_folio tracepoint (Linux 5.17+): no dirtied bytes, "
		     "writeback is charged to its submitter");
}

/* block_io_start/done from Linux 6.5, block_rq_issue/complete before;
 * block_rq_complete on every kernel for the disks' flushes (not with -T),
 * where the default mode also ends requests: block_io_done only times
 * tracked I/Os. */
static void choose_block_hooks(struct diskio_bpf *skel, const struct kernel_hooks *hooks,
			       bool trace, bool track_inflight, bool files)
{
	bool fallback = !hooks->io_start || env_flag("DISKIO_FORCE_RQ_HOOKS");
	bool flushes = !trace && hooks->rq_issue;
	bool done_at_rq_complete = fallback || (flushes && !track_inflight);

	skel->rodata->rq_fallback_hooks = fallback;
	skel->rodata->getrq_hook = fallback && hooks->getrq;
	skel->rodata->done_at_rq_complete = done_at_rq_complete;
	bpf_program__set_autoload(skel->progs.handle_getrq, fallback && hooks->getrq);
	bpf_program__set_autoload(skel->progs.handle_io_start, !fallback);
	bpf_program__set_autoload(skel->progs.handle_io_done, !done_at_rq_complete);
	bpf_program__set_autoload(skel->progs.handle_rq_issue, fallback || trace);
	bpf_program__set_autoload(skel->progs.handle_rq_complete, fallback || flushes);
	/* --files: its own programs, counting where these count */
	bpf_program__set_autoload(skel->progs.files_bio_queue, files);
	bpf_program__set_autoload(skel->progs.files_io_start, files && !fallback);
	bpf_program__set_autoload(skel->progs.files_getrq, files && fallback && hooks->getrq);
	bpf_program__set_autoload(skel->progs.files_rq_issue, files && fallback && !hooks->getrq);
	/* issue 47: files named as they are dirtied */
	bpf_program__set_autoload(skel->progs.files_dirty_folio, files && hooks->dirty_folio);
	/* Attached after the others: see stacked_tracked in settings.bpf.h. */
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

/* issue 33: the command line at exec, for rows of processes gone before
 * /proc/PID/cmdline is read (procinfo.bpf.h). */
static void choose_exec_hook(struct loader *l, const struct kernel_hooks *hooks)
{
	bpf_program__set_autoload(l->skel->progs.handle_exec,
				  l->exec_cmdlines && hooks->process_exec);
	if (l->exec_cmdlines && !hooks->process_exec)
		warn("no sched_process_exec tracepoint: processes that exit within an interval "
		     "are shown by name, without their command line");
}

/* kernel.task_delayacct (or the delayacct boot option, which sets it):
 * whether delay accounting counts now.  diskio never changes it. */
static bool delayacct_on(void)
{
	int fd = open("/proc/sys/kernel/task_delayacct", O_RDONLY | O_CLOEXEC);
	char value = '0';

	if (fd < 0)
		return false;
	if (read(fd, &value, 1) != 1)
		value = '0';
	close(fd);
	return value == '1';
}

/*
 * IO> and SWAPIN: the kernel's delay accounting when it is on at start (read
 * by the task iterator: nothing runs in between), else diskio's own measure
 * of blkio waits from sched_switch, a program at every context switch,
 * loaded only then; not in trace mode.  Chosen for the run.
 */
static void choose_waits(struct loader *l, const struct kernel_hooks *hooks)
{
	struct diskio_bpf *skel = l->skel;
	const struct options *opts = l->opts;
	bool delayacct = hooks->task_delays && delayacct_on();
	enum waits_source source = WAITS_NONE;

	if (!opts->trace && hooks->task_iter)
		source = delayacct ? WAITS_DELAYACCT : hooks->sched_switch ? WAITS_SCHED : WAITS_NONE;
	l->waits_source = source;
	skel->rodata->waits_source = source;
	bpf_program__set_autoload(skel->progs.read_waits, source != WAITS_NONE);
	bpf_program__set_autoload(skel->progs.handle_switch, source == WAITS_SCHED);
	if (opts->trace || opts->quiet)
		return;
	if (source == WAITS_NONE)
		warn("this kernel has no task iterator or sched_switch hook with BTF: IO> and "
		     "SWAPIN are not known");
	else if (!hooks->task_delays)
		note("this kernel has no delay accounting (CONFIG_TASK_DELAY_ACCT): SWAPIN is "
		     "not known");
	else if (!delayacct)
		note("delay accounting is off: SWAPIN is not known (sysctl "
		     "kernel.task_delayacct=1 turns it on)");
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
static void size_maps(struct loader *l, const struct kernel_hooks *hooks)
{
	const struct options *opts = l->opts;
	struct diskio_bpf *skel = l->skel;
	const char *owner_entries = getenv("DISKIO_OWNER_MAP_ENTRIES");	/* tests */
	const char *stats_entries = getenv("DISKIO_STATS_MAP_ENTRIES");	/* tests */
	struct map_needs needs = {
		.rows = !opts->trace,
		.track_inflight = l->track_inflight,
		.latency_samples = l->latency_sample_every != 0,
		.owners = l->owners_used,
		.legacy_exit_hook = hooks->process_exit && !hooks->exit_group_dead,
		.stacks = opts->stacks != 0,
		/* -t, or the top view, whose t key turns threads on */
		.threads = opts->threads || (opts->output == OUTPUT_AUTO && !opts->quiet &&
					     !opts->trace && isatty(STDOUT_FILENO)),
		.exec_cmdlines = l->exec_cmdlines && hooks->process_exec,
		.waits = l->waits_source != WAITS_NONE,
		.files = opts->files,
		.ringbuf_bytes = l->use_ringbuf ? ring_bytes(opts) : 0,
		.perf_pages_wanted = pages_for_kb(opts->buffer_kb ? opts->buffer_kb :
						  opts->trace ? DEFAULT_PERF_KB :
						  opts->stacks ? DEFAULT_PERF_STACKS_KB :
						  DEFAULT_PERF_CRASHES_KB),
		.perf_pages_given = opts->buffer_kb,
	};
	struct map_plan *plan = &l->plan;

	map_plan_for(&needs, l->nr_cpus, plan);
	if (owner_entries && l->owners_used)	/* a test filling the map */
		plan->owners_entries = strtoul(owner_entries, NULL, 10) ?: 1;
	if (stats_entries && needs.rows)	/* a test filling both row maps */
		plan->stats_entries = plan->overflow_stats_entries =
			strtoul(stats_entries, NULL, 10) ?: 1;
	bpf_map__set_max_entries(skel->maps.rows, plan->stats_entries);
	bpf_map__set_value_size(skel->maps.rows, plan->row_value_bytes);
	bpf_map__set_max_entries(skel->maps.row_errors, plan->stats_entries);
	bpf_map__set_max_entries(skel->maps.row_index, plan->stats_entries);
	bpf_map__set_max_entries(skel->maps.row_gens, plan->stats_entries);
	bpf_map__set_max_entries(skel->maps.free_rows, plan->stats_entries);
	skel->rodata->rows_slots = plan->stats_entries;
	bpf_map__set_max_entries(skel->maps.overflow_stats, plan->overflow_stats_entries);
	bpf_map__set_max_entries(skel->maps.device_latency, plan->device_latency_entries);
	bpf_map__set_max_entries(skel->maps.device_flushes, plan->device_flushes_entries);
	bpf_map__set_max_entries(skel->maps.io_owners, plan->io_owner_slots);
	skel->rodata->io_owner_mask = plan->io_owner_slots - 1;
	bpf_map__set_max_entries(skel->maps.row_latency, plan->row_latency_entries);
	bpf_map__set_max_entries(skel->maps.inflight, plan->inflight_slots);
	bpf_map__set_max_entries(skel->maps.inflight_ids, plan->inflight_buckets);
	bpf_map__set_max_entries(skel->maps.latency_samples, plan->latency_sample_slots);
	bpf_map__set_max_entries(skel->maps.owners, plan->owners_entries);
	bpf_map__set_max_entries(skel->maps.crashed_groups, plan->crashed_groups_entries);
	bpf_map__set_max_entries(skel->maps.stack_traces, plan->stack_traces_entries);
	bpf_map__set_max_entries(skel->maps.stack_counts, plan->stack_counts_entries);
	bpf_map__set_max_entries(skel->maps.stack_processes, plan->stack_processes_entries);
	bpf_map__set_max_entries(skel->maps.bio_stacks, plan->bio_stacks_entries);
	bpf_map__set_max_entries(skel->maps.thread_groups, plan->thread_groups_entries);
	bpf_map__set_max_entries(skel->maps.stacked_bios, plan->stacked_bios_entries);
	bpf_map__set_max_entries(skel->maps.exec_cmdlines, plan->exec_cmdlines_entries);
	bpf_map__set_max_entries(skel->maps.user_stack_scratch, plan->user_stack_scratch_entries);
	bpf_map__set_max_entries(skel->maps.exited_waits, plan->exited_waits_entries);
	/* Without --files its maps are not made: the programs' references to
	 * them are in code the verifier drops (files_mode). */
	bpf_map__set_autocreate(skel->maps.file_counts, plan->file_counts_entries != 0);
	bpf_map__set_autocreate(skel->maps.file_counts_a, plan->file_counts_entries != 0);
	bpf_map__set_autocreate(skel->maps.file_counts_b, plan->file_counts_entries != 0);
	bpf_map__set_autocreate(skel->maps.file_names_sent, plan->file_names_sent_entries != 0);
	bpf_map__set_autocreate(skel->maps.file_name_scratch, plan->file_name_scratch_entries != 0);
	if (plan->file_counts_entries) {
		bpf_map__set_max_entries(skel->maps.file_counts_a, plan->file_counts_entries);
		bpf_map__set_max_entries(skel->maps.file_counts_b, plan->file_counts_entries);
		bpf_map__set_max_entries(skel->maps.file_names_sent, plan->file_names_sent_entries);
		bpf_map__set_max_entries(skel->maps.file_name_scratch,
					 plan->file_name_scratch_entries);
	}
	if (plan->ringbuf_bytes)
		bpf_map__set_max_entries(skel->maps.events, plan->ringbuf_bytes);
}

static void configure(struct loader *l, const struct kernel_hooks *hooks,
		      const struct loader_filters *filters)
{
	const struct options *opts = l->opts;
	struct diskio_bpf *skel = l->skel;

	set_filters(skel, opts, filters);
	choose_dirty_hook(l, hooks);
	skel->rodata->track_inflight = l->track_inflight;
	skel->rodata->latency_sample_every = l->latency_sample_every;
	skel->rodata->latency_sample_cutoff = latency_sample_threshold(l->latency_sample_every);
	skel->rodata->trace_events = opts->trace;
	skel->rodata->aggregate = !opts->trace;
	skel->rodata->files_counted = opts->files && !opts->trace;
	skel->rodata->stacks_mode = opts->stacks;
	skel->bss->per_thread = opts->threads;
	skel->rodata->untrusted_casts = hooks->rdonly_cast;
	choose_block_hooks(skel, hooks, opts->trace, l->track_inflight, opts->files && !opts->trace);
	choose_exit_hook(skel, hooks);
	choose_exec_hook(l, hooks);
	choose_waits(l, hooks);
	choose_events_channel(skel, opts, l->use_ringbuf);
	size_maps(l, hooks);
}

/* block_bio_complete, in every mode: tracked I/Os complete there (-L, -T,
 * -p, -c), bio-based disks' sampled or stamped latency is measured there,
 * and with rows (not -T) the bios dm and md sent below are forgotten there,
 * so remembering them starts once it is attached. */
static int attach_bio_complete(struct loader *l)
{
	struct diskio_bpf *skel = l->skel;

	skel->links.handle_bio_complete = bpf_program__attach(skel->progs.handle_bio_complete);
	if (!skel->links.handle_bio_complete)
		return -errno;
	skel->bss->stacked_tracked = !l->opts->trace;
	return 0;
}

/* IO> and SWAPIN: every task's totals as diskio starts, the past of the
 * first interval's; with delay accounting's state then. */
static int read_start_waits(struct loader *l)
{
	int err;

	if (l->waits_source == WAITS_NONE)
		return 0;
	err = waits_read(bpf_link__fd(l->skel->links.read_waits),
			 bpf_map__fd(l->skel->maps.exited_waits), &l->start_waits);
	l->start_waits.delayacct_on = delayacct_on();
	if (err)
		fail("cannot read the tasks' waits: %s", strerror(-err));
	return err ? -1 : 0;
}

/*
 * The addresses of the kernel's functions by which a bio names its issuer
 * (relayed.bpf.h), which also tell iomap's direct I/O for --files: found by
 * a syscall program, before any program is attached.  None found (symbols
 * hidden by kptr_restrict) leaves I/O a kernel thread submits for another
 * task on the thread's row, and iomap's direct I/O [unknown] with --files:
 * said with -v.
 */
static void find_relay_symbols(struct diskio_bpf *skel)
{
	LIBBPF_OPTS(bpf_test_run_opts, run);
	int err = bpf_prog_test_run_opts(bpf_program__fd(skel->progs.find_relay_symbols), &run);

	if (verbose && (err || !skel->bss->relay_symbols.submit_wait))
		note("no kernel address of submit_bio_wait_endio (%s): I/O a kernel thread "
		     "submits for another task (blk-throttle's) stays the thread's",
		     err ? strerror(errno) : "hidden or not found");
}

int loader_start(struct loader *l, const struct kernel_hooks *hooks,
		 const struct loader_filters *filters)
{
	int err;

	l->skel = diskio_bpf__open();
	if (!l->skel) {
		fail("cannot open the BPF object: %s", strerror(errno));
		return -1;
	}
	configure(l, hooks, filters);
	if (l->opts->stacks) {
		l->nstack_ids = l->plan.stack_traces_entries;
		l->stack_ids_read = calloc(l->nstack_ids, 1);
		if (!l->stack_ids_read) {
			fail("out of memory");
			return -1;
		}
	}
	err = diskio_bpf__load(l->skel);
	if (err) {
		fail("cannot load the BPF programs: %s (run with -v for the verifier's log)",
		     strerror(-err));
		return -1;
	}
	find_relay_symbols(l->skel);
	/* --files: the maps of the rows' even and odd cuts (files.bpf.h) */
	l->file_maps = (struct file_count_maps){
		.outer = bpf_map__fd(l->skel->maps.file_counts),
		.counts = { bpf_map__fd(l->skel->maps.file_counts_a),
			    bpf_map__fd(l->skel->maps.file_counts_b) },
		.cut = &l->skel->bss->rows_cut,
	};
	err = diskio_bpf__attach(l->skel);
	if (!err)
		err = attach_bio_complete(l);
	if (err) {
		fail("cannot attach to the block tracepoints: %s", strerror(-err));
		return -1;
	}
	return read_start_waits(l);
}

int loader_open_events(struct loader *l, void (*on_event)(void *ctx, const void *data,
							  size_t size), void *ctx)
{
	uint32_t pages;

	l->skel->bss->inflight_armed = true;
	l->events.on_event = on_event;
	l->events.ctx = ctx;
	if (l->use_ringbuf)
		return events_open_ringbuf(&l->events, bpf_map__fd(l->skel->maps.events));
	/* Batch wakeups: once a quarter of a CPU's buffer holds events in
	 * trace mode; at every event otherwise (crashes and new stacks). */
	pages = l->plan.perf_pages_per_cpu;
	return events_open_perfbuf(&l->events, bpf_map__fd(l->skel->maps.perf_events), pages,
				   l->opts->trace ? pages * 4096 / 4 : 1);
}

/* ---- each interval ---- */

/* The maps a snapshot reads; at_exit: also the I/Os still in flight. */
static struct snapshot_maps snapshot_maps_of(struct loader *l, bool at_exit)
{
	struct diskio_bpf *skel = l->skel;
	bool rows = !l->opts->trace;

	return (struct snapshot_maps){
		.lost = bpf_map__fd(skel->maps.lost),
		.crash_counts = bpf_map__fd(skel->maps.crash_counts),
		.row_index = rows ? bpf_map__fd(skel->maps.row_index) : -1,
		.rows = bpf_map__fd(skel->maps.rows),
		.row_value_bytes = l->plan.row_value_bytes,
		.row_gens = bpf_map__fd(skel->maps.row_gens),
		.free_rows = bpf_map__fd(skel->maps.free_rows),
		.retired = &l->retired,
		.overflow_stats = rows ? bpf_map__fd(skel->maps.overflow_stats) : -1,
		.device_latency = rows && !l->track_inflight ?
				  bpf_map__fd(skel->maps.device_latency) : -1,
		.row_latency = rows && l->track_inflight ? bpf_map__fd(skel->maps.row_latency) : -1,
		.device_flushes = rows ? bpf_map__fd(skel->maps.device_flushes) : -1,
		.row_errors = rows ? bpf_map__fd(skel->maps.row_errors) : -1,
		.inflight_ids = at_exit && l->track_inflight ?
				bpf_map__fd(skel->maps.inflight_ids) : -1,
		.stack_counts = rows && l->opts->stacks ? bpf_map__fd(skel->maps.stack_counts) : -1,
		.stack_traces = bpf_map__fd(skel->maps.stack_traces),
		.files = rows && l->opts->files ? &l->file_maps : NULL,
		.stack_ids_read = l->stack_ids_read,
		.nstack_ids = l->nstack_ids,
	};
}

/* IO> and SWAPIN: every task's waits now; in the first snapshot, also
 * the reading taken at start (given to it: the loader keeps none after). */
static int snapshot_waits(struct loader *l, struct snapshot *s)
{
	struct waits_reading given;
	int err;

	s->waits_source = l->waits_source;
	s->waits.taken = false;
	s->start_waits.taken = false;
	if (l->waits_source == WAITS_NONE)
		return 0;
	err = waits_read(bpf_link__fd(l->skel->links.read_waits),
			 bpf_map__fd(l->skel->maps.exited_waits), &s->waits);
	s->waits.delayacct_on = delayacct_on();
	if (l->start_waits.taken) {
		given = s->start_waits;
		s->start_waits = l->start_waits;
		l->start_waits = given;
		l->start_waits.taken = false;
	}
	return err;
}

int loader_snapshot(struct loader *l, struct snapshot *s, bool at_exit)
{
	struct snapshot_maps maps = snapshot_maps_of(l, at_exit);
	int err = snapshot_read(s, &maps, l->nr_cpus);

	if (!err)
		err = snapshot_waits(l, s);
	s->perf_lost_records = l->events.perf_lost_records;
	if (err)
		fail("reading the BPF maps failed: %s", strerror(-err));
	return err;
}

/* Owners of files not dirtied for OWNER_TTL_NS go, every OWNER_SWEEP_NS. */
static void sweep_owners(struct loader *l, uint64_t now_ns)
{
	if (!l->owners_used || now_ns - l->owners_swept_ns < OWNER_SWEEP_NS)
		return;
	l->owners_swept_ns = now_ns;
	owners_forget_older(bpf_map__fd(l->skel->maps.owners),
			    now_ns > OWNER_TTL_NS ? now_ns - OWNER_TTL_NS : 0);
}

void loader_set_threads(struct loader *l, bool threads)
{
	if (l->skel && l->skel->bss)
		l->skel->bss->per_thread = threads;
}

uint32_t loader_thread_group(uint32_t tid, void *loader)
{
	struct loader *l = loader;
	__u32 tgid = 0;

	if (!l->skel ||
	    bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.thread_groups), &tid, &tgid))
		return 0;
	return tgid;
}

bool loader_exec_cmdline(uint32_t tgid, struct exec_cmdline *out, void *loader)
{
	struct loader *l = loader;

	return l->skel && l->exec_cmdlines &&
	       !bpf_map_lookup_elem(bpf_map__fd(l->skel->maps.exec_cmdlines), &tgid, out);
}

void loader_tick(struct loader *l, uint64_t now_ns)
{
	sweep_owners(l, now_ns);
}

int loader_forget(struct loader *l, struct snapshot *s, const struct forgotten_keys *gone)
{
	struct snapshot_maps maps = snapshot_maps_of(l, false);
	int err = snapshot_forget(s, &maps, gone->rows, gone->nrows, l->nr_cpus);

	/* Their stacks' counts; the stacks themselves stay (ids are never
	 * given to another stack). */
	if (!err)
		err = snapshot_forget_stacks(s, &maps, gone->stacks, gone->nstacks);
	if (err)
		fail("deleting exited processes' rows from the BPF maps failed: %s",
		     strerror(-err));
	return err;
}

void loader_free(struct loader *l)
{
	/* None when no I/O of dm or md is in flight: one left is a bio whose
	 * completion was not seen, which could name another bio later. */
	if (verbose && l->skel && l->skel->bss->stacked_tracked)
		note("bios dm or md sent to a disk below, remembered at exit: %llu",
		     (unsigned long long)l->skel->bss->stacked_in_flight);
	events_free(&l->events);
	diskio_bpf__destroy(l->skel);
	free(l->stack_ids_read);
	free(l->retired.slots);
	free(l->start_waits.tasks);
}
