/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An ELF file read from a descriptor with pread(): its header, its section
 * table and any range of it, each checked to lie inside the file's real
 * size and charged to a byte budget before a byte is read or allocated.
 * diskio reads, as root, files other users wrote: a header may claim
 * anything.  What both readers of an ELF file share: elfsyms.c (symbols,
 * segments, build id) and ehframe.c (.eh_frame).  Native byte order,
 * ELF32 and ELF64, extended section and program header counts.  Pure: no
 * libelf (it allocates what a header claims), no global state.
 */
#ifndef DISKIO_ELFREAD_H
#define DISKIO_ELFREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Why a file gives no names (ELF_OK: it does).  elf_status_name() is the
 * word diskio prints for it. */
enum elf_status {
	ELF_OK = 0,
	ELF_NOT_ELF,		/* not an ELF file of this machine's byte order */
	ELF_MALFORMED,		/* a header or table lies outside the file */
	ELF_TOO_BIG,		/* a table over the limits */
	ELF_STRIPPED,		/* no function symbols (elfsyms.h) */
	ELF_NO_MEMORY,
	ELF_READ_FAILED,
	ELF_NR_STATUS,
};
const char *elf_status_name(enum elf_status status);

/* One file while it is read: where, how big, what may still be read, and
 * its ELF header, widened from either class. */
struct elf_reader {
	int fd;
	uint64_t size;		/* the file's real size: nothing past it is read */
	uint64_t budget;	/* bytes that may still be read */
	bool is64;
	uint16_t machine;	/* e_machine */
	uint64_t phoff, shoff;
	uint32_t phnum, shnum, shstrndx;
	uint16_t phentsize, shentsize;	/* the class's own when there are headers */
};

/*
 * Starts reading the ELF file open on fd (a regular file of file_size
 * bytes) with budget bytes to read: its header, checked (the class's entry
 * sizes, at most 4,096 program headers and 65,536 sections) and charged.
 */
enum elf_status elf_reader_open(struct elf_reader *r, int fd, uint64_t file_size,
				uint64_t budget);

/* Whether [off, off + len) is inside the file (ELF_MALFORMED) and within
 * the budget (ELF_TOO_BIG); charged to the budget when it is. */
enum elf_status elf_claim(struct elf_reader *r, uint64_t off, uint64_t len);

/* len bytes at off into buf, claimed or not: ELF_MALFORMED when the file
 * turns out shorter (it shrank since its size was taken). */
enum elf_status elf_read_at(const struct elf_reader *r, void *buf, size_t len, uint64_t off);

/* elf_claim() then elf_read_at() into a new buffer (*out, the caller's to
 * free; NULL unless ELF_OK). */
enum elf_status elf_read_range(struct elf_reader *r, uint64_t off, uint64_t len, void **out);

/* A section header of either class, widened. */
struct elf_section {
	uint32_t name, type, link;
	uint64_t addr, offset, size, entsize;
};

struct elf_sections {
	unsigned char *headers;
	uint32_t count;
	bool is64;
};

/* The section header table, read whole (claimed and charged); an empty
 * table without sections.  elf_sections_free() it. */
enum elf_status elf_read_sections(struct elf_reader *r, struct elf_sections *out);
void elf_sections_free(struct elf_sections *t);

/* Section i (< t->count). */
void elf_section_at(const struct elf_sections *t, uint32_t i, struct elf_section *s);

/* Whether s's name in the section names (names_len bytes) is name: the
 * whole name, its NUL inside the table. */
bool elf_section_named(const char *names, uint64_t names_len, const struct elf_section *s,
		       const char *name);

#endif /* DISKIO_ELFREAD_H */
