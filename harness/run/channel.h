/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_CHANNEL_H
#define TAKEOVER_CHANNEL_H
/*
 * Host end of the agent protocol (workloads/proto.h, docs/agent-protocol.md):
 * a connection to the unix socket QEMU serves for a node's virtio-serial
 * port. Reading is non-blocking and line-based; every complete message goes
 * to on_msg, except the reply a synchronous channel_exec() is waiting for.
 */
#include <stdbool.h>
#include <stdint.h>

#include "util/strbuf.h"

struct channel;
typedef void (*channel_msg_fn)(void *ctx, struct channel *ch, char **words, int n);

struct channel {
	int fd;
	char node[16];
	char *path;
	struct strbuf in;
	unsigned next_id;
	/* from the last hello */
	bool hello;
	char kernel[128];
	char boot_id[64];
	char started[24];     /* when the agent process started (its clock) */
	bool agent_restarted; /* same boot id, new agent start: the agent restarted, the node did not */
	bool rebooted;        /* this hello came from a new boot of the node */
	/* the synchronous exec in flight */
	unsigned wait_id;
	bool wait_done;
	int wait_rc;
	bool wait_timeout;
	struct strbuf wait_out;
	channel_msg_fn on_msg;
	void *ctx;
};

void channel_init(struct channel *ch, const char *path, const char *node);
/* Connects (when QEMU already serves the socket) and asks for a hello. 0 or -errno. */
int channel_connect(struct channel *ch);
void channel_close(struct channel *ch);
void channel_release(struct channel *ch);
/* Reads what is available and dispatches complete lines. -EPIPE when the peer went away. */
int channel_read(struct channel *ch);
/* Sends "exec ID TIMEOUT ARGV..." and returns ID (0 when not connected). */
unsigned channel_exec_start(struct channel *ch, const char *const *argv, uint64_t timeout_ms);
/*
 * Runs argv in the guest and waits for its result (plus a margin over
 * timeout_ms for the transport). 0 with *rc and out filled, -ETIMEDOUT or
 * -EPIPE otherwise.
 */
int channel_exec(struct channel *ch, const char *const *argv, uint64_t timeout_ms,
		 struct strbuf *out, int *rc);
/*
 * The same in parts, for a caller that keeps its own poll loop (the
 * monitor): begin sends the exec (0 or -EPIPE); the reply arrives through
 * channel_read() and sets wait_done; end (with the loop's result r: 0 or
 * -errno) fills out and *rc like channel_exec(). patience is how long to
 * wait for the reply of an exec with timeout_ms.
 */
int channel_exec_begin(struct channel *ch, const char *const *argv, uint64_t timeout_ms);
uint64_t channel_exec_patience_ms(uint64_t timeout_ms);
int channel_exec_end(struct channel *ch, int r, struct strbuf *out, int *rc);
/* Waits for a hello until deadline (now_ms() clock). */
int channel_wait_hello(struct channel *ch, uint64_t deadline);
/* Sends one raw protocol line (without the newline). */
int channel_send(struct channel *ch, const char *line);
/* Waits up to ms for input on ch and processes it. */
int channel_poll(struct channel *ch, int ms);

#endif
