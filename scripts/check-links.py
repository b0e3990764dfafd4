#!/usr/bin/env python3
"""Checks the repository's Markdown links: every relative link resolves to
a file or folder in the repository, every `#anchor` into a Markdown file
names one of its headings (GitHub's rules), and the guide's SUMMARY.md
lists every chapter in docs/book/src and only chapters that exist.

    python3 scripts/check-links.py        # exit 1 naming each broken link
"""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def tracked():
    """The files git tracks (and their folders), or None outside a git
    checkout: a link to a file on this disk but not committed breaks in
    every clone."""
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    files = {(ROOT / f).resolve() for f in out.decode().split("\0") if f}
    return files | {d for f in files for d in f.parents if d.is_relative_to(ROOT)}


def markdown_files():
    skip = {"target", ".git", "node_modules"}
    for path in sorted(ROOT.rglob("*.md")):
        if not skip.intersection(path.relative_to(ROOT).parts):
            yield path


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped,
    spaces as hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        seen, out, fenced = {}, set(), False
        for line in path.read_text().splitlines():
            if FENCE.match(line):
                fenced = not fenced
            if fenced or not line.startswith("#"):
                continue
            base = slug(line.lstrip("#"))
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
        cache[path] = out
    return cache[path]


def links(path):
    fenced = False
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
        if fenced:
            continue
        line = re.sub(r"`[^`]*`", "", line)
        for m in LINK.finditer(line):
            yield number, m.group(1) or m.group(2)


def main():
    broken = []
    known = tracked()
    for path in markdown_files():
        if known is not None and path.resolve() not in known:
            continue  # not committed: not what a clone has
        for number, target in links(path):
            if re.match(r"^[a-z]+:", target) or target.startswith("//"):
                continue  # a web address or mailto:
            where = f"{path.relative_to(ROOT)}:{number}"
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                broken.append(f"{where}: {target}: no such file")
            elif not dest.is_relative_to(ROOT):
                broken.append(f"{where}: {target}: outside the repository")
            elif known is not None and dest not in known:
                broken.append(f"{where}: {target}: not committed (git add it, or link elsewhere)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{where}: {target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    book = ROOT / "docs" / "book" / "src"
    if book.is_dir():
        listed = {(book / t).resolve() for _, t in links(book / "SUMMARY.md") if not t.startswith("http")}
        for chapter in sorted(book.glob("*.md")):
            if chapter.name != "SUMMARY.md" and chapter.resolve() not in listed:
                broken.append(f"docs/book/src/{chapter.name}: not in SUMMARY.md")
    for b in broken:
        print(b, file=sys.stderr)
    if broken:
        sys.exit(f"{len(broken)} broken link(s)")
    print("links: every relative link and anchor resolves", file=sys.stderr)


if __name__ == "__main__":
    main()
