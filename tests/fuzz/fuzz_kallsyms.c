// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the kallsyms parser (ksyms.c): the input is the
 * file.  ksyms_load() must not crash or leak; what it loads is sorted with
 * one symbol an address, each symbol is found at its own address and just
 * before the next, and ksyms_format() gives a NUL-terminated string.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "symbolize.h"
#include "fuzz_util.h"

static char path[PATH_MAX];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	snprintf(path, sizeof(path), "%s/kallsyms", fuzz_scratch_dir());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ksym *first, *sym, *next;
	struct ksyms *ks;
	char buf[64];

	fuzz_write_file(path, data, size);
	ks = ksyms_load(path);
	if (!ks)
		return 0;
	first = ksyms_find(ks, 0);
	FUZZ_CHECK(first == NULL, "address 0 is never a symbol's");
	/* Walk the table through ksyms_find alone: from the last symbol down. */
	sym = ksyms_find(ks, UINT64_MAX);
	FUZZ_CHECK(sym != NULL, "a loaded table is not empty");
	next = NULL;
	while (sym) {
		FUZZ_CHECK(sym->addr != 0 && sym->name[0], "empty symbol");
		FUZZ_CHECK(ksyms_find(ks, sym->addr) == sym, "%s not found at its address",
			   sym->name);
		if (next)
			FUZZ_CHECK(ksyms_find(ks, next->addr - 1) == sym, "%s does not reach %s",
				   sym->name, next->name);
		ksyms_format(ks, sym->addr + 1, buf, sizeof(buf));
		FUZZ_CHECK(memchr(buf, '\0', sizeof(buf)) != NULL, "unterminated");
		next = sym;
		sym = ksyms_find(ks, sym->addr - 1);
		FUZZ_CHECK(!sym || sym->addr < next->addr, "not sorted");
	}
	ksyms_free(ks);
	return 0;
}
