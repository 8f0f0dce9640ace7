// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded ELF symbol reader (elfsyms.h).
 *
 * Every table is located from the headers and checked before it is read
 * (elfread.h: inside the file, within the budget): its entries must have
 * the size this ELF class gives them, and what is read from one file
 * (headers, notes, one symbol table and its string table) must fit the
 * limit.  A symbol table is read in small chunks and only function symbols
 * are kept, their names cut to the limit, so a thousand symbols sharing
 * one huge name cost a thousand short copies.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "elfread.h"
#include "elfsyms.h"
#include "strpool.h"
#include "sorted.h"

const struct elf_limits ELF_LIMITS = {
	.max_read_bytes = 32 << 20,
	.max_symbols = 500000,
	.max_name_len = 240,
};

#define MAX_NOTE_BYTES (64 << 10)	/* a build id note is 36 bytes */
#define SYMBOL_CHUNK 4096		/* symbols read per pread() */

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
static enum elf_status read_notes(struct elf_reader *r, uint64_t off, uint64_t size, uint64_t align,
				  struct elf_symbols *e)
{
	enum elf_status status;
	void *buf;

	if (size > MAX_NOTE_BYTES || size < sizeof(Elf32_Nhdr))
		return ELF_OK;
	status = elf_read_range(r, off, size, &buf);
	if (status == ELF_MALFORMED)
		return ELF_OK;	/* a bad note does not make the file unusable */
	if (status)
		return status;
	build_id_in_notes(buf, size, align == 8 ? 8 : 4, e);
	free(buf);
	return ELF_OK;
}

static enum elf_status read_program_headers(struct elf_reader *r, struct elf_symbols *e)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	enum elf_status status;
	unsigned char *table;
	uint32_t i;

	if (!r->phnum)
		return ELF_OK;
	status = elf_read_range(r, r->phoff, (uint64_t)r->phnum * entsize, (void **)&table);
	if (status)
		return status;
	e->segments = calloc(r->phnum, sizeof(*e->segments));
	if (!e->segments) {
		free(table);
		return ELF_NO_MEMORY;
	}
	for (i = 0; i < r->phnum && !status; i++) {
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
	} else if (e->nsegments < r->phnum) {
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

struct symbol_reader {
	struct elf_reader *r;
	const struct elf_limits *limits;
	const char *strings;
	uint64_t strings_size;
	struct strpool names;
	size_t cap;
	struct elf_symbols *e;
};

static enum elf_status keep_symbol(struct symbol_reader *sr, uint64_t value, uint64_t size,
				   uint32_t name, unsigned char info, uint16_t shndx)
{
	unsigned char type = ELF64_ST_TYPE(info);
	struct elf_symbols *e = sr->e;
	const char *s;
	size_t len, max = sr->limits->max_name_len;
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
	if (e->nsymbols == sr->limits->max_symbols)
		return ELF_TOO_BIG;
	/* Never room for more than can be kept. */
	if (array_reserve_max((void **)&e->symbols, &sr->cap, e->nsymbols + 1,
			      sr->limits->max_symbols, sizeof(*e->symbols)))
		return ELF_NO_MEMORY;
	sym = &e->symbols[e->nsymbols];
	if (!strpool_add_cut(&sr->names, s, len, max, &sym->name))
		return ELF_NO_MEMORY;
	sym->value = value;
	sym->size = size;
	sym->rank = binding_rank(ELF64_ST_BIND(info));
	e->nsymbols++;
	return ELF_OK;
}

/* The symbol table, read SYMBOL_CHUNK entries at a time. */
static enum elf_status read_symbol_entries(struct symbol_reader *sr,
					   const struct elf_section *symtab)
{
	size_t entsize = sr->r->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	uint64_t count = symtab->size / entsize, done = 0;
	enum elf_status status = ELF_OK;
	unsigned char *chunk = malloc(SYMBOL_CHUNK * entsize);

	if (!chunk)
		return ELF_NO_MEMORY;
	while (done < count && !status) {
		uint64_t n = count - done < SYMBOL_CHUNK ? count - done : SYMBOL_CHUNK;

		status = elf_read_at(sr->r, chunk, n * entsize, symtab->offset + done * entsize);
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
static enum elf_status read_symbol_table(struct elf_reader *r, const struct elf_limits *limits,
					 const struct elf_section *symtab,
					 const struct elf_section *strtab, struct elf_symbols *e)
{
	size_t entsize = r->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	struct symbol_reader sr = { .r = r, .limits = limits, .e = e };
	enum elf_status status;
	char *strings;

	if (symtab->entsize != entsize || strtab->type != SHT_STRTAB || !strtab->size)
		return ELF_MALFORMED;
	/* The symbols are read in chunks, but each is read once: charged whole. */
	if ((status = elf_claim(r, symtab->offset, symtab->size)))
		return status;
	status = elf_read_range(r, strtab->offset, strtab->size, (void **)&strings);
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
	if (status || !e->nsymbols) {
		strpool_free(&sr.names);
		drop_symbols(e);
		return status ? status : ELF_STRIPPED;
	}
	e->names_len = sr.names.len;
	e->names = strpool_take(&sr.names);	/* as long as the file's entry */
	sort_symbols(e);
	return ELF_OK;
}

static enum elf_status read_symbols(struct elf_reader *r, const struct elf_limits *limits,
				    unsigned int flags, struct elf_symbols *e)
{
	enum elf_status status, result = ELF_STRIPPED;
	static const uint32_t types[] = { SHT_SYMTAB, SHT_DYNSYM };
	struct elf_sections table;

	if (!r->shnum)
		return ELF_STRIPPED;
	status = elf_read_sections(r, &table);
	if (status)
		return status;
	for (size_t t = 0; t < 2 && result != ELF_OK; t++) {
		if (t == 1 && (flags & ELF_SYMTAB_ONLY))
			break;
		for (uint32_t i = 0; i < table.count; i++) {
			struct elf_section s, strtab;

			elf_section_at(&table, i, &s);
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
			if (s.link >= table.count) {
				result = ELF_MALFORMED;
				continue;
			}
			elf_section_at(&table, s.link, &strtab);
			status = read_symbol_table(r, limits, &s, &strtab, e);
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
	elf_sections_free(&table);
	return result;
}

/* Without a PT_NOTE build id (no program headers): the section notes. */
static enum elf_status read_section_notes(struct elf_reader *r, struct elf_symbols *e)
{
	enum elf_status status;
	struct elf_sections table;

	if (!r->shnum)
		return ELF_OK;
	status = elf_read_sections(r, &table);
	if (status)
		return status == ELF_NO_MEMORY ? status : ELF_OK;
	for (uint32_t i = 0; i < table.count && !e->build_id_len && !status; i++) {
		struct elf_section s;

		elf_section_at(&table, i, &s);
		if (s.type == SHT_NOTE)
			status = read_notes(r, s.offset, s.size, 4, e);
	}
	elf_sections_free(&table);
	return status;
}

enum elf_status elf_symbols_read(int fd, uint64_t file_size, const struct elf_limits *limits,
				 unsigned int flags, struct elf_symbols **out)
{
	struct elf_symbols *e = calloc(1, sizeof(*e));
	enum elf_status status;
	struct elf_reader r;

	*out = e;
	if (!e)
		return ELF_NO_MEMORY;
	if (!limits)
		limits = &ELF_LIMITS;
	status = elf_reader_open(&r, fd, file_size, limits->max_read_bytes);
	if (status)
		return status;
	status = read_program_headers(&r, e);
	if (status == ELF_NO_MEMORY)
		return status;
	if (flags & ELF_NO_SYMBOLS) {
		if (!e->build_id_len && read_section_notes(&r, e) == ELF_NO_MEMORY)
			return ELF_NO_MEMORY;
		return status;
	}
	if (status)
		return status;
	return read_symbols(&r, limits, flags, e);
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
