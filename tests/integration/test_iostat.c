// SPDX-License-Identifier: GPL-2.0
/*
 * Each device's iostat -x figures against sysstat's own iostat, the peer
 * tool people run beside iotop: under a steady fio job (rate-limited random
 * reads and writes with O_DIRECT) on a zram disk (bio-based) and on a loop
 * device (blk-mq), `diskio -b DEV 3 1` and `iostat -dxy -o JSON DEV 3 1`,
 * started together once diskio is attached, agree on r/s, w/s, rkB/s, wkB/s
 * (2%), r_await and w_await (5% or 0.02 ms), aqu-sz (10% or 0.02), rareq-sz
 * (1%) and %util (2 points).  The windows differ by the few milliseconds
 * between diskio's start line and iostat's first read: the job's rates are
 * fixed so that those do not matter.
 */
#include "harness.h"
#include <math.h>

#define DEV_SIZE	(256ULL * 1024 * 1024)

TestSuite(iostat, .init = h_setup, .fini = h_teardown, .timeout = 120);

/* fio: 1500 reads and 500 writes per second, 4 KiB, until killed. */
static pid_t start_fio(const struct h_dev *dev)
{
	return h_start_fio(dev->path, H_ARGS("--name=steady", "--rw=randrw", "--rwmixread=75",
					     "--bs=4k", "--direct=1", "--ioengine=libaio",
					     "--iodepth=4", "--rate_iops=1500,500", "--time_based",
					     "--runtime=60"));
}

/* The number after "KEY": in text (iostat's JSON, "r/s": 1.00) or after
 * KEY= (diskio's batch line, r/s=1.00). */
static double figure(const char *text, const char *key, bool json)
{
	char pattern[64];
	const char *at;
	char *end;
	double value;

	snprintf(pattern, sizeof(pattern), json ? "\"%s\":" : " %s=", key);
	at = strstr(text, pattern);
	cr_assert_not_null(at, "no %s in %.600s", key, text);
	value = strtod(at + strlen(pattern), &end);
	cr_assert_neq(end, at + strlen(pattern), "%s is not a number in %.600s", key, text);
	return value;
}

struct tolerance {
	const char *key;
	double relative;	/* of iostat's value */
	double absolute;	/* or this much, whichever is larger */
};

static const struct tolerance tolerances[] = {
	{ "r/s", 0.02, 0 }, { "w/s", 0.02, 0 }, { "rkB/s", 0.02, 0 }, { "wkB/s", 0.02, 0 },
	{ "r_await", 0.05, 0.02 }, { "w_await", 0.05, 0.02 }, { "aqu-sz", 0.10, 0.02 },
	{ "rareq-sz", 0.01, 0 }, { "util", 0, 2.0 },
};

static void agree_with_iostat(const struct h_dev *dev)
{
	char iostat_argv_dev[32];
	const char *device_line = NULL;
	const char *disk;
	struct h_result r;
	struct h_diskio d;
	int status;
	pid_t fio;

	if (!h_have_program("fio") || !h_have_program("iostat"))
		cr_skip_test("fio or sysstat's iostat is not installed");
	fio = start_fio(dev);
	h_sleep_ms(1500);	/* the job at its rates */
	h_diskio_start(&d, H_ARGS("-b", "-D", dev->name, "3", "1"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	snprintf(iostat_argv_dev, sizeof(iostat_argv_dev), "%s", dev->name);
	h_run(H_ARGS("iostat", "-dxy", "-o", "JSON", iostat_argv_dev, "3", "1"), NULL, NULL,
	      20000, &r);
	cr_assert_eq(r.status, 0, "iostat: %s", r.err);
	status = h_diskio_stop(&d, 0, 20000);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "diskio: %s", d.err);
	h_kill_child(fio);
	h_untrack_child(fio);
	for (size_t i = 0; i < d.nlines; i++) {
		char prefix[64];

		snprintf(prefix, sizeof(prefix), "# device %s ", dev->name);
		if (!strncmp(d.lines[i], prefix, strlen(prefix)))
			device_line = d.lines[i];
	}
	if (!device_line)
		h_diskio_dump(&d, "no device line");
	cr_assert_not_null(device_line);
	disk = strstr(r.out, "\"disk_device\"");
	cr_assert_not_null(disk, "%s", r.out);
	cr_assert(strstr(disk, dev->name), "%s", r.out);
	for (size_t i = 0; i < sizeof(tolerances) / sizeof(tolerances[0]); i++) {
		const struct tolerance *t = &tolerances[i];
		double want = figure(disk, t->key, true), got = figure(device_line, t->key, false);
		double slack = fmax(t->relative * fabs(want), t->absolute);

		cr_expect_leq(fabs(got - want), slack + 1e-9,
			      "%s: %s: diskio %.2f, iostat %.2f (at most %.2f apart)\n%s\n%s",
			      dev->name, t->key, got, want, slack, device_line, disk);
	}
	cr_expect_gt(figure(device_line, "r/s", false), 1000, "the job did not run: %s",
		     device_line);
	h_result_free(&r);
	h_diskio_free(&d);
}

Test(iostat, zram_agrees_with_sysstat)
{
	agree_with_iostat(h_zram_create(DEV_SIZE));
}

Test(iostat, loop_agrees_with_sysstat)
{
	agree_with_iostat(h_loop_create(DEV_SIZE));
}
