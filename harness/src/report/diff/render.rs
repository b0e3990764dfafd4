//! A diff as its reader sees it: changes sorted into regressed, better and
//! traded (less traffic where quality got worse is a trade, not an
//! improvement), a one-line summary, and the text, Markdown and JSON
//! renderings `syncbench diff` prints.

use super::{watched, Change, Diff, Shape, Tolerances, CONSISTENT_FAILS_AT, SHAPE_SHOWN_FROM};
use std::fmt::Write;

/// A diff's changes sorted for the reader, with what the renderings need.
pub struct Sorted<'a> {
    /// The comparison.
    pub diff: &'a Diff,
    /// The tolerances it was made with.
    pub tolerances: &'a Tolerances,
    /// Runs in the baseline.
    pub base_runs: usize,
    /// Regressions.
    pub worse: Vec<&'a Change>,
    /// Lower at the metric's printed precision, and not a trade.
    pub better: Vec<&'a Change>,
    /// Less traffic in a configuration whose quality got worse.
    pub traded: Vec<&'a Change>,
    /// Changes the floor alone let pass.
    pub by_floor: Vec<&'a Change>,
}

impl<'a> Sorted<'a> {
    /// Sorts `d`'s changes (`base_runs`: runs in the baseline, for the summary).
    pub fn new(d: &'a Diff, tolerances: &'a Tolerances, base_runs: usize) -> Sorted<'a> {
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
        let better: Vec<&Change> =
            lower.iter().copied().filter(|c| !(is_traffic(c) && quality_worse(&c.run))).collect();
        let traded: Vec<&Change> = lower.iter().copied().filter(|c| is_traffic(c) && quality_worse(&c.run)).collect();
        let by_floor: Vec<&Change> = d.changes.iter().filter(|c| c.by_floor).collect();
        Sorted { diff: d, tolerances, base_runs, worse, better, traded, by_floor }
    }

    /// The one-line summary both text and Markdown open with.
    pub fn summary(&self) -> String {
        let (d, tol) = (self.diff, self.tolerances);
        let runs_worse = {
            let mut r: Vec<&str> = self.worse.iter().map(|c| c.run.as_str()).collect();
            r.sort_unstable();
            r.dedup();
            r.len()
        };
        format!(
            "{} of {} runs compared (default tolerance {}%{}{}): {runs_worse} configurations regressed ({} metrics), {} metrics improved, {} worse within tolerance ({} let pass by the floor alone), {} worse within the seeds' noise{}{}{}",
            d.compared,
            self.base_runs,
            tol.default * 100.0,
            if tol.per_metric.is_empty() { String::new() } else { format!(", {} per metric", tol.per_metric.len()) },
            if tol.floors.is_empty() { String::new() } else { format!(", {} floors set", tol.floors.len()) },
            self.worse.len(),
            self.better.len(),
            d.within_tolerance.len(),
            self.by_floor.len(),
            d.within_noise.len(),
            if d.consistent.is_empty() {
                String::new()
            } else {
                let list: Vec<String> = d.consistent.iter().map(|(a, m, n)| format!("{a} {m} in all {n}")).collect();
                format!(", worse in every configuration of an algorithm: {}", list.join(", "))
            },
            if d.missing.is_empty() { String::new() } else { format!(", {} MISSING", d.missing.len()) },
            if d.inputs_changed.is_empty() { String::new() } else { format!(", {} on changed inputs", d.inputs_changed.len()) },
        )
    }

    /// A change's values at the metric's precision, with its interval and floor.
    fn value(&self, c: &Change) -> String {
        let Some(w) = watched(c.metric) else { return format!("{:.4} -> {:.4}", c.base, c.new) };
        let ci = c.ci.map_or(String::new(), |h| format!(" ±{:.*}", w.decimals + 1, h));
        let floor =
            if c.by_floor { format!(" (floor {})", w.show(self.tolerances.floor_of(w))) } else { String::new() };
        format!("{:.*} -> {}{ci}{floor}", w.decimals, c.base, w.show(c.new))
    }

    /// Latency shapes that moved enough to show.
    fn moved(&self) -> Vec<&'a Shape> {
        self.diff.shapes.iter().filter(|s| s.ks >= SHAPE_SHOWN_FROM).collect()
    }

    /// Why the gate fails, if it does: the first of missing runs, a
    /// consistent shift, or a regression beyond the tolerance.
    pub fn failure(&self) -> Option<&'static str> {
        if !self.diff.regressed() {
            None
        } else if !self.diff.missing.is_empty() {
            Some("runs of the baseline are missing from the new report (a different configuration?)")
        } else if self.worse.is_empty() {
            Some("a metric got worse in every configuration of an algorithm (a consistent shift, however small each move)")
        } else {
            Some("quality regressed beyond the tolerance")
        }
    }

    /// The JSON document.
    pub fn to_json(&self) -> serde_json::Value {
        let d = self.diff;
        let ch = |c: &Change| serde_json::json!({"run": c.run, "metric": c.metric, "base": c.base, "new": c.new, "seeds": c.seeds, "ci95": c.ci, "regression": c.regression, "decided_by_floor": c.by_floor});
        serde_json::json!({
            "compared": d.compared,
            "regressed": self.worse.iter().map(|c| ch(c)).collect::<Vec<_>>(),
            "improved": self.better.iter().map(|c| ch(c)).collect::<Vec<_>>(),
            "less_traffic_with_worse_quality": self.traded.iter().map(|c| ch(c)).collect::<Vec<_>>(),
            "worse_in_every_configuration": d.consistent.iter().map(|(a, m, n)| serde_json::json!({"algorithm": a, "metric": m, "configurations": n, "regression": *n >= CONSISTENT_FAILS_AT})).collect::<Vec<_>>(),
            "within_tolerance": d.within_tolerance.iter().map(ch).collect::<Vec<_>>(),
            "within_noise": d.within_noise.iter().map(ch).collect::<Vec<_>>(),
            "missing": d.missing,
            "added": d.added,
            "inputs_changed": d.inputs_changed.iter().map(|(k, w)| serde_json::json!({"run": k, "why": w})).collect::<Vec<_>>(),
            "latency_shapes_not_compared": d.unreadable_shapes.iter().map(|(r, w)| serde_json::json!({"run": r, "why": w})).collect::<Vec<_>>(),
            "latency_shapes": d.shapes.iter().map(|s| serde_json::json!({"run": s.run, "side": s.side, "ks_distance": (s.ks * 1e4).round() / 1e4, "base_ms": s.base, "new_ms": s.new})).collect::<Vec<_>>(),
            "verdict": if d.regressed() { "regressed" } else { "pass" },
        })
    }

    /// The Markdown comment: verdict, summary, and a folded table per kind.
    pub fn to_markdown(&self) -> String {
        let d = self.diff;
        let mut out = String::new();
        let verdict = if d.regressed() { "❌ regressed" } else { "✅ no regression" };
        let _ = writeln!(out, "**syncbench gate: {verdict}** — {}\n", self.summary());
        let mut table = |title: &str, list: &[&Change], open: bool| {
            if list.is_empty() {
                return;
            }
            let _ = writeln!(
                out,
                "<details{}><summary>{title} ({})</summary>\n",
                if open { " open" } else { "" },
                list.len()
            );
            let _ = writeln!(out, "| metric | base → new | configuration |\n|:--|--:|:--|");
            for c in list {
                let _ = writeln!(out, "| `{}` | {} | {} |", c.metric, self.value(c), c.run);
            }
            let _ = writeln!(out, "\n</details>\n");
        };
        table("Regressed", &self.worse, true);
        table("Worse within the seeds' noise", &d.within_noise.iter().collect::<Vec<_>>(), false);
        table("Worse within tolerance", &d.within_tolerance.iter().collect::<Vec<_>>(), false);
        table("Improved", &self.better, false);
        table("Less traffic, with worse quality (a trade, not an improvement)", &self.traded, false);
        if !d.consistent.is_empty() {
            let _ = writeln!(out, "**Worse in every configuration of an algorithm** (regresses from {CONSISTENT_FAILS_AT} on, however small each move):\n");
            for (a, m, n) in &d.consistent {
                let _ = writeln!(out, "- {a}: `{m}` in all {n}");
            }
            out.push('\n');
        }
        let moved = self.moved();
        if !moved.is_empty() {
            let _ = writeln!(out, "<details><summary>Input-latency distributions that changed shape (Kolmogorov–Smirnov D ≥ {}) ({})</summary>\n", SHAPE_SHOWN_FROM, moved.len());
            let _ = writeln!(out, "| latency | D, and percentiles base → new | configuration |\n|:--|--:|:--|");
            for s in &moved {
                let _ = writeln!(out, "| {} | {} | {} |", s.side, shape_line(s), s.run);
            }
            let _ = writeln!(out, "\n</details>\n");
        }
        for (run, why) in &d.unreadable_shapes {
            let _ = writeln!(out, "Latency shape not compared ({why}): {run}\n");
        }
        for (title, list) in [("Missing from the new report", &d.missing), ("New", &d.added)] {
            if !list.is_empty() {
                let _ = writeln!(out, "<details><summary>{title} ({})</summary>\n", list.len());
                for k in list.iter() {
                    let _ = writeln!(out, "- {k}");
                }
                let _ = writeln!(out, "\n</details>\n");
            }
        }
        out
    }

    /// The text: the summary, then a line per change, shift and run apart.
    pub fn to_text(&self) -> String {
        let d = self.diff;
        let mut out = String::new();
        let _ = writeln!(out, "{}", self.summary());
        for (label, list) in [("WORSE", &self.worse), ("better", &self.better), ("traded", &self.traded)] {
            for c in list.iter() {
                let _ = writeln!(out, "  {label:<6} {:<28} {:>26} {}", c.metric, self.value(c), c.run);
            }
        }
        for (a, m, n) in &d.consistent {
            let fails = if *n >= CONSISTENT_FAILS_AT { "REGRESSED" } else { "noted" };
            let _ = writeln!(out, "  {fails}: {a}'s {m} is worse in every one of its {n} configurations");
        }
        for c in &d.within_noise {
            let _ = writeln!(out, "  noise  {:<28} {:>26} {}", c.metric, self.value(c), c.run);
        }
        for c in &d.within_tolerance {
            let _ = writeln!(out, "  within {:<28} {:>26} {}", c.metric, self.value(c), c.run);
        }
        for s in &self.moved() {
            let _ = writeln!(out, "  shape  {:<28} {} {}", format!("input_latency.{}", s.side), shape_line(s), s.run);
        }
        for (run, why) in &d.unreadable_shapes {
            let _ = writeln!(out, "  shape  not compared ({why}): {run}");
        }
        for (k, why) in &d.inputs_changed {
            let _ = writeln!(out, "  {why}: not compared: {k}");
        }
        for k in &d.missing {
            let _ = writeln!(out, "  MISSING {k}");
        }
        for k in &d.added {
            let _ = writeln!(out, "  new     {k}");
        }
        out
    }
}

/// A moved shape: its distance and the percentiles either side.
fn shape_line(s: &Shape) -> String {
    format!(
        "D = {:.3}  (p50 {:.1} -> {:.1}, p90 {:.1} -> {:.1}, p99 {:.1} -> {:.1} ms)",
        s.ks, s.base.p50, s.new.p50, s.base.p90, s.new.p90, s.base.p99, s.new.p99
    )
}
