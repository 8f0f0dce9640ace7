// SPDX-License-Identifier: GPL-2.0
/* What this system and kernel offer diskio, asked before any BPF is loaded. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "msg.h"
#include "probe.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif

static bool has_capability(int cap)
{
	struct __user_cap_header_struct header = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &header, data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

/* Everything diskio needs from the system, checked before touching BPF so
 * that a missing piece gets a sentence instead of a verifier log. */
int check_system(void)
{
	if (!has_capability(CAP_SYS_ADMIN) &&
	    !(has_capability(CAP_BPF) && has_capability(CAP_PERFMON))) {
		fail("needs root (or CAP_BPF and CAP_PERFMON) to load BPF programs: run it with sudo");
		return -1;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fail("this kernel has no BTF (/sys/kernel/btf/vmlinux): diskio needs a kernel built "
		     "with CONFIG_DEBUG_INFO_BTF=y (Linux 5.5 or later)");
		return -1;
	}
	return 0;
}

static bool btf_has_tracepoint(const struct btf *btf, const char *name)
{
	char type_name[128];

	snprintf(type_name, sizeof(type_name), "btf_trace_%s", name);
	return btf__find_by_name_kind(btf, type_name, BTF_KIND_TYPEDEF) > 0;
}

/* Number of arguments the tracepoint passes after its context pointer. */
static int btf_tracepoint_args(const struct btf *btf, const char *name)
{
	const struct btf_type *type;
	char type_name[128];
	int id;

	snprintf(type_name, sizeof(type_name), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, type_name, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -1;
	type = btf__type_by_id(btf, id);			/* typedef */
	type = btf__type_by_id(btf, type->type);		/* pointer */
	if (!type || !btf_is_ptr(type))
		return -1;
	type = btf__type_by_id(btf, type->type);		/* function prototype */
	if (!type || !btf_is_func_proto(type))
		return -1;
	return btf_vlen(type) - 1;
}

/* Whether struct name has a member called member. */
static bool btf_has_member(const struct btf *btf, const char *name, const char *member)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	const struct btf_type *type = id > 0 ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m = type ? btf_members(type) : NULL;

	for (int i = 0; type && i < btf_vlen(type); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), member))
			return true;
	return false;
}

int probe_hooks(struct kernel_hooks *hooks)
{
	struct btf *btf = btf__load_vmlinux_btf();

	if (!btf) {
		fail("cannot read the kernel's BTF: %s", strerror(errno));
		return -1;
	}
	hooks->bio_queue = btf_has_tracepoint(btf, "block_bio_queue") &&
			   btf_has_tracepoint(btf, "block_bio_complete");
	hooks->io_start = btf_has_tracepoint(btf, "block_io_start") &&
			  btf_has_tracepoint(btf, "block_io_done");
	hooks->rq_issue = btf_has_tracepoint(btf, "block_rq_issue") &&
			  btf_has_tracepoint(btf, "block_rq_complete");
	hooks->getrq = btf_tracepoint_args(btf, "block_getrq") == 1;
	hooks->process_exit = btf_has_tracepoint(btf, "sched_process_exit");
	hooks->dirty_folio = btf_has_tracepoint(btf, "writeback_dirty_folio");
	hooks->process_exec = btf_has_tracepoint(btf, "sched_process_exec");
	hooks->exit_group_dead = btf_tracepoint_args(btf, "sched_process_exit") >= 2;
	hooks->task_iter = btf__find_by_name_kind(btf, "bpf_iter__task", BTF_KIND_STRUCT) > 0;
	hooks->sched_switch = btf_tracepoint_args(btf, "sched_switch") >= 4;
	hooks->task_delays = btf_has_member(btf, "task_struct", "delays");
	hooks->rdonly_cast = btf__find_by_name_kind(btf, "bpf_rdonly_cast", BTF_KIND_FUNC) > 0;
	btf__free(btf);
	if (!hooks->bio_queue || !(hooks->io_start || hooks->rq_issue)) {
		fail("this kernel has no block tracepoints (block_bio_queue, block_io_start or "
		     "block_rq_issue): it needs CONFIG_BLOCK and CONFIG_TRACEPOINTS");
		return -1;
	}
	return 0;
}

