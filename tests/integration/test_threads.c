// SPDX-License-Identifier: GPL-2.0
/*
 * Threads, as iotop shows them: a process whose two threads, named with
 * pthread_setname_np(), write 3 and 5 blocks of 64 KiB with O_DIRECT to a
 * zram disk.  With -t: two rows, each with its thread's TID, its name and
 * its exact bytes (JSON: "tid", and "pid" the process's); -p TID selects
 * one thread.  Without -t: one row with both threads' bytes, under the
 * process's own name (its main thread's), not a thread's; -p TID then
 * counts that thread's bytes alone, on its process's row (issue 48).
 */
#include "harness.h"
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#define BLOCK		65536
#define A_BLOCKS	3
#define B_BLOCKS	5

TestSuite(threads, .init = h_setup, .fini = h_teardown, .timeout = 60);

struct writer {
	const char *name;
	const char *path;
	int blocks;
	off_t offset;
	int tid_fd;		/* the thread writes its TID here */
	int gate_fd;		/* then waits for EOF here */
	int failed;
};

static void *write_blocks(void *arg)
{
	struct writer *w = arg;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	char byte;
	void *buf;
	int fd;

	pthread_setname_np(pthread_self(), w->name);
	if (write(w->tid_fd, &tid, sizeof(tid)) != sizeof(tid) ||
	    read(w->gate_fd, &byte, 1) != 0 || posix_memalign(&buf, 4096, BLOCK)) {
		w->failed = 1;
		return NULL;
	}
	memset(buf, 0x5a, BLOCK);
	fd = open(w->path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	for (int i = 0; fd >= 0 && i < w->blocks; i++)
		if (pwrite(fd, buf, BLOCK, w->offset + (off_t)i * BLOCK) != BLOCK)
			w->failed = 1;
	if (fd < 0)
		w->failed = 1;
	else
		close(fd);
	free(buf);
	return NULL;
}

struct family {
	pid_t pid;
	pid_t tid_a, tid_b;
	int gate;		/* write end: closed to let the threads write */
};

/* A child process "thr-main" with threads writer-a and writer-b, waiting. */
static void start_family(const char *path, struct family *f)
{
	int tids[2], gate[2];

	cr_assert_eq(pipe(tids), 0);
	cr_assert_eq(pipe(gate), 0);
	f->pid = fork();
	cr_assert_geq(f->pid, 0);
	if (f->pid == 0) {
		struct writer a = { "writer-a", path, A_BLOCKS, 0, tids[1], gate[0], 0 };
		struct writer b = { "writer-b", path, B_BLOCKS, 1 << 20, tids[1], gate[0], 0 };
		pthread_t ta, tb;

		close(gate[1]);
		close(tids[0]);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, "thr-main");
		if (pthread_create(&ta, NULL, write_blocks, &a) ||
		    pthread_create(&tb, NULL, write_blocks, &b))
			_exit(2);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		_exit(a.failed || b.failed);
	}
	h_track_child(f->pid);
	close(tids[1]);
	close(gate[0]);
	f->gate = gate[1];
	/* writer-a's TID comes first only if it was scheduled first: read
	 * both, tell them apart by the name in /proc. */
	for (int i = 0; i < 2; i++) {
		char path_comm[64], comm[32] = "";
		pid_t tid;

		cr_assert_eq(read(tids[0], &tid, sizeof(tid)), (ssize_t)sizeof(tid));
		snprintf(path_comm, sizeof(path_comm), "/proc/%d/task/%d/comm", (int)f->pid,
			 (int)tid);
		cr_assert_gt(h_read_file(path_comm, comm, sizeof(comm)), 0);
		if (!strncmp(comm, "writer-a", 8))
			f->tid_a = tid;
		else
			f->tid_b = tid;
	}
	close(tids[0]);
	cr_assert(f->tid_a && f->tid_b, "the threads' TIDs");
}

static void run_family(struct family *f)
{
	close(f->gate);
	h_expect_child_ok(f->pid, 20000);
	h_untrack_child(f->pid);
}

/* diskio with args while f's threads write; its output in d. */
static void watch(struct h_diskio *d, struct family *f, const char *const args[])
{
	h_diskio_start(d, args, NULL);
	h_diskio_wait_attached(d, H_ATTACH_TIMEOUT_MS);
	run_family(f);
	h_diskio_finish(d, 2);
}

static int64_t bytes_of(const struct h_diskio *d, uint32_t id, const char *comm, int *rows)
{
	int64_t sum = 0;

	*rows = 0;
	for (size_t i = 0; i < d->nlines; i++) {
		struct h_batch_row row;

		if (d->lines[i][0] == '#' || !h_batch_parse_row(d->lines[i], &row) ||
		    row.pid != id)
			continue;
		cr_expect_str_eq(row.comm, comm, "%s", d->lines[i]);
		sum += row.c.write_bytes;
		(*rows)++;
	}
	return sum;
}

Test(threads, with_t_each_thread_is_a_row_with_its_tid_and_name)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	struct h_diskio d;
	struct family f;
	int rows;

	start_family(zram->path, &f);
	watch(&d, &f, H_ARGS("-b", "-t", "-D", zram->name, "0.5"));
	cr_expect_eq(bytes_of(&d, (uint32_t)f.tid_a, "writer-a", &rows), A_BLOCKS * BLOCK);
	cr_expect_eq(bytes_of(&d, (uint32_t)f.tid_b, "writer-b", &rows), B_BLOCKS * BLOCK);
	cr_expect_eq(bytes_of(&d, (uint32_t)f.pid, "thr-main", &rows), 0);
	cr_expect_eq(rows, 0, "no row of the process itself with -t");
	h_diskio_free(&d);
}

Test(threads, without_t_one_row_under_the_process_name)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	struct h_diskio d;
	struct family f;
	int rows;

	start_family(zram->path, &f);
	watch(&d, &f, H_ARGS("-b", "-D", zram->name, "0.5"));
	cr_expect_eq(bytes_of(&d, (uint32_t)f.pid, "thr-main", &rows),
		     (A_BLOCKS + B_BLOCKS) * BLOCK);
	cr_expect_eq(rows, 1, "one row for the process, not one per thread name");
	h_diskio_free(&d);
}

Test(threads, without_t_p_tid_counts_that_thread_on_its_process_row)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	char tid_arg[16];
	struct h_diskio d;
	struct family f;
	int rows, total = 0;

	start_family(zram->path, &f);
	snprintf(tid_arg, sizeof(tid_arg), "%d", (int)f.tid_b);
	watch(&d, &f, H_ARGS("-b", "-p", tid_arg, "-D", zram->name, "0.5"));
	cr_expect_eq(bytes_of(&d, (uint32_t)f.pid, "thr-main", &rows), B_BLOCKS * BLOCK,
		     "writer-b's bytes alone, under its process");
	for (size_t i = 0; i < d.nlines; i++)
		total += d.lines[i][0] != '#';
	cr_expect_eq(total, rows, "rows of nothing but the process");
	h_diskio_free(&d);
}

Test(threads, json_has_tid_and_the_process_pid_and_p_takes_a_tid)
{
	const struct h_dev *zram = h_zram_create(64 << 20);
	struct h_counters sum = { 0 };
	char tid_arg[16];
	struct h_diskio d;
	struct family f;
	bool seen = false;

	start_family(zram->path, &f);
	snprintf(tid_arg, sizeof(tid_arg), "%d", (int)f.tid_b);
	watch(&d, &f, H_ARGS("--json", "-t", "-p", tid_arg, "-D", zram->name, "0.5"));
	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv procs, proc;
		size_t k = 0;

		if (!h_json_processes(d.lines[i], &procs))
			continue;
		while (h_json_next_elem(procs, &k, &proc)) {
			int64_t pid, tid;
			struct h_counters c;
			struct h_jv comm;

			cr_assert(h_json_get_int(proc, "pid", &pid), "%s", d.lines[i]);
			cr_assert(h_json_get_int(proc, "tid", &tid), "%s", d.lines[i]);
			cr_assert(h_json_get(proc, "comm", &comm));
			cr_expect_eq(pid, f.pid, "pid is the process's: %s", d.lines[i]);
			cr_expect_eq(tid, f.tid_b, "-p TID selects that thread only: %s",
				     d.lines[i]);
			cr_expect(h_json_str_eq(comm, "writer-b"), "%s", d.lines[i]);
			cr_assert(h_json_counters(proc, &c));
			h_counters_add(&sum, &c);
			seen = true;
		}
	}
	cr_expect(seen, "no row for writer-b");
	cr_expect_eq(sum.write_bytes, B_BLOCKS * BLOCK);
	h_diskio_free(&d);
}

Test(threads, t_has_no_effect_with_trace_mode)
{
	struct h_result r;

	h_run(H_ARGS(h_diskio_path(), "-T", "-t", "1", "1"), NULL, NULL, 10000, &r);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2, "exit %d", r.status);
	cr_expect_not_null(strstr(r.err, "diskio: -t has no effect with -T"), "%s", r.err);
	h_result_free(&r);
}
