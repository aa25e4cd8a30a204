#!/bin/sh
# build-deb.sh - build the Debian packages of this tree and check them.
#
#   scripts/build-deb.sh [OUTDIR]      (default OUTDIR: build/deb)
#
# Copies the tree (the files git knows, committed or not, without build/)
# to a scratch directory, runs dpkg-buildpackage -us -uc -b there with the
# debian/ directory (debhelper compat 13), checks the result with lintian
# (any error or warning fails; each accepted tag is overridden in debian/
# with its reason) and leaves sbxrun_*.deb, libsbx0_*.deb and
# libsbx-dev_*.deb in OUTDIR.  The tree itself is left alone: no make
# clean of build/, nothing written next to it.
#
# Needs the packages of scripts/install-deps.sh --package.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd -P)
out=${1:-$top/build/deb}

die() {
	echo "build-deb: $*" >&2
	exit 1
}

for t in dpkg-buildpackage dh lintian; do
	command -v "$t" >/dev/null ||
		die "$t is missing: run scripts/install-deps.sh --package"
done

# The package's version is the project's.
version=$(sed -n 's/^VERSION *:= *//p' "$top/GNUmakefile")
debversion=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
[ "$version" = "$debversion" ] ||
	die "GNUmakefile says $version, debian/changelog $debversion: add a debian/changelog entry"

work=$(mktemp -d "${TMPDIR:-/tmp}/sbxrun-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src="$work/sbxrun-$version"
mkdir "$src"
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		grep -zv '^build/' | xargs -0 tar -cf - --no-recursion --) |
		tar -C "$src" -xf -
else
	tar -C "$top" --exclude=./build --exclude=./.git -cf - . | tar -C "$src" -xf -
fi

echo "build-deb: dpkg-buildpackage in $src" >&2
(cd "$src" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}" \
	dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1 || {
	tail -40 "$work/build.log" >&2
	die "dpkg-buildpackage failed (the log's end is above)"
}

changes=$(ls "$work"/sbxrun_*.changes)
echo "build-deb: lintian $(basename "$changes")" >&2
lintian --fail-on error,warning --display-info "$changes" >&2 ||
	die "lintian found errors or warnings (above)"

mkdir -p "$out"
rm -f "$out"/*.deb
cp "$work"/*.deb "$out"/
ls "$out"/*.deb
