// SPDX-License-Identifier: GPL-2.0-only
/*
 * The few lines `takeover run` ends with: the verdict first, because that is
 * what a person (or a bisect log) looks for; then, when the node was caught
 * stuck, why: the hang class, where the blocked tasks wait, memory at that
 * moment and the files with the rest; then the evidence in the order it
 * happened: takeover phases, the observe window, kernel reports,
 * verification, the steps, and where the full record is.
 */
#include <stdio.h>
#include <string.h>

#include "report/common.h"
#include "report/report.h"
#include "util/units.h"

#define SUMMARY_MAX_KERNEL 3
/* The why section: enough to recognise the hang, report.json and the files have the rest. */
#define SUMMARY_MAX_GROUPS 3
#define SUMMARY_MAX_FRAMES 10
#define SUMMARY_MEMINFO_LINES 10
#define SUMMARY_INDENT "    "

/* The reason can quote a guest (a kernel report's title): no raw control bytes to the terminal. */
static void verdict_line(const struct run_report *r, FILE *f)
{
	_cleanup_strbuf_ struct strbuf reason = STRBUF_INIT;

	report_clean_text(&reason, r->v->reason);
	fprintf(f, "%s: %s (exit %d)\n", verdict_name(r->v->cls), reason.buf,
		verdict_exit_code(r->v->cls));
}

/* The "Mem-Info:" totals (up to the per-node lines): free, dirty, writeback, slab. */
static void meminfo_head(const struct forensics *fx, FILE *f)
{
	_cleanup_strbuf_ struct strbuf text = STRBUF_INIT;
	const char *p;
	int n = 0;

	report_console_text(&text, fx->meminfo, 1 << 20);
	p = strstr(text.buf, "Mem-Info:");
	if (!p) {
		fprintf(f, "  meminfo: %s\n", text.len ? "no Mem-Info in the sysrq-m capture" : "not captured");
		return;
	}
	fprintf(f, "  meminfo:\n");
	while (*p && n++ < SUMMARY_MEMINFO_LINES) {
		size_t l = strcspn(p, "\n");
		if (n > 1 && !strncmp(p, "Node ", 5))
			break;
		fprintf(f, "%s%.*s\n", SUMMARY_INDENT, (int)l, p);
		p += l + (p[l] == '\n');
	}
}

static void evidence_line(const struct forensics *fx, FILE *f)
{
	const char *files[] = { fx->sysrq_w_file, fx->sysrq_t_file, fx->sysrq_m_file, fx->vmcore_file };
	const char *sep = "";

	fprintf(f, "  evidence:");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!files[i][0])
			continue;
		fprintf(f, "%s %s", sep, files[i]);
		sep = ",";
	}
	fprintf(f, "%s\n", sep[0] ? "" : " none saved");
	if (fx->vmcore_note[0]) {
		_cleanup_strbuf_ struct strbuf note = STRBUF_INIT;
		report_clean_text(&note, fx->vmcore_note);
		fprintf(f, "  vmcore: %s\n", note.buf);
	}
}

/*
 * Why it failed, before the how: the hang class and where the blocked tasks
 * wait. A PASS keeps its short summary even if a capture happened.
 */
static void why_section(const struct run_report *r, FILE *f)
{
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;
	const struct forensics *fx = r->fx;

	if (!fx || !fx->captured || r->v->cls == VERDICT_PASS)
		return;
	strbuf_addstr(&sb, "why: ");
	report_why_line(&sb, fx);
	strbuf_addch(&sb, '\n');
	report_blocked_text(&sb, fx, SUMMARY_MAX_GROUPS, SUMMARY_MAX_FRAMES, "  ");
	fputs(sb.buf, f);
	meminfo_head(fx, f);
	evidence_line(fx, f);
}

static void phases_line(const struct run_report *r, FILE *f)
{
	const struct verdict_input *in = r->in;
	const char *sep = "";
	char missing[256] = "";
	size_t m = 0;

	if (!in->fault_fired) {
		fprintf(f, "takeover: the fault was not injected\n");
		return;
	}
	if (in->group_stays)
		fprintf(f, "fault on %s, the group %s there, at %.1fs: ", in->victim,
			in->group_restarts ? "restarts" : "stays", (double)in->t_fault / 1000.0);
	else
		fprintf(f, "%s %s -> %s, fault at %.1fs: ", verdict_server_to_client(in) ? "failback" : "takeover",
			in->victim, in->takeover, (double)in->t_fault / 1000.0);
	for (size_t i = 0; i < REPORT_NPHASES; i++) {
		int64_t ms = report_phase_ms(&r->v->ph, &report_phases[i]);
		if (ms >= 0) {
			fprintf(f, "%s%s +%.1fs", sep, report_phase_label(in, i), (double)ms / 1000.0);
			sep = ", ";
		} else if (m < sizeof(missing)) {
			m += (size_t)snprintf(missing + m, sizeof(missing) - m, "%s%s", m ? ", " : "",
					      report_phase_label(in, i));
		}
	}
	if (missing[0])
		fprintf(f, "%snot seen: %s", sep[0] ? "; " : "", missing);
	fputc('\n', f);
}

static void window_line(const struct run_report *r, FILE *f)
{
	const struct verdict *v = r->v;
	const struct verdict_input *in = r->in;
	double from, to;
	char bytes[32], rate[32], min[32], stall[32];

	if (!v->t_resume) {
		fprintf(f, "observe window: not reached\n");
		return;
	}
	from = (double)(v->t_resume - in->t_fault) / 1000.0;
	to = from + (double)in->observe / 1000.0;
	/* The verdict stops before measuring a window the run did not finish. */
	if (v->cls == VERDICT_ERROR) {
		fprintf(f, "observe window +%.1fs..+%.1fs on %s: incomplete\n", from, to, verdict_judged_node(in));
		return;
	}
	report_human_bytes((double)v->window_bytes, bytes, sizeof(bytes));
	report_human_bytes(v->window_rate, rate, sizeof(rate));
	format_size(in->min_rate, min, sizeof(min));
	format_duration_ms(in->max_stall, stall, sizeof(stall));
	fprintf(f, "observe window +%.1fs..+%.1fs on %s: %s acknowledged, %s/s (min_rate %s/s), "
		   "longest gap %.1fs (max_stall %s)\n",
		from, to, verdict_judged_node(in), bytes, rate, min, (double)v->max_gap / 1000.0, stall);
}

/* Whether the run tested the kernel under the pressure the scenario asked for. */
static void pressure_line(const struct run_report *r, FILE *f)
{
	const struct pressure_result *pr = &r->v->pr;
	const struct verdict_input *in = r->in;

	if (!pr->judged)
		return;
	fprintf(f, "pressure +%.1fs..+%.1fs (min_held %u%%):", (double)(pr->from - in->t_fault) / 1000.0,
		(double)(pr->to - in->t_fault) / 1000.0, in->min_held);
	for (int i = 0; i < pr->n; i++) {
		const struct pressure_node *p = &pr->nodes[i];
		char reach[32];
		format_size(p->reach_kb << 10, reach, sizeof(reach));
		fprintf(f, "%s %s held %.0f%% (MemAvailable <= %s)", i ? ";" : "", p->node, p->held * 100.0,
			reach);
		if (p->first_lost)
			fprintf(f, ", lost from +%.1fs, longest %.1fs",
				((double)p->first_lost - (double)in->t_fault) / 1000.0,
				(double)p->longest_lost / 1000.0);
		fprintf(f, ", %d OOM kill%s, hog restarted %d time%s", p->oom_kills, p->oom_kills == 1 ? "" : "s",
			p->restarts, p->restarts == 1 ? "" : "s");
	}
	fputc('\n', f);
}

/* Only when there are any: most runs have none, and an empty line is noise. */
static void kernel_line(const struct run_report *r, FILE *f)
{
	const struct verdict_input *in = r->in;

	if (!in->nkernel)
		return;
	fprintf(f, "kernel: %d report%s", in->nkernel, in->nkernel == 1 ? "" : "s");
	for (int i = 0; i < in->nkernel && i < SUMMARY_MAX_KERNEL; i++) {
		/* A guest's bytes must not reach the terminal as control sequences. */
		_cleanup_strbuf_ struct strbuf title = STRBUF_INIT;
		report_clean_text(&title, in->kernel[i].title);
		fprintf(f, "%s %s%s t=%.1fs %s", i ? ";" : ":", in->kernel[i].node,
			strcmp(in->kernel[i].node, in->victim) ? "" : " (victim)",
			(double)in->kernel[i].t / 1000.0, title.buf);
	}
	fprintf(f, "%s\n", in->nkernel > SUMMARY_MAX_KERNEL ? "; ..." : "");
}

static void verify_line(const struct run_report *r, FILE *f)
{
	const struct verdict_input *in = r->in;

	fprintf(f, "verify:");
	if (!in->nverify)
		fprintf(f, " not run");
	for (int i = 0; i < in->nverify; i++) {
		const char *sep = i ? ";" : "";
		if (!in->verify[i].ran)
			fprintf(f, "%s %s not run", sep, in->verify[i].node);
		else if (in->verify[i].missing || in->verify[i].corrupt)
			fprintf(f, "%s %s %llu missing, %llu corrupt of %llu", sep, in->verify[i].node,
				(unsigned long long)in->verify[i].missing,
				(unsigned long long)in->verify[i].corrupt,
				(unsigned long long)in->verify[i].acked);
		else
			fprintf(f, "%s %s ok (%llu acknowledged records)", sep, in->verify[i].node,
				(unsigned long long)in->verify[i].acked);
	}
	fputc('\n', f);
}

/* "audit: after-observe ok; end: n1 is not in the membership" (nothing for runs before audits). */
static void audit_line(const struct run_report *r, FILE *f)
{
	const struct verdict_input *in = r->in;

	if (!in->naudit)
		return;
	fprintf(f, "audit:");
	for (int i = 0; i < in->naudit; i++)
		fprintf(f, "%s %s %s%s", i ? ";" : "", in->audit[i].when, in->audit[i].problems[0] ? "found: " : "ok",
			in->audit[i].problems);
	fputc('\n', f);
}

static void steps_line(const struct run_report *r, FILE *f)
{
	int passed = 0, skipped = 0, failed = 0;
	const char *sep = " (";

	for (int i = 0; i < r->nsteps; i++) {
		passed += r->steps[i].ran && r->steps[i].ok;
		failed += r->steps[i].ran && !r->steps[i].ok;
		skipped += !r->steps[i].ran;
	}
	fprintf(f, "steps: %d passed, %d failed", passed, failed);
	for (int i = 0; i < r->nsteps; i++) {
		if (!r->steps[i].ran || r->steps[i].ok)
			continue;
		fprintf(f, "%s%s", sep, r->steps[i].name);
		sep = ", ";
	}
	fprintf(f, "%s, %d skipped\n", failed ? ")" : "", skipped);
}

static void files_line(const struct run_report *r, FILE *f)
{
	fprintf(f, "run %s: ", r->run_id[0] ? r->run_id : "(no id)");
	for (size_t i = 0; i < REPORT_NFILES; i++)
		fprintf(f, "%s%s", i ? ", " : "", report_files[i].name);
	for (int i = 0; i < r->nnodes; i++)
		if (r->nodes[i].console[0])
			fprintf(f, ", %s", r->nodes[i].console);
	for (int i = 0; i < r->nnodes; i++)
		if (r->nodes[i].corosync_log[0])
			fprintf(f, ", %s", r->nodes[i].corosync_log);
	for (int i = 0; i < r->nnodes; i++)
		if (r->nodes[i].nfs_log[0])
			fprintf(f, ", %s", r->nodes[i].nfs_log);
	fputc('\n', f);
}

void report_summary(const struct run_report *r, FILE *f)
{
	if (!r->v || !r->in)
		return;
	verdict_line(r, f);
	why_section(r, f);
	phases_line(r, f);
	window_line(r, f);
	pressure_line(r, f);
	kernel_line(r, f);
	verify_line(r, f);
	audit_line(r, f);
	steps_line(r, f);
	files_line(r, f);
}
