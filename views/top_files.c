// SPDX-License-Identifier: GPL-2.0
/* The top view's `f`: the frame's files (top_files.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "top_files.h"
#include "top_lines.h"

#define PATH_SHOWN	PRINTABLE_SIZE(1024)

static uint64_t line_bytes(const struct file_row *r)
{
	return r->bytes[IO_READ] + r->bytes[IO_WRITE];
}

static int most_bytes_first(const void *pa, const void *pb)
{
	uint64_t a = line_bytes(*(const struct file_row *const *)pa);
	uint64_t b = line_bytes(*(const struct file_row *const *)pb);

	return a < b ? 1 : a > b ? -1 : 0;
}

static void file_line(struct view *v, const struct frame *f, const struct file_row *r,
		      bool cumulative, bool utf8)
{
	char pid[16], read[32], written[32], comm[PRINTABLE_SIZE(TASK_COMM_LEN + 64)];
	char device[PRINTABLE_SIZE(64)], path[PATH_SHOWN + 16];
	double per = cumulative || f->interval_s <= 0 ? 1 : f->interval_s;
	const char *name;
	struct line l = { 0 };
	uint32_t len;

	snprintf(pid, sizeof(pid), "%u", r->tgid);
	format_bytes(read, sizeof(read), (double)r->bytes[IO_READ] / per);
	format_bytes(written, sizeof(written), (double)r->bytes[IO_WRITE] / per);
	name = res_name(f->names, r->comm_name, &len);
	printable_name(comm, sizeof(comm), name, len, utf8);
	name = res_name(f->names, r->device_name, &len);
	printable_name(device, sizeof(device), name, len, utf8);
	printable_name(path, PATH_SHOWN, r->path, strlen(r->path), utf8);
	if (r->unlinked)
		strcat(path, " (deleted)");
	line_cell(&l, pid, 7, false);
	line_cell(&l, comm, 15, true);
	line_cell(&l, device, 8, true);
	line_cell(&l, read, 10, false);
	line_cell(&l, written, 10, false);
	line_add(&l, " ", 1);
	line_add(&l, path, strlen(path));
	put_line(v, l.text);
}

void top_files_table(struct view *v, const struct frame *f, uint32_t pid, bool cumulative,
		     bool reverse, bool utf8)
{
	const struct file_row **order;
	size_t n = 0, shown = 0;
	unsigned int left;
	struct line head = { 0 };
	char more[64];

	if (!lines_left(v))
		return;
	put_line(v, "");
	line_cell(&head, "PID", 7, false);
	line_cell(&head, "COMMAND", 15, true);
	line_cell(&head, "DISK", 8, true);
	line_cell(&head, cumulative ? "READ" : "READ/s", 10, false);
	line_cell(&head, cumulative ? "WRITE" : "WRITE/s", 10, false);
	line_add(&head, " FILE", 5);
	put_line(v, head.text);
	order = calloc(f->nfiles ? f->nfiles : 1, sizeof(*order));
	if (!order)
		return;
	for (size_t i = 0; i < f->nfiles; i++)
		if (!pid || f->files[i].tgid == pid)
			order[n++] = &f->files[i];
	qsort(order, n, sizeof(*order), most_bytes_first);
	left = lines_left(v);
	for (size_t i = 0; i < n && (left == UINT32_MAX || shown + 1 < left || shown + 1 == n);
	     i++, shown++)
		file_line(v, f, order[reverse ? n - 1 - i : i], cumulative, utf8);
	if (shown < n) {
		snprintf(more, sizeof(more), "+%zu more files", n - shown);
		put_line(v, more);
	}
	if (!n)
		put_line(v, f->files_on ? "  (no file I/O)" : "  (files need --files)");
	free(order);
}
