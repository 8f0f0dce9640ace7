/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writeback owners: a write to a file is charged to the process that dirtied
 * its pages, not to the flusher thread that writes them back later, as
 * /proc/PID/io charges write_bytes.  handle_dirty_folio remembers each
 * file's last dirtier (remember_owner(), in `owners`); the I/O hooks find it
 * again from a write bio's first page (bio_owner()) and charge the write to
 * it, as its writeback_bytes when another task submits it
 * (write_charged_to()).  --submitter turns it off (charge_owner).
 */

#ifndef DISKIO_WRITEBACK_BPF_H
#define DISKIO_WRITEBACK_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "core_fixes.bpf.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "submitter.bpf.h"
#include "procinfo.bpf.h"
#include "bio_page.bpf.h"

#define BDI_CAP_WRITEBACK	(1 << 0)	/* include/linux/backing-dev.h, 5.10+ */
#define BDEVFS_MAGIC		0x62646576	/* the block devices' pseudo-fs */
#define S_IFMT			00170000
#define S_IFREG			0100000

/* The last dirtier of each regular file whose pages are dirty; entries not
 * dirtied for a while are deleted by user space. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OWNERS_ENTRIES);
	__type(key, struct inode_key);
	__type(value, struct write_owner);
} owners SEC(".maps");

/* This CPU's last owner written to the owners map: a process writing a file
 * dirties folio after folio of it, and needs one map update a second. */
struct owner_memo {
	struct inode_key key;
	struct write_owner owner;
	__u64 refreshed_jiffies;	/* when owner was written to the map */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct owner_memo);
} last_owner SEC(".maps");

/* user space forgets after 120 s: 100 ticks are at most a second (HZ >= 100) */
#define OWNER_REFRESH_JIFFIES	100

/*
 * The whole disk under an inode, and whether the kernel charges dirtying its
 * pages to the task: mapping_can_writeback(), i.e. BDI_CAP_WRITEBACK of
 * inode_to_bdi(), which is the disk's own for block-device inodes.
 */
static __always_inline bool inode_charged(struct inode *inode, __u32 *dev)
{
	struct super_block *sb = inode->i_sb;
	struct gendisk *disk;

	if (sb->s_magic == BDEVFS_MAGIC) {
		/* I_BDEV(): struct bdev_inode { struct block_device bdev; struct inode vfs_inode; } */
		struct block_device *bdev = (void *)inode -
					    bpf_core_field_offset(struct bdev_inode, vfs_inode);

		disk = BPF_CORE_READ(bdev, bd_disk);
		if (!disk || !(BPF_CORE_READ(disk, bdi, capabilities) & BDI_CAP_WRITEBACK))
			return false;
		*dev = MKDEV(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor));
		return true;
	}
	if (!(sb->s_bdi->capabilities & BDI_CAP_WRITEBACK))
		return false;
	/* A filesystem on no single disk (NFS, btrfs's anonymous device) has
	 * no s_bdev: its dirtying is counted on dev 0.  Direct loads through
	 * BTF pointers: a NULL s_bdev reads as a NULL disk. */
	disk = sb->s_bdev->bd_disk;
	*dev = disk ? disk_dev(disk) : 0;
	return true;
}

static __always_inline bool same_owner(const struct write_owner *owner,
				       const struct proc_dev_key *who)
{
	/* comm compared as two words: both are 8-byte aligned */
	return owner->tgid == who->tgid && owner->cgroup == who->cgroup &&
	       ((const __u64 *)owner->comm)[0] == ((const __u64 *)who->comm)[0] &&
	       ((const __u64 *)owner->comm)[1] == ((const __u64 *)who->comm)[1];
}

/* The file's dirtier, task, so that its writeback is charged to it; who
 * its row there.  Its identity (user, priority: issue 33) is read when it
 * becomes the owner, not when it dirties again. */
static __always_inline void remember_owner(struct inode *host, const struct task_struct *task,
					   const struct proc_dev_key *who, bool cgroup_selected)
{
	struct inode_key key = { .inode = (__u64)host };
	__u32 zero = 0;
	struct owner_memo *memo = bpf_map_lookup_elem(&last_owner, &zero);
	struct write_owner *owner;
	/* The tick, a load, tells when to refresh: the clock is read only
	 * then, not for every folio dirtied (tracing programs may not read
	 * the coarse clock). */
	__u64 tick = bpf_jiffies64(), now;

	if (!memo)
		return;
	/* Also when the map had no room: one loss a second, not one a folio. */
	if (memo->key.inode == key.inode && same_owner(&memo->owner, who) &&
	    tick - memo->refreshed_jiffies < OWNER_REFRESH_JIFFIES)
		return;
	now = bpf_ktime_get_ns();
	owner = bpf_map_lookup_elem(&owners, &key);
	if (owner && same_owner(owner, who) && owner->ino == host->i_ino) {
		owner->dirtied_ns = now;
	} else {
		struct write_owner fresh = {
			.tgid = who->tgid,
			.cgroup = who->cgroup,
			.cgroup_selected = cgroup_selected,
			.dirtied_ns = now,
			.ino = host->i_ino,
		};

		__builtin_memcpy(fresh.comm, who->comm, TASK_COMM_LEN);
		task_owner(task, &fresh.who);
		if (bpf_map_update_elem(&owners, &key, &fresh, BPF_ANY))
			count_lost(LOST_OWNER_MAP_FULL);
	}
	memo->key = key;
	memo->owner.tgid = who->tgid;
	memo->owner.cgroup = who->cgroup;
	memo->owner.dirtied_ns = now;
	memo->refreshed_jiffies = tick;
	__builtin_memcpy(memo->owner.comm, who->comm, TASK_COMM_LEN);
}

/*
 * Whether the current task becomes the owner of a file it dirties.  A
 * kernel thread does not, so that the flusher re-dirtying a page does not
 * take the file over from the process that wrote it; except a workqueue
 * worker doing other work than writeback: a loop device's worker writing
 * its backing file, whose writeback then serves the loop device.
 */
static __always_inline bool may_own(const struct task_struct *task, const struct proc_dev_key *who)
{
	const char *flush = "flush-";

	if (!(task->flags & PF_KTHREAD))
		return true;
	if (who->comm[TASK_COMM_LEN - 1] != KEY_MARK_WORKER)
		return false;
	for (int i = 0; i < 6; i++)
		if (who->comm[i] != flush[i])
			return true;
	return false;
}

/*
 * The process that last dirtied the file a write bio's data belongs to: the
 * bio's first page -> its folio -> the folio's mapping -> its inode, whose
 * owner it is (only regular files have owners: remember_owner()).  NULL for
 * anything else (journal, metadata, swap, direct I/O buffers).
 */
static __always_inline struct write_owner *bio_owner(struct bio *bio)
{
	struct inode_key key = {};
	struct bio_page page = {};
	struct write_owner *owner;
	struct inode *host;
	bool direct;
	__u64 ino;

	/* A split-off part of a bio (a clone) has no bi_vcnt of its own but
	 * shares its parent's vector from bi_idx on. */
	if (!bio->bi_iter.bi_size)
		return NULL;
	direct = bio_page_direct(bio, &page);
	if (!direct)
		bio_page_probed(bio, &page);
	/* Writeback sets PG_writeback before submitting; a direct write from
	 * a buffer that maps a file does not, and stays with its submitter. */
	host = page.host;
	if (!page_flag(&page, bpf_core_enum_value(enum pageflags, PG_writeback)) || !host)
		return NULL;
	ino = direct ? host->i_ino : BPF_CORE_READ(host, i_ino);
	key.inode = (__u64)host;
	owner = bpf_map_lookup_elem(&owners, &key);
	/* An inode freed and its memory used again for another file that
	 * only kernel threads dirtied: not the owner's file. */
	if (owner && owner->ino != ino)
		return NULL;
	return owner;
}

/* Who a write is charged to: the file's dirtier when there is one (then
 * *on_behalf if another task submits it), else the submitter; *row_who
 * says whose its row is, should it be made (the dirtier as remembered, or
 * task).  false if the filters drop it. */
static __always_inline bool write_charged_to(const struct task_struct *task, struct bio *bio,
					     __u32 dev, struct proc_dev_key *key, bool *on_behalf,
					     struct row_who *row_who)
{
	struct write_owner *owner = bio && charge_owner ? bio_owner(bio) : NULL;

	*on_behalf = false;
	row_who->task = task;
	row_who->known = NULL;
	if (!owner)
		return current_submitter(task, key, dev);
	if (!dev_selected(dev) || !owner->cgroup_selected || !pid_selected(owner->tgid) ||
	    !uid_selected(owner->who.uid))
		return false;
	key->tgid = owner->tgid;
	key->dev = dev;
	key->cgroup = owner->cgroup;
	__builtin_memcpy(key->comm, owner->comm, TASK_COMM_LEN);
	if (!comm_selected(key->comm))
		return false;
	*on_behalf = owner->tgid != row_id(task);
	row_who->task = NULL;
	row_who->known = &owner->who;
	return true;
}

#endif /* DISKIO_WRITEBACK_BPF_H */
