// SPDX-License-Identifier: GPL-2.0-only
#include "cluster/vm.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cluster/net.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/spawn.h"
#include "util/xalloc.h"
#include "util/xmlw.h"

#define open_el xw_open
#define close_el xw_close
#define attr xw_attr
#define text_el xw_element
#define empty_el xw_empty

static void os_section(struct xw *x, const struct vm_spec *s)
{
	open_el(x, "os");
	open_el(x, "type");
	attr(x, "arch", "x86_64");
	attr(x, "machine", "q35");
	xw_text(x, "hvm");
	close_el(x);
	text_el(x, "kernel", s->kernel);
	if (s->initrd && *s->initrd)
		text_el(x, "initrd", s->initrd);
	text_el(x, "cmdline", s->cmdline);
	close_el(x);
}

static void features(struct xw *x, const struct vm_spec *s)
{
	char mib[16];

	open_el(x, "features");
	empty_el(x, "acpi", NULL, NULL, NULL, NULL);
	/* vmcoreinfo: memory dumps readable by crash(8) without guessing the kernel layout. */
	empty_el(x, "vmcoreinfo", "state", "on", NULL, NULL);
	if (!s->kvm && s->tb_cache_mib) {
		/* TCG's default translation cache costs ~1.5 GB RSS per guest here. */
		snprintf(mib, sizeof(mib), "%u", s->tb_cache_mib);
		open_el(x, "tcg");
		open_el(x, "tb-cache");
		attr(x, "unit", "MiB");
		xw_text(x, mib);
		close_el(x);
		close_el(x);
	}
	close_el(x);
}

static void disk(struct xw *x, const char *path, const char *format, const char *cache,
		 const char *dev, const char *serial, bool readonly, bool shareable)
{
	open_el(x, "disk");
	attr(x, "type", "file");
	attr(x, "device", "disk");
	open_el(x, "driver");
	attr(x, "name", "qemu");
	attr(x, "type", format);
	attr(x, "cache", cache);
	close_el(x);
	empty_el(x, "source", "file", path, NULL, NULL);
	empty_el(x, "target", "dev", dev, "bus", "virtio");
	if (serial)
		text_el(x, "serial", serial);
	if (readonly)
		empty_el(x, "readonly", NULL, NULL, NULL, NULL);
	if (shareable)
		empty_el(x, "shareable", NULL, NULL, NULL, NULL);
	close_el(x);
}

static void channel(struct xw *x, const char *socket, const char *name)
{
	open_el(x, "channel");
	attr(x, "type", "unix");
	empty_el(x, "source", "mode", "bind", "path", socket);
	empty_el(x, "target", "type", "virtio", "name", name);
	close_el(x);
}

static void devices(struct xw *x, const struct vm_spec *s)
{
	char mac[18];

	open_el(x, "devices");
	/* The overlay is scratch: host-crash safety is not worth the fsyncs. */
	disk(x, s->root_disk, "qcow2", "unsafe", "vda", NULL, false, false);
	disk(x, s->config_disk, "raw", "none", "vdb", CONFIG_DISK_SERIAL, true, false);
	/* The shared disk is the HA cluster's storage: no host caching, like a SAN LUN. */
	disk(x, s->shared_disk, "raw", "none", SHARED_DISK_TARGET, SHARED_DISK_SERIAL, false, true);
	if (s->modules_disk)
		disk(x, s->modules_disk, "raw", "none", "vdd", "tkmodules", true, false);

	net_mac_str(s->mac, mac, sizeof(mac));
	open_el(x, "interface");
	attr(x, "type", "bridge");
	empty_el(x, "source", "bridge", s->bridge, NULL, NULL);
	empty_el(x, "mac", "address", mac, NULL, NULL);
	empty_el(x, "model", "type", "virtio", NULL, NULL);
	close_el(x);

	/* Serial console: a pty for `virsh console`, and every byte logged to a file. */
	open_el(x, "serial");
	attr(x, "type", "pty");
	empty_el(x, "log", "file", s->console_log, "append", "on");
	empty_el(x, "target", "port", "0", NULL, NULL);
	close_el(x);
	open_el(x, "console");
	attr(x, "type", "pty");
	empty_el(x, "target", "type", "serial", "port", "0");
	close_el(x);

	channel(x, s->agent_socket, AGENT_CHANNEL);
	channel(x, s->qga_socket, QGA_CHANNEL);

	/* pvpanic: a guest panic becomes a libvirt event, not just console text. */
	open_el(x, "panic");
	attr(x, "model", "isa");
	empty_el(x, "address", "type", "isa", "iobase", "0x505");
	close_el(x);
	open_el(x, "rng");
	attr(x, "model", "virtio");
	open_el(x, "backend");
	attr(x, "model", "random");
	xw_text(x, "/dev/urandom");
	close_el(x);
	close_el(x);
	empty_el(x, "memballoon", "model", "none", NULL, NULL);
	close_el(x);
}

int vm_domain_xml(const struct vm_spec *s, struct strbuf *out)
{
	struct xw x;
	char num[32];
	int r = xw_begin(&x);

	if (r < 0)
		return r;
	open_el(&x, "domain");
	attr(&x, "type", s->kvm ? "kvm" : "qemu");
	text_el(&x, "name", s->name);
	if (s->uuid)
		text_el(&x, "uuid", s->uuid);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)s->memory_mib);
	open_el(&x, "memory");
	attr(&x, "unit", "MiB");
	xw_text(&x, num);
	close_el(&x);
	snprintf(num, sizeof(num), "%d", s->vcpus);
	text_el(&x, "vcpu", num);
	os_section(&x, s);
	features(&x, s);
	if (s->kvm)
		empty_el(&x, "cpu", "mode", "host-passthrough", NULL, NULL);
	text_el(&x, "on_poweroff", "destroy");
	text_el(&x, "on_reboot", "restart");
	/* A crashed guest stays as it is: its memory is the evidence. */
	text_el(&x, "on_crash", "preserve");
	devices(&x, s);
	close_el(&x);
	return xw_finish(&x, out);
}

/* Lines only a kernel that really runs prints within seconds; a spinning KVM prints none. */
static const char *const boot_markers[] = {
	"Kernel panic", "VFS: Unable to mount root", "Run /init", "Freeing unused kernel", NULL,
};

static bool probe_boot(const char *kernel)
{
	const char *argv[] = {
		"qemu-system-x86_64", "-machine", "q35,accel=kvm", "-cpu", "host", "-m", "256",
		"-nodefaults", "-nographic", "-no-reboot", "-nic", "none", "-serial", "stdio",
		"-kernel", kernel, "-append", "console=ttyS0 panic=-1 root=/dev/null", NULL,
	};
	struct strbuf out = STRBUF_INIT;
	bool ok = false;

	spawn_simple(argv, 20000, &out);
	for (int i = 0; boot_markers[i] && !ok; i++)
		ok = strstr(out.buf, boot_markers[i]) != NULL;
	strbuf_release(&out);
	return ok;
}

bool vm_kvm_usable(const char *kernel, const char *cache_dir)
{
	char boot[64] = "", line[128] = "";
	char *cache = xasprintf("%s/kvm-probe", cache_dir);
	bool ok;

	if (access("/dev/kvm", R_OK | W_OK) < 0) {
		free(cache);
		return false;
	}
	read_line_file("/proc/sys/kernel/random/boot_id", boot, sizeof(boot));
	if (read_line_file(cache, line, sizeof(line)) == 0 && !strncmp(line, boot, strlen(boot)) &&
	    line[strlen(boot)] == ' ') {
		ok = !strcmp(line + strlen(boot) + 1, "yes");
		free(cache);
		return ok;
	}
	log_info("probing KVM with a test boot (up to 20 s)");
	ok = probe_boot(kernel);
	snprintf(line, sizeof(line), "%s %s\n", boot, ok ? "yes" : "no");
	mkdir_p(cache_dir, 0755);
	write_file_atomic(cache, line, strlen(line), 0644);
	if (!ok)
		log_info("KVM cannot run a normal guest on this host: using TCG");
	free(cache);
	return ok;
}
