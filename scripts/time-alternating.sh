#!/usr/bin/env bash
# Times two commands that use several cores: runs them one after the
# other, alternating, N times each, and prints each one's median wall time
# and median peak memory. (Timing two commands side by side gives each
# one core, which hides what a run gains from more.)
#
# usage: scripts/time-alternating.sh N 'COMMAND A' 'COMMAND B'
# e.g.:  scripts/time-alternating.sh 3 \
#          'RAYON_NUM_THREADS=1 target/release/syncbench run --algo delta-snapshot --clients 200 --bots 2000 --arena 400x400 --aoi grid --duration 20s --format json' \
#          'target/release/syncbench run --algo delta-snapshot --clients 200 --bots 2000 --arena 400x400 --aoi grid --duration 20s --format json'
set -euo pipefail
if [ $# -ne 3 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 N 'COMMAND A' 'COMMAND B' (N: runs of each, at least 1)" >&2
  exit 2
fi
n=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for i in $(seq "$n"); do
  for x in a b; do
    cmd=$2
    [ $x = b ] && cmd=$3
    # Wall time to the millisecond (time's own %e has centiseconds); peak
    # memory from /usr/bin/time.
    start=$(date +%s%N)
    if ! /usr/bin/time -f "%M" -o "$dir/$x.$i.mem" bash -c "$cmd > /dev/null 2>&1"; then
      echo "command $x failed: $cmd" >&2
      exit 1
    fi
    end=$(date +%s%N)
    echo "$(( (end - start) / 1000000 )) $(tail -n 1 "$dir/$x.$i.mem")" > "$dir/$x.$i"
  done
done
for x in a b; do
  for f in "$dir"/$x.*; do case $f in *.mem) ;; *) cat "$f" ;; esac; done | sort -n | awk -v x="$x" '
    { w[NR] = $1 / 1000; m[NR] = $2 }
    END {
      k = int((NR + 1) / 2)
      printf "%s: median %.3f s (%.3f–%.3f s over %d runs), peak memory %.0f MB (that run)\n", x, w[k], w[1], w[NR], NR, m[k] / 1024
    }'
done
