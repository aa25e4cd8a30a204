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

# Job control.  The shell leads its own process group, the terminal's
# foreground group, made inside the pid namespace (child.c's
# take_terminal): Ctrl-C and Ctrl-Z reach the foreground job only, and the
# shell's exit status is the run's.
C_C='\x03'
C_Z='\x1a'

@test "dash: job control on the terminal, Ctrl-C stops the job not the shell, exit status passes" {
	command -v dash >/dev/null || skip "dash is not installed"
	run python3 "$PTY" --send 'echo "sbx=$SBXRUN"' --send 'sleep 30' --key "$C_C" \
		--send 'echo "after=$?"' --send 'exit 3' -- \
		env SHELL="$(command -v dash)" "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	[[ "$output" == *"(sbxrun) "* ]]
	[[ "$output" == *"sbx=1"* ]]
	[[ "$output" == *"after=130"* ]]
	# It used to set the caller's group (0 inside the namespace) back
	# as the foreground group on exit, and fail.
	[[ "$output" != *"Cannot set tty process group"* ]]
	[[ "$output" != *"job control turned off"* ]]
	[[ "$output" == *"EXIT 3"* ]]
}

@test "bash: background job, fg, Ctrl-Z, fg, Ctrl-C; SIGWINCH reaches the shell" {
	run python3 "$PTY" --timeout 40 \
		--send "trap 'echo got-winch' WINCH" --winsize 41x101 --send 'stty size' \
		--send 'sleep 30' --key "$C_C" --send 'echo "after=$?"' \
		--send 'sleep 31 &' --send 'fg' --key "$C_Z" --send 'jobs' \
		--send 'fg' --key "$C_C" --send 'echo "fg=$?"' --send 'exit 4' -- \
		env SHELL=/bin/bash "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	[[ "$output" == *"got-winch"* ]]
	[[ "$output" == *"41 101"* ]]
	[[ "$output" == *"after=130"* ]]
	[[ "$output" == *"Stopped"*"sleep 31"* ]]
	[[ "$output" == *"fg=130"* ]]
	[[ "$output" != *"no job control"* ]]
	[[ "$output" != *"cannot set terminal process group"* ]]
	[[ "$output" == *"EXIT 4"* ]]
}

@test "after the shell the terminal belongs to the caller's process group again" {
	# Not given back, the shell around sbxrun would be a background
	# group: its read stops (SIGTTIN) or fails, and GOT never shows the
	# line typed after the sandboxed shell ended.
	run python3 "$PTY" --send 'exit 0' --send 'typed-after' -- bash -c \
		"SHELL=/bin/bash $(printf '%q' "$SBXRUN") --mode $SBX_MODE; echo \"rc=\$?\"; read -t 5 l; echo \"GOT:[\$l]\""
	echo "$output"
	[[ "$output" == *"rc=0"* ]]
	[[ "$output" == *"GOT:[typed-after]"* ]]
}

@test "started in the background the shell waits for fg, then has the terminal; the caller's shell has it back after" {
	# The sandboxed shell asks for the terminal (SIGTTIN) and stops;
	# sbxrun stops with it, so the caller's shell sees the job stopped
	# and fg continues it.  In full mode the shell used to believe it
	# was in the foreground (its group and the terminal's both 0 in the
	# pid namespace) and took the terminal at once.
	run python3 "$PTY" --timeout 30 --send 'echo "in=$SBXRUN"' --send 'exit 7' --send 'typed-after' -- bash -c \
		"set -m; SHELL=/bin/bash $(printf '%q' "$SBXRUN") --mode $SBX_MODE & sleep 2; echo bg-waited; jobs; fg; echo \"fg-rc=\$?\"; read -t 5 l; echo \"GOT:[\$l]\""
	echo "$output"
	[[ "$output" == *"bg-waited"*"Stopped"*"in=1"* ]]
	[[ "$output" != *"(sbxrun) "*"bg-waited"* ]]
	[[ "$output" == *"fg-rc=7"* ]]
	[[ "$output" == *"GOT:[typed-after]"* ]]
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

@test "zsh: job control, Ctrl-C to the foreground job, exit status passes" {
	command -v zsh >/dev/null || skip "zsh is not installed"
	run python3 "$PTY" --send 'sleep 30' --key "$C_C" --send 'echo "after=$?"' \
		--send 'sleep 31 &' --send 'fg' --key "$C_C" --send 'echo "fg=$?"' --send 'exit 6' -- \
		env SHELL="$(command -v zsh)" "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	[[ "$output" == *"after=130"* ]]
	[[ "$output" == *"fg=130"* ]]
	[[ "$output" != *"can't set tty pgrp"* ]]
	[[ "$output" == *"EXIT 6"* ]]
}

@test "fish: starts with the prompt marked, its config and history in the shell's directory" {
	command -v fish >/dev/null || skip "fish is not installed"
	mkdir -p "$HOME/.config/fish"
	echo 'set -g sbx_user_conf yes' > "$HOME/.config/fish/config.fish"
	run python3 "$PTY" --timeout 30 --send 'echo "sbx=$SBXRUN conf=$sbx_user_conf xdg=[$XDG_CONFIG_HOME]"' \
		--send 'sleep 30' --key "$C_C" --send 'echo "after=$status"' --send 'exit 5' -- \
		env -u XDG_CONFIG_HOME -u XDG_DATA_HOME SHELL="$(command -v fish)" "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	no_canary "$output"
	[[ "$output" == *"(sbxrun) "* ]]
	[[ "$output" == *"sbx=1 conf=yes xdg=[]"* ]]
	[[ "$output" == *"after=130"* ]]
	[[ "$output" != *"config/fish"* ]]
	[[ "$output" != *"Read-only file system"* ]]
	# not even fish_update_completions on the first prompt
	[[ "$output" != *"refusal"* ]]
	[[ "$output" == *"EXIT 5"* ]]
	d=$(shell_dir)
	grep -q 'sbx=$SBXRUN' "$d/fish/fish_history"
	[ "$(cat "$HOME/.config/fish/config.fish")" = 'set -g sbx_user_conf yes' ]
	# A link planted where the config goes is replaced, never followed.
	run python3 "$PTY" --send "rm -rf '$d/fish'; ln -s '$HOME/.config/fish' '$d/fish'; exit" -- \
		env SHELL="$(command -v fish)" "$SBXRUN" --mode "$SBX_MODE"
	[ -L "$d/fish" ]
	run python3 "$PTY" --send 'exit' -- env SHELL="$(command -v fish)" "$SBXRUN" --mode "$SBX_MODE"
	[ ! -L "$d/fish" ]
	[ "$(cat "$HOME/.config/fish/config.fish")" = 'set -g sbx_user_conf yes' ]
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
