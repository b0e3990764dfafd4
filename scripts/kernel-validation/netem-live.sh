#!/usr/bin/env bash
# The same match three ways: simulated, live through syncbench's userspace
# relay, and live through the real Linux kernel netem — and the metrics side
# by side.
#
#   scripts/kernel-validation/netem-live.sh                                  # server-verified, "delay 25ms 5ms"
#   scripts/kernel-validation/netem-live.sh "delay 40ms 10ms loss 2%" prediction
#   CLIENTS=4 DURATION=20s scripts/kernel-validation/netem-live.sh
#
# The kernel run happens inside User-Mode Linux (this project's machines'
# kernel has no sch_netem; UML's has): two network namespaces joined by a
# veth pair, `tc qdisc add dev va root netem PROFILE` on namespace a's end.
# The live run (every node: one process, so the recorder sees both ends)
# sits in namespace a and sends every datagram through
# scripts/kernel-validation/udp_reflector.py in namespace b (`syncbench live --relay
# 10.199.0.2:9000 --bind 10.199.0.1`): out through the netem, back through
# the clean end — the kernel delays, drops and duplicates every datagram
# once, as the simulator applies a client's profile once per direction.
# So: client/server algorithms, profiles that are the same both ways.
#
# Where kernel netem is unavailable (no UML and no root to install it, or
# the guest does not boot) the script says so, prints the other two
# columns and exits 0.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROFILE=${1:-"delay 25ms 5ms"}
ALGO=${2:-server-verified}
CLIENTS=${CLIENTS:-2}
DURATION=${DURATION:-10s}
WORK=$ROOT/target/netem-live
rm -rf "$WORK" && mkdir -p "$WORK"

echo "building syncbench ..." >&2
(cd "$ROOT" && cargo build --release --quiet)
SB=$ROOT/target/release/syncbench
ARGS=(--algo "$ALGO" --profile "$PROFILE" --clients "$CLIENTS" --duration "$DURATION" --format json)

echo "simulated ..." >&2
"$SB" run "${ARGS[@]}" > "$WORK/sim.json"
echo "live through the userspace relay ($DURATION) ..." >&2
"$SB" live "${ARGS[@]}" > "$WORK/relay.json"

kernel_unavailable() {
  echo "kernel netem: unavailable here ($1); showing simulated and userspace relay only." >&2
  echo '{}' > "$WORK/kernel.json"
}

have_uml() { command -v linux.uml >/dev/null 2>&1 && ls -d /usr/lib/uml/modules/*/kernel >/dev/null 2>&1; }
if ! have_uml && [ "$(id -u)" = 0 ]; then
  echo "installing user-mode-linux and iproute2 ..." >&2
  (DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq user-mode-linux iproute2 kmod >/dev/null) || true
fi
if ! have_uml; then
  kernel_unavailable "no User-Mode Linux, and no root to install it"
elif ! command -v tc >/dev/null 2>&1; then
  kernel_unavailable "no tc (iproute2)"
else
  MODDIR=$(ls -d /usr/lib/uml/modules/*/kernel | head -n1)
  PY=$(python3 -c 'import sys; print(sys.executable)')
  SECS=$(python3 -c "import re,sys; m=re.fullmatch(r'([0-9.]+)(ms|s|m)', sys.argv[1]); print(int(float(m[1])*{'ms':0.001,'s':1,'m':60}[m[2]])+1)" "$DURATION")
  cat > "$WORK/init.sh" <<INIT
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
sh $ROOT/scripts/kernel-validation/uml-netns.sh $MODDIR
ip netns exec a tc qdisc add dev va root netem $PROFILE > $WORK/tc.txt 2>&1 || echo "tc rejected the profile" >> $WORK/tc.txt
ip netns exec b $PY $ROOT/scripts/kernel-validation/udp_reflector.py 10.199.0.2 9000 \$(( $SECS + 3 )) 2> $WORK/reflector.txt &
sleep 1
ip netns exec a $SB live --relay 10.199.0.2:9000 --bind 10.199.0.1 --algo "$ALGO" --profile "$PROFILE" --clients $CLIENTS --duration $DURATION --format json > $WORK/kernel.json 2> $WORK/kernel.err
wait
uname -r > $WORK/kernel
echo ok > $WORK/status
poweroff -f
INIT
  chmod +x "$WORK/init.sh"
  echo "live through kernel netem in User-Mode Linux ($DURATION) ..." >&2
  timeout 300 linux.uml mem=512M rootfstype=hostfs rw init="$WORK/init.sh" con=null con0=null,fd:1 > "$WORK/uml.log" 2>&1 || true
  if [ "$(cat "$WORK/status" 2>/dev/null)" != ok ] || [ ! -s "$WORK/kernel.json" ]; then
    kernel_unavailable "the User-Mode Linux guest did not finish; see $WORK/uml.log"
  elif [ -s "$WORK/tc.txt" ]; then
    kernel_unavailable "tc in the guest said: $(head -c 300 "$WORK/tc.txt")"
  fi
fi

python3 - "$WORK" "$PROFILE" "$ALGO" "$CLIENTS" "$DURATION" "$(cat "$WORK/kernel" 2>/dev/null || echo '-')" <<'PY'
import json, sys
work, profile, algo, clients, duration, kernel = sys.argv[1:7]
def load(name):
    d = json.load(open(f"{work}/{name}.json"))
    return d["runs"][0]["metrics"] if d.get("runs") else None
cols = [("simulated", load("sim")), ("userspace relay", load("relay")), (f"kernel netem ({kernel})", load("kernel"))]
rows = [
    ("own input latency p50 (ms)", lambda m: m["input_latency_ms"]["own"]["p50"]),
    ("own input latency p99 (ms)", lambda m: m["input_latency_ms"]["own"]["p99"]),
    ("remote input latency p50 (ms)", lambda m: m["input_latency_ms"]["remote"]["p50"]),
    ("own divergence mean (m)", lambda m: m["divergence_m"]["own"]["mean"]),
    ("remote divergence mean (m)", lambda m: m["divergence_m"]["remote"]["mean"]),
    ("corrections", lambda m: m["corrections"]),
    ("down per client (B/s)", lambda m: m["bandwidth"]["down_bytes_per_s"]),
    ("up per client (B/s)", lambda m: m["bandwidth"]["up_bytes_per_s"]),
]
print(f"**{algo} · `{profile}` · {clients} clients · {duration}**\n")
print("| metric | " + " | ".join(c for c, _ in cols) + " |")
print("|:--|" + "--:|" * len(cols))
for label, get in rows:
    cells = []
    for _, m in cols:
        cells.append("–" if m is None else (f"{get(m):.3f}" if isinstance(get(m), float) and get(m) < 10 else f"{get(m):,.1f}" if isinstance(get(m), float) else str(get(m))))
    print(f"| {label} | " + " | ".join(cells) + " |")
PY
