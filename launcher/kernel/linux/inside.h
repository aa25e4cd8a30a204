/*
 * inside.h - how a process knows it runs inside an sbxrun sandbox.
 *
 * The seccomp filter of every sandbox (tools/gen_seccomp.c) answers one
 * prctl(2) option no kernel has with an errno the kernel never gives for
 * it (an unknown option is EINVAL).  A filter cannot be removed, and only
 * the launcher loads this one, after Landlock: so the answer is the
 * kernel's word that this process descends from a sandboxed command.  An
 * environment variable, a file or an inherited descriptor could be set
 * up by the tool that spawns sbxrun-sh; this cannot.
 */
#ifndef SBX_LINUX_INSIDE_H
#define SBX_LINUX_INSIDE_H

#include <errno.h>

#define SBX_PRCTL_INSIDE 0x53425852u /* "SBXR" */
#define SBX_INSIDE_ERRNO ENOANO

#endif
