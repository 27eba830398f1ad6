// SPDX-License-Identifier: GPL-2.0-only
/*
 * cluster-config/ templates (harness/cluster/template.c): @NAME@ substitution, the
 * @@ escape, errors that name the template and line; and every real template
 * rendered with the variables harness/cluster/cluster.c provides, so a variable
 * added to a template but not to base_vars()/node_vars() (or misspelt) fails
 * here and not when a cluster comes up.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scenario/scenario.h"
#include "cluster/template.h"
#include "util/strbuf.h"
#include "util/xalloc.h"
#include "cluster/vm.h"

static struct tmpl_vars vars;
static struct strbuf out, err;

static void setup(void)
{
	memset(&vars, 0, sizeof(vars));
	strbuf_init(&out, 0);
	strbuf_init(&err, 0);
}

static void teardown(void)
{
	tmpl_release(&vars);
	strbuf_release(&out);
	strbuf_release(&err);
}

static int render(const char *text)
{
	strbuf_reset(&out);
	strbuf_reset(&err);
	return tmpl_render("t.in", text, &vars, &out, &err);
}

/* ---- the syntax ---- */

START_TEST(substitutes)
{
	tmpl_set(&vars, "CLUSTER", "c1");
	tmpl_set(&vars, "TOKEN_MS", "10000");
	tmpl_set(&vars, "X_2", "two");
	ck_assert_int_eq(render("name: @CLUSTER@\ntoken: @TOKEN_MS@ @X_2@\n"), 0);
	ck_assert_str_eq(out.buf, "name: c1\ntoken: 10000 two\n");
	ck_assert_str_eq(err.buf, "");
	/* adjacent variables, a variable at the very start and end, nothing else */
	ck_assert_int_eq(render("@CLUSTER@@X_2@"), 0);
	ck_assert_str_eq(out.buf, "c1two");
	ck_assert_int_eq(render(""), 0);
	ck_assert_str_eq(out.buf, "");
	ck_assert_int_eq(render("no variables at all\n"), 0);
	ck_assert_str_eq(out.buf, "no variables at all\n");
}
END_TEST

/* Values are inserted as they are: no re-expansion of '@' or of other variables inside them. */
START_TEST(values_verbatim)
{
	tmpl_set(&vars, "A", "@B@ user@@host\n\ttwo_node: 1\n");
	tmpl_set(&vars, "B", "never");
	tmpl_set(&vars, "EMPTY", "");
	ck_assert_int_eq(render("[@A@][@EMPTY@]"), 0);
	ck_assert_str_eq(out.buf, "[@B@ user@@host\n\ttwo_node: 1\n][]");
}
END_TEST

START_TEST(escape)
{
	tmpl_set(&vars, "X", "x");
	ck_assert_int_eq(render("root@@localhost"), 0);
	ck_assert_str_eq(out.buf, "root@localhost");
	ck_assert_int_eq(render("@@@@"), 0);
	ck_assert_str_eq(out.buf, "@@");
	ck_assert_int_eq(render("@@X@@"), 0);
	ck_assert_str_eq(out.buf, "@X@");
	ck_assert_int_eq(render("@@@X@"), 0);
	ck_assert_str_eq(out.buf, "@x");
	ck_assert_int_eq(render("@X@@@"), 0);
	ck_assert_str_eq(out.buf, "x@");
}
END_TEST

START_TEST(unknown_variable)
{
	tmpl_set(&vars, "CLUSTER", "c1");
	ck_assert_int_eq(render("line one\nline @CLUSTER@ two\n\nfour @CLUSTR@\n"), -EINVAL);
	ck_assert_str_eq(err.buf, "t.in:4: unknown variable @CLUSTR@\n");
	/* names are case-sensitive and upper-case: "@cluster@" is no variable at all */
	ck_assert_int_eq(render("x @cluster@\n"), -EINVAL);
	ck_assert_str_eq(err.buf, "t.in:1: '@' not followed by NAME@ (write @@ for a literal '@')\n"
				  "t.in:1: '@' not followed by NAME@ (write @@ for a literal '@')\n");
}
END_TEST

/* Every problem is listed, each with its own line, counted in the template (not the output). */
START_TEST(all_errors_listed)
{
	tmpl_set(&vars, "MULTI", "a\nb\nc\n");
	ck_assert_int_eq(render("@NOPE@\n@MULTI@\nok\n@ALSO_NOPE@ and @MULTI@ and @X"), -EINVAL);
	ck_assert_str_eq(err.buf, "t.in:1: unknown variable @NOPE@\n"
				  "t.in:4: unknown variable @ALSO_NOPE@\n"
				  "t.in:4: '@' not followed by NAME@ (write @@ for a literal '@')\n");
}
END_TEST

START_TEST(unterminated)
{
	static const struct {
		const char *text;
		unsigned line;
	} t[] = {
		{ "user@host", 1 },        /* a lone '@' in running text */
		{ "a\nb\n@FOO", 3 },       /* a name that never ends */
		{ "a\n@FOO bar@\n", 2 },   /* a space ends the name */
		{ "trailing @", 1 },
		{ "@", 1 },
		{ "@-@", 1 },
		{ "x\n\n\n\n@FOO\n@", 5 }, /* the first of two */
	};
	char want[128];

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		ck_assert_msg(render(t[i].text) == -EINVAL, "'%s' accepted", t[i].text);
		snprintf(want, sizeof(want), "t.in:%u: '@' not followed by NAME@", t[i].line);
		ck_assert_msg(!strncmp(err.buf, want, strlen(want)), "'%s': %s", t[i].text, err.buf);
	}
}
END_TEST

START_TEST(set_overrides)
{
	tmpl_set(&vars, "NODE_NAME", "n1");
	tmpl_set(&vars, "NODE_IP", "10.99.0.11");
	tmpl_set(&vars, "NODE_NAME", "n2");
	tmpl_setf(&vars, "NODE_IP", "10.99.0.%d", 12);
	ck_assert_uint_eq(vars.n, 2);
	ck_assert_int_eq(render("@NODE_NAME@=@NODE_IP@"), 0);
	ck_assert_str_eq(out.buf, "n2=10.99.0.12");
	/* the value is copied: the caller's buffer may change afterwards */
	char buf[8] = "n3";
	tmpl_set(&vars, "NODE_NAME", buf);
	buf[1] = '9';
	ck_assert_int_eq(render("@NODE_NAME@"), 0);
	ck_assert_str_eq(out.buf, "n3");
}
END_TEST

/* More variables than the first allocation holds; a name that is a prefix of another. */
START_TEST(many_variables)
{
	struct strbuf text = STRBUF_INIT, want = STRBUF_INIT;

	for (int i = 0; i < 50; i++) {
		char name[16];
		snprintf(name, sizeof(name), "V%d", i);
		tmpl_setf(&vars, name, "value-%d", i);
		strbuf_addf(&text, "@V%d@,", i);
		strbuf_addf(&want, "value-%d,", i);
	}
	ck_assert_uint_eq(vars.n, 50);
	ck_assert_int_eq(render(text.buf), 0);
	ck_assert_str_eq(out.buf, want.buf);
	tmpl_set(&vars, "NODE", "short");
	tmpl_set(&vars, "NODE_ID", "long");
	ck_assert_int_eq(render("@NODE@ @NODE_ID@"), 0);
	ck_assert_str_eq(out.buf, "short long");
	strbuf_release(&text);
	strbuf_release(&want);
}
END_TEST

START_TEST(render_file)
{
	char dir[] = "/tmp/takeover-tmpl-XXXXXX";
	char *src, *dst;
	struct strbuf got = STRBUF_INIT;
	struct stat st;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	src = xasprintf("%s/x.in", dir);
	dst = xasprintf("%s/x.out", dir);
	f = fopen(src, "w");
	fputs("cluster @CLUSTER@\n", f);
	fclose(f);
	tmpl_set(&vars, "CLUSTER", "c7");
	ck_assert_int_eq(tmpl_render_file(src, dst, 0600, &vars, &err), 0);
	ck_assert_int_eq(strbuf_read_file(&got, dst, 4096), 0);
	ck_assert_str_eq(got.buf, "cluster c7\n");
	ck_assert_int_eq(stat(dst, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
	unlink(dst);

	/* an error names the source file; nothing is written */
	f = fopen(src, "w");
	fputs("ok\n@BAD@\n", f);
	fclose(f);
	ck_assert_int_eq(tmpl_render_file(src, dst, 0644, &vars, &err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err.buf, "/x.in:2: unknown variable @BAD@"));
	ck_assert_int_eq(access(dst, F_OK), -1);
	strbuf_reset(&err);
	unlink(src);
	ck_assert_int_lt(tmpl_render_file(src, dst, 0644, &vars, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.buf, "cannot read"));
	rmdir(dir);
	strbuf_release(&got);
	free(src);
	free(dst);
}
END_TEST

/* ---- the real templates ---- */

struct node {
	const char *name, *ip;
	int id;
};

static const struct node three[] = { { "n1", "10.99.0.11", 1 }, { "n2", "10.99.0.12", 2 },
				     { "n3", "10.99.0.13", 3 } };

static char *template_text(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	char *path = xasprintf(CLUSTER_CONFIG_DIR "/%s", name);

	ck_assert_msg(strbuf_read_file(&sb, path, 1 << 20) == 0, "cannot read %s", path);
	free(path);
	return strbuf_detach(&sb, NULL);
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

/* Renders a real template; asserts success and that no '@' survives but the escaped ones. */
static void render_real(const char *name, struct strbuf *rendered)
{
	char *text = template_text(name);
	struct strbuf e = STRBUF_INIT;
	int r = tmpl_render(name, text, &vars, rendered, &e);

	ck_assert_msg(r == 0, "%s: %s", name, e.buf);
	ck_assert_str_eq(e.buf, "");
	ck_assert_msg(count(rendered->buf, "@") == count(text, "@@"),
		      "%s: '@' left after rendering:\n%s", name, rendered->buf);
	/* every variable the template names appears in the output with its value */
	for (const char *p = text; (p = strchr(p, '@'));) {
		if (p[1] == '@') {
			p += 2;
			continue;
		}
		const char *end = strchr(p + 1, '@');
		ck_assert_ptr_nonnull(end);
		for (size_t i = 0; i < vars.n; i++)
			if (strlen(vars.v[i].name) == (size_t)(end - p - 1) &&
			    !strncmp(vars.v[i].name, p + 1, (size_t)(end - p - 1)))
				ck_assert_msg(strstr(rendered->buf, vars.v[i].value), "%s: %s missing",
					      name, vars.v[i].name);
		p = end + 1;
	}
	strbuf_release(&e);
	free(text);
}

/*
 * What harness/cluster/cluster.c's base_vars() and node_vars() set, for a cluster c1
 * of n nodes on the default subnet with the default scenario; keep the names
 * in step with those functions.
 */
static void cluster_vars(int n, bool kvm, bool fencing)
{
	struct scenario sc;
	struct strbuf errs = STRBUF_INIT, nodelist = STRBUF_INIT, hosts = STRBUF_INIT,
		      map = STRBUF_INIT, fence = STRBUF_INIT;

	ck_assert_int_eq(scenario_parse("empty", NULL, 0, NULL, &sc, &errs), 0);
	/* base_vars() */
	tmpl_set(&vars, "CLUSTER", "c1");
	tmpl_set(&vars, "FLOAT_IP", "10.99.0.100");
	tmpl_set(&vars, "SUBNET", "10.99.0.0");
	tmpl_setf(&vars, "TOKEN_MS", "%u", scenario_token_ms(&sc, kvm));
	tmpl_setf(&vars, "CONSENSUS_MS", "%u", scenario_consensus_ms(&sc, kvm));
	tmpl_set(&vars, "QUORUM_EXTRA", n == 2 ? "\ttwo_node: 1\n" : "");
	tmpl_setf(&vars, "NFS_THREADS", "%d", sc.nfs.threads);
	tmpl_setf(&vars, "NFS_GRACE_S", "%llu", (unsigned long long)(sc.nfs.grace_time / 1000));
	tmpl_setf(&vars, "NFS_LEASE_S", "%llu", (unsigned long long)(sc.nfs.lease_time / 1000));
	tmpl_set(&vars, "EXPORT_OPTIONS", sc.nfs.export_options);
	tmpl_set(&vars, "SHARED_SERIAL", SHARED_DISK_SERIAL);
	tmpl_set(&vars, "STONITH_ENABLED", fencing ? "true" : "false");
	tmpl_set(&vars, "NO_QUORUM_POLICY", n == 2 ? "ignore" : "stop");
	/* node_vars(): corosync-node.in once per node */
	for (int i = 0; i < n; i++) {
		tmpl_set(&vars, "NODE_IP", three[i].ip);
		tmpl_set(&vars, "NODE_NAME", three[i].name);
		tmpl_setf(&vars, "NODE_ID", "%d", three[i].id);
		render_real("corosync-node.in", &nodelist);
		strbuf_addf(&hosts, "%s\t%s\n", three[i].ip, three[i].name);
		strbuf_addf(&map, "%s%s:takeover-c1-%s", i ? ";" : "", three[i].name, three[i].name);
	}
	tmpl_set(&vars, "NODELIST", nodelist.buf);
	tmpl_set(&vars, "HOST_LINES", hosts.buf);
	tmpl_set(&vars, "HOST_MAP", map.buf);
	/* cluster_render_config() */
	if (fencing)
		render_real("fencing.crm.in", &fence);
	tmpl_set(&vars, "FENCING", fence.buf);
	scenario_release(&sc);
	strbuf_release(&errs);
	strbuf_release(&nodelist);
	strbuf_release(&hosts);
	strbuf_release(&map);
	strbuf_release(&fence);
}

static const char *const templates[] = {
	"corosync.conf.in", "corosync-node.in", "hosts.in", "nfs.conf.in", "cluster.crm.in",
	"fencing.crm.in",
};

START_TEST(real_templates_render)
{
	struct strbuf r = STRBUF_INIT;

	cluster_vars(3, false, true);
	for (size_t i = 0; i < sizeof(templates) / sizeof(templates[0]); i++) {
		strbuf_reset(&r);
		render_real(templates[i], &r);
		ck_assert_msg(r.len > 0, "%s rendered empty", templates[i]);
	}
	strbuf_release(&r);
}
END_TEST

/* Every template in cluster-config/ is one of the above: a new one gets rendered here too. */
START_TEST(real_templates_listed)
{
	DIR *d = opendir(CLUSTER_CONFIG_DIR);
	struct dirent *e;
	size_t seen = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		bool known = false;
		if (len < 3 || strcmp(e->d_name + len - 3, ".in"))
			continue;
		for (size_t i = 0; i < sizeof(templates) / sizeof(templates[0]); i++)
			known |= !strcmp(templates[i], e->d_name);
		ck_assert_msg(known, "cluster-config/%s is not rendered by this test", e->d_name);
		seen++;
	}
	closedir(d);
	ck_assert_uint_eq(seen, sizeof(templates) / sizeof(templates[0]));
}
END_TEST

START_TEST(corosync_conf)
{
	struct strbuf r = STRBUF_INIT;

	cluster_vars(3, false, true);
	render_real("corosync.conf.in", &r);
	ck_assert_uint_eq(count(r.buf, "{"), count(r.buf, "}"));
	ck_assert_uint_eq(count(r.buf, "nodeid:"), 3);
	ck_assert_ptr_nonnull(strstr(r.buf, "ring0_addr: 10.99.0.13"));
	/* TCG: token 6 s, consensus 1.2 times it (corosync.conf(5)'s minimum). */
	ck_assert_ptr_nonnull(strstr(r.buf, "token: 6000\n"));
	ck_assert_ptr_nonnull(strstr(r.buf, "consensus: 7200\n"));
	ck_assert_ptr_null(strstr(r.buf, "two_node"));
	strbuf_release(&r);

	/* two nodes: votequorum's two_node, inside the quorum section */
	tmpl_release(&vars);
	cluster_vars(2, true, true);
	strbuf_init(&r, 0);
	render_real("corosync.conf.in", &r);
	ck_assert_uint_eq(count(r.buf, "{"), count(r.buf, "}"));
	ck_assert_uint_eq(count(r.buf, "nodeid:"), 2);
	const char *q = strstr(r.buf, "quorum {");
	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(strstr(q, "two_node: 1"));
	ck_assert(strstr(q, "two_node: 1") < strchr(q, '}'));
	ck_assert_ptr_nonnull(strstr(r.buf, "3000"));
	strbuf_release(&r);
}
END_TEST

START_TEST(cluster_crm)
{
	struct strbuf r = STRBUF_INIT;

	cluster_vars(3, false, true);
	render_real("cluster.crm.in", &r);
	ck_assert_ptr_nonnull(strstr(r.buf, "n1:takeover-c1-n1;n2:takeover-c1-n2;n3:takeover-c1-n3"));
	ck_assert_ptr_nonnull(strstr(r.buf, "stonith-enabled=true"));
	ck_assert_ptr_nonnull(strstr(r.buf, "virtio-" SHARED_DISK_SERIAL));
	strbuf_release(&r);

	/* without fencing: no STONITH device at all */
	tmpl_release(&vars);
	cluster_vars(3, false, false);
	strbuf_init(&r, 0);
	render_real("cluster.crm.in", &r);
	ck_assert_ptr_null(strstr(r.buf, "fence_xvm"));
	ck_assert_ptr_nonnull(strstr(r.buf, "stonith-enabled=false"));
	strbuf_release(&r);
}
END_TEST

START_TEST(hosts_and_nfs_conf)
{
	struct strbuf r = STRBUF_INIT;

	cluster_vars(3, false, true);
	render_real("hosts.in", &r);
	ck_assert_ptr_nonnull(strstr(r.buf, "10.99.0.100"));
	for (int i = 0; i < 3; i++) {
		char l[32];
		snprintf(l, sizeof(l), "%s\t%s\n", three[i].ip, three[i].name);
		ck_assert_ptr_nonnull(strstr(r.buf, l));
	}
	strbuf_reset(&r);
	render_real("nfs.conf.in", &r);
	ck_assert_ptr_nonnull(strstr(r.buf, "threads=8"));
	strbuf_release(&r);
}
END_TEST

static Suite *template_suite(void)
{
	Suite *s = suite_create("template");
	TCase *syn = tcase_create("syntax");
	TCase *real = tcase_create("cluster-config");

	tcase_add_checked_fixture(syn, setup, teardown);
	tcase_add_checked_fixture(real, setup, teardown);
	tcase_set_timeout(syn, 30);
	tcase_set_timeout(real, 30);
	tcase_add_test(syn, substitutes);
	tcase_add_test(syn, values_verbatim);
	tcase_add_test(syn, escape);
	tcase_add_test(syn, unknown_variable);
	tcase_add_test(syn, all_errors_listed);
	tcase_add_test(syn, unterminated);
	tcase_add_test(syn, set_overrides);
	tcase_add_test(syn, many_variables);
	tcase_add_test(syn, render_file);
	tcase_add_test(real, real_templates_render);
	tcase_add_test(real, real_templates_listed);
	tcase_add_test(real, corosync_conf);
	tcase_add_test(real, cluster_crm);
	tcase_add_test(real, hosts_and_nfs_conf);
	suite_add_tcase(s, syn);
	suite_add_tcase(s, real);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(template_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
