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
# Part A, aggregated mode: baseline (nothing attached), `diskio -b 1`,
#   `diskio -b -L 1` and a bpftrace one-liner doing the same aggregation on
#   block_bio_queue.  Reported: fio IOPS, in-kernel BPF time per I/O
#   (run_time_ns of the tool's own programs with kernel.bpf_stats_enabled=1,
#   in a second, shorter fio run: the statistics themselves cost IOPS), and
#   diskio's own user+sys CPU.
#   Also --stacks: `diskio -b --stacks 1` against bpftrace keyed by kstack and
#   ustack on block_bio_queue of the zram disk (a sum and a count per key).
# Part B, trace mode: `diskio -T -b -D zramN 1` against a bpftrace printf per
#   I/O on block_bio_complete for the same disk, both writing to /dev/shm, at
#   full fio speed (and, with BENCH_TRACE_IOPS, at a fixed rate): events/s
#   written, events lost, kernel and user cost per event.
#
# The machine is noisy: variants are interleaved within every round (their
# order rotates), ratios are taken within a round, and medians are reported.
# Missing a target is reported, not an error: exit status is 0 unless the
# benchmark itself could not run.
#
# Environment:
#   BENCH_ROUNDS=5          rounds of part A (each runs every variant once)
#   BENCH_RUNTIME=5         seconds of fio per run
#   BENCH_NS_RUNTIME=2      seconds of the fio run that times BPF programs
#   BENCH_TRACE_ROUNDS=3    rounds of part B
#   BENCH_TRACE_IOPS=0      also run part B at this fixed rate (0: full speed only)
#   DISKIO=./diskio         the binary under test
#   BENCH_DISKIO_BEFORE=    another build, run as a fifth variant of part A
#   BENCH_KEEP=1            keep the work directory (tools' output) in /dev/shm
# shellcheck disable=SC2317  # functions called through traps and variables
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

ROUNDS=${BENCH_ROUNDS:-5}
RUNTIME=${BENCH_RUNTIME:-5}
TRACE_ROUNDS=${BENCH_TRACE_ROUNDS:-3}
TRACE_IOPS=${BENCH_TRACE_IOPS:-0}
NS_RUNTIME=${BENCH_NS_RUNTIME:-2}
DISKIO=${DISKIO:-./diskio}
OUT_MD=.output/bench.md
ATTACH_TIMEOUT_S=60	# bpftrace takes seconds to start on a loaded machine
STOP_TIMEOUT_S=15

die() {
	echo "diskio bench: $*" >&2
	exit 1
}

for var in ROUNDS RUNTIME NS_RUNTIME TRACE_ROUNDS TRACE_IOPS; do
	[[ ${!var} =~ ^[0-9]+$ ]] || die "BENCH_$var must be a whole number, not '${!var}'"
done
((ROUNDS >= 1 && RUNTIME >= 1 && NS_RUNTIME >= 1)) ||
	die "BENCH_ROUNDS, BENCH_RUNTIME and BENCH_NS_RUNTIME must be at least 1"

# ---- prerequisites ----------------------------------------------------------
[[ $(id -u) -eq 0 ]] || die "needs root (zram devices, BPF, sysctl): run it with sudo"
for tool in fio bpftrace bpftool awk; do
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
	local kept=()
	for i in "${BG_PIDS[@]}"; do [[ $i == "$pid" ]] || kept+=("$i"); done
	BG_PIDS=("${kept[@]}")
	return "$rc"
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

# fio's JSON -> "iops total_ios runtime_ms" of jobs[0].read
fio_stats() {
	if [[ $JSON == python3 ]]; then
		python3 - "$1" <<-'EOF'
		import json, sys
		text = open(sys.argv[1]).read()
		r = json.loads(text[text.index("{"):])["jobs"][0]["read"]
		print(r["iops"], r["total_ios"], r["runtime"])
		EOF
	else
		sed -n '/^{/,$p' "$1" | jq -r '.jobs[0].read | "\(.iops) \(.total_ios) \(.runtime)"'
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

# "id name run_time_ns run_cnt", one line per given program id (bpftool prog show).
prog_stats() {
	local ids="$*"
	bpftool prog show --json | if [[ $JSON == python3 ]]; then
		python3 -c '
import json, sys
ids = set(int(i) for i in sys.argv[1].split())
for p in json.load(sys.stdin):
    if p["id"] in ids:
        print(p["id"], p.get("name") or "?", p.get("run_time_ns") or 0, p.get("run_cnt") or 0)' "$ids"
	else
		jq -r --arg ids "$ids" '($ids | split(" ") | map(select(length > 0) | tonumber)) as $w
			| .[] | select(.id as $i | $w | index($i))
			| "\(.id) \(.name // "?") \(.run_time_ns // 0) \(.run_cnt // 0)"'
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

# fio on the zram disk; sets FIO_IOPS FIO_IOS FIO_MS; non-zero if fio failed.
run_fio() {	# rate_iops (0: as fast as it goes) seconds
	local rate_opt=()
	[[ $1 -gt 0 ]] && rate_opt=(--rate_iops="$1")
	FIO_IOPS=NA FIO_IOS=NA FIO_MS=NA
	if ! fio --name=randread --filename="$ZRAM" --rw=randread --bs=4k --direct=1 \
		--ioengine=psync --numjobs=1 --time_based --runtime="$2" \
		--norandommap --randrepeat=0 "${rate_opt[@]}" \
		--output-format=json --output="$WORK/fio.json" >"$WORK/fio.log" 2>&1; then
		echo "diskio bench: fio failed: $(tail -3 "$WORK/fio.log")" >&2
		return 1
	fi
	read -r FIO_IOPS FIO_IOS FIO_MS < <(fio_stats "$WORK/fio.json") || return 1
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
	"$@" >"$out" 2>"$err" &
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
#     M_IOPS M_MS M_CPU_S (user+sys s) M_CPU_PCT M_CPU_SCHED_S M_WALL_S, and
#     M_EVENTS M_LOST from the counter function given (trace mode), read
#     settle_s after fio ends so that the tool has drained and printed;
#     M_STATS_LEAK=1 if someone else had the statistics on meanwhile;
#  2. kernel.bpf_stats_enabled=1 for NS_RUNTIME s: M_NS_IO M_RUNS_IO, the
#     run time and runs of the tool's programs per I/O fio completed, M_NS_EST
#     (see prog_deltas) and $WORK/progs-delta, per program.
measure_under_tool() {	# rate settle_s [counter-function]
	local rate=$1 settle=$2 counter=${3:-} t0 t1 c0 c1 s0 s1 e0 e1 l0 l1
	M_IOPS=NA M_MS=NA M_NS_IO=NA M_RUNS_IO=NA M_NS_EST=NA M_CPU_PCT=NA M_CPU_S=NA M_CPU_SCHED_S=NA
	M_WALL_S=NA M_EVENTS=NA M_LOST=NA M_STATS_LEAK=0
	bpf_stats_set 0
	[[ -z $counter ]] || read -r e0 l0 < <($counter)
	c0=$(cpu_ticks "$TOOL_PID")
	s0=$(cpu_ns "$TOOL_PID")
	t0=$(now_s)
	run_fio "$rate" "$RUNTIME" || return 1
	[[ $settle == 0 ]] || sleep "$settle"
	c1=$(cpu_ticks "$TOOL_PID")
	s1=$(cpu_ns "$TOOL_PID")
	t1=$(now_s)
	[[ -z $counter ]] || read -r e1 l1 < <($counter)
	[[ $(<"$BPF_STATS") == 0 ]] || M_STATS_LEAK=1
	M_IOPS=$FIO_IOPS M_MS=$FIO_MS
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
# Only the zram disk, as diskio -D does (@DEV@: its kernel dev_t, major << 20 | minor).
BT_TRACE_TMPL='tracepoint:block:block_bio_complete /args->dev == @DEV@/ { printf("%d %s %d %d\n", pid, comm, args->sector, args->nr_sector); }'
BT_TRACE=""
# --stacks' counterpart: bytes and I/Os per process, kernel stack and user stack.
BT_STACKS_TMPL='tracepoint:block:block_bio_queue /args->dev == @DEV@/ { @[pid, comm, kstack, ustack] = sum(args->nr_sector * 512); @n[pid, comm, kstack, ustack] = count(); }'
BT_STACKS=""
A_VARIANTS=(baseline diskio diskio-L bpftrace diskio-stacks bpftrace-stacks)
# Another build of diskio measured in the same rounds (before/after a change).
[[ -n ${BENCH_DISKIO_BEFORE:-} ]] && A_VARIANTS+=(diskio-before)

run_a() {	# variant round
	local v=$1 r=$2 out=$WORK/a-$1-$2.out err=$WORK/a-$1-$2.err cmd name_re pattern
	case $v in
	baseline)
		bpf_stats_set 0
		if run_fio 0 "$RUNTIME"; then
			[[ $(<"$BPF_STATS") == 0 ]] || record A "$v" "$r" stats_leak=1
			record A "$v" "$r" iops="$FIO_IOPS"
			echo "  round $r $v: $(fmt %.0f "$FIO_IOPS") IOPS"
		else
			record A "$v" "$r" iops=NA
		fi
		return 0 ;;
	diskio) cmd=("$DISKIO" -b 1) name_re='^handle_' pattern='^# time pid comm' ;;
	diskio-L) cmd=("$DISKIO" -b -L 1) name_re='^handle_' pattern='^# time pid comm' ;;
	diskio-before) cmd=("$BENCH_DISKIO_BEFORE" -b 1) name_re='^handle_' pattern='^# time pid comm' ;;
	bpftrace) cmd=(bpftrace -e "$BT_AGG") name_re='^block_bio' pattern='Attaching' ;;
	diskio-stacks) cmd=("$DISKIO" -b --stacks 1) name_re='^handle_' pattern='^# time pid comm' ;;
	bpftrace-stacks) cmd=(bpftrace -e "$BT_STACKS") name_re='^block_bio' pattern='Attaching' ;;
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
		stats_leak="$M_STATS_LEAK" \
		cpu_pct="$M_CPU_PCT" cpu_sched_pct="$(calc %.3f '100 * c / w' c="$M_CPU_SCHED_S" w="$M_WALL_S")"
	echo "  round $r $v: $(fmt %.0f "$M_IOPS") IOPS, $(fmt %.0f "$M_NS_IO") ns/I/O in BPF" \
		"($(fmt %.2f "$M_RUNS_IO") program runs/I/O; per-run estimate $(fmt %.0f "$M_NS_EST") ns)," \
		"tool CPU $(fmt %.2f "$M_CPU_PCT")%"
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
echo "diskio bench: $ZRAM (1 GiB, filled); fio 4k randread O_DIRECT psync, ${RUNTIME}s per run"

echo "== part A: aggregated mode, $ROUNDS rounds"
nvar=${#A_VARIANTS[@]}
for ((r = 1; r <= ROUNDS; r++)); do
	for ((k = 0; k < nvar; k++)); do
		run_a "${A_VARIANTS[$(((r - 1 + k) % nvar))]}" "$r"
	done
done

B_LOADS=(max)
((TRACE_IOPS > 0)) && B_LOADS+=("$TRACE_IOPS")
TRACE_OK=0
if ((TRACE_ROUNDS > 0)) && trace_available; then
	TRACE_OK=1
	echo "== part B: trace mode, $TRACE_ROUNDS rounds, load: ${B_LOADS[*]} IOPS"
	B_TOOLS=(diskio bpftrace)
	for ((r = 1; r <= TRACE_ROUNDS; r++)); do
		for load in "${B_LOADS[@]}"; do
			for ((k = 0; k < 2; k++)); do
				run_b "${B_TOOLS[$(((r - 1 + k) % 2))]}" "$load" "$r"
			done
		done
	done
else
	echo "== part B: trace mode not available ($DISKIO -T: $(tail -1 "$WORK/trace-probe.err" 2>/dev/null))"
fi

# ---- report -----------------------------------------------------------------
leak_note() {
	local n
	n=$(awk -F'\t' '$4 == "stats_leak" && $5 == 1' "$RESULTS" | wc -l)
	((n == 0)) || echo "Warning: in $n run(s) something else turned kernel.bpf_stats_enabled on" \
		"during the IOPS measurement: those IOPS include its timing overhead."
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

report() {
	local v label iops ratio ns nsr runs est estr cpu
	echo "# diskio benchmark"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), kernel $(uname -r), $(nproc) CPUs, $(fio --version)," \
		"bpftrace $(bpftrace --version | awk '{ print $2 }'). Load: fio 4 KiB random reads," \
		"O_DIRECT, psync, 1 job, ${RUNTIME} s per run, on a filled 1 GiB zram disk." \
		"Medians over rounds; ratios are taken within each round, then their median."
	echo
	echo "## A. Aggregated mode ($ROUNDS rounds, variants interleaved)"
	echo
	echo "| variant | median IOPS | IOPS / baseline | median kernel ns per I/O | ns / bpftrace's ns | BPF runs per I/O | per-run estimate, ns per I/O | estimate / bpftrace's |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for v in "${A_VARIANTS[@]}"; do
		case $v in
		baseline) label="baseline (nothing attached)" ;;
		diskio) label="\`diskio -b 1\`" ;;
		diskio-L) label="\`diskio -b -L 1\`" ;;
		diskio-before) label="\`diskio -b 1\`, the build in BENCH_DISKIO_BEFORE" ;;
		bpftrace) label="bpftrace \`@[pid, comm, args->dev] = stats(args->nr_sector * 512)\` on block_bio_queue" ;;
		diskio-stacks) label="\`diskio -b --stacks 1\`" ;;
		bpftrace-stacks) label="bpftrace \`@[pid, comm, kstack, ustack] = sum(…); @n[…] = count()\` on block_bio_queue of the zram disk" ;;
		esac
		iops=$(med A "$v" iops)
		ratio=$(med_ratio A "$v" iops baseline iops)
		if [[ $v == baseline ]]; then
			ns="-" nsr="-" runs="-" est="-" estr="-"
		else
			ns=$(fmt %.0f "$(med A "$v" ns_io)")
			nsr=$(fmt %.2f "$(med_ratio A "$v" ns_io bpftrace ns_io)")
			runs=$(fmt %.2f "$(med A "$v" runs_io)")
			est=$(fmt %.0f "$(med A "$v" ns_est)")
			estr=$(fmt %.2f "$(med_ratio A "$v" ns_est bpftrace ns_est)")
		fi
		echo "| $label | $(fmt %.0f "$iops") | $(fmt %.3f "$ratio") | $ns | $nsr | $runs | $est | $estr |"
	done
	echo
	cpu=$(med A diskio cpu_pct)
	echo "diskio's own CPU (user+sys from /proc/PID/stat, % of one core over the run):" \
		"\`-b 1\` $(fmt %.2f "$cpu")%," \
		"\`-b -L 1\` $(fmt %.2f "$(med A diskio-L cpu_pct)")%" \
		"(scheduler's ns clock, /proc/PID/schedstat: $(fmt %.3f "$(med A diskio cpu_sched_pct)")% and" \
		"$(fmt %.3f "$(med A diskio-L cpu_sched_pct)")%; /proc/PID/stat counts" \
		"$CLK_TCK ticks/s, so ±$(calc %.2f '100 / (hz * t)' hz="$CLK_TCK" t="$RUNTIME")% per run)."
	echo
	echo "Per program (median ns per run × runs per fio I/O):"
	echo
	for v in diskio diskio-L bpftrace diskio-stacks bpftrace-stacks; do
		echo "- $v: $(prog_breakdown A "$v")"
	done
	echo
	echo "IOPS and CPU come from a ${RUNTIME} s fio run with kernel.bpf_stats_enabled=0" \
		"(timing every program run costs IOPS); kernel ns per I/O from a second ${NS_RUNTIME} s" \
		"run under the same tool instance with kernel.bpf_stats_enabled=1: run_time_ns of the" \
		"tool's own programs (found through /proc/PID/fdinfo, read with bpftool) / I/Os fio" \
		"completed. It leaves out the tracepoint's dispatch cost, which IOPS / baseline includes." \
		"Other disks' I/O meanwhile (BPF runs per I/O above 1 for bpftrace, 2 for diskio) adds" \
		"to it; the per-run estimate does not: it counts every program that ran at least 0.9" \
		"times per fio I/O once, at its average ns per run."
	leak_note
	echo
	echo "### Targets"
	echo
	local d_nsr l_nsr d_ratio d_est l_est
	d_nsr=$(med_ratio A diskio ns_io bpftrace ns_io)
	l_nsr=$(med_ratio A diskio-L ns_io bpftrace ns_io)
	d_est=$(med_ratio A diskio ns_est bpftrace ns_est)
	l_est=$(med_ratio A diskio-L ns_est bpftrace ns_est)
	d_ratio=$(med_ratio A diskio iops baseline iops)
	echo "- $(verdict "$d_nsr" '<=' 0.6): \`diskio -b 1\` kernel ns per I/O ≤ 0.6 × bpftrace's:" \
		"$(fmt %.2f "$d_nsr") × (per-run estimate: $(fmt %.2f "$d_est") ×, $(verdict "$d_est" '<=' 0.6))"
	echo "- $(verdict "$l_nsr" '<=' 0.9): \`diskio -b -L 1\` kernel ns per I/O ≤ 0.9 × bpftrace's:" \
		"$(fmt %.2f "$l_nsr") × (per-run estimate: $(fmt %.2f "$l_est") ×, $(verdict "$l_est" '<=' 0.9))"
	local s_nsr s_est
	s_nsr=$(med_ratio A diskio-stacks ns_io bpftrace-stacks ns_io)
	s_est=$(med_ratio A diskio-stacks ns_est bpftrace-stacks ns_est)
	echo "- $(verdict "$s_nsr" '<=' 1.0): \`diskio -b --stacks 1\` kernel ns per I/O ≤ 1.0 × bpftrace's" \
		"keyed by kstack and ustack: $(fmt %.2f "$s_nsr") × (per-run estimate: $(fmt %.2f "$s_est") ×," \
		"$(verdict "$s_est" '<=' 1.0))"
	echo "- $(verdict "$d_ratio" '>=' 0.92): \`diskio -b 1\` median IOPS ≥ 0.92 × baseline: $(fmt %.3f "$d_ratio") ×"
	echo "- $(verdict "$cpu" '<' 1.0): \`diskio -b 1\` CPU < 1% of a core: $(fmt %.2f "$cpu")%"
	echo
	echo "## B. Trace mode"
	echo
	if ((!TRACE_OK)); then
		echo "not available: \`$DISKIO -T -b 1\` did not run ($(tail -1 "$WORK/trace-probe.err" 2>/dev/null || true))."
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
	echo "### Targets"
	echo
	if [[ $d_lost == 0 ]]; then
		echo "- $(verdict "$eps_ratio" '>=' 3): diskio events/s kept without loss ≥ 3 × bpftrace's" \
			"(full speed): $(fmt %.2f "$eps_ratio") × (diskio lost 0; bpftrace lost $bt_lost)"
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
[[ $(med A baseline iops) != NA && $(med A diskio iops) != NA ]] ||
	die "no usable baseline or diskio measurement (see the messages above)"
exit 0
