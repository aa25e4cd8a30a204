#!/usr/bin/env bats
# sbxrun-sh itself: /bin/sh's arguments, a sandbox per call outside one,
# the shell as it is inside one, and no way to talk it out of the sandbox.

load _inject

setup() { inject_setup; }
teardown() { inject_teardown; }

@test "sbxrun-sh -c: the command runs sandboxed, a refusal explained" {
	run "$SH" -c 'echo built > out; cat ~/.ssh/id_rsa; echo x >> ~/.bashrc'
	echo "$output"
	no_canary "$output"
	[ "$status" -ne 0 ]
	[ "$(cat "$P/out")" = built ]
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa': hidden by the sandbox policy"* ]]
	[[ "$output" == *"cannot write '$HOME/.bashrc'"* ]]
	bashrc_unchanged
}

@test "sbxrun-sh FILE ARGS and -e FILE: sh's own argument conventions" {
	printf 'echo "args: $0 $1 $2"\nfalse\necho after-false\n' > "$P/step.sh"
	run "$SH" step.sh one two
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"args: step.sh one two"* ]]
	[[ "$output" == *after-false* ]]
	run "$SH" -e step.sh one two
	[ "$status" -eq 1 ]
	[[ "$output" != *after-false* ]]
	# Standard input is the script when there is no argument.
	run sh -c "echo 'echo from-stdin \$SBXRUN' | '$SH'"
	[ "$output" = "from-stdin 1" ]
}

@test "sbxrun-sh: the installed name dispatches on argv[0], sbxrun --sh too" {
	run "$SH_LINK" -c 'echo "link $SBXRUN"; cat ~/.ssh/id_rsa'
	no_canary "$output"
	[[ "$output" == *"link 1"* ]]
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
	# as a login shell (argv[0] "-sbxrun-sh"), as sshd and login start it
	run bash -c 'exec -a -sbxrun-sh "$0" -c "echo login \$SBXRUN"' "$SH_LINK"
	[ "$output" = "login 1" ]
	# sbxrun's options before --sh, the shell's after it.
	run "$SBXRUN" --mode "$SBX_MODE" --net off --sh -c 'echo "net=$SBXRUN_NET"' 
	[ "$output" = "net=off" ]
	run "$SBXRUN" --sh -c true -c x
	[ "$status" -eq 0 ]
	run "$SBXRUN" --check /x --sh -c true
	[ "$status" -eq 125 ]
}

@test "inside a sandbox sbxrun-sh runs the shell as it is, without nesting" {
	# A nested sandbox would get a report channel of its own.
	run sbx -- /bin/sh -c 'echo "outer=$SBXRUN_REPORT"; "$0" -c "echo inner=\$SBXRUN_REPORT; cat ~/.ssh/id_rsa"' "$SH"
	echo "$output"
	no_canary "$output"
	outer=$(sed -n 's/^outer=//p' <<<"$output")
	[ -n "$outer" ]
	[[ "$output" == *"inner=$outer"* ]]
	# Still confined by the outer sandbox, and said so once.
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
}

@test "outside a sandbox, an environment that claims one changes nothing" {
	# What a Makefile could export to make sbxrun-sh skip the sandbox.
	sbx -- true
	pol=$(ls "${XDG_RUNTIME_DIR:-$HOME/.cache/sbxrun/run}"/policy-* 2>/dev/null | head -1 || true)
	run env SBXRUN=1 SBXRUN_NET=on SBXRUN_POLICY="${pol:-/nonexistent}" \
		SBXRUN_REPORT=@sbxrun-1-0 LD_PRELOAD= "$SH" -c 'cat ~/.ssh/id_rsa; echo x >> ~/.bashrc; echo ran'
	echo "$output"
	no_canary "$output"
	[[ "$output" == *ran* ]]
	bashrc_unchanged
}

@test "the inside mark cannot be had outside: a raw prctl gets EINVAL there" {
	# The static probe asks the kernel directly, no libc wrapper, no shim.
	cat > "$T/mark.c" <<'C'
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void)
{
	long r = syscall(SYS_prctl, 0x53425852L, 0L, 0L, 0L, 0L);
	printf("r=%ld errno=%d\n", r, r < 0 ? errno : 0);
	return 0;
}
C
	gcc -static -o "$T/mark" "$T/mark.c"
	run "$T/mark"
	[ "$output" = "r=-1 errno=$(python3 -c 'import errno; print(errno.EINVAL)')" ]
	run sbx -- "$T/mark"
	[ "$output" = "r=-1 errno=$(python3 -c 'import errno; print(errno.ENOANO)')" ]
}

@test "inject = \"tool\": outside a sandbox sbxrun-sh runs nothing and says how" {
	mkdir -p "$T/nothing"
	conf=$("$SBXRUN" --add-path "$T/nothing=ro" | sed -n 's/.* to //p')
	[ -f "$conf" ]
	echo 'inject = "tool";' >> "$conf"
	printf 'all:\n\ttouch made\n' > "$P/Makefile"
	run make SHELL="$SH"
	echo "$output"
	[ "$status" -ne 0 ]
	[ ! -e "$P/made" ]
	[[ "$output" == *"sbxrun: this project runs a tool whole in one sandbox (inject = \"tool\" from $conf:"*"), not each shell it starts; run the tool in one: sbxrun -- make SHELL=$SH"* ]]
	# Run as it says: the recipe runs inside, without nesting.
	run sbx -- make SHELL="$SH"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -e "$P/made" ]
}

@test "N-36 inject = \"tool\": the command it says to run quotes each argument as one shell word; pasted, it runs as the tool did" {
	mkdir -p "$T/nothing"
	conf=$("$SBXRUN" --add-path "$T/nothing=ro" | sed -n 's/.* to //p')
	echo 'inject = "tool";' >> "$conf"
	printf 'all:\n\ttouch made\n' > "$P/Makefile"
	run make SHELL="$SH" 'FOO=$(touch '"$T"'/pasted)' 'BAR=a;touch '"$T"'/pasted2'
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"run the tool in one: sbxrun -- make SHELL=$SH 'FOO=\$(touch $T/pasted)' 'BAR=a;touch $T/pasted2'"* ]]
	# paste it into a shell (sbxrun as the test's binary): nothing of
	# the arguments runs outside, the tool runs inside
	advice=${output##*run the tool in one: sbxrun -- }
	advice=${advice%%$'\n'*}
	run bash -c "SBXRUN=\"\$1\"; shift; eval \"\$SBXRUN --allow-write $T -- \$*\"" _ "$SBXRUN" "$advice"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -e "$P/made" ]
	[ ! -e "$T/pasted" ] && [ ! -e "$T/pasted2" ]
}

@test "inject = \"shim-only\": where no sandbox can be made, each shell gets the shim, ADVISORY" {
	conf=$("$SBXRUN" --add-path "$T/bin=ro" | sed -n 's/.* to //p')
	echo 'inject = "shim-only";' >> "$conf"
	run "$SBXRUN" --dry-run
	[[ "$output" == *"inject: shim-only ($conf:"*"): sbxrun-sh outside a sandbox is ADVISORY, no sandbox"* ]]
	printf 'all:\n\techo "in $$SBXRUN" > made\n\tsu -c id || echo refused > su.txt\n' > "$P/Makefile"
	run make SHELL="$SH_LINK"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"sbxrun: ADVISORY (--shim-only): NO SANDBOX."* ]]
	[[ "$output" == *"refused to run 'su'"* ]]
	[ "$(cat "$P/made")" = "in advisory" ]
	[ "$(cat "$P/su.txt")" = refused ]
	# Inside a sandbox it is still the shell as it is.
	run sbx -- make SHELL="$SH_LINK"
	[[ "$output" != *ADVISORY* ]]
	[ "$(cat "$P/made")" = "in 1" ]
}

@test "sbxrun-sh where no sandbox can be made: nothing runs, and the way out is named" {
	[ -x "$PROBES/nouserns" ] || make -s -C "$SBX_TOP" B="$SBX_BUILD" "$PROBES/nouserns" >&2
	run "$PROBES/nouserns" early "$SBXRUN" --mode full --sh -c "echo ran > '$P/ran'"
	echo "$output"
	[ "$status" -eq 125 ]
	[ ! -e "$P/ran" ]
	[[ "$output" == *"cannot sandbox: mode full needs user namespaces"*"(sbxrun-sh where no sandbox can be made: inject = \"shim-only\" in the conf runs each shell with the shim alone, ADVISORY)"* ]]
	# The way out, taken.
	conf=$("$SBXRUN" --add-path "$T/bin=ro" | sed -n 's/.* to //p')
	echo 'inject = "shim-only";' >> "$conf"
	run "$PROBES/nouserns" early "$SBXRUN" --mode full --sh -c "echo ran > '$P/ran'"
	[ "$status" -eq 0 ]
	[[ "$output" == *ADVISORY* ]]
	[ "$(cat "$P/ran")" = ran ]
}
