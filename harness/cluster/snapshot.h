/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_SNAPSHOT_H
#define TAKEOVER_SNAPSHOT_H
/*
 * Warm start: a ready cluster saved once per shape and restored many times.
 *
 * CACHE/snapshots/<key>/ holds, for every node, libvirt's save of the
 * domain's memory (nK.save) and its root overlay (nK.qcow2, backed by the
 * image's base disk), plus the shared disk, the configuration and modules
 * disks, the fence key, the boot consoles and manifest.json (the shape in
 * words, every file's size, the node the NFS group ran on). The key hashes
 * everything that shapes the booted state (snapshot_key), so a directory
 * named by a key is that shape or nothing; it is built in .tmp-<key>-<pid>
 * and renamed into place, like an image. A restore never writes into it:
 * the domains get new overlays on top of the saved ones and a copy of the
 * shared disk; the read-only disks are used in place.
 */
#include <stdbool.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "util/strbuf.h"

struct snapshot {
	char key[17];
	char *dir;
	char group_node[8]; /* where the NFS group ran when it was saved */
	bool modules;       /* a modules disk is part of it */
};

/* CACHE/snapshots */
char *snapshot_root(const char *cache_dir);
/*
 * The key of the state c boots into for sc: image key, kernel, initrd and
 * modules contents, the domain as libvirt gets it (memory, vcpus, accel,
 * command line, disks), the rendered configuration (DIR/config without the
 * fence key), the NFS mount and the shared disk's size. shape gets the same
 * in words, for the manifest.
 */
int snapshot_key(const struct cluster *c, const struct scenario *sc, const char *modules_hash,
		 char key[17], struct strbuf *shape);
/*
 * The snapshot for key: 0, -ENOENT when there is none, -EBADMSG when it is
 * incomplete (a file missing or of another size than the manifest says;
 * why says which).
 */
int snapshot_find(const char *cache_dir, const char *key, struct snapshot *s, struct strbuf *why);
/*
 * Saves the running, ready cluster c: pauses every node, saves each (the
 * domains stop), moves their disks into the snapshot. 1 when it did not
 * start (not enough space, a pause refused; the cluster runs on), 0 when
 * saved (s describes it; the cluster's domains are stopped), -errno when it
 * failed half-way (the cluster is unusable).
 */
int snapshot_save(struct cluster *c, const struct scenario *sc, const char *cache_dir,
		  const char *key, const char *shape, const char *group_node, struct snapshot *s);
/* A restore's disks in c->dir and the saved fence key for fence_virtd. 0 or -errno. */
int snapshot_restore_disks(struct cluster *c, const struct snapshot *s);
/* Defines and restores every domain paused, then resumes them together. */
int snapshot_restore_domains(struct cluster *c, const struct scenario *sc, const struct snapshot *s);
/* Removes a snapshot that failed its check, saying why. */
void snapshot_discard(const struct snapshot *s, const char *why);
void snapshot_release(struct snapshot *s);
/* Image key a snapshot was made on (from its manifest); -errno when unreadable. */
int snapshot_image_key(const char *dir, char key[17]);

#endif
