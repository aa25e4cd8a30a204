/*
 * seatbelt_int.h - between the parts of the Seatbelt generator:
 * seatbelt.c turns the path rules into a model (which roots decide
 * what, per class), seatbelt_put.c writes it, seatbelt_base.c writes the
 * fixed platform rules and the network rules around it.
 */
#ifndef SBX_SEATBELT_INT_H
#define SBX_SEATBELT_INT_H

#include <limits.h>
#include <stdio.h>

#include "seatbelt.h"

enum { CL_READ = 0, CL_WRITE = 1 };

#define N_NOEMIT 0x1u /* decided by the platform section (/dev) */

struct node {
	char *root; /* owned */
	size_t len;
	enum sbx_pmode mode;
	unsigned flags;
	const struct sbx_path_rule *rule; /* NULL: made here */
	const char *why; /* made here: why */
	int kept[2];
	long parent[2]; /* kept parent, -1: the default deny */
};

/* A directory on the way to a readable root inside a hidden one. */
struct trav {
	char *path;
	long owner; /* the kept read-deny node around it, or -1 */
};

struct gen {
	const struct sbx_policy *p;
	const struct sbx_seatbelt_opts *o;
	struct sbx_err *err;
	FILE *f;
	struct node *n;
	size_t nn, capn;
	struct trav *t;
	size_t nt, capt;
	char **unl; /* writable directories above protected paths */
	size_t nunl, capunl;
	char tmpdir[PATH_MAX]; /* "" when none */
	char workdir[PATH_MAX];
	int oom;
};

static inline int sbx_sb_within(const char *path, const struct node *n)
{
	return sbx_path_within(path, n->root, n->len);
}

static inline int sbx_sb_allows(const struct node *n, int c)
{
	return c == CL_READ ? n->mode != SBX_HIDE : n->mode == SBX_RW;
}

/* Write the whole profile for the model in g (seatbelt_put.c). */
void sbx_sb_put_all(struct gen *g);

/* The kept node that decides path in class c, or -1 (seatbelt.c). */
long sbx_sb_decider(const struct gen *g, int c, const char *path);

/* Processes, system information, mach services, devices, the terminal. */
void sbx_sb_platform(FILE *f);

/* The network section for p->net, the policy's unix sockets, and unix
 * sockets inside the project and the private temporary directory
 * (tmpdir, may be NULL). */
void sbx_sb_network(FILE *f, const struct sbx_policy *p,
		    const struct sbx_seatbelt_opts *o, const char *tmpdir);

/* Header notes the network section needs ("; NOTE: ..." lines). */
void sbx_sb_network_notes(FILE *f, const struct sbx_policy *p,
			  const struct sbx_seatbelt_opts *o);

#endif
