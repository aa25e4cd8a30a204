#!/bin/bash
# Runs every test: unit (cmocka), CLI, shim, escape and functional suites
# (bats) in both kernel modes, the network proxy suite (tests/net, no
# kernel mode involved), as root and as an unprivileged user, then a
# short fuzzing smoke run.  Ends with one "N passed, N failed" line.
#
# Environment: SBX_BUILD (build dir), SBX_TOP (source dir), set by make.
# SBX_MUST_WORK=1 (the default under CI) turns every skip into a failure.
# .ci/run's sanitizer pass narrows the run to fit CI's 30 minutes:
# SBX_ROOT_ONLY=1 runs the root half only (the unprivileged half runs the
# same code under another uid), SBX_MODES the kernel modes of the shim,
# escape and func suites (default "full landlock-only"), SBX_NO_ENV=1
# leaves out tests/env (environments simulated, not new code paths).
set -u
: "${SBX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${SBX_BUILD:=$SBX_TOP/build}"
export SBX_TOP SBX_BUILD
[ "${CI:-}" = true ] && export SBX_MUST_WORK=1
export SBXRUN_PROFILE_DIR="$SBX_TOP/profiles"
pass=0 fail=0 skip=0
failed=()

note() { printf '\n== %s\n' "$*"; }

run_unit() {
	note "unit tests"
	for t in "$SBX_BUILD"/tests/test_*; do
		[ -x "$t" ] || continue
		if "$t"; then pass=$((pass + 1)); else
			fail=$((fail + 1)); failed+=("unit: $(basename "$t")"); fi
	done
}

# Run a bats suite and fold its TAP counts into ours.
run_bats() {	# label, user-or-empty, mode, dirs...
	local label=$1 user=$2 mode=$3 out
	shift 3
	local dirs=()
	for d in "$@"; do ls "$SBX_TOP/$d"/*.bats >/dev/null 2>&1 && dirs+=("$SBX_TOP/$d"); done
	[ ${#dirs[@]} -gt 0 ] || return 0
	note "$label"
	out=$(mktemp)
	if [ -n "$user" ]; then
		runuser -u "$user" -- env -i PATH="$PATH" HOME="$(getent passwd "$user" | cut -d: -f6)" \
			SBX_TOP="$SBX_TOP" SBX_BUILD="$SBX_BUILD" SBX_MODE="$mode" \
			SBX_MUST_WORK="${SBX_MUST_WORK:-}" SBXRUN_PROFILE_DIR="$SBXRUN_PROFILE_DIR" \
			ASAN_OPTIONS="${ASAN_OPTIONS:-}" LANG=C.UTF-8 \
			bats --tap "${dirs[@]}" 2>&1 | tee "$out"
	else
		SBX_MODE=$mode bats --tap "${dirs[@]}" 2>&1 | tee "$out"
	fi
	local ok nok sk
	ok=$(grep -E '^ok ' "$out" | grep -vc '# skip')
	sk=$(grep -E '^ok .*# skip' -c "$out")
	nok=$(grep -cE '^not ok ' "$out")
	pass=$((pass + ok)); fail=$((fail + nok)); skip=$((skip + sk))
	grep -E '^not ok ' "$out" | sed "s/^/$label: /" > "$out.f"
	while IFS= read -r l; do failed+=("$l"); done < "$out.f"
	if [ "${SBX_MUST_WORK:-}" = 1 ] && [ "$sk" -gt 0 ]; then
		fail=$((fail + sk)); failed+=("$label: $sk skipped (a skip is a failure here)")
	fi
	rm -f "$out" "$out.f"
}

test_user() {
	[ "$(id -u)" = 0 ] || return 1
	id sbxtest >/dev/null 2>&1 || useradd -m -s /bin/bash sbxtest >/dev/null 2>&1 || return 1
	echo sbxtest
}

# The checkout may sit under a directory the test user cannot enter
# (/root): give it a world-readable copy of what the suites need.
user_tree() {
	local d
	d=$(mktemp -d /var/tmp/sbxrun-usertests.XXXXXX) || return 1
	chmod 755 "$d"
	tar -C "$SBX_TOP" --exclude=./build --exclude=./.git -cf - . | tar -C "$d" -xf - &&
	cp -a "$SBX_BUILD" "$d/build" && chmod -R a+rX "$d" && echo "$d"
}

run_fuzz() {
	command -v clang >/dev/null || return 0
	note "fuzz smoke (${FUZZ_SMOKE_SECONDS:-5}s each)"
	if make -s -C "$SBX_TOP" fuzz FUZZ_SECONDS="${FUZZ_SMOKE_SECONDS:-5}"; then
		pass=$((pass + 1)); else fail=$((fail + 1)); failed+=("fuzz smoke"); fi
}

# A checkout under /tmp: landlock-only mode shares the host's /tmp, so
# sbxrun refuses to run its own program, shim and profiles from there (a
# command could rewrite them for the next run: CONF-04).  Run the suites
# from a copy under /var/tmp, as the unprivileged half does.
case "$SBX_TOP/" in
/tmp/*)
	if rt=$(user_tree); then
		note "checkout under /tmp: the suites run from a copy in $rt"
		SBX_TOP=$rt SBX_BUILD=$rt/build SBXRUN_PROFILE_DIR=$rt/profiles
		export SBX_TOP SBX_BUILD SBXRUN_PROFILE_DIR
		trap 'rm -rf "$rt"' EXIT
	fi
	;;
esac

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
run_unit
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1"
run_bats "cli+hook (root)" "" auto tests/cli tests/hook
run_bats "net (root)" "" auto tests/net
[ "${SBX_NO_ENV:-}" = 1 ] || run_bats "env (root)" "" auto tests/env
for mode in ${SBX_MODES:-full landlock-only}; do
	run_bats "shim+escape+func (root, $mode)" "" "$mode" tests/shim tests/escape tests/func tests/inject
done
if [ "${SBX_ROOT_ONLY:-}" = 1 ]; then
	note "SBX_ROOT_ONLY=1: the unprivileged user's half is not run"
elif u=$(test_user) && ut=$(user_tree); then
	( SBX_TOP=$ut SBX_BUILD=$ut/build SBXRUN_PROFILE_DIR=$ut/profiles
	  export SBX_TOP SBX_BUILD SBXRUN_PROFILE_DIR
	  run_bats "cli+hook ($u)" "$u" auto tests/cli tests/hook
	  run_bats "net ($u)" "$u" auto tests/net
	  run_bats "env ($u)" "$u" auto tests/env
	  for mode in full landlock-only; do
		run_bats "shim+escape+func ($u, $mode)" "$u" "$mode" tests/shim tests/escape tests/func tests/inject
	  done
	  echo "$pass $fail $skip" > "$ut/.counts"
	  printf '%s\n' "${failed[@]+"${failed[@]}"}" > "$ut/.failed" )
	read -r pass fail skip < "$ut/.counts"
	while IFS= read -r l; do [ -n "$l" ] && failed+=("$l"); done < "$ut/.failed"
	rm -rf "$ut"
elif [ "$(id -u)" = 0 ]; then
	fail=$((fail + 1)); failed+=("cannot create the unprivileged test user")
fi
[ "${SBX_NO_FUZZ:-}" = 1 ] || run_fuzz

note "summary"
for f in "${failed[@]+"${failed[@]}"}"; do echo "FAILED: $f"; done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
