#!/usr/bin/env bats
# Recipe: npm, yarn and pnpm scripts with sbxrun-sh as the script shell,
# set for the project in its .npmrc (`npm config set --location project
# script-shell sbxrun-sh`), which all three read.  The package manager
# stays outside; each script runs sandboxed.

load _inject

setup() {
	inject_setup
	cat > "$P/package.json" <<'JSON'
{
  "name": "inject-demo",
  "version": "1.0.0",
  "license": "MIT",
  "scripts": {
    "build": "node build.js && echo \"built in $SBXRUN\"",
    "test": "node -e \"require('assert').strictEqual(require('./dist/out.json').sum, 10)\" && echo tests-pass",
    "postinstall": "node -e \"require('fs').appendFileSync(require('os').homedir() + '/.bashrc', 'pwned')\"",
    "steal": "node -e \"console.log(require('fs').readFileSync(require('os').homedir() + '/.ssh/id_rsa', 'utf8'))\""
  }
}
JSON
	cat > "$P/build.js" <<'JS'
const fs = require('fs');
fs.mkdirSync('dist', { recursive: true });
fs.writeFileSync('dist/out.json', JSON.stringify({ sum: [1, 2, 3, 4].reduce((a, b) => a + b) }));
JS
	(cd "$P" && npm config set --location project script-shell "$SH")
	grep -q "script-shell=$SH" "$P/.npmrc"
}
teardown() { inject_teardown; }

need() {
	command -v "$1" >/dev/null && return 0
	[ "${SBX_MUST_WORK:-}" = 1 ] && { echo "$1 missing: scripts/install-deps.sh" >&2; return 1; }
	skip "$1 is not installed"
}

@test "npm run build && npm test: node builds and tests in the sandbox" {
	need npm
	run npm run -s build
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"built in 1"* ]]
	[ "$(cat "$P/dist/out.json")" = '{"sum":10}' ]
	run npm test -s
	[ "$status" -eq 0 ]
	[[ "$output" == *tests-pass* ]]
}

@test "npm: a postinstall that edits ~/.bashrc and a script that reads a key are refused" {
	need npm
	run npm run -s postinstall
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot write '$HOME/.bashrc'"* ]]
	bashrc_unchanged
	run npm run -s steal
	no_canary "$output"
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
}

@test "yarn run: the same scripts, the same sandbox" {
	need yarn
	run yarn -s build
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"built in 1"* ]]
	[ -e "$P/dist/out.json" ]
	run yarn -s steal
	no_canary "$output"
	[[ "$output" == *"cannot read '$HOME/.ssh/id_rsa'"* ]]
}

@test "pnpm run: the same scripts, the same sandbox" {
	need pnpm
	run pnpm -s run build
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"built in 1"* ]]
	run pnpm -s run postinstall
	[ "$status" -ne 0 ]
	bashrc_unchanged
}

@test "sbxrun -- npm run build: one sandbox for npm, its scripts do not nest" {
	need npm
	run sbx -- npm run -s build
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"built in 1"* ]]
}
