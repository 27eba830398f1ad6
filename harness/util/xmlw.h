/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_XMLW_H
#define TAKEOVER_XMLW_H
/*
 * libxml2's xmlTextWriter with errors collected once for the whole document
 * (the domain XML and junit.xml): call freely, check xw_finish().
 */
#include <libxml/xmlwriter.h>

#include "util/strbuf.h"

struct xw {
	xmlBufferPtr buf;
	xmlTextWriterPtr w;
	int err;
};

/* Starts an indented document in memory; 0 or -ENOMEM. */
int xw_begin(struct xw *x);
/* Ends it, appends it to out on success; 0 or -ENOMEM (some call failed). Frees the writer. */
int xw_finish(struct xw *x, struct strbuf *out);

void xw_open(struct xw *x, const char *name);
void xw_close(struct xw *x);
void xw_attr(struct xw *x, const char *name, const char *value);
void xw_text(struct xw *x, const char *text);
/* <name>text</name> */
void xw_element(struct xw *x, const char *name, const char *text);
/* <name a1="v1" a2="v2"/>; unused attribute pairs are NULL. */
void xw_empty(struct xw *x, const char *name, const char *a1, const char *v1, const char *a2,
	      const char *v2);

#endif
