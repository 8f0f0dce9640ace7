#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# scripts/check_layers.sh on this tree (it must pass), then on copies of the tree with one
# fault planted each (each must fail, naming it): an include that goes up, a call that goes
# up, modules that include each other, a source file in no layer, and too many listed
# exceptions.  No root.
#   tests/test_layers.sh
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
check=scripts/check_layers.sh
work=$(mktemp -d /tmp/diskio-test-layers.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0

# A copy of the sources and doc/design.md, as the check reads them.
fresh_copy() {
	rm -rf "$work/tree"
	mkdir -p "$work/tree"
	find . \( -path ./tests -o -path ./bench -o -path ./vmlinux -o -path ./.output \
		-o -path ./.git \) -prune -o \( -name '*.c' -o -name '*.h' \) -print0 |
		xargs -0 cp --parents -t "$work/tree"
	mkdir -p "$work/tree/doc"
	cp doc/design.md "$work/tree/doc/"
}

# expect_failure WHAT PATTERN: the check fails on the copy, saying PATTERN.
expect_failure() {
	local out
	if out=$(bash "$check" "$work/tree" 2>&1); then
		echo "FAIL: $1: the check passed" >&2
		failures=$((failures + 1))
	elif ! grep -q -- "$2" <<<"$out"; then
		echo "FAIL: $1: the check failed without saying '$2':" >&2
		echo "$out" >&2
		failures=$((failures + 1))
	else
		echo "ok: $1"
	fi
}

if ! bash "$check" .; then
	echo "FAIL: the tree itself breaks its layers" >&2
	exit 1
fi

fresh_copy
echo '#include "tally.h"' >> "$work/tree/lib/array.c"
expect_failure "lib/array.c includes tally.h" \
	"lib/array.c (layer 1) includes step/tally.h (layer 3)"

fresh_copy
printf '\nvoid array_planted(void)\n{\n\ttally_free(NULL);\n}\n' >> "$work/tree/lib/array.c"
expect_failure "lib/array.c calls tally_free()" \
	"lib/array.c (layer 1) calls tally_free() of step/tally.c (layer 3)"

fresh_copy
echo '#include "diskstats.h"' >> "$work/tree/procs/cgroups.h"
echo '#include "cgroups.h"' >> "$work/tree/disks/diskstats.h"
expect_failure "cgroups.h and diskstats.h include each other" "in a circle"

fresh_copy
mkdir -p "$work/tree/extra"
printf '#include "tally.h"\n' > "$work/tree/extra/new.c"
expect_failure "a file in no layer" "extra/new.c is in no layer"

fresh_copy
for i in 1 2 3 4 5 6; do
	sed -i "/^<!-- upward -->/,/^\$/{/^| \`cli\/options.c\`/a| \`lib/x$i.c\` | \`tally.h\` | planted |
}" "$work/tree/doc/design.md"
done
expect_failure "seven listed exceptions" "at most 6"

exit $((failures > 0))
