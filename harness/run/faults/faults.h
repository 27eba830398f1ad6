/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_FAULTS_H
#define TAKEOVER_FAULTS_H
/*
 * Fault injectors, one file each, listed in one table (faults.c). A fault
 * acts on the victim node through libvirt or its agent; two-stage faults
 * (block-loopback) also act on the takeover node once its writes resumed.
 * unsupported() returns why a fault cannot run here instead of failing.
 */
#include "cluster/cluster.h"
#include "scenario/scenario.h"

struct fault_ctx {
	struct cluster *c;
	const struct scenario *sc;
	struct node *victim;
	struct node *takeover;
};

/* One plug-in; its kind and name are its line in list.h. */
struct fault {
	const char *(*unsupported)(const struct fault_ctx *f);
	int (*inject)(struct fault_ctx *f);
	/* Called block_after past the takeover node's first resumed write; NULL: none. */
	int (*after_resume)(struct fault_ctx *f);
	/* Undoes whatever still acts on a surviving node before verification; NULL: none. */
	int (*undo)(struct fault_ctx *f);
	/*
	 * The victim survives: the fault moves the group away and the victim
	 * goes from NFS server to client (failback). Its writes and pressure
	 * are the ones judged, and it keeps its workloads; otherwise the victim
	 * is taken down and the takeover node is judged.
	 */
	bool server_to_client;
	/*
	 * The victim survives and keeps the group (disk-stall): it is the
	 * takeover node and the judged one, and its writes are judged from the
	 * fault on, not from a resume.
	 */
	bool group_stays;
	/*
	 * ... but part of it fails and the cluster restarts it in place
	 * (nfsd-kill): the writes stop until it is back, and are judged from
	 * their resume, within takeover_timeout, as after a takeover.
	 */
	bool group_restarts;
	/*
	 * The victim is not taken down by the fault but cut off (partition):
	 * it keeps running until the cluster fences it, its agent stays
	 * connected meanwhile, and the audits count what it still holds.
	 */
	bool cut_off;
	/* Lifts the fault [fault] duration after it was injected; NULL: never. */
	int (*lift)(struct fault_ctx *f);
};

/* The plug-in of a kind (every kind has one: test_scenario checks). */
const struct fault *fault_for(enum fault_kind kind);

/* Shared by the injectors. */
int fault_domain(struct fault_ctx *f, virDomainPtr *dom);
int fault_destroy_victim(struct fault_ctx *f);

#define FAULT_X_EXTERN(e, n, s) extern const struct fault fault_##s;
FAULT_LIST(FAULT_X_EXTERN)
#undef FAULT_X_EXTERN

#endif
