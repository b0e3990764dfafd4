#!/usr/bin/env bash
# Writes traces/freedoom-dm.trace and traces/freedoom-coop.trace from the
# Freedoom demo lumps kept in traces/recordings/ (taken from
# freedoom/freedoom@d14dbbee, lumps/, BSD-3-Clause). With a Freedoom
# checkout as $1, it first converts every demo lump there and reports
# which convert and which exit 2, and why.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${SYNCBENCH:-target/release/syncbench}
[ -x "$bin" ] || cargo build --release --quiet
if [ $# -ge 1 ]; then
    for f in "$1"/lumps/*.lmp; do
        if out=$("$bin" trace import doom "$f" --out /dev/null 2>&1); then
            echo "ok     $(basename "$f"): ${out#wrote /dev/null }"
        else
            code=$?
            echo "exit $code $(basename "$f"): $out"
            [ $code -eq 2 ] || exit 1
        fi
    done
fi
repo="freedoom/freedoom@d14dbbee3b6fbfb2c11cdb65eb61216e86d4ee85"
licence="BSD-3-Clause, Copyright (c) 2001-2024 Contributors to the Freedoom project; licence text in traces/recordings/licenses/freedoom-BSD-3-Clause.txt"
"$bin" trace import doom traces/recordings/demo1_dm.lmp --out traces/freedoom-dm.trace \
    --description "Four people playing a deathmatch (FreeDM map 21, altdeath), 148.7 s of real play" \
    --note "Source: $repo, lumps/demo1_dm.lmp (last changed in e70899122a4f); a copy is in traces/recordings/." \
    --note "Players: Xindage, Chungy, Erick and Xer (lumps/README.DEMO: 'DEMO1: DM21 by Xindage, Chungy, Erick, and Xer')." \
    --note "Licence: $licence."
"$bin" trace import doom traces/recordings/demo2_p1.lmp --out traces/freedoom-coop.trace \
    --description "Three people playing cooperatively against monsters (Freedoom Phase 1 E2M4), 202.5 s of real play" \
    --note "Source: $repo, lumps/demo2_p1.lmp (last changed in 38ac897b962f); a copy is in traces/recordings/." \
    --note "Players: Xindage, Erick and Korp (lumps/README.DEMO: 'DEMO2: E2M4 Cooperative by Xindage, Erick and Korp')." \
    --note "Licence: $licence."
