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
    use harness::report::diff::{diff, Sorted, Tolerances, WATCHED};
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
    let sorted = Sorted::new(&d, &tol, b.runs.len());
    match format {
        DiffFormat::Junit => print!("{}", harness::report::diff::to_junit(&d, accept_input_changes)),
        DiffFormat::Json => println!("{}", serde_json::to_string_pretty(&sorted.to_json())?),
        DiffFormat::Md => print!("{}", sorted.to_markdown()),
        DiffFormat::Text => print!("{}", sorted.to_text()),
    }
    if !d.inputs_changed.is_empty() && !accept_input_changes {
        return Err(Violation(format!(
            "{} runs ran on a different network or trace under the same name: the gate cannot judge them (regenerate the baseline if the change is meant, or pass --accept-input-changes)",
            d.inputs_changed.len()
        ))
        .into());
    }
    match sorted.failure() {
        Some(why) => Err(Violation(why.into()).into()),
        None => Ok(()),
    }
}
