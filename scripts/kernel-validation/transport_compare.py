#!/usr/bin/env python3
"""Writes the markdown of reports/transport-validation.md from the runs of
scripts/kernel-validation/transport-validate.sh: syncbench's TCP model against Linux TCP.

usage: transport_compare.py WORK_DIR

WORK_DIR/specs.txt holds "index|hops|both|nagle|profile" per profile and
WORK_DIR/params "RUNS=.. DURATION=.. GRACE=..". WORK_DIR/linux/<index>-<run>.json
and WORK_DIR/model/<index>-<run>.json hold one run each, in one shape:
{"source", "profile", "nodelay", "hops", "duration_s", "messages",
 "latencies_us": [per message in send order, -1 = never delivered],
 "back_latencies_us": [the same for the stream sent back, with --both],
 "counters": {"segments", "acks", "retransmits", "rtos", ...}}
With --both both directions' messages are pooled.
(a missing model directory or file shows as "–").

Both sides are summarised the same way: all runs' messages pooled,
nearest-rank percentiles (the value at rank ceil(p/100 * n) of the sorted
list), an undelivered message counting as +infinity (so it lands in the
tail and in "> 200 ms" and is counted separately too).
"""
import glob
import json
import math
import os
import sys

# Tolerances of the verdict: |model - linux| within these.
TOL_BODY_REL, TOL_BODY_ABS_MS = 0.15, 3.0  # p50, p90: ±15% or ±3 ms, whichever is larger
TOL_P99_REL = 0.25  # p99: ±25%
OVER_MS = 200
INF = math.inf


def load_runs(work, side, idx):
    runs = []
    for path in sorted(glob.glob(f"{work}/{side}/{idx}-*.json")):
        stem = os.path.basename(path)[: -len(".json")]
        if not stem.split("-", 1)[1].isdigit():  # skip <idx>-<k>.send.json etc.
            continue
        with open(path) as f:
            runs.append(json.load(f))
    return runs


def as_ms(run):
    """Both directions' messages of a run (back_latencies_us: --both's b->a)."""
    lat = list(run["latencies_us"]) + list(run.get("back_latencies_us") or [])
    return [x / 1000 if x is not None and x >= 0 else INF for x in lat]


def pct(sorted_xs, p):
    if not sorted_xs:
        return None
    return sorted_xs[max(0, math.ceil(p / 100 * len(sorted_xs)) - 1)]


def summarise(runs):
    if not runs:
        return None
    pooled = sorted(x for r in runs for x in as_ms(r))
    per_run_p99 = [pct(sorted(as_ms(r)), 99) for r in runs]
    secs = sum(float(r.get("duration_s", 0)) for r in runs)
    c = lambda key: sum(float((r.get("counters") or {}).get(key, 0) or 0) for r in runs)
    s = {
        "runs": len(runs),
        "n": len(pooled),
        "p50": pct(pooled, 50),
        "p90": pct(pooled, 90),
        "p99": pct(pooled, 99),
        "p999": pct(pooled, 99.9),
        "max": pooled[-1],
        "p99_runs": (min(per_run_p99), max(per_run_p99)),
        "over": sum(1 for x in pooled if x > OVER_MS) / len(pooled),
        "undelivered": sum(1 for x in pooled if x == INF),
        "seg_s": c("segments") / secs if secs else None,
        "ack_s": c("acks") / secs if secs else None,
        "rto_min": c("rtos") * 60 / secs if secs else None,
        "rtx_min": c("retransmits") * 60 / secs if secs else None,
        "tlp_min": c("loss_probes") * 60 / secs if secs else None,
        "sackrec_min": c("sack_recoveries") * 60 / secs if secs else None,
        "dack_s": c("delayed_acks") / secs if secs else None,
    }
    # Sender-side tcp_info (Linux): range over runs of the median cwnd and RTO.
    def info_range(key):
        vals = [((r.get("tcp_info") or {}).get("sender") or {}).get(key) for r in runs]
        vals = [v["p50"] for v in vals if v]
        return (min(vals), max(vals)) if vals else None
    lags = [((r.get("send_lag_us") or {}).get("sender") or {}) for r in runs]
    lags = [l for l in lags if l]
    s["lag"] = (max(l["p99"] for l in lags), max(l["max"] for l in lags)) if lags else None
    s["cwnd"] = info_range("cwnd")
    s["rto_ms"] = info_range("rto_ms")
    return s


def fms(x):
    if x is None:
        return "–"
    if x == INF:
        return "∞"
    return f"{x:,.0f}" if x >= 1000 else f"{x:.1f}"


def frate(x, digits=1):
    return "–" if x is None else f"{x:,.{digits}f}"


def fshare(x):
    return "–" if x is None else ("0" if x == 0 else f"{100 * x:.2f}%")


def ratio(m, l):
    if m is None or l is None:
        return None
    if l == INF or m == INF:
        return 1.0 if l == m else (INF if m == INF else 0.0)
    return m / l if l else None


def fratio(r):
    return "–" if r is None else ("∞" if r == INF else f"{r:.2f}×")


def within(m, l, rel, abs_ms=0.0):
    if m is None or l is None:
        return None
    if INF in (m, l):
        return m == l
    return abs(m - l) <= max(rel * l, abs_ms)


def verdict(lx, mo):
    if not lx or not mo:
        return "–", {}
    checks = {
        "p50": within(mo["p50"], lx["p50"], TOL_BODY_REL, TOL_BODY_ABS_MS),
        "p90": within(mo["p90"], lx["p90"], TOL_BODY_REL, TOL_BODY_ABS_MS),
        "p99": within(mo["p99"], lx["p99"], TOL_P99_REL),
    }
    bad = [k for k, ok in checks.items() if not ok]
    if not bad:
        return "pass", checks
    return "FAIL (" + ", ".join(f"{k} {fratio(ratio(mo[k], lx[k]))}" for k in bad) + ")", checks


def describe(hops, both, nagle):
    parts = ["1 hop each way" if hops == "1" else f"{hops} hops each way"]
    parts.append("both ends sending" if both == "1" else "one way")
    parts.append("Nagle on" if nagle == "1" else "TCP_NODELAY")
    return ", ".join(parts)


def main():
    work = sys.argv[1]
    params = dict(kv.split("=") for kv in open(f"{work}/params").read().split())
    specs = [line.rstrip("\n").split("|", 4) for line in open(f"{work}/specs.txt") if line.strip()]
    kernel = open(f"{work}/kernel").read().strip() if os.path.exists(f"{work}/kernel") else "?"
    rows = []
    for idx, hops, both, nagle, prof in specs:
        lx = summarise(load_runs(work, "linux", idx))
        mo = summarise(load_runs(work, "model", idx))
        rows.append((idx, hops, both, nagle, prof, lx, mo))
    have_model = any(mo for *_, mo in rows)

    out = []
    w = out.append
    w("# TCP transport: syncbench's model vs Linux TCP")
    w("")
    w(f"Produced by `scripts/kernel-validation/transport-validate.sh`. Linux side: kernel {kernel} in User-Mode Linux")
    w("(CUBIC, SACK, RACK and TLP on, as shipped), network namespaces joined by veth pairs with")
    w("`tc netem PROFILE` on every egress of the path, so data and ACKs cross the same impaired links;")
    w("\"2 hops\" routes through a third namespace with the netem on both links. The sender writes a")
    w(f"20-byte message every 1/60 s for {params['DURATION']} s (absolute CLOCK_MONOTONIC deadlines);")
    w("latency is per message, `send()` to the `recv()` that returned its last byte, on the one kernel")
    w(f"clock. {params['RUNS']} runs per profile. Model side: `syncbench profile stream PROFILE --transport")
    w("tcp-like --rate 60 --size 20 --duration DURATION --seed RUN+1 --hops H [--both] [--nagle]`, the")
    w("same runs and seeds 1..RUNS.")
    w("")
    w("Percentiles: all runs' messages pooled, nearest rank (rank ⌈p·n⌉ of the sorted list), the same")
    w("for both sides; a message never delivered counts as +∞ (in the tail and in \"> 200 ms\") and is")
    w("also counted on its own. \"p99 runs\" is the range of the per-run p99.")
    w("")
    w(f"Tolerances (model against Linux): p50 and p90 within ±{TOL_BODY_REL:.0%} or ±{TOL_BODY_ABS_MS:g} ms,")
    w(f"whichever is larger; p99 within ±{TOL_P99_REL:.0%}. p99.9, max and the counters are shown, not judged.")
    w("")
    w("Counters, as the model counts them (A sends the measured stream, B receives it): segments/s =")
    w("datagrams A sent (Linux: OutSegs + RetransSegs, as Linux leaves retransmissions out of OutSegs),")
    w("ACKs/s = datagrams B sent (its ACKs; with both ends sending, its data too), RTOs and")
    w("retransmits = A's retransmission timeouts (TCPTimeouts) and retransmitted segments")
    w("(RetransSegs). TLPs, SACK recoveries (A) and delayed ACKs (B) are Linux's alone.")
    if not have_model:
        w("")
        w("**Model side missing**: `syncbench profile stream` was not available or failed when this")
        w("was produced; the tables show Linux only.")
    w("")
    w("## Summary")
    w("")
    w("| profile | path | Linux p50 / p90 / p99 (ms) | model p50 / p90 / p99 (ms) | model/Linux p99 | verdict |")
    w("|:--|:--|--:|--:|--:|:--|")
    for idx, hops, both, nagle, prof, lx, mo in rows:
        trip = lambda s: "–" if not s else f"{fms(s['p50'])} / {fms(s['p90'])} / {fms(s['p99'])}"
        v, _ = verdict(lx, mo)
        w(f"| `{prof}` | {describe(hops, both, nagle)} | {trip(lx)} | {trip(mo)} | "
          f"{fratio(ratio(mo and mo['p99'], lx and lx['p99']))} | {v} |")
    for idx, hops, both, nagle, prof, lx, mo in rows:
        w("")
        w(f"## `{prof}` — {describe(hops, both, nagle)}")
        w("")
        if not lx:
            w("No Linux runs (see target/transport-validate/linux/).")
            continue
        _, checks = verdict(lx, mo)
        get = lambda s, k: None if not s else s[k]
        w(f"Linux: {lx['runs']} runs, {lx['n']:,} messages" +
          (f"; model: {mo['runs']} runs, {mo['n']:,} messages." if mo else "; model: –."))
        w("")
        w("| metric | Linux | model | model/Linux | within tolerance |")
        w("|:--|--:|--:|--:|:--|")
        ok = lambda k: "–" if checks.get(k) is None else ("yes" if checks[k] else "**no**")
        for key, label in (("p50", "p50 (ms)"), ("p90", "p90 (ms)"), ("p99", "p99 (ms)")):
            w(f"| {label} | {fms(lx[key])} | {fms(get(mo, key))} | {fratio(ratio(get(mo, key), lx[key]))} | {ok(key)} |")
        rng = lambda s: "–" if not s else f"{fms(s['p99_runs'][0])}–{fms(s['p99_runs'][1])}"
        w(f"| p99 runs (ms) | {rng(lx)} | {rng(mo)} | | |")
        for key, label in (("p999", "p99.9 (ms)"), ("max", "max (ms)")):
            w(f"| {label} | {fms(lx[key])} | {fms(get(mo, key))} | {fratio(ratio(get(mo, key), lx[key]))} | |")
        w(f"| > {OVER_MS} ms | {fshare(lx['over'])} | {fshare(get(mo, 'over'))} | | |")
        w(f"| never delivered | {lx['undelivered']} | {get(mo, 'undelivered') if mo else '–'} | | |")
        for key, label, d in (("seg_s", "segments/s", 1), ("ack_s", "ACKs/s", 1),
                              ("rto_min", "RTOs/min", 2), ("rtx_min", "retransmits/min", 1)):
            w(f"| {label} | {frate(lx[key], d)} | {frate(get(mo, key), d)} | {fratio(ratio(get(mo, key), lx[key]))} | |")
        w(f"| TLPs/min (Linux) | {frate(lx['tlp_min'])} | | | |")
        w(f"| SACK recoveries/min (Linux) | {frate(lx['sackrec_min'])} | | | |")
        w(f"| delayed ACKs/s (Linux) | {frate(lx['dack_s'], 2)} | | | |")
        if lx["lag"]:
            w(f"| sends late against the 60 Hz clock, p99 / max µs (Linux, worst run) | {lx['lag'][0]:,} / {lx['lag'][1]:,} | | | |")
        if lx["cwnd"]:
            w(f"| sender cwnd, median (runs) | {lx['cwnd'][0]}–{lx['cwnd'][1]} | | | |")
        if lx["rto_ms"]:
            w(f"| sender RTO, median ms (runs) | {lx['rto_ms'][0]:.0f}–{lx['rto_ms'][1]:.0f} | | | |")
    print("\n".join(out))


if __name__ == "__main__":
    main()
