#!/usr/bin/env bash
# Keeps the two pages a newcomer opens first short: README.md (the front
# door) and ARCHITECTURE.md (the map) each at most 250 lines. A finding,
# a measurement or a feature's details belong in a chapter of the guide
# (docs/book/src/), linked from one line of README.
# Usage: scripts/check-doc-sizes.sh   (exit 1 naming each file too long)
set -euo pipefail
cd "$(dirname "$0")/.."
limit=250
bad=0
for file in README.md ARCHITECTURE.md; do
  lines=$(wc -l < "$file")
  if (( lines > limit )); then
    echo "check-doc-sizes: $file is $lines lines, at most $limit: move details into a chapter of docs/book/src/ and link it"
    bad=1
  else
    echo "check-doc-sizes: $file is $lines lines (at most $limit)"
  fi
done
exit $bad
