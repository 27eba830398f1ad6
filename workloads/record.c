// SPDX-License-Identifier: GPL-2.0-only
#include "record.h"

#include <string.h>

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "crc32c reads words little-endian");

/*
 * CRC32C by slicing-by-8 (Intel's 2006 method): eight table lookups for eight
 * bytes instead of one a byte. The verifier checks every acknowledged record
 * under TCG, where each emulated instruction is dear; this is about 4x fewer
 * than the byte-wise loop.
 */
static uint32_t crc_table[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1; /* Castagnoli, reflected */
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = crc_table[0][crc_table[t - 1][i] & 0xff] ^ (crc_table[t - 1][i] >> 8);
}

uint32_t crc32c(uint32_t crc, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!crc_table[0][1])
		crc_init();
	crc = ~crc;
	for (; len && ((uintptr_t)p & 7); len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	for (; len >= 8; len -= 8, p += 8) {
		/* Little-endian: the guests and the host are x86. */
		uint32_t lo, hi;
		memcpy(&lo, p, 4);
		memcpy(&hi, p + 4, 4);
		lo ^= crc;
		crc = crc_table[7][lo & 0xff] ^ crc_table[6][(lo >> 8) & 0xff] ^ crc_table[5][(lo >> 16) & 0xff] ^
		      crc_table[4][lo >> 24] ^ crc_table[3][hi & 0xff] ^ crc_table[2][(hi >> 8) & 0xff] ^
		      crc_table[1][(hi >> 16) & 0xff] ^ crc_table[0][hi >> 24];
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t record_writer_id(const char *name)
{
	return crc32c(0, name, strlen(name));
}

/* xorshift64*: cheap, and the same on every machine. */
static void fill_payload(uint8_t *p, size_t len, uint32_t writer_id, uint64_t seq)
{
	uint64_t x = (seq + 1) * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)writer_id << 32 | writer_id);

	if (!x)
		x = 1;
	while (len >= 8) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		uint64_t v = x * 0x2545F4914F6CDD1DULL;
		memcpy(p, &v, 8);
		p += 8;
		len -= 8;
	}
	memset(p, 0xa5, len);
}

void record_fill(void *buf, uint32_t record_size, uint32_t writer_id, const char *node, uint64_t seq,
		 uint64_t stamp_ns)
{
	struct record_hdr h = {
		.magic = RECORD_MAGIC, .seq = seq, .stamp_ns = stamp_ns, .record_size = record_size,
		.writer_id = writer_id,
	};
	uint8_t *payload = (uint8_t *)buf + RECORD_HDR_SIZE;
	size_t plen = record_size - RECORD_HDR_SIZE;

	for (size_t i = 0; i < sizeof(h.node) - 1 && node[i]; i++)
		h.node[i] = node[i];
	fill_payload(payload, plen, writer_id, seq);
	h.payload_crc = crc32c(0, payload, plen);
	h.hdr_crc = crc32c(0, &h, sizeof(h));
	memcpy(buf, &h, sizeof(h));
}

enum record_check record_check(const void *buf, uint32_t record_size, uint32_t writer_id,
			       uint64_t *seq)
{
	struct record_hdr h;
	const uint8_t *payload = (const uint8_t *)buf + RECORD_HDR_SIZE;
	uint32_t want;
	bool zero = true;

	memcpy(&h, buf, sizeof(h));
	if (h.magic != RECORD_MAGIC) {
		for (size_t i = 0; i < record_size && zero; i++)
			zero = ((const uint8_t *)buf)[i] == 0;
		return zero ? RECORD_EMPTY : RECORD_BAD_MAGIC;
	}
	want = h.hdr_crc;
	h.hdr_crc = 0;
	if (crc32c(0, &h, sizeof(h)) != want)
		return RECORD_BAD_HDR;
	*seq = h.seq;
	if (h.record_size != record_size)
		return RECORD_BAD_SIZE;
	if (h.writer_id != writer_id)
		return RECORD_BAD_WRITER;
	if (crc32c(0, payload, record_size - RECORD_HDR_SIZE) != h.payload_crc)
		return RECORD_BAD_PAYLOAD;
	return RECORD_OK;
}

const char *record_check_name(enum record_check c)
{
	static const char *const n[] = {
		"ok", "empty", "bad-magic", "bad-header-crc", "bad-size", "wrong-writer", "bad-payload-crc",
	};
	return n[c];
}
