// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for --files' name events (issue 35): the record the BPF
 * program sends when it first sees a file (struct file_name_event: names
 * innermost first, each NUL-terminated), as the events channel hands it over
 * (any size, any bytes: a name is whatever a process called its file), and
 * the mount table it is joined with.
 *
 * The input: byte 0 says how many of the rest are the mount table (0-255
 * times 4), the rest is the event's bytes.  Both go to filepath_inside()
 * and filepath_mounted(), and the event to files_name_event() over a file
 * of that mount table.
 *
 * Checked: a path put together starts with '/', has no empty component
 * ("//"), no NUL before its end, fits its buffer, and is the event's names
 * in reverse; a mounted path is absolute too; nothing reads or writes
 * out of bounds (ASan) or overflows (UBSan).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filepath.h"
#include "files.h"
#include "fuzz_util.h"

static void check_inside(const struct file_name_event *e, size_t size, const char *path)
{
	size_t len = strlen(path), at = 0, end = len;

	FUZZ_CHECK(path[0] == '/', "'%s' is not absolute", path);
	FUZZ_CHECK(!strstr(path, "//"), "'%s' has an empty name", path);
	FUZZ_CHECK(len < FILEPATH_MAX, "%zu bytes", len);
	FUZZ_CHECK(size >= offsetof(struct file_name_event, names) + e->bytes, "past the event");
	if (len == 1)
		return;
	/* its last name is the event's first, and so on up */
	for (uint32_t i = 0; i < e->depth; i++) {
		const char *name = e->names + at;
		size_t n = strlen(name);

		FUZZ_CHECK(end > n && path[end - n - 1] == '/' && !memcmp(path + end - n, name, n),
			   "name %u '%s' not in place in '%s'", i, name, path);
		end -= n + 1;
		at += n + 1;
	}
	FUZZ_CHECK(end == 0, "'%s' is more than the names", path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	/* a whole event and a mount table */
	fuzz_raise_max_len(argc, argv, (int)sizeof(struct file_name_event) + 1024 + 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct file_name_event event;
	static char path[FILEPATH_MAX], mounted[FILEPATH_MAX];
	static char mountinfo_path[4200];
	size_t table, rest;
	const char *dir;
	struct files f;

	if (!size)
		return 0;
	table = (size_t)data[0] * 4;
	if (table > size - 1)
		table = size - 1;
	rest = size - 1 - table;
	memset(&event, 0, sizeof(event));
	memcpy(&event, data + 1 + table, rest < sizeof(event) ? rest : sizeof(event));
	if (filepath_inside(&event, rest, path, sizeof(path))) {
		check_inside(&event, rest, path);
		if (filepath_mounted((const char *)data + 1, table, event.fs_dev >> MINORBITS,
				     event.fs_dev & MINORMASK, path, mounted, sizeof(mounted)))
			FUZZ_CHECK(mounted[0] == '/', "'%s' mounted at '%s'", path, mounted);
	}
	dir = fuzz_scratch_dir();
	snprintf(mountinfo_path, sizeof(mountinfo_path), "%s/mountinfo", dir);
	fuzz_write_file(mountinfo_path, data + 1, table);
	files_init(&f, mountinfo_path, NULL);
	/* 1: a name that cannot be made, which the tally counts (issue 47) */
	FUZZ_CHECK(files_name_event(&f, data + 1 + table, rest) >= 0, "out of memory");
	FUZZ_CHECK(f.nnames <= 1, "%zu names of one event", f.nnames);
	files_free(&f);
	return 0;
}
