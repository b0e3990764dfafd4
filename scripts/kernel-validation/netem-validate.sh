#!/usr/bin/env bash
# Runs the same netem profile strings through the real Linux kernel netem
# (inside User-Mode Linux, which ships sch_netem) and through syncbench's
# simulated link, with the same probe traffic, and prints a side-by-side
# table: mean, p50, p99 one-way delay, loss, reorder and duplicate shares,
# with the ratio sim/kernel.
#
#   scripts/kernel-validation/netem-validate.sh                 # the default profile set
#   scripts/kernel-validation/netem-validate.sh "delay 80ms 20ms distribution normal" ...
#   COUNT=5000 SPACING_US=1000 OUT=reports/netem-validation.md scripts/kernel-validation/netem-validate.sh
#
# Needs root (apt-get) the first time: it installs user-mode-linux, iproute2
# and python3 if missing. The probe runs between two network namespaces
# joined by a veth pair, inside the UML guest only.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COUNT=${COUNT:-2000}
SPACING_US=${SPACING_US:-2000}
OUT=${OUT:-$ROOT/reports/netem-validation.md}
WORK=$ROOT/target/netem-validate
if [ "$#" -gt 0 ]; then
  PROFILES=("$@")
else
  PROFILES=(
    "delay 50ms 10ms"
    "delay 50ms 10ms distribution normal"
    "delay 30ms 10ms distribution pareto"
    "delay 40ms 10ms distribution paretonormal"
    "delay 20ms loss gemodel 2% 20%"
    "delay 10ms rate 400kbit limit 20"
    "delay 20ms reorder 30% gap 4"
    "delay 20ms loss 5% duplicate 3%"
    "delay 10ms loss 10% 25%"
  )
fi

. "$ROOT/scripts/kernel-validation/uml-setup.sh"
uml_setup

echo "building syncbench ..." >&2
(cd "$ROOT" && cargo build --release --quiet)
SYNCBENCH=$ROOT/target/release/syncbench
PY=$(python3 -c 'import sys; print(sys.executable)')

rm -rf "$WORK" && mkdir -p "$WORK"
printf '%s\n' "${PROFILES[@]}" > "$WORK/profiles.txt"
cat > "$WORK/init.sh" <<INIT
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
sh $ROOT/scripts/kernel-validation/uml-netns.sh $MODDIR
k=0
while IFS= read -r prof; do
  ip netns exec a tc qdisc add dev va root netem \$prof > $WORK/\$k.tc 2>&1 || echo "tc rejected: \$prof" >> $WORK/\$k.tc
  ip netns exec b $PY $ROOT/scripts/kernel-validation/netem_probe.py recv 9000 $WORK/\$k.txt 3 &
  sleep 1
  ip netns exec a $PY $ROOT/scripts/kernel-validation/netem_probe.py send 10.199.0.2 9000 $COUNT $SPACING_US
  wait
  ip netns exec a tc qdisc del dev va root 2>/dev/null
  k=\$((k+1))
done < $WORK/profiles.txt
uname -r > $WORK/kernel
echo ok > $WORK/status
poweroff -f
INIT
chmod +x "$WORK/init.sh"

echo "booting User-Mode Linux ($(basename "$(dirname "$MODDIR")")) and probing ${#PROFILES[@]} profiles, $COUNT packets each ..." >&2
timeout 900 linux.uml mem=512M rootfstype=hostfs rw init="$WORK/init.sh" con=null con0=null,fd:1 >"$WORK/uml.log" 2>&1 || true
if [ "$(cat "$WORK/status" 2>/dev/null)" != ok ]; then
  echo "the UML run did not finish; see $WORK/uml.log" >&2
  tail -n 20 "$WORK/uml.log" >&2
  exit 1
fi

{
  echo "# netem: simulator vs Linux kernel"
  echo
  echo "Produced by \`scripts/kernel-validation/netem-validate.sh\` (kernel $(cat "$WORK/kernel") in User-Mode Linux, veth between two"
  echo "network namespaces; $COUNT UDP packets of 100 bytes every ${SPACING_US} us per profile; the simulator"
  echo "runs \`syncbench profile show PROFILE --spacing ${SPACING_US}us\` with the same traffic, 20x longer)."
  echo
  python3 "$ROOT/scripts/kernel-validation/netem_compare.py" "$COUNT" "$SPACING_US" "$WORK" "$SYNCBENCH" "${PROFILES[@]}"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
