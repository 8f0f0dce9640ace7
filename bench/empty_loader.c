// SPDX-License-Identifier: GPL-2.0
/*
 * empty_loader: attach an empty BPF program (empty.bpf.c) to each hook named,
 * say so on stdout, and hold them until SIGINT or SIGTERM.  The floor of
 * scripts/bench.sh's part A: what the hooks cost with programs that do
 * nothing.
 *
 *   empty_loader HOOK...
 *
 * HOOK is KIND:NAME, KIND the program type diskio uses on that hook:
 * tp_btf:block_bio_queue, raw_tp:block_bio_queue, tp:block/block_bio_queue.
 * Each hook gets its own copy of the object (one program, one link).
 * Exit status: 0 once stopped by a signal; 1 if a hook could not be attached;
 * 2 on bad usage.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "empty.skel.h"

#define MAX_HOOKS 32

static struct empty_bpf *objs[MAX_HOOKS];
static struct bpf_link *links[MAX_HOOKS];

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, args);
}

static void on_signal(int sig)
{
	(void)sig;
}

enum kind { TP_BTF, RAW_TP, TP };

struct hook {
	enum kind kind;
	const char *name;	/* tp: CATEGORY/NAME */
};

/* KIND:NAME -> hook; false if it is not one. */
static bool parse_hook(const char *arg, struct hook *hook)
{
	static const char *const kinds[] = { [TP_BTF] = "tp_btf:", [RAW_TP] = "raw_tp:",
					     [TP] = "tp:" };
	size_t k, len;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		len = strlen(kinds[k]);
		if (strncmp(arg, kinds[k], len))
			continue;
		hook->kind = k;
		hook->name = arg + len;
		if (!*hook->name || (k == TP && !strchr(hook->name, '/')))
			return false;
		return true;
	}
	return false;
}

/* Opens, loads and attaches one copy of the object on hook; 0 or -errno. */
static int attach_hook(int i, const struct hook *hook)
{
	struct bpf_program *prog, *keep;
	struct empty_bpf *obj;
	const char *slash;
	char category[64];
	int err;

	obj = objs[i] = empty_bpf__open();
	if (!obj)
		return -errno;
	keep = hook->kind == TP_BTF ? obj->progs.empty_tp_btf :
	       hook->kind == RAW_TP ? obj->progs.empty_raw_tp : obj->progs.empty_tp;
	bpf_object__for_each_program(prog, obj->obj)
		bpf_program__set_autoload(prog, prog == keep);
	if (hook->kind == TP_BTF) {
		err = bpf_program__set_attach_target(keep, 0, hook->name);
		if (err)
			return err;
	}
	err = empty_bpf__load(obj);
	if (err)
		return err;
	switch (hook->kind) {
	case TP_BTF:
		links[i] = bpf_program__attach(keep);
		break;
	case RAW_TP:
		links[i] = bpf_program__attach_raw_tracepoint(keep, hook->name);
		break;
	case TP:
		slash = strchr(hook->name, '/');
		if ((size_t)(slash - hook->name) >= sizeof(category))
			return -ENAMETOOLONG;
		memcpy(category, hook->name, slash - hook->name);
		category[slash - hook->name] = '\0';
		links[i] = bpf_program__attach_tracepoint(keep, category, slash + 1);
		break;
	}
	return links[i] ? 0 : -errno;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct hook hooks[MAX_HOOKS];
	int i, n = argc - 1, err, status = 0;
	sigset_t stops, old;

	for (i = 0; i < n && i < MAX_HOOKS; i++)
		if (!parse_hook(argv[i + 1], &hooks[i]))
			break;
	if (n < 1 || n > MAX_HOOKS || i < n) {
		fprintf(stderr, "usage: empty_loader HOOK... (up to %d), HOOK one of tp_btf:NAME, "
			"raw_tp:NAME, tp:CATEGORY/NAME\n", MAX_HOOKS);
		return 2;
	}
	libbpf_set_print(print_libbpf);
	/* Blocked until sigsuspend(), so that a signal sent early is not lost. */
	sigemptyset(&stops);
	sigaddset(&stops, SIGINT);
	sigaddset(&stops, SIGTERM);
	sigprocmask(SIG_BLOCK, &stops, &old);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (i = 0; i < n; i++) {
		err = attach_hook(i, &hooks[i]);
		if (err) {
			fprintf(stderr, "empty_loader: cannot attach to %s: %s\n", argv[i + 1],
				strerror(-err));
			status = 1;
			goto out;
		}
	}
	printf("empty_loader: attached");
	for (i = 1; i <= n; i++)
		printf(" %s", argv[i]);
	printf("\n");
	fflush(stdout);
	sigdelset(&old, SIGINT);
	sigdelset(&old, SIGTERM);
	sigsuspend(&old);
out:
	for (i = 0; i < n; i++) {
		bpf_link__destroy(links[i]);
		empty_bpf__destroy(objs[i]);
	}
	return status;
}
