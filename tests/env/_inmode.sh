#!/bin/sh
# _inmode.sh MODE SBXRUN PROBES ARGS...: run sbxrun so that auto picks
# MODE: full as it is, landlock-only with user namespaces refused by a
# seccomp filter, as a container runtime does (tests/probes/nouserns).
m=$1 sbxrun=$2 probes=$3
shift 3
case $m in
full) exec "$sbxrun" "$@" ;;
landlock-only) exec "$probes/nouserns" early "$sbxrun" "$@" ;;
*) echo "_inmode.sh: unknown mode $m" >&2; exit 2 ;;
esac
