# bash completion for diskio(8): its options, and the values of those that
# name something: disks (/sys/block) after -D, process names after -c,
# user names after -u, cgroup v2 groups after --cgroup, sort keys after -s.
# tests/test_completion.sh runs it; tests/test_options.c checks its lists against the code's.
#
# Where it reads the machine, for the tests: _diskio_sys (/sys), _diskio_proc
# (/proc) and _diskio_mounts (/proc/mounts).

# Disks as -D takes them: each name, and its MAJ:MIN.
_diskio_devices()
{
	local dev numbers
	for dev in "${_diskio_sys:-/sys}"/block/*; do
		[[ -e $dev ]] || continue
		printf '%s\n' "${dev##*/}"
		read -r numbers 2>/dev/null <"$dev/dev" && printf '%s\n' "$numbers"
	done
}

# Process names as the kernel keeps them, which -c matches: at most 15 bytes
# (a task's comm), without the work a kernel worker does, which
# /proc/PID/comm appends ("kworker/0:0H-events_highpri" is "kworker/0:0H").
_diskio_comms()
{
	local file name
	for file in "${_diskio_proc:-/proc}"/[0-9]*/comm; do
		IFS= read -r name 2>/dev/null <"$file" || continue
		[[ $name == kworker/* ]] && name=${name%%[-+]*}
		printf '%s\n' "${name:0:15}"
	done | LC_ALL=C sort -u
}

# The cgroup2 hierarchy's mount point from the mounts file: /sys/fs/cgroup on
# a unified machine, /sys/fs/cgroup/unified on a hybrid one; nothing without
# one (a cgroup v1 directory is no group --cgroup takes).
_diskio_cgroup2_root()
{
	local source point type rest
	while read -r source point type rest; do
		if [[ $type == cgroup2 ]]; then
			printf '%b\n' "$point"	# the mounts file writes a space as \040
			return 0
		fi
	done <"${_diskio_mounts:-/proc/mounts}"
	return 1
}

# The groups below the directory of the path typed, as paths under the root.
_diskio_cgroups()
{
	local root dir group
	root=$(_diskio_cgroup2_root) || return
	dir=${1%/*}
	[[ $1 == /* ]] || dir=
	for group in "$root$dir"/*/; do
		[[ -d $group ]] || continue
		group=${group%/}
		printf '%s\n' "${group#"$root"}"
	done
}

# Words that may hold any byte but a newline, as candidates for cur.
_diskio_reply_lines()
{
	local word
	COMPREPLY=()
	while IFS= read -r word; do
		[[ $word == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "$word")")
	done
}

_diskio()
{
	local cur prev words cword split
	_init_completion -s -n : || return

	# -- COMMAND [ARGS]: the command's own completion
	local i
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done

	case $prev in
	-D | --device)
		COMPREPLY=($(compgen -W "$(_diskio_devices)" -- "$cur"))
		__ltrim_colon_completions "$cur"
		return
		;;
	-s | --sort)
		# the keys of -s, in the top view's column order (iostats.c sort_keys[])
		COMPREPLY=($(compgen -W 'pid comm swapin iowait device bytes read write discard errors
			ios r_iops w_iops d_iops latency dirty cgroup' -- "$cur"))
		return
		;;
	--by)
		COMPREPLY=($(compgen -W 'process cgroup' -- "$cur"))
		return
		;;
	-p | --pid)
		_pids
		return
		;;
	-u | --user)
		# user names (a uid is taken too, but not offered)
		COMPREPLY=($(compgen -u -- "$cur"))
		return
		;;
	-c | --comm)
		_diskio_reply_lines < <(_diskio_comms)
		__ltrim_colon_completions "$cur"	# kworker/u8:1
		return
		;;
	--state | --prom | --folded)
		_filedir
		return
		;;
	--debug-dir | --record | --replay | --list)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	--cgroup)
		_diskio_reply_lines < <(_diskio_cgroups "$cur")
		# a group may have groups below it: no space after it
		[[ ${#COMPREPLY[@]} -gt 0 ]] && compopt -o nospace
		return
		;;
	--diagnose-rule)
		# NAME=VALUE: the names, the value the user's (doc/diagnose.md)
		COMPREPLY=($(compgen -W 'busy_util= saturated_queue= throttled_util= wait_pct=
			failing_errors= drivers= files=' -- "$cur"))
		compopt -o nospace
		return
		;;
	--diagnose)
		# SECONDS only with '=' (--diagnose=5): else the next word is another
		$split && return
		;;
	--stacks)
		# its value only with '=' (--stacks=user): else the next word is another
		if $split; then
			COMPREPLY=($(compgen -W 'kernel user both' -- "$cur"))
			return
		fi
		;;
	-r | --rows | --crash-interval | --buffer-kb | --prom-rows | --prom-idle | --prom-label | \
		--stacks-mem | --stacks-top | --latency-sample | --files-top | --record-days | \
		--record-max | --begin | --end)
		return
		;;
	esac
	$split && return

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '-a --accumulated -b --batch -C --no-clear -c --comm
			-D --device -h --help -L --latency -p --pid -q --quiet -r --rows -s --sort
			-T --trace -u --user -V --version -v --verbose --buffer-kb --by --cgroup
			--all --crash-interval --debug-dir --diagnose --diagnose-rule --files --files-top --folded --histogram --json --latency-sample --prom
			--prom-idle --prom-label --prom-rows
			--record --record-days --record-max --replay --begin --end --list
			--stacks --stacks=kernel --stacks=user --stacks=both --stacks-mem --stacks-top
			--state --submitter -t --threads --usage' -- "$cur"))
	fi
} &&
	complete -F _diskio diskio
