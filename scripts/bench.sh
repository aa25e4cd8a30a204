#!/bin/sh
# make bench: sbxrun against a bare run and against bubblewrap.
#
#   make bench                    (builds `all` and the probes first)
#   scripts/bench.sh              (after make)
#   BENCH_QUICK=1 scripts/bench.sh          a quick smoke run
#   BENCH_ONLY=startup,shim scripts/bench.sh    some groups only:
#       startup rss crosscheck shim exec make script git python rules layers phases
#       seccomp proxy
#
# Builds the benchmark programs of tests/bench/ into $SBX_BUILD/bench/
# (the GNUmakefile has no rule for them), makes sure bubblewrap is there
# (scripts/install-deps.sh installs it; without it the bwrap columns stay
# empty), then runs scripts/bench/bench.py, which prints the tables and
# writes $SBX_BUILD/bench.json and bench.txt (bench-partial.* for
# BENCH_ONLY / BENCH_QUICK runs).  Benchmarks report figures; they never
# fail on speed.  A full run takes about 5 minutes on 2 CPUs.
set -eu

top=${SBX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
build=${SBX_BUILD:-$top/build}
export SBX_TOP="$top" SBX_BUILD="$build"
out="$build/bench"
CC=${CC:-cc}
CFLAGS_BENCH="-std=gnu11 -O2 -g -Wall -Wextra -D_GNU_SOURCE"

for f in sbxrun libsbxshim.so; do
	if [ ! -e "$build/$f" ]; then
		echo "bench: $build/$f is missing; run make first (make bench does)" >&2
		exit 2
	fi
done
if ! command -v python3 >/dev/null 2>&1; then
	echo "bench: python3 is needed (scripts/install-deps.sh installs it)" >&2
	exit 2
fi

# ------------------------------------------------------------ programs
mkdir -p "$out"
build_one() {	# NAME [extra flags...]
	name=$1
	shift
	src="$top/tests/bench/$name.c"
	if [ ! -x "$out/$name" ] || [ -n "$(find "$src" -newer "$out/$name")" ]; then
		echo "  CC      tests/bench/$name.c"
		# shellcheck disable=SC2086
		$CC $CFLAGS_BENCH -o "$out/$name" "$src" "$@"
	fi
}
build_one tm
build_one shimloop -ldl
build_one execloop -ldl
build_one noshim -static
build_one sysloop -I"$build/gen"
build_one llfloor -I"$build/gen" -static

# ------------------------------------------------------------ bubblewrap
if [ "${BENCH_NO_BWRAP:-}" != 1 ] && ! command -v bwrap >/dev/null 2>&1; then
	echo "bench: bubblewrap (bwrap) is not installed; installing it with scripts/install-deps.sh"
	if ! "$top/scripts/install-deps.sh" || ! command -v bwrap >/dev/null 2>&1; then
		echo "bench: could not install bubblewrap: the bwrap columns will be empty" \
			"(install the 'bubblewrap' package to compare)"
	fi
fi

exec python3 "$top/scripts/bench/bench.py"
