// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON output contract, on the real binary: diskio --json, -T --json and
 * --json --by cgroup run a few intervals over known I/O and a crash, and
 * every record of every run is read with the tests' JSON reader:
 *
 * - every record is an object with a "type" of interval, event, crash or
 *   summary, a "time" in RFC 3339 UTC with milliseconds and a "ts" (epoch
 *   seconds with milliseconds) that is the same instant;
 * - interval and summary records carry "schema" 1 and "host", the node name;
 * - a key has one JSON type wherever it appears at the same place, in records
 *   of every type and every run (null stands for "no value" beside any one
 *   type).  Places are paths of keys; array elements are one place, and so
 *   are the members of "devices" and "by_process", whose keys are names.
 */
#include "harness.h"
#include <sys/resource.h>
#include <sys/utsname.h>

#define BS		4096U
#define DEV_SIZE	(64ULL * 1024 * 1024)
#define INTERVAL	"0.5"

TestSuite(contract, .init = h_setup, .fini = h_teardown, .timeout = 90);

enum jkind { K_NULL, K_BOOL, K_NUM, K_STR, K_ARR, K_OBJ, K_NR };
static const char *const kind_names[K_NR] = { "null", "bool", "number", "string", "array",
					      "object" };

static enum jkind kind_of(struct h_jv v)
{
	switch (v.p[0]) {
	case 'n': return K_NULL;
	case 't': case 'f': return K_BOOL;
	case '"': return K_STR;
	case '[': return K_ARR;
	case '{': return K_OBJ;
	default: return K_NUM;
	}
}

#define MAX_PLACES 512

/* The kinds seen at each place, and where each was first seen. */
struct places {
	char *path[MAX_PLACES];
	unsigned int kinds[MAX_PLACES];		/* bit per enum jkind */
	char *first_line[MAX_PLACES][K_NR];	/* a record showing it */
	size_t n;
};

static void places_free(struct places *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->path[i]);
		for (int k = 0; k < K_NR; k++)
			free(p->first_line[i][k]);
	}
}

static void place_seen(struct places *p, const char *path, enum jkind kind, const char *line)
{
	size_t i;

	for (i = 0; i < p->n && strcmp(p->path[i], path); i++)
		;
	if (i == p->n) {
		cr_assert_lt(p->n, MAX_PLACES);
		p->path[p->n++] = strdup(path);
	}
	if (!(p->kinds[i] & (1U << kind))) {
		p->kinds[i] |= 1U << kind;
		p->first_line[i][kind] = strndup(line, 400);
	}
}

/* Record the kind of v at path, and of everything below it. */
static void walk(struct places *p, const char *path, struct h_jv v, const char *line)
{
	enum jkind kind = kind_of(v);
	char below[512];
	size_t pos = 0;

	place_seen(p, path, kind, line);
	if (kind == K_ARR) {
		struct h_jv elem;

		snprintf(below, sizeof(below), "%s[]", path);
		while (h_json_next_elem(v, &pos, &elem))
			walk(p, below, elem, line);
	} else if (kind == K_OBJ) {
		/* Members named by data, not by the contract, are one place. */
		size_t len = strlen(path);
		bool names = (len >= 7 && !strcmp(path + len - 7, "devices")) ||
			     (len >= 10 && !strcmp(path + len - 10, "by_process"));
		struct h_jv key, val;

		while (h_json_next_member(v, &pos, &key, &val)) {
			char name[256];

			cr_assert_geq(h_json_str(key, name, sizeof(name)), 0);
			snprintf(below, sizeof(below), "%s%s%s", path, *path ? "." : "",
				 names ? "*" : name);
			walk(p, below, val, line);
		}
	}
}

/* "2026-11-23T07:01:50.123Z": milliseconds since the epoch, or -1. */
static int64_t rfc3339_millis(const char *text)
{
	struct tm tm = { 0 };
	int millis;
	char z;

	if (strlen(text) != 24 || sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d.%3d%c", &tm.tm_year,
					 &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
					 &tm.tm_sec, &millis, &z) != 8 || z != 'Z')
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (int64_t)timegm(&tm) * 1000 + millis;
}

/* The head every record has: type, time, ts (and schema, host). */
static void check_record_head(const char *line, struct h_jv root, int counts[5])
{
	static const char *const types[] = { "interval", "event", "crash", "summary", "start" };
	char type[32], time[64], ts[64];
	struct h_jv v;
	int64_t schema, millis;
	struct utsname uts;
	int t;

	cr_assert(kind_of(root) == K_OBJ, "not an object: %.300s", line);
	cr_assert(h_json_get(root, "type", &v) && h_json_str(v, type, sizeof(type)) >= 0,
		  "no \"type\": %.300s", line);
	for (t = 0; t < 5 && strcmp(type, types[t]); t++)
		;
	cr_assert_lt(t, 5, "unknown type %s: %.300s", type, line);
	counts[t]++;
	cr_assert(h_json_get(root, "time", &v) && h_json_str(v, time, sizeof(time)) >= 0,
		  "no string \"time\": %.300s", line);
	millis = rfc3339_millis(time);
	cr_assert_geq(millis, 0, "time %s is not RFC 3339 UTC with milliseconds", time);
	cr_assert(h_json_get(root, "ts", &v) && kind_of(v) == K_NUM && v.len < sizeof(ts),
		  "no number \"ts\": %.300s", line);
	memcpy(ts, v.p, v.len);
	ts[v.len] = '\0';
	cr_assert(strchr(ts, '.') && strlen(strchr(ts, '.')) == 4, "ts %s: not milliseconds", ts);
	cr_assert_eq(strtoll(ts, NULL, 10) * 1000 + atoi(strchr(ts, '.') + 1), millis,
		     "ts %s is not time %s", ts, time);
	if (t == 0 || t == 3) {
		cr_assert(h_json_get_int(root, "schema", &schema) && schema == 1,
			  "no \"schema\":1: %.300s", line);
		cr_assert_eq(uname(&uts), 0);
		cr_assert(h_json_get(root, "host", &v) && h_json_str_eq(v, uts.nodename),
			  "\"host\" is not %s: %.300s", uts.nodename, line);
	}
}

/* A child that dies of SIGSEGV without a core file. */
static pid_t spawn_segv(const char *comm)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (!pid) {
		struct rlimit no_core = { 0, 0 };

		h__child_prepare(-1);
		if (prctl(PR_SET_NAME, comm, 0, 0, 0) || setrlimit(RLIMIT_CORE, &no_core))
			_exit(H_IO_ERR_NAME);
		signal(SIGSEGV, SIG_DFL);
		raise(SIGSEGV);
		_exit(H_IO_ERR_OP);
	}
	return pid;
}

/* One run of diskio with args over known I/O and a crash: its records into
 * places, counted by type into counts. */
static void run_and_walk(const char *const args[], const struct h_dev *zram,
			 struct places *places, int counts[5])
{
	static const struct h_io ops[] = { { 'w', 0, BS, 64 }, { 'r', 0, BS, 32 } };
	struct h_diskio d;
	int status;
	pid_t crash;

	h_diskio_start(&d, args, NULL);
	h_diskio_wait_attached(&d, H_ATTACH_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("dio-contract", zram->path, ops, 2, NULL), H_CHILD_TIMEOUT_MS);
	crash = spawn_segv("dio-contract-c");
	cr_assert_eq(h_wait_pid(crash, 5000, &status), 0);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	h_diskio_finish(&d, 2);
	for (size_t i = 0; i < d.nlines; i++) {
		struct h_jv root;

		cr_assert(h_json_parse(d.lines[i], &root), "not JSON: %.300s", d.lines[i]);
		check_record_head(d.lines[i], root, counts);
		walk(places, "", root, d.lines[i]);
	}
	h_diskio_free(&d);
}

Test(contract, every_json_key_keeps_one_type_in_every_record)
{
	const struct h_dev *zram = h_zram_create(DEV_SIZE);
	struct places places = { 0 };
	int counts[5] = { 0 }, trace[5] = { 0 };
	bool clash = false;

	run_and_walk(H_ARGS("--json", "-D", zram->name, INTERVAL), zram, &places, counts);
	run_and_walk(H_ARGS("--json", "--by", "cgroup", "-a", "-D", zram->name, INTERVAL), zram,
		     &places, counts);
	run_and_walk(H_ARGS("-T", "--json", "-D", zram->name, INTERVAL), zram, &places, trace);
	/* Every type of record was seen, in the modes that write it. */
	cr_assert_geq(counts[0], 4, "%d interval records", counts[0]);
	cr_assert_eq(counts[1] + counts[2], 0, "events or crash records without -T");
	cr_assert_eq(counts[3], 2, "%d summaries", counts[3]);
	cr_assert_eq(counts[4], 2, "%d start records in two runs", counts[4]);
	cr_assert_geq(trace[0], 2, "-T: %d interval records", trace[0]);
	cr_assert_eq(trace[1], 96, "-T: %d events for 96 I/Os", trace[1]);
	cr_assert_eq(trace[2], 1, "-T: %d crash records", trace[2]);
	cr_assert_eq(trace[3], 1, "-T: %d summaries", trace[3]);
	cr_assert_eq(trace[4], 1, "-T: %d start records", trace[4]);

	for (size_t i = 0; i < places.n; i++) {
		unsigned int kinds = places.kinds[i] & ~(1U << K_NULL);

		if (!kinds || !(kinds & (kinds - 1)))
			continue;
		clash = true;
		for (int k = 0; k < K_NR; k++)
			if (places.kinds[i] & (1U << k))
				cr_log_error("%s is a %s in: %s", places.path[i], kind_names[k],
					     places.first_line[i][k]);
	}
	cr_assert_not(clash, "keys with more than one JSON type (see above)");
	/* The keys people rely on, with their types. */
	for (size_t i = 0; i < places.n; i++) {
		static const struct {
			const char *path;
			enum jkind kind;
		} expected[] = {
			{ "type", K_STR }, { "time", K_STR }, { "ts", K_NUM }, { "schema", K_NUM },
			{ "host", K_STR }, { "total", K_OBJ }, { "events", K_NUM },
			{ "rows_cut", K_NUM }, { "crash", K_OBJ }, { "processes[].pid", K_NUM },
		};

		for (size_t k = 0; k < sizeof(expected) / sizeof(expected[0]); k++)
			if (!strcmp(places.path[i], expected[k].path))
				cr_assert(places.kinds[i] & (1U << expected[k].kind), "%s is no %s",
					  expected[k].path, kind_names[expected[k].kind]);
	}
	places_free(&places);
}
