#!/usr/bin/env bats
# The filtered network of a real run (issue 14): `sbxrun --net allow:...`
# inside the test's own namespace (_net.bash: loopback only, the test
# addresses, servers.py, and the test hosts file as /etc/hosts of a mount
# namespace of its own), so the supervisor's proxy resolves and connects
# as on any machine and every packet stays in the test namespace.  Each
# test runs in both kernel modes (SBX_MODE=full or landlock-only: that
# one).  Refused names are .invalid ones.

load _net

NET_HOSTS_MOUNT=1
SBXRUN="$SBX_BUILD/sbxrun"
PROBE="$SBX_BUILD/probes/probe"

setup_file() {
	net_setup_file || return 1
	mkdir -p "$W/proj"
	# the profiles as the test user's own files: inside the test's user
	# namespace a tree of another owner is nobody's, and sbxrun refuses
	# conf files it cannot trust
	cp -r "${SBXRUN_PROFILE_DIR:-$SBX_TOP/profiles}" "$W/profiles"
	chmod -R go-w "$W/profiles"
	chmod -R a+rX "$W"
}
teardown_file() { net_teardown_file; }

modes() {
	case "${SBX_MODE:-auto}" in
	full | landlock-only) echo "$SBX_MODE" ;;
	*) echo full landlock-only ;;
	esac
}

# sbx MODE ARGS...: sbxrun in the test namespace, in the project $W/proj,
# with the test CA for the clients; stderr kept apart in $W/err.
sbx() {
	local m=$1
	shift
	nsx env HOME="$W/home" SBXRUN_PROFILE_DIR="$W/profiles" \
		SSL_CERT_FILE="$W/cert.pem" CURL_CA_BUNDLE="$W/cert.pem" \
		GIT_SSL_CAINFO="$W/cert.pem" \
		sh -c 'cd "$1" && shift && exec "$@"' sh "$W/proj" \
		"$SBXRUN" --mode "$m" "$@" 2> "$W/err"
}

# The mode can run here: 0; a kernel that lacks what the mode needs
# (landlock-only: Landlock ABI 4 for TCP; full: user namespaces): 1, said
# loudly; anything else fails the test.
mode_ok() {
	sbx "$1" --net allow:allowed.test -- true && return 0
	echo "# $1 NOT TESTED: $(cat "$W/err")" >&3
	grep -qE "ABI [0-3] \(TCP rules need|user namespaces" "$W/err" && return 1
	echo "sbxrun failed for another reason" >&2
	return 2
}

@test "an allowed host: curl (http, https, socks5h), python3 urllib and git clone" {
	for m in $(modes); do
		mode_ok "$m" || { [ $? = 1 ] && continue; return 1; }
		run sbx "$m" --net allow:allowed.test -- curl -sS -m 10 \
			http://allowed.test:8080/index.html
		echo "$m: $output $(cat "$W/err")"
		[ "$status" = 0 ]
		[ "$output" = "hello from allowed.test" ]
		run sbx "$m" --net allow:allowed.test -- sh -c '
			curl -sS -m 10 https://allowed.test:8443/index.html &&
			curl -sS -m 10 -x "$ALL_PROXY" https://allowed.test:8443/index.html'
		echo "$m: $output $(cat "$W/err")"
		[ "$status" = 0 ]
		[ "${lines[0]}" = "hello from allowed.test" ]
		[ "${lines[1]}" = "hello from allowed.test" ]
		run sbx "$m" --net allow:allowed.test -- python3 -c '
import urllib.request
for u in ("http://allowed.test:8080/index.html", "https://allowed.test:8443/index.html"):
    print(urllib.request.urlopen(u, timeout=10).read().decode().strip())
'
		echo "$m: $output $(cat "$W/err")"
		[ "$status" = 0 ]
		[ "${lines[0]}" = "hello from allowed.test" ]
		[ "${lines[1]}" = "hello from allowed.test" ]
		rm -rf "$W/proj/clone"
		run sbx "$m" --net allow:allowed.test -- git clone -q \
			http://allowed.test:8080/repo.git clone
		echo "$m: $output $(cat "$W/err")"
		[ "$status" = 0 ]
		[ "$(cat "$W/proj/clone/file.txt")" = tracked ]
		# a large body arrives whole
		run sbx "$m" --net allow:allowed.test -- curl -sS -m 30 -o big.bin \
			https://allowed.test:8443/big.bin
		[ "$status" = 0 ]
		cmp "$W/www/big.bin" "$W/proj/big.bin"
		rm -f "$W/proj/big.bin"
	done
	no_hits
}

@test "a refused host: 403, explained once on stderr and in the report; the advice followed works" {
	for m in $(modes); do
		mode_ok "$m" || { [ $? = 1 ] && continue; return 1; }
		run sbx "$m" --report "$W/proj/r.json" --net allow:allowed.test -- sh -c '
			curl -sS -m 10 -o /dev/null -w "%{http_code}\n" http://other.test:8080/index.html
			curl -sS -m 10 -o /dev/null -w "%{http_code}\n" http://other.test:8080/index.html
			curl -sS -m 10 https://refused.example.invalid/ 2>/dev/null; echo "tls $?"'
		echo "$m: $output"
		cat "$W/err"
		[ "$status" = 0 ]
		[ "${lines[0]}" = 403 ]
		[ "${lines[1]}" = 403 ]
		[ "${lines[2]}" = "tls 56" ]
		line="sbxrun: cannot connect to other.test:8080: not in the network allow-list of this sandbox (allowed: allowed.test; rule network filtered from --net); to allow: sbxrun --net allow:other.test"
		[ "$(grep -cF "$line" "$W/err")" = 1 ]
		grep -qF "sbxrun: cannot connect to refused.example.invalid:443: not in the network allow-list of this sandbox (allowed: allowed.test; rule network filtered from --net); to allow: sbxrun --net allow:refused.example.invalid" "$W/err"
		python3 - "$W/proj/r.json" "$line" <<-'EOF'
			import json, sys
			r = json.load(open(sys.argv[1]))
			x = [x for x in r["refusals"] if x["target"] == "other.test:8080"]
			assert len(x) == 1, r["refusals"]
			x = x[0]
			assert x["operation"] == "connect" and x["reason"] == "not-allowed", x
			assert x["process"] == "sbxrun-proxy", x
			assert x["message"] == sys.argv[2], x
			assert x["count"] == 2, x
		EOF
		# the advice, followed as printed, lets the same request through
		fix=$(sed -n 's/.*other.test:8080.*; to allow: sbxrun //p' "$W/err")
		[ "$fix" = "--net allow:other.test" ]
		# shellcheck disable=SC2086 # the printed flag and its value
		run sbx "$m" $fix -- curl -sS -m 10 http://other.test:8080/index.html
		echo "$output $(cat "$W/err")"
		[ "$status" = 0 ]
		[ "$output" = "hello from allowed.test" ]
		# --quiet: nothing on stderr, the report still has it
		run sbx "$m" --quiet --report "$W/proj/r.json" --net allow:allowed.test -- \
			curl -sS -m 10 -o /dev/null -w "%{http_code}\n" http://other.test:8080/index.html
		[ "$output" = 403 ]
		grep -q "other.test" "$W/err" && false
		grep -qF "$line" "$W/proj/r.json"
		rm -f "$W/proj/r.json"
	done
}

@test "NET-07/NET-08/NET-09 rebinding, private, metadata and the host's loopback: refused at the decision, never reached" {
	for m in $(modes); do
		mode_ok "$m" || { [ $? = 1 ] && continue; return 1; }
		: > "$W/hits"
		run sbx "$m" --net allow:rebind.test,private.test,meta.test,mixed.test -- sh -c '
			for u in http://rebind.test:8080/ http://private.test:8080/ \
				http://meta.test/latest/meta-data/ http://mixed.test:8080/ \
				http://127.0.0.1:8080/ http://169.254.169.254/; do
				curl -sS -m 10 -o /dev/null -w "%{http_code}\n" --noproxy "" -x "$HTTP_PROXY" "$u"
			done'
		echo "$m: $output"
		cat "$W/err"
		[ "$status" = 0 ]
		# mixed.test has a public address too: that one is used
		[ "$output" = "$(printf '403\n403\n403\n200\n403\n403')" ]
		grep -qF "cannot connect to rebind.test:8080: resolves to 127.0.0.1, a loopback address, reachable only when listed by address" "$W/err"
		grep -qF "cannot connect to private.test:8080: resolves to 10.0.0.5, a private address" "$W/err"
		grep -qF "cannot connect to meta.test:80: resolves to 169.254.169.254, a cloud metadata address, never reachable from the sandbox" "$W/err"
		grep -qF "cannot connect to 169.254.169.254:80:" "$W/err"
		grep -qF "cannot connect to 127.0.0.1:8080:" "$W/err"
		no_hits
		# the printed advice, added to the same command, lets it through
		fix=$(sed -n 's/.*rebind.test:8080: resolves to.*; to allow: sbxrun //p' "$W/err")
		[ "$fix" = "--net allow:127.0.0.1:8080" ]
		# shellcheck disable=SC2086 # the printed flag and its value
		run sbx "$m" --net allow:rebind.test $fix -- curl -sS -m 10 http://rebind.test:8080/
		echo "$output $(cat "$W/err")"
		[ "$output" = canary ]
		grep -q "canary 127.0.0.1 8080" "$W/hits"
		: > "$W/hits"
	done
}

@test "NET-01/NET-11 around the proxy: direct connections fail, the shim bypassed too (static probe)" {
	for m in $(modes); do
		mode_ok "$m" || { [ $? = 1 ] && continue; return 1; }
		: > "$W/hits"
		for p in "$PROBE" "$PROBE.static"; do
			for a in "203.0.113.10 8080" "127.0.0.1 8080" "169.254.169.254 80" "10.0.0.5 8080"; do
				# shellcheck disable=SC2086
				run sbx "$m" --net allow:allowed.test -- env -u LD_PRELOAD "$p" connect $a
				echo "$m $p $a: $output"
				[ "$status" = 0 ]
				[[ "$output" == "-1 "* ]]
			done
		done
		no_hits
		grep -q "203.0.113.10" "$W/hits" && false
		# and with the shim: the direct attempt is explained
		run sbx "$m" --net allow:allowed.test -- "$PROBE" connect 203.0.113.11 8080
		[[ "$output" == "-1 "* ]]
		grep -qF "sbxrun: cannot connect to 203.0.113.11:8080: not in the network allow-list" "$W/err"
		# a program that resolves an allowed name itself is told why it
		# cannot (names are the proxy's to resolve); nothing is sent
		run sbx "$m" --net allow:allowed.test,unlisted.example.invalid -- \
			"$PROBE" connect unlisted.example.invalid 8080
		[[ "$output" == "gai "* ]]
		grep -qF "sbxrun: cannot resolve 'unlisted.example.invalid': in a filtered network names are resolved by sbxrun's proxy, not inside the sandbox: reach it through HTTP_PROXY, HTTPS_PROXY or ALL_PROXY (rule network filtered from --net)" "$W/err"
	done
}

@test "the conf's filtered mode: network = { mode = \"filtered\"; allow = [...] }" {
	for m in $(modes); do
		mode_ok "$m" || { [ $? = 1 ] && continue; return 1; }
		cat > "$W/home/net.conf" <<-'EOF'
			profile = "default";
			network = { mode = "filtered"; allow = [ "allowed.test:8080" ]; };
		EOF
		run sbx "$m" --profile "$W/home/net.conf" -- sh -c '
			curl -sS -m 10 http://allowed.test:8080/index.html
			curl -sS -m 10 -o /dev/null -w "%{http_code}\n" https://allowed.test:8443/index.html'
		echo "$m: $output $(cat "$W/err")"
		[ "${lines[0]}" = "hello from allowed.test" ]
		grep -qF "cannot connect to allowed.test:8443: not in the network allow-list of this sandbox (listed for port 8080 only; rule allowed.test:8080 from $W/home/net.conf:2); to allow: sbxrun --net allow:allowed.test:8443" "$W/err"
	done
}

# The real npm registry (this machine and CI reach it): the only test that
# leaves the machine, and only to the hosts of @npm; the refused name is
# an .invalid one, never looked up.
@test "npm install from the real registry through @npm; another name refused by name" {
	command -v npm >/dev/null || skip "npm is not installed"
	if ! curl -sS -m 15 -o /dev/null https://registry.npmjs.org/is-number 2>/dev/null; then
		echo "# SKIPPED LOUDLY: registry.npmjs.org is unreachable from this machine" >&3
		skip "registry.npmjs.org is unreachable from this machine"
	fi
	for m in $(modes); do
		d=$(mktemp -d /var/tmp/sbxnpm.XXXXXX)
		cd "$d"
		run "$SBXRUN" --mode "$m" --profile build --net allow:@npm -- npm install --no-audit --no-fund is-number
		echo "$m: $output"
		[ "$status" = 0 ]
		[ -f "$d/node_modules/is-number/package.json" ]
		# the default profile keeps ~/.npm read-only (a shared cache is a
		# way to poison later runs) and gives npm the project's own cache:
		# the same command works there as it is
		rm -rf "$d/node_modules" "$d/package.json" "$d/package-lock.json"
		run "$SBXRUN" --mode "$m" --net allow:@npm -- \
			npm install --no-audit --no-fund is-number
		echo "$m default profile: $output"
		[ "$status" = 0 ]
		[ -f "$d/node_modules/is-number/package.json" ]
		run "$SBXRUN" --mode "$m" --net allow:@npm -- curl -sS -m 10 https://not-allowed.example.invalid/
		echo "$m: $output"
		[ "$status" != 0 ]
		[[ "$output" == *"sbxrun: cannot connect to not-allowed.example.invalid:443: not in the network allow-list of this sandbox (allowed: @npm; rule network filtered from --net); to allow: sbxrun --net allow:not-allowed.example.invalid"* ]]
		cd /
		rm -rf "$d"
	done
}

# landlock-only: no network namespace, so the proxy listens on the host's
# loopback (every local user reaches it) and asks for the run's secret;
# Landlock lets connect(2) reach its port alone; seccomp refuses UDP (DNS
# exfiltration, NET-02) and TCP Fast Open (NET-06), which Landlock misses.
@test "NET-02/NET-06 landlock-only: the proxy wants the run's secret; UDP and TCP Fast Open refused" {
	mode_ok landlock-only ||
		{ [ $? = 1 ] && skip "landlock-only mode cannot run a filtered network here"; return 1; }
	run sbx landlock-only --net allow:allowed.test -- sh -c '
		case "$HTTPS_PROXY" in http://sbx:*@127.0.0.1:*) ;; *) echo "no secret: $HTTPS_PROXY"; exit 1 ;; esac
		port=${HTTPS_PROXY##*:}
		# without the secret: 407, from inside as from any local user
		curl -sS -m 10 -o /dev/null -w "%{http_code}\n" -x "http://127.0.0.1:$port" http://allowed.test:8080/index.html
		curl -sS -m 10 -o /dev/null -w "%{http_code}\n" -x "http://sbx:wrong@127.0.0.1:$port" http://allowed.test:8080/index.html
		curl -sS -m 10 http://allowed.test:8080/index.html
		python3 -c "
import socket
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print(\"udp open\")
except OSError as e:
    print(\"udp\", e.errno)
"
		"$1" fastopen 203.0.113.10 8080 || true
	' sh "$SBX_BUILD/probes/atk_syscall.static"
	echo "$output"
	cat "$W/err"
	[ "$status" = 0 ]
	[ "${lines[0]}" = 407 ]
	[ "${lines[1]}" = 407 ]
	[ "${lines[2]}" = "hello from allowed.test" ]
	[ "${lines[3]}" = "udp 1" ]
	[[ "${lines[4]}" != *OK* ]]
	no_hits
	grep -q "203.0.113.10" "$W/hits" && false
	# --dry-run says what is weaker
	run sbx landlock-only --net allow:allowed.test --dry-run
	[[ "$output" == *"network = filtered without a network namespace (landlock-only) is weaker than in full mode"* ]]
	[[ "$output" == *"network "*"partial (no network namespace: Landlock lets TCP connect reach only the proxy's port, on ANY address"* ]]
}

@test "hostile clients inside the sandbox stall neither the proxy nor the run" {
	for m in $(modes); do
		mode_ok "$m" || { [ $? = 1 ] && continue; return 1; }
		run sbx "$m" --timeout 60 --net allow:allowed.test -- sh -c '
			port=${HTTP_PROXY##*:}
			python3 "$1/hostile.py" slowloris "$port" 100 4 > slow.out &
			python3 "$1/hostile.py" garbage "$port"
			python3 "$1/hostile.py" huge "$port" 64
			sleep 0.5
			curl -sS -m 10 http://allowed.test:8080/index.html
			curl -sS -m 30 -o big.bin https://allowed.test:8443/big.bin && echo big
			wait
			cat slow.out' sh "$NETT"
		echo "$m: $output"
		cat "$W/err"
		[ "$status" = 0 ]
		[ "${lines[0]}" = closed ]
		[[ "${lines[1]}" == "HTTP/1.1 431"* || "${lines[1]}" == closed || "${lines[1]}" == "HTTP/1.1 400"* ]]
		[ "${lines[2]}" = "hello from allowed.test" ]
		[ "${lines[3]}" = big ]
		cmp "$W/www/big.bin" "$W/proj/big.bin"
		rm -f "$W/proj/big.bin" "$W/proj/slow.out"
	done
}
