/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CLUSTER_LIFECYCLE_H
#define TAKEOVER_CLUSTER_LIFECYCLE_H
/*
 * Between the files of a cluster's life (state.c, config.c, up.c, down.c);
 * nothing outside cluster/ includes this. The public side is cluster.h.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "cluster/vm.h"
#include "scenario/scenario.h"

/*
 * The cluster's name as the guests know it (corosync's cluster_name, nfsd's
 * server scope): the same for every cluster, so that nothing a guest holds
 * depends on the host-side name and a snapshot restores under any name.
 */
#define GUEST_CLUSTER_NAME "takeover"

/* The state file in a cluster's directory: key=value lines. */
#define STATE_FILE "state"

/* state.c */
/* Fills names and paths from name, node count and subnet. */
void cluster_init(struct cluster *c, const char *name, int nodes, uint32_t subnet);
/* Rewrites the state file atomically; 0 or -errno. */
int cluster_save_state(const struct cluster *c);
/* A cluster name: [a-z0-9-], 1..CLUSTER_NAME_MAX, so every derived name fits. */
bool cluster_valid_name(const char *name);
/* want, or the first free c<N>; mkdir is the lock, so concurrent `up`s never share a name. */
int cluster_claim_name(const char *want, char *name, size_t len);

/* config.c */
/* Runs a host tool; on failure logs "WHAT failed: its output". 0 or -errno. */
int cluster_run_tool(const char *const *argv, const char *what);
/* A qcow2 overlay on base (of base_format: raw or qcow2). */
int cluster_make_overlay(const char *base, const char *base_format, const char *overlay);
/* A qcow2 overlay per node on the image's base disk. */
int cluster_make_overlays(struct cluster *c, const char *base);
/* The HA storage: ext4 with the export directory, built without a loop mount. */
int cluster_make_shared_disk(struct cluster *c, const struct scenario *sc);
uint64_t cluster_shared_disk_size(const struct cluster *c, const struct scenario *sc);
/* cluster-config/ rendered for this cluster into DIR/config (and a new fence key). */
int cluster_render_config(struct cluster *c, const struct scenario *sc);
/* DIR/config as the read-only configuration disk. */
int cluster_make_config_disk(struct cluster *c);
/* A node's domain as the cluster boots it; returns the command line s points to (free it). */
char *cluster_node_spec(const struct cluster *c, const struct scenario *sc, const struct node *nd,
			struct vm_spec *s);

#endif
