#!/usr/bin/env bats
# The layout as the build enforces it (HACKING.md): each folder compiles
# with its own include path, so a wrong-way include fails to build; libsbx
# holds no CLI or hook code and exports include/sbx.h and nothing else.

load ../lib/common

setup() { sbx_setup; }
teardown() { sbx_teardown; }

# Compile a one-line file as if it lived in the folder of $1, with the
# project's flags for that folder (GNUmakefile's print-cflags).
compiles_as() {
	local flags
	flags=$(make -s -C "$SBX_TOP" --no-print-directory print-cflags FOR="$1") || return 2
	printf '%s\nint sbx_layout_probe(void);\nint sbx_layout_probe(void) { return 0; }\n' "$2" > "$T/probe.c"
	(cd "$SBX_TOP" && cc $flags -M -MT probe "$T/probe.c")
}

# $1 may include $2, and may not include any of the rest.
may_only() {
	local from=$1 ok=$2 h
	shift 2
	run compiles_as "$from" "#include \"$ok\""
	echo "$from including $ok: $output"
	[ "$status" -eq 0 ]
	for h in "$@"; do
		run compiles_as "$from" "#include \"$h\""
		echo "$from including $h: status $status"
		# A copy installed in a system directory (make install puts sbx.h
		# in /usr/local/include) is not the tree's: only a header of the
		# tree reached from $from breaks the layering.
		if [ "$status" -eq 0 ]; then
			[[ "$output" != *"$SBX_TOP/"*"/$h"* && "$output" != *" include/$h"* && "$output" != *" core/$h"* && "$output" != *" launcher/"*"/$h"* ]]
		else
			[[ "$output" == *"$h"*"No such file"* ]]
		fi
	done
}

@test "core includes nothing of the library, the CLI, the kernel or the public API" {
	may_only core/policy.c policy.h api.h conf.h sbx.h sbx_cli.h kernel.h cli.h
}

@test "the CLI sees sbx.h and sbx_cli.h only: no core, library or kernel header" {
	may_only launcher/cli/cli.c sbx.h policy.h api.h conf.h kernel.h linux.h mountview.h
	may_only launcher/cli/hook.c sbx_cli.h explain.h rundir.h
}

@test "the library reaches the backend through kernel.h only, and never the CLI" {
	may_only launcher/lib/run.c kernel.h linux.h compat.h mountview.h cli.h hook.h die.h
}

@test "a backend uses core and kernel.h, not the library" {
	may_only launcher/kernel/linux/child.c kernel.h api.h conf.h sbx.h sbx_cli.h cli.h
}

@test "the shim builds from core alone" {
	may_only shim/init.c cpol.h api.h kernel.h sbx.h
}

@test "libsbx.a holds no CLI or hook object and defines no CLI symbol" {
	local lib="$SBX_BUILD/libsbx.a" o base
	[ -f "$lib" ]
	for o in $(ar t "$lib"); do
		base=${o%.o}
		[ -f "$SBX_TOP/core/$base.c" ] || [ -f "$SBX_TOP/launcher/lib/$base.c" ] ||
			ls "$SBX_TOP"/launcher/kernel/*/"$base.c" >/dev/null 2>&1 || {
			echo "libsbx.a member $o comes from no core, library or kernel source"; return 1; }
		[ ! -f "$SBX_TOP/launcher/cli/$base.c" ] || { echo "CLI object $o in libsbx.a"; return 1; }
	done
	run bash -c "nm --defined-only '$lib' | awk '\$2 ~ /^[TDBR]\$/ {print \$3}' | grep -E '^(cli_|sbx_hook_|sbx_base64|sbx_sh_quote|die|note|warning$)'"
	echo "$output"
	[ "$status" -eq 1 ]
	# and the CLI archive does have them, so the check above can fail
	nm --defined-only "$SBX_BUILD/libsbxcli.a" | grep -q ' T sbx_hook_main$'
	nm --defined-only "$SBX_BUILD/libsbxcli.a" | grep -q ' T cli_main$'
}

@test "libsbx.so exports exactly the functions include/sbx.h declares" {
	local want have
	want=$(grep -o '^SBX_API [^(]*(' "$SBX_TOP/include/sbx.h" | sed 's/($//; s/.*[ *]//' | sort)
	have=$(nm -D --defined-only "$SBX_BUILD/libsbx.so" | awk '{print $3}' | sort)
	echo "declared: $want"
	echo "exported: $have"
	[ -n "$want" ]
	[ "$want" = "$have" ]
}
