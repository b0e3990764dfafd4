#!/usr/bin/env bash
# Regenerates the committed baselines the CI gate diffs against, with the
# exact commands .ci/run uses. Run it when a change is meant to move the
# numbers, and say in the commit which numbers moved and why.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
B=target/release/syncbench
$B matrix --quick --quiet --out target/quick
cp target/quick/report.json reports/baseline/quick.json
WORLD="--profiles wifi,4g --traces random-walk --seeds 1 --clients 20 --bots 200 --arena 200x200 --duration 10s --quiet"
$B matrix --algos snapshot,delta-snapshot,dead-reckoning,lockstep $WORLD --aoi none --out target/bots-none
cp target/bots-none/report.json reports/baseline/bots-none.json
$B matrix --algos snapshot,delta-snapshot $WORLD --aoi grid --out target/aoi-grid
cp target/aoi-grid/report.json reports/baseline/aoi-grid.json
# The example crate's own baseline (examples/my-netcode/baseline/README.md).
(cd examples/my-netcode && cargo run --release --quiet -p my-netcode -- compare --algos my-netcode --profile wifi --seeds 3 --duration 20s --quiet --out target-baseline \
  && cp target-baseline/report.json baseline/report.json && rm -rf target-baseline)
echo "baselines regenerated: reports/baseline/{quick,bots-none,aoi-grid}.json, examples/my-netcode/baseline/report.json"
