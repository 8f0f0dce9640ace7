// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded ELF symbol reader (elfsyms.h).
 *
 * Every table is located from the headers and checked before it is read:
 * it must lie inside the file (off + size <= file size, without overflow),
 * its entries must have the size this ELF class gives them, and what is
 * read from one file (headers, notes, one symbol table and its string
 * table) must fit the limit.  A sparse file that claims a 3 GiB symbol
 * table is refused before anything is allocated; a symbol table is read in
 * small chunks and only function symbols are kept, their names cut to the
 * limit, so a thousand symbols sharing one huge name cost a thousand short
 * copies.
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

#include "array.h"
#include "elfsyms.h"
#include "sorted.h"

const struct elf_limits ELF_LIMITS = {
	.max_read_bytes = 32 << 20,
	.max_symbols = 500000,
	.max_name_len = 240,
};

#define MAX_PROGRAM_HEADERS 4096	/* real programs have a dozen */
#define MAX_SECTIONS 65536
#define MAX_NOTE_BYTES (64 << 10)	/* a build id note is 36 bytes */
#define SYMBOL_CHUNK 4096		/* symbols read per pread() */

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

struct elf_symbol {
	uint64_t value, size;
	uint32_t name;		/* offset in names */
	uint8_t rank;		/* binding: among aliases at one value, lowest is shown */
};

struct elf_segment {
	uint64_t offset, filesz, vaddr;
	bool exec;		/* PF_X */
};

struct elf_symbols {
	unsigned char build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	struct elf_segment *segments;
	size_t nsegments;
	struct elf_symbol *symbols;
	size_t nsymbols;
	char *names;
	size_t names_len;
	bool from_symtab;	/* the symbols are .symtab's, not only the exports */
};

/* One file while it is read: its descriptor, size, class and what is left to read. */
struct reader {
	int fd;
	uint64_t size;
	bool is64;
	uint64_t budget;
	const struct elf_limits *limits;
};

/* The ELF and section headers of either class, widened. */
struct header {
	uint64_t phoff, shoff;
	uint32_t phnum, shnum, shstrndx;
	uint16_t phentsize, shentsize;
};

struct section {
	uint32_t type, link;
	uint64_t offset, size, entsize;
};

/* off + len inside the file, and within what may still be read; charged. */
static enum elf_status claim(struct reader *r, uint64_t off, uint64_t len)
{
	if (off > r->size || len > r->size - off)
		return ELF_MALFORMED;
	if (len > r->budget)
		return ELF_TOO_BIG;
	r->budget -= len;
	return ELF_OK;
}

static enum elf_status read_at(const struct reader *r, void *buf, size_t len, uint64_t off)
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

/* claim() then read_at() into a new buffer (freed by the caller). */
static enum elf_status read_table(struct reader *r, uint64_t off, uint64_t len, void **out)
{
	enum elf_status status = claim(r, off, len);
	void *buf;

	*out = NULL;
	if (status)
		return status;
	buf = malloc(len ? len : 1);
	if (!buf)
		return ELF_NO_MEMORY;
	status = read_at(r, buf, len, off);
	if (status) {
		free(buf);
		return status;
	}
	*out = buf;
	return ELF_OK;
}

static void read_section_header(const struct reader *r, const unsigned char *table,
				uint32_t i, struct section *s)
{
	if (r->is64) {
		Elf64_Shdr sh;

		memcpy(&sh, table + (size_t)i * sizeof(sh), sizeof(sh));
		*s = (struct section){ sh.sh_type, sh.sh_link, sh.sh_offset, sh.sh_size,
				       sh.sh_entsize };
	} else {
		Elf32_Shdr sh;

		memcpy(&sh, table + (size_t)i * sizeof(sh), sizeof(sh));
		*s = (struct section){ sh.sh_type, sh.sh_link, sh.sh_offset, sh.sh_size,
				       sh.sh_entsize };
	}
}

/* Section 0 holds the real counts when they do not fit the ELF header. */
static enum elf_status read_extended_counts(struct reader *r, struct header *h, bool shnum,
					    bool phnum)
{
	uint64_t size, info;

	if (!h->shoff || claim(r, h->shoff, h->shentsize))
		return ELF_MALFORMED;
	if (r->is64) {
		Elf64_Shdr sh;

		if (h->shentsize != sizeof(sh) || read_at(r, &sh, sizeof(sh), h->shoff))
			return ELF_MALFORMED;
		size = sh.sh_size;
		info = sh.sh_info;
	} else {
		Elf32_Shdr sh;

		if (h->shentsize != sizeof(sh) || read_at(r, &sh, sizeof(sh), h->shoff))
			return ELF_MALFORMED;
		size = sh.sh_size;
		info = sh.sh_info;
	}
	if (shnum) {
		if (size > MAX_SECTIONS)
			return ELF_TOO_BIG;
		h->shnum = (uint32_t)size;
	}
	if (phnum) {
		if (info > MAX_PROGRAM_HEADERS)
			return ELF_TOO_BIG;
		h->phnum = (uint32_t)info;
	}
	return ELF_OK;
}

static enum elf_status read_header(struct reader *r, struct header *h)
{
	unsigned char ident[EI_NIDENT];
	enum elf_status status;
	bool extended_shnum, extended_phnum;

	if (r->size < EI_NIDENT || read_at(r, ident, EI_NIDENT, 0) ||
	    memcmp(ident, ELFMAG, SELFMAG) || ident[EI_VERSION] != EV_CURRENT ||
	    ident[EI_DATA] != (__BYTE_ORDER == __LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB) ||
	    (ident[EI_CLASS] != ELFCLASS32 && ident[EI_CLASS] != ELFCLASS64))
		return ELF_NOT_ELF;
	r->is64 = ident[EI_CLASS] == ELFCLASS64;
	if (r->is64) {
		Elf64_Ehdr eh;

		if ((status = claim(r, 0, sizeof(eh))) || (status = read_at(r, &eh, sizeof(eh), 0)))
			return status == ELF_TOO_BIG ? status : ELF_NOT_ELF;
		*h = (struct header){ eh.e_phoff, eh.e_shoff, eh.e_phnum, eh.e_shnum,
				      eh.e_shstrndx, eh.e_phentsize, eh.e_shentsize };
	} else {
		Elf32_Ehdr eh;

		if ((status = claim(r, 0, sizeof(eh))) || (status = read_at(r, &eh, sizeof(eh), 0)))
			return status == ELF_TOO_BIG ? status : ELF_NOT_ELF;
		*h = (struct header){ eh.e_phoff, eh.e_shoff, eh.e_phnum, eh.e_shnum,
				      eh.e_shstrndx, eh.e_phentsize, eh.e_shentsize };
	}
	extended_shnum = h->shnum == 0 && h->shoff != 0;
	extended_phnum = h->phnum == PN_XNUM;
	if (extended_shnum || extended_phnum) {
		status = read_extended_counts(r, h, extended_shnum, extended_phnum);
		if (status)
			return status;
	}
	if (h->phnum > MAX_PROGRAM_HEADERS || h->shnum > MAX_SECTIONS)
		return ELF_TOO_BIG;
	if (h->phnum && h->phentsize != (r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return ELF_MALFORMED;
	if (h->shnum && h->shentsize != (r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)))
		return ELF_MALFORMED;
	return ELF_OK;
}

/* A run of notes (4-byte aligned fields, as both note alignments keep
 * them for the GNU build id): its bytes, if it is there. */
static bool build_id_in_notes(const unsigned char *p, size_t len, size_t align,
			      struct elf_symbols *e)
{
	size_t off = 0;

	while (len - off >= sizeof(Elf32_Nhdr)) {
		Elf32_Nhdr nh;
		size_t name_off, desc_off, name_len, desc_len;

		memcpy(&nh, p + off, sizeof(nh));
		name_len = (nh.n_namesz + align - 1) & ~(align - 1);
		desc_len = (nh.n_descsz + align - 1) & ~(align - 1);
		name_off = off + sizeof(nh);
		if (nh.n_namesz > len || nh.n_descsz > len || name_len > len - name_off)
			return false;
		desc_off = name_off + name_len;
		if (desc_len > len - desc_off)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof("GNU") &&
		    !memcmp(p + name_off, "GNU", sizeof("GNU"))) {
			if (!nh.n_descsz || nh.n_descsz > ELF_BUILD_ID_MAX)
				return false;
			memcpy(e->build_id, p + desc_off, nh.n_descsz);
			e->build_id_len = nh.n_descsz;
			return true;
		}
		off = desc_off + desc_len;
	}
	return false;
}

/* A note segment or section: small ones only, the rest skipped. */
static enum elf_status read_notes(struct reader *r, uint64_t off, uint64_t size, uint64_t align,
				  struct elf_symbols *e)
{
	enum elf_status status;
	void *buf;

	if (size > MAX_NOTE_BYTES || size < sizeof(Elf32_Nhdr))
		return ELF_OK;
	status = read_table(r, off, size, &buf);
	if (status == ELF_MALFORMED)
		return ELF_OK;	/* a bad note does not make the file unusable */
	if (status)
		return status;
	build_id_in_notes(buf, size, align == 8 ? 8 : 4, e);
	free(buf);
	return ELF_OK;
}

static enum elf_status read_program_headers(struct reader *r, const struct header *h,
					    struct elf_symbols *e)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	enum elf_status status;
	unsigned char *table;
	uint32_t i;

	if (!h->phnum)
		return ELF_OK;
	status = read_table(r, h->phoff, (uint64_t)h->phnum * entsize, (void **)&table);
	if (status)
		return status;
	e->segments = calloc(h->phnum, sizeof(*e->segments));
	if (!e->segments) {
		free(table);
		return ELF_NO_MEMORY;
	}
	for (i = 0; i < h->phnum && !status; i++) {
		uint64_t type, offset, filesz, vaddr, align, flags;

		if (r->is64) {
			Elf64_Phdr ph;

			memcpy(&ph, table + i * entsize, sizeof(ph));
			type = ph.p_type, offset = ph.p_offset, filesz = ph.p_filesz;
			vaddr = ph.p_vaddr, align = ph.p_align, flags = ph.p_flags;
		} else {
			Elf32_Phdr ph;

			memcpy(&ph, table + i * entsize, sizeof(ph));
			type = ph.p_type, offset = ph.p_offset, filesz = ph.p_filesz;
			vaddr = ph.p_vaddr, align = ph.p_align, flags = ph.p_flags;
		}
		if (type == PT_LOAD)
			e->segments[e->nsegments++] =
				(struct elf_segment){ offset, filesz, vaddr, flags & PF_X };
		else if (type == PT_NOTE && !e->build_id_len)
			status = read_notes(r, offset, filesz, align, e);
	}
	free(table);
	/* Kept as long as the file's entry: no room for headers that were no PT_LOAD. */
	if (!e->nsegments) {
		free(e->segments);
		e->segments = NULL;
	} else if (e->nsegments < h->phnum) {
		struct elf_segment *fit = reallocarray(e->segments, e->nsegments, sizeof(*fit));

		if (fit)
			e->segments = fit;
	}
	return status;
}

static uint8_t binding_rank(unsigned char binding)
{
	/* The exported name of an alias is the one a reader knows. */
	switch (binding) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

/* A growing pool of NUL-terminated names, referred to by offset. */
struct pool {
	char *bytes;
	size_t len, cap;
};

static bool pool_add(struct pool *p, const char *s, size_t len, bool cut, uint32_t *offset)
{
	size_t need = len + (cut ? 3 : 0) + 1;

	if (need > UINT32_MAX - p->len ||
	    array_reserve((void **)&p->bytes, &p->cap, p->len + need, 1))
		return false;
	memcpy(p->bytes + p->len, s, len);
	if (cut)
		memcpy(p->bytes + p->len + len, "...", 3);
	p->bytes[p->len + need - 1] = '\0';
	*offset = (uint32_t)p->len;
	p->len += need;
	return true;
}

struct symbol_reader {
	struct reader *r;
	const char *strings;
	uint64_t strings_size;
	struct pool names;
	size_t cap;
	struct elf_symbols *e;
};

static enum elf_status keep_symbol(struct symbol_reader *sr, uint64_t value, uint64_t size,
				   uint32_t name, unsigned char info, uint16_t shndx)
{
	unsigned char type = ELF64_ST_TYPE(info);
	struct elf_symbols *e = sr->e;
	const char *s;
	size_t len, max = sr->r->limits->max_name_len;
	struct elf_symbol *sym;

	if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF || !value)
		return ELF_OK;
	if (name >= sr->strings_size)
		return ELF_OK;
	s = sr->strings + name;
	/* The string table ends in a NUL (checked): strlen stays inside it. */
	len = strlen(s);
	/* "clock_gettime@@GLIBC_2.17" in a .symtab: the version is no part of the name. */
	len = strcspn(s, "@") < len ? strcspn(s, "@") : len;
	if (!len)
		return ELF_OK;
	if (e->nsymbols == sr->r->limits->max_symbols)
		return ELF_TOO_BIG;
	/* Never room for more than can be kept. */
	if (array_reserve_max((void **)&e->symbols, &sr->cap, e->nsymbols + 1,
			      sr->r->limits->max_symbols, sizeof(*e->symbols)))
		return ELF_NO_MEMORY;
	sym = &e->symbols[e->nsymbols];
	if (!pool_add(&sr->names, s, len > max ? max : len, len > max, &sym->name))
		return ELF_NO_MEMORY;
	sym->value = value;
	sym->size = size;
	sym->rank = binding_rank(ELF64_ST_BIND(info));
	e->nsymbols++;
	return ELF_OK;
}

/* The symbol table, read SYMBOL_CHUNK entries at a time. */
static enum elf_status read_symbol_entries(struct symbol_reader *sr, const struct section *symtab)
{
	size_t entsize = sr->r->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	uint64_t count = symtab->size / entsize, done = 0;
	enum elf_status status = ELF_OK;
	unsigned char *chunk = malloc(SYMBOL_CHUNK * entsize);

	if (!chunk)
		return ELF_NO_MEMORY;
	while (done < count && !status) {
		uint64_t n = count - done < SYMBOL_CHUNK ? count - done : SYMBOL_CHUNK;

		status = read_at(sr->r, chunk, n * entsize, symtab->offset + done * entsize);
		for (uint64_t i = 0; i < n && !status; i++) {
			if (sr->r->is64) {
				Elf64_Sym s;

				memcpy(&s, chunk + i * entsize, sizeof(s));
				status = keep_symbol(sr, s.st_value, s.st_size, s.st_name, s.st_info,
						     s.st_shndx);
			} else {
				Elf32_Sym s;

				memcpy(&s, chunk + i * entsize, sizeof(s));
				status = keep_symbol(sr, s.st_value, s.st_size, s.st_name, s.st_info,
						     s.st_shndx);
			}
		}
		done += n;
	}
	free(chunk);
	return status;
}

static size_t leading_underscores(const char *name)
{
	return strspn(name, "_");
}

static int compare_symbols(const void *a, const void *b, void *pool)
{
	const char *names = pool;
	const struct elf_symbol *x = a, *y = b;
	size_t ux, uy;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/*
	 * Aliases: one with a size (it can contain an address), then the public
	 * name (libc's nanosleep, a weak alias, before its global __nanosleep,
	 * printf before _IO_printf), then by binding, then by name.
	 */
	if (!x->size != !y->size)
		return !x->size - !y->size;
	ux = leading_underscores(names + x->name);
	uy = leading_underscores(names + y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(names + x->name, names + y->name);
}

static void drop_symbols(struct elf_symbols *e)
{
	free(e->symbols);
	free(e->names);
	e->symbols = NULL;
	e->names = NULL;
	e->nsymbols = 0;
	e->names_len = 0;
}

/* Sorted by value, one symbol per value: the alias compare_symbols puts
 * first; the array trimmed to them (elf_symbols_bytes() counts what is held). */
static void sort_symbols(struct elf_symbols *e)
{
	struct elf_symbol *fit;
	size_t i, kept = 0;

	qsort_r(e->symbols, e->nsymbols, sizeof(*e->symbols), compare_symbols, e->names);
	for (i = 0; i < e->nsymbols; i++) {
		if (kept && e->symbols[kept - 1].value == e->symbols[i].value)
			continue;
		e->symbols[kept++] = e->symbols[i];
	}
	e->nsymbols = kept;
	fit = reallocarray(e->symbols, kept, sizeof(*fit));
	if (fit)
		e->symbols = fit;
}

/* The function symbols of one table and its string table. */
static enum elf_status read_symbol_table(struct reader *r, const struct section *symtab,
					 const struct section *strtab, struct elf_symbols *e)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	struct symbol_reader sr = { .r = r, .e = e };
	enum elf_status status;
	char *strings;

	if (symtab->entsize != entsize || strtab->type != SHT_STRTAB || !strtab->size)
		return ELF_MALFORMED;
	/* The symbols are read in chunks, but each is read once: charged whole.
	 * What a table that fails has read stays charged: a thousand section
	 * headers naming one bad table cost one budget, not a thousand. */
	if ((status = claim(r, symtab->offset, symtab->size)))
		return status;
	status = read_table(r, strtab->offset, strtab->size, (void **)&strings);
	if (status)
		return status;
	if (strings[strtab->size - 1] != '\0') {
		free(strings);
		return ELF_MALFORMED;
	}
	sr.strings = strings;
	sr.strings_size = strtab->size;
	status = read_symbol_entries(&sr, symtab);
	free(strings);
	e->names = sr.names.bytes;
	e->names_len = sr.names.len;
	if (status) {
		drop_symbols(e);
		return status;
	}
	if (!e->nsymbols) {
		drop_symbols(e);
		return ELF_STRIPPED;
	}
	/* Trimmed to what it holds: the names live as long as the file's entry. */
	if (e->names_len) {
		char *names = realloc(e->names, e->names_len);

		if (names)
			e->names = names;
	}
	sort_symbols(e);
	return ELF_OK;
}

static enum elf_status read_symbols(struct reader *r, const struct header *h,
				    unsigned int flags, struct elf_symbols *e)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	enum elf_status status, result = ELF_STRIPPED;
	static const uint32_t types[] = { SHT_SYMTAB, SHT_DYNSYM };
	unsigned char *table;

	if (!h->shnum)
		return ELF_STRIPPED;
	status = read_table(r, h->shoff, (uint64_t)h->shnum * entsize, (void **)&table);
	if (status)
		return status;
	for (size_t t = 0; t < 2 && result != ELF_OK; t++) {
		if (t == 1 && (flags & ELF_SYMTAB_ONLY))
			break;
		for (uint32_t i = 0; i < h->shnum; i++) {
			struct section s, strtab;

			read_section_header(r, table, i, &s);
			if (s.type == SHT_NOTE && !e->build_id_len && t == 0) {
				status = read_notes(r, s.offset, s.size, 4, e);
				if (status == ELF_NO_MEMORY) {
					result = status;
					goto out;
				}
				continue;
			}
			if (s.type != types[t])
				continue;
			if (s.link >= h->shnum) {
				result = ELF_MALFORMED;
				continue;
			}
			read_section_header(r, table, s.link, &strtab);
			status = read_symbol_table(r, &s, &strtab, e);
			e->from_symtab = status == ELF_OK && s.type == SHT_SYMTAB;
			/* One table only: the first of its type that holds symbols. */
			if (status == ELF_NO_MEMORY || status == ELF_OK) {
				result = status;
				goto out;
			}
			if (status != ELF_STRIPPED || result == ELF_STRIPPED)
				result = status;
		}
	}
out:
	free(table);
	return result;
}

/* Without a PT_NOTE build id (no program headers): the section notes. */
static enum elf_status read_section_notes(struct reader *r, const struct header *h,
					  struct elf_symbols *e)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	enum elf_status status;
	unsigned char *table;

	if (!h->shnum)
		return ELF_OK;
	status = read_table(r, h->shoff, (uint64_t)h->shnum * entsize, (void **)&table);
	if (status)
		return status == ELF_NO_MEMORY ? status : ELF_OK;
	for (uint32_t i = 0; i < h->shnum && !e->build_id_len && !status; i++) {
		struct section s;

		read_section_header(r, table, i, &s);
		if (s.type == SHT_NOTE)
			status = read_notes(r, s.offset, s.size, 4, e);
	}
	free(table);
	return status;
}

enum elf_status elf_symbols_read(int fd, uint64_t file_size, const struct elf_limits *limits,
				 unsigned int flags, struct elf_symbols **out)
{
	struct reader r = { .fd = fd, .size = file_size, .limits = limits };
	struct elf_symbols *e = calloc(1, sizeof(*e));
	enum elf_status status;
	struct header h;

	*out = e;
	if (!e)
		return ELF_NO_MEMORY;
	if (!limits) {
		r.limits = limits = &ELF_LIMITS;
	}
	r.budget = limits->max_read_bytes;
	status = read_header(&r, &h);
	if (status)
		return status;
	status = read_program_headers(&r, &h, e);
	if (status == ELF_NO_MEMORY)
		return status;
	if (flags & ELF_NO_SYMBOLS) {
		if (!e->build_id_len && read_section_notes(&r, &h, e) == ELF_NO_MEMORY)
			return ELF_NO_MEMORY;
		return status;
	}
	if (status)
		return status;
	return read_symbols(&r, &h, flags, e);
}

void elf_symbols_free(struct elf_symbols *e)
{
	if (!e)
		return;
	free(e->segments);
	drop_symbols(e);
	free(e);
}

const unsigned char *elf_build_id(const struct elf_symbols *e, size_t *len)
{
	*len = e && e->build_id_len ? e->build_id_len : 0;
	return *len ? e->build_id : NULL;
}

bool elf_has_segments(const struct elf_symbols *e)
{
	return e && e->nsegments;
}

bool elf_has_symbols(const struct elf_symbols *e)
{
	return e && e->nsymbols;
}

bool elf_has_all_symbols(const struct elf_symbols *e)
{
	return elf_has_symbols(e) && e->from_symtab;
}

void elf_take_symbols(struct elf_symbols *to, struct elf_symbols *from)
{
	if (!to || !from || to == from)
		return;
	drop_symbols(to);
	to->symbols = from->symbols;
	to->nsymbols = from->nsymbols;
	to->names = from->names;
	to->names_len = from->names_len;
	to->from_symtab = from->from_symtab;
	from->from_symtab = false;
	from->symbols = NULL;
	from->names = NULL;
	from->nsymbols = 0;
	from->names_len = 0;
}

size_t elf_symbols_bytes(const struct elf_symbols *e)
{
	if (!e)
		return 0;
	return sizeof(*e) + e->nsegments * sizeof(*e->segments) +
	       e->nsymbols * sizeof(*e->symbols) + e->names_len;
}

/* The segment's virtual address of a file offset: symbol values are virtual addresses. */
static bool offset_to_vaddr(const struct elf_symbols *e, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < e->nsegments; i++) {
		const struct elf_segment *seg = &e->segments[i];

		if (off >= seg->offset && off - seg->offset < seg->filesz) {
			*vaddr = off - seg->offset + seg->vaddr;
			return true;
		}
	}
	return false;
}

bool elf_offset_vaddr(const struct elf_symbols *e, uint64_t off, uint64_t *vaddr, bool *exec)
{
	if (!e)
		return false;
	for (size_t i = 0; i < e->nsegments; i++) {
		const struct elf_segment *seg = &e->segments[i];

		if (off >= seg->offset && off - seg->offset < seg->filesz) {
			*vaddr = off - seg->offset + seg->vaddr;
			*exec = seg->exec;
			return true;
		}
	}
	return false;
}

static int compare_vaddr_to_symbol(const void *key, const void *element)
{
	uint64_t vaddr = *(const uint64_t *)key;
	const struct elf_symbol *s = element;

	return vaddr < s->value ? -1 : vaddr > s->value;
}

/*
 * The symbol holding vaddr: the last one at or below it if its size covers
 * vaddr; a symbol of size 0 (hand-written assembly) holds everything up to
 * the next one.  A few symbols back are tried too, for a small function
 * nested in a larger one's range.
 */
const char *elf_symbol_at(const struct elf_symbols *e, uint64_t off, uint64_t *into)
{
	size_t lo, i;
	uint64_t vaddr;

	if (!e || !e->nsymbols || !offset_to_vaddr(e, off, &vaddr))
		return NULL;
	lo = sorted_find_after(&vaddr, e->symbols, e->nsymbols, sizeof(*e->symbols),
			       compare_vaddr_to_symbol);
	if (!lo--)
		return NULL;	/* below the first symbol */
	for (i = 0; i < 4 && i <= lo; i++) {
		const struct elf_symbol *s = &e->symbols[lo - i];

		if ((!s->size && i == 0) || (s->size && vaddr - s->value < s->size)) {
			*into = vaddr - s->value;
			return e->names + s->name;
		}
	}
	return NULL;
}
