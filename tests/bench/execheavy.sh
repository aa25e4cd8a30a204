#!/bin/sh
# A configure-like script for make bench: N iterations of the short
# commands configure scripts run by the thousand (write a test file, grep
# it, sed it, test, cat, expr, rm): 5 external programs per iteration.
#
#   execheavy.sh [N]        (default 500: 2,500 program starts)
#
# Runs in the current directory and leaves nothing behind.
set -eu
n=${1:-500}
i=0
while [ "$i" -lt "$n" ]; do
	printf '#include <stdio.h>\nint main(void) { return %d; }\n' "$i" > conftest.c
	grep -q 'int main' conftest.c
	sed 's/main/xmain/' conftest.c > conftest.out
	if [ -s conftest.out ]; then
		cat conftest.out > /dev/null
	fi
	# shellcheck disable=SC2003 # the point is to start a program
	expr "$i" + 1 > /dev/null
	rm -f conftest.c conftest.out
	i=$((i + 1))
done
