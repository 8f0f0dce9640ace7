#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bench's part E: what --record costs a frame in bytes and in the writer's
# CPU (bench/record_size.c), on frames made to look like an idle box and one
# with 200 rows a frame, an hour of each at 10 s, written to /dev/shm.
#
#   scripts/bench_record.sh .output/bench/record_size   (make bench runs it last)
#
# Then a real one: `diskio -q --record` of this machine as it is, at 10 s,
# for 60 frames (10 minutes; run it with the machine at rest to measure an
# idle box): its bytes a frame and an hour, the headers apart.
#
# Environment: BENCH_PARTS (runs only if it has an E, as scripts/bench.sh reads
# it); BENCH_RECORD_FRAMES=60 and BENCH_RECORD_INTERVAL=10, the real run's
# (0 frames: none); DISKIO=./diskio.  Writes its table to
# .output/bench-record.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if [[ ${BENCH_PARTS:-E} != *E* ]]; then
	echo "diskio bench: part E (--record) not run: BENCH_PARTS=$BENCH_PARTS"
	exit 0
fi
work=$(mktemp -d "$( [[ -w /dev/shm ]] && echo /dev/shm || echo /tmp )/diskio-bench-record.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$1" "$work" | tee .output/bench-record.md

frames=${BENCH_RECORD_FRAMES:-60}
interval=${BENCH_RECORD_INTERVAL:-10}
[[ $frames =~ ^[0-9]+$ && $interval =~ ^[0-9]+$ && $interval -gt 0 ]] || {
	echo "diskio bench: BENCH_RECORD_FRAMES and BENCH_RECORD_INTERVAL are whole numbers" >&2
	exit 2
}
((frames > 0)) || exit 0
echo "diskio bench: part E, a real record: ${DISKIO:-./diskio} -q --record DIR $interval $frames" \
	"($((frames * interval)) s)" >&2
"${DISKIO:-./diskio}" -q --record "$work/real" "$interval" "$frames"
# Each record: u32 length, u32 CRC, then its type and body (doc/record-format.md).
python3 - "$work/real" "$frames" "$interval" <<'PY' | tee -a .output/bench-record.md
import glob, struct, sys
hdr = frames = n = 0
for path in sorted(glob.glob(sys.argv[1] + "/*.dkr")):
    data = open(path, "rb").read()
    off = 8
    while off + 9 <= len(data):
        length = struct.unpack_from("<I", data, off)[0]
        kind = chr(data[off + 8])
        if kind in "CF":
            frames += 8 + length
            n += 1
        else:
            hdr += 8 + length
        off += 8 + length
interval = int(sys.argv[3])
per = frames / n if n else float("nan")
hour = per * 3600 / interval
print()
print(f"Real record of this machine: {n} frames at {interval} s, {frames} bytes of frames "
      f"({per:.0f} a frame), {hdr} bytes of headers (one a run and day file): "
      f"{hour / 1000:.1f} KB an hour of frames at {interval} s; "
      f"{'PASS' if hour + hdr <= 64000 else 'MISS'}: at most 64 KB an hour, headers included "
      f"({(hour + hdr) / 1000:.1f} KB).")
PY
