// SPDX-License-Identifier: GPL-2.0-only
/*
 * crm_mon XML as Pacemaker 2.1.5 printed it on a real cluster
 * (tests/fixtures/crm/after-takeover-n1.xml: n2 destroyed and fenced, the
 * NFS group started on n1), and variants of that recording for the states
 * a takeover passes through.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/crm.h"
#include "util/strbuf.h"

static struct strbuf xml = STRBUF_INIT;
static struct crm_status st;

static void load(void)
{
	strbuf_reset(&xml);
	ck_assert_int_eq(strbuf_read_file(&xml, FIXTURES_DIR "/crm/after-takeover-n1.xml", 1 << 20), 0);
}

/* Replaces the first occurrence of from (which must be there) in the recording. */
static void edit(const char *from, const char *to)
{
	char *p = strstr(xml.buf, from);
	struct strbuf out = STRBUF_INIT;

	ck_assert_msg(p, "'%s' not in the recording", from);
	strbuf_add(&out, xml.buf, (size_t)(p - xml.buf));
	strbuf_addstr(&out, to);
	strbuf_addstr(&out, p + strlen(from));
	strbuf_release(&xml);
	xml = out;
}

static int parse(void)
{
	memset(&st, 0xa5, sizeof(st)); /* the parser must set every field it reports */
	return crm_parse_status(xml.buf, xml.len, &st);
}

START_TEST(after_takeover)
{
	load();
	ck_assert_int_eq(parse(), 0);
	ck_assert_int_eq(st.nodes_online, 2);
	ck_assert(crm_node_online(&st, "n1") && crm_node_online(&st, "n3"));
	ck_assert(!crm_node_online(&st, "n2"));
	ck_assert(st.group_started);
	ck_assert_str_eq(st.group_node, "n1");
	ck_assert_int_eq(st.group_members_started, CRM_N_MEMBERS);
	for (int m = 0; m < CRM_N_MEMBERS; m++)
		ck_assert_str_eq(st.member_node[m], "n1");
	ck_assert(st.fence_started);
	ck_assert_str_eq(st.fence_node, "n1");
	ck_assert(crm_node_fenced(&st, "n2"));
	ck_assert(!crm_node_fenced(&st, "n1"));
	ck_assert(!crm_node_fence_failed(&st, "n2"));
	ck_assert_int_eq(st.failures, 0);
}
END_TEST

/* Mid-takeover: the file system is up on n1, nfsd is still starting. */
START_TEST(nfsd_not_started)
{
	load();
	edit("<resource id=\"nfsd\" resource_agent=\"ocf:heartbeat:nfsserver\" role=\"Started\" active=\"true\"",
	     "<resource id=\"nfsd\" resource_agent=\"ocf:heartbeat:nfsserver\" role=\"Stopped\" active=\"false\"");
	ck_assert_int_eq(parse(), 0);
	ck_assert(!st.group_started);
	ck_assert_int_eq(st.group_members_started, CRM_N_MEMBERS - 1);
	ck_assert_str_eq(st.member_node[CRM_FS], "n1");
	ck_assert_str_eq(st.member_node[CRM_NFSD], "");
}
END_TEST

/* A member on another node than the rest: not "the group is started". */
START_TEST(group_split)
{
	load();
	edit("<resource id=\"vip\" resource_agent=\"ocf:heartbeat:IPaddr2\" role=\"Started\" active=\"true\" "
	     "orphaned=\"false\" blocked=\"false\" managed=\"true\" failed=\"false\" failure_ignored=\"false\" "
	     "nodes_running_on=\"1\">\n        <node name=\"n1\"",
	     "<resource id=\"vip\" resource_agent=\"ocf:heartbeat:IPaddr2\" role=\"Started\" active=\"true\" "
	     "orphaned=\"false\" blocked=\"false\" managed=\"true\" failed=\"false\" failure_ignored=\"false\" "
	     "nodes_running_on=\"1\">\n        <node name=\"n3\"");
	ck_assert_int_eq(parse(), 0);
	ck_assert(!st.group_started);
	ck_assert_str_eq(st.member_node[CRM_VIP], "n3");
}
END_TEST

START_TEST(fence_failed)
{
	load();
	edit("status=\"success\"", "status=\"failed\"");
	ck_assert_int_eq(parse(), 0);
	ck_assert(!crm_node_fenced(&st, "n2"));
	ck_assert(crm_node_fence_failed(&st, "n2"));
}
END_TEST

START_TEST(not_crm_output)
{
	load();
	ck_assert_int_eq(crm_parse_status(xml.buf, xml.len / 2, &st), -EINVAL); /* cut short */
	ck_assert_int_eq(crm_parse_status("<html/>", 7, &st), -EINVAL);
	ck_assert_int_eq(crm_parse_status("", 0, &st), -EINVAL);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("crm");
	TCase *rec = tcase_create("recorded");
	SRunner *sr;
	int failed;

	tcase_add_test(rec, after_takeover);
	tcase_add_test(rec, nfsd_not_started);
	tcase_add_test(rec, group_split);
	tcase_add_test(rec, fence_failed);
	tcase_add_test(rec, not_crm_output);
	suite_add_tcase(s, rec);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
