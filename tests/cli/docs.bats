#!/usr/bin/env bats
# What ships beside the binary: the man pages (rendered by man itself, and
# kept in step with the option table and the conf parser) and the shell
# completions generated from the option table, loaded in real shells.

load ../lib/common

setup() { sbx_setup; }
teardown() { sbx_teardown; }

MAN1="$SBX_BUILD/man/sbxrun.1"
MAN5="$SBX_BUILD/man/sbxrun.conf.5"
GEN="$SBX_BUILD/tools/gen_completion"
COMP="$SBX_BUILD/completion"

# The page as a person reads it, 80 columns wide.
render() {
	MANWIDTH=80 man -l "$1" 2>/dev/null
}

@test "man -l renders sbxrun(1) and sbxrun.conf(5) without a warning" {
	for page in "$MAN1" "$MAN5"; do
		[ -s "$page" ]
		run bash -c 'MANWIDTH=80 man -l --warnings "$1" 2>&1 >/dev/null' _ "$page"
		[ "$status" -eq 0 ]
		[ -z "$output" ] || { echo "$page: $output" >&2; false; }
		# Nothing runs past the 80 columns either.
		run bash -c 'MANWIDTH=80 man -l "$1" 2>/dev/null | awk "length > 80"' _ "$page"
		[ -z "$output" ] || { echo "$page: too wide: $output" >&2; false; }
	done
	render "$MAN1" | grep -q '^EXIT STATUS'
	render "$MAN5" | grep -q '^PRECEDENCE'
}

@test "sbxrun(1) documents every option of the table, and no other" {
	run "$GEN" options
	[ "$status" -eq 0 ]
	table=$(printf '%s\n' "$output" | sort)
	[ "$(printf '%s\n' "$table" | wc -l)" -gt 20 ]
	# Option headings: the lines indented like a definition that start
	# with a dash ("-c, --command string", "--quiet").
	documented=$(render "$MAN1" | grep -E '^ {7}-' | sed 's/^ *//' |
		grep -oE '(^|, )-(-[a-z0-9-]+|[a-zA-Z])' | sed 's/^, //' | sort -u)
	if [ "$table" != "$documented" ]; then
		echo "only in the option table:" >&2
		comm -23 <(echo "$table") <(echo "$documented") >&2
		echo "only in sbxrun(1):" >&2
		comm -13 <(echo "$table") <(echo "$documented") >&2
		false
	fi
}

@test "sbxrun.conf(5) documents every top-level key the parser knows" {
	# The parser names its keys when it meets an unknown one.
	echo 'no_such_key = 1;' > bad.conf
	run "$SBXRUN" --profile "$P/bad.conf" --list-paths
	[ "$status" -eq 125 ]
	known=$(printf '%s\n' "$output" | sed -n 's/.*(known: \(.*\)).*/\1/p' | tr -d ' ' | tr ',' '\n')
	[ "$(echo "$known" | wc -l)" -ge 9 ]
	page=$(render "$MAN5")
	for k in $known; do
		grep -qE "^ {7}$k = " <<<"$page" || { echo "sbxrun.conf(5) lacks '$k'" >&2; false; }
	done
}

@test "every key sbxrun.conf(5) documents is one the parser accepts" {
	# Each documented key, alone in a conf of its own: none may be unknown.
	cat > keys.conf <<-'EOF'
	profile = "default";
	paths = ( { root = "/srv/x"; mode = "ro"; suffixes = [ ".md" ]; max_file_bytes = "1M"; } );
	protect = [ "docs" ];
	network = { mode = "off"; allow = [ "example.org" ]; unix_sockets = [ ]; };
	exec = { deny = ( { program = "x"; args = [ "y" ]; reason = "z"; } ); };
	env = { keep = [ "A" ]; drop = [ "B" ]; };
	limits = { timeout = 1; cpu = 0; memory = "1G"; nofile = 64; nproc = 64; fsize = "1G"; };
	fallback = "deny";
	redirect_caches = false;
	inject = "each";
	EOF
	run "$SBXRUN" --profile "$P/keys.conf" --list-paths
	[ "$status" -eq 0 ] || { echo "$output" >&2; false; }
	# The documented names, from the page, are all in that conf.
	page=$(render "$MAN5" | sed -n '/^KEYS/,/^PROFILES/p')
	for k in $(grep -oE '^ +[a-z_]+ = (string|boolean|integer|size|array|list|group)' <<<"$page" | awk '{print $1}'); do
		grep -q "\\b$k = " keys.conf || { echo "documented key '$k' is not tested" >&2; false; }
	done
}

@test "each completion script lists every option of the table" {
	run "$GEN" options
	[ "$status" -eq 0 ]
	for opt in $output; do
		grep -q -- " $opt\\b\\|'$opt\\b" "$COMP/sbxrun.bash" || { echo "bash lacks $opt" >&2; false; }
		case $opt in
		--*) grep -q -- "-l ${opt#--}\\b" "$COMP/sbxrun.fish" ;;
		*) grep -q -- "-s ${opt#-}\\b" "$COMP/sbxrun.fish" ;;
		esac || { echo "fish lacks $opt" >&2; false; }
		grep -q -- "$opt" "$COMP/_sbxrun" || { echo "zsh lacks $opt" >&2; false; }
	done
}

# Call the bash completion function as bash does for the words given
# (the last one is the word being completed) and print its answers.
bash_complete() {
	bash -c '
		source "$1"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
		_sbxrun sbxrun "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$COMP/sbxrun.bash" "$@"
}

@test "bash completion loads and completes options, their values and the command" {
	run bash -c 'source "$1" && complete -p sbxrun' _ "$COMP/sbxrun.bash"
	[ "$status" -eq 0 ]
	[ "$output" = "complete -F _sbxrun sbxrun" ]
	run bash_complete sbxrun --pro
	[ "$output" = "--profile" ]
	run bash_complete sbxrun --mode ''
	[ "$output" = "$(printf 'auto\nfull\nlandlock-only')" ]
	run bash_complete sbxrun --mode = l
	[ "$output" = "landlock-only" ]
	run bash_complete sbxrun --quiet --net lo
	[ "$output" = "loopback" ]
	# A profile of the user's own, and the shipped ones through datadir.
	mkdir -p "$HOME/.config/sbxrun/profiles"
	touch "$HOME/.config/sbxrun/profiles/mine.conf"
	run bash_complete sbxrun --profile mi
	[ "$output" = "mine" ]
	# Files for path arguments, directories for --workdir.
	mkdir sub && touch subfile
	run bash_complete sbxrun --allow-write sub
	[ "$(sort <<<"$output")" = "$(printf 'sub\nsubfile')" ]
	run bash_complete sbxrun --workdir sub
	[ "$output" = "sub" ]
	# The command: after "--", after the first word that is no option,
	# never an sbxrun option in the command's words.
	run bash_complete sbxrun -- ech
	[[ "$output" == *echo* ]]
	run bash_complete sbxrun --profile build ech
	[[ "$output" == *echo* ]]
	run bash_complete sbxrun ls --pro
	[[ "$output" != *--profile* ]]
	run bash_complete sbxrun -c ''
	[ -z "$output" ]
}

@test "bash: sbxrun --pro<TAB> becomes --profile in an interactive shell" {
	run "$SBX_TOP/tests/lib/tabpty.py" bash "$COMP/sbxrun.bash" 'sbxrun --pro'
	[ "$status" -eq 0 ]
	[[ "$output" == *"sbxrun --profile "* ]]
	run "$SBX_TOP/tests/lib/tabpty.py" bash "$COMP/sbxrun.bash" 'sbxrun --mode landl'
	[[ "$output" == *"sbxrun --mode landlock-only "* ]]
}

@test "zsh: the completion parses and completes --pro<TAB>" {
	command -v zsh >/dev/null || skip "zsh is not installed (scripts/install-deps.sh)"
	run zsh -n "$COMP/_sbxrun"
	[ "$status" -eq 0 ]
	[ "$(head -1 "$COMP/_sbxrun")" = "#compdef sbxrun" ]
	run "$SBX_TOP/tests/lib/tabpty.py" zsh "$COMP/_sbxrun" 'sbxrun --pro'
	[ "$status" -eq 0 ]
	[[ "$output" == *"sbxrun --profile="* ]]
	run "$SBX_TOP/tests/lib/tabpty.py" zsh "$COMP/_sbxrun" 'sbxrun --quiet -- ech'
	[[ "$output" == *"sbxrun --quiet -- echo "* ]]
}

@test "fish: the completion parses and completes options, values and the command" {
	command -v fish >/dev/null || skip "fish is not installed (scripts/install-deps.sh)"
	run fish -n "$COMP/sbxrun.fish"
	[ "$status" -eq 0 ]
	fc() { fish --no-config -c "source '$COMP/sbxrun.fish'; complete -C '$1'" | cut -f1; }
	[ "$(fc 'sbxrun --pro')" = "--profile" ]
	[ "$(fc 'sbxrun --mode ')" = "$(printf 'auto\nfull\nlandlock-only')" ]
	[[ "$(fc 'sbxrun -- ech')" == *echo* ]]
	[[ "$(fc 'sbxrun --quiet ech')" == *echo* ]]
	[[ "$(fc 'sbxrun ls --pro')" != *--profile* ]]
}

@test "gen_completion refuses an unknown shell" {
	run "$GEN" tcsh /usr/share/sbxrun
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot generate for 'tcsh'"* ]]
}

@test "GNUmakefile, debian/changelog and CHANGELOG.md agree on the version" {
	v=$(sed -n 's/^VERSION *:= *//p' "$SBX_TOP/GNUmakefile")
	[ -n "$v" ]
	[[ "$(head -1 "$SBX_TOP/debian/changelog")" == "sbxrun ($v) "* ]]
	grep -m1 '^## ' "$SBX_TOP/CHANGELOG.md" | grep -q "^## $v\\b"
	run "$SBXRUN" --version
	[ "$output" = "sbxrun $v" ]
	# The man pages carry it too.
	MANWIDTH=80 man -l "$MAN1" 2>/dev/null | tail -1 | grep -q "sbxrun $v"
}
