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
# Real libraries under test on virtual time: naia beside the replicators.
$B matrix --algos naia,snapshot,delta-snapshot,prediction --profiles wifi,4g,naia-poor --traces random-walk --seeds 1 --duration 20s --quiet --out target/libraries
cp target/libraries/report.json reports/baseline/libraries.json
# The example crate's own baseline, by its own script (the run its gate repeats).
PROFILE=release examples/my-netcode/scripts/gate.sh --baseline > /dev/null
echo "baselines regenerated: reports/baseline/{quick,bots-none,aoi-grid,libraries}.json, examples/my-netcode/baseline/report.json"
