#!/usr/bin/env python3
"""Regenerates the simulation tables quoted in README.md from the commands
shown beside them.

Each table sits between `<!-- table:NAME -->` and `<!-- /table -->`
markers; this script reruns the table's command with the release binary
and replaces what is between the markers. Simulation is deterministic, so
running it twice changes nothing. Tables that take wall time (the large
world, paced ggrs) are regenerated only with `--slow`, or by name.

    python3 scripts/readme-tables.py [--slow] [TABLE ...]
    python3 scripts/readme-tables.py large-world
"""

import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "syncbench"


def sb(*args, timed=False):
    """syncbench's output; with `timed`, also /usr/bin/time's wall seconds
    and peak kilobytes."""
    prefix = ["/usr/bin/time", "-f", "%e %M"] if timed else []
    out = subprocess.run([*prefix, str(BIN), *args], cwd=ROOT, check=True, capture_output=True, text=True)
    if timed:
        return out.stdout, out.stderr.strip().splitlines()[-1].split()
    return out.stdout


def runs(*args):
    return json.loads(sb(*args, "--format", "json"))["runs"]


def metrics(*args):
    return runs(*args)[0]["metrics"]


def rows_of(md, labels):
    """The title, header and the rows of a comparison table whose label
    starts with one of `labels`."""
    lines = md.strip().splitlines()
    keep = [l for l in lines[4:] if any(l.startswith("| " + k) for k in labels)]
    return "\n".join([lines[0], ""] + lines[2:4] + keep)


def client_table(md):
    """The per-client table of a single run, first six columns."""
    lines = md.strip().splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("| client"))
    out = []
    for l in lines[start:]:
        if not l.startswith("|"):
            break
        cells = l.strip("|").split("|")
        out.append("|" + "|".join(cells[:6]) + "|")
    return "\n".join(out)


def main_table():
    return sb("compare", "--profile", "wifi", "--format", "md", "--quiet").strip()


def lanes():
    md = sb("compare", "--profile", "wifi", "--traces", "lanes", "--format", "md", "--quiet")
    return rows_of(md, ["own vs ideal mean", "remote vs ideal mean", "corrections", "snap events per client-minute"])


def ghost():
    out = [
        "| remote | remote divergence mean (m) | p99 (m) | snap events / client-min | largest jump (m) | own corrections |",
        "| :----- | -------------------------: | ------: | -----------------------: | ---------------: | --------------: |",
    ]
    for r in ["interp", "raw", "ghost"]:
        m = metrics("run", "--algo", "prediction", "--profile", "wifi", "--opt", f"remote={r}")
        d = m["divergence_m"]["remote"]
        out.append(
            f"| {r} | {d['mean']:.3f} | {d['p99']:.3f} | {m['snaps']['per_client_per_min']:.1f} "
            f"| {m['snaps']['largest_jump_m']:.2f} | {m['corrections']} |"
        )
    return "\n".join(out)


def slow_player(algo):
    return client_table(sb("run", "--algo", algo, "--profile", "lan,lan,lan,very-bad", "--format", "md"))


def state_sync():
    return sb(
        "compare", "--profile", "4g", "--algos",
        "snapshot,delta-snapshot,periodic,latency-corrected,dead-reckoning,shadow-follow",
        "--format", "md", "--quiet",
    ).strip()


def sixteen():
    cells = []
    for a in ["snapshot", "delta-snapshot"]:
        r = runs("compare", "--profile", "4g", "--algos", a, "--clients", "16", "--traces", "stop-go", "--quiet")
        cells.append(f"{a}: {round(sum(x['metrics']['bandwidth']['down_bytes_per_s'] for x in r) / len(r))} B/s")
    return f"| 16 players, 4g, stop-go (mean of 5 seeds) | {cells[0]} | {cells[1]} |"


def threshold():
    out = [
        "| `dead-reckoning` threshold | down per client (B/s) | packets/s | remote divergence mean (m) | snap events / client-min |",
        "|--:|--:|--:|--:|--:|",
    ]
    for t in ["0.01", "0.05", "0.2", "0.5"]:
        m = metrics("run", "--algo", "dead-reckoning", "--profile", "4g", "--opt", f"threshold={t}")
        b = m["bandwidth"]
        out.append(
            f"| {t} m | {b['down_bytes_per_s']:.0f} | {b['down_packets_per_s']:.1f} "
            f"| {m['divergence_m']['remote']['mean']:.3f} | {m['snaps']['per_client_per_min']:.1f} |"
        )
    return "\n".join(out)


def transports():
    out = [
        "| transport | own latency p50 (ms) | own latency p99 (ms) | frozen ≥100 ms per client (ms) | freezes per client | longest stall (ms) | up per client (B/s) | retransmissions |",
        "|:--|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for t in ["unreliable", "redundant:3", "tcp-like", "kcp", "quic", "quic-datagram"]:
        m = metrics("run", "--algo", "lockstep", "--profile", "delay 30ms 5ms loss 2%", "--transport", t)
        s, l = m["stalls"], m["input_latency_ms"]["own"]
        out.append(
            f"| `{t}` | {l['p50']:.1f} | {l['p99']:.1f} | {s['freeze_ms_per_client']:.0f} | {s['freezes_per_client']:.0f} "
            f"| {s['longest_ms']:.0f} | {m['bandwidth']['up_bytes_per_s']:.0f} | {m['network']['retransmissions']} |"
        )
    return "\n".join(out)


def redundancy():
    out = [
        "| transport | remote divergence mean (m) | remote divergence p99 (m) | remote latency p99 (ms) | snap events / client-min | down per client (B/s) |",
        "|:--|--:|--:|--:|--:|--:|",
    ]
    for t in ["unreliable", "redundant:2", "redundant:3", "quic-datagram"]:
        m = metrics("run", "--algo", "dead-reckoning", "--profile", "delay 30ms 5ms loss 5%", "--transport", t)
        d, l = m["divergence_m"]["remote"], m["input_latency_ms"]["remote"]
        out.append(
            f"| `{t}` | {d['mean']:.3f} | {d['p99']:.3f} | {l['p99']:.1f} | {m['snaps']['per_client_per_min']:.1f} "
            f"| {m['bandwidth']['down_bytes_per_s']:.0f} |"
        )
    return "\n".join(out)


def conform():
    out = subprocess.run(
        [str(BIN), "conform", "--controls", "--cases", "20"], cwd=ROOT, capture_output=True, text=True
    ).stdout
    table = [l.rstrip() for l in out.splitlines() if not l.startswith("  ")]
    return "```\n" + "\n".join(table).strip() + "\n```"


def ggrs():
    return sb(
        "compare", "--profile", "wifi", "--algos", "rollback,ggrs", "--traces", "strafe-shoot",
        "--duration", "20s", "--paced", "--seeds", "1", "--format", "md", "--quiet",
    ).strip()


def my_netcode():
    out = subprocess.run(
        ["cargo", "run", "--release", "--quiet", "-p", "my-netcode", "--", "compare", "--profile", "wifi",
         "--duration", "20s", "--algos", "server-verified,my-netcode", "--quiet",
         "--metrics", "own-lat,remote-lat,own-div,remote-div,snaps,down"],
        cwd=ROOT, check=True, capture_output=True, text=True, env={**__import__("os").environ, "COLUMNS": "100"})
    return "```\n" + out.stdout.rstrip() + "\n```"


TABLES = {
    "main": main_table,
    "lanes": lanes,
    "ghost": ghost,
    "slow-lockstep": lambda: slow_player("lockstep"),
    "slow-bucket": lambda: slow_player("bucket"),
    "state-sync": state_sync,
    "sixteen": sixteen,
    "threshold": threshold,
    "transports": transports,
    "redundancy": redundancy,
    "conform": conform,
    "my-netcode": my_netcode,
}
def large_world():
    """200 players + 2,000 bots, 20 s, per --aoi: the metrics (deterministic)
    and the wall time and peak memory (this machine's, by /usr/bin/time)."""
    rows = [
        "| `--aoi` | down per client (B/s) | server up (B/s) | within radius | shown per render "
        "| awareness p50 / max (ms) | leak share | wall time for 20 s | peak memory |",
        "|:--|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for aoi in ["none", "grid", "crosslist"]:
        args = ["run", "--algo", "delta-snapshot", "--profile", "wifi", "--clients", "200", "--bots", "2000",
                "--arena", "400x400", "--aoi", aoi, "--duration", "20s", "--format", "json"]
        report, (wall, kb) = sb(*args, timed=True)
        m = json.loads(report)["runs"][0]["metrics"]
        i, a = m["interest"], m["interest"]["awareness_ms"]
        rows.append(
            f"| `{aoi}` | {m['bandwidth']['down_bytes_per_s']:,.0f} | {m['server_bandwidth']['up_bytes_per_s']:,.0f} "
            f"| {100 * i['visible_share']:.2f}% | {i['shown_per_render']:,.{0 if i['shown_per_render'] >= 100 else 1}f} | {a['p50']:.0f} / {a['max']:.0f} "
            f"| {100 * i['leak_share']:.1f}% | {float(wall):.1f} s | {int(kb) / 1024:.0f} MB |"
        )
    return "\n".join(rows)


SLOW = {"ggrs": ggrs, "large-world": large_world}


def main():
    slow = "--slow" in sys.argv[1:]
    every = {**TABLES, **SLOW}
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    unknown = [a for a in only if a not in every]
    if unknown:
        print(f"readme-tables.py: no table named {', '.join(unknown)} (the tables: {', '.join(every)})", file=sys.stderr)
        sys.exit(2)
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    path = ROOT / "README.md"
    text = path.read_text()
    for name in only or [*TABLES, *(SLOW if slow else ())]:
        make = every[name]
        pattern = re.compile(rf"(<!-- table:{re.escape(name)} -->\n)(.*?)(\n<!-- /table -->)", re.S)
        if not pattern.search(text):
            sys.exit(f"README.md: no <!-- table:{name} --> marker")
        body = make()
        text = pattern.sub(lambda m: m.group(1) + body + m.group(3), text)
        print(f"regenerated {name}", file=sys.stderr)
    path.write_text(text)


if __name__ == "__main__":
    main()
