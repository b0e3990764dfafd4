//! Hand-written SVG for the HTML report: scales with nice ticks (linear, or
//! logarithmic when the values span more than [`LOG_SPAN`]×), the algorithm
//! styles (colour, marker shape, dash), greedy label placement, and the
//! charts — scatter, lines (CDFs), small multiples, horizontal bars and
//! heat maps.
//!
//! Every chart is `<svg class="plot" data-kind="…">` holding
//! `<g class="axis x">` and `<g class="axis y">` (tick labels and a
//! `<text class="axis-title">`) and one `<g class="series"
//! data-series="NAME">` per algorithm; values that could not be drawn are
//! named in the svg's `data-dropped` and in the figure's caption. Neither
//! kind of group nests another `<g>`, so a test can find a group's end at
//! its first `</g>`. The output depends on the input only: coordinates are
//! written with one decimal, nothing is hashed or timed.

use std::fmt::Write as _;

/// Font size of tick labels, legends and point labels, px.
pub(crate) const FONT: f64 = 12.0;
/// Font size of chart titles, px.
const TITLE_FONT: f64 = 13.0;
/// Positive values spanning more than this factor get a logarithmic axis.
pub(crate) const LOG_SPAN: f64 = 30.0;
/// Marker radius in scatter plots, px.
pub(crate) const MARKER_R: f64 = 5.0;
/// Half the side of the box a marker of radius `r` fits in.
pub(crate) fn marker_half(r: f64) -> f64 {
    1.25 * r + 1.0
}

/// The width a label of `s` is given: 0.6 em per character (generous for
/// the proportional system fonts the page uses).
pub(crate) fn text_width(s: &str, font: f64) -> f64 {
    0.6 * font * s.chars().count() as f64
}

/// Escapes text and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(ch),
        }
    }
    o
}

/// A coordinate: one decimal, without a trailing `.0`.
pub(crate) fn c(v: f64) -> String {
    let s = format!("{v:.1}");
    let s = s.strip_suffix(".0").map(str::to_string).unwrap_or(s);
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A value with six significant digits, trailing zeros dropped (for data
/// attributes: stable however the value was computed to the last bit).
pub(crate) fn sig(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let dec = (5 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let s = format!("{v:.dec$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

// ---------------------------------------------------------------- styles

/// Sixteen colours distinct on white: the Tableau/d3 ten and six darker
/// hues between them.
pub(crate) const PALETTE: [&str; 16] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
    "#393b79", "#637939", "#7b4173", "#b8860b", "#00796b", "#222222",
];

/// Marker shapes, cycling independently of the colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    /// ●
    Circle,
    /// ■
    Square,
    /// ▲
    TriangleUp,
    /// ◆
    Diamond,
    /// ▼
    TriangleDown,
    /// ×
    Cross,
    /// +
    Plus,
}

const MARKERS: [Marker; 7] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
    Marker::Cross,
    Marker::Plus,
];

/// Line dashes: solid for the first sixteen algorithms, then dashed, so
/// colour and dash together stay distinct for 64.
const DASHES: [&str; 4] = ["", "7 3", "2 2", "9 3 2 3"];

/// How one algorithm is drawn, everywhere on the page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Style {
    /// Fill and stroke colour.
    pub color: &'static str,
    /// Marker shape.
    pub marker: Marker,
    /// `stroke-dasharray` of its lines ("" = solid).
    pub dash: &'static str,
}

/// The style of the `i`-th algorithm of a page: colour and marker cycle
/// with coprime periods (16 and 7), so no two of the first 112 share both.
pub(crate) fn style(i: usize) -> Style {
    Style { color: PALETTE[i % PALETTE.len()], marker: MARKERS[i % MARKERS.len()], dash: DASHES[(i / 16) % 4] }
}

fn dash_attr(dash: &str) -> String {
    if dash.is_empty() {
        String::new()
    } else {
        format!(" stroke-dasharray=\"{dash}\"")
    }
}

/// A marker of radius `r` centred on `(x, y)`.
pub(crate) fn marker(m: Marker, x: f64, y: f64, r: f64, color: &str) -> String {
    let filled =
        |d: String| format!("<path class=\"marker\" d=\"{d}\" fill=\"{color}\" stroke=\"#fff\" stroke-width=\"1\"/>");
    let stroked =
        |d: String| format!("<path class=\"marker\" d=\"{d}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"2.4\"/>");
    match m {
        Marker::Circle => {
            format!(
                "<circle class=\"marker\" cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{color}\" stroke=\"#fff\" stroke-width=\"1\"/>",
                c(x),
                c(y),
                c(r)
            )
        }
        Marker::Square => {
            let s = 0.9 * r;
            filled(format!("M{},{}h{}v{}h{}Z", c(x - s), c(y - s), c(2.0 * s), c(2.0 * s), c(-2.0 * s)))
        }
        Marker::TriangleUp => filled(format!(
            "M{},{}L{},{}L{},{}Z",
            c(x),
            c(y - 1.2 * r),
            c(x + 1.1 * r),
            c(y + 0.8 * r),
            c(x - 1.1 * r),
            c(y + 0.8 * r)
        )),
        Marker::TriangleDown => filled(format!(
            "M{},{}L{},{}L{},{}Z",
            c(x),
            c(y + 1.2 * r),
            c(x + 1.1 * r),
            c(y - 0.8 * r),
            c(x - 1.1 * r),
            c(y - 0.8 * r)
        )),
        Marker::Diamond => filled(format!(
            "M{},{}L{},{}L{},{}L{},{}Z",
            c(x),
            c(y - 1.25 * r),
            c(x + r),
            c(y),
            c(x),
            c(y + 1.25 * r),
            c(x - r),
            c(y)
        )),
        Marker::Cross => {
            let s = 0.85 * r;
            stroked(format!(
                "M{},{}L{},{}M{},{}L{},{}",
                c(x - s),
                c(y - s),
                c(x + s),
                c(y + s),
                c(x - s),
                c(y + s),
                c(x + s),
                c(y - s)
            ))
        }
        Marker::Plus => stroked(format!(
            "M{},{}H{}M{},{}V{}",
            c(x - 1.1 * r),
            c(y),
            c(x + 1.1 * r),
            c(x),
            c(y - 1.1 * r),
            c(y + 1.1 * r)
        )),
    }
}

/// A small inline picture of an algorithm's style (line and marker), for
/// keys outside the plots.
pub(crate) fn swatch(s: Style) -> String {
    format!(
        "<svg class=\"swatch\" width=\"30\" height=\"14\" viewBox=\"0 0 30 14\" aria-hidden=\"true\"><line x1=\"1\" y1=\"7\" x2=\"29\" y2=\"7\" stroke=\"{}\" stroke-width=\"2\"{}/>{}</svg>",
        s.color,
        dash_attr(s.dash),
        marker(s.marker, 15.0, 7.0, 4.5, s.color)
    )
}

// ---------------------------------------------------------------- scales

/// A map from values to pixels, with its ticks.
#[derive(Clone, Debug)]
pub(crate) struct Scale {
    log: bool,
    lo: f64,
    hi: f64,
    /// Pixel of `lo` (or of 0 on a log scale with a zero slot).
    r0: f64,
    /// Pixel of `hi`.
    r1: f64,
    /// Log scales holding zeros: 0 is drawn at `r0`, `lo` at `a0`.
    zero: bool,
    a0: f64,
    ticks: Vec<f64>,
    /// Linear: the tick step (for the labels' decimals).
    step: f64,
}

/// Room between the zero slot of a log axis and its first decade, px.
const ZERO_SLOT: f64 = 18.0;

fn pow10(e: i32) -> f64 {
    if e < 0 {
        1.0 / 10f64.powi(-e)
    } else {
        10f64.powi(e)
    }
}

/// The smallest of 1, 2, 5 × 10^k that is at least `raw`.
fn nice_step(raw: f64) -> f64 {
    let e = raw.log10().floor() as i32;
    let base = pow10(e);
    let f = raw / base;
    let m = if f <= 1.0 + 1e-9 {
        1.0
    } else if f <= 2.0 + 1e-9 {
        2.0
    } else if f <= 5.0 + 1e-9 {
        5.0
    } else {
        10.0
    };
    m * base
}

/// The largest of 1, 2, 5 × 10^k at most `v` (> 0).
fn floor125(v: f64) -> f64 {
    let e = v.log10().floor() as i32;
    for m in [5.0, 2.0, 1.0] {
        if m * pow10(e) <= v * (1.0 + 1e-9) {
            return m * pow10(e);
        }
    }
    pow10(e - 1) * 5.0
}

/// The smallest of 1, 2, 5 × 10^k at least `v` (> 0).
fn ceil125(v: f64) -> f64 {
    let e = v.log10().floor() as i32;
    for m in [1.0, 2.0, 5.0, 10.0] {
        if m * pow10(e) >= v * (1.0 - 1e-9) {
            return m * pow10(e);
        }
    }
    pow10(e + 1)
}

impl Scale {
    /// A linear scale covering `lo..=hi` rounded out to about `ticks` nice
    /// steps, onto pixels `r0..r1`.
    pub(crate) fn linear(lo: f64, hi: f64, r0: f64, r1: f64, ticks: usize) -> Scale {
        let (mut lo, mut hi) = (lo, hi);
        if hi <= lo {
            if lo == 0.0 {
                hi = 1.0;
            } else {
                let d = lo.abs() * 0.5;
                let nonneg = lo >= 0.0;
                lo -= d;
                hi += d;
                if nonneg && lo < 0.0 {
                    lo = 0.0;
                }
            }
        }
        let step = nice_step((hi - lo) / ticks.max(1) as f64);
        let k0 = (lo / step + 1e-9).floor() as i64;
        let k1 = (hi / step - 1e-9).ceil() as i64;
        let k1 = k1.max(k0 + 1);
        Scale {
            log: false,
            lo: k0 as f64 * step,
            hi: k1 as f64 * step,
            r0,
            r1,
            zero: false,
            a0: r0,
            ticks: (k0..=k1).map(|k| k as f64 * step).collect(),
            step,
        }
    }

    /// A logarithmic scale over the positive `pmin..=pmax`, rounded out to
    /// 1, 2, 5 × 10^k; with `zero`, 0 gets its own slot at `r0`.
    pub(crate) fn log(pmin: f64, pmax: f64, r0: f64, r1: f64, zero: bool) -> Scale {
        let lo = floor125(pmin);
        let mut hi = ceil125(pmax);
        if hi <= lo {
            hi = ceil125(lo * 1.5);
        }
        let decades = (hi / lo).log10();
        let mults: &[f64] = if decades <= 2.5 { &[1.0, 2.0, 5.0] } else { &[1.0] };
        let mut ticks = Vec::new();
        for e in (lo.log10().floor() as i32)..=(hi.log10().ceil() as i32) {
            for m in mults {
                let v = m * pow10(e);
                if v >= lo * (1.0 - 1e-9) && v <= hi * (1.0 + 1e-9) {
                    ticks.push(v);
                }
            }
        }
        if ticks.len() < 2 {
            ticks = vec![lo, hi];
        }
        let dir = if r1 >= r0 { 1.0 } else { -1.0 };
        let a0 = if zero { r0 + dir * ZERO_SLOT } else { r0 };
        Scale { log: true, lo, hi, r0, r1, zero, a0, ticks, step: 0.0 }
    }

    /// A scale for `values` (non-finite ones ignored): logarithmic when
    /// none is negative and the positive ones span more than [`LOG_SPAN`]×
    /// (zeros then sit in a slot of their own), else linear, starting at 0
    /// when the values come close to it.
    pub(crate) fn auto(values: &[f64], r0: f64, r1: f64, ticks: usize) -> Scale {
        Scale::auto_span(values, r0, r1, ticks, LOG_SPAN)
    }

    /// [`Scale::auto`] with another span for going logarithmic.
    pub(crate) fn auto_span(values: &[f64], r0: f64, r1: f64, ticks: usize, log_span: f64) -> Scale {
        let vals: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
        if vals.is_empty() {
            return Scale::linear(0.0, 1.0, r0, r1, ticks);
        }
        let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let pos: Vec<f64> = vals.iter().copied().filter(|v| *v > 0.0).collect();
        if min >= 0.0 && !pos.is_empty() {
            let pmin = pos.iter().copied().fold(f64::INFINITY, f64::min);
            let pmax = pos.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if pmax / pmin > log_span {
                return Scale::log(pmin, pmax, r0, r1, min == 0.0);
            }
        }
        let lo = if min > 0.0 && min <= 0.35 * max { 0.0 } else { min };
        Scale::linear(lo, max, r0, r1, ticks)
    }

    /// Whether logarithmic.
    pub(crate) fn is_log(&self) -> bool {
        self.log
    }

    /// The pixel of `v`.
    pub(crate) fn map(&self, v: f64) -> f64 {
        if self.log {
            if v <= 0.0 {
                return self.r0;
            }
            let t = (v.log10() - self.lo.log10()) / (self.hi.log10() - self.lo.log10());
            self.a0 + t * (self.r1 - self.a0)
        } else {
            let t = (v - self.lo) / (self.hi - self.lo);
            self.r0 + t * (self.r1 - self.r0)
        }
    }

    /// The domain's ends.
    #[cfg(test)]
    pub(crate) fn domain(&self) -> (f64, f64) {
        (if self.zero { 0.0 } else { self.lo }, self.hi)
    }

    /// Ticks as `(value, label)`.
    pub(crate) fn ticks(&self) -> Vec<(f64, String)> {
        let mut out = Vec::new();
        if self.zero {
            out.push((0.0, "0".to_string()));
        }
        if self.log {
            out.extend(self.ticks.iter().map(|&v| (v, fmt_log_tick(v))));
        } else {
            let max = self.ticks.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            out.extend(self.ticks.iter().map(|&v| (v, fmt_linear_tick(v, self.step, max))));
        }
        out
    }
}

/// A linear tick: decimals from the step; `k` / `M` when the axis reaches
/// 10 000 / 10 000 000.
fn fmt_linear_tick(v: f64, step: f64, max: f64) -> String {
    if v.abs() < step * 1e-6 {
        return "0".into();
    }
    let (div, suffix) = if max >= 1e7 {
        (1e6, "M")
    } else if max >= 1e4 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let s = step / div;
    let dec = if s >= 1.0 { 0 } else { (-s.log10() - 1e-9).ceil().max(0.0) as usize };
    format!("{:.*}{suffix}", dec, v / div)
}

fn fmt_log_tick(v: f64) -> String {
    if v >= 1e7 {
        format!("{}M", trim_num(v / 1e6))
    } else if v >= 1e4 {
        format!("{}k", trim_num(v / 1e3))
    } else {
        trim_num(v)
    }
}

/// A 1, 2, 5 × 10^k value without float noise.
fn trim_num(v: f64) -> String {
    if v >= 1.0 {
        format!("{v:.0}")
    } else {
        let dec = (-v.log10() - 1e-9).ceil().max(0.0) as usize;
        format!("{v:.dec$}")
    }
}

/// What an axis shows: `name (unit)`; `(unit, log)` on a log scale.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AxisSpec<'a> {
    /// What is measured.
    pub name: &'a str,
    /// Its unit ("" when none).
    pub unit: &'a str,
}

impl AxisSpec<'_> {
    fn title(&self, log: bool) -> String {
        match (self.unit.is_empty(), log) {
            (true, false) => self.name.to_string(),
            (true, true) => format!("{} (log)", self.name),
            (false, false) => format!("{} ({})", self.name, self.unit),
            (false, true) => format!("{} ({}, log)", self.name, self.unit),
        }
    }
}

// ---------------------------------------------------------------- geometry

/// An axis-aligned box: left, top, width, height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rect {
    /// Left.
    pub x: f64,
    /// Top.
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

impl Rect {
    /// Whether the two boxes share area.
    pub(crate) fn overlaps(&self, o: &Rect) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }

    fn inside(&self, b: &Rect) -> bool {
        self.x >= b.x && self.y >= b.y && self.x + self.w <= b.x + b.w && self.y + self.h <= b.y + b.h
    }

    /// Distance from the box to `(px, py)` (0 inside).
    fn distance(&self, px: f64, py: f64) -> f64 {
        let (nx, ny) = self.nearest(px, py);
        (nx - px).hypot(ny - py)
    }

    /// The point of the box nearest to `(px, py)`.
    fn nearest(&self, px: f64, py: f64) -> (f64, f64) {
        (px.clamp(self.x, self.x + self.w), py.clamp(self.y, self.y + self.h))
    }

    /// Whether the segment crosses the box's interior (Liang–Barsky).
    fn hit_by(&self, (x1, y1): (f64, f64), (x2, y2): (f64, f64)) -> bool {
        let (dx, dy) = (x2 - x1, y2 - y1);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        let eps = 0.5;
        for (p, q) in [
            (-dx, x1 - (self.x + eps)),
            (dx, (self.x + self.w - eps) - x1),
            (-dy, y1 - (self.y + eps)),
            (dy, (self.y + self.h - eps) - y1),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let t = q / p;
                if p < 0.0 {
                    t0 = t0.max(t);
                } else {
                    t1 = t1.min(t);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// A line segment `((x1, y1), (x2, y2))`.
pub(crate) type Segment = ((f64, f64), (f64, f64));

/// Where a label went: its box and, when it had to move away from its
/// point, the leader line from the point to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Placement {
    /// The label's box.
    pub rect: Rect,
    /// Leader line `((x1, y1), (x2, y2))`, when the label is not beside its point.
    pub leader: Option<Segment>,
}

/// Whether two segments cross (touching ends do not count).
fn segments_cross(a: Segment, b: Segment) -> bool {
    let orient = |p: (f64, f64), q: (f64, f64), r: (f64, f64)| (q.0 - p.0) * (r.1 - p.1) - (q.1 - p.1) * (r.0 - p.0);
    let (d1, d2) = (orient(b.0, b.1, a.0), orient(b.0, b.1, a.1));
    let (d3, d4) = (orient(a.0, a.1, b.0), orient(a.0, a.1, b.1));
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// Places one label per point: each label beside its point (trying 8
/// positions: right, left, above-right, below-right, above-left,
/// below-left, above, below) where its box overlaps no other label, no
/// marker (boxes of half-side `half` around every point) and no earlier
/// leader line, inside `bounds`, and is nearer its own point than any
/// other (so it cannot be read as another's); failing that, on rings of
/// growing radius around the point with a leader line, preferring one
/// that crosses no other label, marker or leader. Points in crowded places
/// are labelled first. `None`: nowhere was free.
pub(crate) fn place_labels(
    points: &[(f64, f64)],
    sizes: &[(f64, f64)],
    half: f64,
    bounds: Rect,
) -> Vec<Option<Placement>> {
    let markers: Vec<Rect> =
        points.iter().map(|&(x, y)| Rect { x: x - half, y: y - half, w: 2.0 * half, h: 2.0 * half }).collect();
    let crowd = |i: usize| {
        points
            .iter()
            .enumerate()
            .filter(|&(j, p)| j != i && (p.0 - points[i].0).abs() < 80.0 && (p.1 - points[i].1).abs() < 30.0)
            .count()
    };
    let mut order: Vec<usize> = (0..points.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(crowd(i)));
    let mut placed: Vec<Option<Placement>> = vec![None; points.len()];
    let mut labels: Vec<Rect> = Vec::new();
    let mut leaders: Vec<Segment> = Vec::new();
    let gap = 3.0;
    for i in order {
        let (x, y) = points[i];
        let (w, h) = sizes[i];
        let free = |r: &Rect, labels: &[Rect], leaders: &[Segment]| {
            r.inside(&bounds)
                && !labels.iter().any(|l| l.overlaps(r))
                && !markers.iter().any(|m| m.overlaps(r))
                && !leaders.iter().any(|&(a, b)| r.hit_by(a, b))
        };
        let d = half + gap;
        let dd = 0.75 * half + gap;
        let beside = [
            (x + d, y - h / 2.0),
            (x - d - w, y - h / 2.0),
            (x + dd, y - dd - h),
            (x + dd, y + dd),
            (x - dd - w, y - dd - h),
            (x - dd - w, y + dd),
            (x - w / 2.0, y - d - h),
            (x - w / 2.0, y + d),
        ];
        // Nearer its own point than any other (coincident points aside).
        let unambiguous = |r: &Rect| {
            let own = r.distance(x, y);
            points.iter().all(|&(px, py)| (px - x).hypot(py - y) < 1.0 || r.distance(px, py) > own + 2.0)
        };
        if let Some(r) = beside
            .iter()
            .map(|&(rx, ry)| Rect { x: rx, y: ry, w, h })
            .find(|r| free(r, &labels, &leaders) && unambiguous(r))
        {
            labels.push(r);
            placed[i] = Some(Placement { rect: r, leader: None });
            continue;
        }
        // Rings: the box's side nearest the point faces it.
        let mut backup: Option<Placement> = None;
        let max_d = bounds.w.hypot(bounds.h);
        let mut dist = half + 14.0;
        'rings: while dist < max_d {
            for k in 0..24 {
                let a = k as f64 * std::f64::consts::PI / 12.0;
                let (ax, ay) = (x + dist * a.cos(), y + dist * a.sin());
                let rx = if a.cos() > 0.38 {
                    ax
                } else if a.cos() < -0.38 {
                    ax - w
                } else {
                    ax - w / 2.0
                };
                let ry = if a.sin() > 0.38 {
                    ay
                } else if a.sin() < -0.38 {
                    ay - h
                } else {
                    ay - h / 2.0
                };
                let r = Rect { x: rx, y: ry, w, h };
                if !free(&r, &labels, &leaders) {
                    continue;
                }
                let end = r.nearest(x, y);
                let len = (end.0 - x).hypot(end.1 - y).max(1e-9);
                let start = (x + (end.0 - x) / len * (half - 1.0), y + (end.1 - y) / len * (half - 1.0));
                let p = Placement { rect: r, leader: Some((start, end)) };
                let crosses = labels.iter().any(|l| l.hit_by(start, end))
                    || markers.iter().enumerate().any(|(j, m)| j != i && m.hit_by(start, end))
                    || leaders.iter().any(|&l| segments_cross(l, (start, end)));
                if !crosses {
                    backup = Some(p);
                    break 'rings;
                }
                if backup.is_none() {
                    backup = Some(p);
                }
            }
            dist += 6.0;
        }
        if let Some(p) = backup {
            labels.push(p.rect);
            if let Some(l) = p.leader {
                leaders.push(l);
            }
            placed[i] = Some(p);
        }
    }
    placed
}

// ---------------------------------------------------------------- drawing

/// The plot area: left, top, right, bottom.
#[derive(Clone, Copy, Debug)]
struct Frame {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

fn open_svg(o: &mut String, kind: &str, w: f64, h: f64, label: &str, dropped: &[String]) {
    let dropped =
        if dropped.is_empty() { String::new() } else { format!(" data-dropped=\"{}\"", esc(&dropped.join(","))) };
    let _ = write!(
        o,
        "<svg class=\"plot\" data-kind=\"{kind}\"{dropped} xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
        c(w),
        c(h),
        c(w),
        c(h),
        esc(label)
    );
}

fn text(o: &mut String, class: &str, x: f64, y: f64, anchor: &str, size: f64, s: &str) {
    let _ = writeln!(
        o,
        "<text class=\"{class}\" x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\" font-size=\"{}\">{}</text>",
        c(x),
        c(y),
        c(size),
        esc(s)
    );
}

fn title(o: &mut String, x: f64, s: &str) {
    let _ = writeln!(
        o,
        "<text class=\"title\" x=\"{}\" y=\"20\" font-size=\"{}\" font-weight=\"600\">{}</text>",
        c(x),
        c(TITLE_FONT),
        esc(s)
    );
}

fn rotated_title(o: &mut String, x: f64, y: f64, size: f64, s: &str) {
    let _ = writeln!(
        o,
        "<text class=\"axis-title\" x=\"{0}\" y=\"{1}\" text-anchor=\"middle\" font-size=\"{2}\" transform=\"rotate(-90 {0} {1})\">{3}</text>",
        c(x),
        c(y),
        c(size),
        esc(s)
    );
}

fn grid(o: &mut String, sx: Option<&Scale>, sy: Option<&Scale>, f: Frame) {
    o.push_str("<g class=\"grid\" stroke=\"#e8e8e8\" stroke-width=\"1\">\n");
    if let Some(s) = sx {
        for (v, _) in s.ticks() {
            let x = s.map(v);
            let _ = writeln!(o, "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>", c(x), c(f.y0), c(f.y1));
        }
    }
    if let Some(s) = sy {
        for (v, _) in s.ticks() {
            let y = s.map(v);
            let _ = writeln!(o, "<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>", c(y), c(f.x0), c(f.x1));
        }
    }
    o.push_str("</g>\n");
}

/// Bottom axis: line, ticks, labels and (when given) the title below.
fn axis_x(o: &mut String, s: &Scale, f: Frame, title: Option<&str>, font: f64) {
    let _ = writeln!(o, "<g class=\"axis x\" data-scale=\"{}\">", if s.is_log() { "log" } else { "linear" });
    let _ = writeln!(
        o,
        "<line class=\"domain\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#444\"/>",
        c(f.x0),
        c(f.y1),
        c(f.x1)
    );
    for (v, label) in s.ticks() {
        let x = s.map(v);
        let _ = writeln!(
            o,
            "<line class=\"tick\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#444\"/>",
            c(x),
            c(f.y1),
            c(f.y1 + 4.0)
        );
        text(o, "tick", x, f.y1 + 4.0 + font, "middle", font, &label);
    }
    if s.zero {
        // The break between 0 and the first decade.
        let x = (s.r0 + s.a0) / 2.0;
        let _ = writeln!(
            o,
            "<path class=\"break\" d=\"M{},{}l4,-8M{},{}l4,-8\" stroke=\"#444\" fill=\"none\"/>",
            c(x - 4.0),
            c(f.y1 + 4.0),
            c(x),
            c(f.y1 + 4.0)
        );
    }
    if let Some(t) = title {
        text(o, "axis-title", (f.x0 + f.x1) / 2.0, f.y1 + 4.0 + font + 18.0, "middle", FONT, t);
    }
    o.push_str("</g>\n");
}

/// Left axis: line, ticks, labels and the title rotated at `title_x`.
fn axis_y(o: &mut String, s: &Scale, f: Frame, title: &str, title_x: f64, font: f64) {
    let _ = writeln!(o, "<g class=\"axis y\" data-scale=\"{}\">", if s.is_log() { "log" } else { "linear" });
    let _ = writeln!(
        o,
        "<line class=\"domain\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#444\"/>",
        c(f.x0),
        c(f.y0),
        c(f.y1)
    );
    for (v, label) in s.ticks() {
        let y = s.map(v);
        let _ = writeln!(
            o,
            "<line class=\"tick\" x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#444\"/>",
            c(f.x0 - 4.0),
            c(y),
            c(f.x0)
        );
        text(o, "tick", f.x0 - 6.0, y + font * 0.35, "end", font, &label);
    }
    if s.zero {
        let y = (s.r0 + s.a0) / 2.0;
        let _ = writeln!(
            o,
            "<path class=\"break\" d=\"M{},{}l8,-4M{},{}l8,-4\" stroke=\"#444\" fill=\"none\"/>",
            c(f.x0 - 4.0),
            c(y + 4.0),
            c(f.x0 - 4.0),
            c(y)
        );
    }
    rotated_title(o, title_x, (f.y0 + f.y1) / 2.0, FONT, title);
    o.push_str("</g>\n");
}

fn figure(svg: String, caption: &str) -> String {
    if caption.is_empty() {
        format!("<figure>\n{svg}</figure>\n")
    } else {
        format!("<figure>\n{svg}<figcaption>{}</figcaption>\n</figure>\n", esc(caption))
    }
}

fn polyline(o: &mut String, pts: &[(f64, f64)], color: &str, width: f64, dash: &str) {
    if pts.is_empty() {
        return;
    }
    let p: Vec<String> = pts.iter().map(|&(x, y)| format!("{},{}", c(x), c(y))).collect();
    let _ = writeln!(
        o,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"{}\" stroke-linejoin=\"round\"{}/>",
        p.join(" "),
        c(width),
        dash_attr(dash)
    );
}

/// Names grouped by why they were left out: `"no remote latency: a, b"`.
fn dropped_note(dropped: &[(String, String)]) -> String {
    let mut reasons: Vec<&str> = Vec::new();
    for (_, why) in dropped {
        if !reasons.contains(&why.as_str()) {
            reasons.push(why);
        }
    }
    reasons
        .iter()
        .map(|why| {
            let names: Vec<&str> = dropped.iter().filter(|d| d.1 == *why).map(|d| d.0.as_str()).collect();
            format!("{} ({why})", names.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

// ---------------------------------------------------------------- scatter

/// One algorithm in a scatter plot; a missing or non-finite coordinate
/// leaves it out (named in the caption).
#[derive(Clone, Debug)]
pub(crate) struct Point<'a> {
    /// Algorithm name (the label).
    pub name: &'a str,
    /// Its style.
    pub style: Style,
    /// x value.
    pub x: Option<f64>,
    /// y value.
    pub y: Option<f64>,
}

/// A trade-off scatter plot: every algorithm a marker labelled with its
/// name (placed by [`place_labels`]); `better` says which corner wins.
pub(crate) fn scatter(chart_title: &str, x: AxisSpec, y: AxisSpec, better: &str, points: &[Point]) -> String {
    let (w, h) = (660.0, 440.0);
    let f = Frame { x0: 74.0, y0: 34.0, x1: 646.0, y1: 384.0 };
    let pad = 14.0;
    let mut shown: Vec<&Point> = Vec::new();
    let mut dropped: Vec<(String, String)> = Vec::new();
    let x_why = format!("no {}", x.name);
    let y_why = format!("no {}", y.name);
    let both_why = format!("no {} nor {}", x.name, y.name);
    for p in points {
        let fx = p.x.is_some_and(f64::is_finite);
        let fy = p.y.is_some_and(f64::is_finite);
        match (fx, fy) {
            (true, true) => shown.push(p),
            (false, true) => dropped.push((p.name.to_string(), x_why.clone())),
            (true, false) => dropped.push((p.name.to_string(), y_why.clone())),
            (false, false) => dropped.push((p.name.to_string(), both_why.clone())),
        }
    }
    let xs: Vec<f64> = shown.iter().filter_map(|p| p.x).collect();
    let ys: Vec<f64> = shown.iter().filter_map(|p| p.y).collect();
    let sx = Scale::auto(&xs, f.x0 + pad, f.x1 - pad, 6);
    let sy = Scale::auto(&ys, f.y1 - pad, f.y0 + pad, 5);
    let anchors: Vec<(f64, f64)> =
        shown.iter().map(|p| (sx.map(p.x.unwrap_or(0.0)), sy.map(p.y.unwrap_or(0.0)))).collect();
    let sizes: Vec<(f64, f64)> = shown.iter().map(|p| (text_width(p.name, FONT) + 2.0, FONT * 1.2)).collect();
    let bounds = Rect { x: f.x0 + 1.0, y: f.y0 + 1.0, w: f.x1 - f.x0 - 2.0, h: f.y1 - f.y0 - 2.0 };
    let places = place_labels(&anchors, &sizes, marker_half(MARKER_R), bounds);

    let names: Vec<String> = dropped.iter().map(|d| d.0.clone()).collect();
    let mut o = String::new();
    open_svg(&mut o, "scatter", w, h, chart_title, &names);
    title(&mut o, f.x0, chart_title);
    grid(&mut o, Some(&sx), Some(&sy), f);
    axis_x(&mut o, &sx, f, Some(&x.title(sx.is_log())), FONT);
    axis_y(&mut o, &sy, f, &y.title(sy.is_log()), 16.0, FONT);
    let mut unplaced: Vec<&str> = Vec::new();
    for (i, p) in shown.iter().enumerate() {
        let (px, py) = anchors[i];
        let _ = writeln!(
            o,
            "<g class=\"series\" data-series=\"{}\" data-point=\"{} {}\" data-value=\"{} {}\">",
            esc(p.name),
            c(px),
            c(py),
            sig(p.x.unwrap_or(0.0)),
            sig(p.y.unwrap_or(0.0))
        );
        o.push_str(&marker(p.style.marker, px, py, MARKER_R, p.style.color));
        o.push('\n');
        match places[i] {
            Some(pl) => {
                if let Some((a, b)) = pl.leader {
                    let _ = writeln!(
                        o,
                        "<line class=\"leader\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"0.8\"/>",
                        c(a.0),
                        c(a.1),
                        c(b.0),
                        c(b.1),
                        p.style.color
                    );
                }
                let r = pl.rect;
                let _ = writeln!(
                    o,
                    "<text class=\"label\" x=\"{}\" y=\"{}\" font-size=\"{}\" data-bbox=\"{} {} {} {}\">{}</text>",
                    c(r.x + 1.0),
                    c(r.y + FONT * 0.92),
                    c(FONT),
                    c(r.x),
                    c(r.y),
                    c(r.w),
                    c(r.h),
                    esc(p.name)
                );
            }
            None => unplaced.push(p.name),
        }
        o.push_str("</g>\n");
    }
    o.push_str("</svg>\n");
    let mut caption = better.to_string();
    if !dropped.is_empty() {
        caption += &format!(" Not plotted: {}.", dropped_note(&dropped));
    }
    if !unplaced.is_empty() {
        caption += &format!(" No room for the labels of {}.", unplaced.join(", "));
    }
    figure(o, &caption)
}

// ---------------------------------------------------------------- lines

/// One algorithm's curve; `mark` gets its marker (e.g. the median).
#[derive(Clone, Debug)]
pub(crate) struct Line<'a> {
    /// Algorithm name.
    pub name: &'a str,
    /// Its style.
    pub style: Style,
    /// `(x, y)` points, in drawing order.
    pub points: Vec<(f64, f64)>,
    /// Where to draw its marker.
    pub mark: Option<(f64, f64)>,
}

/// A line chart: what [`lines`] draws.
#[derive(Clone, Debug)]
pub(crate) struct LineChart<'a> {
    /// `data-kind` (e.g. `cdf`).
    pub kind: &'a str,
    /// Title.
    pub title: &'a str,
    /// x axis.
    pub x: AxisSpec<'a>,
    /// y axis.
    pub y: AxisSpec<'a>,
    /// A fixed y range (else it fits the data).
    pub y_range: Option<(f64, f64)>,
    /// The x axis goes logarithmic when its positive values span more than this.
    pub x_log_span: f64,
    /// One curve per algorithm.
    pub series: Vec<Line<'a>>,
    /// Algorithms without data, and why.
    pub dropped: Vec<(String, String)>,
    /// The caption.
    pub caption: String,
}

/// A line chart with the key to the right of the plot.
pub(crate) fn lines(chart: &LineChart) -> String {
    let LineChart { kind, title: chart_title, x, y, y_range, x_log_span, series, dropped, caption } = chart;
    let (x, y, y_range) = (*x, *y, *y_range);
    let key_w = series.iter().map(|l| text_width(l.name, FONT)).fold(60.0f64, f64::max) + 44.0;
    let w = 660.0;
    let key_h = 18.0 * series.len() as f64;
    let plot_h = 270.0f64.max(key_h);
    let f = Frame { x0: 66.0, y0: 34.0, x1: w - key_w - 16.0, y1: 34.0 + plot_h };
    let h = f.y1 + 48.0;
    let xs: Vec<f64> = series.iter().flat_map(|l| l.points.iter().map(|p| p.0)).collect();
    let ys: Vec<f64> = series.iter().flat_map(|l| l.points.iter().map(|p| p.1)).collect();
    let sx = Scale::auto_span(&xs, f.x0 + 4.0, f.x1 - 4.0, 6, *x_log_span);
    let sy = match y_range {
        Some((lo, hi)) => Scale::linear(lo, hi, f.y1, f.y0, 5),
        None => Scale::auto(&ys, f.y1 - 4.0, f.y0 + 4.0, 5),
    };
    let names: Vec<String> = dropped.iter().map(|d| d.0.clone()).collect();
    let mut o = String::new();
    open_svg(&mut o, kind, w, h, chart_title, &names);
    title(&mut o, f.x0, chart_title);
    grid(&mut o, Some(&sx), Some(&sy), f);
    axis_x(&mut o, &sx, f, Some(&x.title(sx.is_log())), FONT);
    axis_y(&mut o, &sy, f, &y.title(sy.is_log()), 16.0, FONT);
    for l in series {
        let _ = writeln!(o, "<g class=\"series\" data-series=\"{}\">", esc(l.name));
        let pts: Vec<(f64, f64)> = l.points.iter().map(|&(a, b)| (sx.map(a), sy.map(b))).collect();
        polyline(&mut o, &pts, l.style.color, 1.8, l.style.dash);
        if let Some((a, b)) = l.mark {
            o.push_str(&marker(l.style.marker, sx.map(a), sy.map(b), 4.5, l.style.color));
            o.push('\n');
        }
        o.push_str("</g>\n");
    }
    // The key, right of the plot.
    o.push_str("<g class=\"legend\">\n");
    let kx = f.x1 + 16.0;
    for (i, l) in series.iter().enumerate() {
        let ky = f.y0 + 8.0 + 18.0 * i as f64;
        let _ = writeln!(
            o,
            "<g class=\"key\" data-key=\"{0}\"><line x1=\"{1}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" stroke=\"{4}\" stroke-width=\"1.8\"{5}/>{6}",
            esc(l.name),
            c(kx),
            c(ky),
            c(kx + 26.0),
            l.style.color,
            dash_attr(l.style.dash),
            marker(l.style.marker, kx + 13.0, ky, 4.5, l.style.color)
        );
        text(&mut o, "key-label", kx + 32.0, ky + FONT * 0.35, "start", FONT, l.name);
        o.push_str("</g>\n");
    }
    o.push_str("</g>\n</svg>\n");
    let mut caption = caption.to_string();
    if !dropped.is_empty() {
        caption += &format!(" Not drawn: {}.", dropped_note(dropped));
    }
    figure(o, &caption)
}

// ---------------------------------------------------------------- small multiples

/// One algorithm's panel: two curves of `(x, y)`.
#[derive(Clone, Debug)]
pub(crate) struct Panel<'a> {
    /// Algorithm name (the panel's title).
    pub name: &'a str,
    /// Its style.
    pub style: Style,
    /// The solid curve.
    pub solid: Vec<(f64, f64)>,
    /// The dashed curve.
    pub dashed: Vec<(f64, f64)>,
}

/// Small multiples: one panel per algorithm, each with its own y scale
/// (from 0) so none flattens the others, all sharing the x scale; the key
/// says what the solid and dashed curves are.
pub(crate) fn small_multiples(
    chart_title: &str,
    x: AxisSpec,
    y: AxisSpec,
    (solid_name, dashed_name): (&str, &str),
    panels: &[Panel],
    caption: &str,
) -> String {
    let w = 1320.0;
    let cols = panels.len().clamp(1, 4);
    let rows = panels.len().div_ceil(cols).max(1);
    let (pw, ph) = (w / cols as f64, 170.0);
    let top = 40.0;
    let h = top + ph * rows as f64 + 28.0;
    let x_max = panels.iter().flat_map(|p| p.solid.iter().chain(&p.dashed).map(|q| q.0)).fold(0.0f64, f64::max);
    let mut o = String::new();
    open_svg(&mut o, "timeline", w, h, chart_title, &[]);
    title(&mut o, 8.0, chart_title);
    // The key, above the panels.
    let kx = 8.0 + text_width(chart_title, TITLE_FONT) + 30.0;
    let _ = writeln!(
        o,
        "<g class=\"legend\"><line x1=\"{0}\" y1=\"16\" x2=\"{1}\" y2=\"16\" stroke=\"#444\" stroke-width=\"2\"/><line x1=\"{2}\" y1=\"16\" x2=\"{3}\" y2=\"16\" stroke=\"#444\" stroke-width=\"1.6\" stroke-dasharray=\"5 3\"/>",
        c(kx),
        c(kx + 26.0),
        c(kx + 48.0 + text_width(solid_name, FONT)),
        c(kx + 74.0 + text_width(solid_name, FONT))
    );
    text(&mut o, "key-label", kx + 32.0, 20.0, "start", FONT, solid_name);
    text(&mut o, "key-label", kx + 80.0 + text_width(solid_name, FONT), 20.0, "start", FONT, dashed_name);
    o.push_str("</g>\n");
    let small = FONT - 1.0;
    for (i, p) in panels.iter().enumerate() {
        let (ox, oy) = ((i % cols) as f64 * pw, top + (i / cols) as f64 * ph);
        let f = Frame { x0: ox + 62.0, y0: oy + 26.0, x1: ox + pw - 18.0, y1: oy + ph - 30.0 };
        let sx = Scale::linear(0.0, x_max.max(1.0), f.x0, f.x1, 4);
        let vals: Vec<f64> = p.solid.iter().chain(&p.dashed).map(|q| q.1).filter(|v| v.is_finite()).collect();
        let ymax = vals.iter().copied().fold(0.0f64, f64::max);
        let sy = Scale::linear(0.0, if ymax > 0.0 { ymax } else { 0.01 }, f.y1, f.y0 + 4.0, 3);
        let _ = writeln!(
            o,
            "{}<text class=\"panel-title\" x=\"{}\" y=\"{}\" font-size=\"{}\" font-weight=\"600\" fill=\"{}\">{}</text>",
            marker(p.style.marker, f.x0 + 5.0, oy + 12.0, 4.5, p.style.color),
            c(f.x0 + 14.0),
            c(oy + 16.0),
            c(FONT),
            p.style.color,
            esc(p.name)
        );
        grid(&mut o, None, Some(&sy), f);
        axis_x(&mut o, &sx, f, None, small);
        axis_y(&mut o, &sy, f, &y.title(false), ox + 14.0, small);
        let map = |pts: &[(f64, f64)]| -> Vec<(f64, f64)> {
            pts.iter().filter(|q| q.1.is_finite()).map(|&(a, b)| (sx.map(a), sy.map(b))).collect()
        };
        let empty = if p.solid.is_empty() && p.dashed.is_empty() { " data-empty=\"true\"" } else { "" };
        let _ = writeln!(o, "<g class=\"series\" data-series=\"{}\"{empty}>", esc(p.name));
        polyline(&mut o, &map(&p.solid), p.style.color, 2.0, "");
        polyline(&mut o, &map(&p.dashed), p.style.color, 1.6, "5 3");
        o.push_str("</g>\n");
        if !empty.is_empty() {
            text(&mut o, "note", (f.x0 + f.x1) / 2.0, (f.y0 + f.y1) / 2.0, "middle", FONT, "no data");
        }
    }
    o.push_str("<g class=\"axis x\">\n");
    text(&mut o, "axis-title", w / 2.0, h - 8.0, "middle", FONT, &x.title(false));
    o.push_str("</g>\n</svg>\n");
    figure(o, caption)
}

// ---------------------------------------------------------------- bars

/// One algorithm's bar: stacked parts (`None`: no value), and the text
/// written at its end.
#[derive(Clone, Debug)]
pub(crate) struct Bar<'a> {
    /// Algorithm name.
    pub name: &'a str,
    /// Its style.
    pub style: Style,
    /// Stacked parts, left to right; `None` when not measured.
    pub parts: Option<Vec<f64>>,
    /// The value written right of the bar.
    pub text: String,
}

/// Horizontal bars, names on the left, one row per algorithm (so labels
/// never collide); with several parts, a key below names them (the first
/// part solid, the others lighter).
pub(crate) fn hbars(chart_title: &str, x: AxisSpec, bars: &[Bar], part_names: &[&str], caption: &str) -> String {
    let w = 660.0;
    let name_w = bars.iter().map(|b| text_width(b.name, FONT)).fold(60.0f64, f64::max);
    let value_w = bars.iter().map(|b| text_width(&b.text, FONT)).fold(20.0f64, f64::max) + 10.0;
    let row = 22.0;
    let f = Frame { x0: 30.0 + name_w + 8.0, y0: 34.0, x1: w - 16.0, y1: 34.0 + row * bars.len() as f64 + 6.0 };
    let key_h = if part_names.len() > 1 { 22.0 } else { 0.0 };
    let h = f.y1 + 46.0 + key_h;
    let max = bars.iter().filter_map(|b| b.parts.as_ref()).map(|p| p.iter().sum::<f64>()).fold(0.0f64, f64::max);
    let sx = Scale::linear(0.0, if max > 0.0 && max.is_finite() { max } else { 1.0 }, f.x0, f.x1 - value_w, 5);
    let dropped: Vec<String> = bars.iter().filter(|b| b.parts.is_none()).map(|b| b.name.to_string()).collect();
    let mut o = String::new();
    open_svg(&mut o, "bars", w, h, chart_title, &dropped);
    title(&mut o, 8.0, chart_title);
    grid(&mut o, Some(&sx), None, f);
    axis_x(&mut o, &sx, f, Some(&x.title(false)), FONT);
    // The y axis: the names.
    o.push_str("<g class=\"axis y\" data-scale=\"band\">\n");
    let _ = writeln!(
        o,
        "<line class=\"domain\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#444\"/>",
        c(f.x0),
        c(f.y0),
        c(f.y1)
    );
    for (i, b) in bars.iter().enumerate() {
        let cy = f.y0 + 3.0 + row * (i as f64 + 0.5);
        text(&mut o, "tick", f.x0 - 6.0, cy + FONT * 0.35, "end", FONT, b.name);
    }
    rotated_title(&mut o, 14.0, (f.y0 + f.y1) / 2.0, FONT, "algorithm");
    o.push_str("</g>\n");
    for (i, b) in bars.iter().enumerate() {
        let top = f.y0 + 3.0 + row * i as f64 + 3.0;
        let _ = writeln!(o, "<g class=\"series\" data-series=\"{}\">", esc(b.name));
        let mut end = f.x0;
        if let Some(parts) = &b.parts {
            let mut acc = 0.0;
            for (k, v) in parts.iter().enumerate() {
                let (a, z) = (sx.map(acc), sx.map(acc + v.max(0.0)));
                acc += v.max(0.0);
                let _ = writeln!(
                    o,
                    "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}/>",
                    c(a),
                    c(top),
                    c((z - a).max(0.0)),
                    c(row - 6.0),
                    b.style.color,
                    if k == 0 { "" } else { " fill-opacity=\"0.4\"" }
                );
                end = z;
            }
        }
        text(&mut o, "value", end + 5.0, top + (row - 6.0) / 2.0 + FONT * 0.35, "start", FONT, &b.text);
        o.push_str("</g>\n");
    }
    if part_names.len() > 1 {
        let ky = h - 14.0;
        let mut kx = f.x0;
        o.push_str("<g class=\"legend\">\n");
        for (k, name) in part_names.iter().enumerate() {
            let _ = writeln!(
                o,
                "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"10\" fill=\"#555\"{}/>",
                c(kx),
                c(ky - 9.0),
                if k == 0 { "" } else { " fill-opacity=\"0.4\"" }
            );
            text(&mut o, "key-label", kx + 19.0, ky, "start", FONT, name);
            kx += 40.0 + text_width(name, FONT);
        }
        o.push_str("</g>\n");
    }
    o.push_str("</svg>\n");
    figure(o, caption)
}

// ---------------------------------------------------------------- heat map

/// A heat map: one row per algorithm, one column per `cols`, each cell
/// its value written with `decimals`; colours compare the algorithms
/// within a column (green the lowest, red the highest; log when the
/// column spans more than [`LOG_SPAN`]×), grey without a value.
pub(crate) fn heat(
    chart_title: &str,
    rows: &[(&str, Style)],
    cols: &[&str],
    values: &[Vec<Option<f64>>],
    decimals: usize,
    col_axis: &str,
) -> String {
    let name_w = rows.iter().map(|r| text_width(r.0, FONT)).fold(60.0f64, f64::max);
    let cw = cols.iter().map(|s| text_width(s, FONT) + 12.0).fold(76.0f64, f64::max);
    let ch = 22.0;
    let f = Frame {
        x0: 30.0 + name_w + 8.0,
        y0: 34.0,
        x1: 30.0 + name_w + 8.0 + cw * cols.len() as f64,
        y1: 34.0 + ch * rows.len() as f64,
    };
    let w = (f.x1 + 12.0).max(text_width(chart_title, TITLE_FONT) + 20.0);
    let h = f.y1 + 50.0;
    // Each column's colour scale.
    let norm: Vec<Box<dyn Fn(f64) -> f64>> = (0..cols.len())
        .map(|ci| {
            let vals: Vec<f64> =
                values.iter().filter_map(|r| r.get(ci).copied().flatten()).filter(|v| v.is_finite()).collect();
            let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let f: Box<dyn Fn(f64) -> f64> = if vals.is_empty() || hi <= lo {
                Box::new(|_| 0.0)
            } else if lo > 0.0 && hi / lo > LOG_SPAN {
                Box::new(move |v: f64| (v.max(lo).ln() - lo.ln()) / (hi.ln() - lo.ln()))
            } else {
                Box::new(move |v: f64| (v - lo) / (hi - lo))
            };
            f
        })
        .collect();
    let mut o = String::new();
    open_svg(&mut o, "heat", w, h, chart_title, &[]);
    title(&mut o, 8.0, chart_title);
    o.push_str("<g class=\"axis x\" data-scale=\"band\">\n");
    for (ci, name) in cols.iter().enumerate() {
        text(&mut o, "tick", f.x0 + cw * (ci as f64 + 0.5), f.y1 + 4.0 + FONT, "middle", FONT, name);
    }
    text(&mut o, "axis-title", (f.x0 + f.x1) / 2.0, f.y1 + 4.0 + FONT + 18.0, "middle", FONT, col_axis);
    o.push_str("</g>\n<g class=\"axis y\" data-scale=\"band\">\n");
    for (ri, (name, _)) in rows.iter().enumerate() {
        text(&mut o, "tick", f.x0 - 6.0, f.y0 + ch * (ri as f64 + 0.5) + FONT * 0.35, "end", FONT, name);
    }
    rotated_title(&mut o, 14.0, (f.y0 + f.y1) / 2.0, FONT, "algorithm");
    o.push_str("</g>\n");
    for (ri, (name, _)) in rows.iter().enumerate() {
        let _ = writeln!(o, "<g class=\"series\" data-series=\"{}\">", esc(name));
        for (ci, n) in norm.iter().enumerate() {
            let (x, y) = (f.x0 + cw * ci as f64, f.y0 + ch * ri as f64);
            let v = values.get(ri).and_then(|r| r.get(ci).copied().flatten()).filter(|v| v.is_finite());
            let (fill, label) = match v {
                Some(v) => (ramp(n(v)), format!("{v:.decimals$}")),
                None => ("#eeeeee".to_string(), "–".to_string()),
            };
            let _ = writeln!(
                o,
                "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{fill}\" stroke=\"#fff\"/>",
                c(x),
                c(y),
                c(cw),
                c(ch)
            );
            text(&mut o, "cell", x + cw / 2.0, y + ch / 2.0 + FONT * 0.35, "middle", FONT, &label);
        }
        o.push_str("</g>\n");
    }
    o.push_str("</svg>\n");
    o
}

/// Green (0) through pale yellow to red (1), light enough for black text.
fn ramp(t: f64) -> String {
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let stops = [(145.0, 207.0, 96.0), (255.0, 255.0, 191.0), (252.0, 141.0, 89.0)];
    let (a, b, u) = if t < 0.5 { (stops[0], stops[1], t * 2.0) } else { (stops[1], stops[2], (t - 0.5) * 2.0) };
    let mix = |p: f64, q: f64| (p + (q - p) * u).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random sequence in [0, 1).
    fn lcg(seed: &mut u64) -> f64 {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (*seed >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn nice_ticks_and_labels() {
        let s = Scale::linear(0.0, 0.487, 0.0, 100.0, 5);
        let t: Vec<String> = s.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(t, ["0", "0.1", "0.2", "0.3", "0.4", "0.5"]);
        let s = Scale::linear(4000.0, 12_500.0, 0.0, 100.0, 5);
        let t: Vec<String> = s.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(t, ["4k", "6k", "8k", "10k", "12k", "14k"]);
        let s = Scale::auto(&[0.5, 600.0], 0.0, 100.0, 5);
        assert!(s.is_log());
        let t: Vec<String> = s.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(t, ["1", "10", "100", "1000"], "3.3 decades: powers of ten only");
        let s = Scale::auto(&[3.0, 180.0], 0.0, 100.0, 5);
        let t: Vec<String> = s.ticks().into_iter().map(|t| t.1).collect();
        assert_eq!(t, ["2", "5", "10", "20", "50", "100", "200"], "2 decades: 1, 2, 5");
        assert!(!Scale::auto(&[10.0, 290.0], 0.0, 100.0, 5).is_log(), "29× stays linear");
        // Zeros on a log axis: their own slot, at the start.
        let s = Scale::auto(&[0.0, 2.0, 2000.0], 0.0, 100.0, 5);
        assert!(s.is_log() && s.map(0.0) == 0.0 && s.map(2.0) >= ZERO_SLOT);
        assert_eq!(s.ticks()[0].1, "0");
        // One value: a range around it.
        let s = Scale::auto(&[7.0, 7.0], 0.0, 100.0, 5);
        assert!(s.domain().0 < 7.0 && s.domain().1 > 7.0);
    }

    #[test]
    fn every_style_of_twenty_is_distinct() {
        let styles: Vec<Style> = (0..20).map(style).collect();
        for i in 0..20 {
            for j in 0..i {
                assert!(styles[i].color != styles[j].color || styles[i].marker != styles[j].marker, "{i} and {j}");
            }
        }
        assert!(PALETTE.len() >= 14);
        let colors: std::collections::BTreeSet<&str> = PALETTE.iter().copied().collect();
        assert_eq!(colors.len(), PALETTE.len());
    }

    #[test]
    fn segment_box_crossing() {
        let r = Rect { x: 10.0, y: 10.0, w: 10.0, h: 10.0 };
        assert!(r.hit_by((0.0, 15.0), (30.0, 15.0)));
        assert!(!r.hit_by((0.0, 0.0), (30.0, 5.0)));
        assert!(!r.hit_by((0.0, 15.0), (9.0, 15.0)));
        assert!(segments_cross(((0.0, 0.0), (10.0, 10.0)), ((0.0, 10.0), (10.0, 0.0))));
        assert!(!segments_cross(((0.0, 0.0), (10.0, 10.0)), ((20.0, 0.0), (30.0, 10.0))));
    }

    /// Labels never overlap each other nor any marker, stay in bounds, and
    /// every one finds a place — for clusters, coincident points and
    /// points on the edges.
    #[test]
    fn labels_never_overlap() {
        let bounds = Rect { x: 0.0, y: 0.0, w: 570.0, h: 350.0 };
        let half = marker_half(MARKER_R);
        // Labels of every length from 1 to 17 characters (the longest
        // algorithm names are about that long).
        let names: Vec<&str> = (0..16).map(|i| &"abcdefghijklmnopq"[..1 + (i * 7) % 17]).collect();
        let mut seed = 7u64;
        let mut leaders = 0;
        for case in 0..60 {
            let n = 8 + case % 9;
            let clustered = case % 3 != 0;
            let points: Vec<(f64, f64)> = (0..n)
                .map(|i| {
                    if case % 5 == 0 && i < 4 {
                        return (300.0, 200.0); // coincident
                    }
                    let (u, v) = (lcg(&mut seed), lcg(&mut seed));
                    if clustered {
                        (250.0 + 90.0 * u, 150.0 + 60.0 * v)
                    } else {
                        (half + (bounds.w - 2.0 * half) * u, half + (bounds.h - 2.0 * half) * v)
                    }
                })
                .collect();
            let sizes: Vec<(f64, f64)> =
                (0..n).map(|i| (text_width(names[i % names.len()], FONT) + 2.0, FONT * 1.2)).collect();
            let placed = place_labels(&points, &sizes, half, bounds);
            let rects: Vec<Rect> = placed
                .iter()
                .enumerate()
                .map(|(i, p)| p.unwrap_or_else(|| panic!("case {case}: label {i} not placed")).rect)
                .collect();
            leaders += placed.iter().filter(|p| p.is_some_and(|p| p.leader.is_some())).count();
            for (i, r) in rects.iter().enumerate() {
                assert!(r.inside(&bounds), "case {case}: label {i} out of bounds");
                for (j, q) in rects.iter().enumerate().take(i) {
                    assert!(!r.overlaps(q), "case {case}: labels {i} and {j} overlap");
                }
                for (j, &(x, y)) in points.iter().enumerate() {
                    let m = Rect { x: x - half, y: y - half, w: 2.0 * half, h: 2.0 * half };
                    assert!(!r.overlaps(&m), "case {case}: label {i} covers point {j}");
                }
            }
        }
        assert!(leaders > 0, "the clusters needed leader lines");
    }
}
