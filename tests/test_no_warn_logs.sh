#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# No test logs at Criterion's warning level.  Criterion as Debian 12 ships it exits 1 when a
# test logged a warning, even when every test passed, so one expected retry or skipped check
# logged at that level turns `make test` red (issue 42).  A test says such things at the
# info level; a real failure is an assertion.  Checks itself on a planted line.  No root.
#   tests/test_no_warn_logs.sh [DIR]
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Criterion's ways to log at the warning level: the macro, the level, the printers.  The
# macro's name is spelt in two halves here, so that this file is not itself a use of it.
macro='cr_log_''warn'
pattern="$macro|CR_LOG_WARNING|criterion_pwarn|criterion_warn"

warn_logs() {
	grep -rnE --include='*.c' --include='*.h' "$pattern" "$1"
}

if [ $# -eq 0 ]; then
	planted=$(mktemp -d /tmp/diskio-test-warn.XXXXXX)
	trap 'rm -rf "$planted"' EXIT
	printf 'Test(a, b) { %s("retried"); }\n' "$macro" > "$planted/test_planted.c"
	if ! warn_logs "$planted" >/dev/null; then
		echo "FAIL: the check did not find a planted $macro" >&2
		exit 1
	fi
fi
if found=$(warn_logs "${1:-tests}"); then
	echo "$found" >&2
	echo "FAIL: tests log at the warning level (Criterion then exits 1 on a pass): use" \
	     "cr_log_info for a retry or a skipped check, an assertion for a failure" >&2
	exit 1
fi
echo "no test logs at the warning level"
