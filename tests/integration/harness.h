/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h: helpers for diskio's root integration tests (Criterion),
 * implemented in harness.c (linked into every test binary with
 * ../json_reader.c).  Include this header FIRST (it defines _GNU_SOURCE).
 *
 * The tests run the real binary named by the environment variable DISKIO
 * (`make integration` sets it; default ./diskio) against block devices they
 * create, with child processes doing known I/O:
 *
 *	TestSuite(core, .init = h_setup, .fini = h_teardown, .timeout = 40);
 *
 *	Test(core, example)
 *	{
 *		const struct h_dev *zram = h_zram_create(64 << 20);
 *		static const struct h_io ops[] = { { 'w', 0, 4096, 256 } };
 *		struct h_diskio d;
 *
 *		h_diskio_start(&d, H_ARGS("--json", "-D", zram->name, "0.5"), NULL);
 *		h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
 *		h_expect_child_ok(h_spawn_io("dio-x", zram->path, ops, 1, NULL), 10000);
 *		h_diskio_finish(&d, 2);		// two more intervals, SIGINT, exit 0
 *		... h_json_sum_process(d.lines, d.nlines, pid, zram->name, NULL, &sum) ...
 *		h_diskio_free(&d);
 *	}
 *
 * Tests must not run in parallel (they count I/O on the machine and load BPF
 * programs): a constructor below sets CRITERION_JOBS=1 unless it is already
 * set (define H_ALLOW_PARALLEL before including to opt out), and h_setup()
 * takes a lock (H_STATE_DIR/lock) shared by every test binary that uses this
 * harness.  Devices are removed at cleanup even when an assertion fails, and
 * leftovers of killed runs are swept.  Every child forked here gets
 * PR_SET_PDEATHSIG, so that a test killed by Criterion's timeout does not
 * leave diskio or I/O children behind.
 */
#ifndef DISKIO_HARNESS_H
#define DISKIO_HARNESS_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fs.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Where the harness keeps its lock, loop backing files and ownership marks. */
#define H_STATE_DIR		"/dev/shm/diskio-itest"
#define H_LOCK_WAIT_MS		30000
/* Timeouts that fit a loaded 2-CPU VM. */
#define H_ATTACH_TIMEOUT_MS	15000	/* BPF load + attach + first output */
#define H_EXIT_TIMEOUT_MS	5000	/* diskio's exit after SIGINT */
#define H_CHILD_TIMEOUT_MS	15000	/* an I/O child's whole run */

/* A NULL-terminated argument list for h_diskio_start()/h_run(). */
#define H_ARGS(...)	((const char *const[]){ __VA_ARGS__, NULL })

#if !defined(H_ALLOW_PARALLEL) && !defined(H__HARNESS_C)
/* Criterion reads CRITERION_JOBS when it parses its options, after
 * constructors.  In the header so that each test file decides (harness.c
 * does not). */
__attribute__((constructor)) static void h__serial_jobs(void)
{
	setenv("CRITERION_JOBS", "1", 0);
}
#endif

/* ================================================================ time == */

/* CLOCK_MONOTONIC in milliseconds. */
int64_t h_now_ms(void);
void h_sleep_ms(int ms);

/* ============================================================== children == */

/* Remember a child so that h_cleanup() kills and reaps it. */
void h_track_child(pid_t pid);
void h_untrack_child(pid_t pid);

/* Wait up to timeout_ms for pid to exit (polling waitpid).  0 and *status
 * when it did, -1 on timeout (the child is left running). */
int h_wait_pid(pid_t pid, int timeout_ms, int *status);

/* Kill a child (SIGKILL) and reap it. */
void h_kill_child(pid_t pid);

/* "exit 0", "killed by signal 9", ... for assertion messages. */
const char *h_status_str(int status, char *buf, size_t size);

/* In a freshly forked child: die with the test, close every inherited
 * descriptor from 3 up except keep (-1: none). */
void h__child_prepare(int keep);

/* A child named comm that writes writes x size bytes with O_DIRECT at
 * offsets 0, size, ... of path, going on past failures; the number of
 * write() calls that failed comes back through *count_fd, which
 * h_failed_writes() reads. */
pid_t h_spawn_failing_writer(const char *comm, const char *path, uint32_t size, int writes,
			     int *count_fd);
/* The failed writes such a writer sent on count_fd (asserts it sent them),
 * count_fd closed. */
uint32_t h_failed_writes(int count_fd);

/* The mount of cgroup v1's controller (a word of its mount options, as
 * "blkio"), from /proc/mounts into dir; false if none is mounted. */
bool h_cgroup_v1_mount(const char *controller, char *dir, size_t size);

/* The cgroup2 mount point (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a
 * hybrid system), from /proc/mounts into dir; false if none is mounted. */
bool h_cgroup2_mount(char *dir, size_t size);

/* A new cgroup v1 blkio group that holds its tasks to iops reads a second
 * of dev (blkio.throttle.read_iops_device), its path into group; one at a
 * time, removed by h_cleanup() after the children.  Skips the test where
 * no v1 blkio hierarchy is mounted. */
struct h_dev;
void h_throttle_group(const struct h_dev *dev, int iops, char *group, size_t size);

/* A reader in such a group (h_throttle_group()), named comm: threads
 * threads, each reading `reads` blocks of block bytes with O_DIRECT from
 * path (NULL: dev->path) at offsets below span, then it exits 0 (reads 0:
 * until killed).  In v2_group's cgroup.procs too, unless NULL. */
struct h_throttled_read {
	const struct h_dev *dev;
	const char *path;
	uint64_t span;
	size_t block;
	int iops, threads, reads;
	const char *comm;
	const char *v2_group;
};
pid_t h_throttled_reader(const struct h_throttled_read *r, char *group, size_t size);

/* ================================================================ files == */

/* Write text to a file (sysfs); 0 or -errno. */
int h_write_file(const char *path, const char *text);

/* Read a whole small file into buf (NUL-terminated); length or -errno. */
ssize_t h_read_file(const char *path, char *buf, size_t size);

/* A whole file of any size, NUL-terminated, to free(); "" if it cannot be
 * read to the end, NULL if it cannot be opened. */
char *h_read_text(const char *path);

/* Remove dir and everything in it, subdirectories up to 8 deep (no
 * asserts: for cleanup). */
void h_remove_tree(const char *dir);

/* ============================================================= commands == */

/* Run as another user: h_run()'s `as` argument. */
struct h_creds {
	uid_t uid;
	gid_t gid;
};

/* What h_run() saw.  out and err are NUL-terminated (never NULL after h_run). */
struct h_result {
	int status;		/* wait status; -1 if it had to be killed */
	bool timed_out;
	char *out;
	size_t out_len;
	char *err;
	size_t err_len;
};

void h_result_free(struct h_result *r);

/* fork + exec the program exe (searched in PATH if it has no '/') with argv
 * (argv[0] may differ from exe, as with a shell's PATH lookup), stdin from
 * /dev/null, stdout and stderr captured; env_add: NULL-terminated
 * "NAME=VALUE" strings added to the environment (or NULL); as: drop to that
 * uid/gid (no supplementary groups) before exec (or NULL).  Waits up to
 * timeout_ms, then SIGKILLs it.  Returns r->status.  A failed exec exits 127
 * with a message on stderr. */
int h_runx(const char *exe, const char *const argv[], const char *const env_add[],
	   const struct h_creds *as, int timeout_ms, struct h_result *r);

/* h_runx() with exe = argv[0]. */
int h_run(const char *const argv[], const char *const env_add[], const struct h_creds *as,
	  int timeout_ms, struct h_result *r);

/* Remove, in place, the lines of text that start with "diskio: note: ": what
 * the output cannot show and how to change it (SWAPIN without delay
 * accounting), printed at start whatever the test; its warnings and errors
 * stay. */
void h_drop_notes(char *text);

/* Whether a program is found in PATH. */
bool h_have_program(const char *name);

/* `udevadm settle`, if udev is there: lets udev's probes of a new device
 * (blkid reads) finish before a test starts counting. */
void h_udev_settle(void);

/* ================================================================ setup == */

/* The absolute path of the diskio binary under test: $DISKIO, else ./diskio. */
const char *h_diskio_path(void);

/* Skip the current test unless it runs as root. */
void h_require_root(void);

/* Kill and reap tracked children, remove created devices, drop the lock.
 * Idempotent; does nothing in a process other than the test's. */
void h_cleanup(void);

/* Criterion .init of every integration suite: skip unless root, serialize
 * with other integration tests, sweep leftovers of killed runs, and make sure
 * h_cleanup() runs at exit even if the test fails. */
void h_setup(void);

/* Criterion .fini: same as h_cleanup(). */
void h_teardown(void);

/* ============================================================== devices == */

enum h_dev_kind { H_ZRAM, H_LOOP, H_MOUNT };

/* A block device created by a test. */
struct h_dev {
	bool used;
	enum h_dev_kind kind;
	int index;		/* N of zramN / loopN */
	char name[32];		/* "zram3": the name diskio and /proc/diskstats use */
	char path[64];		/* "/dev/zram3"; a mount: its directory */
	char backing[256];	/* loop: the backing file in /dev/shm */
	char mark[256];		/* ownership mark in H_STATE_DIR (zram) */
};

/* Remove one device created by h_zram_create()/h_loop_create() (no asserts:
 * also used at cleanup). */
void h_dev_remove(const struct h_dev *cdev);

/* A new zram disk of size bytes (hot_add; modprobe zram if needed), ready for
 * O_DIRECT I/O with 4 KiB blocks.  zram is bio-based: it fires block_bio_queue
 * and block_bio_complete, never the request hooks.  Asserts on failure. */
const struct h_dev *h_zram_create(uint64_t size);

/* A new loop device over a size-byte sparse file in /dev/shm (losetup -f).
 * loop is blk-mq: it fires block_io_start/done (and block_rq_*).  Its backing
 * file is on tmpfs, so it supports discard (hole punching).  Asserts on failure. */
const struct h_dev *h_loop_create(uint64_t size);

/* A loop device over a new size-byte sparse file at path (on a filesystem a
 * test mounted), --direct-io=on if direct_io.  Removed (and the file
 * unlinked) at cleanup, before whatever was created earlier: devices and
 * mounts go in the reverse order of their creation.  Asserts on failure. */
const struct h_dev *h_loop_attach(const char *path, uint64_t size, bool direct_io);

/* umount dir (retrying while busy, then lazily) and rmdir it. */
void h_unmount(const char *dir);

/* A fresh ext4 on dev, mounted on a new directory (the returned h_dev's
 * path): inode tables and journal zeroed by mkfs (no ext4lazyinit writing
 * later), nothing discarded, synced.  Unmounted at cleanup.  Skips the test
 * without mkfs.ext4; asserts on failure. */
const struct h_dev *h_ext4_mount(const struct h_dev *dev);

/* The same with XFS (mkfs.xfs -f -K: nothing discarded).  Skips the test
 * without mkfs.xfs. */
const struct h_dev *h_xfs_mount(const struct h_dev *dev);

/* A tmpfs of size ("256k": mount's size=) mounted on a new directory (the
 * returned h_dev's path), to fill: a full disk.  Unmounted at cleanup. */
const struct h_dev *h_tmpfs_mount(const char *size);

/* ============================================================ diskstats == */

/* One /proc/diskstats line (Documentation/admin-guide/iostats.rst); fields
 * a kernel does not have (discards before 4.18) read as 0. */
struct h_diskstats {
	uint64_t read_ios;		/* field 4: reads completed */
	uint64_t read_sectors;		/* field 6 */
	uint64_t write_ios;		/* field 8: writes completed */
	uint64_t write_sectors;		/* field 10 */
	uint64_t discard_ios;		/* field 15: discards completed */
	uint64_t discard_sectors;	/* field 17 */
	uint64_t flush_ios;		/* field 19: flush requests completed (5.5+) */
	int nfields;			/* fields on the line, counting major, minor, name */
};

/* Read the counters of device name; false if it is not listed. */
bool h_diskstats_read(const char *name, struct h_diskstats *s);

/* after - before, field by field. */
struct h_diskstats h_diskstats_delta(const struct h_diskstats *before,
				     const struct h_diskstats *after);

/* ===================================================== I/O children == */

/* One step of an I/O child.  op: 'w' count pwrite()s of size bytes at
 * offset, offset+size, ...; 'r' the same with pread(); 'd' count
 * ioctl(BLKDISCARD)s of size bytes from offset on; 'f' one fsync(). */
struct h_io {
	char op;
	uint64_t offset;
	uint32_t size;
	uint32_t count;
};

/* Exit codes of an I/O child (anything but 0 is a failure of the child). */
enum {
	H_IO_OK = 0,
	H_IO_ERR_NAME = 10,	/* prctl(PR_SET_NAME) */
	H_IO_ERR_GATE = 11,	/* reading the gate */
	H_IO_ERR_OPEN = 12,
	H_IO_ERR_ALLOC = 13,
	H_IO_ERR_WRITE = 14,
	H_IO_ERR_READ = 15,
	H_IO_ERR_DISCARD = 16,
	H_IO_ERR_FSYNC = 17,
	H_IO_ERR_OP = 18,	/* unknown op */
};

/* A gate holds children back until the test opens it: they block reading its
 * pipe until every write end is closed. */
struct h_gate {
	int rfd, wfd;
};

void h_gate_init(struct h_gate *g);

/* Release every child waiting on the gate (children close all descriptors
 * they inherit, so closing the test's write end is EOF for them). */
void h_gate_open(struct h_gate *g);
void h_gate_close(struct h_gate *g);

/* Fork a child named comm (prctl PR_SET_NAME, at most 15 bytes kept) that
 * waits at gate (NULL: no wait), opens path O_RDWR|O_DIRECT, runs ops (4 KiB
 * aligned buffer of pseudo-random bytes) and exits 0.  Returns its pid;
 * reap it with h_expect_child_ok() or h_wait_pid(). */
pid_t h_spawn_io(const char *comm, const char *path, const struct h_io *ops, size_t nops,
		 const struct h_gate *gate);

/* fio on path with the options args (NULL-terminated, without
 * --filename), its output thrown away, until killed: --thread, so that
 * h_kill_child() of the returned pid ends the load (a forked job would go on
 * holding the disk open, which then could not be removed). */
pid_t h_start_fio(const char *path, const char *const args[]);

/* Text for an I/O child's exit code. */
const char *h_io_error_str(int code);

/* Assert that child pid exits 0 within timeout_ms (reaps it). */
void h_expect_child_ok(pid_t pid, int timeout_ms);

/* =============================================================== diskio == */

/* A running diskio: its stdout split into lines (all kept), stderr kept whole. */
struct h_diskio {
	pid_t pid;
	int out_fd, err_fd;	/* read ends; -1 once closed */
	char **lines;		/* every complete stdout line, without its '\n' */
	size_t nlines, lines_cap;
	size_t next;		/* first line h_diskio_next_line() has not returned */
	char *partial;		/* an incomplete last line */
	size_t partial_len, partial_cap;
	char *err;		/* all of stderr, NUL-terminated */
	size_t err_len, err_cap;
	bool exited;
	int status;		/* wait status once exited */
};

/* Start $DISKIO with args (NULL-terminated, without argv[0]); env_add as for
 * h_run().  stdin is /dev/null, stdout and stderr are pipes (so diskio is in
 * batch mode unless --json).  Asserts on failure. */
void h_diskio_start(struct h_diskio *d, const char *const args[], const char *const env_add[]);

/* Wait up to timeout_ms (0: just look) for output on stdout or stderr and
 * take in what is there.  Also notices diskio's exit.  Returns the number of
 * new complete stdout lines. */
size_t h_diskio_pump(struct h_diskio *d, int timeout_ms);

/* The next stdout line not yet returned, waiting up to timeout_ms for it;
 * NULL on timeout or end of output.  The line belongs to d. */
const char *h_diskio_next_line(struct h_diskio *d, int timeout_ms);

/* A line that shows diskio is attached: batch/trace column line ("# time pid
 * comm ...", "# time_s pid ..."), a batch interval ("# time=..."), or any JSON
 * object but the start record and the final summary: with JSON, tests wait
 * for the first interval (or event), as they did before the start record. */
bool h_line_marks_attached(const char *line);

/* A line that ends an interval: a JSON record of type interval (trace mode's
 * too), a batch "# time=" header or trace mode's "# interval" line. */
bool h_line_is_interval(const char *line);

/* Log diskio's stderr and its last stdout lines (for a failing assertion). */
void h_diskio_dump(const struct h_diskio *d, const char *why);

/* Assert that diskio attaches (h_line_marks_attached) within timeout_ms. */
void h_diskio_wait_attached(struct h_diskio *d, int timeout_ms);

/* Wait for n intervals that END after this call: first takes in all output
 * already there, then waits for n more interval lines.  At most one of them
 * can hold counts drained before the call (diskio drains, then writes), so
 * with n >= 2 everything done before the call is in the output.  Asserts
 * that they come within timeout_ms. */
void h_diskio_wait_new_intervals(struct h_diskio *d, int n, int timeout_ms);

/* Send sig, take in the rest of the output until diskio exits and closes its
 * output, waiting up to timeout_ms; then SIGKILL.  Returns the wait status,
 * -1 if it had to be killed. */
int h_diskio_stop(struct h_diskio *d, int sig, int timeout_ms);

/* Close diskio's stdout read end (a reader that went away, like `| head -1`). */
void h_diskio_close_stdout(struct h_diskio *d);

/* The usual end of a counting test: wait for n_intervals new intervals (see
 * h_diskio_wait_new_intervals; use 2), stop with SIGINT, assert exit 0 and
 * that the last line is the summary (JSON or batch). */
void h_diskio_finish(struct h_diskio *d, int n_intervals);

/* Kill diskio if it still runs, close its pipes, free its lines. */
void h_diskio_free(struct h_diskio *d);

/* ================================================================= JSON == */

/*
 * diskio's one-object-per-line output, read with the tests' strict JSON
 * parser (json_reader.h).  A struct h_jv is a view of one value inside a line:
 * its text, p[0..len), in the line, which must outlive the view.  Keys are
 * looked up by name, whatever their order.  Strings are compared and
 * extracted unescaped; diskio writes \u00XX for control bytes and for bytes
 * outside valid UTF-8 ("Latin-1"), which become that byte again, so the
 * original comm bytes are recovered.
 */
struct h_jv {
	const char *p;
	size_t len;
};

/* Parse a whole line as one JSON value (strict RFC 8259); false if malformed. */
bool h_json_parse(const char *line, struct h_jv *root);

/* Iterate an object: *pos starts at 0 (then counts members); each call gives
 * the next key (a string value, quotes included) and value.  false at the end
 * (or not an object). */
bool h_json_next_member(struct h_jv obj, size_t *pos, struct h_jv *key, struct h_jv *val);

/* Iterate an array: *pos starts at 0; false at the end (or not an array). */
bool h_json_next_elem(struct h_jv arr, size_t *pos, struct h_jv *val);

/* Unescape string value v into buf (NUL-terminated; \u0000-\u00ff become that
 * byte, higher code points UTF-8).  Length, or -1 if v is not a string or buf
 * is too small.  Embedded NULs are kept (length tells). */
ssize_t h_json_str(struct h_jv v, char *buf, size_t size);

/* Whether string value v, unescaped, is exactly s. */
bool h_json_str_eq(struct h_jv v, const char *s);

/* Value of key in object obj; false if absent. */
bool h_json_get(struct h_jv obj, const char *key, struct h_jv *val);

/* A whole-number value (no fraction, no exponent) into *out. */
bool h_json_int(struct h_jv v, int64_t *out);

/* A JSON number's value, from its text (a fraction or an exponent too);
 * NAN for anything else (null, a string). */
double h_json_number(struct h_jv v);

/* The number obj has under key (asserts it has key). */
double h_json_get_number(struct h_jv obj, const char *key);

/* Integer key of object obj; false if absent or not an integer. */
bool h_json_get_int(struct h_jv obj, const char *key, int64_t *out);

/* The I/O counters diskio shows for a process or a device. */
struct h_counters {
	int64_t read_bytes, write_bytes, discard_bytes;
	int64_t read_ios, write_ios, discard_ios;
	int64_t flushes;
};

/* Read all seven counters of a process or device object; false if one is
 * missing or not an integer. */
bool h_json_counters(struct h_jv obj, struct h_counters *c);
void h_counters_add(struct h_counters *sum, const struct h_counters *c);

/* "rb=.. wb=.. db=.. rio=.. wio=.. dio=.. fl=.." for messages. */
const char *h_counters_str(const struct h_counters *c, char *buf, size_t size);

/* diskio's per-interval object: {"type":"interval",...,"processes":[..],...}
 * (valid JSON, of type "interval", with a "processes" array). */
bool h_json_is_interval(const char *line);

/* diskio's final line: {"type":"summary",...}. */
bool h_json_is_summary(const char *line);

/* The "processes" array of an interval line; false if the line is not valid
 * JSON or has none. */
bool h_json_processes(const char *line, struct h_jv *arr);

/* The "devices" object of an interval line. */
bool h_json_devices(const char *line, struct h_jv *obj);

/* In an interval line, the process object with "pid":pid and "device":device
 * (the first one; diskio has one per pid, comm and device). */
bool h_json_find_process(const char *line, uint32_t pid, const char *device, struct h_jv *obj);

/* In an interval line, the object of device name in "devices":{"NAME":{...}}. */
bool h_json_find_device(const char *line, const char *name, struct h_jv *obj);

/* Sum, over the interval lines among lines[0..n), the counters of process
 * objects with pid (0: any), device (NULL: any) and comm (NULL: any).  Returns
 * how many objects matched. */
int h_json_sum_process(char *const *lines, size_t n, uint32_t pid, const char *device,
		       const char *comm, struct h_counters *sum);

/* Sum the counters of device name over the interval lines among lines[0..n).
 * Returns in how many lines it appeared. */
int h_json_sum_device(char *const *lines, size_t n, const char *name, struct h_counters *sum);

/* Assert that every line d printed is valid JSON: the start record first,
 * at least min_intervals interval records, then one summary. */
void h_expect_json_output(const struct h_diskio *d, int min_intervals);

/* Sum of "lost":{"events":N} over the interval lines. */
int64_t h_json_sum_lost(char *const *lines, size_t n);

/* ================================================================ batch == */

#define H_BATCH_FIELDS 26	/* time pid comm device 7 counters avg_latency_us
				 * dirtied_bytes writeback_bytes cgroup for
				 * iowait_pct swapin_pct uid user ioprio cmdline
				 * (issue 33) errors error_kinds
				 * cgroup_io_pressure_some_pct
				 * cgroup_io_pressure_full_pct (issue 45) */

/* Split line at runs of whitespace (isspace) into copies in fields[] (at most
 * max; the caller frees each).  Returns the number of fields found (which may
 * exceed max). */
int h_split_fields(const char *line, char **fields, int max);
/* The same without copying: fields[i] points into line, lens[i] its length. */
int h_split_view(const char *line, const char **fields, size_t *lens, int max);
void h_free_fields(char **fields, int n, int max);

/* A batch data line. */
struct h_batch_row {
	char time[40];
	uint32_t pid;
	char comm[128];		/* as printed: escaped (\xHH) */
	char device[64];
	struct h_counters c;
	char latency[32];	/* "-" or a number */
	char serves[64];	/* the "for" field: "-" or a device's name */
	char iowait[32];	/* IO>, SWAPIN: "-" or a percentage */
	char swapin[32];
};

/* Parse a batch data line: exactly H_BATCH_FIELDS fields, integers where
 * integers belong.  false otherwise. */
bool h_batch_parse_row(const char *line, struct h_batch_row *row);

/* ================================================================== BPF == */

/* Whether name is (the 15-byte truncation of) one of diskio's program names. */
bool h_is_diskio_prog_name(const char *name);

struct h_prog {
	uint32_t id;
	char name[64];
	char type[32];
};

/* Programs loaded in the kernel (`bpftool prog show`, "ID: TYPE  name NAME").
 * Fills up to max, returns how many there are, -1 if bpftool failed. */
int h_bpftool_progs(struct h_prog *progs, int max);

/* IDs of the BPF programs process pid holds: "prog_id:" in the fdinfo of its
 * program and link descriptors (each ID once).  Returns how many (<= max). */
int h_pid_bpf_prog_ids(pid_t pid, uint32_t *ids, int max);

/* =========================================================== Prometheus == */

/* A TCP port on 127.0.0.1 that was free a moment ago. */
int h_free_port(void);

/* GET url with curl (at most 5 s); the body (malloc'd), or NULL when the
 * server does not answer or answers with an error. */
char *h_http_get(const char *url);

/* GET http://127.0.0.1:port/metrics (node_exporter's). */
char *h_scrape(int port);

/* Start a daemon: exe (searched in PATH) with argv, stdin from /dev/null,
 * stdout and stderr to log_path (appended; NULL: /dev/null), tracked, so
 * that h_cleanup() kills it, and PR_SET_PDEATHSIG, so that it dies with a
 * test killed by Criterion's timeout.  Returns its pid. */
pid_t h_spawn_daemon(const char *const argv[], const char *log_path);

/* Debian's node_exporter on 127.0.0.1 and a free port (into *port) with only
 * the textfile collector, reading dir; asserts that it is installed and that
 * it answers within 20 s.  Returns its pid (tracked). */
pid_t h_start_node_exporter(const char *dir, int *port);

/* The sum of the samples of metric, in Prometheus' text format, whose
 * labels hold every one of need[] (e.g. "device=\"zram1\"", NULL-terminated,
 * need NULL: any), whatever their order (node_exporter sorts them); the
 * number of samples matched into *n. */
double h_prom_sum(const char *text, const char *metric, const char *const need[], int *n);

#endif /* DISKIO_HARNESS_H */
