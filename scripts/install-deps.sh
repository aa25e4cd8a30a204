#!/bin/sh
# Install every Debian/Ubuntu package sbxrun needs to build, test, fuzz and
# benchmark.  Non-interactive and idempotent: run it as often as you like.
#   scripts/install-deps.sh            build + test dependencies
#   scripts/install-deps.sh --package  also what make check-package needs
#                                      (the Debian package and a fresh root)
set -eu

# pre-commit and direnv are tools the injection recipes are tested with
# (tests/inject), and so are yarn and pnpm, from the npm registry below;
# scdoc builds the man pages; man-db renders them in the tests; zsh and
# fish load the generated completions in the tests.
PKGS="build-essential pkg-config clang libclang-rt-14-dev clang-format
libconfig-dev libxxhash-dev libseccomp-dev libjansson-dev libcmocka-dev
libc-ares-dev libhttp-parser-dev
bats jq git make python3 busybox-static bubblewrap iproute2 procps util-linux
passwd tar curl openssl scdoc man-db zsh fish pre-commit direnv"
case "${1:-}" in
--package) PKGS="$PKGS debhelper dpkg-dev fakeroot lintian debootstrap" ;;
"") ;;
*) echo "usage: install-deps.sh [--package]" >&2; exit 2 ;;
esac

# yarn and pnpm for the npm-scripts recipe: not packaged in Debian
# (yarnpkg would replace the machine's node with Debian's).
npm_tools() {
	command -v npm >/dev/null || return 0
	for t in yarn pnpm; do
		command -v "$t" >/dev/null && continue
		echo "install-deps: npm install -g yarn@1 pnpm@9"
		$SUDO npm install -g --no-fund --no-audit yarn@1 pnpm@9 >/dev/null
		return
	done
}

SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -z "$missing" ]; then
	npm_tools
	echo "install-deps: everything is installed"
	exit 0
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
npm_tools
