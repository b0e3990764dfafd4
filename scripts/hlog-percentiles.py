#!/usr/bin/env python3
"""Writes one tag of syncbench interval logs (`--hlog DIR`) as
HdrHistogram percentile distributions (.hgrm), the text `hdr-plot` and
HistogramLogProcessor's users plot, through HdrHistogram's own Python
library (pip install hdrhistogram): a reader that is not syncbench's.

usage: scripts/hlog-percentiles.py LOG.hlog... [--tag latency-remote] [--scale 1000]
  --tag    the distribution (default latency-remote; the log's header lists them)
  --scale  divide values by this (default 1000: µs -> ms, µm -> mm)
Writes LOG.TAG.hgrm beside each log and prints its name.
"""
import argparse
import io
import sys

try:
    from hdrh.histogram import HdrHistogram
    from hdrh.log import HistogramLogReader
except ImportError:
    sys.exit("needs HdrHistogram's Python library: pip install hdrhistogram")

p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
p.add_argument("logs", nargs="+")
p.add_argument("--tag", default="latency-remote")
p.add_argument("--scale", type=float, default=1000.0)
a = p.parse_args()
status = 0
for path in a.logs:
    reader = HistogramLogReader(path, HdrHistogram(1, 2**62, 3))
    found = None
    while (h := reader.get_next_interval_histogram()) is not None:
        if h.get_tag() == a.tag:
            found = h
            break
    if found is None:
        print(f"{path}: no interval tagged {a.tag}", file=sys.stderr)
        status = 2
        continue
    out = f"{path.removesuffix('.hlog')}.{a.tag}.hgrm"
    text = io.BytesIO()
    found.output_percentile_distribution(text, a.scale)
    # The Python library spells the footer's count `TotalCount`; Java's
    # HistogramLogProcessor, which hdr-plot reads, `Total count`.
    with open(out, "w") as f:
        f.write(text.getvalue().decode().replace("TotalCount     =", "Total count    ="))
    print(out)
sys.exit(status)
