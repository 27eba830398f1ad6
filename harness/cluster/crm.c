// SPDX-License-Identifier: GPL-2.0-only
#include "cluster/crm.h"

#include <errno.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

static const char *prop(xmlNodePtr n, const char *name, char *buf, size_t len)
{
	xmlChar *v = xmlGetProp(n, BAD_CAST name);

	snprintf(buf, len, "%s", v ? (const char *)v : "");
	xmlFree(v);
	return buf;
}

static xmlXPathObjectPtr query(xmlXPathContextPtr ctx, const char *expr)
{
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, ctx);

	if (o && (!o->nodesetval || !o->nodesetval->nodeNr)) {
		xmlXPathFreeObject(o);
		return NULL;
	}
	return o;
}

static void parse_nodes(xmlXPathContextPtr ctx, struct crm_status *st)
{
	xmlXPathObjectPtr o = query(ctx, "/pacemaker-result/nodes/node[@online='true']");

	for (int i = 0; o && i < o->nodesetval->nodeNr && st->nodes_online < CRM_MAX_NODES; i++)
		prop(o->nodesetval->nodeTab[i], "name", st->online[st->nodes_online++], 16);
	if (o)
		xmlXPathFreeObject(o);
}

/* A running resource's node: its first <node name=...> child. */
static void running_on(xmlNodePtr res, char *buf, size_t len)
{
	buf[0] = '\0';
	for (xmlNodePtr c = res->children; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, "node")) {
			prop(c, "name", buf, len);
			return;
		}
}

const char *const crm_group_members[CRM_N_MEMBERS] = {
	[CRM_FS] = "shared_fs", [CRM_NFSD] = "nfsd", [CRM_EXPORT] = "export", [CRM_VIP] = "vip",
};

static void member_slot(struct crm_status *st, const char *id, const char *node)
{
	for (int i = 0; i < CRM_N_MEMBERS; i++)
		if (!strcmp(crm_group_members[i], id))
			snprintf(st->member_node[i], sizeof(st->member_node[i]), "%s", node);
}

static void parse_group(xmlXPathContextPtr ctx, struct crm_status *st)
{
	xmlXPathObjectPtr o = query(ctx, "/pacemaker-result/resources/group[@id='" CRM_GROUP "']/resource");
	char role[32], active[8], node[16], id[32];
	bool all = o != NULL;

	for (int i = 0; o && i < o->nodesetval->nodeNr; i++) {
		xmlNodePtr r = o->nodesetval->nodeTab[i];
		prop(r, "role", role, sizeof(role));
		prop(r, "active", active, sizeof(active));
		running_on(r, node, sizeof(node));
		if (strcmp(role, "Started") || strcmp(active, "true") || !node[0]) {
			all = false;
			continue;
		}
		st->group_members_started++;
		member_slot(st, prop(r, "id", id, sizeof(id)), node);
		if (!st->group_node[0])
			snprintf(st->group_node, sizeof(st->group_node), "%s", node);
		else if (strcmp(st->group_node, node))
			all = false;
	}
	st->group_started = all;
	if (o)
		xmlXPathFreeObject(o);
}

static void parse_fence(xmlXPathContextPtr ctx, struct crm_status *st)
{
	xmlXPathObjectPtr o = query(ctx, "/pacemaker-result/resources/resource[@id='" CRM_FENCE "']");
	char role[32];

	if (!o)
		return;
	prop(o->nodesetval->nodeTab[0], "role", role, sizeof(role));
	running_on(o->nodesetval->nodeTab[0], st->fence_node, sizeof(st->fence_node));
	st->fence_started = !strcmp(role, "Started") && st->fence_node[0];
	xmlXPathFreeObject(o);
}

static void parse_failures(xmlXPathContextPtr ctx, struct crm_status *st)
{
	xmlXPathObjectPtr o = query(ctx, "/pacemaker-result/failures/failure");
	char id[96], task[32], node[16], status[64], exitstatus[64], reason[96];
	_cleanup_strbuf_ struct strbuf sb = STRBUF_INIT;

	if (!o)
		return;
	st->failures = o->nodesetval->nodeNr;
	xmlNodePtr f = o->nodesetval->nodeTab[0];
	/*
	 * status says how the operation ended ("complete", "Timed Out"), exitstatus
	 * what the agent returned ("error", "not running"), exitreason its own words.
	 */
	prop(f, "exitstatus", exitstatus, sizeof(exitstatus));
	prop(f, "exitreason", reason, sizeof(reason));
	strbuf_addf(&sb, "%s %s on %s: %s", prop(f, "op_key", id, sizeof(id)),
		    prop(f, "task", task, sizeof(task)), prop(f, "node", node, sizeof(node)),
		    prop(f, "status", status, sizeof(status)));
	if (exitstatus[0])
		strbuf_addf(&sb, ", %s", exitstatus);
	if (reason[0])
		strbuf_addf(&sb, " (%s)", reason);
	snprintf(st->first_failure, sizeof(st->first_failure), "%s", sb.buf);
	xmlXPathFreeObject(o);
}

static void parse_fence_history(xmlXPathContextPtr ctx, struct crm_status *st)
{
	xmlXPathObjectPtr o = query(ctx, "/pacemaker-result/fence_history/fence_event[@status='success']");

	for (int i = 0; o && i < o->nodesetval->nodeNr && st->nfenced < CRM_MAX_NODES; i++)
		prop(o->nodesetval->nodeTab[i], "target", st->fenced[st->nfenced++], 16);
	if (o)
		xmlXPathFreeObject(o);
	o = query(ctx, "/pacemaker-result/fence_history/fence_event[@status='failed']");
	for (int i = 0; o && i < o->nodesetval->nodeNr && st->nfence_failed < CRM_MAX_NODES; i++)
		prop(o->nodesetval->nodeTab[i], "target", st->fence_failed[st->nfence_failed++], 16);
	if (o)
		xmlXPathFreeObject(o);
}

bool crm_node_fence_failed(const struct crm_status *st, const char *node)
{
	for (int i = 0; i < st->nfence_failed; i++)
		if (!strcmp(st->fence_failed[i], node))
			return true;
	return false;
}

bool crm_node_fenced(const struct crm_status *st, const char *node)
{
	for (int i = 0; i < st->nfenced; i++)
		if (!strcmp(st->fenced[i], node))
			return true;
	return false;
}

int crm_parse_status(const char *xml, size_t len, struct crm_status *st)
{
	xmlDocPtr doc;
	xmlXPathContextPtr ctx;

	memset(st, 0, sizeof(*st));
	/* crm_mon may print warnings before the document. */
	const char *start = len ? memmem(xml, len, "<pacemaker-result", 17) : NULL;
	if (!start)
		return -EINVAL;
	doc = xmlReadMemory(start, (int)(len - (size_t)(start - xml)), "crm_mon.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc)
		return -EINVAL;
	ctx = xmlXPathNewContext(doc);
	if (!ctx) {
		xmlFreeDoc(doc);
		return -ENOMEM;
	}
	parse_nodes(ctx, st);
	parse_group(ctx, st);
	parse_fence(ctx, st);
	parse_failures(ctx, st);
	parse_fence_history(ctx, st);
	xmlXPathFreeContext(ctx);
	xmlFreeDoc(doc);
	return 0;
}

bool crm_node_online(const struct crm_status *st, const char *node)
{
	for (int i = 0; i < st->nodes_online; i++)
		if (!strcmp(st->online[i], node))
			return true;
	return false;
}

void crm_location_argv(const char *argv[CRM_LOCATION_ARGC], const char *id, const char *node, const char *score)
{
	struct strbuf x = STRBUF_INIT;

	strbuf_addf(&x, "<rsc_location id=\"%s\" rsc=\"%s\" node=\"%s\" score=\"%s\"/>", id, CRM_GROUP, node,
		    score);
	/* --create --scope --xml-text */
	argv[0] = "cibadmin";
	argv[1] = "-C";
	argv[2] = "-o";
	argv[3] = "constraints";
	argv[4] = "-X";
	argv[5] = strbuf_detach(&x, NULL);
	argv[6] = NULL;
}

void crm_location_argv_free(const char *argv[CRM_LOCATION_ARGC])
{
	free((char *)argv[5]);
	argv[5] = NULL;
}
