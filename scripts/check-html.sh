#!/usr/bin/env bash
# Renders a syncbench HTML report in headless Chromium (installed from
# Debian's packages if missing), with networking disabled, and checks that
# its plots are there: the rendered DOM must hold the SVG charts and the
# page must not try to load anything. Leaves a screenshot next to the report.
#
#   scripts/check-html.sh                       # runs `matrix --quick` first
#   scripts/check-html.sh reports/quick/report.html
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORT=${1:-}
if [ -z "$REPORT" ]; then
  (cd "$ROOT" && cargo run --release --quiet -- matrix --quick --quiet --out target/check-html)
  REPORT=$ROOT/target/check-html/report.html
fi
[ -f "$REPORT" ] || { echo "no such report: $REPORT" >&2; exit 2; }
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing chromium from Debian's packages ..." >&2
  if [ "$(id -u)" != 0 ]; then echo "need root to apt-get install chromium" >&2; exit 2; fi
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
PROFILE_DIR=$(mktemp -d)
trap 'rm -rf "$PROFILE_DIR"' EXIT
FLAGS=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$PROFILE_DIR"
       --proxy-server="127.0.0.1:9" --proxy-bypass-list="<-loopback>")
URL="file://$(cd "$(dirname "$REPORT")" && pwd)/$(basename "$REPORT")"
DOM=$(timeout 120 chromium "${FLAGS[@]}" --dump-dom "$URL" 2>/dev/null)
SHOT="${REPORT%.html}.png"
timeout 120 chromium "${FLAGS[@]}" --window-size=1400,2400 --screenshot="$SHOT" "$URL" >/dev/null 2>&1 || true
svgs=$(grep -o "<svg" <<<"$DOM" | wc -l)
polylines=$(grep -o "<polyline" <<<"$DOM" | wc -l)
tables=$(grep -o "<table" <<<"$DOM" | wc -l)
echo "rendered $REPORT: $svgs SVG charts, $polylines plotted lines, $tables tables; screenshot $SHOT"
if [ "$svgs" -lt 5 ] || [ "$polylines" -lt 5 ] || [ "$tables" -lt 1 ]; then
  echo "the report's plots are missing" >&2
  exit 1
fi
if grep -qiE '<(script|link|img)[^>]+(src|href)="https?:' <<<"$DOM"; then
  echo "the report loads something from the network" >&2
  exit 1
fi
echo "ok: plots present, nothing loaded from the network"
