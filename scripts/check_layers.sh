#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The layers of the source, held against its #include lines and its calls:
#
#   scripts/check_layers.sh [ROOT]       (make unit runs it; ROOT defaults to the tree)
#
# doc/design.md's "Layers" table gives each file its layer (shell patterns; the longest
# that matches wins) and its "References that go up" table the few references from a
# lower layer to a higher one that are allowed, each with its reason.  A reference is an
# include of a file, or a call of a function that another module defines; a row of the
# table allows both, from its file into its module.  This fails, naming them, on:
#   - a source file that no layer claims;
#   - an include of a file, or a call of a function, of a higher layer that the second
#     table does not list;
#   - more than MAX_UPWARD listed exceptions;
#   - a circle of modules (a module: a .c with its .h), found by tsort.
# Sources are the .c and .h files outside tests/, bench/, vmlinux/ and .output/; an include
# is resolved as the Makefile's include path does (the file's own folder, the root, then
# SRC_DIRS below); one that resolves to no source (generated, vmlinux.h) is not the
# source's business.  Calls are read from the text, so that the check needs no build: a
# function is a .c's non-static definition, its line starting at column 0 with the return
# type (the house style); a call is a name before '(' outside comments, literals and
# preprocessor lines, in a file that defines no static function of that name.  The BPF
# side (*.bpf.c, *.bpf.h) shares no functions with user space and is not read for calls.
set -euo pipefail

MAX_UPWARD=6
# The Makefile's SRC_DIRS, in its order.
SRC_DIRS=(step procs disks files cli kernel views outputs stacks lib history)
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
set -f	# the patterns are patterns, not the files they match here
while IFS='|' read -r _ layer files _; do
	layer=${layer//[^0-9]/}
	for pattern in $files; do
		patterns+=("$pattern")
		layer_of_pattern+=("$layer")
	done
done < <(table_after '<!-- layers -->' < "$design")
set +f
((${#patterns[@]})) || { echo "check_layers: no layers table in $design" >&2; exit 1; }

# A module: a path without its .c or .h.
module_of() {
	local f=${1%.c}
	echo "${f%.h}"
}

declare -A allowed=()
nallowed=0
while IFS='|' read -r _ from to _; do
	from=${from// /}
	to=${to// /}
	allowed["$from $(module_of "$to")"]=1
	nallowed=$((nallowed + 1))
done < <(table_after '<!-- upward -->' < "$design")

mapfile -t sources < <(find . \( -path ./tests -o -path ./bench -o -path ./vmlinux -o \
	-path ./.output -o -path ./.git \) -prune -o \( -name '*.c' -o -name '*.h' \) -print |
	sed 's|^\./||' | LC_ALL=C sort)

# Each source's layer: the longest pattern that matches (kernel/abi.h before kernel/*), or "".
declare -A layer=()
set -f
for f in "${sources[@]}"; do
	best="" best_len=-1
	for i in "${!patterns[@]}"; do
		# shellcheck disable=SC2053  # the pattern is a pattern
		if [[ $f == ${patterns[i]} ]] && ((${#patterns[i]} > best_len)); then
			best=${layer_of_pattern[i]}
			best_len=${#patterns[i]}
		fi
	done
	layer[$f]=$best
done
set +f

# resolved: the source that file $1's include of $2 names, or "".
resolve() {
	local from=$1 name=$2 own=. dir path
	[[ $from != */* ]] || own=${from%/*}
	resolved=""
	for dir in "$own" . "${SRC_DIRS[@]}"; do
		path=$dir/$name
		path=${path#./}
		if [[ -n ${layer[$path]+set} ]]; then
			resolved=$path
			return
		fi
	done
}

# One line for each reference: "include FILE PATH" for each #include "PATH", then
# "def FILE NAME" for each function FILE defines for others and "call FILE NAME" for each
# name FILE calls (once each; not the names FILE keeps static).
# shellcheck disable=SC2016  # awk's own fields
refs_awk='
FNR == 1 { incomment = 0 }
{
	line = $0; out = ""; i = 1; n = length(line)
	while (i <= n) {
		c = substr(line, i, 1); c2 = substr(line, i, 2)
		if (incomment) {
			if (c2 == "*/") { incomment = 0; i += 2 } else i++
			continue
		}
		if (c2 == "/*") { incomment = 1; i += 2; out = out " "; continue }
		if (c2 == "//") break
		if (c == "\"" || c == "\047") {
			i++
			while (i <= n && substr(line, i, 1) != c) {
				if (substr(line, i, 1) == "\\") i++
				i++
			}
			i++; out = out " "; continue
		}
		out = out c; i++
	}
	if (match(line, /^#include "[^"]*"/)) {
		print "include", FILENAME, substr(line, 11, RLENGTH - 11)
		next
	}
	if (out ~ /^#/ || FILENAME ~ /\.bpf\.[ch]$/) next
	if (out ~ /^[A-Za-z_]/ && out !~ /^(typedef|extern|__attribute__)[^A-Za-z0-9_]/ &&
	    match(out, /^[^(=]*[^A-Za-z0-9_(]\**[A-Za-z_][A-Za-z0-9_]*\(/)) {
		name = substr(out, 1, RLENGTH - 1)
		sub(/.*[^A-Za-z0-9_]/, "", name)
		if (out ~ /^static[^A-Za-z0-9_]/)
			local[FILENAME, name] = 1
		else if (FILENAME ~ /\.c$/ && out !~ /;[ \t]*$/)
			print "def", FILENAME, name
	}
	while (match(out, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
		name = substr(out, RSTART, RLENGTH)
		sub(/[ \t]*\($/, "", name)
		called[FILENAME, name] = 1
		out = substr(out, RSTART + RLENGTH)
	}
}
END {
	for (k in called) {
		if (k in local) continue
		split(k, part, SUBSEP)
		print "call", part[1], part[2]
	}
}'

declare -A defined_in=()
declare -a references=()
while read -r kind f name; do
	case $kind in
	def) defined_in[$name]=$f ;;
	*) references+=("$kind $f $name") ;;
	esac
done < <(awk "$refs_awk" "${sources[@]}")

failed=0
edges=()
upward=0
for f in "${sources[@]}"; do
	if [[ -z ${layer[$f]} ]]; then
		echo "check_layers: $f is in no layer of $design's table" >&2
		failed=1
	fi
done
declare -A seen=()
for reference in "${references[@]}"; do
	read -r kind f name <<<"$reference"
	from_layer=${layer[$f]}
	[[ -n $from_layer ]] || continue	# reported above
	if [[ $kind == include ]]; then
		resolve "$f" "$name"
		to=$resolved
	else
		to=${defined_in[$name]:-}
	fi
	[[ -n $to ]] || continue
	from_module=${f%.[ch]}
	to_module=${to%.[ch]}
	[[ $from_module != "$to_module" ]] || continue
	[[ $kind == call ]] || edges+=("$from_module $to_module")
	to_layer=${layer[$to]}
	if [[ -z $to_layer ]] || ((to_layer <= from_layer)); then
		continue
	fi
	if [[ -z ${seen["$f $to_module"]:-} ]]; then
		seen["$f $to_module"]=1
		upward=$((upward + 1))
	fi
	[[ -z ${allowed["$f $to_module"]:-} ]] || continue
	if [[ $kind == include ]]; then
		echo "check_layers: $f (layer $from_layer) includes $to (layer $to_layer):" \
			"a lower layer may not include a higher one unless $design lists it" >&2
	else
		echo "check_layers: $f (layer $from_layer) calls $name() of $to (layer $to_layer):" \
			"a lower layer may not call a higher one unless $design lists it" >&2
	fi
	failed=1
done

if ((nallowed > MAX_UPWARD)); then
	echo "check_layers: $nallowed references that go up are listed; at most $MAX_UPWARD" >&2
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
echo "layers: ${#sources[@]} files, ${#edges[@]} includes between modules," \
	"$upward references going up ($nallowed listed)"
