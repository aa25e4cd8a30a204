#!/usr/bin/env bats
# One decision, one explanation, every caller.  Each row of the decision
# table (tests/unit/decide_table.h), made real by dtable (conf files,
# flags, and a tree of files), is asked of
#   - sbxrun --check (its read:/write:/run: line),
#   - libsbx (sbx_check, through dtable check),
#   - the shim, in a real sandbox run in the mode under test: the probe
#     makes the call the row describes and the explanation on stderr and
#     in the JSON report is compared,
# and all three must give the row's verdict and the same text, byte for
# byte.  Then the launcher's own explanation (the command itself refused
# by the kernel) and the fixes the explanations print, followed.

load ../lib/common

bats_require_minimum_version 1.5.0

PROBE="$PROBES/probe"
DTABLE="$SBX_BUILD/tests/dtable"

setup() {
	sbx_setup
	require_kernel
}

teardown() { sbx_teardown; }

# Run sbxrun (or dtable) for scenario $sc: its profile dir, user conf,
# home and project; its overrides as flags.
scen_env() {
	local sc=$1
	D="$T/dt/$sc"
	PROFILE=$(cat "$D/profile")
	OVR=()
	FLAGS=()
	while IFS= read -r ov; do
		[ -n "$ov" ] || continue
		OVR+=("$ov")
		FLAGS+=("--${ov%%=*}" "${ov#*=}")
	done <"$D/flags"
}

# The state directory stays out of the scenario's tree (its default,
# ~/.cache/sbxrun/run, would sit under the table's home, inside /sbxt).
in_scen() {
	(cd "$D/sbxt/p" && HOME="$D/sbxt/home/u" XDG_CONFIG_HOME="$D/xdg" \
		XDG_RUNTIME_DIR="$T/run" SBXRUN_PROFILE_DIR="$D/profiles" "$@")
}

# The explanation lines a run printed (not its warnings or summary).
explanations() { grep -E "^sbxrun: (cannot |refused to run )" || true; }

# The call a row describes, as probe arguments.  Writing a directory is
# changing it (utimes): moving it would be a question about the whole
# tree below, which the table does not ask.
probe_call() {	# op path object want
	case $1 in
	read) echo "open $2 r" ;;
	run) echo "execve $2" ;;
	write)
		if [ "$3" = dir ]; then echo "utimensat $2"
		elif [ "$3" = host ] && [ "$4" = allowed ]; then echo "open $2 w"
		else echo "open $2 w,creat"; fi ;;
	esac
}

# A refusal the kernel makes without an error, so the shim rightly says
# nothing: in full mode a hidden directory is an empty read-only tmpfs,
# and reading the directory itself succeeds.
silent_ok() {	# op object want
	[ "$SBX_MODE" != landlock-only ] && [ "$1" = read ] && [ "$2" = dir ] &&
		[ "$3" = hidden ]
}

@test "every row of the decision table: --check, libsbx and the shim agree, word for word" {
	mkdir -m 700 "$T/run"
	"$DTABLE" setup "$T/dt" > "$T/rows"
	[ "$(wc -l < "$T/rows")" -ge 84 ]
	n=0 shim_n=0 bad=0
	while IFS=$'\t' read -r row sc op path size want obj; do
		n=$((n + 1))
		# the size the row asks about is the file's (INT64_MAX cannot be)
		[ "${#size}" -gt 9 ] && continue
		if [ "$obj" = file ] && [ "$op" != run ]; then
			truncate -s "$((size < 0 ? 0 : size))" "$path"
		fi
		scen_env "$sc"
		IFS=$'\x1f' read -r lv lrule lsrc lmsg < <(in_scen "$DTABLE" check "$op" "$path" "$PROFILE" "${OVR[@]}")
		cmsg=$(in_scen "$SBXRUN" --profile "$PROFILE" "${FLAGS[@]}" --check "$path" 2>/dev/null |
			sed -n "s/^  $op: //p")
		if [ "$lv" != "$want" ] || [ "$cmsg" != "$lmsg" ]; then
			echo "row $row ($sc $op $path): libsbx $lv '$lmsg'; --check '$cmsg'; want $want"
			bad=$((bad + 1))
			continue
		fi
		# the shim, in a sandbox (not where no rule covers / : nothing runs)
		[ "$sc" = nocover ] && continue
		shim_n=$((shim_n + 1))
		# shellcheck disable=SC2046
		smsg=$(in_scen "$SBXRUN" --mode "$SBX_MODE" --profile "$PROFILE" "${FLAGS[@]}" \
			--report "$T/r.json" -- "$PROBE" $(probe_call "$op" "$path" "$obj" "$want") \
			2>&1 >/dev/null | explanations | head -1)
		if [ "$want" = allowed ] || silent_ok "$op" "$obj" "$want"; then
			[ -z "$smsg" ] && continue
		elif [ "$smsg" = "$lmsg" ]; then
			# the record carries the same fields as libsbx's answer
			rec=$(jq -r --arg t "$path" '.refusals[] | select(.target == $t) |
				[.reason, .rule, .source, .message] | @tsv' "$T/r.json" | head -1)
			[ "$rec" = "$(printf '%s\t%s\t%s\t%s' "$lv" "$lrule" "$lsrc" "$lmsg")" ] && continue
			echo "row $row: report record '$rec'"
		fi
		echo "row $row ($sc $op $path, $SBX_MODE): shim '$smsg'; libsbx/--check '$lmsg'"
		bad=$((bad + 1))
	done < "$T/rows"
	echo "$n rows, $shim_n through the shim, $bad bad"
	[ "$bad" = 0 ] && [ "$n" -ge 84 ] && [ "$shim_n" -ge 70 ]
}

# ------------------------------------------------------------ the launcher

# file:line of a rule of the shipped default profile, as messages name it
default_src() {
	echo "$SBX_TOP/profiles/default.conf:$(grep -n "$1" "$SBX_TOP/profiles/default.conf" | head -1 | cut -d: -f1)"
}

@test "a command the kernel refuses to start: the launcher explains it like the shim, and the fix works" {
	printf '#!/bin/sh\necho ran\n' > "$HOME/.ssh/tool"
	chmod 755 "$HOME/.ssh/tool"
	run -127 --separate-stderr sbx --report "$T/r.json" -- "$HOME/.ssh/tool" ||
		run -126 --separate-stderr sbx --report "$T/r.json" -- "$HOME/.ssh/tool"
	[ "$status" -eq 126 ] || [ "$status" -eq 127 ]
	[ -z "$output" ]
	msg="sbxrun: cannot run '$HOME/.ssh/tool': hidden by the sandbox policy (secrets; rule ~/.ssh from $(default_src 'root = "~/.ssh"')); to allow: sbxrun --allow-read $HOME/.ssh/tool"
	[ "${stderr_lines[0]}" = "$msg" ]
	# the same words --check gives, and a record in the report
	run "$SBXRUN" --check "$HOME/.ssh/tool"
	[[ "$output" == *"  run: $msg"* ]]
	[ "$(jq -r '.refusals[0] | [.operation, .reason, .rule, .process, .pid, .message] | @tsv' "$T/r.json")" = \
		"$(printf 'run\thidden\t%s\tsbxrun\t0\t%s' "$HOME/.ssh" "$msg")" ]
	# follow the fix
	run --separate-stderr sbx --allow-read "$HOME/.ssh/tool" -- "$HOME/.ssh/tool"
	[ "$status" -eq 0 ] && [ "$output" = ran ]
	# a command that does not exist is just that
	run -127 --separate-stderr sbx -- no-such-command-here
	[ "$stderr" = "sbxrun: cannot run 'no-such-command-here': No such file or directory" ]
}

# ------------------------------------------------------------ the fixes

@test "the fixes the README's example prints work: --allow-read a secret, --allow-write ~/.bashrc" {
	run --separate-stderr sbx -c 'cat ~/.ssh/id_rsa; echo hi >> ~/.bashrc'
	no_canary "$output"
	[ "$(cat ~/.bashrc)" = "# rc" ]
	[[ "$stderr" == *"; to allow: sbxrun --allow-read $HOME/.ssh/id_rsa"* ]]
	[[ "$stderr" == *"; to allow: sbxrun --allow-write $HOME/.bashrc"* ]]
	run --separate-stderr sbx --allow-read "$HOME/.ssh/id_rsa" --allow-write "$HOME/.bashrc" \
		-c 'cat ~/.ssh/id_rsa; echo hi >> ~/.bashrc'
	[ "$status" -eq 0 ] && [ "$output" = "$CANARY" ]
	[ "$(cat ~/.bashrc)" = "$(printf '# rc\nhi')" ]
}

# ------------------------------------------------------------ holes

# Landlock cannot make a read-only hole in a writable tree, nor refuse an
# attribute change: in landlock-only mode the shim holds both (advisory,
# as --dry-run says); in full mode the mounts do.  Judged from outside.
@test "a read-only rule inside the project and chmod outside it are refused in both modes" {
	mkdir -p vendor "$T/ro" "$HOME/.config/sbxrun"
	echo orig > vendor/f
	echo orig > "$T/ro/f"
	chmod 644 "$T/ro/f"
	echo 'paths = ( { root = "vendor"; mode = "ro"; } );' > "$HOME/.config/sbxrun/config"
	run --separate-stderr sbx -c "echo x >> vendor/f; chmod 600 '$T/ro/f'; touch -d 2001-01-01 '$T/ro/f'"
	[ "$(cat vendor/f)" = orig ]
	[ "$(stat -c %a "$T/ro/f")" = 644 ]
	[ "$(stat -c %Y "$T/ro/f")" -gt 1000000000 ] && [ "$(date -d @"$(stat -c %Y "$T/ro/f")" +%Y)" != 2001 ]
	[[ "$stderr" == *"sbxrun: cannot write 'vendor/f': read-only in this sandbox (writable: $P, /tmp; rule $P/vendor from $HOME/.config/sbxrun/config:1); to allow: sbxrun --allow-write $P/vendor/f"* ]]
	[[ "$stderr" == *"sbxrun: cannot write '$T/ro/f': read-only in this sandbox"* ]]
}
