#!/usr/bin/env bash
# my-netcode's regression gate, as its CI runs it (.github/workflows):
# the tests (contracts, the algorithm's own assertions), then the run its
# baseline was made with, diffed against baseline/report.json under
# gate.toml. Exit 1 on a regression, 2 on bad input.
#
#   scripts/gate.sh               # test, run, diff
#   scripts/gate.sh --baseline    # remake baseline/ after a change meant to move the numbers
#   PROFILE=release scripts/gate.sh
#
# PROFILE is the cargo profile (default `fast`: optimised, one-second
# rebuilds; the numbers are the same under every profile).
set -euo pipefail
cd "$(dirname "$0")/.."
profile="${PROFILE:-fast}"
syncbench() { cargo run --quiet --profile "$profile" -- "$@"; }
# The run the baseline is made with and the gate repeats.
RUN=(compare --algos my-netcode --profile wifi --seeds 3 --duration 20s --quiet)

if [[ "${1:-}" == "--baseline" ]]; then
  # The baseline is the run's report.json; its HTML, CSV and Markdown
  # stay in target/syncbench-baseline.
  syncbench "${RUN[@]}" --out target/syncbench-baseline
  mkdir -p baseline
  cp target/syncbench-baseline/report.json baseline/report.json
  echo "baseline/report.json remade: commit it"
  exit 0
fi
if [[ $# -gt 0 ]]; then
  echo "gate.sh: unknown argument '$1': expected --baseline or nothing" >&2
  exit 2
fi
if [[ ! -f baseline/report.json ]]; then
  echo "gate.sh: no baseline/report.json: make it with scripts/gate.sh --baseline, then commit it" >&2
  exit 2
fi

cargo test --quiet --profile "$profile"
out=target/syncbench-gate
syncbench "${RUN[@]}" --out "$out"
if [[ -n "${GITHUB_STEP_SUMMARY:-}" ]]; then
  syncbench diff baseline/report.json "$out/report.json" --gate gate.toml --format md >> "$GITHUB_STEP_SUMMARY" || true
fi
syncbench diff baseline/report.json "$out/report.json" --gate gate.toml
