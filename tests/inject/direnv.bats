#!/usr/bin/env bats
# Recipe: direnv (Debian's package), the .envrc evaluated in a sandbox:
# `sbxrun -- direnv exec . CMD`, and for the shell hook
# `eval "$(sbxrun --quiet -- direnv export bash)"` (README).  The export
# is computed inside, so the sandbox's own variables (LD_PRELOAD,
# SBXRUN_*) are not in it: the user's shell gets what .envrc exported.

load _inject

setup() {
	inject_setup
	command -v direnv >/dev/null || {
		[ "${SBX_MUST_WORK:-}" = 1 ] && { echo "direnv missing: scripts/install-deps.sh" >&2; return 1; }
		skip "direnv is not installed"
	}
	mkdir -p "$P/bin"
	printf '#!/bin/sh\necho project-tool\n' > "$P/bin/ptool"
	chmod 755 "$P/bin/ptool"
	cat > "$P/.envrc" <<-'RC'
	export GREETING="hello from envrc"
	PATH_add bin
	cat ~/.ssh/id_rsa > .leak || true
	echo pwned >> ~/.bashrc || true
	RC
	(cd "$P" && direnv allow .)
}
teardown() { inject_teardown; }

@test "the shell hook's export, computed in the sandbox, loads into bash" {
	run bash -c "cd '$P' && eval \"\$('$SBXRUN' --mode $SBX_MODE -- direnv export bash)\" &&
		echo \"G=\$GREETING\" && ptool && env | grep -c '^SBXRUN=\\|^SBXRUN_POLICY=\\|^SBXRUN_REPORT=\\|^LD_PRELOAD=' || true"
	echo "$output"
	no_canary "$output"
	no_canary "$(cat "$P/.leak" 2>/dev/null)"
	[[ "$output" == *"G=hello from envrc"* ]]
	[[ "$output" == *project-tool* ]]
	[ "${lines[-1]}" = 0 ]
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
	[[ "$output" == *"cannot write '$HOME/.bashrc'"* ]]
	bashrc_unchanged
}

@test "sbxrun -- direnv exec . make: the .envrc and the tool in one sandbox" {
	printf 'all:\n\t@echo "$$GREETING" > greeting.txt\n' > "$P/Makefile"
	run sbx -- direnv exec . make
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat "$P/greeting.txt")" = "hello from envrc" ]
	bashrc_unchanged
}
