// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for symbolize.c, ksyms.c and usyms.c: kallsyms parsing on
 * fake files, and user frames named in the test binaries the Makefile
 * builds from tests/data/symbolize_target.c (SYMBOLIZE_DATA), through the
 * real /proc and through fake /proc trees whose maps files are written
 * here.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "symbolize.h"

#ifndef SYMBOLIZE_DATA
#error "the Makefile passes SYMBOLIZE_DATA, the directory of the test binaries"
#endif

#define TARGET(variant) SYMBOLIZE_DATA "/symbolize_target_" variant
#define KERNEL_BASE 0xffffffff81000000ull

static char scratch[PATH_MAX];
static char buf[512];

static void make_scratch(void)
{
	snprintf(scratch, sizeof(scratch), "%s/diskio-symbolize.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	cr_assert_not_null(mkdtemp(scratch), "mkdtemp: %s", strerror(errno));
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void remove_scratch(void)
{
	nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void scratch_path(char out[PATH_MAX], const char *relative)
{
	int len = snprintf(out, PATH_MAX, "%s/%s", scratch, relative);

	cr_assert(len > 0 && len < PATH_MAX);
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "we");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static void write_scratch(const char *relative, const char *text)
{
	char path[PATH_MAX];

	scratch_path(path, relative);
	write_file(path, text, strlen(text));
}

/* ---- kallsyms ---- */

TestSuite(ksyms, .init = make_scratch, .fini = remove_scratch);

static struct ksyms *load_fake_kallsyms(const char *text)
{
	char path[PATH_MAX];
	struct ksyms *ks;

	write_scratch("kallsyms", text);
	scratch_path(path, "kallsyms");
	ks = ksyms_load(path);
	cr_assert_not_null(ks, "ksyms_load: %s", strerror(errno));
	return ks;
}

/* Unsorted, with data symbols, modules, an absolute symbol at 0 and junk. */
static const char fake_kallsyms[] =
	"ffffffff81002000 T second_func\n"
	"ffffffff81001000 t first_func\n"
	"ffffffff81003000 D some_data\n"
	"ffffffff81003800 R some_rodata\n"
	"ffffffff81004000 W weak_upper\n"
	"ffffffffc0001000 t zram_read\t[zram]\n"
	"ffffffffc0000000 T zram_submit\t[zram]\n"
	"ffffffffc0002000 b zram_counter\t[zram]\n"
	"ffffffffc0010000 t ext4_thing\t[ext4]\n"
	"0000000000000000 A fixed_percpu_data\n"
	"this is not a kallsyms line\n"
	"ffffffff81006000 T\n"
	"fffffffff81007000000 T too_many_digits\n"
	"ffffffff81008000 T unterminated_module\t[oops\n"
	"ffffffff81005000 w weak_lower";	/* no final newline */

/* issue 46: one address by name, without keeping the table: the kernel's
 * function only (not a module's, not data, not a longer name that holds
 * it), 0 when hidden. */
Test(ksyms, finds_functions_by_address)
{
	struct ksyms *ks = load_fake_kallsyms(fake_kallsyms);
	const struct ksym *sym;

	cr_assert_null(ksyms_find(ks, KERNEL_BASE), "below the first symbol");
	cr_assert_null(ksyms_find(ks, 0));

	sym = ksyms_find(ks, KERNEL_BASE + 0x1000);
	cr_assert_not_null(sym);
	cr_assert_str_eq(sym->name, "first_func");
	cr_assert_str_eq(sym->module, "");
	cr_assert_eq(sym->addr, KERNEL_BASE + 0x1000);
	cr_assert_str_eq(ksyms_find(ks, KERNEL_BASE + 0x1fff)->name, "first_func");
	cr_assert_str_eq(ksyms_find(ks, KERNEL_BASE + 0x2000)->name, "second_func");
	/* some_data and some_rodata are skipped: their range is second_func's. */
	cr_assert_str_eq(ksyms_find(ks, KERNEL_BASE + 0x3900)->name, "second_func");
	cr_assert_str_eq(ksyms_find(ks, KERNEL_BASE + 0x4000)->name, "weak_upper");
	cr_assert_str_eq(ksyms_find(ks, KERNEL_BASE + 0x5001)->name, "weak_lower");
	/* Junk lines are skipped, not half-parsed. */
	cr_assert_str_eq(ksyms_find(ks, KERNEL_BASE + 0x8000)->name, "weak_lower");

	sym = ksyms_find(ks, 0xffffffffc0000010ull);
	cr_assert_str_eq(sym->name, "zram_submit");
	cr_assert_str_eq(sym->module, "zram");
	cr_assert_str_eq(ksyms_find(ks, 0xffffffffc0001000ull)->name, "zram_read");
	cr_assert_str_eq(ksyms_find(ks, 0xffffffffc0002000ull)->name, "zram_read",
			 "a bss symbol is no function");
	sym = ksyms_find(ks, 0xffffffffc0010000ull);
	cr_assert_str_eq(sym->name, "ext4_thing");
	cr_assert_str_eq(sym->module, "ext4");
	cr_assert_str_eq(ksyms_find(ks, UINT64_MAX)->name, "ext4_thing", "after the last");
	ksyms_free(ks);
}

Test(ksyms, formats_name_offset_and_module)
{
	struct ksyms *ks = load_fake_kallsyms(fake_kallsyms);
	char small[8];

	cr_assert_str_eq(ksyms_format(ks, KERNEL_BASE + 0x1010, buf, sizeof(buf)),
			 "first_func+0x10");
	cr_assert_str_eq(ksyms_format(ks, KERNEL_BASE + 0x2000, buf, sizeof(buf)),
			 "second_func+0x0");
	cr_assert_str_eq(ksyms_format(ks, 0xffffffffc0001008ull, buf, sizeof(buf)),
			 "zram_read+0x8 [zram]");
	cr_assert_str_eq(ksyms_format(ks, 0xffffffff80000000ull, buf, sizeof(buf)),
			 "[unknown] 0xffffffff80000000");
	cr_assert_str_eq(ksyms_format(NULL, 0x1234, buf, sizeof(buf)), "[unknown] 0x1234");
	cr_assert_eq(ksyms_format(ks, KERNEL_BASE + 0x1010, small, sizeof(small)), small);
	cr_assert_str_eq(small, "first_f", "truncated, NUL-terminated");
	cr_assert_null(ksyms_format(ks, KERNEL_BASE, NULL, 0));
	ksyms_free(ks);
}

Test(ksyms, aliases_keep_the_first_listed)
{
	struct ksyms *ks = load_fake_kallsyms("ffffffff81000000 T _stext\n"
					      "ffffffff81001000 T alias_one\n"
					      "ffffffff81001000 T alias_two\n"
					      "ffffffff81001000 t alias_three\n");

	cr_assert_str_eq(ksyms_find(ks, KERNEL_BASE + 0x1004)->name, "alias_one");
	cr_assert_str_eq(ksyms_find(ks, KERNEL_BASE + 0xfff)->name, "_stext");
	ksyms_free(ks);
}

Test(ksyms, hidden_addresses_missing_and_empty_files_fail)
{
	char path[PATH_MAX];

	/* kptr_restrict: every address reads as 0 to this user. */
	write_scratch("zeros", "0000000000000000 T _stext\n"
			       "0000000000000000 t first_func\n"
			       "0000000000000000 t zram_read\t[zram]\n");
	scratch_path(path, "zeros");
	errno = 0;
	cr_assert_null(ksyms_load(path));
	cr_assert_eq(errno, EPERM);

	write_scratch("empty", "");
	scratch_path(path, "empty");
	errno = 0;
	cr_assert_null(ksyms_load(path));
	cr_assert_eq(errno, ENODATA);

	write_scratch("data_only", "ffffffff81003000 D some_data\n");
	scratch_path(path, "data_only");
	cr_assert_null(ksyms_load(path));

	scratch_path(path, "absent");
	errno = 0;
	cr_assert_null(ksyms_load(path));
	cr_assert_eq(errno, ENOENT);
	cr_assert_null(ksyms_load(NULL));
	ksyms_free(NULL);
}

Test(ksyms, real_kallsyms_loads_or_is_hidden)
{
	struct ksyms *ks = ksyms_load("/proc/kallsyms");
	const struct ksym *sym;

	if (!ks) {
		/* Not root with kptr_restrict, or no /proc here. */
		cr_assert(errno == EPERM || errno == ENOENT || errno == EACCES, "%s",
			  strerror(errno));
		return;
	}
	sym = ksyms_find(ks, UINT64_MAX);
	cr_assert_not_null(sym);
	cr_assert_str_eq(ksyms_find(ks, sym->addr)->name, sym->name);
	ksyms_free(ks);
}

/* ---- user: the ELF files of the test binaries ---- */

struct text_layout {
	uint64_t offset, vaddr, filesz;	/* the executable PT_LOAD */
	uint64_t func_a, func_b;	/* st_value of known_func_a and known_func_b */
	uint16_t type;			/* ET_EXEC or ET_DYN */
};

static uint64_t symtab_value(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr shdr;
		Elf_Data *data;
		size_t i;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB)
			continue;
		data = elf_getdata(scn, NULL);
		for (i = 0; data && i < shdr.sh_size / shdr.sh_entsize; i++) {
			GElf_Sym sym;
			const char *sym_name;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			sym_name = elf_strptr(elf, shdr.sh_link, sym.st_name);
			if (sym_name && !strcmp(sym_name, name))
				return sym.st_value;
		}
	}
	return 0;
}

/* Read independently of usyms.c, for the maps lines a loader would make. */
static struct text_layout read_layout(const char *path)
{
	struct text_layout layout = { 0 };
	GElf_Ehdr ehdr;
	size_t i, nphdrs;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	cr_assert_not_null(gelf_getehdr(elf, &ehdr));
	layout.type = ehdr.e_type;
	cr_assert_eq(elf_getphdrnum(elf, &nphdrs), 0);
	for (i = 0; i < nphdrs; i++) {
		GElf_Phdr phdr;

		cr_assert_not_null(gelf_getphdr(elf, (int)i, &phdr));
		if (phdr.p_type == PT_LOAD && (phdr.p_flags & PF_X)) {
			layout.offset = phdr.p_offset;
			layout.vaddr = phdr.p_vaddr;
			layout.filesz = phdr.p_filesz;
		}
	}
	cr_assert_gt(layout.filesz, 0, "%s: no executable segment", path);
	layout.func_a = symtab_value(elf, "known_func_a");
	layout.func_b = symtab_value(elf, "known_func_b");
	elf_end(elf);
	close(fd);
	return layout;
}

#define PAGE ((uint64_t)4096)

/*
 * The executable mapping the loader makes of layout at load bias `bias`
 * (0 for ET_EXEC): page-aligned start and offset, as in /proc/PID/maps.
 */
/* path's device and inode as a maps line shows them ("08:01 1234"). */
static void identity_of(const char *path, char *out, size_t size)
{
	struct stat st;

	cr_assert_eq(stat(path, &st), 0, "%s: %s", path, strerror(errno));
	snprintf(out, size, "%02x:%02x %" PRIu64, major(st.st_dev), minor(st.st_dev),
		 (uint64_t)st.st_ino);
}

static void maps_line(char *out, size_t size, const struct text_layout *l, uint64_t bias,
		      const char *path)
{
	uint64_t start = bias + (l->vaddr & ~(PAGE - 1));
	uint64_t end = (bias + l->vaddr + l->filesz + PAGE - 1) & ~(PAGE - 1);
	char identity[64];
	int len;

	identity_of(path, identity, sizeof(identity));
	len = snprintf(out, size, "%012" PRIx64 "-%012" PRIx64 " r-xp %08" PRIx64
		       " %s                    %s\n", start, end, l->offset & ~(PAGE - 1),
		       identity, path);
	cr_assert(len > 0 && (size_t)len < size);
}

/* PID/map_files/START-END, as the kernel's magic links are: to target. */
static void map_file(const char *pid, uint64_t start, uint64_t end, const char *target)
{
	char link[PATH_MAX], name[64];

	snprintf(name, sizeof(name), "%s/map_files", pid);
	scratch_path(link, name);
	if (mkdir(link, 0755))
		cr_assert_eq(errno, EEXIST);
	snprintf(name, sizeof(name), "%s/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	scratch_path(link, name);
	cr_assert_eq(symlink(target, link), 0, "%s: %s", link, strerror(errno));
}

/* A fake PID directory: maps, and a map_files/ link for each line of a
 * file (to the path the line names, cut of " (deleted)"). */
static void make_fake_pid(const char *pid, const char *maps)
{
	char dir[PATH_MAX], *copy = strdup(maps);

	scratch_path(dir, pid);
	cr_assert_eq(mkdir(dir, 0755), 0);
	strncat(dir, "/maps", sizeof(dir) - strlen(dir) - 1);
	write_file(dir, maps, strlen(maps));
	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long start, end;
		char *path = strchr(line, '/'), *deleted;

		if (sscanf(line, "%llx-%llx", &start, &end) != 2 || !path || start >= end)
			continue;
		deleted = strstr(path, " (deleted)");
		if (deleted)
			*deleted = '\0';
		map_file(pid, start, end, path);
	}
	free(copy);
}

static void copy_file(const char *from, const char *to, size_t max)
{
	char *data = malloc(1 << 20);
	FILE *f = fopen(from, "re");
	size_t len;

	cr_assert_not_null(data);
	cr_assert_not_null(f, "%s: %s", from, strerror(errno));
	len = fread(data, 1, 1 << 20, f);
	fclose(f);
	cr_assert_lt(len, (size_t)1 << 20, "%s is bigger than expected", from);
	write_file(to, data, len < max ? len : max);
	free(data);
}

static const char *format(struct usyms *us, uint32_t tgid, uint64_t addr)
{
	return usyms_format(us, tgid, addr, buf, sizeof(buf));
}

/* ---- user: real processes ---- */

struct target {
	pid_t pid;
	uint64_t func_a, func_b, alias;	/* where the running target says they are */
};

/* Starts a target binary that prints its functions' addresses and waits. */
static struct target start_target(const char *path)
{
	struct target t = { 0 };
	int pipefd[2];
	FILE *out;
	unsigned long long a, b, alias;

	cr_assert_eq(pipe2(pipefd, O_CLOEXEC), 0);
	t.pid = fork();
	cr_assert_geq(t.pid, 0);
	if (t.pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		execl(path, path, "wait", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	cr_assert_not_null(out);
	cr_assert_eq(fscanf(out, "%llx %llx %llx", &a, &b, &alias), 3, "%s printed no addresses",
		     path);
	fclose(out);
	t.func_a = a;
	t.func_b = b;
	t.alias = alias;
	return t;
}

static void stop_target(struct target *t)
{
	int status;

	if (t->pid <= 0)
		return;
	kill(t->pid, SIGKILL);
	cr_assert_eq(waitpid(t->pid, &status, 0), t->pid);
	t->pid = 0;
}

TestSuite(usyms, .init = make_scratch, .fini = remove_scratch);

static void assert_names_known_functions(const char *variant, const char *path)
{
	struct usyms *us = usyms_new("/proc");
	struct target t = start_target(path);

	cr_assert_not_null(us);
	cr_assert_eq(usyms_add_pid(us, t.pid), 0, "%s", variant);
	cr_assert_str_eq(format(us, t.pid, t.func_a + 5), "known_func_a+0x5", "%s", variant);
	cr_assert_str_eq(format(us, t.pid, t.func_a), "known_func_a+0x0", "%s", variant);
	cr_assert_str_eq(format(us, t.pid, t.func_b + 1), "known_func_b+0x1", "%s", variant);
	cr_assert_str_eq(format(us, t.pid, t.alias + 2), "known_alias+0x2", "%s", variant);
	stop_target(&t);
	usyms_free(us);
}

Test(usyms, names_functions_of_a_running_pie)
{
	assert_names_known_functions("pie", TARGET("pie"));
}

Test(usyms, names_functions_of_a_running_non_pie)
{
	struct text_layout l = read_layout(TARGET("nopie"));

	cr_assert_eq(l.type, ET_EXEC);
	assert_names_known_functions("nopie", TARGET("nopie"));
}

Test(usyms, names_functions_when_vaddr_is_not_the_file_offset)
{
	struct text_layout l = read_layout(TARGET("lld"));

	cr_assert_eq(l.type, ET_DYN);
	if (l.vaddr == l.offset)
		cr_log_info("no ld.lld: symbolize_target_lld has vaddr == offset like GNU ld's");
	assert_names_known_functions("lld", TARGET("lld"));
}

Test(usyms, stripped_binary_falls_back_to_dynsym)
{
	assert_names_known_functions("dynsym", TARGET("dynsym"));
}

Test(usyms, stripped_binary_without_exports_gives_module_and_offset)
{
	struct text_layout l = read_layout(TARGET("pie"));	/* the same layout, unstripped */
	struct usyms *us = usyms_new("/proc");
	struct target t = start_target(TARGET("stripped"));
	char expected[128];

	/* No debug file either, wherever the machine keeps them. */
	cr_assert_eq(usyms_set_debug_dir(us, scratch), 0);
	cr_assert_eq(usyms_add_pid(us, t.pid), 0);
	snprintf(expected, sizeof(expected), "[unknown] symbolize_target_stripped+0x%" PRIx64,
		 l.func_a + 5 - l.vaddr + l.offset);
	cr_assert_str_eq(format(us, t.pid, t.func_a + 5), expected);
	stop_target(&t);
	usyms_free(us);
}

/* The hex build-id of an ELF file, for its debug file's path. */
static void build_id_hex(const char *path, char *hex, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf;
	Elf_Scn *scn = NULL;

	cr_assert_geq(fd, 0);
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	hex[0] = '\0';
	while ((scn = elf_nextscn(elf, scn))) {
		size_t offset = 0, name_off, desc_off, i;
		GElf_Shdr shdr;
		GElf_Nhdr nhdr;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_NOTE)
			continue;
		data = elf_getdata(scn, NULL);
		while (data && (offset = gelf_getnote(data, offset, &nhdr, &name_off,
						      &desc_off)) > 0) {
			if (nhdr.n_type != NT_GNU_BUILD_ID)
				continue;
			cr_assert_lt(2 * nhdr.n_descsz, size);
			for (i = 0; i < nhdr.n_descsz; i++)
				snprintf(hex + 2 * i, 3, "%02x",
					 ((const unsigned char *)data->d_buf)[desc_off + i]);
		}
	}
	elf_end(elf);
	close(fd);
	cr_assert_neq(hex[0], '\0', "%s has no build-id", path);
}

Test(usyms, stripped_binary_is_named_from_its_debug_file)
{
	char hex[129], dir[PATH_MAX], debug[PATH_MAX], relative[256];
	struct usyms *us = usyms_new("/proc");
	struct target t;
	pid_t pid;

	build_id_hex(TARGET("stripped"), hex, sizeof(hex));
	snprintf(relative, sizeof(relative), "debug/.build-id/%.2s", hex);
	scratch_path(dir, "debug");
	cr_assert_eq(mkdir(dir, 0755), 0);
	scratch_path(dir, "debug/.build-id");
	cr_assert_eq(mkdir(dir, 0755), 0);
	scratch_path(dir, relative);
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_lt(snprintf(debug, sizeof(debug), "%s/%s.debug", dir, hex + 2),
		     (int)sizeof(debug));
	copy_file(TARGET("pie.debug"), debug, SIZE_MAX);

	scratch_path(dir, "debug");
	cr_assert_eq(usyms_set_debug_dir(us, dir), 0);
	t = start_target(TARGET("stripped"));
	pid = t.pid;
	cr_assert_eq(usyms_add_pid(us, pid), 0);
	stop_target(&t);
	cr_assert_str_eq(format(us, pid, t.func_a + 5), "known_func_a+0x5");
	cr_assert_str_eq(format(us, pid, t.func_b), "known_func_b+0x0");
	cr_assert_eq(usyms_set_debug_dir(us, NULL), 0);
	cr_assert_eq(usyms_set_debug_dir(NULL, dir), -EINVAL);
	usyms_free(us);
}

Test(usyms, exited_process_is_still_named)
{
	struct usyms *us = usyms_new("/proc");
	struct target t = start_target(TARGET("pie"));
	pid_t pid = t.pid;
	char expected[64];

	cr_assert_eq(usyms_add_pid(us, pid), 0);
	stop_target(&t);
	cr_assert_str_eq(format(us, pid, t.func_a + 5), "known_func_a+0x5");
	/* Seen once: a known tgid is not read again, even though it is gone. */
	cr_assert_eq(usyms_add_pid(us, pid), 0);
	cr_assert_str_eq(format(us, pid, t.func_b), "known_func_b+0x0");

	usyms_forget_pid(us, pid);
	snprintf(expected, sizeof(expected), "[unknown] 0x%" PRIx64, t.func_a + 5);
	cr_assert_str_eq(format(us, pid, t.func_a + 5), expected);
	cr_assert_lt(usyms_add_pid(us, pid), 0, "gone, and forgotten");
	usyms_free(us);
}

Test(usyms, two_processes_of_one_binary_share_the_file)
{
	struct usyms *us = usyms_new("/proc");
	struct target one = start_target(TARGET("pie"));
	struct target two = start_target(TARGET("pie"));

	pid_t pid_one = one.pid, pid_two = two.pid;

	cr_assert_eq(usyms_add_pid(us, pid_one), 0);
	cr_assert_eq(usyms_add_pid(us, pid_two), 0);
	stop_target(&one);
	stop_target(&two);
	cr_assert_str_eq(format(us, pid_one, one.func_a + 2), "known_func_a+0x2");
	cr_assert_str_eq(format(us, pid_two, two.func_b + 3), "known_func_b+0x3");
	usyms_free(us);
}

__attribute__((noinline, used)) int symbolize_test_marker(int x)
{
	return x * 7 + 3;
}

Test(usyms, names_a_function_of_this_test)
{
	struct usyms *us = usyms_new("/proc");
	uint64_t addr = (uint64_t)(uintptr_t)symbolize_test_marker;
	char expected[64];

	cr_assert_eq(usyms_add_pid(us, getpid()), 0);
	cr_assert_str_eq(format(us, getpid(), addr + 3), "symbolize_test_marker+0x3");
	/* Outside every mapping: the zero page. */
	cr_assert_str_eq(format(us, getpid(), 0x10), "[unknown] 0x10");
	/* A frame of a process never added. */
	snprintf(expected, sizeof(expected), "[unknown] 0x%" PRIx64, addr);
	cr_assert_str_eq(format(us, 0x7ffffffe, addr), expected);
	usyms_forget_pid(us, getpid());
	cr_assert_str_eq(format(us, getpid(), addr), expected);
	usyms_forget_pid(us, getpid());
	usyms_free(us);
}

/* ---- user: fake /proc trees ---- */

/* The target's maps as the kernel wrote them, under another pid in a fake
 * /proc: the files are read through map_files/, never by the paths. */
Test(usyms, real_maps_in_a_fake_proc_read_the_files_through_map_files)
{
	struct target t = start_target(TARGET("nopie"));
	char from[PATH_MAX];
	FILE *f;
	char *maps = calloc(1, 1 << 20);
	struct usyms *us;
	size_t len;

	snprintf(from, sizeof(from), "/proc/%d/maps", t.pid);
	f = fopen(from, "re");
	cr_assert_not_null(f);
	len = fread(maps, 1, (1 << 20) - 1, f);
	fclose(f);
	cr_assert_gt(len, 0);
	stop_target(&t);
	make_fake_pid("4242", maps);
	free(maps);

	us = usyms_new(scratch);
	cr_assert_eq(usyms_add_pid(us, 4242), 0);
	cr_assert_str_eq(format(us, 4242, t.func_a + 5), "known_func_a+0x5");
	cr_assert_str_eq(format(us, 4242, t.func_b + 9), "known_func_b+0x9");
	usyms_free(us);
}

/* A maps line's path that now names something else (the owner swapped it
 * for a symlink to a secret) is never opened: only map_files/ is. */
Test(usyms, the_path_in_a_maps_line_is_never_opened)
{
	struct text_layout pie = read_layout(TARGET("pie"));
	char maps[PATH_MAX + 256], line[PATH_MAX + 128], swapped[PATH_MAX], secret[PATH_MAX];
	char expected[128];
	struct usyms *us;
	enum usym_unknown why;

	/* The maps line names `swapped`, which is a symlink to a readable
	 * copy of the target now; map_files/ has nothing (the process is gone). */
	scratch_path(secret, "secret");
	copy_file(TARGET("pie"), secret, SIZE_MAX);
	scratch_path(swapped, "swapped");
	maps_line(line, sizeof(line), &pie, 0x7f0000000000ull, secret);
	cr_assert_eq(symlink(secret, swapped), 0);
	/* The same identity as secret, but at the swapped path. */
	{
		char *at = strstr(line, secret);

		cr_assert_not_null(at);
		snprintf(maps, sizeof(maps), "%.*s%s\n", (int)(at - line), line, swapped);
	}
	scratch_path(line, "500");
	cr_assert_eq(mkdir(line, 0755), 0);
	strncat(line, "/maps", sizeof(line) - strlen(line) - 1);
	write_file(line, maps, strlen(maps));

	us = usyms_new(scratch);
	cr_assert_eq(usyms_add_pid(us, 500), 0);
	snprintf(expected, sizeof(expected), "[unknown] swapped+0x%" PRIx64,
		 pie.func_a + 1 - pie.vaddr + pie.offset);
	cr_assert_str_eq(usyms_format_why(us, 500, 0x7f0000000000ull + pie.func_a + 1, buf,
					  sizeof(buf), &why), expected);
	cr_assert_eq(why, USYM_FILE_GONE);
	cr_assert_str_eq(usym_unknown_name(why), "file_gone");
	usyms_free(us);
}

Test(usyms, hand_written_maps_at_any_load_bias)
{
	const uint64_t bias = 0x7f1234560000ull;
	struct text_layout pie = read_layout(TARGET("pie"));
	struct text_layout lld = read_layout(TARGET("lld"));
	struct text_layout nopie = read_layout(TARGET("nopie"));
	char maps[4 * PATH_MAX], line[PATH_MAX + 128];
	struct usyms *us;

	maps[0] = '\0';
	maps_line(line, sizeof(line), &pie, bias, TARGET("pie"));
	strcat(maps, line);
	maps_line(line, sizeof(line), &lld, bias + 0x100000, TARGET("lld"));
	strcat(maps, line);
	maps_line(line, sizeof(line), &nopie, 0, TARGET("nopie"));
	strcat(maps, line);
	make_fake_pid("100", maps);

	us = usyms_new(scratch);
	cr_assert_eq(usyms_add_pid(us, 100), 0);
	cr_assert_str_eq(format(us, 100, bias + pie.func_a + 5), "known_func_a+0x5");
	cr_assert_str_eq(format(us, 100, bias + pie.func_b), "known_func_b+0x0");
	cr_assert_str_eq(format(us, 100, bias + 0x100000 + lld.func_a + 5), "known_func_a+0x5");
	cr_assert_str_eq(format(us, 100, bias + 0x100000 + lld.func_b + 7), "known_func_b+0x7");
	cr_assert_str_eq(format(us, 100, nopie.func_a + 5), "known_func_a+0x5");
	usyms_free(us);
}

Test(usyms, special_anonymous_and_unreadable_mappings)
{
	char maps[2 * PATH_MAX], path[PATH_MAX], expected[128];
	struct text_layout pie = read_layout(TARGET("pie"));
	struct usyms *us;
	int len;

	/* The first 64 bytes of an ELF file: the header, and nothing it points to. */
	scratch_path(path, "libtruncated.so");
	copy_file(TARGET("pie"), path, 64);
	len = snprintf(maps, sizeof(maps),
		 "not a maps line\n"
		 "7f0000000000-7f0000001000 r-xp 00000000 00:00 0 \n"
		 "7f0000010000-7f0000012000 r-xp 00000000 00:00 0                  [vdso]\n"
		 "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0    [vsyscall]\n"
		 "7f0000020000-7f0000030000 r-xp 00001000 08:01 77 /nonexistent/libgone.so\n"
		 "7f0000030000-7f0000040000 r-xp 00001000 08:01 78 %s\n"
		 "7f0000040000-7f0000050000 rw-p 00000000 08:01 79 %s\n"
		 "7f0000050000-7f0000040000 r-xp 00000000 08:01 80 /backwards\n"
		 "7f0000060000-7f0000070000 r-xp 0000zz00 08:01 81 /bad/offset\n"
		 "7f0000070000-7f0000080000 r-xp 00000000 08:01 82 %s (deleted)\n"
		 "7f0000080000-7f0000090000 r-xp\n"
		 "\n"
		 "7f00000a0000-7f00000b0000 r-xp 00000000 08:01 83 /dev/null\n"
		 "7f00000b0000-7f00000c0000 r-xp 00000000 00:05 84 /memfd:jit (deleted)\n",
		 path, TARGET("pie"), TARGET("pie"));
	cr_assert(len > 0 && (size_t)len < sizeof(maps));
	make_fake_pid("200", maps);

	us = usyms_new(scratch);
	cr_assert_eq(usyms_add_pid(us, 200), 0);
	cr_assert_str_eq(format(us, 200, 0x7f0000000010ull), "[unknown] 0x7f0000000010",
			 "anonymous executable memory (JIT)");
	cr_assert_str_eq(format(us, 200, 0x7f0000010abcull), "[vdso]+0xabc");
	cr_assert_str_eq(format(us, 200, 0xffffffffff600400ull), "[vsyscall]+0x400");
	cr_assert_str_eq(format(us, 200, 0x7f0000020010ull), "[unknown] libgone.so+0x1010");
	cr_assert_str_eq(format(us, 200, 0x7f0000030010ull),
			 "[unknown] libtruncated.so+0x1010");
	/* Not executable, not recorded. */
	cr_assert_str_eq(format(us, 200, 0x7f0000040010ull), "[unknown] 0x7f0000040010");
	cr_assert_str_eq(format(us, 200, 0x7f0000048000ull), "[unknown] 0x7f0000048000");
	cr_assert_str_eq(format(us, 200, 0x7f0000060010ull), "[unknown] 0x7f0000060010");
	/* Deleted, and the path now holds a file of another inode: not trusted. */
	snprintf(expected, sizeof(expected), "[unknown] symbolize_target_pie+0x%" PRIx64,
		 pie.func_a);
	cr_assert_str_eq(format(us, 200, 0x7f0000070000ull + pie.func_a), expected);
	cr_assert_str_eq(format(us, 200, 0x7f0000080010ull), "[unknown] 0x7f0000080010");
	cr_assert_str_eq(format(us, 200, 0x7f00000a0010ull), "[unknown] null+0x10",
			 "a character device is no ELF file");
	cr_assert_str_eq(format(us, 200, 0x7f00000b0010ull), "[unknown] memfd:jit+0x10");
	usyms_free(us);
}

/* map_files/ of a deleted file is read: it is the mapping itself; one that
 * is not the file of the maps line (another inode) is not. */
Test(usyms, deleted_file_is_read_through_map_files_when_it_is_the_one_mapped)
{
	struct text_layout pie = read_layout(TARGET("pie"));
	char maps[PATH_MAX + 256], line[PATH_MAX + 128], copy[PATH_MAX], other[PATH_MAX];
	char expected[128], link[PATH_MAX];
	struct usyms *us;

	scratch_path(copy, "symbolize_copy");
	copy_file(TARGET("pie"), copy, SIZE_MAX);
	maps_line(line, sizeof(line), &pie, 0x7f0000000000ull, copy);
	snprintf(maps, sizeof(maps), "%.*s (deleted)\n", (int)strlen(line) - 1, line);
	make_fake_pid("300", maps);

	us = usyms_new(scratch);
	cr_assert_eq(usyms_add_pid(us, 300), 0);
	cr_assert_str_eq(format(us, 300, 0x7f0000000000ull + pie.func_a + 1), "known_func_a+0x1");
	usyms_free(us);

	/* map_files/ now leads to a file of another inode: not the one mapped. */
	scratch_path(other, "other_copy");
	copy_file(TARGET("pie"), other, SIZE_MAX);
	snprintf(link, sizeof(link), "300/map_files/%" PRIx64 "-%" PRIx64,
		 (uint64_t)(0x7f0000000000ull + (pie.vaddr & ~(PAGE - 1))),
		 (uint64_t)((0x7f0000000000ull + pie.vaddr + pie.filesz + PAGE - 1) & ~(PAGE - 1)));
	scratch_path(line, link);
	cr_assert_eq(unlink(line), 0, "%s: %s", line, strerror(errno));
	cr_assert_eq(symlink(other, line), 0);
	us = usyms_new(scratch);
	cr_assert_eq(usyms_add_pid(us, 300), 0);
	snprintf(expected, sizeof(expected), "[unknown] symbolize_copy+0x%" PRIx64,
		 pie.func_a + 1 - pie.vaddr + pie.offset);
	cr_assert_str_eq(format(us, 300, 0x7f0000000000ull + pie.func_a + 1), expected);
	usyms_free(us);
}

Test(usyms, missing_maps_and_bad_arguments)
{
	struct usyms *us = usyms_new(scratch);

	cr_assert_eq(usyms_add_pid(us, 999), -ENOENT);
	cr_assert_eq(usyms_add_pid(NULL, 999), -EINVAL);
	cr_assert_str_eq(usyms_format(NULL, 1, 0x1000, buf, sizeof(buf)), "[unknown] 0x1000");
	cr_assert_null(usyms_format(us, 1, 0x1000, NULL, 0));
	usyms_forget_pid(us, 999);
	usyms_forget_pid(NULL, 999);
	make_fake_pid("999", "");
	cr_assert_eq(usyms_add_pid(us, 999), 0, "a kernel thread's maps are empty");
	cr_assert_str_eq(format(us, 999, 0x1000), "[unknown] 0x1000");
	usyms_free(us);
	usyms_free(NULL);
	cr_assert_null(usyms_new(NULL));
}

/* ---- user: stacks named at capture, and what root may trust ---- */

/* The raw build id of path (its .note.gnu.build-id, by libelf). */
static size_t build_id_bytes(const char *path, unsigned char *out)
{
	char hex[129];
	size_t n;

	build_id_hex(path, hex, sizeof(hex));
	n = strlen(hex) / 2;
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(sscanf(hex + 2 * i, "%2hhx", &out[i]), 1);
	return n;
}

/* An event with one frame: known_func_a + 3 of path, by build id and file
 * offset (as the kernel gives it), for process tgid. */
static struct user_stack_event *event_in(const char *path, uint32_t tgid, int32_t stack_id)
{
	static struct user_stack_event event;
	struct text_layout l = read_layout(path);

	memset(&event, 0, sizeof(event));
	event.type = EVENT_USER_STACK;
	event.tgid = tgid;
	event.user_stack = stack_id;
	event.nframes = 2;
	event.frames[0].status = STACK_FRAME_BUILD_ID;
	cr_assert_eq(build_id_bytes(path, event.frames[0].build_id), STACK_BUILD_ID_SIZE);
	event.frames[0].offset = l.func_a + 3 - l.vaddr + l.offset;
	event.frames[1].status = STACK_FRAME_IP;
	event.frames[1].offset = 0x1234;
	return &event;
}

static const char *frame_name(struct usyms *us, uint32_t tgid, int32_t stack_id, uint32_t index,
			      enum usym_unknown *why)
{
	return usyms_frame(us, tgid, stack_id, index, 0xdead, buf, sizeof(buf), why);
}

/* A process gone before its mappings were read is named from a file only
 * root can change that has the build id the kernel gave: one another
 * process mapped. */
Test(usyms, a_gone_process_is_named_by_build_id_from_a_trusted_file)
{
	struct usyms *us = usyms_new("/proc");
	struct target t = start_target(TARGET("pie"));
	enum usym_unknown why;

	usyms_trust_owner(us, geteuid());	/* the build tree is the test user's */
	cr_assert_eq(usyms_add_pid(us, t.pid), 0);
	stop_target(&t);
	/* pid 0 never has maps: the process is gone. */
	cr_assert_eq(usyms_add_stack(us, event_in(TARGET("pie"), 0, 7)), 0);
	cr_assert_str_eq(frame_name(us, 0, 7, 0, &why), "known_func_a+0x3");
	cr_assert_eq(why, USYM_NAMED);
	cr_assert_str_eq(frame_name(us, 0, 7, 1, &why), "[unknown] 0x1234",
			 "an address the kernel gave, in no recorded mapping");
	cr_assert_str_eq(usym_unknown_name(why), "not_recorded");
	/* Another stack id, or a frame past the stack: by address, unknown. */
	cr_assert_str_eq(frame_name(us, 0, 8, 0, &why), "[unknown] 0xdead");
	cr_assert_str_eq(frame_name(us, 0, 7, 2, &why), "[unknown] 0xdead");
	usyms_free(us);
}

/* The same build id in a file other users can write: never used for
 * another process; it still names the process that mapped it. */
Test(usyms, a_file_others_can_write_names_only_its_own_process)
{
	struct usyms *us = usyms_new("/proc");
	char copy[PATH_MAX];
	struct target t;
	enum usym_unknown why;

	scratch_path(copy, "writable_copy");
	copy_file(TARGET("pie"), copy, SIZE_MAX);
	cr_assert_eq(chmod(copy, 0777), 0);
	t = start_target(copy);
	usyms_trust_owner(us, geteuid());
	cr_assert_eq(usyms_add_stack(us, event_in(copy, t.pid, 1)), 0);
	cr_assert_str_eq(frame_name(us, t.pid, 1, 0, &why), "known_func_a+0x3",
			 "its own process: the file it mapped");
	stop_target(&t);
	cr_assert_eq(usyms_add_stack(us, event_in(copy, 0, 2)), 0);
	cr_assert_str_eq(frame_name(us, 0, 2, 0, &why), "[unknown] 0xdead");
	cr_assert_eq(why, USYM_UNTRUSTED);
	usyms_free(us);
}

/* A file only root can read names no other process, even one that
 * carries its build id: its names would leak. */
Test(usyms, a_file_others_cannot_read_names_only_its_own_process)
{
	struct usyms *us = usyms_new("/proc");
	char copy[PATH_MAX];
	struct target t;
	enum usym_unknown why;

	scratch_path(copy, "private_copy");
	copy_file(TARGET("pie"), copy, SIZE_MAX);
	cr_assert_eq(chmod(copy, 0750), 0);
	t = start_target(copy);
	usyms_trust_owner(us, geteuid());
	cr_assert_eq(usyms_add_stack(us, event_in(copy, t.pid, 1)), 0);
	cr_assert_str_eq(frame_name(us, t.pid, 1, 0, &why), "known_func_a+0x3");
	stop_target(&t);
	cr_assert_eq(usyms_add_stack(us, event_in(copy, 0, 2)), 0);
	cr_assert_str_eq(frame_name(us, 0, 2, 0, &why), "[unknown] 0xdead");
	cr_assert_eq(why, USYM_UNTRUSTED);
	usyms_free(us);
}

/* A build id seen nowhere: unknown, file_gone. */
Test(usyms, a_build_id_seen_nowhere_is_file_gone)
{
	struct usyms *us = usyms_new(scratch);
	struct user_stack_event *event = event_in(TARGET("pie"), 77, 3);
	enum usym_unknown why;
	struct usyms_stats stats;

	cr_assert_eq(usyms_add_stack(us, event), 0);
	cr_assert_str_eq(frame_name(us, 77, 3, 0, &why), "[unknown] 0xdead");
	cr_assert_eq(why, USYM_FILE_GONE);
	usyms_stats(us, &stats);
	cr_assert_eq(stats.unknown[USYM_FILE_GONE], 1);
	cr_assert_eq(stats.unknown[USYM_NOT_RECORDED], 1);
	cr_assert_eq(stats.stacks, 1);
	cr_assert_eq(usyms_add_stack(NULL, event), -EINVAL);
	cr_assert_eq(usyms_add_stack(us, NULL), -EINVAL);
	usyms_free(us);
}

/* Another program after exec(), or another process with the pid: the
 * mappings are read again, never the old ones used. */
Test(usyms, exec_and_pid_reuse_replace_the_mappings)
{
	struct text_layout pie = read_layout(TARGET("pie"));
	char maps[PATH_MAX + 256], line[PATH_MAX + 128], expected[128];
	struct usyms *us;

	maps_line(line, sizeof(line), &pie, 0x7f0000000000ull, TARGET("pie"));
	snprintf(maps, sizeof(maps), "%s", line);
	make_fake_pid("600", maps);
	us = usyms_new(scratch);
	cr_assert_eq(usyms_add_process(us, 600, 1000, 1), 0);
	cr_assert_str_eq(format(us, 600, 0x7f0000000000ull + pie.func_a), "known_func_a+0x0");
	/* After exec() the process has no mappings we know of: the new maps
	 * (here, none left) are read. */
	scratch_path(line, "600/maps");
	write_file(line, "", 0);
	cr_assert_eq(usyms_add_process(us, 600, 1000, 1), 0, "the same: not read again");
	cr_assert_str_eq(format(us, 600, 0x7f0000000000ull + pie.func_a), "known_func_a+0x0");
	cr_assert_eq(usyms_add_process(us, 600, 1000, 2), 0, "exec: read again");
	snprintf(expected, sizeof(expected), "[unknown] 0x%" PRIx64,
		 (uint64_t)(0x7f0000000000ull + pie.func_a));
	cr_assert_str_eq(format(us, 600, 0x7f0000000000ull + pie.func_a), expected);
	write_file(line, maps, strlen(maps));
	cr_assert_eq(usyms_add_process(us, 600, 2000, 0), 0, "another process, same pid");
	cr_assert_str_eq(format(us, 600, 0x7f0000000000ull + pie.func_a), "known_func_a+0x0");
	usyms_process_exited(us, 600, 1000);
	cr_assert_str_eq(format(us, 600, 0x7f0000000000ull + pie.func_a), "known_func_a+0x0",
			 "the exit of the old one leaves the new one");
	usyms_process_exited(us, 600, 2000);
	cr_assert_str_eq(format(us, 600, 0x7f0000000000ull + pie.func_a), expected);
	usyms_free(us);
}

/* A debug file is used only where it and its directories only root can
 * change, and never through a symlink. */
Test(usyms, debug_files_only_where_only_root_can_change_them)
{
	char hex[129], dir[PATH_MAX], debug[PATH_MAX], relative[256], target[PATH_MAX];
	struct usyms *us;
	struct target t;
	pid_t pid;
	char expected[128];
	struct text_layout l = read_layout(TARGET("pie"));

	build_id_hex(TARGET("stripped"), hex, sizeof(hex));
	snprintf(relative, sizeof(relative), "dbg/.build-id/%.2s", hex);
	scratch_path(dir, "dbg");
	cr_assert_eq(mkdir(dir, 0755), 0);
	scratch_path(dir, "dbg/.build-id");
	cr_assert_eq(mkdir(dir, 0777), 0);	/* anyone may add or swap entries */
	cr_assert_eq(chmod(dir, 0777), 0);
	scratch_path(dir, relative);
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_lt(snprintf(debug, sizeof(debug), "%s/%s.debug", dir, hex + 2),
		     (int)sizeof(debug));
	copy_file(TARGET("pie.debug"), debug, SIZE_MAX);
	snprintf(expected, sizeof(expected), "[unknown] symbolize_target_stripped+0x%" PRIx64,
		 l.func_a + 5 - l.vaddr + l.offset);

	us = usyms_new("/proc");
	usyms_trust_owner(us, geteuid());
	scratch_path(dir, "dbg");
	cr_assert_eq(usyms_set_debug_dir(us, dir), 0);
	t = start_target(TARGET("stripped"));
	pid = t.pid;
	cr_assert_eq(usyms_add_pid(us, pid), 0);
	cr_assert_str_eq(format(us, pid, t.func_a + 5), expected, "a world-writable directory");
	stop_target(&t);
	usyms_free(us);

	/* The directory fixed, the file a symlink to a good copy: not followed. */
	scratch_path(dir, "dbg/.build-id");
	cr_assert_eq(chmod(dir, 0755), 0);
	scratch_path(target, "good.debug");
	cr_assert_eq(rename(debug, target), 0);
	cr_assert_eq(symlink(target, debug), 0);
	us = usyms_new("/proc");
	usyms_trust_owner(us, geteuid());
	scratch_path(dir, "dbg");
	cr_assert_eq(usyms_set_debug_dir(us, dir), 0);
	t = start_target(TARGET("stripped"));
	pid = t.pid;
	cr_assert_eq(usyms_add_pid(us, pid), 0);
	cr_assert_str_eq(format(us, pid, t.func_a + 5), expected, "a symlink");
	stop_target(&t);
	usyms_free(us);
}

/* --debug-dir: searched after the default; a directory is trusted only if
 * it and those above it only root can change, without a symlink. */
Test(usyms, an_extra_debug_dir_is_searched_after_the_default)
{
	char hex[129], dir[PATH_MAX], debug[PATH_MAX], relative[256], link[PATH_MAX];
	struct usyms *us = usyms_new("/proc");
	struct target t;

	usyms_trust_owner(us, geteuid());
	build_id_hex(TARGET("stripped"), hex, sizeof(hex));
	scratch_path(dir, "extra");
	cr_assert_eq(mkdir(dir, 0755), 0);
	scratch_path(dir, "extra/.build-id");
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(relative, sizeof(relative), "extra/.build-id/%.2s", hex);
	scratch_path(dir, relative);
	cr_assert_eq(mkdir(dir, 0755), 0);
	cr_assert_lt(snprintf(debug, sizeof(debug), "%s/%s.debug", dir, hex + 2),
		     (int)sizeof(debug));
	copy_file(TARGET("pie.debug"), debug, SIZE_MAX);

	scratch_path(dir, "extra");
	cr_assert(usyms_trusted_dir(us, dir));
	cr_assert(usyms_trusted_dir(us, "/"));
	cr_assert_not(usyms_trusted_dir(us, "relative/dir"));
	scratch_path(link, "link_to_extra");
	cr_assert_eq(symlink(dir, link), 0);
	cr_assert_not(usyms_trusted_dir(us, link), "through a symlink");
	cr_assert_eq(usyms_set_debug_dir(us, "/nonexistent/debug"), 0);
	cr_assert_eq(usyms_add_debug_dir(us, dir), 0);
	t = start_target(TARGET("stripped"));
	cr_assert_eq(usyms_add_pid(us, t.pid), 0);
	cr_assert_str_eq(format(us, t.pid, t.func_a + 5), "known_func_a+0x5");
	stop_target(&t);
	cr_assert_eq(usyms_add_debug_dir(NULL, dir), -EINVAL);
	usyms_free(us);
}

/* Work past the interval's budget waits for the next interval; the frames
 * it would have named say over_budget. */
Test(usyms, work_over_the_interval_budget_is_skipped_and_said)
{
	struct usyms *us = usyms_new("/proc");
	struct target t = start_target(TARGET("pie"));
	enum usym_unknown why;

	usyms_trust_owner(us, geteuid());
	usyms_set_budget(us, 1);		/* 1 ns: used up by the first file */
	usyms_add_own_files(us);
	cr_assert_eq(usyms_add_process(us, t.pid, 1, 0), -EAGAIN);
	cr_assert_eq(usyms_add_stack(us, event_in(TARGET("pie"), t.pid, 1)), 0);
	cr_assert_str_eq(frame_name(us, t.pid, 1, 0, &why), "[unknown] 0xdead");
	cr_assert_eq(why, USYM_OVER_BUDGET);
	usyms_new_interval(us);
	cr_assert_eq(usyms_add_stack(us, event_in(TARGET("pie"), t.pid, 2)), 0);
	cr_assert_str_eq(frame_name(us, t.pid, 2, 0, &why), "known_func_a+0x3");
	stop_target(&t);
	usyms_free(us);
}

/* The file virtual address of symbol name in path (0: none). */
static uint64_t symbol_vaddr(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t value;
	Elf *elf;

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	cr_assert_neq(elf_version(EV_CURRENT), EV_NONE);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	cr_assert_not_null(elf);
	value = symtab_value(elf, name);
	elf_end(elf);
	close(fd);
	cr_assert_gt(value, 0, "%s: no symbol %s", path, name);
	return value;
}

/*
 * A process that exits between diskio's read of its maps and the opening
 * of its map_files/ (the maps line is there, the file is not): the caller
 * of its frameless frame 0, recovered from the stack bytes, is named by
 * frame 1's build id as the kernel's frames are, not "[unknown] module".
 * Frame 0 is ehframe_target's eh_leaf (no frame: the return address at the
 * stack pointer), frame 1 its main.
 */
Test(usyms, a_recovered_caller_is_named_when_its_mapping_could_not_be_opened)
{
	const char *path = SYMBOLIZE_DATA "/ehframe_target";
	struct text_layout l = read_layout(path);
	uint64_t leaf = symbol_vaddr(path, "eh_leaf"), main_at = symbol_vaddr(path, "main");
	const uint64_t bias = 0x555500000000ULL;
	static struct user_stack_event event;
	char maps[512], dir[PATH_MAX];
	enum usym_unknown why;
	struct usyms *us;
	uint64_t ra, inserted;

	/* 1111 mapped the file and was read: it is cached, trusted. */
	maps_line(maps, sizeof(maps), &l, bias, path);
	make_fake_pid("1111", maps);
	scratch_path(dir, "1111/root");
	cr_assert_eq(symlink("/", dir), 0, "%s: %s", dir, strerror(errno));
	/* 2222 maps it too, but is gone before its map_files/ is opened. */
	scratch_path(dir, "2222");
	cr_assert_eq(mkdir(dir, 0755), 0);
	strncat(dir, "/maps", sizeof(dir) - strlen(dir) - 1);
	write_file(dir, maps, strlen(maps));

	us = usyms_new(scratch);
	usyms_trust_owner(us, geteuid());
	cr_assert_eq(usyms_add_pid(us, 1111), 0);

	memset(&event, 0, sizeof(event));
	event.type = EVENT_USER_STACK;
	event.tgid = 2222;
	event.user_stack = 5;
	event.nframes = 2;
	for (int i = 0; i < 2; i++) {
		event.frames[i].status = STACK_FRAME_BUILD_ID;
		cr_assert_eq(build_id_bytes(path, event.frames[i].build_id), STACK_BUILD_ID_SIZE);
	}
	event.frames[0].offset = leaf - l.vaddr + l.offset;
	event.frames[1].offset = main_at + 0x10 - l.vaddr + l.offset;
	event.user_ret = bias + main_at + 0x10;
	ra = bias + main_at + 0x20;
	/* At eh_leaf's first instruction the return address is at the stack pointer. */
	memcpy(event.stack_bytes, &ra, sizeof(ra));
	event.user_sp = 0x7ffd00001000ULL;
	event.stack_len = USER_STACK_BYTES;

	cr_assert_eq(usyms_add_stack(us, &event), 0);
	cr_assert(usyms_inserted_frame(us, 2222, 5, &inserted), "eh_leaf's caller recovered");
	cr_assert_eq(inserted, ra);
	cr_assert_str_eq(frame_name(us, 2222, 5, 0, &why), "eh_leaf+0x0");
	cr_assert_str_eq(frame_name(us, 2222, 5, 1, &why), "main+0x20",
			 "the recovered caller, by frame 1's build id");
	cr_assert_eq(why, USYM_NAMED);
	cr_assert_str_eq(frame_name(us, 2222, 5, 2, &why), "main+0x10");
	usyms_free(us);
}
