#!/usr/bin/env bash
# Measures a 60 Hz stream of 20-byte messages over real Linux TCP
# (TCP_NODELAY) inside User-Mode Linux, between network namespaces with the
# kernel's netem on the links, and the same stream through syncbench's TCP
# model, and writes the side-by-side report: per-message latency percentiles
# and share over 200 ms, model/Linux ratios with a verdict, and the
# transports' counters (segments, ACKs, RTOs, retransmits).
#
#   scripts/kernel-validation/transport-validate.sh                        # the default profile set
#   scripts/kernel-validation/transport-validate.sh "delay 30ms 5ms" "2,both:delay 30ms 5ms loss 2%"
#   RUNS=1 DURATION=10 scripts/kernel-validation/transport-validate.sh     # a quick look
#   SKIP_LINUX=1 scripts/kernel-validation/transport-validate.sh           # redo the model side and the
#                                                        # report on the saved Linux runs
#
# A profile argument is a netem profile string, optionally prefixed by
# "HOPS[,both][,nagle]:": HOPS 1 (default) puts the netem on both ends of
# one veth pair (data and ACKs each cross one impaired hop); 2 routes through
# a third namespace with the netem on every egress of both hops (each
# direction crosses two impaired links); "both" makes the receiver send the
# same stream back and measures both directions; "nagle" leaves Nagle on.
#
# RUNS (5) runs of DURATION (60) seconds per profile; the full default set
# takes about 5 x RUNS x (DURATION + 5) seconds. The Linux runs are saved as
# target/transport-validate/linux/<profile>-<run>.json; the model runs
# (`$SYNCBENCH profile stream ... --seed RUN+1`, SYNCBENCH defaults to
# target/release/syncbench, which this script does not build) as
# .../model/<profile>-<run>.json. If the model command fails the model side
# is skipped with a message and the report shows Linux only.
#
# Needs root (apt-get) the first time: it installs user-mode-linux, iproute2,
# kmod and python3 if missing. Everything network-related happens inside the
# UML guest; the guest runs at nice -10 so a busy host disturbs its timers
# less.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNS=${RUNS:-5}
DURATION=${DURATION:-60}
GRACE=${GRACE:-20}
OUT=${OUT:-$ROOT/reports/transport-validation.md}
SYNCBENCH=${SYNCBENCH:-$ROOT/target/release/syncbench}
WORK=${WORK:-$ROOT/target/transport-validate}
if [ "$#" -gt 0 ]; then
  SPECS=("$@")
else
  SPECS=(
    "delay 30ms 5ms"
    "delay 30ms 5ms loss 2%"
    "delay 30ms 5ms loss 5%"
    "delay 80ms 10ms loss 1%"
    "2,both:delay 30ms 5ms loss 2%"
  )
fi

# specs.txt: "index|hops|both|nagle|profile" per line
write_specs() {
  local i=0 spec flags prof hops both nagle f
  : > "$WORK/specs.txt"
  for spec in "${SPECS[@]}"; do
    if [[ "$spec" == *:* ]]; then flags=${spec%%:*}; prof=${spec#*:}; else flags=1; prof=$spec; fi
    prof=$(echo "$prof" | sed 's/^ *//; s/ *$//')
    hops=1; both=0; nagle=0
    IFS=, read -ra parts <<< "$flags"
    for f in "${parts[@]}"; do
      case "$f" in
        1|2) hops=$f ;;
        both) both=1 ;;
        nagle) nagle=1 ;;
        *) echo "bad profile prefix '$f' in '$spec' (want HOPS[,both][,nagle]:PROFILE)" >&2; exit 2 ;;
      esac
    done
    echo "$i|$hops|$both|$nagle|$prof" >> "$WORK/specs.txt"
    i=$((i + 1))
  done
  echo "RUNS=$RUNS DURATION=$DURATION GRACE=$GRACE" > "$WORK/params"
}

run_linux() {
  . "$ROOT/scripts/kernel-validation/uml-setup.sh"
  uml_setup
  PY=$(python3 -c 'import sys; print(sys.executable)')
  rm -rf "$WORK/linux" && mkdir -p "$WORK/linux"
  rm -f "$WORK/status" "$WORK/kernel" "$WORK/progress.txt"
  # The guest's init: POSIX sh. One boot for every profile and run.
  cat > "$WORK/init.sh" <<INIT
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
W=$WORK/linux
sh $ROOT/scripts/kernel-validation/uml-netns.sh $MODDIR
sh $ROOT/scripts/kernel-validation/uml-netns-relay.sh
# Independent runs: no TCP metrics (ssthresh, RTT) cached across connections.
for ns in a b a2 b2; do
  ip netns exec \$ns sh -c 'echo 1 > /proc/sys/net/ipv4/tcp_no_metrics_save'
done
port=9000
while IFS='|' read -r idx hops both nagle prof; do
  if [ "\$hops" = 2 ]; then
    S=a2; R=b2; HOST=10.199.2.2; LINKS="a2:a2r r:ra r:rb b2:b2r"
  else
    S=a; R=b; HOST=10.199.0.2; LINKS="a:va b:vb"
  fi
  opts="--duration $DURATION --grace $GRACE"
  [ "\$both" = 1 ] && opts="\$opts --both"
  [ "\$nagle" = 1 ] && opts="\$opts --nagle"
  k=0
  while [ \$k -lt $RUNS ]; do
    echo "\$(date +%T) profile \$idx (\$hops hop, both=\$both, nagle=\$nagle) \$prof: run \$k" >> $WORK/progress.txt
    ok=1
    for l in \$LINKS; do
      ns=\${l%%:*}; dev=\${l#*:}
      ip netns exec \$ns tc qdisc add dev \$dev root netem \$prof >> \$W/\$idx-\$k.tc 2>&1 || ok=0
    done
    if [ \$ok = 1 ]; then
      ip netns exec \$R $PY $ROOT/scripts/kernel-validation/tcp_stream.py recv \$port \$W/\$idx-\$k.recv.json \$opts > \$W/\$idx-\$k.err 2>&1 < /dev/null &
      sleep 1
      ip netns exec \$S $PY $ROOT/scripts/kernel-validation/tcp_stream.py send \$HOST \$port \$W/\$idx-\$k.send.json \$opts >> \$W/\$idx-\$k.err 2>&1 < /dev/null
      wait
      $PY $ROOT/scripts/kernel-validation/tcp_stream.py merge \$W/\$idx-\$k.send.json \$W/\$idx-\$k.recv.json \$W/\$idx-\$k.json --profile "\$prof" --hops \$hops >> \$W/\$idx-\$k.err 2>&1 < /dev/null
    else
      echo "tc rejected: \$prof" >> \$W/\$idx-\$k.tc
    fi
    for l in \$LINKS; do
      ns=\${l%%:*}; dev=\${l#*:}
      ip netns exec \$ns tc qdisc del dev \$dev root 2>/dev/null
    done
    port=\$((port + 1)); k=\$((k + 1))
  done
done < $WORK/specs.txt
uname -r > $WORK/kernel
echo ok > $WORK/status
poweroff -f
INIT
  chmod +x "$WORK/init.sh"
  local n budget
  n=$(wc -l < "$WORK/specs.txt")
  budget=$(( n * RUNS * (DURATION + GRACE + 15) + 180 ))
  echo "booting User-Mode Linux ($(basename "$(dirname "$MODDIR")")): $n profiles x $RUNS runs x ${DURATION}s (progress: $WORK/progress.txt) ..." >&2
  local t0=$SECONDS
  nice -n -10 timeout "$budget" linux.uml mem=512M rootfstype=hostfs rw init="$WORK/init.sh" con=null con0=null,fd:1 >"$WORK/uml.log" 2>&1 || true
  if [ "$(cat "$WORK/status" 2>/dev/null)" != ok ]; then
    echo "the UML run did not finish; see $WORK/uml.log and $WORK/linux/*.err" >&2
    tail -n 20 "$WORK/uml.log" >&2
    exit 1
  fi
  echo "Linux side: $((SECONDS - t0)) s" >&2
  for f in "$WORK"/linux/*.tc; do
    [ -s "$f" ] && { echo "tc in the guest said ($f):" >&2; cat "$f" >&2; }
  done
  return 0
}

run_model() {
  rm -rf "$WORK/model" && mkdir -p "$WORK/model"
  if [ ! -x "$SYNCBENCH" ]; then
    echo "model side skipped: no $SYNCBENCH (build it with cargo build --release)" >&2
    return 0
  fi
  local idx hops both nagle prof k extra
  while IFS='|' read -r idx hops both nagle prof; do
    extra=()
    [ "$both" = 1 ] && extra+=(--both)
    [ "$nagle" = 1 ] && extra+=(--nagle)
    for ((k = 0; k < RUNS; k++)); do
      if ! "$SYNCBENCH" profile stream "$prof" --transport tcp-like --rate 60 --size 20 \
          --duration "${DURATION}s" --seed $((k + 1)) --hops "$hops" "${extra[@]}" --format json \
          > "$WORK/model/$idx-$k.json" 2> "$WORK/model/$idx-$k.err" < /dev/null \
        || ! python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert isinstance(d["latencies_us"], list)' "$WORK/model/$idx-$k.json" 2>/dev/null; then
        echo "model side skipped: \`syncbench profile stream\` failed or printed no latencies_us for \"$prof\":" >&2
        head -c 600 "$WORK/model/$idx-$k.err" >&2; echo >&2
        rm -rf "$WORK/model" && mkdir -p "$WORK/model"
        return 0
      fi
    done
  done < "$WORK/specs.txt"
}

mkdir -p "$WORK"
if [ "${SKIP_LINUX:-0}" = 1 ]; then
  [ -s "$WORK/specs.txt" ] && [ -s "$WORK/params" ] || { echo "SKIP_LINUX=1 but no saved Linux runs in $WORK" >&2; exit 2; }
  # shellcheck disable=SC1091
  . "$WORK/params"
  echo "reusing the Linux runs in $WORK/linux ($RUNS x ${DURATION}s)" >&2
else
  write_specs
  run_linux
fi
run_model

python3 "$ROOT/scripts/kernel-validation/transport_compare.py" "$WORK" > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
