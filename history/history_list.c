// SPDX-License-Identifier: GPL-2.0
/* --list DIR (history_list.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "array.h"
#include "history_list.h"
#include "jsonw.h"
#include "view.h"

/* The header h is the run before it going on (the run's next day file, or
 * the file opened again after a write failed). */
static bool same_run(const struct history_run *run, const struct history_header *h)
{
	return run->start_s == h->start_s && run->interval_ns == h->interval_ns &&
	       !strcmp(run->host, h->host) && !strcmp(run->boot_id, h->boot_id) &&
	       !strcmp(run->filter, h->filter);
}

static int begin_run(struct history_runs *runs, const struct history_header *h)
{
	struct history_run *run;

	if (runs->n && same_run(&runs->runs[runs->n - 1], h))
		return 0;
	if (array_reserve((void **)&runs->runs, &runs->cap, runs->n + 1, sizeof(*runs->runs)))
		return -ENOMEM;
	run = &runs->runs[runs->n++];
	memset(run, 0, sizeof(*run));
	snprintf(run->host, sizeof(run->host), "%s", h->host);
	snprintf(run->boot_id, sizeof(run->boot_id), "%s", h->boot_id);
	snprintf(run->filter, sizeof(run->filter), "%s", h->filter);
	run->start_s = h->start_s;
	run->interval_ns = h->interval_ns;
	return 0;
}

int history_runs_add_file(struct history_runs *runs, struct history_reader *r,
			  const uint8_t *buf, size_t len)
{
	/* what follows a header belongs to its run; before any, to none */
	struct history_run *run = NULL;
	enum history_item item;

	r->bad_records = 0;
	if (!history_reader_open(r, buf, len))
		return -EBADMSG;
	while ((item = history_reader_next(r)) != HISTORY_END) {
		switch (item) {
		case HISTORY_HEADER:
			if (begin_run(runs, &r->header)) {
				runs->bad_records += r->bad_records;
				return -ENOMEM;
			}
			run = &runs->runs[runs->n - 1];
			break;
		case HISTORY_FRAME:
			if (!run)
				break;
			if (!run->frames++)
				run->first_ns = r->frame_ns;
			run->last_ns = r->frame_ns;
			break;
		case HISTORY_GAP:
			if (run)
				run->gaps++;
			break;
		default:
			break;
		}
	}
	runs->bad_records += r->bad_records;
	return 0;
}

/* A file of dir, whole, read-only: its bytes, or NULL (an empty file too). */
static uint8_t *map_day_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	uint8_t *p;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		close(fd);
		return NULL;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	*len = st.st_size;
	return p;
}

int history_runs_of_dir(struct history_runs *runs, const char *dir, FILE *warn)
{
	struct history_reader r;
	struct dirent **names;
	int n = scandir(dir, &names, NULL, alphasort), err = 0;
	bool reader_ready;

	if (n < 0)
		return -errno;
	reader_ready = !history_reader_init(&r);
	if (!reader_ready)
		err = -ENOMEM;
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		char path[4096];
		uint64_t bad = runs->bad_records;
		size_t len = 0;
		uint8_t *buf;

		if (!err && strlen(name) == 14 && !strcmp(name + 10, ".dkr") &&
		    snprintf(path, sizeof(path), "%s/%s", dir, name) < (int)sizeof(path) &&
		    (buf = map_day_file(path, &len))) {
			err = history_runs_add_file(runs, &r, buf, len);
			if (err == -EBADMSG) {
				runs->refused++;
				if (warn)
					fprintf(warn, "diskio: --list: %s is not a record of diskio\n",
						path);
				err = 0;
			} else if (r.magic_damaged && warn) {
				fprintf(warn, "diskio: --list: %s: its first 8 bytes are damaged; its "
					"records were read\n", path);
			}
			if (runs->bad_records > bad && warn)
				fprintf(warn, "diskio: --list: %s: %" PRIu64 " damaged records passed "
					"over\n", path, runs->bad_records - bad);
			munmap(buf, len);
		}
		free(names[i]);
	}
	free(names);
	if (reader_ready)
		history_reader_free(&r);
	return err;
}

static struct timespec timespec_of_ns(uint64_t ns)
{
	return (struct timespec){ .tv_sec = ns / 1000000000ULL, .tv_nsec = ns % 1000000000ULL };
}

static void print_json(const struct history_run *run, struct jsonw *w)
{
	struct timespec start = { .tv_sec = run->start_s };
	char first[32], last[32];

	jsonw_object(w, NULL);
	json_write_record_head(w, "run", &start, run->host);
	jsonw_string(w, "boot_id", run->boot_id, strlen(run->boot_id));
	jsonw_double(w, "interval_s", "%g", (double)run->interval_ns / 1e9);
	if (run->filter[0])
		jsonw_string(w, "filter", run->filter, strlen(run->filter));
	else
		jsonw_null(w, "filter");
	if (run->frames) {
		struct timespec t = timespec_of_ns(run->first_ns);

		format_utc(first, sizeof(first), &t);
		t = timespec_of_ns(run->last_ns);
		format_utc(last, sizeof(last), &t);
		jsonw_string(w, "first", first, strlen(first));
		jsonw_string(w, "last", last, strlen(last));
	} else {
		jsonw_null(w, "first");
		jsonw_null(w, "last");
	}
	jsonw_u64(w, "frames", run->frames);
	jsonw_u64(w, "gaps", run->gaps);
	jsonw_object_end(w);
	jsonw_end_record(w);
}

static void print_line(const struct history_run *run, FILE *out)
{
	char first[32] = "-", last[32] = "-";

	if (run->frames) {
		struct timespec t = timespec_of_ns(run->first_ns);

		format_utc(first, sizeof(first), &t);
		t = timespec_of_ns(run->last_ns);
		format_utc(last, sizeof(last), &t);
	}
	batch_write_name(out, run->host, strlen(run->host));
	fputc(' ', out);
	batch_write_name(out, run->filter, strlen(run->filter));
	fprintf(out, " %s %s %" PRIu64 " %" PRIu64 "\n", first, last, run->frames, run->gaps);
}

void history_runs_print(const struct history_runs *runs, FILE *out, bool json)
{
	struct jsonw w;

	if (json)
		jsonw_init(&w, out);
	else
		fputs("# host filter first last frames gaps\n", out);
	for (size_t i = 0; i < runs->n; i++) {
		if (json)
			print_json(&runs->runs[i], &w);
		else
			print_line(&runs->runs[i], out);
	}
}

void history_runs_free(struct history_runs *runs)
{
	free(runs->runs);
	memset(runs, 0, sizeof(*runs));
}
