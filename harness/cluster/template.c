// SPDX-License-Identifier: GPL-2.0-only
#include "cluster/template.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"
#include "util/xalloc.h"

void tmpl_set(struct tmpl_vars *vars, const char *name, const char *value)
{
	for (size_t i = 0; i < vars->n; i++) {
		if (!strcmp(vars->v[i].name, name)) {
			free((char *)vars->v[i].value);
			vars->v[i].value = xstrdup(value);
			return;
		}
	}
	if (vars->n == vars->alloc) {
		vars->alloc = vars->alloc ? vars->alloc * 2 : 16;
		vars->v = xrealloc(vars->v, vars->alloc * sizeof(*vars->v));
	}
	vars->v[vars->n++] = (struct tmpl_var){ xstrdup(name), xstrdup(value) };
}

void tmpl_setf(struct tmpl_vars *vars, const char *name, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	tmpl_set(vars, name, sb.buf);
	strbuf_release(&sb);
}

void tmpl_release(struct tmpl_vars *vars)
{
	for (size_t i = 0; i < vars->n; i++) {
		free((char *)vars->v[i].name);
		free((char *)vars->v[i].value);
	}
	free(vars->v);
	memset(vars, 0, sizeof(*vars));
}

static const char *lookup(const struct tmpl_vars *vars, const char *name, size_t len)
{
	for (size_t i = 0; i < vars->n; i++)
		if (strlen(vars->v[i].name) == len && !strncmp(vars->v[i].name, name, len))
			return vars->v[i].value;
	return NULL;
}

static size_t var_len(const char *p)
{
	size_t n = 0;

	while ((p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9') || p[n] == '_')
		n++;
	return n;
}

int tmpl_render(const char *name, const char *text, const struct tmpl_vars *vars,
		struct strbuf *out, struct strbuf *err)
{
	unsigned line = 1;
	int bad = 0;

	for (const char *p = text; *p; p++) {
		if (*p == '\n')
			line++;
		if (*p != '@') {
			strbuf_addch(out, *p);
			continue;
		}
		if (p[1] == '@') {
			strbuf_addch(out, '@');
			p++;
			continue;
		}
		size_t n = var_len(p + 1);
		const char *v = n ? lookup(vars, p + 1, n) : NULL;
		if (!n || p[1 + n] != '@') {
			strbuf_addf(err, "%s:%u: '@' not followed by NAME@ (write @@ for a literal '@')\n",
				    name, line);
			bad = 1;
			continue;
		}
		if (!v) {
			strbuf_addf(err, "%s:%u: unknown variable @%.*s@\n", name, line, (int)n, p + 1);
			bad = 1;
		} else {
			strbuf_addstr(out, v);
		}
		p += n + 1;
	}
	return bad ? -EINVAL : 0;
}

int tmpl_render_file(const char *src, const char *dst, unsigned mode, const struct tmpl_vars *vars,
		     struct strbuf *err)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
	int r = strbuf_read_file(&in, src, 1 << 20);

	if (r < 0)
		strbuf_addf(err, "%s: cannot read: %s\n", src, strerror(-r));
	else
		r = tmpl_render(src, in.buf, vars, &out, err);
	if (!r) {
		r = write_file_atomic(dst, out.buf, out.len, mode);
		if (r < 0)
			strbuf_addf(err, "%s: cannot write: %s\n", dst, strerror(-r));
	}
	strbuf_release(&in);
	strbuf_release(&out);
	return r;
}
