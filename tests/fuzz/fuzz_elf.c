// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the ELF symbol reader (elfsyms.c).  The input is one
 * control byte and a file, which is written to a memfd:
 *   bits 0-1 of the control byte: the read's flags (ELF_SYMTAB_ONLY, ELF_NO_SYMBOLS);
 *   bits 2-3: its limits, one of limit_sets[];
 *   bit 4: a file that shrank while it was read: the memfd holds the first
 *          half of it, elf_symbols_read() is told the whole size.
 * The seeds in tests/fuzz/elf/ are made by tests/fuzz/make_elf_seeds.py.
 *
 * The file is read twice, with those flags and as a debug file
 * (ELF_SYMTAB_ONLY), then elf_take_symbols() moves the second one's symbols
 * into the first.  Checked, for each object:
 * - the status is in range; the object is NULL only for ELF_NO_MEMORY, which
 *   does not happen (the limits bound every allocation); a file without the
 *   ELF magic is ELF_NOT_ELF and has nothing; symbols iff ELF_OK without
 *   ELF_NO_SYMBOLS; a build id of at most ELF_BUILD_ID_MAX bytes of the file;
 * - memory, through the sanitizer's malloc hooks: the bytes the read keeps
 *   are no more than elf_symbols_bytes(), which is within object_bound() of
 *   the limits and the file size, the peak during the read within
 *   peak_bound(), and freeing both objects gives back all of it (what a
 *   header claims costs nothing: only what the file holds and the limits allow);
 * - the bytes read (pread() is wrapped, -Wl,--wrap=pread): at most
 *   max_read_bytes twice (a .symtab over the limits, then the .dynsym);
 * - elf_symbol_at() at a few hundred offsets from the input: each name
 *   NUL-terminated within max_name_len + "...", text of the file (a cut one
 *   before its "..."), the same answer when asked again, at most
 *   max_symbols different names, none without segments or symbols;
 * - elf_take_symbols(): no allocation, the symbols moved, the segments and
 *   build ids stay.
 *
 * ELF files keep their section headers at the end: LLVMFuzzerInitialize()
 * raises -max_len (scripts/fuzz.sh gives every target 4096 bytes) to 64 KiB.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <sanitizer/allocator_interface.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elfsyms.h"
#include "fuzz_util.h"

#define MAX_LEN (64 << 10)
#define SHRUNK 0x10
#define SPREAD_PROBES 128
#define WORD_PROBES 128
#define PROBES (SPREAD_PROBES + WORD_PROBES + WORD_PROBES / 2)
/* Buffers of a size of their own, not the file's (a chunk of symbols, a note). */
#define FIXED_BUFFERS (256 << 10)

static struct elf_limits limit_sets[4] = {
	{ .max_read_bytes = 1 << 20, .max_symbols = 4096, .max_name_len = 64 },
	{ 0 },	/* diskio's own, ELF_LIMITS: set at start */
	{ .max_read_bytes = 4096, .max_symbols = 16, .max_name_len = 8 },	/* all reached */
	{ .max_read_bytes = 64 << 10, .max_symbols = 256, .max_name_len = 0 },	/* "..." */
};

static int fd = -1;

/* ---- what elfsyms.c allocates and reads, while measuring ---- */

static __thread bool measuring;
static __thread int64_t live, peak;
static __thread uint64_t bytes_read;

static void malloc_hook(const volatile void *ptr, size_t size)
{
	(void)ptr;
	if (!measuring)
		return;
	live += (int64_t)size;
	if (live > peak)
		peak = live;
}

static void free_hook(const volatile void *ptr)
{
	if (measuring && ptr && __sanitizer_get_ownership((const void *)ptr))
		live -= (int64_t)__sanitizer_get_allocated_size((const void *)ptr);
}

ssize_t __real_pread(int fd, void *buf, size_t count, off_t offset);
ssize_t __wrap_pread(int fd, void *buf, size_t count, off_t offset);

ssize_t __wrap_pread(int fd, void *buf, size_t count, off_t offset)
{
	ssize_t n = __real_pread(fd, buf, count, offset);

	if (measuring && n > 0)
		bytes_read += (uint64_t)n;
	return n;
}

static void measure_start(void)
{
	live = peak = 0;
	bytes_read = 0;
	measuring = true;
}

static void measure_stop(void)
{
	measuring = false;
}

/* ---- bounds from elfsyms.h ---- */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * What an object may hold: per symbol kept, an entry (counted as 64 bytes)
 * and its name of at most max_name_len, "..." and a NUL; per PT_LOAD
 * segment, an entry.  Each needs its entry in the file, within the bytes
 * that may be read: 16 bytes an ELF32 symbol, 32 a program header.
 */
static uint64_t object_bound(const struct elf_limits *l, uint64_t file_size)
{
	uint64_t readable = min_u64(file_size, l->max_read_bytes);
	uint64_t symbols = min_u64(l->max_symbols, readable / sizeof(Elf32_Sym));

	return 1024 + readable / sizeof(Elf32_Phdr) * 64 +
	       symbols * (64 + (uint64_t)l->max_name_len + 4);
}

/* While reading: the object, twice (arrays grow by doubling), tables of
 * the file (headers, a symbol table, its strings, a sort's copy), fixed buffers. */
static uint64_t peak_bound(const struct elf_limits *l, uint64_t file_size)
{
	return 2 * object_bound(l, file_size) + 8 * min_u64(file_size, l->max_read_bytes) +
	       FIXED_BUFFERS;
}

/* ---- the checks ---- */

struct input {
	const uint8_t *file;	/* the file as elf_symbols_read() is told of it */
	uint64_t file_size;
	size_t stored;		/* what the memfd holds of it */
	const struct elf_limits *limits;
};

struct read_cost {
	int64_t kept, peak;
	uint64_t read;
};

static bool is_elf(const struct input *in)
{
	return in->stored >= SELFMAG && !memcmp(in->file, ELFMAG, SELFMAG);
}

/* name (len bytes) is text of the file, or is cut and the text before its "..." is. */
static bool name_in_file(const struct input *in, const char *name, size_t len)
{
	if (memmem(in->file, in->stored, name, len))
		return true;
	return len >= 3 && !memcmp(name + len - 3, "...", 3) &&
	       (len == 3 || memmem(in->file, in->stored, name, len - 3));
}

/* Offsets spread over the file and a little past it, then the file's
 * little-endian words (the offsets, addresses and sizes its headers and
 * symbols hold), 8 and 4 bytes, taken at most WORD_PROBES times. */
static size_t probe_offsets(const struct input *in, uint64_t *offsets)
{
	size_t n = 0, step = in->stored / WORD_PROBES & ~(size_t)7;

	if (step < 8)
		step = 8;
	for (size_t i = 0; i < SPREAD_PROBES; i++)
		offsets[n++] = (in->file_size + 64) * i / SPREAD_PROBES;
	for (size_t at = 0, i = 0; at + 8 <= in->stored && i < WORD_PROBES; at += step, i++) {
		uint64_t word;
		uint32_t half;

		memcpy(&word, in->file + at, sizeof(word));
		offsets[n++] = word;
		if (i % 2) {
			memcpy(&half, in->file + at, sizeof(half));
			offsets[n++] = half;
		}
	}
	return n;
}

static void check_names(const struct elf_symbols *e, const struct input *in)
{
	const struct elf_limits *l = in->limits;
	uint64_t offsets[PROBES];
	const char *seen[PROBES];
	size_t n = probe_offsets(in, offsets), nseen = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t into = 0, into_again = 0;
		const char *name = elf_symbol_at(e, offsets[i], &into), *again;
		size_t len, j;

		if (!name)
			continue;
		FUZZ_CHECK(elf_has_segments(e) && elf_has_symbols(e),
			   "a name at 0x%" PRIx64 " without segments or symbols", offsets[i]);
		len = strnlen(name, (size_t)l->max_name_len + 4);
		FUZZ_CHECK(len <= (size_t)l->max_name_len + 3,
			   "name at 0x%" PRIx64 " longer than %" PRIu32 " + \"...\": %.*s",
			   offsets[i], l->max_name_len, (int)len, name);
		FUZZ_CHECK(name_in_file(in, name, len), "name at 0x%" PRIx64 " not in the file: %s",
			   offsets[i], name);
		again = elf_symbol_at(e, offsets[i], &into_again);
		FUZZ_CHECK(again == name && into_again == into,
			   "0x%" PRIx64 " named twice: %s+%" PRIu64 ", %s+%" PRIu64, offsets[i],
			   name, into, again ? again : "(null)", into_again);
		for (j = 0; j < nseen && seen[j] != name; j++)
			;
		if (j == nseen)
			seen[nseen++] = name;
	}
	FUZZ_CHECK(nseen <= l->max_symbols, "%zu names found, max_symbols %" PRIu32, nseen,
		   l->max_symbols);
}

static void check_object(const struct elf_symbols *e, enum elf_status status, unsigned int flags,
			 const struct input *in, const struct read_cost *cost)
{
	const struct elf_limits *l = in->limits;
	const char *status_name = elf_status_name(status);
	const unsigned char *id;
	size_t id_len;
	uint64_t bytes;

	FUZZ_CHECK((unsigned int)status < ELF_NR_STATUS, "status %d", (int)status);
	FUZZ_CHECK(status_name && *status_name, "status %d has no name", (int)status);
	FUZZ_CHECK(e || status == ELF_NO_MEMORY, "no object, status %s", status_name);
	FUZZ_CHECK(status != ELF_NO_MEMORY, "out of memory within the limits");
	FUZZ_CHECK(cost->read <= 2 * l->max_read_bytes + sizeof(Elf64_Ehdr),
		   "%" PRIu64 " bytes read, max_read_bytes %" PRIu64 ", status %s", cost->read,
		   l->max_read_bytes, status_name);
	if (is_elf(in) && in->stored >= EI_NIDENT)
		FUZZ_CHECK(cost->read >= EI_NIDENT, "an ELF file read without pread() (%" PRIu64
			   " bytes): was fuzz_elf linked with -Wl,--wrap=pread?", cost->read);
	FUZZ_CHECK((uint64_t)cost->peak <= peak_bound(l, in->file_size),
		   "%" PRId64 " bytes allocated at once for a %" PRIu64 "-byte file, bound %" PRIu64
		   ", status %s", cost->peak, in->file_size, peak_bound(l, in->file_size),
		   status_name);

	bytes = elf_symbols_bytes(e);
	FUZZ_CHECK(bytes <= object_bound(l, in->file_size),
		   "an object of %" PRIu64 " bytes for a %" PRIu64 "-byte file, bound %" PRIu64,
		   bytes, in->file_size, object_bound(l, in->file_size));
	FUZZ_CHECK(cost->kept <= (int64_t)bytes,
		   "the read kept %" PRId64 " bytes, elf_symbols_bytes() says %" PRIu64
		   ", status %s", cost->kept, bytes, status_name);

	id = elf_build_id(e, &id_len);
	FUZZ_CHECK(id_len <= ELF_BUILD_ID_MAX, "build id of %zu bytes", id_len);
	FUZZ_CHECK(!id == !id_len, "build id %p of %zu bytes", (const void *)id, id_len);
	if (id_len)
		FUZZ_CHECK(memmem(in->file, in->stored, id, id_len), "build id not in the file");
	if (!is_elf(in))
		FUZZ_CHECK(status == ELF_NOT_ELF && !elf_has_segments(e) && !elf_has_symbols(e) &&
			   !id_len, "not ELF, but status %s", status_name);
	FUZZ_CHECK(elf_has_symbols(e) == (status == ELF_OK && !(flags & ELF_NO_SYMBOLS)),
		   "status %s, flags %u, symbols %d", status_name, flags, elf_has_symbols(e));
	check_names(e, in);
}

static enum elf_status measured_read(const struct input *in, unsigned int flags,
				     struct elf_symbols **e, struct read_cost *cost)
{
	enum elf_status status;

	measure_start();
	status = elf_symbols_read(fd, in->file_size, in->limits, flags, e);
	measure_stop();
	*cost = (struct read_cost){ live, peak, bytes_read };
	check_object(*e, status, flags, in, cost);
	return status;
}

static void store(const uint8_t *data, size_t size)
{
	size_t done = 0;

	if (ftruncate(fd, (off_t)size))
		fuzz_fail(__FILE__, __LINE__, "ftruncate", "%s", strerror(errno));
	while (done < size) {
		ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			fuzz_fail(__FILE__, __LINE__, "pwrite", "%s", strerror(errno));
		done += (size_t)n;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	limit_sets[1] = ELF_LIMITS;
	fd = memfd_create("fuzz_elf", MFD_CLOEXEC);
	if (fd < 0)
		fuzz_fail(__FILE__, __LINE__, "memfd_create", "%s", strerror(errno));
	if (!__sanitizer_install_malloc_and_free_hooks(malloc_hook, free_hook))
		fuzz_fail(__FILE__, __LINE__, "hooks", "no room for malloc hooks");

	/* 64 KiB: a whole small ELF file. */
	fuzz_raise_max_len(argc, argv, MAX_LEN);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf_symbols *a = NULL, *b = NULL;
	struct read_cost cost_a, cost_b;
	const unsigned char *id;
	unsigned char id_a[ELF_BUILD_ID_MAX], id_b[ELF_BUILD_ID_MAX];
	size_t id_a_len, id_b_len, len;
	bool a_segments, b_segments, b_symbols;
	struct input in;
	int64_t kept;
	unsigned int flags;

	if (!size)
		return 0;
	flags = data[0] & (ELF_SYMTAB_ONLY | ELF_NO_SYMBOLS);
	in = (struct input){ .file = data + 1, .file_size = size - 1, .stored = size - 1,
			     .limits = &limit_sets[data[0] >> 2 & 3] };
	if (data[0] & SHRUNK)
		in.stored /= 2;
	store(in.file, in.stored);

	measured_read(&in, flags, &a, &cost_a);
	measured_read(&in, ELF_SYMTAB_ONLY, &b, &cost_b);
	kept = cost_a.kept + cost_b.kept;
	if (a && b) {
		id = elf_build_id(a, &id_a_len);
		memcpy(id_a, id ? id : id_a, id_a_len);
		id = elf_build_id(b, &id_b_len);
		memcpy(id_b, id ? id : id_b, id_b_len);
		a_segments = elf_has_segments(a);
		b_segments = elf_has_segments(b);
		b_symbols = elf_has_symbols(b);

		measure_start();
		elf_take_symbols(a, b);
		measure_stop();
		FUZZ_CHECK(peak == 0, "elf_take_symbols() allocated %" PRId64 " bytes", peak);
		kept += live;
		FUZZ_CHECK(elf_has_symbols(a) == b_symbols && !elf_has_symbols(b),
			   "symbols not moved: %d and %d, had %d", elf_has_symbols(a),
			   elf_has_symbols(b), b_symbols);
		FUZZ_CHECK(elf_has_segments(a) == a_segments && elf_has_segments(b) == b_segments,
			   "segments changed");
		id = elf_build_id(a, &len);
		FUZZ_CHECK(len == id_a_len && !memcmp(id ? id : id_a, id_a, len),
			   "build id changed");
		id = elf_build_id(b, &len);
		FUZZ_CHECK(len == id_b_len && !memcmp(id ? id : id_b, id_b, len),
			   "build id changed");
		FUZZ_CHECK(elf_symbols_bytes(a) <= object_bound(in.limits, in.file_size) &&
			   elf_symbols_bytes(b) <= object_bound(in.limits, in.file_size),
			   "objects of %zu and %zu bytes after the move", elf_symbols_bytes(a),
			   elf_symbols_bytes(b));
		FUZZ_CHECK(kept <= (int64_t)(elf_symbols_bytes(a) + elf_symbols_bytes(b)),
			   "%" PRId64 " bytes kept, elf_symbols_bytes() says %zu after the move",
			   kept, elf_symbols_bytes(a) + elf_symbols_bytes(b));
		check_names(a, &in);
		check_names(b, &in);
	}
	measure_start();
	elf_symbols_free(a);
	elf_symbols_free(b);
	measure_stop();
	FUZZ_CHECK(kept + live == 0, "%" PRId64 " bytes kept, %" PRId64 " freed", kept, -live);
	return 0;
}
