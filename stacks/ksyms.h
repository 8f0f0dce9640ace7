/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of kernel stack frames: /proc/kallsyms, read once (over a hundred
 * thousand lines) into one array sorted by address, its names in one
 * string pool, so that naming a frame is a binary search and no file is
 * read while stacks are printed.  When kptr_restrict hides the addresses
 * from diskio, nothing is loaded and kernel frames stay addresses.
 */
#ifndef DISKIO_KSYMS_H
#define DISKIO_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module;	/* "" for the kernel itself, else e.g. "zram" */
};

struct ksyms;

/* Read a kallsyms file ("/proc/kallsyms" or a test's fake): function symbols
 * (types t, T, w, W) with a non-zero address, sorted by address.  NULL with
 * errno set when it cannot be read or has no usable symbol (addresses all 0:
 * kptr_restrict hides them from this user). */
struct ksyms *ksyms_load(const char *path);
void ksyms_free(struct ksyms *ks);

/* The symbol containing addr: the last one at or below it (binary search);
 * NULL below the first symbol. */
const struct ksym *ksyms_find(const struct ksyms *ks, uint64_t addr);

/* "name+0xoff" or "name+0xoff [module]" for addr; "[unknown] 0xADDR" when no
 * symbol holds it.  Returns buf. */
char *ksyms_format(const struct ksyms *ks, uint64_t addr, char *buf, size_t size);

#endif /* DISKIO_KSYMS_H */
