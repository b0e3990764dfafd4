#!/usr/bin/env bash
# Times the edit loop of a crate made by `syncbench new`: one edit of its
# src/lib.rs rebuilt under `--profile fast` and under `--release`. The
# first build of each profile (every dependency) is timed too, unless the
# target directory already holds it.
#
#   scripts/edit-loop.sh [TARGET_DIR]   # default: a fresh directory under target/
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
target="${1:-$root/target/edit-loop}"
crate="$(mktemp -d)/edit-loop"
cargo run --release --quiet -- new "$crate" --quiet
cd "$crate"
export CARGO_TARGET_DIR="$target"
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
for profile in fast release; do
  first=$(seconds cargo build --profile "$profile")
  echo "// an edit" >> src/lib.rs
  edit=$(seconds cargo build --profile "$profile")
  printf '%-8s first build %7.1f s   one edit of src/lib.rs %6.2f s\n' "$profile" "$first" "$edit"
done
