// SPDX-License-Identifier: GPL-2.0
/*
 * diskio: setup, the loop, the end.  The loader (loader.h) runs the BPF
 * programs and copies their maps; the tally (tally.h) turns each snapshot
 * into a frame; the view (view.h) shows it on stdout and the outputs
 * (outputs.h) write their files.  This file only wires them together and
 * keeps time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "cgroups.h"
#include "command.h"
#include "diagnose.h"
#include "devname.h"
#include "abi.h"
#include "event_records.h"
#include "events.h"
#include "io_limits.h"
#include "loader.h"
#include "msg.h"
#include "options.h"
#include "outputs.h"
#include "outstream.h"
#include "probe.h"
#include "replay.h"
#include "std_fds.h"
#include "tally.h"
#include "users.h"
#include "view.h"

#define TRACE_POLL_MS		50
/* How long the last records may wait for a reader once a signal asks
 * diskio to stop (outstream.h). */
#define STOP_GRACE_NS		500000000ULL

static volatile sig_atomic_t exiting;
/* SIGHUP to a service (an output with a reader, not on a terminal):
 * rewrite the files now. */
static volatile sig_atomic_t reload_requested;
static volatile sig_atomic_t sighup_reloads;
/* -- COMMAND: its pid while it runs; the first signal goes on to it */
static volatile sig_atomic_t command_pid, signal_passed_on;
/* stdout, as the view writes it: a signal bounds its writes. */
static struct outstream stdout_stream;

static void on_signal(int sig)
{
	if (command_pid && !signal_passed_on) {
		/* diskio ends with the command, as `time` and `perf stat` do */
		signal_passed_on = 1;
		kill(command_pid, sig);
	} else if (sig == SIGHUP && sighup_reloads) {
		reload_requested = 1;
	} else {
		exiting = 1;
		outstream_stop(&stdout_stream);
	}
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct run {
	const struct options *opts;
	struct loader loader;
	struct tally tally;
	struct snapshot snapshot;
	struct view view;
	struct outputs outputs;
	struct event_router events;	/* the channel's records to the tally and view */
	struct command command;		/* -- COMMAND (pid 0 without) */
	bool output_broken;		/* stdout is closed or failing */
	bool last_snapshot;		/* run->snapshot is the run's last */
	bool failed;			/* an error after the start: exit 1 */
};

/* ---- the loop ---- */

/* What the view wrote goes to stdout.  A reader that went away (diskio -b
 * | head -1) ends diskio quietly; one that stopped reading is told at the
 * end (close_output()). */
static void check_output(struct run *run)
{
	int err = outstream_flush(&stdout_stream);

	if (!err || run->output_broken)
		return;
	run->output_broken = true;
	exiting = 1;
	if (err != -EPIPE && err != -ETIMEDOUT) {
		fail("writing output failed: %s", strerror(-err));
		run->failed = true;
	}
}

/* The last flush of stdout, and what the grace after a signal left
 * unwritten. */
static void close_output(struct run *run)
{
	if (outstream_close(&stdout_stream) != -ETIMEDOUT)
		return;
	fail("stdout was not read; the last %" PRIu64 " lines were not written",
	     stdout_stream.lines_dropped);
	run->failed = true;
}

/* What the view's keys asked for, done. */
static void apply_input(struct run *run, const struct view_input *in)
{
	tally_set_cumulative(&run->tally, in->cumulative);
	if (in->threads != tally_per_thread(&run->tally)) {
		loader_set_threads(&run->loader, in->threads);
		tally_set_threads(&run->tally, in->threads);
	}
	tally_set_all_processes(&run->tally, in->all_processes);	/* issue 33: o */
	if (in->quit)
		exiting = 1;
	if (in->drawn)
		check_output(run);
}

/* Wait for events until deadline_ns (CLOCK_MONOTONIC) or a signal, and for
 * whatever the view watches (the top view's keys and resizes) meanwhile:
 * one poll for every view. */
static void wait_for_events(struct run *run, uint64_t deadline_ns)
{
	struct pollfd fds[2 + VIEW_MAX_WATCHED] = {
		{ .fd = events_fd(&run->loader.events), .events = POLLIN },
	};
	size_t nwatched = view_watched(&run->view, fds + 1, VIEW_MAX_WATCHED);
	/* -- COMMAND: its end ends the run */
	size_t npolled = 1 + nwatched;

	if (run->command.pid && !run->command.exited && run->command.pidfd >= 0)
		fds[npolled++] = (struct pollfd){ .fd = run->command.pidfd, .events = POLLIN };

	/* A reader slower than the kernel still ends the interval on time. */
	run->loader.events.deadline_ns = deadline_ns;
	while (!exiting && !reload_requested) {
		struct view_input in = { .cumulative = tally_cumulative(&run->tally),
					 .threads = tally_per_thread(&run->tally),
					 .all_processes = tally_all_processes(&run->tally) };
		uint64_t now = monotonic_ns();
		int timeout_ms, err = 0;

		if (now >= deadline_ns)
			break;
		timeout_ms = (deadline_ns - now + 999999) / 1000000;
		if (run->opts->trace && timeout_ms > TRACE_POLL_MS)
			timeout_ms = TRACE_POLL_MS;
		/* Records come without a wakeup until a batch has gathered:
		 * what is there is read after every wait, woken or not. */
		if (poll(fds, npolled, timeout_ms) < 0)
			err = -errno;
		else
			err = events_drain(&run->loader.events);
		if (npolled > 1 + nwatched && command_reap(&run->command, false)) {
			command_pid = 0;
			exiting = 1;
		}
		if (err < 0 && err != -EINTR) {
			fail("reading events failed: %s", strerror(-err));
			run->failed = true;
			exiting = 1;
		}
		/* issue 46: trace mode streams, each event out within a poll */
		if (err >= 0 && run->opts->trace)
			check_output(run);
		if (err >= 0)
			view_take_input(&run->view, fds + 1, nwatched, &in);
		apply_input(run, &in);
	}
}

/*
 * One interval's frame: the view shows it, the outputs take it.  last: no
 * step follows (COUNT reached, or diskio was asked to stop, when partial
 * says the interval ends early): the snapshot is the run's last, read with
 * everything the channel still holds, and the summary is made from it too,
 * so that it counts exactly what the frames showed.
 */
static void end_interval(struct run *run, bool last, bool partial)
{
	struct forgotten_keys gone;
	struct timespec wall;
	struct frame frame;
	uint64_t now_ns;

	if (last)
		run->loader.events.deadline_ns = 0;	/* the last read takes everything */
	events_drain(&run->loader.events);
	loader_tick(&run->loader, monotonic_ns());
	if (loader_snapshot(&run->loader, &run->snapshot, last)) {
		run->failed = true;
		exiting = 1;
		return;
	}
	run->last_snapshot = last;
	now_ns = monotonic_ns();
	clock_gettime(CLOCK_REALTIME, &wall);
	tally_frame(&run->tally, &run->snapshot, now_ns, &wall, last, &frame);
	frame.partial = partial;
	view_measure(&run->view);
	view_show_frame(&run->view, &frame);
	outputs_frame(&run->outputs, &frame, now_ns);
	tally_close_interval(&run->tally);
	/* At the end the kernel's entries stay: nothing reads them again. */
	if (!last) {
		tally_forgotten_keys(&run->tally, &gone);
		if (loader_forget(&run->loader, &run->snapshot, &gone)) {
			run->failed = true;
			exiting = 1;
			return;
		}
	}
	check_output(run);
}

/* true when the run ended after its COUNT intervals.  Asked to stop
 * (Ctrl-C, SIGTERM, q, a broken stdout), it still closes the interval it
 * is in, as a partial frame: the minute that mattered is not dropped. */
static bool run_loop(struct run *run)
{
	const struct options *opts = run->opts;
	uint64_t interval_ns = (uint64_t)(opts->interval_s * 1e9);
	uint64_t deadline = tally_start_ns(&run->tally) + interval_ns, done = 0;

	for (;;) {
		bool counted;

		wait_for_events(run, deadline);
		if (reload_requested && !exiting) {
			/* systemctl reload: the files now, the interval goes on. */
			reload_requested = 0;
			outputs_reload(&run->outputs, monotonic_ns());
			continue;
		}
		if (run->failed)
			return false;
		counted = !exiting && opts->count && ++done == opts->count;
		end_interval(run, counted || exiting, !counted && exiting);
		if (counted || exiting)
			return counted && !exiting;
		deadline += interval_ns;
		/* After a long stall, start afresh instead of catching up. */
		if (deadline < monotonic_ns())
			deadline = monotonic_ns() + interval_ns;
	}
}

/* The summary on stdout (unless it is closed), from the last frame's
 * snapshot, then every output's end. */
static void finish(struct run *run)
{
	struct output_end end = { .tally = &run->tally };
	struct summary summary;

	/* No last frame when the loop failed: what the maps hold now. */
	if (!run->last_snapshot) {
		run->loader.events.deadline_ns = 0;
		events_drain(&run->loader.events);
		run->last_snapshot = !loader_snapshot(&run->loader, &run->snapshot, true);
	}
	end.now_ns = monotonic_ns();
	clock_gettime(CLOCK_REALTIME, &end.wall);
	if (run->last_snapshot) {
		tally_summary(&run->tally, &run->snapshot, end.now_ns, &end.wall, &summary);
		outputs_summarize(&run->outputs, &summary);
		/* Into a broken stream too: dropped there, and counted. */
		run->view.summary(&run->view, &summary);
		check_output(run);
		end.summary = &summary;
	} else {
		run->failed = true;
	}
	if (outputs_finish(&run->outputs, &end))
		run->failed = true;
}

/* ---- setup ---- */

static bool process_alive(uint32_t tgid)
{
	return kill(tgid, 0) == 0 || errno != ESRCH;
}

/* issue 33: a task's I/O priority as set, for the top view's idle rows
 * (/proc does not show it); -1 when it cannot be read. */
static int task_ioprio(uint32_t tid, void *arg)
{
	enum { IOPRIO_WHO_PROCESS = 1 };

	(void)arg;
	return (int)syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, (int)tid);
}

/* --diagnose: where pid's cgroup limits its I/O to disk dev (MKDEV). */
static int cgroup_io_limit(uint32_t pid, uint32_t dev, char *text, size_t size)
{
	return io_limit_find("/proc", "/proc/mounts", pid, dev >> MINORBITS, dev & MINORMASK, text,
			     size);
}

/* Start the tally (its clock starts now) and the events channel. */
static int start_tally(struct run *run, const char *cgroup_mount,
		       const struct loader_filters *filters)
{
	const struct options *opts = run->opts;
	/* A quarter of each interval at most: a file slow to read never makes
	 * an interval late (doc/stacks.md). */
	const struct symbolizer_options symbols = {
		.kernel = opts->stacks & STACKS_KERNEL,
		.user = opts->stacks & STACKS_USER,
		.kallsyms = "/proc/kallsyms",
		.proc_root = "/proc",
		.debug_dir = opts->debug_dir,
		.budget_ns = (uint64_t)(opts->interval_s * 1e9 / 4),
		.top = opts->stacks_top,
	};
	struct tally_config config = {
		.cumulative = opts->cumulative,
		.per_process_latency = opts->per_process_latency,
		.trace = opts->trace,
		.sort = opts->sort,
		.by_cgroup = opts->by_cgroup,
		.latency_from_rows = run->loader.track_inflight,
		.cgroup_mount = cgroup_mount[0] ? cgroup_mount : NULL,
		.crash_interval_ns = opts->crash_interval_s * 1000000000ULL,
		.sysfs_root = "/sys",
		.proc_root = "/proc",
		.per_thread = opts->threads,
		.thread_group = loader_thread_group,
		.thread_group_arg = &run->loader,
		.diskstats_path = "/proc/diskstats",
		.pressure_path = "/proc/pressure/io",
		/* a window's cgroup pressure, for groups first seen in it too */
		.cgroup_pressure_from_start = opts->cumulative || opts->diagnose_s > 0,
		.process_alive = process_alive,
		.warn = stderr,
		.stacks_mem = opts->stacks ? opts->stacks_mem : 0,
		.stacks_top = opts->stacks_top,
		.symbols = opts->stacks ? &symbols : NULL,
		.symbols_warn = warn,
		.passwd_path = "/etc/passwd",
		.clock_ticks = sysconf(_SC_CLK_TCK),
		.exec_cmdline = loader_exec_cmdline,
		.exec_cmdline_arg = &run->loader,
		.ioprio_of = task_ioprio,
		.filter_pids = opts->pids,
		.nr_filter_pids = opts->nr_pids,
		.nr_filter_uids = opts->nr_users,
		.filter_comm = opts->filter_comm ? opts->comm : NULL,
		.nr_filter_cgroups = opts->nr_cgroups,
		.filter_devices = opts->nr_devices != 0,
		.files_mountinfo = opts->files ? "/proc/self/mountinfo" : NULL,
		.files_proc = opts->files ? "/proc" : NULL,
		.files_top = opts->files_top,
	};

	memcpy(config.filter_uids, filters->uids, opts->nr_users * sizeof(*filters->uids));
	memcpy(config.filter_cgroups, filters->cgroup_ids,
	       opts->nr_cgroups * sizeof(*filters->cgroup_ids));
	if (tally_init(&run->tally, &config, monotonic_ns())) {
		fail("out of memory");
		return -1;
	}
	event_router_init(&run->events, &run->tally, &run->view, monotonic_ns);
	return loader_open_events(&run->loader, event_record, &run->events);
}

/* Everything before the first interval: the filters resolved, the outputs
 * checked, the programs loaded and attached, the tally, the view.  0, or
 * an exit code after one "diskio: ..." line. */
static int start(struct run *run)
{
	const struct options *opts = run->opts;
	uint32_t devs[MAX_FILTER_DEVS] = {};
	uint64_t cgroup_ids[MAX_FILTER_CGROUPS] = {};
	uint32_t cgroup_levels[MAX_FILTER_CGROUPS] = {};
	uint32_t uids[MAX_FILTER_UIDS] = {};
	const struct loader_filters filters = { devs, cgroup_ids, cgroup_levels, uids };
	struct kernel_hooks hooks = {};
	char cgroup_mount[PATH_MAX];
	int status;

	if (cgroup2_mount("/proc/mounts", cgroup_mount, sizeof(cgroup_mount)))
		cgroup_mount[0] = '\0';
	if (devname_resolve_args("/sys", opts->devices, opts->nr_devices, devs, stderr) ||
	    cgroup_resolve_args(cgroup_mount, opts->cgroups, opts->nr_cgroups, cgroup_ids,
				cgroup_levels, stderr) ||
	    users_resolve_args("/etc/passwd", opts->users, opts->nr_users, uids, stderr))
		return EXIT_USAGE;
	if (check_system() || probe_hooks(&hooks))
		return EXIT_START;
	loader_log_libbpf(opts->verbose);
	if (loader_plan(&run->loader, opts) || outputs_open(&run->outputs, opts, hooks.dirty_folio))
		return EXIT_START;
	status = outputs_check(&run->outputs, monotonic_ns());
	if (status)
		return status;
	if (loader_start(&run->loader, &hooks, &filters) ||
	    start_tally(run, cgroup_mount, &filters))
		return EXIT_START;
	return 0;
}

static void cleanup(struct run *run)
{
	view_free(&run->view);
	loader_free(&run->loader);
	tally_free(&run->tally);
	snapshot_free(&run->snapshot);
	outputs_free(&run->outputs);
}

/* -- COMMAND without --all: a cgroup v2 group of its own, which the filter
 * follows (the command and every process it starts). */
static int follow_command(struct run *run, struct options *opts)
{
	static char rel[64];
	char mount[PATH_MAX];

	if (cgroup2_mount("/proc/mounts", mount, sizeof(mount)))
		mount[0] = '\0';
	if (command_make_group(&run->command, mount, rel, sizeof(rel), stderr))
		return -1;
	opts->cgroups[opts->nr_cgroups++] = rel;
	return 0;
}

int main(int argc, char **argv)
{
	struct options opts;
	struct run run = { .opts = &opts };
	struct sigaction action = { .sa_handler = on_signal };
	bool completed;
	int err, diagnosis;

	if (std_fds_reopen())
		return EXIT_START;
	options_parse(argc, argv, &opts);
	command_init(&run.command);
	if (opts.command && !opts.command_all && follow_command(&run, &opts))
		return EXIT_START;
	if (opts.replay_dir)
		return replay_main(&opts);	/* issue 36: no kernel, the record's frames */
	if (opts.list_dir)
		return replay_list_main(&opts);	/* issue 43: the record's runs */
	err = start(&run);
	if (!err) {
		sigaction(SIGINT, &action, NULL);
		sigaction(SIGTERM, &action, NULL);
		sigaction(SIGHUP, &action, NULL);	/* the terminal went away, or a reload */
		signal(SIGPIPE, SIG_IGN);
		if (outstream_open(&stdout_stream, STDOUT_FILENO, STOP_GRACE_NS)) {
			fail("cannot set up stdout: %s", strerror(errno));
			err = EXIT_START;
		} else if (view_open(&run.view, &opts, locale_is_utf8(),
				     tally_stack_namer(&run.tally), cgroup_io_limit,
				     stdout_stream.file)) {
			err = EXIT_START;
		}
	}
	if (!err) {
		/* On a terminal (the top view) SIGHUP still means it went away. */
		sighup_reloads = outputs_reload_on_sighup(&run.outputs) && !run.view.top;
		/* -- COMMAND: started once counting has begun; one that cannot
		 * run leaves stdout empty, its status diskio's (127: not found) */
		if (opts.command && command_start(&run.command, opts.command, stderr))
			err = command_exit_status(&run.command);
		command_pid = run.command.exited ? 0 : run.command.pid;
	}
	if (!err) {
		outputs_start(&run.outputs, &run.tally, monotonic_ns());
		if (run.view.start)
			run.view.start(&run.view);
		check_output(&run);
		completed = run_loop(&run);
		/* The top view's summary goes to the normal screen, after the
		 * last frame when the run ended by itself. */
		view_close(&run.view, completed);
		finish(&run);
		close_output(&run);
	}
	diagnosis = err ? 0 : view_diagnose_status(&run.view);	/* --diagnose */
	cleanup(&run);
	/* -- COMMAND: its status, once it ended (diskio stopped by a second
	 * signal does not wait for it) */
	if (run.command.pid && command_reap(&run.command, false) && !err)
		err = command_exit_status(&run.command);
	command_free(&run.command, stderr);
	return err ? err : run.failed ? EXIT_START : diagnosis;
}
