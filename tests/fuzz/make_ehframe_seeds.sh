#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Seeds for fuzz_ehframe (tests/fuzz/fuzz_ehframe.c): a small x86-64 program with
# .eh_frame and .eh_frame_hdr (frameless, rbp-based and expression CFAs), as a file
# (control byte 0) and as its two sections (control byte 1), and the sections without
# the table.  Run from the top of the tree: tests/fuzz/make_ehframe_seeds.sh
set -euo pipefail
out=tests/fuzz/ehframe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cat > "$work/seed.c" <<'C'
void _start(void);
__asm__(".text\n.globl leaf\nleaf:\n.cfi_startproc\nsub $0x28,%rsp\n.cfi_adjust_cfa_offset 0x28\n"
	"add $0x28,%rsp\n.cfi_adjust_cfa_offset -0x28\nret\n.cfi_endproc\n"
	".globl framed\nframed:\n.cfi_startproc\npush %rbp\n.cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp,-16\nmov %rsp,%rbp\n.cfi_def_cfa_register %rbp\n.cfi_remember_state\n"
	"pop %rbp\n.cfi_def_cfa %rsp,8\nret\n.cfi_restore_state\n.cfi_endproc\n"
	".globl expr\nexpr:\n.cfi_startproc\n.cfi_escape 0x0f,0x02,0x77,0x08\nret\n.cfi_endproc\n");
void _start(void) { for (;;) ; }
C
cc -O1 -nostdlib -static -Wl,--build-id=none -Wl,--eh-frame-hdr -Wl,-z,max-page-size=4096 \
	-fasynchronous-unwind-tables "$work/seed.c" -o "$work/seed"
strip --strip-all -R .comment "$work/seed"
{ printf '\0'; cat "$work/seed"; } > "$out/elf_small"
objcopy -O binary --only-section=.eh_frame "$work/seed" "$work/frame"
objcopy -O binary --only-section=.eh_frame_hdr "$work/seed" "$work/hdr"
len=$(stat -c %s "$work/hdr")
{ printf '\1'; printf "\\x$(printf %02x $((len & 255)))\\x$(printf %02x $((len >> 8)))";
  cat "$work/hdr" "$work/frame"; } > "$out/sections"
{ printf '\1\0\0'; cat "$work/frame"; } > "$out/frame_only"
