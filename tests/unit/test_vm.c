// SPDX-License-Identifier: GPL-2.0-only
/*
 * vm_domain_xml() parsed back with libxml2 and queried with XPath: every
 * element libvirt and the harness rely on (disks by serial, the bridge, the
 * logged serial console, the two virtio channels, pvpanic, TCG's translation
 * cache), under TCG and KVM. When libvirt's RelaxNG schema is installed
 * (libvirt0 ships it), the document is also validated against it.
 */
#include <check.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/xpath.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/strbuf.h"
#include "cluster/vm.h"

#define DOMAIN_RNG "/usr/share/libvirt/schemas/domain.rng"
#define STATE "/var/lib/takeover/clusters/c1"

static struct vm_spec spec;
static xmlDocPtr doc;
static xmlXPathContextPtr ctx;
static struct strbuf xml;

static void setup(void)
{
	spec = (struct vm_spec){
		.name = "takeover-n2",
		.uuid = "99a70b05-3851-54d7-89a5-9ec7ab92c67f",
		.kvm = false,
		.memory_mib = 768,
		.vcpus = 1,
		.kernel = "/var/cache/takeover/images/abc/vmlinuz",
		.initrd = "/var/cache/takeover/images/abc/initrd.img",
		.cmdline = "root=/dev/vda rw console=ttyS0,115200 takeover.node=n2",
		.root_disk = STATE "/n2.qcow2",
		.config_disk = STATE "/config.img",
		.shared_disk = STATE "/shared.raw",
		.modules_disk = NULL,
		.bridge = "tkbr0",
		.mac = { 0x52, 0x54, 0x00, 0x7b, 0x00, 0x02 },
		.console_log = STATE "/console-n2.log",
		.agent_socket = STATE "/n2.agent",
		.qga_socket = STATE "/n2.qga",
		.tb_cache_mib = 128,
	};
	strbuf_init(&xml, 0);
	doc = NULL;
	ctx = NULL;
}

static void teardown(void)
{
	if (ctx)
		xmlXPathFreeContext(ctx);
	if (doc)
		xmlFreeDoc(doc);
	strbuf_release(&xml);
}

/* Renders spec and parses the result; the test fails on malformed XML. */
static void render(void)
{
	teardown();
	strbuf_init(&xml, 0);
	ck_assert_int_eq(vm_domain_xml(&spec, &xml), 0);
	ck_assert_uint_gt(xml.len, 0);
	doc = xmlReadMemory(xml.buf, (int)xml.len, "domain.xml", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	ck_assert_msg(doc != NULL, "not well-formed:\n%s", xml.buf);
	ctx = xmlXPathNewContext(doc);
	ck_assert_ptr_nonnull(ctx);
}

/* The string value of an XPath expression ("" when it selects nothing). */
static const char *xs(const char *expr)
{
	static char buf[4][512];
	static int next;
	char *b = buf[next++ % 4];
	char *q = NULL;
	xmlXPathObjectPtr o;

	snprintf(b, 512, "string(%s)", expr);
	o = xmlXPathEvalExpression(BAD_CAST b, ctx);
	ck_assert_msg(o != NULL, "bad XPath %s", expr);
	q = (char *)xmlXPathCastToString(o);
	snprintf(b, 512, "%s", q ? q : "");
	xmlFree(q);
	xmlXPathFreeObject(o);
	return b;
}

static int xn(const char *expr)
{
	char b[512];
	xmlXPathObjectPtr o;
	int n;

	snprintf(b, sizeof(b), "count(%s)", expr);
	o = xmlXPathEvalExpression(BAD_CAST b, ctx);
	ck_assert_msg(o != NULL, "bad XPath %s", expr);
	n = (int)xmlXPathCastToNumber(o);
	xmlXPathFreeObject(o);
	return n;
}

#define XS_EQ(expr, want) ck_assert_msg(!strcmp(xs(expr), want), "%s = '%s', expected '%s'\n%s", \
					expr, xs(expr), want, xml.buf)
#define XN_EQ(expr, want) ck_assert_msg(xn(expr) == (want), "count(%s) = %d, expected %d\n%s", \
					expr, xn(expr), want, xml.buf)

START_TEST(domain_basics)
{
	render();
	XN_EQ("/domain", 1);
	XS_EQ("/domain/@type", "qemu");
	XS_EQ("/domain/name", "takeover-n2");
	XS_EQ("/domain/uuid", "99a70b05-3851-54d7-89a5-9ec7ab92c67f");
	XS_EQ("/domain/memory", "768");
	XS_EQ("/domain/memory/@unit", "MiB");
	XS_EQ("/domain/vcpu", "1");
	XS_EQ("/domain/os/type", "hvm");
	XS_EQ("/domain/os/type/@arch", "x86_64");
	XS_EQ("/domain/os/type/@machine", "q35");
	XS_EQ("/domain/os/kernel", "/var/cache/takeover/images/abc/vmlinuz");
	XS_EQ("/domain/os/initrd", "/var/cache/takeover/images/abc/initrd.img");
	XS_EQ("/domain/os/cmdline",
	      "root=/dev/vda rw console=ttyS0,115200 takeover.node=n2");
	XN_EQ("/domain/features/acpi", 1);
	XS_EQ("/domain/features/vmcoreinfo/@state", "on");
	XS_EQ("/domain/on_poweroff", "destroy");
	XS_EQ("/domain/on_reboot", "restart");
	XS_EQ("/domain/on_crash", "preserve");
	XS_EQ("/domain/devices/memballoon/@model", "none");
	XS_EQ("/domain/devices/rng/@model", "virtio");
	XS_EQ("/domain/devices/rng/backend", "/dev/urandom");
}
END_TEST

START_TEST(kvm_vs_tcg)
{
	render();
	XS_EQ("/domain/@type", "qemu");
	XN_EQ("/domain/cpu", 0);
	XS_EQ("/domain/features/tcg/tb-cache", "128");
	XS_EQ("/domain/features/tcg/tb-cache/@unit", "MiB");

	spec.kvm = true;
	spec.memory_mib = 2048;
	spec.vcpus = 2;
	render();
	XS_EQ("/domain/@type", "kvm");
	XS_EQ("/domain/cpu/@mode", "host-passthrough");
	XS_EQ("/domain/memory", "2048");
	XS_EQ("/domain/vcpu", "2");
	/* the translation cache is TCG's alone, whatever the spec says */
	XN_EQ("/domain/features/tcg", 0);

	/* TCG with 0: QEMU's default, no element */
	spec.kvm = false;
	spec.tb_cache_mib = 0;
	render();
	XN_EQ("/domain/features/tcg", 0);
	XS_EQ("/domain/@type", "qemu");
}
END_TEST

START_TEST(no_initrd)
{
	spec.initrd = NULL;
	render();
	XN_EQ("/domain/os/initrd", 0);
	XN_EQ("/domain/os/kernel", 1);
	XN_EQ("/domain/os/cmdline", 1);
	spec.initrd = "";
	render();
	XN_EQ("/domain/os/initrd", 0);
}
END_TEST

#define DISK(dev) "/domain/devices/disk[target/@dev='" dev "']"

START_TEST(disks)
{
	render();
	XN_EQ("/domain/devices/disk", 3);
	XN_EQ("/domain/devices/disk[@type='file' and @device='disk']", 3);
	XN_EQ("/domain/devices/disk/target[@bus='virtio']", 3);
	XN_EQ("/domain/devices/disk/driver[@name='qemu']", 3);

	/* the root overlay: scratch, so no host flushes */
	XS_EQ(DISK("vda") "/source/@file", STATE "/n2.qcow2");
	XS_EQ(DISK("vda") "/driver/@type", "qcow2");
	XS_EQ(DISK("vda") "/driver/@cache", "unsafe");
	XN_EQ(DISK("vda") "/readonly", 0);
	XN_EQ(DISK("vda") "/shareable", 0);
	XN_EQ(DISK("vda") "/serial", 0);

	/* the config disk the guest finds by serial */
	XS_EQ(DISK("vdb") "/source/@file", STATE "/config.img");
	XS_EQ(DISK("vdb") "/driver/@type", "raw");
	XN_EQ(DISK("vdb") "/readonly", 1);
	XN_EQ(DISK("vdb") "/shareable", 0);
	XS_EQ(DISK("vdb") "/serial", "tkconfig");
	XS_EQ(DISK("vdb") "/serial", CONFIG_DISK_SERIAL);

	/* the cluster's shared storage: no host cache, shareable, writable */
	XS_EQ(DISK("vdc") "/source/@file", STATE "/shared.raw");
	XS_EQ(DISK("vdc") "/driver/@type", "raw");
	XS_EQ(DISK("vdc") "/driver/@cache", "none");
	XN_EQ(DISK("vdc") "/shareable", 1);
	XN_EQ(DISK("vdc") "/readonly", 0);
	XS_EQ(DISK("vdc") "/serial", "tkshared");
	XS_EQ(DISK("vdc") "/serial", SHARED_DISK_SERIAL);

	XN_EQ(DISK("vdd"), 0);
}
END_TEST

START_TEST(modules_disk)
{
	spec.modules_disk = STATE "/modules.img";
	render();
	XN_EQ("/domain/devices/disk", 4);
	XS_EQ(DISK("vdd") "/source/@file", STATE "/modules.img");
	XS_EQ(DISK("vdd") "/driver/@type", "raw");
	XN_EQ(DISK("vdd") "/readonly", 1);
	XN_EQ(DISK("vdd") "/shareable", 0);
	XS_EQ(DISK("vdd") "/serial", "tkmodules");
}
END_TEST

START_TEST(network)
{
	render();
	XN_EQ("/domain/devices/interface", 1);
	XS_EQ("/domain/devices/interface/@type", "bridge");
	XS_EQ("/domain/devices/interface/source/@bridge", "tkbr0");
	XS_EQ("/domain/devices/interface/mac/@address", "52:54:00:7b:00:02");
	XS_EQ("/domain/devices/interface/model/@type", "virtio");

	spec.mac[3] = 0xab;
	spec.mac[5] = 0xff;
	render();
	XS_EQ("/domain/devices/interface/mac/@address", "52:54:00:ab:00:ff");
}
END_TEST

START_TEST(console)
{
	render();
	XN_EQ("/domain/devices/serial", 1);
	XS_EQ("/domain/devices/serial/@type", "pty");
	XS_EQ("/domain/devices/serial/log/@file", STATE "/console-n2.log");
	XS_EQ("/domain/devices/serial/log/@append", "on");
	XS_EQ("/domain/devices/serial/target/@port", "0");
	XN_EQ("/domain/devices/console", 1);
	XS_EQ("/domain/devices/console/@type", "pty");
	XS_EQ("/domain/devices/console/target/@type", "serial");
	XS_EQ("/domain/devices/console/target/@port", "0");
}
END_TEST

#define CHANNEL(name) "/domain/devices/channel[target/@name='" name "']"

START_TEST(channels)
{
	render();
	XN_EQ("/domain/devices/channel", 2);
	XN_EQ("/domain/devices/channel[@type='unix']", 2);
	XN_EQ("/domain/devices/channel/target[@type='virtio']", 2);
	XN_EQ("/domain/devices/channel/source[@mode='bind']", 2);
	XS_EQ(CHANNEL("org.takeover.agent.0") "/source/@path", STATE "/n2.agent");
	XS_EQ(CHANNEL("org.qemu.guest_agent.0") "/source/@path", STATE "/n2.qga");
	/* the names both sides use */
	XN_EQ(CHANNEL(AGENT_CHANNEL), 1);
	XN_EQ(CHANNEL(QGA_CHANNEL), 1);
}
END_TEST

START_TEST(panic_device)
{
	render();
	XN_EQ("/domain/devices/panic", 1);
	XS_EQ("/domain/devices/panic/@model", "isa");
	XS_EQ("/domain/devices/panic/address/@type", "isa");
	XS_EQ("/domain/devices/panic/address/@iobase", "0x505");
}
END_TEST

/* Paths and a command line with XML's special characters come back unchanged. */
START_TEST(escaping)
{
	spec.cmdline = "a=\"b c\" d<e f>g & h'i";
	spec.console_log = "/tmp/odd & <dir>/console \"n2\".log";
	spec.name = "takeover-c&1-n2";
	render();
	XS_EQ("/domain/os/cmdline", "a=\"b c\" d<e f>g & h'i");
	XS_EQ("/domain/devices/serial/log/@file", "/tmp/odd & <dir>/console \"n2\".log");
	XS_EQ("/domain/name", "takeover-c&1-n2");
}
END_TEST

static void quiet(void *unused, xmlErrorPtr e)
{
	(void)unused;
	(void)e;
}

/* libvirt's own schema accepts the document (TCG with everything, and KVM with the least). */
START_TEST(libvirt_schema)
{
	xmlRelaxNGParserCtxtPtr pc;
	xmlRelaxNGPtr schema;
	xmlRelaxNGValidCtxtPtr vc;

	if (access(DOMAIN_RNG, R_OK) < 0) {
		fprintf(stderr, "test_vm: %s not installed, schema validation not done\n", DOMAIN_RNG);
		return;
	}
	pc = xmlRelaxNGNewParserCtxt(DOMAIN_RNG);
	schema = xmlRelaxNGParse(pc);
	ck_assert_ptr_nonnull(schema);
	vc = xmlRelaxNGNewValidCtxt(schema);
	spec.modules_disk = STATE "/modules.img";
	render();
	ck_assert_msg(xmlRelaxNGValidateDoc(vc, doc) == 0, "TCG domain invalid:\n%s", xml.buf);
	spec.kvm = true;
	spec.initrd = NULL;
	spec.modules_disk = NULL;
	render();
	ck_assert_msg(xmlRelaxNGValidateDoc(vc, doc) == 0, "KVM domain invalid:\n%s", xml.buf);
	/* the schema does reject a bad domain (the check above is not vacuous) */
	xmlFreeDoc(doc);
	doc = xmlReadMemory("<domain type='bogus'><name>x</name></domain>", 44, "bad.xml", NULL, 0);
	ck_assert_ptr_nonnull(doc);
	xmlRelaxNGSetValidStructuredErrors(vc, quiet, NULL);
	ck_assert_int_ne(xmlRelaxNGValidateDoc(vc, doc), 0);
	xmlRelaxNGFreeValidCtxt(vc);
	xmlRelaxNGFree(schema);
	xmlRelaxNGFreeParserCtxt(pc);
}
END_TEST

static Suite *vm_suite(void)
{
	Suite *s = suite_create("vm");
	TCase *x = tcase_create("domain-xml");
	TCase *rng = tcase_create("schema");

	tcase_add_checked_fixture(x, setup, teardown);
	tcase_add_checked_fixture(rng, setup, teardown);
	tcase_set_timeout(x, 30);
	tcase_set_timeout(rng, 60); /* parsing libvirt's schema takes a moment under ASan */
	tcase_add_test(x, domain_basics);
	tcase_add_test(x, kvm_vs_tcg);
	tcase_add_test(x, no_initrd);
	tcase_add_test(x, disks);
	tcase_add_test(x, modules_disk);
	tcase_add_test(x, network);
	tcase_add_test(x, console);
	tcase_add_test(x, channels);
	tcase_add_test(x, panic_device);
	tcase_add_test(x, escaping);
	tcase_add_test(rng, libvirt_schema);
	suite_add_tcase(s, x);
	suite_add_tcase(s, rng);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(vm_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
