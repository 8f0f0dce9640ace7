// SPDX-License-Identifier: GPL-2.0
/* --diagnose's view (diagnose.h): the sentence first, then the disks. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "diagnose.h"
#include "diagnosis.h"
#include "options.h"
#include "pmem_metrics.h"
#include "view.h"

/* The longest command line a sentence quotes; the table has it whole. */
#define SENTENCE_CMDLINE	72
#define VERDICT_SIZE		1024

struct diagnose_view {
	struct diagnose_rules rules;
	diagnose_limit_fn limit_of;
	double seconds;		/* live: the window's length; 0 a replay */
	FILE *notes;		/* stderr, for the words beside the diagnosis */
	bool json;
	bool diagnosed;		/* a frame came */
	bool failed;		/* out of memory: no diagnosis */
	bool trouble;
	struct diagnosis d;
};

/* A name for the sentence and the tables: as the top view escapes it
 * (a process may name itself with control bytes), or raw for JSON, which
 * escapes on its own. */
static const char *shown(const struct view *v, const struct diagnose_view *dv, char *buf,
			 size_t size, const char *name, size_t most)
{
	size_t len = strlen(name);
	bool cut = len > most;

	if (cut)
		len = most;
	if (dv->json)
		snprintf(buf, size, "%.*s%s", (int)len, name, cut ? "..." : "");
	else {
		printable_name(buf, size - 4, name, len, v->screen.utf8);
		if (cut)
			strcat(buf, "...");
	}
	return buf;
}

/* "dd (pid 812, root, `dd if=/dev/zero ...`)" */
static void who(const struct view *v, const struct diagnose_view *dv, const struct diag_proc *p,
		char *out, size_t size)
{
	char comm[PRINTABLE_SIZE(64)], user[PRINTABLE_SIZE(64)];
	char cmdline[PRINTABLE_SIZE(SENTENCE_CMDLINE) + 4], cgroup[PRINTABLE_SIZE(96) + 4];

	if (!p->has_pid) {
		snprintf(out, size, "cgroup %s",
			 p->cgroup ? shown(v, dv, cgroup, sizeof(cgroup), p->cgroup, 96) : "-");
		return;
	}
	snprintf(out, size, "%s (pid %" PRIu32 "%s%s%s%s%s)",
		 shown(v, dv, comm, sizeof(comm), p->comm ? p->comm : "-", 64), p->pid,
		 p->user ? ", " : "", p->user ? shown(v, dv, user, sizeof(user), p->user, 64) : "",
		 p->cmdline ? ", `" : "",
		 p->cmdline ? shown(v, dv, cmdline, sizeof(cmdline), p->cmdline, SENTENCE_CMDLINE) :
			      "",
		 p->cmdline ? "`" : "");
}

/* "ENOSPC 24, EIO 1" */
static void error_kinds(const uint64_t errors[IO_ERROR_KINDS], char *out, size_t size);

/* printf() at out's end: *used grows, never past size (what does not fit
 * is cut). */
static void add(char *out, size_t size, size_t *used, const char *format, ...)
	__attribute__((format(printf, 4, 5)));
static void add(char *out, size_t size, size_t *used, const char *format, ...)
{
	va_list args;
	int n;

	if (*used >= size)
		return;
	va_start(args, format);
	n = vsnprintf(out + *used, size - *used, format, args);
	va_end(args);
	if (n > 0)
		*used = *used + (size_t)n < size ? *used + (size_t)n : size;
}

static void error_kinds(const uint64_t errors[IO_ERROR_KINDS], char *out, size_t size)
{
	size_t used = 0;

	out[0] = '\0';
	for (int k = 0; k < IO_ERROR_KINDS; k++)
		if (errors[k])
			add(out, size, &used, "%s%s %" PRIu64, used ? ", " : "", io_error_names[k],
			    errors[k]);
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* The one sentence with the most important finding. */
static void verdict(const struct view *v, const struct diagnose_view *dv, char *out, size_t size)
{
	const struct diagnosis *d = &dv->d;
	const struct diag_disk *disk = d->ndisks ? &d->disks[0] : NULL;
	char name[PRINTABLE_SIZE(64)], whom[1024], kinds[256], rate[2][32];
	size_t trouble = 0, used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < d->ndisks; i++)
		trouble += disk_state_trouble(d->disks[i].state);
	if (!disk || disk->state == DISK_IDLE) {
		add(out, size, &used, "No disk is in trouble: no disk did I/O in the %.1f s.",
		    d->duration_s);
		return;
	}
	shown(v, dv, name, sizeof(name), disk->name, 63);
	if (disk->ndrivers)
		who(v, dv, &disk->drivers[0], whom, sizeof(whom));
	switch (disk->state) {
	case DISK_FAILING: {
		const struct diag_proc *first = NULL;

		for (size_t i = 0; i < disk->ndrivers && !first; i++)
			if (disk->drivers[i].nerrors)
				first = &disk->drivers[i];
		error_kinds(disk->errors, kinds, sizeof(kinds));
		add(out, size, &used, "%s is failing: %" PRIu64 " %s failed (%s)", name,
		    disk->nerrors, plural(disk->nerrors, "I/O", "I/Os"), kinds);
		if (first) {
			who(v, dv, first, whom, sizeof(whom));
			add(out, size, &used, "; %s issued %" PRIu64 " of them", whom,
			    first->nerrors);
		}
		break;
	}
	case DISK_THROTTLED:
		who(v, dv, &disk->waiters[0], whom, sizeof(whom));
		add(out, size, &used, "%s is throttled: %s waited on it %.0f%% of the time while "
		    "the disk was busy %.1f%%", name, whom, disk->waiters[0].iowait_pct,
		    disk->util);
		if (disk->limit)
			add(out, size, &used, "; the limit: %s", disk->limit);
		else
			add(out, size, &used, "; no cgroup limit %s",
			    dv->limit_of ? "was found" : "is known in a replay");
		break;
	default:
		if (disk->state < DISK_BUSY) {
			format_bytes(rate[0], sizeof(rate[0]), disk->read_bytes / d->duration_s);
			format_bytes(rate[1], sizeof(rate[1]), disk->write_bytes / d->duration_s);
			add(out, size, &used, "No disk is in trouble; the busiest, %s, ", name);
			if (disk->has_iostat)
				add(out, size, &used, "was %.1f%% busy (%s/s read, %s/s written)",
				    disk->util, rate[0], rate[1]);
			else
				add(out, size, &used, "read %s/s and wrote %s/s", rate[0], rate[1]);
		} else {
			add(out, size, &used, "%s%s is %s (%%util %.1f, aqu-sz %.2f)",
			    trouble ? "" : "No disk is in trouble; ", name,
			    disk_state_names[disk->state], disk->util, disk->aqu_sz);
		}
		if (disk->ndrivers && disk->drivers[0].share_pct > 0)
			add(out, size, &used, "%s %s: %.0f%% of its bytes",
			    disk->state < DISK_BUSY ? "; the first driver," : " by", whom,
			    disk->drivers[0].share_pct);
		if (disk->state >= DISK_BUSY && d->iowait_known && disk->nwaiters)
			add(out, size, &used, "; %zu %s waited on it %.0f%% of the time or more",
			    disk->nwaiters, plural(disk->nwaiters, "process", "processes"),
			    dv->rules.wait_pct);
		else if (disk->state >= DISK_BUSY && d->iowait_known)
			add(out, size, &used, "; no process waited on it %.0f%% of the time or more",
			    dv->rules.wait_pct);
		break;
	}
	if (trouble > 1)
		add(out, size, &used, " (and %zu more %s in trouble)", trouble - 1,
		    plural(trouble - 1, "disk", "disks"));
	add(out, size, &used, ".");
}

/* ---- text ---- */

static void text_proc(const struct view *v, const struct diagnose_view *dv,
		      const struct diag_proc *p, bool driver)
{
	char comm[PRINTABLE_SIZE(64)], user[PRINTABLE_SIZE(64)], bytes[2][32], kinds[256];
	char *line = NULL;
	FILE *out = v->out;

	if (p->has_pid)
		fprintf(out, "    %7" PRIu32 " %-15s %-10s", p->pid,
			shown(v, dv, comm, sizeof(comm), p->comm ? p->comm : "-", 64),
			p->user ? shown(v, dv, user, sizeof(user), p->user, 32) : "-");
	else
		fprintf(out, "    %7s %-15s %-10s", "-", "-", "-");
	if (driver) {
		format_bytes(bytes[0], sizeof(bytes[0]), (double)p->read_bytes);
		format_bytes(bytes[1], sizeof(bytes[1]), (double)p->write_bytes);
		error_kinds(p->errors, kinds, sizeof(kinds));
		fprintf(out, " %5.1f%% %10s %10s  %-10s", p->share_pct, bytes[0], bytes[1],
			p->nerrors ? kinds : "-");
	} else {
		fprintf(out, " %6.2f%%", p->iowait_pct);
		/* its cgroup's io.pressure, some, over the window */
		if (p->cgroup_pressure.known)
			fprintf(out, " %6.2f%%", p->cgroup_pressure.some_pct);
		else
			fprintf(out, " %7s", "-");
	}
	if (p->cmdline && (line = malloc(PRINTABLE_SIZE(strlen(p->cmdline)))))
		fprintf(out, "  %s", printable_name(line, PRINTABLE_SIZE(strlen(p->cmdline)),
						    p->cmdline, strlen(p->cmdline),
						    v->screen.utf8));
	free(line);
	if (!p->has_pid && p->cgroup)
		fprintf(out, "  cgroup %s", shown(v, dv, comm, sizeof(comm), p->cgroup, 60));
	fputc('\n', out);
	for (size_t i = 0; driver && i < p->nfiles; i++) {
		char *path = malloc(PRINTABLE_SIZE(strlen(p->files[i].path)));

		format_bytes(bytes[0], sizeof(bytes[0]), (double)p->files[i].bytes);
		if (path)
			fprintf(out, "            %10s  %s\n", bytes[0],
				printable_name(path, PRINTABLE_SIZE(strlen(p->files[i].path)),
					       p->files[i].path, strlen(p->files[i].path),
					       v->screen.utf8));
		free(path);
	}
}

static void text_disk_line(const struct view *v, const struct diagnose_view *dv,
			   const struct diag_disk *d)
{
	char name[PRINTABLE_SIZE(64)], bytes[2][32], kinds[256];

	format_bytes(bytes[0], sizeof(bytes[0]), (double)d->read_bytes);
	format_bytes(bytes[1], sizeof(bytes[1]), (double)d->write_bytes);
	error_kinds(d->errors, kinds, sizeof(kinds));
	fprintf(v->out, "%-12s %-9s", shown(v, dv, name, sizeof(name), d->name, 63),
		disk_state_names[d->state]);
	if (d->has_iostat)
		fprintf(v->out, " %6.1f %7.2f %8.2f %8.2f", d->util, d->aqu_sz, d->r_await,
			d->w_await);
	else
		fprintf(v->out, " %6s %7s %8s %8s", "-", "-", "-", "-");
	fprintf(v->out, " %10s %10s  %s\n", bytes[0], bytes[1], d->nerrors ? kinds : "-");
}

static void show_text(struct view *v, const struct diagnose_view *dv, const char *sentence)
{
	const struct diagnosis *d = &dv->d;
	size_t idle = 0;
	char when[32];

	format_utc(when, sizeof(when), &d->wall);
	fprintf(v->out, "%s\n\n", sentence);
	fprintf(v->out, "Diagnosis of %.1f s up to %s%s", d->duration_s, when,
		d->partial ? " (stopped early)" : "");
	if (d->pressure_known)
		fprintf(v->out, "; I/O pressure: some %.2f%%, full %.2f%%", d->pressure_some_pct,
			d->pressure_full_pct);
	fprintf(v->out, "%s.\n", d->iowait_known ? "" : "; who waits is not measured here");
	for (size_t i = 0; i < d->ndisks; i++)
		idle += d->disks[i].state == DISK_IDLE;
	if (idle < d->ndisks)
		fprintf(v->out, "\n%-12s %-9s %6s %7s %8s %8s %10s %10s  %s\n", "DISK", "STATE",
			"%UTIL", "AQU-SZ", "R_AWAIT", "W_AWAIT", "READ", "WRITE", "ERRORS");
	for (size_t i = 0; i < d->ndisks; i++) {
		const struct diag_disk *disk = &d->disks[i];

		if (disk->state == DISK_IDLE)
			continue;
		text_disk_line(v, dv, disk);
		if (disk->state < DISK_BUSY && !disk->nerrors)
			continue;	/* a table only for a disk worth a look */
		if (disk->limit)
			fprintf(v->out, "  limit: %s\n", disk->limit);
		if (disk->ndrivers) {
			fprintf(v->out, "  drivers:\n    %7s %-15s %-10s %6s %10s %10s  %-10s  %s\n",
				"PID", "COMMAND", "USER", "SHARE", "READ", "WRITE", "ERRORS", "CMDLINE");
			for (size_t k = 0; k < disk->ndrivers; k++)
				text_proc(v, dv, &disk->drivers[k], true);
		}
		if (disk->nwaiters) {
			fprintf(v->out, "  waiters:\n    %7s %-15s %-10s %7s %7s  %s\n", "PID",
				"COMMAND", "USER", "IO>", "CG_SOME", "CMDLINE");
			for (size_t k = 0; k < disk->nwaiters; k++)
				text_proc(v, dv, &disk->waiters[k], false);
		}
	}
	if (idle)
		fprintf(v->out, "%s%zu idle %s not shown.\n", idle < d->ndisks ? "" : "\n", idle,
			plural(idle, "disk", "disks"));
	if (d->nwaiters) {
		fprintf(v->out, "Waited with no I/O of their own:\n    %7s %-15s %-10s %7s %7s  %s\n",
			"PID", "COMMAND", "USER", "IO>", "CG_SOME", "CMDLINE");
		for (size_t k = 0; k < d->nwaiters; k++)
			text_proc(v, dv, &d->waiters[k], false);
	}
}

/* ---- JSON ---- */

static void json_errors(struct jsonw *w, const uint64_t errors[IO_ERROR_KINDS])
{
	jsonw_object(w, "errors");
	for (int k = 0; k < IO_ERROR_KINDS; k++)
		if (errors[k])
			jsonw_u64(w, io_error_names[k], errors[k]);
	jsonw_object_end(w);
}

static void json_text(struct jsonw *w, const char *key, const char *text)
{
	if (text)
		jsonw_string(w, key, text, strlen(text));
	else
		jsonw_null(w, key);
}

static void json_who(struct jsonw *w, const struct diag_proc *p)
{
	if (p->has_pid)
		jsonw_u64(w, "pid", p->pid);
	else
		jsonw_null(w, "pid");
	json_text(w, "comm", p->comm);
	json_text(w, "user", p->user);
	json_text(w, "cmdline", p->cmdline);
	json_text(w, "cgroup", p->cgroup);
}

static void json_waiters(struct jsonw *w, const char *key, const struct diag_proc *p, size_t n)
{
	jsonw_array(w, key);
	for (size_t i = 0; i < n; i++) {
		jsonw_object(w, NULL);
		json_who(w, &p[i]);
		jsonw_double(w, "iowait_pct", "%.2f", p[i].iowait_pct);
		json_write_pressure(w, "cgroup_pressure", &p[i].cgroup_pressure);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
}

static void json_disk(struct jsonw *w, const struct diag_disk *d)
{
	jsonw_object(w, NULL);
	jsonw_string(w, "device", d->name, strlen(d->name));
	jsonw_string(w, "state", disk_state_names[d->state], strlen(disk_state_names[d->state]));
	if (d->has_iostat) {
		jsonw_double(w, "util_pct", "%.2f", d->util);
		jsonw_double(w, "aqu_sz", "%.2f", d->aqu_sz);
		jsonw_double(w, "r_await_ms", "%.2f", d->r_await);
		jsonw_double(w, "w_await_ms", "%.2f", d->w_await);
	} else {
		jsonw_null(w, "util_pct");
		jsonw_null(w, "aqu_sz");
		jsonw_null(w, "r_await_ms");
		jsonw_null(w, "w_await_ms");
	}
	jsonw_u64(w, "read_bytes", d->read_bytes);
	jsonw_u64(w, "write_bytes", d->write_bytes);
	jsonw_u64(w, "discard_bytes", d->discard_bytes);
	jsonw_u64(w, "ios", d->ios);
	json_errors(w, d->errors);
	json_text(w, "limit", d->limit);
	jsonw_array(w, "drivers");
	for (size_t i = 0; i < d->ndrivers; i++) {
		const struct diag_proc *p = &d->drivers[i];

		jsonw_object(w, NULL);
		json_who(w, p);
		jsonw_u64(w, "read_bytes", p->read_bytes);
		jsonw_u64(w, "write_bytes", p->write_bytes);
		jsonw_u64(w, "discard_bytes", p->discard_bytes);
		jsonw_double(w, "share_pct", "%.2f", p->share_pct);
		json_errors(w, p->errors);
		json_write_pressure(w, "cgroup_pressure", &p->cgroup_pressure);
		jsonw_array(w, "files");
		for (size_t k = 0; k < p->nfiles; k++) {
			jsonw_object(w, NULL);
			json_text(w, "path", p->files[k].path);
			jsonw_u64(w, "bytes", p->files[k].bytes);
			jsonw_object_end(w);
		}
		jsonw_array_end(w);
		jsonw_object_end(w);
	}
	jsonw_array_end(w);
	json_waiters(w, "waiters", d->waiters, d->nwaiters);
	jsonw_object_end(w);
}

static void show_json(struct view *v, const struct diagnose_view *dv, const char *sentence)
{
	const struct diagnosis *d = &dv->d;
	struct jsonw *w = &v->json;

	jsonw_object(w, NULL);
	json_write_record_head(w, "diagnosis", &d->wall, v->host);
	jsonw_double(w, "duration_s", "%.3f", d->duration_s);
	jsonw_bool(w, "partial", d->partial);
	jsonw_string(w, "verdict", sentence, strlen(sentence));
	jsonw_bool(w, "trouble", dv->trouble);
	json_write_pressure(w, "pressure", &(const struct pressure_share){
		d->pressure_known, d->pressure_some_pct, d->pressure_full_pct });
	jsonw_bool(w, "iowait_known", d->iowait_known);
	jsonw_array(w, "disks");
	for (size_t i = 0; i < d->ndisks; i++)
		if (d->disks[i].state != DISK_IDLE)
			json_disk(w, &d->disks[i]);
	jsonw_array_end(w);
	json_waiters(w, "waiters_without_io", d->waiters, d->nwaiters);
	jsonw_object_end(w);
	jsonw_end_record(w);
}

/* ---- the view ---- */

/* Live, as counting begins: with --json a "start" record, which a script
 * waits for before it starts its workload; on a terminal a word on stderr,
 * since nothing else shows until the window ends. */
static void diagnose_start(struct view *v)
{
	struct diagnose_view *dv = v->diagnose;
	struct timespec now;

	if (!dv->seconds)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	if (dv->json) {
		jsonw_object(&v->json, NULL);
		json_write_record_head(&v->json, "start", &now, v->host);
		jsonw_double(&v->json, "duration_s", "%g", dv->seconds);
		jsonw_object_end(&v->json);
		jsonw_end_record(&v->json);
		fflush(v->out);
	} else if (dv->notes && isatty(fileno(dv->notes))) {
		fprintf(dv->notes, "diskio: diagnosing: counting for %g s (Ctrl-C ends it sooner)\n",
			dv->seconds);
	}
}

static void diagnose_interval_end(struct view *v, const struct frame *f)
{
	struct diagnose_view *dv = v->diagnose;

	if (diagnose_frame(&dv->d, f, &dv->rules)) {
		dv->failed = true;
		return;
	}
	dv->diagnosed = true;
}

/* A throttled disk's limit, from the cgroups of its waiters. */
static void find_limits(struct diagnose_view *dv)
{
	for (size_t i = 0; dv->limit_of && i < dv->d.ndisks; i++) {
		struct diag_disk *disk = &dv->d.disks[i];
		char text[512];

		if (disk->state != DISK_THROTTLED || !disk->dev)
			continue;
		for (size_t k = 0; k < disk->nwaiters && !disk->limit; k++)
			if (disk->waiters[k].has_pid &&
			    dv->limit_of(disk->waiters[k].pid, disk->dev, text, sizeof(text)) == 1)
				disk->limit = strdup(text);
	}
}

static void diagnose_summary(struct view *v, const struct summary *s)
{
	struct diagnose_view *dv = v->diagnose;
	char sentence[VERDICT_SIZE];

	(void)s;
	if (dv->failed) {
		if (dv->notes)
			fprintf(dv->notes, "diskio: --diagnose: out of memory\n");
		return;
	}
	if (!dv->diagnosed)
		return;
	find_limits(dv);
	dv->trouble = diagnosis_trouble(&dv->d);
	verdict(v, dv, sentence, sizeof(sentence));
	if (dv->json)
		show_json(v, dv, sentence);
	else
		show_text(v, dv, sentence);
}

int view_diagnose(struct view *v, FILE *out, FILE *notes, bool json, double seconds,
		  const struct diagnose_rules *rules, diagnose_limit_fn limit_of)
{
	struct diagnose_view *dv = calloc(1, sizeof(*dv));

	if (!dv)
		return -ENOMEM;
	dv->rules = *rules;
	dv->json = json;
	dv->seconds = seconds;
	dv->notes = notes;
	dv->limit_of = limit_of;
	*v = (struct view){
		.start = diagnose_start, .interval_end = diagnose_interval_end,
		.summary = diagnose_summary, .out = out,
		.diagnose = dv,
	};
	jsonw_init(&v->json, out);
	view_init_host(v);
	return 0;
}

void view_diagnose_free(struct view *v)
{
	if (!v->diagnose)
		return;
	diagnosis_free(&v->diagnose->d);
	free(v->diagnose);
	v->diagnose = NULL;
}

int view_diagnose_status(const struct view *v)
{
	if (!v->diagnose)
		return 0;
	return v->diagnose->failed ? EXIT_START : v->diagnose->trouble ? EXIT_TROUBLE : 0;
}
