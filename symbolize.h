/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names for stack frames (--stacks): kernel addresses from /proc/kallsyms,
 * user addresses from the process's mappings and the ELF symbol tables of
 * the mapped files, read with libelf.  No libbpf; unit-tested without root
 * against fake /proc files and a test binary.
 */
#ifndef DISKIO_SYMBOLIZE_H
#define DISKIO_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

/* ---- kernel: /proc/kallsyms, read and sorted once ---- */

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

/* ---- user: per-process mappings, ELF symbols cached per build-id ---- */

struct usyms;

/* proc_root is "/proc" (a test's fake directory otherwise). */
struct usyms *usyms_new(const char *proc_root);
void usyms_free(struct usyms *us);

/* Where stripped binaries' symbols are looked up in separate debug files, by
 * build-id: DIR/.build-id/ab/cdef....debug, as gdb and perf do (Debian's
 * *-dbgsym packages install them there).  USYMS_DEBUG_DIR by default; NULL
 * turns the lookup off.  Affects files read afterwards.  0, or -errno. */
#define USYMS_DEBUG_DIR "/usr/lib/debug"
int usyms_set_debug_dir(struct usyms *us, const char *dir);

/* Record tgid's executable mappings (PROC_ROOT/TGID/maps) and the build-id
 * of each mapped file, at first sight of the process, so that its frames
 * can be named after it exits.  Once per tgid: a known tgid returns 0 at
 * once.  0, or -errno when the maps cannot be read (the process is gone:
 * its frames will print as unknown). */
int usyms_add_pid(struct usyms *us, uint32_t tgid);

/* Forget tgid's mappings (a reused pid is a new process); the ELF files'
 * symbols stay cached by build-id (or by path, inode and mtime without one). */
void usyms_forget_pid(struct usyms *us, uint32_t tgid);

/* Name addr in tgid's address space: "function+0xoff" from the mapped file's
 * .symtab, else its debug file's, else its .dynsym; "[unknown] module+0xoff"
 * (module: the file's base name, off: the offset in the file) when no symbol
 * holds it or the file could not be read; "[vdso]+0xoff" (or [vsyscall]:
 * off from the mapping's start); "[unknown] 0xADDR" in anonymous memory
 * (JIT code) and outside every recorded mapping.  addr is named as given:
 * for a caller's frame (a return address) addr - 1 names the call, not what
 * follows it.  Returns buf. */
char *usyms_format(struct usyms *us, uint32_t tgid, uint64_t addr, char *buf, size_t size);

#endif /* DISKIO_SYMBOLIZE_H */
