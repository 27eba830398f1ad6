// SPDX-License-Identifier: GPL-2.0-only
/*
 * The wire formats shared by harness and guests: the agent protocol's
 * percent-encoding and word splitting (workloads/proto.c) and the writer's
 * on-disk record with its CRC32C (workloads/record.c, linked in from the
 * guest library's sources), and the guests' readers of the kernel's /proc
 * formats (workloads/wl_common.c) on lines recorded from a Debian 12 host.
 */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "record.h"
#include "wl_common.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* ---- percent-encoding ---- */

static bool plain(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       (c && strchr("._/:=,+@-", c));
}

/* Each byte alone: itself if plain, else %XX in upper-case hex; and back. */
START_TEST(encode_each_byte)
{
	struct strbuf sb = STRBUF_INIT;
	char c = (char)_i, want[4];

	proto_encode(&sb, &c, 1);
	if (plain((unsigned char)_i)) {
		ck_assert_uint_eq(sb.len, 1);
		ck_assert_int_eq(sb.buf[0], c);
	} else {
		snprintf(want, sizeof(want), "%%%02X", _i);
		ck_assert_str_eq(sb.buf, want);
	}
	ck_assert_int_eq(proto_decode(sb.buf), 1);
	ck_assert_int_eq(sb.buf[0], c);
	strbuf_release(&sb);
}
END_TEST

START_TEST(round_trip_all_bytes)
{
	char all[512];
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < 512; i++)
		all[i] = (char)(i & 255);
	proto_encode(&sb, all, sizeof(all));
	/* nothing that frames a message survives encoding */
	ck_assert_uint_eq(strlen(sb.buf), sb.len);
	ck_assert_ptr_null(strchr(sb.buf, ' '));
	ck_assert_ptr_null(strchr(sb.buf, '\n'));
	ck_assert_ptr_null(strchr(sb.buf, '\r'));
	for (size_t i = 0; i < sb.len; i++)
		ck_assert_msg(plain((unsigned char)sb.buf[i]) || sb.buf[i] == '%', "byte %zu: %#x", i,
			      (unsigned char)sb.buf[i]);
	ck_assert_int_eq(proto_decode(sb.buf), (ssize_t)sizeof(all));
	ck_assert_int_eq(memcmp(sb.buf, all, sizeof(all)), 0);
	strbuf_release(&sb);
}
END_TEST

START_TEST(encode_appends)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "exec 7 ");
	proto_encode(&sb, "echo hello world", 16);
	ck_assert_str_eq(sb.buf, "exec 7 echo%20hello%20world");
	strbuf_reset(&sb);
	proto_encode(&sb, "", 0);
	ck_assert_str_eq(sb.buf, "");
	strbuf_release(&sb);
}
END_TEST

START_TEST(decode_valid)
{
	char a[] = "%41%42c", b[] = "%2f%2F", c[] = "", d[] = "plain.text/x:1=2,3+4@5-6", e[] = "%00x";

	ck_assert_int_eq(proto_decode(a), 3);
	ck_assert_str_eq(a, "ABc");
	ck_assert_int_eq(proto_decode(b), 2); /* either case of hex */
	ck_assert_str_eq(b, "//");
	ck_assert_int_eq(proto_decode(c), 0);
	ck_assert_int_eq(proto_decode(d), 24);
	ck_assert_str_eq(d, "plain.text/x:1=2,3+4@5-6");
	/* a NUL inside: the length, not strlen, is the answer */
	ck_assert_int_eq(proto_decode(e), 2);
	ck_assert_int_eq(e[0], 0);
	ck_assert_int_eq(e[1], 'x');
}
END_TEST

START_TEST(decode_malformed)
{
	static const char *const bad[] = {
		"%", "abc%", "%4", "x%4", "%G0", "%0G", "%%41", "% 1", "%-1", "%+1", "%4\n", "ok%zz",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *s = xstrdup(bad[i]);
		ck_assert_msg(proto_decode(s) == -1, "'%s' decoded", bad[i]);
		free(s);
	}
}
END_TEST

/* ---- words ---- */

START_TEST(split_words)
{
	char line[] = "progress t=1234 w=writer kind=writer acked_bytes=65536";
	char *w[PROTO_MAX_WORDS];
	int n = proto_split(line, w, PROTO_MAX_WORDS);

	ck_assert_int_eq(n, 5);
	ck_assert_str_eq(w[0], "progress");
	ck_assert_str_eq(w[4], "acked_bytes=65536");
	ck_assert_str_eq(proto_get(w, n, "t"), "1234");
	ck_assert_str_eq(proto_get(w, n, "w"), "writer");
	ck_assert_str_eq(proto_get(w, n, "acked_bytes"), "65536");
	/* a key must match whole: "acked" is not "acked_bytes", "kin" is not "kind" */
	ck_assert_ptr_null(proto_get(w, n, "acked"));
	ck_assert_ptr_null(proto_get(w, n, "kin"));
	ck_assert_ptr_null(proto_get(w, n, "missing"));
	/* the first word is the message, never a field */
	ck_assert_ptr_null(proto_get(w, n, "progress"));
}
END_TEST

START_TEST(split_edges)
{
	char *w[4];
	char empty[] = "", one[] = "ping", trailing[] = "stop writer ", twice[] = "a  b",
	     many[] = "a b c d e f";

	ck_assert_int_eq(proto_split(empty, w, 4), 0);
	ck_assert_int_eq(proto_split(one, w, 4), 1);
	ck_assert_str_eq(w[0], "ping");
	ck_assert_int_eq(proto_split(trailing, w, 4), 2);
	ck_assert_str_eq(w[1], "writer");
	/* one space separates: two make an empty word */
	ck_assert_int_eq(proto_split(twice, w, 4), 3);
	ck_assert_str_eq(w[1], "");
	ck_assert_str_eq(w[2], "b");
	/* at most max words */
	ck_assert_int_eq(proto_split(many, w, 4), 4);
	ck_assert_str_eq(w[3], "d");
}
END_TEST

/* Values are returned still encoded; a value may contain '='. */
START_TEST(get_encoded_values)
{
	struct strbuf line = STRBUF_INIT;
	const char out[] = "line one\nline two = 2\t100%";
	char *w[PROTO_MAX_WORDS], *v;
	int n;

	strbuf_addstr(&line, "done 42 rc=0 timeout=0 out=");
	proto_encode(&line, out, strlen(out));
	n = proto_split(line.buf, w, PROTO_MAX_WORDS);
	ck_assert_int_eq(n, 5);
	ck_assert_str_eq(w[1], "42");
	ck_assert_str_eq(proto_get(w, n, "rc"), "0");
	v = (char *)proto_get(w, n, "out");
	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_null(strchr(v, ' '));
	ck_assert_int_eq(proto_decode(v), (ssize_t)strlen(out));
	ck_assert_str_eq(v, out);
	strbuf_release(&line);

	char eq[] = "x a=b=c";
	n = proto_split(eq, w, PROTO_MAX_WORDS);
	ck_assert_str_eq(proto_get(w, n, "a"), "b=c");
}
END_TEST

/* An exec with awkward arguments survives encode, split and decode word by word. */
START_TEST(message_round_trip)
{
	static const char *const args[] = { "sh", "-c", "echo 'a b' > /tmp/x; cat /tmp/x", "",
					    "tab\there", "nl\nhere", "100%", "ünïcödé" };
	struct strbuf line = STRBUF_INIT;
	char *w[PROTO_MAX_WORDS];
	int n;

	strbuf_addstr(&line, "exec 9 30000");
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		strbuf_addch(&line, ' ');
		proto_encode(&line, args[i], strlen(args[i]));
	}
	ck_assert_ptr_null(strchr(line.buf, '\n'));
	n = proto_split(line.buf, w, PROTO_MAX_WORDS);
	ck_assert_int_eq(n, 3 + (int)(sizeof(args) / sizeof(args[0])));
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		ck_assert_int_eq(proto_decode(w[3 + i]), (ssize_t)strlen(args[i]));
		ck_assert_str_eq(w[3 + i], args[i]);
	}
	strbuf_release(&line);
}
END_TEST

/* ---- CRC32C and records ---- */

START_TEST(crc32c_vectors)
{
	/* the check value of CRC-32C (Castagnoli), RFC 3720 B.4 */
	ck_assert_uint_eq(crc32c(0, "123456789", 9), 0xE3069283u);
	ck_assert_uint_eq(crc32c(0, "", 0), 0);
	/* RFC 3720 B.4: 32 bytes of zeros, of 0xff */
	unsigned char z[32] = { 0 }, ff[32];
	memset(ff, 0xff, sizeof(ff));
	ck_assert_uint_eq(crc32c(0, z, sizeof(z)), 0x8A9136AAu);
	ck_assert_uint_eq(crc32c(0, ff, sizeof(ff)), 0x62A8AB43u);
	/* incremental equals one-shot */
	ck_assert_uint_eq(crc32c(crc32c(0, "1234", 4), "56789", 5), 0xE3069283u);
	ck_assert_uint_eq(record_writer_id("n1"), crc32c(0, "n1", 2));
	ck_assert_uint_ne(record_writer_id("n1"), record_writer_id("n2"));
}
END_TEST

#define RSIZE 4096u

static uint8_t *record(uint32_t size, const char *writer, uint64_t seq)
{
	uint8_t *buf = xmalloc(size);

	memset(buf, 0x5a, size);
	record_fill(buf, size, record_writer_id(writer), writer, seq, 1764756193000000000ull);
	return buf;
}

START_TEST(record_round_trip)
{
	static const uint32_t sizes[] = { RECORD_HDR_SIZE + 8, RECORD_HDR_SIZE + 13, 4096, 65536 };
	const uint64_t seqs[] = { 0, 1, 4095, 4096, 1ull << 40, UINT64_MAX - 1 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (size_t k = 0; k < sizeof(seqs) / sizeof(seqs[0]); k++) {
			uint8_t *buf = record(sizes[i], "n2", seqs[k]);
			uint64_t seq = 0;
			ck_assert_int_eq(record_check(buf, sizes[i], record_writer_id("n2"), &seq),
					 RECORD_OK);
			ck_assert_uint_eq(seq, seqs[k]);
			free(buf);
		}
	}
}
END_TEST

START_TEST(record_layout)
{
	uint8_t *buf = record(RSIZE, "takeover-node-with-a-very-long-name", 77);
	struct record_hdr h;

	memcpy(&h, buf, sizeof(h));
	/* "TKTREC01" at offset 0: recognisable in a hex dump of the shared disk */
	ck_assert_int_eq(memcmp(buf, "TKTREC01", 8), 0);
	ck_assert_uint_eq(h.seq, 77);
	ck_assert_uint_eq(h.record_size, RSIZE);
	ck_assert_uint_eq(h.stamp_ns, 1764756193000000000ull);
	/* the node name is cut to fit, and terminated */
	ck_assert_uint_eq(strnlen(h.node, sizeof(h.node)), sizeof(h.node) - 1);
	ck_assert(!strncmp(h.node, "takeover-node-with-a-ve", sizeof(h.node) - 1));
	free(buf);
}
END_TEST

/* The payload is a function of (writer, seq) alone: the verifier recomputes it. */
START_TEST(record_deterministic)
{
	uint8_t *a = record(RSIZE, "n1", 5), *b = xmalloc(RSIZE), *c = record(RSIZE, "n1", 6),
		*d = record(RSIZE, "n3", 5);

	record_fill(b, RSIZE, record_writer_id("n1"), "n1", 5, 1);
	ck_assert_int_eq(memcmp(a + RECORD_HDR_SIZE, b + RECORD_HDR_SIZE, RSIZE - RECORD_HDR_SIZE), 0);
	ck_assert_int_ne(memcmp(a + RECORD_HDR_SIZE, c + RECORD_HDR_SIZE, RSIZE - RECORD_HDR_SIZE), 0);
	ck_assert_int_ne(memcmp(a + RECORD_HDR_SIZE, d + RECORD_HDR_SIZE, RSIZE - RECORD_HDR_SIZE), 0);
	free(a);
	free(b);
	free(c);
	free(d);
}
END_TEST

#define SENTINEL 0xdeadbeefull

static enum record_check check_n2(const uint8_t *buf, uint32_t size, uint64_t *seq)
{
	*seq = SENTINEL;
	return record_check(buf, size, record_writer_id("n2"), seq);
}

START_TEST(record_failures)
{
	uint8_t *buf;
	uint64_t seq;

	/* never written */
	buf = xmalloc(RSIZE);
	memset(buf, 0, RSIZE);
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_EMPTY);
	ck_assert_uint_eq(seq, SENTINEL);
	/* zero magic but something further on: not empty */
	buf[RSIZE - 1] = 1;
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_BAD_MAGIC);
	free(buf);

	/* garbage, and a record whose magic lost a bit */
	buf = record(RSIZE, "n2", 9);
	buf[0] ^= 0x01;
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_BAD_MAGIC);
	ck_assert_uint_eq(seq, SENTINEL);
	free(buf);

	/* a header bit flipped (in seq): header CRC, and seq is not reported */
	buf = record(RSIZE, "n2", 9);
	buf[offsetof(struct record_hdr, seq)] ^= 0x10;
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_BAD_HDR);
	ck_assert_uint_eq(seq, SENTINEL);
	free(buf);
	/* ... or in the node name */
	buf = record(RSIZE, "n2", 9);
	buf[offsetof(struct record_hdr, node) + 1] ^= 0x20;
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_BAD_HDR);
	free(buf);

	/* another writer's record in our file (seq is known: the header is sound) */
	buf = record(RSIZE, "n3", 11);
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_BAD_WRITER);
	ck_assert_uint_eq(seq, 11);
	free(buf);

	/* a torn or corrupt payload: first byte, last byte */
	buf = record(RSIZE, "n2", 12);
	buf[RECORD_HDR_SIZE] ^= 0x80;
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_BAD_PAYLOAD);
	ck_assert_uint_eq(seq, 12);
	buf[RECORD_HDR_SIZE] ^= 0x80;
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_OK);
	buf[RSIZE - 1] ^= 0x01;
	ck_assert_int_eq(check_n2(buf, RSIZE, &seq), RECORD_BAD_PAYLOAD);
	free(buf);

	/* a record of another size (the file was written with other settings) */
	buf = xmalloc(2 * RSIZE);
	record_fill(buf, RSIZE, record_writer_id("n2"), "n2", 13, 0);
	ck_assert_int_eq(check_n2(buf, 2 * RSIZE, &seq), RECORD_BAD_SIZE);
	ck_assert_uint_eq(seq, 13);
	ck_assert_int_eq(check_n2(buf, RSIZE / 2, &seq), RECORD_BAD_SIZE);
	free(buf);
}
END_TEST

START_TEST(record_check_names)
{
	static const struct {
		enum record_check c;
		const char *name;
	} t[] = {
		{ RECORD_OK, "ok" },
		{ RECORD_EMPTY, "empty" },
		{ RECORD_BAD_MAGIC, "bad-magic" },
		{ RECORD_BAD_HDR, "bad-header-crc" },
		{ RECORD_BAD_SIZE, "bad-size" },
		{ RECORD_BAD_WRITER, "wrong-writer" },
		{ RECORD_BAD_PAYLOAD, "bad-payload-crc" },
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ck_assert_str_eq(record_check_name(t[i].c), t[i].name);
}
END_TEST

/* ---- /proc fields ---- */

START_TEST(proc_numbers)
{
	/* After the key, as the agent hands them over: meminfo, vmstat, /proc/stat, PSI. */
	uint64_t u[7];
	double d;
	const char *p;

	ck_assert_ptr_nonnull(wl_next_uint("       24683784 kB\n", &u[0]));
	ck_assert_uint_eq(u[0], 24683784);
	ck_assert_ptr_nonnull(wl_next_uint("0\n", &u[0]));
	ck_assert_uint_eq(u[0], 0);
	p = "  5961 141578 34458 44423 1249 0 201 368 0 0\n";
	for (int i = 0; i < 7; i++)
		ck_assert_ptr_nonnull(p = wl_next_uint(p, &u[i]));
	ck_assert_uint_eq(u[1], 141578);
	ck_assert_uint_eq(u[3], 44423);
	ck_assert_uint_eq(u[6], 201);
	ck_assert_ptr_nonnull(wl_next_double("12.34 avg60=0.00 avg300=0.00 total=0\n", &d));
	ck_assert_double_eq_tol(d, 12.34, 1e-9);
	/* What strtoull/sscanf turned into a silent 0 or a wrapped value is refused. */
	static const char *const bad[] = { "", "\n", "   \n", "kB\n", "-1\n", "12x kB\n",
					   "0x10\n", "184467440737095516160\n",
					   "123456789012345678901234567890123\n" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		u[0] = 42;
		ck_assert_msg(!wl_next_uint(bad[i], &u[0]), "accepted '%s'", bad[i]);
		ck_assert_uint_eq(u[0], 42);
	}
	ck_assert_ptr_null(wl_next_double("nan avg60=0.00\n", &d));
	/* A /proc/stat line cut short has fewer than seven counters. */
	p = " 5961 141578 34458\n";
	for (int i = 0; i < 7 && p; i++)
		p = wl_next_uint(p, &u[i]);
	ck_assert_ptr_null(p);
}
END_TEST

static Suite *proto_suite(void)
{
	Suite *s = suite_create("wire");
	TCase *enc = tcase_create("encoding");
	TCase *words = tcase_create("words");
	TCase *rec = tcase_create("record");

	tcase_set_timeout(enc, 30);
	tcase_set_timeout(words, 30);
	tcase_set_timeout(rec, 30);
	tcase_add_loop_test(enc, encode_each_byte, 0, 256);
	tcase_add_test(enc, round_trip_all_bytes);
	tcase_add_test(enc, encode_appends);
	tcase_add_test(enc, decode_valid);
	tcase_add_test(enc, decode_malformed);
	tcase_add_test(words, split_words);
	tcase_add_test(words, split_edges);
	tcase_add_test(words, get_encoded_values);
	tcase_add_test(words, message_round_trip);
	tcase_add_test(rec, crc32c_vectors);
	tcase_add_test(rec, record_round_trip);
	tcase_add_test(rec, record_layout);
	tcase_add_test(rec, record_deterministic);
	tcase_add_test(rec, record_failures);
	tcase_add_test(rec, record_check_names);
	tcase_add_test(rec, proc_numbers);
	suite_add_tcase(s, enc);
	suite_add_tcase(s, words);
	suite_add_tcase(s, rec);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(proto_suite());
	int failed;

	srunner_set_fork_status(sr, CK_FORK);
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
