// SPDX-License-Identifier: GPL-2.0-only
/*
 * The warm-start snapshot's key and its completeness check, on real files
 * in a temporary state and cache directory: the key is the same for the
 * same shape whatever the cluster is called (and whatever fence key was
 * drawn), and changes with each input that shapes the booted state; a
 * snapshot with a file of another size than its manifest says, or without
 * one, is reported as damaged, naming the file.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/lifecycle.h"
#include "cluster/snapshot.h"
#include "scenario/scenario.h"
#include "util/fs.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static char root[] = "/tmp/takeover-test-snapshot.XXXXXX";
static struct scenario sc;

static void put(const char *path, const char *text)
{
	ck_assert_int_eq(write_file_atomic(path, text, strlen(text), 0644), 0);
}

/* A cluster called name with a kernel file and a rendered configuration. */
static void make_cluster(struct cluster *c, const char *name, const char *corosync, const char *fence_key)
{
	char *p;

	cluster_init(c, name, 3, 10u << 24 | 99u << 16);
	c->kvm = false;
	c->fencing = true;
	snprintf(c->image_key, sizeof(c->image_key), "3f43fa1f578bfa5d");
	snprintf(c->expect_release, sizeof(c->expect_release), "6.1.0-test");
	c->kernel = xasprintf("%s/vmlinuz", root);
	p = xasprintf("%s/config/etc/corosync", c->dir);
	ck_assert_int_eq(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/config/etc/cluster", c->dir);
	ck_assert_int_eq(mkdir_p(p, 0755), 0);
	free(p);
	p = xasprintf("%s/config/etc/corosync/corosync.conf", c->dir);
	put(p, corosync);
	free(p);
	p = xasprintf("%s/config/etc/cluster/fence_xvm.key", c->dir);
	put(p, fence_key);
	free(p);
}

static void key_of(struct cluster *c, const char *modules_hash, char key[17])
{
	struct strbuf shape = STRBUF_INIT;

	ck_assert_int_eq(snapshot_key(c, &sc, modules_hash, key, &shape), 0);
	ck_assert_ptr_nonnull(strstr(shape.buf, "image=3f43fa1f578bfa5d\n"));
	strbuf_release(&shape);
}

static void setup(void)
{
	struct strbuf err = STRBUF_INIT;
	char *dir;

	ck_assert_ptr_nonnull(mkdtemp(root));
	dir = xasprintf("%s/state", root);
	setenv("TAKEOVER_STATE_DIR", dir, 1);
	free(dir);
	dir = xasprintf("%s/cache", root);
	setenv("TAKEOVER_CACHE_DIR", dir, 1);
	free(dir);
	dir = xasprintf("%s/vmlinuz", root);
	put(dir, "a kernel image");
	free(dir);
	ck_assert_int_eq(scenario_load(SCENARIOS_DIR "/loopback-failover.ini", &sc, &err), 0);
	strbuf_release(&err);
}

static void teardown(void)
{
	scenario_release(&sc);
	rm_rf(root);
}

START_TEST(key_ignores_the_name_and_fence_key)
{
	struct cluster a, b;
	char ka[17], kb[17];

	make_cluster(&a, "c1", "totem { token: 6000 }\n", "key one");
	make_cluster(&b, "itc12345w", "totem { token: 6000 }\n", "key two");
	key_of(&a, NULL, ka);
	key_of(&b, NULL, kb);
	ck_assert_str_eq(ka, kb);
	ck_assert_int_eq((int)strlen(ka), 16);
	/* The UUIDs the fence map names follow the shape, not the name. */
	ck_assert_str_eq(a.nodes[1].uuid, b.nodes[1].uuid);
	ck_assert_str_ne(a.nodes[0].uuid, a.nodes[1].uuid);
	ck_assert_str_eq(a.nodes[0].domain, "takeover-n1");
	cluster_release(&a);
	cluster_release(&b);
}
END_TEST

START_TEST(key_follows_each_input)
{
	struct cluster c;
	char base[17], k[17];
	char *p;

	make_cluster(&c, "c1", "totem { token: 6000 }\n", "key");
	key_of(&c, NULL, base);

	sc.cluster.memory = 1024ULL << 20;
	key_of(&c, NULL, k);
	ck_assert_str_ne(base, k);
	sc.cluster.memory = 768ULL << 20;
	key_of(&c, NULL, k);
	ck_assert_str_eq(base, k);

	key_of(&c, "0123456789abcdef", k); /* modules under test */
	ck_assert_str_ne(base, k);

	c.kvm = true;
	key_of(&c, NULL, k);
	ck_assert_str_ne(base, k);
	c.kvm = false;

	free(sc.nfs.mount_options); /* scenario_release frees it */
	sc.nfs.mount_options = xstrdup("hard,timeo=10");
	key_of(&c, NULL, k);
	ck_assert_str_ne(base, k);
	cluster_release(&c);

	make_cluster(&c, "c1", "totem { token: 10000 }\n", "key"); /* another rendered config */
	key_of(&c, NULL, k);
	ck_assert_str_ne(base, k);
	cluster_release(&c);

	p = xasprintf("%s/vmlinuz", root); /* another kernel, same path */
	put(p, "another kernel image");
	free(p);
	make_cluster(&c, "c1", "totem { token: 6000 }\n", "key");
	key_of(&c, NULL, k);
	ck_assert_str_ne(base, k);
	cluster_release(&c);
}
END_TEST

static char *snap_dir(const char *key)
{
	char *r = snapshot_root(NULL), *d = xasprintf("%s/%s", r, key);

	free(r);
	ck_assert_int_eq(mkdir_p(d, 0755), 0);
	return d;
}

START_TEST(find_checks_sizes)
{
	struct snapshot s;
	struct strbuf why = STRBUF_INIT;
	char *d = snap_dir("00000000000000aa"), *p;

	ck_assert_int_eq(snapshot_find(NULL, "00000000000000bb", &s, &why), -ENOENT);
	snapshot_release(&s);

	p = xasprintf("%s/n1.save", d);
	put(p, "0123456789");
	free(p);
	p = xasprintf("%s/manifest.json", d);
	put(p, "{\"format\": 1, \"image\": \"3f43fa1f578bfa5d\", \"group_node\": \"n2\", \"modules\": false,"
	       " \"files\": {\"n1.save\": 10}}");
	ck_assert_int_eq(snapshot_find(NULL, "00000000000000aa", &s, &why), 0);
	ck_assert_str_eq(s.group_node, "n2");
	ck_assert(!s.modules);
	snapshot_release(&s);

	char img[17];
	ck_assert_int_eq(snapshot_image_key(d, img), 0);
	ck_assert_str_eq(img, "3f43fa1f578bfa5d");

	/* Truncated. */
	put(p, "{\"format\": 1, \"group_node\": \"n2\", \"files\": {\"n1.save\": 4096}}");
	ck_assert_int_eq(snapshot_find(NULL, "00000000000000aa", &s, &why), -EBADMSG);
	ck_assert_msg(strstr(why.buf, "n1.save has 10 bytes, the manifest says 4096"), "why: %s", why.buf);
	snapshot_release(&s);

	/* A file gone. */
	strbuf_reset(&why);
	put(p, "{\"format\": 1, \"group_node\": \"n2\", \"files\": {\"n2.save\": 10}}");
	ck_assert_int_eq(snapshot_find(NULL, "00000000000000aa", &s, &why), -EBADMSG);
	ck_assert_msg(strstr(why.buf, "n2.save"), "why: %s", why.buf);
	snapshot_release(&s);

	/* Another format, or no manifest: not this harness's snapshot. */
	strbuf_reset(&why);
	put(p, "{\"format\": 99, \"files\": {}}");
	ck_assert_int_eq(snapshot_find(NULL, "00000000000000aa", &s, &why), -EBADMSG);
	snapshot_release(&s);
	unlink(p);
	ck_assert_int_eq(snapshot_find(NULL, "00000000000000aa", &s, &why), -EBADMSG);
	snapshot_discard(&s, "test");
	ck_assert_int_eq(access(d, F_OK), -1);
	snapshot_release(&s);
	free(p);
	free(d);
	strbuf_release(&why);
}
END_TEST

static Suite *snapshot_suite(void)
{
	Suite *s = suite_create("snapshot");
	TCase *t = tcase_create("snapshot");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, key_ignores_the_name_and_fence_key);
	tcase_add_test(t, key_follows_each_input);
	tcase_add_test(t, find_checks_sizes);
	suite_add_tcase(s, t);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(snapshot_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
