/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CRM_H
#define TAKEOVER_CRM_H
/*
 * What Pacemaker says about the cluster, from `crm_mon -1 --output-as=xml`.
 * Pure parsing (unit-tested on recorded output); the harness asks a node to
 * run crm_mon through its agent.
 */
#include <stdbool.h>
#include <stddef.h>

#define CRM_GROUP "nfs_group"
#define CRM_FENCE "fence_xvm"
#define CRM_MAX_NODES 8

/*
 * The NFS group's members in start order, as cluster-config/cluster.crm.in
 * names them ("group nfs_group shared_fs nfsd export vip"); crm_group_members[]
 * has their ids. The timeline's crm events list where each runs in this order.
 */
enum crm_member { CRM_FS, CRM_NFSD, CRM_EXPORT, CRM_VIP, CRM_N_MEMBERS };

struct crm_status {
	int nodes_online;
	char online[CRM_MAX_NODES][16];
	bool group_started;      /* every member Started, all on one node */
	char group_node[16];
	int group_members_started;
	bool fence_started;
	char fence_node[16];
	/* where each group member runs (empty: not started), in group order */
	char member_node[CRM_N_MEMBERS][16];
	/* nodes a fence_history event says were fenced successfully */
	char fenced[CRM_MAX_NODES][16];
	int nfenced;
	/* nodes a fence_history event says could not be fenced */
	char fence_failed[CRM_MAX_NODES][16];
	int nfence_failed;
	int failures;            /* failed actions recorded */
	char first_failure[256];
};

/* 0, or -EINVAL when xml is not crm_mon output. */
int crm_parse_status(const char *xml, size_t len, struct crm_status *st);
bool crm_node_online(const struct crm_status *st, const char *node);
bool crm_node_fenced(const struct crm_status *st, const char *node);
bool crm_node_fence_failed(const struct crm_status *st, const char *node);
/* The resource id of each enum crm_member. */
extern const char *const crm_group_members[CRM_N_MEMBERS];

/*
 * The cibadmin command that adds location constraint id: the NFS group
 * prefers node with score ("50", "INFINITY"). cibadmin, not the crm shell:
 * the same constraint in 0.5 s instead of ~10 s of a TCG guest. argv[5]
 * is allocated; crm_location_argv_free() frees it.
 */
#define CRM_LOCATION_ARGC 7
void crm_location_argv(const char *argv[CRM_LOCATION_ARGC], const char *id, const char *node, const char *score);
void crm_location_argv_free(const char *argv[CRM_LOCATION_ARGC]);

#endif
