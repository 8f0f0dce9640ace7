/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The function symbols, PT_LOAD segments and GNU build id of one ELF file,
 * read from a descriptor with pread() under hard limits: diskio reads, as
 * root, files that other users wrote, so every size in the file is checked
 * against the file's real size and against ELF_LIMITS before a byte is
 * read or a byte allocated (elfread.h).  Pure: no /proc, no global state.
 */
#ifndef DISKIO_ELFSYMS_H
#define DISKIO_ELFSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elfread.h"	/* enum elf_status */

/* GNU build ids are 20 bytes (SHA-1) or 16 (MD5); the kernel keeps 20. */
#define ELF_BUILD_ID_MAX 20

struct elf_limits {
	uint64_t max_read_bytes;	/* headers, notes, one symbol table and its strings */
	uint32_t max_symbols;		/* function symbols kept */
	uint32_t max_name_len;		/* longer names are cut and end in "..." */
};

/* What diskio uses: 32 MiB read, 500,000 symbols and 240-byte names a file. */
extern const struct elf_limits ELF_LIMITS;

struct elf_symbols;

enum elf_read_flags {
	ELF_SYMTAB_ONLY = 1 << 0,	/* a debug file: .symtab or nothing */
	ELF_NO_SYMBOLS = 1 << 1,	/* build id and segments only */
};

/*
 * Reads the ELF file open on fd (a regular file of size file_size).
 * *out gets an object even when the status is not ELF_OK (its build id
 * and segments, as far as they could be read), NULL only on ELF_NO_MEMORY.
 * Symbols come from .symtab, else (without ELF_SYMTAB_ONLY) .dynsym.
 */
enum elf_status elf_symbols_read(int fd, uint64_t file_size, const struct elf_limits *limits,
				 unsigned int flags, struct elf_symbols **out);
void elf_symbols_free(struct elf_symbols *e);

/* The build id (NULL and 0 without one). */
const unsigned char *elf_build_id(const struct elf_symbols *e, size_t *len);

/* True when it has PT_LOAD segments (a file offset can be placed). */
bool elf_has_segments(const struct elf_symbols *e);
bool elf_has_symbols(const struct elf_symbols *e);
/* From .symtab: every function, not only the exported ones of .dynsym. */
bool elf_has_all_symbols(const struct elf_symbols *e);

/* Moves the symbols of from (a debug file) into to (the file it describes:
 * same build id, so the same virtual addresses); from keeps its segments. */
void elf_take_symbols(struct elf_symbols *to, struct elf_symbols *from);

/* Bytes of memory the object holds. */
size_t elf_symbols_bytes(const struct elf_symbols *e);

/* The virtual address of file offset off, and whether its PT_LOAD segment
 * is executable; false when no PT_LOAD segment holds off. */
bool elf_offset_vaddr(const struct elf_symbols *e, uint64_t off, uint64_t *vaddr, bool *exec);

/*
 * The function holding file offset off (an address in a mapping less its
 * start plus its file offset): its name and *into, how far into it off
 * is.  NULL when no PT_LOAD segment holds off or no symbol covers it.
 */
const char *elf_symbol_at(const struct elf_symbols *e, uint64_t off, uint64_t *into);

#endif /* DISKIO_ELFSYMS_H */
