#!/usr/bin/env bats
# Recipe: make SHELL=sbxrun-sh (README, "Injecting sbxrun").  Each recipe
# line runs in a sandbox of its own; make itself stays outside.  Or the
# whole of make in one sandbox, recipes without nesting.

load _inject

setup() {
	inject_setup
	cat > "$P/hello.c" <<'C'
#include <stdio.h>
int main(void) { puts("hello from make"); return 0; }
C
	cat > "$P/Makefile" <<'MK'
hello: hello.c
	gcc -O1 -o $@ $<
test: hello
	./hello > test.out
steal:
	cat ~/.ssh/id_rsa > stolen || true
	echo pwned >> ~/.bashrc
MK
}
teardown() { inject_teardown; }

@test "make SHELL=sbxrun-sh: gcc builds and the program runs, each recipe sandboxed" {
	run make SHELL="$SH" test
	echo "$output"
	[ "$status" -eq 0 ]
	[ -x "$P/hello" ]
	[ "$(cat "$P/test.out")" = "hello from make" ]
}

@test "make SHELL=sbxrun-sh: a recipe that reaches for secrets and dotfiles is refused" {
	run make SHELL="$SH" steal
	echo "$output"
	no_canary "$output"
	no_canary "$(cat "$P/stolen" 2>/dev/null)"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa': hidden by the sandbox policy"* ]]
	[[ "$output" == *"cannot write '$HOME/.bashrc': read-only in this sandbox"* ]]
	bashrc_unchanged
}

@test "make -j2 with .SHELLFLAGS=-ec and the installed link" {
	printf 'all: a b\na:\n\techo a > a.out\nb:\n\techo b > b.out\n\tfalse\n\techo never > c.out\n' > "$P/Makefile"
	run make -j2 SHELL="$SH_LINK" .SHELLFLAGS=-ec all
	[ "$status" -ne 0 ]
	[ "$(cat "$P/a.out")" = a ] && [ "$(cat "$P/b.out")" = b ]
	[ ! -e "$P/c.out" ]
}

@test "sbxrun -- make SHELL=sbxrun-sh: one sandbox for the whole of make" {
	run sbx -- make SHELL="$SH" test steal
	echo "$output"
	no_canary "$output"
	[ -x "$P/hello" ]
	[[ "$output" == *"cannot write '$HOME/.bashrc'"* ]]
	bashrc_unchanged
	# One run: the summary lists both refusals together, once.
	[ "$(grep -c 'refusals* in this run' <<<"$output")" -eq 1 ]
}
