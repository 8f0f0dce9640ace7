/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What user space decides, in the BPF object's global variables:
 * kernel/loader.c sets them by these names through the skeleton.  The
 * filters and modes are set before load (.rodata): the verifier sees them as
 * constants, so that a path a mode does not take is dropped from the
 * program.  The flags after them (.bss) change while the programs run: -t's
 * row key, the hooks user space has attached, and bio_stamps_seen, which the
 * programs set themselves.  Kept together, so that what can be asked of the
 * kernel side reads in one place; but the size of the rows (rows_slots) is
 * with the rows, in rows.bpf.h.
 */

#ifndef DISKIO_SETTINGS_BPF_H
#define DISKIO_SETTINGS_BPF_H

#include <vmlinux.h>
#include "abi.h"

/* Filters and modes, set by user space before load. */
const volatile __u32 filter_pids[MAX_FILTER_PIDS] = {};
const volatile __u32 nr_filter_pids = 0;
const volatile __u32 filter_devs[MAX_FILTER_DEVS] = {};
const volatile __u32 nr_filter_devs = 0;
const volatile char filter_comm[TASK_COMM_LEN] = {};
/* -u: a process passes if its effective uid (the USER column's) is one of these. */
const volatile __u32 filter_uids[MAX_FILTER_UIDS] = {};
const volatile __u32 nr_filter_uids = 0;
const volatile bool filter_by_comm = false;
/* --cgroup: a process passes if one of its ancestors at filter_cgroup_levels[i]
 * (the depth of the group) is filter_cgroups[i]. */
const volatile __u64 filter_cgroups[MAX_FILTER_CGROUPS] = {};
const volatile __u32 filter_cgroup_levels[MAX_FILTER_CGROUPS] = {};
const volatile __u32 nr_filter_cgroups = 0;
/* Charge writeback to the process that dirtied the pages (not --submitter). */
const volatile bool charge_owner = true;
/* PAGE_SHIFT is not in BTF. */
const volatile __u32 page_shift = 12;
/* Remember each I/O's submitter until completion (-L, -T, or a pid/comm
 * filter, which must also filter the per-device latency: it is then summed
 * from the selected processes' rows). */
const volatile bool track_inflight = false;
const volatile bool trace_events = false;		/* -T */
/* Per-process totals; trace mode (-T) shows events only and skips them. */
const volatile bool aggregate = true;
/* --files: its programs count beside the rows' (files.bpf.h). */
const volatile bool files_counted = false;
const volatile bool use_ringbuf = true;
/* Wake the reader once this many bytes wait in the ring buffer, not per event. */
const volatile __u64 ringbuf_wakeup_bytes = 0;
/* Before Linux 6.5 there is no block_io_start/done: block_rq_issue and
 * block_rq_complete stand in for them. */
const volatile bool rq_fallback_hooks = false;
/* With them, block_getrq (one argument, the bio) counts each request in its
 * submitter's context. */
const volatile bool getrq_hook = false;
/* A request ends at block_rq_complete (its last part), not block_io_done:
 * with the fallback hooks, and in the default mode, where the flushes keep
 * block_rq_complete attached anyway: one program a request fewer. */
const volatile bool done_at_rq_complete = false;

/* Default mode (--latency-sample): 1 in latency_sample_every bios of
 * bio-based disks has its latency measured, those whose hash is below
 * latency_sample_cutoff (abi.h).  0 when I/Os are tracked: every one is. */
const volatile __u64 latency_sample_cutoff = 0;
const volatile __u32 latency_sample_every = 0;

/* --stacks: STACKS_KERNEL | STACKS_USER, 0 without.  Every stack path is
 * behind this constant, so the verifier drops it from the default mode. */
const volatile __u32 stacks_mode = 0;
/* -t, or the top view's t key: a row per thread (its id in
 * proc_dev_key.tgid, its own name), not per process (the thread group,
 * named by its leader).  Written by user space while the programs run. */
bool per_thread = false;

/* Set once a bio of a bio-based disk carries the kernel's own submission
 * stamp (recent kernels, 6.18, stamp none): block_bio_complete then times
 * those exactly instead of sampling them. */
bool bio_stamps_seen = false;

/* Stacked devices (dm, md) need block_bio_complete, to forget their bios:
 * user space sets this once it is attached (at start, unless -T). */
bool stacked_tracked = false;

/* The kernel has bpf_rdonly_cast() (Linux 6.2+): untrusted() casts with it
 * (common.bpf.h). */
const volatile bool untrusted_casts = false;

/* IO> and SWAPIN (waits.bpf.h): how blkio waits are measured
 * (enum waits_source, abi.h), chosen at start from kernel.task_delayacct. */
const volatile __u32 waits_source = WAITS_NONE;

/* Set by user space once every hook is attached.  An I/O that starts before
 * its completion hook is attached would hold its in-flight slot until the
 * address is used again, and be counted as a completion unseen (a latency
 * sample, its slot). */
bool inflight_armed = false;

#endif /* DISKIO_SETTINGS_BPF_H */
