#!/usr/bin/env python3
"""Summarises kernel probe results next to the simulator's and prints the
validation table (used by scripts/kernel-validation/netem-validate.sh).

usage: netem_compare.py COUNT SPACING_US RESULTS_DIR SYNCBENCH PROFILE...
RESULTS_DIR/<k>.txt holds "seq delay_ns" rows for profile k (0-based).

The simulator is probed with the same spacing and payload but SIM_FACTOR
times more packets, so its figures are close to its true distribution and
the tolerance only has to cover the kernel sample's own error (and UML's
timing noise).
"""
import json
import math
import subprocess
import sys

SIM_FACTOR = 20
TIMING_NOISE_MS = 1.0


def kernel_sample(path, count):
    first = {}
    copies = 0
    order = []
    with open(path) as f:
        for line in f:
            seq, d = line.split()
            seq, d = int(seq), int(d)
            copies += 1
            if seq not in first:
                first[seq] = d / 1e6
                order.append(seq)
    delays = sorted(first.values())
    late_flags = []
    mx = -1
    for seq in order:
        late_flags.append(seq < mx)
        mx = max(mx, seq)
    lost_flags = [s not in first for s in range(count)]
    n = len(delays)
    pct = lambda p: delays[round((n - 1) * p)] if n else 0.0
    mean = sum(delays) / n if n else 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in delays) / n) if n else 0.0
    stats = {
        "delay_mean_ms": mean, "delay_sd_ms": sd, "delay_p50_ms": pct(0.5),
        "delay_p99_ms": pct(0.99), "loss": 1 - n / count,
        "reorder": sum(late_flags) / n if n else 0.0, "duplicate": (copies - n) / count,
    }
    return stats, delays, {"loss": lost_flags, "reorder": late_flags}


def lag1(flags):
    """Lag-1 autocorrelation of a 0/1 sequence (0 when undefined)."""
    n = len(flags)
    if n < 3:
        return 0.0
    m = sum(flags) / n
    var = sum((x - m) ** 2 for x in flags)
    if var == 0:
        return 0.0
    cov = sum((flags[i] - m) * (flags[i + 1] - m) for i in range(n - 1))
    return max(-0.9, min(0.95, cov / var))


def tolerance(key, kern, delays, flags, count):
    """The simulator's figure must fall in an interval around the kernel's:
    for p50 and p99, the 95% order-statistic interval of the kernel's
    quantile (± timing noise); for the mean, ± 1.96 standard errors (±
    timing noise); for shares, ± 3 standard deviations of the kernel's
    estimate, the variance widened for bursts by (1 + λ)/(1 − λ) with λ the
    lag-1 autocorrelation of the kernel's own loss or late-arrival
    sequence."""
    n = len(delays)
    if key in ("delay_p50_ms", "delay_p99_ms"):
        q = 0.5 if key == "delay_p50_ms" else 0.99
        half = 1.96 * math.sqrt(n * q * (1 - q))
        lo = delays[max(0, math.floor(n * q - half))]
        hi = delays[min(n - 1, math.ceil(n * q + half))]
        return (lo - TIMING_NOISE_MS, hi + TIMING_NOISE_MS)
    if key == "delay_mean_ms":
        se = kern["delay_sd_ms"] / math.sqrt(max(n, 1))
        return (kern[key] - 1.96 * se - TIMING_NOISE_MS, kern[key] + 1.96 * se + TIMING_NOISE_MS)
    p = min(max(kern[key], 1.0 / count), 1 - 1.0 / count)
    lam = lag1(flags[key]) if key in flags else 0.0
    sd = math.sqrt(p * (1 - p) / count * (1 + lam) / (1 - lam))
    return (kern[key] - 3 * sd, kern[key] + 3 * sd)


def sim_stats(syncbench, profile, count, spacing_us):
    out = subprocess.run(
        [syncbench, "profile", "show", profile, "--packets", str(count),
         "--spacing", f"{spacing_us}us", "--format", "json"],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["uplink_measured"]


def main():
    count, spacing, results, syncbench = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    profiles = sys.argv[5:]
    cols = [("mean ms", "delay_mean_ms", 1), ("p50 ms", "delay_p50_ms", 1), ("p99 ms", "delay_p99_ms", 1),
            ("loss %", "loss", 100), ("reorder %", "reorder", 100), ("dup %", "duplicate", 100)]
    print("| profile | | " + " | ".join(c[0] for c in cols) + " | within tolerance |")
    print("|:--|:--|" + "--:|" * len(cols) + ":--|")
    all_ok = True
    for k, p in enumerate(profiles):
        kern, delays, flags = kernel_sample(f"{results}/{k}.txt", count)
        sim = sim_stats(syncbench, p, count * SIM_FACTOR, spacing)
        fmt = lambda d: " | ".join(f"{d[key] * scale:.2f}" for _, key, scale in cols)
        ratio = []
        bad = []
        for name, key, _ in cols:
            a, b = sim[key], kern[key]
            ratio.append("–" if abs(b) < 1e-9 and abs(a) < 1e-9 else ("∞" if abs(b) < 1e-9 else f"{a / b:.2f}"))
            lo, hi = tolerance(key, kern, delays, flags, count)
            if not (lo - 1e-9 <= a <= hi + 1e-9):
                bad.append(name)
        all_ok = all_ok and not bad
        verdict = "yes" if not bad else "NO: " + ", ".join(bad)
        print(f"| `{p}` | kernel | {fmt(kern)} | |")
        print(f"| | sim | {fmt(sim)} | |")
        print(f"| | sim/kernel | " + " | ".join(ratio) + f" | {verdict} |")
    print()
    print(f"The simulator is probed with {SIM_FACTOR}x the packets (same spacing and payload), so its figures")
    print("are close to its true distribution. " + " ".join(tolerance.__doc__.split())
          + f" Timing noise allowed: {TIMING_NOISE_MS} ms.")
    if not all_ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
