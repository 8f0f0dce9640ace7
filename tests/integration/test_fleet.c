// SPDX-License-Identifier: GPL-2.0
/*
 * The fleet, end to end, as root with the real binary and Debian's packages
 * (scripts/deps.sh test): Debian's prometheus (127.0.0.1, a free port, a
 * temporary data directory, killed at the end whatever happens) scrapes two
 * node_exporters on 127.0.0.1, each serving the --prom file of its own
 * diskio: "host" A (--prom-label release=A, -D its own zram disk) and "host"
 * B (release=B, another zram disk).  Prometheus loads dist/prometheus's rules
 * and alerts, evaluated every second here.  After known O_DIRECT I/O and
 * real crashes (children that write through NULL: SIGSEGV), its HTTP API
 * answers exactly:
 *
 *  - bytes written and read per host (instance) and per release;
 *  - crashes per process name summed over the hosts, and per release: a
 *    crash before B started counts once (A's), the three while both ran
 *    count on both (6), and comm:diskio_crashes:increase1d says the same;
 *  - the crash-free ratio rules exist per instance, release and fleet, in
 *    [0, 1];
 *  - every expression of dist/grafana/diskio.json parses (promtool check
 *    rules on a rule file made of them) and returns data from this
 *    Prometheus.
 *
 * Both diskios see every crash of the machine (crashes are not filtered by
 * -D), so the test's crashing children have names of their own, and its I/O
 * children too.
 */
#include "harness.h"

#include <sys/resource.h>

#define BS		4096U
#define MiB		(1024U * 1024U)
#define DEV_SIZE	(64ULL * MiB)
#define ANSWER_TIMEOUT_MS	60000

TestSuite(fleet, .init = h_setup, .fini = h_teardown, .timeout = 240);

static char tmpdir[64];
static char repo[PATH_MAX];	/* the source tree: where $DISKIO is */

static void cleanup(void)
{
	/* The daemons are the harness's tracked children: h_cleanup() kills
	 * them, before this runs at exit. */
	if (tmpdir[0])
		h_remove_tree(tmpdir);
	tmpdir[0] = '\0';
}

static void path_in(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s/%s", tmpdir, name);
}

static void make_dirs(void)
{
	static const char *const subdirs[] = { "a", "b", "data" };
	char path[PATH_MAX];

	snprintf(tmpdir, sizeof(tmpdir), "/tmp/diskio-fleet-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir), "mkdtemp: %s", strerror(errno));
	chmod(tmpdir, 0755);	/* node_exporter and prometheus read it */
	atexit(cleanup);
	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		path_in(path, sizeof(path), subdirs[i]);
		cr_assert_eq(mkdir(path, 0755), 0, "mkdir %s: %s", path, strerror(errno));
	}
	snprintf(path, sizeof(path), "%s", h_diskio_path());
	snprintf(repo, sizeof(repo), "%.*s", (int)(strrchr(path, '/') - path), path);
}

static void write_all(const char *path, const char *text)
{
	FILE *out = fopen(path, "w");

	cr_assert_not_null(out, "%s: %s", path, strerror(errno));
	fputs(text, out);
	cr_assert_eq(fclose(out), 0, "%s: %s", path, strerror(errno));
}

/* ---- Prometheus ---- */

/*
 * The shipped rules with their groups' evaluation intervals taken out, so
 * that the global one of this test (1 s) applies: what the rules compute is
 * unchanged, the test need not wait a minute for their first evaluation.
 */
static void copy_rules(const char *from, const char *to)
{
	char *text = h_read_text(from), *out;
	size_t n = 0;

	cr_assert_not_null(text, "%s: %s", from, strerror(errno));
	out = calloc(1, strlen(text) + 1);
	cr_assert_not_null(out);
	for (char *line = text; *line;) {
		char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line + 1) : strlen(line);

		if (strncmp(line, "    interval: ", 14)) {
			memcpy(out + n, line, len);
			n += len;
		}
		line += len;
	}
	write_all(to, out);
	free(out);
	free(text);
}

/* Prometheus scraping both node_exporters every second; returns its port
 * once it says it is ready. */
static int start_prometheus(int port_a, int port_b)
{
	char config[PATH_MAX], rules[PATH_MAX], alerts[PATH_MAX], shipped[PATH_MAX + 64];
	char text[4 * PATH_MAX], data[PATH_MAX], log[PATH_MAX];
	char config_arg[PATH_MAX + 32], data_arg[PATH_MAX + 32], listen[64], url[96];
	int port = h_free_port();
	int64_t deadline = h_now_ms() + 30000;

	if (!h_have_program("prometheus"))
		cr_assert_fail("prometheus is not installed (scripts/deps.sh test)");
	path_in(rules, sizeof(rules), "diskio.rules.yml");
	path_in(alerts, sizeof(alerts), "diskio.alerts.yml");
	snprintf(shipped, sizeof(shipped), "%s/dist/prometheus/diskio.rules.yml", repo);
	copy_rules(shipped, rules);
	snprintf(shipped, sizeof(shipped), "%s/dist/prometheus/diskio.alerts.yml", repo);
	copy_rules(shipped, alerts);
	path_in(config, sizeof(config), "prometheus.yml");
	snprintf(text, sizeof(text),
		 "global:\n"
		 "  scrape_interval: 1s\n"
		 "  evaluation_interval: 1s\n"
		 "rule_files:\n"
		 "  - %s\n"
		 "  - %s\n"
		 "scrape_configs:\n"
		 "  - job_name: node\n"
		 "    static_configs:\n"
		 "      - targets: ['127.0.0.1:%d', '127.0.0.1:%d']\n",
		 rules, alerts, port_a, port_b);
	write_all(config, text);
	path_in(data, sizeof(data), "data");
	path_in(log, sizeof(log), "prometheus.log");
	snprintf(config_arg, sizeof(config_arg), "--config.file=%s", config);
	snprintf(data_arg, sizeof(data_arg), "--storage.tsdb.path=%s", data);
	snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", port);
	h_spawn_daemon(H_ARGS("prometheus", config_arg, data_arg, listen), log);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/-/ready", port);
	while (h_now_ms() < deadline) {
		char *body = h_http_get(url);

		if (body) {
			free(body);
			return port;
		}
		h_sleep_ms(200);
	}
	{
		char *logged = h_read_text(log);

		cr_assert_fail("prometheus was not ready on port %d:\n%s", port,
			       logged ? logged : "(no log)");
	}
	return -1;
}

/* One element of an instant vector: the values of the labels asked for,
 * joined with '/', and its value. */
struct element {
	char key[160];
	double value;
};

#define MAX_ELEMENTS 64

/*
 * GET /api/v1/query?query=expr: the elements of the instant vector it
 * answers (at most max), each keyed by the values of labels by[]
 * (NULL-terminated; a label it lacks counts as "").  Returns how many there
 * are, or -1 when the answer is not a success (its text into why).
 */
static int query(int port, const char *expr, const char *const by[], struct element *out,
		 int max, char *why, size_t why_size)
{
	char url[96], *query_arg;
	struct h_result r;
	struct h_jv root, status, data, result, elem;
	size_t pos = 0;
	int n = 0;

	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/query", port);
	cr_assert_neq(asprintf(&query_arg, "query=%s", expr), -1);
	h_run(H_ARGS("curl", "-sG", "--max-time", "5", "--data-urlencode", query_arg, url), NULL,
	      NULL, 8000, &r);
	free(query_arg);
	if (!WIFEXITED(r.status) || WEXITSTATUS(r.status) || !h_json_parse(r.out, &root) ||
	    !h_json_get(root, "status", &status) || !h_json_str_eq(status, "success") ||
	    !h_json_get(root, "data", &data) || !h_json_get(data, "result", &result)) {
		snprintf(why, why_size, "curl %#x: %.600s%.200s", r.status, r.out, r.err);
		h_result_free(&r);
		return -1;
	}
	while (h_json_next_elem(result, &pos, &elem)) {
		struct h_jv metric, value, number;
		size_t vpos = 0;
		char text[64];

		if (n >= max)
			break;
		out[n].key[0] = '\0';
		cr_assert(h_json_get(elem, "metric", &metric) && h_json_get(elem, "value", &value),
			  "%s: %.400s", expr, r.out);
		for (size_t i = 0; by && by[i]; i++) {
			struct h_jv label;
			char name[128] = "";

			if (h_json_get(metric, by[i], &label))
				cr_assert_geq(h_json_str(label, name, sizeof(name)), 0);
			snprintf(out[n].key + strlen(out[n].key), sizeof(out[n].key) - strlen(out[n].key),
				 "%s%s", i ? "/" : "", name);
		}
		/* [time, "value"] */
		cr_assert(h_json_next_elem(value, &vpos, &number) &&
			  h_json_next_elem(value, &vpos, &number) &&
			  h_json_str(number, text, sizeof(text)) > 0, "%s: %.400s", expr, r.out);
		out[n].value = strtod(text, NULL);
		n++;
	}
	h_result_free(&r);
	return n;
}

/* The value of key among elements[0..n), or -1 when it is not there. */
static double value_of(const struct element *elements, int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(elements[i].key, key))
			return elements[i].value;
	return -1;
}

/* Text of elements[0..n) for messages. */
static const char *elements_str(const struct element *elements, int n, char *buf, size_t size)
{
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), size - strlen(buf), "%s%s=%.17g", i ? ", " : "",
			 elements[i].key, elements[i].value);
	return buf;
}

/* One known answer: expr, grouped by `by`, must hold exactly these keys
 * with these values. */
struct answer {
	const char *expr;
	const char *const *by;
	struct {
		const char *key;
		double value;
	} want[4];
};

/* Whether prometheus answers expr as a says (why: what it answered). */
static bool answers(int port, const struct answer *a, char *why, size_t why_size)
{
	struct element elements[MAX_ELEMENTS];
	char got[1024];
	int n = query(port, a->expr, a->by, elements, MAX_ELEMENTS, why, why_size), wanted = 0;

	if (n < 0)
		return false;
	for (int i = 0; i < 4 && a->want[i].key; i++, wanted++) {
		if (value_of(elements, n, a->want[i].key) != a->want[i].value) {
			snprintf(why, why_size, "%s: %s is not %.17g: %s", a->expr, a->want[i].key,
				 a->want[i].value, elements_str(elements, n, got, sizeof(got)));
			return false;
		}
	}
	if (n != wanted) {
		snprintf(why, why_size, "%s: %d elements, not %d: %s", a->expr, n, wanted,
			 elements_str(elements, n, got, sizeof(got)));
		return false;
	}
	return true;
}

/* ---- children ---- */

static volatile uintptr_t null_address;	/* 0, hidden from the compiler */

/* A child named comm that writes through NULL: killed by SIGSEGV, a crash
 * (no core file: RLIMIT_CORE 0). */
static void crash_one(const char *comm)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0, "fork: %s", strerror(errno));
	if (!pid) {
		struct rlimit no_core = { 0, 0 };
		sigset_t none;

		h__child_prepare(-1);
		setrlimit(RLIMIT_CORE, &no_core);
		signal(SIGSEGV, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (prctl(PR_SET_NAME, comm, 0, 0, 0))
			_exit(40);
		*(volatile int *)null_address = 1;
		_exit(41);
	}
	h_track_child(pid);
	cr_assert_eq(h_wait_pid(pid, 10000, &status), 0, "%s did not end", comm);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV, "%s: %s", comm,
		  h_status_str(status, (char[64]){ 0 }, 64));
}

/* Wait until the --prom file at path has what (a line's start). */
static void wait_for_line(const char *path, const char *what, struct h_diskio *d)
{
	int64_t deadline = h_now_ms() + 20000;

	for (;;) {
		char *text = h_read_text(path);
		bool found = text && strstr(text, what);

		free(text);
		if (found)
			return;
		h_diskio_pump(d, 100);
		if (d->exited || h_now_ms() > deadline) {
			h_diskio_dump(d, "the --prom file");
			cr_assert_fail("%s never had %s", path, what);
		}
	}
}

/* A diskio of one "host": its --prom file in dir (a node_exporter's), its
 * release label, its own disk, crash intervals of a second. */
static void start_host(struct h_diskio *d, const char *dir, const char *release,
		       const struct h_dev *disk, char *file, size_t file_size)
{
	static char label[2][32], state[2][PATH_MAX];
	int which = release[0] == 'B';

	snprintf(file, file_size, "%s/%s/diskio.prom", tmpdir, dir);
	snprintf(label[which], sizeof(label[which]), "release=%s", release);
	snprintf(state[which], sizeof(state[which]), "%s/state-%s", tmpdir, dir);
	h_diskio_start(d, H_ARGS("--quiet", "--prom", file, "--prom-label", label[which],
				 "--state", state[which], "--crash-interval", "1", "-L", "-D",
				 disk->name, "0.2"), NULL);
	wait_for_line(file, "diskio_up{", d);
}

/* ---- the dashboard ---- */

/* Every panel target's expr of dist/grafana/diskio.json into exprs[]
 * (malloc'd); how many. */
static size_t dashboard_exprs(char **exprs, size_t max)
{
	char path[PATH_MAX + 64], *text;
	struct h_jv root, panels, panel, targets, target, expr;
	size_t ppos = 0, n = 0;

	snprintf(path, sizeof(path), "%s/dist/grafana/diskio.json", repo);
	text = h_read_text(path);
	cr_assert_not_null(text, "%s: %s", path, strerror(errno));
	cr_assert(h_json_parse(text, &root), "%s is not valid JSON", path);
	cr_assert(h_json_get(root, "panels", &panels), "%s: no panels", path);
	while (h_json_next_elem(panels, &ppos, &panel)) {
		size_t tpos = 0;
		struct h_jv title;
		char name[256] = "?";

		if (h_json_get(panel, "title", &title))
			h_json_str(title, name, sizeof(name));
		cr_assert(h_json_get(panel, "targets", &targets), "panel %s: no targets", name);
		while (h_json_next_elem(targets, &tpos, &target)) {
			char buf[1024];

			cr_assert(h_json_get(target, "expr", &expr), "panel %s: a target without expr",
				  name);
			cr_assert_gt(h_json_str(expr, buf, sizeof(buf)), 0, "panel %s: expr", name);
			cr_assert_lt(n, max);
			exprs[n++] = strdup(buf);
		}
	}
	free(text);
	return n;
}

/* promtool check rules on a rule file made of exprs: each one parses. */
static void promtool_parses(char *const *exprs, size_t n)
{
	char path[PATH_MAX];
	size_t size = 64;
	char *text;
	struct h_result r;

	for (size_t i = 0; i < n; i++)
		size += strlen(exprs[i]) * 2 + 64;
	text = calloc(1, size);
	cr_assert_not_null(text);
	strcat(text, "groups:\n  - name: dashboard\n    rules:\n");
	for (size_t i = 0; i < n; i++) {
		/* A YAML single-quoted scalar: a quote is doubled. */
		snprintf(text + strlen(text), size - strlen(text),
			 "      - record: dashboard:expr_%zu\n        expr: '", i);
		for (const char *c = exprs[i]; *c; c++)
			snprintf(text + strlen(text), size - strlen(text), "%s",
				 *c == '\'' ? "''" : (char[2]){ *c, 0 });
		strcat(text, "'\n");
	}
	path_in(path, sizeof(path), "dashboard.rules.yml");
	write_all(path, text);
	free(text);
	h_run(H_ARGS("promtool", "check", "rules", path), NULL, NULL, 30000, &r);
	cr_assert(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0,
		  "promtool check rules on the dashboard's expressions: %s%s", r.out, r.err);
	h_result_free(&r);
}

/* ---- the test ---- */

Test(fleet, two_hosts_two_releases_exact_bytes_and_crashes_through_prometheus)
{
	static const struct h_io write_a[] = { { 'w', 0, BS, 256 } };
	static const struct h_io write_b[] = { { 'w', 0, BS, 512 }, { 'r', 0, BS, 128 } };
	static const char *const by_instance[] = { "instance", NULL };
	static const char *const by_release[] = { "release", NULL };
	static const char *const by_comm[] = { "comm", NULL };
	static const char *const by_release_comm[] = { "release", "comm", NULL };
	const struct h_dev *zram_a = h_zram_create(DEV_SIZE), *zram_b = h_zram_create(DEV_SIZE);
	char file_a[PATH_MAX], file_b[PATH_MAX], dir[PATH_MAX], why[2048];
	char host_a[32], host_b[32], expr[512];
	struct h_diskio a, b;
	int port_a, port_b, port;
	char *exprs[64];
	size_t nexprs;

	make_dirs();
	path_in(dir, sizeof(dir), "a");
	h_start_node_exporter(dir, &port_a);
	path_in(dir, sizeof(dir), "b");
	h_start_node_exporter(dir, &port_b);
	snprintf(host_a, sizeof(host_a), "127.0.0.1:%d", port_a);
	snprintf(host_b, sizeof(host_b), "127.0.0.1:%d", port_b);
	port = start_prometheus(port_a, port_b);

	/* Host A alone sees the first crash; both see the next three. */
	start_host(&a, "a", "A", zram_a, file_a, sizeof(file_a));
	crash_one("dio-fearly");
	wait_for_line(file_a, "diskio_crashes_total{comm=\"dio-fearly\",release=\"A\"} 1", &a);
	start_host(&b, "b", "B", zram_b, file_b, sizeof(file_b));
	for (int i = 0; i < 3; i++)
		crash_one("dio-fsegv");
	h_expect_child_ok(h_spawn_io("dio-fleet-a", zram_a->path, write_a, 1, NULL),
			  H_CHILD_TIMEOUT_MS);
	h_expect_child_ok(h_spawn_io("dio-fleet-b", zram_b->path, write_b, 2, NULL),
			  H_CHILD_TIMEOUT_MS);

	{
		const struct answer known[] = {
			/* Bytes per host and per release, exactly what was written. */
			{ "sum by (instance) (diskio_write_bytes_total{comm=~\"dio-fleet-.\"})",
			  by_instance, { { host_a, 1048576 }, { host_b, 2097152 } } },
			{ "sum by (release) (diskio_write_bytes_total{comm=~\"dio-fleet-.\"})",
			  by_release, { { "A", 1048576 }, { "B", 2097152 } } },
			{ "sum by (release) (diskio_read_bytes_total{comm=~\"dio-fleet-.\"})",
			  by_release, { { "A", 0 }, { "B", 524288 } } },
			{ "sum by (release) (diskio_ios_total{comm=~\"dio-fleet-.\",op=\"write\"})",
			  by_release, { { "A", 256 }, { "B", 512 } } },
			/* Crashes per name, summed over the hosts, and per release. */
			{ "sum by (comm) (diskio_crashes_total{comm=~\"dio-f(early|segv)\"})",
			  by_comm, { { "dio-fearly", 1 }, { "dio-fsegv", 6 } } },
			{ "sum by (release, comm) (diskio_crashes_total{comm=~\"dio-f(early|segv)\"})",
			  by_release_comm,
			  { { "A/dio-fearly", 1 }, { "A/dio-fsegv", 3 }, { "B/dio-fsegv", 3 } } },
			/* The recording rules say the same. */
			{ "comm:diskio_crashes:increase1d{comm=~\"dio-f(early|segv)\"}", by_comm,
			  { { "dio-fearly", 1 }, { "dio-fsegv", 6 } } },
			{ "release_comm:diskio_crashes:increase1d{comm=~\"dio-f(early|segv)\"}",
			  by_release_comm,
			  { { "A/dio-fearly", 1 }, { "A/dio-fsegv", 3 }, { "B/dio-fsegv", 3 } } },
		};
		int64_t deadline = h_now_ms() + ANSWER_TIMEOUT_MS;

		/* Prometheus scrapes every second, rules follow: wait for the
		 * first answer that is right, then hold every one to it. */
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
			while (!answers(port, &known[i], why, sizeof(why))) {
				h_diskio_pump(&a, 0);
				h_diskio_pump(&b, 0);
				if (h_now_ms() > deadline || a.exited || b.exited) {
					h_diskio_dump(&a, "host A");
					h_diskio_dump(&b, "host B");
					cr_assert_fail("%s", why);
				}
				h_sleep_ms(500);
			}
		}
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			cr_assert(answers(port, &known[i], why, sizeof(why)), "%s", why);
	}

	/* The ratios: one per host and release, per release and for the fleet. */
	{
		static const struct {
			const char *expr, *const *by;
			int n;
		} ratios[] = {
			{ "instance_release:diskio_crashfree_ratio:1d", by_release, 2 },
			{ "release:diskio_crashfree_ratio:1d", by_release, 2 },
			{ "release:diskio_crashfree_ratio:7d", by_release, 2 },
			{ "fleet:diskio_crashfree_ratio:1d", by_release, 1 },
			{ "fleet:diskio_crashfree_ratio:7d", by_release, 1 },
		};
		int64_t deadline = h_now_ms() + ANSWER_TIMEOUT_MS;

		for (size_t i = 0; i < sizeof(ratios) / sizeof(ratios[0]); i++) {
			struct element elements[MAX_ELEMENTS];
			int n;

			while ((n = query(port, ratios[i].expr, ratios[i].by, elements, MAX_ELEMENTS,
					  why, sizeof(why))) != ratios[i].n) {
				cr_assert(h_now_ms() < deadline, "%s: %d elements, not %d %s",
					  ratios[i].expr, n, ratios[i].n, n < 0 ? why : "");
				h_sleep_ms(500);
			}
			for (int e = 0; e < n; e++)
				cr_assert(elements[e].value >= 0 && elements[e].value <= 1,
					  "%s{%s} = %g", ratios[i].expr, elements[e].key,
					  elements[e].value);
			if (ratios[i].n == 2)
				cr_assert(value_of(elements, n, "A") >= 0 && value_of(elements, n, "B") >= 0,
					  "%s: %s", ratios[i].expr,
					  elements_str(elements, n, why, sizeof(why)));
		}
	}

	/* Every expression of the dashboard parses, and has data here. */
	nexprs = dashboard_exprs(exprs, sizeof(exprs) / sizeof(exprs[0]));
	cr_assert_geq(nexprs, 10, "only %zu expressions in the dashboard", nexprs);
	promtool_parses(exprs, nexprs);
	for (size_t i = 0; i < nexprs; i++) {
		int64_t deadline = h_now_ms() + ANSWER_TIMEOUT_MS;
		struct element elements[MAX_ELEMENTS];
		int n;

		while ((n = query(port, exprs[i], NULL, elements, MAX_ELEMENTS, why,
				  sizeof(why))) <= 0) {
			cr_assert_geq(n, 0, "the dashboard's %s: %s", exprs[i], why);
			cr_assert(h_now_ms() < deadline, "the dashboard's %s has no data", exprs[i]);
			h_sleep_ms(500);
		}
		free(exprs[i]);
	}

	/* The device rows say the same as the process rows. */
	snprintf(expr, sizeof(expr), "diskio_device_write_bytes_total{device=\"%s\"}",
		 zram_a->name);
	{
		const struct answer device = { expr, by_release, { { "A", 1048576 } } };

		cr_assert(answers(port, &device, why, sizeof(why)), "%s", why);
	}

	cr_assert_eq(h_diskio_stop(&a, SIGTERM, H_EXIT_TIMEOUT_MS), 0, "A: %s", a.err);
	cr_assert_eq(h_diskio_stop(&b, SIGTERM, H_EXIT_TIMEOUT_MS), 0, "B: %s", b.err);
	cr_assert_str_empty(a.err, "A's stderr: %s", a.err);
	cr_assert_str_empty(b.err, "B's stderr: %s", b.err);
	h_diskio_free(&a);
	h_diskio_free(&b);
}
