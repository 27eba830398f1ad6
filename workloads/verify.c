// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover-verify: after the run, on the node serving the NFS group, reads
 * a writer's file from the exported file system itself (O_DIRECT, so no page
 * cache can answer) and checks that every acknowledged record is there and
 * intact.
 *
 *   takeover-verify --name NAME --file PATH --file-size SIZE --record-size SIZE --acked N
 *
 * Records 0..N-1 were acknowledged. Slot s must then hold an intact record of
 * this writer whose sequence number is s modulo the slot count and no older
 * than the newest acknowledged record for that slot. Unacknowledged slots may
 * be empty or torn (the writer may have been killed mid-write).
 *
 * Prints one line: verify name=.. slots=.. acked=.. checked=.. missing=.. corrupt=..
 * [first_bad=SLOT:REASON]. Exit 0 intact, 1 loss or corruption, 2 error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "record.h"
#include "util/strbuf.h"
#include "wl_common.h"

#define VERIFY_READ_BYTES (4u << 20)

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "name", required_argument, NULL, 'n' },      { "file", required_argument, NULL, 'f' },
		{ "file-size", required_argument, NULL, 's' }, { "record-size", required_argument, NULL, 'r' },
		{ "acked", required_argument, NULL, 'a' },     { NULL, 0, NULL, 0 },
	};
	const char *name = NULL, *path = NULL;
	uint64_t fsize = 0, rsize = 0, acked = 0, missing = 0, corrupt = 0, checked = 0;
	char first_bad[96] = "";
	void *buf;
	int c, fd;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': name = optarg; break;
		case 'f': path = optarg; break;
		case 's': fsize = wl_size_arg("--file-size", optarg); break;
		case 'r': rsize = wl_size_arg("--record-size", optarg); break;
		case 'a': acked = wl_uint_arg("--acked", optarg); break;
		default: return 2;
		}
	}
	if (!name || !path || rsize < 4096 || rsize % 4096 || fsize < rsize) {
		fprintf(stderr, "usage: takeover-verify --name NAME --file PATH --file-size SIZE "
				"--record-size SIZE --acked N\n");
		return 2;
	}
	uint64_t nslots = fsize / rsize, nread = nslots < acked ? nslots : acked;
	/* Many records a read: under TCG each request costs far more than its bytes. */
	uint64_t per_read = VERIFY_READ_BYTES / rsize ? VERIFY_READ_BYTES / rsize : 1;
	uint32_t id = record_writer_id(name);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || posix_memalign(&buf, 4096, per_read * rsize)) {
		fprintf(stderr, "takeover-verify: %s: %s\n", path, strerror(errno));
		return 2;
	}
	for (uint64_t s0 = 0; s0 < nread; s0 += per_read) {
		uint64_t k = nread - s0 < per_read ? nread - s0 : per_read;
		ssize_t n = pread(fd, buf, k * rsize, (off_t)(s0 * rsize));
		if (n < 0) {
			fprintf(stderr, "takeover-verify: %s: read slots %llu-%llu: %s\n", path,
				(unsigned long long)s0, (unsigned long long)(s0 + k - 1), strerror(errno));
			return 2;
		}
		if ((uint64_t)n < k * rsize) /* past the end of the file: never written */
			memset((char *)buf + n, 0, k * rsize - (size_t)n);
		for (uint64_t s = s0; s < s0 + k; s++) {
			/* The newest acknowledged sequence number that landed in slot s. */
			uint64_t want = s + ((acked - 1 - s) / nslots) * nslots, seq = 0;
			enum record_check rc = record_check((char *)buf + (s - s0) * rsize, (uint32_t)rsize, id, &seq);
			const char *why = NULL;
			checked++;
			if (rc == RECORD_EMPTY) {
				missing++;
				why = "missing";
			} else if (rc != RECORD_OK) {
				corrupt++;
				why = record_check_name(rc);
			} else if (seq % nslots != s || seq < want) {
				missing++;
				why = seq < want ? "stale (older than acknowledged)" : "misplaced";
			}
			if (why && !first_bad[0])
				snprintf(first_bad, sizeof(first_bad), "%llu:%s", (unsigned long long)s, why);
		}
	}
	/* One line of the agent protocol's shape (docs/agent-protocol.md): the harness parses it. */
	struct strbuf l = STRBUF_INIT;
	strbuf_addstr(&l, "verify name=");
	proto_encode(&l, name, strlen(name));
	strbuf_addf(&l, " slots=%llu acked=%llu checked=%llu missing=%llu corrupt=%llu",
		    (unsigned long long)nslots, (unsigned long long)acked, (unsigned long long)checked,
		    (unsigned long long)missing, (unsigned long long)corrupt);
	if (first_bad[0]) {
		strbuf_addstr(&l, " first_bad=");
		proto_encode(&l, first_bad, strlen(first_bad));
	}
	puts(l.buf);
	strbuf_release(&l);
	close(fd);
	return missing || corrupt ? 1 : 0;
}
