#!/usr/bin/env bash
# What a receiving UDP socket gets when the kernel's netem corrupts a
# datagram: sends COUNT patterned 100-byte datagrams through
# `netem corrupt P` on a veth pair inside User-Mode Linux, with the UDP
# checksum on (Linux's default) and off (SO_NO_CHECK), and counts what the
# receiver read intact, what it read with changed bytes, and the kernel's
# UDP/IP error counters. Writes reports/netem-corrupt.md; syncbench's
# default for `corrupt` (`--corrupted drop|deliver`) follows this result.
#
#   scripts/kernel-validation/netem-corrupt.sh                 # corrupt 10%, 4000 datagrams
#   P=50% COUNT=2000 scripts/kernel-validation/netem-corrupt.sh
#
# Needs root (apt-get) the first time, as netem-validate.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COUNT=${COUNT:-4000}
P=${P:-10%}
OUT=${OUT:-$ROOT/reports/netem-corrupt.md}
WORK=$ROOT/target/netem-corrupt
. "$ROOT/scripts/kernel-validation/uml-setup.sh"
uml_setup
PY=$(python3 -c 'import sys; print(sys.executable)')
rm -rf "$WORK" && mkdir -p "$WORK"
cat > "$WORK/init.sh" <<INIT
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
sh $ROOT/scripts/kernel-validation/uml-netns.sh $MODDIR
for mode in 0 1; do
  ip netns exec a tc qdisc add dev va root netem corrupt $P
  ip netns exec b $PY $ROOT/scripts/kernel-validation/netem_corrupt_probe.py recv 9000 $WORK/\$mode.txt 3 &
  sleep 1
  ip netns exec a $PY $ROOT/scripts/kernel-validation/netem_corrupt_probe.py send 10.199.0.2 9000 $COUNT 500 \$mode
  wait
  ip netns exec a tc qdisc del dev va root
done
uname -r > $WORK/kernel
echo ok > $WORK/status
poweroff -f
INIT
chmod +x "$WORK/init.sh"
echo "booting User-Mode Linux and sending $COUNT datagrams through netem corrupt $P, checksum on and off ..." >&2
timeout 600 linux.uml mem=256M rootfstype=hostfs rw init="$WORK/init.sh" con=null con0=null,fd:1 >"$WORK/uml.log" 2>&1 || true
if [ "$(cat "$WORK/status" 2>/dev/null)" != ok ]; then
  echo "the UML run did not finish; see $WORK/uml.log" >&2
  tail -n 20 "$WORK/uml.log" >&2
  exit 1
fi
val() { awk -v k="$2" '$1==k {print $2}' "$WORK/$1.txt"; }
{
  echo "# netem corrupt: what a UDP socket receives"
  echo
  echo "Produced by \`scripts/kernel-validation/netem-corrupt.sh\` (kernel $(cat "$WORK/kernel") in User-Mode Linux, veth between two"
  echo "network namespaces, \`tc qdisc add dev va root netem corrupt $P\`; $COUNT datagrams of 100 bytes, each a"
  echo "sequence number and a pattern the receiver checks)."
  echo
  echo "| sender's UDP checksum | sent | read intact | read with changed bytes | lost | UDP InCsumErrors | IP InHdrErrors |"
  echo "|---|---:|---:|---:|---:|---:|---:|"
  for mode in 0 1; do
    name=$([ $mode = 0 ] && echo "on (Linux default)" || echo "off (SO_NO_CHECK)")
    i=$(val $mode intact); c=$(val $mode corrupted)
    echo "| $name | $COUNT | $i | $c | $((COUNT - i - c)) | $(val $mode Udp.InCsumErrors) | $(val $mode Ip.InHdrErrors) |"
  done
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
