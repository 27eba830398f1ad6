/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_VM_H
#define TAKEOVER_VM_H
/*
 * One cluster node as a libvirt domain: the XML (pure, unit-tested by
 * parsing it back) and the probe that decides between KVM and TCG.
 */
#include <stdbool.h>
#include <stdint.h>

#include "util/strbuf.h"

#define AGENT_CHANNEL "org.takeover.agent.0"
#define QGA_CHANNEL "org.qemu.guest_agent.0"
#define CONFIG_DISK_SERIAL "tkconfig"
#define SHARED_DISK_SERIAL "tkshared"
#define SHARED_DISK_TARGET "vdc" /* its <target dev>: libvirt's name for it (block I/O tuning) */

struct vm_spec {
	const char *name;        /* domain name: takeover-<cluster>-<node> */
	const char *uuid;        /* NULL: libvirt picks one */
	bool kvm;
	uint64_t memory_mib;
	int vcpus;
	const char *kernel, *initrd; /* initrd may be NULL */
	const char *cmdline;
	const char *root_disk;   /* qcow2 overlay */
	const char *config_disk; /* raw, read-only */
	const char *shared_disk; /* raw, shared by all nodes */
	const char *modules_disk; /* raw, read-only, the kernel's modules; may be NULL */
	const char *bridge;
	uint8_t mac[6];
	const char *console_log;
	const char *agent_socket;
	const char *qga_socket;
	unsigned tb_cache_mib;   /* TCG translation cache; 0 leaves QEMU's default */
};

/* Renders the domain XML. 0 or -ENOMEM. */
int vm_domain_xml(const struct vm_spec *s, struct strbuf *out);

/*
 * Does KVM run a normal guest here? Boots kernel under -enable-kvm with a
 * short deadline and looks for a line a working boot prints within seconds.
 * A /dev/kvm that only spins (nested "kvm_pvm") answers false. The answer is
 * cached per host boot in cache_dir.
 */
bool vm_kvm_usable(const char *kernel, const char *cache_dir);

#endif
