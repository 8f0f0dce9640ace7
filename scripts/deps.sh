#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages diskio needs to build, test or benchmark,
# only those missing: a no-op when everything is present.
#   scripts/deps.sh build|fuzz|static|kernels|test|bench
set -euo pipefail

build_packages=(clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc)
# libFuzzer for clang 14 (clang only recommends it).
fuzz_packages=(libclang-rt-14-dev)
# mawk and gawk: the README's and --help's awk examples are run under both;
# bsdutils: script(1), a terminal for the top view's examples; tmux: the top
# view's tests; lld: a PIE laid out unlike GNU ld's for tests/test_symbolize.c.
# --prom's tests: node_exporter and promtool (prometheus) read diskio's file,
# curl scrapes node_exporter; make install's: man-db and groff-base render
# the man page, bash-completion runs the completion, systemd's
# systemd-analyze verifies the unit; strace and passwd (useradd) run the
# symbolizer's attacks as another user and watch what diskio opens; sysstat's
# iostat is the peer the devices' iostat -x figures are checked against;
# xfsprogs: --files' tests on XFS.
test_packages=(libcriterion-dev fio util-linux mount kmod e2fsprogs xfsprogs mawk gawk bsdutils tmux lld
	prometheus-node-exporter prometheus curl man-db groff-base bash-completion systemd
	strace passwd sysstat "${fuzz_packages[@]}")
bench_packages=(fio bpftrace python3)
# make static: libbpf.a, libelf.a (libelf-dev) and libz.a (zlib1g-dev) come with
# the build set; the static C library is libc6-dev's, a dependency of gcc.
static_packages=(libc6-dev)
# make test-kernels: boot Debian's kernels under QEMU with a busybox initramfs.
# apt-get download fetches the kernel packages; dpkg-deb unpacks them; cpio
# and xz/zstd build the initramfs and unpack compressed modules.
kernel_packages=(qemu-system-x86 busybox-static cpio xz-utils zstd apt dpkg coreutils procps)

case "${1:-build}" in
build) wanted=("${build_packages[@]}") ;;
fuzz) wanted=("${build_packages[@]}" "${fuzz_packages[@]}") ;;
static) wanted=("${build_packages[@]}" "${static_packages[@]}") ;;
kernels) wanted=("${build_packages[@]}" "${static_packages[@]}" "${kernel_packages[@]}") ;;
test) wanted=("${build_packages[@]}" "${test_packages[@]}" "${static_packages[@]}"
	"${kernel_packages[@]}") ;;
bench) wanted=("${build_packages[@]}" "${test_packages[@]}" "${bench_packages[@]}") ;;
*) echo "diskio: deps.sh: unknown set '$1' (build, fuzz, static, kernels, test or bench)" >&2; exit 2 ;;
esac

missing=()
for pkg in "${wanted[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
	echo "diskio: missing packages: ${missing[*]}; run as root (sudo make ...) to install them" >&2
	exit 1
fi
echo "diskio: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# Packages with a daemon (node_exporter, prometheus) must not start it: the
# tests start their own, on a port of their own.  A policy-rc.d already there
# (a container's) is left as it is.
policy=/usr/sbin/policy-rc.d
made_policy=false
if [[ ! -e $policy ]]; then
	printf '#!/bin/sh\n# diskio deps.sh: no daemon starts while it installs\nexit 101\n' > "$policy"
	chmod 0755 "$policy"
	made_policy=true
	trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
if $made_policy; then
	rm -f "$policy"
	trap - EXIT
fi
