/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_VIRT_H
#define TAKEOVER_VIRT_H
/*
 * libvirt's headers, and scope-bound release of its handles (see
 * util/cleanup.h for the idiom):
 *
 *	_cleanup_domain_ virDomainPtr d = virDomainLookupByName(conn, name);
 */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

static inline void virDomainFreep(virDomainPtr *d)
{
	if (*d)
		virDomainFree(*d);
}
static inline void virConnectClosep(virConnectPtr *c)
{
	if (*c)
		virConnectClose(*c);
}
#define _cleanup_domain_ __attribute__((cleanup(virDomainFreep)))
#define _cleanup_conn_ __attribute__((cleanup(virConnectClosep)))

#endif
