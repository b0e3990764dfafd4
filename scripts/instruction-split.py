#!/usr/bin/env python3
"""Splits a small match's instructions by who spends them, and counts its
allocations: what the guide's performance chapter and its log
quote as each match's "floor" and its malloc + realloc calls.

For each algorithm, one 60 s, 4-client `wifi` match
(`run --algo A --profile wifi --duration 60s --format json`) runs under
valgrind's callgrind (one core, deterministic), and the profile is read
with callgrind_annotate:

- nodes' own work: the instructions of the nodes' callbacks the runner
  calls (`<… as harness::contract::Node>::…`), less the recorder calls
  made inside them (`<Recorder as Observer>::…`);
- link model: `Link::send`, called for every packet and hop;
- recorder's game steps: `Game::step` called by the ideal world and by
  the recorder's own authority (`Recorder::publish_*`);
- floor: their sum — the part no change to the harness can remove without
  changing what it measures — and its time at RATE G instructions a
  second (default 13.4: round 11's fast sitting, 223.85 M instructions
  in 16.70 ms);
- allocations: calls to malloc and realloc, the run's set-up included.

A second table bounds the `overhead/` benchmark's ratio (the match over
the game steps its nodes execute, replayed alone):

- nodes' game steps: calls of `Game::step` from anything but the
  recorder (re-simulation included), and their instructions;
- packets through links: calls of `Link::send`;
- match ÷ nodes' steps: the ratio in instructions;
- least possible ratio: (nodes' steps + recorder's game steps + link
  model) ÷ nodes' steps — the ratio if the algorithms' own code besides
  their steps, the judging, the scheduler and the event loop cost nothing.

The few hundred steps the ideal world takes inside a closure of
`Ideal::advance` (under 0.4 M instructions) count in neither the
recorder's nor the nodes' steps, so the least ratio errs low.

usage: scripts/instruction-split.py [--rate G] [ALGORITHM ...]
       (default: every algorithm but ggrs, which reads the wall clock)
SYNCBENCH names the binary (default: target/release/syncbench).
"""
import os
import re
import subprocess
import sys
import tempfile


def usage(msg):
    print(f"{msg}\nusage: {sys.argv[0]} [--rate G] [ALGORITHM ...]", file=sys.stderr)
    sys.exit(2)


def annotate(path, *flags):
    # From the root: callgrind_annotate shortens the paths of files under
    # its working directory, and then leaves their lines out of a caller
    # tree.
    out = subprocess.run(["callgrind_annotate", *flags, os.path.abspath(path)], capture_output=True, text=True, cwd="/")
    if out.returncode != 0:
        usage(f"callgrind_annotate failed on {path}: {out.stderr.strip()}")
    return out.stdout


def blocks(text):
    """Each function's block of a --tree listing: (its line, the others)."""
    for block in text.split("\n\n"):
        lines = block.strip().split("\n")
        star = [l for l in lines if "*  " in l]
        if star:
            yield star[0], lines


def count(line):
    m = re.match(r"\s*([0-9,]+)", line)
    return int(m.group(1).replace(",", "")) if m else 0


def split(path):
    calling = annotate(path, "--tree=calling", "--inclusive=yes", "--threshold=100")
    total = count(re.search(r"^\s*[0-9,]+ \(100.0%\)\s+PROGRAM TOTALS", calling, re.M).group(0))
    nodes = observer = link = steps = 0
    for star, lines in blocks(calling):
        callees = [l for l in lines if ">" in l]
        if re.search(r"runner\.rs:harness::runner::run_plan_observed \[", star):
            nodes += sum(count(l) for l in callees if "as harness::contract::Node>::" in l)
        if re.search(r"recorder\.rs:<harness::metrics::recorder::Recorder as harness::contract::Observer>::\w+ \[", star):
            observer += count(star)
        if re.search(r"runner\.rs:harness::runner::Network::offer \[", star):
            link += sum(count(l) for l in callees if "Link::send" in l)
        if re.search(r"(ideal\.rs:harness::metrics::ideal::Ideal::advance|recorder\.rs:harness::metrics::recorder::Recorder::publish_\w+) \[", star):
            steps += sum(count(l) for l in callees if "Game::step" in l and "closure" not in l)
    allocations = 0
    node_steps = [0, 0]  # calls, instructions
    packets = 0
    for star, lines in blocks(annotate(path, "--tree=caller")):
        callers = [l for l in lines if "<" in l]
        if re.search(r":(malloc|realloc) ", star):
            allocations += sum(calls(l) for l in callers)
        if re.search(r"rules\.rs:harness::game::rules::Game::step \[", star):
            for l in callers:
                if "harness/src/metrics/" not in l:
                    node_steps[0] += calls(l)
                    node_steps[1] += count(l)
        if re.search(r"link\.rs:harness::net::link::Link::send \[", star):
            packets += sum(calls(l) for l in callers)
    return total, nodes - observer, link, steps, allocations, node_steps, packets


def calls(line):
    m = re.search(r"\(([0-9,]+)x\)", line)
    return int(m.group(1).replace(",", "")) if m else 0


def main():
    args = sys.argv[1:]
    rate = 13.4
    if args[:1] == ["--rate"]:
        if len(args) < 2:
            usage("--rate needs a number (G instructions a second)")
        try:
            rate = float(args[1])
        except ValueError:
            usage(f"--rate: expected a number, got {args[1]!r}")
        if rate <= 0:
            usage("--rate must be positive")
        args = args[2:]
    binary = os.environ.get("SYNCBENCH", "target/release/syncbench")
    for tool in ("valgrind", "callgrind_annotate"):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True).returncode != 0:
            usage(f"{tool} not found: install valgrind (Debian: apt-get install valgrind)")
    if not os.access(binary, os.X_OK):
        usage(f"{binary}: no such binary (cargo build --release, or set SYNCBENCH)")
    if not args:
        listing = subprocess.run([binary, "list", "algorithms"], capture_output=True, text=True).stdout
        args = [m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*) ", listing, re.M) if m.group(1) != "ggrs"]
    print("| algorithm | 60 s match | nodes' own work | link model | recorder's game steps | floor | floor's time | malloc + realloc calls |")
    print("|:--|--:|--:|--:|--:|--:|--:|--:|")
    bounds = []
    with tempfile.TemporaryDirectory() as tmp:
        for algo in args:
            out = os.path.join(tmp, f"{algo}.callgrind")
            run = [binary, "run", "--algo", algo, "--profile", "wifi", "--duration", "60s", "--format", "json"]
            done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *run],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                usage(f"{algo}: the run failed: {done.stderr.strip().splitlines()[-1:]}")
            total, own, link, steps, allocs, (n_steps, step_ir), packets = split(out)
            floor = own + link + steps
            print(f"| `{algo}` | {m(total)} | {m(own)} | {m(link)} | {m(steps)} | {m(floor)} | "
                  f"{floor / (rate * 1e6):.2f} ms | {allocs:,} |", flush=True)
            bounds.append((algo, n_steps, step_ir, steps, packets, link, total))
    # The overhead benchmark's ratio is the match over the nodes' game steps
    # replayed alone. Its least possible value with this link model and
    # these reference worlds: as if everything else — the algorithms' own
    # code besides their steps, judging, scheduling — cost nothing.
    print()
    print("| algorithm | nodes' game steps | their instructions | recorder's game steps | packets through links | link model | match ÷ nodes' steps | least possible ratio |")
    print("|:--|--:|--:|--:|--:|--:|--:|--:|")
    for algo, n_steps, step_ir, steps, packets, link, total in bounds:
        ratio = lambda v: f"{v / step_ir:.1f}×" if step_ir else "–"
        print(f"| `{algo}` | {n_steps:,} | {m(step_ir)} | {m(steps)} | {packets:,} | {m(link)} | "
              f"{ratio(total)} | {ratio(step_ir + steps + link)} |")


def m(v):
    return f"{v / 1e6:.1f} M"


if __name__ == "__main__":
    main()
