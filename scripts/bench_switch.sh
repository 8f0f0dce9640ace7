#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# diskio benchmark, the cost per context switch: IO> without delay accounting
# is measured by a program at every sched_switch (kernel/waits.bpf.h); what
# does it cost a machine that switches a lot?
#
#   scripts/bench_switch.sh          (part D: make bench runs it after A, B and C)
#
# Load: a pipe ping-pong between two processes pinned to one CPU, so that
# every message is a context switch: ns per switch = the CPU time of both
# (user + system, which other load on the machine does not add to; the wall
# time is printed too) / (2 x round trips).  Variants, interleaved in every
# round (their order rotates):
# nothing attached; `diskio -b 1` (kernel.task_delayacct=0: its sched_switch
# program runs); a bpftrace one-liner doing the same work on
# tracepoint:sched:sched_switch (a wait starts when prev leaves the CPU
# asleep with in_iowait set, and ends when it is next; per-tid hash maps
# where diskio keeps task storage).  Ratios are taken within a round and
# medians reported.  Then, with BPF run-time statistics on for one more
# ping-pong each (BPF_ENABLE_STATS, held by the ping-pong itself, so that
# kernel.bpf_stats_enabled is left to whoever else uses it), the in-kernel
# ns per run of each tool's sched_switch program.  Neither ping-pong task
# waits on I/O: what is measured is the price every switch pays.
#
# kernel.task_delayacct is set to 0 for the run (with it on, diskio attaches
# nothing to sched_switch) and put back at exit.
#
# Environment:
#   BENCH_SWITCH_ROUNDS=5      rounds
#   BENCH_SWITCH_TRIPS=200000  round trips per ping-pong
#   DISKIO=./diskio            the binary under test
#   BENCH_PARTS                runs only if it has a D, as scripts/bench.sh reads it
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ${BENCH_PARTS:-D} != *D* ]]; then
	echo "diskio bench: part D (cost per context switch) not run: BENCH_PARTS=$BENCH_PARTS"
	exit 0
fi

ROUNDS=${BENCH_SWITCH_ROUNDS:-5}
TRIPS=${BENCH_SWITCH_TRIPS:-200000}
DISKIO=${DISKIO:-./diskio}
ATTACH_TIMEOUT_S=60
DELAYACCT=/proc/sys/kernel/task_delayacct
OUT_MD=.output/bench_switch.md

die() {
	echo "diskio bench-switch: $*" >&2
	exit 1
}

[[ $ROUNDS =~ ^[1-9][0-9]*$ && $TRIPS =~ ^[1-9][0-9]*$ ]] ||
	die "BENCH_SWITCH_ROUNDS and BENCH_SWITCH_TRIPS must be whole numbers >= 1"
[[ $(id -u) -eq 0 ]] || die "needs root (BPF, sysctl): run it with sudo"
for tool in bpftrace bpftool cc awk python3; do
	command -v "$tool" >/dev/null || die "$tool is missing: run 'make deps-bench' (scripts/deps.sh bench)"
done
[[ -x $DISKIO ]] || die "$DISKIO is not built: run 'make diskio' (make bench does it)"
[[ -w $DELAYACCT ]] || die "no $DELAYACCT: this kernel has no delay accounting sysctl"

# ---- state undone at exit ---------------------------------------------------
WORK=""
OLD_DELAYACCT=""
TOOL_PID=""

stop_tool() {
	[[ -n $TOOL_PID ]] || return 0
	kill -INT "$TOOL_PID" 2>/dev/null || true
	for ((i = 0; i < 150; i++)); do
		kill -0 "$TOOL_PID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$TOOL_PID" 2>/dev/null || true
	wait "$TOOL_PID" 2>/dev/null || true
	TOOL_PID=""
}

cleanup() {
	set +e
	stop_tool
	[[ -n $OLD_DELAYACCT ]] && echo "$OLD_DELAYACCT" >"$DELAYACCT"
	[[ -n $WORK ]] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

WORK=$(mktemp -d /dev/shm/diskio-bench-switch.XXXXXX)
ulimit -l unlimited 2>/dev/null || true
OLD_DELAYACCT=$(<"$DELAYACCT")
echo 0 >"$DELAYACCT"

# ---- the ping-pong ----------------------------------------------------------
cat >"$WORK/pingpong.c" <<'EOF'
/* Two processes on one CPU hand a byte back and forth through two pipes,
 * trips round trips (two context switches each): prints the wall time and
 * the CPU time of both (what other load on the CPU does not change) per
 * switch, in ns.  With -s, BPF run-time statistics are on while it runs
 * (BPF_ENABLE_STATS: on whatever else sets kernel.bpf_stats_enabled). */
#define _GNU_SOURCE
#include <linux/bpf.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static double cpu_ns(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

int main(int argc, char **argv)
{
	int stats = argc > 2 && !strcmp(argv[2], "-s");
	long trips = argc > 1 ? atol(argv[1]) : 100000;
	int ping[2], pong[2];
	struct timespec t0, t1;
	double cpu0;
	cpu_set_t cpu;
	char c = 0;
	pid_t pid;

	if (stats) {
		union bpf_attr attr;

		memset(&attr, 0, sizeof(attr));
		attr.enable_stats.type = BPF_STATS_RUN_TIME;
		if (syscall(SYS_bpf, BPF_ENABLE_STATS, &attr, sizeof(attr)) < 0)
			return 2;	/* the descriptor stays open until exit */
	}
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	if (trips < 1 || sched_setaffinity(0, sizeof(cpu), &cpu) || pipe(ping) || pipe(pong))
		return 1;
	cpu0 = cpu_ns(RUSAGE_SELF);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
			;
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (long i = 0; i < trips; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(ping[1]);
	waitpid(pid, NULL, 0);
	printf("%.1f %.1f\n",
	       ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (2.0 * trips),
	       (cpu_ns(RUSAGE_SELF) - cpu0 + cpu_ns(RUSAGE_CHILDREN)) / (2.0 * trips));
	return 0;
}
EOF
cc -O2 -o "$WORK/pingpong" "$WORK/pingpong.c" || die "cannot build the ping-pong"

BPFTRACE_PROG='tracepoint:sched:sched_switch {
	if (@since[args->next_pid]) {
		@waited[args->next_pid] += nsecs - @since[args->next_pid];
		delete(@since[args->next_pid]);
	}
	if ((args->prev_state & 0x7f) && curtask->in_iowait) {
		@since[args->prev_pid] = nsecs;
	}
}'

# ---- the tools --------------------------------------------------------------
# start_tool pattern cmd...: start cmd (output in $WORK/tool.out), wait until
# pattern shows in its output.
start_tool() {
	local pattern=$1 i
	shift
	"$@" >"$WORK/tool.out" 2>&1 &
	TOOL_PID=$!
	for ((i = 0; i < ATTACH_TIMEOUT_S * 10; i++)); do
		grep -qs -- "$pattern" "$WORK/tool.out" && break
		kill -0 "$TOOL_PID" 2>/dev/null || die "'$*' exited: $(tail -3 "$WORK/tool.out")"
		sleep 0.1
	done
	((i < ATTACH_TIMEOUT_S * 10)) || die "'$*' did not attach within ${ATTACH_TIMEOUT_S}s"
	sleep 1	# bpftrace says "Attaching" before it attaches
}

start_variant() {	# none | diskio | bpftrace
	case $1 in
	none) ;;
	diskio) start_tool '^# time pid comm' "$DISKIO" -b 1 ;;
	bpftrace) start_tool 'Attaching' bpftrace -e "$BPFTRACE_PROG" ;;
	esac
}

pingpong() { "$WORK/pingpong" "$TRIPS" "$@"; }

# "run_time_ns run_cnt" summed over the BPF programs the tool holds (the
# ids in its descriptors' fdinfo) whose name matches name-regex.
tool_prog_stats() {	# name-regex
	local ids
	ids=$({ grep -h '^prog_id:' /proc/"$TOOL_PID"/fdinfo/* 2>/dev/null || true; } |
		awk '{ print $2 }' | sort -un | tr '\n' ' ')
	bpftool prog show --json | python3 -c '
import json, re, sys
ids = set(int(i) for i in sys.argv[2].split())
t = c = 0
for p in json.load(sys.stdin):
    if p["id"] in ids and re.search(sys.argv[1], p.get("name", "")):
        t += p.get("run_time_ns", 0)
        c += p.get("run_cnt", 0)
print(t, c)' "$1" "$ids"
}

median() {
	sort -g | awk '{ a[NR] = $1 } END { if (!NR) print "NA"; else if (NR % 2) print a[(NR + 1) / 2];
		else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ---- the rounds -------------------------------------------------------------
variants=(none diskio bpftrace)
declare -A wall cpu
for f in none diskio bpftrace ratio-diskio ratio-bpftrace ratio-vs; do : >"$WORK/$f"; done
for ((r = 0; r < ROUNDS; r++)); do
	for ((k = 0; k < 3; k++)); do
		v=${variants[(r + k) % 3]}
		start_variant "$v"
		read -r "wall[$v]" "cpu[$v]" < <(pingpong) || die "the ping-pong failed"
		stop_tool
	done
	echo "round $((r + 1)): CPU ns per switch (wall): none ${cpu[none]} (${wall[none]})," \
		"diskio ${cpu[diskio]} (${wall[diskio]}), bpftrace ${cpu[bpftrace]} (${wall[bpftrace]})"
	for v in none diskio bpftrace; do echo "${cpu[$v]}" >>"$WORK/$v"; done
	awk -v a="${cpu[diskio]}" -v b="${cpu[none]}" 'BEGIN { print a / b }' >>"$WORK/ratio-diskio"
	awk -v a="${cpu[bpftrace]}" -v b="${cpu[none]}" 'BEGIN { print a / b }' >>"$WORK/ratio-bpftrace"
	awk -v a="${cpu[diskio]}" -v n="${cpu[none]}" -v b="${cpu[bpftrace]}" \
		'BEGIN { if (b > n) print (a - n) / (b - n) }' >>"$WORK/ratio-vs"
done

# ---- in-kernel ns per run, with run-time statistics on ------------------------
# One ping-pong under each tool with BPF_ENABLE_STATS held: its
# sched_switch program's run time and runs, as deltas.
bpf_ns_per_run() {	# variant name-regex
	local t0 c0 t1 c1
	start_variant "$1"
	read -r t0 c0 < <(tool_prog_stats "$2")
	pingpong -s >/dev/null || die "the ping-pong failed (BPF_ENABLE_STATS?)"
	read -r t1 c1 < <(tool_prog_stats "$2")
	stop_tool
	awk -v t="$((t1 - t0))" -v c="$((c1 - c0))" \
		'BEGIN { if (c > 0) printf "%.1f %.2f\n", t / c, c / (2 * '"$TRIPS"'); else print "NA NA" }'
}
read -r d_run d_runs < <(bpf_ns_per_run diskio '^handle_switch$')
read -r b_run b_runs < <(bpf_ns_per_run bpftrace 'sched_switch')

m_none=$(median <"$WORK/none")
m_diskio=$(median <"$WORK/diskio")
m_bpftrace=$(median <"$WORK/bpftrace")
fmt() {	# printf-format number-or-NA
	if [[ $2 == NA ]]; then echo NA; else awk -v v="$2" -v f="$1" 'BEGIN { printf f, v }'; fi
}
r_diskio=$(fmt %.3f "$(median <"$WORK/ratio-diskio")")
r_bpftrace=$(fmt %.3f "$(median <"$WORK/ratio-bpftrace")")
r_vs=$(fmt %.2f "$(median <"$WORK/ratio-vs")")

mkdir -p .output
{
	echo "Cost per context switch: $ROUNDS rounds of $TRIPS pipe round trips on one CPU,"
	echo "CPU ns of both tasks per switch, medians (ratios within a round):"
	echo
	echo "| variant | CPU ns per switch | / nothing | added / bpftrace's | BPF ns per run | runs per switch |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	echo "| nothing attached | $m_none | 1.000 | | | |"
	echo "| \`diskio -b 1\` (sched_switch, task storage) | $m_diskio | $r_diskio | $r_vs | $d_run | $d_runs |"
	echo "| bpftrace on sched_switch (hash maps) | $m_bpftrace | $r_bpftrace | 1.00 | $b_run | $b_runs |"
} | tee "$OUT_MD"
echo "diskio bench-switch: table in $OUT_MD"
