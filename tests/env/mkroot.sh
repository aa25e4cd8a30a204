#!/bin/sh
# A fresh minimal Debian root for tests that must see what a new user's
# machine sees (the package's install, the README's commands), built once
# with debootstrap and cached under /var/tmp between runs.
#
#   tests/env/mkroot.sh                 print the cached root (build it first if needed)
#   tests/env/mkroot.sh --copy DIR      a throw-away writable copy of it in DIR
#   tests/env/mkroot.sh --refresh       rebuild the cache
#
# Environment: SBX_ROOT_SUITE (bookworm), SBX_ROOT_MIRROR (default: the
# mirror this machine's apt uses for that suite), SBX_ROOT_CACHE
# (/var/tmp/sbxrun-roots).  Needs root and debootstrap.  The cache is
# never changed by a test: use --copy, then run commands in the copy with
# tests/env/inroot.sh.
set -eu

die() {
	echo "mkroot: $*" >&2
	exit 1
}

suite=${SBX_ROOT_SUITE:-bookworm}
cache=${SBX_ROOT_CACHE:-/var/tmp/sbxrun-roots}
# The mirror as apt is set up here: " 500 URL SUITE/main ARCH Packages".
mirror=${SBX_ROOT_MIRROR:-$(apt-cache policy 2>/dev/null |
	awk -v s="$suite/main" '$3 == s { print $2; exit }')}
[ -n "$mirror" ] || die "no apt source for $suite/main here: set SBX_ROOT_MIRROR"
root="$cache/$suite-minbase"
stamp="$root/.sbxrun-root"
want="debootstrap --variant=minbase $suite $mirror"

build() {
	[ "$(id -u)" = 0 ] || die "debootstrap needs root"
	command -v debootstrap >/dev/null ||
		die "debootstrap is not installed (scripts/install-deps.sh --package)"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/.build.XXXXXX")
	echo "mkroot: $want (a few minutes, once)" >&2
	if ! debootstrap --variant=minbase "$suite" "$tmp" "$mirror" >"$tmp.log" 2>&1; then
		tail -20 "$tmp.log" >&2
		rm -rf "$tmp" "$tmp.log"
		die "debootstrap failed"
	fi
	rm -f "$tmp.log"
	chmod 755 "$tmp" # mktemp made it 0700; it is a machine's /
	# Nothing downloaded again by a test that installs into a copy.
	rm -f "$tmp"/var/cache/apt/archives/*.deb
	echo "$want" >"$tmp/.sbxrun-root"
	rm -rf "$root"
	mv "$tmp" "$root"
}

ensure() {
	# One builder at a time; a second caller waits, then reuses.
	mkdir -p "$cache"
	exec 9>"$cache/.lock"
	flock 9
	if [ "${refresh:-}" = 1 ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
		build
	fi
	flock -u 9
}

case "${1:-}" in
--refresh)
	refresh=1
	ensure
	echo "$root"
	;;
--copy)
	[ $# = 2 ] || die "usage: mkroot.sh --copy DIR"
	ensure
	[ ! -e "$2" ] || [ -z "$(ls -A "$2")" ] || die "$2 is not empty"
	mkdir -p "$2"
	cp -a "$root/." "$2/"
	chmod 755 "$2"
	echo "$2"
	;;
"")
	ensure
	echo "$root"
	;;
*)
	die "usage: mkroot.sh [--refresh | --copy DIR]"
	;;
esac
