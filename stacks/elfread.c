// SPDX-License-Identifier: GPL-2.0
/*
 * An ELF file's header, section table and ranges, read under a budget
 * (elfread.h).
 *
 * Every range is checked before it is read: it must lie inside the file
 * (off + len <= file size, without overflow) and fit what may still be
 * read, so a sparse file that claims a 3 GiB table is refused before
 * anything is allocated.  What a range that fails has read stays charged:
 * a thousand section headers naming one bad table cost one budget, not a
 * thousand.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfread.h"

#define MAX_PROGRAM_HEADERS 4096	/* real programs have a dozen */
#define MAX_SECTIONS 65536

static const char *const status_names[ELF_NR_STATUS] = {
	[ELF_OK] = "ok",
	[ELF_NOT_ELF] = "not_elf",
	[ELF_MALFORMED] = "malformed",
	[ELF_TOO_BIG] = "too_big",
	[ELF_STRIPPED] = "stripped",
	[ELF_NO_MEMORY] = "no_memory",
	[ELF_READ_FAILED] = "read_failed",
};

const char *elf_status_name(enum elf_status status)
{
	return (unsigned int)status < ELF_NR_STATUS ? status_names[status] : "unknown";
}

enum elf_status elf_claim(struct elf_reader *r, uint64_t off, uint64_t len)
{
	if (off > r->size || len > r->size - off)
		return ELF_MALFORMED;
	if (len > r->budget)
		return ELF_TOO_BIG;
	r->budget -= len;
	return ELF_OK;
}

enum elf_status elf_read_at(const struct elf_reader *r, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(r->fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? ELF_READ_FAILED : ELF_MALFORMED;	/* shrank under us */
		done += (size_t)n;
	}
	return ELF_OK;
}

enum elf_status elf_read_range(struct elf_reader *r, uint64_t off, uint64_t len, void **out)
{
	enum elf_status status = elf_claim(r, off, len);
	void *buf;

	*out = NULL;
	if (status)
		return status;
	buf = malloc(len ? len : 1);
	if (!buf)
		return ELF_NO_MEMORY;
	status = elf_read_at(r, buf, len, off);
	if (status) {
		free(buf);
		return status;
	}
	*out = buf;
	return ELF_OK;
}

/* Section 0 holds the real counts when they do not fit the ELF header;
 * the real index of the section names too, then. */
static enum elf_status read_extended_counts(struct elf_reader *r, bool shnum, bool phnum)
{
	uint64_t size, info, link;

	if (!r->shoff || elf_claim(r, r->shoff, r->shentsize))
		return ELF_MALFORMED;
	if (r->is64) {
		Elf64_Shdr sh;

		if (r->shentsize != sizeof(sh) || elf_read_at(r, &sh, sizeof(sh), r->shoff))
			return ELF_MALFORMED;
		size = sh.sh_size;
		info = sh.sh_info;
		link = sh.sh_link;
	} else {
		Elf32_Shdr sh;

		if (r->shentsize != sizeof(sh) || elf_read_at(r, &sh, sizeof(sh), r->shoff))
			return ELF_MALFORMED;
		size = sh.sh_size;
		info = sh.sh_info;
		link = sh.sh_link;
	}
	if (shnum) {
		if (size > MAX_SECTIONS)
			return ELF_TOO_BIG;
		r->shnum = (uint32_t)size;
		if (r->shstrndx == SHN_XINDEX)
			r->shstrndx = (uint32_t)link;
	}
	if (phnum) {
		if (info > MAX_PROGRAM_HEADERS)
			return ELF_TOO_BIG;
		r->phnum = (uint32_t)info;
	}
	return ELF_OK;
}

/* The ELF header of either class, widened into r. */
#define TAKE_HEADER(r, eh)                                                                   \
	((r)->machine = (eh).e_machine, (r)->phoff = (eh).e_phoff, (r)->shoff = (eh).e_shoff, \
	 (r)->phnum = (eh).e_phnum, (r)->shnum = (eh).e_shnum, (r)->shstrndx = (eh).e_shstrndx, \
	 (r)->phentsize = (eh).e_phentsize, (r)->shentsize = (eh).e_shentsize)

enum elf_status elf_reader_open(struct elf_reader *r, int fd, uint64_t file_size,
				uint64_t budget)
{
	unsigned char ident[EI_NIDENT];
	enum elf_status status;
	bool extended_shnum, extended_phnum;

	*r = (struct elf_reader){ .fd = fd, .size = file_size, .budget = budget };
	if (r->size < EI_NIDENT || elf_read_at(r, ident, EI_NIDENT, 0) ||
	    memcmp(ident, ELFMAG, SELFMAG) || ident[EI_VERSION] != EV_CURRENT ||
	    ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB) ||
	    (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64))
		return ELF_NOT_ELF;
	r->is64 = ident[EI_CLASS] == ELFCLASS64;
	if (r->is64) {
		Elf64_Ehdr eh;

		if ((status = elf_claim(r, 0, sizeof(eh))) ||
		    (status = elf_read_at(r, &eh, sizeof(eh), 0)))
			return status == ELF_TOO_BIG ? status : ELF_NOT_ELF;
		TAKE_HEADER(r, eh);
	} else {
		Elf32_Ehdr eh;

		if ((status = elf_claim(r, 0, sizeof(eh))) ||
		    (status = elf_read_at(r, &eh, sizeof(eh), 0)))
			return status == ELF_TOO_BIG ? status : ELF_NOT_ELF;
		TAKE_HEADER(r, eh);
	}
	extended_shnum = r->shnum == 0 && r->shoff != 0;
	extended_phnum = r->phnum == PN_XNUM;
	if (extended_shnum || extended_phnum) {
		status = read_extended_counts(r, extended_shnum, extended_phnum);
		if (status)
			return status;
	}
	if (r->phnum > MAX_PROGRAM_HEADERS || r->shnum > MAX_SECTIONS)
		return ELF_TOO_BIG;
	if (r->phnum && r->phentsize != (r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return ELF_MALFORMED;
	if (r->shnum && r->shentsize != (r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		return ELF_MALFORMED;
	return ELF_OK;
}

enum elf_status elf_read_sections(struct elf_reader *r, struct elf_sections *out)
{
	enum elf_status status;

	*out = (struct elf_sections){ .is64 = r->is64 };
	if (!r->shnum)
		return ELF_OK;
	/* elf_reader_open() checked shentsize against the class's, and the
	 * count: at most MAX_SECTIONS headers of at most 64 bytes. */
	status = elf_read_range(r, r->shoff, (uint64_t)r->shnum * r->shentsize,
				(void **)&out->headers);
	if (!status)
		out->count = r->shnum;
	return status;
}

void elf_sections_free(struct elf_sections *t)
{
	free(t->headers);
	t->headers = NULL;
	t->count = 0;
}

void elf_section_at(const struct elf_sections *t, uint32_t i, struct elf_section *s)
{
	if (t->is64) {
		Elf64_Shdr sh;

		memcpy(&sh, t->headers + (size_t)i * sizeof(sh), sizeof(sh));
		*s = (struct elf_section){ sh.sh_name, sh.sh_type, sh.sh_link, sh.sh_addr,
					   sh.sh_offset, sh.sh_size, sh.sh_entsize };
	} else {
		Elf32_Shdr sh;

		memcpy(&sh, t->headers + (size_t)i * sizeof(sh), sizeof(sh));
		*s = (struct elf_section){ sh.sh_name, sh.sh_type, sh.sh_link, sh.sh_addr,
					   sh.sh_offset, sh.sh_size, sh.sh_entsize };
	}
}

bool elf_section_named(const char *names, uint64_t names_len, const struct elf_section *s,
		       const char *name)
{
	size_t len = strlen(name);

	/* Compared within the table: a name without its NUL stops at the end. */
	return s->name < names_len && names_len - s->name > len &&
	       !memcmp(names + s->name, name, len + 1);
}
