#!/bin/sh
# bench/ev5.sh - EV5 model: copy-loop CPI and per-instruction cycles vs DCPI Figure 7; retire speed.
set -e
"${BUILD:-build}"/bin/bench_ev5
