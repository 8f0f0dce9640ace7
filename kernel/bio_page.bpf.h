/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bio's first page, as far as it tells whose data the bio carries: its
 * folio's flags, whether it has a mapping, an anonymous one, and the inode
 * whose page cache it is in.  Read with direct loads through the BTF
 * pointers the tracepoint passes when the bio's vector starts at its first
 * entry and that page is not a tail page (a bio as the filesystem made it;
 * no helper call), else with bpf_probe_read_kernel().  Used by the
 * writeback owners (writeback.bpf.h) and --files (files.bpf.h).
 */

#ifndef DISKIO_BIO_PAGE_BPF_H
#define DISKIO_BIO_PAGE_BPF_H

#include <vmlinux.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "core_fixes.bpf.h"

#define FOLIO_MAPPING_FLAGS	0x3UL		/* PAGE_MAPPING_ANON | PAGE_MAPPING_MOVABLE */

/* What was read of a bio's first page. */
struct bio_page {
	bool page;		/* the bio has a first page */
	bool mapping;		/* its folio has a mapping */
	bool anon;		/* which is anonymous or movable (low bits) */
	unsigned long flags;	/* the folio's flags (once page) */
	/* the mapping's inode (once mapping and not anon): a BTF pointer
	 * after bio_page_direct(), a plain address after bio_page_probed() */
	struct inode *host;
};

/*
 * The low bits (mask) of a pointer loaded from a BTF pointer, which the
 * verifier lets no bitwise operator touch: the difference of two pointers
 * is a plain number to it (the loader is privileged), and aligned, a
 * struct page, has no low bits of its own.
 */
static __always_inline unsigned long low_bits(const void *ptr, const struct page *aligned,
					      unsigned long mask)
{
	unsigned long diff = (unsigned long)ptr - (unsigned long)aligned;

	barrier_var(diff);	/* not folded into an operator on the pointer */
	return diff & mask;
}

/* bio's first page read with direct loads into p; false, p untouched, when
 * bio is not such a one (bio_page_probed() reads it then). */
static __always_inline bool bio_page_direct(struct bio *bio, struct bio_page *p)
{
	struct bio_vec *vecs = untrusted(bio, struct bio)->bi_io_vec;
	struct address_space *mapping;
	struct page *page;

	if (bio->bi_iter.bi_idx || !vecs)
		return false;
	page = vecs->bv_page;
	if (!page)
		return true;
	/* compound_head's bit 0 marks a tail page (page_folio()); otherwise
	 * the page is its folio. */
	if (low_bits((void *)page->compound_head, page, 1))
		return false;
	p->page = true;
	if (bpf_core_type_exists(memdesc_flags_t))
		p->flags = page->flags.f;
	else
		p->flags = ((struct folio___flags_word *)page)->flags;
	mapping = page->mapping;
	if (!mapping)
		return true;
	p->mapping = true;
	if (low_bits(mapping, page, FOLIO_MAPPING_FLAGS))
		p->anon = true;
	else
		p->host = mapping->host;
	return true;
}

/* bio's first page read with bpf_probe_read_kernel() into p. */
static __always_inline void bio_page_probed(struct bio *bio, struct bio_page *p)
{
	struct bio_vec *vecs = untrusted(bio, struct bio)->bi_io_vec;
	unsigned long head, mapping;
	struct folio *folio;
	struct page *page;

	if (!vecs)
		return;
	page = BPF_CORE_READ(vecs + bio->bi_iter.bi_idx, bv_page);
	if (!page)
		return;
	p->page = true;
	head = BPF_CORE_READ(page, compound_head);	/* page_folio() */
	folio = (head & 1) ? (struct folio *)(head - 1) : (struct folio *)page;
	p->flags = folio_flags(folio);
	mapping = (unsigned long)BPF_CORE_READ(folio, mapping);
	if (!mapping)
		return;
	p->mapping = true;
	if (mapping & FOLIO_MAPPING_FLAGS)
		p->anon = true;
	else
		p->host = BPF_CORE_READ((struct address_space *)mapping, host);
}

/* Whether a folio's flags have bit (enum pageflags). */
static __always_inline bool page_flag(const struct bio_page *p, int bit)
{
	return p->flags & (1UL << bit);
}

#endif /* DISKIO_BIO_PAGE_BPF_H */
