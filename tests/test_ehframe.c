// SPDX-License-Identifier: GPL-2.0
/*
 * ehframe.c against a program built with known call frame information
 * (tests/data/ehframe_target.c), through .eh_frame_hdr's table and by
 * walking .eh_frame; against this machine's libc (pread's rule at its
 * syscall); and against hand-made .eh_frame bytes: truncated, absurd
 * lengths, encodings and opcodes it does not know.  No root.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ehframe.h"

#define TARGET EHFRAME_DATA "/ehframe_target"

static struct eh_frame *read_file(const char *path)
{
	struct eh_frame *eh = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert_geq(fd, 0, "%s", path);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(eh_frame_read(fd, (uint64_t)st.st_size, &eh), EH_OK, "%s", path);
	close(fd);
	cr_assert_not_null(eh);
	return eh;
}

/* The labels ehframe_target prints: file virtual addresses. */
enum { LEAF, LEAF_IN, LEAF_OUT, FRAMED, FRAMED_IN, EXPR_IN, NLABELS };

static void target_labels(uint64_t *labels)
{
	FILE *p = popen(TARGET, "r");

	cr_assert_not_null(p);
	for (int i = 0; i < NLABELS; i++)
		cr_assert_eq(fscanf(p, "%" SCNx64, &labels[i]), 1);
	cr_assert_eq(pclose(p), 0);
}

static void assert_rule(const struct eh_frame *eh, uint64_t vaddr, uint32_t reg, int64_t offset)
{
	struct eh_rule rule;

	cr_assert_eq(eh_frame_rule(eh, vaddr, &rule), EH_OK, "at 0x%" PRIx64, vaddr);
	cr_assert_eq(rule.cfa_reg, reg, "at 0x%" PRIx64, vaddr);
	cr_assert_eq(rule.cfa_offset, offset, "at 0x%" PRIx64 ": %" PRId64, vaddr,
		     rule.cfa_offset);
	cr_assert_eq(rule.ra_offset, -8);
}

static void assert_target_rules(const struct eh_frame *eh, const uint64_t *l)
{
	struct eh_rule rule;

	assert_rule(eh, l[LEAF], EH_REG_RSP, 8);
	assert_rule(eh, l[LEAF_IN], EH_REG_RSP, 0x30);
	assert_rule(eh, l[LEAF_IN] + 1, EH_REG_RSP, 0x30);
	assert_rule(eh, l[LEAF_OUT], EH_REG_RSP, 8);
	assert_rule(eh, l[FRAMED], EH_REG_RSP, 8);
	assert_rule(eh, l[FRAMED] + 1, EH_REG_RSP, 16);
	assert_rule(eh, l[FRAMED_IN], EH_REG_RBP, 16);
	/* A DWARF expression: no rule, no guess. */
	cr_assert_eq(eh_frame_rule(eh, l[EXPR_IN], &rule), EH_UNKNOWN);
	/* The ELF header is in no function. */
	cr_assert_eq(eh_frame_rule(eh, 0x10, &rule), EH_NO_FDE);
}

Test(ehframe, target_through_the_table)
{
	uint64_t labels[NLABELS];
	struct eh_frame *eh = read_file(TARGET);

	target_labels(labels);
	assert_target_rules(eh, labels);
	cr_assert_gt(eh_frame_bytes(eh), 0);
	eh_frame_free(eh);
}

/* The sections as the file has them (the test's own reading, <elf.h>). */
struct sections {
	void *frame, *hdr;
	size_t frame_len, hdr_len;
	uint64_t frame_vaddr, hdr_vaddr;
};

static void read_sections(const char *path, struct sections *s)
{
	FILE *f = fopen(path, "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	char *names;

	memset(s, 0, sizeof(*s));
	cr_assert_not_null(f);
	cr_assert_eq(fread(&eh, sizeof(eh), 1, f), 1);
	sh = calloc(eh.e_shnum, sizeof(*sh));
	cr_assert_eq(fseek(f, (long)eh.e_shoff, SEEK_SET), 0);
	cr_assert_eq(fread(sh, sizeof(*sh), eh.e_shnum, f), eh.e_shnum);
	names = malloc(sh[eh.e_shstrndx].sh_size);
	cr_assert_eq(fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET), 0);
	cr_assert_eq(fread(names, 1, sh[eh.e_shstrndx].sh_size, f), sh[eh.e_shstrndx].sh_size);
	for (int i = 0; i < eh.e_shnum; i++) {
		void **data;

		if (!strcmp(names + sh[i].sh_name, ".eh_frame")) {
			data = &s->frame;
			s->frame_len = sh[i].sh_size;
			s->frame_vaddr = sh[i].sh_addr;
		} else if (!strcmp(names + sh[i].sh_name, ".eh_frame_hdr")) {
			data = &s->hdr;
			s->hdr_len = sh[i].sh_size;
			s->hdr_vaddr = sh[i].sh_addr;
		} else {
			continue;
		}
		*data = malloc(sh[i].sh_size);
		cr_assert_eq(fseek(f, (long)sh[i].sh_offset, SEEK_SET), 0);
		cr_assert_eq(fread(*data, 1, sh[i].sh_size, f), sh[i].sh_size);
	}
	fclose(f);
	free(names);
	free(sh);
	cr_assert_not_null(s->frame);
	cr_assert_not_null(s->hdr);
}

Test(ehframe, target_by_walking)
{
	uint64_t labels[NLABELS];
	struct eh_frame *eh;
	struct sections s;

	target_labels(labels);
	read_sections(TARGET, &s);
	cr_assert_eq(eh_frame_from_memory(s.frame, s.frame_len, s.frame_vaddr, NULL, 0, 0, &eh),
		     EH_OK);
	assert_target_rules(eh, labels);
	eh_frame_free(eh);
	free(s.frame);
	free(s.hdr);
}

/* Every prefix of the sections, and every single byte flipped: no crash,
 * no read outside them (the sanitizer build checks), and no rule where
 * the table gives none. */
Test(ehframe, target_cut_and_flipped)
{
	uint64_t labels[NLABELS];
	struct eh_rule rule;
	struct eh_frame *eh;
	struct sections s;

	target_labels(labels);
	read_sections(TARGET, &s);
	for (size_t len = 1; len < s.frame_len; len++) {
		if (eh_frame_from_memory(s.frame, len, s.frame_vaddr, s.hdr, s.hdr_len, s.hdr_vaddr,
					 &eh) != EH_OK)
			continue;
		for (int i = 0; i < NLABELS; i++)
			eh_frame_rule(eh, labels[i], &rule);
		eh_frame_free(eh);
	}
	for (size_t at = 0; at < s.frame_len + s.hdr_len; at++) {
		unsigned char *p = at < s.frame_len ? (unsigned char *)s.frame + at :
						      (unsigned char *)s.hdr + at - s.frame_len;

		*p ^= 0xff;
		cr_assert_eq(eh_frame_from_memory(s.frame, s.frame_len, s.frame_vaddr, s.hdr,
						  s.hdr_len, s.hdr_vaddr, &eh), EH_OK);
		for (int i = 0; i < NLABELS; i++)
			eh_frame_rule(eh, labels[i], &rule);
		eh_frame_free(eh);
		*p ^= 0xff;
	}
	free(s.frame);
	free(s.hdr);
}

/* libc's pread: no frame of its own; right after its (first) syscall
 * instruction, where a process doing pread() is when the kernel looks,
 * the CFA is rsp-based and the return address is at CFA-8. */
Test(ehframe, libc_pread)
{
	const unsigned char *code;
	struct eh_frame *eh;
	struct eh_rule rule;
	Dl_info info;
	uint64_t vaddr;
	void *libc;
	size_t i;

#ifndef __x86_64__
	cr_skip_test("x86-64 only");
#endif
	/* libc's own pread: under AddressSanitizer, pread is its interceptor. */
	libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
	cr_assert_not_null(libc, "libc.so.6 is not loaded: %s", dlerror());
	code = dlsym(libc, "pread");
	cr_assert_not_null(code);
	cr_assert_neq(dladdr(code, &info), 0);
	cr_assert_not_null(info.dli_fname);
	eh = read_file(info.dli_fname);
	vaddr = (uint64_t)((const char *)code - (const char *)info.dli_fbase);
	assert_rule(eh, vaddr, EH_REG_RSP, 8);
	for (i = 0; i < 128 && !(code[i] == 0x0f && code[i + 1] == 0x05); i++)
		;
	cr_assert_lt(i, 128, "no syscall instruction in pread");
	cr_assert_eq(eh_frame_rule(eh, vaddr + i + 2, &rule), EH_OK);
	cr_assert_eq(rule.cfa_reg, EH_REG_RSP);
	cr_assert_geq(rule.cfa_offset, 8);
	cr_assert_eq(rule.ra_offset, -8);
	eh_frame_free(eh);
	dlclose(libc);
}

/* ---- hand-made .eh_frame ---- */

#define VADDR 0x10000ULL
#define FUNC 0x20000ULL

struct bytes {
	unsigned char p[512];
	size_t len;
};

static void b_put(struct bytes *b, const void *data, size_t len)
{
	cr_assert_leq(b->len + len, sizeof(b->p));
	if (len)	/* data may be NULL then */
		memcpy(b->p + b->len, data, len);
	b->len += len;
}

static void b_u32(struct bytes *b, uint32_t v)
{
	b_put(b, &v, 4);
}

/* A CIE ("zR", pcrel sdata4, CFA rsp+8, ra at CFA-8) and one FDE over
 * [FUNC, FUNC + 0x100) whose instructions are insns. */
static void build(struct bytes *b, uint8_t fde_enc, const void *insns, size_t insns_len)
{
	static const unsigned char cie_body[] = {
		0, 0, 0, 0,		/* id */
		1, 'z', 'R', 0,		/* version, augmentation */
		1, 0x78, 16,		/* code align 1, data align -8, ra column 16 */
		1, 0,			/* augmentation data: the FDE encoding (set below) */
		0x0c, 7, 8,		/* def_cfa rsp 8 */
		0x90, 1,		/* offset r16 at cfa-8 */
		0, 0,			/* nops to align */
	};
	unsigned char cie[sizeof(cie_body)];
	size_t fde_start, pc_field;
	int32_t pc;

	memcpy(cie, cie_body, sizeof(cie));
	cie[12] = fde_enc;
	b->len = 0;
	b_u32(b, sizeof(cie));
	b_put(b, cie, sizeof(cie));
	fde_start = b->len;
	b_u32(b, (uint32_t)(4 + 4 + 4 + 1 + insns_len));
	b_u32(b, (uint32_t)(b->len));	/* back to the CIE at 0 */
	pc_field = b->len;
	pc = (int32_t)(FUNC - (VADDR + pc_field));
	b_put(b, &pc, 4);
	b_u32(b, 0x100);
	b_put(b, "\0", 1);		/* augmentation data length */
	b_put(b, insns, insns_len);
	(void)fde_start;
	b_u32(b, 0);			/* terminator */
}

static enum eh_status rule_at(const struct bytes *b, uint64_t vaddr, struct eh_rule *rule)
{
	struct eh_frame *eh;
	enum eh_status status = eh_frame_from_memory(b->p, b->len, VADDR, NULL, 0, 0, &eh);

	if (status)
		return status;
	status = eh_frame_rule(eh, vaddr, rule);
	eh_frame_free(eh);
	return status;
}

Test(ehframe, synthetic_rules)
{
	/* advance 4, cfa offset 0x30, remember, advance 4, cfa rbp, advance 4, restore */
	static const unsigned char insns[] = { 0x44, 0x0e, 0x30, 0x0a, 0x44, 0x0d, 6,
					       0x44, 0x0b, 0x2e, 0x10, 0 };
	struct eh_rule rule;
	struct bytes b;

	build(&b, 0x1b, insns, sizeof(insns));
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_OK);
	cr_assert_eq(rule.cfa_reg, EH_REG_RSP);
	cr_assert_eq(rule.cfa_offset, 8);
	cr_assert_eq(rule_at(&b, FUNC + 4, &rule), EH_OK);
	cr_assert_eq(rule.cfa_offset, 0x30);
	cr_assert_eq(rule_at(&b, FUNC + 8, &rule), EH_OK);
	cr_assert_eq(rule.cfa_reg, EH_REG_RBP);
	cr_assert_eq(rule_at(&b, FUNC + 12, &rule), EH_OK);
	cr_assert_eq(rule.cfa_reg, EH_REG_RSP);
	cr_assert_eq(rule.cfa_offset, 0x30);
	cr_assert_eq(rule_at(&b, FUNC + 0xff, &rule), EH_OK);
	cr_assert_eq(rule_at(&b, FUNC + 0x100, &rule), EH_NO_FDE);
	cr_assert_eq(rule_at(&b, FUNC - 1, &rule), EH_NO_FDE);
}

Test(ehframe, unknown_is_no_rule)
{
	static const unsigned char expr[] = { 0x0f, 0x02, 0x77, 0x08 };	/* def_cfa_expression */
	static const unsigned char ra_expr[] = { 0x10, 16, 0x01, 0x77 };	/* ra by expression */
	static const unsigned char ra_undef[] = { 0x07, 16 };		/* outermost frame */
	static const unsigned char opcode[] = { 0x3f };			/* not DWARF's */
	static const unsigned char restore[] = { 0x0b };		/* restore, no remember */
	unsigned char deep[17];
	struct eh_rule rule;
	struct bytes b;

	build(&b, 0x1b, expr, sizeof(expr));
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_UNKNOWN);
	build(&b, 0x1b, ra_expr, sizeof(ra_expr));
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_UNKNOWN);
	build(&b, 0x1b, ra_undef, sizeof(ra_undef));
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_UNKNOWN);
	build(&b, 0x1b, opcode, sizeof(opcode));
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_UNKNOWN);
	build(&b, 0x1b, restore, sizeof(restore));
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_MALFORMED);
	memset(deep, 0x0a, sizeof(deep));	/* remember_state past the depth */
	build(&b, 0x1b, deep, sizeof(deep));
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_TOO_BIG);
	/* Encodings: indirect, textrel, a format that is none. */
	build(&b, 0x9b, NULL, 0);
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_UNKNOWN);
	build(&b, 0x2b, NULL, 0);
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_UNKNOWN);
	build(&b, 0x17, NULL, 0);
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_UNKNOWN);
}

Test(ehframe, malformed_entries)
{
	struct eh_rule rule;
	struct bytes b, cut;
	uint32_t v;

	build(&b, 0x1b, NULL, 0);
	cr_assert_eq(rule_at(&b, FUNC, &rule), EH_OK);
	/* Every truncation: no crash, never a rule from bytes not there. */
	for (cut.len = 1; cut.len < b.len - 4; cut.len++) {
		memcpy(cut.p, b.p, cut.len);
		cr_assert_neq(rule_at(&cut, FUNC, &rule), EH_OK, "cut at %zu", cut.len);
	}
	/* An absurd CIE length. */
	cut = b;
	v = 0xfffffff0;
	memcpy(cut.p, &v, 4);
	cr_assert_eq(rule_at(&cut, FUNC, &rule), EH_MALFORMED);
	/* 64-bit DWARF lengths are not .eh_frame's. */
	v = 0xffffffff;
	memcpy(cut.p, &v, 4);
	cr_assert_eq(rule_at(&cut, FUNC, &rule), EH_UNKNOWN);
	/* An FDE whose CIE pointer points before the section, or at itself. */
	cut = b;
	v = 0x1000;
	memcpy(cut.p + 24 + 4, &v, 4);
	cr_assert_eq(rule_at(&cut, FUNC, &rule), EH_MALFORMED);
	v = 0;
	memcpy(cut.p + 24 + 4, &v, 4);
	cr_assert_neq(rule_at(&cut, FUNC, &rule), EH_OK);
	/* A CIE version that is none. */
	cut = b;
	cut.p[8] = 2;
	cr_assert_eq(rule_at(&cut, FUNC, &rule), EH_UNKNOWN);
	/* An endless augmentation string. */
	cut = b;
	memset(cut.p + 9, 'z', 20);
	cr_assert_neq(rule_at(&cut, FUNC, &rule), EH_OK);
}

/* A .eh_frame_hdr table that points outside .eh_frame, or claims more
 * entries than it holds. */
Test(ehframe, bad_table)
{
	unsigned char hdr[4 + 4 + 4 + 8];
	struct eh_frame *eh;
	struct eh_rule rule;
	struct bytes b;
	int32_t v;

	build(&b, 0x1b, NULL, 0);
	hdr[0] = 1;
	hdr[1] = 0x1b;		/* eh_frame_ptr: pcrel sdata4 */
	hdr[2] = 0x03;		/* fde_count: udata4 */
	hdr[3] = 0x3b;		/* table: datarel sdata4 */
	v = (int32_t)(VADDR - (VADDR + 0x1000 + 4));
	memcpy(hdr + 4, &v, 4);
	v = 1;
	memcpy(hdr + 8, &v, 4);
	v = (int32_t)(FUNC - (VADDR + 0x1000));
	memcpy(hdr + 12, &v, 4);
	v = 0x7fff0000;		/* the FDE: far outside */
	memcpy(hdr + 16, &v, 4);
	cr_assert_eq(eh_frame_from_memory(b.p, b.len, VADDR, hdr, sizeof(hdr), VADDR + 0x1000, &eh),
		     EH_OK);
	cr_assert_eq(eh_frame_rule(eh, FUNC, &rule), EH_MALFORMED);
	eh_frame_free(eh);
	/* The right FDE (at 24): found. */
	v = (int32_t)(VADDR + 24 - (VADDR + 0x1000));
	memcpy(hdr + 16, &v, 4);
	cr_assert_eq(eh_frame_from_memory(b.p, b.len, VADDR, hdr, sizeof(hdr), VADDR + 0x1000, &eh),
		     EH_OK);
	cr_assert_eq(eh_frame_rule(eh, FUNC, &rule), EH_OK);
	eh_frame_free(eh);
	/* A million entries claimed in 8 bytes: walked instead. */
	v = 1000000;
	memcpy(hdr + 8, &v, 4);
	cr_assert_eq(eh_frame_from_memory(b.p, b.len, VADDR, hdr, sizeof(hdr), VADDR + 0x1000, &eh),
		     EH_OK);
	cr_assert_eq(eh_frame_rule(eh, FUNC, &rule), EH_OK);
	eh_frame_free(eh);
}

/* Not ELF, or another machine's: no table. */
Test(ehframe, not_elf)
{
	struct eh_frame *eh = (void *)1;
	char path[] = "/tmp/ehframe-XXXXXX";
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	unlink(path);
	cr_assert_eq(write(fd, "hello, this is not an ELF file at all, but it is long enough to "
			       "hold a header", 78), 78);
	cr_assert_eq(eh_frame_read(fd, 78, &eh), EH_NO_TABLE);
	cr_assert_null(eh);
	cr_assert_eq(eh_frame_read(fd, 10, &eh), EH_NO_TABLE);
	/* A size larger than the file: the read comes up short. */
	cr_assert_neq(eh_frame_read(fd, 1 << 20, &eh), EH_OK);
	close(fd);
}
