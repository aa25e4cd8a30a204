#!/bin/sh
# The README's first command: build sbxrun and run a real command in the
# sandbox on the default profile, showing one refusal and its explanation.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
make -s -j"$(nproc)"
proj=$(mktemp -d "${TMPDIR:-/tmp}/sbxrun-demo.XXXXXX")
trap 'rm -rf "$proj"' EXIT
cd "$proj"
echo '$ sbxrun -c '"'"'echo hello > ok.txt; cat ok.txt; cat ~/.ssh/id_rsa; echo pwned >> ~/.bashrc'"'"''
"$top/build/sbxrun" -c 'echo hello > ok.txt; cat ok.txt; cat ~/.ssh/id_rsa; echo pwned >> ~/.bashrc' || true
