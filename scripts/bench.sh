#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# diskio benchmark: what it costs to watch a busy disk with diskio, compared
# with doing nothing and with the same job done by bpftrace.
#
#   scripts/bench.sh            (or: make bench, which builds ./diskio first)
#
# Load: fio, 4 KiB random reads, O_DIRECT, psync, one job, on a zram disk the
# script hot-adds (and removes at exit), filled first so that reads hit data.
#
# Part A, aggregated mode: `diskio -b 1`, `diskio -b -L 1`, empty programs
#   on the hooks the default mode runs per I/O (the floor: bench/empty.bpf.c),
#   a bpftrace one-liner doing the default mode's aggregation on
#   block_bio_queue, and one timing every bio per process into a histogram
#   (-L's counterpart), each between two bare runs (nothing attached).  fio
#   is pinned to one CPU, the tool to another; on zram the whole I/O runs in
#   fio's thread, so the primary figure is the workload's own added CPU per
#   I/O: fio's user+system time per completed I/O under the tool minus the
#   mean of the bare runs around it, with kernel.bpf_stats_enabled=0 (fio's
#   CPU per I/O: the 25th percentile of the run's 250 ms intervals, sampled
#   by bench/fio_cpu.py; over the whole run, from fio's JSON, beside it).
#   Also reported: IOPS kept, and as a diagnostic the run_time_ns of the
#   tool's programs per I/O (with kernel.bpf_stats_enabled=1, in a second,
#   shorter fio run), and diskio's own user+sys CPU.
#   Also --files: `diskio -b --files 1`, its added CPU as a ratio to the default
#   mode's (the workload's direct reads of the raw disk are [unknown]: the
#   classification runs in full, the naming never).
#   Also --stacks: `diskio -b --stacks 1` against bpftrace keyed by kstack and
#   ustack on block_bio_queue of the zram disk (a sum and a count per key).
# Part B, trace mode: `diskio -T -b -D zramN 1` against a bpftrace printf per
#   I/O on block_bio_complete for the same disk, both writing to /dev/shm, at
#   full fio speed (and, with BENCH_TRACE_IOPS, at a fixed rate): events/s
#   written, events lost, kernel and user cost per event; and fio alone, whose
#   rate no tool's events/s can pass (one event per I/O).
#
# The machine is noisy: variants are interleaved within every round (their
# order rotates), each compared with the bare runs a few seconds away, ratios
# are taken within a round, and medians are reported.
# Missing a target is reported, not an error: exit status is 0 unless the
# benchmark itself could not run.
#
# Environment:
#   BENCH_ROUNDS=5          rounds of part A (each runs every variant once,
#                           and a bare run before the first and after each)
#   BENCH_RUNTIME=5         seconds of fio per run
#   BENCH_NS_RUNTIME=2      seconds of the fio run that times BPF programs
#   BENCH_TRACE_ROUNDS=3    rounds of part B
#   BENCH_TRACE_IOPS=0      also run part B at this fixed rate (0: full speed only)
#   BENCH_PARTS=ABCDEF      the parts to run (C: scripts/bench_writeback.sh, D: scripts/bench_switch.sh,
#                           E: scripts/bench_record.sh, F: scripts/bench_start.sh)
#   BENCH_FIO_CPU=0         the CPU fio is pinned to in part A
#   BENCH_TOOL_CPU=1        the CPU the tool is pinned to in part A
#   BENCH_CPU_INTERVAL_MS=250  part A samples fio's CPU time this often
#   DISKIO=./diskio         the binary under test
#   BENCH_DISKIO_BEFORE=    another build, run as one more variant of part A
#   BENCH_BEFORE_ARGS="-b 1"  its arguments (e.g. "-b --files 1" beside diskio-files)
#   BENCH_EMPTY_LOADER=.output/bench/empty_loader   the floor's loader
#   BENCH_EMPTY_HOOKS=      the floor's hooks (tp_btf:block_bio_queue ...);
#                           default: those diskio -b 1 runs per fio I/O, found
#                           at the start with kernel.bpf_stats_enabled=1
#   BENCH_KEEP=1            keep the work directory (tools' output) in /dev/shm
# shellcheck disable=SC2317  # functions called through traps and variables
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=${BENCH_ROUNDS:-5}
RUNTIME=${BENCH_RUNTIME:-5}
TRACE_ROUNDS=${BENCH_TRACE_ROUNDS:-3}
TRACE_IOPS=${BENCH_TRACE_IOPS:-0}
NS_RUNTIME=${BENCH_NS_RUNTIME:-2}
PARTS=${BENCH_PARTS:-ABC}
FIO_CPU=${BENCH_FIO_CPU:-0}
TOOL_CPU=${BENCH_TOOL_CPU:-1}
CPU_INTERVAL_MS=${BENCH_CPU_INTERVAL_MS:-250}
FIO_CPU_PY=bench/fio_cpu.py
DISKIO=${DISKIO:-./diskio}
EMPTY_LOADER=${BENCH_EMPTY_LOADER:-.output/bench/empty_loader}
EMPTY_HOOKS=${BENCH_EMPTY_HOOKS:-}
OUT_MD=.output/bench.md
ATTACH_TIMEOUT_S=60	# bpftrace takes seconds to start on a loaded machine
STOP_TIMEOUT_S=15

die() {
	echo "diskio bench: $*" >&2
	exit 1
}

for var in ROUNDS RUNTIME NS_RUNTIME TRACE_ROUNDS TRACE_IOPS FIO_CPU TOOL_CPU CPU_INTERVAL_MS; do
	[[ ${!var} =~ ^[0-9]+$ ]] || die "BENCH_$var must be a whole number, not '${!var}'"
done
((ROUNDS >= 1 && RUNTIME >= 1 && NS_RUNTIME >= 1)) ||
	die "BENCH_ROUNDS, BENCH_RUNTIME and BENCH_NS_RUNTIME must be at least 1"
((CPU_INTERVAL_MS >= 10)) || die "BENCH_CPU_INTERVAL_MS must be at least 10"
[[ $PARTS =~ ^[ABCDEF]+$ ]] || die "BENCH_PARTS takes the letters A to F (parts to run), not '$PARTS'"
part() { [[ $PARTS == *"$1"* ]]; }

# ---- prerequisites ----------------------------------------------------------
[[ $(id -u) -eq 0 ]] || die "needs root (zram devices, BPF, sysctl): run it with sudo"
for tool in fio bpftrace bpftool awk taskset; do
	command -v "$tool" >/dev/null || die "$tool is missing: run 'make deps-bench' (scripts/deps.sh bench)"
done
if command -v python3 >/dev/null; then
	JSON=python3
elif command -v jq >/dev/null; then
	JSON=jq
else
	die "needs python3 or jq to read fio's and bpftool's JSON: apt-get install python3"
fi
[[ -x $DISKIO ]] || die "$DISKIO is not built: run 'make diskio' (make bench does it)"
if part A; then
	command -v python3 >/dev/null || die "part A samples fio's CPU time with python3: apt-get install python3"
	[[ -x $EMPTY_LOADER ]] ||
		die "$EMPTY_LOADER is not built: run 'make .output/bench/empty_loader' (make bench does it)"
	for cpu in "$FIO_CPU" "$TOOL_CPU"; do
		taskset -c "$cpu" true 2>/dev/null || die "cannot pin to CPU $cpu: set BENCH_FIO_CPU and BENCH_TOOL_CPU"
	done
	((FIO_CPU != TOOL_CPU)) ||
		echo "diskio bench: fio and the tool share CPU $FIO_CPU (BENCH_FIO_CPU = BENCH_TOOL_CPU)" >&2
fi
CLK_TCK=$(getconf CLK_TCK)

# ---- state undone at exit ---------------------------------------------------
WORK=""
ZRAM_N=""
MOUNTED_TRACEFS=0
OLD_BPF_STATS=""
BG_PIDS=()
BPF_STATS=/proc/sys/kernel/bpf_stats_enabled	# sysctl kernel.bpf_stats_enabled

stop_pid() {	# pid: SIGINT, then SIGKILL after STOP_TIMEOUT_S; returns its status
	local pid=$1 i
	kill -INT "$pid" 2>/dev/null || true
	for ((i = 0; i < STOP_TIMEOUT_S * 10; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "diskio bench: pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null)) ignored SIGINT for" \
			"${STOP_TIMEOUT_S}s, waiting in $(cat "/proc/$pid/wchan" 2>/dev/null): killing it" >&2
		kill -KILL "$pid" 2>/dev/null || true
	fi
	local rc=0
	wait "$pid" 2>/dev/null || rc=$?
	forget_pid "$pid"
	return "$rc"
}

forget_pid() {	# pid: no longer one for cleanup to stop
	local kept=() i
	for i in "${BG_PIDS[@]}"; do [[ $i == "$1" ]] || kept+=("$i"); done
	BG_PIDS=("${kept[@]}")
}

cleanup() {
	set +e
	local pid i
	for pid in "${BG_PIDS[@]}"; do stop_pid "$pid"; done
	if [[ -n $ZRAM_N ]]; then
		echo 1 >"/sys/block/zram$ZRAM_N/reset" 2>/dev/null
		for ((i = 0; i < 50; i++)); do
			echo "$ZRAM_N" >/sys/class/zram-control/hot_remove 2>/dev/null && break
			sleep 0.2
			echo 1 >"/sys/block/zram$ZRAM_N/reset" 2>/dev/null
		done
		[[ -e /sys/block/zram$ZRAM_N ]] &&
			echo "diskio bench: could not remove zram$ZRAM_N: echo $ZRAM_N > /sys/class/zram-control/hot_remove" >&2
	fi
	[[ -n $OLD_BPF_STATS ]] && echo "$OLD_BPF_STATS" >"$BPF_STATS"
	((MOUNTED_TRACEFS)) && umount /sys/kernel/tracing
	if [[ -n $WORK && -n ${BENCH_KEEP:-} ]]; then
		echo "diskio bench: kept $WORK" >&2
	elif [[ -n $WORK ]]; then
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

WORK=$(mktemp -d /dev/shm/diskio-bench.XXXXXX)
ulimit -l unlimited 2>/dev/null || true	# older bpftrace wants a memlock limit
# The binaries under test, copied: a rebuild during the run changes nothing.
snapshot() {	# variable-name dir: copy the binary it names into dir, point it there
	local -n path=$1
	mkdir -p "$2"
	cp "$path" "$2/" || die "cannot copy $path to $2"
	path=$2/$(basename "$path")
}
DISKIO_NAME=$DISKIO
snapshot DISKIO "$WORK/bin"
[[ -z ${BENCH_DISKIO_BEFORE:-} ]] || snapshot BENCH_DISKIO_BEFORE "$WORK/bin-before"
! part A || snapshot EMPTY_LOADER "$WORK/bin"
! part A || snapshot FIO_CPU_PY "$WORK/bin"

# ---- small helpers ----------------------------------------------------------
now_s() { echo "${EPOCHREALTIME/,/.}"; }

# Arithmetic on decimals; any NA operand makes the result NA.
calc() {	# format expression [vars...]: calc %.1f 'a/b' a=1 b=2
	local fmt=$1 expr=$2
	shift 2
	local args=() kv
	for kv in "$@"; do
		[[ ${kv#*=} == NA || -z ${kv#*=} ]] && { echo NA; return; }
		args+=(-v "$kv")
	done
	awk "${args[@]}" -v fmt="$fmt" "BEGIN { v = ($expr); printf fmt \"\n\", v }"
}

median() {	# numbers on stdin (NA ignored) -> median or NA
	{ grep -v '^NA$' || true; } | sort -g | awk '{ a[NR] = $1 }
		END { if (!NR) print "NA"; else if (NR % 2) print a[(NR + 1) / 2];
		      else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# fio's JSON -> "iops total_ios runtime_ms cpu_ns_io cpu_pct" of jobs[0]:
# cpu_pct is the job's usr+sys CPU time in % of its runtime (fio takes it
# from getrusage() over the job's run), cpu_ns_io that time per completed
# I/O: (usr_cpu + sys_cpu) / 100 * job_runtime / total_ios.  It leaves out
# fio's start and its main process (about 0.18 s a run here, by
# getrusage(RUSAGE_CHILDREN) around fio), which the I/Os do not pay.
fio_stats() {
	if [[ $JSON == python3 ]]; then
		python3 - "$1" <<-'EOF'
		import json, sys
		text = open(sys.argv[1]).read()
		j = json.loads(text[text.index("{"):])["jobs"][0]
		r = j["read"]
		pct = j["usr_cpu"] + j["sys_cpu"]
		ms = j.get("job_runtime") or r["runtime"]
		ns = "%.1f" % (pct / 100 * ms * 1e6 / r["total_ios"]) if r["total_ios"] else "NA"
		print(r["iops"], r["total_ios"], r["runtime"], ns, "%.2f" % pct)
		EOF
	else
		sed -n '/^{/,$p' "$1" | jq -r '.jobs[0] | (.usr_cpu + .sys_cpu) as $pct
			| (.job_runtime // .read.runtime) as $ms
			| "\(.read.iops) \(.read.total_ios) \(.read.runtime)"
			  + " \(if .read.total_ios > 0 then ($pct / 100 * $ms * 1e6 / .read.total_ios * 10
			         | round / 10) else "NA" end) \($pct * 100 | round / 100)"'
	fi
}

# BPF programs a process holds: their ids from /proc/PID/fdinfo.
prog_ids_of() {
	{ grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '{ print $2 }' | sort -un
}

all_prog_ids() {
	bpftool prog show --json | if [[ $JSON == python3 ]]; then
		python3 -c 'import json, sys; [print(p["id"]) for p in json.load(sys.stdin)]'
	else
		jq -r '.[].id'
	fi | sort -un
}

# Programs that appeared since a snapshot of ids, named like the tool's.
new_prog_ids() {	# before-file name-regex
	bpftool prog show --json | if [[ $JSON == python3 ]]; then
		python3 -c '
import json, re, sys
before = set(open(sys.argv[1]).read().split())
for p in json.load(sys.stdin):
    if str(p["id"]) not in before and re.search(sys.argv[2], p.get("name", "")):
        print(p["id"])' "$1" "$2"
	else
		jq -r --rawfile before "$1" --arg re "$2" \
			'.[] | select((.id | tostring) as $i | ($before | split("\n") | index($i)) | not)
			 | select((.name // "") | test($re)) | .id'
	fi
}

# "id name run_time_ns run_cnt", one line per given program id (bpftool prog show);
# the name is name@tracepoint when its link says which (raw tracepoints, tp_btf),
# which also tells the empty programs apart.
prog_stats() {
	local ids="$*" links
	links=$(bpftool link show --json)
	bpftool prog show --json | if [[ $JSON == python3 ]]; then
		python3 -c '
import json, sys
ids = set(int(i) for i in sys.argv[1].split())
tps = {l.get("prog_id"): l.get("tp_name") for l in json.loads(sys.argv[2])}
for p in json.load(sys.stdin):
    if p["id"] in ids:
        name = (p.get("name") or "?") + ("@" + tps[p["id"]] if tps.get(p["id"]) else "")
        print(p["id"], name, p.get("run_time_ns") or 0, p.get("run_cnt") or 0)' "$ids" "$links"
	else
		jq -r --arg ids "$ids" --argjson links "$links" '
			($ids | split(" ") | map(select(length > 0) | tonumber)) as $w
			| .[] | select(.id as $i | $w | index($i)) | .id as $id
			| ([$links[] | select(.prog_id == $id) | .tp_name // empty][0]) as $tp
			| "\(.id) \(.name // "?")\(if $tp then "@\($tp)" else "" end)"
			  + " \(.run_time_ns // 0) \(.run_cnt // 0)"'
	fi
}

# Per-program deltas between two prog_stats snapshots, for n I/Os:
# "name ns_per_run runs_per_io" lines, then "TOTAL ns_per_io runs_per_io
# estimate", the estimate counting once, at its average cost per run, every
# program that ran at least 0.9 times per I/O (other disks' I/O meanwhile
# adds runs to the totals, not to the estimate).
prog_deltas() {	# before after n
	awk -v n="$3" 'NR == FNR { rt[$1] = $3; rc[$1] = $4; next }
		{ drt = $3 - rt[$1]; drc = $4 - rc[$1]; T += drt; C += drc
		  if (drc > 0) {
			printf "%s %.1f %.3f\n", $2, drt / drc, drc / n
			if (drc >= 0.9 * n) E += drt / drc
		  } }
		END { printf "TOTAL %.1f %.3f %.1f\n", T / n, C / n, E }' "$1" "$2"
}

cpu_ticks() {	# utime + stime of a process, in clock ticks
	local stat
	stat=$(<"/proc/$1/stat") || { echo NA; return; }
	stat=${stat##*) }
	# shellcheck disable=SC2086
	set -- $stat
	echo $((${12} + ${13}))
}

cpu_ns() {	# CPU time of a process's main thread in ns (schedstat), NA if absent
	local run rest
	read -r run rest <"/proc/$1/schedstat" 2>/dev/null || { echo NA; return; }
	echo "$run"
}

# ---- the disk ---------------------------------------------------------------
setup_zram() {
	if [[ ! -e /sys/class/zram-control/hot_add ]]; then
		if command -v modprobe >/dev/null; then modprobe zram num_devices=0 2>/dev/null || true; fi
		[[ -e /sys/class/zram-control/hot_add ]] ||
			die "no zram (/sys/class/zram-control): this kernel needs CONFIG_ZRAM (modprobe zram)"
	fi
	ZRAM_N=$(</sys/class/zram-control/hot_add) || die "cannot hot-add a zram disk"
	ZRAM=/dev/zram$ZRAM_N
	echo 1G >"/sys/block/zram$ZRAM_N/disksize" || die "cannot size $ZRAM"
	for ((i = 0; i < 50; i++)); do [[ -b $ZRAM ]] && break; sleep 0.1; done
	[[ -b $ZRAM ]] || die "$ZRAM did not appear"
	# Half-compressible data: reads decompress real pages (zeros would be
	# same-filled pages, incompressible data stored raw).
	fio --name=fill --filename="$ZRAM" --rw=write --bs=1M --direct=1 --ioengine=psync \
		--size=1G --buffer_compress_percentage=50 --output="$WORK/fill.json" \
		--output-format=json >/dev/null || die "fio could not fill $ZRAM"
}

# Part A pins fio to FIO_CPU and the tools to TOOL_CPU (PIN=1): the tool's
# own work then never runs on fio's CPU, and fio's I/O stays on one CPU.
PIN=0
pin_to() {	# cpu: sets PIN_CMD, the prefix that runs a command there (taskset execs it)
	PIN_CMD=()
	((!PIN)) || PIN_CMD=(taskset -c "$1")
}

# fio on the zram disk; sets FIO_IOPS FIO_IOS FIO_MS, FIO_RUN_NS_IO (fio's own
# usr+sys ns per I/O over the run, from its JSON) FIO_CPU_PCT, and
# FIO_CPU_NS_IO FIO_MED_NS_IO: with "sample" in part A, the 25th percentile
# and the median over CPU_INTERVAL_MS intervals of the same, from
# bench/fio_cpu.py sampling fio's job on the tool's CPU (otherwise, or if
# sampling failed: FIO_RUN_NS_IO), and FIO_SHARED=1 if meanwhile a BPF
# program whose id is not in $WORK/ids-allowed was loaded, or
# kernel.bpf_stats_enabled was on (another session's tools: the run does not
# measure what it says); non-zero if fio failed.
run_fio() {	# rate_iops (0: as fast as it goes) seconds [sample]
	local rate_opt=() fio_pid rc=0 sampled=""
	[[ $1 -gt 0 ]] && rate_opt=(--rate_iops="$1")
	FIO_IOPS=NA FIO_IOS=NA FIO_MS=NA FIO_CPU_NS_IO=NA FIO_MED_NS_IO=NA FIO_RUN_NS_IO=NA FIO_CPU_PCT=NA
	FIO_SHARED=0
	FIO_RUNS=$((${FIO_RUNS:-0} + 1))
	pin_to "$FIO_CPU"
	"${PIN_CMD[@]}" fio --name=randread --filename="$ZRAM" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --numjobs=1 --time_based --runtime="$2" \
		--norandommap --randrepeat=0 "${rate_opt[@]}" \
		--output-format=json --output="$WORK/fio.json" >"$WORK/fio.log" 2>&1 &
	fio_pid=$!
	BG_PIDS+=("$fio_pid")
	if ((PIN)) && [[ ${3:-} == sample ]]; then
		pin_to "$TOOL_CPU"
		sampled=$("${PIN_CMD[@]}" python3 "$FIO_CPU_PY" "$fio_pid" \
			"$(calc %.3f 'ms / 1000' ms="$CPU_INTERVAL_MS")" "$WORK/fio-cpu-$FIO_RUNS.txt" \
			"$WORK/ids-allowed") || sampled=""
	fi
	wait "$fio_pid" || rc=$?
	forget_pid "$fio_pid"
	if ((rc != 0)); then
		echo "diskio bench: fio failed: $(tail -3 "$WORK/fio.log")" >&2
		return 1
	fi
	read -r FIO_IOPS FIO_IOS FIO_MS FIO_RUN_NS_IO FIO_CPU_PCT < <(fio_stats "$WORK/fio.json") || return 1
	FIO_CPU_NS_IO=$FIO_RUN_NS_IO FIO_MED_NS_IO=$FIO_RUN_NS_IO
	if ((PIN)) && [[ ${3:-} == sample ]]; then
		local p25 p50 foreign stats
		read -r p25 p50 _ _ foreign stats < <(echo "${sampled:-NA NA NA 0 0 0}")
		if [[ $p25 == NA ]]; then
			echo "diskio bench: could not sample fio's CPU time: the run's figure stands in" >&2
		else
			FIO_CPU_NS_IO=$p25 FIO_MED_NS_IO=$p50
		fi
		if [[ $foreign == 1 || $stats == 1 ]]; then
			FIO_SHARED=1
			echo "diskio bench: $([[ $foreign == 1 ]] && echo "another BPF program was loaded")$(
				[[ $foreign == 1 && $stats == 1 ]] && echo " and ")$([[ $stats == 1 ]] &&
				echo "kernel.bpf_stats_enabled was on") during this run: left out" >&2
		fi
	fi
	[[ -n $FIO_MS && $FIO_MS != 0 ]]
}

# ---- running a tool ---------------------------------------------------------
# start_tool out err pattern name-regex cmd...: start cmd with stdout/stderr
# into out/err, wait until pattern shows in out or err, find its programs.
# Sets TOOL_PID and TOOL_PROGS; non-zero if it did not start.
start_tool() {
	local out=$1 err=$2 pattern=$3 name_re=$4 i
	shift 4
	all_prog_ids >"$WORK/ids-before"
	pin_to "$TOOL_CPU"
	"${PIN_CMD[@]}" "$@" >"$out" 2>"$err" &
	TOOL_PID=$!
	BG_PIDS+=("$TOOL_PID")
	for ((i = 0; i < ATTACH_TIMEOUT_S * 10; i++)); do
		grep -qs -- "$pattern" "$out" "$err" "${EXTRA_OUT:-/dev/null}" && break
		if ! kill -0 "$TOOL_PID" 2>/dev/null; then
			stop_pid "$TOOL_PID" || true
			echo "diskio bench: '$*' exited before attaching: $(tail -3 "$err")" >&2
			return 1
		fi
		sleep 0.1
	done
	if ((i >= ATTACH_TIMEOUT_S * 10)); then
		echo "diskio bench: '$*' did not attach within ${ATTACH_TIMEOUT_S}s" >&2
		stop_pid "$TOOL_PID" || true
		return 1
	fi
	sleep 1	# bpftrace says "Attaching" before it attaches
	TOOL_PROGS=$(prog_ids_of "$TOOL_PID" | tr '\n' ' ')
	# Without prog fds in fdinfo: the programs that appeared, by name.
	[[ -n ${TOOL_PROGS// /} ]] || TOOL_PROGS=$(new_prog_ids "$WORK/ids-before" "$name_re" | tr '\n' ' ')
	return 0
}

bpf_stats_set() { echo "$1" >"$BPF_STATS" 2>/dev/null || true; }

# Measure under the tool started last, in two fio runs:
#  1. kernel.bpf_stats_enabled=0 (timing every program run costs IOPS here):
#     M_IOPS M_MS, M_FIO_NS_IO M_FIO_MED_NS_IO M_FIO_RUN_NS_IO M_FIO_PCT
#     (fio's own CPU per I/O: sampled, 25th percentile and median, and over
#     the run; and in % of its runtime: see run_fio; NA if M_SHARED=1), the
#     tool's M_CPU_S (user+sys s) M_CPU_PCT M_CPU_SCHED_S M_WALL_S, and
#     M_EVENTS M_LOST from the counter function given (trace mode), read
#     settle_s after fio ends so that the tool has drained and printed;
#     M_STATS_LEAK=1 if someone else had the statistics on meanwhile;
#  2. kernel.bpf_stats_enabled=1 for NS_RUNTIME s: M_NS_IO M_RUNS_IO, the
#     run time and runs of the tool's programs per I/O fio completed, M_NS_EST
#     (see prog_deltas) and $WORK/progs-delta, per program.
measure_under_tool() {	# rate settle_s [counter-function]
	local rate=$1 settle=$2 counter=${3:-} t0 t1 c0 c1 s0 s1 e0 e1 l0 l1
	M_IOPS=NA M_MS=NA M_NS_IO=NA M_RUNS_IO=NA M_NS_EST=NA M_CPU_PCT=NA M_CPU_S=NA M_CPU_SCHED_S=NA
	M_FIO_NS_IO=NA M_FIO_MED_NS_IO=NA M_FIO_RUN_NS_IO=NA M_FIO_PCT=NA M_SHARED=0
	M_WALL_S=NA M_EVENTS=NA M_LOST=NA M_STATS_LEAK=0
	bpf_stats_set 0
	[[ -z $counter ]] || read -r e0 l0 < <($counter)
	c0=$(cpu_ticks "$TOOL_PID")
	s0=$(cpu_ns "$TOOL_PID")
	t0=$(now_s)
	{ cat "$WORK/ids-background"; echo "$TOOL_PROGS"; } >"$WORK/ids-allowed" 2>/dev/null
	run_fio "$rate" "$RUNTIME" sample || return 1
	[[ $settle == 0 ]] || sleep "$settle"
	c1=$(cpu_ticks "$TOOL_PID")
	s1=$(cpu_ns "$TOOL_PID")
	t1=$(now_s)
	[[ -z $counter ]] || read -r e1 l1 < <($counter)
	[[ $(<"$BPF_STATS") == 0 ]] || M_STATS_LEAK=1
	M_IOPS=$FIO_IOPS M_MS=$FIO_MS M_FIO_NS_IO=$FIO_CPU_NS_IO M_FIO_MED_NS_IO=$FIO_MED_NS_IO
	M_FIO_RUN_NS_IO=$FIO_RUN_NS_IO M_SHARED=$FIO_SHARED
	((!FIO_SHARED)) || M_IOPS=NA M_FIO_NS_IO=NA M_FIO_MED_NS_IO=NA M_FIO_RUN_NS_IO=NA
	M_FIO_PCT=$FIO_CPU_PCT
	M_CPU_S=$(calc %.4f '(b - a) / hz' a="$c0" b="$c1" hz="$CLK_TCK")
	M_WALL_S=$(calc %.3f 'b - a' a="$t0" b="$t1")
	M_CPU_PCT=$(calc %.3f '100 * c / w' w="$M_WALL_S" c="$M_CPU_S")
	M_CPU_SCHED_S=$(calc %.6f '(b - a) / 1e9' a="$s0" b="$s1")
	if [[ -n $counter ]]; then
		M_EVENTS=$((e1 - e0))
		M_LOST=$((l1 - l0))
	fi

	bpf_stats_set 1
	[[ $(<"$BPF_STATS") == 1 ]] || return 0
	rm -f "$WORK/progs-delta"
	[[ -n ${TOOL_PROGS// /} ]] || return 0
	prog_stats "$TOOL_PROGS" >"$WORK/progs-before"
	run_fio "$rate" "$NS_RUNTIME" || return 0
	prog_stats "$TOOL_PROGS" >"$WORK/progs-after"
	# Someone else may have turned the statistics off meanwhile.
	if [[ $(<"$BPF_STATS") == 1 ]] && ((FIO_IOS > 0)); then
		prog_deltas "$WORK/progs-before" "$WORK/progs-after" "$FIO_IOS" >"$WORK/progs-delta"
		read -r _ M_NS_IO M_RUNS_IO M_NS_EST < <(grep '^TOTAL ' "$WORK/progs-delta")
		[[ $M_RUNS_IO != 0.000 ]] || M_NS_IO=NA M_RUNS_IO=NA M_NS_EST=NA
	fi
	bpf_stats_set 0
	return 0
}

RESULTS=""	# set once WORK exists
record() {	# part variant round key=value...
	local part=$1 variant=$2 round=$3 kv
	shift 3
	for kv in "$@"; do
		printf '%s\t%s\t%s\t%s\t%s\n' "$part" "$variant" "$round" "${kv%%=*}" "${kv#*=}" >>"$RESULTS"
	done
}

record_progs() {	# part variant round: the per-program lines of the last measurement
	local name ns runs
	[[ -s $WORK/progs-delta ]] || return 0
	while read -r name ns runs _; do
		[[ $name == TOTAL ]] || record "$1" "$2" "$3" "prog:$name:ns_run=$ns" "prog:$name:runs_io=$runs"
	done <"$WORK/progs-delta"
}

values() {	# part variant key -> one value per round
	awk -F'\t' -v p="$1" -v v="$2" -v k="$3" '$1 == p && $2 == v && $4 == k { print $5 }' "$RESULTS"
}

med() { values "$@" | median; }

# Median over rounds of variant's key divided by other variant's key2 in the same round.
med_ratio() {	# part variant key other key2
	awk -F'\t' -v p="$1" -v v="$2" -v k="$3" -v o="$4" -v k2="$5" '
		$1 == p && $2 == v && $4 == k && $5 != "NA" { a[$3] = $5 }
		$1 == p && $2 == o && $4 == k2 && $5 != "NA" { b[$3] = $5 }
		END { for (r in a) if ((r in b) && b[r] + 0 != 0) printf "%.6g\n", a[r] / b[r] }' \
		"$RESULTS" | median
}

# Part A's primary figure: fio's CPU per I/O under variant minus its
# reference's (the bare runs on either side of it, see record_ref), in ns,
# one line per round; key fio_ns_io (sampled, the default) or fio_run_ns_io
# (fio's JSON, over the run).
added_values() {	# variant [key]
	awk -F'\t' -v v="$1" -v k="${2:-fio_ns_io}" '
		$1 == "A" && $2 == v && $4 == k && $5 != "NA" { a[$3] = $5 }
		$1 == "A" && $2 == v && $4 == "ref_" k && $5 != "NA" { b[$3] = $5 }
		END { for (r in a) if (r in b) printf "%.1f\n", a[r] - b[r] }' "$RESULTS"
}

med_added() { added_values "$@" | median; }

# Median over rounds of variant's added CPU divided by other's in the same
# round; rounds where other added nothing (noise) are left out.
med_added_ratio() {	# variant other [key]
	awk -F'\t' -v v="$1" -v o="$2" -v k="${3:-fio_ns_io}" '
		$1 == "A" && $2 == v && $4 == k && $5 != "NA" { a[$3] = $5 }
		$1 == "A" && $2 == v && $4 == "ref_" k && $5 != "NA" { ra[$3] = $5 }
		$1 == "A" && $2 == o && $4 == k && $5 != "NA" { c[$3] = $5 }
		$1 == "A" && $2 == o && $4 == "ref_" k && $5 != "NA" { rc[$3] = $5 }
		END { for (r in a) if ((r in ra) && (r in c) && (r in rc) && c[r] - rc[r] > 0)
			printf "%.6g\n", (a[r] - ra[r]) / (c[r] - rc[r]) }' "$RESULTS" | median
}

# Variant's median added CPU over other's: the ratio judged against the
# targets.  The median of the rounds' ratios (med_added_ratio) is shown beside
# it, but divides by a small, noisy number when other is the floor.  NA if
# other's median is not above 0 (within the noise).
ratio_added() {	# variant other
	local a b
	a=$(med_added "$1") b=$(med_added "$2")
	[[ $(verdict "$b" '>' 0) == PASS ]] || { echo NA; return; }
	calc %.6g 'a / b' a="$a" b="$b"
}

# Median over rounds of variant's added CPU minus other's in the same round.
med_added_diff() {	# variant other
	awk -F'\t' -v v="$1" -v o="$2" '
		$1 == "A" && $2 == v && $4 == "fio_ns_io" && $5 != "NA" { a[$3] = $5 }
		$1 == "A" && $2 == v && $4 == "ref_fio_ns_io" && $5 != "NA" { ra[$3] = $5 }
		$1 == "A" && $2 == o && $4 == "fio_ns_io" && $5 != "NA" { c[$3] = $5 }
		$1 == "A" && $2 == o && $4 == "ref_fio_ns_io" && $5 != "NA" { rc[$3] = $5 }
		END { for (r in a) if ((r in ra) && (r in c) && (r in rc))
			printf "%.1f\n", (a[r] - ra[r]) - (c[r] - rc[r]) }' "$RESULTS" | median
}

# A variant's added CPU per I/O round by round, in round order, "-" for a
# round left out: "64 -19 - 107 …".
added_by_round() {	# variant
	awk -F'\t' -v v="$1" -v n="$ROUNDS" '
		$1 == "A" && $2 == v && $4 == "fio_ns_io" && $5 != "NA" { a[$3] = $5 }
		$1 == "A" && $2 == v && $4 == "ref_fio_ns_io" && $5 != "NA" { b[$3] = $5 }
		END { for (r = 1; r <= n; r++)
			printf "%s%s", (r > 1 ? " " : ""), ((r in a) && (r in b)) ? sprintf("%.0f", a[r] - b[r]) : "-"
		      print "" }' "$RESULTS"
}

# diskio's programs' run time per run beyond the empty program's on the same
# tracepoint (statistics on, medians): "handle_bio_queue@block_bio_queue 59, …".
beyond_empty() {	# variant
	local names name tp mine floor out=""
	names=$(awk -F'\t' -v v="$1" '$1 == "A" && $2 == v && $4 ~ /^prog:.*@.*:ns_run$/ {
		split($4, f, ":"); print f[2] }' "$RESULTS" | sort -u)
	for name in $names; do
		tp=${name#*@}
		[[ $(values A empty "prog:empty_tp_btf@$tp:ns_run") ]] || continue
		mine=$(med A "$1" "prog:$name:ns_run")
		floor=$(med A empty "prog:empty_tp_btf@$tp:ns_run")
		out+="${out:+, }${name%@*} $(fmt %.0f "$(calc %.1f 'a - b' a="$mine" b="$floor")") ns"
	done
	echo "${out:-NA}"
}

fmt() {	# format value: NA stays NA
	[[ $2 == NA || -z $2 ]] && { echo NA; return; }
	awk -v f="$1" -v v="$2" 'BEGIN { printf f "\n", v }'
}

verdict() {	# value op limit -> PASS / MISS / N/A
	[[ $1 == NA || -z $1 ]] && { echo "N/A"; return; }
	awk -v v="$1" -v l="$3" -v op="$2" 'BEGIN {
		ok = (op == "<=") ? v <= l : (op == "<") ? v < l : (op == ">=") ? v >= l : v > l
		print ok ? "PASS" : "MISS" }'
}

# ---- part A: aggregated mode ------------------------------------------------
BT_AGG='tracepoint:block:block_bio_queue { @[pid, comm, args->dev] = stats(args->nr_sector * 512); }'
# -L's counterpart: every bio timed per (pid, comm) into a histogram, the
# start, pid and name kept by (dev, sector) at queue time (completion may run
# in another task).  Only the zram disk's bios are remembered: blk-mq disks'
# bios never reach block_bio_complete, so theirs would stay in the maps and
# fill them (4096 keys), after which the zram disk's would no longer be timed.
BT_LAT_TMPL='tracepoint:block:block_bio_queue /args->dev == @DEV@/ { @start[args->dev, args->sector] = nsecs; @qpid[args->dev, args->sector] = pid; @qcomm[args->dev, args->sector] = comm; }
tracepoint:block:block_bio_complete /@start[args->dev, args->sector]/ { @lat[@qpid[args->dev, args->sector], @qcomm[args->dev, args->sector]] = hist(nsecs - @start[args->dev, args->sector]); delete(@start[args->dev, args->sector]); delete(@qpid[args->dev, args->sector]); delete(@qcomm[args->dev, args->sector]); }'
BT_LAT=""
# Only the zram disk, as diskio -D does (@DEV@: its kernel dev_t, major << 20 | minor).
BT_TRACE_TMPL='tracepoint:block:block_bio_complete /args->dev == @DEV@/ { printf("%d %s %d %d\n", pid, comm, args->sector, args->nr_sector); }'
BT_TRACE=""
# --stacks' counterpart: bytes and I/Os per process, kernel stack and user stack.
BT_STACKS_TMPL='tracepoint:block:block_bio_queue /args->dev == @DEV@/ { @[pid, comm, kstack, ustack] = sum(args->nr_sector * 512); @n[pid, comm, kstack, ustack] = count(); }'
BT_STACKS=""
# Each round: a bare run (nothing attached), then each variant followed by a
# bare run, so that a variant is measured against the mean of the bare runs
# on either side of it (a few seconds away: the machine's speed drifts).
A_VARIANTS=(diskio diskio-L empty bpftrace bpftrace-lat diskio-stacks bpftrace-stacks diskio-files)
# Another build of diskio measured in the same rounds (before/after a change).
[[ -n ${BENCH_DISKIO_BEFORE:-} ]] && A_VARIANTS+=(diskio-before)

# A bare run (nothing attached), the n-th of round r: sets BARE (its
# "iops fio_ns_io fio_med_ns_io fio_run_ns_io", NA if it failed) and records
# it as variant bare, round r.n.
run_bare() {	# round n
	BARE="NA NA NA NA"
	bpf_stats_set 0
	cp "$WORK/ids-background" "$WORK/ids-allowed"
	if run_fio 0 "$RUNTIME" sample; then
		if ((FIO_SHARED)); then
			record A bare "$1.$2" shared=1
			return 0
		fi
		record A bare "$1.$2" shared=0 iops="$FIO_IOPS" fio_ns_io="$FIO_CPU_NS_IO" \
			fio_med_ns_io="$FIO_MED_NS_IO" fio_run_ns_io="$FIO_RUN_NS_IO" fio_pct="$FIO_CPU_PCT"
		BARE="$FIO_IOPS $FIO_CPU_NS_IO $FIO_MED_NS_IO $FIO_RUN_NS_IO"
		echo "  round $1 bare: $(fmt %.0f "$FIO_IOPS") IOPS, fio $(fmt %.0f "$FIO_CPU_NS_IO") ns/I/O" \
			"(median $(fmt %.0f "$FIO_MED_NS_IO"), over the run $(fmt %.0f "$FIO_RUN_NS_IO")," \
			"on CPU $(fmt %.1f "$FIO_CPU_PCT")%)"
	fi
}

# A variant's reference: the mean of the bare runs just before and after it
# (either alone if the other failed), recorded as ref_iops, ref_fio_ns_io,
# ref_fio_med_ns_io, ref_fio_run_ns_io; and bare_step, how far apart the two
# were (fio_ns_io, % of their mean), the noise a tool run in between is
# measured against.
record_ref() {	# variant round "before" "after" (BARE values)
	local b a keys=(iops fio_ns_io fio_med_ns_io fio_run_ns_io) i
	read -r -a b <<<"$3"
	read -r -a a <<<"$4"
	for i in 0 1 2 3; do
		if [[ ${b[i]} == NA ]]; then
			record A "$1" "$2" "ref_${keys[i]}=${a[i]}"
		elif [[ ${a[i]} == NA ]]; then
			record A "$1" "$2" "ref_${keys[i]}=${b[i]}"
		else
			record A "$1" "$2" "ref_${keys[i]}=$(calc %.6g '(x + y) / 2' x="${b[i]}" y="${a[i]}")"
		fi
	done
	record A "$1" "$2" "bare_step=$(calc %.3f '100 * (x > y ? x - y : y - x) / ((x + y) / 2)' \
		x="${b[1]}" y="${a[1]}")"
}

run_a() {	# variant round
	local v=$1 r=$2 out=$WORK/a-$1-$2.out err=$WORK/a-$1-$2.err cmd name_re pattern
	case $v in
	diskio) cmd=("$DISKIO" -b 1) name_re='^handle_' pattern='^# time pid comm' ;;
	diskio-L) cmd=("$DISKIO" -b -L 1) name_re='^handle_' pattern='^# time pid comm' ;;
	diskio-before)
		# shellcheck disable=SC2206  # its words
		cmd=("$BENCH_DISKIO_BEFORE" ${BENCH_BEFORE_ARGS:--b 1}) name_re='^(handle|files)_'
		pattern='^# time pid comm' ;;
	empty)
		# shellcheck disable=SC2206  # KIND:NAME words
		cmd=("$EMPTY_LOADER" $EMPTY_HOOKS) name_re='^empty_' pattern='^empty_loader: attached' ;;
	bpftrace) cmd=(bpftrace -e "$BT_AGG") name_re='^block_bio' pattern='Attaching' ;;
	bpftrace-lat) cmd=(bpftrace -e "$BT_LAT") name_re='^block_bio' pattern='Attaching' ;;
	diskio-stacks) cmd=("$DISKIO" -b --stacks 1) name_re='^handle_' pattern='^# time pid comm' ;;
	bpftrace-stacks) cmd=(bpftrace -e "$BT_STACKS") name_re='^block_bio' pattern='Attaching' ;;
	# --files (issue 35): its own programs beside the default mode's
	diskio-files) cmd=("$DISKIO" -b --files 1) name_re='^(handle|files)_' pattern='^# time pid comm' ;;
	esac
	if ! start_tool "$out" "$err" "$pattern" "$name_re" "${cmd[@]}"; then
		record A "$v" "$r" iops=NA ns_io=NA cpu_pct=NA
		return 0
	fi
	if ! measure_under_tool 0 0; then
		stop_pid "$TOOL_PID" || true
		record A "$v" "$r" iops=NA ns_io=NA cpu_pct=NA
		return 0
	fi
	stop_pid "$TOOL_PID" || echo "diskio bench: '${cmd[*]}' exited with status $? when stopped" >&2
	record_progs A "$v" "$r"
	record A "$v" "$r" iops="$M_IOPS" ns_io="$M_NS_IO" runs_io="$M_RUNS_IO" ns_est="$M_NS_EST" \
		stats_leak="$M_STATS_LEAK" shared="$M_SHARED" fio_ns_io="$M_FIO_NS_IO" fio_med_ns_io="$M_FIO_MED_NS_IO" \
		fio_run_ns_io="$M_FIO_RUN_NS_IO" fio_pct="$M_FIO_PCT" \
		cpu_pct="$M_CPU_PCT" cpu_sched_pct="$(calc %.3f '100 * c / w' c="$M_CPU_SCHED_S" w="$M_WALL_S")"
	echo "  round $r $v: $(fmt %.0f "$M_IOPS") IOPS, fio $(fmt %.0f "$M_FIO_NS_IO") ns/I/O" \
		"(median $(fmt %.0f "$M_FIO_MED_NS_IO"), over the run $(fmt %.0f "$M_FIO_RUN_NS_IO")," \
		"on CPU $(fmt %.1f "$M_FIO_PCT")%);" \
		"$(fmt %.0f "$M_NS_IO") ns/I/O in BPF" \
		"($(fmt %.2f "$M_RUNS_IO") program runs/I/O; per-run estimate $(fmt %.0f "$M_NS_EST") ns)," \
		"tool CPU $(fmt %.2f "$M_CPU_PCT")%"
}

# "KIND:NAME" of the hooks the given programs are linked to, for the empty
# programs' loader: tp_btf for a tracing program on a raw tracepoint link,
# raw_tp for a raw tracepoint program; anything else as "?link-type/prog-type".
hooks_of_progs() {	# prog-ids...
	local ids="$*" progs
	progs=$(bpftool prog show --json)
	bpftool link show --json | if [[ $JSON == python3 ]]; then
		python3 -c '
import json, sys
ids = [int(i) for i in sys.argv[1].split()]
types = {p["id"]: p.get("type") for p in json.loads(sys.argv[2])}
for link in json.load(sys.stdin):
    if link.get("prog_id") not in ids:
        continue
    kind = {("raw_tracepoint", "tracing"): "tp_btf",
            ("raw_tracepoint", "raw_tracepoint"): "raw_tp"}.get((link.get("type"), types.get(link["prog_id"])))
    print("%s:%s" % (kind, link["tp_name"]) if kind and link.get("tp_name")
          else "?%s/%s" % (link.get("type"), types.get(link["prog_id"])))' "$ids" "$progs"
	else
		jq -r --arg ids "$ids" --argjson progs "$progs" '
			($ids | split(" ") | map(select(length > 0) | tonumber)) as $w
			| .[] | select(.prog_id as $i | $w | index($i)) | . as $l
			| ([$progs[] | select(.id == $l.prog_id) | .type][0]) as $t
			| if $l.type == "raw_tracepoint" and $t == "tracing" and $l.tp_name then "tp_btf:\($l.tp_name)"
			  elif $l.type == "raw_tracepoint" and $t == "raw_tracepoint" and $l.tp_name then "raw_tp:\($l.tp_name)"
			  else "?\($l.type)/\($t)" end'
	fi
}

# The floor's hooks: those diskio -b 1 runs at least 0.9 times per fio I/O
# (a fio run with the statistics on), as KIND:NAME.  Sets EMPTY_HOOKS, and
# EMPTY_HOOKS_FROM to say where they came from.
discover_hooks() {
	local out=$WORK/hooks.out err=$WORK/hooks.err per_io hooks h
	EMPTY_HOOKS_FROM="the hooks \`diskio -b 1\` ran at least 0.9 times per fio I/O, found at the start"
	if start_tool "$out" "$err" '^# time pid comm' '^handle_' "$DISKIO" -b 1; then
		bpf_stats_set 1
		prog_stats "$TOOL_PROGS" >"$WORK/hooks-before"
		if run_fio 0 "$NS_RUNTIME" && [[ $(<"$BPF_STATS") == 1 ]]; then
			prog_stats "$TOOL_PROGS" >"$WORK/hooks-after"
			per_io=$(awk -v n="$FIO_IOS" 'NR == FNR { rc[$1] = $4; next }
				$4 - rc[$1] >= 0.9 * n { print $1 }' "$WORK/hooks-before" "$WORK/hooks-after" |
				tr '\n' ' ')
			[[ -z ${per_io// /} ]] || hooks=$(hooks_of_progs "$per_io" | sort | tr '\n' ' ')
		fi
		bpf_stats_set 0
		stop_pid "$TOOL_PID" || true
	fi
	EMPTY_HOOKS=""
	for h in ${hooks:-}; do
		if [[ $h == \?* ]]; then
			echo "diskio bench: the floor leaves out a per-I/O program linked as $h (no empty program of that kind)" >&2
		else
			EMPTY_HOOKS+="${EMPTY_HOOKS:+ }$h"
		fi
	done
	if [[ -z $EMPTY_HOOKS ]]; then
		EMPTY_HOOKS="tp_btf:block_bio_queue tp_btf:block_bio_complete"
		EMPTY_HOOKS_FROM="diskio's per-I/O hooks on a bio-based disk as of 2026-11 (finding them at the start failed)"
		echo "diskio bench: could not find diskio's per-I/O hooks; the floor uses $EMPTY_HOOKS" >&2
	fi
}

# ---- part B: trace mode -----------------------------------------------------
# diskio's lost events: the sum of its interval lines, or its summary if larger.
diskio_lost() {
	awk '/^# interval / || /^# summary / {
			for (i = 1; i <= NF; i++) if ($i ~ /^lost=/) {
				n = substr($i, 6) + 0
				if ($2 == "interval") s += n; else t = n
			}
		}
		END { print (t > s ? t : s) + 0 }' "$1"
}

bpftrace_lost() {
	cat "$@" 2>/dev/null | awk '/Lost [0-9]+ events/ {
			for (i = 1; i < NF; i++) if ($i == "Lost") s += $(i + 1) }
		END { print s + 0 }'
}

# "events lost" so far, for measure_under_tool; B_OUT / B_LOG name the files.
diskio_counter() {
	echo "$({ grep -vc '^#' "$B_OUT" || true; }) $(diskio_lost "$B_OUT")"
}

bpftrace_counter() {
	echo "$({ grep -c '^[0-9]' "$B_OUT" 2>/dev/null || true; }) $(bpftrace_lost "$B_OUT" "$B_LOG")"
}

run_b() {	# tool load round
	local v=$1 load=$2 r=$3 rate=0 err events lost cmd pattern name_re key counter
	[[ $load == max ]] || rate=$load
	key="$v@$load"
	err=$WORK/b-$v-$load-$r.err
	case $v in
	diskio)
		# Only the zram disk: bpftrace's block_bio_complete sees nothing
		# else, while diskio would also trace other disks' requests.
		B_OUT=$WORK/diskio-trace.out B_LOG=$err EXTRA_OUT=""
		cmd=("$DISKIO" -T -b -D "zram$ZRAM_N" 1) pattern='^# time_s' name_re='^handle_'
		counter=diskio_counter ;;
	bpftrace)
		B_OUT=$WORK/bpftrace-trace.out B_LOG=$WORK/bpftrace-trace.log EXTRA_OUT=$B_OUT
		rm -f "$B_OUT"
		cmd=(bpftrace -o "$B_OUT" -e "$BT_TRACE") pattern='Attaching' name_re='^block_bio'
		counter=bpftrace_counter ;;
	esac
	if [[ $v == diskio ]]; then
		start_tool "$B_OUT" "$err" "$pattern" "$name_re" "${cmd[@]}" || TOOL_PID=""
	else
		start_tool "$B_LOG" "$err" "$pattern" "$name_re" "${cmd[@]}" || TOOL_PID=""
	fi
	EXTRA_OUT=""
	if [[ -z $TOOL_PID ]]; then
		record B "$key" "$r" iops=NA
		return 0
	fi
	if ! measure_under_tool "$rate" 1.5 "$counter"; then
		stop_pid "$TOOL_PID" || true
		record B "$key" "$r" iops=NA
		return 0
	fi
	stop_pid "$TOOL_PID" || echo "diskio bench: '${cmd[*]}' exited with status $? when stopped" >&2
	events=$M_EVENTS lost=$M_LOST
	local eps cpu_us
	eps=$(calc %.0f 'e * 1000 / ms' e="$events" ms="$M_MS")
	cpu_us=$(calc %.3f 'c * 1e6 / e' c="$M_CPU_S" e="$events")
	record_progs B "$key" "$r"
	record B "$key" "$r" iops="$M_IOPS" events="$events" lost="$lost" eps="$eps" stats_leak="$M_STATS_LEAK" \
		ns_est="$M_NS_EST" runs_io="$M_RUNS_IO" \
		ns_ev="$M_NS_IO" cpu_us_ev="$cpu_us" \
		cpu_sched_us_ev="$(calc %.3f 'c * 1e6 / e' c="$M_CPU_SCHED_S" e="$events")" \
		total_us_ev="$(calc %.3f 'k / 1000 + u' k="$M_NS_IO" u="$cpu_us")"
	echo "  round $r $v ($load): $(fmt %.0f "$M_IOPS") IOPS, $events events ($eps/s), lost $lost," \
		"$(fmt %.0f "$M_NS_IO") ns/event in BPF, $(fmt %.2f "$cpu_us") µs/event user+sys"
}

trace_available() {
	local out=$WORK/trace-probe.out rc=0
	timeout 60 "$DISKIO" -T -b 0.2 1 >"$out" 2>"$WORK/trace-probe.err" || rc=$?
	[[ $rc -eq 0 ]] && grep -q '^# time_s' "$out" && grep -q '^# summary' "$out"
}

# ---- main -------------------------------------------------------------------
RESULTS=$WORK/results.tsv
: >"$RESULTS"

if [[ ! -d /sys/kernel/tracing/events ]]; then
	mount -t tracefs nodev /sys/kernel/tracing ||
		die "cannot mount tracefs on /sys/kernel/tracing (bpftrace needs it)"
	MOUNTED_TRACEFS=1
fi
OLD_BPF_STATS=$(<"$BPF_STATS") || die "no $BPF_STATS: this kernel cannot time BPF programs"
bpf_stats_set 1
[[ $(<"$BPF_STATS") == 1 ]] || die "cannot enable kernel.bpf_stats_enabled"
bpf_stats_set 0

started=$(now_s)
echo "diskio bench: $(uname -r), $(nproc) CPUs, $(fio --version), bpftrace $(bpftrace --version | awk '{ print $2 }')"
setup_zram
IFS=: read -r zmaj zmin <"/sys/block/zram$ZRAM_N/dev"
BT_TRACE=${BT_TRACE_TMPL/@DEV@/$(((zmaj << 20) | zmin))}
BT_STACKS=${BT_STACKS_TMPL/@DEV@/$(((zmaj << 20) | zmin))}
BT_LAT=${BT_LAT_TMPL//@DEV@/$(((zmaj << 20) | zmin))}
echo "diskio bench: $ZRAM (1 GiB, filled); fio 4k randread O_DIRECT psync, ${RUNTIME}s per run"

LOAD_BEFORE_A="" LOAD_AFTER_A=""
if part A; then
	PIN=1
	LOAD_BEFORE_A=$(cut -d' ' -f1-3 /proc/loadavg)
	# BPF programs loaded before part A: any other appearing during a measured
	# run (not the tool's) is someone else's, and the run is left out.
	all_prog_ids >"$WORK/ids-background"
	echo "== part A: aggregated mode, $ROUNDS rounds; fio on CPU $FIO_CPU, the tool on CPU $TOOL_CPU"
	if [[ -n $EMPTY_HOOKS ]]; then
		EMPTY_HOOKS_FROM="BENCH_EMPTY_HOOKS"
	else
		discover_hooks
	fi
	echo "  empty programs on: $EMPTY_HOOKS ($EMPTY_HOOKS_FROM)"
	nvar=${#A_VARIANTS[@]}
	for ((r = 1; r <= ROUNDS; r++)); do
		run_bare "$r" 0
		for ((k = 0; k < nvar; k++)); do
			v=${A_VARIANTS[$(((r - 1 + k) % nvar))]}
			before=$BARE
			run_a "$v" "$r"
			run_bare "$r" $((k + 1))
			record_ref "$v" "$r" "$before" "$BARE"
		done
	done
	LOAD_AFTER_A=$(cut -d' ' -f1-3 /proc/loadavg)
	PIN=0
fi

B_LOADS=(max)
((TRACE_IOPS > 0)) && B_LOADS+=("$TRACE_IOPS")
TRACE_OK=0
if ! part B; then
	TRACE_OK=-1
elif ((TRACE_ROUNDS > 0)) && trace_available; then
	TRACE_OK=1
	echo "== part B: trace mode, $TRACE_ROUNDS rounds, load: ${B_LOADS[*]} IOPS"
	B_TOOLS=(diskio bpftrace)
	for ((r = 1; r <= TRACE_ROUNDS; r++)); do
		for load in "${B_LOADS[@]}"; do
			for ((k = 0; k < 2; k++)); do
				run_b "${B_TOOLS[$(((r - 1 + k) % 2))]}" "$load" "$r"
			done
			# fio alone: the most events a tool that cost nothing would see.
			if run_fio "$([[ $load == max ]] && echo 0 || echo "$load")" "$RUNTIME"; then
				record B "bare@$load" "$r" iops="$FIO_IOPS"
				echo "  round $r bare ($load): $(fmt %.0f "$FIO_IOPS") IOPS"
			fi
		done
	done
else
	echo "== part B: trace mode not available ($DISKIO_NAME -T: $(tail -1 "$WORK/trace-probe.err" 2>/dev/null))"
fi

# ---- report -----------------------------------------------------------------
leak_note() {	# part
	local n
	n=$(awk -F'\t' -v p="$1" '$1 == p && $4 == "stats_leak" && $5 == 1' "$RESULTS" | wc -l)
	((n == 0)) || printf '%s %s\n\n' "Warning: in $n run(s) something else turned" \
		"kernel.bpf_stats_enabled on during the IOPS measurement: those IOPS include its timing overhead."
}

# Part A's runs left out because another session's BPF programs or statistics
# were there (see run_fio).
shared_note() {
	local n total
	n=$(awk -F'\t' '$1 == "A" && $4 == "shared" && $5 == 1' "$RESULTS" | wc -l)
	total=$(awk -F'\t' '$1 == "A" && $4 == "shared"' "$RESULTS" | wc -l)
	((n == 0)) || echo "Left out: $n of $total measured runs, during which another BPF program" \
		"was loaded or kernel.bpf_stats_enabled was on (someone else's tools may have run on" \
		"fio's I/O); a variant's round counts if its run and one of its bare runs are left."
}

prog_breakdown() {	# part variant: "name ns/run × runs/I/O, ..." (medians)
	local names name out=""
	names=$(awk -F'\t' -v p="$1" -v v="$2" '$1 == p && $2 == v && $4 ~ /^prog:.*:ns_run$/ {
		split($4, f, ":"); print f[2] }' "$RESULTS" | sort -u)
	for name in $names; do
		out+="${out:+, }$name $(fmt %.0f "$(med "$1" "$2" "prog:$name:ns_run")") ns × $(fmt %.2f "$(med "$1" "$2" "prog:$name:runs_io")")"
	done
	echo "${out:-NA}"
}

variant_label() {	# variant -> its name in the report
	case $1 in
	bare) echo "bare runs (nothing attached)" ;;
	diskio) echo "\`diskio -b 1\`" ;;
	diskio-L) echo "\`diskio -b -L 1\`" ;;
	diskio-before) echo "\`diskio ${BENCH_BEFORE_ARGS:--b 1}\`, the build in BENCH_DISKIO_BEFORE" ;;
	empty) echo "empty programs on $EMPTY_HOOKS" ;;
	bpftrace) echo "bpftrace \`@[pid, comm, args->dev] = stats(args->nr_sector * 512)\` on block_bio_queue" ;;
	bpftrace-lat) echo "bpftrace latency one-liner: \`@lat[pid, comm] = hist(nsecs - @start[dev, sector])\`" ;;
	diskio-stacks) echo "\`diskio -b --stacks 1\`" ;;
	diskio-files) echo "\`diskio -b --files 1\`" ;;
	bpftrace-stacks) echo "bpftrace \`@[pid, comm, kstack, ustack] = sum(…); @n[…] = count()\` on block_bio_queue of the zram disk" ;;
	esac
}

counterpart() {	# variant -> the bpftrace variant doing its job, or nothing
	case $1 in
	diskio | diskio-before | empty | diskio-files) echo bpftrace ;;
	diskio-L) echo bpftrace-lat ;;
	diskio-stacks) echo bpftrace-stacks ;;
	esac
}

# How noisy part A was: how far apart the two bare runs around a variant
# were (median and largest, % of their mean), the bare runs' fio ns per I/O
# over the whole part (min, max, spread of max - min over the median), and
# the lowest share of a run fio spent on its CPU (below 100%: something else
# ran on fio's CPU).
noise_note() {
	local lo hi mid spread onc step_med step_max
	read -r lo hi < <(values A bare fio_ns_io | { grep -v '^NA$' || true; } | sort -g |
		awk 'NR == 1 { lo = $1 } { hi = $1 } END { print (NR ? lo : "NA"), (NR ? hi : "NA") }')
	mid=$(med A bare fio_ns_io)
	spread=$(calc %.1f '100 * (h - l) / m' h="$hi" l="$lo" m="$mid")
	onc=$(awk -F'\t' '$1 == "A" && $4 == "fio_pct" && $5 != "NA" { if (!n++ || $5 < m) m = $5 }
		END { print n ? m : "NA" }' "$RESULTS")
	step_med=$(awk -F'\t' '$1 == "A" && $4 == "bare_step" { print $5 }' "$RESULTS" | median)
	step_max=$(awk -F'\t' '$1 == "A" && $4 == "bare_step" && $5 != "NA" { if ($5 > m) m = $5; n++ }
		END { print n ? m : "NA" }' "$RESULTS")
	echo "Noise: the bare runs on either side of a variant differed by $(fmt %.1f "$step_med")% of" \
		"fio's CPU per I/O (median; $(fmt %.1f "$step_max")% at most); over the whole part the bare" \
		"runs went from $(fmt %.0f "$lo") to $(fmt %.0f "$hi") ns per I/O (a spread of $spread% of" \
		"the median); fio was on its CPU at least $(fmt %.1f "$onc")% of every run's time; load" \
		"average $LOAD_BEFORE_A before part A, $LOAD_AFTER_A after."
	if [[ $(verdict "$step_med" '>' 3) == PASS || $(verdict "$onc" '<' 90) == PASS ]]; then
		echo "**Heavy noise**: other work shared the machine (bare runs a few seconds apart" \
			"differing by more than 3%, or fio off its CPU more than 10% of a run): the floor" \
			"(a few % of fio's CPU) and the ratios to it are within the noise; run again on a" \
			"quiet machine or with more rounds (BENCH_ROUNDS)."
	fi
}

report_a() {
	local v label o added added_run ratio_o ratio_e iops kept kept_cpu ns nsr runs est estr cpu
	local d_add e_add b_add l_add bl_add
	echo "## A. Aggregated mode ($ROUNDS rounds, variants interleaved)"
	echo
	echo "What the workload pays: fio pinned to CPU $FIO_CPU, the tool to CPU $TOOL_CPU," \
		"kernel.bpf_stats_enabled=0; fio's own CPU time (user + system) per completed I/O under" \
		"the tool, minus the mean of the bare runs (nothing attached) just before and after it in" \
		"the round, median over rounds (each round: a bare run, then each variant, its order" \
		"rotating, followed by a bare run; the machine's speed drifts over tens of seconds, so a" \
		"variant is compared with the bare runs a few seconds away). On zram the whole" \
		"I/O (submission, decompression, completion) runs in fio's thread, so this counts every" \
		"program the I/O runs, the tracepoints' dispatch and the cache lines the programs touch." \
		"fio's CPU time per I/O is the 25th percentile over the run's ${CPU_INTERVAL_MS} ms" \
		"intervals (bench/fio_cpu.py reads the job's CPU clock and its read calls): other work on" \
		"the machine only ever slows fio, in bursts, so this is its cost in the quieter moments;" \
		"the column \"by the median, over the run\" gives the added CPU by the intervals' median" \
		"and over the whole run (fio's JSON: (usr_cpu + sys_cpu) / 100 × job_runtime /" \
		"total_ios), which agree with it when the machine is quiet." \
		"Ratios are those of the medians. The empty programs (bench/empty.bpf.c, the same program type on" \
		"each hook) are the floor: what the hooks cost with programs that return at once; their" \
		"hooks: $EMPTY_HOOKS_FROM."
	echo
	d_add=$(med_added diskio) e_add=$(med_added empty) b_add=$(med_added bpftrace)
	l_add=$(med_added diskio-L) bl_add=$(med_added bpftrace-lat)
	echo "**default: $(fmt %.0f "$d_add") ns added, empty programs $(fmt %.0f "$e_add") ns," \
		"bpftrace $(fmt %.0f "$b_add") ns**; **-L: $(fmt %.0f "$l_add") ns added, bpftrace" \
		"latency one-liner $(fmt %.0f "$bl_add") ns** (per I/O, medians)."
	echo
	echo "| variant | added CPU per I/O, ns | × bpftrace's counterpart | × empty programs' | by the median, over the run, ns | IOPS kept per CPU second | IOPS kept | median IOPS | fio CPU per I/O, ns |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for v in bare "${A_VARIANTS[@]}"; do
		label=$(variant_label "$v")
		iops=$(med A "$v" iops)
		if [[ $v == bare ]]; then
			added="-" ratio_o="-" ratio_e="-" kept="1" kept_cpu="1" added_run="-"
		else
			added=$(fmt %.0f "$(med_added "$v")")
			o=$(counterpart "$v")
			ratio_o="-" ratio_e="-"
			[[ -z $o ]] || ratio_o=$(fmt %.2f "$(ratio_added "$v" "$o")")
			[[ $v == empty ]] || ratio_e=$(fmt %.2f "$(ratio_added "$v" empty)")
			kept=$(fmt %.3f "$(med_ratio A "$v" iops "$v" ref_iops)")
			kept_cpu=$(fmt %.3f "$(med_ratio A "$v" ref_fio_ns_io "$v" fio_ns_io)")
			added_run="$(fmt %.0f "$(med_added "$v" fio_med_ns_io)"), $(fmt %.0f \
				"$(med_added "$v" fio_run_ns_io)")"
		fi
		echo "| $label | $added | $ratio_o | $ratio_e | $added_run | $kept_cpu | $kept | $(fmt %.0f "$iops") |" \
			"$(fmt %.0f "$(med A "$v" fio_ns_io)") |"
	done
	echo
	echo "fio is bound by its CPU here (psync on zram never waits), so its IOPS per second on" \
		"its CPU are 10⁹ / its CPU ns per I/O: \"IOPS kept per CPU second\" is the bare runs'" \
		"CPU per I/O over the variant's. \"IOPS kept\" is the wall clock's IOPS over the bare" \
		"runs', which also moves with the time other work took fio's CPU."
	echo
	echo "Added CPU per I/O round by round (ns): default $(added_by_round diskio); empty programs" \
		"$(added_by_round empty); bpftrace $(added_by_round bpftrace); -L $(added_by_round diskio-L);" \
		"bpftrace latency one-liner $(added_by_round bpftrace-lat)."
	echo
	noise_note
	shared_note
	echo
	echo "### Targets"
	echo
	local d_b d_e l_bl d_kept s_bs
	d_b=$(ratio_added diskio bpftrace)
	d_e=$(ratio_added diskio empty)
	l_bl=$(ratio_added diskio-L bpftrace-lat)
	s_bs=$(ratio_added diskio-stacks bpftrace-stacks)
	d_kept=$(med_ratio A diskio ref_fio_ns_io diskio fio_ns_io)
	cpu=$(med A diskio cpu_pct)
	echo "Ratios of the medians of the added CPU; in brackets the median of the rounds' own ratios" \
		"(far from it: the rounds disagree, see the noise above)."
	echo
	echo "- $(verdict "$d_b" '<=' 0.3): \`diskio -b 1\` added CPU per I/O ≤ 0.3 × bpftrace's:" \
		"$(fmt %.2f "$d_b") × ($(fmt %.2f "$(med_added_ratio diskio bpftrace)") ×)"
	echo "- $(verdict "$d_e" '<=' 2): \`diskio -b 1\` added CPU per I/O ≤ 2 × the empty programs':" \
		"$(fmt %.2f "$d_e") × ($(fmt %.2f "$(med_added_ratio diskio empty)") ×)$([[ $d_e != NA ]] ||
			echo "; the empty programs added nothing above the noise")"
	echo "- $(verdict "$l_bl" '<=' 0.3): \`diskio -b -L 1\` added CPU per I/O ≤ 0.3 × the bpftrace" \
		"latency one-liner's: $(fmt %.2f "$l_bl") × ($(fmt %.2f "$(med_added_ratio diskio-L bpftrace-lat)") ×)"
	echo "- $(verdict "$d_kept" '>=' 0.95): \`diskio -b 1\` IOPS ≥ 0.95 × the bare run's:" \
		"$(fmt %.3f "$d_kept") × per second on fio's CPU (wall clock:" \
		"$(fmt %.3f "$(med_ratio A diskio iops diskio ref_iops)") ×)"
	echo "- $(verdict "$s_bs" '<=' 1.0): \`diskio -b --stacks 1\` added CPU per I/O ≤ 1.0 × bpftrace's" \
		"keyed by kstack and ustack: $(fmt %.2f "$s_bs") × ($(fmt %.2f \
		"$(med_added_ratio diskio-stacks bpftrace-stacks)") ×)"
	echo "- $(verdict "$cpu" '<' 1.0): \`diskio -b 1\` CPU < 1% of a core: $(fmt %.2f "$cpu")%"
	echo "- \`diskio -b --files 1\` added CPU per I/O (issue 35; no target: its programs run only" \
		"with it, the default mode's are unchanged): $(fmt %.2f "$(ratio_added diskio-files diskio)") ×" \
		"the default mode's ($(fmt %.2f "$(med_added_ratio diskio-files diskio)") ×); its" \
		"programs' run time per I/O (per-run estimate, below):" \
		"$(fmt %.2f "$(med_ratio A diskio-files ns_est diskio ns_est)") × the default mode's"
	echo
	echo "### Diagnostic: BPF run time per I/O (kernel.bpf_stats_enabled=1)"
	echo
	echo "| variant | median kernel ns per I/O | ns / counterpart's | BPF runs per I/O | per-run estimate, ns per I/O | estimate / counterpart's |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	for v in "${A_VARIANTS[@]}"; do
		o=$(counterpart "$v")
		ns=$(fmt %.0f "$(med A "$v" ns_io)")
		nsr="-" estr="-"
		if [[ -n $o ]]; then
			nsr=$(fmt %.2f "$(med_ratio A "$v" ns_io "$o" ns_io)")
			estr=$(fmt %.2f "$(med_ratio A "$v" ns_est "$o" ns_est)")
		fi
		runs=$(fmt %.2f "$(med A "$v" runs_io)")
		est=$(fmt %.0f "$(med A "$v" ns_est)")
		echo "| $(variant_label "$v") | $ns | $nsr | $runs | $est | $estr |"
	done
	echo
	echo "Per program (median ns per run × runs per fio I/O):"
	echo
	for v in diskio diskio-L empty bpftrace bpftrace-lat diskio-stacks bpftrace-stacks diskio-files; do
		echo "- $v: $(prog_breakdown A "$v")"
	done
	echo
	echo "Kernel ns per I/O: run_time_ns of the tool's own programs (found through" \
		"/proc/PID/fdinfo, read with bpftool) / I/Os fio completed, in a second ${NS_RUNTIME} s" \
		"run under the same tool instance with kernel.bpf_stats_enabled=1. The statistics charge" \
		"every program run two clock reads and leave out the tracepoint's dispatch, so this is" \
		"not what the workload pays; it says which program the cost is in. Other disks' I/O" \
		"meanwhile adds to it; the per-run estimate does not: it counts every program that ran at" \
		"least 0.9 times per fio I/O once, at its average ns per run."
	echo
	echo "Beyond the floor: \`diskio -b 1\` costs fio $(fmt %.0f "$(med_added_diff diskio empty)") ns" \
		"per I/O more than the empty programs (median of the rounds' differences), \`-b -L 1\`" \
		"$(fmt %.0f "$(med_added_diff diskio-L empty)") ns; their programs' run time beyond the" \
		"empty program's on the same tracepoint, per run (statistics on, which cancel): default" \
		"$(beyond_empty diskio); -L $(beyond_empty diskio-L). Where the first is larger than the" \
		"sum of the second, the difference is cache misses the programs cause or suffer, not" \
		"their instructions."
	echo
	echo "diskio's own CPU (user+sys from /proc/PID/stat, % of one core over the run):" \
		"\`-b 1\` $(fmt %.2f "$cpu")%," \
		"\`-b -L 1\` $(fmt %.2f "$(med A diskio-L cpu_pct)")%" \
		"(scheduler's ns clock, /proc/PID/schedstat: $(fmt %.3f "$(med A diskio cpu_sched_pct)")% and" \
		"$(fmt %.3f "$(med A diskio-L cpu_sched_pct)")%; /proc/PID/stat counts" \
		"$CLK_TCK ticks/s, so ±$(calc %.2f '100 / (hz * t)' hz="$CLK_TCK" t="$RUNTIME")% per run)."
}

report() {
	echo "# diskio benchmark"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), kernel $(uname -r), $(nproc) CPUs, $(fio --version)," \
		"bpftrace $(bpftrace --version | awk '{ print $2 }'). Load: fio 4 KiB random reads," \
		"O_DIRECT, psync, 1 job, ${RUNTIME} s per run, on a filled 1 GiB zram disk." \
		"Medians over rounds; ratios are taken within each round, then their median."
	echo
	if part A; then
		report_a
		echo
	fi
	report_b
}

report_b() {
	local v
	if ((TRACE_OK < 0)); then
		echo "## B. Trace mode: not run (BENCH_PARTS=$PARTS)"
		return 0
	fi
	echo "## B. Trace mode"
	echo
	if ((!TRACE_OK)); then
		echo "not available: \`$DISKIO_NAME -T -b 1\` did not run ($(tail -1 "$WORK/trace-probe.err" 2>/dev/null || true))."
		return 0
	fi
	echo "\`diskio -T -b -D zram$ZRAM_N 1 > /dev/shm/…\` against bpftrace \`$BT_TRACE\`" \
		"writing to /dev/shm (\`-o\`), $TRACE_ROUNDS rounds, interleaved. Both keep to the zram" \
		"disk: block_bio_complete also fires for other bio-based disks, and diskio would also" \
		"print other disks' requests. Events = lines the tool wrote for the ${RUNTIME} s fio run" \
		"(kernel.bpf_stats_enabled=0); lost = what the tool reported lost (diskio's lost=" \
		"counters, bpftrace's \"Lost N events\"); user+sys per event from /proc/PID/stat over" \
		"that run; kernel ns per event = BPF run_time_ns / I/Os fio completed in a second" \
		"${NS_RUNTIME} s run with kernel.bpf_stats_enabled=1 (one event per I/O)."
	echo
	echo "| tool | fio load | median fio IOPS | median events/s written | events lost (all rounds) | kernel ns per event | user+sys µs per event | total µs per event |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	local load key lost_all
	for load in "${B_LOADS[@]}"; do
		echo "| fio alone | $([[ $load == max ]] && echo "max" || echo "$load IOPS") |" \
			"$(fmt %.0f "$(med B "bare@$load" iops)") | - | - | - | - | - |"
		for v in diskio bpftrace; do
			key="$v@$load"
			lost_all=$(values B "$key" lost | awk '$1 != "NA" { s += $1; n++ } END { print n ? s : "NA" }')
			echo "| $v | $([[ $load == max ]] && echo "max" || echo "$load IOPS") |" \
				"$(fmt %.0f "$(med B "$key" iops)") | $(fmt %.0f "$(med B "$key" eps)") |" \
				"$lost_all | $(fmt %.0f "$(med B "$key" ns_ev)") |" \
				"$(fmt %.3f "$(med B "$key" cpu_us_ev)") | $(fmt %.3f "$(med B "$key" total_us_ev)") |"
		done
	done
	echo
	leak_note B
	echo "Per program at full speed (median ns per run × runs per fio I/O):"
	echo
	for v in diskio bpftrace; do
		echo "- $v: $(prog_breakdown B "$v@max")"
	done
	echo
	# Events/s kept without loss: a round that lost events does not count for diskio.
	local eps_ratio d_lost d_total bt_lost
	d_lost=$(values B diskio@max lost | awk '$1 != "NA" { s += $1 } END { print s + 0 }')
	bt_lost=$(values B bpftrace@max lost | awk '$1 != "NA" { s += $1 } END { print s + 0 }')
	eps_ratio=$(med_ratio B diskio@max eps bpftrace@max eps)
	d_total=$(med B diskio@max total_us_ev)
	# fio's own rate bounds what either tool can write: a tool that cost
	# nothing would reach the bare run's IOPS.
	local ceiling d_bare
	ceiling=$(med_ratio B bare@max iops bpftrace@max eps)
	d_bare=$(med_ratio B diskio@max eps bare@max iops)
	echo "fio alone at full speed: $(fmt %.0f "$(med B bare@max iops)") IOPS. Each event is one" \
		"fio I/O, so no tool writes more events a second than fio does alone: a tool that cost" \
		"nothing would reach $(fmt %.2f "$ceiling") × bpftrace's events/s on this load (the" \
		"ceiling of the target's ratio); diskio kept $(fmt %.3f "$d_bare") of fio's bare rate" \
		"(median of the rounds' ratios)."
	echo
	echo "### Targets"
	echo
	if [[ $d_lost == 0 ]]; then
		echo "- $(verdict "$eps_ratio" '>=' 3): diskio events/s kept without loss ≥ 3 × bpftrace's" \
			"(full speed): $(fmt %.2f "$eps_ratio") × (diskio lost 0; bpftrace lost $bt_lost)$(
			[[ $(verdict "$ceiling" '>=' 3) != MISS ]] ||
			echo "; out of reach on this load: fio alone is $(fmt %.2f "$ceiling") × bpftrace's")"
	else
		echo "- MISS: diskio events/s kept without loss ≥ 3 × bpftrace's (full speed): diskio lost" \
			"$d_lost events (events/s written: $(fmt %.2f "$eps_ratio") × bpftrace's, which lost $bt_lost)"
	fi
	echo "- $(verdict "$d_total" '<' 2): diskio total cost (kernel + user) < 2 µs per event" \
		"(full speed): $(fmt %.3f "$d_total") µs"
}

mkdir -p "$(dirname "$OUT_MD")"
echo
report | tee "$OUT_MD"
echo
echo "diskio bench: done in $(calc %.0f 'b - a' a="$started" b="$(now_s)") s; report in $OUT_MD"

# The benchmark could not run at all: no baseline or no diskio measurement.
! part A || [[ $(med A bare iops) != NA && $(med A diskio iops) != NA ]] ||
	die "no usable baseline or diskio measurement (see the messages above)"
exit 0
