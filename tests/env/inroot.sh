#!/bin/bash
# inroot.sh - run a command as root inside a Debian root made by mkroot.sh
# (a --copy of it: the command may change it), as on a machine of its own.
#
#   tests/env/inroot.sh ROOT [--proc] [--bind HOSTDIR DIR]... -- COMMAND [ARG...]
#
# Under bubblewrap: ROOT becomes /, with its own mount, ipc and uts
# namespaces, a minimal /dev, an empty /tmp and /run, and the host's
# network and DNS (for apt).  Not a chroot: inside, the root directory is
# the mount namespace's own, so sandboxed commands can create user
# namespaces as on a real machine.  /proc is the host's, not a fresh one:
# the kernel lets a nested pid namespace mount its own /proc only while
# some /proc in the mount namespace is wholly visible, and bubblewrap's
# --proc covers parts of it (sys, irq, bus) with read-only mounts.  So the
# root shares the host's pid namespace.  --proc runs it as users run
# bubblewrap instead: a pid namespace of its own with bubblewrap's --proc,
# parts of it covered (sbxrun then keeps that /proc, and says so).  Each
# --bind makes HOSTDIR
# visible, read-only, at DIR.  The environment is a clean login's.
set -eu

die() {
	echo "inroot: $*" >&2
	exit 1
}

[ $# -ge 3 ] || die "usage: inroot.sh ROOT [--bind HOSTDIR DIR]... -- COMMAND [ARG...]"
root=$1
shift
[ -x "$root/bin/sh" ] || die "$root is not a root made by tests/env/mkroot.sh"
command -v bwrap >/dev/null || die "bubblewrap is not installed"
[ "$(id -u)" = 0 ] || die "needs root (packages install as root)"

proc=(--bind /proc /proc)
binds=()
while [ $# -gt 0 ]; do
	case $1 in
	--) shift; break ;;
	--proc)
		proc=(--proc /proc --unshare-pid)
		shift
		;;
	--bind)
		[ $# -ge 3 ] || die "--bind needs HOSTDIR and DIR"
		binds+=(--ro-bind "$2" "$3")
		shift 3
		;;
	*) die "unknown option '$1'" ;;
	esac
done
[ $# -gt 0 ] || die "no command"
args=(--bind "$root" / "${proc[@]}" --dev /dev --perms 1777 --tmpfs /tmp --tmpfs /run
	--unshare-ipc --unshare-uts --hostname sbxrun-root --die-with-parent)
[ -f /etc/resolv.conf ] && args+=(--ro-bind /etc/resolv.conf /etc/resolv.conf)
args+=("${binds[@]}")
exec bwrap "${args[@]}" -- /usr/bin/env -i HOME=/root USER=root LOGNAME=root \
	PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	LANG=C.UTF-8 TERM=dumb "$@"
