# Shared set-up for the bats suites: a throw-away HOME with canary secrets,
# a project directory, and helpers that judge results from outside.
: "${SBX_TOP:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
: "${SBX_BUILD:=$SBX_TOP/build}"
: "${SBX_MODE:=auto}"
export SBXRUN_PROFILE_DIR="$SBX_TOP/profiles"
SBXRUN="$SBX_BUILD/sbxrun"
PROBES="$SBX_BUILD/probes"
CANARY="sbxrun-canary-$$-secret"

sbx_setup() {
	# Not under /tmp: the sandbox has a private /tmp, and the tests need
	# a home and project that exist on both sides.
	T=$(mktemp -d /var/tmp/sbxt.XXXXXX)
	chmod 755 "$T"
	export HOME="$T/home"
	unset XDG_CONFIG_HOME XDG_RUNTIME_DIR
	mkdir -p "$HOME/.ssh" "$HOME/.aws" "$HOME/.config" "$T/proj"
	echo "$CANARY" > "$HOME/.ssh/id_rsa"
	echo "[default]
aws_secret_access_key = $CANARY" > "$HOME/.aws/credentials"
	echo "# rc" > "$HOME/.bashrc"
	chmod 700 "$HOME/.ssh"
	P="$T/proj"
	cd "$P"
}

sbx_teardown() {
	cd /
	[ -n "${T:-}" ] && rm -rf "$T"
}

# Run sbxrun in the mode under test.
sbx() {
	"$SBXRUN" --mode "$SBX_MODE" "$@"
}

# Fail (or skip outside CI) when the machine cannot sandbox.
require_kernel() {
	if ! "$SBXRUN" --mode "$SBX_MODE" --status >/dev/null 2>&1; then
		if [ "${SBX_MUST_WORK:-}" = 1 ]; then
			echo "kernel mode $SBX_MODE unavailable: $("$SBXRUN" --mode "$SBX_MODE" --status 2>&1)" >&2
			return 1
		fi
		skip "kernel mode $SBX_MODE unavailable here"
	fi
}

# The canary must not appear anywhere in the given text.
no_canary() {
	case "$1" in *"$CANARY"*) echo "canary leaked: $1" >&2; return 1;; esac
}
