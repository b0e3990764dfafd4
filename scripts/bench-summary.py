#!/usr/bin/env python3
"""Summarises criterion's results (target/criterion) for the guide's
performance chapter (docs/book/src/performance.md): match speed as
multiples of real time, the harness overhead factor (match time / time
of the game steps it executes), game step and save/restore cost,
scaling, codec throughput, and the interest management tick
(benches/interest.rs).

usage: scripts/bench-summary.py [target/criterion]
"""
import json
import os
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "target/criterion"


def mean_ns(group, bench):
    p = os.path.join(root, group, bench, "new", "estimates.json")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        return json.load(f)["mean"]["point_estimate"]


def ms(ns):
    return f"{ns / 1e6:.2f} ms"


algos = sorted(d for d in os.listdir(os.path.join(root, "match")) if d != "report") if os.path.isdir(os.path.join(root, "match")) else []
print("| algorithm | 60 s match | × real time | game steps alone | harness overhead |")
print("|:--|--:|--:|--:|--:|")
for a in algos:
    m, o = mean_ns("match", a), mean_ns("overhead", a)
    if m is None:
        continue
    rt = 60e9 / m
    ov = f"{m / o:.1f}×" if o else "–"
    print(f"| `{a}` | {ms(m)} | {rt:,.0f}× | {ms(o) if o else '–'} | {ov} |")
print()
print("| benchmark | mean |")
print("|:--|--:|")
for g, b in [("game", "step_4"), ("game", "step_16"), ("game", "save_restore_4"), ("game", "save_restore_16"),
             ("codec", "snapshot_encode_4"), ("codec", "snapshot_decode_4"), ("codec", "snapshot_encode_32"), ("codec", "snapshot_decode_32")] + [
                 ("codec", f"{kind}_{op}_{n}") for n in [4, 32] for kind in ["full", "delta"] for op in ["encode", "decode"]]:
    v = mean_ns(g, b)
    if v is not None:
        per = " (600 steps)" if b.startswith("step") else ""
        print(f"| `{g}/{b}`{per} | {v / 1e3:.2f} µs |")
print()
print("| scaling (wifi) | mean | per unit |")
print("|:--|--:|--:|")
for group, label in [("clients", "lockstep (mesh)"), ("clients_cs", "server-verified")]:
    for n in [2, 4, 8, 16, 32]:
        v = mean_ns("scaling", f"{group}/{n}")
        if v is not None:
            print(f"| {label}, {n} clients, 10 s | {ms(v)} | {v / n / 1e6:.3f} ms per client |")
for s in [15, 30, 60, 120]:
    v = mean_ns("scaling", f"duration_s/{s}")
    if v is not None:
        print(f"| lockstep, 4 clients, {s} s | {ms(v)} | {v / s / 1e6:.3f} ms per simulated s |")
print()
print("| rollback | mean |")
print("|:--|--:|")
for r in [20, 100, 200]:
    v = mean_ns("rollback", f"rtt_ms/{r}")
    if v is not None:
        print(f"| `rollback`, RTT {r} ms, 60 s match | {ms(v)} |")
for w in [4, 8, 16]:
    v = mean_ns("rollback", f"window_at_100ms/{w}")
    if v is not None:
        print(f"| `rollback`, window {w}, RTT 100 ms, 60 s match | {ms(v)} |")
for a in ["rollback", "ggrs"]:
    v = mean_ns("ours_vs_ggrs", a)
    if v is not None:
        print(f"| 2-player LAN match, 10 s: `{a}` | {ms(v)} |")

for density in ["sparse", "dense"]:
    group = f"interest_{density}"
    if not os.path.isdir(os.path.join(root, group)):
        continue
    counts = [250, 1000, 4000]
    print()
    print(f"| interest, {density} map: server time per tick, 200 clients | " + " | ".join(f"{n:,} entities" for n in counts) + " |")
    print("|:--|" + "--:|" * len(counts))
    for method in ["none", "grid", "crosslist"]:
        cells = []
        for n in counts:
            v = mean_ns(group, f"{method}/{n}")
            cells.append(f"{v / 1e3:,.0f} µs" if v is not None else "–")
        print(f"| `{method}` | " + " | ".join(cells) + " |")

if os.path.isdir(os.path.join(root, "interest_match")):
    print()
    cores = os.cpu_count() or 1
    print(f"| whole match: `delta-snapshot`, 50 clients + 500 bots, 200 m field, 2 s on wifi | mean ({cores} cores) | × real time | on one core | cores' gain |")
    print("|:--|--:|--:|--:|--:|")
    for method in ["none", "grid", "crosslist"]:
        v = mean_ns("interest_match", method)
        one = mean_ns("interest_match", method + "-1core")
        if v is not None:
            extra = f" | {ms(one)} | {one / v:.2f}×" if one is not None else " | | "
            print(f"| `--aoi {method}` | {ms(v)} | {2e9 / v:,.1f}×{extra} |")

if os.path.isdir(os.path.join(root, "link")):
    print()
    print("| one link direction, 10,000 packets of 100 B every 2 ms | time | per packet |")
    print("|:--|--:|--:|")
    for bench, what in [
        ("netem-fit", "netem fitted to Starlink (`leo-starlink-fit`)"),
        ("recorded", "the Starlink recording replayed (`leo-starlink`)"),
        ("recorded-opportunities", "`loss 0.2%` + a Mahimahi trace, 1 opportunity/ms"),
    ]:
        v = mean_ns("link", bench)
        if v is not None:
            print(f"| {what} | {v / 1e3:,.0f} µs | {v / 1e4:.1f} ns |")
