// SPDX-License-Identifier: GPL-2.0
/*
 * The bench's floor (scripts/bench.sh, part A): programs that return at once.
 * bench/empty_loader.c attaches one to each hook diskio's default mode runs
 * per I/O, of the same program type, so that what a tracepoint costs to call
 * a program is measured apart from what the program does.  Built with
 * diskio.bpf.c's clang flags and vmlinux.h.
 */
#include <vmlinux.h>
#include <bpf/bpf_helpers.h>

/* The attach target is set by the loader (bpf_program__set_attach_target). */
SEC("tp_btf")
int empty_tp_btf(void *ctx)
{
	return 0;
}

SEC("raw_tp")
int empty_raw_tp(void *ctx)
{
	return 0;
}

SEC("tp")
int empty_tp(void *ctx)
{
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
