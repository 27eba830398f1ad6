// SPDX-License-Identifier: GPL-2.0-only
/*
 * nfsd-kill: no node fails. nfsd's threads on the NFS server all stop at
 * once, through /proc/fs/nfsd/threads (what `rpc.nfsd 0` does, and the state
 * every nfsd thread dying leaves; Debian's 6.1 nfsd ignores SIGKILL,
 * measured): every client's writes hang, the server's own loop-back
 * client's among them, while its memory stays under pressure. Pacemaker's
 * monitor of nfsd (every 30s; the nfsserver agent's status goes through
 * images/overlay/usr/local/sbin/takeover-nfs-server, which counts the
 * threads) notices, and the cluster restarts nfsd and what follows it in
 * the group in place. The server's loop-back writes are judged as a
 * takeover node's: resumed within takeover_timeout of the kill, then the
 * progress rules.
 */
#include <errno.h>

#include "run/faults/faults.h"
#include "util/log.h"

static int kill_nfsd(struct fault_ctx *f)
{
	const char *argv[] = { "sh", "-c", "echo 0 > /proc/fs/nfsd/threads && cat /proc/fs/nfsd/threads", NULL };
	struct strbuf out = STRBUF_INIT;
	int rc, r = cluster_exec(f->c, f->victim->id, argv, 30000, &out, &rc);

	strbuf_rtrim(&out);
	if (!r && rc) {
		log_error("fault nfsd-kill: on %s (exit %d): %s", f->victim->name, rc, out.buf);
		r = -EIO;
	} else if (!r) {
		log_info("fault nfsd-kill: %s's nfsd threads now %s", f->victim->name, out.buf);
	}
	strbuf_release(&out);
	return r;
}

const struct fault fault_nfsd_kill = {
	.inject = kill_nfsd,
	.group_stays = true, .group_restarts = true,
};
