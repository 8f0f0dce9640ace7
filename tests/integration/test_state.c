// SPDX-License-Identifier: GPL-2.0
/*
 * Integration tests of `--state FILE`, run as root with the real binary.
 * Each reproduces a defect of the state file found in issue 10 and shows it
 * fixed:
 *
 *  1. a file that is not diskio's (app.conf) is refused, exit 1, byte for
 *     byte untouched; damaged state files are kept under unique names;
 *  2. a FIFO, a symlink to one, a device node, a missing, non-directory or
 *     read-only directory, a group/other-writable or another user's file:
 *     exit 1 at once with one line, before the BPF object is even opened;
 *     saves are 0600 whatever the umask;
 *  3. 3000 crashes under 1500 names while diskio saves the state every
 *     1-second interval: counts exact, no interval stretched, and diskio
 *     itself writes little (saves once per interval, not per crash).
 *
 * "Before the BPF object is opened" is shown with -v: libbpf then reports
 * loading the object ("libbpf: loading object ...") on stderr; a refusal
 * prints its one line and nothing from libbpf.
 */
#include "harness.h"

#include <sys/resource.h>
#include <sys/sysmacros.h>

#define REFUSAL_TIMEOUT_MS	10000
#define STORM_NAMES		1500
#define STORM_ROUNDS		2	/* crashes per name */
#define STORM_WAVE		32	/* children alive at once */
#define STORM_TIMEOUT_MS	120000
#define INTERVAL_MS		1000
#define MAX_INTERVAL_MS		(INTERVAL_MS * 3 / 2)
#define WRITE_BYTES_LIMIT	(2 * 1024 * 1024)
#define FS_SIZE			(64ULL << 20)

static char tmpdir[64];
static char mnt[128];		/* ext4 mounted by the crash storm test, "" if none */
static char mnt_dev[32];	/* the loop device under it ("loop3") */
static char ro_mnt[128];	/* read-only tmpfs of the directory test, "" if none */

/* Remove tmpdir and what the tests put in it (no subdirectories but mnt). */
static void remove_tmpdir(void)
{
	struct dirent *entry;
	DIR *dir;

	if (!tmpdir[0])
		return;
	dir = opendir(tmpdir);
	if (dir) {
		while ((entry = readdir(dir))) {
			char path[PATH_MAX];

			if (!strcmp(entry->d_name, ".") || !strcmp(entry->d_name, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmpdir, entry->d_name);
			if (unlink(path) && errno == EISDIR)
				rmdir(path);
		}
		closedir(dir);
	}
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

/* umount (retrying while busy, then lazily) and remove the mount point;
 * mnt becomes "". */
static void undo_mount(char *mnt)
{
	struct h_result r;
	bool done = false;

	if (!mnt[0])
		return;
	for (int tries = 0; tries < 20 && !done; tries++) {
		h_run(H_ARGS("umount", mnt), NULL, NULL, 20000, &r);
		done = r.status == 0;
		h_result_free(&r);
		if (!done)
			h_sleep_ms(100);
	}
	if (!done) {
		h_run(H_ARGS("umount", "-l", mnt), NULL, NULL, 20000, &r);
		h_result_free(&r);
	}
	rmdir(mnt);
	mnt[0] = '\0';
}

static void setup(void)
{
	h_setup();
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/diskio-state-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
}

static void teardown(void)
{
	h_teardown();	/* kills leftover children first */
	undo_mount(mnt);
	undo_mount(ro_mnt);
	remove_tmpdir();
}

TestSuite(state, .init = setup, .fini = teardown, .timeout = 60);

static void in_tmpdir(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void make_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	ssize_t len = (ssize_t)strlen(text);

	cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(write(fd, text, len), len, "write %s", path);
	cr_assert_eq(fchmod(fd, mode), 0);
	cr_assert_eq(close(fd), 0);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* What a file was: its bytes and its inode, for "untouched". */
struct file_print {
	char data[8192];
	ssize_t len;
	struct stat st;
};

static void take_print(const char *path, struct file_print *p)
{
	cr_assert_eq(lstat(path, &p->st), 0, "lstat %s: %s", path, strerror(errno));
	p->len = S_ISREG(p->st.st_mode) ? h_read_file(path, p->data, sizeof(p->data)) : 0;
	cr_assert_geq(p->len, 0, "read %s", path);
}

/* The same bytes, inode, type, mode, owner and modification time as before. */
static void expect_untouched(const char *path, const struct file_print *before)
{
	struct file_print after;

	take_print(path, &after);
	cr_expect_eq(after.st.st_ino, before->st.st_ino, "%s was replaced", path);
	cr_expect_eq(after.st.st_mode, before->st.st_mode, "%s: mode %o, was %o", path,
		     (unsigned int)after.st.st_mode, (unsigned int)before->st.st_mode);
	cr_expect_eq(after.st.st_uid, before->st.st_uid, "%s changed owner", path);
	cr_expect(after.st.st_mtim.tv_sec == before->st.st_mtim.tv_sec &&
		  after.st.st_mtim.tv_nsec == before->st.st_mtim.tv_nsec,
		  "%s was written to", path);
	cr_expect(after.len == before->len && !memcmp(after.data, before->data, after.len),
		  "%s: content changed (%zd bytes, was %zd)", path, after.len, before->len);
}

/* No PATH.corrupt or PATH.tmp made next to path. */
static void expect_no_siblings(const char *path)
{
	char sibling[PATH_MAX + 16];

	snprintf(sibling, sizeof(sibling), "%s.corrupt", path);
	cr_expect_not(exists(sibling), "%s was made", sibling);
	snprintf(sibling, sizeof(sibling), "%s.tmp", path);
	cr_expect_not(exists(sibling), "%s was made", sibling);
}

/*
 * Run `diskio -v --state path -b 1 1` and assert a refusal: exit 1 within
 * limit_ms, nothing on stdout, exactly one stderr line "diskio: ..." naming
 * path and saying `says`; no libbpf line, so the BPF object was not even
 * opened.  Returns how long it took (ms).
 */
static int64_t expect_refusal(const char *path, const char *says, int64_t limit_ms)
{
	struct h_result r;
	char why[64];
	const char *nl;
	int64_t t0 = h_now_ms(), took;

	h_run(H_ARGS(h_diskio_path(), "-v", "--state", path, "-b", "1", "1"), NULL, NULL,
	      REFUSAL_TIMEOUT_MS, &r);
	took = h_now_ms() - t0;
	cr_expect(!r.timed_out, "`diskio --state %s` still ran after %d ms: it hangs", path,
		  REFUSAL_TIMEOUT_MS);
	cr_expect(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 1,
		  "`diskio --state %s`: %s, expected exit 1 (stderr: %.500s)", path,
		  h_status_str(r.status, why, sizeof(why)), r.err);
	cr_expect_leq(took, limit_ms, "`diskio --state %s` took %" PRId64 " ms to refuse, "
		      "more than %" PRId64 " ms", path, took, limit_ms);
	cr_expect_eq(r.out_len, 0, "`diskio --state %s` printed on stdout: %.300s", path, r.out);
	cr_expect(!strncmp(r.err, "diskio: ", 8), "stderr does not start with \"diskio: \": "
		  "%.500s", r.err);
	cr_expect(strstr(r.err, "libbpf") == NULL, "the BPF object was opened before the "
		  "refusal: %.500s", r.err);
	nl = strchr(r.err, '\n');
	cr_expect(nl && nl[1] == '\0', "stderr is not exactly one line: %.500s", r.err);
	cr_expect(strstr(r.err, path) != NULL, "stderr does not name %s: %s", path, r.err);
	cr_expect(strstr(r.err, says) != NULL, "stderr does not say \"%s\": %s", says, r.err);
	h_result_free(&r);
	return took;
}

/* Run `diskio --state path -b 0.2 1` to a normal end: exit 0; stderr kept in *err. */
static void run_once(const char *path, char **err)
{
	struct h_result r;
	char why[64];

	h_run(H_ARGS(h_diskio_path(), "--state", path, "-b", "0.2", "1"), NULL, NULL,
	      H_ATTACH_TIMEOUT_MS + 5000, &r);
	cr_assert(!r.timed_out && WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "`diskio --state %s -b 0.2 1`: %s, expected exit 0 (stderr: %.500s)", path,
		  h_status_str(r.status, why, sizeof(why)), r.err);
	h_drop_notes(r.err);
	*err = strdup(r.err);
	cr_assert_not_null(*err);
	h_result_free(&r);
}

static void expect_mode_0600(const char *path, const char *when)
{
	struct stat st;

	cr_assert_eq(lstat(path, &st), 0, "%s: no state file %s: %s", when, path,
		     strerror(errno));
	cr_expect(S_ISREG(st.st_mode), "%s: %s is not a regular file", when, path);
	cr_expect_eq(st.st_mode & 07777, 0600, "%s: %s has mode %04o, expected 0600", when, path,
		     (unsigned int)(st.st_mode & 07777));
	cr_expect_eq(st.st_uid, 0, "%s: %s belongs to uid %u", when, path,
		     (unsigned int)st.st_uid);
}

/* ======================================================= refusals == */

/*
 * 1. `printf 'x\n' > app.conf; diskio --state app.conf -b 1 1` exited 0,
 * renamed app.conf to app.conf.corrupt and wrote a state file in its place.
 * Now: exit 1 naming it, the file byte for byte as it was.
 */
Test(state, foreign_file_untouched_exit_1)
{
	static const char *const contents[] = {
		"x\n",
		"# /etc/fstab: static file system information.\n"
		"UUID=0a3407de-014b-458b-b5c1-848e92a327a3 / ext4 errors=remount-ro 0 1\n",
		"",
	};
	struct file_print before;
	char path[PATH_MAX];

	in_tmpdir(path, sizeof(path), "app.conf");
	for (size_t i = 0; i < sizeof(contents) / sizeof(contents[0]); i++) {
		make_file(path, contents[i], 0644);
		take_print(path, &before);
		expect_refusal(path, "is not a diskio state file", REFUSAL_TIMEOUT_MS);
		expect_untouched(path, &before);
		expect_no_siblings(path);
	}
}

/*
 * 1'. A second damaged state file replaced the older PATH.corrupt.  Now each
 * damaged diskio state file is moved to a name of its own, and diskio starts
 * fresh (exit 0) with one warning naming it.
 */
Test(state, damaged_state_files_all_kept)
{
	static const char *const damaged[] = {
		"diskio-crashfree 1\ncrashes=banana\n",
		"diskio-crashfree 1\ninterval_ns=0\nend\n",
		"diskio-crashfree 9\n",
	};
	char path[PATH_MAX], corrupt[3][PATH_MAX + 16], buf[256];
	char *err;

	in_tmpdir(path, sizeof(path), "state");
	snprintf(corrupt[0], sizeof(corrupt[0]), "%s.corrupt", path);
	snprintf(corrupt[1], sizeof(corrupt[1]), "%s.corrupt.1", path);
	snprintf(corrupt[2], sizeof(corrupt[2]), "%s.corrupt.2", path);
	for (size_t i = 0; i < 3; i++) {
		make_file(path, damaged[i], 0600);
		run_once(path, &err);
		cr_expect(!strncmp(err, "diskio: warning: state file ", 28) &&
			  strstr(err, corrupt[i]) && strchr(err, '\n') == err + strlen(err) - 1,
			  "run %zu: expected one warning naming %s, stderr: %s", i + 1, corrupt[i],
			  err);
		free(err);
		expect_mode_0600(path, "after a damaged file");
	}
	for (size_t i = 0; i < 3; i++) {
		ssize_t len = h_read_file(corrupt[i], buf, sizeof(buf));

		cr_expect(len == (ssize_t)strlen(damaged[i]) && !memcmp(buf, damaged[i], len),
			  "%s does not hold damaged file %zu (%zd bytes)", corrupt[i], i + 1, len);
	}
}

/*
 * 2. `--state` on a FIFO hung for ever (after the programs were attached,
 * before signal handlers existed); so did a symlink to one.  A device node
 * was opened.  Now: exit 1 within a second, the FIFO still a FIFO.
 */
Test(state, fifo_symlink_and_device_exit_1_within_1s)
{
	char fifo[PATH_MAX], link_to_fifo[PATH_MAX], device[PATH_MAX], link_to_device[PATH_MAX];
	struct file_print before;

	in_tmpdir(fifo, sizeof(fifo), "fifo");
	in_tmpdir(link_to_fifo, sizeof(link_to_fifo), "link-to-fifo");
	in_tmpdir(device, sizeof(device), "null-device");
	in_tmpdir(link_to_device, sizeof(link_to_device), "link-to-device");
	cr_assert_eq(mkfifo(fifo, 0600), 0, "mkfifo: %s", strerror(errno));
	cr_assert_eq(symlink(fifo, link_to_fifo), 0);
	cr_assert_eq(mknod(device, S_IFCHR | 0600, makedev(1, 3)), 0, "mknod: %s",
		     strerror(errno));
	cr_assert_eq(symlink(device, link_to_device), 0);

	take_print(fifo, &before);
	expect_refusal(fifo, "is a FIFO", 1000);
	expect_untouched(fifo, &before);
	expect_refusal(link_to_fifo, "symbolic link", 1000);
	expect_untouched(fifo, &before);
	take_print(device, &before);
	expect_refusal(device, "is a character device", 1000);
	expect_untouched(device, &before);
	expect_refusal(link_to_device, "symbolic link", 1000);
	cr_expect(exists(link_to_fifo) && exists(link_to_device), "a symlink was removed");
	expect_no_siblings(fifo);
	expect_no_siblings(device);
}

/*
 * 2'. `--state /no/such/dir/f` started anyway and warned every interval.
 * Now the directory is checked first: missing, not a directory, or
 * read-only, exit 1 before the BPF object is opened.
 */
Test(state, bad_directory_exit_1_before_loading)
{
	char path[PATH_MAX + 8], plain[PATH_MAX];
	struct h_result r;

	in_tmpdir(path, sizeof(path), "no/such/dir/f");
	expect_refusal(path, "does not exist", REFUSAL_TIMEOUT_MS);
	in_tmpdir(path, sizeof(path), "no");
	cr_expect_not(exists(path), "the missing directory was made");

	in_tmpdir(plain, sizeof(plain), "plain");
	make_file(plain, "x\n", 0600);
	snprintf(path, sizeof(path), "%s/f", plain);
	expect_refusal(path, "is not a directory", REFUSAL_TIMEOUT_MS);

	/* root may write anywhere but on a read-only filesystem */
	in_tmpdir(ro_mnt, sizeof(ro_mnt), "read-only");
	cr_assert_eq(mkdir(ro_mnt, 0700), 0);
	h_run(H_ARGS("mount", "-t", "tmpfs", "-o", "ro,size=1m", "diskio-test", ro_mnt), NULL,
	      NULL, 20000, &r);
	if (r.status != 0) {
		cr_log_info("cannot mount a read-only tmpfs (%s): read-only directory not tested",
			    r.err);
		h_result_free(&r);
		rmdir(ro_mnt);
		ro_mnt[0] = '\0';
		return;
	}
	h_result_free(&r);
	snprintf(path, sizeof(path), "%s/f", ro_mnt);
	expect_refusal(path, "Read-only file system", REFUSAL_TIMEOUT_MS);
	undo_mount(ro_mnt);
}

/* A valid state file with forged counts: a million crashes of "forged". */
static const char forged_state[] =
	"diskio-crashfree 1\n"
	"interval_ns=3600000000000\n"
	"operational_intervals=10\n"
	"crashfree_intervals=10\n"
	"crashes=1000000\n"
	"operational_progress_ns=0\n"
	"crashfree_progress_ns=0\n"
	"process forged 1000000\n"
	"end\n";

/*
 * 2''. A world-writable state file owned by another user, with forged
 * counts, was loaded without a word.  Now: group/other-writable or owned by
 * another user, exit 1 and the file left alone; the same file with diskio's
 * own owner and mode loads.
 */
Test(state, writable_or_foreign_owned_state_exit_1)
{
	static const mode_t modes[] = { 0666, 0620, 0602 };
	struct file_print before;
	char path[PATH_MAX], mode_text[16];
	char *err;

	in_tmpdir(path, sizeof(path), "state");
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		make_file(path, forged_state, modes[i]);
		take_print(path, &before);
		snprintf(mode_text, sizeof(mode_text), "mode %04o", (unsigned int)modes[i]);
		expect_refusal(path, mode_text, REFUSAL_TIMEOUT_MS);
		expect_untouched(path, &before);
	}

	make_file(path, forged_state, 0600);
	cr_assert_eq(chown(path, 65534, 65534), 0, "chown: %s", strerror(errno));
	take_print(path, &before);
	expect_refusal(path, "belongs to uid 65534", REFUSAL_TIMEOUT_MS);
	expect_untouched(path, &before);

	make_file(path, forged_state, 0666);
	cr_assert_eq(chown(path, 65534, 65534), 0, "chown: %s", strerror(errno));
	take_print(path, &before);
	expect_refusal(path, "belongs to uid 65534", REFUSAL_TIMEOUT_MS);
	expect_untouched(path, &before);
	expect_no_siblings(path);

	/* the control: root's own 0600 file is trusted and loaded */
	cr_assert_eq(chown(path, 0, 0), 0);
	cr_assert_eq(chmod(path, 0600), 0);
	run_once(path, &err);
	cr_expect_eq(err[0], '\0', "a trusted state file gave: %s", err);
	free(err);
}

/*
 * 2'''. Saves reset the file to 0644 (umask 022).  Now every save is 0600,
 * under umask 0 and 077, and a file widened to 0644 by hand is narrowed.
 */
Test(state, saved_state_mode_0600)
{
	static const mode_t umasks[] = { 0, 077 };
	char path[PATH_MAX];
	char *err;

	in_tmpdir(path, sizeof(path), "state");
	for (size_t i = 0; i < sizeof(umasks) / sizeof(umasks[0]); i++) {
		mode_t old = umask(umasks[i]);
		char when[32];

		run_once(path, &err);
		umask(old);
		free(err);
		snprintf(when, sizeof(when), "umask %04o", (unsigned int)umasks[i]);
		expect_mode_0600(path, when);
		cr_assert_eq(chmod(path, 0644), 0);
	}
}

/* ==================================================== crash storm == */

/* Fresh ext4 on a loop device, mounted on mnt: saves there reach a disk, so
 * that /proc/PID/io write_bytes counts them (tmpfs would count nothing). */
static void mount_ext4(void)
{
	const struct h_dev *dev;
	struct h_result r;
	char why[64];

	if (!h_have_program("mkfs.ext4"))
		cr_skip_test("mkfs.ext4 not installed");
	dev = h_loop_create(FS_SIZE);
	snprintf(mnt_dev, sizeof(mnt_dev), "%s", dev->name);
	h_run(H_ARGS("mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=0,lazy_journal_init=0",
		     dev->path), NULL, NULL, 120000, &r);
	cr_assert_eq(r.status, 0, "mkfs.ext4 %s: %s %s", dev->path,
		     h_status_str(r.status, why, sizeof(why)), r.err);
	h_result_free(&r);
	in_tmpdir(mnt, sizeof(mnt), "ext4");
	cr_assert_eq(mkdir(mnt, 0700), 0);
	h_run(H_ARGS("mount", "-t", "ext4", dev->path, mnt), NULL, NULL, 30000, &r);
	if (r.status != 0) {
		rmdir(mnt);
		mnt[0] = '\0';
		cr_assert_fail("mount %s: %s", dev->path, r.err);
	}
	h_result_free(&r);
}

static void storm_name(char name[16], int index)
{
	snprintf(name, 16, "storm-%04d", index);
}

/* Exit codes of the storm process. */
enum {
	STORM_ERR_FORK = 20,
	STORM_ERR_WAIT,
	STORM_ERR_NOT_SEGV,
	STORM_ERR_SETUP,
};

/*
 * The storm process: STORM_ROUNDS rounds over STORM_NAMES names, each a
 * child that names itself (PR_SET_NAME) and writes through NULL, at most
 * STORM_WAVE alive at once.  Exits 0 once every child died of SIGSEGV.
 */
static void run_storm(void)
{
	static const int reset[] = { SIGSEGV, SIGABRT, SIGTERM, SIGBUS, SIGILL, SIGCHLD };
	struct rlimit no_core = { 0, 0 };
	int alive = 0, status;
	sigset_t none;

	h__child_prepare(-1);
	for (size_t i = 0; i < sizeof(reset) / sizeof(reset[0]); i++)
		signal(reset[i], SIG_DFL);
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) || setrlimit(RLIMIT_CORE, &no_core))
		_exit(STORM_ERR_SETUP);

	for (int n = 0; n < STORM_NAMES * STORM_ROUNDS; n++) {
		char name[16];
		pid_t pid;

		if (alive == STORM_WAVE) {
			if (wait(&status) < 0)
				_exit(STORM_ERR_WAIT);
			if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
				_exit(STORM_ERR_NOT_SEGV);
			alive--;
		}
		storm_name(name, n % STORM_NAMES);
		pid = fork();
		if (pid < 0)
			_exit(STORM_ERR_FORK);
		if (pid == 0) {
			static volatile uintptr_t null_address;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			prctl(PR_SET_NAME, name, 0, 0, 0);
			*(volatile int *)null_address = 1;
			_exit(0);
		}
		alive++;
	}
	for (; alive; alive--) {
		if (wait(&status) < 0)
			_exit(STORM_ERR_WAIT);
		if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV)
			_exit(STORM_ERR_NOT_SEGV);
	}
	_exit(0);
}

/* Read stdout lines, stamping the arrival (ms) of each interval line. */
struct interval_stamps {
	int64_t at[1024];
	size_t line[1024];
	size_t n;
	size_t seen;		/* lines looked at */
};

static void stamp_intervals(struct h_diskio *d, struct interval_stamps *s, int wait_ms)
{
	int64_t now;

	h_diskio_pump(d, wait_ms);
	now = h_now_ms();
	for (; s->seen < d->nlines; s->seen++) {
		if (!h_json_is_interval(d->lines[s->seen]) || s->n == 1024)
			continue;
		s->at[s->n] = now;
		s->line[s->n++] = s->seen;
	}
}

/* write_bytes of /proc/PID/io, or -1. */
static int64_t process_write_bytes(pid_t pid)
{
	char path[64], buf[1024];
	const char *at;

	snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
	if (h_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	at = strstr(buf, "\nwrite_bytes: ");
	return at ? strtoll(at + 14, NULL, 10) : -1;
}

/* Crashes of each storm name in a state file (counts[i] for storm_name(i)),
 * and its crashes= total; false if it is not a diskio state file. */
static bool state_counts(const char *path, int64_t counts[STORM_NAMES], int64_t *total)
{
	static char buf[256 * 1024];
	char *line, *save = NULL;
	ssize_t len = h_read_file(path, buf, sizeof(buf));

	if (len <= 0 || strncmp(buf, "diskio-crashfree 1\n", 19))
		return false;
	memset(counts, 0, STORM_NAMES * sizeof(counts[0]));
	*total = -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int index;
		long long n;

		if (sscanf(line, "process storm-%d %lld", &index, &n) == 2 && index >= 0 &&
		    index < STORM_NAMES)
			counts[index] = n;
		else if (!strncmp(line, "crashes=", 8))
			*total = strtoll(line + 8, NULL, 10);
	}
	return true;
}

/* The storm's names' counts in a "by_process" object, and the sum of the others. */
static void json_counts(struct h_jv by, int64_t counts[STORM_NAMES], int64_t *others)
{
	struct h_jv key, val;
	size_t pos = 0;

	memset(counts, 0, STORM_NAMES * sizeof(counts[0]));
	*others = 0;
	while (h_json_next_member(by, &pos, &key, &val)) {
		char name[64];
		int index, consumed = 0;
		int64_t n = 0;

		cr_assert(h_json_int(val, &n), "by_process: not a count: %.*s", (int)val.len,
			  val.p);
		if (h_json_str(key, name, sizeof(name)) >= 0 &&
		    sscanf(name, "storm-%4d%n", &index, &consumed) == 1 &&
		    consumed == (int)strlen(name) && index >= 0 && index < STORM_NAMES) {
			counts[index] = n;
		} else {
			*others += n;
			cr_log_info("an unrelated process crashed meanwhile: %.*s:%" PRId64,
				    (int)key.len, key.p, n);
		}
	}
}

static void expect_every_name_twice(const int64_t counts[STORM_NAMES], const char *where)
{
	int64_t sum = 0;
	int wrong = 0;

	for (int i = 0; i < STORM_NAMES; i++) {
		sum += counts[i];
		if (counts[i] != STORM_ROUNDS && wrong++ < 5)
			cr_log_error("%s: storm-%04d crashed %" PRId64 " times, expected %d", where,
				     i, counts[i], STORM_ROUNDS);
	}
	cr_expect_eq(wrong, 0, "%s: %d of %d names with a wrong count", where, wrong,
		     STORM_NAMES);
	cr_expect_eq(sum, STORM_NAMES * STORM_ROUNDS, "%s: %" PRId64 " crashes of the storm, "
		     "expected %d", where, sum, STORM_NAMES * STORM_ROUNDS);
}

/*
 * 3. Every crash rewrote and fsynced the state file twice inside the event
 * callback: 3000 crashes made diskio write 74 MB and stalled an interval to
 * ~6 s.  Now, with `--json --state FILE 1` on ext4 while 3000 processes
 * under 1500 names die of SIGSEGV: the counts are exact (interval lines,
 * summary and state file), no interval takes longer than 1.5 s (measured by
 * the arrival of the interval lines; interval_s too once it is the measured
 * length), and diskio's own write_bytes stays below 2 MiB.
 */
Test(state, crash_storm_counts_exact_intervals_steady_few_writes, .timeout = 240)
{
	static int64_t counts[STORM_NAMES];
	struct interval_stamps stamps = { .n = 0 };
	struct h_jv root, crash, by;
	char path[PATH_MAX], why[64];
	int64_t others, total, write_bytes, longest_ms = 0, deadline;
	double longest_interval_s = 0;
	struct h_diskio d;
	struct stat st;
	size_t intervals_before;
	int status;
	pid_t storm;

	mount_ext4();
	snprintf(path, sizeof(path), "%s/crash.state", mnt);

	h_diskio_start(&d, H_ARGS("--json", "--state", path, "1"), NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	stamp_intervals(&d, &stamps, 0);

	fflush(NULL);
	storm = fork();
	cr_assert(storm >= 0, "fork: %s", strerror(errno));
	if (storm == 0)
		run_storm();
	h_track_child(storm);

	deadline = h_now_ms() + STORM_TIMEOUT_MS;
	for (;;) {
		int rc = waitpid(storm, &status, WNOHANG);

		if (rc == storm)
			break;
		cr_assert(h_now_ms() < deadline, "the storm of crashes still runs after %d ms",
			  STORM_TIMEOUT_MS);
		cr_assert(!d.exited, "diskio exited during the storm: %s", d.err);
		stamp_intervals(&d, &stamps, 20);
	}
	h_untrack_child(storm);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the storm process: %s",
		  h_status_str(status, why, sizeof(why)));

	/* Two more intervals: every crash is in the output. */
	intervals_before = stamps.n;
	deadline = h_now_ms() + 10000;
	while (stamps.n < intervals_before + 2 && h_now_ms() < deadline && !d.exited)
		stamp_intervals(&d, &stamps, 20);
	cr_assert_geq(stamps.n, intervals_before + 2, "no two intervals after the storm");

	write_bytes = process_write_bytes(d.pid);
	cr_assert_geq(write_bytes, 0, "cannot read /proc/%d/io", (int)d.pid);
	status = h_diskio_stop(&d, SIGINT, H_EXIT_TIMEOUT_MS);
	cr_assert(status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
		  "diskio after SIGINT: %s (stderr: %s)", h_status_str(status, why, sizeof(why)),
		  d.err);
	cr_expect(strstr(d.err, "state file") == NULL, "diskio complained about the state "
		  "file: %.500s", d.err);

	/* Steady intervals. */
	for (size_t i = 0; i < stamps.n; i++) {
		struct h_jv v;
		char text[32];

		if (i > 0 && stamps.at[i] - stamps.at[i - 1] > longest_ms)
			longest_ms = stamps.at[i] - stamps.at[i - 1];
		if (h_json_parse(d.lines[stamps.line[i]], &root) &&
		    h_json_get(root, "interval_s", &v) && v.len < sizeof(text)) {
			memcpy(text, v.p, v.len);
			text[v.len] = '\0';
			if (strtod(text, NULL) > longest_interval_s)
				longest_interval_s = strtod(text, NULL);
		}
	}
	cr_log_info("%zu intervals, the longest %" PRId64 " ms apart (interval_s at most %.3f); "
		    "diskio wrote %" PRId64 " bytes", stamps.n, longest_ms, longest_interval_s,
		    write_bytes);
	cr_expect_geq(stamps.n, 3, "only %zu interval lines", stamps.n);
	cr_expect_leq(longest_ms, MAX_INTERVAL_MS, "two interval lines came %" PRId64 " ms apart, "
		      "more than 1.5 intervals", longest_ms);
	cr_expect_leq(longest_interval_s, MAX_INTERVAL_MS / 1000.0, "an interval_s of %.3f s",
		      longest_interval_s);

	/* Few writes: a save per interval, none per crash.  The final state file
	 * is ~30 KiB: write_bytes of at least one save shows the ext4 counts. */
	cr_assert_eq(stat(path, &st), 0, "no state file %s: %s", path, strerror(errno));
	cr_expect_geq(write_bytes, st.st_size, "diskio's write_bytes %" PRId64 " is below one "
		      "save's %lld bytes: the measure counts nothing", write_bytes,
		      (long long)st.st_size);
	cr_expect_lt(write_bytes, WRITE_BYTES_LIMIT, "diskio wrote %" PRId64 " bytes for 3000 "
		     "crashes", write_bytes);

	/* Exact counts: the summary, the last interval and the state file. */
	cr_assert(d.nlines > 0 && h_json_is_summary(d.lines[d.nlines - 1]),
		  "the last line is not the summary");
	/* The summary is a flat record of type "summary". */
	cr_assert(h_json_parse(d.lines[d.nlines - 1], &root) && h_json_get(root, "crash", &crash) &&
		  h_json_get_int(crash, "crashes", &total) && h_json_get(crash, "by_process", &by),
		  "the summary has no crash counts");
	json_counts(by, counts, &others);
	expect_every_name_twice(counts, "summary");
	cr_expect_eq(total, STORM_NAMES * STORM_ROUNDS + others, "summary: crashes %" PRId64
		     ", expected %d + %" PRId64 " unrelated", total, STORM_NAMES * STORM_ROUNDS,
		     others);

	cr_assert(h_json_parse(d.lines[stamps.line[stamps.n - 1]], &root) &&
		  h_json_get(root, "crash", &crash) && h_json_get(crash, "by_process", &by),
		  "the last interval has no crash counts");
	json_counts(by, counts, &others);
	expect_every_name_twice(counts, "last interval");

	cr_assert(state_counts(path, counts, &total), "%s is not a state file", path);
	expect_every_name_twice(counts, "state file");
	cr_expect_eq(total, STORM_NAMES * STORM_ROUNDS + others, "state file: crashes %" PRId64,
		     total);
	expect_mode_0600(path, "after the storm");
	h_diskio_free(&d);
}

/*
 * A quiet service: `diskio -q --prom DIR/diskio.prom --state DIR/state 2`
 * on ext4, 20 s with nothing crashing.  A second diskio watching it (-p)
 * sees at most one flush of its own: the .prom file is rewritten every
 * interval (a new inode each time, node_exporter sees whole files) but
 * not fsynced, and the state file is saved when a crash is counted or a
 * crash interval closes, and at exit, not every interval.  After kill -9
 * the state file is whole: the next run adopts it.
 */
Test(state, a_quiet_service_flushes_at_most_once, .timeout = 120)
{
	char prom[PATH_MAX], state[PATH_MAX], pid_arg[16];
	struct h_diskio service, watcher;
	struct h_counters own = { 0 };
	struct h_diskstats disk_before, disk_after;
	int64_t flushes;
	ino_t inodes[64];
	size_t ninodes = 0;
	struct h_result r;
	int64_t deadline;

	mount_ext4();
	snprintf(prom, sizeof(prom), "%s/diskio.prom", mnt);
	snprintf(state, sizeof(state), "%s/crashfree", mnt);
	/* A state file from an earlier run, for kill -9 to find. */
	h_run(H_ARGS(h_diskio_path(), "-b", "--state", state, "0.2", "1"), NULL, NULL, 30000, &r);
	cr_assert_eq(r.status, 0, "the first run: %s", r.err);
	cr_assert(exists(state), "the first run saved no state file at exit");
	h_result_free(&r);
	cr_assert(h_diskstats_read(mnt_dev, &disk_before) && disk_before.nfields >= 20,
		  "no flush count of %s in /proc/diskstats", mnt_dev);
	h_diskio_start(&service, H_ARGS("-q", "--prom", prom, "--state", state,
					 "--crash-interval", "3600", "2"), NULL);
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)service.pid);
	h_diskio_start(&watcher, H_ARGS("--json", "-p", pid_arg, "1"), NULL);
	h_diskio_wait_attached(&watcher, H_ATTACH_TIMEOUT_MS);
	deadline = h_now_ms() + 20000;
	while (h_now_ms() < deadline) {
		struct stat st;

		cr_assert(!service.exited, "the service exited: %s", service.err);
		if (!stat(prom, &st) && (!ninodes || inodes[ninodes - 1] != st.st_ino) &&
		    ninodes < sizeof(inodes) / sizeof(inodes[0]))
			inodes[ninodes++] = st.st_ino;
		h_diskio_pump(&watcher, 200);
		h_diskio_pump(&service, 0);
	}
	cr_assert(h_diskstats_read(mnt_dev, &disk_after));
	flushes = (int64_t)h_diskstats_delta(&disk_before, &disk_after).flush_ios;
	/* kill -9 at some moment: the state file is old or new, never torn. */
	kill(service.pid, SIGKILL);
	h_diskio_stop(&service, 0, H_EXIT_TIMEOUT_MS);
	h_diskio_finish(&watcher, 1);
	h_json_sum_process(watcher.lines, watcher.nlines, (uint32_t)service.pid, NULL, NULL, &own);
	cr_log_info("in 20 s: the service's own flushes %" PRId64 ", the disk's %" PRId64
		    " (its journal's commits included); %zu .prom files", own.flushes, flushes,
		    ninodes);
	cr_expect_leq(own.flushes, 1, "the service flushed the disk %" PRId64 " times",
		      own.flushes);
	/* ext4 commits its journal every 5 s when metadata changed (the
	 * renames): 4 or 5 commits, each a pre- and a post-flush on a loop
	 * device (no FUA); a save with fsync every interval gave 84. */
	cr_expect_leq(flushes, 10, "the disk had %" PRId64 " flushes in 20 s", flushes);
	cr_expect_geq(ninodes, 8, "the .prom file was rewritten %zu times in 20 s at 2 s",
		      ninodes);
	h_run(H_ARGS(h_diskio_path(), "-b", "--state", state, "0.2", "1"), NULL, NULL, 30000, &r);
	cr_expect_eq(r.status, 0, "the state file after kill -9: %s", r.err);
	cr_expect(!strstr(r.err, "state file"), "the state file after kill -9: %s", r.err);
	h_result_free(&r);
	h_diskio_free(&watcher);
	h_diskio_free(&service);
}
