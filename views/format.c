// SPDX-License-Identifier: GPL-2.0
/*
 * What the views share: the counters they show, escaping and
 * formatting of names, times and sizes, the crash-free line; and the view
 * that shows nothing (--quiet).  The batch view is batch.c, JSON json.c,
 * the top view top.c.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <wchar.h>
#include "escape.h"
#include "format.h"
#include "ioprio.h"
#include "utf8.h"
#include "view.h"

/* Counters a row or device shows, in batch column order. */
const enum pmem_counter_id shown_counters[NR_SHOWN] = {
	PMEM_READ_BYTES, PMEM_WRITE_BYTES, PMEM_DISCARD_BYTES,
	PMEM_READ_IOS, PMEM_WRITE_IOS, PMEM_DISCARD_IOS, PMEM_FLUSHES,
};


/* A row's latency is shown only with -L: otherwise the rows hold the I/Os
 * tracked for a filter, not a per-process measurement. */
bool row_latency_tenths(const struct frame *f, const uint64_t *values, uint64_t *tenths)
{
	return f->per_process_latency && pmem_avg_latency_tenths_us(values, tenths);
}

const char *row_ioprio(const struct proc_io *row, char *buf)
{
	const struct row_owner *o = &row->owner;

	if (!(o->flags & ROW_OWNER_KNOWN))
		return NULL;
	return ioprio_text(o->ioprio, o->flags & ROW_OWNER_POLICY, o->nice, buf);
}

void view_show_frame(struct view *v, const struct frame *f)
{
	if (v->begin)
		v->begin(v, f);
	for (size_t i = 0; v->device && i < f->devices->count; i++)
		v->device(v, f, &f->devices->devices[i]);
	for (size_t i = 0; v->row && i < f->nrows; i++)
		v->row(v, f, f->rows[i]);
	v->interval_end(v, f);
}

void json_write_crash_event(struct jsonw *w, const char *key, const struct crash_event *e)
{
	char buf[16];
	const char *sig = signal_name(e->signal, buf, sizeof(buf));

	jsonw_object(w, key);
	jsonw_u64(w, "pid", e->tgid);
	jsonw_string(w, "comm", e->comm, strnlen(e->comm, sizeof(e->comm)));
	jsonw_string(w, "signal", sig, strlen(sig));
	jsonw_bool(w, "core_dumped", e->core_dumped);
	jsonw_object_end(w);
}

void write_escaped(FILE *out, const char *name, size_t len, const char *also_escaped)
{
	if (!len) {
		fputc('-', out);
		return;
	}
	escape_write(out, name, len, also_escaped);
}

void batch_write_name(FILE *out, const char *name, size_t len)
{
	write_escaped(out, name, len, "");
}

/* Inside "by_process=a:1,b:2" the separators must not appear in names. */
void batch_write_listed_name(FILE *out, const char *name, size_t len)
{
	write_escaped(out, name, len, ",:=");
}

void format_duration(char *buf, size_t size, uint64_t seconds)
{
	if (seconds && seconds % 86400 == 0)
		snprintf(buf, size, "%" PRIu64 "d", seconds / 86400);
	else if (seconds && seconds % 3600 == 0)
		snprintf(buf, size, "%" PRIu64 "h", seconds / 3600);
	else if (seconds && seconds % 60 == 0)
		snprintf(buf, size, "%" PRIu64 "m", seconds / 60);
	else
		snprintf(buf, size, "%" PRIu64 "s", seconds);
}

void format_bytes(char *buf, size_t size, double bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int unit = 0;

	while (bytes >= 1024 && unit < 5) {
		bytes /= 1024;
		unit++;
	}
	if (unit == 0)
		snprintf(buf, size, "%.0f %s", bytes, units[unit]);
	else
		snprintf(buf, size, "%.1f %s", bytes, units[unit]);
}

void format_utc(char *buf, size_t size, const struct timespec *when)
{
	unsigned int millis = (unsigned int)(when->tv_nsec / 1000000) % 1000U;
	struct tm tm;
	size_t n;

	gmtime_r(&when->tv_sec, &tm);
	n = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	if (n)
		snprintf(buf + n, size - n, ".%03uZ", millis);
}

uint64_t epoch_millis(const struct timespec *when)
{
	return (uint64_t)when->tv_sec * 1000U + (uint64_t)when->tv_nsec / 1000000U;
}

void json_write_record_head(struct jsonw *w, const char *type, const struct timespec *when,
			    const char *host)
{
	char text[40];

	format_utc(text, sizeof(text), when);
	jsonw_string(w, "type", type, strlen(type));
	if (host) {
		jsonw_u64(w, "schema", JSON_SCHEMA_VERSION);
		jsonw_string(w, "host", host, strlen(host));
	}
	jsonw_string(w, "time", text, strlen(text));
	jsonw_thousandths(w, "ts", epoch_millis(when));
}

size_t frame_rows_shown(const struct frame *f, unsigned int max_rows)
{
	return max_rows && f->nrows > max_rows ? max_rows : f->nrows;
}

/* The node name for JSON records ("" if uname() fails, which it does not). */
void view_init_host(struct view *v)
{
	struct utsname uts;

	v->host[0] = '\0';
	if (!uname(&uts))
		snprintf(v->host, sizeof(v->host), "%s", uts.nodename);
}

bool locale_is_utf8(void)
{
	const char *codeset;
	bool utf8;

	if (!setlocale(LC_CTYPE, ""))
		return false;
	codeset = nl_langinfo(CODESET);
	utf8 = codeset && (!strcasecmp(codeset, "UTF-8") || !strcasecmp(codeset, "utf8"));
	setlocale(LC_CTYPE, "C");
	return utf8;
}

const char *signal_name(uint32_t sig, char *buf, size_t size)
{
	static const char *const names[32] = {
		[3] = "SIGQUIT", [4] = "SIGILL", [5] = "SIGTRAP", [6] = "SIGABRT",
		[7] = "SIGBUS", [8] = "SIGFPE", [11] = "SIGSEGV", [24] = "SIGXCPU",
		[25] = "SIGXFSZ", [31] = "SIGSYS",
	};

	if (sig < 32 && names[sig])
		return names[sig];
	snprintf(buf, size, "SIG%u", sig);
	return buf;
}

/* ---- names on a terminal ---- */

/*
 * The UTF-8 locale wcwidth() is asked under: the user's when it is UTF-8,
 * else C.UTF-8; NULL when neither is installed.  diskio itself runs in the
 * C locale (locale_is_utf8()), so that its numbers stay ASCII: this one is
 * only ever taken for a call, with uselocale().  Made once, kept for the run.
 */
static locale_t utf8_locale(void)
{
	static locale_t loc;
	static bool tried;
	const char *codeset;

	if (tried)
		return loc;
	tried = true;
	loc = newlocale(LC_CTYPE_MASK, "", (locale_t)0);
	if (loc) {
		codeset = nl_langinfo_l(CODESET, loc);
		if (codeset && (!strcasecmp(codeset, "UTF-8") || !strcasecmp(codeset, "utf8")))
			return loc;
		freelocale(loc);
	}
	loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
	return loc;
}

/* The bidirectional controls (ALM, LRM, RLM, LRE..RLO, LRI..PDI): they take
 * no column, but a terminal that does bidi would reorder what follows them
 * on the line, other columns included. */
static bool bidi_control(uint32_t cp)
{
	return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The columns a character takes on a UTF-8 terminal, by wcwidth(); -1 for
 * one it must not get: the controls (C0, DEL, C1, whatever a locale's
 * tables say), what wcwidth() finds unprintable (U+2028, unassigned code
 * points), the bidi controls, and all but ASCII without a UTF-8 locale. */
static int char_columns(uint32_t cp)
{
	locale_t loc, was;
	int columns;

	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return -1;
	if (cp < 0x7f)
		return 1;
	loc = utf8_locale();
	if (!loc || bidi_control(cp))
		return -1;
	was = uselocale(loc);
	columns = wcwidth((wchar_t)cp);
	uselocale(was);
	return columns;
}

/*
 * Escapes are batch_write_name()'s \xHH, so that one name reads alike in
 * every view, except that a backslash stays as it is: the top view is for
 * people, and cgroup paths hold systemd's own escapes
 * ("system-systemd\x2dfsck.slice"), which read as systemd-cgls shows them
 * rather than as "\x5cx2d".  A name may then look like an escape it does not
 * hold; that gives a process nothing it could not have by naming itself,
 * and batch and JSON keep every name exact.
 */
char *printable_name(char *buf, size_t size, const char *name, size_t len, bool utf8)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t at = 0, out = 0;

	if (!size)
		return buf;
	if (!len) {
		snprintf(buf, size, "-");
		return buf;
	}
	while (at < len) {
		uint32_t cp;
		size_t n = utf8 ? utf8_decode((const char *)s + at, len - at, &cp) : 1;
		bool shown = utf8 ? n && char_columns(cp) >= 0 : s[at] >= 0x20 && s[at] < 0x7f;

		if (!shown)
			n = 1;
		/* whole characters and escapes only, and room for the '\0' */
		if (out + (shown ? n : 4) >= size)
			break;
		if (shown)
			memcpy(buf + out, s + at, n);
		else
			snprintf(buf + out, 5, "\\x%02x", s[at]);
		out += shown ? n : 4;
		at += n;
	}
	buf[out] = '\0';
	return buf;
}

size_t text_columns(const char *text, size_t len)
{
	size_t columns;

	text_fitting(text, len, SIZE_MAX, &columns);
	return columns;
}

size_t text_fitting(const char *text, size_t len, size_t cols, size_t *columns)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t at = 0, used = 0;

	while (at < len) {
		uint32_t cp;
		size_t n = utf8_decode((const char *)s + at, len - at, &cp);
		int width = n ? char_columns(cp) : -1;

		if (!n)
			n = 1;
		if (width < 0)
			width = 1;
		/* a character of no width after the last column still belongs
		 * to the one before it */
		if (used + (size_t)width > cols)
			break;
		used += (size_t)width;
		at += n;
	}
	if (columns)
		*columns = used;
	return at;
}

/* "hours", "hour", or for an interval that is no whole day, hour or minute
 * "intervals of 90s". */
static void crash_interval_unit(char *buf, size_t size, uint64_t interval_s, uint64_t count)
{
	static const struct {
		uint64_t seconds;
		const char *one, *many;
	} units[] = {
		{ 86400, "day", "days" }, { 3600, "hour", "hours" }, { 60, "minute", "minutes" },
		{ 1, "second", "seconds" },
	};
	char every[16];

	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (interval_s == units[i].seconds) {
			snprintf(buf, size, "%s", count == 1 ? units[i].one : units[i].many);
			return;
		}
	}
	format_duration(every, sizeof(every), interval_s);
	snprintf(buf, size, "%s of %s", count == 1 ? "interval" : "intervals", every);
}

char *format_crash_line(char *buf, size_t size, const struct crashfree *crash, bool utf8)
{
	const char *dot = utf8 ? "\u00b7" : "-";
	char unit[48];
	size_t n;

	if (!size)
		return buf;
	crash_interval_unit(unit, sizeof(unit), crash->interval_ns / 1000000000U,
			    crash->operational_intervals);
	snprintf(buf, size, "crash-free %" PRIu64 " of %" PRIu64 " %s %s ",
		 crash->crashfree_intervals, crash->operational_intervals, unit, dot);
	n = strlen(buf);
	if (!crash->crashes) {
		snprintf(buf + n, size - n, "no crashes");
		return buf;
	}
	snprintf(buf + n, size - n, "%" PRIu64 " %s", crash->crashes,
		 crash->crashes == 1 ? "crash" : "crashes");
	n = strlen(buf);
	/* The names that fit, each whole, then ", ..." for the rest. */
	for (size_t i = 0; i < crash->nprocesses; i++) {
		const struct crashfree_process *p = &crash->by_process[i];
		char comm[PRINTABLE_SIZE(CRASHFREE_COMM_LEN)], item[sizeof(comm) + 32];
		size_t len;

		printable_name(comm, sizeof(comm), p->comm, strnlen(p->comm, CRASHFREE_COMM_LEN),
			       utf8);
		if (crash->nprocesses == 1 && p->crashes == crash->crashes)
			snprintf(item, sizeof(item), " (%s", comm);
		else
			snprintf(item, sizeof(item), "%s%s %" PRIu64, i ? ", " : " (", comm,
				 p->crashes);
		len = strlen(item);
		/* room for this item, ", ..." and ")" */
		if (n + len + 6 >= size) {
			if (n + 6 < size) {
				snprintf(buf + n, size - n, "%s...)", i ? ", " : " (");
				n = strlen(buf);
			}
			return buf;
		}
		memcpy(buf + n, item, len + 1);
		n += len;
	}
	if (crash->nprocesses && n + 1 < size)
		memcpy(buf + n, ")", 2);
	return buf;
}

/* ---- quiet ---- */

static void quiet_interval_end(struct view *v, const struct frame *f)
{
	(void)v;
	(void)f;
}

static void quiet_summary(struct view *v, const struct summary *s)
{
	(void)v;
	(void)s;
}

void view_quiet(struct view *v, FILE *out)
{
	*v = (struct view){
		.interval_end = quiet_interval_end, .summary = quiet_summary, .out = out
	};
}
