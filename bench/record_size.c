// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's part E: what --record costs, in bytes and in CPU, on frames
 * made here to look like two machines (history/history_write.c writes
 * them as a run would):
 *   idle: a box at rest at a 10 s interval: two disks, the journal's and a
 *     flusher's few writes, an hour of frames (360);
 *   busy: 200 rows a frame (200 processes on 4 disks with command lines,
 *     their counters changing every frame, latency histograms), an hour of
 *     frames at 10 s.
 * Prints bytes a frame, bytes an hour and the writer's CPU a frame, and
 * whether the targets hold (idle: <= 182 bytes a frame, 64 KB an hour;
 * busy: <= 1 MiB an hour).  Exit 0 either way: missing a target is a
 * finding, not a failure of the bench.
 *   record_size DIR
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "history_write.h"

#define HOUR_FRAMES	360
#define T0		1795572000	/* 2026-11-25T02:00:00Z */

struct machine {
	void *names_buf;
	struct res_table names;
	struct pmem_metrics pm;
	struct crashfree cf;
	struct proc_io *rows, **ptrs;
	struct row_latency *latency;
	char (*cmdlines)[64];
	size_t nrows;
	struct frame frame;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void machine_init(struct machine *m, size_t nrows, size_t ndevices)
{
	static const char *const disks[] = { "vda", "vdb", "nvme0n1", "zram0" };

	memset(m, 0, sizeof(*m));
	m->names_buf = malloc(1 << 20);
	res_table_init(&m->names, m->names_buf, 1 << 20, 4096);
	pmem_init(&m->pm);
	for (size_t d = 0; d < ndevices; d++)
		pmem_device_get(&m->pm, disks[d]);
	crashfree_init(&m->cf, 3600ULL * 1000000000ULL, 0);
	m->rows = calloc(nrows, sizeof(*m->rows));
	m->ptrs = calloc(nrows, sizeof(*m->ptrs));
	m->latency = calloc(nrows, sizeof(*m->latency));
	m->cmdlines = calloc(nrows, sizeof(*m->cmdlines));
	m->nrows = nrows;
	for (size_t i = 0; i < nrows; i++) {
		struct proc_io *row = &m->rows[i];
		char comm[16];

		snprintf(comm, sizeof(comm), i < 3 ? (const char *[]){ "jbd2/vda1-8",
			 "kworker/u8:1", "systemd-journal" }[i] : "worker-%zu", i);
		row->key.tgid = row->tgid = 300 + i * 7;
		row->key.dev = (uint32_t)(i % ndevices) << 20;
		snprintf(row->key.comm, sizeof(row->key.comm), "%s", comm);
		res_intern_str(&m->names, comm, &row->comm_name);
		res_intern_str(&m->names, disks[i % ndevices], &row->device_name);
		res_intern_str(&m->names, i % 3 ? "/system.slice/app.service" : "/",
			       &row->cgroup_name);
		res_intern_str(&m->names, i % 5 ? "app" : "root", &row->user_name);
		row->owner = (struct row_owner){ .start_ns = 1000000000ULL * i, .uid = i % 5 ? 1000 : 0,
						 .flags = ROW_OWNER_KNOWN };
		snprintf(m->cmdlines[i], sizeof(m->cmdlines[i]), "/usr/bin/%s --config /etc/app/%zu.conf",
			 comm, i);
		row->cmdline = i == 1 ? NULL : m->cmdlines[i];
	}
}

/* Frame k: in idle, the first rows write a little; in busy, every row. */
static void machine_frame(struct machine *m, unsigned int k, bool busy, uint64_t *seed)
{
	struct frame *f = &m->frame;

	memset(f, 0, sizeof(*f));
	f->wall.tv_sec = T0 + 10 * k;
	f->wall.tv_nsec = (k * 7919) % 1000000 + 1000000 * (rnd(seed) % 3);
	f->interval_s = 10 + (double)(rnd(seed) % 5) / 1000;
	f->names = &m->names;
	f->devices = &m->pm;
	f->crash = &m->cf;
	f->rows = m->ptrs;
	for (size_t d = 0; d < m->pm.count; d++) {
		struct pmem_device *dev = &m->pm.devices[d];
		bool active = busy || (d == 0 && k % 3 == 0);
		uint64_t ios = active ? (busy ? 100 + rnd(seed) % 900 : 2) : 0;

		memset(dev->counter, 0, sizeof(dev->counter));
		memset(dev->latency_slots, 0, sizeof(dev->latency_slots));
		memset(&dev->iostat_change, 0, sizeof(dev->iostat_change));
		dev->counter[PMEM_WRITE_IOS].delta = ios;
		dev->counter[PMEM_WRITE_BYTES].delta = ios * 4096;
		dev->op_latency_ios[IO_WRITE].delta = ios;
		dev->op_latency_ns[IO_WRITE].delta = ios * (50000 + rnd(seed) % 1000);
		if (ios)
			for (int s = 14; s < 18; s++)
				dev->latency_slots[IO_WRITE][s].delta = ios / 4 + rnd(seed) % 3;
		dev->has_iostat = true;
		dev->iostat_change.ns = 10000000000ULL + rnd(seed) % 5000000;
		dev->iostat_change.field[DS_WRITE_IOS] = ios;
		dev->iostat_change.field[DS_WRITE_SECTORS] = ios * 8;
		dev->iostat_change.field[DS_WRITE_TICKS] = ios / 10;
		dev->iostat_change.field[DS_IO_TICKS] = ios / 12;
		dev->iostat_change.field[DS_TIME_IN_QUEUE] = ios / 10;
		dev->iostat_change.field[DS_WRITE_MERGES] = ios / 7;
		iostat_x_of_change(&dev->iostat_change, &dev->iostat[0]);
	}
	for (size_t i = 0; i < m->nrows; i++) {
		struct proc_io *row = &m->rows[i];
		uint64_t ios;

		if (!busy && (i > 1 || k % 3))
			continue;	/* idle: the journal and the flusher, every 30 s */
		ios = busy ? 1 + rnd(seed) % 50 : 1;
		memset(row->delta, 0, sizeof(row->delta));
		row->delta[PMEM_WRITE_IOS] = ios;
		row->delta[PMEM_WRITE_BYTES] = ios * 4096;
		row->delta[PMEM_READ_IOS] = busy ? rnd(seed) % 20 : 0;
		row->delta[PMEM_READ_BYTES] = row->delta[PMEM_READ_IOS] * 4096;
		row->delta[PMEM_DIRTIED_BYTES] = busy ? ios * 4096 : 0;
		if (busy) {
			memset(&m->latency[i], 0, sizeof(m->latency[i]));
			m->latency[i].delta.slots[15] = ios;
			row->latency = &m->latency[i];
		}
		m->ptrs[f->nrows++] = row;
	}
}

static uint64_t file_bytes(const char *dir, const char *suffix)
{
	char path[4096];
	struct stat st;

	history_day_path(path, sizeof(path), dir, "2026-11-25", suffix);
	return stat(path, &st) ? 0 : (uint64_t)st.st_size;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void measure(const char *base, const char *name, size_t nrows, size_t ndevices, bool busy,
		    double target_hour)
{
	struct history_writer w = { 0 };
	struct machine m;
	uint64_t seed = 88172645463325252ULL, bytes;
	char dir[4096], cmd[8300];
	double cpu = 0;

	snprintf(dir, sizeof(dir), "%s/%s", base, name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	if (system(cmd)) {
		fprintf(stderr, "record_size: cannot make %s\n", dir);
		exit(1);
	}
	machine_init(&m, nrows, ndevices);
	w.dir = dir;
	w.dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	history_header_init(&w.header);
	snprintf(w.header.host, sizeof(w.header.host), "bench");
	snprintf(w.header.kernel, sizeof(w.header.kernel), "6.1.0-28-amd64");
	snprintf(w.header.boot_id, sizeof(w.header.boot_id), "8d3e6ad0-3f0f-4b6b-9f3c-0c0d7e0e1f2a");
	w.header.interval_ns = 10000000000ULL;
	history_writer_init(&w);
	for (unsigned int k = 0; k < HOUR_FRAMES; k++) {
		double before;

		machine_frame(&m, k, busy, &seed);
		before = cpu_s();
		history_writer_frame(&w, &m.frame, k * 10000000000ULL);
		cpu += cpu_s() - before;
	}
	history_writer_finish(&w);
	history_writer_free(&w);
	bytes = file_bytes(dir, ".dkr") + file_bytes(dir, ".dki");
	printf("| %s | %zu | %d | %.0f | %.1f KiB | %.0f us | %s |\n", name, nrows, HOUR_FRAMES,
	       (double)bytes / HOUR_FRAMES, bytes / 1024.0, cpu / HOUR_FRAMES * 1e6,
	       bytes <= target_hour ? "yes" : "NO");
	free(m.rows);
	free(m.ptrs);
	free(m.latency);
	free(m.cmdlines);
	free(m.names_buf);
	pmem_free(&m.pm);
	crashfree_free(&m.cf);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: record_size DIR\n");
		return 2;
	}
	printf("## E. --record: bytes and CPU a frame (an hour of frames at 10 s)\n\n");
	printf("| machine | rows a frame | frames | bytes a frame | an hour (data + index) |"
	       " writer's CPU a frame | target met |\n| --- | --- | --- | --- | --- | --- | --- |\n");
	measure(argv[1], "idle", 3, 2, false, 64000);
	measure(argv[1], "busy", 200, 4, true, 1 << 20);
	printf("\nTargets: idle at most 64 KB an hour (182 bytes a frame); 200 rows a frame at "
	       "most 1 MiB an hour.\n");
	return 0;
}
