/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CLUSTER_H
#define TAKEOVER_CLUSTER_H
/*
 * A cluster's life: up (namespace, daemons, disks, domains, Pacemaker, NFS
 * mounts, readiness checked from inside the guests), status, and down. Each
 * cluster keeps its state in STATE_ROOT/<name>/ (default
 * /var/lib/takeover/clusters); everything it creates is named after it or
 * lives in it (netns takeover-<name>; its own libvirtd, whose domains
 * takeover-<node> have their disks in the directory), so `down` can find and
 * remove leftovers of a crashed harness, and only those. A cluster of a shape
 * seen before is restored from a snapshot (snapshot.h) instead of booted.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "cluster/virt.h"

#include "run/channel.h"
#include "cluster/crm.h"
#include "image/image.h"
#include "scenario/scenario.h"

#define CLUSTER_NAME_MAX 16
#define NFS_SHARED_FS_DIR "/srv/nfs" /* where cluster.crm.in's shared_fs mounts the shared disk */
#define NFS_EXPORT_DIR NFS_SHARED_FS_DIR "/export"
#define NFS_MOUNT_DIR "/mnt/nfs"

struct node {
	int id; /* 1..nodes */
	char name[8];
	char domain[64];
	/*
	 * Fixed by the cluster's shape, not its name: the fence host map in the
	 * guests' CIB names domains by UUID, so a cluster restored from a
	 * snapshot under another name still fences the right domain.
	 */
	char uuid[37];
	uint32_t ip;
	char *overlay;
	char *console;
	char *agent_sock;
	char *qga_sock;
	struct channel ch;
};

/* How `up` went, for report.json: warm or cold, and each stage's time. */
#define UP_MAX_STAGES 32
struct up_record {
	bool warm;          /* restored from a snapshot */
	bool saved;         /* this `up` booted cold and saved the snapshot it then restored */
	char snapshot[17];  /* the shape's key */
	char fallback[256]; /* why no snapshot was used ("" when one was, or none was wanted) */
	int nstages;
	struct { char name[48]; uint64_t ms; } stages[UP_MAX_STAGES]; /* each stage's own time */
	uint64_t total_ms;
};

struct cluster {
	char name[CLUSTER_NAME_MAX + 1];
	char *dir;
	char netns[64];
	char *uri;
	int n;
	struct node nodes[SCENARIO_MAX_NODES];
	uint32_t subnet, bridge_ip, float_ip;
	bool kvm;
	bool fencing;
	bool ephemeral;       /* created by `run`: reaped when its owner is gone */
	pid_t owner;
	char image_key[17];
	char kernel_release[128];
	char *shared_disk;
	char *config_disk;
	/* the kernel the nodes boot (the image's, or the one under test) */
	char *kernel, *initrd, *modules_disk;
	char expect_release[128];
	char modules_hash[17]; /* of the modules tree under test ("" without one) */
	char kernel_hash[17];  /* sha256_file_key16() of the kernel booted ("" until chosen) */
	char group_node[16];   /* where the NFS group ran when `up` last looked */
	struct up_record up;
	virConnectPtr conn;
};

struct up_opts {
	const char *name;      /* NULL: first free c<N> */
	/* the kernel under test, overriding [kernel] (NULL: the scenario's) */
	const char *kernel, *initrd, *modules, *kernel_tree;
	const char *cache_dir;
	bool ephemeral;
	bool cold;             /* boot cold: neither restore nor save a snapshot */
	bool quiet;
};

const char *cluster_state_root(void);
/* Creates and starts a cluster for sc; on failure everything created is removed. */
int cluster_up(const struct scenario *sc, const struct up_opts *o, struct cluster *c);
/* Loads a cluster's state (no connections). -ENOENT when there is no such cluster. */
int cluster_load(const char *name, struct cluster *c);
/* Removes everything of cluster name, whatever state it is in. 0 when nothing is left. */
int cluster_down(const char *name);
/*
 * Removes the clusters of `takeover run`s that died (owner process gone):
 * they are provably leftovers. Clusters made by `up` are left alone.
 * Returns how many were removed.
 */
int cluster_reap_stale(void);
/* Names of all clusters that have a state directory or a namespace. */
int cluster_list(char names[][CLUSTER_NAME_MAX + 1], int max);
void cluster_release(struct cluster *c);

int cluster_connect_libvirt(struct cluster *c);
/* Connects every node's agent channel and waits for hellos until deadline. */
int cluster_connect_agents(struct cluster *c, uint64_t deadline);
/* Runs argv on node (1-based) through its agent; 0 with *rc, or -errno. */
int cluster_exec(struct cluster *c, int node, const char *const *argv, uint64_t timeout_ms,
		 struct strbuf *out, int *rc);
/* crm_mon as seen from node. */
int cluster_crm_status(struct cluster *c, int node, struct crm_status *st);
struct node *cluster_node_by_name(struct cluster *c, const char *name);

#endif
