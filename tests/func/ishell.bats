#!/usr/bin/env bats
# The interactive sandboxed shell (sbxrun with no command, on a
# terminal): a marker in the prompt, history kept where the sandbox may
# write it, so saving it is no refusal.  Played on a pseudo-terminal.

load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

PTY="$BATS_TEST_DIRNAME/../lib/ptyrun.py"

shell_dir() { echo "$HOME/.cache/sbxrun/shell/$(ls "$HOME/.cache/sbxrun/shell")"; }

@test "bash: the prompt is marked, the history is saved inside, no .bash_history refusal" {
	hist_before=$(cat "$HOME/.bash_history")
	run python3 "$PTY" --send 'echo "sbx=$SBXRUN"' --send 'history -a; exit' -- \
		env SHELL=/bin/bash "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	no_canary "$output"
	[[ "$output" == *"(sbxrun) "*'echo "sbx=$SBXRUN"'* ]]
	[[ "$output" == *"sbx=1"* ]]
	[[ "$output" == *"EXIT 0"* ]]
	[[ "$output" != *"bash_history"* ]]
	[[ "$output" != *"refusal"* ]]
	d=$(shell_dir)
	grep -q 'echo "sbx=$SBXRUN"' "$d/bash_history"
	[ "$(cat "$HOME/.bash_history")" = "$hist_before" ]
	# The next shell has it.
	run python3 "$PTY" --send 'history | grep -c "sbx=" > count.txt; exit' -- \
		env SHELL=/bin/bash "$SBXRUN" --mode "$SBX_MODE"
	[ "$(cat "$P/count.txt")" -ge 1 ]
}

@test "zsh: the prompt is marked" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run python3 "$PTY" --send 'echo "sbx=$SBXRUN"' --send 'exit' -- \
		env SHELL="$(command -v zsh)" "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	[[ "$output" == *"(sbxrun) "* ]]
	[[ "$output" == *"sbx=1"* ]]
	[[ "$output" == *"EXIT 0"* ]]
}

@test "the shell's directory is the only new writable place, and a planted link is not written through" {
	run python3 "$PTY" --send 'echo x > ~/.cache/sbxrun/other; echo x > ~/.cache/sbxrun/shell/other; exit' -- \
		env SHELL=/bin/bash "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	[ ! -e "$HOME/.cache/sbxrun/other" ]
	[ ! -e "$HOME/.cache/sbxrun/shell/other" ]
	d=$(shell_dir)
	# The sandboxed shell replaces its rc file with a link to a host file.
	run python3 "$PTY" --send "rm -f '$d/bashrc' && ln -s '$HOME/.bashrc' '$d/bashrc' && echo planted; exit" -- \
		env SHELL=/bin/bash "$SBXRUN" --mode "$SBX_MODE"
	[[ "$output" == *planted* ]]
	[ -L "$d/bashrc" ]
	run python3 "$PTY" --send 'exit' -- env SHELL=/bin/bash "$SBXRUN" --mode "$SBX_MODE"
	[ "$(cat "$HOME/.bashrc")" = "# rc" ]
	[ ! -L "$d/bashrc" ]
}

@test "no place for the shell's history: the shell still runs, and says why once" {
	mkdir -p "$HOME/.cache/sbxrun"
	echo x > "$HOME/.cache/sbxrun/shell"
	run python3 "$PTY" --send 'echo "sbx=$SBXRUN"; exit' -- \
		env NO_COLOR=1 SHELL=/bin/bash "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	[[ "$output" == *"sbxrun: warning: the interactive shell runs without its own history and prompt mark: cannot make $HOME/.cache/sbxrun/shell/"*": Not a directory"* ]]
	[[ "$output" == *"sbx=1"* ]]
	[[ "$output" == *"EXIT 0"* ]]
}
