#!/usr/bin/env bats
# The sbxrun command line: every flag, management command and error,
# judged by exit status and output.

load ../lib/common

setup() { sbx_setup; }
teardown() { sbx_teardown; }

@test "--version and --help" {
	run "$SBXRUN" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "sbxrun "* ]]
	run "$SBXRUN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--allow-write"* ]]
	[[ "$output" == *"examples:"* ]]
}

@test "unknown option: exit 125 with usage" {
	run "$SBXRUN" --no-such-flag
	[ "$status" -eq 125 ]
	[[ "$output" == *"unknown option '--no-such-flag'"* ]]
	[[ "$output" == *"usage:"* ]]
}

@test "missing option argument: exit 125" {
	run "$SBXRUN" --profile
	[ "$status" -eq 125 ]
	[[ "$output" == *"missing argument"* ]]
}

@test "options after the command belong to the command (LCH-01)" {
	run "$SBXRUN" --list-paths -- --allow-write=/
	[ "$status" -eq 125 ]
	[[ "$output" == *"management options run nothing"* ]]
}

@test "-c and a command together: exit 125" {
	run "$SBXRUN" -c true -- true
	[ "$status" -eq 125 ]
}

@test "--check: a secret is hidden, naming the rule and its file:line" {
	run "$SBXRUN" --check ~/.ssh/id_rsa
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$HOME/.ssh/id_rsa: hidden" ]]
	[[ "$output" == *"rule: $HOME/.ssh (hide) from $SBX_TOP/profiles/default.conf:"* ]]
}

@test "--check: /etc/passwd is read-only, a project file writable" {
	run "$SBXRUN" --check /etc/passwd
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "/etc/passwd: read-only" ]]
	[[ "$output" == *"default.conf:"* ]]
	run "$SBXRUN" --check src/main.c
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$P/src/main.c: writable" ]]
	[[ "$output" == *"rule: $P (rw) from built-in"* ]]
}

@test "--check: protected paths inside the project are read-only" {
	# missing: nothing holds it in a run (W-17)
	run "$SBXRUN" --mode full --check .git/hooks/pre-commit
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *": writable in a run (protected, but missing)" ]]
	mkdir -p .git/hooks
	run "$SBXRUN" --mode full --check .git/hooks/pre-commit
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == *": read-only" ]]
	[[ "$output" == *"protected"* ]]
	run "$SBXRUN" --check .git/objects/ab
	[[ "${lines[0]}" == *": writable" ]]
}

@test "--check resolves symlinks for the existing prefix" {
	ln -s "$HOME/.ssh" sneaky
	run "$SBXRUN" --check sneaky/id_rsa
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$HOME/.ssh/id_rsa: hidden" ]]
}

@test "--allow-read lifts a hide; --hide hides; flags show as the source" {
	run "$SBXRUN" --allow-read ~/.ssh --check ~/.ssh/id_rsa
	[[ "${lines[0]}" == *": read-only" ]]
	[[ "$output" == *"from --allow-read"* ]]
	run "$SBXRUN" --hide "$P/private" --check private/x
	[[ "${lines[0]}" == *": hidden" ]]
	run "$SBXRUN" --allow-write /opt/thing --check /opt/thing/x
	[[ "${lines[0]}" == *": writable" ]]
}

@test "--add-path, --list-paths, --remove-path round-trip through the per-project conf" {
	mkdir -p "$HOME/data"
	run "$SBXRUN" --add-path "$HOME/data=ro"
	[ "$status" -eq 0 ]
	conf=$(ls "$HOME"/.config/sbxrun/projects/*.conf)
	[[ "$(basename "$conf")" =~ ^[0-9a-f]{16}\.conf$ ]]
	grep -q "$HOME/data" "$conf"
	run "$SBXRUN" --list-paths
	[ "$status" -eq 0 ]
	[[ "$output" == *"ro    $HOME/data  ($conf:"* ]]
	run "$SBXRUN" --add-path "$HOME/cache"
	run "$SBXRUN" --check "$HOME/cache/x"
	[[ "${lines[0]}" == *": writable" ]]
	run "$SBXRUN" --remove-path "$HOME/data"
	[ "$status" -eq 0 ]
	run "$SBXRUN" --list-paths
	[[ "$output" != *"$HOME/data "* ]]
	run "$SBXRUN" --remove-path "$HOME/never-added"
	[ "$status" -eq 125 ]
}

@test "the per-project conf is keyed by the project's realpath" {
	"$SBXRUN" --add-path "$HOME/x"
	ln -s "$P" "$T/alias"
	cd "$T/alias"
	run "$SBXRUN" --list-paths
	[[ "$output" == *"$HOME/x"* ]]
}

@test "a malformed conf names file and line, exits 125 and runs nothing" {
	mkdir -p "$HOME/.config/sbxrun"
	printf 'network = { mode = "off"; };\npaths = ( { root = "/x"; mode = "rw" } \n' > "$HOME/.config/sbxrun/config"
	run "$SBXRUN" -c "touch $P/ran"
	[ "$status" -eq 125 ]
	[[ "$output" == *"$HOME/.config/sbxrun/config:"[0-9]*": "* ]]
	[ ! -e "$P/ran" ]
}

@test "an unknown key is an error with its line" {
	mkdir -p "$HOME/.config/sbxrun"
	printf '# c\n\nnetwork = { mode = "off"; };\nnetwrok = 1;\n' > "$HOME/.config/sbxrun/config"
	run "$SBXRUN" --list-paths
	[ "$status" -eq 125 ]
	[[ "$output" == *"config:4: unknown key 'netwrok'"* ]]
}

@test "a wrong type is an error with its line" {
	mkdir -p "$HOME/.config/sbxrun"
	printf 'limits = {\n  timeout = "soon";\n};\n' > "$HOME/.config/sbxrun/config"
	run "$SBXRUN" --list-paths
	[ "$status" -eq 125 ]
	[[ "$output" == *"config:2: 'timeout' must be"* ]]
	printf 'paths = ( { root = "/x"; mode = "writable"; } );\n' > "$HOME/.config/sbxrun/config"
	run "$SBXRUN" --list-paths
	[ "$status" -eq 125 ]
	[[ "$output" == *"config:1: mode must be"* ]]
}

@test "a conf others can write is refused" {
	mkdir -p "$HOME/.config/sbxrun"
	echo 'fallback = "deny";' > "$HOME/.config/sbxrun/config"
	chmod 666 "$HOME/.config/sbxrun/config"
	run "$SBXRUN" --list-paths
	[ "$status" -eq 125 ]
	[[ "$output" == *"others can write"* ]]
}

@test "in-repo .sbxrun.conf: ignored until trusted, honoured, a change or removal refuses until --trust" {
	printf 'paths = ( { root = "%s/extra"; mode = "rw"; } );\n' "$HOME" > .sbxrun.conf
	run "$SBXRUN" --check "$HOME/extra/f"
	[[ "$output" == *"not trusted, ignored"*"sbxrun --trust"* ]]
	[[ "$output" == *": read-only"* ]]
	run "$SBXRUN" --trust
	[ "$status" -eq 0 ]
	run "$SBXRUN" --check "$HOME/extra/f"
	[[ "$output" != *"warning"* ]]
	[[ "$output" == *": writable"* ]]
	echo '# changed' >> .sbxrun.conf
	run "$SBXRUN" --check "$HOME/extra/f"
	[ "$status" -eq 125 ]
	[[ "$output" == *"changed since you trusted it; refusing"*"sbxrun --trust"* ]]
	run "$SBXRUN" --trust
	[ "$status" -eq 0 ]
	run "$SBXRUN" --check "$HOME/extra/f"
	[[ "$output" == *": writable"* ]]
	rm .sbxrun.conf
	run "$SBXRUN" --check "$HOME/extra/f"
	[ "$status" -eq 125 ]
	[[ "$output" == *"was trusted but is gone"*"sbxrun --trust to forget it"* ]]
	run "$SBXRUN" --trust
	[ "$status" -eq 0 ]
	[[ "$output" == *"forgot"* ]]
	run "$SBXRUN" --check "$HOME/extra/f"
	[ "$status" -eq 0 ]
	[[ "$output" == *": read-only"* ]]
}

@test "--trust refuses a broken in-repo conf" {
	echo 'paths = (' > .sbxrun.conf
	run "$SBXRUN" --trust
	[ "$status" -eq 125 ]
	[[ "$output" == *".sbxrun.conf:"* ]]
}

@test "a conf file cannot lift a hide, a flag can" {
	mkdir -p "$HOME/.config/sbxrun"
	printf 'paths = ( { root = "~/.ssh"; mode = "ro"; }, { root = "~/.ssh/known_hosts"; mode = "ro"; } );\n' > "$HOME/.config/sbxrun/config"
	run "$SBXRUN" --check ~/.ssh/known_hosts
	[[ "$output" == *"cannot lift"* || "$output" == *"ignored"* ]]
	[[ "${lines[-4]}" == *": hidden" || "$output" == *"known_hosts: hidden"* ]]
}

@test "profiles: strict hides home and makes the project read-only; unknown profile fails" {
	run "$SBXRUN" --profile strict --check ~/.bashrc
	[[ "$output" == *".bashrc: hidden"* ]]
	run "$SBXRUN" --profile strict --check "$P/x"
	[[ "$output" == *"$P/x: read-only"* ]]
	run "$SBXRUN" --profile nosuch --list-paths
	[ "$status" -eq 125 ]
	[[ "$output" == *"unknown profile 'nosuch'"* ]]
}

@test "build profile redirects caches to a per-project dir" {
	run "$SBXRUN" --profile build --dry-run
	[ "$status" -eq 0 ]
	[[ "$output" == *"caches redirected to: $HOME/.cache/sbxrun/build/"* ]]
}

@test "the default profile redirects caches too; --caches off, strict and a conf turn it off" {
	run "$SBXRUN" --dry-run
	[ "$status" -eq 0 ]
	[[ "$output" == *"caches redirected to: $HOME/.cache/sbxrun/build/"* ]]
	run "$SBXRUN" --caches off --dry-run
	[ "$status" -eq 0 ]
	[[ "$output" != *"caches redirected"* ]]
	run "$SBXRUN" --profile strict --dry-run
	[[ "$output" != *"caches redirected"* ]]
	mkdir -p "$HOME/.config/sbxrun"
	echo 'redirect_caches = false;' > "$HOME/.config/sbxrun/config"
	run "$SBXRUN" --dry-run
	[[ "$output" != *"caches redirected"* ]]
	run "$SBXRUN" --caches on --dry-run
	[[ "$output" == *"caches redirected to: $HOME/.cache/sbxrun/build/"* ]]
	rm "$HOME/.config/sbxrun/config"
	[[ "$output" != *"not CARGO_HOME"* ]]
	# cargo's config in ~/.cargo, a project outside the home: CARGO_HOME stays
	mkdir -p "$HOME/.cargo"
	touch "$HOME/.cargo/config.toml"
	run "$SBXRUN" --dry-run
	[[ "$output" == *"caches redirected to: $HOME/.cache/sbxrun/build/"*" (not CARGO_HOME: it holds cargo's config)"* ]]
	run "$SBXRUN" -- sh -c 'echo "cargo=$CARGO_HOME npm=$npm_config_cache"'
	[[ "$output" == *"cargo= npm=$HOME/.cache/sbxrun/build/"*"/npm"* ]]
	rm -r "$HOME/.cargo"
	run "$SBXRUN" --caches maybe --dry-run
	[ "$status" -eq 125 ]
	[[ "$output" == *"--caches takes on or off, not 'maybe'"* ]]
}

@test "refuses /, HOME and system dirs as the writable project unless forced" {
	cd "$HOME"
	run "$SBXRUN" --list-paths
	[ "$status" -eq 125 ]
	[[ "$output" == *"home directory"* ]]
	run "$SBXRUN" --workdir / --list-paths
	[ "$status" -eq 125 ]
	run "$SBXRUN" --workdir /usr --list-paths
	[ "$status" -eq 125 ]
	run "$SBXRUN" --unsafe-project --list-paths
	[ "$status" -eq 0 ]
}

@test "--workdir that does not exist: exit 125" {
	run "$SBXRUN" --workdir "$T/nope" --list-paths
	[ "$status" -eq 125 ]
	[[ "$output" == *"$T/nope"* ]]
}

@test "--net validation: bad modes and metadata addresses are refused" {
	run "$SBXRUN" --net sideways --list-paths
	[ "$status" -eq 125 ]
	run "$SBXRUN" --net allow:169.254.169.254 --list-paths
	[ "$status" -eq 125 ]
	[[ "$output" == *"never reachable"* ]]
	run "$SBXRUN" --net allow:registry.npmjs.org,*.github.com:443 --dry-run
	[ "$status" -eq 0 ]
	[[ "$output" == *"allow *.github.com:443"* ]]
}

@test "--net allow: runs the command with the proxy in its environment" {
	run "$SBXRUN" --net allow:example.invalid -- sh -c 'touch "$1/ran"; echo "$SBXRUN_NET $SBXRUN_PROXY"' sh "$P"
	[ "$status" -eq 0 ]
	[ -e "$P/ran" ]
	[[ "$output" == "filtered http://"*"127.0.0.1:"[0-9]* ]]
}

@test "--timeout validation" {
	run "$SBXRUN" --timeout -3 --list-paths
	[ "$status" -eq 125 ]
	run "$SBXRUN" --timeout 5s --list-paths
	[ "$status" -eq 125 ]
}

@test "--dry-run prints the policy and the kernel plan and runs nothing" {
	run "$SBXRUN" --dry-run
	[ "$status" -eq 0 ]
	[[ "$output" == *"kernel plan"* ]]
	[[ "$output" == *"network: off"* ]]
}

@test "--status names the kernel features and the mode" {
	run "$SBXRUN" --status
	[[ "$output" == *"landlock:"* ]]
	[[ "$output" == *"user namespaces:"* ]]
	[[ "$output" == *"mode:"* ]]
}

@test "--mode rejects nonsense" {
	run "$SBXRUN" --mode sideways --status
	[ "$status" -eq 125 ]
}

@test "--edit creates the per-project conf and validates it" {
	EDITOR=true run "$SBXRUN" --edit
	[ "$status" -eq 0 ]
	[[ "$output" == *"is valid"* ]]
	ls "$HOME"/.config/sbxrun/projects/*.conf
	EDITOR="sh -c 'echo bogus = 1 >> \"\$0\"'" run "$SBXRUN" --edit
	[ "$status" -eq 125 ]
	[[ "$output" == *"unknown key 'bogus'"* ]]
}

# Without user namespaces: sbxrun inside sbxrun, whose seccomp filter
# refuses clone(CLONE_NEWUSER) the way a container runtime's does.  The
# launch finds out from its own clone (no trial fork beforehand): auto
# mode falls back to landlock-only, which still hides the secrets
# (judged from outside); a forced full mode fails closed and says why;
# fallback = warn runs, loudly.  The outer sandbox lets ~/.ssh through,
# so only the inner one can keep the canary in.  (An ASan build of the
# inner sbxrun gets the outer shim preloaded before its runtime, and
# LeakSanitizer cannot attach inside a sandbox.)
nested() {	# inner sbxrun's arguments
	"$SBXRUN" --quiet --allow-read "$HOME/.ssh" -- \
		env SBXRUN_PROFILE_DIR="$SBXRUN_PROFILE_DIR" \
		ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 sh -c \
		'exec "$@"' \
		sh "$SBXRUN" "$@"
}

@test "no user namespaces: auto falls back to landlock-only and still hides secrets" {
	require_kernel
	run nested --verbose -- sh -c "cat '$HOME/.ssh/id_rsa' > '$P/leak' 2>/dev/null; echo ran > '$P/ran'"
	[ "$status" -eq 0 ]
	[ "$(cat "$P/ran")" = ran ]
	[ ! -s "$P/leak" ]
	no_canary "$output"
}

@test "no user namespaces: --mode full fails closed with the reason" {
	require_kernel
	run nested --mode full -- sh -c "echo ran > '$P/ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"mode full needs user namespaces"*"seccomp filter"* ]]
	[ ! -e "$P/ran" ]
}

@test "no user namespaces: fallback = warn runs landlock-only and says so" {
	require_kernel
	mkdir -p "$HOME/.config/sbxrun"
	echo 'fallback = "warn";' > "$HOME/.config/sbxrun/config"
	run "$PROBES/nouserns" early "$SBXRUN" -- sh -c "cat '$HOME/.ssh/id_rsa' > '$P/leak' 2>/dev/null; echo ran > '$P/ran'"
	[ "$status" -eq 0 ]
	[[ "$output" == *"warning: weaker sandbox (fallback = warn): landlock-only mode, because user namespaces are not available"*"seccomp filter"* ]]
	[ "$(cat "$P/ran")" = ran ]
	[ ! -s "$P/leak" ]
}

@test "no user namespaces: fallback = deny refuses auto's landlock-only with the fix" {
	require_kernel
	mkdir -p "$HOME/.config/sbxrun"
	echo 'fallback = "deny";' > "$HOME/.config/sbxrun/config"
	run "$PROBES/nouserns" early "$SBXRUN" -- sh -c "echo ran > '$P/ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *'fallback = "deny" refuses a sandbox weaker than full mode: landlock-only mode'*"seccomp filter"* ]]
	[ ! -e "$P/ran" ]
}

# sbxrun is linked statically and reads /etc/passwd itself (no NSS).
@test "HOME unset: the secrets of the home in /etc/passwd are still hidden" {
	pwhome=$(getent passwd "$(id -u)" | cut -d: -f6)
	[ -n "$pwhome" ]
	run env -u HOME "$SBXRUN" --check "$pwhome/.ssh/id_rsa"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$pwhome/.ssh/id_rsa: hidden" ]]
}

@test "without the shim library: the run says loudly what is not enforced" {
	mkdir -p "$T/bin"
	cp "$SBXRUN" "$T/bin/sbxrun"
	run "$T/bin/sbxrun" -- sh -c "cat '$HOME/.ssh/id_rsa' 2>/dev/null; echo ran"
	[ "$status" -eq 0 ]
	[[ "$output" == *"libsbxshim.so not found"*"NOT enforced"* ]]
	[[ "$output" == *ran* ]]
	no_canary "$output"
}

@test "HOME unset: the policy store is under the home from /etc/passwd, never /tmp" {
	pwhome=$(getent passwd "$(id -u)" | cut -d: -f6)
	run env -u HOME "$SBXRUN" -c 'echo "$SBXRUN_POLICY"'
	echo "$output"
	[[ "$output" != *"/tmp/sbxrun"* ]]
	if [ "$status" -eq 0 ]; then
		[[ "${lines[-1]}" == "$pwhome/.cache/sbxrun/run/policy-"* ]]
	else
		[[ "$output" == *"cannot use the state directory"* ]]
	fi
}
