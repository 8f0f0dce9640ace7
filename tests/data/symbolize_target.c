// SPDX-License-Identifier: GPL-2.0
/*
 * Known function names for tests/test_symbolize.c to find: the Makefile
 * builds this without inlining, as a PIE, a non-PIE and stripped copies.
 * It prints where known_func_a, known_func_b and known_alias are, then, given an
 * argument, waits to be killed, so that the test can read its mappings.
 */
#include <stdio.h>
#include <unistd.h>

__attribute__((noinline)) int known_func_a(int x)
{
	return x * 3 + 1;
}

__attribute__((noinline)) int known_func_b(int x)
{
	return known_func_a(x) + 2;
}

/* A global implementation under a weak public alias, as libc has them: the public name wins. */
__attribute__((noinline)) int __known_impl(int x)
{
	return x - 1;
}

int known_alias(int x) __attribute__((weak, alias("__known_impl")));

int main(int argc, char **argv)
{
	(void)argv;
	printf("%p %p %p\n", (void *)known_func_a, (void *)known_func_b, (void *)known_alias);
	fflush(stdout);
	if (argc > 1)
		for (;;)
			pause();
	return known_func_b(argc) == 0;
}
