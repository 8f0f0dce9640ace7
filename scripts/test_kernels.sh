#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# diskio on real kernels: boot each kernel of tests/kernels/list under QEMU
# with a minimal initramfs (busybox, the kernel's own zram/loop/virtio_blk,
# dm and md RAID1 modules, diskio-static and tests/kernels/guest_checks) and
# collect the guest's check lines from the serial console.  The guest has four
# virtio disks, each a sparse file on the host removed after the run: vda for
# the known-answer checks, and three small ones that the guest stacks a
# dm-linear device and an md RAID1 on (it finds them by their serials).
#
#   scripts/test_kernels.sh DISKIO_STATIC GUEST_CHECKS   (or: make test-kernels)
#
# Per kernel: the Debian package is downloaded once (apt-get download) into
# the cache and checked against the SHA256 of the apt index; vmlinuz and the
# modules are taken out of it; the guest boots with KVM when /dev/kvm works,
# else under TCG, and powers itself off after its checks.  Exit status 0 only
# if every kernel printed "N passed, 0 failed" with N > 0 within its time
# limit; a guest still running at its limit is killed (powered off).
#
# Environment:
#   DISKIO_KERNEL_CACHE     the .deb cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/diskio-kernels)
#   DISKIO_KERNEL_LIST      the list of packages (default tests/kernels/list)
#   DISKIO_GUEST_TIMEOUT    seconds a guest may run (default 120 with KVM, 600 under TCG)
#   DISKIO_QEMU_ACCEL       kvm or tcg (default: kvm if /dev/kvm opens and runs the
#                           first guest, else tcg)
#   DISKIO_TCG_THREAD       single (default) or multi: TCG's vCPUs on one thread, or one
#                           each; with multi, Linux 6.12 oopsed now and then as it patched
#                           its own text (doc/kernels.md)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

die() {
	echo "diskio test-kernels: $*" >&2
	exit 1
}

[[ $# -eq 2 ]] || die "usage: $0 DISKIO_STATIC GUEST_CHECKS"
DISKIO_STATIC=$(realpath "$1")
GUEST_CHECKS=$(realpath "$2")
LIST=${DISKIO_KERNEL_LIST:-tests/kernels/list}
CACHE=${DISKIO_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/diskio-kernels}
WORK=.output/kernels
GUEST_MEM_MB=1024
GUEST_CPUS=2
DISK_MB=64
# The disks below the guest's stacked devices: serial (what guest_checks
# looks them up by) and size.  They come after the known-answer disk (serial
# diskio-vda) on QEMU's command line, so that it stays vda.  Small: md does
# not resync them (guest_checks declares the RAID1 clean), and only a few
# hundred KiB are written.
STACK_DISKS=(diskio-dm diskio-md1 diskio-md2)
STACK_DISK_MB=16

for tool in qemu-system-x86_64 busybox apt-get apt-cache dpkg-deb depmod modprobe cpio \
	sha256sum timeout ldd xz zstd pkill; do
	command -v "$tool" >/dev/null || die "$tool is missing: run 'make deps-kernels' (scripts/deps.sh kernels)"
done
is_static() { [[ $(ldd "$1" 2>&1 || true) == *'not a dynamic executable'* ]]; }
is_static "$DISKIO_STATIC" ||
	die "$DISKIO_STATIC is not a static binary (make static)"
[[ -r $LIST ]] || die "no kernel list $LIST"
BUSYBOX=$(command -v busybox)
is_static "$BUSYBOX" ||
	die "$BUSYBOX is not static: install busybox-static"

if [[ -n ${DISKIO_QEMU_ACCEL:-} ]]; then
	ACCEL=$DISKIO_QEMU_ACCEL
elif [[ -c /dev/kvm ]] && { exec 3<>/dev/kvm; } 2>/dev/null; then
	exec 3>&-
	ACCEL=kvm
else
	ACCEL=tcg
fi
# A guest runs its checks in 60-110 s under TCG on a quiet 2-CPU host (its
# stacked-device checks 9-11 s of that), twice as long on a busy one; with
# both CPUs busy (load 3.3) the 6.1 guest did 14 of its 41 checks in 300 s.
KVM_TIMEOUT=120
TCG_TIMEOUT=600
BOOT_LIMIT=30	# seconds to its first line: the kernel booted and ran /init
case $ACCEL in
kvm) TIMEOUT=${DISKIO_GUEST_TIMEOUT:-$KVM_TIMEOUT} ;;
tcg) TIMEOUT=${DISKIO_GUEST_TIMEOUT:-$TCG_TIMEOUT} ;;
*) die "DISKIO_QEMU_ACCEL must be kvm or tcg, not '$ACCEL'" ;;
esac

mkdir -p "$CACHE" "$WORK"

# ---- the kernel package ------------------------------------------------------
# field PACKAGE NAME: a field of the candidate version's apt record.  awk reads
# to the end: leaving early would kill apt-cache with SIGPIPE, and pipefail
# would fail the script (exit 141) whenever apt-cache had not finished yet.
apt_field() {
	apt-cache show --no-all-versions "$1" 2>/dev/null |
		awk -v f="$2:" '$1 == f && !found { print $2; found = 1 }'
}

# fetch_deb PACKAGE: prints the path of the verified .deb in the cache.
fetch_deb() {
	local pkg=$1 version sha file deb tmp
	version=$(apt_field "$pkg" Version)
	if [[ -z $version && $(id -u) -eq 0 ]]; then
		echo "diskio test-kernels: $pkg not in the apt index: apt-get update" >&2
		apt-get update -qq >&2 || true
		version=$(apt_field "$pkg" Version)
	fi
	[[ -n $version ]] || die "$pkg is not in the apt index (apt-cache show $pkg): the archive" \
		"may have dropped it; put a current package in $LIST"
	sha=$(apt_field "$pkg" SHA256)
	file=$(apt_field "$pkg" Filename)
	[[ -n $sha && -n $file ]] || die "$pkg: no SHA256 or Filename in its apt record"
	deb=$CACHE/$(basename "$file")
	if [[ -f $deb ]] && echo "$sha  $deb" | sha256sum --quiet -c - >/dev/null 2>&1; then
		echo "diskio test-kernels: $pkg $version: cached $deb" >&2
	else
		echo "diskio test-kernels: $pkg $version: downloading into $CACHE" >&2
		tmp=$(mktemp -d "$CACHE/download.XXXXXX")
		(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg=$version" >&2) ||
			{ rm -rf "$tmp"; die "apt-get download $pkg=$version failed"; }
		if ! echo "$sha  $(echo "$tmp"/*.deb)" | sha256sum --quiet -c - >&2; then
			rm -rf "$tmp"
			die "$pkg $version: SHA256 differs from the apt index's $sha"
		fi
		mv "$tmp"/*.deb "$deb"
		rmdir "$tmp"
	fi
	echo "$deb"
}

# ---- the initramfs -------------------------------------------------------------
# Modules in load order for the wanted names and aliases, from the kernel's
# own tree (depmod run on it here: the package leaves that to its postinst).
module_order() {	# tree release names...
	local tree=$1 release=$2
	shift 2
	local name
	for name in "$@"; do
		modprobe -d "$tree" -S "$release" --show-depends "$name" ||
			die "$release: no module $name"
	done | awk '$1 == "insmod" { if (!seen[$2]++) print $2 }'
}

build_initramfs() {	# deb dir -> prints the release
	local deb=$1 dir=$2 tree=$2/tree root=$2/root release comp ko dest
	rm -rf "$dir"
	mkdir -p "$tree" "$root"/{bin,dev,proc,sys,tmp,lib/modules}
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$tree" --wildcards './boot/vmlinuz-*' \
		'./boot/config-*' './lib/modules/*'
	release=$(basename "$(echo "$tree"/lib/modules/*)")
	[[ -d $tree/lib/modules/$release/kernel ]] || die "$deb: no modules"
	depmod -b "$tree" "$release"
	cp "$tree/boot/vmlinuz-$release" "$dir/vmlinuz"
	# zram compresses with the kernel's default algorithm, which may be a module.
	comp=$(sed -n 's/^CONFIG_ZRAM_DEF_COMP="\(.*\)"$/\1/p' "$tree/boot/config-$release")
	: >"$root/lib/modules/order"
	while read -r ko; do
		dest=$(basename "$ko")
		case $ko in
		*.ko.xz) xz -dc "$ko" >"$root/lib/modules/${dest%.xz}"; dest=${dest%.xz} ;;
		*.ko.zst) zstd -qdc "$ko" >"$root/lib/modules/${dest%.zst}"; dest=${dest%.zst} ;;
		*.ko.gz) gzip -dc "$ko" >"$root/lib/modules/${dest%.gz}"; dest=${dest%.gz} ;;
		*) cp "$ko" "$root/lib/modules/$dest" ;;
		esac
		echo "$dest" >>"$root/lib/modules/order"
	done < <(module_order "$tree" "$release" virtio_pci virtio_blk loop zram \
		${comp:+"crypto-$comp"} dm_mod raid1)
	cp "$BUSYBOX" "$root/bin/busybox"
	cp "$DISKIO_STATIC" "$root/bin/diskio"
	cp "$GUEST_CHECKS" "$root/bin/guest_checks"
	cat >"$root/init" <<-'EOF'
	#!/bin/busybox sh
	# SPDX-License-Identifier: GPL-2.0
	# diskio's test guest (scripts/test_kernels.sh): mount, load the block
	# modules, run the checks, power off whatever they did.
	/bin/busybox --install -s /bin
	export PATH=/bin
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mount -t tmpfs tmpfs /tmp
	mkdir -p /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup
	for m in $(cat /lib/modules/order); do
		insmod "/lib/modules/$m" || echo "diskio-guest: info insmod $m failed"
	done
	echo "diskio-guest: info modules: $(tr '\n' ' ' </lib/modules/order)"
	/bin/guest_checks /bin/diskio
	echo "diskio-guest: info guest_checks exited $?"
	poweroff -f
	EOF
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet) >"$dir/initramfs.cpio"
	rm -rf "$tree" "$root"
	echo "$release"
}

# ---- one guest -------------------------------------------------------------------
remove_disks() {	# dir
	local serial
	rm -f "$1/disk.img"
	for serial in "${STACK_DISKS[@]}"; do
		rm -f "$1/$serial.img"
	done
}

# run_guest dir log accel: qemu's exit status; 124 when the guest ran out of
# time, 125 when it printed nothing within BOOT_LIMIT (KVM that opens but
# does not run this guest: nested virtualization without the CPU features).
run_guest() {
	local dir=$1 log=$2 accel=(-accel "tcg,thread=${DISKIO_TCG_THREAD:-single}") rc=0 qemu start=$SECONDS boot_limit=$TIMEOUT
	local serial disks=()
	[[ $3 == kvm ]] && accel=(-accel kvm -cpu host) boot_limit=$BOOT_LIMIT
	truncate -s 0 "$dir/disk.img"
	truncate -s "${DISK_MB}M" "$dir/disk.img"
	for serial in "${STACK_DISKS[@]}"; do
		truncate -s 0 "$dir/$serial.img"
		truncate -s "${STACK_DISK_MB}M" "$dir/$serial.img"
		disks+=(-drive "file=$dir/$serial.img,format=raw,if=none,id=$serial"
			-device "virtio-blk-pci,drive=$serial,serial=$serial")
	done
	# In a subshell, so that its notice of a QEMU that aborted goes to the log.
	(timeout --kill-after=10 "$TIMEOUT" qemu-system-x86_64 "${accel[@]}" \
		-m "$GUEST_MEM_MB" -smp "$GUEST_CPUS" -nographic -no-reboot \
		-kernel "$dir/vmlinuz" -initrd "$dir/initramfs.cpio" \
		-append "console=ttyS0 loglevel=1 panic=-1 rdinit=/init" \
		-drive "file=$dir/disk.img,format=raw,if=none,id=diskio-vda" \
		-device virtio-blk-pci,drive=diskio-vda,serial=diskio-vda "${disks[@]}"
		exit $?) </dev/null >"$log" 2>&1 &
	qemu=$!
	while kill -0 "$qemu" 2>/dev/null; do
		if ((SECONDS - start > boot_limit)) && ! grep -aq '^diskio-guest: ' "$log"; then
			# timeout (the subshell's child) passes SIGTERM on to QEMU
			pkill -TERM -P "$qemu" 2>/dev/null || true
			wait "$qemu" || true
			remove_disks "$dir"
			return 125
		fi
		sleep 0.5
	done
	wait "$qemu" || rc=$?
	remove_disks "$dir"
	if ((rc != 0)) && ! grep -aq '^diskio-guest: ' "$log"; then
		rc=125	# QEMU itself failed before the guest ran
	fi
	return "$rc"
}

failed=()
summary=()
while read -r pkg _; do
	[[ -z $pkg || $pkg == \#* ]] && continue
	deb=$(fetch_deb "$pkg")
	version=$(apt_field "$pkg" Version)
	dir=$WORK/$pkg
	release=$(build_initramfs "$deb" "$dir")
	log=$dir/console.log
	echo "== $pkg $version (Linux $release, $ACCEL, limit ${TIMEOUT}s)"
	start=$SECONDS
	rc=0
	run_guest "$dir" "$log" "$ACCEL" || rc=$?
	if ((rc == 125)) && [[ $ACCEL == kvm ]]; then
		echo "   KVM did not run this guest ($(tr -d '\r' <"$log" | grep -a -m1 -i -E 'error|assert' ||
			echo "no output in ${BOOT_LIMIT}s")): TCG from here on"
		ACCEL=tcg
		TIMEOUT=${DISKIO_GUEST_TIMEOUT:-$TCG_TIMEOUT}
		start=$SECONDS
		rc=0
		run_guest "$dir" "$log" "$ACCEL" || rc=$?
	fi
	# A kernel that dies while it boots, before the guest's first line, has
	# run nothing of diskio's (seen: 6.12 under TCG, an int3 oops while it
	# patched its own text at 2.8 s): it is booted once more.
	if ((rc == 0)) && ! grep -aq '^diskio-guest: ' "$log"; then
		echo "   the kernel died before the checks began ($(tr -d '\r' <"$log" |
			grep -a -m1 -E 'Oops|panic|BUG' || echo "no guest output")): booting it once more"
		start=$SECONDS
		run_guest "$dir" "$log" "$ACCEL" || rc=$?
	fi
	elapsed=$((SECONDS - start))
	# The guest's lines, without the console's carriage returns.
	tr -d '\r' <"$log" | grep -a '^diskio-guest: ' | sed 's/^diskio-guest: /   /' || true
	result=$(tr -d '\r' <"$log" | grep -a -E '^diskio-guest: [0-9]+ passed, [0-9]+ failed$' |
		tail -1 | sed 's/^diskio-guest: //' || true)
	if ((rc == 124 || rc == 137)); then
		why="did not finish within ${TIMEOUT}s: powered off"
	elif ((rc == 125)); then
		why="QEMU did not start the guest: $(tr -d '\r' <"$log" | grep -a -m1 . || true)"
	elif ((rc != 0)); then
		why="QEMU exited $rc"
	elif [[ -z $result ]]; then
		why="no 'N passed, N failed' line (the guest crashed or panicked?)"
	elif [[ ! $result =~ ^([0-9]+)\ passed,\ 0\ failed$ ]] || ((BASH_REMATCH[1] == 0)); then
		why=$result
	else
		why=""
	fi
	if [[ -n $why ]]; then
		echo "   FAILED: $why; console log: $log (last lines below)"
		tr -d '\r' <"$log" | tail -15 | sed 's/^/   | /'
		failed+=("$pkg")
		summary+=("FAIL Linux $release ($pkg $version): $why, ${elapsed}s ($ACCEL)")
	else
		summary+=("ok   Linux $release ($pkg $version): $result, ${elapsed}s ($ACCEL)")
	fi
done <"$LIST"

echo "== test-kernels ($ACCEL):"
printf '   %s\n' "${summary[@]}"
((${#summary[@]} > 0)) || die "no kernels in $LIST"
((${#failed[@]} == 0)) || die "failed on ${failed[*]}"
