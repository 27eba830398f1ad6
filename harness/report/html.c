// SPDX-License-Identifier: GPL-2.0-only
/*
 * index.html: the run for a person, in the order they ask: the verdict and
 * why; the takeover's phases; write progress and, on the same time axis,
 * the takeover node's memory (MemAvailable, Dirty, Writeback), its pressure
 * stall (PSI some/full) and its direct reclaim (scans and allocation stalls
 * per second), the interval from the fault to the resume shaded and every
 * node event (fault, fencing, reboots, membership, OOM kills) marked; the
 * node events as a list; the blocked stacks; each kernel report with the
 * console lines around it; the checks; links to every file; the scenario.
 *
 * Self-contained: inline CSS and SVG, no script, no network, so it opens
 * from file:// anywhere a run directory is copied. It reads the run's
 * timeline.jsonl and console logs beside it (the memory samples and node
 * events are not in the report's structs), like the other writers only
 * through the run directory.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/common.h"
#include "report/report.h"
#include "report/series.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define MIB (1024.0 * 1024.0)
#define SVG_W 1000
#define PANEL_H 150
#define MARGIN_L 70
#define MARGIN_R 20
#define PANEL_GAP 34
#define MAX_EVENTS 200
#define CONSOLE_CONTEXT 6

void report_html_escape(struct strbuf *sb, const char *s)
{
	_cleanup_strbuf_ struct strbuf clean = STRBUF_INIT;

	report_clean_text(&clean, s ? s : "");
	for (const char *p = clean.buf; *p; p++) {
		switch (*p) {
		case '<': strbuf_addstr(sb, "&lt;"); break;
		case '>': strbuf_addstr(sb, "&gt;"); break;
		case '&': strbuf_addstr(sb, "&amp;"); break;
		case '"': strbuf_addstr(sb, "&quot;"); break;
		default: strbuf_addch(sb, *p);
		}
	}
}

#define esc report_html_escape

/* ---- what the timeline adds to the report ---- */

struct mem_point {
	double t;                       /* seconds */
	double avail, dirty, writeback; /* MiB */
	double some, full;              /* PSI avg10, percent */
	double scan_rate, stall_rate;   /* direct scans, allocation stalls per second since the previous sample */
};

struct node_event {
	double t;
	char node[8];
	char what[160];
	const char *kind; /* CSS class: fault, fence, boot, member, oom, kernel */
};

struct kernel_report {
	double t, ktime;
	char node[8];
	char severity[16];
	char title[160];
};

struct extra {
	struct mem_point *mem;
	size_t nmem, memalloc;
	struct node_event ev[MAX_EVENTS];
	size_t nev;
	struct kernel_report kr[32];
	size_t nkr;
	double t_max;
	bool faulted; /* the fault event was read */
};

static double num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k)) ?: "";
}

static void add_event(struct extra *x, double t, const char *node, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void add_event(struct extra *x, double t, const char *node, const char *kind, const char *fmt, ...)
{
	struct node_event *e;
	va_list ap;

	if (x->nev >= MAX_EVENTS)
		return;
	e = &x->ev[x->nev];
	e->t = t;
	snprintf(e->node, sizeof(e->node), "%s", node ? node : "");
	e->kind = kind;
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof(e->what), fmt, ap);
	va_end(ap);
	/* The same thing said twice at once (an agent's hello can be recorded twice): once. */
	if (x->nev && !strcmp(e[-1].node, e->node) && !strcmp(e[-1].what, e->what) && t - e[-1].t < 1.0)
		return;
	x->nev++;
}

/* Whether name is in the JSON array of strings a. */
static bool in_list(const json_t *a, const char *name)
{
	size_t i;
	const json_t *e;

	json_array_foreach(a, i, e)
		if (!strcmp(json_string_value(e) ?: "", name))
			return true;
	return false;
}

struct crm_state {
	json_t *online, *fenced;
};

/* Membership and fencing as Pacemaker's polls saw them change. */
static void crm_changes(struct extra *x, struct crm_state *st, const json_t *o, double t, const struct run_report *r)
{
	const json_t *online = json_object_get(o, "online"), *fenced = json_object_get(o, "fenced");

	for (int i = 0; st->online && i < r->nnodes; i++) {
		const char *n = r->nodes[i].name;
		bool was = in_list(st->online, n), is = in_list(online, n);
		if (was != is)
			add_event(x, t, n, "member", "%s the membership (as %s saw it)", is ? "rejoined" : "left",
				  str(o, "from"));
	}
	for (int i = 0; i < r->nnodes; i++) {
		const char *n = r->nodes[i].name;
		if (in_list(fenced, n) && !(st->fenced && in_list(st->fenced, n)))
			add_event(x, t, n, "fence", "fenced (Pacemaker's fence history)");
	}
	json_decref(st->online);
	json_decref(st->fenced);
	st->online = json_incref((json_t *)online);
	st->fenced = json_incref((json_t *)fenced);
}

static void mem_sample(struct extra *x, const json_t *o, double t, struct mem_point *prev, double *prev_scan,
		       double *prev_stall)
{
	struct mem_point p = { .t = t };
	double scan = num(o, "pgscan_direct");
	double stall = num(o, "allocstall_normal") + num(o, "allocstall_movable");

	p.avail = num(o, "memavail") / 1024.0;
	p.dirty = num(o, "dirty") / 1024.0;
	p.writeback = num(o, "writeback") / 1024.0;
	p.some = num(o, "psi_some");
	p.full = num(o, "psi_full");
	p.scan_rate = p.stall_rate = NAN;
	/* Counters restart with a reboot: no rate across one. */
	if (prev->t > 0 && t > prev->t && scan >= *prev_scan && stall >= *prev_stall) {
		p.scan_rate = (scan - *prev_scan) / (t - prev->t);
		p.stall_rate = (stall - *prev_stall) / (t - prev->t);
	}
	*prev_scan = scan;
	*prev_stall = stall;
	*prev = p;
	if (x->nmem == x->memalloc) {
		x->memalloc = x->memalloc ? 2 * x->memalloc : 256;
		x->mem = xrealloc(x->mem, x->memalloc * sizeof(*x->mem));
	}
	x->mem[x->nmem++] = p;
}

static const char *takeover_node(const struct run_report *r)
{
	if (r->in && r->in->judged[0]) /* a failback judges the node the group left */
		return verdict_judged_node(r->in);
	for (int i = 0; i < r->nnodes; i++)
		if (!strcmp(r->nodes[i].role, "takeover"))
			return r->nodes[i].name;
	return r->in && r->in->takeover[0] ? r->in->takeover : "n1";
}

static void read_timeline(const struct run_report *r, struct extra *x)
{
	_cleanup_free_ char *path = xasprintf("%s/%s", r->dir, report_file_name("timeline"));
	const char *tk = takeover_node(r);
	struct crm_state crm = { 0 };
	struct mem_point prev = { 0 };
	double prev_scan = 0, prev_stall = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0) {
		json_t *o = json_loads(line, 0, NULL);
		const char *ev = str(o, "ev"), *node = str(o, "node");
		double t = num(o, "t") / 1000.0;
		if (!o)
			continue;
		if (isfinite(t) && t > x->t_max)
			x->t_max = t;
		if (!strcmp(ev, "sample") && !strcmp(node, tk))
			mem_sample(x, o, t, &prev, &prev_scan, &prev_stall);
		else if (!strcmp(ev, "fault") && (x->faulted = true))
			add_event(x, t, node, "fault", "fault: %s of %s", str(o, "kind"), node);
		else if (!strcmp(ev, "domain") && !(!x->faulted && !strcmp(str(o, "state"), "running")))
			add_event(x, t, node, "boot", "domain %s", str(o, "state")); /* not the cluster's own boot */
		else if (!strcmp(ev, "hello"))
			add_event(x, t, node, "boot", "agent up (a new boot)");
		else if (!strcmp(ev, "oom-kill"))
			add_event(x, t, node, "oom", "OOM kill%s%s", *str(o, "victim") ? ": " : "", str(o, "victim"));
		else if (!strcmp(ev, "pressure-restart"))
			add_event(x, t, node, "oom", "memory hog restarted");
		else if (!strcmp(ev, "crm"))
			crm_changes(x, &crm, o, t, r);
		else if (!strcmp(ev, "kernel") && strcmp(str(o, "severity"), "info") && x->nkr < 32) {
			struct kernel_report *k = &x->kr[x->nkr++];
			k->t = t;
			k->ktime = num(o, "kernel_time");
			snprintf(k->node, sizeof(k->node), "%s", node);
			snprintf(k->severity, sizeof(k->severity), "%s", str(o, "severity"));
			snprintf(k->title, sizeof(k->title), "%s", str(o, "title"));
			add_event(x, t, node, "kernel", "%s: %s", k->severity, k->title);
		}
		json_decref(o);
	}
	free(line);
	fclose(f);
	json_decref(crm.online);
	json_decref(crm.fenced);
}

/* ---- the panels ---- */

struct axis {
	double t0, t1;   /* seconds shown */
	int top;         /* panel's top y */
	double y0, y1;   /* values shown */
};

static double px(const struct axis *a, double t)
{
	return MARGIN_L + (t - a->t0) / (a->t1 - a->t0) * (SVG_W - MARGIN_L - MARGIN_R);
}

static double py(const struct axis *a, double v)
{
	double f = a->y1 > a->y0 ? (v - a->y0) / (a->y1 - a->y0) : 0;

	return a->top + PANEL_H - (f < 0 ? 0 : f > 1 ? 1 : f) * PANEL_H;
}

/* A round step giving about n ticks over span. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag = pow(10, floor(log10(raw > 0 ? raw : 1)));

	for (const double *m = (const double[]){ 1, 2, 5, 10 }; ; m++)
		if (raw <= *m * mag)
			return *m * mag;
}

static void panel_frame(struct strbuf *sb, const struct axis *a, const char *id, const char *title, const char *unit)
{
	double ys = nice_step(a->y1 - a->y0, 4), ts = nice_step(a->t1 - a->t0, 10);

	strbuf_addf(sb, "<g id=\"%s\"><text x=\"%d\" y=\"%d\" class=\"ptitle\">", id, MARGIN_L, a->top - 8);
	esc(sb, title);
	strbuf_addf(sb, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" class=\"frame\"/>", MARGIN_L, a->top,
		    SVG_W - MARGIN_L - MARGIN_R, PANEL_H);
	for (double v = a->y0; v <= a->y1 + ys / 2; v += ys)
		strbuf_addf(sb, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>"
				"<text x=\"%d\" y=\"%.1f\" class=\"ylab\">%g%s</text>",
			    MARGIN_L, SVG_W - MARGIN_R, py(a, v), py(a, v), MARGIN_L - 4, py(a, v) + 4, v, unit);
	for (double t = ceil(a->t0 / ts) * ts; t <= a->t1; t += ts)
		strbuf_addf(sb, "<text x=\"%.1f\" y=\"%d\" class=\"xlab\">%gs</text>", px(a, t), a->top + PANEL_H + 13, t);
}

/* The fault-to-resume interval and every node event, on one panel. */
static void panel_marks(struct strbuf *sb, const struct axis *a, const struct run_report *r, const struct extra *x,
			bool labels)
{
	const struct verdict_input *in = r->in;
	double f = in && in->fault_fired ? (double)in->t_fault / 1000.0 : NAN;

	if (isfinite(f)) {
		double end = r->v->t_resume > in->t_fault ? (double)r->v->t_resume / 1000.0 : x->t_max;
		strbuf_addf(sb, "<rect class=\"shade\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>fault to %s</title></rect>",
			    px(a, f), a->top, px(a, end) - px(a, f), PANEL_H,
			    r->v->t_resume > in->t_fault ? "resume" : "the end (no resume)");
	}
	if (r->v->max_gap && r->v->t_resume) {
		double g0 = (double)r->v->t_gap / 1000.0, g1 = (double)(r->v->t_gap + r->v->max_gap) / 1000.0;
		strbuf_addf(sb, "<rect class=\"stall\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"><title>the longest "
				"gap in %s's writes after they resumed: %.1f s</title></rect>",
			    px(a, g0), a->top, px(a, g1) - px(a, g0), PANEL_H, takeover_node(r), g1 - g0);
	}
	for (size_t i = 0; i < x->nev; i++) {
		const struct node_event *e = &x->ev[i];
		strbuf_addf(sb, "<line class=\"ev %s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"><title>", e->kind,
			    px(a, e->t), px(a, e->t), a->top, a->top + PANEL_H);
		strbuf_addf(sb, "+%.1fs %s: ", e->t, e->node);
		esc(sb, e->what);
		strbuf_addstr(sb, "</title></line>");
		if (labels && (!strcmp(e->kind, "fault") || !strcmp(e->kind, "fence")))
			strbuf_addf(sb, "<text class=\"evlab\" x=\"%.1f\" y=\"%d\">%s %s</text>", px(a, e->t) + 2,
				    a->top + 11, e->node, e->kind);
	}
}

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf" };

static void polyline(struct strbuf *sb, const struct axis *a, const double *t, const double *v, size_t n,
		     const char *colour, const char *label, int legend_i)
{
	bool open = false;

	for (size_t i = 0; i < n; i++) {
		if (!isfinite(v[i])) {
			if (open)
				strbuf_addstr(sb, "\"/>");
			open = false;
			continue;
		}
		if (!open)
			strbuf_addf(sb, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", colour);
		open = true;
		strbuf_addf(sb, "%.1f,%.1f ", px(a, t[i]), py(a, v[i]));
	}
	if (open)
		strbuf_addstr(sb, "\"/>");
	strbuf_addf(sb, "<text x=\"%d\" y=\"%d\" class=\"legend\" fill=\"%s\">", SVG_W - MARGIN_R - 190,
		    a->top + 14 + 13 * legend_i, colour);
	esc(sb, label);
	strbuf_addstr(sb, "</text>");
}

static double max_of(const double *v, size_t n, double floor_)
{
	double m = floor_;

	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]) && v[i] > m)
			m = v[i];
	return m;
}

static void progress_panel(struct strbuf *sb, struct axis *a, const struct run_report *r, const struct extra *x)
{
	const struct verdict_input *in = r->in;
	double top = 1;

	for (int i = 0; in && i < in->nnodes; i++)
		for (size_t j = 0; j < in->nodes[i].n; j++)
			top = fmax(top, (double)in->nodes[i].s[j].acked_bytes / MIB);
	a->y0 = 0;
	a->y1 = top * 1.05;
	panel_frame(sb, a, "panel-progress", "acknowledged writes per node (MiB)", "");
	panel_marks(sb, a, r, x, true);
	for (size_t i = 0; in && in->fault_fired && i < REPORT_NPHASES; i++) {
		int64_t ms = report_phase_ms(&r->v->ph, &report_phases[i]);
		double t = (double)(in->t_fault + (uint64_t)(ms > 0 ? ms : 0)) / 1000.0;
		if (ms < 0)
			continue;
		strbuf_addf(sb, "<line class=\"phase\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"><title>+%.1fs after the "
				"fault: ",
			    px(a, t), px(a, t), a->top + PANEL_H - 12, a->top + PANEL_H, (double)ms / 1000.0);
		esc(sb, report_phase_label(in, i));
		strbuf_addstr(sb, "</title></line>");
	}
	for (int i = 0; in && i < in->nnodes; i++) {
		const struct vseries *s = &in->nodes[i];
		double *t = xcalloc(s->n + 1, sizeof(*t)), *v = xcalloc(s->n + 1, sizeof(*v));
		char label[48];
		for (size_t j = 0; j < s->n; j++) {
			t[j] = (double)s->s[j].t / 1000.0;
			v[j] = (double)s->s[j].acked_bytes / MIB;
		}
		snprintf(label, sizeof(label), "%s (%s)", s->node, report_role(r, s->node));
		polyline(sb, a, t, v, s->n, colours[i % 7], label, i);
		free(t);
		free(v);
	}
	strbuf_addstr(sb, "</g>");
}

/* Column off of every memory sample, as an array. */
static double *mem_col(const struct extra *x, size_t off)
{
	double *v = xcalloc(x->nmem + 1, sizeof(*v));

	for (size_t i = 0; i < x->nmem; i++)
		v[i] = *(const double *)((const char *)&x->mem[i] + off);
	return v;
}

static void mem_panels(struct strbuf *sb, struct axis *a, const struct run_report *r, const struct extra *x)
{
	static const struct {
		const char *id, *title, *title_end, *unit;
		struct { const char *label; size_t off; } lines[3];
		int n;
		double floor_;
	} panels[] = {
		{ "panel-memory", "memory of ", " (MiB)", "",
		  { { "MemAvailable", offsetof(struct mem_point, avail) }, { "Dirty", offsetof(struct mem_point, dirty) },
		    { "Writeback", offsetof(struct mem_point, writeback) } }, 3, 1 },
		{ "panel-psi", "memory pressure stall on ", " (PSI avg10, %)", "%",
		  { { "some", offsetof(struct mem_point, some) }, { "full", offsetof(struct mem_point, full) } }, 2, 10 },
		{ "panel-reclaim", "direct reclaim on ", " (per second)", "",
		  { { "pages scanned (pgscan_direct)", offsetof(struct mem_point, scan_rate) },
		    { "allocation stalls (allocstall)", offsetof(struct mem_point, stall_rate) } }, 2, 1 },
	};
	double *t = mem_col(x, offsetof(struct mem_point, t));

	for (size_t p = 0; p < sizeof(panels) / sizeof(panels[0]); p++) {
		double *v[3] = { NULL };
		double top = panels[p].floor_;
		char title[128];
		for (int l = 0; l < panels[p].n; l++) {
			v[l] = mem_col(x, panels[p].lines[l].off);
			top = max_of(v[l], x->nmem, top);
		}
		a->top += PANEL_H + PANEL_GAP;
		a->y0 = 0;
		a->y1 = top * 1.05;
		snprintf(title, sizeof(title), "%s%s%s", panels[p].title, takeover_node(r), panels[p].title_end);
		panel_frame(sb, a, panels[p].id, title, panels[p].unit);
		panel_marks(sb, a, r, x, false);
		for (int l = 0; l < panels[p].n; l++) {
			polyline(sb, a, t, v[l], x->nmem, colours[l], panels[p].lines[l].label, l);
			free(v[l]);
		}
		strbuf_addstr(sb, "</g>");
	}
	free(t);
}

static void plots(struct strbuf *sb, const struct run_report *r, const struct extra *x)
{
	struct axis a = { .t0 = 0, .t1 = x->t_max > 1 ? x->t_max : 1, .top = 24 };
	int h = 24 + 4 * (PANEL_H + PANEL_GAP);

	strbuf_addf(sb, "<svg id=\"plots\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
			"viewBox=\"0 0 %d %d\">",
		    SVG_W, h, SVG_W, h);
	progress_panel(sb, &a, r, x);
	mem_panels(sb, &a, r, x);
	strbuf_addstr(sb, "</svg>\n");
}

/* ---- the sections ---- */

static const char *verdict_css(const struct verdict *v)
{
	return v->cls == VERDICT_PASS ? "pass" : verdict_is_error(v->cls) ? "error" : "fail";
}

void report_html_head(struct strbuf *sb, const char *title)
{
	strbuf_addstr(sb, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>");
	esc(sb, title);
	strbuf_addstr(sb,
		      "</title><style>\n"
		      "body{font:14px/1.4 sans-serif;margin:1.5em;max-width:1100px;color:#222}\n"
		      "h1{margin:.2em 0}.pass{color:#137333}.fail{color:#c5221f}.error{color:#b06000}\n"
		      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}\n"
		      "pre{background:#f6f6f6;padding:.5em;overflow-x:auto;font-size:12px}\n"
		      ".reason{font-size:16px}.hl{background:#ffe08a}\n"
		      ".frame{fill:none;stroke:#888}.grid{stroke:#eee}.ylab{font-size:10px;text-anchor:end}\n"
		      ".xlab{font-size:10px;text-anchor:middle}.ptitle{font-size:12px;font-weight:bold}.legend{font-size:11px}\n"
		      ".shade{fill:#f4c7c3;opacity:.45}.ev{stroke-width:1.5;stroke-dasharray:3 2}.evlab{font-size:10px}\n"
		      ".ev.fault{stroke:#c5221f}.ev.fence{stroke:#b06000}.ev.boot{stroke:#5f6368}.ev.member{stroke:#1a73e8}\n"
		      ".ev.oom{stroke:#9334e6}.ev.kernel{stroke:#000}.stall{fill:#f9ab00;opacity:.45}.phase{stroke:#137333;stroke-width:2}\n"
		      "</style></head><body>\n");
}

static void count_or_unknown(struct strbuf *sb, const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	if (json_is_integer(v))
		strbuf_addf(sb, "%lld", (long long)json_integer_value(v));
	else
		strbuf_addstr(sb, "?");
}

/* LOCALIO reads/writes of each node before and after the fault, when the kernel has LOCALIO. */
static void localio_row(struct strbuf *sb, const struct run_report *r)
{
	bool any = false;

	for (int i = 0; i < r->nnodes; i++) {
		const json_t *l = r->nodes[i].localio;
		if (!json_is_true(json_object_get(l, "supported")))
			continue;
		strbuf_addstr(sb, any ? "; " : "<tr><th>LOCALIO I/O</th><td>");
		any = true;
		strbuf_addf(sb, "%s ", r->nodes[i].name);
		count_or_unknown(sb, l, "io_before_fault");
		strbuf_addstr(sb, " before the fault, ");
		count_or_unknown(sb, l, "io_after_fault");
		strbuf_addstr(sb, " after");
	}
	if (any)
		strbuf_addstr(sb, "</td></tr>");
}

static void verdict_section(struct strbuf *sb, const struct run_report *r)
{
	char stamp[32];

	strbuf_addf(sb, "<section id=\"verdict\"><h1 class=\"%s\">%s</h1><p class=\"reason\">", verdict_css(r->v),
		    verdict_name(r->v->cls));
	esc(sb, r->v->reason);
	strbuf_addstr(sb, "</p>");
	if (r->fx && r->fx->captured) {
		_cleanup_strbuf_ struct strbuf why = STRBUF_INIT;
		report_why_line(&why, r->fx);
		strbuf_addstr(sb, "<p id=\"why\"><b>why:</b> ");
		esc(sb, why.buf);
		strbuf_addstr(sb, "</p>");
	}
	report_iso8601(r->wall_start_ms, true, stamp, sizeof(stamp));
	strbuf_addstr(sb, "<table><tr><th>run</th><td>");
	esc(sb, r->run_id);
	strbuf_addstr(sb, "</td></tr><tr><th>scenario</th><td>");
	esc(sb, r->scenario_path);
	strbuf_addstr(sb, "</td></tr><tr><th>kernel</th><td>");
	esc(sb, r->kernel_release);
	strbuf_addf(sb, "</td></tr><tr><th>started</th><td>%s, %.0f s, %d nodes (%s)</td></tr>", stamp,
		    (double)r->duration_ms / 1000.0, r->nnodes, r->kvm ? "KVM" : "TCG");
	localio_row(sb, r);
	strbuf_addstr(sb, "</table></section>\n");
}

static void phases_section(struct strbuf *sb, const struct run_report *r)
{
	const struct verdict_input *in = r->in;

	strbuf_addf(sb, "<section id=\"phases\"><h2>The %s</h2>", in && verdict_server_to_client(in) ? "failback" : "takeover");
	if (!in || !in->fault_fired) {
		strbuf_addstr(sb, "<p>The fault never fired.</p></section>\n");
		return;
	}
	strbuf_addf(sb, "<p>%s &rarr; %s, fault at %.1f s of the timeline.</p><table><tr><th>phase</th><th>after the fault</th></tr>",
		    in->victim, in->takeover, (double)in->t_fault / 1000.0);
	for (size_t i = 0; i < REPORT_NPHASES; i++) {
		int64_t ms = report_phase_ms(&r->v->ph, &report_phases[i]);
		strbuf_addstr(sb, "<tr><td>");
		esc(sb, report_phase_label(in, i));
		if (ms < 0)
			strbuf_addstr(sb, "</td><td>not seen</td></tr>");
		else
			strbuf_addf(sb, "</td><td>+%.1f s</td></tr>", (double)ms / 1000.0);
	}
	strbuf_addstr(sb, "</table></section>\n");
}

static void events_section(struct strbuf *sb, const struct extra *x)
{
	strbuf_addstr(sb, "<section id=\"events\"><h2>Node events</h2><table><tr><th>t</th><th>node</th><th>event</th></tr>");
	for (size_t i = 0; i < x->nev; i++) {
		strbuf_addf(sb, "<tr><td>%.1f s</td><td>%s</td><td>", x->ev[i].t, x->ev[i].node);
		esc(sb, x->ev[i].what);
		strbuf_addstr(sb, "</td></tr>");
	}
	strbuf_addstr(sb, "</table></section>\n");
}

static void stacks_section(struct strbuf *sb, const struct run_report *r)
{
	_cleanup_strbuf_ struct strbuf text = STRBUF_INIT;

	if (!r->fx || !r->fx->captured)
		return;
	report_blocked_text(&text, r->fx, 0, 0, "");
	strbuf_addf(sb, "<section id=\"stacks\"><h2>Blocked tasks on %s (%s)</h2><pre>", r->fx->node,
		    hang_class_name(r->fx->cls));
	esc(sb, text.len ? text.buf : "sysrq-w showed no blocked task\n");
	strbuf_addstr(sb, "</pre></section>\n");
}

/* The console lines around a report: the one stamped with its kernel time, and CONSOLE_CONTEXT each side. */
static void console_context(struct strbuf *sb, const struct run_report *r, const struct kernel_report *k)
{
	const char *file = NULL;
	char stamp[32];

	for (int i = 0; i < r->nnodes; i++)
		if (!strcmp(r->nodes[i].name, k->node))
			file = r->nodes[i].console;
	if (!file || !file[0] || !isfinite(k->ktime))
		return;
	_cleanup_free_ char *path = xasprintf("%s/%s", r->dir, file);
	_cleanup_strbuf_ struct strbuf raw = STRBUF_INIT;
	if (strbuf_read_file(&raw, path, 64 << 20) < 0)
		return;
	snprintf(stamp, sizeof(stamp), "%.6f]", k->ktime);
	char *hit = strstr(raw.buf, stamp);
	if (!hit)
		return;
	const char *from = hit, *to = hit;
	for (int n = 0; n <= CONSOLE_CONTEXT && from > raw.buf; n += from[-1] == '\n')
		from--;
	for (int n = 0; n <= CONSOLE_CONTEXT && *to; to++)
		n += *to == '\n';
	_cleanup_strbuf_ struct strbuf text = STRBUF_INIT;
	report_console_text(&text, from, (size_t)(to - from));
	strbuf_addstr(sb, "<pre>");
	esc(sb, text.buf);
	strbuf_addf(sb, "</pre><p><a href=\"%s\">the whole console of %s</a></p>", file, k->node);
}

static void kernel_section(struct strbuf *sb, const struct run_report *r, const struct extra *x)
{
	strbuf_addstr(sb, "<section id=\"kernel\"><h2>Kernel reports</h2>");
	if (!x->nkr)
		strbuf_addstr(sb, "<p>None above informational on any node.</p>");
	for (size_t i = 0; i < x->nkr; i++) {
		strbuf_addf(sb, "<h3>+%.1f s %s, %s: ", x->kr[i].t, x->kr[i].node, x->kr[i].severity);
		esc(sb, x->kr[i].title);
		strbuf_addstr(sb, "</h3>");
		console_context(sb, r, &x->kr[i]);
	}
	strbuf_addstr(sb, "</section>\n");
}

static void steps_section(struct strbuf *sb, const struct run_report *r)
{
	strbuf_addstr(sb, "<section id=\"steps\"><h2>Checks</h2><table><tr><th>check</th><th>result</th><th>s</th><th>message</th></tr>");
	for (int i = 0; i < r->nsteps; i++) {
		const struct report_step *s = &r->steps[i];
		const char *res = !s->ran ? "skipped" : s->ok ? "ok" : "FAILED";
		strbuf_addf(sb, "<tr><td>%s</td><td class=\"%s\">%s</td><td>%.1f</td><td>", s->name,
			    !s->ran ? "" : s->ok ? "pass" : "fail", res, s->seconds);
		esc(sb, s->message);
		strbuf_addstr(sb, "</td></tr>");
	}
	strbuf_addstr(sb, "</table></section>\n");
}

static void link_if(struct strbuf *sb, const struct run_report *r, const char *name)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", r->dir, name);

	if (name[0] && access(p, R_OK) == 0) {
		strbuf_addstr(sb, "<li><a href=\"");
		esc(sb, name);
		strbuf_addstr(sb, "\">");
		esc(sb, name);
		strbuf_addstr(sb, "</a></li>");
	}
}

static void files_section(struct strbuf *sb, const struct run_report *r)
{
	strbuf_addstr(sb, "<section id=\"files\"><h2>Files</h2><ul>");
	for (size_t i = 0; i < REPORT_NFILES; i++) /* not itself: the page is the same however often it is rewritten */
		if (report_files[i].name != report_file_name("html"))
			link_if(sb, r, report_files[i].name);
	for (int i = 0; i < r->nnodes; i++) {
		link_if(sb, r, r->nodes[i].console);
		link_if(sb, r, r->nodes[i].corosync_log);
		link_if(sb, r, r->nodes[i].nfs_log);
	}
	if (r->fx) {
		link_if(sb, r, r->fx->sysrq_w_file);
		link_if(sb, r, r->fx->sysrq_t_file);
		link_if(sb, r, r->fx->sysrq_m_file);
		link_if(sb, r, r->fx->vmcore_file);
	}
	strbuf_addstr(sb, "</ul></section>\n");
}

static void scenario_section(struct strbuf *sb, const struct run_report *r)
{
	_cleanup_free_ char *p = xasprintf("%s/%s", r->dir, report_file_name("scenario"));
	_cleanup_strbuf_ struct strbuf ini = STRBUF_INIT;

	strbuf_addstr(sb, "<section id=\"scenario\"><h2>Scenario</h2><pre>");
	if (strbuf_read_file(&ini, p, 1 << 20) >= 0)
		esc(sb, ini.buf);
	strbuf_addstr(sb, "</pre></section>\n");
}

int report_html(const struct run_report *r, const char *path)
{
	struct extra x = { 0 };
	struct strbuf sb = STRBUF_INIT;
	char title[160];
	int ret;

	if (!r->v)
		return -EINVAL;
	read_timeline(r, &x);
	snprintf(title, sizeof(title), "takeover %s: %s", r->run_id, verdict_name(r->v->cls));
	report_html_head(&sb, title);
	verdict_section(&sb, r);
	phases_section(&sb, r);
	strbuf_addstr(&sb, "<section id=\"plot\"><h2>Progress, memory and reclaim</h2><p>Shaded red: from the fault to the "
			   "judged node's first write after it (the takeover node's loop-back write; a failback's "
			   "victim's client write; to the end when there was none); amber: its longest gap after that. "
			   "Dashed: node events; green ticks: the takeover's phases (hover for what).</p>");
	plots(&sb, r, &x);
	strbuf_addstr(&sb, "</section>\n");
	events_section(&sb, &x);
	stacks_section(&sb, r);
	kernel_section(&sb, r, &x);
	steps_section(&sb, r);
	files_section(&sb, r);
	scenario_section(&sb, r);
	strbuf_addstr(&sb, "</body></html>\n");
	ret = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	free(x.mem);
	return ret;
}

/* A run's page from the series' page: relative when the run sits below it (iter-K/), else absolute. */
static void run_link(struct strbuf *sb, const char *dir, const char *run)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (!strncmp(run, dir, n) && run[n] == '/')
		esc(sb, run + n + 1);
	else
		esc(sb, run);
	strbuf_addf(sb, "/%s", report_file_name("html"));
}

int report_html_series(const struct series *s, const char *dir, const char *title, const char *summary)
{
	struct strbuf sb = STRBUF_INIT;
	char *text = NULL;
	size_t len = 0;
	int ret;

	if (summary) {
		text = xstrdup(summary);
	} else {
		FILE *mem = open_memstream(&text, &len);
		if (!mem)
			return -errno;
		series_print(s, title, mem);
		fclose(mem);
	}
	report_html_head(&sb, title);
	strbuf_addf(&sb, "<section id=\"verdict\"><h1 class=\"%s\">", series_exit_code(s) == 0 ? "pass"
		    : series_exit_code(s) == 1 ? "fail" : "error");
	esc(&sb, title);
	strbuf_addstr(&sb, "</h1><pre>");
	esc(&sb, text);
	strbuf_addstr(&sb, "</pre></section>\n<section id=\"runs\"><h2>Runs</h2><table><tr><th>#</th><th>verdict</th>"
			   "<th>resume after the fault</th><th>loop-back rate</th><th>run</th></tr>");
	for (size_t i = 0; i < s->n; i++) {
		const struct series_run *r = &s->runs[i];
		int code = r->exit_code;
		strbuf_addf(&sb, "<tr><td>%zu</td><td class=\"%s\">", i + 1, code == 0 ? "pass" : code == 1 ? "fail" : "error");
		esc(&sb, r->verdict);
		strbuf_addstr(&sb, "</td><td>");
		if (isfinite(r->resume_s))
			strbuf_addf(&sb, "%.1f s", r->resume_s);
		strbuf_addstr(&sb, "</td><td>");
		if (isfinite(r->rate_Bps))
			strbuf_addf(&sb, "%.0f KiB/s", r->rate_Bps / 1024);
		strbuf_addstr(&sb, "</td><td><a href=\"");
		run_link(&sb, dir, r->dir);
		strbuf_addstr(&sb, "\">");
		esc(&sb, r->dir);
		strbuf_addstr(&sb, "</a></td></tr>");
	}
	strbuf_addstr(&sb, "</table></section></body></html>\n");
	_cleanup_free_ char *path = xasprintf("%s/%s", dir, report_file_name("html"));
	ret = write_file_atomic(path, sb.buf, sb.len, 0644);
	strbuf_release(&sb);
	free(text);
	return ret;
}
