#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The packager's flags reach the build: `make CFLAGS=-O1 LDFLAGS=-Wl,-z,now`, run in a
# copy of this tree (the main build and its .output/ are left alone), must
#   - compile every object of ./diskio with -O1 and no other -O (the V=1 log: CFLAGS
#     carries no -g here, so the binary has no DW_AT_producer to tell the level by), and
#   - link ./diskio with -Wl,-z,now, which `readelf -d` shows as BIND_NOW / FLAGS NOW.
# Exits 1 with a "check_build_flags: ..." line when they do not.
#   scripts/check_build_flags.sh [TREE]   (default: the tree this script is in)
set -euo pipefail

fail() {
	echo "check_build_flags: $*" >&2
	exit 1
}

tree=$(cd "${1:-$(dirname "$0")/..}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/diskio-build-flags.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The tree's files as they are now (uncommitted changes included), not its build output.
if git -C "$tree" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$tree" && git ls-files -z --cached --others --exclude-standard |
		tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$tmp" -xf -
else
	tar -C "$tree" --exclude=./.output --exclude=./diskio --exclude=./diskio-static \
		-cf - . | tar -C "$tmp" -xf -
fi
[[ -f $tmp/Makefile ]] || fail "no Makefile copied from $tree"

# A make started by make (make test WERROR=1) passes its command line down, in MAKEFLAGS and
# in the environment: this build has exactly the flags below.  Not WERROR=1: this checks
# flags, not warnings (-O1 has warnings of its own).
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES CFLAGS LDFLAGS WERROR V
log=$tmp/build.log
if ! make -C "$tmp" --no-print-directory -j2 V=1 CFLAGS=-O1 LDFLAGS=-Wl,-z,now diskio \
	>"$log" 2>&1; then
	tail -n 30 "$log" >&2
	fail "make CFLAGS=-O1 LDFLAGS=-Wl,-z,now diskio failed"
fi
[[ -x $tmp/diskio ]] || fail "make CFLAGS=-O1 LDFLAGS=-Wl,-z,now built no ./diskio"

# Every user-space object (not the BPF object, which has its own -O2) compiled with -O1.
objects=0
while IFS= read -r -d '' obj; do
	case $obj in *.bpf.o) continue ;; esac
	name=${obj#"$tmp"/}
	line=$(grep -E -- "(^| )-c .* -o $name\$" "$log" | grep -v -- '-target bpf' | tail -n 1) ||
		fail "no compile command for $name in the V=1 log"
	grep -qE -- '(^| )-O1( |$)' <<<"$line" || fail "$name compiled without -O1: $line"
	others=$(grep -oE -- '(^| )-O([02-9sgz]|fast)?( |$)' <<<"$line" | tr -d ' ' | sort -u |
		tr '\n' ' ') || true
	[[ -z $others ]] || fail "$name compiled with ${others% } besides -O1: $line"
	objects=$((objects + 1))
done < <(find "$tmp/.output" -name '*.o' -print0)
((objects > 0)) || fail "no objects in $tmp/.output"

link=$(grep -E -- " -o diskio\$" "$log" | tail -n 1) || fail "no link command for diskio in the V=1 log"
grep -qE -- '(^| )-Wl,-z,now( |$)' <<<"$link" || fail "diskio linked without -Wl,-z,now: $link"
dynamic=$(readelf -d "$tmp/diskio") || fail "readelf -d diskio failed"
grep -qE '\(BIND_NOW\)|\(FLAGS\) .*BIND_NOW|\(FLAGS_1\) .*\bNow\b' <<<"$dynamic" ||
	fail "diskio has no BIND_NOW / FLAGS NOW in readelf -d: LDFLAGS did not reach the link"

echo "check_build_flags: CFLAGS=-O1 reached $objects objects, LDFLAGS=-Wl,-z,now the link" \
	"(readelf -d: BIND_NOW)"
