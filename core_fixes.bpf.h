/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version workarounds, in one place: "___flavor" structs that name the
 * layouts of older kernels so that CO-RE can pick whichever this kernel has.
 * Every reader checks bpf_core_field_exists() first; never LINUX_VERSION_CODE.
 */
#ifndef CORE_FIXES_BPF_H
#define CORE_FIXES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_core_read.h>

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
 * Recent kernels (6.18 has it) pass sched_process_exit whether the whole
 * thread group is gone (group_dead); older ones pass only the task, and
 * diskio then reads signal->live instead (see handle_exit_legacy).  Which
 * one this kernel has is read from BTF by user space, not guessed.
 */

#endif /* CORE_FIXES_BPF_H */
