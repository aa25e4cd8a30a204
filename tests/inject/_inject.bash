# Shared set-up of the injection recipes (tests/inject/*.bats): a home
# with canaries and a project (esc_setup), and sbxrun-sh for the kernel
# mode under test.
#
# SH is a two-line shell script named sbxrun-sh in $T/bin that runs
# `sbxrun --mode MODE --sh "$@"`: the tools get it as their shell exactly
# as a user's would get the installed link (SH_LINK, build/sbxrun-sh,
# used directly where the mode does not matter).  Refusals are judged
# from outside: canary absent, host files unchanged.

load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

SH_LINK="$SBX_BUILD/sbxrun-sh"


inject_setup() {
	esc_setup
	mkdir -p "$T/bin"
	printf '#!/bin/sh\nexec "%s" --mode %s --sh "$@"\n' "$SBXRUN" "$SBX_MODE" > "$T/bin/sbxrun-sh"
	chmod 755 "$T/bin/sbxrun-sh"
	SH="$T/bin/sbxrun-sh"
	export PATH="$T/bin:$PATH"
	printf '[user]\n\tname = Sandbox Tester\n\temail = tester@example.com\n[init]\n\tdefaultBranch = main\n' > "$HOME/.gitconfig"
	BASHRC_BEFORE=$(cat "$HOME/.bashrc")
}

inject_teardown() { esc_teardown; }

# The host's ~/.bashrc is as it was.
bashrc_unchanged() {
	[ "$(cat "$HOME/.bashrc")" = "$BASHRC_BEFORE" ] ||
		{ echo "~/.bashrc changed: $(cat "$HOME/.bashrc")" >&2; return 1; }
}
