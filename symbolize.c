// SPDX-License-Identifier: GPL-2.0
/*
 * Names for stack frames (--stacks).
 *
 * Kernel: /proc/kallsyms is read once into one array sorted by address, the
 * names in one string pool; a frame is a binary search.
 *
 * User: a frame address means nothing once its process is gone, so at the
 * first sight of a process its executable mappings are recorded, and the ELF
 * file behind each mapping is read then and there (symbols and PT_LOAD
 * segments), into a cache shared by every process that maps the same file.
 * The cache is keyed by build-id, so that the same library seen through two
 * containers' roots is read once, and before that by the file's identity
 * (device, inode, mtime, size) so that the common case, a file already read,
 * costs one open and one fstat instead of an ELF parse.
 *
 * Memory is bounded: at most USYMS_MAX_FILES ELF files and USYMS_MAX_SYMBOL_BYTES
 * of symbol tables are ever cached, nothing is evicted (a long run sees the
 * same few hundred binaries), and what does not fit prints as unknown; at
 * most USYMS_MAX_PROCESSES processes of USYMS_MAX_MAPPINGS executable mappings
 * each are recorded until usyms_forget_pid().
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "symbolize.h"

/* ---- a growing pool of NUL-terminated strings, referred to by offset ---- */

struct pool {
	char *bytes;
	size_t len, cap;
};

/* Offsets and not pointers: the pool moves as it grows. */
static bool pool_add(struct pool *p, const char *s, size_t len, uint32_t *offset)
{
	if (len >= UINT32_MAX - p->len)
		return false;
	if (p->len + len + 1 > p->cap) {
		size_t cap = p->cap ? p->cap : 4096;
		char *bytes;

		while (cap < p->len + len + 1)
			cap *= 2;
		bytes = realloc(p->bytes, cap);
		if (!bytes)
			return false;
		p->bytes = bytes;
		p->cap = cap;
	}
	memcpy(p->bytes + p->len, s, len);
	p->bytes[p->len + len] = '\0';
	*offset = (uint32_t)p->len;
	p->len += len + 1;
	return true;
}

/* The pool trimmed to what it holds: the names live as long as their table. */
static char *pool_finish(struct pool *p)
{
	char *bytes = p->len ? realloc(p->bytes, p->len) : NULL;

	if (!bytes)
		return p->bytes;
	return bytes;
}

/* Strict: 1 to 16 hex digits, no sign, no "0x", unlike strtoull(). */
static bool parse_hex(const char **cursor, uint64_t *value)
{
	const char *s = *cursor;
	uint64_t v = 0;
	int digits = 0;

	for (;; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (digits == 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return false;
	*value = v;
	*cursor = s;
	return true;
}

static bool parse_dec(const char **cursor, uint64_t *value)
{
	const char *s = *cursor;
	uint64_t v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*value = v;
	*cursor = s;
	return true;
}

static bool skip_char(const char **cursor, char ch)
{
	if (**cursor != ch)
		return false;
	(*cursor)++;
	return true;
}

static void skip_blanks(const char **cursor)
{
	while (**cursor == ' ' || **cursor == '\t')
		(*cursor)++;
}

static void chomp(char *line, ssize_t *len)
{
	while (*len > 0 && (line[*len - 1] == '\n' || line[*len - 1] == '\r'))
		line[--*len] = '\0';
}

/* Only regular files: a FIFO planted in a fake /proc must not hang the tool. */
static int open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- kernel ---- */

struct ksyms {
	struct ksym *syms;
	size_t count;
	char *names;		/* every name and module name, NUL-separated */
};

/* A symbol while the file is read: offsets into the pool, and the line it came from. */
struct ksym_raw {
	uint64_t addr;
	uint32_t name, module;
	uint32_t line;
};

struct kallsyms_line {
	uint64_t addr;
	char type;
	const char *name, *module;	/* module "" for the kernel itself */
	size_t name_len, module_len;
};

/* "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]"; anything else is skipped. */
static bool parse_kallsyms_line(const char *s, struct kallsyms_line *out)
{
	if (!parse_hex(&s, &out->addr) || !skip_char(&s, ' ') || !*s)
		return false;
	out->type = *s++;
	if (!skip_char(&s, ' '))
		return false;
	out->name = s;
	out->name_len = strcspn(s, " \t");
	if (!out->name_len)
		return false;
	s += out->name_len;
	skip_blanks(&s);
	out->module = "";
	out->module_len = 0;
	if (*s == '[') {
		const char *end = strchr(s, ']');

		if (!end || end == s + 1)
			return false;
		out->module = s + 1;
		out->module_len = end - s - 1;
		s = end + 1;
		skip_blanks(&s);
	}
	return *s == '\0';
}

static bool is_function_type(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

static int compare_ksym_raw(const void *a, const void *b)
{
	const struct ksym_raw *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* Aliases at one address: the first listed wins, whatever qsort does. */
	return x->line < y->line ? -1 : x->line > y->line;
}

struct kallsyms_reader {
	struct pool pool;
	struct ksym_raw *raw;
	size_t count, cap;
	size_t zero_addresses;	/* function lines hidden by kptr_restrict */
	uint32_t last_module;	/* module lines come in runs: one copy of the name a run */
};

static bool same_module(const struct kallsyms_reader *r, const struct kallsyms_line *l)
{
	const char *last = r->pool.bytes + r->last_module;

	return strlen(last) == l->module_len && !memcmp(last, l->module, l->module_len);
}

static bool add_kallsyms_symbol(struct kallsyms_reader *r, const struct kallsyms_line *l)
{
	struct ksym_raw *sym;

	if (r->count == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		struct ksym_raw *raw = reallocarray(r->raw, cap, sizeof(*raw));

		if (!raw)
			return false;
		r->raw = raw;
		r->cap = cap;
	}
	sym = &r->raw[r->count];
	sym->addr = l->addr;
	sym->line = (uint32_t)r->count;
	if (!pool_add(&r->pool, l->name, l->name_len, &sym->name))
		return false;
	if (!same_module(r, l) && !pool_add(&r->pool, l->module, l->module_len, &r->last_module))
		return false;
	sym->module = r->last_module;
	r->count++;
	return true;
}

static int read_kallsyms(FILE *f, struct kallsyms_reader *r)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err = 0;

	/* Offset 0 is "", the kernel's module name, before any line is read. */
	if (!pool_add(&r->pool, "", 0, &r->last_module))
		return -ENOMEM;
	while ((len = getline(&line, &cap, f)) >= 0) {
		struct kallsyms_line l;

		chomp(line, &len);
		if (!parse_kallsyms_line(line, &l) || !is_function_type(l.type))
			continue;
		if (!l.addr) {
			r->zero_addresses++;
			continue;
		}
		if (r->count >= UINT32_MAX || !add_kallsyms_symbol(r, &l)) {
			err = -ENOMEM;
			break;
		}
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	return err;
}

static struct ksyms *ksyms_from_reader(struct kallsyms_reader *r)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));
	size_t i;

	if (!ks)
		return NULL;
	ks->syms = calloc(r->count, sizeof(*ks->syms));
	if (!ks->syms) {
		free(ks);
		return NULL;
	}
	qsort(r->raw, r->count, sizeof(*r->raw), compare_ksym_raw);
	ks->names = pool_finish(&r->pool);
	r->pool.bytes = NULL;
	for (i = 0; i < r->count; i++) {
		struct ksym *sym = &ks->syms[ks->count];

		/* One name an address (the first listed): ksyms_find need not pick among aliases. */
		if (ks->count && sym[-1].addr == r->raw[i].addr)
			continue;
		sym->addr = r->raw[i].addr;
		sym->name = ks->names + r->raw[i].name;
		sym->module = ks->names + r->raw[i].module;
		ks->count++;
	}
	return ks;
}

struct ksyms *ksyms_load(const char *path)
{
	struct kallsyms_reader r = { 0 };
	struct ksyms *ks = NULL;
	FILE *f;
	int err;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	f = fopen(path, "re");
	if (!f)
		return NULL;
	err = read_kallsyms(f, &r);
	fclose(f);
	if (!err && !r.count)
		/* All zero: kptr_restrict hides the addresses from this user. */
		err = r.zero_addresses ? -EPERM : -ENODATA;
	if (!err) {
		ks = ksyms_from_reader(&r);
		if (!ks)
			err = -ENOMEM;
	}
	free(r.raw);
	free(r.pool.bytes);
	if (err)
		errno = -err;
	return ks;
}

void ksyms_free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->names);
	free(ks);
}

const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr)
{
	size_t lo = 0, hi;

	if (!ks || !ks->count || addr < ks->syms[0].addr)
		return NULL;
	/* Invariant: syms[lo].addr <= addr < syms[hi].addr (hi == count: no bound). */
	hi = ks->count;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	return &ks->syms[lo];
}

char *ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t size)
{
	const struct ksym *sym = ksyms_find(ks, addr);

	if (!buf || !size)
		return buf;
	if (!sym)
		snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
	else if (*sym->module)
		snprintf(buf, size, "%s+0x%" PRIx64 " [%s]", sym->name, addr - sym->addr,
			 sym->module);
	else
		snprintf(buf, size, "%s+0x%" PRIx64, sym->name, addr - sym->addr);
	return buf;
}

/* ---- user: ELF files ---- */

#define USYMS_MAX_FILES 256
#define USYMS_MAX_SYMBOL_BYTES ((size_t)256 << 20)
#define USYMS_MAX_PROCESSES 65536
#define USYMS_MAX_MAPPINGS 4096
#define USYMS_PID_BUCKETS 1024
/* GNU build-ids are 20 bytes (SHA-1) or 16 (MD5); longer ones are not trusted as keys. */
#define BUILD_ID_MAX 64

struct elf_symbol {
	uint64_t value, size;
	uint32_t name;		/* offset in names */
	uint8_t rank;		/* among aliases at one value, lowest is shown */
};

struct elf_segment {
	uint64_t offset, filesz, vaddr;
};

/*
 * One ELF file, read once.  A file that is not an ELF, is truncated or has
 * no symbols is cached too, with no segments or no symbols, so that every
 * process mapping it does not parse it again; its frames print as unknown.
 */
struct elf_file {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	off_t size;
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	struct elf_segment *segments;
	size_t nsegments;
	struct elf_symbol *symbols;
	size_t nsymbols;
	char *names;
	size_t names_len;
};

/* What the file's symbols take, against USYMS_MAX_SYMBOL_BYTES. */
static size_t symbol_bytes(const struct elf_file *f)
{
	return f->nsymbols * sizeof(*f->symbols) + f->names_len;
}

static void elf_file_free(struct elf_file *f)
{
	if (!f)
		return;
	free(f->segments);
	free(f->symbols);
	free(f->names);
	free(f);
}

static bool same_identity(const struct elf_file *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec && f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* A run of ELF notes: the GNU build-id's bytes, if it is there. */
static bool build_id_in_notes(Elf_Data *data, struct elf_file *f)
{
	size_t offset = 0, name_off, desc_off;
	GElf_Nhdr nhdr;

	while (offset < data->d_size &&
	       (offset = gelf_getnote(data, offset, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type != NT_GNU_BUILD_ID || nhdr.n_namesz != sizeof("GNU") ||
		    memcmp((const char *)data->d_buf + name_off, "GNU", sizeof("GNU")))
			continue;
		if (!nhdr.n_descsz || nhdr.n_descsz > BUILD_ID_MAX)
			return false;
		memcpy(f->build_id, (const char *)data->d_buf + desc_off, nhdr.n_descsz);
		f->build_id_len = nhdr.n_descsz;
		return true;
	}
	return false;
}

/*
 * From the PT_NOTE segments, which the loader maps and strip keeps, else
 * from SHT_NOTE sections (a file without program headers is no program,
 * but costs nothing to accept).
 */
static void read_build_id(Elf *elf, struct elf_file *f)
{
	Elf_Scn *scn = NULL;
	size_t i, nphdrs;

	if (elf_getphdrnum(elf, &nphdrs) == 0) {
		for (i = 0; i < nphdrs; i++) {
			GElf_Phdr phdr;
			Elf_Data *data;

			if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_NOTE)
				continue;
			/* Notes aligned to 8 (GNU properties) have another padding rule. */
			data = elf_getdata_rawchunk(elf, (int64_t)phdr.p_offset, phdr.p_filesz,
						    phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
			if (data && build_id_in_notes(data, f))
				return;
		}
	}
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		if (data && build_id_in_notes(data, f))
			return;
	}
}

static bool read_segments(Elf *elf, struct elf_file *f)
{
	size_t i, nphdrs;

	if (elf_getphdrnum(elf, &nphdrs) || !nphdrs || nphdrs > 65535)
		return false;
	f->segments = calloc(nphdrs, sizeof(*f->segments));
	if (!f->segments)
		return false;
	for (i = 0; i < nphdrs; i++) {
		GElf_Phdr phdr;

		if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_LOAD)
			continue;
		f->segments[f->nsegments++] = (struct elf_segment){
			.offset = phdr.p_offset, .filesz = phdr.p_filesz, .vaddr = phdr.p_vaddr,
		};
	}
	return f->nsegments > 0;
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

static bool is_function_symbol(const GElf_Sym *sym)
{
	unsigned char type = GELF_ST_TYPE(sym->st_info);

	return (type == STT_FUNC || type == STT_GNU_IFUNC) && sym->st_shndx != SHN_UNDEF &&
	       sym->st_value != 0;
}

static bool add_elf_symbol(struct elf_file *f, size_t *cap, struct pool *names,
			   const GElf_Sym *sym, const char *name)
{
	struct elf_symbol *s;

	if (f->nsymbols == *cap) {
		size_t new_cap = *cap ? *cap * 2 : 256;
		struct elf_symbol *symbols = reallocarray(f->symbols, new_cap, sizeof(*symbols));

		if (!symbols)
			return false;
		f->symbols = symbols;
		*cap = new_cap;
	}
	s = &f->symbols[f->nsymbols];
	/* "clock_gettime@@GLIBC_2.17" in a .symtab: the version is no part of the name. */
	if (!pool_add(names, name, strcspn(name, "@"), &s->name))
		return false;
	s->value = sym->st_value;
	s->size = sym->st_size;
	s->rank = binding_rank(GELF_ST_BIND(sym->st_info));
	f->nsymbols++;
	return true;
}

/* The function symbols of the first section of type (SHT_SYMTAB or SHT_DYNSYM) holding any. */
static bool read_symbol_section(Elf *elf, Elf64_Word type, struct elf_file *f,
				struct pool *names)
{
	Elf_Scn *scn = NULL;
	size_t cap = 0;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i, count;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != type || !shdr.sh_entsize)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		count = shdr.sh_size / shdr.sh_entsize;
		for (i = 0; i < count; i++) {
			GElf_Sym sym;
			const char *name;

			/* gelf_getsym checks i against the data actually read. */
			if (!gelf_getsym(data, (int)i, &sym))
				break;
			if (!is_function_symbol(&sym))
				continue;
			name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (!name || !*name || *name == '@')
				continue;
			if (!add_elf_symbol(f, &cap, names, &sym, name))
				return false;
		}
		if (f->nsymbols)
			return true;
	}
	return false;
}

static size_t leading_underscores(const char *name)
{
	return strspn(name, "_");
}

static int compare_elf_symbols(const void *a, const void *b, void *pool)
{
	const char *names = pool;
	const struct elf_symbol *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/*
	 * Aliases: one with a size (it can contain an address), then the public
	 * name (libc's nanosleep, a weak alias, before its global __nanosleep,
	 * printf before _IO_printf), then by binding, then by name.
	 */
	if (!x->size != !y->size)
		return !x->size - !y->size;
	if (leading_underscores(names + x->name) != leading_underscores(names + y->name))
		return leading_underscores(names + x->name) < leading_underscores(names + y->name) ?
		       -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp(names + x->name, names + y->name);
}

/* Sorted by value, one symbol per value: the alias compare_elf_symbols puts first. */
static void sort_symbols(struct elf_file *f, const char *names)
{
	size_t i, kept = 0;

	qsort_r(f->symbols, f->nsymbols, sizeof(*f->symbols), compare_elf_symbols,
		(void *)names);
	for (i = 0; i < f->nsymbols; i++) {
		if (kept && f->symbols[kept - 1].value == f->symbols[i].value)
			continue;
		f->symbols[kept++] = f->symbols[i];
	}
	f->nsymbols = kept;
}

static void drop_symbols(struct elf_file *f)
{
	free(f->symbols);
	free(f->names);
	f->symbols = NULL;
	f->names = NULL;
	f->nsymbols = 0;
	f->names_len = 0;
}

/*
 * .symtab, else (unless symtab_only) .dynsym: a stripped binary keeps only
 * its exported functions.  True when they came from .symtab.  Symbols over
 * the budget are dropped: the file's frames print as unknown.
 */
static bool read_symbols(Elf *elf, struct elf_file *f, size_t budget, bool symtab_only)
{
	struct pool names = { 0 };
	bool from_symtab = read_symbol_section(elf, SHT_SYMTAB, f, &names);

	if (!from_symtab) {
		f->nsymbols = 0;
		names.len = 0;
		if (!symtab_only)
			read_symbol_section(elf, SHT_DYNSYM, f, &names);
	}
	f->names = pool_finish(&names);
	f->names_len = names.len;
	if (!f->nsymbols || symbol_bytes(f) > budget) {
		drop_symbols(f);
		return false;
	}
	sort_symbols(f, f->names);
	return from_symtab;
}

/*
 * The symbol holding vaddr: the last one at or below it if its size covers
 * vaddr; a symbol of size 0 (hand-written assembly) holds everything up to
 * the next one.  A few symbols back are tried too, for a small function
 * nested in a larger one's range.
 */
static const struct elf_symbol *find_elf_symbol(const struct elf_file *f, uint64_t vaddr)
{
	size_t lo = 0, hi = f->nsymbols, i;

	if (!f->nsymbols || vaddr < f->symbols[0].value)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->symbols[mid].value <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	if (!f->symbols[lo].size)
		return &f->symbols[lo];
	for (i = 0; i < 4 && i <= lo; i++) {
		const struct elf_symbol *s = &f->symbols[lo - i];

		if (s->size && vaddr - s->value < s->size)
			return s;
	}
	return NULL;
}

/* The segment's virtual address of a file offset: symbol values are virtual addresses. */
static bool file_offset_to_vaddr(const struct elf_file *f, uint64_t offset, uint64_t *vaddr)
{
	size_t i;

	for (i = 0; i < f->nsegments; i++) {
		const struct elf_segment *seg = &f->segments[i];

		if (offset >= seg->offset && offset - seg->offset < seg->filesz) {
			*vaddr = offset - seg->offset + seg->vaddr;
			return true;
		}
	}
	return false;
}

/* ---- user: processes ---- */

enum mapping_kind {
	MAPPING_FILE,
	MAPPING_SPECIAL,	/* [vdso], [vsyscall]: named, no file to read */
	MAPPING_ANONYMOUS,	/* JIT code and the like */
};

struct mapping {
	uint64_t start, end, offset;
	enum mapping_kind kind;
	const struct elf_file *file;	/* NULL when it could not be read or cached */
	char *module;			/* base name of the file, or "[vdso]"; NULL if anonymous */
};

struct process {
	struct process *next;		/* in its hash bucket */
	uint32_t tgid;
	size_t nmappings;
	struct mapping *mappings;	/* sorted by start */
};

struct usyms {
	char *proc_root;
	char *debug_dir;	/* NULL: no separate debug files */
	struct process *buckets[USYMS_PID_BUCKETS];
	size_t nprocesses;
	struct elf_file *files[USYMS_MAX_FILES];
	size_t nfiles;
	size_t symbol_bytes;
};

struct usyms *usyms_new(const char *proc_root)
{
	struct usyms *us;

	if (!proc_root) {
		errno = EINVAL;
		return NULL;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		errno = ENOSYS;
		return NULL;
	}
	us = calloc(1, sizeof(*us));
	if (!us)
		return NULL;
	us->proc_root = strdup(proc_root);
	us->debug_dir = strdup(USYMS_DEBUG_DIR);
	if (!us->proc_root || !us->debug_dir) {
		usyms_free(us);
		errno = ENOMEM;
		return NULL;
	}
	return us;
}

int usyms_set_debug_dir(struct usyms *us, const char *dir)
{
	char *copy = NULL;

	if (!us)
		return -EINVAL;
	if (dir && !(copy = strdup(dir)))
		return -ENOMEM;
	free(us->debug_dir);
	us->debug_dir = copy;
	return 0;
}

static void process_free(struct process *p)
{
	size_t i;

	for (i = 0; i < p->nmappings; i++)
		free(p->mappings[i].module);
	free(p->mappings);
	free(p);
}

void usyms_free(struct usyms *us)
{
	size_t i;

	if (!us)
		return;
	for (i = 0; i < USYMS_PID_BUCKETS; i++) {
		while (us->buckets[i]) {
			struct process *p = us->buckets[i];

			us->buckets[i] = p->next;
			process_free(p);
		}
	}
	for (i = 0; i < us->nfiles; i++)
		elf_file_free(us->files[i]);
	free(us->proc_root);
	free(us->debug_dir);
	free(us);
}

static struct process **process_slot(struct usyms *us, uint32_t tgid)
{
	struct process **slot = &us->buckets[tgid % USYMS_PID_BUCKETS];

	while (*slot && (*slot)->tgid != tgid)
		slot = &(*slot)->next;
	return slot;
}

void usyms_forget_pid(struct usyms *us, uint32_t tgid)
{
	struct process **slot, *p;

	if (!us)
		return;
	slot = process_slot(us, tgid);
	p = *slot;
	if (!p)
		return;
	*slot = p->next;
	us->nprocesses--;
	process_free(p);
}

static struct elf_file *find_file_by_identity(const struct usyms *us, const struct stat *st)
{
	size_t i;

	for (i = 0; i < us->nfiles; i++) {
		if (same_identity(us->files[i], st))
			return us->files[i];
	}
	return NULL;
}

static struct elf_file *find_file_by_build_id(const struct usyms *us,
					      const struct elf_file *probe)
{
	size_t i;

	if (!probe->build_id_len)
		return NULL;
	for (i = 0; i < us->nfiles; i++) {
		const struct elf_file *f = us->files[i];

		if (f->build_id_len == probe->build_id_len &&
		    !memcmp(f->build_id, probe->build_id, f->build_id_len))
			return us->files[i];
	}
	return NULL;
}

/* True when the ELF file open on fd has the build-id f has. */
static bool has_build_id_of(Elf *elf, const struct elf_file *f)
{
	struct elf_file other = { 0 };

	read_build_id(elf, &other);
	return other.build_id_len == f->build_id_len &&
	       !memcmp(other.build_id, f->build_id, f->build_id_len);
}

/*
 * A stripped binary's .symtab from its separate debug file, found by
 * build-id as gdb and perf do: DEBUG_DIR/.build-id/ab/cdef....debug.  The
 * debug file keeps the binary's program headers, so the binary's segments
 * and the debug file's symbol values agree.
 */
static void read_debug_symbols(const struct usyms *us, struct elf_file *f, size_t budget)
{
	char path[PATH_MAX], hex[2 * BUILD_ID_MAX + 1];
	struct elf_file debug = { 0 };
	Elf *elf;
	size_t i;
	int fd;

	if (!us->debug_dir || !f->build_id_len)
		return;
	for (i = 0; i < f->build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", f->build_id[i]);
	if (!build_path(path, "%s/.build-id/%.2s/%s.debug", us->debug_dir, hex, hex + 2))
		return;
	fd = open_regular(path);
	if (fd < 0)
		return;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && has_build_id_of(elf, f) &&
	    read_symbols(elf, &debug, budget, true)) {
		drop_symbols(f);
		f->symbols = debug.symbols;
		f->nsymbols = debug.nsymbols;
		f->names = debug.names;
		f->names_len = debug.names_len;
	}
	elf_end(elf);
	close(fd);
}

/* Reads the ELF file open on fd into a new entry, or NULL when out of memory. */
static struct elf_file *read_elf_file(int fd, const struct stat *st, size_t budget,
				      struct usyms *us, bool *known)
{
	struct elf_file *f = calloc(1, sizeof(*f)), *same;
	Elf *elf;

	*known = false;
	if (!f)
		return NULL;
	f->dev = st->st_dev;
	f->ino = st->st_ino;
	f->mtime = st->st_mtim;
	f->size = st->st_size;
	/* ELF_C_READ, not ..._MMAP: a file truncated under us must not SIGBUS. */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf)
		return f;
	if (elf_kind(elf) == ELF_K_ELF) {
		read_build_id(elf, f);
		same = find_file_by_build_id(us, f);
		if (same) {
			elf_end(elf);
			elf_file_free(f);
			*known = true;
			return same;
		}
		if (read_segments(elf, f) && !read_symbols(elf, f, budget, false))
			read_debug_symbols(us, f, budget);
	}
	elf_end(elf);
	return f;
}

/* The cache entry for the file open on fd, reading it if it is new; NULL when the cache is full. */
static const struct elf_file *cached_file(struct usyms *us, int fd)
{
	struct elf_file *f;
	struct stat st;
	bool known;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return NULL;
	f = find_file_by_identity(us, &st);
	if (f)
		return f;
	if (us->nfiles == USYMS_MAX_FILES)
		return NULL;
	f = read_elf_file(fd, &st, USYMS_MAX_SYMBOL_BYTES - us->symbol_bytes, us, &known);
	if (!f || known)
		return f;
	us->files[us->nfiles++] = f;
	us->symbol_bytes += symbol_bytes(f);
	return f;
}

struct maps_line {
	uint64_t start, end, offset, inode;
	bool executable;
	const char *path;	/* "" for an anonymous mapping */
	bool deleted;		/* the path had " (deleted)", now cut off */
};

/* "START-END PERMS OFFSET MAJ:MIN INODE [PATH]"; false for anything else. */
static bool parse_maps_line(char *line, struct maps_line *out)
{
	static const char deleted[] = " (deleted)";
	const char *s = line;
	uint64_t major, minor;
	size_t len;

	if (!parse_hex(&s, &out->start) || !skip_char(&s, '-') ||
	    !parse_hex(&s, &out->end) || out->end <= out->start || !skip_char(&s, ' '))
		return false;
	if (strnlen(s, 4) < 4 || s[4] != ' ')
		return false;
	out->executable = s[2] == 'x';
	s += 5;
	if (!parse_hex(&s, &out->offset) || !skip_char(&s, ' ') ||
	    !parse_hex(&s, &major) || !skip_char(&s, ':') || !parse_hex(&s, &minor) ||
	    !skip_char(&s, ' ') || !parse_dec(&s, &out->inode))
		return false;
	if (*s && *s != ' ')
		return false;
	skip_blanks(&s);
	out->path = s;
	len = strlen(s);
	out->deleted = len > sizeof(deleted) - 1 &&
		       !strcmp(s + len - (sizeof(deleted) - 1), deleted);
	if (out->deleted)
		line[s - line + len - (sizeof(deleted) - 1)] = '\0';
	return true;
}

/* A path that once named a deleted file may name another file now: only its inode tells. */
static int open_if_inode(const char *path, uint64_t inode)
{
	struct stat st;
	int fd = open_regular(path);

	if (fd >= 0 && (fstat(fd, &st) || (uint64_t)st.st_ino != inode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The file a mapping maps, or -1.  map_files/ is the mapping itself, deleted
 * or not, but needs CAP_SYS_ADMIN; then the path through the process's root,
 * so that a container's files are the container's; then the path as it is.
 */
static int open_mapped_file(const struct usyms *us, uint32_t tgid, const struct maps_line *m)
{
	char path[PATH_MAX];
	int fd = -1;

	if (build_path(path, "%s/%u/map_files/%" PRIx64 "-%" PRIx64, us->proc_root, tgid,
		       m->start, m->end))
		fd = open_regular(path);
	if (fd < 0 && build_path(path, "%s/%u/root%s", us->proc_root, tgid, m->path))
		fd = m->deleted ? open_if_inode(path, m->inode) : open_regular(path);
	if (fd < 0)
		fd = m->deleted ? open_if_inode(m->path, m->inode) : open_regular(m->path);
	return fd;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool is_special_mapping(const char *path)
{
	return !strcmp(path, "[vdso]") || !strcmp(path, "[vsyscall]");
}

static bool make_mapping(struct usyms *us, uint32_t tgid, const struct maps_line *l,
			 struct mapping *m)
{
	*m = (struct mapping){ .start = l->start, .end = l->end, .offset = l->offset };
	if (l->path[0] == '/') {
		int fd = open_mapped_file(us, tgid, l);

		m->kind = MAPPING_FILE;
		if (fd >= 0) {
			m->file = cached_file(us, fd);
			close(fd);
		}
		m->module = strdup(base_name(l->path));
	} else if (is_special_mapping(l->path)) {
		m->kind = MAPPING_SPECIAL;
		m->module = strdup(l->path);
	} else {
		/* Anonymous, [heap], [stack], memfd:... without a path: nothing to read. */
		m->kind = MAPPING_ANONYMOUS;
		return true;
	}
	return m->module != NULL;
}

static int compare_mappings(const void *a, const void *b)
{
	const struct mapping *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static int read_mappings(struct usyms *us, uint32_t tgid, FILE *f, struct process *p)
{
	char *line = NULL;
	size_t line_cap = 0, cap = 0;
	ssize_t len;
	int err = 0;

	while ((len = getline(&line, &line_cap, f)) >= 0) {
		struct maps_line l;

		chomp(line, &len);
		if (!parse_maps_line(line, &l) || !l.executable)
			continue;
		if (p->nmappings == USYMS_MAX_MAPPINGS)
			break;
		if (p->nmappings == cap) {
			size_t new_cap = cap ? cap * 2 : 16;
			struct mapping *mappings = reallocarray(p->mappings, new_cap,
								sizeof(*mappings));

			if (!mappings) {
				err = -ENOMEM;
				break;
			}
			p->mappings = mappings;
			cap = new_cap;
		}
		if (!make_mapping(us, tgid, &l, &p->mappings[p->nmappings])) {
			err = -ENOMEM;
			break;
		}
		p->nmappings++;
	}
	free(line);
	/* The kernel lists mappings in order; a fake file need not. */
	if (p->nmappings)
		qsort(p->mappings, p->nmappings, sizeof(*p->mappings), compare_mappings);
	return err;
}

int usyms_add_pid(struct usyms *us, uint32_t tgid)
{
	struct process **slot, *p;
	char path[PATH_MAX];
	FILE *f;
	int err;

	if (!us)
		return -EINVAL;
	slot = process_slot(us, tgid);
	if (*slot)
		return 0;
	if (us->nprocesses == USYMS_MAX_PROCESSES)
		return -ENOSPC;
	if (!build_path(path, "%s/%u/maps", us->proc_root, tgid))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	p = calloc(1, sizeof(*p));
	if (!p) {
		fclose(f);
		return -ENOMEM;
	}
	p->tgid = tgid;
	err = read_mappings(us, tgid, f, p);
	fclose(f);
	if (err) {
		process_free(p);
		return err;
	}
	*slot = p;
	us->nprocesses++;
	return 0;
}

static const struct mapping *find_mapping(const struct process *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nmappings;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mapping *m = &p->mappings[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

char *usyms_format(struct usyms *us, uint32_t tgid, uint64_t addr, char *buf, size_t size)
{
	const struct process *p;
	const struct mapping *m = NULL;
	const struct elf_symbol *sym = NULL;
	uint64_t offset, vaddr;

	if (!buf || !size)
		return buf;
	p = us ? *process_slot(us, tgid) : NULL;
	if (p)
		m = find_mapping(p, addr);
	if (!m || m->kind == MAPPING_ANONYMOUS) {
		snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
		return buf;
	}
	if (m->kind == MAPPING_SPECIAL) {
		snprintf(buf, size, "%s+0x%" PRIx64, m->module, addr - m->start);
		return buf;
	}
	offset = addr - m->start + m->offset;
	if (m->file && file_offset_to_vaddr(m->file, offset, &vaddr))
		sym = find_elf_symbol(m->file, vaddr);
	if (sym)
		snprintf(buf, size, "%s+0x%" PRIx64, m->file->names + sym->name, vaddr - sym->value);
	else
		snprintf(buf, size, "[unknown] %s+0x%" PRIx64, m->module, offset);
	return buf;
}
