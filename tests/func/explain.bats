#!/usr/bin/env bats
# Issue 13: every refusal explained once, and every "to allow" works.
# The exec rules for the command sbxrun starts, and the programs that run
# another one (the dynamic loader, busybox), judged like a program the
# shim sees inside; one line per distinct refusal.

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

setup() {
	esc_setup
	# Stand-ins named like the denied programs: each says it ran.
	mkdir -p "$T/bin"
	for p in sudo rm; do
		printf '#!/bin/sh\necho "%s RAN $*"\n' "$p" > "$T/bin/$p"
		chmod 755 "$T/bin/$p"
	done
	# an ELF the loader can run, named ssh
	cp /bin/true "$T/bin/ssh"
	cp /bin/true "$T/bin/busybox"
	chmod 755 "$T"
}
teardown() { esc_teardown; }

# count TEXT NEEDLE: how many lines of TEXT contain NEEDLE
count() { printf '%s\n' "$1" | grep -cF -- "$2" || true; }

SUDO_LINE="sbxrun: refused to run 'sudo': privilege escalation is not available in this sandbox (rule sudo from $SBX_TOP/profiles/default.conf:"

@test "the top-level command meets the exec rules: -- sudo ls as -c 'sudo ls'" {
	run --separate-stderr env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -- sudo ls
	echo "$stderr"
	[ "$status" -eq 126 ]
	[[ "$output" != *"RAN"* ]]
	[ "$(count "$stderr" "$SUDO_LINE")" = 1 ]
	top=$(printf '%s\n' "$stderr" | grep -F "refused to run")
	run --separate-stderr env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -c 'sudo ls'
	echo "$stderr"
	[ "$status" -eq 126 ]
	[[ "$output" != *"RAN"* ]]
	inside=$(printf '%s\n' "$stderr" | grep -F "refused to run")
	[ "$top" = "$inside" ]
	[[ "$stderr" == *"sbxrun: 1 refusal in this run:"* ]]
	# found in two PATH directories, and missing from the others the
	# shell tries first: still one line, one refusal
	mkdir "$T/bin2" && cp "$T/bin/sudo" "$T/bin2/sudo"
	run --separate-stderr env PATH="$T/none:$T/bin:$T/bin2:$PATH" "$SBXRUN" --mode "$SBX_MODE" -c 'sudo ls; sudo id'
	echo "$stderr"
	[ "$(count "$stderr" "$SUDO_LINE")" = 1 ]
	[[ "$stderr" == *"sbxrun: 1 refusal in this run:"* ]]
	# not installed at all: the shell's "not found", nothing refused
	run -127 --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'PATH=/nonexistent sudo ls'
	[[ "$stderr" != *"refused"* ]]
	# and in the report, as the launcher's own record
	run --separate-stderr env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" --quiet --report "$T/r.json" -- sudo ls
	grep -q '"exec-denied"' "$T/r.json"
	# --quiet: a top-level command that never ran is a launch error,
	# said like "cannot run" (a script must not fail with a bare 126);
	# a refusal inside the run is not, and there is no summary
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "$SUDO_LINE")" = 1 ]
	[[ "$stderr" != *"refusal in this run"* ]]
	run --separate-stderr env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" --quiet -c 'sudo ls; true'
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"refused"* && "$stderr" != *"refusal"* ]]
	# a user's own rule too
	printf 'profile = "default";\nexec = { deny = ( { program = "true"; reason = "no truth"; } ); };\n' > "$T/t.conf"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --profile "$T/t.conf" -- true
	echo "$stderr"
	[ "$status" -eq 126 ]
	[[ "$stderr" == *"refused to run 'true': no truth (rule true from $T/t.conf:2)"* ]]
}

@test "rm -r of every directory below / is refused like rm -rf /, outside and inside" {
	dirs=(/*)
	run --separate-stderr env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -- rm -rf "${dirs[@]}"
	echo "$output $stderr"
	[ "$status" -eq 126 ]
	[[ "$output" != *"RAN"* ]]
	[ "$(count "$stderr" "refused to run 'rm': deleting the whole filesystem is never allowed")" = 1 ]
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c "PATH=$T/bin:\$PATH; rm -rf /*"
	echo "$output $stderr"
	[[ "$output" != *"RAN"* ]]
	[ "$(count "$stderr" "refused to run 'rm': deleting the whole filesystem is never allowed")" = 1 ]
	# fewer than all of them, or not recursive: rm runs (the stand-in)
	run env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -- rm -rf /usr /etc
	[ "$status" -eq 0 ]
	[[ "$output" == *"rm RAN"* ]]
	run env PATH="$T/bin:$PATH" "$SBXRUN" --mode "$SBX_MODE" -- rm "${dirs[@]}"
	[[ "$output" == *"rm RAN"* ]]
}

@test "the dynamic loader and busybox are judged by the program they run" {
	ld=$(ls /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 2>/dev/null | head -1)
	[ -n "$ld" ] || skip "no dynamic loader at a known path"
	line="refused to run '$T/bin/ssh': remote logins are not available"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -- "$ld" "$T/bin/ssh"
	echo "$stderr"
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "$line")" = 1 ]
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c "$ld --argv0 x $T/bin/ssh"
	echo "$stderr"
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "$line")" = 1 ]
	# the loader with an allowed program runs it
	run "$SBXRUN" --mode "$SBX_MODE" -- "$ld" /bin/echo loaded
	[ "$status" -eq 0 ]
	[ "$output" = loaded ]
	# a multi-call program by its applet (the stand-in is /bin/true)
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -- "$T/bin/busybox" ssh host
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "refused to run 'ssh': remote logins")" = 1 ]
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c "$T/bin/busybox sudo id"
	[ "$status" -eq 126 ]
	[ "$(count "$stderr" "refused to run 'sudo': privilege escalation")" = 1 ]
	run "$SBXRUN" --mode "$SBX_MODE" -- "$T/bin/busybox" ls
	[ "$status" -eq 0 ]
}

@test "nothing is said of what is not there: absent hidden files, rm -rf of missing paths" {
	rm -f "$HOME/.npmrc"
	rm -rf "$HOME/.ssh"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --report "$T/r.json" \
		-c 'cat ~/.npmrc ~/.ssh/id_rsa; rm -rf missing ~/missing /usr/missing; chmod 600 ~/missing2; exit 0'
	echo "$stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"sbxrun:"* ]]
	jq -e '.refusals == []' "$T/r.json" >/dev/null
	# an absent file below a hidden directory that exists: landlock-only
	# mode can tell (a stat), full mode cannot see behind its mount and
	# says hidden
	mkdir -p "$HOME/.ssh"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'cat ~/.ssh/id_rsa'
	echo "$stderr"
	if full_mode; then
		[ "$(count "$stderr" "cannot read '$HOME/.ssh/id_rsa': hidden")" = 1 ]
	else
		[[ "$stderr" != *"sbxrun:"* ]]
	fi
	# one that exists is still explained, once
	echo "$CANARY" > "$HOME/.npmrc"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'cat ~/.npmrc ~/.npmrc'
	no_canary "$output"
	[ "$(count "$stderr" "cannot read '$HOME/.npmrc': hidden by the sandbox policy")" = 1 ]
}

@test "interactive bash: the .bash_history refusal is said once, listed once" {
	run --separate-stderr bash -c 'printf "echo hi\nexit\n" | "$0" --mode "$1" -- bash -i' "$SBXRUN" "$SBX_MODE"
	echo "$stderr"
	[ "$(count "$stderr" ".bash_history': hidden by the sandbox policy")" = 1 ]
	[ "$(count "$stderr" "$HOME/.bash_history (hidden")" = 1 ]
	no_canary "$output$stderr"
}

@test "--profile strict does not warn about its own rules" {
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --profile strict -- true
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
}

# ------------------------------------------------------------ every kind

# follow CMD WANT [SBXRUN-OPTIONS...]: sbxrun -c CMD is refused with
# exactly one line containing WANT; then the line's "to allow: sbxrun
# FLAGS" is followed, and the same command succeeds with no refusal.
follow() {
	local cmd=$1 want=$2 fix # line: for the caller
	shift 2
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" "$@" -c "$cmd"
	echo "first: $status $stderr"
	[ "$status" -ne 0 ]
	[ "$(count "$stderr" "$want")" = 1 ]
	line=$(printf '%s\n' "$stderr" | grep -F -- "$want")
	fix=${line##*; to allow: sbxrun }
	[ "$fix" != "$line" ]
	# shellcheck disable=SC2086 # the flags as printed
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" "$@" $fix -c "$cmd"
	echo "retry with $fix: $status $stderr"
	[ "$status" -eq 0 ]
	[[ "$stderr" != *"$want"* ]]
}

# nofix CMD WANT [SBXRUN-OPTIONS...]: refused with exactly one line
# containing WANT, and no fix offered (none would work).
nofix() {
	local cmd=$1 want=$2
	shift 2
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" "$@" -c "$cmd"
	echo "$status $stderr"
	[ "$status" -ne 0 ]
	[ "$(count "$stderr" "$want")" = 1 ]
	[[ "$(printf '%s\n' "$stderr" | grep -F -- "$want")" != *"to allow:"* ]]
}

@test "every refusal kind: said once, names its target, and its fix works (hidden, read, write, run)" {
	# hidden secret, read
	follow 'cat ~/.ssh/id_rsa >/dev/null' "cannot read '$HOME/.ssh/id_rsa': hidden by the sandbox policy (secrets;"
	# a path no rule covers, read (a profile that covers little)
	mkdir -p "$T/cold" && echo cold > "$T/cold/f"
	printf 'paths = (\n' > "$T/small.conf"
	# the system, and the shim where this build keeps it
	for d in /usr /bin /lib /lib64 /lib32 /sbin /etc "$SBX_BUILD"; do
		[ -e "$d" ] && printf '  { root = "%s"; mode = "ro"; },\n' "$d" >> "$T/small.conf"
	done
	printf '  { root = "/dev/null"; mode = "ro"; }\n);\n' >> "$T/small.conf"
	follow "cat $T/cold/f >/dev/null" "cannot read '$T/cold/f': not covered by any rule" --profile "$T/small.conf"
	# write: an existing file, a shell startup file (said to persist)
	follow 'echo hi >> ~/.bashrc' "cannot write '$HOME/.bashrc': read-only in this sandbox (a shell startup file: what is written there runs in every later shell, outside the sandbox too;"
	grep -q '^hi$' "$HOME/.bashrc"
	# write: a file that does not exist yet (the fix makes it)
	follow 'echo new > ~/newfile' "cannot write '$HOME/newfile': read-only in this sandbox"
	[ "$(cat "$HOME/newfile")" = new ]
	# write: a directory that does not exist yet (the fix ends in '/')
	follow 'mkdir -p ~/newdir/sub' "cannot write 'newdir': read-only in this sandbox"
	[[ "$line" == *"to allow: sbxrun --allow-write $HOME/newdir/" ]]
	[ -d "$HOME/newdir/sub" ]
	# write: npm's timestamped log: the fix is the directory, and the
	# next run's log (another name) gets written
	mkdir -p "$HOME/.npm/_logs"
	follow 'echo log > ~/.npm/_logs/$(date +%Y-%m-%dT%H_%M_%S_%NZ)-debug-0.log' "cannot write '$HOME/.npm/_logs/"
	[[ "$line" == *"to allow: sbxrun --allow-write $HOME/.npm/_logs/" ]]
	# run: a program in a hidden directory
	printf '#!/bin/sh\necho tool ran\n' > "$HOME/.ssh/tool"
	chmod 755 "$HOME/.ssh/tool"
	follow '~/.ssh/tool' "cannot run '$HOME/.ssh/tool': hidden by the sandbox policy"
	[ "$output" = "tool ran" ]
}

@test "every refusal kind: exec, suffix, size and protected say once why, and offer no fix that would fail" {
	# an exec deny rule: no flag lifts it
	cp "$T/bin/sudo" "$P/sudo"
	nofix './sudo ls' "refused to run './sudo': privilege escalation is not available in this sandbox"
	# suffix and size rules of a conf file
	mkdir -p "$P/notes"
	head -c 5000 /dev/zero > "$P/notes/big.md"
	printf 'profile = "default";\npaths = ( { root = "notes"; mode = "rw"; suffixes = [ ".md" ]; max_file_bytes = 1000; } );\n' > "$T/notes.conf"
	nofix 'echo x > notes/run.sh' "cannot write 'notes/run.sh': suffix '.sh' not allowed (allowed: .md; rule $P/notes from $T/notes.conf:2)" --profile "$T/notes.conf"
	[ ! -e "$P/notes/run.sh" ]
	nofix 'cat notes/big.md >/dev/null' "cannot read 'notes/big.md': 5000 bytes, over the 1000-byte limit (rule $P/notes from $T/notes.conf:2)" --profile "$T/notes.conf"
	# protected: why, and how the policy changes, not a flag that fails
	git init -q "$P"
	nofix 'echo "#!/bin/sh" > .git/hooks/pre-commit' "cannot write '.git/hooks/pre-commit': protected, read-only even inside a writable path: it can make programs run outside the sandbox later (rule $P/.git/hooks from $SBX_TOP/profiles/default.conf:"
	[[ "$stderr" == *"no flag lifts that: to change it, use a profile of your own without it in 'protect' (--profile FILE)"* ]]
	[ ! -e "$P/.git/hooks/pre-commit" ]
	# and what it says works: a profile without the entry
	printf 'paths = ( { root = "/"; mode = "ro"; } );\n' > "$T/noprotect.conf"
	run "$SBXRUN" --mode "$SBX_MODE" --profile "$T/noprotect.conf" -c 'echo "#!/bin/sh" > .git/hooks/pre-commit'
	[ "$status" -eq 0 ]
	[ -e "$P/.git/hooks/pre-commit" ]
}

# ------------------------------------------------------------ sizes

@test "max_file_bytes on growth: python writing 2,000,000 bytes under a 1000-byte limit fails and is explained" {
	command -v "$PY" >/dev/null || skip "no python3"
	mkdir -p "$P/notes"
	printf 'profile = "default";\npaths = ( { root = "notes"; mode = "rw"; max_file_bytes = 1000; } );\n' > "$T/lim.conf"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --profile "$T/lim.conf" -- "$PY" -c "open('notes/a.txt', 'w').write('x' * 2000000)"
	echo "$stderr"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"File too large"* ]]
	[ "$(count "$stderr" "sbxrun: cannot write '$P/notes/a.txt': 2000000 bytes, over the 1000-byte limit (rule $P/notes from $T/lim.conf:2)")" = 1 ]
	# judged from outside: nothing past the limit was written
	[ "$(stat -c %s "$P/notes/a.txt")" -le 1000 ]
	# under the limit, and growth in small steps up to it, work
	run "$SBXRUN" --mode "$SBX_MODE" --profile "$T/lim.conf" -- "$PY" -c "
f = open('notes/b.txt', 'w')
for i in range(10):
    f.write('y' * 100); f.flush()
f.close()"
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$P/notes/b.txt")" = 1000 ]
	# one more byte is refused, and explained
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --profile "$T/lim.conf" -- "$PY" -c "
f = open('notes/b.txt', 'a'); f.write('z'); f.flush()"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"cannot write '$P/notes/b.txt': 1001 bytes, over the 1000-byte limit"* ]]
	[ "$(stat -c %s "$P/notes/b.txt")" = 1000 ]
}

@test "max_file_bytes on growth: pwrite, fallocate, truncate, copy_file_range, sendfile, rename and link" {
	command -v "$PY" >/dev/null || skip "no python3"
	mkdir -p "$P/notes"
	printf 'profile = "default";\npaths = ( { root = "notes"; mode = "rw"; max_file_bytes = 1000; } );\n' > "$T/lim.conf"
	head -c 5000 /dev/zero > "$P/big"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --profile "$T/lim.conf" -- "$PY" -c "
import os
def t(name, f):
    try:
        f(); print(name, 'ok')
    except OSError as e:
        print(name, e.errno)
fd = os.open('notes/f1', os.O_WRONLY | os.O_CREAT)
t('pwrite', lambda: os.pwrite(fd, b'x', 5000))
t('fallocate', lambda: os.posix_fallocate(fd, 0, 5000))
t('ftruncate', lambda: os.ftruncate(fd, 5000))
t('writev', lambda: os.writev(fd, [b'x' * 600, b'y' * 600]))
src = os.open('big', os.O_RDONLY)
fd2 = os.open('notes/f2', os.O_WRONLY | os.O_CREAT)
t('copy_file_range', lambda: os.copy_file_range(src, fd2, 5000))
fd3 = os.open('notes/f3', os.O_WRONLY | os.O_CREAT)
t('sendfile', lambda: os.sendfile(fd3, src, 0, 5000))
t('rename', lambda: os.rename('big', 'notes/f4'))
t('link', lambda: os.link('big', 'notes/f5'))
t('small', lambda: os.write(fd, b'ok'))
"
	echo "$output"
	echo "$stderr"
	[ "$status" -eq 0 ]
	for c in pwrite fallocate ftruncate writev copy_file_range sendfile rename link; do
		printf '%s\n' "$output" | grep -qx "$c 27" || { echo "not refused: $c"; return 1; }
	done
	printf '%s\n' "$output" | grep -qx "small ok"
	for f in f1 f2 f3; do
		[ "$(stat -c %s "$P/notes/$f")" -le 1000 ]
		[[ "$stderr" == *"cannot write '$P/notes/$f': "*" bytes, over the 1000-byte limit"* ]]
	done
	[ ! -e "$P/notes/f4" ] && [ ! -e "$P/notes/f5" ] && [ -e "$P/big" ]
	# --dry-run says what static programs get
	run "$SBXRUN" --mode "$SBX_MODE" --profile "$T/lim.conf" --dry-run
	[[ "$output" == *"max_file_bytes: the shim holds it for dynamically linked programs"*"RLIMIT_FSIZE (limits.fsize = "* ]]
}

# ------------------------------------------------------------ hints

@test "hints: a build tool's read-only cache points to --caches on, and that works" {
	# caches off (a conf's redirect_caches = false): the host's cache is
	# read-only and --caches on gives the project its own
	follow 'mkdir -p "${npm_config_cache:-$HOME/.npm}/_cacache"' "cannot write '.npm': read-only in this sandbox (npm's cache, shared with runs outside the sandbox: --caches on gives each project a writable cache of its own;" --caches off
	[[ "$line" == *"; to allow: sbxrun --caches on" ]]
	follow 'mkdir -p "${PIP_CACHE_DIR:-$HOME/.cache/pip}/http"' "read-only in this sandbox (pip's cache, shared with runs outside the sandbox: --caches on" --caches off
	if command -v npm >/dev/null; then
		follow 'npm cache verify' "cannot write '$HOME/.npm': read-only in this sandbox (npm's cache" --caches off
		# the default: npm's cache is the project's own, the host's untouched
		run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'npm cache verify'
		echo "$stderr"
		[ "$status" -eq 0 ]
		[[ "$stderr" != *"cannot write"* ]]
		[ ! -e "$HOME/.npm/_cacache" ]
	fi
	# caches on, a tool that ignores its variable: said, no --caches hint
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'mkdir -p ~/.npm/x'
	echo "$stderr"
	[ "$status" -ne 0 ]
	[[ "$stderr" == *"npm's cache, shared with runs outside the sandbox: this run's caches are the project's own (--dry-run shows where), but this tool wrote the shared one"* ]]
	[[ "$stderr" != *"--caches on"* && "$stderr" != *"--profile build"* ]]
	# the tools' cache is not among the places offered as writable
	[[ "$stderr" == *"the shared one; writable: $P, /tmp; rule"* ]]
	[ ! -e "$HOME/.npm/x" ]
	# another profile: the plain fix
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" --profile strict -c 'mkdir -p ~/.npm/x'
	[[ "$stderr" != *"--profile build"* ]]
}

@test "hints: the first failed lookup with the network off says so once, before the tool's own error" {
	command -v "$PY" >/dev/null || skip "no python3"
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -- "$PY" -c "
import socket, sys
for i in range(3):
    try:
        socket.getaddrinfo('registry.example.test', 443)
    except socket.gaierror as e:
        print('LOOKUP FAILED', e, file=sys.stderr, flush=True)"
	echo "$stderr"
	want="sbxrun: cannot resolve 'registry.example.test': network access is off in this sandbox"
	[ "$(count "$stderr" "$want")" = 1 ]
	first=$(printf '%s\n' "$stderr" | grep -n -m1 -F "$want" | cut -d: -f1)
	tool=$(printf '%s\n' "$stderr" | grep -n -m1 -F "LOOKUP FAILED" | cut -d: -f1)
	[ "$first" -lt "$tool" ]
}

@test "one line per refusal for the run: several processes meeting the same refusal print it once, the summary counts them" {
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'cat ~/.npmrc; cat ~/.npmrc; sh -c "cat ~/.npmrc"; ls -a /tmp'
	echo "$stderr"
	no_canary "$output$stderr"
	[ "$(count "$stderr" "sbxrun: cannot read '$HOME/.npmrc': hidden by the sandbox policy")" = 1 ]
	[[ "$stderr" == *"$HOME/.npmrc (hidden, rule $HOME/.npmrc) x3"* ]]
	# the run's table of lines said does not outlive the run (landlock-
	# only mode keeps it in the host's /tmp)
	run --separate-stderr "$SBXRUN" --mode "$SBX_MODE" -c 'echo "${SBXRUN_REPORT#@}"; cat ~/.npmrc; ls -a /tmp'
	[ -n "$output" ]
	[[ "$output" == *".sbxrun-seen-${lines[0]}"* ]] # it was there, inside
	[ ! -e "/tmp/.sbxrun-seen-${lines[0]}" ]
}
