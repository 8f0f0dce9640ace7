// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the .eh_frame reader (ehframe.c).  The input is one
 * control byte and the rest:
 *   bit 0 clear: the rest is an ELF file, written to a memfd and read with
 *                eh_frame_read() (section headers, names, both sections);
 *   bit 0 set:   the rest is .eh_frame_hdr's length (2 bytes), that many
 *                bytes of .eh_frame_hdr, then .eh_frame, given to
 *                eh_frame_from_memory() at fixed addresses.
 * Then eh_frame_rule() at a few hundred addresses: every 4-byte word of the
 * input read as an address (relative to the sections, and as is), and a
 * spread over the sections.  Checked: the status is in range, EH_OK only
 * with an object, a rule's CFA register a DWARF register number (< 256),
 * and the object's memory within the input's size: what a header claims
 * costs nothing.  The seeds in tests/fuzz/ehframe/ are made by
 * tests/fuzz/make_ehframe_seeds.sh.  Like fuzz_elf, -max_len is raised to
 * 64 KiB (section headers are at a file's end).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ehframe.h"
#include "fuzz_util.h"

#define MAX_LEN (64 << 10)
#define FRAME_VADDR 0x2000ULL
#define HDR_VADDR 0x1000ULL
#define WORD_PROBES 256
#define SPREAD_PROBES 64

static int fd = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fd = memfd_create("fuzz_ehframe", MFD_CLOEXEC);
	if (fd < 0)
		fuzz_fail(__FILE__, __LINE__, "memfd_create", "%s", strerror(errno));
	fuzz_raise_max_len(argc, argv, MAX_LEN);
	return 0;
}

static void probe(const struct eh_frame *eh, uint64_t vaddr)
{
	struct eh_rule rule;
	enum eh_status status = eh_frame_rule(eh, vaddr, &rule);

	FUZZ_CHECK(status <= EH_READ_FAILED, "status %d", (int)status);
	if (status == EH_OK)
		FUZZ_CHECK(rule.cfa_reg < 256, "CFA register %u", rule.cfa_reg);
}

static void probe_all(const struct eh_frame *eh, const uint8_t *data, size_t size)
{
	size_t words = size / 4;

	for (size_t i = 0; i < words && i < WORD_PROBES; i++) {
		uint32_t w;

		memcpy(&w, data + (i * (words / WORD_PROBES + 1) % words) * 4, 4);
		probe(eh, w);
		probe(eh, FRAME_VADDR + (uint64_t)(int64_t)(int32_t)w);
	}
	for (size_t i = 0; i < SPREAD_PROBES; i++)
		probe(eh, FRAME_VADDR + i * (size / SPREAD_PROBES + 1));
	probe(eh, 0);
	probe(eh, UINT64_MAX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eh_frame *eh = NULL;
	enum eh_status status;

	if (!size)
		return 0;
	if (data[0] & 1) {
		size_t hdr_len;

		if (size < 3)
			return 0;
		hdr_len = (size_t)data[1] | (size_t)data[2] << 8;
		if (hdr_len > size - 3)
			hdr_len = size - 3;
		status = eh_frame_from_memory(data + 3 + hdr_len, size - 3 - hdr_len, FRAME_VADDR,
					      data + 3, hdr_len, HDR_VADDR, &eh);
	} else {
		FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate: %s", strerror(errno));
		FUZZ_CHECK(pwrite(fd, data + 1, size - 1, 0) == (ssize_t)(size - 1), "pwrite: %s",
			   strerror(errno));
		status = eh_frame_read(fd, size - 1, &eh);
	}
	FUZZ_CHECK(status <= EH_READ_FAILED, "status %d", (int)status);
	FUZZ_CHECK((status == EH_OK) == (eh != NULL), "status %d, object %p", (int)status,
		   (void *)eh);
	if (!eh)
		return 0;
	FUZZ_CHECK(eh_frame_bytes(eh) <= size + 4096, "%zu bytes held for %zu of input",
		   eh_frame_bytes(eh), size);
	probe_all(eh, data, size);
	eh_frame_free(eh);
	return 0;
}
