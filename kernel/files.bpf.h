/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --files (issue 35): which file a read or a write was for, counted per
 * (row, file) in file_counts, as its row counts it (the caller passes the
 * row's key: the same process, writeback charged to the dirtier).
 *
 * A bio is classified by file_kind_of() (abi.h) from what is read here:
 * - direct I/O by its own completion context: iomap's bios end in
 *   iomap_dio_bio_end_io() with a struct iomap_dio as bi_private, whose
 *   iocb names the file.  Never by the buffer's pages: they are the
 *   user's memory, perhaps another file's mmap;
 * - page cache by the first page's folio's mapping->host, only while the
 *   folio is in the page cache's own I/O (under writeback for a write,
 *   locked and not up to date for a read);
 * - REQ_META, a block device's inode or a page of no mapping: metadata.
 * A file's name is walked up its dentries when it is first seen and sent to
 * user space (struct file_name_event), so that a file gone since keeps it.
 */

#ifndef DISKIO_FILES_BPF_H
#define DISKIO_FILES_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "abi.h"
#include "core_fixes.bpf.h"
#include "settings.bpf.h"
#include "common.bpf.h"
#include "rows.bpf.h"
#include "writeback.bpf.h"
#include "bio_page.bpf.h"
#include "relayed.bpf.h"

/*
 * The counts of one interval per (row, file), in one of two maps: those of
 * an even cut of the rows (rows_cut, rows.bpf.h) in file_counts[0], of an
 * odd one in file_counts[1].  At the end of an interval user space moves
 * the cut and waits for the programs that ran before it (an update of
 * file_counts returns only then), then reads the map of the old cut, with
 * nothing adding to it, and empties it; the rows it reads as they were at
 * the same cut.  So a map holds one interval's files, not the run's, and
 * they add up to the interval's rows exactly.
 */
struct file_counts_map {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, FILE_COUNTS_ENTRIES);
	__type(key, struct file_key);
	__type(value, struct file_counts);
} file_counts_a SEC(".maps"), file_counts_b SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct file_counts_map);
} file_counts SEC(".maps") = {
	.values = { [0] = &file_counts_a, [1] = &file_counts_b },
};

/*
 * The cut a counting program (diskio.bpf.c) added an I/O to its row under,
 * for the --files program on the same tracepoint, which runs after it (in
 * the order they were attached): user space may move the cut between the
 * two, and a file's count must go where its row's went.  One per CPU: a
 * tracepoint's programs run one after the other on one CPU.
 */
enum firing_kind {
	FIRING_BIO_QUEUE = 1,	/* block_bio_queue, by its bio */
	FIRING_REQUEST = 2,	/* a request's start, by its first bio */
};

struct firing_cut {
	const void *bio;
	__u64 cut;
	__u32 kind;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct firing_cut);
} firing_cuts SEC(".maps");

/* A counting program: bio's row was added to under cut (--files only). */
static __always_inline void note_firing_cut(const void *bio, __u32 kind, __u64 cut)
{
	struct firing_cut *noted;
	__u32 zero = 0;

	if (!files_counted)
		return;
	noted = bpf_map_lookup_elem(&firing_cuts, &zero);
	if (!noted)
		return;
	noted->bio = bio;
	noted->kind = kind;
	noted->cut = cut;
}

/* A --files program: the cut bio's row was added to under in this firing,
 * else (its row was not counted) the cut as it is now. */
static __always_inline __u64 cut_of_firing(const void *bio, __u32 kind)
{
	struct firing_cut *noted;
	__u32 zero = 0;

	noted = bpf_map_lookup_elem(&firing_cuts, &zero);
	if (noted && noted->bio == bio && noted->kind == kind) {
		noted->bio = NULL;
		return noted->cut;
	}
	return *(volatile __u64 *)&rows_cut;
}

/* A file whose name was sent: its inode's address, so that another inode
 * of the same number and generation (out of the table and in again) is
 * named anew. */
struct file_id {
	__u64 ino;
	__u32 fs_dev;
	__u32 generation;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FILE_NAMES_SENT_ENTRIES);
	__type(key, struct file_id);
	__type(value, __u64);
} file_names_sent SEC(".maps");

/* A name event is built here, one entry a CPU (too big for the stack; a
 * plain array sized by user space: a per-CPU one would take its room on
 * every possible CPU even without --files). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct file_name_event);
} file_name_scratch SEC(".maps");

/* The file of an iomap direct I/O bio, or NULL. */
static __always_inline struct file *direct_io_file(struct bio *bio)
{
	struct iomap_dio *dio;

	/* no address (relayed.bpf.h's find_relay_symbols()): no bio ends
	 * there; a kernel without iomap (CONFIG_FS_IOMAP) has no struct
	 * iomap_dio either */
	if (!bpf_core_type_exists(struct iomap_dio) || !relay_symbols.iomap_dio ||
	    (__u64)bio->bi_end_io != relay_symbols.iomap_dio)
		return NULL;
	dio = (struct iomap_dio *)bio->bi_private;
	return BPF_CORE_READ(dio, iocb, ki_filp);
}

/* A dentry of inode: its first alias (a hard-linked file has several). */
static __always_inline struct dentry *inode_dentry(struct inode *inode)
{
	struct hlist_node *first = BPF_CORE_READ(inode, i_dentry.first);

	if (!first)
		return NULL;
	return (struct dentry *)((void *)first - bpf_core_field_offset(struct dentry, d_u.d_alias));
}

/* Send the names from dentry up to its filesystem's root. */
static __always_inline void send_file_name(void *ctx, struct dentry *dentry,
					   const struct file_id *id)
{
	__u32 cpu = bpf_get_smp_processor_id(), off = 0;
	struct file_name_event *event = bpf_map_lookup_elem(&file_name_scratch, &cpu);

	if (!event)
		return;
	event->type = EVENT_FILE_NAME;
	event->fs_dev = id->fs_dev;
	event->ino = id->ino;
	event->generation = id->generation;
	event->depth = 0;
	event->flags = 0;
	event->tgid = bpf_get_current_pid_tgid() >> 32;
	event->mnt_ns = BPF_CORE_READ(current_task(), nsproxy, mnt_ns, ns.inum);
	for (int i = 0; i < FILE_PATH_DEPTH + 1 && dentry; i++) {
		struct dentry *parent = BPF_CORE_READ(dentry, d_parent);
		const unsigned char *name;
		long n;

		if (!parent || parent == dentry) {
			event->flags |= FILE_NAME_ROOT;
			break;
		}
		if (i == FILE_PATH_DEPTH || off >= FILE_NAMES_BYTES)
			break;
		name = BPF_CORE_READ(dentry, d_name.name);
		n = bpf_probe_read_kernel_str(event->names + (off & (FILE_NAMES_BYTES - 1)),
					      FILE_NAME_MAX, name);
		if (n <= 0)
			break;
		off += n;
		event->depth++;
		dentry = parent;
	}
	/* a path longer than the names' room is not sent as a path */
	if (off > FILE_NAMES_BYTES) {
		event->flags &= ~FILE_NAME_ROOT;
		off = FILE_NAMES_BYTES;
	}
	event->bytes = off;
	emit_event(ctx, event, offsetof(struct file_name_event, names) + (off & (2 * FILE_NAMES_BYTES - 1)));
}

/* Name the file the first time it is seen (again, once out of the LRU). */
static __always_inline void name_file(void *ctx, struct inode *inode, struct dentry *dentry,
				      const struct file_id *id)
{
	__u64 address = (__u64)inode;
	__u64 *sent = bpf_map_lookup_elem(&file_names_sent, id);

	if (sent && *sent == address)
		return;
	bpf_map_update_elem(&file_names_sent, id, &address, BPF_ANY);
	if (!dentry)
		dentry = inode_dentry(inode);
	send_file_name(ctx, dentry, id);
}

/* What was found out about a bio's file: FILE_FACT_* and, with a host
 * inode, the inode (its address) and what identifies it. */
struct file_facts {
	__u32 facts;
	__u32 nlink;
	struct inode *host;
	__u64 ino;
	__u32 fs_dev;
	__u32 generation;
};

/* host's number, generation, filesystem and links, read through host: a BTF pointer
 * (direct loads) or a plain address (bpf_probe_read_kernel()). */
static __always_inline void inode_ids(struct inode *host, bool direct, struct file_facts *f)
{
	f->host = host;
	f->ino = direct ? host->i_ino : BPF_CORE_READ(host, i_ino);
	f->generation = direct ? host->i_generation : BPF_CORE_READ(host, i_generation);
	f->fs_dev = direct ? host->i_sb->s_dev : BPF_CORE_READ(host, i_sb, s_dev);
	f->nlink = direct ? host->i_nlink : BPF_CORE_READ(host, i_nlink);
}

/* What the first page of bio says of it (bio_page.bpf.h). */
static __always_inline void page_facts(struct bio *bio, __u32 class, struct file_facts *f)
{
	struct bio_page page = {};
	bool direct = bio_page_direct(bio, &page);
	struct inode *host;

	if (!direct)
		bio_page_probed(bio, &page);
	if (page.page)
		f->facts |= FILE_FACT_PAGE;
	/* A swap-backed folio in the swap cache (folio_test_swapcache():
	 * PG_swapcache is another flag's bit on a folio not swap-backed), or
	 * of no mapping yet: a swap-in that skips the swap cache (a disk of
	 * synchronous I/O, as zram) reads into a new anonymous folio. */
	if (page_flag(&page, bpf_core_enum_value(enum pageflags, PG_swapbacked)) &&
	    (!page.mapping || page_flag(&page, bpf_core_enum_value(enum pageflags, PG_swapcache))))
		f->facts |= FILE_FACT_SWAP;
	if (page.mapping)
		f->facts |= FILE_FACT_MAPPING;
	if (page.anon)
		f->facts |= FILE_FACT_ANON;
	host = page.host;
	if (!host)
		return;
	f->facts |= FILE_FACT_HOST;
	if (class == IO_WRITE ?
	    page_flag(&page, bpf_core_enum_value(enum pageflags, PG_writeback)) :
	    (page_flag(&page, bpf_core_enum_value(enum pageflags, PG_locked)) &&
	     !page_flag(&page, bpf_core_enum_value(enum pageflags, PG_uptodate))))
		f->facts |= FILE_FACT_CACHE_IO;
	if ((direct ? host->i_sb->s_magic : BPF_CORE_READ(host, i_sb, s_magic)) == BDEVFS_MAGIC)
		f->facts |= FILE_FACT_BDEV;
	if (((direct ? host->i_mode : BPF_CORE_READ(host, i_mode)) & S_IFMT) != S_IFREG)
		return;
	f->facts |= FILE_FACT_REGULAR;
	/* only a regular file's are asked for (file_kind_of()) */
	inode_ids(host, direct, f);
}

/*
 * A read or write of bio, charged to the row who under cut: its bytes, and
 * ios I/Os (1 where the caller counts the I/O: a bio-based disk's bio, a
 * blk-mq disk's request by its first bio).
 */
static __always_inline void count_file(void *ctx, struct bio *bio, const struct proc_dev_key *who,
				       __u64 cut, __u32 class, __u32 bytes, __u32 ios)
{
	struct file_key key = {};
	struct file_counts *counts;
	struct file_facts f = {};
	__u32 parity = cut & 1;
	void *map;
	struct dentry *dentry = NULL;
	struct file *file = direct_io_file(bio);

	if (file) {
		struct inode *host = BPF_CORE_READ(file, f_inode);

		f.facts = FILE_FACT_DIRECT;
		dentry = BPF_CORE_READ(file, f_path.dentry);
		if (host)
			inode_ids(host, false, &f);
	} else {
		page_facts(bio, class, &f);
	}
	if (bio->bi_opf & REQ_FLAG(META))
		f.facts |= FILE_FACT_META;
	__builtin_memcpy(&key.who, who, sizeof(key.who));
	key.kind = file_kind_of(f.facts);
	if (key.kind == FILE_KIND_FILE && f.host) {
		key.ino = f.ino;
		key.fs_dev = f.fs_dev;
		key.generation = f.generation;
	} else if (key.kind == FILE_KIND_FILE) {
		key.kind = FILE_KIND_UNKNOWN;
	}
	map = bpf_map_lookup_elem(&file_counts, &parity);
	if (!map)
		return;
	counts = bpf_map_lookup_elem(map, &key);
	if (!counts) {
		struct file_counts fresh = {};

		counts = lookup_or_try_init(map, &key, &fresh);
		if (!counts) {
			/* once an I/O, where it is counted as one (as rows) */
			if (ios)
				count_lost(LOST_FILES_MAP_FULL);
			return;
		}
	}
	__sync_fetch_and_add(&counts->bytes[class & 1], bytes);
	if (ios)
		__sync_fetch_and_add(&counts->ios[class & 1], ios);
	if (key.kind != FILE_KIND_FILE)
		return;
	if (!f.nlink && !(counts->flags & FILE_UNLINKED))
		__sync_fetch_and_or(&counts->flags, FILE_UNLINKED);
	{
		struct file_id id = { .ino = key.ino, .fs_dev = key.fs_dev,
				      .generation = key.generation };

		name_file(ctx, f.host, dentry, &id);
	}
}

#endif /* DISKIO_FILES_BPF_H */
