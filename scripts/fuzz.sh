#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run each libFuzzer target for SECONDS, starting from its seed corpus in tests/fuzz/TARGET/.
# New inputs go to a working corpus in DIR/corpus/TARGET, never to the committed seeds.
# Exits 1 at the first target that finds a crash, a leak or a failed check.
#   scripts/fuzz.sh DIR SECONDS TARGET...
set -euo pipefail

dir=$1 seconds=$2
shift 2
export UBSAN_OPTIONS=print_stacktrace=1
# The targets' scratch files (state files, a fake sysfs tree), on tmpfs where there is one;
# removed here too, since a target that crashes cannot remove its own.
scratch=$(mktemp -d "$( [[ -w /dev/shm ]] && echo /dev/shm || echo /tmp )/diskio-fuzz.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export TMPDIR=$scratch
for target in "$@"; do
	corpus=$dir/corpus/$target
	log=$dir/$target.log
	mkdir -p "$corpus"
	rm -f "$dir/crash-$target-"*
	if ! "$dir/fuzz_$target" -max_total_time="$seconds" -timeout=10 -max_len=4096 \
		-print_final_stats=1 -artifact_prefix="$dir/crash-$target-" \
		"$corpus" "tests/fuzz/$target" >"$log" 2>&1; then
		tail -n 60 "$log" >&2
		echo "diskio: fuzz_$target failed (full log: $log); reproduce with" \
			"$dir/fuzz_$target $(ls "$dir/crash-$target-"* 2>/dev/null | head -n 1)" >&2
		exit 1
	fi
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1)
	echo "fuzz_$target: $runs runs in $seconds s, $cov, corpus $(ls "$corpus" | wc -l) inputs"
done
