// SPDX-License-Identifier: GPL-2.0
/* What the outputs share (output.h). */
#include <string.h>
#include "atomic_file.h"
#include "msg.h"
#include "output.h"

int output_check_file(const char *option, const char *path, const char *hint)
{
	int err = atomic_file_check(path);

	if (err)
		fail("cannot write %s file %s: %s%s", option, path, strerror(-err), hint);
	return err ? -1 : 0;
}
