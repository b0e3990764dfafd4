#!/usr/bin/env bash
# Records a real link and checks syncbench replays and fits it: `ping -D`
# and IRTT through the Linux kernel's netem (inside User-Mode Linux, veth
# between two network namespaces), imported with `syncbench profile
# import`, replayed with `profile show` and fitted with `profile fit`;
# writes reports/recording-validation.md and keeps the recordings in
# tests/data/ for the test that checks the same numbers in CI.
#
#   scripts/kernel-validation/recording-validate.sh
#   COUNT=2000 UP="delay 20ms 4ms distribution normal loss 1%" DOWN="delay 5ms 1ms" scripts/kernel-validation/recording-validate.sh
#
# Needs root (apt-get) the first time: it installs user-mode-linux,
# iproute2, kmod, python3, iputils-ping and irtt if missing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
COUNT=${COUNT:-2000}
UP=${UP:-delay 20ms 4ms distribution normal loss 1%}
DOWN=${DOWN:-delay 5ms 1ms}
OUT=${OUT:-$ROOT/reports/recording-validation.md}
WORK=$ROOT/target/recording-validate
DATA=$ROOT/tests/data

. "$ROOT/scripts/kernel-validation/uml-setup.sh"
uml_setup
if ! command -v ping >/dev/null || ! command -v irtt >/dev/null; then
  if [ "$(id -u)" != 0 ]; then echo "need root to apt-get install iputils-ping irtt; stopping" >&2; exit 2; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iputils-ping irtt >/dev/null
fi

echo "building syncbench ..." >&2
(cd "$ROOT" && cargo build --release --quiet)
SYNCBENCH=$ROOT/target/release/syncbench

rm -rf "$WORK" && mkdir -p "$WORK"
SECS=$(( COUNT / 100 ))
cat > "$WORK/init.sh" <<INIT
#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
sh $ROOT/scripts/kernel-validation/uml-netns.sh $MODDIR
ip netns exec a tc qdisc add dev va root netem $UP
ip netns exec b tc qdisc add dev vb root netem $DOWN
ip netns exec a sh -c 'LC_ALL=C ping -D -n -i 0.01 -c $COUNT 10.199.0.2' > $WORK/link.ping 2>&1
ip netns exec b irtt server -b 10.199.0.2 > $WORK/irtt-server.log 2>&1 &
sleep 1
ip netns exec a irtt client -i 10ms -d ${SECS}s -Q -o $WORK/link.json 10.199.0.2 > $WORK/irtt-client.log 2>&1
uname -r > $WORK/kernel
echo ok > $WORK/status
poweroff -f
INIT
chmod +x "$WORK/init.sh"

echo "booting User-Mode Linux: ping and IRTT, $COUNT probes each through netem ..." >&2
timeout 900 linux.uml mem=512M rootfstype=hostfs rw init="$WORK/init.sh" con=null con0=null,fd:1 >"$WORK/uml.log" 2>&1 || true
if [ "$(cat "$WORK/status" 2>/dev/null)" != ok ]; then
  echo "the UML run did not finish; see $WORK/uml.log" >&2
  tail -n 20 "$WORK/uml.log" >&2
  exit 1
fi

# The recordings the CI test reads: ping's as recorded, IRTT's compacted
# (one line, the fields syncbench reads kept as IRTT wrote them).
cp "$WORK/link.ping" "$DATA/uml-netem.ping"
python3 - "$WORK/link.json" "$DATA/uml-netem-irtt.json" <<'PY'
import json, sys
src = json.load(open(sys.argv[1]))
keep = lambda t: {"seqno": t["seqno"], "lost": t["lost"], "timestamps": {"client": {"send": t["timestamps"]["client"]["send"]}}, "delay": t["delay"]}
json.dump({"version": src["version"], "config": {"params": src["config"]["params"]}, "round_trips": [keep(t) for t in src["round_trips"]]}, open(sys.argv[2], "w"), separators=(",", ":"))
PY

for rec in ping irtt; do
  file=$DATA/uml-netem.ping; [ $rec = irtt ] && file=$DATA/uml-netem-irtt.json
  "$SYNCBENCH" profile import "$file" --out "$WORK/$rec.toml" > /dev/null
  "$SYNCBENCH" profile fit "$WORK/$rec.toml" --packet-hz 100 --format json > "$WORK/$rec-fit.json"
  # One probe per recorded probe, at the recording's own spacing.
  read -r spacing packets < <(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["directions"][0]; s=d["samples_every_us"]; print(s, int(d["span_ms"]*1000/s))' "$WORK/$rec-fit.json")
  "$SYNCBENCH" profile show "$WORK/$rec.toml" --spacing "${spacing}us" --packets "$packets" --format json > "$WORK/$rec-show.json"
done

{
  echo "# Recorded links: a kernel recording imported, replayed and fitted"
  echo
  echo "Produced by \`scripts/kernel-validation/recording-validate.sh\`: kernel $(cat "$WORK/kernel") in User-Mode Linux,"
  echo "netem \`$UP\` on the way out (a → b) and \`$DOWN\` on the way back, $COUNT probes every 10 ms"
  echo "recorded with \`ping -D\` (round trips) and IRTT (one-way delays; one clock), then imported"
  echo "(\`syncbench profile import\`), probed through the replayed link (\`profile show\`, probes at the"
  echo "recording's median spacing over its whole length) and fitted (\`profile fit --packet-hz 100\`). The recordings are in \`tests/data/\`,"
  echo "where \`tests/suite/recorded.rs\` checks the same tolerances on every CI run."
  echo
  python3 - "$WORK" "$UP" "$DOWN" <<'PY'
import json, sys
work, up, down = sys.argv[1:4]
print("| recording | direction | netem set | recorded p50 / p99 ms (loss) | replayed p50 / p99 ms (loss) | fitted netem | W1 ms |")
print("|---|---|---|---|---|---|---|")
for rec in ("ping", "irtt"):
    show = json.load(open(f"{work}/{rec}-show.json"))
    fit = json.load(open(f"{work}/{rec}-fit.json"))
    for d, name in ((0, "uplink"), (1, "downlink")):
        f = show[f"{name}_recorded"]; m = show[f"{name}_measured"]
        best = fit["directions"][d]["candidates"][0]
        setting = f"RTT: {up} + {down}, halved" if rec == "ping" else (up if d == 0 else down)
        print(f"| {rec} | {name} | `{setting}` | {f['delay_p50_ms']:.2f} / {f['delay_p99_ms']:.2f} ({f['loss']*100:.2f}%) "
              f"| {m['delay_p50_ms']:.2f} / {m['delay_p99_ms']:.2f} ({m['loss']*100:.2f}%) | `{fit[name]}` | {best['w1_ms']:.3f} |")
PY
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
