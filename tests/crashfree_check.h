/* SPDX-License-Identifier: GPL-2.0 */
/* What the crash-free tracker's tests (test_crashfree.c) and its state
 * file's (test_crashfree_state.c) both check: time in nanoseconds, the
 * intervals one update counts, and one process's crash count. */
#ifndef DISKIO_CRASHFREE_CHECK_H
#define DISKIO_CRASHFREE_CHECK_H

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "crashfree.h"

#define SECOND UINT64_C(1000000000)
#define MINUTE (60 * SECOND)
#define HOUR (60 * MINUTE)

static inline void expect_counted(struct crashfree *cf, uint64_t now_ns,
				  uint64_t operational, uint64_t crashfree)
{
	struct crashfree_counted counted = crashfree_update(cf, now_ns);

	cr_assert_eq(counted.operational, operational,
		     "at %" PRIu64 " min: %" PRIu64 " operational intervals, expected %" PRIu64,
		     now_ns / MINUTE, counted.operational, operational);
	cr_assert_eq(counted.crashfree, crashfree,
		     "at %" PRIu64 " min: %" PRIu64 " crash-free intervals, expected %" PRIu64,
		     now_ns / MINUTE, counted.crashfree, crashfree);
}

/* Crashes counted for comm, cut to CRASHFREE_COMM_LEN - 1 bytes as
 * crashfree_record_crash() cuts it (NULL is the empty name); 0 if none. */
static inline uint64_t process_crashes(const struct crashfree *cf, const char *comm)
{
	char name[CRASHFREE_COMM_LEN] = "";

	if (comm)
		memcpy(name, comm, strnlen(comm, CRASHFREE_COMM_LEN - 1));
	for (size_t i = 0; i < cf->nprocesses; i++)
		if (strcmp(cf->by_process[i].comm, name) == 0)
			return cf->by_process[i].crashes;
	return 0;
}

#endif /* DISKIO_CRASHFREE_CHECK_H */
