/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_PROTO_H
#define TAKEOVER_PROTO_H
/*
 * The line protocol between the harness and takeover-agent, spoken over the
 * virtio-serial port AGENT_PORT_NAME (docs/agent-protocol.md). One message a
 * line; words separated by one space; every word percent-encoded so that
 * spaces, newlines and binary bytes in arguments or output survive.
 */
#include <stddef.h>
#include <sys/types.h>

#include "util/strbuf.h"

#define PROTO_VERSION 1
#define PROTO_MAX_LINE (256 * 1024)
#define PROTO_MAX_WORDS 64
#define AGENT_PORT_NAME "org.takeover.agent.0"

/* Appends s[0..n) percent-encoded: bytes outside [A-Za-z0-9._/:=,+@-] become %XX. */
void proto_encode(struct strbuf *out, const char *s, size_t n);
/* Decodes in place; returns the new length, or -1 on a malformed escape. */
ssize_t proto_decode(char *s);
/* Splits a line in place on single spaces; returns the word count (at most max). */
int proto_split(char *line, char **words, int max);
/* The value of "key=value" among words[1..n), or NULL. Values are still encoded. */
const char *proto_get(char *const *words, int n, const char *key);

#endif
