#!/usr/bin/env bash
# tests/workloads/count-insns.sh - count the Alpha instructions a workload executes, under qemu-alpha.
#
# Usage: tests/workloads/count-insns.sh NAME [ARGS...]   (BUILD in the environment, default build)
# Runs $BUILD/workloads/NAME (or the program NAME) under qemu-alpha with one instruction per
# translation block and block chaining off (-singlestep -d exec,nochain), so QEMU logs one "Trace"
# line per executed instruction, and counts them. Includes the dynamic loader and glibc start-up.
# The program's own exit status is ignored. Slow: about 3.5 s per million instructions.
# A measuring aid, not a check step.
set -u
if [ $# -lt 1 ]; then
	echo "usage: $0 NAME [ARGS...]" >&2
	exit 2
fi
top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case "$BUILD" in /*) ;; *) BUILD=$top/$BUILD ;; esac
name=$1
shift
bin=$BUILD/workloads/$name
[ -x "$bin" ] || bin=$name
n=$(qemu-alpha -L /usr/alpha-linux-gnu -singlestep -d exec,nochain -D /dev/stderr "$bin" "$@" \
	2>&1 >/dev/null | grep -c '^Trace')
echo "$name $*: $n instructions"
