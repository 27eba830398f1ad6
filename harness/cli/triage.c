// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover triage: any kernel console log through the classifiers a run uses
 * (forensics/console/). Logs come in the shapes people paste them: a serial
 * capture, dmesg, dmesg -T, syslog or journalctl -k lines ("... kernel: "),
 * quoted ("> ") or indented in a mail, and wrapped by a mail client. Each
 * line is unwrapped of those here (the pieces of a wrapped line joined); the
 * classifiers see what a run's tailer sees.
 */
#include <ctype.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "forensics/console/console.h"
#include "util/exitcode.h"
#include "util/strbuf.h"
#include "util/units.h"
#include "util/xalloc.h"

#define TRIAGE_MAX_BYTES (256u << 20)

struct finding {
	const char *file;
	unsigned line;
	const struct classifier *c;
	char title[160];
	double kernel_time;
};

struct findings {
	struct finding *v;
	size_t n, alloc;
	const char *file; /* the file being fed */
};

static void collect(void *ctx, const struct console_report *rep)
{
	struct findings *f = ctx;

	if (f->n == f->alloc) {
		f->alloc = f->alloc ? 2 * f->alloc : 16;
		f->v = xrealloc(f->v, f->alloc * sizeof(*f->v));
	}
	f->v[f->n] = (struct finding){ f->file, rep->line, rep->c, "", rep->kernel_time };
	snprintf(f->v[f->n].title, sizeof(f->v[0].title), "%s", rep->title);
	f->n++;
}

/* "Dec  7 07:40:26 host kernel: " (syslog) or "Dec 07 07:40:26 host kernel: " (journalctl -k). */
static const char *after_syslog_prefix(const char *l)
{
	const char *k;

	if (parse_month_abbrev(l) < 0 || l[3] != ' ')
		return l;
	k = strstr(l, " kernel: ");
	return k && k - l < 80 ? k + 9 : l;
}

/* "[  125.804599]" or dmesg -T's "[Mon Dec  7 07:40:26 2026]" (not "[nfs]", the end of a wrapped frame). */
static bool kernel_stamp(const char *l)
{
	const unsigned char *u = (const unsigned char *)l;
	size_t i;

	if (l[0] != '[')
		return false;
	i = 1 + strspn(l + 1, " ");
	if (isdigit(u[i])) {
		i += strspn(l + i, "0123456789");
		return l[i] == '.' && isdigit(u[i + 1]);
	}
	return isupper(u[1]) && islower(u[2]) && islower(u[3]) && l[4] == ' ' && memchr(l, ']', strnlen(l, 32));
}

/*
 * Mail quoting ("> ", ">> ", "> > ") and indentation, then a syslog prefix.
 * *stamped: the line began with a time stamp (the kernel's, dmesg -T's or
 * syslog's), as every line of such a log does.
 */
static const char *unwrap(const char *l, bool *stamped)
{
	const char *rest;

	for (;;) {
		const char *p = l + strspn(l, " \t");
		if (*p != '>')
			break;
		l = p + 1;
		if (*l == ' ')
			l++;
	}
	l += strspn(l, " \t");
	rest = after_syslog_prefix(l);
	*stamped = rest != l || kernel_stamp(l);
	return rest;
}

/*
 * A mail client wraps long lines on a space (at 72 or 78 columns, less a
 * quote's "> "): in a log whose lines each carry a stamp, a line without
 * one right after a stamped line is the rest of it when its first word
 * would not have fitted on that line (prev_len: the last piece's length
 * in the file, quotes and prefixes included).
 */
#define WRAP_COLUMNS 70

static bool continues(size_t prev_len, bool prev_stamped, const char *next, bool next_stamped)
{
	return prev_stamped && !next_stamped && next[0] && prev_len + 1 + strcspn(next, " ") > WRAP_COLUMNS;
}

static int feed_file(const char *path, struct findings *f)
{
	_cleanup_strbuf_ struct strbuf raw = STRBUF_INIT;
	_cleanup_strbuf_ struct strbuf line = STRBUF_INIT;
	struct console_tail t;
	bool stdin_ = !strcmp(path, "-");
	int r = stdin_ ? strbuf_read_fd(&raw, STDIN_FILENO, TRIAGE_MAX_BYTES)
		       : strbuf_read_file(&raw, path, TRIAGE_MAX_BYTES);

	if (r < 0) {
		fprintf(stderr, "takeover: triage: %s: %s\n", stdin_ ? "standard input" : path,
			strerror(-r));
		return -1;
	}
	f->file = stdin_ ? "-" : path;
	console_tail_init(&t, collect, f);
	/* Lines unwrapped one ahead, so that a wrapped line is fed whole; line numbers stay the file's. */
	_cleanup_strbuf_ struct strbuf next = STRBUF_INIT;
	bool have = false, stamped = false;
	unsigned joined = 0;
	size_t piece = 0; /* the last piece of line, as long as the file had it */
	for (const char *s = raw.buf; have || (s && *s);) {
		bool next_stamped = false;
		size_t raw_len = 0;
		strbuf_reset(&next);
		if (s && *s) {
			const char *nl = strchr(s, '\n');
			size_t len = nl ? (size_t)(nl - s) : strlen(s);
			_cleanup_strbuf_ struct strbuf one = STRBUF_INIT;
			strbuf_add(&one, s, len);
			strbuf_rtrim(&one);
			raw_len = one.len;
			strbuf_addstr(&next, unwrap(one.buf, &next_stamped));
			s = nl ? nl + 1 : NULL;
			if (have && continues(piece, stamped, next.buf, next_stamped)) {
				strbuf_addch(&line, ' ');
				strbuf_addstr(&line, next.buf);
				piece = raw_len;
				joined++;
				continue;
			}
		} else {
			s = NULL;
		}
		if (have) {
			strbuf_addch(&line, '\n');
			console_tail_feed(&t, line.buf, line.len);
			t.lineno += joined;
		}
		joined = 0;
		have = next.len || s;
		strbuf_reset(&line);
		strbuf_addstr(&line, next.buf);
		piece = raw_len;
		stamped = next_stamped;
	}
	console_tail_flush(&t);
	console_tail_release(&t);
	return 0;
}

static int print_json(const struct findings *f)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < f->n; i++) {
		const struct finding *x = &f->v[i];
		json_t *o = json_pack("{s:s, s:I, s:s, s:s, s:s, s:o}", "file", x->file, "line",
				      (json_int_t)x->line, "family", x->c->cls, "severity",
				      x->c->sev == SEV_FATAL ? "fatal" : "info", "title", x->title,
				      "kernel_time", x->kernel_time < 0 ? json_null() : json_real(x->kernel_time));
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			a = NULL;
		}
	}
	if (!a || json_dumpf(a, stdout, JSON_INDENT(2)) || fputc('\n', stdout) == EOF) {
		json_decref(a);
		fprintf(stderr, "takeover: triage: cannot write JSON\n");
		return -1;
	}
	json_decref(a);
	return 0;
}

static int cmd_triage(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct command *self = &command_triage;
	struct findings f = { 0 };
	bool json = false, fatal = false;
	int c, bad = 0;

	while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			command_print_help(self);
			return TK_EXIT_PASS;
		default:
			return command_usage_error(self, "bad option");
		}
	}
	if (optind == argc)
		return command_usage_error(self, "no FILE (use - for standard input)");
	for (int i = optind; i < argc; i++)
		bad |= feed_file(argv[i], &f) < 0;
	if (bad) {
		free(f.v);
		return TK_EXIT_USAGE;
	}
	for (size_t i = 0; i < f.n; i++)
		fatal |= f.v[i].c->sev == SEV_FATAL;
	if (json) {
		bad = print_json(&f) < 0;
	} else {
		for (size_t i = 0; i < f.n; i++)
			printf("%s:%u: %s: %s\n", f.v[i].file, f.v[i].line, f.v[i].c->cls, f.v[i].title);
	}
	free(f.v);
	if (bad)
		return TK_EXIT_SKIP;
	return fatal ? TK_EXIT_FAIL : TK_EXIT_PASS;
}

const struct command command_triage = {
	"triage", cmd_triage, "triage [--json] FILE... | -",
	  "Classify kernel console logs with the classifiers a run uses",
	  "Reads each FILE (- for standard input): a serial console capture, dmesg, dmesg -T,\n"
	  "syslog or journalctl -k lines, or a log pasted into a mail (quoted with '> ' or\n"
	  "indented). Prints one line per report found, FILE:LINE: family: title, with\n"
	  "syzkaller-style titles (a hung task named by its first frame that is not a wait,\n"
	  "scheduling, locking or writeback helper), so a title can be searched on the syzbot\n"
	  "dashboard and on lore. A line a mail client wrapped is joined again when the log\n"
	  "stamps its lines (the kernel's, dmesg -T's or syslog's stamp): a piece without a\n"
	  "stamp after a stamped line whose next word would not have fit in 70 columns.\n\n"
	  "  --json    the findings as a JSON array (file, line, family, severity, title,\n"
	  "            kernel_time)\n\n"
	  "Exit status: 1 when a fatal report (oops, BUG, panic, lockdep, ...) is present,\n"
	  "0 when none is, 2 on bad usage or a file that cannot be read."
};
