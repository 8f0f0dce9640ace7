#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The bash completion (dist/diskio.bash), as bash runs it: bash-completion
# loaded, _diskio called with COMP_WORDS, COMP_CWORD, COMP_LINE and
# COMP_POINT as readline sets them (it splits words at COMP_WORDBREAKS' '='
# and ':'), and its candidates compared with the known answer, on a made-up
# /sys, /proc and mounts file, then on this machine's own.  No root needed.
# tests/test_options.c checks the completion's lists against the code's.
#   tests/test_completion.sh [dist/diskio.bash]
set -uo pipefail

completion=${1:-dist/diskio.bash}
bash_completion=/usr/share/bash-completion/bash_completion
if [[ ! -r $bash_completion ]]; then
	echo "diskio: $0: $bash_completion is missing: install bash-completion (make deps-test)" >&2
	exit 1
fi
# bash_completion is written for an interactive shell: unset variables in it are normal.
set +u
# shellcheck source=/dev/null
source "$bash_completion"
# shellcheck source=../dist/diskio.bash
source "$completion"

failures=0
checks=0
# compopt only works inside a completion that readline started: note what
# the completion asks for instead.
compopt()
{
	compopt_args="$*"
}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# complete LINE WORD...: the candidates for the line typed so far, split into
# WORDs as readline would, the last one being completed; sorted, one a line.
complete_line()
{
	local line=$1
	shift
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_diskio diskio "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	((${#COMPREPLY[@]})) && printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort
}

# expect WHAT EXPECTED ACTUAL: the candidates, as space-separated words.
expect()
{
	local what=$1 expected=$2 actual
	actual=$(printf '%s' "$3" | tr '\n' ' ' | sed 's/ $//')
	checks=$((checks + 1))
	if [[ $actual != "$expected" ]]; then
		echo "FAIL $what: expected '$expected', got '$actual'"
		failures=$((failures + 1))
	fi
}

# fail WHAT: a check that is not a comparison.
fail()
{
	echo "FAIL $1"
	failures=$((failures + 1))
}

# --stacks=: kernel, user or both, as options.c's parse_stacks() takes them.
expect "--stacks=" "both kernel user" "$(complete_line 'diskio --stacks=' diskio --stacks = '')"
expect "--stacks=u" "user" "$(complete_line 'diskio --stacks=u' diskio --stacks = u)"
expect "--stacks=k" "kernel" "$(complete_line 'diskio --stacks=k' diskio --stacks = k)"
expect "--stacks then a space: no value" "" "$(complete_line 'diskio --stacks ' diskio --stacks '')"
expect "--stacks then an option" "--sort --state --submitter" \
	"$(complete_line 'diskio --stacks --s' diskio --stacks --s | grep -v -- '--st\(acks\|acks-\)')"

# --diagnose-rule: the names of cli/diagnose_rules.c, each with its '='.
expect "--diagnose-rule" "busy_util= drivers= failing_errors= files= saturated_queue= throttled_util= wait_pct=" \
	"$(complete_line 'diskio --diagnose-rule ' diskio --diagnose-rule '')"
expect "--diagnose-rule s" "saturated_queue=" "$(complete_line 'diskio --diagnose-rule s' diskio --diagnose-rule s)"
# -- COMMAND: a command's name, not diskio's options.
expect "-- then an option's start" "" "$(complete_line 'diskio -b -- --js' diskio -b -- --js)"
expect "-- then a command" "dd" "$(complete_line 'diskio -b -- dd' diskio -b -- dd | grep -x dd | sort -u)"

# -s: the one list of sort keys (iostats.c), every one of them.
expect "-s" "bytes cgroup comm d_iops device dirty discard errors ios iowait latency pid r_iops read swapin w_iops write" \
	"$(complete_line 'diskio -s ' diskio -s '')"
expect "-s r" "r_iops read" "$(complete_line 'diskio -s r' diskio -s r)"
expect "--sort d" "d_iops device dirty discard" "$(complete_line 'diskio --sort d' diskio --sort d)"

# -D: each disk by name and by MAJ:MIN, from /sys/block.
mkdir -p "$tmp/sys/block/vda" "$tmp/sys/block/zram0"
echo 254:0 >"$tmp/sys/block/vda/dev"
echo 252:0 >"$tmp/sys/block/zram0/dev"
_diskio_sys=$tmp/sys
expect "-D" "252:0 254:0 vda zram0" "$(complete_line 'diskio -D ' diskio -D '')"
expect "-D z" "zram0" "$(complete_line 'diskio -D z' diskio -D z)"
expect "-D 25" "252:0 254:0" "$(complete_line 'diskio -D 25' diskio -D 25)"
# readline splits "254:" at the colon; what is inserted follows it
expect "-D 254:" "0" "$(complete_line 'diskio -D 254:' diskio -D 254 :)"
unset _diskio_sys
# This machine: every disk of /sys/block, by name and by number.
disks=0
actual=$(complete_line 'diskio -D ' diskio -D '')
for dev in /sys/block/*; do
	[[ -e $dev ]] || continue
	disks=$((disks + 1))
	grep -qxF "${dev##*/}" <<<"$actual" || fail "-D: ${dev##*/} is not offered"
	grep -qxF "$(cat "$dev/dev")" <<<"$actual" || fail "-D: $(cat "$dev/dev") is not offered"
done
[[ $(grep -c . <<<"$actual") -eq $((2 * disks)) ]] || fail "-D: not two words per disk: $actual"
checks=$((checks + 1))

# -c: names as the kernel keeps them: 15 bytes at most, a kernel worker
# without the work /proc/PID/comm appends, each name once.
i=0
for name in 'kworker/0:0H-events_highpri' 'kworker/u8:1+flush-254:0' bash systemd-journal \
	'Web Content' bash 'a-name-of-20-bytes!!'; do
	i=$((i + 1))
	mkdir -p "$tmp/proc/$i"
	printf '%s\n' "$name" >"$tmp/proc/$i/comm"
done
mkdir -p "$tmp/proc/self"	# not a process directory
_diskio_proc=$tmp/proc
expect "-c" 'Web\ Content a-name-of-20-by bash kworker/0:0H kworker/u8:1 systemd-journal' \
	"$(complete_line 'diskio -c ' diskio -c '')"
expect "-c kw" "kworker/0:0H kworker/u8:1" "$(complete_line 'diskio -c kw' diskio -c kw)"
expect "--comm sys" "systemd-journal" "$(complete_line 'diskio --comm sys' diskio --comm sys)"
expect "-c kworker/u8:" "1" "$(complete_line 'diskio -c kworker/u8:' diskio -c kworker/u8 :)"
unset _diskio_proc
# This machine: no name longer than a comm holds.
long=$(_diskio_comms | awk 'length($0) > 15')
[[ -z $long ]] || fail "-c: names longer than 15 bytes: $long"
[[ -n $(_diskio_comms) ]] || fail "-c: no name offered on this machine"
checks=$((checks + 2))

# -u: user names, as bash knows them (getent passwd); Debian always has nobody.
expect "-u nobod" "nobody" "$(complete_line 'diskio -u nobod' diskio -u nobod)"
expect "--user nobod" "nobody" "$(complete_line 'diskio --user nobod' diskio --user nobod)"

# --cgroup: groups of the cgroup2 hierarchy wherever the mounts file has it
# (a hybrid machine's /sys/fs/cgroup/unified), never a cgroup v1 directory.
mkdir -p "$tmp/cg/cpu/v1group" "$tmp/cg/uni fied/system.slice/nginx.service" \
	"$tmp/cg/uni fied/system.slice/ssh.service" "$tmp/cg/uni fied/user.slice"
touch "$tmp/cg/uni fied/cgroup.procs"
printf '%s\n' "tmpfs $tmp/cg tmpfs rw 0 0" "cgroup $tmp/cg/cpu cgroup rw,cpu 0 0" \
	"cgroup2 ${tmp// /\\040}/cg/uni\\040fied cgroup2 rw 0 0" >"$tmp/mounts"
_diskio_mounts=$tmp/mounts
expect "--cgroup" "/system.slice /user.slice" "$(complete_line 'diskio --cgroup ' diskio --cgroup '')"
expect "--cgroup /sy" "/system.slice" "$(complete_line 'diskio --cgroup /sy' diskio --cgroup /sy)"
compopt_args=
complete_line 'diskio --cgroup /sy' diskio --cgroup /sy >/dev/null
[[ $compopt_args == *nospace* ]] || fail "--cgroup: a group is completed without a space after it"
checks=$((checks + 1))
expect "--cgroup /system.slice/" "/system.slice/nginx.service /system.slice/ssh.service" \
	"$(complete_line 'diskio --cgroup /system.slice/' diskio --cgroup /system.slice/)"
expect "--cgroup /system.slice/n" "/system.slice/nginx.service" \
	"$(complete_line 'diskio --cgroup /system.slice/n' diskio --cgroup /system.slice/n)"
printf '%s\n' "cgroup $tmp/cg/cpu cgroup rw,cpu 0 0" >"$tmp/mounts"
expect "--cgroup, cgroup v1 only" "" "$(complete_line 'diskio --cgroup ' diskio --cgroup '')"
unset _diskio_mounts
# This machine: the groups right below its cgroup2 mount, whatever it is.
root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
if [[ -n $root ]]; then
	wanted=$(find "$root" -mindepth 1 -maxdepth 1 -type d -printf '/%f\n' | LC_ALL=C sort)
	expect "--cgroup on this machine ($root)" "$(tr '\n' ' ' <<<"$wanted" | sed 's/ $//')" \
		"$(complete_line 'diskio --cgroup /' diskio --cgroup /)"
fi

if ((failures)); then
	echo "diskio: $0: $failures failures in $checks completion checks" >&2
	exit 1
fi
echo "completion: $checks checks passed"
