#!/usr/bin/env bash
# Renders a syncbench HTML report in headless Chromium (installed from
# Debian's packages if missing), with networking disabled, and checks the
# rendered DOM: every chart (`svg.plot`) has an x and a y axis with titles;
# every scatter plot, CDF and timeline draws each algorithm of its section
# once (or names it as dropped); scatter labels do not overlap; the page
# loads nothing. Leaves screenshots next to the report, 1400 px wide:
# REPORT.png (header, overview and first section) and REPORT-section-K.png
# for each further section (the page is too tall for one picture).
#
#   scripts/check-html.sh                       # runs `matrix --quick` first
#   scripts/check-html.sh reports/quick/report.html
#   PROFILE=dev scripts/check-html.sh           # with the dev build (CI)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORT=${1:-}
if [ -z "$REPORT" ]; then
  (cd "$ROOT" && cargo run --profile "${PROFILE:-release}" --quiet -- matrix --quick --quiet --out target/check-html)
  REPORT=$ROOT/target/check-html/report.html
fi
[ -f "$REPORT" ] || { echo "no such report: $REPORT" >&2; exit 2; }
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing chromium from Debian's packages ..." >&2
  if [ "$(id -u)" != 0 ]; then echo "need root to apt-get install chromium" >&2; exit 2; fi
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$WORK/profile" --hide-scrollbars
       --proxy-server="127.0.0.1:9" --proxy-bypass-list="<-loopback>")
REPORT_ABS="$(cd "$(dirname "$REPORT")" && pwd)/$(basename "$REPORT")"
URL="file://$REPORT_ABS"
timeout 120 chromium "${FLAGS[@]}" --dump-dom "$URL" 2>/dev/null > "$WORK/dom.html"
DOM=$(cat "$WORK/dom.html")

# Screenshots. A section is about 2500 px tall with 12 algorithms (more
# rows of small multiples and longer tables with more); the header and the
# algorithm × profile overview about 1700 px.
ALGOS=$(grep -o '<li data-algo="' <<<"$DOM" | wc -l)
SECTIONS=$(grep -o '<section class="group"' <<<"$DOM" | wc -l)
SECTION_H=$(( 2000 + 170 * ((ALGOS + 3) / 4) + 40 * ALGOS ))
TOP_H=$(( 1100 + 20 * ALGOS + SECTION_H ))
grep -q 'id="overview"' <<<"$DOM" && TOP_H=$(( TOP_H + 300 + 44 * ALGOS ))
[ "$TOP_H" -gt 16000 ] && TOP_H=16000
[ "$SECTION_H" -gt 16000 ] && SECTION_H=16000
SHOT="${REPORT%.html}.png"
rm -f "${REPORT%.html}"-section-*.png
timeout 120 chromium "${FLAGS[@]}" --window-size=1400,$TOP_H --screenshot="$SHOT" "$URL" >/dev/null 2>&1 || true
SHOTS=("$SHOT")
for k in $(seq 2 "$SECTIONS"); do
  # The page with every other part hidden by a style rule (no script).
  sed "s|</style>|main > :not(#group-$k) { display: none; }\n</style>|" "$REPORT_ABS" > "$WORK/section-$k.html"
  out="${REPORT%.html}-section-$k.png"
  timeout 120 chromium "${FLAGS[@]}" --window-size=1400,$SECTION_H --screenshot="$out" "file://$WORK/section-$k.html" \
    >/dev/null 2>&1 || true
  SHOTS+=("$out")
done

svgs=$(grep -o "<svg" <<<"$DOM" | wc -l)
polylines=$(grep -o "<polyline" <<<"$DOM" | wc -l)
tables=$(grep -o "<table" <<<"$DOM" | wc -l)
echo "rendered $REPORT: $svgs SVG pictures, $polylines plotted lines, $tables tables, $SECTIONS sections, $ALGOS algorithms"
echo "screenshots (1400 px wide): ${SHOTS[*]}"
if [ "$svgs" -lt 5 ] || [ "$polylines" -lt 5 ] || [ "$tables" -lt 1 ]; then
  echo "the report's plots are missing" >&2
  exit 1
fi
if grep -qiE '<(script|link|img|iframe)[^>]+(src|href)="https?:' <<<"$DOM" || grep -qi '<script' <<<"$DOM"; then
  echo "the report loads something from the network or runs a script" >&2
  exit 1
fi

# The structure of every chart.
python3 - "$WORK/dom.html" <<'PY'
import sys
from html.parser import HTMLParser

class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.plots, self.key, self.section, self.plot = [], [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = (a.get("class") or "").split()
        if tag == "section" and "group" in cls:
            self.section = {"id": a.get("id"), "algos": [x for x in (a.get("data-algorithms") or "").split(",") if x]}
        elif tag == "li" and "data-algo" in a:
            self.key.append(a["data-algo"])
        if self.plot is None:
            if tag == "svg" and "plot" in cls:
                self.plot = {"kind": a.get("data-kind"), "label": a.get("aria-label"), "section": self.section,
                             "dropped": [x for x in (a.get("data-dropped") or "").split(",") if x],
                             "series": [], "titles": set(), "labels": [], "stack": []}
                self.plots.append(self.plot)
            return
        self.plot["stack"].append((tag, cls))
        if tag == "g" and "series" in cls:
            self.plot["series"].append(a.get("data-series"))
        if tag == "text" and "axis-title" in cls:
            for t, c in self.plot["stack"]:
                if t == "g" and "axis" in c and ("x" in c or "y" in c):
                    self.plot["titles"].add("x" if "x" in c else "y")
        if tag == "text" and "label" in cls and a.get("data-bbox"):
            self.plot["labels"].append([float(v) for v in a["data-bbox"].split()])

    def handle_endtag(self, tag):
        if tag == "section":
            self.section = None
        if self.plot is None:
            return
        if tag == "svg" and not self.plot["stack"]:
            self.plot = None
            return
        while self.plot["stack"]:
            if self.plot["stack"].pop()[0] == tag:
                break

page = Page()
page.feed(open(sys.argv[1], encoding="utf-8").read())
errors = []
kinds = {}
for p in page.plots:
    kinds[p["kind"]] = kinds.get(p["kind"], 0) + 1
    where = f'{p["kind"]} "{p["label"]}"' + (f' in {p["section"]["id"]}' if p["section"] else "")
    for axis in "xy":
        if axis not in p["titles"]:
            errors.append(f"{where}: no {axis} axis with a title")
    if p["kind"] in ("scatter", "cdf", "timeline"):
        expected = set(p["section"]["algos"]) if p["section"] else set(page.key)
        drawn = p["series"] + p["dropped"]
        if len(drawn) != len(set(drawn)):
            errors.append(f"{where}: an algorithm drawn twice")
        if set(drawn) != expected:
            errors.append(f"{where}: series {sorted(set(drawn))} != algorithms {sorted(expected)}")
    boxes = p["labels"]
    for i, b in enumerate(boxes):
        for c in boxes[:i]:
            if b[0] < c[0] + c[2] and c[0] < b[0] + b[2] and b[1] < c[1] + c[3] and c[1] < b[1] + b[3]:
                errors.append(f"{where}: labels overlap")
for kind in ("scatter", "cdf", "timeline", "bars"):
    if kinds.get(kind, 0) == 0:
        errors.append(f"no {kind} chart")
sections = {p["section"]["id"] for p in page.plots if p["section"]}
algos = set(page.key)
print(f"{len(page.plots)} charts ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}) "
      f"in {len(sections)} sections, {len(algos)} algorithms")
if errors:
    print("\n".join(errors[:40]), file=sys.stderr)
    sys.exit(1)
PY
echo "ok: every chart has titled axes and one series per algorithm, nothing loaded from the network"
