// SPDX-License-Identifier: GPL-2.0
/* What the outputs share (output.h). */
#include <errno.h>
#include <string.h>
#include "msg.h"
#include "output.h"

int output_check_file(const char *option, const char *path, const char *hint,
		      struct atomic_target *t)
{
	char why[REFUSAL_SIZE];
	int err = atomic_target_open(t, path, why);

	if (err && why[0]) {
		fail("%s %s: its directory %s; diskio writes as root only where nobody else can "
		     "rename or replace a file", option, path, why);
		return refused_to_write(err) ? EXIT_USAGE : EXIT_START;
	}
	if (!err)
		err = atomic_target_check(t);
	if (err) {
		fail("cannot write %s file %s: %s%s", option, path, strerror(-err), hint);
		atomic_target_close(t);
		return EXIT_START;
	}
	return 0;
}
