#!/usr/bin/env bash
# Counts the instructions one syncbench command executes, on one core
# (valgrind's cachegrind, no cache simulation): deterministic, where this
# machine's wall times wander by 15% between sittings — how the guide's
# performance chapter and log say what a change saved.
#
# usage: scripts/count-instructions.sh ARGS...
# e.g.:  scripts/count-instructions.sh run --algo lockstep --profile wifi --duration 60s --format json
#        SYNCBENCH=/tmp/before/target/release/syncbench scripts/count-instructions.sh conform --algo delta-snapshot --cases 30
#        SYNCBENCH=target/release/examples/one_match scripts/count-instructions.sh snapshot
# SYNCBENCH names the binary (default: target/release/syncbench); the
# last line counts one iteration of the criterion `match` benchmark
# (`cargo build --release --example one_match`).
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 ARGS... (a syncbench command line, e.g. run --algo lockstep --duration 60s)" >&2
  exit 2
fi
if ! command -v valgrind >/dev/null; then
  echo "valgrind not found: install it (Debian: apt-get install valgrind)" >&2
  exit 2
fi
bin=${SYNCBENCH:-target/release/syncbench}
if [ ! -x "$bin" ]; then
  echo "$bin not found: run cargo build --release first, or set SYNCBENCH" >&2
  exit 2
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! RAYON_NUM_THREADS=1 valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
  --log-file="$log" "$bin" "$@" > /dev/null; then
  echo "the command failed: $bin $*" >&2
  exit 1
fi
sed -n 's/.*I *refs: *//p' "$log"
