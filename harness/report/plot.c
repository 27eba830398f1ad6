// SPDX-License-Identifier: GPL-2.0-only
/*
 * progress.svg: every node's acknowledged bytes over the run, with the fault,
 * each takeover phase and the observe window marked, so a stall is visible at
 * a glance. progress.dat and progress.gp stay beside it so the plot can be
 * redrawn or restyled by hand (`gnuplot progress.gp`).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/common.h"
#include "report/report.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define GNUPLOT_TIMEOUT_MS 60000
#define MIB (1024.0 * 1024.0)

struct plot_paths {
	char *dat, *gp, *svg, *log;
};

/* A gnuplot single-quoted string: no escapes but '' for a quote. */
static void gp_str(struct strbuf *sb, const char *s)
{
	_cleanup_strbuf_ struct strbuf clean = STRBUF_INIT;

	report_clean_text(&clean, s);
	strbuf_addch(sb, '\'');
	for (const char *p = clean.buf; *p; p++) {
		if (*p == '\'')
			strbuf_addch(sb, '\'');
		strbuf_addch(sb, *p == '\n' || *p == '\t' ? ' ' : *p);
	}
	strbuf_addch(sb, '\'');
}

/* Pressured nodes get their MemAvailable drawn (right axis): the pressure the verdict judged. */
static bool mem_drawn(const struct vmemseries *m)
{
	return m->pressured && m->n;
}

/*
 * One block per node with progress samples, then one per pressured node's
 * MemAvailable; gnuplot's "index" counts them in this order.
 */
static void build_dat(const struct verdict_input *in, struct strbuf *sb)
{
	int block = 0;

	strbuf_addstr(sb, "# takeover progress: one block per node (gnuplot index), "
			  "columns: seconds since run start, MiB acknowledged\n");
	for (int i = 0; i < in->nnodes; i++) {
		const struct vseries *s = &in->nodes[i];
		if (!s->n)
			continue;
		strbuf_addf(sb, "%s# index %d: %s\n", block ? "\n\n" : "", block, s->node);
		for (size_t k = 0; k < s->n; k++)
			strbuf_addf(sb, "%.3f %.6f\n", (double)s->s[k].t / 1000.0,
				    (double)s->s[k].acked_bytes / MIB);
		block++;
	}
	for (int i = 0; i < in->nmem; i++) {
		const struct vmemseries *m = &in->mem[i];
		if (!mem_drawn(m))
			continue;
		strbuf_addf(sb, "%s# index %d: %s MemAvailable, MiB\n", block ? "\n\n" : "", block, m->node);
		for (size_t k = 0; k < m->n; k++)
			strbuf_addf(sb, "%.3f %.3f\n", (double)m->s[k].t / 1000.0, (double)m->s[k].avail_kb / 1024.0);
		block++;
	}
}

static void vline(struct strbuf *sb, double x, const char *style, const char *label,
		  const char *label_style)
{
	strbuf_addf(sb, "set arrow from first %.3f, graph 0 to first %.3f, graph 1 nohead %s\n", x, x,
		    style);
	strbuf_addstr(sb, "set label ");
	gp_str(sb, label);
	strbuf_addf(sb, " at first %.3f, %s\n", x, label_style);
}

/* Phases seen at the same poll share one line and one label ("IP, group"). */
static void phase_lines(struct strbuf *sb, const struct verdict_input *in, const struct phases *ph)
{
	bool done[REPORT_NPHASES] = { false };

	for (size_t i = 0; i < REPORT_NPHASES; i++) {
		int64_t ms = report_phase_ms(ph, &report_phases[i]);
		_cleanup_strbuf_ struct strbuf label = STRBUF_INIT;
		if (ms < 0 || done[i])
			continue;
		for (size_t k = i; k < REPORT_NPHASES; k++) {
			if (report_phase_ms(ph, &report_phases[k]) != ms)
				continue;
			strbuf_addf(&label, "%s%s", label.len ? ", " : "", report_phase_label(in, k));
			done[k] = true;
		}
		vline(sb, (double)(in->t_fault + (uint64_t)ms) / 1000.0, "dt 3 lc rgb 'gray40'",
		      label.buf, "graph 0.02 left rotate by 90 offset -0.7,0 font ',9' tc rgb 'gray30'");
	}
}

static void observe_window(struct strbuf *sb, const struct verdict_input *in, const struct verdict *v)
{
	double from = (double)v->t_resume / 1000.0, to = (double)(v->t_resume + in->observe) / 1000.0;

	strbuf_addf(sb, "set object 1 rect from first %.3f, graph 0 to first %.3f, graph 1 behind "
			"fc rgb '#dcefdc' fs solid 1.0 noborder\n", from, to);
	strbuf_addf(sb, "set label 'observe window' at first %.3f, graph 0.97 left offset 0.5,0 "
			"tc rgb 'dark-green'\n", from);
}

/*
 * The right axis, when a node was under pressure: MemAvailable in MiB, the
 * "within reach" ceiling the verdict used, and every OOM kill. The window
 * the pressure was judged on and how much of it held go in the key.
 */
static void pressure_axis(struct strbuf *sb, const struct run_report *r)
{
	const struct verdict_input *in = r->in;
	const struct pressure_result *pr = &r->v->pr;
	bool any = false;

	for (int i = 0; i < in->nmem; i++)
		any |= mem_drawn(&in->mem[i]);
	if (!any)
		return;
	strbuf_addstr(sb, "set y2label 'MiB available (pressured nodes)'\nset y2tics\nset ytics nomirror\n"
			  "set y2range [0:*]\n");
	if (pr->judged) {
		const struct pressure_node *w = &pr->nodes[pr->worst];
		strbuf_addf(sb, "set arrow from first %.3f, second %.3f to first %.3f, second %.3f nohead "
				"dt 4 lc rgb 'orange'\n",
			    (double)pr->from / 1000.0, (double)w->reach_kb / 1024.0, (double)pr->to / 1000.0,
			    (double)w->reach_kb / 1024.0);
		strbuf_addf(sb, "set label 'pressure held %.0f%% (min_held %u%%)' at first %.3f, second %.3f "
				"left offset 0.5,0.7 font ',9' tc rgb 'dark-orange'\n",
			    w->held * 100.0, in->min_held, (double)pr->from / 1000.0, (double)w->reach_kb / 1024.0);
	}
	for (int i = 0; i < in->nmem; i++) {
		const struct vmemseries *m = &in->mem[i];
		char label[48];
		if (!mem_drawn(m) || !m->t_first_oom)
			continue;
		snprintf(label, sizeof(label), "%s: OOM kill%s", m->node, m->oom_kills > 1 ? " (first)" : "");
		vline(sb, (double)m->t_first_oom / 1000.0, "dt 1 lc rgb 'dark-orange'", label,
		      "graph 0.5 left rotate by 90 offset -0.7,0 font ',9' tc rgb 'dark-orange'");
	}
}

static void header(struct strbuf *sb, const struct run_report *r, const struct plot_paths *p)
{
	char name[256];
	_cleanup_strbuf_ struct strbuf title = STRBUF_INIT;

	report_scenario_name(r, name, sizeof(name));
	strbuf_addf(&title, "%s: %s", verdict_name(r->v->cls), name);
	if (r->run_id[0])
		strbuf_addf(&title, " (%s)", r->run_id);
	strbuf_addstr(sb, "# Generated by takeover; redraw with: gnuplot progress.gp\n");
	/* noenhanced: node and scenario names contain '_' and '^', which are markup otherwise. */
	strbuf_addstr(sb, "set terminal svg size 1000,600 noenhanced background rgb 'white'\n");
	strbuf_addstr(sb, "set output ");
	gp_str(sb, p->svg);
	strbuf_addstr(sb, "\nset title ");
	gp_str(sb, title.buf);
	strbuf_addstr(sb, "\nset xlabel 'seconds since run start'\n"
			  "set ylabel 'MiB acknowledged'\n"
			  "set key bottom right opaque\nset grid\nset yrange [0:*]\n");
}

static void plot_cmd(struct strbuf *sb, const struct run_report *r, const struct plot_paths *p)
{
	const struct verdict_input *in = r->in;
	int block = 0;

	for (int i = 0; i < in->nnodes; i++) {
		const struct vseries *s = &in->nodes[i];
		const char *role = report_role(r, s->node);
		_cleanup_strbuf_ struct strbuf title = STRBUF_INIT;
		if (!s->n)
			continue;
		strbuf_addf(&title, role[0] ? "%s (%s)" : "%s", s->node, role);
		strbuf_addstr(sb, block ? ", \\\n     " : "plot ");
		gp_str(sb, p->dat);
		strbuf_addf(sb, " index %d using 1:2 with lines lw 2 title ", block++);
		gp_str(sb, title.buf);
	}
	for (int i = 0; i < in->nmem; i++) {
		const struct vmemseries *m = &in->mem[i];
		_cleanup_strbuf_ struct strbuf title = STRBUF_INIT;
		if (!mem_drawn(m) || !block)
			continue;
		strbuf_addf(&title, "%s MemAvailable (right axis)", m->node);
		strbuf_addstr(sb, ", \\\n     ");
		gp_str(sb, p->dat);
		strbuf_addf(sb, " index %d using 1:2 axes x1y2 with lines lw 1 lc rgb 'orange' title ", block++);
		gp_str(sb, title.buf);
	}
	/* Nothing recorded: still draw the axes and markers rather than fail. */
	if (!block)
		strbuf_addf(sb, "set xrange [0:%.3f]\nset yrange [0:1]\nplot NaN notitle",
			    (double)(r->duration_ms ? r->duration_ms : 1000) / 1000.0);
	strbuf_addch(sb, '\n');
}

static void build_gp(const struct run_report *r, const struct plot_paths *p, struct strbuf *sb)
{
	const struct verdict_input *in = r->in;

	header(sb, r, p);
	if (r->v->t_resume)
		observe_window(sb, in, r->v);
	if (in->fault_fired) {
		vline(sb, (double)in->t_fault / 1000.0, "dt 2 lw 2 lc rgb 'red'", "fault",
		      "graph 0.97 right offset -0.5,0 tc rgb 'red'");
		phase_lines(sb, in, &r->v->ph);
	}
	pressure_axis(sb, r);
	plot_cmd(sb, r, p);
}

/* gnuplot is optional at run time: without it the .dat and .gp files are the plot. */
static int run_gnuplot(const struct plot_paths *p)
{
	static bool warned;
	const char *argv[] = { "gnuplot", p->gp, NULL };
	struct spawn_opts o = { .argv = argv, .out = SPAWN_CAPTURE, .err = SPAWN_CAPTURE,
				.timeout_ms = GNUPLOT_TIMEOUT_MS };
	struct spawn_result res;
	int r = spawn_run(&o, &res);

	if (r == -ENOENT) {
		if (!warned)
			log_warn("gnuplot is not installed: no progress.svg (progress.gp is ready for it)");
		warned = true;
		return 0;
	}
	if (r < 0)
		return r;
	r = res.cancelled ? -EINTR : res.timed_out ? -ETIMEDOUT : res.exit_code ? -EIO : 0;
	if (!r && access(p->svg, F_OK) < 0)
		r = -EIO;
	/* Its own words are the diagnosis; keep them next to the script for the caller to point at. */
	if (r) {
		write_file_atomic(p->log, res.out.buf, res.out.len, 0644);
		unlink(p->svg);
	} else if (res.out.len) {
		log_debug("gnuplot: %s", res.out.buf);
	}
	spawn_result_release(&res);
	return r;
}

static int write_sb(const char *path, const struct strbuf *sb)
{
	return write_file_atomic(path, sb->buf, sb->len, 0644);
}

int report_plot(const struct run_report *r, const char *dir)
{
	_cleanup_strbuf_ struct strbuf dat = STRBUF_INIT;
	_cleanup_strbuf_ struct strbuf gp = STRBUF_INIT;
	_cleanup_free_ char *abs = NULL;
	struct plot_paths p;
	int ret;

	if (!r->v || !r->in)
		return -EINVAL;
	/* spawn_run has no working directory: the script names every file absolutely. */
	abs = realpath(dir, NULL);
	if (!abs)
		return -errno;
	p = (struct plot_paths){ xasprintf("%s/progress.dat", abs), xasprintf("%s/progress.gp", abs),
				 xasprintf("%s/progress.svg", abs), xasprintf("%s/progress.log", abs) };
	build_dat(r->in, &dat);
	build_gp(r, &p, &gp);
	ret = write_sb(p.dat, &dat);
	if (!ret)
		ret = write_sb(p.gp, &gp);
	if (!ret)
		ret = run_gnuplot(&p);
	free(p.dat);
	free(p.gp);
	free(p.svg);
	free(p.log);
	return ret;
}
