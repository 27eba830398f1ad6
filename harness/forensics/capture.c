// SPDX-License-Identifier: GPL-2.0-only
#include "forensics/capture.h"

#include <errno.h>
#include <linux/input-event-codes.h>
#include <libvirt/virterror.h>

#include "util/log.h"

static int keycode(char key)
{
	static const int letters[26] = {
		KEY_A, KEY_B, KEY_C, KEY_D, KEY_E, KEY_F, KEY_G, KEY_H, KEY_I, KEY_J, KEY_K, KEY_L, KEY_M,
		KEY_N, KEY_O, KEY_P, KEY_Q, KEY_R, KEY_S, KEY_T, KEY_U, KEY_V, KEY_W, KEY_X, KEY_Y, KEY_Z,
	};
	static const int digits[10] = { KEY_0, KEY_1, KEY_2, KEY_3, KEY_4,
					 KEY_5, KEY_6, KEY_7, KEY_8, KEY_9 };

	if (key >= 'a' && key <= 'z')
		return letters[key - 'a'];
	if (key >= '0' && key <= '9')
		return digits[key - '0'];
	return -1;
}

int capture_sysrq(virConnectPtr conn, const char *domain, char key)
{
	unsigned int keys[3] = { KEY_LEFTALT, KEY_SYSRQ, 0 };
	int code = keycode(key);

	if (code < 0)
		return -EINVAL;
	keys[2] = (unsigned int)code;
	_cleanup_domain_ virDomainPtr d = virDomainLookupByName(conn, domain);
	if (!d) {
		log_error("sysrq-%c: no domain %s: %s", key, domain, virGetLastErrorMessage());
		return -ENOENT;
	}
	if (virDomainSendKey(d, VIR_KEYCODE_SET_LINUX, 100, keys, 3, 0) < 0) {
		log_error("sysrq-%c to %s: %s", key, domain, virGetLastErrorMessage());
		return -EIO;
	}
	return 0;
}

int capture_cpu_ns(virConnectPtr conn, const char *domain, uint64_t *ns)
{
	virDomainInfo info;
	_cleanup_domain_ virDomainPtr d = virDomainLookupByName(conn, domain);

	if (!d)
		return -ENOENT;
	if (virDomainGetInfo(d, &info) < 0)
		return -EIO;
	*ns = info.cpuTime;
	return 0;
}

int capture_vmcore(virConnectPtr conn, const char *domain, const char *path)
{
	_cleanup_domain_ virDomainPtr d = virDomainLookupByName(conn, domain);

	if (!d) {
		log_error("vmcore: no domain %s: %s", domain, virGetLastErrorMessage());
		return -ENOENT;
	}
	/* Memory only: an ELF core of guest RAM with vmcoreinfo, which crash(8) reads. */
	if (virDomainCoreDumpWithFormat(d, path, VIR_DOMAIN_CORE_DUMP_FORMAT_RAW, VIR_DUMP_MEMORY_ONLY) < 0) {
		log_error("vmcore of %s: %s", domain, virGetLastErrorMessage());
		return -EIO;
	}
	return 0;
}

void cpu_ring_add(struct cpu_ring *r, uint64_t t, uint64_t ns)
{
	r->t[r->head] = t;
	r->ns[r->head] = ns;
	r->head = (r->head + 1) % CPU_RING;
	if (r->n < CPU_RING)
		r->n++;
}

/* Index of the sample nearest to t. */
static int nearest(const struct cpu_ring *r, uint64_t t)
{
	int best = -1;
	uint64_t bd = UINT64_MAX;

	for (unsigned i = 0; i < r->n; i++) {
		uint64_t d = r->t[i] > t ? r->t[i] - t : t - r->t[i];
		if (d < bd) {
			bd = d;
			best = (int)i;
		}
	}
	return best;
}

double cpu_ring_busy(const struct cpu_ring *r, uint64_t t0, uint64_t t1, double *window_s)
{
	int a = nearest(r, t0), b = nearest(r, t1);

	*window_s = 0;
	if (a < 0 || b < 0 || r->t[b] <= r->t[a] || r->ns[b] < r->ns[a])
		return -1;
	*window_s = (double)(r->t[b] - r->t[a]) / 1000.0;
	return (double)(r->ns[b] - r->ns[a]) / 1e6 / (double)(r->t[b] - r->t[a]);
}
