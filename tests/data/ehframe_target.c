// SPDX-License-Identifier: GPL-2.0
/*
 * Functions with known call frame information for tests/test_ehframe.c:
 * a leaf that keeps no frame pointer and moves its stack pointer, one that
 * sets up rbp, and one whose CFA is a DWARF expression.  It prints where
 * its labels are as virtual addresses of the file (less __ehdr_start).
 */
#include <stdio.h>

extern char eh_leaf[], eh_leaf_in[], eh_leaf_out[], eh_framed[], eh_framed_in[], eh_expr_in[];
extern const char __ehdr_start[];

__asm__(".text\n"
	".globl eh_leaf, eh_leaf_in, eh_leaf_out\n"
	".type eh_leaf, @function\n"
	"eh_leaf:\n"
	".cfi_startproc\n"
	"sub $0x28, %rsp\n"
	".cfi_adjust_cfa_offset 0x28\n"
	"eh_leaf_in:\n"
	"nop\n"
	"add $0x28, %rsp\n"
	".cfi_adjust_cfa_offset -0x28\n"
	"eh_leaf_out:\n"
	"ret\n"
	".cfi_endproc\n"
	".size eh_leaf, .-eh_leaf\n"
	".globl eh_framed, eh_framed_in\n"
	".type eh_framed, @function\n"
	"eh_framed:\n"
	".cfi_startproc\n"
	"push %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset %rbp, -16\n"
	"mov %rsp, %rbp\n"
	".cfi_def_cfa_register %rbp\n"
	"eh_framed_in:\n"
	"nop\n"
	"pop %rbp\n"
	".cfi_def_cfa %rsp, 8\n"
	"ret\n"
	".cfi_endproc\n"
	".size eh_framed, .-eh_framed\n"
	".globl eh_expr, eh_expr_in\n"
	".type eh_expr, @function\n"
	"eh_expr:\n"
	".cfi_startproc\n"
	"nop\n"
	/* DW_CFA_def_cfa_expression { DW_OP_breg7 (rsp) 8 } */
	".cfi_escape 0x0f, 0x02, 0x77, 0x08\n"
	"eh_expr_in:\n"
	"ret\n"
	".cfi_endproc\n"
	".size eh_expr, .-eh_expr\n");

int main(void)
{
	const char *labels[] = { eh_leaf, eh_leaf_in, eh_leaf_out, eh_framed, eh_framed_in,
				 eh_expr_in };

	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++)
		printf("%lx\n", (unsigned long)(labels[i] - __ehdr_start));
	return 0;
}
