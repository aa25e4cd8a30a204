#!/usr/bin/env bats
# Every refusal example in README.md, run for real and compared byte for
# byte: the README must show what sbxrun prints.  The README's user is
# ada, whose home and project do not exist here: /home/ada/proj becomes
# this test's project, /home/ada its home, and the installed profile
# directory the one under test, in the README's lines before comparing.

load ../lib/common

README="$SBX_TOP/README.md"

setup() { sbx_setup; }
teardown() { sbx_teardown; }

# The README's lines, with this test's paths.
localise() {
	sed -e "s|/home/ada/proj|$P|g" -e "s|/home/ada|$HOME|g" \
		-e "s|/usr/local/share/sbxrun/profiles|$SBXRUN_PROFILE_DIR|g"
}

# The examples: a "    $ sbxrun ..." line, then the output lines (four
# spaces in) up to the first line that is not.  One file per example:
# line 1 the command, then the expected output.
examples() {
	awk -v dir="$1" '
		/^    \$ sbxrun / { n++; f = dir "/ex" n; sub(/^    \$ /, ""); print > f; on = 1; next }
		on && /^    / { sub(/^    /, ""); print >> f; next }
		{ on = 0 }
	' "$README"
}

@test "README: every sbxrun example with output is what sbxrun prints" {
	require_kernel
	mkdir "$T/ex"
	examples "$T/ex"
	n=0
	for ex in "$T"/ex/ex*; do
		[ "$(wc -l < "$ex")" -gt 1 ] || continue # no output shown
		n=$((n + 1))
		cmd=$(head -1 "$ex")
		want=$(tail -n +2 "$ex" | localise)
		# the command's own errors (cat, the shell) are not sbxrun's
		got=$(eval "\"\$SBXRUN\" ${cmd#sbxrun }" 2>&1 | grep -vE '^(cat|/bin/sh): ')
		if [ "$got" != "$want" ]; then
			echo "README example: $cmd"
			diff <(echo "$want") <(echo "$got") || true
			return 1
		fi
	done
	# the run and the --check example at least
	[ "$n" -ge 2 ]
}

@test "README: the JSON report's refusal is what sbxrun reports" {
	require_kernel
	"$SBXRUN" --report "$T/r.json" -c 'cat ~/.ssh/id_rsa' 2>/dev/null || true
	# "key": "value" pairs of the refusal object in the README
	sed -n '/"refusals": \[/,/\]/p' "$README" | grep -oE '"[a-z]+": "[^"]*"' | localise > "$T/want"
	[ "$(wc -l < "$T/want")" -ge 7 ]
	while IFS= read -r kv; do
		key=${kv%%\":*}
		key=${key#\"}
		val=${kv#*\": \"}
		val=${val%\"}
		got=$(jq -r --arg k "$key" '.refusals[0][$k]' "$T/r.json")
		[ "$got" = "$val" ] || { echo "$key: README '$val', report '$got'"; return 1; }
	done < "$T/want"
}
