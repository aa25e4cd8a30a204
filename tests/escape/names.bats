#!/usr/bin/env bats
# Names the sandbox chooses reach the caller's terminal and clipboard
# only as text: sbxrun's advice is one shell word per path (review W-06),
# and nothing sbxrun prints about a name carries a control character
# (W-05).  Judged from outside: the advice is pasted into a real shell.

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

# The raw control bytes a terminal acts on (ESC, BEL, CR, the 8-bit CSI)
# in sbxrun's own lines (its lines and the summary's; the command's own
# error messages carry the name as they like).
no_controls() {
	if printf '%s\n' "$1" | grep -aE '^(sbxrun: |  )' |
		LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f\x9b]'; then
		echo "raw control characters in sbxrun's output: $(printf '%s' "$1" | od -c | head)" >&2
		return 1
	fi
}

# paste NAME: a write to $HOME/NAME is refused; the advice, pasted into
# bash as printed, runs no command of the sandbox's choosing and makes the
# retry succeed.
paste() {
	local name=$1 line fix
	run --separate-stderr sbx -- sh -c 'echo written > "$1"' sh "$HOME/$name"
	echo "first: $status $stderr"
	[ "$status" -ne 0 ]
	no_controls "$stderr"
	line=$(printf '%s\n' "$stderr" | grep -F -- "; to allow: sbxrun --allow-write ")
	fix=${line##*; to allow: sbxrun }
	[ "$fix" != "$line" ]
	# the advice as a user pastes it: into a shell
	run --separate-stderr bash -c "cd '$P' && \"\$0\" --mode $SBX_MODE $fix -- sh -c 'echo written > \"\$1\"' sh \"\$1\"" \
		"$SBXRUN" "$HOME/$name"
	echo "pasted $fix: $status $stderr"
	[ ! -e "$P/PWNED" ] && [ ! -e "$T/PWNED" ]
	[ "$status" -eq 0 ]
	[ "$(cat "$HOME/$name")" = written ]
}

@test "W-06 the 'to allow:' advice is one shell word: pasting it runs nothing else" {
	paste 'a;touch PWNED;b'
	paste 'c$(touch PWNED)d'
	paste "q'x y\`touch PWNED\`"
	paste 'sp ace|touch PWNED'
	paste 'plain-name.txt'
	# a plain path is printed as before, unquoted (README's examples)
	run --separate-stderr sbx -c 'echo x > ~/plain2'
	[[ "$stderr" == *"; to allow: sbxrun --allow-write $HOME/plain2"* ]]
}

@test "W-06 W-05 a name with control characters: printable advice that still works" {
	paste $'e\e]0;PWNED\a\e[2Jx'
	paste $'nl\nsbxrun: 0 refusals'
}

@test "W-06 a directory the command makes: the advice quotes the whole 'DIR/'" {
	run --separate-stderr sbx -c 'mkdir -p ~/"d;touch PWNED"/sub'
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"; to allow: sbxrun --allow-write '$HOME/d;touch PWNED/'"* ]]
	fix=$(printf '%s\n' "$stderr" | grep -F 'to allow:' | sed 's/.*; to allow: sbxrun //')
	run --separate-stderr bash -c "cd '$P' && \"\$0\" --mode $SBX_MODE $fix -c 'mkdir -p ~/\"d;touch PWNED\"/sub'" "$SBXRUN"
	echo "$status $stderr"
	[ "$status" -eq 0 ]
	[ ! -e "$P/PWNED" ]
	[ -d "$HOME/d;touch PWNED/sub" ]
}

@test "W-05 a repository made under a hostile name: the exit warning and summary stay printable" {
	command -v git >/dev/null || skip "no git"
	run --separate-stderr sbx -c 'mkdir -p "$(printf "x\n\033]0;PWNED\007\033[2Jsbxrun: 0 refusals")" && cd x* && git init -q . && echo > "$(printf "$HOME/y\033[2J")"'
	echo "$stderr" | od -c | head -30
	no_controls "$stderr"
	[[ "$stderr" == *"sbxrun: warning: '$P/x??]0;PWNED??[2Jsbxrun: 0 refusals/.git' was created during the run"* ]]
	[[ "$stderr" == *"write    $HOME/y?[2J (read-only"* ]]
}
