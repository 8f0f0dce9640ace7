# bash completion for diskio(8): its options, the values some of them take,
# and disk names (from /sys/block) after -D.
_diskio_devices()
{
	local dev
	for dev in /sys/block/*; do
		[[ -e $dev ]] && printf '%s\n' "${dev##*/}"
	done
}

_diskio()
{
	local cur prev words cword
	_init_completion -s || return

	case $prev in
	-D | --device)
		COMPREPLY=($(compgen -W "$(_diskio_devices)" -- "$cur"))
		return
		;;
	-s | --sort)
		COMPREPLY=($(compgen -W 'bytes read write ios latency pid comm dirty' -- "$cur"))
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
	-c | --comm)
		COMPREPLY=($(compgen -W "$(ps -eo comm= 2>/dev/null | sort -u)" -- "$cur"))
		return
		;;
	--state | --prom | --folded)
		_filedir
		return
		;;
	--debug-dir)
		COMPREPLY=($(compgen -d -- "$cur"))
		return
		;;
	--cgroup)
		local root=/sys/fs/cgroup
		COMPREPLY=($(compgen -W "$(cd "$root" 2>/dev/null && find . -mindepth 1 -maxdepth 3 -type d 2>/dev/null | sed 's|^\.||')" -- "$cur"))
		return
		;;
	-r | --rows | --crash-interval | --buffer-kb | --prom-rows | --prom-idle | --stacks-mem | \
		--stacks-top)
		return
		;;
	esac
	$split && return

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W '-a --accumulated -b --batch -C --no-clear -c --comm
			-D --device -h --help -L --latency -p --pid -q --quiet -r --rows -s --sort
			-T --trace -V --version -v --verbose --buffer-kb --by --cgroup
			--crash-interval --debug-dir --folded --histogram --json --prom --prom-idle --prom-rows
			--stacks --stacks=kernel --stacks=user --stacks=both --stacks-mem --stacks-top
			--state --submitter -t --threads --usage' -- "$cur"))
	fi
} &&
	complete -F _diskio diskio
