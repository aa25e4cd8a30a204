#!/bin/sh
# install-hook.sh - install (or remove) sbxrun as Claude Code's PreToolUse
# hook for the Bash tool, so that every shell command the agent runs is
# rewritten to run in the sandbox (sbxrun --hook claude-code).
#
#   scripts/install-hook.sh --project DIR     DIR/.claude/settings.json
#   scripts/install-hook.sh --user            ~/.claude/settings.json
#   ... --remove                              take it out again
#   ... --sbxrun PATH                         the sbxrun binary to use
#                                             (default: sbxrun on $PATH,
#                                             else this tree's build/sbxrun)
#
# Edits the JSON with jq and keeps everything else in the file: other
# settings, other hooks, other PreToolUse entries.  Idempotent: installing
# twice leaves one entry; an entry for another sbxrun path is replaced.
# Before changing an existing file it saves settings.json.bak-<timestamp>
# next to it.  Exit status: 0 done (or nothing to do), 1 error, 2 usage.
set -eu

prog=install-hook.sh
top=$(cd "$(dirname "$0")/.." && pwd -P)

usage() {
	cat >&2 <<EOF
usage: $prog (--project DIR | --user) [--remove] [--sbxrun PATH]

Installs sbxrun as Claude Code's PreToolUse hook for the Bash tool:
  --project DIR   in DIR/.claude/settings.json (shared with the project)
  --user          in ~/.claude/settings.json (every project)
  --remove        remove the hook instead (other hooks are kept)
  --sbxrun PATH   the sbxrun binary the hook runs (default: sbxrun on
                  \$PATH, else $top/build/sbxrun)
EOF
	exit 2
}

die() {
	echo "$prog: $*" >&2
	exit 1
}

scope='' dir='' remove=0 bin=''
while [ $# -gt 0 ]; do
	case $1 in
	--project)
		[ $# -ge 2 ] || usage
		scope=project dir=$2
		shift 2 ;;
	--project=*) scope=project dir=${1#--project=}; shift ;;
	--user) scope=user; shift ;;
	--remove) remove=1; shift ;;
	--sbxrun)
		[ $# -ge 2 ] || usage
		bin=$2
		shift 2 ;;
	--sbxrun=*) bin=${1#--sbxrun=}; shift ;;
	-h|--help) usage ;;
	*) echo "$prog: unknown argument '$1'" >&2; usage ;;
	esac
done
[ -n "$scope" ] || usage
command -v jq >/dev/null 2>&1 ||
	die "jq is needed to edit the settings (scripts/install-deps.sh installs it)"

if [ "$scope" = user ]; then
	[ -n "${HOME:-}" ] || die "HOME is not set"
	file=$HOME/.claude/settings.json
else
	[ -d "$dir" ] || die "no such project directory: $dir"
	dir=$(cd "$dir" && pwd -P)
	file=$dir/.claude/settings.json
fi
# A settings file that is a symlink (dotfiles) is edited where it points.
if [ -L "$file" ]; then
	file=$(readlink -f "$file") || die "cannot resolve the symlink $file"
fi

# ------------------------------------------------------------ the command
if [ "$remove" = 0 ]; then
	if [ -z "$bin" ]; then
		bin=$(command -v sbxrun 2>/dev/null || true)
		[ -n "$bin" ] || bin=$top/build/sbxrun
	fi
	case $bin in
	/*) ;;
	*) [ -e "$bin" ] || die "no such file: $bin"
	   bin=$(cd "$(dirname "$bin")" && pwd -P)/$(basename "$bin") ;;
	esac
	[ -x "$bin" ] || die "$bin is not an executable sbxrun (build it with make, or give --sbxrun PATH)"
	"$bin" --version >/dev/null 2>&1 || die "$bin --version failed: is it sbxrun?"
	case $bin in
	*[!A-Za-z0-9_./+-]*) qbin=$(jq -rn --arg p "$bin" '$p | @sh') ;;
	*) qbin=$bin ;;
	esac
	cmd="$qbin --hook claude-code"
fi

# Claude Code lets a hook that times out through (a non-blocking error): the
# command would run unsandboxed.  sbxrun --hook denies by itself after 5
# seconds (THREATS CONF-03); the agent's timeout is set well above that so
# the deny is what arrives.  Claude Code has no fail-closed switch.
hook_timeout=30

# ------------------------------------------------------------ jq programs
# An entry is ours when it runs some sbxrun with --hook claude-code.
defs='
def ours: type == "object" and .type == "command" and
	((.command // "") | type == "string" and
	 test("sbxrun\u0027?(\\s.*)?\\s--hook\\s+claude-code\\s*$"));
def has_ours: (.hooks.PreToolUse // []) |
	any(.[]; (.hooks // []) | type == "array" and any(.[]; ours));
def without_ours: .hooks.PreToolUse |= ((. // []) | map(
	if ((.hooks // []) | type == "array" and any(.[]; ours))
	then (.hooks |= map(select(ours | not))) | select(.hooks | length > 0)
	else . end));
'
check='
type == "object" and
((.hooks // {}) | type == "object") and
((.hooks.PreToolUse // []) | type == "array")
'

if [ -s "$file" ]; then
	jq -e . "$file" >/dev/null 2>&1 || die "$file is not valid JSON; not touching it"
	jq -e "$check" "$file" >/dev/null 2>&1 ||
		die "$file: expected an object whose \"hooks\" is an object and \"hooks.PreToolUse\" an array; not touching it"
	old=$(jq -S . "$file")
	src=$file
elif [ -e "$file" ]; then
	old='{}' src=/dev/null	# empty file
else
	old='' src=/dev/null
fi
input() { if [ "$src" = /dev/null ]; then echo '{}'; else cat "$src"; fi; }

if [ "$remove" = 1 ]; then
	if [ -z "$old" ] || ! input | jq -e "$defs has_ours" >/dev/null; then
		echo "$prog: no sbxrun hook in $file; nothing to remove"
		exit 0
	fi
	new=$(input | jq "$defs without_ours
		| if .hooks.PreToolUse == [] then del(.hooks.PreToolUse) else . end
		| if .hooks == {} then del(.hooks) else . end")
else
	new=$(input | jq --arg cmd "$cmd" "$defs
		(.hooks //= {}) | without_ours
		| .hooks.PreToolUse += [{matcher: \"Bash\",
			hooks: [{type: \"command\", command: \$cmd,
				timeout: $hook_timeout}]}]")
fi

if [ -n "$old" ] && [ "$(printf '%s\n' "$new" | jq -S .)" = "$old" ]; then
	echo "$prog: $file already has the sbxrun hook ($cmd); nothing to do"
	exit 0
fi

# ------------------------------------------------------------ write
mkdir -p "$(dirname "$file")"
if [ -e "$file" ]; then
	bak=$file.bak-$(date +%Y%m%d-%H%M%S)
	n=1
	while [ -e "$bak" ]; do
		bak=$file.bak-$(date +%Y%m%d-%H%M%S)-$n
		n=$((n + 1))
	done
	cp -p "$file" "$bak"
fi
tmp=$(mktemp "$(dirname "$file")/.settings.json.XXXXXX")
trap 'rm -f "$tmp"' EXIT
printf '%s\n' "$new" > "$tmp"
if [ -e "$file" ]; then chmod --reference="$file" "$tmp"; else chmod 0644 "$tmp"; fi
mv -f "$tmp" "$file"
trap - EXIT

if [ "$remove" = 1 ]; then
	echo "$prog: removed the sbxrun hook from $file"
else
	echo "$prog: installed the sbxrun hook in $file: $cmd"
	echo "$prog: every Bash command Claude Code runs there now runs in the sandbox; start a new session (or check /hooks) for it to apply"
fi
[ -z "${bak:-}" ] || echo "$prog: previous settings saved as $bak"
