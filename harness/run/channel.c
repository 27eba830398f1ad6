// SPDX-License-Identifier: GPL-2.0-only
#include "run/channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "proto.h"
#include "util/cancel.h"
#include "util/cleanup.h"
#include "util/spawn.h"
#include "util/units.h"
#include "util/xalloc.h"

/* The guest may be busy: give a reply this long beyond the command's own deadline. */
#define EXEC_TRANSPORT_MARGIN_MS 30000

void channel_init(struct channel *ch, const char *path, const char *node)
{
	memset(ch, 0, sizeof(*ch));
	ch->fd = -1;
	ch->path = xstrdup(path);
	snprintf(ch->node, sizeof(ch->node), "%s", node);
	strbuf_init(&ch->in, 0);
	strbuf_init(&ch->wait_out, 0);
	ch->next_id = 1;
}

int channel_connect(struct channel *ch)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -1;

	if (ch->fd >= 0)
		return 0;
	if (strlen(ch->path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, ch->path, strlen(ch->path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	fcntl(fd, F_SETFL, O_NONBLOCK);
	ch->fd = take_fd(&fd);
	strbuf_reset(&ch->in);
	return channel_send(ch, "ping");
}

void channel_close(struct channel *ch)
{
	if (ch->fd >= 0)
		close(ch->fd);
	ch->fd = -1;
}

void channel_release(struct channel *ch)
{
	channel_close(ch);
	free(ch->path);
	strbuf_release(&ch->in);
	strbuf_release(&ch->wait_out);
}

int channel_send(struct channel *ch, const char *line)
{
	size_t len = strlen(line);
	struct pollfd p = { .fd = ch->fd, .events = POLLOUT };
	const char *nl = "\n";

	if (ch->fd < 0)
		return -ENOTCONN;
	/* Commands are small; a full socket buffer means the guest is not reading: wait a bit. */
	for (int part = 0; part < 2; part++) {
		const char *buf = part ? nl : line;
		size_t left = part ? 1 : len;
		while (left) {
			ssize_t n = write(ch->fd, buf, left);
			if (n < 0 && errno == EAGAIN) {
				if (poll(&p, 1, 5000) <= 0)
					return -ETIMEDOUT;
				continue;
			}
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return -errno;
			buf += n;
			left -= (size_t)n;
		}
	}
	return 0;
}

static void handle_hello(struct channel *ch, char **w, int n)
{
	const char *k = proto_get(w, n, "kernel"), *b = proto_get(w, n, "boot");
	const char *st = proto_get(w, n, "started");

	/*
	 * The agent says hello when it starts and whenever pinged (also by a ping
	 * that waited in the port while the node booted): only a new start stamp
	 * on the same boot means a new agent.
	 */
	ch->agent_restarted = ch->hello && b && *b && !strcmp(ch->boot_id, b) && st && ch->started[0] &&
			      strcmp(ch->started, st);
	ch->rebooted = ch->hello && b && *b && ch->boot_id[0] && strcmp(ch->boot_id, b);
	snprintf(ch->started, sizeof(ch->started), "%s", st ? st : "");
	ch->hello = true;
	snprintf(ch->kernel, sizeof(ch->kernel), "%s", k ? k : "");
	proto_decode(ch->kernel);
	snprintf(ch->boot_id, sizeof(ch->boot_id), "%s", b ? b : "");
}

static bool handle_reply(struct channel *ch, char **w, int n)
{
	uint64_t id;
	const char *why;

	if (n < 2 || !ch->wait_id || parse_uint(w[1], &id, &why) < 0 || id != ch->wait_id)
		return false;
	if (!strcmp(w[0], "done")) {
		const char *rc = proto_get(w, n, "rc"), *to = proto_get(w, n, "timeout");
		char *out = (char *)proto_get(w, n, "out");
		uint64_t v;
		ch->wait_rc = rc && parse_uint(rc, &v, &why) == 0 && v <= 255 ? (int)v : -1;
		ch->wait_timeout = to && !strcmp(to, "1");
		if (out && proto_decode(out) >= 0)
			strbuf_addstr(&ch->wait_out, out);
	} else { /* error ID msg=... */
		char *msg = (char *)proto_get(w, n, "msg");
		ch->wait_rc = 127;
		if (msg && proto_decode(msg) >= 0)
			strbuf_addf(&ch->wait_out, "takeover-agent: %s", msg);
	}
	ch->wait_done = true;
	return true;
}

static void dispatch(struct channel *ch, char *line)
{
	char *w[PROTO_MAX_WORDS];
	int n = proto_split(line, w, PROTO_MAX_WORDS);

	if (!n)
		return;
	if (!strcmp(w[0], "hello"))
		handle_hello(ch, w, n);
	if ((!strcmp(w[0], "done") || !strcmp(w[0], "error")) && handle_reply(ch, w, n))
		return;
	if (ch->on_msg)
		ch->on_msg(ch->ctx, ch, w, n);
}

int channel_read(struct channel *ch)
{
	char buf[16384];

	if (ch->fd < 0)
		return -ENOTCONN;
	for (;;) {
		ssize_t n = read(ch->fd, buf, sizeof(buf));
		if (n == 0) {
			channel_close(ch);
			return -EPIPE;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				break;
			int r = -errno;
			channel_close(ch);
			return r;
		}
		strbuf_add(&ch->in, buf, (size_t)n);
	}
	char *start = ch->in.buf, *nl;
	while ((nl = memchr(start, '\n', ch->in.len - (size_t)(start - ch->in.buf)))) {
		*nl = '\0';
		if (nl > start && nl[-1] == '\r')
			nl[-1] = '\0';
		dispatch(ch, start);
		start = nl + 1;
	}
	size_t rest = ch->in.len - (size_t)(start - ch->in.buf);
	if (rest > PROTO_MAX_LINE)
		rest = 0;
	memmove(ch->in.buf, start, rest);
	ch->in.len = rest;
	ch->in.buf[rest] = '\0';
	return 0;
}

int channel_poll(struct channel *ch, int ms)
{
	struct pollfd p = { .fd = ch->fd, .events = POLLIN };
	int r;

	if (ch->fd < 0)
		return -ENOTCONN;
	r = poll(&p, 1, ms);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	return r ? channel_read(ch) : 0;
}

unsigned channel_exec_start(struct channel *ch, const char *const *argv, uint64_t timeout_ms)
{
	struct strbuf l = STRBUF_INIT;
	unsigned id = ch->next_id++;

	strbuf_addf(&l, "exec %u %llu", id, (unsigned long long)timeout_ms);
	for (int i = 0; argv[i]; i++) {
		strbuf_addch(&l, ' ');
		proto_encode(&l, argv[i], strlen(argv[i]));
	}
	if (channel_send(ch, l.buf) < 0)
		id = 0;
	strbuf_release(&l);
	return id;
}

int channel_exec_begin(struct channel *ch, const char *const *argv, uint64_t timeout_ms)
{
	strbuf_reset(&ch->wait_out);
	ch->wait_done = false;
	ch->wait_id = channel_exec_start(ch, argv, timeout_ms);
	return ch->wait_id ? 0 : -EPIPE;
}

uint64_t channel_exec_patience_ms(uint64_t timeout_ms)
{
	return timeout_ms + EXEC_TRANSPORT_MARGIN_MS;
}

int channel_exec_end(struct channel *ch, int r, struct strbuf *out, int *rc)
{
	ch->wait_id = 0;
	if (r < 0)
		return r;
	if (out)
		strbuf_add(out, ch->wait_out.buf, ch->wait_out.len);
	*rc = ch->wait_timeout ? 124 : ch->wait_rc;
	return 0;
}

int channel_exec(struct channel *ch, const char *const *argv, uint64_t timeout_ms,
		 struct strbuf *out, int *rc)
{
	uint64_t deadline = now_ms() + channel_exec_patience_ms(timeout_ms);
	int r = channel_exec_begin(ch, argv, timeout_ms);

	if (r < 0)
		return r;
	while (!ch->wait_done) {
		if (cancel_requested()) {
			r = -EINTR;
			break;
		}
		if (now_ms() > deadline) {
			r = -ETIMEDOUT;
			break;
		}
		r = channel_poll(ch, 500);
		if (r < 0)
			break;
	}
	return channel_exec_end(ch, r, out, rc);
}

int channel_wait_hello(struct channel *ch, uint64_t deadline)
{
	while (!ch->hello) {
		if (cancel_requested())
			return -EINTR;
		if (now_ms() > deadline)
			return -ETIMEDOUT;
		if (ch->fd < 0 && channel_connect(ch) < 0) {
			usleep(500 * 1000);
			continue;
		}
		if (channel_poll(ch, 500) == -EPIPE)
			usleep(500 * 1000);
	}
	return 0;
}
