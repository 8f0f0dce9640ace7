// SPDX-License-Identifier: GPL-2.0
/*
 * The CFA rule at an address, from .eh_frame (ehframe.h).
 *
 * .eh_frame is a run of entries, each a 4-byte length then its body: a CIE
 * (id 0) holds what its FDEs share (alignment factors, the return address
 * column, how the FDEs encode addresses, the initial instructions); an FDE
 * names its CIE (id: the distance back to it), covers [pc_begin, pc_begin +
 * pc_range) and holds the instructions that change the rule as the code
 * advances.  .eh_frame_hdr has a table of (pc_begin, FDE address) sorted by
 * pc_begin, which a binary search uses; without it (or with a table this
 * reader does not decode) the entries are walked, at most EH_MAX_ENTRIES.
 * Every read goes through a cursor that stops at its section's end; the
 * instructions run with a bounded state stack and a bounded count.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ehframe.h"
#include "elfread.h"
#include "sorted.h"

#define EH_MAX_SHSTRTAB ((uint64_t)1 << 20)
#define EH_MAX_ENTRIES (1u << 20)	/* walked without a table */
#define EH_MAX_OPS (1u << 16)		/* instructions run for one address */
#define EH_MAX_STATES 16		/* DW_CFA_remember_state depth */
#define EH_MAX_AUGMENTATION 16

/* DWARF pointer encodings (DW_EH_PE_*) */
#define PE_OMIT 0xff
#define PE_FORMAT 0x0f
#define PE_APPLICATION 0x70
#define PE_INDIRECT 0x80
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_DATAREL 0x30

struct eh_frame {
	unsigned char *frame;
	size_t frame_len;
	uint64_t frame_vaddr;
	unsigned char *hdr;
	size_t hdr_len;
	uint64_t hdr_vaddr;
	/* .eh_frame_hdr's table of (datarel sdata4 pc, datarel sdata4 FDE)
	 * pairs, when it has one: its offset in hdr and entry count. */
	size_t table_off;
	size_t table_count;
};

/* Reads inside [0, len) of a section at vaddr; past the end sets bad. */
struct cursor {
	const unsigned char *p;
	size_t len, pos;
	uint64_t vaddr;
	bool bad;
};

static bool take(struct cursor *c, size_t n, const unsigned char **out)
{
	if (c->bad || n > c->len - c->pos) {
		c->bad = true;
		return false;
	}
	*out = c->p + c->pos;
	c->pos += n;
	return true;
}

static uint64_t read_le(struct cursor *c, size_t n)
{
	const unsigned char *b;
	uint64_t v = 0;

	if (!take(c, n, &b))
		return 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

static uint8_t read_u8(struct cursor *c)
{
	return (uint8_t)read_le(c, 1);
}

/* At most 10 bytes; bits past 64 make it bad. */
static uint64_t read_uleb(struct cursor *c)
{
	uint64_t v = 0;

	for (unsigned int shift = 0; !c->bad; shift += 7) {
		uint8_t b = read_u8(c);

		if (shift >= 64 || (shift == 63 && (b & 0x7e))) {
			c->bad = true;
			break;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

static int64_t read_sleb(struct cursor *c)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b = 0;

	do {
		if (shift >= 64) {
			c->bad = true;
			return 0;
		}
		b = read_u8(c);
		v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (!c->bad && (b & 0x80));
	if (shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return c->bad ? 0 : (int64_t)v;
}

/* A pointer in encoding enc; data_base for datarel (0: not allowed).
 * EH_UNKNOWN for an encoding not handled, EH_MALFORMED past the end. */
static enum eh_status read_encoded(struct cursor *c, uint8_t enc, uint64_t data_base,
				   uint64_t *out)
{
	uint64_t field = c->vaddr + c->pos, v;

	if (enc == PE_OMIT || (enc & PE_INDIRECT))
		return EH_UNKNOWN;
	switch (enc & PE_FORMAT) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		v = read_le(c, 8);
		break;
	case PE_ULEB128:
		v = read_uleb(c);
		break;
	case PE_UDATA2:
		v = read_le(c, 2);
		break;
	case PE_UDATA4:
		v = read_le(c, 4);
		break;
	case PE_SLEB128:
		v = (uint64_t)read_sleb(c);
		break;
	case PE_SDATA2:
		v = (uint64_t)(int64_t)(int16_t)read_le(c, 2);
		break;
	case PE_SDATA4:
		v = (uint64_t)(int64_t)(int32_t)read_le(c, 4);
		break;
	default:
		return EH_UNKNOWN;
	}
	if (c->bad)
		return EH_MALFORMED;
	switch (enc & PE_APPLICATION) {
	case 0:
		break;
	case PE_PCREL:
		v += field;	/* wraps like the address arithmetic it stands for */
		break;
	case PE_DATAREL:
		if (!data_base)
			return EH_UNKNOWN;
		v += data_base;
		break;
	default:
		return EH_UNKNOWN;
	}
	*out = v;
	return EH_OK;
}

/* ---- entries ---- */

struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;
	uint8_t fde_enc;
	bool has_z;
	size_t insns, insns_end;	/* offsets in .eh_frame */
};

struct fde {
	uint64_t pc_begin, pc_end;
	size_t cie;			/* offset of its CIE */
	size_t insns, insns_end;
};

/* The entry at off: its body's offset and end, and its id (0: a CIE).
 * EH_NO_FDE at the terminator (length 0) or the section's end. */
static enum eh_status entry_at(const struct eh_frame *eh, size_t off, size_t *body, size_t *end,
			       uint32_t *id)
{
	struct cursor c = { .p = eh->frame, .len = eh->frame_len, .pos = off };
	uint64_t len;

	if (off >= eh->frame_len)
		return EH_NO_FDE;
	len = read_le(&c, 4);
	if (c.bad)
		return EH_MALFORMED;
	if (!len)
		return EH_NO_FDE;
	if (len == 0xffffffff)
		return EH_UNKNOWN;	/* 64-bit DWARF: not in .eh_frame of x86-64 */
	if (len < 4 || len > eh->frame_len - c.pos)
		return EH_MALFORMED;
	*body = c.pos;
	*end = c.pos + (size_t)len;
	*id = (uint32_t)read_le(&c, 4);
	return EH_OK;
}

static enum eh_status parse_cie(const struct eh_frame *eh, size_t off, struct cie *cie)
{
	struct cursor c = { .p = eh->frame, .vaddr = eh->frame_vaddr };
	char aug[EH_MAX_AUGMENTATION + 1];
	size_t body, end, aug_len = 0, aug_end = 0;
	enum eh_status status;
	uint32_t id;
	uint8_t version;

	status = entry_at(eh, off, &body, &end, &id);
	if (status)
		return status == EH_NO_FDE ? EH_MALFORMED : status;
	if (id != 0)
		return EH_MALFORMED;
	c.len = end;
	c.pos = body + 4;
	version = read_u8(&c);
	if (version != 1 && version != 3 && version != 4)
		return EH_UNKNOWN;
	for (;;) {
		char ch = (char)read_u8(&c);

		if (c.bad)
			return EH_MALFORMED;
		if (!ch)
			break;
		if (aug_len == EH_MAX_AUGMENTATION)
			return EH_UNKNOWN;
		aug[aug_len++] = ch;
	}
	aug[aug_len] = '\0';
	if (strstr(aug, "eh"))
		return EH_UNKNOWN;	/* the old GCC layout with an extra pointer */
	if (version == 4) {
		uint8_t address_size = read_u8(&c), segment_size = read_u8(&c);

		if (address_size != 8 || segment_size != 0)
			return EH_UNKNOWN;
	}
	*cie = (struct cie){ .fde_enc = PE_ABSPTR };
	cie->code_align = read_uleb(&c);
	cie->data_align = read_sleb(&c);
	cie->ra_reg = version == 1 ? read_u8(&c) : read_uleb(&c);
	if (c.bad)
		return EH_MALFORMED;
	if (aug[0] == 'z') {
		uint64_t n = read_uleb(&c);

		if (c.bad || n > c.len - c.pos)
			return EH_MALFORMED;
		cie->has_z = true;
		aug_end = c.pos + (size_t)n;
	} else if (aug[0]) {
		return EH_UNKNOWN;	/* no length to skip what it does not know */
	}
	for (size_t i = 1; i < aug_len; i++) {
		uint64_t ignored;

		switch (aug[i]) {
		case 'R':
			cie->fde_enc = read_u8(&c);
			break;
		case 'L':
			read_u8(&c);
			break;
		case 'P': {
			/* The personality routine: only its size matters here
			 * (indirect or not, whatever it is relative to). */
			uint8_t enc = read_u8(&c);

			if (enc == PE_OMIT)
				break;
			status = read_encoded(&c, enc & PE_FORMAT, 0, &ignored);
			if (status)
				return status;
			break;
		}
		case 'S':
		case 'B':
		case 'G':
			break;
		default:
			c.pos = aug_end;	/* 'z' gives the length: skip what is unknown */
			i = aug_len;
			break;
		}
		if (c.bad || c.pos > aug_end)
			return EH_MALFORMED;
	}
	if (cie->has_z)
		c.pos = aug_end;
	cie->insns = c.pos;
	cie->insns_end = end;
	return EH_OK;
}

/* The FDE whose body starts at body (after its length), ending at end. */
static enum eh_status parse_fde(const struct eh_frame *eh, size_t body, size_t end,
				uint32_t id, struct cie *cie, size_t *cie_off, struct fde *fde)
{
	struct cursor c = { .p = eh->frame, .len = end, .pos = body + 4,
			    .vaddr = eh->frame_vaddr };
	enum eh_status status;
	uint64_t range;

	if (!id || id > body)
		return EH_MALFORMED;
	fde->cie = body - id;
	if (fde->cie != *cie_off) {
		status = parse_cie(eh, fde->cie, cie);
		if (status)
			return status;
		*cie_off = fde->cie;
	}
	status = read_encoded(&c, cie->fde_enc, 0, &fde->pc_begin);
	if (status)
		return status;
	status = read_encoded(&c, cie->fde_enc & PE_FORMAT, 0, &range);
	if (status)
		return status;
	if (range > UINT64_MAX - fde->pc_begin)
		return EH_MALFORMED;
	fde->pc_end = fde->pc_begin + range;
	if (cie->has_z) {
		uint64_t n = read_uleb(&c);

		if (c.bad || n > c.len - c.pos)
			return EH_MALFORMED;
		c.pos += (size_t)n;
	}
	fde->insns = c.pos;
	fde->insns_end = end;
	return EH_OK;
}

/* ---- the instructions ---- */

enum ra_rule {
	RA_UNSET,	/* no rule given: the caller's own (no frame to recover) */
	RA_OFFSET,	/* saved at CFA + ra_offset */
	RA_OTHER,	/* anything else: not recovered */
};

struct row {
	uint32_t cfa_reg;
	bool cfa_known;
	int64_t cfa_offset;
	enum ra_rule ra;
	int64_t ra_offset;
};

struct machine {
	const struct cie *cie;
	uint64_t target, loc;
	struct row row, initial;
	struct row states[EH_MAX_STATES];
	unsigned int nstates, ops;
	uint8_t fde_enc;
	bool done;	/* loc passed target */
};

static bool mul_ok(uint64_t a, uint64_t b, uint64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

static bool smul_ok(int64_t a, int64_t b, int64_t *out)
{
	return !__builtin_mul_overflow(a, b, out);
}

static enum eh_status advance(struct machine *m, uint64_t delta)
{
	uint64_t by;

	if (!mul_ok(delta, m->cie->code_align, &by) || by > UINT64_MAX - m->loc)
		return EH_MALFORMED;
	m->loc += by;
	if (m->loc > m->target)
		m->done = true;
	return EH_OK;
}

static enum eh_status set_ra_offset(struct machine *m, uint64_t reg, int64_t factored)
{
	if (reg != m->cie->ra_reg)
		return EH_OK;
	if (!smul_ok(factored, m->cie->data_align, &m->row.ra_offset))
		return EH_MALFORMED;
	m->row.ra = RA_OFFSET;
	return EH_OK;
}

static void set_ra_other(struct machine *m, uint64_t reg, enum ra_rule rule)
{
	if (reg == m->cie->ra_reg)
		m->row.ra = rule;
}

static enum eh_status def_cfa(struct machine *m, uint64_t reg, int64_t offset)
{
	if (reg > 255)
		return EH_UNKNOWN;
	m->row.cfa_reg = (uint32_t)reg;
	m->row.cfa_offset = offset;
	m->row.cfa_known = true;
	return EH_OK;
}

/* Skips a DWARF expression block. */
static void skip_block(struct cursor *c)
{
	uint64_t n = read_uleb(c);

	if (c->bad || n > c->len - c->pos)
		c->bad = true;
	else
		c->pos += (size_t)n;
}

/* One instruction.  in_cie: the CIE's initial ones (no restore yet). */
static enum eh_status step(struct machine *m, struct cursor *c, bool in_cie)
{
	uint8_t op = read_u8(c), low = op & 0x3f;
	enum eh_status status = EH_OK;
	uint64_t reg, u;
	int64_t s;

	if (c->bad)
		return EH_MALFORMED;
	switch (op & 0xc0) {
	case 0x40:	/* DW_CFA_advance_loc */
		return advance(m, low);
	case 0x80:	/* DW_CFA_offset */
		u = read_uleb(c);
		if (c->bad || u > INT64_MAX)
			return EH_MALFORMED;
		return set_ra_offset(m, low, (int64_t)u);
	case 0xc0:	/* DW_CFA_restore */
		if (low == m->cie->ra_reg && !in_cie) {
			m->row.ra = m->initial.ra;
			m->row.ra_offset = m->initial.ra_offset;
		}
		return EH_OK;
	}
	switch (op) {
	case 0x00:	/* DW_CFA_nop */
		break;
	case 0x01:	/* DW_CFA_set_loc */
		status = read_encoded(c, m->fde_enc, 0, &u);
		if (status)
			return status;
		if (u < m->loc)
			return EH_MALFORMED;
		m->loc = u;
		m->done = m->loc > m->target;
		break;
	case 0x02:	/* DW_CFA_advance_loc1 */
		u = read_le(c, 1);
		return c->bad ? EH_MALFORMED : advance(m, u);
	case 0x03:	/* DW_CFA_advance_loc2 */
		u = read_le(c, 2);
		return c->bad ? EH_MALFORMED : advance(m, u);
	case 0x04:	/* DW_CFA_advance_loc4 */
		u = read_le(c, 4);
		return c->bad ? EH_MALFORMED : advance(m, u);
	case 0x05:	/* DW_CFA_offset_extended */
		reg = read_uleb(c);
		u = read_uleb(c);
		if (c->bad || u > INT64_MAX)
			return EH_MALFORMED;
		return set_ra_offset(m, reg, (int64_t)u);
	case 0x06:	/* DW_CFA_restore_extended */
		reg = read_uleb(c);
		if (!c->bad && reg == m->cie->ra_reg && !in_cie) {
			m->row.ra = m->initial.ra;
			m->row.ra_offset = m->initial.ra_offset;
		}
		break;
	case 0x07:	/* DW_CFA_undefined */
	case 0x09:	/* DW_CFA_register */
		reg = read_uleb(c);
		if (op == 0x09)
			read_uleb(c);
		set_ra_other(m, reg, RA_OTHER);
		break;
	case 0x08:	/* DW_CFA_same_value */
		reg = read_uleb(c);
		set_ra_other(m, reg, RA_UNSET);
		break;
	case 0x0a:	/* DW_CFA_remember_state */
		if (m->nstates == EH_MAX_STATES)
			return EH_TOO_BIG;
		m->states[m->nstates++] = m->row;
		break;
	case 0x0b:	/* DW_CFA_restore_state */
		if (!m->nstates)
			return EH_MALFORMED;
		m->row = m->states[--m->nstates];
		break;
	case 0x0c:	/* DW_CFA_def_cfa */
		reg = read_uleb(c);
		u = read_uleb(c);
		if (c->bad || u > INT64_MAX)
			return EH_MALFORMED;
		return def_cfa(m, reg, (int64_t)u);
	case 0x0d:	/* DW_CFA_def_cfa_register */
		reg = read_uleb(c);
		if (c->bad)
			return EH_MALFORMED;
		if (!m->row.cfa_known)
			return EH_UNKNOWN;	/* after an expression: no offset to keep */
		return def_cfa(m, reg, m->row.cfa_offset);
	case 0x0e:	/* DW_CFA_def_cfa_offset */
		u = read_uleb(c);
		if (c->bad || u > INT64_MAX)
			return EH_MALFORMED;
		m->row.cfa_offset = (int64_t)u;
		break;
	case 0x0f:	/* DW_CFA_def_cfa_expression */
		skip_block(c);
		m->row.cfa_known = false;
		m->row.cfa_reg = UINT32_MAX;
		break;
	case 0x10:	/* DW_CFA_expression */
	case 0x16:	/* DW_CFA_val_expression */
		reg = read_uleb(c);
		skip_block(c);
		set_ra_other(m, reg, RA_OTHER);
		break;
	case 0x11:	/* DW_CFA_offset_extended_sf */
		reg = read_uleb(c);
		s = read_sleb(c);
		if (c->bad)
			return EH_MALFORMED;
		return set_ra_offset(m, reg, s);
	case 0x12:	/* DW_CFA_def_cfa_sf */
		reg = read_uleb(c);
		s = read_sleb(c);
		if (c->bad || !smul_ok(s, m->cie->data_align, &s))
			return EH_MALFORMED;
		return def_cfa(m, reg, s);
	case 0x13:	/* DW_CFA_def_cfa_offset_sf */
		s = read_sleb(c);
		if (c->bad || !smul_ok(s, m->cie->data_align, &s))
			return EH_MALFORMED;
		m->row.cfa_offset = s;
		break;
	case 0x14:	/* DW_CFA_val_offset */
	case 0x15:	/* DW_CFA_val_offset_sf */
		reg = read_uleb(c);
		if (op == 0x14)
			read_uleb(c);
		else
			read_sleb(c);
		set_ra_other(m, reg, RA_OTHER);
		break;
	case 0x2e:	/* DW_CFA_GNU_args_size */
		read_uleb(c);
		break;
	case 0x2f:	/* DW_CFA_GNU_negative_offset_extended */
		reg = read_uleb(c);
		u = read_uleb(c);
		if (c->bad || u > INT64_MAX)
			return EH_MALFORMED;
		return set_ra_offset(m, reg, -(int64_t)u);
	default:
		return EH_UNKNOWN;
	}
	return c->bad ? EH_MALFORMED : EH_OK;
}

static enum eh_status run(struct machine *m, const struct eh_frame *eh, size_t from, size_t to,
			  bool in_cie)
{
	struct cursor c = { .p = eh->frame, .len = to, .pos = from, .vaddr = eh->frame_vaddr };

	while (c.pos < c.len && !m->done) {
		enum eh_status status;

		if (++m->ops > EH_MAX_OPS)
			return EH_TOO_BIG;
		status = step(m, &c, in_cie);
		if (status)
			return status;
	}
	return EH_OK;
}

static enum eh_status rule_of_fde(const struct eh_frame *eh, const struct cie *cie,
				  const struct fde *fde, uint64_t vaddr, struct eh_rule *rule)
{
	struct machine m = { .cie = cie, .target = vaddr, .loc = fde->pc_begin,
			     .fde_enc = cie->fde_enc };
	enum eh_status status;

	if (cie->ra_reg != EH_REG_RA)
		return EH_UNKNOWN;
	m.row.cfa_reg = UINT32_MAX;
	/* The CIE's instructions run whole (an advance there would be odd). */
	m.target = UINT64_MAX;
	status = run(&m, eh, cie->insns, cie->insns_end, true);
	if (status)
		return status;
	m.initial = m.row;
	m.target = vaddr;
	m.loc = fde->pc_begin;
	m.done = false;
	m.nstates = 0;
	status = run(&m, eh, fde->insns, fde->insns_end, false);
	if (status)
		return status;
	if (!m.row.cfa_known || m.row.ra != RA_OFFSET)
		return EH_UNKNOWN;
	rule->cfa_reg = m.row.cfa_reg;
	rule->cfa_offset = m.row.cfa_offset;
	rule->ra_offset = m.row.ra_offset;
	return EH_OK;
}

/* ---- finding the FDE ---- */

/* The FDE at off covering vaddr: EH_OK and its rule, EH_NO_FDE when it
 * does not cover it. */
static enum eh_status try_fde(const struct eh_frame *eh, size_t off, uint64_t vaddr,
			      struct cie *cie, size_t *cie_off, struct eh_rule *rule)
{
	enum eh_status status;
	size_t body, end;
	struct fde fde;
	uint32_t id;

	status = entry_at(eh, off, &body, &end, &id);
	if (status)
		return status == EH_NO_FDE ? EH_MALFORMED : status;
	if (!id)
		return EH_MALFORMED;	/* the table points at a CIE */
	status = parse_fde(eh, body, end, id, cie, cie_off, &fde);
	if (status)
		return status;
	if (vaddr < fde.pc_begin || vaddr >= fde.pc_end)
		return EH_NO_FDE;
	return rule_of_fde(eh, cie, &fde, vaddr, rule);
}

/* Field which (0: the pc, 1: the FDE) of a table entry, datarel sdata4. */
static uint64_t table_value(uint64_t hdr_vaddr, const unsigned char *entry, size_t which)
{
	const unsigned char *p = entry + which * 4;
	int32_t v = (int32_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			      (uint32_t)p[3] << 24);

	return hdr_vaddr + (uint64_t)(int64_t)v;
}

struct table_key {
	uint64_t vaddr, hdr_vaddr;
};

static int compare_vaddr_to_entry(const void *key, const void *element)
{
	const struct table_key *k = key;
	uint64_t pc = table_value(k->hdr_vaddr, element, 0);

	return k->vaddr < pc ? -1 : k->vaddr > pc;
}

static enum eh_status rule_by_table(const struct eh_frame *eh, uint64_t vaddr,
				    struct eh_rule *rule)
{
	const unsigned char *table = eh->hdr + eh->table_off;
	struct table_key key = { vaddr, eh->hdr_vaddr };
	size_t cie_off = SIZE_MAX, after;
	struct cie cie;
	uint64_t fde;

	/* The last entry whose pc is at or below vaddr. */
	after = sorted_find_after(&key, table, eh->table_count, 8, compare_vaddr_to_entry);
	if (!after)
		return EH_NO_FDE;
	fde = table_value(eh->hdr_vaddr, table + (after - 1) * 8, 1);
	if (fde < eh->frame_vaddr || fde - eh->frame_vaddr >= eh->frame_len)
		return EH_MALFORMED;
	return try_fde(eh, (size_t)(fde - eh->frame_vaddr), vaddr, &cie, &cie_off, rule);
}

static enum eh_status rule_by_walk(const struct eh_frame *eh, uint64_t vaddr,
				   struct eh_rule *rule)
{
	size_t off = 0, cie_off = SIZE_MAX;
	struct cie cie;

	for (unsigned int n = 0; n < EH_MAX_ENTRIES; n++) {
		enum eh_status status;
		size_t body, end;
		uint32_t id;

		status = entry_at(eh, off, &body, &end, &id);
		if (status)
			return status;
		if (id) {
			status = try_fde(eh, off, vaddr, &cie, &cie_off, rule);
			if (status != EH_NO_FDE)
				return status;
		}
		off = end;
	}
	return EH_TOO_BIG;
}

enum eh_status eh_frame_rule(const struct eh_frame *eh, uint64_t vaddr, struct eh_rule *rule)
{
	if (!eh || !rule)
		return EH_NO_TABLE;
	if (eh->table_count)
		return rule_by_table(eh, vaddr, rule);
	return rule_by_walk(eh, vaddr, rule);
}

/* ---- setting up ---- */

/* .eh_frame_hdr: version 1, the encodings, eh_frame_ptr, fde_count, the
 * table; only a table of datarel sdata4 pairs (what GNU ld and lld write)
 * is searched, another is walked past. */
static void read_hdr_table(struct eh_frame *eh)
{
	struct cursor c = { .p = eh->hdr, .len = eh->hdr_len, .vaddr = eh->hdr_vaddr };
	uint8_t version, ptr_enc, count_enc, table_enc;
	uint64_t ignored, count;

	version = read_u8(&c);
	ptr_enc = read_u8(&c);
	count_enc = read_u8(&c);
	table_enc = read_u8(&c);
	if (c.bad || version != 1 || table_enc != (PE_DATAREL | PE_SDATA4))
		return;
	if (read_encoded(&c, ptr_enc, eh->hdr_vaddr, &ignored) ||
	    read_encoded(&c, count_enc, eh->hdr_vaddr, &count))
		return;
	if (count > (c.len - c.pos) / 8)
		return;
	eh->table_off = c.pos;
	eh->table_count = (size_t)count;
}

enum eh_status eh_frame_from_memory(const void *frame, size_t frame_len, uint64_t frame_vaddr,
				    const void *hdr, size_t hdr_len, uint64_t hdr_vaddr,
				    struct eh_frame **out)
{
	struct eh_frame *eh;

	*out = NULL;
	if (!frame || !frame_len)
		return EH_NO_TABLE;
	if (frame_len > EH_MAX_READ_BYTES || hdr_len > EH_MAX_READ_BYTES)
		return EH_TOO_BIG;
	eh = calloc(1, sizeof(*eh));
	if (!eh)
		return EH_NO_MEMORY;
	eh->frame = malloc(frame_len);
	eh->hdr = hdr && hdr_len ? malloc(hdr_len) : NULL;
	if (!eh->frame || (hdr && hdr_len && !eh->hdr)) {
		eh_frame_free(eh);
		return EH_NO_MEMORY;
	}
	memcpy(eh->frame, frame, frame_len);
	eh->frame_len = frame_len;
	eh->frame_vaddr = frame_vaddr;
	if (eh->hdr) {
		memcpy(eh->hdr, hdr, hdr_len);
		eh->hdr_len = hdr_len;
		eh->hdr_vaddr = hdr_vaddr;
		read_hdr_table(eh);
	}
	*out = eh;
	return EH_OK;
}

void eh_frame_free(struct eh_frame *eh)
{
	if (!eh)
		return;
	free(eh->frame);
	free(eh->hdr);
	free(eh);
}

size_t eh_frame_bytes(const struct eh_frame *eh)
{
	return eh ? sizeof(*eh) + eh->frame_len + eh->hdr_len : 0;
}

/* What the shared reader says, as this reader says it. */
static enum eh_status eh_status_of(enum elf_status status)
{
	switch (status) {
	case ELF_OK:
		return EH_OK;
	case ELF_TOO_BIG:
		return EH_TOO_BIG;
	case ELF_NO_MEMORY:
		return EH_NO_MEMORY;
	case ELF_READ_FAILED:
		return EH_READ_FAILED;
	default:
		return EH_MALFORMED;
	}
}

struct found {
	uint64_t offset, size, addr;
	bool present;
};

/* The first .eh_frame and .eh_frame_hdr (PROGBITS or X86_64_UNWIND) of the
 * section table, by name. */
static void find_sections(const struct elf_sections *table, const char *names,
			  uint64_t names_len, struct found *frame, struct found *hdr)
{
	for (uint32_t i = 0; i < table->count; i++) {
		struct elf_section s;
		struct found *which;

		elf_section_at(table, i, &s);
		if (s.type != SHT_PROGBITS && s.type != SHT_X86_64_UNWIND)
			continue;
		if (elf_section_named(names, names_len, &s, ".eh_frame"))
			which = frame;
		else if (elf_section_named(names, names_len, &s, ".eh_frame_hdr"))
			which = hdr;
		else
			continue;
		if (which->present)
			continue;	/* the first of each name */
		*which = (struct found){ s.offset, s.size, s.addr, true };
	}
}

enum eh_status eh_frame_read(int fd, uint64_t file_size, struct eh_frame **out)
{
	struct elf_sections table = { 0 };
	struct found frame = { 0 }, hdr = { 0 };
	struct elf_section names_section;
	char *names = NULL;
	void *frame_bytes = NULL, *hdr_bytes = NULL;
	enum eh_status status;
	enum elf_status read;
	struct elf_reader r;

	*out = NULL;
	read = elf_reader_open(&r, fd, file_size, EH_MAX_READ_BYTES);
	if (read == ELF_NOT_ELF || read == ELF_MALFORMED)
		return EH_NO_TABLE;
	if (read)
		return eh_status_of(read);
	if (!r.is64 || r.machine != EM_X86_64 || !r.shnum || r.shstrndx >= r.shnum)
		return EH_NO_TABLE;
	status = eh_status_of(elf_read_sections(&r, &table));
	if (status)
		goto out;
	elf_section_at(&table, r.shstrndx, &names_section);
	if (names_section.type != SHT_STRTAB || !names_section.size) {
		status = EH_NO_TABLE;
		goto out;
	}
	if (names_section.size > EH_MAX_SHSTRTAB) {
		status = EH_TOO_BIG;
		goto out;
	}
	status = eh_status_of(elf_read_range(&r, names_section.offset, names_section.size,
					     (void **)&names));
	if (status)
		goto out;
	find_sections(&table, names, names_section.size, &frame, &hdr);
	if (!frame.present || !frame.size) {
		status = EH_NO_TABLE;
		goto out;
	}
	status = eh_status_of(elf_read_range(&r, frame.offset, frame.size, &frame_bytes));
	if (status)
		goto out;
	if (hdr.present && hdr.size) {
		status = eh_status_of(elf_read_range(&r, hdr.offset, hdr.size, &hdr_bytes));
		if (status == EH_MALFORMED || status == EH_TOO_BIG)
			hdr.size = 0;	/* walked without the table */
		else if (status)
			goto out;
	}
	status = eh_frame_from_memory(frame_bytes, (size_t)frame.size, frame.addr, hdr_bytes,
				      hdr_bytes ? (size_t)hdr.size : 0, hdr.addr, out);
out:
	free(frame_bytes);
	free(hdr_bytes);
	free(names);
	elf_sections_free(&table);
	return status;
}
