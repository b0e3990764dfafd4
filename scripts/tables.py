#!/usr/bin/env python3
"""Regenerates every table in README.md and the user guide
(docs/book/src/*.md) from the syncbench command its marker names, and
checks that the committed tables are what those commands print.

A table sits between two markers, the command in the first:

    <!-- table: syncbench compare --profile wifi --format md --quiet -->
    ...
    <!-- /table -->

The command runs with the release binary (and COLUMNS=100; PROFILE=dev
runs the dev build's, as CI does: the numbers are the same); its standard
output replaces what is between the markers. Output that is not Markdown
(a command without `--format md`) goes in a text block. A word before the
colon marks a table that takes long:

    <!-- table slow: ... -->    regenerated and checked only with --slow
    <!-- table paced: ... -->   runs on the wall clock, so its numbers move
                                from run to run: regenerated with --slow,
                                never checked

The metric definitions in the guide's reading-the-numbers.md come from the
module documentation of harness/src/metrics/mod.rs, between
`<!-- generated:metric-definitions -->` and `<!-- /generated -->`.

    python3 scripts/tables.py                 # regenerate the fast tables
    python3 scripts/tables.py --slow          # and the slow and paced ones
    python3 scripts/tables.py --check         # exit 1 naming each stale table
    python3 scripts/tables.py --check --slow  # the slow ones too
    python3 scripts/tables.py --list          # every table, file and line
    python3 scripts/tables.py --check FILE…   # these files only
"""

import difflib
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROFILE = os.environ.get("PROFILE", "release")
# Cargo builds the dev profile into target/debug, any other into its name.
PROFILE_DIR = ROOT / "target" / ("debug" if PROFILE == "dev" else PROFILE)
BINARIES = {
    "syncbench": PROFILE_DIR / "syncbench",
    "my-netcode": PROFILE_DIR / "my-netcode",
}
TABLE = re.compile(r"<!-- table(?: (slow|paced))?: (.+?) -->\n(.*?)<!-- /table -->", re.S)
DEFINITIONS = re.compile(r"(<!-- generated:metric-definitions -->\n)(.*?)(<!-- /generated -->)", re.S)
METRICS_DOC = ROOT / "harness" / "src" / "metrics" / "mod.rs"


def documents(named):
    """The files named, else README.md and the guide's chapters, in a
    stable order."""
    if named:
        return [Path(n).resolve() for n in named]
    book = ROOT / "docs" / "book" / "src"
    return [ROOT / "README.md"] + (sorted(book.glob("*.md")) if book.is_dir() else [])


def shown(path):
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def line_of(text, offset):
    return text.count("\n", 0, offset) + 1


def run(command, where):
    """What `command` prints, as the body of its table."""
    words = shlex.split(command)
    if not words or words[0] not in BINARIES:
        sys.exit(f"{where}: a table's command starts with {' or '.join(BINARIES)}, got `{command}`")
    # The tables are the project's own: no SYNCBENCH_* setting of the
    # caller's (another data home, say) reaches them.
    env = {k: v for k, v in os.environ.items() if not k.startswith("SYNCBENCH_")}
    env["COLUMNS"] = "100"
    out = subprocess.run([str(BINARIES[words[0]]), *words[1:]], cwd=ROOT, capture_output=True, text=True, env=env)
    if out.returncode not in (0, 1):
        sys.exit(f"{where}: `{command}` failed (exit {out.returncode}):\n{out.stderr}")
    body = out.stdout.rstrip()
    if "--format md" not in command and "--format=md" not in command:
        body = "```text\n" + body + "\n```"
    return body + "\n"


def definitions():
    """The metric definitions: the module doc's list, links as plain code."""
    doc = [l[4:] if l.startswith("//! ") else l[3:] for l in METRICS_DOC.read_text().splitlines() if l.startswith("//!")]
    start = next(i for i, l in enumerate(doc) if l.startswith("- "))
    end = next((i for i in range(start, len(doc)) if doc[i] == "" and i > start), len(doc))
    text = "\n".join(doc[start:end])
    text = re.sub(r"\[(`[^`]+`)\]\([^)]*\)", r"\1", text)  # [`x`](path) -> `x`
    text = re.sub(r"\[(`[^`]+`)\]", r"\1", text)  # [`x`] -> `x`
    return text + "\n"


def main():
    args = sys.argv[1:]
    unknown = [a for a in args if a.startswith("--") and a not in ("--slow", "--check", "--list")]
    if unknown:
        sys.exit(f"tables.py: unknown argument {unknown[0]} (expected --slow, --check, --list or files)")
    named = [a for a in args if not a.startswith("--")]
    missing = [n for n in named if not Path(n).is_file()]
    if missing:
        sys.exit(f"tables.py: {missing[0]}: no such file")
    slow, check = "--slow" in args, "--check" in args
    if "--list" in args:
        for path in documents(named):
            text = path.read_text()
            for m in TABLE.finditer(text):
                print(f"{shown(path)}:{line_of(text, m.start())}: {m.group(1) or 'fast'}: {m.group(2)}")
        return
    subprocess.run(
        ["cargo", "build", "--profile", PROFILE, "--quiet", "-p", "syncbench", "-p", "my-netcode"], cwd=ROOT, check=True
    )
    stale = []
    for path in documents(named):
        text = path.read_text()
        pieces, last = [], 0
        for m in TABLE.finditer(text):
            kind, command, old = m.group(1), m.group(2), m.group(3)
            where = f"{shown(path)}:{line_of(text, m.start())}"
            due = kind is None or slow
            if not due or (check and kind == "paced"):
                continue
            print(f"{where}: {command}", file=sys.stderr)
            new = run(command, where)
            if new != old:
                stale.append((where, command, old, new))
            pieces += [text[last : m.start(3)], new]
            last = m.end(3)
        pieces.append(text[last:])
        fresh = "".join(pieces)
        d = DEFINITIONS.search(fresh)
        if d and d.group(2) != definitions():
            stale.append((f"{shown(path)}:{line_of(fresh, d.start())}", "metric definitions", d.group(2), definitions()))
            fresh = fresh[: d.start(2)] + definitions() + fresh[d.end(2) :]
        if not check and fresh != text:
            path.write_text(fresh)
    if check and stale:
        for where, command, old, new in stale:
            diff = difflib.unified_diff(old.splitlines(), new.splitlines(), "committed", "now", lineterm="", n=1)
            print(f"{where}: stale table ({command}):", *list(diff)[:40], sep="\n", file=sys.stderr)
        sys.exit(f"{len(stale)} stale table(s): run `python3 scripts/tables.py{' --slow' if slow else ''}` and commit")
    if not check:
        print(f"{len(stale)} table(s) changed", file=sys.stderr)


if __name__ == "__main__":
    main()
