// SPDX-License-Identifier: GPL-2.0
/*
 * --stacks' user-space symbolizer against hostile processes.
 *
 * diskio runs as root and names the user frames of every process that does
 * block I/O by reading the ELF files that process mapped.  Each test here is
 * an attack by an unprivileged user (created with useradd for the test and
 * removed after it, even when it fails) whose process does real O_DIRECT I/O
 * on a zram disk made readable to that user, from code built with frame
 * pointers and a function name of its own, so that diskio records its stack
 * and symbolizes it.  What they prove:
 *
 *  swap_*, deleted_*, mount_namespace_*: diskio opens another process's file
 *	only through /proc/PID/map_files/, never by the path /proc/PID/maps
 *	shows (nor /proc/PID/root/PATH), so a user who swaps that path for a
 *	symlink to /etc/shadow, /dev/zero or a root-only library, or for a FIFO,
 *	or who maps a file that exists only in a private mount namespace while
 *	root's namespace has a decoy at the same path, gets none of those opened
 *	(strace log, inotify) and none of their names printed.
 *  root_only_library_*: a library only root can read names no user's
 *	process, even one given its build id.
 *  bomb_*: hostile ELF files (huge names, sparse multi-GiB sections and
 *	notes, one build id in many files) keep diskio under 128 MiB of peak RSS,
 *	inside a 256 MiB memory cgroup, and on time every interval.
 *  churn_rss_*: many short-lived processes with thousands of mappings each
 *	do not leave their mappings in diskio's memory.
 *  libc_copy_*: a user's doctored copy of libc with libc's build id does not
 *	name root's libc frames.
 *  pid_reuse_*, exec_*: a pid reused by another program, or a process that
 *	execs, is named from what it maps now.
 *  cache_churn_*: after 300 distinct binaries a new one is still named.
 *  folded_*: the --folded file is valid UTF-8 whatever bytes a symbol holds.
 *
 * Helper programs are C sources below, compiled at run time with cc; hostile
 * ELF files are written byte by byte by the eg_* functions below.  The swap
 * tests run diskio under `strace -f -y` and are skipped without strace.
 * Everything lives under /dev/shm/dsym-PID (removed at the end; the leftovers
 * of a killed run are swept by the next one, as are its user and cgroup).
 * These tests name no reason for an unknown frame ("user_unknown"): they
 * check what must not be named, and what must.
 */
#include "harness.h"

#include <elf.h>
#include <ftw.h>
#include <pwd.h>
#include <sched.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/resource.h>

#define INTERVAL	"0.5"
#define INTERVAL_S	0.5
/*
 * No interval record may come later than this after the one before: the
 * output is never held up a whole interval by the symbolizer.  Not 1.5
 * intervals as once: with every core busy an interval came 0.761-0.868 s
 * after the one before, on scheduling alone, while the bombs with no time
 * budget at all (diskio.c's budget_ns 0, tried here) still came 0.58 s
 * apart, held by the byte and symbol budgets.
 */
#define MAX_GAP_S	(2 * INTERVAL_S)
#define DISK_SIZE	(64ULL << 20)
#define BASE_PREFIX	"/dev/shm/dsym-"
#define USER_PREFIX	"diskio-attk-"
#define CGROUP_PREFIX	"diskio-symb-"
#define MIB		(1024ULL * 1024)
#define GIB		(1024ULL * MIB)

/* ========================================================== programs == */

/*
 * A shared library whose one exported function reads n bytes with O_DIRECT
 * through a helper (libc's pread wrapper keeps no frame: its caller's frame
 * is lost, the caller's caller is named).  Built as the user's libvictim.so
 * (LIB_FN victim_userlib_pread_function) and as root's secret library
 * (LIB_FN TOP_SECRET_root_only_function): same code, names of one length,
 * so a function of one is at the same file offset as in the other.
 */
#define VICTIM_FN	"victim_userlib_pread_function"
#define SECRET_FN	"TOP_SECRET_root_only_function"
_Static_assert(sizeof(VICTIM_FN) == sizeof(SECRET_FN), "one layout for both libraries");

static const char lib_source[] =
	"#define _GNU_SOURCE\n"
	"#include <unistd.h>\n"
	"__attribute__((noinline)) static int lib_read_chunk(int fd, void *buf, off_t off)\n"
	"{ return pread(fd, buf, 4096, off) == 4096 ? 0 : -1; }\n"
	"__attribute__((noinline)) int LIB_FN(int fd, void *buf, long n)\n"
	"{ for (long off = 0; off < n; off += 4096) if (lib_read_chunk(fd, buf, off)) return -1;\n"
	"  return 0; }\n";

/*
 * The attacker of the swap tests.  It reads with O_DIRECT from a function
 * of libvictim.so (dlopen'ed: mode "lib") or of its own executable (mode
 * "exe"), and wins the race against a symbolizer that reads the maps and
 * opens the files they name one after the other:
 *
 *  - it maps one page of a user file that is slow to parse (an ELF file with
 *    200,000 symbols) just below the module, so that its maps line comes
 *    right before the module's, and lengthens the slow file's path (renaming
 *    it into padding directories: the maps line shows the file's current
 *    path) until both lines are in one read() of /proc/PID/maps as stdio
 *    reads it (st_blksize bytes): a reader that reached the slow line has
 *    the module's line in memory, whatever the process does next;
 *  - it watches the slow file with inotify: when the reader opens it, the
 *    reader holds the maps text; the attacker then renames its prepared
 *    object (a symlink, a FIFO) over the module's path and exits at once, so
 *    that /proc/PID/map_files/ is gone while the reader parses the slow file,
 *    and only the path is left to open.
 *
 * With WHEN "before" the path is swapped before the I/O (the maps line says
 * "(deleted)").  Without waiting for the slow file (nor swapping), "now"
 * exits right after the I/O, "hold" 0.5 s after it, "unmap" unmaps MODULE
 * and then lives 0.5 s, "exec" execs /bin/sleep 0.5.  Exit codes: 0 the slow
 * file was opened and the race run (or not waited for), 3 nobody opened the
 * slow file within 5 s (swapped and exited anyway), 2x a setup step failed.
 *
 *   attacker MODE ZRAM BYTES SLOW MODULE FUNCTION SWAP_FROM SWAP_TO WHEN
 */
static const char attacker_source[] =
	"#define _GNU_SOURCE\n"
	"#include <dlfcn.h>\n"
	"#include <fcntl.h>\n"
	"#include <link.h>\n"
	"#include <poll.h>\n"
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <sys/inotify.h>\n"
	"#include <sys/mman.h>\n"
	"#include <sys/stat.h>\n"
	"#include <unistd.h>\n"
	"extern char __executable_start[];\n"
	"static char maps[1 << 20];\n"
	"static char slow_path[8192];\n"
	"__attribute__((noinline)) static int exe_read_chunk(int fd, void *buf, off_t off)\n"
	"{ return pread(fd, buf, 4096, off) == 4096 ? 0 : -1; }\n"
	"__attribute__((noinline)) int EXE_FN(int fd, void *buf, long n)\n"
	"{ for (long off = 0; off < n; off += 4096) if (exe_read_chunk(fd, buf, off)) return -1;\n"
	"  return 0; }\n"
	"static size_t read_maps(size_t *blksize)\n"
	"{ struct stat st; size_t len = 0; ssize_t n;\n"
	"  int fd = open(\"/proc/self/maps\", O_RDONLY);\n"
	"  if (fd < 0 || fstat(fd, &st)) _exit(25);\n"
	"  *blksize = st.st_blksize;\n"
	"  while ((n = read(fd, maps + len, sizeof(maps) - 1 - len)) > 0) len += n;\n"
	"  close(fd); maps[len] = 0; return len; }\n"
	"/* Ends (offset after the newline) of the line of the mapping at slow and of the\n"
	"   first executable line after it, which must be the module's (at base). */\n"
	"static int line_ends(unsigned long slow, unsigned long base, size_t *slow_end,\n"
	"		     size_t *exec_end, size_t *blksize)\n"
	"{ size_t len = read_maps(blksize); char *p = maps; int next = 0;\n"
	"  *slow_end = 0;\n"
	"  while (p < maps + len) { char *nl = strchr(p, '\\n'), *perm = strchr(p, ' ');\n"
	"    unsigned long start = strtoul(p, NULL, 16);\n"
	"    if (!nl || !perm) return -1;\n"
	"    if (!*slow_end) { if (start == slow) { *slow_end = nl + 1 - maps; next = 1; } }\n"
	"    else if (next && start != base) return -1;\n"
	"    else if (perm[3] == 'x') { *exec_end = nl + 1 - maps; return 0; }\n"
	"    next = 0; p = nl + 1; }\n"
	"  return -1; }\n"
	"/* Rename the slow file so that its path is longer by add bytes. */\n"
	"static void lengthen(size_t add)\n"
	"{ char to[8192], *slash = strrchr(slow_path, '/');\n"
	"  size_t dirs = add / 200, rest = add % 200;\n"
	"  size_t at = slash - slow_path;\n"
	"  memcpy(to, slow_path, at);\n"
	"  for (size_t i = 0; i < dirs; i++) {\n"
	"    to[at++] = '/'; memset(to + at, 'd', 199); at += 199;\n"
	"    to[at] = 0; if (mkdir(to, 0755)) _exit(26); }\n"
	"  strcpy(to + at, slash); at += strlen(slash);\n"
	"  memset(to + at, 'x', rest); to[at + rest] = 0;\n"
	"  if (rename(slow_path, to)) _exit(27);\n"
	"  strcpy(slow_path, to); }\n"
	"/* Unmap every mapping of the file at path. */\n"
	"static void unmap_module(const char *path)\n"
	"{ size_t bs, len = read_maps(&bs), plen = strlen(path), n = 0; unsigned long r[64][2];\n"
	"  for (char *p = maps, *nl; p < maps + len && (nl = strchr(p, '\\n')); p = nl + 1) {\n"
	"    *nl = 0;\n"
	"    if (n < 64 && nl - p > (long)plen && !strcmp(nl - plen, path) &&\n"
	"        nl[-plen - 1] == ' ') {\n"
	"      r[n][0] = strtoul(p, &p, 16); r[n][1] = strtoul(p + 1, NULL, 16); n++; } }\n"
	"  if (!n) _exit(31);\n"
	"  for (size_t i = 0; i < n; i++)\n"
	"    if (munmap((void *)r[i][0], r[i][1] - r[i][0])) _exit(31); }\n"
	"int main(int argc, char **argv)\n"
	"{ int (*fn)(int, void *, long) = EXE_FN;\n"
	"  unsigned long base = (unsigned long)__executable_start;\n"
	"  size_t slow_end, exec_end, bs; void *buf, *want, *h;\n"
	"  int zfd, sfd, ino, seen, swapped = 0;\n"
	"  struct pollfd pfd; struct link_map *lm;\n"
	"  if (argc != 10) return 2;\n"
	"  snprintf(slow_path, sizeof(slow_path), \"%s\", argv[4]);\n"
	"  zfd = open(argv[2], O_RDONLY | O_DIRECT);\n"
	"  sfd = open(slow_path, O_RDONLY | O_CLOEXEC);\n"
	"  ino = inotify_init1(IN_CLOEXEC);\n"
	"  if (zfd < 0 || sfd < 0 || ino < 0 || posix_memalign(&buf, 4096, 4096)) return 20;\n"
	"  if (inotify_add_watch(ino, slow_path, IN_OPEN) < 0) return 20;\n"
	"  if (!strcmp(argv[1], \"lib\")) {\n"
	"    h = dlopen(argv[5], RTLD_NOW);\n"
	"    if (!h || !(fn = (int (*)(int, void *, long))dlsym(h, argv[6])) ||\n"
	"        dlinfo(h, RTLD_DI_LINKMAP, &lm)) {\n"
	"      fprintf(stderr, \"attacker: %s\\n\", dlerror()); return 21; }\n"
	"    base = lm->l_addr; }\n"
	"  want = (void *)(base - 4096);\n"
	"  if (mmap(want, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED_NOREPLACE, sfd,\n"
	"           0) != want) return 22;\n"
	"  if (!strcmp(argv[9], \"before\")) {\n"
	"    if (rename(argv[7], argv[8])) return 23;\n"
	"    swapped = 1; }\n"
	"  for (int tries = 0;; tries++) {\n"
	"    if (line_ends((unsigned long)want, base, &slow_end, &exec_end, &bs)) return 24;\n"
	"    if ((slow_end - 1) / bs == (exec_end - 1) / bs) break;\n"
	"    if (tries == 2) return 28;\n"
	"    lengthen((1 + bs - slow_end % bs) % bs); }\n"
	"  if (fn(zfd, buf, atol(argv[3]))) return 29;\n"
	"  if (!strcmp(argv[9], \"now\")) _exit(0);\n"
	"  if (!strcmp(argv[9], \"hold\")) { usleep(500000); _exit(0); }\n"
	"  if (!strcmp(argv[9], \"unmap\")) { unmap_module(argv[5]); usleep(500000); _exit(0); }\n"
	"  if (!strcmp(argv[9], \"exec\")) {\n"
	"    execl(\"/bin/sleep\", \"sleep\", \"0.5\", (char *)NULL); _exit(30); }\n"
	"  pfd.fd = ino; pfd.events = POLLIN;\n"
	"  seen = poll(&pfd, 1, 5000) > 0;\n"
	"  if (!swapped && strcmp(argv[7], \"-\") && rename(argv[7], argv[8])) return 23;\n"
	"  _exit(seen ? 0 : 3); }\n";

/*
 * The I/O program of the other tests: FN reads BYTES with O_DIRECT from
 * ZRAM (through a helper, as above); before, it maps files PROT_EXEC (the
 * first page of each --map file, --map-low: the whole file at 0x10000000, so
 * that it comes before every other mapping in /proc/PID/maps) and waits for
 * a byte or EOF on stdin (--gate); after, it stays HOLD_MS (so that diskio
 * reads its mappings while it lives), waits for EOF on stdin (--wait-stdin)
 * and execs --exec PROGRAM ARGS.  Exit codes: 2 usage, 3 a mapping failed,
 * 4 open or allocation, 5 read, 6 exec, 7 gate.
 *
 *   io_prog ZRAM BYTES HOLD_MS [--map F]... [--map-low F] [--gate]
 *	     [--wait-stdin] [--exec PROGRAM ARGS...]
 */
static const char io_prog_source[] =
	"#define _GNU_SOURCE\n"
	"#include <fcntl.h>\n"
	"#include <stdlib.h>\n"
	"#include <string.h>\n"
	"#include <sys/mman.h>\n"
	"#include <sys/stat.h>\n"
	"#include <unistd.h>\n"
	"__attribute__((noinline)) static int read_chunk(int fd, void *buf, off_t off)\n"
	"{ return pread(fd, buf, 4096, off) == 4096 ? 0 : -1; }\n"
	"__attribute__((noinline)) int FN(int fd, void *buf, long n)\n"
	"{ for (long off = 0; off < n; off += 4096) if (read_chunk(fd, buf, off)) return -1;\n"
	"  return 0; }\n"
	"static void map_file(const char *path, void *at)\n"
	"{ struct stat st; size_t len = 4096; void *p; int fd = open(path, O_RDONLY | O_CLOEXEC);\n"
	"  if (fd < 0 || fstat(fd, &st)) _exit(3);\n"
	"  if (at) len = (st.st_size + 4095) & ~4095UL;\n"
	"  p = mmap(at, len, PROT_READ | PROT_EXEC, MAP_PRIVATE | (at ? MAP_FIXED_NOREPLACE : 0),\n"
	"           fd, 0);\n"
	"  if (p == MAP_FAILED || (at && p != at)) _exit(3);\n"
	"  close(fd); }\n"
	"int main(int argc, char **argv)\n"
	"{ char **exec_argv = NULL, c; int gate = 0, wait_stdin = 0, fd; void *buf;\n"
	"  if (argc < 4) return 2;\n"
	"  for (int i = 4; i < argc; i++) {\n"
	"    if (!strcmp(argv[i], \"--map\") && i + 1 < argc) map_file(argv[++i], NULL);\n"
	"    else if (!strcmp(argv[i], \"--map-low\") && i + 1 < argc)\n"
	"      map_file(argv[++i], (void *)0x10000000UL);\n"
	"    else if (!strcmp(argv[i], \"--gate\")) gate = 1;\n"
	"    else if (!strcmp(argv[i], \"--wait-stdin\")) wait_stdin = 1;\n"
	"    else if (!strcmp(argv[i], \"--exec\") && i + 1 < argc) {\n"
	"      exec_argv = &argv[i + 1]; break; }\n"
	"    else return 2; }\n"
	"  if (posix_memalign(&buf, 4096, 4096)) return 4;\n"
	"  if (gate && read(0, &c, 1) < 0) return 7;\n"
	"  fd = open(argv[1], O_RDONLY | O_DIRECT);\n"
	"  if (fd < 0) return 4;\n"
	"  if (FN(fd, buf, atol(argv[2]))) return 5;\n"
	"  close(fd);\n"
	"  usleep(atoi(argv[3]) * 1000);\n"
	"  if (wait_stdin) while (read(0, &c, 1) > 0) ;\n"
	"  if (exec_argv) { execv(exec_argv[0], exec_argv); return 6; }\n"
	"  return 0; }\n";

/*
 * The churn test's parent: maps one page of a small ELF file NMAPS times
 * PROT_READ|PROT_EXEC at distinct addresses (one page apart, so that no two
 * merge), reads 4 KiB itself (its mappings are read before the baseline),
 * writes 'r' to stdout, waits for a byte or EOF on stdin, then forks
 * NCHILDREN children (at most 16 at a time) that each read 4 KiB with
 * O_DIRECT and exit at once (or after LINGER_MS), and writes "d FAILED\n".
 *
 *   churn ZRAM ELF NMAPS NCHILDREN LINGER_MS
 */
static const char churn_source[] =
	"#define _GNU_SOURCE\n"
	"#include <fcntl.h>\n"
	"#include <stdio.h>\n"
	"#include <stdlib.h>\n"
	"#include <sys/mman.h>\n"
	"#include <sys/wait.h>\n"
	"#include <unistd.h>\n"
	"__attribute__((noinline)) static int churn_read_chunk(int fd, void *buf)\n"
	"{ return pread(fd, buf, 4096, 0) == 4096 ? 0 : -1; }\n"
	"__attribute__((noinline)) int churn_child_function(int fd, void *buf)\n"
	"{ return churn_read_chunk(fd, buf); }\n"
	"int main(int argc, char **argv)\n"
	"{ int nmaps, nchildren, efd, fd, running = 0, failed = 0, status;\n"
	"  char c, *area; void *buf;\n"
	"  if (argc != 6) return 2;\n"
	"  nmaps = atoi(argv[3]); nchildren = atoi(argv[4]);\n"
	"  efd = open(argv[2], O_RDONLY | O_CLOEXEC);\n"
	"  area = mmap(NULL, (size_t)nmaps * 8192, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,\n"
	"              -1, 0);\n"
	"  if (efd < 0 || area == MAP_FAILED) return 3;\n"
	"  munmap(area, (size_t)nmaps * 8192);\n"
	"  for (int i = 0; i < nmaps; i++)\n"
	"    if (mmap(area + (size_t)i * 8192, 4096, PROT_READ | PROT_EXEC,\n"
	"             MAP_PRIVATE | MAP_FIXED_NOREPLACE, efd, 0) != area + (size_t)i * 8192)\n"
	"      return 3;\n"
	"  fd = open(argv[1], O_RDONLY | O_DIRECT);\n"
	"  if (fd < 0 || posix_memalign(&buf, 4096, 4096)) return 4;\n"
	"  if (churn_child_function(fd, buf)) return 5;\n"
	"  if (write(1, \"r\", 1) != 1 || read(0, &c, 1) < 0) return 7;\n"
	"  for (int i = 0; i < nchildren; i++) {\n"
	"    pid_t pid = fork();\n"
	"    if (pid == 0) { int err = churn_child_function(fd, buf);\n"
	"      if (atoi(argv[5])) usleep(atoi(argv[5]) * 1000);\n"
	"      _exit(err ? 1 : 0); }\n"
	"    if (pid < 0) { failed++; continue; }\n"
	"    for (running++; running >= 16; running--)\n"
	"      if (wait(&status) < 0 || status) failed++; }\n"
	"  for (; running > 0; running--) if (wait(&status) < 0 || status) failed++;\n"
	"  dprintf(1, \"d %d\\n\", failed);\n"
	"  return failed ? 1 : 0; }\n";

/* ============================================================== state == */

static pid_t s_owner;
static char s_base[256];	/* BASE_PREFIX PID, root 0755 ("" if none) */
static char s_build[320];	/* s_base/build: root 0700, sources, binaries, logs */
static char s_udir[320];	/* s_base/u: the user's 0755 directory */
static char s_rdir[320];	/* s_base/r: root's 0755 directory (root's programs) */
static char s_secret[320];	/* s_base/secret: root 0700 */
static char s_user[64];		/* "" if none */
static struct h_creds s_as;
static char s_cgroup[PATH_MAX];	/* a memory cgroup made here ("" if none) */
static bool s_cgroup_v2;
static bool s_guard_as;		/* no memory cgroup: bound diskio's address space */

static void run_quiet(const char *const argv[])
{
	struct h_result r;

	h_run(argv, NULL, NULL, 30000, &r);
	h_result_free(&r);
}

static void run_ok(const char *const argv[], int timeout_ms)
{
	struct h_result r;

	h_run(argv, NULL, NULL, timeout_ms, &r);
	if (r.status != 0) {
		cr_log_error("`%s` failed: %s%s", argv[0], r.out, r.err);
		h_result_free(&r);
		cr_assert_fail("`%s` failed", argv[0]);
	}
	h_result_free(&r);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void rm_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void user_remove(const char *name)
{
	run_quiet(H_ARGS("userdel", "-f", name));
	run_quiet(H_ARGS("groupdel", name));
}

static void cgroup_remove(const char *dir)
{
	for (int tries = 0; tries < 50; tries++) {
		if (!rmdir(dir) || errno == ENOENT)
			return;
		h_sleep_ms(20);
	}
	cr_log_info("cannot remove cgroup %s: %s", dir, strerror(errno));
}

static bool pid_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno != ESRCH);
}

/* Whether the comma-separated list has word. */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, len) && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

/* Where the memory controller is (/proc/mounts): a cgroup v1 hierarchy with
 * `memory` in its options, else a cgroup2 mount whose cgroup.controllers has
 * it.  false if neither. */
static bool memory_cgroup_root(char *root, size_t size, bool *v2)
{
	FILE *f = fopen("/proc/mounts", "re");
	char dev[256], mnt[256], type[64], opts[1024], buf[1024], path[320];

	root[0] = '\0';
	*v2 = false;
	while (f && fscanf(f, "%255s %255s %63s %1023s %*d %*d", dev, mnt, type, opts) == 4) {
		if (!strcmp(type, "cgroup") && has_word(opts, "memory")) {
			snprintf(root, size, "%s", mnt);
			*v2 = false;
			break;
		}
		snprintf(path, sizeof(path), "%s/cgroup.controllers", mnt);
		if (!strcmp(type, "cgroup2") && !root[0] &&
		    h_read_file(path, buf, sizeof(buf)) > 0 && strstr(buf, "memory")) {
			snprintf(root, size, "%s", mnt);
			*v2 = true;
		}
	}
	if (f)
		fclose(f);
	return root[0] != '\0';
}

/* The leftovers of runs killed before their cleanup: each name carries its
 * owner's pid. */
static void sweep_stale(void)
{
	FILE *f = fopen("/etc/passwd", "re");
	char line[1024], root[256];
	DIR *dir;
	struct dirent *e;
	bool v2;

	while (f && fgets(line, sizeof(line), f)) {
		int owner;

		if (sscanf(line, USER_PREFIX "%d:", &owner) == 1 && !pid_alive(owner)) {
			char name[64];

			snprintf(name, sizeof(name), USER_PREFIX "%d", owner);
			user_remove(name);
		}
	}
	if (f)
		fclose(f);
	dir = opendir("/dev/shm");
	while (dir && (e = readdir(dir))) {
		int owner;
		char path[300];

		if (sscanf(e->d_name, "dsym-%d", &owner) == 1 && !pid_alive(owner)) {
			snprintf(path, sizeof(path), "/dev/shm/%s", e->d_name);
			rm_tree(path);
		}
	}
	if (dir)
		closedir(dir);
	dir = memory_cgroup_root(root, sizeof(root), &v2) ? opendir(root) : NULL;
	while (dir && (e = readdir(dir))) {
		int owner, n;
		char path[PATH_MAX];

		if (sscanf(e->d_name, CGROUP_PREFIX "%d-%d", &owner, &n) == 2 &&
		    !pid_alive(owner)) {
			snprintf(path, sizeof(path), "%s/%s", root, e->d_name);
			cgroup_remove(path);
		}
	}
	if (dir)
		closedir(dir);
}

static void sym_cleanup(void)
{
	if (!s_owner || getpid() != s_owner)
		return;
	/* Children first (diskio in the cgroup, the user's processes), devices. */
	h_cleanup();
	if (s_cgroup[0])
		cgroup_remove(s_cgroup);
	s_cgroup[0] = '\0';
	if (s_user[0])
		user_remove(s_user);
	s_user[0] = '\0';
	if (s_base[0])
		rm_tree(s_base);
	s_base[0] = '\0';
}

static void sym_setup(void)
{
	h_setup();
	s_owner = getpid();
	atexit(sym_cleanup);
	sweep_stale();
}

static void sym_teardown(void)
{
	sym_cleanup();
	h_teardown();
}

TestSuite(symbolizer, .init = sym_setup, .fini = sym_teardown, .timeout = 150);

/* ============================================================== files == */

static void mkdir_as(const char *path, mode_t mode, uid_t uid, gid_t gid)
{
	cr_assert(!mkdir(path, mode) || errno == EEXIST, "mkdir %s: %s", path, strerror(errno));
	cr_assert(!chown(path, uid, gid) && !chmod(path, mode), "chown/chmod %s: %s", path,
		  strerror(errno));
}

/* The directories, and the user who attacks. */
static void make_dirs(void)
{
	snprintf(s_base, sizeof(s_base), BASE_PREFIX "%d", (int)getpid());
	rm_tree(s_base);	/* a killed run's, whose pid this process has now */
	mkdir_as(s_base, 0755, 0, 0);
	snprintf(s_build, sizeof(s_build), "%s/build", s_base);
	mkdir_as(s_build, 0700, 0, 0);
	snprintf(s_rdir, sizeof(s_rdir), "%s/r", s_base);
	mkdir_as(s_rdir, 0755, 0, 0);
	snprintf(s_secret, sizeof(s_secret), "%s/secret", s_base);
	mkdir_as(s_secret, 0700, 0, 0);
}

static void make_user(void)
{
	struct passwd *pw;
	struct h_result r;

	make_dirs();
	if (!h_have_program("useradd"))
		cr_skip_test("useradd not installed");
	snprintf(s_user, sizeof(s_user), USER_PREFIX "%d", (int)getpid());
	if (getpwnam(s_user))
		user_remove(s_user);	/* a killed run's, whose pid this process has now */
	h_run(H_ARGS("useradd", "-M", "-d", "/nonexistent", "-U", "-s", "/usr/sbin/nologin",
		     "-c", "diskio integration test attacker", s_user), NULL, NULL, 30000, &r);
	if (r.status != 0) {
		cr_log_error("useradd: %s%s", r.out, r.err);
		h_result_free(&r);
		s_user[0] = '\0';
		cr_assert_fail("useradd failed");
	}
	h_result_free(&r);
	pw = getpwnam(s_user);
	cr_assert_not_null(pw, "getpwnam %s", s_user);
	cr_assert_neq(pw->pw_uid, 0);
	s_as = (struct h_creds){ pw->pw_uid, pw->pw_gid };
	snprintf(s_udir, sizeof(s_udir), "%s/u", s_base);
	mkdir_as(s_udir, 0755, s_as.uid, s_as.gid);
}

/* A zram disk the user can read with O_DIRECT. */
static const struct h_dev *user_zram(void)
{
	const struct h_dev *zram = h_zram_create(DISK_SIZE);

	cr_assert(!chown(zram->path, s_as.uid, s_as.gid) && !chmod(zram->path, 0600),
		  "chown %s: %s", zram->path, strerror(errno));
	return zram;
}

static void write_bytes(const char *path, const void *data, size_t len, mode_t mode, uid_t uid,
			gid_t gid)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	const char *p = data;

	cr_assert(fd >= 0, "create %s: %s", path, strerror(errno));
	while (len) {
		ssize_t n = write(fd, p, len);

		cr_assert(n > 0, "write %s: %s", path, strerror(errno));
		p += n;
		len -= n;
	}
	cr_assert(!fchown(fd, uid, gid) && !fchmod(fd, mode), "chown %s: %s", path,
		  strerror(errno));
	cr_assert_eq(close(fd), 0);
}

/* The whole file; the caller frees it. */
static unsigned char *read_all(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	unsigned char *buf;
	size_t got = 0;

	cr_assert(fd >= 0 && !fstat(fd, &st), "open %s: %s", path, strerror(errno));
	buf = malloc(st.st_size + 1);
	cr_assert_not_null(buf);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);

		cr_assert(n > 0, "read %s: %s", path, strerror(errno));
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	*len = got;
	return buf;
}

static void copy_as(const char *from, const char *to, mode_t mode, uid_t uid, gid_t gid)
{
	size_t len;
	unsigned char *data = read_all(from, &len);

	write_bytes(to, data, len, mode, uid, gid);
	free(data);
}

/* Compile source (a string) with cc and flags (NULL-terminated) into
 * s_build/name; the binary's path goes to exe. */
static void build(const char *name, const char *source, const char *const flags[], char *exe,
		  size_t size)
{
	const char *argv[32];
	char src[400];
	size_t n = 0;

	if (!h_have_program("cc"))
		cr_skip_test("no C compiler (cc) to build the test programs");
	snprintf(src, sizeof(src), "%s/%s.c", s_build, name);
	snprintf(exe, size, "%s/%s", s_build, name);
	write_bytes(src, source, strlen(source), 0600, 0, 0);
	argv[n++] = "cc";
	argv[n++] = "-O0";
	argv[n++] = "-fno-omit-frame-pointer";
	argv[n++] = "-fno-inline";
	for (size_t i = 0; flags && flags[i] && n < 26; i++)
		argv[n++] = flags[i];
	argv[n++] = "-o";
	argv[n++] = exe;
	argv[n++] = src;
	argv[n] = NULL;
	run_ok(argv, 60000);
}

/* ============================================================ children == */

/*
 * Fork and exec argv[0] as `as` (NULL: root) with stdin/stdout from the
 * given descriptors (-1: the test's).  The child dies with the test
 * (PR_SET_PDEATHSIG again after setuid(), which clears it).  Tracked.
 */
static pid_t spawn(const struct h_creds *as, const char *const argv[], int in_fd, int out_fd)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (!pid) {
		if (in_fd >= 0)
			dup2(in_fd, 0);
		if (out_fd >= 0)
			dup2(out_fd, 1);
		h__child_prepare(-1);
		if (as && (setgroups(0, NULL) || setgid(as->gid) || setuid(as->uid)))
			_exit(126);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(99);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	h_track_child(pid);
	return pid;
}

/* The running diskio whose output is taken in while the test waits for
 * something else (else it blocks writing to a full pipe); NULL if none. */
static struct h_diskio *s_pump;

/* Take in diskio's output for up to ms milliseconds (or just sleep). */
static void pump(int ms)
{
	if (s_pump && !s_pump->exited)
		h_diskio_pump(s_pump, ms);
	else
		h_sleep_ms(ms);
}

/* h_wait_pid() taking in diskio's output meanwhile. */
static int wait_pid_pumping(pid_t pid, int timeout_ms, int *status)
{
	int64_t deadline = h_now_ms() + timeout_ms;

	while (h_wait_pid(pid, 0, status)) {
		if (h_now_ms() >= deadline)
			return -1;
		pump(10);
	}
	return 0;
}

/* Wait for pid and return its exit code (asserts that it exited). */
static int wait_exit(pid_t pid, int timeout_ms, const char *what)
{
	char why[64];
	int status;

	if (wait_pid_pumping(pid, timeout_ms, &status)) {
		h_kill_child(pid);
		cr_assert_fail("%s (pid %d) did not finish within %d ms", what, (int)pid,
			       timeout_ms);
	}
	cr_assert(WIFEXITED(status), "%s: %s", what, h_status_str(status, why, sizeof(why)));
	return WEXITSTATUS(status);
}

static void expect_exit_ok(pid_t pid, int timeout_ms, const char *what)
{
	int code = wait_exit(pid, timeout_ms, what);

	cr_assert_eq(code, 0, "%s exited %d", what, code);
}

/* ============================================================= cgroups == */

/*
 * A new memory cgroup of limit bytes in s_cgroup: under a cgroup v1 `memory`
 * hierarchy, or a cgroup2 one whose root has the memory controller (enabled
 * for children if it is not yet).  false if there is no memory controller.
 */
static bool cgroup_create(uint64_t limit)
{
	static int seq;
	char buf[1024], path[PATH_MAX + 64], root[256];
	bool v2;
	int err;

	if (!memory_cgroup_root(root, sizeof(root), &v2))
		return false;
	if (v2) {
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
		if (h_read_file(path, buf, sizeof(buf)) < 0 || !strstr(buf, "memory"))
			h_write_file(path, "+memory");
	}
	snprintf(s_cgroup, sizeof(s_cgroup), "%s/" CGROUP_PREFIX "%d-%d", root, (int)getpid(),
		 seq++);
	cr_assert(!mkdir(s_cgroup, 0755), "mkdir %s: %s", s_cgroup, strerror(errno));
	s_cgroup_v2 = v2;
	snprintf(buf, sizeof(buf), "%" PRIu64, limit);
	snprintf(path, sizeof(path), "%s/%s", s_cgroup,
		 v2 ? "memory.max" : "memory.limit_in_bytes");
	err = h_write_file(path, buf);
	cr_assert(!err, "%s: %s", path, strerror(-err));
	/* No swap to escape to (there is none here, but a limit is a limit). */
	snprintf(path, sizeof(path), "%s/%s", s_cgroup,
		 v2 ? "memory.swap.max" : "memory.memsw.limit_in_bytes");
	if (!access(path, F_OK))
		h_write_file(path, v2 ? "0" : buf);
	return true;
}

static void cgroup_add(pid_t pid)
{
	char path[PATH_MAX + 32], num[32];
	int err;

	snprintf(path, sizeof(path), "%s/cgroup.procs", s_cgroup);
	snprintf(num, sizeof(num), "%d", (int)pid);
	err = h_write_file(path, num);
	cr_assert(!err, "moving diskio %d into %s: %s", (int)pid, s_cgroup, strerror(-err));
}

/* The cgroup's OOM kills so far (for messages); -1 if unknown. */
static long cgroup_oom_kills(void)
{
	char path[PATH_MAX + 32], buf[4096], *at;

	snprintf(path, sizeof(path), "%s/%s", s_cgroup,
		 s_cgroup_v2 ? "memory.events" : "memory.oom_control");
	if (h_read_file(path, buf, sizeof(buf)) <= 0 || !(at = strstr(buf, "oom_kill ")))
		return -1;
	return atol(at + 9);
}

/* A line of /proc/PID/status in kB ("VmHWM:"); -1 if absent. */
static long status_kb(pid_t pid, const char *key)
{
	char path[64], buf[4096], *at;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (h_read_file(path, buf, sizeof(buf)) <= 0 || !(at = strstr(buf, key)))
		return -1;
	return atol(at + strlen(key));
}

/* ============================================================== diskio == */

/* A diskio run, maybe under strace (then d.pid is strace's, pid diskio's). */
struct run {
	struct h_diskio d;
	pid_t pid;
	char folded[400];
	char strace_log[400];
};

/* The pid of parent's child running exe (strace's diskio: strace forks other
 * children too, to probe seccomp), waiting for it. */
static pid_t child_of(pid_t parent, const char *exe, int timeout_ms)
{
	int64_t deadline = h_now_ms() + timeout_ms;

	do {
		DIR *dir = opendir("/proc");
		struct dirent *e;
		pid_t found = 0;

		while (dir && (e = readdir(dir)) && !found) {
			char path[300], buf[PATH_MAX], *paren;
			ssize_t len;
			int ppid;

			if (!isdigit((unsigned char)e->d_name[0]))
				continue;
			snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
			if (h_read_file(path, buf, sizeof(buf)) <= 0 ||
			    !(paren = strrchr(buf, ')')))
				continue;
			if (sscanf(paren + 1, " %*c %d", &ppid) != 1 || ppid != parent)
				continue;
			snprintf(path, sizeof(path), "/proc/%s/exe", e->d_name);
			len = readlink(path, buf, sizeof(buf) - 1);
			if (len > 0 && (buf[len] = '\0', !strcmp(buf, exe)))
				found = atoi(e->d_name);
		}
		if (dir)
			closedir(dir);
		if (found)
			return found;
		h_sleep_ms(10);
	} while (h_now_ms() < deadline);
	return 0;
}

/* Whether this strace has --seccomp-bpf (5.3 and later). */
static bool strace_has_seccomp(void)
{
	struct h_result r;
	bool ok;

	h_run(H_ARGS("strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=openat", "-o",
		     "/dev/null", "true"), NULL, NULL, 20000, &r);
	ok = r.status == 0;
	h_result_free(&r);
	return ok;
}

/*
 * Start diskio --json --stacks --folded FILE -D DISK INTERVAL (plus extra
 * arguments), under `strace -f -y` logging every open if traced, and wait
 * until it is attached.
 */
static void start_diskio(struct run *r, const struct h_dev *disk, const char *const extra[],
			 bool traced)
{
	const char *args[48];
	char real[PATH_MAX], *saved = NULL;
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	snprintf(r->folded, sizeof(r->folded), "%s/stacks.folded", s_build);
	cr_assert_not_null(realpath(h_diskio_path(), real), "diskio %s: %s", h_diskio_path(),
			   strerror(errno));
	if (traced) {
		/*
		 * -y: descriptors with their paths (what a symlink led to); -I2:
		 * a SIGTERM (the harness's death signal) kills diskio too, as
		 * strace passes fatal signals to the child it started;
		 * --seccomp-bpf: only the traced calls stop diskio.
		 */
		static const char *const strace_args[] = {
			"-f", "-qq", "-y", "-I2", "-s", "4096", "-e", "trace=open,openat,openat2",
			"-o", NULL,
		};

		if (!h_have_program("strace"))
			cr_skip_test("strace not installed (make deps-test)");
		snprintf(r->strace_log, sizeof(r->strace_log), "%s/strace.log", s_build);
		for (size_t i = 0; i < sizeof(strace_args) / sizeof(strace_args[0]); i++)
			args[n++] = strace_args[i] ? strace_args[i] : r->strace_log;
		if (strace_has_seccomp())
			args[n++] = "--seccomp-bpf";
		args[n++] = real;
	}
	args[n++] = "--json";
	args[n++] = "--stacks";
	args[n++] = "--stacks-top";
	args[n++] = "50";
	args[n++] = "--folded";
	args[n++] = r->folded;
	args[n++] = "-D";
	args[n++] = disk->name;
	for (size_t i = 0; extra && extra[i] && n < 44; i++)
		args[n++] = extra[i];
	args[n++] = INTERVAL;
	args[n] = NULL;
	if (traced) {
		saved = getenv("DISKIO") ? strdup(getenv("DISKIO")) : NULL;
		setenv("DISKIO", "/usr/bin/strace", 1);
		if (access("/usr/bin/strace", X_OK))
			setenv("DISKIO", "/bin/strace", 1);
	}
	h_diskio_start(&r->d, args, NULL);
	if (traced) {
		if (saved)
			setenv("DISKIO", saved, 1);
		else
			unsetenv("DISKIO");
		free(saved);
		r->pid = child_of(r->d.pid, real, 10000);
		cr_assert_gt(r->pid, 0, "diskio under strace did not start");
		/* Killed at cleanup too: strace killed leaves its tracee running. */
		h_track_child(r->pid);
	} else {
		r->pid = r->d.pid;
	}
	if (s_cgroup[0])
		cgroup_add(r->pid);
	s_pump = &r->d;
	if (s_guard_as) {
		/* Only so that a bomb cannot take the machine down without a cgroup. */
		struct rlimit as = { 4 * GIB, 4 * GIB };

		cr_assert(!prlimit(r->pid, RLIMIT_AS, &as, NULL), "prlimit: %s", strerror(errno));
	}
	h_diskio_wait_attached(&r->d, H_ATTACH_TIMEOUT_MS);
}

/*
 * h_diskio_wait_new_intervals(), saying how diskio died if it did (the OOM
 * killer of its memory cgroup, say).
 */
static void wait_intervals(struct run *r, int n)
{
	int64_t deadline = h_now_ms() + 5000 + 3000 * n;
	char why[64];
	int seen = 0;

	while (h_diskio_pump(&r->d, 0))
		;
	r->d.next = r->d.nlines;
	while (seen < n) {
		int64_t left = deadline - h_now_ms();
		const char *line = h_diskio_next_line(&r->d, left > 0 ? (int)left : 0);

		if (line) {
			seen += h_line_is_interval(line);
			continue;
		}
		h_diskio_stop(&r->d, 0, 2000);
		s_pump = NULL;
		h_diskio_dump(&r->d, "intervals missing");
		if (s_cgroup[0])
			cr_log_error("OOM kills in %s: %ld", s_cgroup, cgroup_oom_kills());
		cr_assert_fail("diskio printed %d of %d intervals (%s)", seen, n,
			       r->d.exited ? h_status_str(r->d.status, why, sizeof(why)) :
			       "still running");
	}
}

/*
 * Wait for two more intervals, note diskio's peak RSS, stop it with SIGINT:
 * it must exit 0 (not be killed, by the OOM killer say) with the summary last.
 */
static long finish_diskio(struct run *r)
{
	char why[64];
	long hwm_kb;
	int status;
	const char *last;

	wait_intervals(r, 2);
	hwm_kb = status_kb(r->pid, "VmHWM:");
	kill(r->pid, SIGINT);
	status = h_diskio_stop(&r->d, 0, 15000);
	s_pump = NULL;
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		h_diskio_dump(&r->d, "bad exit");
		if (s_cgroup[0])
			cr_log_error("OOM kills in %s: %ld", s_cgroup, cgroup_oom_kills());
		cr_assert_fail("diskio after SIGINT: %s", h_status_str(status, why, sizeof(why)));
	}
	last = r->d.nlines ? r->d.lines[r->d.nlines - 1] : "";
	cr_assert(h_json_is_summary(last), "diskio's last line is not its summary: %.300s", last);
	return hwm_kb;
}

/* Every interval record comes at most MAX_GAP_S after the one before ("ts"). */
static void expect_intervals_on_time(const struct h_diskio *d)
{
	double prev = -1, worst = 0;
	size_t worst_at = 0;
	int n = 0;

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv root, ts;
		double t;

		if (!h_json_is_interval(d->lines[i]) || !h_json_parse(d->lines[i], &root) ||
		    !h_json_get(root, "ts", &ts))
			continue;
		t = strtod(ts.p, NULL);
		if (prev >= 0 && t - prev > worst) {
			worst = t - prev;
			worst_at = i;
		}
		prev = t;
		n++;
	}
	cr_expect_geq(n, 3, "only %d interval records", n);
	cr_log_info("the longest gap between interval records: %.3f s (line %zu)", worst, worst_at);
	/* "ts" has three decimals. */
	cr_expect_leq(worst, MAX_GAP_S + 0.002, "an interval record came %.3f s after the one "
		      "before (line %zu); at most %.2f s (2 intervals) allowed", worst, worst_at,
		      MAX_GAP_S);
}

/* How many stdout lines contain needle (bytes). */
static int stdout_lines_with(const struct h_diskio *d, const char *needle)
{
	int n = 0;

	for (size_t i = 0; i < d->nlines; i++) {
		if (memmem(d->lines[i], strlen(d->lines[i]), needle, strlen(needle))) {
			if (n++ < 3)
				cr_log_error("diskio printed %s: %.1000s", needle, d->lines[i]);
		}
	}
	return n;
}

/*
 * The folded file, line by line: *count gets the sum of the counts of the
 * lines of comm (NULL: any) that contain needle (NULL: any); returns how
 * many such lines there were.  A missing file counts as empty (diskio may
 * have died before writing it: other assertions say so).
 */
static int folded_scan(const char *path, const char *comm, const char *needle, uint64_t *count)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0, comm_len = comm ? strlen(comm) : 0;
	ssize_t len;
	int lines = 0;

	*count = 0;
	if (!f)
		return 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		char *space = memrchr(line, ' ', len);

		if (comm && (strncmp(line, comm, comm_len) || line[comm_len] != ';'))
			continue;
		if (needle && !memmem(line, len, needle, strlen(needle)))
			continue;
		lines++;
		if (space)
			*count += strtoull(space + 1, NULL, 10);
		if (lines <= 5)
			cr_log_info("folded: %.1500s", line);
	}
	free(line);
	fclose(f);
	return lines;
}

/* Whether JSON array arr holds a string whose text contains needle (needles
 * here have no character JSON escapes, and frames may be long). */
static bool frames_contain(struct h_jv arr, const char *needle)
{
	struct h_jv frame;
	size_t pos = 0;

	while (h_json_next_elem(arr, &pos, &frame))
		if (memmem(frame.p, frame.len, needle, strlen(needle)))
			return true;
	return false;
}

/* The bytes of a set of stacks (see json_stacks). */
struct stack_bytes {
	int64_t all;		/* every stack */
	int64_t with;		/* those with a user frame containing the needle */
	int64_t unknown;	/* those with an "[unknown]" user frame */
	int64_t neither;	/* those with neither */
};

/*
 * Over the interval records, the bytes of the stacks of the rows of pid
 * (0: any) and comm (NULL: any).
 */
static struct stack_bytes json_stacks(const struct h_diskio *d, uint32_t pid, const char *comm,
				      const char *needle)
{
	struct stack_bytes b = { 0, 0, 0, 0 };

	for (size_t i = 0; i < d->nlines; i++) {
		struct h_jv rows, row, stacks, stack, user, value;
		size_t pos = 0;

		if (!h_json_is_interval(d->lines[i]) || !h_json_processes(d->lines[i], &rows))
			continue;
		while (h_json_next_elem(rows, &pos, &row)) {
			size_t spos = 0;
			int64_t p;

			if (pid && !(h_json_get_int(row, "pid", &p) && p == pid))
				continue;
			if (comm &&
			    !(h_json_get(row, "comm", &value) && h_json_str_eq(value, comm)))
				continue;
			if (!h_json_get(row, "stacks", &stacks))
				continue;
			while (h_json_next_elem(stacks, &spos, &stack)) {
				int64_t bytes = 0;
				bool has, unknown;

				h_json_get_int(stack, "bytes", &bytes);
				b.all += bytes;
				if (!h_json_get(stack, "user", &user))
					continue;
				has = needle && frames_contain(user, needle);
				unknown = frames_contain(user, "[unknown]");
				b.with += has ? bytes : 0;
				b.unknown += unknown ? bytes : 0;
				b.neither += !has && !unknown ? bytes : 0;
			}
		}
	}
	return b;
}

/* Read bytes diskio counted for pid on disk (its rows' read_bytes). */
static int64_t row_read_bytes(const struct h_diskio *d, pid_t pid, const char *disk,
			      const char *comm)
{
	struct h_counters sum;

	h_json_sum_process(d->lines, d->nlines, (uint32_t)pid, disk, comm, &sum);
	return sum.read_bytes;
}

/* ============================================================== strace == */

/* What diskio must not have opened. */
struct forbidden {
	const char *suffix[8];	/* no successful open of a path ending so */
	const char *target[8];	/* nor one whose descriptor names this file (strace -y) */
};

/* A C-escaped strace string at *p (after its opening quote) into out. */
static const char *strace_string(const char *p, char *out, size_t size)
{
	size_t n = 0;

	while (*p && *p != '"') {
		char c = *p++;

		if (c == '\\' && *p) {
			c = *p++;
			if (c == 'x' && isxdigit((unsigned char)p[0]) &&
			    isxdigit((unsigned char)p[1])) {
				char hex[3] = { p[0], p[1], 0 };

				c = (char)strtol(hex, NULL, 16);
				p += 2;
			} else if (c >= '0' && c <= '7') {
				int v = c - '0';

				for (int k = 0; k < 2 && *p >= '0' && *p <= '7'; k++)
					v = v * 8 + (*p++ - '0');
				c = (char)v;
			} else if (c == 'n') {
				c = '\n';
			} else if (c == 't') {
				c = '\t';
			}
		}
		if (n + 1 < size)
			out[n++] = c;
	}
	out[n] = '\0';
	return *p == '"' ? p + 1 : p;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* Whether path is /proc/DIGITS/root/... or /proc/self/root/... */
static bool through_proc_root(const char *path)
{
	const char *p;

	if (strncmp(path, "/proc/", 6))
		return false;
	p = path + 6;
	if (!strncmp(p, "self", 4) || !strncmp(p, "thread-self", 11))
		p = strchr(p, '/');
	else
		for (; isdigit((unsigned char)*p); p++)
			;
	return p && !strncmp(p, "/root/", 6);
}

/*
 * One open call of the strace log (`PID name(args) = RET<fd path>`, resumed
 * calls joined): a successful one whose path (the dirfd's path joined with a
 * relative one) ends with a forbidden suffix or goes through /proc/PID/root,
 * or whose descriptor is a forbidden target, is a violation.
 */
static int check_open_call(const char *call, const struct forbidden *fb)
{
	char arg[4096] = "", dir[4096] = "", path[8300], target[4096] = "";
	const char *p = strchr(call, '('), *eq;
	long ret;
	int bad = 0;

	if (!p || (strncmp(call, "open(", 5) && strncmp(call, "openat(", 7) &&
		   strncmp(call, "openat2(", 8)))
		return 0;
	p++;
	if (isdigit((unsigned char)*p)) {
		/* A dirfd: N</path>. */
		const char *lt = strchr(p, '<'), *gt = lt ? strstr(lt, ">, ") : NULL;

		if (lt && gt && (size_t)(gt - lt - 1) < sizeof(dir))
			snprintf(dir, sizeof(dir), "%.*s", (int)(gt - lt - 1), lt + 1);
	}
	p = strchr(p, '"');
	if (!p)
		return 0;
	strace_string(p + 1, arg, sizeof(arg));
	eq = strstr(call, ") = ");
	for (const char *next; eq && (next = strstr(eq + 1, ") = ")); eq = next)
		;
	if (!eq)
		return 0;
	ret = strtol(eq + 4, (char **)&p, 10);
	if (ret < 0)
		return 0;
	if (*p == '<') {
		const char *gt = strrchr(p, '>');

		if (gt && (size_t)(gt - p - 1) < sizeof(target))
			snprintf(target, sizeof(target), "%.*s", (int)(gt - p - 1), p + 1);
	}
	if (arg[0] != '/' && dir[0])
		snprintf(path, sizeof(path), "%s/%s", dir, arg);
	else
		snprintf(path, sizeof(path), "%s", arg);
	if (through_proc_root(path))
		bad = 1;
	for (int i = 0; i < 8 && fb->suffix[i]; i++)
		bad |= ends_with(path, fb->suffix[i]);
	for (int i = 0; i < 8 && fb->target[i]; i++)
		bad |= !strcmp(target, fb->target[i]);
	if (bad)
		cr_log_error("diskio opened what it must not: %s", call);
	return bad;
}

/* The violations in the strace log of diskio (see check_open_call). */
static int strace_violations(const char *log, const struct forbidden *fb, int *calls)
{
	struct {
		long pid;
		char *text;
	} pending[64] = { { 0, NULL } };
	FILE *f = fopen(log, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int bad = 0;

	cr_assert_not_null(f, "no strace log %s: %s", log, strerror(errno));
	*calls = 0;
	while ((len = getline(&line, &cap, f)) > 0) {
		char *rest, *joined = NULL;
		long pid;

		if (line[len - 1] == '\n')
			line[--len] = '\0';
		pid = strtol(line, &rest, 10);
		while (*rest == ' ')
			rest++;
		if (ends_with(rest, " <unfinished ...>")) {
			for (int i = 0; i < 64; i++) {
				if (!pending[i].text) {
					pending[i].pid = pid;
					pending[i].text = strndup(rest, strlen(rest) - 17);
					break;
				}
			}
			continue;
		}
		if (!strncmp(rest, "<... ", 5)) {
			const char *tail = strstr(rest, " resumed>");

			for (int i = 0; i < 64 && tail; i++) {
				if (pending[i].text && pending[i].pid == pid) {
					cr_assert(asprintf(&joined, "%s%s", pending[i].text,
							   tail + 9) > 0);
					free(pending[i].text);
					pending[i].text = NULL;
					break;
				}
			}
			if (!joined)
				continue;
			rest = joined;
		}
		(*calls)++;
		bad += check_open_call(rest, fb);
		free(joined);
	}
	for (int i = 0; i < 64; i++)
		free(pending[i].text);
	free(line);
	fclose(f);
	return bad;
}

/* ============================================================= inotify == */

/* An inotify descriptor watching paths (NULL-terminated) for opens. */
static int watch_opens(const char *const paths[])
{
	int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

	cr_assert_geq(fd, 0, "inotify_init1: %s", strerror(errno));
	for (size_t i = 0; paths[i]; i++)
		cr_assert_geq(inotify_add_watch(fd, paths[i], IN_OPEN | IN_DONT_FOLLOW), 0,
			      "inotify_add_watch %s: %s", paths[i], strerror(errno));
	return fd;
}

/* How many opens the watch saw (and closes it). */
static int opens_seen(int fd)
{
	char buf[65536] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	int opens = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (char *p = buf; p < buf + n;) {
			struct inotify_event *e = (struct inotify_event *)p;

			if (e->mask & IN_OPEN)
				opens++;
			p += sizeof(*e) + e->len;
		}
	}
	close(fd);
	return opens;
}

/* ================================================================= ELF == */

/*
 * ELF files written byte by byte: a header, program headers, then blobs and
 * sections as added, then .shstrtab and the section headers.  The file may
 * claim more than it holds: it is made file_size bytes long, sparse.
 */
struct elfgen {
	unsigned char *buf;
	size_t len, cap;
	Elf64_Phdr ph[8];
	int nph;
	Elf64_Shdr sh[16];
	const char *shname[16];
	int nsh;
	uint64_t file_size;
};

#define EG_HEADERS 0x200	/* the ELF header and up to 8 program headers */

static uint16_t native_machine(void)
{
	Elf64_Ehdr eh;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	cr_assert(fd >= 0 && read(fd, &eh, sizeof(eh)) == sizeof(eh));
	close(fd);
	return eh.e_machine;
}

static size_t eg_append(struct elfgen *g, const void *data, size_t size, size_t align)
{
	size_t at = align > 1 ? (g->len + align - 1) / align * align : g->len;

	if (at + size > g->cap) {
		size_t cap = g->cap ? g->cap : 65536;

		while (cap < at + size)
			cap *= 2;
		g->buf = realloc(g->buf, cap);
		cr_assert_not_null(g->buf, "out of memory");
		g->cap = cap;
	}
	memset(g->buf + g->len, 0, at - g->len);
	if (data)
		memcpy(g->buf + at, data, size);
	else
		memset(g->buf + at, 0, size);
	g->len = at + size;
	return at;
}

static void eg_init(struct elfgen *g)
{
	memset(g, 0, sizeof(*g));
	eg_append(g, NULL, EG_HEADERS, 1);
	g->nsh = 1;
}

static int eg_section(struct elfgen *g, const char *name, uint32_t type, uint64_t flags,
		      uint64_t off, uint64_t size, uint32_t link, uint32_t info, uint64_t align,
		      uint64_t entsize)
{
	cr_assert_lt(g->nsh, 15);
	g->shname[g->nsh] = name;
	g->sh[g->nsh] = (Elf64_Shdr){
		.sh_type = type, .sh_flags = flags, .sh_addr = (flags & SHF_ALLOC) ? off : 0,
		.sh_offset = off, .sh_size = size, .sh_link = link, .sh_info = info,
		.sh_addralign = align, .sh_entsize = entsize,
	};
	return g->nsh++;
}

static void eg_phdr(struct elfgen *g, uint32_t type, uint32_t flags, uint64_t off,
		    uint64_t filesz, uint64_t align)
{
	cr_assert_lt(g->nph, 8);
	g->ph[g->nph++] = (Elf64_Phdr){
		.p_type = type, .p_flags = flags, .p_offset = off, .p_vaddr = off, .p_paddr = off,
		.p_filesz = filesz, .p_memsz = filesz, .p_align = align,
	};
}

/* .shstrtab, the section headers, the ELF header; the file, owned by uid. */
static void eg_write(struct elfgen *g, const char *path, uid_t uid, gid_t gid)
{
	char names[1024];
	size_t nlen = 1, shoff;
	int shstr = g->nsh;
	Elf64_Ehdr eh = { 0 };
	int fd;

	names[0] = '\0';
	g->shname[shstr] = ".shstrtab";
	g->sh[shstr] = (Elf64_Shdr){ .sh_type = SHT_STRTAB, .sh_addralign = 1 };
	g->nsh++;
	for (int i = 1; i < g->nsh; i++) {
		size_t l = strlen(g->shname[i]) + 1;

		cr_assert_lt(nlen + l, sizeof(names));
		memcpy(names + nlen, g->shname[i], l);
		g->sh[i].sh_name = (uint32_t)nlen;
		nlen += l;
	}
	g->sh[shstr].sh_offset = eg_append(g, names, nlen, 1);
	g->sh[shstr].sh_size = nlen;
	shoff = eg_append(g, g->sh, sizeof(g->sh[0]) * g->nsh, 8);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_DYN;
	eh.e_machine = native_machine();
	eh.e_version = EV_CURRENT;
	eh.e_phoff = sizeof(eh);
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = (uint16_t)g->nph;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (uint16_t)g->nsh;
	eh.e_shstrndx = (uint16_t)shstr;
	memcpy(g->buf, &eh, sizeof(eh));
	memcpy(g->buf + sizeof(eh), g->ph, sizeof(g->ph[0]) * g->nph);
	write_bytes(path, g->buf, g->len, 0644, uid, gid);
	if (g->file_size > g->len) {
		fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		cr_assert(fd >= 0 && !ftruncate(fd, (off_t)g->file_size), "ftruncate %s: %s", path,
			  strerror(errno));
		close(fd);
	}
	free(g->buf);
	g->buf = NULL;
}

/* A GNU build id note (4-byte aligned) of 20 bytes id; its offset. */
static size_t eg_build_id(struct elfgen *g, const unsigned char id[20])
{
	struct {
		Elf64_Nhdr nh;
		char name[4];
		unsigned char desc[20];
	} note = { { 4, 20, NT_GNU_BUILD_ID }, "GNU", { 0 } };
	size_t off;

	memcpy(note.desc, id, 20);
	off = eg_append(g, &note, sizeof(note), 4);
	eg_section(g, ".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, off, sizeof(note), 0, 0, 4, 0);
	eg_phdr(g, PT_NOTE, PF_R, off, sizeof(note), 4);
	return off;
}

/* A .text of text_size bytes of int3 at 0x1000 in one R+X PT_LOAD from offset 0; its index. */
static int eg_text(struct elfgen *g, size_t text_size)
{
	size_t off = eg_append(g, NULL, text_size, 4096);

	memset(g->buf + off, 0xcc, text_size);
	eg_phdr(g, PT_LOAD, PF_R | PF_X, 0, off + text_size, 4096);
	return eg_section(g, ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, off, text_size, 0,
			  0, 16, 0);
}

/*
 * .symtab and .strtab: nsyms global functions of 16 bytes from 0x1000 on,
 * named by name(i) (one_name: all of them by the same string).
 */
static void eg_symbols(struct elfgen *g, int text, size_t nsyms, const char *prefix,
		       size_t one_name_len)
{
	size_t strsize = one_name_len ? one_name_len + 2 : 1 + nsyms * (strlen(prefix) + 9);
	char *strtab = calloc(1, strsize);
	Elf64_Sym *syms = calloc(nsyms + 1, sizeof(*syms));
	size_t at = 1, stroff, symoff;
	int strndx;

	cr_assert(strtab && syms, "out of memory");
	if (one_name_len)
		memset(strtab + 1, 'A', one_name_len);
	for (size_t i = 0; i < nsyms; i++) {
		Elf64_Sym *s = &syms[i + 1];

		if (one_name_len) {
			s->st_name = 1;
		} else {
			s->st_name = (uint32_t)at;
			at += (size_t)sprintf(strtab + at, "%s%08zu", prefix, i) + 1;
		}
		s->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		s->st_shndx = (uint16_t)text;
		s->st_value = 0x1000 + i * 16;
		s->st_size = 16;
	}
	if (!one_name_len)
		strsize = at;
	stroff = eg_append(g, strtab, strsize, 1);
	strndx = eg_section(g, ".strtab", SHT_STRTAB, 0, stroff, strsize, 0, 0, 1, 0);
	symoff = eg_append(g, syms, (nsyms + 1) * sizeof(*syms), 8);
	eg_section(g, ".symtab", SHT_SYMTAB, 0, symoff, (nsyms + 1) * sizeof(*syms),
		   (uint32_t)strndx, 1, 8, sizeof(Elf64_Sym));
	free(strtab);
	free(syms);
}

/* An ELF file of nsyms function symbols "PREFIX%08u" (and a build id if id). */
static void make_symbol_file(const char *path, size_t nsyms, const char *prefix,
			     const unsigned char id[20], uid_t uid, gid_t gid)
{
	struct elfgen g;
	int text;

	eg_init(&g);
	if (id)
		eg_build_id(&g, id);
	text = eg_text(&g, 4096);
	eg_symbols(&g, text, nsyms, prefix, 0);
	eg_write(&g, path, uid, gid);
}

/* The program headers of an ELF image, checked against its length. */
static Elf64_Phdr *image_phdrs(unsigned char *img, size_t len, int *n)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;

	cr_assert(len >= sizeof(*eh) && !memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
		  eh->e_ident[EI_CLASS] == ELFCLASS64 && eh->e_phentsize == sizeof(Elf64_Phdr) &&
		  eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) <= len,
		  "not a 64-bit ELF image");
	*n = eh->e_phnum;
	return (Elf64_Phdr *)(img + eh->e_phoff);
}

/* Overwrite the GNU build id's bytes of an ELF image with id (its length
 * kept: the first id_len bytes); false if it has none. */
static bool patch_build_id(unsigned char *img, size_t len, const unsigned char *id, size_t id_len)
{
	int n;
	Elf64_Phdr *ph = image_phdrs(img, len, &n);

	for (int i = 0; i < n; i++) {
		size_t at = ph[i].p_offset, end = at + ph[i].p_filesz;
		size_t align = ph[i].p_align == 8 ? 8 : 4;

		if (ph[i].p_type != PT_NOTE || end > len)
			continue;
		while (at + sizeof(Elf64_Nhdr) <= end) {
			Elf64_Nhdr *nh = (Elf64_Nhdr *)(img + at);
			size_t name = at + sizeof(*nh);
			size_t desc = name + (nh->n_namesz + align - 1) / align * align;

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(img + name, "GNU", 4)) {
				memcpy(img + desc, id,
				       id_len < nh->n_descsz ? id_len : nh->n_descsz);
				return true;
			}
			at = desc + (nh->n_descsz + align - 1) / align * align;
		}
	}
	return false;
}

/* The build id bytes of an ELF image (up to 64) into id; its length, 0 if none. */
static size_t image_build_id(unsigned char *img, size_t len, unsigned char *id)
{
	int n;
	Elf64_Phdr *ph = image_phdrs(img, len, &n);

	for (int i = 0; i < n; i++) {
		size_t at = ph[i].p_offset, end = at + ph[i].p_filesz;
		size_t align = ph[i].p_align == 8 ? 8 : 4;

		if (ph[i].p_type != PT_NOTE || end > len)
			continue;
		while (at + sizeof(Elf64_Nhdr) <= end) {
			Elf64_Nhdr *nh = (Elf64_Nhdr *)(img + at);
			size_t name = at + sizeof(*nh);
			size_t desc = name + (nh->n_namesz + align - 1) / align * align;

			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(img + name, "GNU", 4) && nh->n_descsz <= 64) {
				memcpy(id, img + desc, nh->n_descsz);
				return nh->n_descsz;
			}
			at = desc + (nh->n_descsz + align - 1) / align * align;
		}
	}
	return 0;
}

/*
 * In an ELF image, every function name of .dynsym ends in "EVIL" (its last
 * four bytes overwritten: the names keep their length, so the file stays
 * valid, and names sharing a tail in .dynstr stay consistent).  Returns how
 * many names were changed.
 */
static size_t evil_dynsym(unsigned char *img, size_t len)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Shdr *sh;
	size_t changed = 0;

	cr_assert(eh->e_shentsize == sizeof(Elf64_Shdr) &&
		  eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) <= len);
	sh = (Elf64_Shdr *)(img + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		Elf64_Shdr *str;

		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum ||
		    sh[i].sh_offset + sh[i].sh_size > len)
			continue;
		str = &sh[sh[i].sh_link];
		cr_assert(str->sh_offset + str->sh_size <= len);
		for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym); k++) {
			Elf64_Sym *s = (Elf64_Sym *)(img + sh[i].sh_offset) + k;
			unsigned char type = ELF64_ST_TYPE(s->st_info);
			char *name;
			size_t nlen;

			if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    s->st_shndx == SHN_UNDEF || s->st_name >= str->sh_size)
				continue;
			name = (char *)img + str->sh_offset + s->st_name;
			nlen = strnlen(name, str->sh_size - s->st_name);
			if (nlen < 4)
				continue;
			memcpy(name + nlen - 4, "EVIL", 4);
			changed++;
		}
	}
	return changed;
}

/*
 * The image with one more section header at its end: an SHT_SYMTAB over
 * .dynsym's data (so .dynstr's names), as a .symtab.  Loaders ignore
 * section headers; symbolizers prefer a .symtab to separate debug files
 * (libc6-dbg's, found by the build id the copy shares with libc).  Returns
 * the new image (the old one is freed), *len updated.
 */
static unsigned char *add_symtab_over_dynsym(unsigned char *img, size_t *len)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	size_t old_len = *len, shoff = (old_len + 7) & ~(size_t)7, n = eh->e_shnum;
	Elf64_Shdr *sh;
	unsigned char *out;
	int dynsym = -1;

	cr_assert(eh->e_shentsize == sizeof(Elf64_Shdr) &&
		  eh->e_shoff + (uint64_t)n * sizeof(Elf64_Shdr) <= old_len);
	out = calloc(1, shoff + (n + 1) * sizeof(Elf64_Shdr));
	cr_assert_not_null(out);
	memcpy(out, img, old_len);
	memcpy(out + shoff, img + eh->e_shoff, n * sizeof(Elf64_Shdr));
	free(img);
	sh = (Elf64_Shdr *)(out + shoff);
	for (size_t i = 0; i < n; i++)
		if (sh[i].sh_type == SHT_DYNSYM)
			dynsym = (int)i;
	cr_assert_geq(dynsym, 0, "no .dynsym");
	sh[n] = sh[dynsym];
	sh[n].sh_type = SHT_SYMTAB;
	sh[n].sh_flags = 0;
	sh[n].sh_addr = 0;
	sh[n].sh_name = 0;
	eh = (Elf64_Ehdr *)out;
	eh->e_shoff = shoff;
	eh->e_shnum = (uint16_t)(n + 1);
	*len = shoff + (n + 1) * sizeof(Elf64_Shdr);
	return out;
}

/* Replace every occurrence of from with to (same length) in an image; how many. */
static int replace_bytes(unsigned char *img, size_t len, const char *from, const char *to,
			 size_t n)
{
	int count = 0;

	for (unsigned char *p = img; (p = memmem(p, len - (p - img), from, n)); p += n) {
		memcpy(p, to, n);
		count++;
	}
	return count;
}

/* ========================================================== validator == */

/* Whether s[0..len) is valid UTF-8 (RFC 3629: no overlongs, no surrogates,
 * nothing above U+10FFFF). */
static bool valid_utf8(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t n;
		uint32_t cp, min;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			n = 1;
			cp = c & 0x1f;
			min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			n = 2;
			cp = c & 0x0f;
			min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			n = 3;
			cp = c & 0x07;
			min = 0x10000;
		} else {
			return false;
		}
		if (i + n >= len)
			return false;
		for (size_t k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

/* ======================================================== A: swapped paths == */

#define A_BYTES		(16 * 4096)
#define SLOW_SYMBOLS	200000

enum swap_kind { SWAP_SHADOW, SWAP_ZERO, SWAP_FIFO, SWAP_SECRET };

struct attack {
	char attacker[400];	/* s_udir/attacker, the user's */
	char lib[400];		/* s_udir/libvictim.so, the user's */
	char slow[400];		/* s_udir/slow.elf, the user's */
	char swap[400];		/* s_udir/swap: what replaces libvictim.so */
	char secret[400];	/* s_secret/libsecret.so: root's, 0700 in a 0700 directory */
};

/* The attacker (its own function exe_fn), libvictim.so, root's secret
 * library and the slow file. */
static void build_attack(struct attack *a, const char *exe_fn)
{
	char exe[400], define[128];

	snprintf(define, sizeof(define), "-DEXE_FN=%s", exe_fn);
	build("attacker", attacker_source, H_ARGS(define), exe, sizeof(exe));
	snprintf(a->attacker, sizeof(a->attacker), "%s/attacker", s_udir);
	copy_as(exe, a->attacker, 0755, s_as.uid, s_as.gid);
	build("libvictim", lib_source, H_ARGS("-shared", "-fPIC", "-DLIB_FN=" VICTIM_FN), exe,
	      sizeof(exe));
	snprintf(a->lib, sizeof(a->lib), "%s/libvictim.so", s_udir);
	copy_as(exe, a->lib, 0755, s_as.uid, s_as.gid);
	build("libsecret", lib_source, H_ARGS("-shared", "-fPIC", "-DLIB_FN=" SECRET_FN), exe,
	      sizeof(exe));
	snprintf(a->secret, sizeof(a->secret), "%s/libsecret.so", s_secret);
	copy_as(exe, a->secret, 0700, 0, 0);
	snprintf(a->slow, sizeof(a->slow), "%s/slow.elf", s_udir);
	make_symbol_file(a->slow, SLOW_SYMBOLS, "slow_to_parse_symbol_", NULL, s_as.uid, s_as.gid);
	snprintf(a->swap, sizeof(a->swap), "%s/swap", s_udir);
}

/* The attacker's exit: 0 raced, 3 the slow file was never opened; else a failed setup. */
static void expect_attacker_ran(pid_t pid)
{
	int code = wait_exit(pid, 30000, "the attacker");

	cr_assert(code == 0 || code == 3, "the attacker's setup failed: exit %d", code);
	if (code == 3)
		cr_log_info("diskio did not open the slow file while the attacker lived: the "
			    "race was not run (the checks still hold)");
}

/* What every swap test checks once diskio is gone. */
static void expect_nothing_leaked(struct run *r, const struct forbidden *fb, int watch,
				  pid_t attacker, const struct h_dev *zram, const char *secret_name)
{
	uint64_t count;
	int calls, bad = strace_violations(r->strace_log, fb, &calls);

	cr_expect_gt(calls, 0, "no open in the strace log: was it diskio's?");
	cr_expect_eq(bad, 0, "diskio opened %d forbidden file(s) (see the log above): the "
		     "attacker's path, its swapped target, or through /proc/PID/root", bad);
	if (watch >= 0) {
		int opens = opens_seen(watch);

		cr_expect_eq(opens, 0, "the swapped-in object (or the decoy) was opened %d "
			     "time(s) (inotify)", opens);
	}
	folded_scan(r->folded, NULL, NULL, &count);	/* logs the lines */
	cr_expect_eq(stdout_lines_with(&r->d, secret_name), 0, "%s printed", secret_name);
	cr_expect_eq(folded_scan(r->folded, NULL, secret_name, &count), 0, "%s in the folded "
		     "file", secret_name);
	cr_expect_eq(row_read_bytes(&r->d, attacker, zram->name, NULL), A_BYTES,
		     "diskio must have seen the attacker's %d bytes", A_BYTES);
	expect_intervals_on_time(&r->d);
}

/*
 * libvictim.so's path is replaced by kind (after the I/O, or before it:
 * then the maps line says "(deleted)") while diskio is parsing the slow file.
 */
static void swap_attack(enum swap_kind kind, bool before_io)
{
	struct forbidden fb = { { NULL }, { NULL } };
	const struct h_dev *zram;
	struct attack a;
	struct run r;
	char bytes[32];
	int watch = -1, ns = 0, nt = 0;
	pid_t pid;

	make_user();
	zram = user_zram();
	build_attack(&a, "attacker_exe_function");
	switch (kind) {
	case SWAP_SHADOW:
		cr_assert(!symlink("/etc/shadow", a.swap));
		fb.suffix[ns++] = fb.target[nt++] = "/etc/shadow";
		break;
	case SWAP_ZERO:
		cr_assert(!symlink("/dev/zero", a.swap));
		fb.suffix[ns++] = fb.target[nt++] = "/dev/zero";
		break;
	case SWAP_FIFO:
		cr_assert(!mkfifo(a.swap, 0644), "mkfifo: %s", strerror(errno));
		watch = watch_opens(H_ARGS(a.swap));
		break;
	case SWAP_SECRET:
		cr_assert(!symlink(a.secret, a.swap));
		fb.suffix[ns++] = fb.target[nt++] = a.secret;
		watch = watch_opens(H_ARGS(a.secret));
		break;
	}
	cr_assert(!lchown(a.swap, s_as.uid, s_as.gid), "lchown: %s", strerror(errno));
	/* Never by the path the maps line shows, whatever is there. */
	fb.suffix[ns++] = a.lib;
	fb.suffix[ns++] = a.swap;

	start_diskio(&r, zram, NULL, true);
	snprintf(bytes, sizeof(bytes), "%d", A_BYTES);
	pid = spawn(&s_as, H_ARGS(a.attacker, "lib", zram->path, bytes, a.slow, a.lib, VICTIM_FN,
				  a.swap, a.lib, before_io ? "before" : "after"), -1, -1);
	expect_attacker_ran(pid);
	finish_diskio(&r);
	expect_nothing_leaked(&r, &fb, watch, pid, zram, SECRET_FN);
	h_diskio_free(&r.d);
}

/* (a) a symlink to /etc/shadow: never opened (strace), diskio on time, exit 0. */
Test(symbolizer, swap_to_shadow_symlink)
{
	swap_attack(SWAP_SHADOW, false);
}

/* (b) a symlink to /dev/zero: never opened. */
Test(symbolizer, swap_to_dev_zero_symlink)
{
	swap_attack(SWAP_ZERO, false);
}

/* (c) a FIFO: never opened (strace, inotify), diskio does not hang. */
Test(symbolizer, swap_to_fifo)
{
	swap_attack(SWAP_FIFO, false);
}

/* (d) a symlink to root's 0700 library: never opened, its function never printed. */
Test(symbolizer, swap_to_root_only_library)
{
	swap_attack(SWAP_SECRET, false);
}

/* (e) the same swap before the I/O: the maps line says "(deleted)"; the path
 * is not opened to compare inodes either. */
Test(symbolizer, deleted_library_swapped_before_io)
{
	swap_attack(SWAP_SECRET, true);
}

/* Copy a file without asserting (in a forked child); 0 or -1. */
static int copy_plain(const char *from, const char *to, mode_t mode, uid_t uid, gid_t gid)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	ssize_t n;

	if (in < 0)
		return -1;
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			return -1;
	if (n < 0 || fchown(out, uid, gid) || fchmod(out, mode) || close(out))
		return -1;
	close(in);
	return 0;
}

/*
 * (f) The attacker runs from a tmpfs mounted only in its own mount
 * namespace, at path X; root's namespace has a decoy at X (root's, built
 * from the same source: the same layout and build id), with DECOY_function
 * where the attacker's NSMNT_function is.  Once the attacker is gone, X
 * names only the decoy for diskio: it must not be opened (strace, inotify)
 * nor DECOY_function printed.  when: the attacker's WHEN ("after": it races
 * as the swap tests do; "now": it exits right after its I/O, before diskio
 * can look at its mappings; "exec": it execs right after its I/O, alive
 * without the executable its frames are in).
 */
static void namespace_decoy(const char *when)
{
	struct forbidden fb = { { NULL }, { NULL } };
	char exe[400], decoy_exe[400], nsdir[400], x[450], bytes[32];
	const struct h_dev *zram;
	struct attack a;
	struct run r;
	int watch;
	pid_t pid;

	make_user();
	zram = user_zram();
	build_attack(&a, "NSMNT_function");
	snprintf(exe, sizeof(exe), "%s/attacker", s_build);
	build("decoy", attacker_source, H_ARGS("-DEXE_FN=DECOY_function"), decoy_exe,
	      sizeof(decoy_exe));
	snprintf(nsdir, sizeof(nsdir), "%s/ns", s_base);
	mkdir_as(nsdir, 0755, 0, 0);
	snprintf(x, sizeof(x), "%s/attacker", nsdir);
	copy_as(decoy_exe, x, 0755, 0, 0);
	watch = watch_opens(H_ARGS(x));
	fb.suffix[0] = x;

	start_diskio(&r, zram, NULL, true);
	snprintf(bytes, sizeof(bytes), "%d", A_BYTES);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		const char *const argv[] = { x, "exe", zram->path, bytes, a.slow, "-", "-", "-",
					     "-", when, NULL };

		h__child_prepare(-1);
		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(120);
		if (mount("tmpfs", nsdir, "tmpfs", 0, "mode=0755"))
			_exit(121);
		if (copy_plain(exe, x, 0755, s_as.uid, s_as.gid))
			_exit(122);
		if (setgroups(0, NULL) || setgid(s_as.gid) || setuid(s_as.uid))
			_exit(126);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(x, (char *const *)argv);
		_exit(127);
	}
	h_track_child(pid);
	expect_attacker_ran(pid);
	finish_diskio(&r);
	expect_nothing_leaked(&r, &fb, watch, pid, zram, "DECOY_function");
	h_diskio_free(&r.d);
}

Test(symbolizer, mount_namespace_decoy)
{
	namespace_decoy("after");
}

/*
 * The same attacker gone at once after its I/O, as a container's entrypoint
 * may be: frames named later (by build id, say) still never come from the
 * decoy, nor is it opened.
 */
Test(symbolizer, mount_namespace_decoy_exit_at_once)
{
	namespace_decoy("now");
}

/* The same attacker exec'ing at once after its I/O. */
Test(symbolizer, mount_namespace_decoy_exec_at_once)
{
	namespace_decoy("exec");
}

/*
 * Rule: a file that only root can read names no other process.  Root runs
 * the attacker program with libsecret.so (0700 in a 0700 directory) and reads
 * from TOP_SECRET_root_only_function, so diskio reads that library for root's
 * process; then the user's libvictim.so, given libsecret.so's build id (the
 * same layout: its function at the same offset), is read from twice: by a
 * process that keeps it mapped 0.5 s, and by one that unmaps it right after
 * its I/O (its frames can then only be named by build id).  The user's
 * frames must never be named TOP_SECRET_root_only_function (root's may be).
 */
Test(symbolizer, root_only_library_build_id_names_no_user)
{
	char root_prog[400], bytes[32];
	unsigned char id[64], *img;
	const struct h_dev *zram;
	struct stack_bytes b;
	size_t len, id_len;
	struct attack a;
	uint64_t count;
	struct run r;
	pid_t root_pid, pids[2];

	make_user();
	zram = user_zram();
	build_attack(&a, "attacker_exe_function");
	img = read_all(a.secret, &len);
	id_len = image_build_id(img, len, id);
	free(img);
	cr_assert_gt(id_len, 0, "%s has no build id", a.secret);
	img = read_all(a.lib, &len);
	cr_assert(patch_build_id(img, len, id, id_len), "%s has no build id", a.lib);
	write_bytes(a.lib, img, len, 0755, s_as.uid, s_as.gid);
	free(img);
	snprintf(root_prog, sizeof(root_prog), "%s/secret_root", s_rdir);
	copy_as(a.attacker, root_prog, 0755, 0, 0);
	snprintf(bytes, sizeof(bytes), "%d", A_BYTES);

	start_diskio(&r, zram, NULL, false);
	root_pid = spawn(NULL, H_ARGS(root_prog, "lib", zram->path, bytes, a.slow, a.secret,
				      SECRET_FN, "-", "-", "hold"), -1, -1);
	expect_exit_ok(root_pid, 15000, "root's program");
	wait_intervals(&r, 2);
	for (int i = 0; i < 2; i++) {
		pids[i] = spawn(&s_as, H_ARGS(a.attacker, "lib", zram->path, bytes, a.slow, a.lib,
					      VICTIM_FN, "-", "-", i ? "unmap" : "hold"), -1, -1);
		expect_exit_ok(pids[i], 15000, "the user's program");
	}
	finish_diskio(&r);

	folded_scan(r.folded, NULL, NULL, &count);	/* logs the lines */
	for (int i = 0; i < 2; i++) {
		cr_expect_eq(row_read_bytes(&r.d, pids[i], zram->name, NULL), A_BYTES,
			     "diskio must have seen the user's bytes");
		b = json_stacks(&r.d, pids[i], NULL, SECRET_FN);
		cr_expect_eq(b.with, 0, "the user's stacks (%s) named from root's 0700 library: "
			     "%" PRId64 " bytes", i ? "unmapped" : "mapped", b.with);
	}
	cr_expect_eq(folded_scan(r.folded, "attacker", SECRET_FN, &count), 0,
		     "the user's folded lines named from root's 0700 library");
	b = json_stacks(&r.d, root_pid, NULL, SECRET_FN);
	cr_expect_eq(b.with, A_BYTES, "root's own process is named from its own library (the "
		     "test's premise): %" PRId64 " bytes", b.with);
	expect_intervals_on_time(&r.d);
	h_diskio_free(&r.d);
}

/* =========================================================== B: bombs == */

#define B_BYTES		(64 * 4096)
#define RSS_LIMIT_KB	(128L * 1024)
#define CGROUP_LIMIT	(256 * MIB)

/*
 * The user's program maps one page of each file PROT_EXEC and reads B_BYTES
 * with O_DIRECT from its main executable; diskio, in a 256 MiB memory cgroup,
 * must exit 0 after SIGINT with a peak RSS under 128 MiB, every interval on
 * time.
 */
static void bomb_run(const struct h_dev *zram, const char *const files[])
{
	const char *argv[40];
	char exe[400], prog[400], bytes[32];
	struct run r;
	size_t n = 0;
	long hwm_kb;
	pid_t pid;

	build("bomb_io", io_prog_source, H_ARGS("-DFN=bomb_reader_function"), exe, sizeof(exe));
	snprintf(prog, sizeof(prog), "%s/bomb_io", s_udir);
	copy_as(exe, prog, 0755, s_as.uid, s_as.gid);
	if (!cgroup_create(CGROUP_LIMIT)) {
		cr_log_info("no memory cgroup controller (cgroup v1 `memory` or cgroup2 with "
			    "memory): diskio's run inside 256 MiB is not checked");
		s_guard_as = true;
	}
	start_diskio(&r, zram, NULL, false);
	snprintf(bytes, sizeof(bytes), "%d", B_BYTES);
	argv[n++] = prog;
	argv[n++] = zram->path;
	argv[n++] = bytes;
	argv[n++] = "1500";
	for (size_t i = 0; files[i] && n < 37; i++) {
		argv[n++] = "--map";
		argv[n++] = files[i];
	}
	argv[n] = NULL;
	pid = spawn(&s_as, argv, -1, -1);
	expect_exit_ok(pid, 30000, "the bomb's program");
	hwm_kb = finish_diskio(&r);
	cr_log_info("diskio's peak RSS: %ld kB", hwm_kb);
	cr_expect_gt(hwm_kb, 0);
	cr_expect_lt(hwm_kb, RSS_LIMIT_KB, "diskio's peak RSS (VmHWM) %ld kB, at most %ld kB",
		     hwm_kb, RSS_LIMIT_KB);
	expect_intervals_on_time(&r.d);
	cr_expect_eq(row_read_bytes(&r.d, pid, zram->name, NULL), B_BYTES,
		     "diskio must have seen the program's bytes");
	h_diskio_free(&r.d);
}

/* (1) 4,000 symbols whose names are all one 1 MiB string. */
Test(symbolizer, bomb_one_long_name)
{
	const struct h_dev *zram;
	struct elfgen g;
	char path[400];
	int text;

	make_user();
	zram = user_zram();
	snprintf(path, sizeof(path), "%s/long_name.elf", s_udir);
	eg_init(&g);
	text = eg_text(&g, 4096);
	eg_symbols(&g, text, 4000, NULL, MIB);
	eg_write(&g, path, s_as.uid, s_as.gid);
	bomb_run(zram, H_ARGS(path));
}

/* (2) Section headers claiming three 3 GiB SHT_SYMTAB sections (sparse file). */
Test(symbolizer, bomb_sparse_symtabs)
{
	const struct h_dev *zram;
	struct elfgen g;
	char path[400];
	size_t stroff;
	int strndx;

	make_user();
	zram = user_zram();
	snprintf(path, sizeof(path), "%s/sparse_symtabs.elf", s_udir);
	eg_init(&g);
	eg_text(&g, 4096);
	stroff = eg_append(&g, "\0x\0", 3, 1);
	strndx = eg_section(&g, ".strtab", SHT_STRTAB, 0, stroff, 3, 0, 0, 1, 0);
	for (int i = 0; i < 3; i++)
		eg_section(&g, ".symtab", SHT_SYMTAB, 0, MIB + i * 3 * GIB, 3 * GIB,
			   (uint32_t)strndx, 1, 8, sizeof(Elf64_Sym));
	g.file_size = MIB + 9 * GIB + 4096;
	eg_write(&g, path, s_as.uid, s_as.gid);
	bomb_run(zram, H_ARGS(path));
}

/* (3) Six PT_NOTE program headers of 1 GiB each (sparse file). */
Test(symbolizer, bomb_sparse_notes)
{
	const struct h_dev *zram;
	struct elfgen g;
	char path[400];

	make_user();
	zram = user_zram();
	snprintf(path, sizeof(path), "%s/sparse_notes.elf", s_udir);
	eg_init(&g);
	eg_text(&g, 4096);
	for (int i = 0; i < 6; i++)
		eg_phdr(&g, PT_NOTE, PF_R, MIB + i * GIB, GIB, 4);
	g.file_size = MIB + 6 * GIB + 4096;
	eg_write(&g, path, s_as.uid, s_as.gid);
	bomb_run(zram, H_ARGS(path));
}

/* (4) One 15 MiB ELF file (330,000 symbols) with one build id, as ten files. */
Test(symbolizer, bomb_one_build_id_ten_files)
{
	static const unsigned char id[20] = { 0xb0, 0x4b, 0x1d, 0x00, 0x5a, 0x3e, 0x1d, 0x0f,
					      0x17, 0xe5, 0x00, 0xd1, 0x5c, 0x10, 0x00, 0x00,
					      0xde, 0xad, 0xbe, 0xef };
	const char *files[11] = { NULL };
	static char paths[10][400];
	const struct h_dev *zram;

	make_user();
	zram = user_zram();
	for (int i = 0; i < 10; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/same_id_%d.elf", s_udir, i);
		if (i == 0)
			make_symbol_file(paths[i], 330000, "one_build_id_symbol_", id, s_as.uid,
					 s_as.gid);
		else
			copy_as(paths[0], paths[i], 0644, s_as.uid, s_as.gid);
		files[i] = paths[i];
	}
	bomb_run(zram, files);
}

/* ============================================================ C: churn == */

#define CHURN_MAPS	4096
#define CHURN_CHILDREN	1500
#define CHURN_SLACK_KB	(16L * 1024)

/* Read one byte from fd within timeout_ms (taking in diskio's output
 * meanwhile); -1 on timeout or EOF. */
static int read_byte(int fd, int timeout_ms)
{
	int64_t deadline = h_now_ms() + timeout_ms;
	struct pollfd p = { fd, POLLIN, 0 };
	char c;

	while (poll(&p, 1, 0) == 0) {
		if (h_now_ms() >= deadline)
			return -1;
		pump(10);
	}
	if (read(fd, &c, 1) != 1)
		return -1;
	return (unsigned char)c;
}

/*
 * A parent with 4,096 executable mappings forks 1,500 children that each do
 * one 4 KiB O_DIRECT read and exit after linger_ms: two intervals after the
 * last has exited, diskio's RSS is within 16 MiB of what it was before the
 * first started (their mappings are not kept).
 */
static void churn(const char *linger_ms)
{
	char exe[400], prog[400], elf[400], maps[16], children[16];
	const struct h_dev *zram;
	int in[2], out[2], c;
	long before_kb, after_kb;
	struct run r;
	pid_t pid;

	make_user();
	zram = user_zram();
	build("churn", churn_source, NULL, exe, sizeof(exe));
	snprintf(prog, sizeof(prog), "%s/churn", s_udir);
	copy_as(exe, prog, 0755, s_as.uid, s_as.gid);
	snprintf(elf, sizeof(elf), "%s/small.elf", s_udir);
	make_symbol_file(elf, 16, "small_elf_symbol_", NULL, s_as.uid, s_as.gid);
	snprintf(maps, sizeof(maps), "%d", CHURN_MAPS);
	snprintf(children, sizeof(children), "%d", CHURN_CHILDREN);

	start_diskio(&r, zram, H_ARGS("-r", "20"), false);
	cr_assert(!pipe2(in, O_CLOEXEC) && !pipe2(out, O_CLOEXEC));
	pid = spawn(&s_as, H_ARGS(prog, zram->path, elf, maps, children, linger_ms), in[0],
		    out[1]);
	close(in[0]);
	close(out[1]);
	c = read_byte(out[0], 30000);
	cr_assert_eq(c, 'r', "the churn parent did not get ready");
	wait_intervals(&r, 2);
	before_kb = status_kb(r.pid, "VmRSS:");
	cr_assert(write(in[1], "g", 1) == 1);
	close(in[1]);
	c = read_byte(out[0], 90000);
	cr_assert_eq(c, 'd', "the churn parent did not finish its children");
	close(out[0]);
	expect_exit_ok(pid, 10000, "the churn parent (and its children)");
	wait_intervals(&r, 2);
	after_kb = status_kb(r.pid, "VmRSS:");
	finish_diskio(&r);
	cr_log_info("diskio's VmRSS: %ld kB before the children, %ld kB after", before_kb,
		    after_kb);
	cr_expect(before_kb > 0 && after_kb > 0);
	cr_expect_leq(after_kb - before_kb, CHURN_SLACK_KB, "diskio's RSS grew by %ld kB over "
		      "%d short-lived processes (at most %ld kB)", after_kb - before_kb,
		      CHURN_CHILDREN, CHURN_SLACK_KB);
	h_diskio_free(&r.d);
}

/* The children exit at once, mostly before diskio reads their mappings. */
Test(symbolizer, churn_rss_returns)
{
	churn("0");
}

/*
 * The same with children that live 100 ms after their read, long enough for
 * diskio to read their 4,096 mappings: what it keeps of a process it did
 * read must go too when the process has gone.
 */
Test(symbolizer, churn_rss_returns_after_read_children)
{
	churn("100");
}

/* ============================================================= D: libc == */

#define DD_BYTES (50 * 65536)

/* The path of the libc this test runs with, from /proc/self/maps. */
static void libc_path(char *path, size_t size)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[1024];

	path[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		char *slash = strchr(line, '/'), *nl = strchr(line, '\n');

		if (nl)
			*nl = '\0';
		if (slash && strstr(slash, "/libc.so")) {
			snprintf(path, size, "%s", slash);
			break;
		}
	}
	if (f)
		fclose(f);
	cr_assert(path[0], "libc not found in /proc/self/maps");
}

/*
 * Root's `dd IFARG of=/dev/null bs=64k count=50 iflag=direct`, its stderr a
 * full pipe: dd reads in milliseconds, then blocks writing its statistics,
 * alive until the test drains *err (so that diskio can read its mappings:
 * a process gone within milliseconds of its I/O is not named at all).
 */
static pid_t spawn_dd(const char *ifarg, int *err)
{
	const char *const argv[] = { "dd", ifarg, "of=/dev/null", "bs=64k", "count=50",
				     "iflag=direct", NULL };
	char fill[4096];
	int p[2], null;
	pid_t pid;

	memset(fill, 'x', sizeof(fill));
	cr_assert(!pipe2(p, O_CLOEXEC | O_NONBLOCK));
	fcntl(p[1], F_SETPIPE_SZ, 4096);
	while (write(p[1], fill, sizeof(fill)) > 0)
		;
	cr_assert_eq(errno, EAGAIN);
	cr_assert(!fcntl(p[1], F_SETFL, 0) && !fcntl(p[0], F_SETFL, 0));
	null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		dup2(null, 1);
		dup2(p[1], 2);
		h__child_prepare(-1);
		execvp("dd", (char *const *)argv);
		_exit(127);
	}
	h_track_child(pid);
	close(p[1]);
	close(null);
	*err = p[0];
	return pid;
}

/*
 * A user maps (PROT_EXEC, before every other mapping) a copy of libc whose
 * function names in .dynstr all end in "EVIL" (patched in place: same
 * lengths, same build id), and which also lists .dynsym as a .symtab (so
 * that these names win over libc6-dbg's debug file, found by the build id),
 * and does I/O, so diskio reads it; then root's dd reads: its frames (in the
 * real libc, same build id) must not be named from the user's copy.
 */
Test(symbolizer, libc_copy_does_not_name_root_frames)
{
	unsigned char *img, id[64], id_after[64];
	char libc[PATH_MAX], evil[400], exe[400], holder_prog[400], ifarg[128], drain[65536];
	size_t len, id_len;
	const struct h_dev *zram;
	struct stack_bytes b;
	uint64_t count;
	int in[2], dd_err;
	struct run r;
	pid_t holder, dd;

	make_user();
	zram = user_zram();
	if (!h_have_program("dd"))
		cr_skip_test("dd not installed");
	libc_path(libc, sizeof(libc));
	img = read_all(libc, &len);
	id_len = image_build_id(img, len, id);
	cr_assert_gt(id_len, 0, "%s has no build id", libc);
	cr_assert_gt(evil_dynsym(img, len), 100, "too few .dynsym functions renamed in %s", libc);
	img = add_symtab_over_dynsym(img, &len);
	cr_assert_eq(image_build_id(img, len, id_after), id_len);
	cr_assert(!memcmp(id, id_after, id_len), "the build id must stay libc's");
	snprintf(evil, sizeof(evil), "%s/libc.so.6", s_udir);
	write_bytes(evil, img, len, 0755, s_as.uid, s_as.gid);
	free(img);
	build("holder", io_prog_source, H_ARGS("-DFN=evil_holder_function"), exe, sizeof(exe));
	snprintf(holder_prog, sizeof(holder_prog), "%s/holder", s_udir);
	copy_as(exe, holder_prog, 0755, s_as.uid, s_as.gid);

	/* Started before diskio, kept alive until the end. */
	cr_assert(!pipe2(in, O_CLOEXEC));
	holder = spawn(&s_as, H_ARGS(holder_prog, zram->path, "65536", "0", "--map-low", evil,
				     "--gate", "--wait-stdin"), in[0], -1);
	close(in[0]);
	start_diskio(&r, zram, NULL, false);
	cr_assert(write(in[1], "g", 1) == 1);
	wait_intervals(&r, 2);
	snprintf(ifarg, sizeof(ifarg), "if=%s", zram->path);
	dd = spawn_dd(ifarg, &dd_err);
	/* dd has read and is blocked writing its statistics: diskio reads its maps. */
	wait_intervals(&r, 2);
	while (read(dd_err, drain, sizeof(drain)) > 0)
		;
	close(dd_err);
	expect_exit_ok(dd, 30000, "dd");
	finish_diskio(&r);
	close(in[1]);
	expect_exit_ok(holder, 10000, "the holder of the copy");

	folded_scan(r.folded, NULL, NULL, &count);	/* logs the lines */
	cr_expect_eq(folded_scan(r.folded, "dd", "EVIL", &count), 0,
		     "root's dd named from the user's copy of libc (folded)");
	b = json_stacks(&r.d, 0, "dd", "EVIL");
	cr_expect_eq(b.with, 0, "root's dd named from the user's copy of libc: %" PRId64
		     " bytes of stacks in JSON", b.with);
	cr_expect_eq(row_read_bytes(&r.d, 0, zram->name, "dd"), DD_BYTES,
		     "diskio must have seen dd's %d bytes", DD_BYTES);
	cr_expect_gt(folded_scan(r.folded, "dd", NULL, &count), 0, "no folded line of dd");
	cr_expect_eq(count, DD_BYTES, "dd's folded bytes");
	expect_intervals_on_time(&r.d);
	h_diskio_free(&r.d);
}

/* ========================================================= E: pid, exec == */

#define OLD_BYTES	(8 * 4096)
#define NEW_BYTES	(24 * 4096)
#define BEFORE_BYTES	(8 * 4096)
#define AFTER_BYTES	(40 * 4096)

/*
 * A user's old_prog (OLD_function) reads and exits; root's new_prog
 * (NEW_function), another program built with the same layout (no PIE: the
 * same addresses), gets its pid (ns_last_pid) and reads: its stacks never
 * name OLD_function, and name NEW_function with its bytes.  The two files
 * also have one build id (GNU ld's hash leaves .symtab and .strtab out): a
 * cache keyed by build id names root's program from the user's file too.
 */
Test(symbolizer, pid_reuse_names_new_program)
{
	char exe[400], old_prog[400], new_prog[400], old_bytes[32], new_bytes[32], last[32];
	const struct h_dev *zram;
	struct stack_bytes b;
	uint64_t count;
	struct run r;
	pid_t old, new = 0;

	make_user();
	zram = user_zram();
	if (access("/proc/sys/kernel/ns_last_pid", W_OK))
		cr_skip_test("no writable /proc/sys/kernel/ns_last_pid");
	build("old_prog", io_prog_source, H_ARGS("-no-pie", "-DFN=OLD_function"), exe, sizeof(exe));
	snprintf(old_prog, sizeof(old_prog), "%s/old_prog", s_udir);
	copy_as(exe, old_prog, 0755, s_as.uid, s_as.gid);
	build("new_prog", io_prog_source, H_ARGS("-no-pie", "-DFN=NEW_function"), exe, sizeof(exe));
	snprintf(new_prog, sizeof(new_prog), "%s/new_prog", s_rdir);
	copy_as(exe, new_prog, 0755, 0, 0);
	snprintf(old_bytes, sizeof(old_bytes), "%d", OLD_BYTES);
	snprintf(new_bytes, sizeof(new_bytes), "%d", NEW_BYTES);

	start_diskio(&r, zram, NULL, false);
	old = spawn(&s_as, H_ARGS(old_prog, zram->path, old_bytes, "300"), -1, -1);
	expect_exit_ok(old, 15000, "old_prog");
	for (int tries = 0; tries < 50 && !new; tries++) {
		int go[2];
		pid_t pid;

		cr_assert(!pipe2(go, O_CLOEXEC));
		snprintf(last, sizeof(last), "%d", (int)old - 1);
		cr_assert(!h_write_file("/proc/sys/kernel/ns_last_pid", last));
		pid = fork();
		cr_assert_geq(pid, 0);
		if (!pid) {
			char c;

			h__child_prepare(go[0]);
			if (read(go[0], &c, 1) != 1)
				_exit(0);
			execv(new_prog,
			      (char *const *)H_ARGS(new_prog, zram->path, new_bytes, "300"));
			_exit(127);
		}
		h_track_child(pid);
		close(go[0]);
		if (pid == old) {
			cr_assert(write(go[1], "g", 1) == 1);
			new = pid;
		}
		close(go[1]);
		if (!new)
			expect_exit_ok(pid, 5000, "a child that missed the pid");
	}
	if (new != old)
		cr_skip_test("could not start new_prog as pid %d (another process took it)",
			     (int)old);
	expect_exit_ok(new, 15000, "new_prog");
	finish_diskio(&r);

	cr_expect_eq(row_read_bytes(&r.d, new, zram->name, "new_prog"), NEW_BYTES,
		     "new_prog's row (pid %d)", (int)new);
	b = json_stacks(&r.d, new, "new_prog", "OLD_function");
	cr_expect_eq(b.with, 0, "new_prog's stacks named by old_prog's binary (%" PRId64
		     " bytes)", b.with);
	cr_expect_eq(folded_scan(r.folded, "new_prog", "OLD_function", &count), 0,
		     "new_prog's folded lines named by old_prog's binary");
	b = json_stacks(&r.d, new, "new_prog", "NEW_function");
	cr_expect_eq(b.with, NEW_BYTES, "new_prog's stacks must name NEW_function: %" PRId64
		     " bytes of %" PRId64, b.with, b.all);
	folded_scan(r.folded, "new_prog", ";NEW_function;", &count);
	cr_expect_eq(count, NEW_BYTES, "new_prog's folded NEW_function bytes");
	expect_intervals_on_time(&r.d);
	h_diskio_free(&r.d);
}

/*
 * A user's before_prog reads with BEFORE_exec_function, then execs
 * after_prog (same layout, no PIE, same build id) which reads another count
 * with AFTER_exec_function: the stacks after the exec (the row of comm
 * after_prog, AFTER_BYTES) name AFTER_exec_function or are unknown, never
 * BEFORE_exec_function.
 */
Test(symbolizer, exec_names_new_image)
{
	char exe[400], before[400], after[400], before_bytes[32], after_bytes[32];
	const struct h_dev *zram;
	struct stack_bytes b;
	uint64_t count;
	struct run r;
	pid_t pid;

	make_user();
	zram = user_zram();
	build("before_prog", io_prog_source, H_ARGS("-no-pie", "-DFN=BEFORE_exec_function"), exe,
	      sizeof(exe));
	snprintf(before, sizeof(before), "%s/before_prog", s_udir);
	copy_as(exe, before, 0755, s_as.uid, s_as.gid);
	build("after_prog", io_prog_source, H_ARGS("-no-pie", "-DFN=AFTER_exec_function"), exe,
	      sizeof(exe));
	snprintf(after, sizeof(after), "%s/after_prog", s_udir);
	copy_as(exe, after, 0755, s_as.uid, s_as.gid);
	snprintf(before_bytes, sizeof(before_bytes), "%d", BEFORE_BYTES);
	snprintf(after_bytes, sizeof(after_bytes), "%d", AFTER_BYTES);

	start_diskio(&r, zram, NULL, false);
	pid = spawn(&s_as, H_ARGS(before, zram->path, before_bytes, "300", "--exec", after,
				  zram->path, after_bytes, "300"), -1, -1);
	expect_exit_ok(pid, 15000, "before_prog/after_prog");
	finish_diskio(&r);

	cr_expect_eq(row_read_bytes(&r.d, pid, zram->name, "before_prog"), BEFORE_BYTES);
	cr_expect_eq(row_read_bytes(&r.d, pid, zram->name, "after_prog"), AFTER_BYTES,
		     "the row after the exec");
	b = json_stacks(&r.d, pid, "after_prog", "BEFORE_exec_function");
	cr_expect_eq(b.all, AFTER_BYTES, "after_prog's stacks: %" PRId64 " bytes", b.all);
	cr_expect_eq(b.with, 0, "I/O after the exec named BEFORE_exec_function: %" PRId64
		     " bytes", b.with);
	b = json_stacks(&r.d, pid, "after_prog", "AFTER_exec_function");
	cr_expect_eq(b.neither, 0, "%" PRId64 " bytes after the exec neither name "
		     "AFTER_exec_function nor are unknown", b.neither);
	cr_expect_eq(folded_scan(r.folded, "after_prog", "BEFORE_exec_function", &count), 0,
		     "folded lines after the exec name BEFORE_exec_function");
	folded_scan(r.folded, "after_prog", NULL, &count);
	cr_expect_eq(count, AFTER_BYTES, "after_prog's folded bytes");
	expect_intervals_on_time(&r.d);
	h_diskio_free(&r.d);
}

/* ====================================================== F: cache churn == */

#define F_COPIES	300
#define F_PARALLEL	20
#define FRESH_BYTES	(13 * 4096)

/*
 * 300 distinct short-lived binaries of the user (one program, 300 build
 * ids) each read 4 KiB (and live 150 ms, so that diskio reads them); then
 * root's new fresh_prog reads FRESH_BYTES from FRESH_root_function: it is
 * named, with its exact bytes (a full cache evicts, it does not stop
 * naming).  fresh_prog lives until diskio has printed two intervals after
 * its read: what is checked is the cache, not how soon diskio gets to a
 * process behind 300 others' events (it lived 300 ms once, and on a busy
 * machine it was gone before diskio read its maps: 0 of 53,248 bytes named).
 */
Test(symbolizer, cache_churn_still_names_new_binary)
{
	char exe[400], fresh[400], fresh_bytes[32];
	static char copies[F_COPIES][400];
	int in[2];
	const struct h_dev *zram;
	unsigned char *img;
	struct stack_bytes b;
	uint64_t count;
	struct run r;
	size_t len;
	pid_t pid;

	make_user();
	zram = user_zram();
	build("copy_prog", io_prog_source, H_ARGS("-DFN=churn_copy_function",
						  "-Wl,--build-id=sha1"), exe, sizeof(exe));
	img = read_all(exe, &len);
	for (int i = 0; i < F_COPIES; i++) {
		unsigned char id[20] = { 0xf0, (unsigned char)(i >> 8), (unsigned char)i, 0x5e };

		memcpy(id + 4, &s_owner, sizeof(s_owner));
		cr_assert(patch_build_id(img, len, id, sizeof(id)), "no build id in %s", exe);
		snprintf(copies[i], sizeof(copies[i]), "%s/copy_%03d", s_udir, i);
		write_bytes(copies[i], img, len, 0755, s_as.uid, s_as.gid);
	}
	free(img);
	build("fresh_prog", io_prog_source, H_ARGS("-DFN=FRESH_root_function"), exe, sizeof(exe));
	snprintf(fresh, sizeof(fresh), "%s/fresh_prog", s_rdir);
	copy_as(exe, fresh, 0755, 0, 0);
	snprintf(fresh_bytes, sizeof(fresh_bytes), "%d", FRESH_BYTES);

	start_diskio(&r, zram, NULL, false);
	for (int i = 0; i < F_COPIES; i += F_PARALLEL) {
		pid_t pids[F_PARALLEL];

		for (int k = 0; k < F_PARALLEL && i + k < F_COPIES; k++)
			pids[k] = spawn(&s_as, H_ARGS(copies[i + k], zram->path, "4096", "150"), -1,
					-1);
		for (int k = 0; k < F_PARALLEL && i + k < F_COPIES; k++)
			expect_exit_ok(pids[k], 15000, "a copy");
	}
	wait_intervals(&r, 2);
	cr_assert(!pipe2(in, O_CLOEXEC));
	pid = spawn(NULL, H_ARGS(fresh, zram->path, fresh_bytes, "0", "--wait-stdin"), in[0], -1);
	close(in[0]);
	wait_intervals(&r, 2);
	close(in[1]);
	expect_exit_ok(pid, 15000, "fresh_prog");
	finish_diskio(&r);

	cr_expect_eq(row_read_bytes(&r.d, pid, zram->name, NULL), FRESH_BYTES);
	cr_log_info("copies named in the folded file: %d lines",
		    folded_scan(r.folded, NULL, ";churn_copy_function;", &count));
	folded_scan(r.folded, "fresh_prog", ";FRESH_root_function;", &count);
	cr_expect_eq(count, FRESH_BYTES, "FRESH_root_function's folded bytes after %d binaries",
		     F_COPIES);
	b = json_stacks(&r.d, pid, NULL, "FRESH_root_function");
	cr_expect_eq(b.with, FRESH_BYTES, "FRESH_root_function's bytes in JSON: %" PRId64
		     " of %" PRId64, b.with, b.all);
	expect_intervals_on_time(&r.d);
	h_diskio_free(&r.d);
}

/* ====================================================== G: folded UTF-8 == */

#define G_BYTES (6 * 4096)

/*
 * A user's binary whose function name holds bytes that are not UTF-8 (FF FE,
 * an overlong C0 AF, patched into .strtab) reads: every line of the folded
 * file, and of stdout, is valid UTF-8.
 */
Test(symbolizer, folded_file_is_valid_utf8)
{
	char exe[400], prog[400], bytes[32];
	const struct h_dev *zram;
	unsigned char *img;
	uint64_t count;
	struct run r;
	size_t len, cap = 0;
	char *line = NULL;
	ssize_t n;
	int lines = 0, bad = 0;
	FILE *f;
	pid_t pid;

	make_user();
	zram = user_zram();
	build("g_prog", io_prog_source, H_ARGS("-DFN=G_bad_utf8_QZQZ_function"), exe, sizeof(exe));
	img = read_all(exe, &len);
	cr_assert_gt(replace_bytes(img, len, "QZQZ", "\xff\xfe\xc0\xaf", 4), 0);
	snprintf(prog, sizeof(prog), "%s/g_prog", s_udir);
	write_bytes(prog, img, len, 0755, s_as.uid, s_as.gid);
	free(img);
	snprintf(bytes, sizeof(bytes), "%d", G_BYTES);

	start_diskio(&r, zram, NULL, false);
	pid = spawn(&s_as, H_ARGS(prog, zram->path, bytes, "300"), -1, -1);
	expect_exit_ok(pid, 15000, "g_prog");
	finish_diskio(&r);

	f = fopen(r.folded, "r");
	cr_assert_not_null(f, "no folded file: %s", strerror(errno));
	while ((n = getline(&line, &cap, f)) > 0) {
		lines++;
		if (!valid_utf8((unsigned char *)line, n)) {
			if (bad++ < 3)
				cr_log_error("folded line %d is not UTF-8: %s", lines, line);
		}
	}
	free(line);
	fclose(f);
	cr_expect_eq(bad, 0, "%d of %d folded lines are not valid UTF-8", bad, lines);
	cr_expect_gt(folded_scan(r.folded, "g_prog", NULL, &count), 0, "no folded line of g_prog");
	cr_expect_eq(count, G_BYTES, "g_prog's folded bytes");
	for (size_t i = 0; i < r.d.nlines; i++)
		cr_expect(valid_utf8((unsigned char *)r.d.lines[i], strlen(r.d.lines[i])),
			  "stdout line %zu is not UTF-8", i);
	cr_expect_eq(row_read_bytes(&r.d, pid, zram->name, NULL), G_BYTES);
	h_diskio_free(&r.d);
}
