/*
 * cpol.h - the compiled policy: what the launcher hands the shim.
 *
 * One flat little-endian buffer with no pointers, so it can live in a file
 * or a sealed memfd and be mapped read-only at any address.  Every string
 * is an offset into the string table.  The reader validates the whole
 * structure once (magic, version, the size recorded against the real one,
 * every section inside the buffer without wrap-around, every count, index,
 * enum and string offset, the string table terminated, the rules' order)
 * and after that lookups touch no memory outside it and never allocate.
 * A buffer that fails validation is ignored by the shim: the shim can only
 * lose explanations, never widen access -- the kernel is the boundary.
 *
 * No checksum (v4 had an XXH3-64 of the whole file, a quarter of the
 * shim's constructor in every program): a hash is no MAC, whoever can
 * write the file can recompute it, so it only ever caught accidental
 * damage.  The file is content-addressed, written once and never
 * writable from inside (rundir.c: 0444, a store out of the sandbox's
 * writable roots, reused only when its bytes are equal; full mode binds
 * it alone read-only), and the shim reads it into a private read-only
 * copy before validating.  Damage that keeps the structure valid can
 * change what the shim explains, never what the kernel allows.
 */
#ifndef SBX_CPOL_H
#define SBX_CPOL_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

#define SBX_CPOL_MAGIC "SBXPOL\0" /* 8 bytes with the NUL */
#define SBX_CPOL_VERSION 5u
#define SBX_CPOL_MAX_BYTES (4u << 20)
#define SBX_CPOL_MAX_RULES 8192u
#define SBX_CPOL_MAX_EXEC 1024u
#define SBX_CPOL_MAX_ALLOW 1024u
#define SBX_CPOL_MAX_SOCK 256u
#define SBX_CPOL_MAX_SFX (SBX_CPOL_MAX_RULES * SBX_MAX_SUFFIXES)
#define SBX_CPOL_MAX_ROOTLEN 0xffffu

/* Header flags */
#define SBX_CPOL_F_QUIET 0x1u /* no messages on stderr */
#define SBX_CPOL_F_REPORT_ONLY 0x2u /* messages to the report only */
#define SBX_CPOL_F_APPRULES 0x4u /* some rule has suffixes/max bytes */
#define SBX_CPOL_F_SHIM_PROTECT \
	0x8u /* protect rules enforced by the shim
					 * (landlock-only mode) */

#define SBX_CPOL_F_CACHES \
	0x10u /* tools' caches redirected to the project's sandbox cache \
	       * (redirect_caches): explain.c's hint for a host cache */
#define SBX_CPOL_F_ALL 0x1fu /* every flag above: the reader refuses others */

struct sbx_cpol_hdr {
	char magic[8];
	uint32_t version;
	uint32_t size; /* whole buffer, header included */
	uint64_t reserved2; /* 0 (v4: a checksum) */
	uint32_t flags;
	uint32_t net; /* enum sbx_net */
	uint32_t nrules, off_rules;
	uint32_t nexec, off_exec;
	uint32_t nallow, off_allow;
	uint32_t nsock, off_sock; /* uint32_t string offsets */
	uint32_t nsfx, off_sfx; /* uint32_t string offsets: every rule's
				 * suffixes, end to end */
	uint32_t off_bloom; /* SBX_CPOL_BLOOM_WORDS: the hide filter */
	uint32_t reserved; /* 0 */
	uint32_t off_strings, len_strings;
	uint32_t project; /* string offsets */
	uint32_t home;
	uint32_t profile;
	uint32_t kmode; /* enum sbx_kmode actually in force */
	uint64_t fsize_limit; /* RLIMIT_FSIZE in force, 0 none */
	uint32_t net_src_file; /* where network.mode was set */
	uint32_t net_src_line;
};

/* 32 bytes: a policy has hundreds of rules (every hidden name under
 * every home) and the shim reads and validates them in every process it
 * starts, so a rule's suffixes live in the shared suffix list, not in
 * slots. */
struct sbx_cpol_rule {
	uint32_t root; /* string offset */
	uint16_t rootlen; /* at most SBX_CPOL_MAX_ROOTLEN */
	uint8_t mode; /* enum sbx_pmode */
	uint8_t nsuffixes; /* at most SBX_MAX_SUFFIXES */
	uint32_t flags; /* SBX_RF_* */
	uint32_t suffixes; /* index of its first in the suffix list */
	uint32_t src_file;
	uint32_t src_line;
	uint64_t max_file_bytes;
};

struct sbx_cpol_exec {
	uint32_t program;
	uint32_t nargs;
	uint32_t args[SBX_MAX_EXEC_ARGS];
	uint32_t reason;
	uint32_t src_file;
	uint32_t src_line;
};

struct sbx_cpol_allow {
	uint32_t text; /* as written */
	uint32_t host; /* a name, "*.domain", or an address */
	uint32_t is_cidr; /* host is an address, prefix its length */
	uint32_t prefix;
	uint32_t port; /* 0: any */
	uint32_t preset; /* "npm" for an entry from "@npm", else "" */
	uint32_t src_file;
	uint32_t src_line;
};

/* A validated view.  Plain struct so the shim can keep one in static
 * storage; filled by sbx_cpol_view(). */
struct sbx_cpol {
	const unsigned char *base;
	const struct sbx_cpol_hdr *hdr;
	const struct sbx_cpol_rule *rules;
	const struct sbx_cpol_exec *exec;
	const struct sbx_cpol_allow *allow;
	const uint32_t *sock;
	const uint32_t *sfx;
	const uint64_t *bloom; /* SBX_CPOL_BLOOM_WORDS */
	const char *str;
};

/* Writer: allocates *buf (free with free()). */
int sbx_cpol_build(const struct sbx_policy *p, enum sbx_kmode kmode,
		   unsigned flags, void **buf, size_t *len,
		   struct sbx_err *err);

/* Reader: validates buf and fills v.  Returns 0, or -1 with a short static
 * reason in *why.  No allocation, no syscalls. */
int sbx_cpol_view(const void *buf, size_t len, struct sbx_cpol *v,
		  const char **why);

static inline const char *sbx_cpol_str(const struct sbx_cpol *v, uint32_t off)
{
	return v->str + off;
}

/*
 * The hide filter: a Bloom filter over the last component of every hide
 * rule's root, all ones when one is "/" (no last component).  The shim
 * asks it whether a missing relative path can have anything to explain
 * (a false hit costs a lookup; a miss only ever skips an explanation).
 * The writer computes it: the shim would otherwise hash every hidden
 * name in every process it starts.  Two bits of 4096 per name: the
 * default profile hides well over a hundred names.
 */
#define SBX_CPOL_BLOOM_WORDS 64

static inline uint32_t sbx_cpol_name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static inline void sbx_cpol_bloom_add(uint64_t bloom[SBX_CPOL_BLOOM_WORDS],
				      uint32_t h)
{
	bloom[(h >> 6) & 63] |= 1ull << (h & 63);
	bloom[(h >> 18) & 63] |= 1ull << ((h >> 12) & 63);
}

static inline int sbx_cpol_bloom_has(const uint64_t bloom[SBX_CPOL_BLOOM_WORDS],
				     uint32_t h)
{
	return (bloom[(h >> 6) & 63] >> (h & 63) & 1) &&
	       (bloom[(h >> 18) & 63] >> ((h >> 12) & 63) & 1);
}

/* Suffix i (< r->nsuffixes) of rule r. */
static inline const char *sbx_cpol_suffix(const struct sbx_cpol *v,
					  const struct sbx_cpol_rule *r,
					  uint32_t i)
{
	return v->str + v->sfx[r->suffixes + i];
}

/* The rule that decides for path: the longest root that contains it, at
 * equal length the strongest mode (the writer's order makes that the
 * first match).  Decisions are decide.h's. */
const struct sbx_cpol_rule *sbx_cpol_match(const struct sbx_cpol *v,
					   const char *path);

#endif
