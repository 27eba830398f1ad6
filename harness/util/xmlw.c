// SPDX-License-Identifier: GPL-2.0-only
#include "util/xmlw.h"

#include <errno.h>

int xw_begin(struct xw *x)
{
	x->err = 0;
	x->buf = xmlBufferCreate();
	x->w = x->buf ? xmlNewTextWriterMemory(x->buf, 0) : NULL;
	if (!x->w) {
		if (x->buf)
			xmlBufferFree(x->buf);
		x->buf = NULL;
		return -ENOMEM;
	}
	xmlTextWriterSetIndent(x->w, 1);
	xmlTextWriterSetIndentString(x->w, BAD_CAST "  ");
	return 0;
}

int xw_finish(struct xw *x, struct strbuf *out)
{
	x->err |= xmlTextWriterEndDocument(x->w) < 0;
	xmlFreeTextWriter(x->w);
	if (!x->err)
		strbuf_add(out, xmlBufferContent(x->buf), (size_t)xmlBufferLength(x->buf));
	xmlBufferFree(x->buf);
	x->w = NULL;
	x->buf = NULL;
	return x->err ? -ENOMEM : 0;
}

void xw_open(struct xw *x, const char *name)
{
	x->err |= xmlTextWriterStartElement(x->w, BAD_CAST name) < 0;
}

void xw_close(struct xw *x)
{
	x->err |= xmlTextWriterEndElement(x->w) < 0;
}

void xw_attr(struct xw *x, const char *name, const char *value)
{
	x->err |= xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value) < 0;
}

void xw_text(struct xw *x, const char *text)
{
	x->err |= xmlTextWriterWriteString(x->w, BAD_CAST text) < 0;
}

void xw_element(struct xw *x, const char *name, const char *text)
{
	x->err |= xmlTextWriterWriteElement(x->w, BAD_CAST name, BAD_CAST text) < 0;
}

void xw_empty(struct xw *x, const char *name, const char *a1, const char *v1, const char *a2,
	      const char *v2)
{
	xw_open(x, name);
	if (a1)
		xw_attr(x, a1, v1);
	if (a2)
		xw_attr(x, a2, v2);
	xw_close(x);
}
