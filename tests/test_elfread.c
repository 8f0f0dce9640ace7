// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the shared ELF reader (stacks/elfread.c) on files made
 * here in a memfd: the header of either class, extended section counts,
 * section names compared within their table, and every range checked
 * against the file's size and the budget before it is read.  No root.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfread.h"

/* Section names: "", ".shstrtab", ".eh_frame", then ".eh_frame_hdr" with
 * no NUL, at the table's very end. */
static const char names[] = "\0.shstrtab\0.eh_frame\0.eh_frame_hdr";
#define NAMES_LEN (sizeof(names) - 1)
#define NAME_SHSTRTAB 1
#define NAME_EH_FRAME 11
#define NAME_EH_FRAME_HDR 21

/*
 * A 64-bit file: header, the names at 64, three section headers at 128
 * (null, .shstrtab, .eh_frame_hdr named past its table's end).  extended:
 * e_shnum and e_shstrndx in section 0, as files of 65,280 sections or more
 * keep them.
 */
struct file64 {
	Elf64_Ehdr eh;
	char names[64];
	Elf64_Shdr sh[3];
};

static void make_file64(struct file64 *f, bool extended)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->eh.e_ident, ELFMAG, SELFMAG);
	f->eh.e_ident[EI_CLASS] = ELFCLASS64;
	f->eh.e_ident[EI_DATA] = ELFDATA2LSB;
	f->eh.e_ident[EI_VERSION] = EV_CURRENT;
	f->eh.e_machine = EM_X86_64;
	f->eh.e_ehsize = sizeof(f->eh);
	f->eh.e_shoff = offsetof(struct file64, sh);
	f->eh.e_shentsize = sizeof(Elf64_Shdr);
	f->eh.e_shnum = extended ? 0 : 3;
	f->eh.e_shstrndx = extended ? SHN_XINDEX : 1;
	if (extended) {
		f->sh[0].sh_size = 3;
		f->sh[0].sh_link = 1;
	}
	memcpy(f->names, names, NAMES_LEN);
	f->sh[1] = (Elf64_Shdr){ .sh_name = NAME_SHSTRTAB, .sh_type = SHT_STRTAB,
				 .sh_offset = offsetof(struct file64, names),
				 .sh_size = NAMES_LEN };
	f->sh[2] = (Elf64_Shdr){ .sh_name = NAME_EH_FRAME_HDR, .sh_type = SHT_PROGBITS,
				 .sh_addr = 0x1000, .sh_offset = 0, .sh_size = 16 };
}

static int memfd_of(const void *bytes, size_t len)
{
	int fd = memfd_create("elfread", MFD_CLOEXEC);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, bytes, len), (ssize_t)len);
	return fd;
}

static void expect_sections(bool extended)
{
	struct elf_sections table;
	struct elf_section s;
	struct elf_reader r;
	struct file64 f;
	int fd;

	make_file64(&f, extended);
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), 1 << 20), ELF_OK);
	cr_assert(r.is64);
	cr_assert_eq(r.machine, EM_X86_64);
	cr_assert_eq(r.shnum, 3);
	cr_assert_eq(r.shstrndx, 1);
	cr_assert_eq(elf_read_sections(&r, &table), ELF_OK);
	cr_assert_eq(table.count, 3);
	elf_section_at(&table, 1, &s);
	cr_assert_eq(s.type, SHT_STRTAB);
	cr_assert_eq(s.offset, offsetof(struct file64, names));
	cr_assert_eq(s.size, NAMES_LEN);
	elf_section_at(&table, 2, &s);
	cr_assert_eq(s.addr, 0x1000);
	cr_assert_eq(s.size, 16);
	elf_sections_free(&table);
	cr_assert_null(table.headers);
	close(fd);
}

Test(elfread, the_section_table_of_a_64_bit_file)
{
	expect_sections(false);
}

Test(elfread, extended_counts_come_from_section_0)
{
	expect_sections(true);
}

Test(elfread, the_section_table_of_a_32_bit_file)
{
	struct {
		Elf32_Ehdr eh;
		Elf32_Shdr sh[2];
	} f = { 0 };
	struct elf_sections table;
	struct elf_section s;
	struct elf_reader r;
	int fd;

	memcpy(f.eh.e_ident, ELFMAG, SELFMAG);
	f.eh.e_ident[EI_CLASS] = ELFCLASS32;
	f.eh.e_ident[EI_DATA] = ELFDATA2LSB;
	f.eh.e_ident[EI_VERSION] = EV_CURRENT;
	f.eh.e_machine = EM_386;
	f.eh.e_shoff = sizeof(f.eh);
	f.eh.e_shentsize = sizeof(Elf32_Shdr);
	f.eh.e_shnum = 2;
	f.sh[1] = (Elf32_Shdr){ .sh_name = 7, .sh_type = SHT_SYMTAB, .sh_link = 1,
				.sh_addr = 0x8000, .sh_offset = 4, .sh_size = 32,
				.sh_entsize = sizeof(Elf32_Sym) };
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), 1 << 20), ELF_OK);
	cr_assert_not(r.is64);
	cr_assert_eq(r.machine, EM_386);
	cr_assert_eq(elf_read_sections(&r, &table), ELF_OK);
	elf_section_at(&table, 1, &s);
	cr_assert_eq(s.name, 7);
	cr_assert_eq(s.type, SHT_SYMTAB);
	cr_assert_eq(s.link, 1);
	cr_assert_eq(s.addr, 0x8000);
	cr_assert_eq(s.offset, 4);
	cr_assert_eq(s.size, 32);
	cr_assert_eq(s.entsize, sizeof(Elf32_Sym));
	elf_sections_free(&table);
	close(fd);
}

Test(elfread, a_name_is_the_whole_name_with_its_nul_inside_the_table)
{
	struct elf_section s = { .name = NAME_EH_FRAME };

	cr_assert(elf_section_named(names, NAMES_LEN, &s, ".eh_frame"));
	cr_assert_not(elf_section_named(names, NAMES_LEN, &s, ".eh_frame_hdr"));
	cr_assert_not(elf_section_named(names, NAMES_LEN, &s, ".eh_fram"), "a prefix");
	s.name = NAME_EH_FRAME_HDR;
	cr_assert_not(elf_section_named(names, NAMES_LEN, &s, ".eh_frame_hdr"),
		      "its NUL would be past the table");
	cr_assert(elf_section_named(names, NAMES_LEN + 1, &s, ".eh_frame_hdr"));
	s.name = NAMES_LEN + 100;
	cr_assert_not(elf_section_named(names, NAMES_LEN, &s, ""), "a name past the table");
}

Test(elfread, what_is_not_elf_of_this_byte_order)
{
	static const char text[] = "#!/bin/sh\necho this is no ELF file\n";
	struct elf_reader r;
	struct file64 f;
	int fd;

	fd = memfd_of(text, sizeof(text));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(text), 1 << 20), ELF_NOT_ELF);
	close(fd);

	make_file64(&f, false);
	fd = memfd_of(&f, 10);
	cr_assert_eq(elf_reader_open(&r, fd, 10, 1 << 20), ELF_NOT_ELF, "cut in its ident");
	close(fd);

	f.eh.e_ident[EI_DATA] = ELFDATA2MSB;
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), 1 << 20), ELF_NOT_ELF, "big-endian");
	close(fd);
}

Test(elfread, headers_of_the_wrong_size_or_too_many_are_refused)
{
	struct elf_reader r;
	struct file64 f;
	int fd;

	make_file64(&f, false);
	f.eh.e_shentsize = sizeof(Elf32_Shdr);
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), 1 << 20), ELF_MALFORMED);
	close(fd);

	make_file64(&f, true);
	f.sh[0].sh_size = 65537;
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), 1 << 20), ELF_TOO_BIG,
		     "more than 65,536 sections");
	close(fd);

	make_file64(&f, false);
	f.eh.e_phnum = PN_XNUM;
	f.eh.e_phentsize = sizeof(Elf64_Phdr);
	f.sh[0].sh_info = 4097;
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), 1 << 20), ELF_TOO_BIG,
		     "more than 4,096 program headers");
	close(fd);
}

/* A table the header places past the file's end, or that the budget
 * cannot pay for, is refused before anything is allocated or read. */
Test(elfread, ranges_outside_the_file_or_the_budget_are_refused)
{
	struct elf_sections table;
	struct elf_reader r;
	struct file64 f;
	void *bytes;
	int fd;

	make_file64(&f, false);
	f.eh.e_shoff = UINT64_MAX - 8;
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), 1 << 20), ELF_OK);
	cr_assert_eq(elf_read_sections(&r, &table), ELF_MALFORMED, "off + len wraps");
	cr_assert_null(table.headers);
	cr_assert_eq(table.count, 0);
	cr_assert_eq(elf_read_range(&r, 0, sizeof(f) + 1, &bytes), ELF_MALFORMED);
	cr_assert_null(bytes);
	cr_assert_eq(elf_read_range(&r, sizeof(f), 0, &bytes), ELF_OK, "empty, at the end");
	free(bytes);
	close(fd);

	make_file64(&f, false);
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), sizeof(Elf64_Ehdr) + 100), ELF_OK);
	cr_assert_eq(r.budget, 100, "the ELF header is charged");
	cr_assert_eq(elf_read_sections(&r, &table), ELF_TOO_BIG, "192 bytes of headers");
	cr_assert_eq(elf_claim(&r, 0, 60), ELF_OK);
	cr_assert_eq(r.budget, 40);
	cr_assert_eq(elf_claim(&r, 0, 41), ELF_TOO_BIG);
	cr_assert_eq(r.budget, 40, "a refused claim costs nothing");
	close(fd);
}

/* The size given is the file's when it was looked at: one that shrank
 * since reads short, which is malformed, not a loop. */
Test(elfread, a_file_that_shrank_is_malformed)
{
	struct elf_sections table;
	struct elf_reader r;
	struct file64 f;
	int fd;

	make_file64(&f, false);
	fd = memfd_of(&f, sizeof(f));
	cr_assert_eq(elf_reader_open(&r, fd, sizeof(f), 1 << 20), ELF_OK);
	cr_assert_eq(ftruncate(fd, offsetof(struct file64, sh) + 10), 0);
	cr_assert_eq(elf_read_sections(&r, &table), ELF_MALFORMED);
	cr_assert_null(table.headers);
	close(fd);
}
