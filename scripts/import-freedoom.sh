#!/usr/bin/env bash
# Writes traces/freedoom-*.trace from the Freedoom demo lumps kept in
# traces/recordings/ (taken from freedoom/freedoom@d14dbbee, lumps/,
# BSD-3-Clause): every demo lump there but fakedemo.lmp (an 18-byte
# placeholder with no tics). With a Freedoom
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
# One trace from one lump: name, lump, last commit to change the lump,
# description, players (as lumps/README.DEMO names them).
one() {
    "$bin" trace import doom "traces/recordings/$2" --out "traces/$1.trace" \
        --description "$4" \
        --note "Source: $repo, lumps/$2 (last changed in $3); a copy is in traces/recordings/." \
        --note "Players: $5." \
        --note "Licence: $licence."
}
# The calibration set: the `human` generator's population is fitted to
# every player of these seven (harness/src/trace/population.rs).
one freedoom-dm demo1_dm.lmp e70899122a4f \
    "Four people playing a deathmatch (FreeDM map 21, altdeath), 148.7 s of real play" \
    "Xindage, Chungy, Erick and Xer (lumps/README.DEMO: 'DEMO1: DM21 by Xindage, Chungy, Erick, and Xer')"
one freedoom-coop demo2_p1.lmp 38ac897b962f \
    "Three people playing cooperatively against monsters (Freedoom Phase 1 E2M4), 202.5 s of real play" \
    "Xindage, Erick and Korp (lumps/README.DEMO: 'DEMO2: E2M4 Cooperative by Xindage, Erick and Korp')"
one freedoom-e1m6 demo1_p1.lmp 3ea0ae1c18f5 \
    "One person playing alone against monsters (Freedoom Phase 1 E1M6), 203.3 s of real play" \
    "mc776 (lumps/README.DEMO: 'DEMO1: E1M6 Singleplayer by mc776')"
one freedoom-map03 demo1_p2.lmp 5799d0e304df \
    "One person playing alone against monsters (Freedoom Phase 2 MAP03), 76.1 s of real play" \
    "mc776 (lumps/README.DEMO: 'DEMO1: MAP03 Singleplayer by mc776')"
one freedoom-map10 demo2_p2.lmp 77d6c2b19f8c \
    "Two people playing cooperatively against monsters (Freedoom Phase 2 MAP10), 155.5 s of real play" \
    "Xindage and Korp (lumps/README.DEMO: 'DEMO2: MAP10 Cooperative by Xindage and Korp')"
one freedoom-e3m9 demo3_p1.lmp 38ac897b962f \
    "Three people playing cooperatively against monsters (Freedoom Phase 1 E3M9), 172.6 s of real play" \
    "Xindage, Erick and Korp (lumps/README.DEMO: 'DEMO3: E3M9 Cooperative by Xindage, Erick and Korp')"
one freedoom-e4m6 demo4_p1.lmp 38ac897b962f \
    "Three people playing cooperatively against monsters (Freedoom Phase 1 E4M6), 89.6 s of real play" \
    "Xindage, Erick and Korp (lumps/README.DEMO: 'DEMO4: E4M6 Cooperative by Xindage, Erick and Korp')"
# The held-out set: never fitted, only checked against the population.
one freedoom-dm06 demo2_dm.lmp e70899122a4f \
    "Held out (never fitted): three people playing a deathmatch (FreeDM map 06, altdeath), 106.3 s of real play" \
    "Chungy, Xindage and Erick (lumps/README.DEMO: 'DEMO2: DM06 by Chungy, Xindage, and Erick')"
one freedoom-dm18 demo3_dm.lmp e70899122a4f \
    "Held out (never fitted): three people playing a deathmatch (FreeDM map 18, altdeath), 80.0 s of real play" \
    "Chungy, Xindage and Erick (lumps/README.DEMO: 'DEMO3: DM18 by Chungy, Xindage, and Erick')"
one freedoom-map22 demo3_p2.lmp c1ec27c9d0ce \
    "Held out (never fitted): one person playing alone against monsters (Freedoom Phase 2 MAP22), 78.4 s of real play" \
    "Stratos (lumps/README.DEMO: 'DEMO3: MAP22 Singleplayer by Stratos')"
one freedoom-map23 demo4_p2.lmp 77d6c2b19f8c \
    "Held out (never fitted): two people playing cooperatively against monsters (Freedoom Phase 2 MAP23), 133.2 s of real play" \
    "Xindage and Korp (lumps/README.DEMO: 'DEMO4: MAP23 Cooperative by Xindage and Korp')"
