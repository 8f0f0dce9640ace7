/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version workarounds, in one place: "___flavor" structs that name the
 * layouts of older kernels so that CO-RE can pick whichever this kernel has.
 * Every reader checks bpf_core_field_exists() first; never LINUX_VERSION_CODE.
 */
#ifndef DISKIO_CORE_FIXES_BPF_H
#define DISKIO_CORE_FIXES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "settings.bpf.h"

/* Linux 6.2+; unresolved (weak) before, where it is never called. */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * ptr, a pointer to type, as one the verifier does not trust, to load a
 * pointer member through.  Since Linux 6.3 each load of a pointer member
 * through a trusted pointer (a tp_btf program's argument,
 * bpf_get_current_task_btf()) has the verifier look up "TYPE__safe_trusted",
 * "TYPE__safe_rcu", ... by name, a linear search of the kernel's BTF
 * (126,000 types on 6.18), at every path it checks: that was 40 % of
 * diskio's start.  The cast itself costs nothing (the verifier makes it a
 * move), but a load through an untrusted pointer is one the JIT guards
 * against faults, a few instructions more than a trusted pointer's: so the
 * programs keep their trusted arguments for their other loads, and cast
 * only where they walk from one structure to the next, but for the walks
 * made at every I/O (bio_disk(), the remembered row's check in
 * task_rows.bpf.h), which are checked on few paths.  Such a pointer cannot
 * be given to a helper that wants a trusted one (bpf_task_storage_get(),
 * bpf_task_pt_regs()).
 */
#define untrusted(ptr, type) \
	(untrusted_casts ? (type *)bpf_rdonly_cast(ptr, bpf_core_type_id_kernel(type)) : (ptr))

/*
 * Linux 5.12 (commit 309dca309fc3 "block: store a block_device pointer in
 * struct bio") replaced bio->bi_disk with bio->bi_bdev.
 */
struct bio___before_5_12 {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

/*
 * Kernels before the block layer's move to bio->issue_time_ns (6.18 has it)
 * kept the submission time in the packed "struct bio_issue bi_issue", in its
 * low 51 bits.  Both exist only with CONFIG_BLK_CGROUP; without either,
 * per-device latency of bio-based disks is not available (reported as null).
 */
struct bio_issue___old {
	__u64 value;
} __attribute__((preserve_access_index));

struct bio___with_bi_issue {
	struct bio_issue___old bi_issue;
} __attribute__((preserve_access_index));

#define BIO_ISSUE_TIME_MASK	((1ULL << 51) - 1)

/*
 * Linux 5.17 (commit f3fa33acca9f "block: remove the ->rq_disk field in
 * struct request") left the request's disk reachable only through
 * rq->q->disk, which Linux 5.15 had added; before that only rq->rq_disk.
 */
struct request___with_rq_disk {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

/* The kernel's dev_t of a whole disk. */
static __always_inline __u32 disk_dev(const struct gendisk *disk)
{
	return MKDEV(disk->major, disk->first_minor);
}

static __always_inline struct gendisk *bio_disk(struct bio *bio)
{
	if (bpf_core_field_exists(bio->bi_bdev))
		return bio->bi_bdev->bd_disk;
	return ((struct bio___before_5_12 *)bio)->bi_disk;
}

/* Submission time the block layer stored in the bio, 0 if it keeps none;
 * *mask: the bits of a bpf_ktime_get_ns() reading it is comparable with. */
static __always_inline __u64 bio_issue_ns(struct bio *bio, __u64 *mask)
{
	*mask = ~0ULL;
	if (bpf_core_field_exists(bio->issue_time_ns))
		return bio->issue_time_ns;
	*mask = BIO_ISSUE_TIME_MASK;
	if (bpf_core_field_exists(((struct bio___with_bi_issue *)bio)->bi_issue))
		return ((struct bio___with_bi_issue *)bio)->bi_issue.value &
		       BIO_ISSUE_TIME_MASK;
	return 0;
}

static __always_inline __u32 request_dev(struct request *rq)
{
	if (bpf_core_field_exists(rq->q->disk))
		return disk_dev(untrusted(rq, struct request)->q->disk);
	return disk_dev(BPF_CORE_READ((struct request___with_rq_disk *)rq, rq_disk));
}

/*
 * The request flag bits moved around between releases (REQ_SYNC was bit 3 in
 * 4.x, bit 11 since 4.10); take their positions from this kernel's BTF.
 */
static __always_inline __u32 req_flag(int bit_enum_value)
{
	return 1U << bit_enum_value;
}

#define REQ_FLAG(name) \
	(bpf_core_enum_value_exists(enum req_flag_bits, __REQ_##name) ? \
	 req_flag(bpf_core_enum_value(enum req_flag_bits, __REQ_##name)) : 0)

/*
 * The number of pages of a folio (folio_nr_pages()): a large folio keeps it
 * in _nr_pages since Linux 6.15, in _folio_nr_pages from 5.16 (64-bit), or
 * only its order (_folio_order, 32-bit kernels before 6.6; the low byte of
 * _flags_1 since).  6.18 wraps the flags word in memdesc_flags_t.  Page flag
 * bits are read from this kernel's enum pageflags (PG_head was bit 16 in 6.1,
 * 6 in 6.12).
 */
struct folio___before_6_15 {
	unsigned int _folio_nr_pages;
} __attribute__((preserve_access_index));

struct folio___order_32bit {
	unsigned char _folio_order;
} __attribute__((preserve_access_index));

/* Linux 6.1 (commit "mm: add the first tail page to struct folio") moved
 * the order into struct folio; before, it was page[1].compound_order. */
struct page___with_compound_order {
	unsigned char compound_order;
} __attribute__((preserve_access_index));

/* Before 6.18 the flags are a plain word: a relocation of 6.18's struct
 * memdesc_flags_t would not match it. */
struct folio___flags_word {
	unsigned long flags;
} __attribute__((preserve_access_index));

/* The flags of a folio reached through a computed address (read with
 * bpf_probe_read_kernel()). */
static __always_inline unsigned long folio_flags(struct folio *folio)
{
	if (!bpf_core_type_exists(memdesc_flags_t))
		return BPF_CORE_READ((struct folio___flags_word *)folio, flags);
	return BPF_CORE_READ(folio, flags.f);
}

/* folio_nr_pages() of a folio a tracepoint passed: direct loads. */
static __always_inline __u64 folio_nr_pages(struct folio *folio)
{
	unsigned long flags;

	if (bpf_core_type_exists(memdesc_flags_t))
		flags = folio->flags.f;
	else
		flags = ((struct folio___flags_word *)folio)->flags;
	if (!(flags & (1UL << bpf_core_enum_value(enum pageflags, PG_head))))
		return 1;
	if (bpf_core_field_exists(folio->_nr_pages))
		return folio->_nr_pages;
	if (bpf_core_field_exists(((struct folio___before_6_15 *)folio)->_folio_nr_pages))
		return ((struct folio___before_6_15 *)folio)->_folio_nr_pages;
	if (bpf_core_field_exists(((struct folio___order_32bit *)folio)->_folio_order))
		return 1ULL << ((struct folio___order_32bit *)folio)->_folio_order;
	if (bpf_core_field_exists(folio->_flags_1))
		return 1ULL << (folio->_flags_1 & 0xff);
	/* 5.16 to 6.0: the order is in the first tail page */
	if (bpf_core_field_exists(((struct page___with_compound_order *)folio)->compound_order))
		return 1ULL << BPF_CORE_READ((struct page___with_compound_order *)
					     ((void *)folio + bpf_core_type_size(struct page)),
					     compound_order);
	return 1;
}

/*
 * A cgroup's ancestors, for --cgroup of tasks other than the current one (the
 * task iterator's): Linux 6.0 (commit 7f203bc89eb6 "cgroup: Replace
 * cgroup->ancestor_ids[] with ->ancestors[]") keeps pointers to them; before,
 * their ids.  The ancestor at level (0: the root), or its id: false when the
 * group is not that deep.
 */
struct cgroup___with_ancestor_ids {
	u64 ancestor_ids[0];
} __attribute__((preserve_access_index));

static __always_inline bool cgroup_ancestor_id(struct cgroup *cgrp, __u32 level, __u64 *id)
{
	__u64 at = (__u64)cgrp;
	struct cgroup *ancestor = NULL;

	if (level > (__u32)BPF_CORE_READ(cgrp, level))
		return false;
	if (bpf_core_field_exists(cgrp->ancestors)) {
		at += bpf_core_field_offset(cgrp->ancestors) + level * sizeof(void *);
		if (bpf_probe_read_kernel(&ancestor, sizeof(ancestor), (void *)at) || !ancestor)
			return false;
		*id = BPF_CORE_READ(ancestor, kn, id);
		return true;
	}
	at += bpf_core_field_offset(((struct cgroup___with_ancestor_ids *)cgrp)->ancestor_ids) +
	      level * sizeof(__u64);
	return !bpf_probe_read_kernel(id, sizeof(*id), (void *)at);
}

/*
 * struct task_delay_info (delay accounting, IO> and SWAPIN) has kept
 * blkio_start, blkio_delay and swapin_delay under these names since Linux
 * 2.6.18 (6.1, 6.12 and 6.18 checked; the *_delay_total names are taskstats',
 * the netlink record, not this struct's): no flavour, but every read is
 * guarded by bpf_core_field_exists(), and a kernel without
 * CONFIG_TASK_DELAY_ACCT has no task->delays at all (waits.bpf.h).
 */

/*
 * Recent kernels (6.18 has it) pass sched_process_exit whether the whole
 * thread group is gone (group_dead); older ones pass only the task, and
 * diskio then reads signal->live instead (see handle_exit_legacy).  Which
 * one this kernel has is read from BTF by user space, not guessed.
 */

#endif /* DISKIO_CORE_FIXES_BPF_H */
