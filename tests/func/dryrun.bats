#!/usr/bin/env bats
# --dry-run and the run agree on a filtered network (review U-03: the
# plan said "nothing reachable" while the run refused with 125).

bats_require_minimum_version 1.5.0
load ../lib/common
source "$BATS_TEST_DIRNAME/../escape/_lib.bats"

setup() { esc_setup; }
teardown() { esc_teardown; }

@test "U-03 --net allow:HOST: --dry-run shows the plan the run then uses, in both modes" {
	run --separate-stderr sbx --net allow:example.test --dry-run
	echo "$status $output $stderr"
	[ "$status" -eq 0 ]
	[[ "$output" == *"network: filtered (--net)"* ]]
	[[ "$output" == *"proxy"* ]]
	run --separate-stderr sbx --net allow:example.test -c 'echo "$HTTPS_PROXY" | grep -q . && echo ran'
	echo "$status $output $stderr"
	[ "$status" -eq 0 ] && [ "$output" = ran ]
	# the conf form, as the review used it
	printf 'profile = "default";\nnetwork = { mode = "filtered"; allow = [ "example.test" ]; };\n' > "$T/net.conf"
	run --separate-stderr sbx --profile "$T/net.conf" --dry-run
	[ "$status" -eq 0 ] && [[ "$output" == *"network: filtered"* ]]
	run --separate-stderr sbx --profile "$T/net.conf" -- true
	echo "$status $stderr"
	[ "$status" -eq 0 ]
}
