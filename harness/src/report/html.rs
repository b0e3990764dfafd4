//! `report.html`: one self-contained page — tables and hand-written inline
//! SVG, no scripts, nothing fetched — for choosing an algorithm.
//!
//! The header says what made the report (tool, schema, runs, the command
//! line, seeds) and how (each algorithm's effective options and transport,
//! each profile's links, the world); a key gives every algorithm the
//! colour and marker it keeps on every chart. With several profiles, heat
//! maps of algorithm × profile come first. Then one section per (profile,
//! trace): a table with one row per algorithm (means over seeds, with their
//! 95% intervals), three trade-off scatter plots (bandwidth vs remote
//! divergence, own vs remote input latency, freezes vs remote latency),
//! input-latency CDFs pooled over the seeds, divergence over time as small
//! multiples, corrections per second and bandwidth as bars, and every
//! metric in a collapsed table. The same report gives the same bytes.

use super::svg::{self, esc, AxisSpec, Bar, Line, LineChart, Panel, Point, Style};
use super::{table, Report, RunReport};
use crate::metrics::Stats;
use std::collections::{BTreeMap, BTreeSet};

/// A number of a run, `None` when not measured (printed "–", never 0).
type Get = fn(&RunReport) -> Option<f64>;

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

fn stat(s: &Stats, f: fn(&Stats) -> f64) -> Option<f64> {
    if s.n > 0 {
        finite(f(s))
    } else {
        None
    }
}

const OWN_LATENCY: Get = |r| stat(&r.metrics.input_latency_ms.own, |s| s.p50);
const REMOTE_LATENCY: Get = |r| stat(&r.metrics.input_latency_ms.remote, |s| s.p50);
const OWN_DIVERGENCE: Get = |r| stat(&r.metrics.divergence_m.own, |s| s.mean);
const REMOTE_DIVERGENCE: Get = |r| stat(&r.metrics.divergence_m.remote, |s| s.mean);
const FROZEN: Get = |r| finite(r.metrics.stalls.freeze_ms_per_client);
const SNAPS: Get = |r| finite(r.metrics.snaps.per_client_per_min);
const BANDWIDTH: Get = |r| finite(r.metrics.bandwidth.up_bytes_per_s + r.metrics.bandwidth.down_bytes_per_s);
const UP: Get = |r| finite(r.metrics.bandwidth.up_bytes_per_s);
const DOWN: Get = |r| finite(r.metrics.bandwidth.down_bytes_per_s);
const CORRECTIONS: Get = |r| {
    if r.duration_s > 0.0 {
        finite(r.metrics.corrections as f64 / r.duration_s)
    } else {
        None
    }
};

/// The section table's columns: header, unit, getter, decimals (lower is
/// better in every one; corrections have their own chart).
const COLUMNS: [(&str, &str, Get, usize); 7] = [
    ("own latency", "p50 ms", OWN_LATENCY, 1),
    ("remote latency", "p50 ms", REMOTE_LATENCY, 1),
    ("own divergence", "mean m", OWN_DIVERGENCE, 3),
    ("remote divergence", "mean m", REMOTE_DIVERGENCE, 3),
    ("frozen", "ms/client", FROZEN, 0),
    ("snaps", "/client-min", SNAPS, 1),
    ("bandwidth", "up+down B/s", BANDWIDTH, 0),
];

/// The mean of `get` over `runs` that measured it.
fn mean(runs: &[&RunReport], get: Get) -> Option<f64> {
    let v: Vec<f64> = runs.iter().filter_map(|r| get(r)).collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Every algorithm of the page in order of appearance: its style.
struct Styles<'a>(Vec<&'a str>);

impl Styles<'_> {
    fn of(&self, name: &str) -> Style {
        svg::style(self.0.iter().position(|a| *a == name).unwrap_or(0))
    }
}

/// The runs of one (profile, trace), per algorithm in report order.
struct Group<'a> {
    profile: &'a str,
    trace: &'a str,
    algos: Vec<(&'a str, Vec<&'a RunReport>)>,
}

/// The runs grouped by (profile, trace), then by `labels[i]`, run `i`'s
/// row name (its algorithm and variant).
fn groups<'a>(runs: &'a [RunReport], labels: &'a [String]) -> Vec<Group<'a>> {
    let mut out: Vec<Group> = Vec::new();
    for (r, label) in runs.iter().zip(labels) {
        let g = match out.iter_mut().position(|g| g.profile == r.profile && g.trace == r.trace) {
            Some(i) => &mut out[i],
            None => {
                out.push(Group { profile: &r.profile, trace: &r.trace, algos: Vec::new() });
                out.last_mut().expect("just pushed")
            }
        };
        match g.algos.iter_mut().find(|a| a.0 == label) {
            Some(a) => a.1.push(r),
            None => g.algos.push((label, vec![r])),
        }
    }
    out
}

/// Markdown inline code (`` `x` ``) as `<code>`, the rest escaped.
fn inline_md(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            out += &format!("<code>{}</code>", esc(part));
        } else {
            out += &esc(part);
        }
    }
    out
}

/// `table::compare`'s Markdown as HTML: its tables, bold titles, lists and
/// lines.
fn html_table(runs: &[RunReport]) -> String {
    let md = table::compare(runs, true);
    let mut out = String::new();
    let mut in_table = false;
    let mut in_list = false;
    let mut row = 0;
    for l in md.lines() {
        let t = l.trim();
        if in_table && !t.starts_with('|') {
            out += "</table></div>\n";
            in_table = false;
        }
        if in_list && !t.starts_with("- ") {
            out += "</ul>\n";
            in_list = false;
        }
        if t.starts_with('|') {
            if !in_table {
                out += "<div class=\"scroll\"><table class=\"all\">\n";
                in_table = true;
                row = 0;
            }
            row += 1;
            if row == 2 && t.trim_matches(['|', ' ', ':', '-']).is_empty() {
                continue; // the separator row
            }
            let tag = if row == 1 { "th" } else { "td" };
            out += "<tr>";
            for c in t.trim_matches('|').split('|').map(str::trim) {
                out += &format!("<{tag}>{}</{tag}>", inline_md(c));
            }
            out += "</tr>\n";
        } else if let Some(item) = t.strip_prefix("- ") {
            if !in_list {
                out += "<ul class=\"opts\">\n";
                in_list = true;
            }
            out += &format!("<li>{}</li>\n", inline_md(item));
        } else if t.len() > 4 && t.starts_with("**") && t.ends_with("**") {
            out += &format!("<p class=\"sub\">{}</p>\n", inline_md(t.trim_matches('*')));
        } else if !t.is_empty() {
            out += &format!("<p class=\"note\">{}</p>\n", inline_md(t));
        }
    }
    if in_table {
        out += "</table></div>\n";
    }
    if in_list {
        out += "</ul>\n";
    }
    out
}

/// How the runs were made: per algorithm its effective options and
/// transport; per profile its links as resolved; the run settings and
/// seeds — everything a reader needs to reproduce a number.
fn provenance(runs: &[RunReport]) -> String {
    let mut out = String::from("<details open><summary>How these runs were made</summary>\n<div class=\"prov\">\n");
    out += "<table>\n<tr><th>algorithm</th><th>transport</th><th>options as they took effect</th></tr>\n";
    let mut seen: Vec<(&str, &str, String)> = Vec::new();
    for r in runs {
        let opts = if r.effective_options.is_empty() { &r.options } else { &r.effective_options };
        let opts: Vec<String> = opts.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let row = (r.algorithm.as_str(), r.transport.as_str(), opts.join(" "));
        if !seen.contains(&row) {
            out += &format!(
                "<tr><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n",
                esc(row.0),
                esc(row.1),
                esc(&row.2)
            );
            seen.push(row);
        }
    }
    out += "</table>\n<table>\n<tr><th>profile</th><th>uplink</th><th>downlink</th></tr>\n";
    let mut profiles: Vec<(&str, &str, &str)> = Vec::new();
    for r in runs {
        let row = (r.profile.as_str(), r.uplink.as_str(), r.downlink.as_str());
        if !profiles.contains(&row) {
            out += &format!(
                "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td></tr>\n",
                esc(row.0),
                esc(row.1),
                esc(row.2)
            );
            profiles.push(row);
        }
    }
    let mut seeds: BTreeMap<(&str, &str, &str), BTreeSet<u64>> = BTreeMap::new();
    for r in runs {
        seeds.entry((r.algorithm.as_str(), r.profile.as_str(), r.trace.as_str())).or_default().insert(r.seed);
    }
    let mut settings: Vec<String> = Vec::new();
    for r in runs {
        let list = &seeds[&(r.algorithm.as_str(), r.profile.as_str(), r.trace.as_str())];
        let renders: Vec<String> = r.render_hz.iter().map(|h| h.to_string()).collect();
        let renders = if r.render_hz.iter().all(|h| Some(h) == r.render_hz.first()) {
            renders.first().cloned().unwrap_or_default()
        } else {
            renders.join(",")
        };
        let s = format!(
            "{} clients · {} s · {} Hz ticks · {renders} Hz renders · seeds {}{}",
            r.clients,
            r.duration_s,
            r.tick_hz,
            list.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(","),
            r.world_suffix()
        );
        if !settings.contains(&s) {
            settings.push(s);
        }
    }
    out += "</table>\n</div>\n<ul>\n";
    for s in settings {
        out += &format!("<li>{}</li>\n", esc(&s));
    }
    out += "</ul>\n</details>\n";
    out
}

/// `1, 2, 3` — or `1–100` for a run of consecutive seeds.
fn seed_list(seeds: &BTreeSet<u64>) -> String {
    let v: Vec<u64> = seeds.iter().copied().collect();
    match (v.first(), v.last()) {
        (Some(a), Some(b)) if v.len() > 3 && b - a + 1 == v.len() as u64 => format!("{a}–{b}"),
        _ => v.iter().map(u64::to_string).collect::<Vec<_>>().join(", "),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The header: what made the report.
fn header(report: &Report, algos: &[&str]) -> String {
    let runs = &report.runs;
    let count = |f: fn(&RunReport) -> &str| runs.iter().map(f).collect::<BTreeSet<&str>>().len();
    let seeds: BTreeSet<u64> = runs.iter().map(|r| r.seed).collect();
    let mut out = String::from("<header>\n<h1>syncbench report</h1>\n<table class=\"meta\">\n");
    out += &format!("<tr><th>tool</th><td>{}</td></tr>\n", esc(&report.tool));
    out += &format!("<tr><th>schema</th><td>{}</td></tr>\n", esc(&report.schema));
    out += &format!(
        "<tr><th>runs</th><td>{} ({} × {} × {} × {}){}</td></tr>\n",
        runs.len(),
        plural(algos.len(), "algorithm", "algorithms"),
        plural(count(|r| &r.profile), "profile", "profiles"),
        plural(count(|r| &r.trace), "trace", "traces"),
        plural(seeds.len(), "seed", "seeds"),
        if report.failed.is_empty() { String::new() } else { format!("; {} failed", report.failed.len()) }
    );
    let command = if report.command.is_empty() {
        "<span class=\"muted\">(not recorded)</span>".to_string()
    } else {
        format!("<code>{}</code>", esc(&report.command))
    };
    out += &format!("<tr><th>command</th><td>{command}</td></tr>\n");
    out += &format!("<tr><th>seeds</th><td>{}</td></tr>\n", esc(&seed_list(&seeds)));
    out += "</table>\n</header>\n";
    out
}

/// Every algorithm's colour and marker, as on every chart.
fn key(algos: &[&str], styles: &Styles) -> String {
    let mut out = String::from("<ul class=\"key\" aria-label=\"algorithms\">\n");
    for a in algos {
        out += &format!("<li data-algo=\"{}\">{}{}</li>\n", esc(a), svg::swatch(styles.of(a)), esc(a));
    }
    out += "</ul>\n";
    out
}

/// Algorithm × profile heat maps (means over traces and seeds).
fn overview(runs: &[RunReport], labels: &[String], algos: &[&str], styles: &Styles) -> String {
    let mut profiles: Vec<&str> = Vec::new();
    for r in runs {
        if !profiles.contains(&r.profile.as_str()) {
            profiles.push(&r.profile);
        }
    }
    if profiles.len() < 2 {
        return String::new();
    }
    let metrics: [(&str, Get, usize); 5] = [
        ("own input latency p50 (ms)", OWN_LATENCY, 1),
        ("remote input latency p50 (ms)", REMOTE_LATENCY, 1),
        ("remote divergence, mean (m)", REMOTE_DIVERGENCE, 3),
        ("frozen per client (ms)", FROZEN, 0),
        ("bandwidth per client, up + down (B/s)", BANDWIDTH, 0),
    ];
    let rows: Vec<(&str, Style)> = algos.iter().map(|a| (*a, styles.of(a))).collect();
    let mut out = String::from(
        "<section id=\"overview\">\n<h2>Algorithm × profile</h2>\n<p class=\"sub\">Means over traces and seeds. \
         Colours compare the algorithms within each profile: green the lowest (best), red the highest; \
         grey: not measured.</p>\n<div class=\"heats\">\n",
    );
    for (title, get, dec) in metrics {
        let values: Vec<Vec<Option<f64>>> = algos
            .iter()
            .map(|a| {
                profiles
                    .iter()
                    .map(|p| {
                        let rs: Vec<&RunReport> = runs
                            .iter()
                            .zip(labels)
                            .filter(|(r, label)| label == a && r.profile == *p)
                            .map(|(r, _)| r)
                            .collect();
                        mean(&rs, get)
                    })
                    .collect()
            })
            .collect();
        out += &format!("<figure>\n{}</figure>\n", svg::heat(title, &rows, &profiles, &values, dec, "network profile"));
    }
    out += "</div>\n</section>\n";
    out
}

/// A table cell: the mean and, over several seeds, its 95% interval.
type Cell = Option<(f64, Option<f64>)>;

/// The section's table: one row per algorithm, means over seeds (the 95%
/// interval under each with several seeds), the best of each column and
/// its ties bold.
fn group_table(g: &Group, styles: &Styles) -> String {
    let mut out = String::from("<table class=\"algos\">\n<tr><th>algorithm</th>");
    for (name, unit, _, _) in COLUMNS {
        out += &format!("<th>{}<br><span class=\"unit\">{}</span></th>", esc(name), esc(unit));
    }
    out += "</tr>\n";
    let cells: Vec<Vec<Cell>> = g
        .algos
        .iter()
        .map(|(_, rs)| {
            COLUMNS
                .iter()
                .map(|(_, _, get, _)| {
                    let v: Vec<f64> = rs.iter().filter_map(|r| get(r)).collect();
                    table::spread(&v)
                })
                .collect()
        })
        .collect();
    // Bold: the best of each column and those indistinguishable from it on
    // the same seeds (paired t-test, as the Markdown table; all lower is
    // better here). One seed: the lowest mean as shown.
    let best: Vec<Vec<bool>> = COLUMNS
        .iter()
        .enumerate()
        .map(|(ci, (_, _, get, dec))| {
            let per: Vec<Vec<(u64, f64)>> = g
                .algos
                .iter()
                .map(|(_, rs)| rs.iter().filter_map(|r| get(r).map(|v| (r.seed, table::shown(v, *dec)))).collect())
                .collect();
            if per.iter().any(|v| v.len() > 1) {
                return table::tied_best(&per, false, 10f64.powi(-(*dec as i32)))
                    .unwrap_or_else(|| vec![false; per.len()]);
            }
            let shown: Vec<Option<String>> =
                cells.iter().map(|row| row[ci].map(|(m, _)| format!("{m:.dec$}", dec = *dec))).collect();
            let min = cells.iter().filter_map(|row| row[ci].map(|(m, _)| m)).fold(f64::INFINITY, f64::min);
            let min = format!("{min:.dec$}", dec = *dec);
            let differ = shown.iter().flatten().any(|s| *s != min) && shown.iter().flatten().count() > 1;
            shown.iter().map(|s| differ && s.as_deref() == Some(min.as_str())).collect()
        })
        .collect();
    for (ai, ((name, _), row)) in g.algos.iter().zip(&cells).enumerate() {
        out += &format!("<tr data-algo=\"{}\"><td>{}{}</td>", esc(name), svg::swatch(styles.of(name)), esc(name));
        for (ci, cell) in row.iter().enumerate() {
            let dec = COLUMNS[ci].3;
            match cell {
                None => out += "<td class=\"na\">–</td>",
                Some((m, ci95)) => {
                    let shown = format!("{m:.dec$}");
                    let class = if best[ci][ai] { " class=\"best\"" } else { "" };
                    let spread = match ci95 {
                        Some(h) => format!("<br><span class=\"ci\">±{h:.dec$}</span>"),
                        None => String::new(),
                    };
                    out += &format!("<td{class}>{shown}{spread}</td>");
                }
            }
        }
        out += "</tr>\n";
    }
    out += "</table>\n";
    out
}

fn scatter(g: &Group, styles: &Styles, title: &str, x: (AxisSpec, Get), y: (AxisSpec, Get), better: &str) -> String {
    let points: Vec<Point> = g
        .algos
        .iter()
        .map(|(a, rs)| Point { name: a, style: styles.of(a), x: mean(rs, x.1), y: mean(rs, y.1) })
        .collect();
    svg::scatter(title, x.0, y.0, better, &points)
}

/// Quantile curves averaged over the seeds: at each quantile, the mean of
/// the seeds' latencies. Points `(ms, %)`.
fn pooled_cdf(runs: &[&RunReport], own: bool) -> Vec<(f64, f64)> {
    let mut at: BTreeMap<u64, (f64, usize)> = BTreeMap::new();
    for r in runs {
        let cdf = if own { &r.metrics.latency_cdf_ms.own } else { &r.metrics.latency_cdf_ms.remote };
        for [q, ms] in cdf {
            if q.is_finite() && ms.is_finite() {
                let e = at.entry((q * 1e6).round() as u64).or_insert((0.0, 0));
                e.0 += ms;
                e.1 += 1;
            }
        }
    }
    at.into_iter().map(|(q, (sum, n))| (sum / n as f64, q as f64 / 1e4)).collect()
}

fn cdf_chart(g: &Group, styles: &Styles, own: bool, seeds: usize) -> String {
    let mut series = Vec::new();
    let mut dropped = Vec::new();
    for (a, rs) in &g.algos {
        let pts = pooled_cdf(rs, own);
        if pts.is_empty() {
            dropped.push((a.to_string(), "no input change shown".to_string()));
            continue;
        }
        let mark = pts.iter().copied().find(|p| (p.1 - 50.0).abs() < 1e-9);
        series.push(Line { name: a, style: styles.of(a), points: pts, mark });
    }
    let (title, what) = if own {
        ("Own input latency: input change → own screen", "own input latency")
    } else {
        ("Remote input latency: another player's input → this screen", "remote input latency")
    };
    svg::lines(&LineChart {
        kind: "cdf",
        title,
        x: AxisSpec { name: what, unit: "ms" },
        y: AxisSpec { name: "input changes shown by then", unit: "%" },
        y_range: Some((0.0, 100.0)),
        // Latency distributions read best on a log axis once one algorithm is much slower.
        x_log_span: 10.0,
        series,
        dropped,
        caption: format!(
            "Further left is better. Cumulative distribution over the input changes that were shown{}; the marker is the median. Log axis when the latencies span more than 10×.",
            if seeds > 1 { format!(", quantiles averaged over {seeds} seeds") } else { String::new() }
        ),
    })
}

/// The per-second means over the seeds, at the middle of each second.
fn mean_series(runs: &[&RunReport], get: fn(&RunReport) -> &Vec<f64>) -> Vec<(f64, f64)> {
    let len = runs.iter().map(|r| get(r).len()).max().unwrap_or(0);
    (0..len)
        .filter_map(|i| {
            let vals: Vec<f64> = runs.iter().filter_map(|r| get(r).get(i).copied()).filter(|v| v.is_finite()).collect();
            (!vals.is_empty()).then(|| (i as f64 + 0.5, vals.iter().sum::<f64>() / vals.len() as f64))
        })
        .collect()
}

fn timeline(g: &Group, styles: &Styles, seeds: usize) -> String {
    let panels: Vec<Panel> = g
        .algos
        .iter()
        .map(|(a, rs)| Panel {
            name: a,
            style: styles.of(a),
            solid: mean_series(rs, |r| &r.metrics.timeline.own_divergence_m),
            dashed: mean_series(rs, |r| &r.metrics.timeline.remote_divergence_m),
        })
        .collect();
    svg::small_multiples(
        "Divergence from the authority over time",
        AxisSpec { name: "time", unit: "s" },
        AxisSpec { name: "divergence", unit: "m" },
        ("own entity", "remote entities"),
        &panels,
        &format!(
            "Each panel has its own y scale: compare shapes and scale labels, not heights. Mean of each second{}.",
            if seeds > 1 { format!(", averaged over {seeds} seeds") } else { String::new() }
        ),
    )
}

fn bars(g: &Group, styles: &Styles) -> String {
    let corrections: Vec<Bar> = g
        .algos
        .iter()
        .map(|(a, rs)| {
            let v = mean(rs, CORRECTIONS);
            Bar {
                name: a,
                style: styles.of(a),
                parts: v.map(|v| vec![v]),
                text: v.map_or("–".into(), |v| format!("{v:.1}")),
            }
        })
        .collect();
    let bandwidth: Vec<Bar> = g
        .algos
        .iter()
        .map(|(a, rs)| {
            let (up, down) = (mean(rs, UP), mean(rs, DOWN));
            let parts = up.zip(down).map(|(u, d)| vec![u, d]);
            Bar {
                name: a,
                style: styles.of(a),
                text: parts.as_ref().map_or("–".into(), |p| format!("{:.0}", p[0] + p[1])),
                parts,
            }
        })
        .collect();
    svg::hbars(
        "Corrections per second",
        AxisSpec { name: "corrections per second, all clients", unit: "1/s" },
        &corrections,
        &[],
        "Reconciliations that moved a predicted state, as the algorithm reports them; fewer is smoother.",
    ) + &svg::hbars(
        "Bandwidth per client",
        AxisSpec { name: "bytes per second, headers included", unit: "B/s" },
        &bandwidth,
        &["up (sent)", "down (received)"],
        "Mean over clients: what each sent (solid) and was sent (light), before the link's loss.",
    )
}

fn section(i: usize, g: &Group, runs: &[RunReport], styles: &Styles) -> String {
    let all: Vec<&RunReport> = g.algos.iter().flat_map(|a| a.1.iter().copied()).collect();
    let first = all[0];
    let seeds = g.algos.iter().map(|a| a.1.len()).max().unwrap_or(1);
    let touch = all.iter().any(|r| r.metrics.trace_facts.contact_frames > 0);
    let names: Vec<&str> = g.algos.iter().map(|a| a.0).collect();
    let mut out = format!(
        "<section class=\"group\" id=\"group-{i}\" data-algorithms=\"{}\">\n<h2>{} · {}</h2>\n",
        esc(&names.join(",")),
        esc(g.profile),
        esc(g.trace)
    );
    out += &format!(
        "<p class=\"sub\">{} · {} · {} clients · {} s · {} Hz · {}{} · players {}.</p>\n",
        esc(&first.topology),
        esc(&first.transport),
        first.clients,
        first.duration_s,
        first.tick_hz,
        plural(seeds, "seed", "seeds: mean, ±95% interval below"),
        esc(&first.world_suffix()),
        if touch { "touch (vs ideal is chaotic)" } else { "never touch" }
    );
    let per_seed = if seeds > 1 { format!(" Each point: mean over {seeds} seeds.") } else { String::new() };
    out += "<div class=\"pair top\">\n<div class=\"tablebox\">\n";
    out += &group_table(g, styles);
    out += "<p class=\"note\">Lower is better in every column. Bold: the lowest, and with several seeds every value indistinguishable from it on the same seeds (paired t-test, 95%). – : not measured.</p>\n</div>\n";
    out += &scatter(
        g,
        styles,
        "Cost vs accuracy",
        (AxisSpec { name: "bandwidth per client, up + down", unit: "B/s" }, BANDWIDTH),
        (AxisSpec { name: "remote divergence, mean", unit: "m" }, REMOTE_DIVERGENCE),
        &format!("Lower-left is better: less traffic, other players shown nearer where they are.{per_seed}"),
    );
    out += "</div>\n<div class=\"pair\">\n";
    out += &scatter(
        g,
        styles,
        "Responsiveness",
        (AxisSpec { name: "own input latency p50", unit: "ms" }, OWN_LATENCY),
        (AxisSpec { name: "remote input latency p50", unit: "ms" }, REMOTE_LATENCY),
        &format!("Lower-left is better: your inputs and other players' show sooner.{per_seed}"),
    );
    let frozen_none = g.algos.iter().all(|(_, rs)| mean(rs, FROZEN).is_none_or(|v| v == 0.0));
    out += &scatter(
        g,
        styles,
        "Freezes vs remote latency",
        (AxisSpec { name: "remote input latency p50", unit: "ms" }, REMOTE_LATENCY),
        (AxisSpec { name: "time frozen per client (stalls ≥ 100 ms)", unit: "ms" }, FROZEN),
        &format!(
            "Lower-left is better: no waiting for others' inputs, and their moves shown soon.{}{per_seed}",
            if frozen_none { " No algorithm froze here." } else { "" }
        ),
    );
    out += "</div>\n<div class=\"pair\">\n";
    out += &cdf_chart(g, styles, true, seeds);
    out += &cdf_chart(g, styles, false, seeds);
    out += "</div>\n<div class=\"wide\">\n";
    out += &timeline(g, styles, seeds);
    out += "</div>\n<div class=\"pair\">\n";
    out += &bars(g, styles);
    out += "</div>\n";
    let subset: Vec<RunReport> =
        runs.iter().filter(|r| r.profile == g.profile && r.trace == g.trace).cloned().collect();
    out += "<details class=\"every\"><summary>Every metric</summary>\n";
    out += &html_table(&subset);
    out += "</details>\n</section>\n";
    out
}

const CSS: &str = "\
:root { color-scheme: light; }
body { margin: 0; color: #222; background: #fff; font: 13px/1.45 system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif; }
main { max-width: 1360px; margin: 0 auto; padding: 12px 20px 48px; }
h1 { font-size: 22px; margin: 8px 0 10px; }
h2 { font-size: 18px; margin: 36px 0 4px; padding-bottom: 4px; border-bottom: 2px solid #ddd; }
p.sub, p.note, figcaption { color: #555; font-size: 12px; margin: 2px 0 10px; }
figcaption { margin: 2px 8px 0; }
code { font: 12px ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; background: #f4f4f4; padding: 1px 4px; border-radius: 3px; }
table { border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; }
td, th { border-bottom: 1px solid #e4e4e4; padding: 3px 7px; text-align: right; vertical-align: top; }
th { background: #f6f6f6; font-weight: 600; }
td:first-child, th:first-child { text-align: left; white-space: nowrap; }
table.meta th { text-align: left; background: none; color: #555; font-weight: normal; padding-left: 0; }
table.meta td { text-align: left; }
table.algos th { vertical-align: bottom; }
table.algos td, table.algos th { padding: 3px 5px; }
table.algos .unit { font-weight: normal; color: #666; }
table.algos td.best { font-weight: 700; }
table.algos td.na { color: #999; }
table.algos .ci { color: #777; font-size: 11px; }
table.algos tr:hover td { background: #fafafa; }
.swatch { vertical-align: middle; margin-right: 6px; }
ul.key { display: flex; flex-wrap: wrap; gap: 4px 20px; list-style: none; padding: 0; margin: 8px 0; }
ul.key li { white-space: nowrap; }
details { margin: 10px 0; }
summary { cursor: pointer; font-weight: 600; }
.prov { display: flex; flex-wrap: wrap; gap: 0 24px; align-items: flex-start; }
.prov table { margin: 6px 0; }
.prov td, .prov th { text-align: left; }
.pair { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 18px 24px; align-items: start; margin: 14px 0; }
@media (max-width: 1100px) { .pair { grid-template-columns: minmax(0, 1fr); } }
.tablebox, .scroll { overflow-x: auto; }
.heats { display: flex; flex-wrap: wrap; gap: 16px 28px; align-items: flex-start; }
figure { margin: 0; }
svg.plot { display: block; max-width: 100%; height: auto; }
.pair svg.plot, .wide svg.plot { width: 100%; }
svg.plot text { fill: #222; }
svg.plot text.title { fill: #111; }
svg.plot text.label { paint-order: stroke; stroke: #fff; stroke-width: 3px; stroke-linejoin: round; }
svg.plot text.panel-title, svg.plot text.note { fill: currentColor; }
.muted { color: #888; }
nav a { margin-right: 14px; }
";

/// The page.
pub fn render(report: &Report) -> String {
    let runs = &report.runs;
    let labels: Vec<String> = runs.iter().map(RunReport::label).collect();
    let mut algos: Vec<&str> = Vec::new();
    for label in &labels {
        if !algos.contains(&label.as_str()) {
            algos.push(label);
        }
    }
    let styles = Styles(algos.clone());
    let groups = groups(runs, &labels);
    let mut body = header(report, &algos);
    if let Some(p) = &report.partial {
        body += &format!(
            "<p><strong>{}</strong>: this report does not hold the whole matrix its command names.</p>\n",
            esc(&p.to_string())
        );
    }
    body += &provenance(runs);
    if !report.failed.is_empty() {
        body += "<h2>Failed runs</h2>\n<ul>\n";
        for f in &report.failed {
            body += &format!("<li>{}: {}</li>\n", esc(&f.what), esc(&f.error));
        }
        body += "</ul>\n";
    }
    if !groups.is_empty() {
        body += "<nav><strong>Sections:</strong> ";
        if groups.iter().map(|g| g.profile).collect::<BTreeSet<_>>().len() > 1 {
            body += "<a href=\"#overview\">algorithm × profile</a>";
        }
        for (i, g) in groups.iter().enumerate() {
            body += &format!("<a href=\"#group-{}\">{} · {}</a>", i + 1, esc(g.profile), esc(g.trace));
        }
        body += "</nav>\n";
        body += "<h2>Algorithms</h2>\n<p class=\"sub\">Each keeps its colour and marker on every chart.</p>\n";
        body += &key(&algos, &styles);
    }
    body += &overview(runs, &labels, &algos, &styles);
    for (i, g) in groups.iter().enumerate() {
        body += &section(i + 1, g, runs, &styles);
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>syncbench report</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n<main>\n{body}</main>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;

    /// Algorithms in the toy report.
    const N_ALGOS: usize = 12;
    /// No remote input latency: left out of two scatter plots and a CDF.
    const NO_REMOTE_LATENCY: usize = 5;
    /// No remote divergence: left out of the cost scatter.
    const NO_REMOTE_DIVERGENCE: usize = 7;

    fn stats(p50: f64, n: u64) -> Stats {
        Stats { mean: p50 * 1.1, p50, p90: p50 * 1.5, p99: p50 * 2.0, max: p50 * 3.0, n }
    }

    fn run(i: usize, profile: &str, seed: u64) -> RunReport {
        let v = serde_json::json!({
            "algorithm": algo(i), "profile": profile, "trace": "zigzag", "seed": seed, "clients": 4,
            "duration_s": 20.0, "tick_hz": 60, "render_hz": [60, 60, 60, 60], "topology": "client-server",
            "uplink": "delay 20ms", "downlink": "delay 20ms", "options": {}, "transport": "unreliable",
            "metrics": serde_json::to_value(Metrics::default()).unwrap(),
        });
        let mut r: RunReport = serde_json::from_value(v).unwrap();
        let (f, s) = (i as f64, seed as f64 * 0.01);
        let m = &mut r.metrics;
        // Five algorithms share their own latency: a crowd to label.
        m.input_latency_ms.own = stats(if i < 5 { 56.9 } else { 20.0 + 7.0 * f } + s, 40);
        m.input_latency_ms.remote = if i == NO_REMOTE_LATENCY { stats(0.0, 0) } else { stats(50.0 + 13.0 * f + s, 40) };
        m.divergence_m.own = stats(0.05 + 0.01 * f, 1000);
        m.divergence_m.remote = if i == NO_REMOTE_DIVERGENCE {
            stats(0.0, 0)
        } else {
            Stats { mean: 0.02 * (1 + i % 5) as f64 + s, ..stats(0.1, 1000) }
        };
        // 100 × 1.9^i B/s: 100 to 116 000, over 1000×.
        m.bandwidth.up_bytes_per_s = 50.0 * 1.9f64.powi(i as i32) + s;
        m.bandwidth.down_bytes_per_s = 50.0 * 1.9f64.powi(i as i32);
        m.stalls.freeze_ms_per_client = if i.is_multiple_of(4) { 300.0 * f } else { 0.0 };
        m.corrections = (i * 10) as u64;
        m.timeline.own_divergence_m = (0..20).map(|t| 0.01 * f + 0.001 * t as f64).collect();
        m.timeline.remote_divergence_m = (0..20).map(|t| 0.1 * f + 0.002 * t as f64).collect();
        let cdf = |base: f64| [0.0, 0.1, 0.5, 0.9, 1.0].iter().map(|q| [*q, base * (1.0 + q) + s]).collect();
        m.latency_cdf_ms.own = cdf(20.0 + f);
        m.latency_cdf_ms.remote = if i == NO_REMOTE_LATENCY { Vec::new() } else { cdf(50.0 + 10.0 * f) };
        r
    }

    /// The toy report's algorithm `i`: a name of its own (the harness names
    /// no algorithm), as varied in length as real names are.
    fn algo(i: usize) -> String {
        format!("algo{i}{}", "-sync".repeat(i % 3))
    }

    /// A report's algorithms, in the order they first appear (the order
    /// the page gives out styles in).
    fn algos(r: &Report) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for run in &r.runs {
            if !names.contains(&run.algorithm) {
                names.push(run.algorithm.clone());
            }
        }
        names
    }

    fn toy() -> Report {
        let mut runs = Vec::new();
        for profile in ["lan", "4g"] {
            for i in 0..N_ALGOS {
                for seed in [1, 2] {
                    runs.push(run(i, profile, seed));
                }
            }
        }
        let mut r = Report::new("0.0.0", runs);
        r.command = "syncbench matrix --seeds 2 --profiles lan,4g".into();
        r
    }

    /// The `<svg class="plot" …>…</svg>` pieces and, for each, its
    /// `<figure>`'s caption.
    fn plots(html: &str) -> Vec<(&str, &str)> {
        let mut out = Vec::new();
        let mut rest = html;
        while let Some(a) = rest.find("<svg class=\"plot\"") {
            let b = a + rest[a..].find("</svg>").unwrap() + 6;
            let after = &rest[b..];
            let caption = match (after.find("<figcaption>"), after.find("</figure>")) {
                (Some(c), Some(e)) if c < e => &after[c..after.find("</figcaption>").unwrap()],
                _ => "",
            };
            out.push((&rest[a..b], caption));
            rest = &rest[b..];
        }
        out
    }

    fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
        let open = &tag[..tag.find('>').unwrap()];
        let k = format!(" {name}=\"");
        let a = open.find(&k)? + k.len();
        Some(&open[a..a + open[a..].find('"').unwrap()])
    }

    /// The groups `<g class="CLASS"…>…</g>` (they nest no other group).
    fn groups<'a>(svg: &'a str, class: &str) -> Vec<&'a str> {
        let k = format!("<g class=\"{class}\"");
        let mut out = Vec::new();
        let mut rest = svg;
        while let Some(a) = rest.find(&k) {
            let b = a + rest[a..].find("</g>").unwrap();
            out.push(&rest[a..b]);
            rest = &rest[b..];
        }
        out
    }

    fn nums(s: &str) -> Vec<f64> {
        s.split(' ').map(|v| v.parse().unwrap()).collect()
    }

    #[test]
    fn every_plot_has_both_axes_with_titles() {
        let html = render(&toy());
        let plots = plots(&html);
        let kinds: BTreeSet<&str> = plots.iter().map(|p| attr(p.0, "data-kind").unwrap()).collect();
        assert_eq!(kinds, ["bars", "cdf", "heat", "scatter", "timeline"].into_iter().collect());
        for (svg, _) in &plots {
            for axis in ["axis x", "axis y"] {
                let titled = groups(svg, axis).iter().any(|g| g.contains("class=\"axis-title\""));
                assert!(titled, "{axis} without a title in {}", &svg[..200]);
            }
            assert!(!svg.contains("NaN") && !svg.contains("inf"), "a non-finite coordinate");
        }
    }

    #[test]
    fn one_series_per_algorithm() {
        let report = toy();
        let html = render(&report);
        let names = algos(&report);
        let all: BTreeSet<&str> = names.iter().map(String::as_str).collect();
        for (svg, _) in plots(&html) {
            let kind = attr(svg, "data-kind").unwrap();
            let series: Vec<&str> = groups(svg, "series").iter().map(|g| attr(g, "data-series").unwrap()).collect();
            let distinct: BTreeSet<&str> = series.iter().copied().collect();
            assert_eq!(distinct.len(), series.len(), "a {kind} draws an algorithm twice");
            let dropped: BTreeSet<&str> = attr(svg, "data-dropped").map(|d| d.split(',').collect()).unwrap_or_default();
            assert!(distinct.is_disjoint(&dropped));
            let drawn: BTreeSet<&str> = distinct.union(&dropped).copied().collect();
            if ["scatter", "cdf", "timeline", "bars", "heat"].contains(&kind) {
                assert_eq!(drawn, all, "{kind}: one series per algorithm");
            }
        }
        // Each algorithm keeps its style: the same colour in every scatter.
        for (svg, _) in plots(&html).into_iter().filter(|p| attr(p.0, "data-kind") == Some("scatter")) {
            for g in groups(svg, "series") {
                let i = names.iter().position(|a| Some(a.as_str()) == attr(g, "data-series")).unwrap();
                assert!(g.contains(&format!("=\"{}\"", svg::style(i).color)), "the colour of {}", names[i]);
            }
        }
    }

    /// Point labels: no two overlap, none covers a point, all are inside
    /// the plot.
    #[test]
    fn scatter_labels_do_not_overlap() {
        let html = render(&toy());
        let half = svg::marker_half(svg::MARKER_R);
        let mut checked = 0;
        for (svg, _) in plots(&html).into_iter().filter(|p| attr(p.0, "data-kind") == Some("scatter")) {
            let mut labels = Vec::new();
            let mut points = Vec::new();
            for g in groups(svg, "series") {
                let p = nums(attr(g, "data-point").unwrap());
                points.push(svg::Rect { x: p[0] - half, y: p[1] - half, w: 2.0 * half, h: 2.0 * half });
                let t = &g[g.find("<text class=\"label\"").expect("every point labelled")..];
                let b = nums(attr(t, "data-bbox").unwrap());
                let name = attr(g, "data-series").unwrap();
                // The box is at least the estimated width of the name.
                assert!(b[2] >= 0.6 * svg::FONT * name.chars().count() as f64, "{name}");
                labels.push(svg::Rect { x: b[0], y: b[1], w: b[2], h: b[3] });
            }
            for (i, l) in labels.iter().enumerate() {
                assert!(l.x >= 70.0 && l.x + l.w <= 660.0 && l.y >= 30.0 && l.y + l.h <= 390.0, "inside the plot");
                for m in labels.iter().take(i) {
                    assert!(!l.overlaps(m), "labels overlap");
                }
                for p in &points {
                    assert!(!l.overlaps(p), "a label covers a point");
                }
            }
            checked += 1;
        }
        assert_eq!(checked, 6, "three scatter plots per section, two sections");
    }

    #[test]
    fn byte_identical() {
        let report = toy();
        let a = render(&report);
        assert_eq!(a, render(&report.clone()));
        let round_trip = Report::from_json(&report.to_json()).unwrap();
        assert_eq!(a, render(&round_trip));
    }

    #[test]
    fn log_scale_for_a_wide_spread() {
        let html = render(&toy());
        let cost = plots(&html).into_iter().find(|p| p.0.contains("aria-label=\"Cost vs accuracy\"")).unwrap().0;
        let x = groups(cost, "axis x")[0];
        assert_eq!(attr(x, "data-scale"), Some("log"), "bandwidth spans 1000×");
        assert!(x.contains("bandwidth per client, up + down (B/s, log)"));
        let y = groups(cost, "axis y")[0];
        assert_eq!(attr(y, "data-scale"), Some("linear"), "divergence spans 5×");
        assert!(!y.contains("log)"));
    }

    #[test]
    fn missing_values_are_dropped_with_a_caption() {
        let report = toy();
        let html = render(&report);
        let names = algos(&report);
        let missing = names[NO_REMOTE_LATENCY].as_str();
        let plots = plots(&html);
        let resp = plots.iter().find(|p| p.0.contains("aria-label=\"Responsiveness\"")).unwrap();
        assert_eq!(attr(resp.0, "data-dropped"), Some(missing));
        assert!(!resp.0.contains(&format!("data-series=\"{missing}\"")), "no point at 0");
        assert!(resp.1.contains("Not plotted") && resp.1.contains(missing), "{}", resp.1);
        let cost = plots.iter().find(|p| p.0.contains("aria-label=\"Cost vs accuracy\"")).unwrap();
        assert_eq!(attr(cost.0, "data-dropped"), Some(names[NO_REMOTE_DIVERGENCE].as_str()));
        assert!(cost.1.contains(&format!("{} (no remote divergence, mean)", names[NO_REMOTE_DIVERGENCE])));
        let cdf = plots.iter().find(|p| p.0.contains("another player")).unwrap();
        assert_eq!(attr(cdf.0, "data-dropped"), Some(missing));
        assert!(cdf.1.contains(missing));
        // The tables say "–".
        let row = &html[html.find(&format!("<tr data-algo=\"{missing}\">")).unwrap()..];
        assert!(row[..row.find("</tr>").unwrap()].contains("<td class=\"na\">–</td>"));
    }

    #[test]
    fn header_sections_and_tables() {
        let html = render(&toy());
        assert!(html.contains("<code>syncbench matrix --seeds 2 --profiles lan,4g</code>"));
        assert!(html.contains("48 (12 algorithms × 2 profiles × 1 trace × 2 seeds)"));
        assert!(html.contains("How these runs were made") && html.contains("seeds 1,2"));
        assert_eq!(html.matches("<section class=\"group\"").count(), 2);
        assert_eq!(html.matches("<table class=\"algos\">").count(), 2);
        assert_eq!(html.matches("<tr data-algo=").count(), 24, "a row per algorithm and section");
        assert!(html.contains("<span class=\"ci\">±"), "two seeds: the interval");
        assert!(html.contains("id=\"overview\""), "two profiles: the heat maps");
        assert!(!html.contains("<script") && !html.contains("src=") && !html.contains("href=\"http"), "self-contained");
        // One profile: no heat maps.
        let mut one = toy();
        one.runs.retain(|r| r.profile == "lan");
        assert!(!render(&one).contains("id=\"overview\""));
        assert!(render(&Report::new("0", vec![])).contains("<h1>syncbench report</h1>"));
    }

    /// `compare --vary` runs one algorithm under several settings: each
    /// setting is a row and a series of its own, never pooled.
    #[test]
    fn variants_are_rows_of_their_own() {
        let mut report = toy();
        let first = algos(&report)[0].clone();
        report.runs.retain(|r| r.profile == "lan" && r.algorithm == first);
        let mut varied = report.runs.clone();
        for r in &mut varied {
            r.variant = "transport=kcp".into();
            r.metrics.bandwidth.up_bytes_per_s *= 3.0;
        }
        report.runs.iter_mut().for_each(|r| r.variant = "transport=unreliable".into());
        report.runs.extend(varied);
        let html = render(&report);
        for v in ["transport=unreliable", "transport=kcp"] {
            let label = format!("{first} {v}");
            assert_eq!(html.matches(&format!("<tr data-algo=\"{label}\">")).count(), 1, "{v}");
            assert!(html.contains(&format!("data-series=\"{label}\"")), "{v}");
        }
    }
}
