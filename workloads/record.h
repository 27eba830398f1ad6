/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef TAKEOVER_RECORD_H
#define TAKEOVER_RECORD_H
/*
 * The writer's on-disk record (docs/agent-protocol.md, "Records"). A file is
 * an array of nslots = file_size / record_size slots; record seq goes to slot
 * seq % nslots, so the writer wraps around. Each record carries its sequence
 * number, its writer and a CRC of header and payload; the payload is a
 * pseudo-random stream derived from (writer, seq), so the verifier can
 * recompute every byte and needs nothing but the file and the last
 * acknowledged sequence number.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RECORD_MAGIC 0x3130434552544b54ULL /* "TKTREC01" read as a little-endian u64 */
#define RECORD_HDR_SIZE 64

struct record_hdr {
	uint64_t magic;
	uint64_t seq;
	uint64_t stamp_ns;    /* CLOCK_REALTIME when written, for humans */
	uint32_t record_size;
	uint32_t writer_id;
	uint32_t payload_crc; /* CRC32C of the payload */
	uint32_t hdr_crc;     /* CRC32C of this header with hdr_crc = 0 */
	char node[24];
};

_Static_assert(sizeof(struct record_hdr) == RECORD_HDR_SIZE, "record header layout");

uint32_t crc32c(uint32_t crc, const void *data, size_t len);
/* Stable id of a writer name (its CRC32C). */
uint32_t record_writer_id(const char *name);
/* Fills buf (record_size bytes) with record seq of writer. */
void record_fill(void *buf, uint32_t record_size, uint32_t writer_id, const char *node, uint64_t seq,
		 uint64_t stamp_ns);

enum record_check {
	RECORD_OK,
	RECORD_EMPTY,     /* all zero: never written */
	RECORD_BAD_MAGIC,
	RECORD_BAD_HDR,   /* header CRC mismatch */
	RECORD_BAD_SIZE,
	RECORD_BAD_WRITER,
	RECORD_BAD_PAYLOAD,
};
/* Checks buf as a record of writer; *seq gets its sequence number when the header is sound. */
enum record_check record_check(const void *buf, uint32_t record_size, uint32_t writer_id,
			       uint64_t *seq);
const char *record_check_name(enum record_check c);

#endif
