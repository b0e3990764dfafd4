#!/usr/bin/env python3
"""Pools `syncbench profile stream` over seeds 1..N and prints p50/p90/p99
per transport — nearest rank on every message of every run, both
directions with --both, a lost message ranking last (as
transport_compare.py does for the Linux validation). The README's
two-hop TCP:KCP figures come from:

  python3 scripts/stream_pool.py "delay 30ms 5ms loss 2%" --hops 2 --both --seeds 5 \
      --transports tcp-like,kcp,kcp:flush=update,quic

usage: stream_pool.py PROFILE [--transports T,U] [--seeds N] [--hops H] [--both]
"""
import argparse
import json
import math
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "syncbench"

ap = argparse.ArgumentParser()
ap.add_argument("profile")
ap.add_argument("--transports", default="tcp-like,kcp,quic")
ap.add_argument("--seeds", type=int, default=5)
ap.add_argument("--hops", type=int, default=1)
ap.add_argument("--both", action="store_true")
a = ap.parse_args()
subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
print(f"{'transport':<20} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8}  ({a.seeds} runs pooled)")
for t in a.transports.split(","):
    lat = []
    for seed in range(1, a.seeds + 1):
        cmd = [str(BIN), "profile", "stream", a.profile, "--transport", t, "--hops", str(a.hops),
               "--seed", str(seed), "--format", "json"] + (["--both"] if a.both else [])
        j = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        lat += [x if x >= 0 else math.inf for x in j["latencies_us"] + j.get("back_latencies_us", [])]
    lat.sort()
    q = lambda p: lat[max(1, math.ceil(p * len(lat))) - 1] / 1000
    print(f"{t:<20} {q(0.5):>8.1f} {q(0.9):>8.1f} {q(0.99):>8.1f}")
