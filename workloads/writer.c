// SPDX-License-Identifier: GPL-2.0-only
/*
 * takeover-writer: sequence-numbered, checksummed records into one file on
 * the node's NFS mount, an fsync every --fsync-every records. A record counts
 * as acknowledged once an fsync (or, in sync/direct mode, its own write)
 * covering it returned success; the agent reports the counters, the verifier
 * later checks that every acknowledged record is on the server intact.
 *
 *   takeover-writer --name NAME --file PATH --file-size SIZE --record-size SIZE
 *                   --fsync-every N --mode buffered|direct|sync
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "record.h"
#include "wl_common.h"

struct writer {
	const char *name, *path;
	uint64_t file_size, record_size, fsync_every;
	int mode; /* 0 buffered, 1 direct, 2 sync */
	int fd;
	uint32_t id;
	struct progress_shm *p;
	void *buf;
};

static void usage(void)
{
	fprintf(stderr, "usage: takeover-writer --name NAME --file PATH --file-size SIZE "
			"--record-size SIZE --fsync-every N --mode buffered|direct|sync\n");
	exit(2);
}

static void parse(int argc, char **argv, struct writer *w)
{
	static const struct option lo[] = {
		{ "name", required_argument, NULL, 'n' },      { "file", required_argument, NULL, 'f' },
		{ "file-size", required_argument, NULL, 's' }, { "record-size", required_argument, NULL, 'r' },
		{ "fsync-every", required_argument, NULL, 'e' }, { "mode", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	w->fsync_every = 16;
	w->record_size = 65536;
	w->file_size = 256 << 20;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': w->name = optarg; break;
		case 'f': w->path = optarg; break;
		case 's': w->file_size = wl_size_arg("--file-size", optarg); break;
		case 'r': w->record_size = wl_size_arg("--record-size", optarg); break;
		case 'e': w->fsync_every = wl_uint_arg("--fsync-every", optarg); break;
		case 'm':
			w->mode = !strcmp(optarg, "buffered") ? 0 : !strcmp(optarg, "direct") ? 1
				: !strcmp(optarg, "sync") ? 2 : -1;
			if (w->mode < 0)
				usage();
			break;
		default: usage();
		}
	}
	if (!w->name || !w->path || w->record_size < 4096 || w->record_size % 4096 ||
	    w->file_size < w->record_size || !w->fsync_every)
		usage();
}

static void set_phase(struct writer *w, enum progress_phase ph)
{
	progress_begin(w->p);
	w->p->phase = ph;
	progress_end(w->p);
}

/* pwrite all of it: short writes and EINTR are continued, not errors. */
static int write_full(int fd, const char *buf, size_t len, off_t off)
{
	while (len) {
		ssize_t n = pwrite(fd, buf, len, off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		buf += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

static int fsync_retry(int fd)
{
	while (fsync(fd) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

static void acknowledge(struct writer *w, uint64_t records)
{
	progress_begin(w->p);
	w->p->acked_records = records;
	w->p->acked_bytes = records * w->record_size;
	w->p->last_ack_ms = wl_mono_ms();
	progress_end(w->p);
}

static void count_error(struct writer *w, const char *what, int err)
{
	fprintf(stderr, "takeover-writer %s: %s: %s\n", w->name, what, strerror(-err));
	progress_begin(w->p);
	w->p->errors++;
	w->p->phase = PHASE_ERROR;
	progress_end(w->p);
	sleep(1);
}

static void run(struct writer *w)
{
	uint64_t nslots = w->file_size / w->record_size;

	for (uint64_t seq = 0; !wl_stop_requested();) {
		record_fill(w->buf, (uint32_t)w->record_size, w->id, w->name, seq, wl_real_ns());
		set_phase(w, PHASE_WRITE);
		int r = write_full(w->fd, w->buf, w->record_size, (off_t)((seq % nslots) * w->record_size));
		if (r < 0) {
			count_error(w, "write", r);
			continue; /* the same record again */
		}
		progress_begin(w->p);
		w->p->records = seq + 1;
		w->p->bytes = (seq + 1) * w->record_size;
		progress_end(w->p);
		if (w->mode != 0)
			acknowledge(w, seq + 1); /* O_SYNC / O_DIRECT: durable when write returns */
		if ((seq + 1) % w->fsync_every == 0) {
			set_phase(w, PHASE_FSYNC);
			r = fsync_retry(w->fd);
			if (r < 0) {
				/*
				 * After a failed fsync nothing since the last ack is
				 * known durable: Linux may have dropped those dirty
				 * pages and a later fsync would not report it. Write
				 * them again, so that what the next fsync acknowledges
				 * was written after the failure.
				 */
				count_error(w, "fsync", r);
				seq = w->p->acked_records;
				continue;
			} else {
				progress_begin(w->p);
				w->p->fsyncs++;
				progress_end(w->p);
				acknowledge(w, seq + 1);
			}
		}
		seq++;
	}
	if (fsync_retry(w->fd) == 0)
		acknowledge(w, w->p->records);
	set_phase(w, PHASE_DONE);
}

int main(int argc, char **argv)
{
	struct writer w = { 0 };
	int flags = O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC;

	parse(argc, argv, &w);
	wl_install_stop();
	w.id = record_writer_id(w.name);
	w.p = progress_attach(PROGRESS_WRITER);
	if (!w.p || posix_memalign(&w.buf, 4096, w.record_size)) {
		fprintf(stderr, "takeover-writer: out of memory\n");
		return 1;
	}
	if (w.mode == 1)
		flags |= O_DIRECT;
	else if (w.mode == 2)
		flags |= O_SYNC;
	w.fd = open(w.path, flags, 0644);
	if (w.fd < 0) {
		fprintf(stderr, "takeover-writer: %s: %s\n", w.path, strerror(errno));
		set_phase(&w, PHASE_ERROR);
		return 1;
	}
	run(&w);
	close(w.fd);
	return 0;
}
