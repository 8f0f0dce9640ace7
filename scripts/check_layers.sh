#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The layers of the source, held against its #include lines:
#
#   scripts/check_layers.sh [ROOT]       (make unit runs it; ROOT defaults to the tree)
#
# doc/design.md's "Layers" table gives each file its layer (shell patterns; the longest
# that matches wins) and its "Includes that go up" table the few includes from a lower
# layer to a higher one that are allowed, each with its reason.  This fails, naming
# them, on:
#   - a source file that no layer claims;
#   - an include of a file of a higher layer that the second table does not list;
#   - more than MAX_UPWARD listed exceptions;
#   - a circle of modules (a module: a .c with its .h), found by tsort.
# Sources are the .c and .h files outside tests/, bench/, vmlinux/ and .output/; an include
# is resolved as the Makefile's include path does (the file's own folder, the root, then
# kernel views outputs stacks lib history); one that resolves to no source (generated, vmlinux.h)
# is not the source's business.
set -euo pipefail

MAX_UPWARD=6
root=${1:-$(dirname "${BASH_SOURCE[0]}")/..}
cd "$root"
design=doc/design.md
[[ -r $design ]] || { echo "check_layers: cannot read $design" >&2; exit 1; }

# The rows of the markdown table after the line holding marker: cells without their
# backticks, '|'-separated, one row a line.
table_after() {
	awk -v marker="$1" '
		index($0, marker) { found = 1; next }
		found && /^\|/ { if ($0 !~ /^\| *-/ && seen++) { gsub(/`/, ""); print } ; next }
		found && seen { exit }'
}

declare -a layer_of_pattern=() patterns=()
while IFS='|' read -r _ layer files _; do
	layer=${layer//[^0-9]/}
	for pattern in $files; do
		patterns+=("$pattern")
		layer_of_pattern+=("$layer")
	done
done < <(table_after '<!-- layers -->' < "$design")
((${#patterns[@]})) || { echo "check_layers: no layers table in $design" >&2; exit 1; }

declare -A allowed=()
nallowed=0
while IFS='|' read -r _ from to _; do
	from=${from// /}
	to=${to// /}
	allowed["$from $to"]=1
	nallowed=$((nallowed + 1))
done < <(table_after '<!-- upward -->' < "$design")

mapfile -t sources < <(find . \( -path ./tests -o -path ./bench -o -path ./vmlinux -o \
	-path ./.output -o -path ./.git \) -prune -o \( -name '*.c' -o -name '*.h' \) -print |
	sed 's|^\./||' | LC_ALL=C sort)
declare -A is_source=()
for f in "${sources[@]}"; do is_source[$f]=1; done

# The layer of the longest pattern that matches f (kernel/abi.h before kernel/*), or "".
layer_of() {
	local f=$1 i best="" best_len=-1
	set -f
	for i in "${!patterns[@]}"; do
		# shellcheck disable=SC2053  # the pattern is a pattern
		if [[ $f == ${patterns[i]} ]] && ((${#patterns[i]} > best_len)); then
			best=${layer_of_pattern[i]}
			best_len=${#patterns[i]}
		fi
	done
	set +f
	echo "$best"
}

resolve() {
	local from=$1 name=$2 dir
	for dir in "$(dirname "$from")" . kernel views outputs stacks lib history; do
		local path=${dir#./}/$name
		path=${path#./}
		path=${path#/}
		if [[ -n ${is_source[$path]:-} ]]; then
			echo "$path"
			return
		fi
	done
}

module_of() {
	local f=${1%.c}
	echo "${f%.h}"
}

failed=0
edges=()
for f in "${sources[@]}"; do
	from_layer=$(layer_of "$f")
	if [[ -z $from_layer ]]; then
		echo "check_layers: $f is in no layer of $design's table" >&2
		failed=1
		continue
	fi
	while read -r name; do
		to=$(resolve "$f" "$name")
		[[ -n $to ]] || continue
		to_layer=$(layer_of "$to")
		[[ -n $to_layer ]] || continue	# reported as its own file
		if ((to_layer > from_layer)) && [[ -z ${allowed["$f $to"]:-} ]]; then
			echo "check_layers: $f (layer $from_layer) includes $to (layer $to_layer):" \
				"a lower layer may not include a higher one unless $design lists it" >&2
			failed=1
		fi
		[[ $(module_of "$f") == "$(module_of "$to")" ]] ||
			edges+=("$(module_of "$f") $(module_of "$to")")
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done

if ((nallowed > MAX_UPWARD)); then
	echo "check_layers: $nallowed includes that go up are listed; at most $MAX_UPWARD" >&2
	failed=1
fi

if ! loop=$(printf '%s\n' "${edges[@]}" | tsort 2>&1 >/dev/null) || [[ -n $loop ]]; then
	echo "check_layers: the modules include each other in a circle:" >&2
	echo "$loop" | sed -n 's/^tsort: //p' >&2
	failed=1
fi

if ((failed)); then
	exit 1
fi
echo "layers: ${#sources[@]} files, ${#edges[@]} includes between modules, $nallowed going up (listed)"
