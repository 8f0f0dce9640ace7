// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the crash-free state file (crashfree_state.c): the
 * input is the file. Whatever it holds, crashfree_load() must not crash or
 * leak, and must leave either a loaded or a fresh state. A state it loads
 * must keep crashfree.h's invariants and survive a round trip:
 * crashfree_save() at the same instant and crashfree_load() again give the
 * same state.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "crashfree_state.h"
#include "fuzz_util.h"

/* Default interval; "now" 5 s after boot, so that restored marks wrap below 0. */
#define INTERVAL_NS CRASHFREE_DEFAULT_INTERVAL_NS
#define NOW_NS (UINT64_C(5) * 1000000000)

static char state_path[PATH_MAX], saved_path[PATH_MAX];

static void check_invariants(const struct crashfree *cf)
{
	uint64_t sum = 0;
	size_t i;

	FUZZ_CHECK(cf->interval_ns == INTERVAL_NS, "interval %" PRIu64, cf->interval_ns);
	FUZZ_CHECK(NOW_NS - cf->operational_mark_ns < cf->interval_ns, "operational progress");
	FUZZ_CHECK(NOW_NS - cf->crashfree_mark_ns < cf->interval_ns, "crash-free progress");
	FUZZ_CHECK(cf->crashfree_intervals <= cf->operational_intervals, "%" PRIu64 " > %" PRIu64,
		   cf->crashfree_intervals, cf->operational_intervals);
	FUZZ_CHECK(cf->nprocesses <= cf->capacity, "%zu > %zu", cf->nprocesses, cf->capacity);
	for (i = 0; i < cf->nprocesses; i++) {
		const struct crashfree_process *p = &cf->by_process[i];

		FUZZ_CHECK(memchr(p->comm, '\0', sizeof(p->comm)) != NULL, "comm %zu unterminated", i);
		FUZZ_CHECK(p->crashes > 0, "process %s with 0 crashes", p->comm);
		FUZZ_CHECK(i == 0 || strcmp(cf->by_process[i - 1].comm, p->comm) < 0,
			   "processes not sorted or repeated at %zu: %s", i, p->comm);
		FUZZ_CHECK(!__builtin_add_overflow(sum, p->crashes, &sum), "crash sum overflows");
	}
	FUZZ_CHECK(sum == cf->crashes, "per-process sum %" PRIu64 " != crashes %" PRIu64, sum,
		   cf->crashes);
}

static void check_equal(const struct crashfree *a, const struct crashfree *b)
{
	size_t i;

	FUZZ_CHECK(a->interval_ns == b->interval_ns, "interval_ns");
	FUZZ_CHECK(a->operational_mark_ns == b->operational_mark_ns, "operational mark %" PRIu64
		   " != %" PRIu64, a->operational_mark_ns, b->operational_mark_ns);
	FUZZ_CHECK(a->crashfree_mark_ns == b->crashfree_mark_ns, "crash-free mark %" PRIu64
		   " != %" PRIu64, a->crashfree_mark_ns, b->crashfree_mark_ns);
	FUZZ_CHECK(a->operational_intervals == b->operational_intervals, "operational intervals");
	FUZZ_CHECK(a->crashfree_intervals == b->crashfree_intervals, "crash-free intervals");
	FUZZ_CHECK(a->crashes == b->crashes, "crashes");
	FUZZ_CHECK(a->nprocesses == b->nprocesses, "%zu != %zu processes", a->nprocesses,
		   b->nprocesses);
	for (i = 0; i < a->nprocesses; i++) {
		FUZZ_CHECK(!memcmp(a->by_process[i].comm, b->by_process[i].comm,
				   CRASHFREE_COMM_LEN), "process %zu: %s != %s", i,
			   a->by_process[i].comm, b->by_process[i].comm);
		FUZZ_CHECK(a->by_process[i].crashes == b->by_process[i].crashes,
			   "crashes of %s", a->by_process[i].comm);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *dir = fuzz_scratch_dir();

	(void)argc;
	(void)argv;
	snprintf(state_path, sizeof(state_path), "%s/crash.state", dir);
	snprintf(saved_path, sizeof(saved_path), "%s/saved.state", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct crashfree loaded, reloaded;
	int status;

	fuzz_write_file(state_path, data, size);
	status = crashfree_load(&loaded, state_path, INTERVAL_NS, NOW_NS, NULL);
	if (status != 0) {
		/* Damaged (or unreadable): crashfree.h promises a fresh state. */
		FUZZ_CHECK(status != CRASHFREE_LOAD_NO_FILE, "the file is there");
		FUZZ_CHECK(loaded.crashes == 0 && loaded.nprocesses == 0 &&
			   loaded.operational_intervals == 0 && loaded.crashfree_intervals == 0 &&
			   loaded.operational_mark_ns == NOW_NS &&
			   loaded.crashfree_mark_ns == NOW_NS, "load %d left a state that is not fresh",
			   status);
		crashfree_free(&loaded);
		fuzz_empty_dir(fuzz_scratch_dir());
		return 0;
	}
	check_invariants(&loaded);

	status = crashfree_save(&loaded, saved_path, NOW_NS);
	FUZZ_CHECK(status == 0, "save: %s", strerror(-status));
	status = crashfree_load(&reloaded, saved_path, INTERVAL_NS, NOW_NS, NULL);
	FUZZ_CHECK(status == 0, "reload of a saved state: %d", status);
	check_equal(&loaded, &reloaded);

	crashfree_free(&loaded);
	crashfree_free(&reloaded);
	fuzz_empty_dir(fuzz_scratch_dir());
	return 0;
}
