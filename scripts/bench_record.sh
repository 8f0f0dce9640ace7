#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bench's part E: what --record costs a frame in bytes and in the writer's
# CPU (bench/record_size.c), on frames made to look like an idle box and one
# with 200 rows a frame, an hour of each at 10 s, written to /dev/shm.
#
#   scripts/bench_record.sh .output/bench/record_size   (make bench runs it last)
#
# Environment: BENCH_PARTS (runs only if it has an E, as scripts/bench.sh reads
# it).  Writes its table to .output/bench-record.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ${BENCH_PARTS:-E} != *E* ]]; then
	echo "diskio bench: part E (--record) not run: BENCH_PARTS=$BENCH_PARTS"
	exit 0
fi
work=$(mktemp -d "$( [[ -w /dev/shm ]] && echo /dev/shm || echo /tmp )/diskio-bench-record.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$1" "$work" | tee .output/bench-record.md
