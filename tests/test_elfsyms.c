// SPDX-License-Identifier: GPL-2.0
/*
 * elfsyms.c against ELF files built here byte by byte: a well-formed one
 * (64- and 32-bit) named exactly, and the size bombs a user can plant for
 * root's diskio to read — tables claiming gigabytes of a sparse file,
 * thousands of symbols sharing one huge name, absurd counts — each refused
 * or cut, with the memory kept bounded.  No root, no libelf.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfsyms.h"

#define VADDR 0x400000ULL
#define TEXT_OFFSET 0x1000ULL

static const unsigned char BUILD_ID[20] = {
	0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
};

/* What build_elf() lays out: nsyms functions of 0x10 bytes each from
 * VADDR + TEXT_OFFSET, named name_of(i), or all named `shared` (len bytes). */
struct elf_spec {
	bool is32;
	uint32_t nsyms;
	const char *shared;		/* every symbol's name, when not NULL */
	size_t shared_len;
	uint64_t symtab_size;		/* claimed .symtab size, 0: the real one */
	uint64_t note_size;		/* claimed PT_NOTE size, 0: the real one */
	uint64_t file_size;		/* ftruncate to this (sparse), 0: as built */
	bool strtab_unterminated;
	uint32_t symtab_link;		/* 0: the real .strtab */
	bool extended_shnum;		/* e_shnum 0, section 0's sh_size huge */
};

struct buf {
	unsigned char *p;
	size_t len, cap;
};

static size_t put(struct buf *b, const void *data, size_t len)
{
	size_t at = b->len;

	if (b->len + len > b->cap) {
		b->cap = (b->len + len) * 2;
		b->p = realloc(b->p, b->cap);
		cr_assert_not_null(b->p);
	}
	memcpy(b->p + b->len, data, len);
	b->len += len;
	return at;
}

static void pad_to(struct buf *b, size_t at)
{
	static const unsigned char zero[4096];

	while (b->len < at)
		put(b, zero, at - b->len < sizeof(zero) ? at - b->len : sizeof(zero));
}

static void name_of(uint32_t i, char *out, size_t size)
{
	snprintf(out, size, "func_%u", i);
}

/* The file in a memfd: its descriptor. */
static int build_elf(const struct elf_spec *spec, uint64_t *size_out)
{
	struct buf b = { 0 }, strtab = { 0 }, symtab = { 0 };
	size_t ehdr_size = spec->is32 ? sizeof(Elf32_Ehdr) : sizeof(Elf64_Ehdr);
	size_t phdr_size = spec->is32 ? sizeof(Elf32_Phdr) : sizeof(Elf64_Phdr);
	size_t shdr_size = spec->is32 ? sizeof(Elf32_Shdr) : sizeof(Elf64_Shdr);
	size_t note_at, symtab_at, strtab_at, shdr_at, shared_at = 0;
	unsigned char note[12 + 4 + 20];
	uint32_t word;
	int fd;

	/* Headers are written last, at offset 0; reserve them. */
	pad_to(&b, ehdr_size + 2 * phdr_size);
	/* The build id note. */
	word = 4;
	memcpy(note, &word, 4);
	word = sizeof(BUILD_ID);
	memcpy(note + 4, &word, 4);
	word = NT_GNU_BUILD_ID;
	memcpy(note + 8, &word, 4);
	memcpy(note + 12, "GNU", 4);
	memcpy(note + 16, BUILD_ID, sizeof(BUILD_ID));
	note_at = put(&b, note, sizeof(note));
	/* Names: "" first, then each symbol's (or one shared). */
	put(&strtab, "", 1);
	if (spec->shared) {
		shared_at = put(&strtab, spec->shared, spec->shared_len);
		put(&strtab, "", 1);
	}
	for (uint32_t i = 0; i <= spec->nsyms; i++) {
		char name[32];
		size_t name_at = 0;
		uint64_t value = VADDR + TEXT_OFFSET + (uint64_t)(i ? i - 1 : 0) * 0x10;

		if (i) {
			name_of(i - 1, name, sizeof(name));
			name_at = spec->shared ? shared_at : put(&strtab, name, strlen(name) + 1);
		}
		if (spec->is32) {
			Elf32_Sym s = { .st_name = (uint32_t)name_at, .st_value = (uint32_t)value,
					.st_size = 0x10, .st_shndx = i ? 1 : 0,
					.st_info = i ? ELF32_ST_INFO(STB_GLOBAL, STT_FUNC) : 0 };
			put(&symtab, &s, sizeof(s));
		} else {
			Elf64_Sym s = { .st_name = (uint32_t)name_at, .st_value = value,
					.st_size = 0x10, .st_shndx = i ? 1 : 0,
					.st_info = i ? ELF64_ST_INFO(STB_GLOBAL, STT_FUNC) : 0 };
			put(&symtab, &s, sizeof(s));
		}
	}
	if (spec->strtab_unterminated)
		strtab.p[strtab.len - 1] = 'x';
	pad_to(&b, (b.len + 7) & ~(size_t)7);
	symtab_at = put(&b, symtab.p, symtab.len);
	strtab_at = put(&b, strtab.p, strtab.len);
	pad_to(&b, TEXT_OFFSET + (uint64_t)spec->nsyms * 0x10 + 0x10);
	pad_to(&b, (b.len + 7) & ~(size_t)7);
	shdr_at = b.len;
	/* Sections: null, .text (index 1), .symtab, .strtab. */
	{
		uint64_t sizes[4] = { spec->extended_shnum ? 0xffffffffULL : 0,
				      (uint64_t)spec->nsyms * 0x10,
				      spec->symtab_size ? spec->symtab_size : symtab.len,
				      strtab.len };
		uint64_t offsets[4] = { 0, TEXT_OFFSET, symtab_at, strtab_at };
		uint32_t types[4] = { SHT_NULL, SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB };
		uint32_t links[4] = { 0, 0, spec->symtab_link ? spec->symtab_link : 3, 0 };

		for (int i = 0; i < 4; i++) {
			if (spec->is32) {
				Elf32_Shdr sh = { .sh_type = types[i], .sh_offset = (uint32_t)offsets[i],
						  .sh_size = (uint32_t)sizes[i], .sh_link = links[i],
						  .sh_entsize = i == 2 ? sizeof(Elf32_Sym) : 0 };
				put(&b, &sh, sizeof(sh));
			} else {
				Elf64_Shdr sh = { .sh_type = types[i], .sh_offset = offsets[i],
						  .sh_size = sizes[i], .sh_link = links[i],
						  .sh_entsize = i == 2 ? sizeof(Elf64_Sym) : 0 };
				put(&b, &sh, sizeof(sh));
			}
		}
	}
	/* The headers. */
	{
		unsigned char ident[EI_NIDENT] = { ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3,
						   spec->is32 ? ELFCLASS32 : ELFCLASS64,
						   ELFDATA2LSB, EV_CURRENT };
		uint64_t note_size = spec->note_size ? spec->note_size : sizeof(note);

		if (spec->is32) {
			Elf32_Ehdr eh = { .e_type = ET_DYN, .e_phoff = (uint32_t)ehdr_size,
					  .e_shoff = (uint32_t)shdr_at, .e_ehsize = (uint16_t)ehdr_size,
					  .e_phentsize = (uint16_t)phdr_size, .e_phnum = 2,
					  .e_shentsize = (uint16_t)shdr_size,
					  .e_shnum = spec->extended_shnum ? 0 : 4 };
			Elf32_Phdr load = { .p_type = PT_LOAD, .p_offset = 0, .p_vaddr = VADDR,
					    .p_filesz = (uint32_t)b.len, .p_memsz = (uint32_t)b.len };
			Elf32_Phdr pnote = { .p_type = PT_NOTE, .p_offset = (uint32_t)note_at,
					     .p_filesz = (uint32_t)note_size, .p_align = 4 };

			memcpy(eh.e_ident, ident, EI_NIDENT);
			memcpy(b.p, &eh, sizeof(eh));
			memcpy(b.p + ehdr_size, &load, sizeof(load));
			memcpy(b.p + ehdr_size + phdr_size, &pnote, sizeof(pnote));
		} else {
			Elf64_Ehdr eh = { .e_type = ET_DYN, .e_phoff = ehdr_size, .e_shoff = shdr_at,
					  .e_ehsize = (uint16_t)ehdr_size,
					  .e_phentsize = (uint16_t)phdr_size, .e_phnum = 2,
					  .e_shentsize = (uint16_t)shdr_size,
					  .e_shnum = spec->extended_shnum ? 0 : 4 };
			Elf64_Phdr load = { .p_type = PT_LOAD, .p_offset = 0, .p_vaddr = VADDR,
					    .p_filesz = b.len, .p_memsz = b.len };
			Elf64_Phdr pnote = { .p_type = PT_NOTE, .p_offset = note_at,
					     .p_filesz = note_size, .p_align = 4 };

			memcpy(eh.e_ident, ident, EI_NIDENT);
			memcpy(b.p, &eh, sizeof(eh));
			memcpy(b.p + ehdr_size, &load, sizeof(load));
			memcpy(b.p + ehdr_size + phdr_size, &pnote, sizeof(pnote));
		}
	}
	fd = memfd_create("elf", MFD_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, b.p, b.len), (ssize_t)b.len);
	*size_out = b.len;
	if (spec->file_size) {
		cr_assert_eq(ftruncate(fd, (off_t)spec->file_size), 0);
		*size_out = spec->file_size;
	}
	free(b.p);
	free(strtab.p);
	free(symtab.p);
	return fd;
}

static enum elf_status read_spec(const struct elf_spec *spec, const struct elf_limits *limits,
				 struct elf_symbols **e)
{
	uint64_t size;
	int fd = build_elf(spec, &size);
	enum elf_status status = elf_symbols_read(fd, size, limits, 0, e);

	close(fd);
	return status;
}

/* The name at the n-th function's start + into. */
static const char *name_at(const struct elf_symbols *e, uint32_t n, uint64_t into)
{
	uint64_t got;
	const char *name = elf_symbol_at(e, TEXT_OFFSET + (uint64_t)n * 0x10 + into, &got);

	if (name)
		cr_assert_eq(got, into);
	return name;
}

static void assert_build_id(const struct elf_symbols *e)
{
	size_t len;
	const unsigned char *id = elf_build_id(e, &len);

	cr_assert_eq(len, sizeof(BUILD_ID));
	cr_assert_arr_eq(id, BUILD_ID, len);
}

Test(elfsyms, names_functions_of_a_64_and_a_32_bit_file)
{
	for (int is32 = 0; is32 < 2; is32++) {
		struct elf_spec spec = { .is32 = is32, .nsyms = 100 };
		struct elf_symbols *e;

		cr_assert_eq(read_spec(&spec, &ELF_LIMITS, &e), ELF_OK, "is32=%d", is32);
		assert_build_id(e);
		cr_assert_str_eq(name_at(e, 0, 0), "func_0");
		cr_assert_str_eq(name_at(e, 42, 5), "func_42");
		cr_assert_str_eq(name_at(e, 99, 0xf), "func_99");
		cr_assert_null(name_at(e, 100, 0), "past the last function");
		cr_assert_null(elf_symbol_at(e, 1ULL << 40, &(uint64_t){ 0 }), "in no segment");
		elf_symbols_free(e);
	}
}

/* 4,000 symbols all named by one 1 MiB string: 4,000 short copies. */
Test(elfsyms, a_huge_shared_name_is_cut_once_per_symbol)
{
	const size_t len = 1 << 20;
	char *shared = malloc(len);
	struct elf_spec spec = { .nsyms = 4000, .shared = shared, .shared_len = len };
	struct elf_symbols *e;
	const char *name;

	memset(shared, 'A', len);
	cr_assert_eq(read_spec(&spec, &ELF_LIMITS, &e), ELF_OK);
	name = name_at(e, 1234, 0);
	cr_assert_eq(strlen(name), ELF_LIMITS.max_name_len + 3);
	cr_assert_str_eq(name + ELF_LIMITS.max_name_len, "...");
	cr_assert_lt(elf_symbols_bytes(e), (size_t)4000 * (ELF_LIMITS.max_name_len + 64),
		     "%zu bytes", elf_symbols_bytes(e));
	elf_symbols_free(e);
	free(shared);
}

/* Three sparse 3 GiB symbol tables, a 1 GiB note: refused before a byte
 * is allocated for them (a 9 GiB malloc would fail the test's memory). */
Test(elfsyms, tables_claiming_gigabytes_are_refused)
{
	struct elf_spec sparse = { .nsyms = 10, .symtab_size = 3ULL << 30,
				   .file_size = 10ULL << 30 };
	struct elf_spec outside = { .nsyms = 10, .symtab_size = 3ULL << 30 };
	struct elf_spec note = { .nsyms = 10, .note_size = 1ULL << 30,
				 .file_size = 2ULL << 30 };
	struct elf_symbols *e;

	cr_assert_eq(read_spec(&sparse, &ELF_LIMITS, &e), ELF_TOO_BIG);
	cr_assert_lt(elf_symbols_bytes(e), 4096);
	elf_symbols_free(e);
	cr_assert_eq(read_spec(&outside, &ELF_LIMITS, &e), ELF_MALFORMED,
		     "a table past the file's end");
	elf_symbols_free(e);
	/* A note over the limit is skipped: no build id, the symbols still read. */
	cr_assert_eq(read_spec(&note, &ELF_LIMITS, &e), ELF_OK);
	cr_assert_null(elf_build_id(e, &(size_t){ 0 }));
	cr_assert_str_eq(name_at(e, 3, 0), "func_3");
	elf_symbols_free(e);
}

Test(elfsyms, counts_over_the_limits_are_refused)
{
	struct elf_limits few = { .max_read_bytes = 32 << 20, .max_symbols = 50,
				  .max_name_len = 64 };
	struct elf_limits small = { .max_read_bytes = 1024, .max_symbols = 1000,
				    .max_name_len = 64 };
	struct elf_spec many = { .nsyms = 51 };
	struct elf_spec extended = { .nsyms = 3, .extended_shnum = true };
	struct elf_symbols *e;

	cr_assert_eq(read_spec(&many, &few, &e), ELF_TOO_BIG, "51 symbols over 50");
	cr_assert_not(elf_has_symbols(e), "none kept: a partial table names wrongly");
	elf_symbols_free(e);
	cr_assert_eq(read_spec(&many, &small, &e), ELF_TOO_BIG, "1 KiB to read");
	elf_symbols_free(e);
	cr_assert_eq(read_spec(&extended, &ELF_LIMITS, &e), ELF_TOO_BIG,
		     "2^32 - 1 sections claimed");
	elf_symbols_free(e);
}

Test(elfsyms, malformed_tables_give_no_names)
{
	struct elf_spec unterminated = { .nsyms = 5, .strtab_unterminated = true };
	struct elf_spec bad_link = { .nsyms = 5, .symtab_link = 99 };
	struct elf_spec wrong_link = { .nsyms = 5, .symtab_link = 1 };
	struct elf_symbols *e;

	cr_assert_eq(read_spec(&unterminated, &ELF_LIMITS, &e), ELF_MALFORMED);
	elf_symbols_free(e);
	cr_assert_eq(read_spec(&bad_link, &ELF_LIMITS, &e), ELF_MALFORMED);
	elf_symbols_free(e);
	cr_assert_eq(read_spec(&wrong_link, &ELF_LIMITS, &e), ELF_MALFORMED,
		     "a string table that is no SHT_STRTAB");
	elf_symbols_free(e);
}

Test(elfsyms, a_file_that_is_no_elf_or_is_cut_short)
{
	static const char text[] = "#!/bin/sh\necho not an ELF file\n";
	struct elf_spec spec = { .nsyms = 20 };
	struct elf_symbols *e;
	uint64_t size;
	int fd = memfd_create("text", MFD_CLOEXEC);

	cr_assert_eq(write(fd, text, sizeof(text)), (ssize_t)sizeof(text));
	cr_assert_eq(elf_symbols_read(fd, sizeof(text), &ELF_LIMITS, 0, &e), ELF_NOT_ELF);
	elf_symbols_free(e);
	close(fd);
	/* Cut after its headers: the size given is the file's. */
	fd = build_elf(&spec, &size);
	cr_assert_eq(ftruncate(fd, 300), 0);
	cr_assert_eq(elf_symbols_read(fd, 300, &ELF_LIMITS, 0, &e), ELF_MALFORMED);
	assert_build_id(e);
	elf_symbols_free(e);
	/* A size larger than the file (it shrank under the reader). */
	cr_assert_eq(elf_symbols_read(fd, size, &ELF_LIMITS, 0, &e), ELF_MALFORMED);
	elf_symbols_free(e);
	close(fd);
	cr_assert_str_eq(elf_status_name(ELF_TOO_BIG), "too_big");
	cr_assert_str_eq(elf_status_name(ELF_NR_STATUS), "unknown");
}

/* A debug file's symbols moved into the stripped file of the same build id. */
Test(elfsyms, symbols_taken_from_a_debug_file)
{
	struct elf_spec spec = { .nsyms = 8 };
	struct elf_symbols *stripped, *debug;
	uint64_t size;
	int fd = build_elf(&spec, &size);

	cr_assert_eq(elf_symbols_read(fd, size, &ELF_LIMITS, ELF_NO_SYMBOLS, &stripped), ELF_OK);
	cr_assert_not(elf_has_symbols(stripped));
	cr_assert(elf_has_segments(stripped));
	assert_build_id(stripped);
	cr_assert_eq(elf_symbols_read(fd, size, &ELF_LIMITS, ELF_SYMTAB_ONLY, &debug), ELF_OK);
	cr_assert(elf_has_all_symbols(debug), "a .symtab");
	elf_take_symbols(stripped, debug);
	cr_assert(elf_has_all_symbols(stripped));
	cr_assert_not(elf_has_symbols(debug));
	cr_assert_str_eq(name_at(stripped, 7, 2), "func_7");
	elf_symbols_free(debug);
	elf_symbols_free(stripped);
	close(fd);
}
