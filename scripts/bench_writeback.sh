#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# diskio benchmark, part C: buffered writes.  fio writes a file through the
# page cache on ext4 over a loop device in /dev/shm, fsyncs every 1 MiB and at
# the end; the kernel runs writeback_dirty_folio for every folio dirtied and
# block_bio_queue for every writeback bio.  Compared: `diskio -b 1` (dirtied
# bytes, the file's owner remembered, writeback charged to it) against a
# bpftrace one-liner counting the same two tracepoints per comm, both
# attached during the same fio run (the order of attaching alternates).
# Reported: in-kernel ns per run of each hook (run_time_ns / run_cnt, with
# kernel.bpf_stats_enabled=1), medians over rounds, and the ratio to
# bpftrace's.  Whichever tool runs first on a tracepoint pays the cache misses
# of the folio, inode and bio (about a quarter more here), so rounds come in
# pairs, one of each order: a pair's ratio is the geometric mean of its two
# rounds' ratios, which cancels that cost, and the median over pairs is
# reported, with the median ratio of each order beside it.
#
#   scripts/bench_writeback.sh   (make bench runs it after scripts/bench.sh)
#
# Environment: BENCH_WB_ROUNDS=4 (an odd number gets one more round),
# BENCH_WB_MIB=256 (MiB written per run), BENCH_PARTS (runs only if it has
# a C, as scripts/bench.sh reads it), DISKIO=./diskio.  Writes its table to
# .output/bench-writeback.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ${BENCH_PARTS:-C} != *C* ]]; then
	echo "diskio bench: part C (buffered writes) not run: BENCH_PARTS=$BENCH_PARTS"
	exit 0
fi

ROUNDS=${BENCH_WB_ROUNDS:-4}
MIB=${BENCH_WB_MIB:-256}
DISKIO=${DISKIO:-./diskio}
OUT_MD=.output/bench-writeback.md
BPF_STATS=/proc/sys/kernel/bpf_stats_enabled
BT_PROG='tracepoint:writeback:writeback_dirty_folio { @d[comm] = count(); }
tracepoint:block:block_bio_queue { @b[comm] = count(); }'

die() { echo "diskio bench: $*" >&2; exit 1; }
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $MIB =~ ^[1-9][0-9]*$ ]] || die "BENCH_WB_ROUNDS and BENCH_WB_MIB: whole numbers from 1"
ROUNDS=$((ROUNDS + ROUNDS % 2))	# pairs of rounds, one of each order
[[ $(id -u) -eq 0 ]] || die "needs root"
for tool in fio bpftrace bpftool losetup mkfs.ext4 python3; do
	command -v "$tool" >/dev/null || die "$tool is missing: run 'make deps-bench'"
done
[[ -x $DISKIO ]] || die "$DISKIO is not built"

WORK=$(mktemp -d /dev/shm/diskio-bench-wb.XXXXXX)
declare -A PIDS=()
MNT=$WORK/mnt LOOP="" OLD_STATS=$(<"$BPF_STATS") MOUNTED_TRACEFS=0
cleanup() {
	set +e
	for pid in "${PIDS[@]}"; do kill -INT "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
	echo "$OLD_STATS" >"$BPF_STATS"
	mountpoint -q "$MNT" && umount "$MNT"
	[[ -n $LOOP ]] && losetup -d "$LOOP"
	((MOUNTED_TRACEFS)) && umount /sys/kernel/tracing
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ ! -d /sys/kernel/tracing/events ]]; then
	mount -t tracefs nodev /sys/kernel/tracing || die "cannot mount tracefs (bpftrace needs it)"
	MOUNTED_TRACEFS=1
fi
truncate -s $((MIB * 2 + 256))M "$WORK/disk.img"
LOOP=$(losetup -f --show "$WORK/disk.img")
mkfs.ext4 -q "$LOOP"
mkdir -p "$MNT"
mount "$LOOP" "$MNT"

# "name run_time_ns run_cnt" of the programs a process holds
prog_stats_of() {
	local ids
	ids=$({ grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null || true; } | awk '{ print $2 }' | sort -un | tr '\n' ' ')
	bpftool prog show --json | python3 -c '
import json, sys
ids = set(int(i) for i in sys.argv[1].split())
for p in json.load(sys.stdin):
    if p["id"] in ids:
        print(p.get("name") or "?", p.get("run_time_ns") or 0, p.get("run_cnt") or 0)' "$ids"
}

start() {	# tool: sets PIDS[tool] once its programs are attached
	local i out=$WORK/$1.out err=$WORK/$1.err
	case $1 in
	diskio) "$DISKIO" -b 1 >"$out" 2>"$err" & ;;
	bpftrace) bpftrace -e "$BT_PROG" >"$out" 2>"$err" & ;;
	esac
	PIDS[$1]=$!
	for ((i = 0; i < 600; i++)); do
		grep -qs -e '^# time' -e 'Attaching' "$out" "$err" && break
		kill -0 "${PIDS[$1]}" 2>/dev/null || die "$1 exited: $(tail -2 "$err")"
		sleep 0.1
	done
	sleep 1
}

stop_all() {
	local tool
	for tool in "${!PIDS[@]}"; do
		kill -INT "${PIDS[$tool]}" 2>/dev/null || true
		wait "${PIDS[$tool]}" 2>/dev/null || true
	done
	PIDS=()
}

# Both tools attached at once, so that every ratio comes from one fio run
# (the same I/O, the same cache state); the order of attaching alternates.
RESULTS=$WORK/results
: >"$RESULTS"
run() {	# round first-tool second-tool
	local round=$1 tool
	rm -f "$MNT/f"
	sync
	start "$2"
	start "$3"
	echo 1 >"$BPF_STATS"
	for tool in diskio bpftrace; do prog_stats_of "${PIDS[$tool]}" >"$WORK/$tool.before"; done
	fio --name=bw --filename="$MNT/f" --rw=write --bs=64k --size="${MIB}M" --ioengine=psync \
		--fsync=16 --end_fsync=1 --output="$WORK/fio.log" >/dev/null ||
		die "fio failed: $(tail -3 "$WORK/fio.log")"
	for tool in diskio bpftrace; do prog_stats_of "${PIDS[$tool]}" >"$WORK/$tool.after"; done
	echo 0 >"$BPF_STATS"
	stop_all
	for tool in diskio bpftrace; do
		# hook: the dirty-folio and bio-queue programs of either tool
		awk -v tool="$tool" -v round="$round" 'NR == FNR { t[$1] = $2; c[$1] = $3; next }
			{ hook = ""
			  if ($1 ~ /dirty/) hook = "dirty_folio"
			  else if ($1 ~ /bio_queue/) hook = "bio_queue"
			  if (hook != "" && $3 > c[$1])
				printf "%s\t%s\t%s\t%.1f\t%d\n", tool, round, hook, ($2 - t[$1]) / ($3 - c[$1]), $3 - c[$1] }' \
			"$WORK/$tool.before" "$WORK/$tool.after" >>"$RESULTS"
	done
	echo "  round $round ($2 attached first): $(awk -v r="$round" '$2 == r { printf "%s %s %s ns × %s  ", $1, $3, $4, $5 }' "$RESULTS")"
}

echo "== part C: buffered writes, $ROUNDS rounds, fio ${MIB} MiB write bs=64k, fsync every 1 MiB, on ext4/$(basename "$LOOP")"
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then run "$r" diskio bpftrace; else run "$r" bpftrace diskio; fi
done

python3 - "$RESULTS" "$ROUNDS" "$MIB" >"$OUT_MD" <<'PY'
import math, statistics, sys
rows = [l.split("\t") for l in open(sys.argv[1]).read().split("\n") if l]
ns = {}
for tool, rnd, hook, per_run, runs in rows:
    ns[(tool, rnd, hook)] = (float(per_run), int(runs))
print("## C. Buffered writes (%s rounds, both tools attached in each; fio %s MiB, bs=64k, fsync every 1 MiB and at the end, ext4 on loop)\n" % (sys.argv[2], sys.argv[3]))
print("diskio / bpftrace: the median over pairs of rounds (one with each tool attached first) of the geometric mean of the pair's two ratios; beside it, the median ratio of the rounds with each order.\n")
print("| hook | diskio ns per run | bpftrace ns per run | diskio / bpftrace | diskio first | bpftrace first | runs per fio run (diskio) |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
verdicts = []
for hook, label in (("dirty_folio", "writeback_dirty_folio (per dirtied folio)"), ("bio_queue", "block_bio_queue (per writeback bio)")):
    d = [ns[k][0] for k in ns if k[0] == "diskio" and k[2] == hook]
    b = [ns[k][0] for k in ns if k[0] == "bpftrace" and k[2] == hook]
    runs = [ns[k][1] for k in ns if k[0] == "diskio" and k[2] == hook]
    ratio_of = {int(r): ns[("diskio", r, hook)][0] / ns[("bpftrace", r, hook)][0]
                for (t, r, h) in ns if t == "diskio" and h == hook and ("bpftrace", r, hook) in ns}
    # Odd rounds attach diskio first, even rounds bpftrace.
    pairs = [math.sqrt(ratio_of[r] * ratio_of[r + 1]) for r in ratio_of if r % 2 and r + 1 in ratio_of]
    first = [ratio_of[r] for r in ratio_of if r % 2]
    second = [ratio_of[r] for r in ratio_of if not r % 2]
    if not d or not b or not pairs:
        print("| %s | NA | NA | NA | NA | NA | NA |" % label)
        verdicts.append("- MISS: %s: no complete pair of rounds" % label)
        continue
    ratio = statistics.median(pairs)
    print("| %s | %.0f | %.0f | %.2f × | %.2f × | %.2f × | %d |" % (label, statistics.median(d), statistics.median(b), ratio,
          statistics.median(first), statistics.median(second), statistics.median(runs)))
    verdicts.append("- %s: %s per-run cost ≤ 1.0 × bpftrace's: %.2f ×" % ("PASS" if ratio <= 1.0 else "MISS", label, ratio))
print("\n### Targets\n")
print("\n".join(verdicts))
PY
cat "$OUT_MD"
echo "diskio bench: part C report in $OUT_MD"
