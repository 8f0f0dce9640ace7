#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bench's part F (issue 46): exec to counting, for each mode of diskio and
# for bpftrace with a one-liner on the same hook, interleaved in each round
# (bench/start_time.py), medians of BENCH_START_ROUNDS (default 7) and the
# ratio to bpftrace's in the same run.  Counting has begun when diskio prints
# its batch columns line (printed as the first interval begins), with
# --json and --diagnose --json its "start" record, with -q --record nothing on stdout:
# that one is timed to the record's first file instead; bpftrace's, when it
# prints its BEGIN line (after every probe is attached).
#
#   scripts/bench_start.sh   (make bench runs it; BENCH_PARTS must have an F)
#
# With BENCH_DISKIO_BEFORE (another build), its default and --files modes too.
#
# Writes its table to .output/bench-start.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ${BENCH_PARTS:-F} != *F* ]]; then
	echo "diskio bench: part F (start-up) not run: BENCH_PARTS=$BENCH_PARTS"
	exit 0
fi
diskio=$(realpath "${DISKIO:-./diskio}")
rounds=${BENCH_START_ROUNDS:-7}
command -v bpftrace >/dev/null || { echo "diskio bench: part F needs bpftrace (make deps-bench)" >&2; exit 1; }
# bpftrace needs tracefs (diskio does not)
if [[ ! -d /sys/kernel/tracing/events ]]; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true
fi
work=$(mktemp -d /dev/shm/diskio-bench-start.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "diskio bench: part F, exec to counting, $rounds rounds" >&2
variants=(
	"default=$diskio -b 1"
	"-L=$diskio -b -L 1"
	"--files=$diskio -b --files 1"
	"--stacks=$diskio -b --stacks 1"
	"-T=$diskio -T -b 1"
	"--record=$diskio -b --record $work/rec.\$\$ 1"
	"--json=$diskio --json 1"
	"--diagnose=$diskio --diagnose=30 --json"
	"bpftrace=bpftrace -e 'BEGIN { printf(\"ready\\n\"); } tracepoint:block:block_bio_queue { @[comm] = count(); }'"
)
marks=("# time " "# time " "# time " "# time " "# time_s " "# time " '{"type":"start"' '{"type":"start"' ready)
if [[ -n ${BENCH_DISKIO_BEFORE:-} ]]; then
	variants+=("default, before=$BENCH_DISKIO_BEFORE -b 1"
		   "--files, before=$BENCH_DISKIO_BEFORE -b --files 1")
	marks+=("# time " "# time ")
fi
python3 bench/start_time.py "$rounds" "${variants[@]}" -- "${marks[@]}" > "$work/times"
python3 - "$work/times" <<'PY' | tee .output/bench-start.md
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
base = float([r for r in rows if r[0] == "bpftrace"][0][1])
print("| mode | exec to counting (median, s) | spread (s) | x bpftrace |")
print("| --- | --- | --- | --- |")
for name, median, spread, runs in rows:
    print("| %s | %s | %s | %.2f |" % (name, median, spread, float(median) / base))
PY
