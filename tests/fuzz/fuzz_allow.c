/*
 * fuzz_allow.c - libFuzzer target for network allow-list entries
 * (core/netallow.c), directly and through "net=allow:a,b,c".
 * An accepted entry must have a sane host, port and prefix, and must
 * never be a link-local or metadata address, in any spelling inet_pton
 * accepts (THREATS NET-07, NET-08).
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "policy.h"

static void check_entry(const struct sbx_net_allow *a)
{
	unsigned char b[16];
	int pfx;

	if (!a->text || !a->host || !a->host[0])
		abort();
	if (!a->is_cidr)
		return;
	pfx = a->prefix;
	if (inet_pton(AF_INET, a->host, b) == 1) {
		if (pfx < 0 || pfx > 32)
			abort();
		if (b[0] == 169 && b[1] == 254 && pfx >= 16)
			abort();
		return;
	}
	if (inet_pton(AF_INET6, a->host, b) != 1 || pfx < 0 || pfx > 128)
		abort();
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80 && pfx >= 10)
		abort();
	if (memcmp(b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0 &&
	    b[12] == 169 && b[13] == 254 && pfx >= 112)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sbx_policy p;
	struct sbx_err err;
	char *s = malloc(size + 11);

	if (!s)
		return 0;
	memcpy(s, "net=allow:", 10);
	memcpy(s + 10, data, size);
	s[size + 10] = '\0';
	sbx_policy_init(&p);
	if (sbx_policy_add_allow(&p, s + 10, (struct sbx_src){ "fuzz", 1 },
				 &err) == 0 &&
	    p.nallow != 1)
		abort();
	(void)sbx_conf_override(&p, s, &err);
	for (size_t i = 0; i < p.nallow; i++)
		check_entry(&p.allow[i]);
	sbx_policy_free(&p);
	free(s);
	return 0;
}
