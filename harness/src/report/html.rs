//! `report.html`: one self-contained page — tables and SVG plots drawn by
//! `plotters`, no scripts, no network — that shows which algorithm suits
//! which network at a glance.
//!
//! Per (profile, trace): divergence over time, input-latency CDFs, a
//! correction timeline and bandwidth per algorithm (seeds averaged); for a
//! matrix with several profiles, heat maps of algorithm × profile.

use super::table;
use super::{Report, RunReport};
use plotters::prelude::*;

const PALETTE: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// `(label, points)` series → an SVG line chart.
fn line_chart(title: &str, x_desc: &str, y_desc: &str, series: &[(String, Vec<(f64, f64)>)]) -> String {
    let mut svg = String::new();
    let xmax = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.0)).fold(0.0f64, f64::max).max(1e-9);
    let ymax = series.iter().flat_map(|(_, p)| p.iter().map(|q| q.1)).fold(0.0f64, f64::max).max(1e-9) * 1.1;
    {
        let root = SVGBackend::with_string(&mut svg, (640, 340)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let Ok(mut chart) = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..xmax, 0f64..ymax)
        else {
            return svg_placeholder(title);
        };
        let _ = chart.configure_mesh().x_desc(x_desc).y_desc(y_desc).light_line_style(WHITE).draw();
        for (i, (label, pts)) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            if let Ok(s) = chart.draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2))) {
                s.label(label.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2)));
            }
        }
        let _ = chart.configure_series_labels().background_style(WHITE.mix(0.85)).border_style(BLACK).draw();
        let _ = root.present();
    }
    svg
}

/// Bars: `(label, value)`.
fn bar_chart(title: &str, y_desc: &str, bars: &[(String, f64)]) -> String {
    let mut svg = String::new();
    let ymax = bars.iter().map(|b| b.1).fold(0.0f64, f64::max).max(1e-9) * 1.15;
    let n = bars.len().max(1);
    {
        let root = SVGBackend::with_string(&mut svg, (640, 300)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let Ok(mut chart) = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(64)
            .build_cartesian_2d((0..n).into_segmented(), 0f64..ymax)
        else {
            return svg_placeholder(title);
        };
        let labels: Vec<String> = bars.iter().map(|b| b.0.clone()).collect();
        let _ = chart
            .configure_mesh()
            .y_desc(y_desc)
            .x_labels(n)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .light_line_style(WHITE)
            .draw();
        for (i, (_, v)) in bars.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let _ = chart.draw_series(std::iter::once(Rectangle::new(
                [(SegmentValue::Exact(i), 0.0), (SegmentValue::Exact(i + 1), *v)],
                color.mix(0.8).filled(),
            )));
        }
        let _ = root.present();
    }
    svg
}

/// A grid of cells coloured by value: rows × columns.
fn heat_map(
    title: &str,
    rows: &[String],
    cols: &[String],
    value: &dyn Fn(usize, usize) -> Option<f64>,
    unit: &str,
) -> String {
    let mut svg = String::new();
    let vals: Vec<f64> = (0..rows.len()).flat_map(|r| (0..cols.len()).filter_map(move |c| value(r, c))).collect();
    let (lo, hi) = vals.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    let (w, h) = (160 + 120 * cols.len() as u32, 70 + 36 * rows.len() as u32);
    {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let _ = root.draw(&Text::new(format!("{title} ({unit}; greener is better)"), (10, 8), ("sans-serif", 16)));
        for (c, name) in cols.iter().enumerate() {
            let _ = root.draw(&Text::new(name.clone(), (160 + 120 * c as i32 + 6, 36), ("sans-serif", 13)));
        }
        for (r, name) in rows.iter().enumerate() {
            let y = 56 + 36 * r as i32;
            let _ = root.draw(&Text::new(name.clone(), (10, y + 10), ("sans-serif", 13)));
            for c in 0..cols.len() {
                let x = 160 + 120 * c as i32;
                let (fill, label) = match value(r, c) {
                    Some(v) => {
                        let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.0 };
                        (RGBColor((60.0 + 190.0 * t) as u8, (200.0 - 140.0 * t) as u8, 80), format!("{v:.3}"))
                    }
                    None => (RGBColor(230, 230, 230), "–".into()),
                };
                let _ = root.draw(&Rectangle::new([(x, y), (x + 116, y + 32)], fill.filled()));
                let _ = root.draw(&Text::new(label, (x + 8, y + 10), ("sans-serif", 13)));
            }
        }
        let _ = root.present();
    }
    svg
}

/// A heat-map metric: title, unit, how to read it.
type HeatMetric = (&'static str, &'static str, fn(&RunReport) -> f64);

fn svg_placeholder(title: &str) -> String {
    format!("<p>(no data for {})</p>", esc(title))
}

fn mean_series(runs: &[&RunReport], get: fn(&RunReport) -> &Vec<f64>) -> Vec<(f64, f64)> {
    let len = runs.iter().map(|r| get(r).len()).max().unwrap_or(0);
    (0..len)
        .map(|i| {
            let vals: Vec<f64> = runs.iter().filter_map(|r| get(r).get(i).copied()).collect();
            (i as f64 + 0.5, vals.iter().sum::<f64>() / vals.len().max(1) as f64)
        })
        .collect()
}

fn html_table(runs: &[RunReport]) -> String {
    // The Markdown tables, rendered as HTML tables.
    let md = table::compare(runs, true);
    let mut out = String::new();
    for block in md.split("\n\n").filter(|b| !b.trim().is_empty()) {
        let mut lines = block.lines();
        if let Some(first) = lines.clone().next() {
            if first.starts_with("**") {
                out += &format!("<h3>{}</h3>\n", esc(first.trim_matches('*')));
                lines.next();
            }
        }
        out += "<table>\n";
        for (i, l) in lines.enumerate() {
            if i == 1 {
                continue; // the separator row
            }
            let cells: Vec<&str> = l.trim().trim_matches('|').split('|').map(str::trim).collect();
            let tag = if i == 0 { "th" } else { "td" };
            out += "<tr>";
            for c in cells {
                out += &format!("<{tag}>{}</{tag}>", esc(c));
            }
            out += "</tr>\n";
        }
        out += "</table>\n";
    }
    out
}

/// How the runs were made: per algorithm its effective options and
/// transport; per profile its links as resolved; the run settings and
/// seeds — everything a reader needs to reproduce a number.
fn provenance(runs: &[super::RunReport]) -> String {
    let mut out = String::from("<details open><summary>How these runs were made</summary>\n<table>\n");
    out += "<tr><th>algorithm</th><th>transport</th><th>options as they took effect</th></tr>\n";
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
    let mut seeds: std::collections::BTreeMap<(&str, &str, &str), std::collections::BTreeSet<u64>> = Default::default();
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
    out += "</table>\n<ul>\n";
    for s in settings {
        out += &format!("<li>{}</li>\n", esc(&s));
    }
    out += "</ul>\n</details>\n";
    out
}

/// The page.
pub fn render(report: &Report) -> String {
    let runs = &report.runs;
    let mut body = String::new();
    body += &format!(
        "<h1>syncbench report</h1>\n<p>{} · {} runs · schema {}</p>\n",
        esc(&report.tool),
        runs.len(),
        esc(&report.schema)
    );
    body += &provenance(runs);
    if !report.failed.is_empty() {
        body += "<h2>Failed runs</h2>\n<ul>\n";
        for f in &report.failed {
            body += &format!("<li>{}: {}</li>\n", esc(&f.what), esc(&f.error));
        }
        body += "</ul>\n";
    }
    // Heat maps over profiles.
    let mut profiles: Vec<&str> = Vec::new();
    let mut algos: Vec<&str> = Vec::new();
    let mut groups: Vec<(&str, &str)> = Vec::new();
    for r in runs {
        if !profiles.contains(&r.profile.as_str()) {
            profiles.push(&r.profile);
        }
        if !algos.contains(&r.algorithm.as_str()) {
            algos.push(&r.algorithm);
        }
        if !groups.contains(&(r.profile.as_str(), r.trace.as_str())) {
            groups.push((&r.profile, &r.trace));
        }
    }
    if profiles.len() > 1 {
        body += "<h2>Algorithm × profile</h2>\n";
        let rows: Vec<String> = algos.iter().map(|s| s.to_string()).collect();
        let cols: Vec<String> = profiles.iter().map(|s| s.to_string()).collect();
        let metrics: [HeatMetric; 3] = [
            ("own input latency p50", "ms", |r| r.metrics.input_latency_ms.own.p50),
            ("divergence from the ideal world (own + remote means)", "m", |r| {
                r.metrics.ideal_divergence_m.own.mean + r.metrics.ideal_divergence_m.remote.mean
            }),
            ("upload per client", "B/s", |r| r.metrics.bandwidth.up_bytes_per_s),
        ];
        for (title, unit, get) in metrics {
            let value = |r: usize, c: usize| {
                let v: Vec<f64> =
                    runs.iter().filter(|x| x.algorithm == algos[r] && x.profile == profiles[c]).map(get).collect();
                (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
            };
            body += &format!("<figure>{}</figure>\n", heat_map(title, &rows, &cols, &value, unit));
        }
    }
    body += "<h2>Tables</h2>\n";
    body += &html_table(runs);
    for (profile, trace) in groups {
        body += &format!("<h2>{} · {}</h2>\n<div class=\"plots\">\n", esc(profile), esc(trace));
        let per_algo: Vec<(&str, Vec<&RunReport>)> = algos
            .iter()
            .map(|a| {
                (*a, runs.iter().filter(|r| r.algorithm == *a && r.profile == profile && r.trace == trace).collect())
            })
            .filter(|(_, v): &(&str, Vec<&RunReport>)| !v.is_empty())
            .collect();
        let own: Vec<(String, Vec<(f64, f64)>)> = per_algo
            .iter()
            .map(|(a, rs)| (a.to_string(), mean_series(rs, |r| &r.metrics.timeline.own_divergence_m)))
            .collect();
        body += &format!("<figure>{}</figure>\n", line_chart("own divergence over time", "s", "m", &own));
        let remote: Vec<(String, Vec<(f64, f64)>)> = per_algo
            .iter()
            .map(|(a, rs)| (a.to_string(), mean_series(rs, |r| &r.metrics.timeline.remote_divergence_m)))
            .collect();
        body += &format!("<figure>{}</figure>\n", line_chart("remote divergence over time", "s", "m", &remote));
        let cdf: Vec<(String, Vec<(f64, f64)>)> = per_algo
            .iter()
            .map(|(a, rs)| (a.to_string(), rs[0].metrics.latency_cdf_ms.own.iter().map(|p| (p[1], p[0])).collect()))
            .collect();
        body +=
            &format!("<figure>{}</figure>\n", line_chart("own input latency CDF (first seed)", "ms", "share", &cdf));
        let corr: Vec<(String, Vec<(f64, f64)>)> = per_algo
            .iter()
            .map(|(a, rs)| {
                let as_f: Vec<Vec<f64>> =
                    rs.iter().map(|r| r.metrics.timeline.corrections.iter().map(|&c| c as f64).collect()).collect();
                let len = as_f.iter().map(Vec::len).max().unwrap_or(0);
                let pts = (0..len)
                    .map(|i| (i as f64 + 0.5, as_f.iter().filter_map(|v| v.get(i)).sum::<f64>() / as_f.len() as f64))
                    .collect();
                (a.to_string(), pts)
            })
            .collect();
        body += &format!("<figure>{}</figure>\n", line_chart("corrections per second", "s", "corrections", &corr));
        let bw: Vec<(String, f64)> = per_algo
            .iter()
            .map(|(a, rs)| {
                let v = rs
                    .iter()
                    .map(|r| r.metrics.bandwidth.up_bytes_per_s + r.metrics.bandwidth.down_bytes_per_s)
                    .sum::<f64>();
                (a.to_string(), v / rs.len() as f64)
            })
            .collect();
        body += &format!("<figure>{}</figure>\n", bar_chart("bandwidth per client, up + down", "B/s", &bw));
        body += "</div>\n";
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>syncbench report</title>\n<style>\n\
         body {{ font-family: sans-serif; margin: 2em; color: #222; }}\n\
         table {{ border-collapse: collapse; margin: 0.5em 0 1.5em; font-size: 13px; }}\n\
         td, th {{ border: 1px solid #ccc; padding: 3px 8px; text-align: right; }}\n\
         td:first-child, th:first-child {{ text-align: left; }}\n\
         .plots {{ display: flex; flex-wrap: wrap; gap: 8px; }}\n\
         figure {{ margin: 0; }}\n</style>\n</head>\n<body>\n{body}</body>\n</html>\n"
    )
}
