/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call frame rule of an x86-64 ELF file at one address, from its
 * .eh_frame (found through .eh_frame_hdr's sorted table when it has one):
 * where the canonical frame address (CFA) is and where the return address
 * was saved, so that the caller of a function that kept no frame pointer
 * (libc's syscall wrappers) can be read from a copy of the user stack.
 * Read from a descriptor with pread() under hard limits, every length and
 * pointer checked: diskio reads, as root, files other users wrote.  An
 * opcode or encoding this reader does not know gives EH_UNKNOWN, never a
 * guess.  Pure: no libbpf, no /proc, no global state.
 */
#ifndef DISKIO_EHFRAME_H
#define DISKIO_EHFRAME_H

#include <stddef.h>
#include <stdint.h>

enum eh_status {
	EH_OK = 0,
	EH_NO_TABLE,		/* no .eh_frame, or not an x86-64 ELF64 file */
	EH_NO_FDE,		/* no FDE covers the address */
	EH_UNKNOWN,		/* an opcode, register or encoding not handled here */
	EH_MALFORMED,		/* a length or pointer outside its section */
	EH_TOO_BIG,		/* over the limits below */
	EH_NO_MEMORY,
	EH_READ_FAILED,
};

/* What is read from one file: section headers, section names, .eh_frame_hdr
 * and .eh_frame together, at most this many bytes. */
#define EH_MAX_READ_BYTES ((uint64_t)16 << 20)

/* DWARF register numbers of x86-64 (System V psABI). */
#define EH_REG_RBP 6
#define EH_REG_RSP 7
#define EH_REG_RA 16

/* The rule at an address: CFA = register cfa_reg + cfa_offset; the return
 * address is saved at CFA + ra_offset. */
struct eh_rule {
	uint32_t cfa_reg;
	int64_t cfa_offset;
	int64_t ra_offset;
};

struct eh_frame;

/*
 * Reads the .eh_frame_hdr and .eh_frame of the ELF file open on fd (a
 * regular file of file_size bytes) into memory.  *out is NULL unless EH_OK.
 */
enum eh_status eh_frame_read(int fd, uint64_t file_size, struct eh_frame **out);

/* The same from sections already in memory (tests, the fuzzer): frame of
 * frame_len bytes at virtual address frame_vaddr, hdr (may be NULL) likewise.
 * The bytes are copied. */
enum eh_status eh_frame_from_memory(const void *frame, size_t frame_len, uint64_t frame_vaddr,
				    const void *hdr, size_t hdr_len, uint64_t hdr_vaddr,
				    struct eh_frame **out);
void eh_frame_free(struct eh_frame *eh);

/* Bytes of memory it holds. */
size_t eh_frame_bytes(const struct eh_frame *eh);

/* The rule at virtual address vaddr (as the file's segments place it):
 * EH_OK and *rule, else why not.  Each call does a bounded amount of work. */
enum eh_status eh_frame_rule(const struct eh_frame *eh, uint64_t vaddr, struct eh_rule *rule);

#endif /* DISKIO_EHFRAME_H */
