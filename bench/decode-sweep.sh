#!/bin/sh
# bench/decode-sweep.sh - every 2^32 word through the decoder against tests/interp/decode_ref.h
# (every field; exits 1 on a difference). Minutes of CPU: a long check, so `make bench`, not check.
set -e
nice "${BUILD:-build}"/bin/bench_decode "$@"
