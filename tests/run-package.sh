#!/bin/bash
# make check-package: the Debian packages built, installed with apt in a
# fresh Debian root and used there (tests/package/package.bats).  Needs
# root, scripts/install-deps.sh --package and the Debian mirror; the root
# is cached under /var/tmp between runs (tests/env/mkroot.sh).  Ends with
# one line of counts and the time it took, worded so that it is not taken
# for make check's closing "N passed, N failed" line when both run.
set -u
: "${SBX_TOP:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${SBX_BUILD:=$SBX_TOP/build}"
export SBX_TOP SBX_BUILD
if [ "$(id -u)" != 0 ]; then
	echo "check-package: needs root (debootstrap, apt in the fresh root)" >&2
	exit 1
fi
start=$(date +%s)
out=$(mktemp)
bats --tap "$SBX_TOP/tests/package" 2>&1 | tee "$out"
pass=$(grep -E '^ok ' "$out" | grep -vc '# skip')
fail=$(grep -cE '^not ok ' "$out")
skip=$(grep -cE '^ok .*# skip' "$out")
# A skip here is a failure: every test can run on a machine set up for it.
fail=$((fail + skip))
[ "$(grep -cE '^(not )?ok ' "$out")" -gt 0 ] || fail=$((fail + 1))
rm -f "$out"
echo "check-package: $pass of $((pass + fail)) tests passed, $fail failed, in $(($(date +%s) - start)) s"
[ "$fail" = 0 ]
