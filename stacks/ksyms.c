// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel frame names from /proc/kallsyms (ksyms.h).
 *
 * A line is "ADDR TYPE NAME" or "ADDR TYPE NAME\t[MODULE]"; only function
 * symbols (t, T, w, W) are kept, anything not understood is skipped.  The
 * names go to one pool while the file is read, each module's name once a
 * run (the lines of one module come together); the symbols are then
 * sorted by address, one name an address: the first listed of its aliases.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "array.h"
#include "ksyms.h"
#include "scan.h"
#include "sorted.h"
#include "strpool.h"

static void chomp(char *line, ssize_t *len)
{
	while (*len > 0 && (line[*len - 1] == '\n' || line[*len - 1] == '\r'))
		line[--*len] = '\0';
}

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
	if (!scan_hex(&s, &out->addr) || !scan_char(&s, ' ') || !*s)
		return false;
	out->type = *s++;
	if (!scan_char(&s, ' '))
		return false;
	out->name = s;
	out->name_len = strcspn(s, " \t");
	if (!out->name_len)
		return false;
	s += out->name_len;
	scan_blanks(&s);
	out->module = "";
	out->module_len = 0;
	if (*s == '[') {
		const char *end = strchr(s, ']');

		if (!end || end == s + 1)
			return false;
		out->module = s + 1;
		out->module_len = end - s - 1;
		s = end + 1;
		scan_blanks(&s);
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
	struct strpool pool;
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

	if (array_reserve((void **)&r->raw, &r->cap, r->count + 1, sizeof(*r->raw)))
		return false;
	sym = &r->raw[r->count];
	sym->addr = l->addr;
	sym->line = (uint32_t)r->count;
	if (!strpool_add(&r->pool, l->name, l->name_len, &sym->name))
		return false;
	if (!same_module(r, l) && !strpool_add(&r->pool, l->module, l->module_len, &r->last_module))
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
	if (!strpool_add(&r->pool, "", 0, &r->last_module))
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
	ks->names = strpool_take(&r->pool);
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
	strpool_free(&r.pool);
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

static int compare_addr_to_ksym(const void *key, const void *element)
{
	uint64_t addr = *(const uint64_t *)key;
	const struct ksym *sym = element;

	return addr < sym->addr ? -1 : addr > sym->addr;
}

const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr)
{
	size_t after;

	if (!ks)
		return NULL;
	after = sorted_find_after(&addr, ks->syms, ks->count, sizeof(*ks->syms),
				  compare_addr_to_ksym);
	return after ? &ks->syms[after - 1] : NULL;
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
