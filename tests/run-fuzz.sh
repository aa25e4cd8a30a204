#!/bin/sh
# Run each libFuzzer target for $1 seconds on its seed corpus (copied to a
# scratch dir so new inputs never land in the source tree).
set -eu
secs=$1
shift
top=${SBX_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
for f in "$@"; do
	name=$(basename "$f")
	work=$(mktemp -d)
	[ -d "$top/tests/fuzz/corpus/$name" ] && cp -r "$top/tests/fuzz/corpus/$name/." "$work/"
	echo "fuzz: $name for ${secs}s"
	"$f" -max_total_time="$secs" -print_final_stats=0 "$work" >"$work.log" 2>&1 || {
		tail -40 "$work.log"; rm -rf "$work" "$work.log"; exit 1; }
	grep "^Done" "$work.log" || tail -1 "$work.log"
	rm -rf "$work" "$work.log"
done
