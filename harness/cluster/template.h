/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_TEMPLATE_H
#define TAKEOVER_TEMPLATE_H
/*
 * cluster-config/ templates: @NAME@ is replaced by the variable NAME, "@@" is
 * a literal '@'. An unknown or unterminated variable is an error naming the
 * template and line: a typo must not silently produce a broken cluster.
 */
#include <stddef.h>

#include "util/strbuf.h"

struct tmpl_var {
	const char *name;
	const char *value;
};

struct tmpl_vars {
	struct tmpl_var *v;
	size_t n, alloc;
};

void tmpl_set(struct tmpl_vars *vars, const char *name, const char *value);
void tmpl_setf(struct tmpl_vars *vars, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void tmpl_release(struct tmpl_vars *vars);

/* Renders text; 0, or -EINVAL with "NAME:LINE: reason" appended to err. */
int tmpl_render(const char *name, const char *text, const struct tmpl_vars *vars,
		struct strbuf *out, struct strbuf *err);
/* Renders the file src into dst (mode). */
int tmpl_render_file(const char *src, const char *dst, unsigned mode, const struct tmpl_vars *vars,
		     struct strbuf *err);

#endif
