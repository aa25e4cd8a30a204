#!/usr/bin/env bats
# Functional suite, part 3: real toolchains doing real work on the DEFAULT
# profile (git remotes, worktrees and submodules; make and gcc; a venv and
# pip; npm and pnpm from the registry; cargo; an interactive bash; a long
# job while the host changes the project), every result checked from
# outside.  run-all.sh runs it in both kernel modes, as root and sbxtest.

bats_require_minimum_version 1.5.0

load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

PTY="$BATS_TEST_DIRNAME/../lib/ptyrun.py"

setup() {
	esc_setup
	printf '[user]\n\tname = Sandbox Tester\n\temail = tester@example.com\n[init]\n\tdefaultBranch = main\n' > "$HOME/.gitconfig"
}
teardown() { esc_teardown; }

# The project's sandbox cache (redirect_caches), seen from outside.
count() { printf '%s\n' "$1" | grep -cF -- "$2" || true; }

cache_dir() { echo "$HOME/.cache/sbxrun/build/$(ls "$HOME/.cache/sbxrun/build")"; }

# A repository outside the project with one commit: NAME FILE.
outside_repo() {
	mkdir -p "$T/$1"
	git -C "$T/$1" init -q
	echo "$1" > "$T/$1/$2"
	git -C "$T/$1" add "$2"
	git -C "$T/$1" commit -qm "$1"
}

@test "git: init, commit, remote add, config, fetch, upstream, worktree add, submodule add" {
	outside_repo up u.txt
	outside_repo lib lib.txt
	run xsbx -c "set -e
git init -q .
echo a > a.txt && git add a.txt && git commit -qm one
git remote add origin '$T/up'
git config user.name 'Inside Name'
git config core.autocrlf false
git fetch -q origin
git branch --set-upstream-to=origin/main main
git worktree add -q wt -b topic
git -c protocol.file.allow=always submodule add -q '$T/lib' lib
git commit -qm 'add lib'
echo DONE"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *DONE* ]]
	# from outside: the repository is what git inside made it
	[ "$(git -C "$P" remote get-url origin)" = "$T/up" ]
	[ "$(git -C "$P" config user.name)" = "Inside Name" ]
	[ "$(git -C "$P" rev-parse --abbrev-ref main@{upstream})" = origin/main ]
	[ "$(git -C "$P" log --format=%s | head -1)" = "add lib" ]
	git -C "$P" worktree list | grep -q "$P/wt .*\[topic\]"
	[ "$(cat "$P/lib/lib.txt")" = lib ]
	git -C "$P" submodule status | grep -q " lib "
	# what git made that can run code outside later is named at the end
	[[ "$output" == *"'$P/.git/config' was created during the run"* ]]
	# the outside repositories were read, never written
	[ "$(git -C "$T/up" log --format=%s)" = up ]
	[ -z "$(git -C "$T/up" status --porcelain)" ]
}

@test "git worktree add outside the project: refused with the fix, and the fix works" {
	git -C "$P" init -q
	echo x > "$P/f"
	git -C "$P" add f
	git -C "$P" commit -qm init
	run --separate-stderr xsbx -- git worktree add -q --detach ../wt
	echo "$status $stderr"
	[ "$status" -ne 0 ]
	[ ! -e "$T/wt" ]
	line=$(printf '%s\n' "$stderr" | grep -F "sbxrun: cannot write '../wt': read-only in this sandbox")
	fix=${line##*; to allow: sbxrun }
	[ "$fix" = "--allow-write $T/wt/" ]
	# shellcheck disable=SC2086 # the flags as printed
	run --separate-stderr xsbx $fix -- git worktree add -q --detach ../wt
	echo "$status $stderr"
	[ "$status" -eq 0 ]
	[ "$(cat "$T/wt/f")" = x ]
	git -C "$P" worktree list | grep -q "$T/wt .*(detached HEAD)"
}

@test "git: in a repository made outside, .git/config is protected and every refusal says so" {
	git -C "$P" init -q
	echo x > "$P/f"
	git -C "$P" add f
	git -C "$P" commit -qm init
	outside_repo up u.txt
	cfg=$(cat "$P/.git/config")
	run --separate-stderr xsbx -c "git remote add origin '$T/up'; echo remote=\$?; git config user.name X; echo config=\$?; git worktree add -q wt -b topic; echo worktree=\$?"
	echo "$output"
	echo "$stderr"
	[[ "$output" == *"remote=128"* ]]
	[[ "$output" != *"config=0"* ]]
	[[ "$output" == *"worktree=0"* ]]
	# explained once, with why and what changes it, before git's error
	[ "$(count "$stderr" "sbxrun: cannot write '$P/.git/config': protected, read-only even inside a writable path: it can make programs run outside the sandbox later")" = 1 ]
	[[ "$stderr" == *"$P/.git/config (read-only, rule $P/.git/config)"* ]]
	[ "$(cat "$P/.git/config")" = "$cfg" ]
	git -C "$P" worktree list | grep -q "\[topic\]"
	# with the shim bypassed (a static program): full mode's kernel
	# refuses; landlock-only cannot, and puts the file back after the run
	run "$SBXRUN" --mode "$SBX_MODE" -- "$SBX_SYS.static" append "$P/.git/config" '[core] hooksPath = /x'
	echo "$output"
	if full_mode; then
		[[ "$output" != *"RESULT "[0-9]*" OK"* ]]
	else
		[[ "$output" == *"'$P/.git/config' is protected and was changed during the run by a program that bypassed the shim"*"put back as it was at launch"* ]]
	fi
	[ "$(cat "$P/.git/config")" = "$cfg" ]
}

@test "make with gcc builds a C program; the binary runs outside" {
	command -v gcc >/dev/null || skip "no gcc"
	mkdir -p "$P/src"
	printf '#include "sq.h"\nint sq(int x) { return x * x; }\n' > "$P/src/sq.c"
	printf 'int sq(int x);\n' > "$P/src/sq.h"
	printf '#include <stdio.h>\n#include "sq.h"\nint main(void) { printf("sq=%%d\\n", sq(7)); return 0; }\n' > "$P/src/main.c"
	printf 'CFLAGS = -O2 -Wall -Werror -Isrc\nprog: src/main.o src/sq.o\n\t$(CC) -o $@ $^\nsrc/%%.o: src/%%.c src/sq.h\n\t$(CC) $(CFLAGS) -c -o $@ $<\n' > "$P/Makefile"
	run xsbx -- make -j2 CC=gcc
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$("$P/prog")" = "sq=49" ]
	# a second make sees everything up to date
	run xsbx -- make -q prog
	[ "$status" -eq 0 ]
}

@test "python3 -m venv, pip install of a wheel built here (no index); the host's pip cache untouched" {
	"$PY" -c 'import ensurepip, venv' 2>/dev/null || skip "python3 without venv/ensurepip"
	# a tiny package as a wheel, made outside: PyPI is not reachable
	"$PY" - "$T/dist" <<'EOF'
import base64, hashlib, os, sys, zipfile
d = sys.argv[1]
os.makedirs(d, exist_ok=True)
files = {
    "tinypkg/__init__.py": "def hello():\n    return 'hello from tinypkg'\n",
    "tinypkg-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 0.1\n",
    "tinypkg-0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: sbxrun-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
rec = []
for n, t in files.items():
    h = base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b"=").decode()
    rec.append(f"{n},sha256={h},{len(t.encode())}")
rec.append("tinypkg-0.1.dist-info/RECORD,,")
with zipfile.ZipFile(os.path.join(d, "tinypkg-0.1-py3-none-any.whl"), "w") as z:
    for n, t in files.items():
        z.writestr(n, t)
    z.writestr("tinypkg-0.1.dist-info/RECORD", "\n".join(rec) + "\n")
EOF
	XSBX_LIMIT=180 run xsbx -c "'$PY' -m venv venv && venv/bin/pip install -q --no-index --disable-pip-version-check '$T/dist/tinypkg-0.1-py3-none-any.whl' && venv/bin/python -c 'import tinypkg; print(tinypkg.hello())'"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"hello from tinypkg"* ]]
	[[ "$output" != *"cannot write"* ]]
	# from outside: installed in the project's venv
	ls "$P"/venv/lib/python3*/site-packages/tinypkg/__init__.py
	"$P/venv/bin/python" -c 'import tinypkg; print(tinypkg.hello())'
	[ ! -e "$HOME/.cache/pip" ]
}

# npm and pnpm reach the real registry through the filtering proxy.
need_npm_registry() {
	command -v npm >/dev/null || skip "npm is not installed"
	if ! curl -sS -m 15 -o /dev/null https://registry.npmjs.org/is-number 2>/dev/null; then
		echo "# SKIPPED LOUDLY: registry.npmjs.org is unreachable from this machine" >&3
		skip "registry.npmjs.org is unreachable from this machine"
	fi
}

@test "npm install from the registry on the default profile (--net allow:@npm), npm run; ~/.npm untouched" {
	need_npm_registry
	echo 'console.log(require("is-number")(5) ? "IS-NUMBER-OK" : "no")' > "$P/hi.js"
	printf '{ "name": "p", "version": "1.0.0", "private": true, "scripts": { "hi": "node hi.js" } }\n' > "$P/package.json"
	XSBX_LIMIT=180 run xsbx --net allow:@npm -- npm install --no-audit --no-fund is-number
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"cannot write"* && "$output" != *"Unknown env config"* ]]
	[ -f "$P/node_modules/is-number/package.json" ]
	grep -q '"is-number"' "$P/package.json"
	run xsbx -- npm run -s hi
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *IS-NUMBER-OK* ]]
	# the cache is the project's own, the host's never made
	[ ! -e "$HOME/.npm" ]
	[ -d "$(cache_dir)/npm/_cacache" ]
	# it persists: offline, the second install comes from it
	rm -rf "$P/node_modules"
	XSBX_LIMIT=120 run xsbx -- npm install --offline --no-audit --no-fund
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f "$P/node_modules/is-number/package.json" ]
}

@test "npm install with the network off fails at once, and says why before npm does" {
	command -v npm >/dev/null || skip "npm is not installed"
	printf '{ "name": "p", "version": "1.0.0", "private": true }\n' > "$P/package.json"
	start=$(date +%s)
	run --separate-stderr xsbx -- npm install --no-audit --no-fund is-number
	took=$(($(date +%s) - start))
	echo "$took s: $status $stderr"
	[ "$status" -ne 0 ]
	# npm's own retries took 70 s (fetch-retries 2, backoff to 60 s)
	[ "$took" -lt 20 ]
	want="sbxrun: cannot resolve 'registry.npmjs.org': network access is off in this sandbox"
	[ "$(count "$stderr" "$want")" = 1 ]
	first=$(printf '%s\n' "$stderr" | grep -n -m1 -F "$want" | cut -d: -f1)
	npmerr=$(printf '%s\n' "$stderr" | grep -n -m1 "^npm error" | cut -d: -f1)
	[ "$first" -lt "$npmerr" ]
	[ ! -e "$P/node_modules/is-number" ]
}

@test "pnpm install from the registry on the default profile; its store is the project's own" {
	command -v pnpm >/dev/null || skip "pnpm is not installed (tools/install-deps.sh installs pnpm@9)"
	need_npm_registry
	printf '{ "name": "p", "version": "1.0.0", "private": true, "scripts": { "hi": "echo PNPM-SCRIPT-OK" } }\n' > "$P/package.json"
	XSBX_LIMIT=180 run xsbx --net allow:@npm -- pnpm add is-number
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f "$P/node_modules/is-number/package.json" ]
	run xsbx -- pnpm run hi
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PNPM-SCRIPT-OK* ]]
	[ ! -e "$HOME/.local/share/pnpm" ] && [ ! -e "$HOME/.cache/pnpm" ]
	[ -d "$(cache_dir)/pnpm" ]
}

# A cargo (and its rustc) this user can run, not a rustup proxy (which
# needs the real home's ~/.rustup): its directory, or nothing.
cargo_dir() {
	local c
	for c in /usr/bin/cargo /usr/local/bin/cargo "${RUSTUP_HOME:-/root/.rustup}"/toolchains/stable-*/bin/cargo; do
		[ -x "$c" ] && [ -x "$(dirname "$c")/rustc" ] && "$c" --version >/dev/null 2>&1 && {
			dirname "$c"
			return 0
		}
	done
	return 0
}

@test "cargo build --offline of a crate without dependencies" {
	d=$(cargo_dir)
	# cargo lives in root's ~/.rustup on the CI machine: the unprivileged
	# run has none to run (not applicable; under CI a skip fails)
	if [ -z "$d" ] && [ "$(id -u)" != 0 ]; then return 0; fi
	[ -n "$d" ] || skip "no cargo this user can run"
	mkdir -p "$P/src"
	printf '[package]\nname = "hi"\nversion = "0.1.0"\nedition = "2021"\n' > "$P/Cargo.toml"
	printf 'fn main() { println!("hello from cargo"); }\n' > "$P/src/main.rs"
	XSBX_LIMIT=180 run xsbx -- env PATH="$d:$PATH" cargo build --offline
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"cannot write"* ]]
	[ "$("$P/target/debug/hi")" = "hello from cargo" ]
	[ ! -e "$HOME/.cargo" ]
	# a project outside the home with a config in ~/.cargo: CARGO_HOME
	# stays (cargo reads its config there), its lock files are refused
	mkdir -p "$HOME/.cargo"
	printf '[build]\ntarget-dir = "%s/tgt"\n' "$P" > "$HOME/.cargo/config.toml"
	XSBX_LIMIT=180 run xsbx -- env PATH="$d:$PATH" cargo build --offline
	echo "$output"
	[ "$status" -eq 0 ]
	[ -x "$P/tgt/debug/hi" ]
	[[ "$output" == *"cannot write '$HOME/.cargo/.package-cache': read-only in this sandbox (cargo's cache"* ]]
	[ "$(ls "$HOME/.cargo")" = config.toml ]
	# a project under the home: cargo reads ~/.cargo/config.toml as the
	# config of a directory above it, so CARGO_HOME moves
	mkdir -p "$HOME/src/crate/src"
	cp "$P/Cargo.toml" "$HOME/src/crate/"
	cp "$P/src/main.rs" "$HOME/src/crate/src/"
	printf '[build]\ntarget-dir = "%s/tgt2"\n' "$HOME/src/crate" > "$HOME/.cargo/config.toml"
	cd "$HOME/src/crate"
	XSBX_LIMIT=180 run xsbx -- env PATH="$d:$PATH" cargo build --offline
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *"cannot write"* ]]
	[ -x "$HOME/src/crate/tgt2/debug/hi" ]
	[ "$(ls "$HOME/.cargo")" = config.toml ]
}

@test "interactive bash on a pty: commands run, the host's startup files stay read-only" {
	rc_before=$(cat "$HOME/.bashrc")
	run python3 "$PTY" --send 'echo made-in-shell > shell.txt; echo "net=$SBXRUN_NET"' \
		--send 'echo evil >> ~/.bashrc; echo rc=$?' --send 'exit 3' -- \
		env SHELL=/bin/bash "$SBXRUN" --mode "$SBX_MODE"
	echo "$output"
	no_canary "$output"
	[[ "$output" == *"(sbxrun) "* ]]
	[[ "$output" == *"net=off"* ]]
	[[ "$output" == *"rc=1"* ]]
	[[ "$output" == *"cannot write '$HOME/.bashrc'"*"a shell startup file"* ]]
	[[ "$output" == *"EXIT 3"* ]]
	[ "$(cat "$P/shell.txt")" = made-in-shell ]
	[ "$(cat "$HOME/.bashrc")" = "$rc_before" ]
}

@test "a long job sees the host create, rename and replace project files under it; protections hold" {
	git -C "$P" init -q
	mkdir -p "$P/in"
	echo v1 > "$P/in/replaced.txt"
	echo keep > "$P/in/old-name.txt"
	# ~5 s: each round lists in/, reads replaced.txt, appends to out.log,
	# then tries a hook (protected) and the host's .bashrc (read-only)
	cat > "$P/job.sh" <<'EOF'
i=0
while [ $i -lt 50 ]; do
	echo "round $i: $(ls in | tr '\n' ' ') content=$(cat in/replaced.txt)" >> out.log
	echo "$i" > "work-$((i % 3)).txt"
	i=$((i + 1))
	sleep 0.1
done
echo '#!/bin/sh' > .git/hooks/post-checkout 2>/dev/null && echo HOOK-WRITTEN
echo evil >> "$HOME/.bashrc" 2>/dev/null && echo RC-WRITTEN
echo JOB-DONE
EOF
	rc_before=$(cat "$HOME/.bashrc")
	XSBX_LIMIT=60 xsbx -- sh job.sh > "$T/job.out" 2> "$T/job.err" &
	job=$!
	BG_PIDS+=("$job")
	sleep 1
	echo new > "$P/in/created-by-host.txt"
	sleep 1
	mv "$P/in/old-name.txt" "$P/in/renamed-by-host.txt"
	sleep 1
	echo v2 > "$P/in/replaced.tmp" && mv "$P/in/replaced.tmp" "$P/in/replaced.txt"
	wait "$job"
	st=$?
	cat "$T/job.out" "$T/job.err"
	[ "$st" -eq 0 ]
	grep -q JOB-DONE "$T/job.out"
	# the job saw each of the host's changes, in order
	grep -q "created-by-host.txt" "$P/out.log"
	grep -q "renamed-by-host.txt" "$P/out.log"
	grep -q "content=v2" "$P/out.log"
	[ "$(grep -c "content=v1" "$P/out.log")" -ge 1 ]
	tail -1 "$P/out.log" | grep -q "renamed-by-host.txt.*content=v2"
	! tail -1 "$P/out.log" | grep -q "old-name.txt"
	[ "$(wc -l < "$P/out.log")" -eq 50 ]
	[ -s "$P/work-0.txt" ]
	# and the protections held to the end
	! grep -q -e HOOK-WRITTEN -e RC-WRITTEN "$T/job.out"
	[ ! -e "$P/.git/hooks/post-checkout" ]
	[ "$(cat "$HOME/.bashrc")" = "$rc_before" ]
}
