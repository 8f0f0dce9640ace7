// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the /proc reader (procfs.c): stat lines (names with
 * parentheses and spaces, a field of 2^64 - 1), the effective uid, the
 * cgroup path, a command line read only from the process a row was made
 * for, and the lister the top view's `o` uses, over a /proc tree of the
 * test's own, processes and threads.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "procfs.h"

static char root[64];

static void make_root(void)
{
	snprintf(root, sizeof(root), "/tmp/diskio-test-procfs-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_root(void)
{
	nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(procfs, .init = make_root, .fini = remove_root);

static void put(const char *rel, const char *text, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(text, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static void dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	cr_assert_eq(mkdir(path, 0755), 0, "%s: %s", path, strerror(errno));
}

/* A stat line of 52 fields: flags (9), nice (19), starttime (22) and policy
 * (41) as given, rsslim (25) as the kernel shows "unlimited". */
static void stat_line(char *buf, size_t size, uint32_t pid, const char *name, uint32_t flags,
		      int nice, uint64_t start, unsigned int policy)
{
	int n = snprintf(buf, size, "%" PRIu32 " (%s) S", pid, name);

	for (int field = 4; field <= 52; field++) {
		switch (field) {
		case 9:
			n += snprintf(buf + n, size - n, " %" PRIu32, flags);
			break;
		case 19:
			n += snprintf(buf + n, size - n, " %d", nice);
			break;
		case 22:
			n += snprintf(buf + n, size - n, " %" PRIu64, start);
			break;
		case 25:
			n += snprintf(buf + n, size - n, " 18446744073709551615");
			break;
		case 41:
			n += snprintf(buf + n, size - n, " %u", policy);
			break;
		default:
			n += snprintf(buf + n, size - n, " %d", field == 4 ? 1 : 0);
		}
	}
	snprintf(buf + n, size - n, "\n");
}

struct fake_task {
	const char *dir;	/* "123" or "123/task/124" */
	uint32_t pid;
	const char *name;
	uint32_t flags;
	int nice;
	uint64_t start;
	unsigned int policy;
	uint32_t uid;
	const char *cmdline;	/* NULL: an empty file */
	size_t cmdline_len;
	const char *cgroup;
};

static void make_task(const struct fake_task *task)
{
	char rel[PATH_MAX], text[2048];

	dir(task->dir);
	stat_line(text, sizeof(text), task->pid, task->name, task->flags, task->nice, task->start,
		  task->policy);
	snprintf(rel, sizeof(rel), "%s/stat", task->dir);
	put(rel, text, strlen(text));
	snprintf(text, sizeof(text), "Name:\t%s\nUmask:\t0022\nState:\tS (sleeping)\n"
		 "Uid:\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu32 "\nGid:\t0\t0\t0\t0\n",
		 task->name, task->uid + 1, task->uid, task->uid, task->uid);
	snprintf(rel, sizeof(rel), "%s/status", task->dir);
	put(rel, text, strlen(text));
	snprintf(rel, sizeof(rel), "%s/cmdline", task->dir);
	put(rel, task->cmdline ? task->cmdline : "", task->cmdline ? task->cmdline_len : 0);
	snprintf(text, sizeof(text), "0::%s\n", task->cgroup ? task->cgroup : "/");
	snprintf(rel, sizeof(rel), "%s/cgroup", task->dir);
	put(rel, text, strlen(text));
}

Test(procfs, stat_lines_whatever_the_name)
{
	char line[2048];
	struct proc_stat st;

	stat_line(line, sizeof(line), 42, "a) (b c", 0x400040, -5, 123456, 5);
	cr_assert(proc_stat_parse(line, strlen(line), &st));
	cr_assert_str_eq(st.name, "a) (b c", "between the first '(' and the last ')'");
	cr_assert_eq(st.flags, 0x400040);
	cr_assert_eq(st.nice, -5);
	cr_assert_eq(st.start_ticks, 123456);
	cr_assert_eq(st.policy, 5);
	stat_line(line, sizeof(line), 7, "kworker/u8:1-flush-254:0", 0x04208060, 0, 9, 0);
	cr_assert(proc_stat_parse(line, strlen(line), &st));
	cr_assert_str_eq(st.name, "kworker/u8:1-flush-254:0");
	/* before Linux 2.5.19 there was no policy: it is 0 */
	{
		static const char old[] = "1 (init) S 0 1 1 0 -1 256 0 0 0 0 0 0 0 0 20 0 1 0 7";

		cr_assert(proc_stat_parse(old, strlen(old), &st));
	}
	cr_assert_eq(st.start_ticks, 7);
	cr_assert_eq(st.policy, 0);
	/* what is no stat line */
	cr_assert_not(proc_stat_parse("", 0, &st));
	cr_assert_not(proc_stat_parse("1 init S 0", 10, &st), "no parentheses");
	cr_assert_not(proc_stat_parse("1 (x) S 0 1 1 0", 15, &st), "no start");
	{
		static const char bad[] = "1 (x) S 0 1 1 0 -1 abc 0 0 0 0 0 0 0 0 20 0 1 0 7";

		cr_assert_not(proc_stat_parse(bad, strlen(bad), &st), "flags not a number");
	}
	cr_assert_not(proc_stat_parse("1 (x)\0S", 7, &st));
}

Test(procfs, status_uid_is_the_effective_one)
{
	static const char status[] = "Name:\tsudo\nUid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\n";
	uint32_t uid = 42;

	cr_assert(proc_status_euid(status, strlen(status), &uid));
	cr_assert_eq(uid, 0, "a set-user-ID program: ps -o user shows its effective user");
	cr_assert_not(proc_status_euid("Name:\tx\n", 8, &uid));
	cr_assert_not(proc_status_euid("Uid:\t1000\n", 10, &uid));
}

Test(procfs, cgroup_v2_path)
{
	static const char v1_and_v2[] = "12:memory:/x\n0::/system.slice/cron.service\n";
	char path[PATH_MAX];

	cr_assert(proc_cgroup_path(v1_and_v2, strlen(v1_and_v2), path, sizeof(path)));
	cr_assert_str_eq(path, "/system.slice/cron.service");
	cr_assert_not(proc_cgroup_path("12:memory:/x\n", 13, path, sizeof(path)), "v1 only");
}

Test(procfs, start_ticks_as_proc_counts_them)
{
	cr_assert_eq(proc_start_ticks(12345678901ULL, 100), 1234);
	cr_assert_eq(proc_start_ticks(9999999, 100), 0);
	cr_assert_eq(proc_start_ticks(1000000000, 1000), 1000);
	cr_assert_eq(proc_start_ticks(5, 0), UINT64_MAX, "no unit: any start");
	cr_assert_eq(proc_start_ticks(5, 3), UINT64_MAX, "no whole ns per tick: any start");
}

Test(procfs, a_command_line_only_from_the_process_of_the_row)
{
	static const char args[] = "dd\0if=/dev/zero\0of=/x\0";
	const struct fake_task dd = {
		.dir = "300", .pid = 300, .name = "dd", .start = 5000, .uid = 0,
		.cmdline = args, .cmdline_len = sizeof(args) - 1,
	};
	const struct fake_task zombie = { .dir = "301", .pid = 301, .name = "dd", .start = 5 };
	char out[CMDLINE_SIZE];

	make_task(&dd);
	make_task(&zombie);
	cr_assert_eq(proc_cmdline(root, 300, 5000, out), 21);
	cr_assert_str_eq(out, "dd if=/dev/zero of=/x");
	cr_assert_eq(proc_cmdline(root, 300, UINT64_MAX, out), 21, "any start");
	cr_assert_eq(proc_cmdline(root, 300, 4999, out), 0, "another process has the pid now");
	cr_assert_str_empty(out);
	cr_assert_eq(proc_cmdline(root, 302, UINT64_MAX, out), 0, "gone");
	cr_assert_eq(proc_cmdline(root, 301, 5, out), 0, "a zombie has none");
	cr_assert_eq(proc_cmdline(root, 0, UINT64_MAX, out), 0);
	cr_assert_eq(proc_cmdline("/nonexistent/diskio", 300, UINT64_MAX, out), 0);
}

Test(procfs, a_long_command_line_is_cut)
{
	char args[2000];
	const struct fake_task task = {
		.dir = "310", .pid = 310, .name = "sh", .start = 1,
		.cmdline = args, .cmdline_len = sizeof(args),
	};
	char out[CMDLINE_SIZE];

	memset(args, 'y', sizeof(args));
	args[sizeof(args) - 1] = '\0';
	make_task(&task);
	cr_assert_eq(proc_cmdline(root, 310, 1, out), CMDLINE_MAX + 3);
	cr_assert_str_eq(out + CMDLINE_MAX, CMDLINE_CUT);
}

struct listed {
	struct proc_entry e[16];
	char names[16][PROC_NAME_MAX + 1], cmdlines[16][CMDLINE_SIZE], cgroups[16][PATH_MAX];
	size_t n;
	size_t stop_after;	/* 0: never */
};

static int keep_entry(const struct proc_entry *e, void *arg)
{
	struct listed *l = arg;

	cr_assert_lt(l->n, 16);
	l->e[l->n] = *e;
	snprintf(l->names[l->n], sizeof(l->names[0]), "%s", e->name);
	snprintf(l->cmdlines[l->n], sizeof(l->cmdlines[0]), "%s", e->cmdline);
	snprintf(l->cgroups[l->n], sizeof(l->cgroups[0]), "%s", e->cgroup ? e->cgroup : "(none)");
	l->n++;
	return l->stop_after && l->n == l->stop_after;
}

static const struct proc_entry *entry_of(const struct listed *l, uint32_t pid, size_t *i)
{
	for (*i = 0; *i < l->n; (*i)++)
		if (l->e[*i].pid == pid)
			return &l->e[*i];
	cr_assert_fail("%" PRIu32 " not listed", pid);
	return NULL;
}

static int fake_ioprio(uint32_t tid, void *arg)
{
	(void)arg;
	return tid == 401 ? 3 << 13 : tid == 402 ? -1 : 0;
}

/* The tree of the lister's tests: a process, its second thread, a kernel
 * worker, an idle-class process, one whose ioprio cannot be read, and
 * things in /proc that are no process. */
static void make_listed_tree(void)
{
	static const char bash_args[] = "bash\0-c\0sleep 100\0";
	static const char idle_args[] = "tar\0cf\0-\0";
	const struct fake_task tasks[] = {
		{ .dir = "400", .pid = 400, .name = "bash", .start = 10, .uid = 1000,
		  .cmdline = bash_args, .cmdline_len = sizeof(bash_args) - 1,
		  .cgroup = "/user.slice/user-1000.slice" },
		{ .dir = "401", .pid = 401, .name = "tar", .start = 11, .uid = 65534, .nice = 19,
		  .cmdline = idle_args, .cmdline_len = sizeof(idle_args) - 1,
		  .cgroup = "/system.slice/backup.service" },
		{ .dir = "402", .pid = 402, .name = "kworker/u8:1-flush-254:0",
		  .flags = PROC_PF_KTHREAD | PROC_PF_WQ_WORKER, .start = 1, .nice = -20 },
	};

	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		make_task(&tasks[i]);
	dir("400/task");
	{
		const struct fake_task threads[] = {
			{ .dir = "400/task/400", .pid = 400, .name = "bash", .start = 10,
			  .uid = 1000, .cmdline = bash_args, .cmdline_len = sizeof(bash_args) - 1 },
			{ .dir = "400/task/405", .pid = 405, .name = "worker thread", .start = 12,
			  .uid = 1000, .policy = 1, .cmdline = bash_args,
			  .cmdline_len = sizeof(bash_args) - 1 },
		};

		for (size_t i = 0; i < 2; i++)
			make_task(&threads[i]);
	}
	dir("401/task");
	dir("402/task");
	dir("self");
	put("uptime", "1.00 1.00\n", 10);
	dir("403");		/* gone while listed: no stat */
}

Test(procfs, every_process_with_its_name_user_priority_and_command)
{
	struct proc_lister lister = { .proc_root = root, .ioprio_of = fake_ioprio };
	struct listed *l = calloc(1, sizeof(*l));
	const struct proc_entry *e;
	size_t i;

	make_listed_tree();
	cr_assert_eq(proc_list(&lister, keep_entry, l), 3);
	cr_assert_eq(l->n, 3);
	e = entry_of(l, 400, &i);
	cr_assert_eq(e->tgid, 400);
	cr_assert_str_eq(e->comm, "bash");
	cr_assert_eq(e->uid, 1000, "the effective uid (the real one is 1001 here)");
	cr_assert_str_eq(l->cmdlines[i], "bash -c sleep 100");
	cr_assert_eq(e->ioprio, 0);
	cr_assert_not(e->kthread);
	cr_assert_str_eq(l->cgroups[i], "(none)", "not asked for");
	e = entry_of(l, 401, &i);
	cr_assert_eq(e->ioprio, 3 << 13);
	cr_assert_eq(e->nice, 19);
	cr_assert_eq(e->uid, 65534);
	e = entry_of(l, 402, &i);
	cr_assert(e->kthread);
	cr_assert_eq(e->ioprio, 0, "not known: none set");
	cr_assert_eq(e->nice, -20);
	cr_assert_str_eq(l->names[i], "kworker/u8:1-flush-254:0", "as ps shows it");
	cr_assert_str_eq(e->comm, "kworker/u8:1", "as -c matches it");
	cr_assert_str_empty(l->cmdlines[i]);
	free(l);
}

Test(procfs, threads_and_cgroups_when_asked)
{
	struct proc_lister lister = { .proc_root = root, .threads = true, .cgroups = true };
	struct listed *l = calloc(1, sizeof(*l));
	const struct proc_entry *e;
	size_t i;

	make_listed_tree();
	cr_assert_eq(proc_list(&lister, keep_entry, l), 2, "401 and 402 have no threads listed");
	e = entry_of(l, 405, &i);
	cr_assert_eq(e->tgid, 400);
	cr_assert_str_eq(e->comm, "worker thread");
	cr_assert_eq(e->policy, 1);
	cr_assert_str_eq(l->cmdlines[i], "bash -c sleep 100", "the process's");
	e = entry_of(l, 400, &i);
	cr_assert_str_eq(l->cgroups[i], "/");
	free(l);

	/* every process, each with its cgroup; stopped when asked */
	lister.threads = false;
	l = calloc(1, sizeof(*l));
	cr_assert_eq(proc_list(&lister, keep_entry, l), 3);
	entry_of(l, 401, &i);
	cr_assert_str_eq(l->cgroups[i], "/system.slice/backup.service");
	free(l);
	l = calloc(1, sizeof(*l));
	l->stop_after = 1;
	cr_assert_eq(proc_list(&lister, keep_entry, l), 1);
	free(l);
	lister.proc_root = "/nonexistent/diskio-proc";
	cr_assert_eq(proc_list(&lister, keep_entry, NULL), -ENOENT);
}
