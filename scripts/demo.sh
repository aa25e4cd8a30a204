#!/bin/sh
# The README's first command: build sbxrun and run a real command in the
# sandbox on the default profile, showing one refusal and its explanation.
# Exits non-zero when the sandboxed run fails: sbxrun itself failed (its
# JSON report says so), or the command did not run, or nothing was
# refused.  The command's own non-zero status is expected: its last write
# is refused.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make -s -j"$(nproc)"
proj=$(mktemp -d "${TMPDIR:-/tmp}/sbxrun-demo.XXXXXX")
report=$(mktemp "${TMPDIR:-/tmp}/sbxrun-demo-report.XXXXXX")
trap 'rm -rf "$proj" "$report"' EXIT
cd "$proj"
echo '$ sbxrun -c '"'"'echo hello > ok.txt; cat ok.txt; cat ~/.ssh/id_rsa; echo pwned >> ~/.bashrc'"'"''
rc=0
"$top/build/sbxrun" --report "$report" -c 'echo hello > ok.txt; cat ok.txt; cat ~/.ssh/id_rsa; echo pwned >> ~/.bashrc' || rc=$?
if ! grep -q '"sbxrun_failed": false' "$report"; then
	echo "demo: sbxrun itself failed (exit $rc)" >&2
	exit 1
fi
if [ "$(cat ok.txt 2>/dev/null)" != hello ]; then
	echo "demo: the command did not run in the sandbox" >&2
	exit 1
fi
if grep -q '"refusals": \[\]' "$report"; then
	echo "demo: nothing was refused: the sandbox did not hold" >&2
	exit 1
fi
echo "demo: ok: the command ran, its writes outside the project were refused (exit $rc)"
