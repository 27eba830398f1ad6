// SPDX-License-Identifier: GPL-2.0-only
#include "report/common.h"

#include <math.h>
#include <string.h>
#include <time.h>

#include "forensics/console/console.h"

const struct report_file report_files[REPORT_NFILES] = {
	{ NULL, "report.json" },
	{ "junit", "junit.xml" },
	{ "kcidb", "report.kcidb.json" },
	{ "html", "index.html" },
	{ "timeline", "timeline.jsonl" },
	{ "plot", "progress.svg" },
	{ "scenario", "scenario.ini" },
};

const char *report_file_name(const char *key)
{
	for (size_t i = 0; i < REPORT_NFILES; i++)
		if (key ? report_files[i].key && !strcmp(report_files[i].key, key) : !report_files[i].key)
			return report_files[i].name;
	return NULL;
}

const struct report_phase report_phases[REPORT_NPHASES] = {
	{ "seen_offline", "failure seen", offsetof(struct phases, seen_offline) },
	{ "fenced", "fenced", offsetof(struct phases, fenced) },
	{ "fs_mounted", "fs", offsetof(struct phases, fs_mounted) },
	{ "nfsd_started", "nfsd", offsetof(struct phases, nfsd_started) },
	{ "export_up", "export", offsetof(struct phases, export_up) },
	{ "ip_up", "IP", offsetof(struct phases, ip_up) },
	{ "group_started", "group", offsetof(struct phases, group_started) },
	{ "first_remote_write", "remote writes", offsetof(struct phases, first_remote_write) },
	{ "first_loopback_write", "loop-back writes", offsetof(struct phases, first_loopback_write) },
};

const char *report_phase_label(const struct verdict_input *in, size_t i)
{
	if (in && verdict_server_to_client(in) && report_phases[i].off == offsetof(struct phases, first_loopback_write))
		return "client writes";
	return report_phases[i].label;
}

int64_t report_phase_ms(const struct phases *p, const struct report_phase *ph)
{
	int64_t v;

	memcpy(&v, (const char *)p + ph->off, sizeof(v));
	return v;
}

const char *report_role(const struct run_report *r, const char *node)
{
	for (int i = 0; i < r->nnodes; i++)
		if (!strcmp(r->nodes[i].name, node))
			return r->nodes[i].role;
	return "";
}

uint64_t report_last_acked(const struct run_report *r, const char *node)
{
	for (int i = 0; r->in && i < r->in->nnodes; i++) {
		const struct vseries *s = &r->in->nodes[i];
		if (!strcmp(s->node, node))
			return s->n ? s->s[s->n - 1].acked_bytes : 0;
	}
	return 0;
}

void report_iso8601(uint64_t epoch_ms, bool zone, char *buf, size_t len)
{
	time_t t = (time_t)(epoch_ms / 1000);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, zone ? "%Y-%m-%dT%H:%M:%SZ" : "%Y-%m-%dT%H:%M:%S", &tm))
		snprintf(buf, len, "1970-01-01T00:00:00%s", zone ? "Z" : "");
}

void report_scenario_name(const struct run_report *r, char *buf, size_t len)
{
	const char *base = strrchr(r->scenario_path, '/');
	size_t n;

	base = base ? base + 1 : r->scenario_path;
	n = strlen(base);
	if (n > 4 && !strcmp(base + n - 4, ".ini"))
		n -= 4;
	if (!n) {
		base = "unnamed";
		n = strlen(base);
	}
	snprintf(buf, len, "%.*s", (int)n, base);
}

/* Length of the valid UTF-8 sequence at s (no overlongs, surrogates or U+FFFE/F), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s)
{
	size_t n;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	/* A NUL is not a continuation byte, so this never reads past the string. */
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
		return 0;
	return n;
}

void report_clean_text(struct strbuf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = utf8_seq(p);
		bool ctl = n == 1 && ((*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f);
		if (!n || ctl) {
			strbuf_addch(out, '?');
			p++;
			continue;
		}
		strbuf_add(out, p, n);
		p += n;
	}
}

void report_human_bytes(double b, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (b >= 1024.0 && i < 4) {
		b /= 1024.0;
		i++;
	}
	snprintf(buf, len, i ? "%.1f %s" : "%.0f %s", b, unit[i]);
}

void report_console_text(struct strbuf *out, const char *raw, size_t max)
{
	_cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
	const char *p = raw ? raw : "", *end = p + strnlen(p, max);
	bool cut = *end != '\0';

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (!nl && cut)
			break;
		strbuf_reset(&line);
		strbuf_grow(&line, n);
		strbuf_add(&line, p, n);
		console_clean_line(line.buf);
		report_clean_text(out, line.buf);
		strbuf_addch(out, '\n');
		p += n + (nl != NULL);
	}
}

void report_why_line(struct strbuf *out, const struct forensics *fx)
{
	char bytes[32];

	report_human_bytes((double)fx->bytes_in_window, bytes, sizeof(bytes));
	if (fx->cls == HANG_REBOOTED) {
		strbuf_addf(out, "no hang class: %s rebooted after the fault, before this capture "
			    "(its stacks are of the new boot)", fx->node[0] ? fx->node : "?");
		return;
	}
	strbuf_addf(out, "%s on %s (", hang_class_name(fx->cls), fx->node[0] ? fx->node : "?");
	if (isfinite(fx->guest_cpu_busy) && fx->guest_cpu_busy >= 0)
		strbuf_addf(out, "guest CPU %.0f%% busy over %.1fs", fx->guest_cpu_busy * 100.0,
			    fx->window_seconds);
	else
		strbuf_addstr(out, "guest CPU unknown");
	strbuf_addf(out, ", %s written)", bytes);
}

static void frames_text(struct strbuf *out, const char *stack, int max_frames, const char *indent)
{
	int shown = 0, more = 0;

	for (const char *p = stack ? stack : ""; *p;) {
		size_t n = strcspn(p, "\n");
		if (max_frames && shown >= max_frames) {
			more++;
		} else {
			_cleanup_strbuf_ struct strbuf fn = STRBUF_INIT;
			strbuf_add(&fn, p, n);
			strbuf_addf(out, "%s  ", indent);
			report_clean_text(out, fn.buf);
			strbuf_addch(out, '\n');
			shown++;
		}
		p += n + (p[n] == '\n');
	}
	if (!shown)
		strbuf_addf(out, "%s  (no stack)\n", indent);
	if (more)
		strbuf_addf(out, "%s  ... %d more frame%s\n", indent, more, more == 1 ? "" : "s");
}

void report_blocked_text(struct strbuf *out, const struct forensics *fx, size_t max_groups,
			 int max_frames, const char *indent)
{
	const struct sysrq_dump *d = &fx->blocked;
	size_t shown = max_groups && d->ngroups > max_groups ? max_groups : d->ngroups;
	int rest = 0;

	if (!d->ngroups) {
		strbuf_addf(out, "%ssysrq-w showed no blocked (D state) task\n", indent);
		return;
	}
	for (size_t i = 0; i < shown; i++) {
		const struct sysrq_group *g = &d->groups[i];
		strbuf_addf(out, "%s%d x ", indent, g->count);
		report_clean_text(out, g->state);
		strbuf_addstr(out, ": ");
		report_clean_text(out, g->tasks);
		strbuf_addch(out, '\n');
		frames_text(out, g->stack, max_frames, indent);
	}
	for (size_t i = shown; i < d->ngroups; i++)
		rest += d->groups[i].count;
	if (shown < d->ngroups)
		strbuf_addf(out, "%s... %zu more group%s (%d task%s)\n", indent, d->ngroups - shown,
			    d->ngroups - shown == 1 ? "" : "s", rest, rest == 1 ? "" : "s");
}

const struct report_step *report_deciding_step(const struct run_report *r)
{
	const struct report_step *first = NULL;

	for (int i = 0; i < r->nsteps; i++) {
		const struct report_step *st = &r->steps[i];
		if (!st->ran || st->ok)
			continue;
		if (r->v && !strcmp(st->message, r->v->reason))
			return st;
		if (!first)
			first = st;
	}
	return first;
}

void report_failure_text(struct strbuf *out, const struct run_report *r, const char *message, bool deciding,
			 size_t max_groups)
{
	strbuf_addstr(out, message);
	if (deciding && r->fx && r->fx->captured) {
		strbuf_addstr(out, "\n\nwhy: ");
		report_why_line(out, r->fx);
		strbuf_addch(out, '\n');
		report_blocked_text(out, r->fx, max_groups, 0, "  ");
	}
}
