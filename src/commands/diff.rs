//! `diff`: a report against a baseline, by effective configuration, noise-aware, in text, Markdown, JSON or JUnit.

use super::*;

pub(super) fn read_report(path: &std::path::Path) -> Result<Report> {
    if let Some(why) = crate::output::check_set(path) {
        eprintln!("{}: warning: {why}", crate::program());
    }
    let text =
        harness::limits::read_text(path, harness::limits::MAX_REPORT_FILE, "report").map_err(|e| bad(e.to_string()))?;
    Report::from_json(&text).map_err(|e| bad(format!("{}: {e}", path.display())))
}

pub(super) fn diff_cmd(
    base: &std::path::Path,
    new: &std::path::Path,
    tolerance: Option<f64>,
    gate: Option<&std::path::Path>,
    metrics: &[String],
    format: crate::cli::DiffFormat,
    accept_input_changes: bool,
) -> Result<()> {
    use crate::cli::DiffFormat;
    use harness::report::diff::{diff, watched, Change, Tolerances, CONSISTENT_FAILS_AT, WATCHED};
    for m in metrics {
        if !WATCHED.iter().any(|w| w.name == m) {
            let names: Vec<&str> = WATCHED.iter().map(|w| w.name).collect();
            return Err(bad(format!("--metric {m}: expected one of {}", names.join(", "))));
        }
    }
    let mut tol = match gate {
        Some(p) => {
            let text = harness::limits::read_text(p, harness::limits::MAX_INPUT_FILE, "gate file")
                .map_err(|e| bad(e.to_string()))?;
            Tolerances::parse(&text, &harness::error::Source::File(p.display().to_string()))
                .map_err(|e| bad(e.to_string()))?
        }
        None => Tolerances::uniform(0.05),
    };
    if let Some(t) = tolerance {
        if !(0.0..=10_000.0).contains(&t) {
            return Err(bad(format!(
                "--tolerance {}: expected a percentage 0..=10000, e.g. 5",
                harness::error::number(t)
            )));
        }
        tol.default = t / 100.0;
    }
    let (b, n) = (read_report(base)?, read_report(new)?);
    let d = diff(&b, &n, &tol, metrics);
    let worse: Vec<&Change> = d.changes.iter().filter(|c| c.regression).collect();
    let shown = |c: &Change, x: f64| watched(c.metric).map_or(x, |w| w.rounded(x));
    // Less traffic in a configuration whose quality got worse at all is a
    // trade (fewer updates sent or delivered), not an improvement.
    let quality_worse = |run: &str| {
        d.changes
            .iter()
            .any(|c| c.run == run && !c.metric.starts_with("bandwidth.") && shown(c, c.new) > shown(c, c.base))
    };
    let is_traffic = |c: &Change| c.metric.starts_with("bandwidth.");
    let lower: Vec<&Change> = d.changes.iter().filter(|c| shown(c, c.new) < shown(c, c.base)).collect();
    let better: Vec<&Change> = lower.iter().copied().filter(|c| !(is_traffic(c) && quality_worse(&c.run))).collect();
    let traded: Vec<&Change> = lower.iter().copied().filter(|c| is_traffic(c) && quality_worse(&c.run)).collect();
    let by_floor: Vec<&Change> = d.changes.iter().filter(|c| c.by_floor).collect();
    let runs_worse = {
        let mut r: Vec<&str> = worse.iter().map(|c| c.run.as_str()).collect();
        r.sort_unstable();
        r.dedup();
        r.len()
    };
    let summary = format!(
        "{} of {} runs compared (default tolerance {}%{}{}): {runs_worse} configurations regressed ({} metrics), {} metrics improved, {} worse within tolerance ({} let pass by the floor alone), {} worse within the seeds' noise{}{}{}",
        d.compared,
        b.runs.len(),
        tol.default * 100.0,
        if tol.per_metric.is_empty() { String::new() } else { format!(", {} per metric", tol.per_metric.len()) },
        if tol.floors.is_empty() { String::new() } else { format!(", {} floors set", tol.floors.len()) },
        worse.len(),
        better.len(),
        d.within_tolerance.len(),
        by_floor.len(),
        d.within_noise.len(),
        if d.consistent.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = d.consistent.iter().map(|(a, m, n)| format!("{a} {m} in all {n}")).collect();
            format!(", worse in every configuration of an algorithm: {}", list.join(", "))
        },
        if d.missing.is_empty() { String::new() } else { format!(", {} MISSING", d.missing.len()) },
        if d.inputs_changed.is_empty() { String::new() } else { format!(", {} on changed inputs", d.inputs_changed.len()) },
    );
    let value = |c: &Change| {
        let Some(w) = watched(c.metric) else { return format!("{:.4} -> {:.4}", c.base, c.new) };
        let ci = c.ci.map_or(String::new(), |h| format!(" ±{:.*}", w.decimals + 1, h));
        let floor = if c.by_floor { format!(" (floor {})", w.show(tol.floor_of(w))) } else { String::new() };
        format!("{:.*} -> {}{ci}{floor}", w.decimals, c.base, w.show(c.new))
    };
    let moved: Vec<&harness::report::diff::Shape> =
        d.shapes.iter().filter(|s| s.ks >= harness::report::diff::SHAPE_SHOWN_FROM).collect();
    let shape_line = |s: &harness::report::diff::Shape| {
        format!(
            "D = {:.3}  (p50 {:.1} -> {:.1}, p90 {:.1} -> {:.1}, p99 {:.1} -> {:.1} ms)",
            s.ks, s.base.p50, s.new.p50, s.base.p90, s.new.p90, s.base.p99, s.new.p99
        )
    };
    match format {
        DiffFormat::Junit => print!("{}", harness::report::diff::to_junit(&d, accept_input_changes)),
        DiffFormat::Json => {
            let ch = |c: &Change| serde_json::json!({"run": c.run, "metric": c.metric, "base": c.base, "new": c.new, "seeds": c.seeds, "ci95": c.ci, "regression": c.regression, "decided_by_floor": c.by_floor});
            let j = serde_json::json!({
                "compared": d.compared,
                "regressed": worse.iter().map(|c| ch(c)).collect::<Vec<_>>(),
                "improved": better.iter().map(|c| ch(c)).collect::<Vec<_>>(),
                "less_traffic_with_worse_quality": traded.iter().map(|c| ch(c)).collect::<Vec<_>>(),
                "worse_in_every_configuration": d.consistent.iter().map(|(a, m, n)| serde_json::json!({"algorithm": a, "metric": m, "configurations": n, "regression": *n >= CONSISTENT_FAILS_AT})).collect::<Vec<_>>(),
                "within_tolerance": d.within_tolerance.iter().map(ch).collect::<Vec<_>>(),
                "within_noise": d.within_noise.iter().map(ch).collect::<Vec<_>>(),
                "missing": d.missing,
                "added": d.added,
                "inputs_changed": d.inputs_changed.iter().map(|(k, w)| serde_json::json!({"run": k, "why": w})).collect::<Vec<_>>(),
                "latency_shapes_not_compared": d.unreadable_shapes.iter().map(|(r, w)| serde_json::json!({"run": r, "why": w})).collect::<Vec<_>>(),
                "latency_shapes": d.shapes.iter().map(|s| serde_json::json!({"run": s.run, "side": s.side, "ks_distance": (s.ks * 1e4).round() / 1e4, "base_ms": s.base, "new_ms": s.new})).collect::<Vec<_>>(),
                "verdict": if d.regressed() { "regressed" } else { "pass" },
            });
            println!("{}", serde_json::to_string_pretty(&j)?);
        }
        DiffFormat::Md => {
            let verdict = if d.regressed() { "❌ regressed" } else { "✅ no regression" };
            println!("**syncbench gate: {verdict}** — {summary}\n");
            let table = |title: &str, list: &[&Change], open: bool| {
                if list.is_empty() {
                    return;
                }
                println!("<details{}><summary>{title} ({})</summary>\n", if open { " open" } else { "" }, list.len());
                println!("| metric | base → new | configuration |\n|:--|--:|:--|");
                for c in list {
                    println!("| `{}` | {} | {} |", c.metric, value(c), c.run);
                }
                println!("\n</details>\n");
            };
            table("Regressed", &worse, true);
            table("Worse within the seeds' noise", &d.within_noise.iter().collect::<Vec<_>>(), false);
            table("Worse within tolerance", &d.within_tolerance.iter().collect::<Vec<_>>(), false);
            table("Improved", &better, false);
            table("Less traffic, with worse quality (a trade, not an improvement)", &traded, false);
            if !d.consistent.is_empty() {
                println!("**Worse in every configuration of an algorithm** (regresses from {CONSISTENT_FAILS_AT} on, however small each move):\n");
                for (a, m, n) in &d.consistent {
                    println!("- {a}: `{m}` in all {n}");
                }
                println!();
            }
            if !moved.is_empty() {
                println!("<details><summary>Input-latency distributions that changed shape (Kolmogorov–Smirnov D ≥ {}) ({})</summary>\n", harness::report::diff::SHAPE_SHOWN_FROM, moved.len());
                println!("| latency | D, and percentiles base → new | configuration |\n|:--|--:|:--|");
                for s in &moved {
                    println!("| {} | {} | {} |", s.side, shape_line(s), s.run);
                }
                println!("\n</details>\n");
            }
            for (run, why) in &d.unreadable_shapes {
                println!("Latency shape not compared ({why}): {run}\n");
            }
            for (title, list) in [("Missing from the new report", &d.missing), ("New", &d.added)] {
                if !list.is_empty() {
                    println!("<details><summary>{title} ({})</summary>\n", list.len());
                    for k in list.iter() {
                        println!("- {k}");
                    }
                    println!("\n</details>\n");
                }
            }
        }
        DiffFormat::Text => {
            println!("{summary}");
            for (label, list) in [("WORSE", &worse), ("better", &better), ("traded", &traded)] {
                for c in list.iter() {
                    println!("  {label:<6} {:<28} {:>26} {}", c.metric, value(c), c.run);
                }
            }
            for (a, m, n) in &d.consistent {
                let fails = if *n >= CONSISTENT_FAILS_AT { "REGRESSED" } else { "noted" };
                println!("  {fails}: {a}'s {m} is worse in every one of its {n} configurations");
            }
            for c in &d.within_noise {
                println!("  noise  {:<28} {:>26} {}", c.metric, value(c), c.run);
            }
            for c in &d.within_tolerance {
                println!("  within {:<28} {:>26} {}", c.metric, value(c), c.run);
            }
            for s in &moved {
                println!("  shape  {:<28} {} {}", format!("input_latency.{}", s.side), shape_line(s), s.run);
            }
            for (run, why) in &d.unreadable_shapes {
                println!("  shape  not compared ({why}): {run}");
            }
            for (k, why) in &d.inputs_changed {
                println!("  {why}: not compared: {k}");
            }
            for k in &d.missing {
                println!("  MISSING {k}");
            }
            for k in &d.added {
                println!("  new     {k}");
            }
        }
    }
    if !d.inputs_changed.is_empty() && !accept_input_changes {
        return Err(Violation(format!(
            "{} runs ran on a different network or trace under the same name: the gate cannot judge them (regenerate the baseline if the change is meant, or pass --accept-input-changes)",
            d.inputs_changed.len()
        ))
        .into());
    }
    if d.regressed() {
        let why = if !d.missing.is_empty() {
            "runs of the baseline are missing from the new report (a different configuration?)"
        } else if worse.is_empty() {
            "a metric got worse in every configuration of an algorithm (a consistent shift, however small each move)"
        } else {
            "quality regressed beyond the tolerance"
        };
        Err(Violation(why.into()).into())
    } else {
        Ok(())
    }
}
