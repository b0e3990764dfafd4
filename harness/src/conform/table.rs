//! The conformance table `syncbench conform` prints: a row per algorithm
//! (and negative control), a column per contract, each cell pass, n/a,
//! FAIL or, for a control, caught; the scenario files written; and the
//! failures the command exits with.

use super::{contracts, junit, Verdict};
use std::fmt::Write;

/// One cell of the conformance table.
pub struct Row {
    /// Algorithm name (`control:NAME` for a negative control).
    pub algorithm: String,
    /// Contract name.
    pub contract: &'static str,
    /// `None`: pass (or, for a control, caught); `Ok`: not applicable; `Err`: failed.
    pub outcome: Option<Result<String, String>>,
    /// Scenario file written for a failure (or a control's catch).
    pub file: Option<String>,
    /// Cases run.
    pub cases: u64,
    /// Wall time the contract took, s (for JUnit only).
    pub seconds: f64,
}

impl Row {
    /// The row as JUnit takes it.
    pub fn junit(&self, seed: u64) -> junit::Row<'_> {
        junit::Row {
            algorithm: &self.algorithm,
            contract: self.contract,
            outcome: self.outcome.clone(),
            scenario: self.file.clone(),
            cases: self.cases,
            seconds: self.seconds,
            seed,
        }
    }
}

/// An algorithm's outcome from its verdict: a pass passes, a failure fails.
pub fn outcome(v: &Verdict) -> Option<Result<String, String>> {
    match v {
        Verdict::Pass => None,
        Verdict::NotApplicable(why) => Some(Ok(why.clone())),
        Verdict::Fail(why) => Some(Err(why.clone())),
    }
}

/// A negative control's outcome from its verdict: a failure is the catch
/// it was built for (the control "passes"); anything else fails.
pub fn control_outcome(v: &Verdict) -> Option<Result<String, String>> {
    match v {
        Verdict::Fail(_) => None,
        other => Some(Err(format!("not caught: {other:?}"))),
    }
}

/// What failed, a line each, in row order.
pub fn failures(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter_map(|r| match &r.outcome {
            Some(Err(why)) => Some(match r.algorithm.strip_prefix("control:") {
                Some(control) => format!("negative control {control} was not caught by {}", r.contract),
                None => format!("{} broke {}: {why}", r.algorithm, r.contract),
            }),
            _ => None,
        })
        .collect()
}

/// The table (algorithm × contract), the line saying how it was run, and
/// the scenario files written.
pub fn render(rows: &[Row], cases: u64, seed: u64, controls: bool) -> String {
    let mut out = String::new();
    let names: Vec<&str> = contracts::all().iter().map(|c| c.name).collect();
    let mut algos_seen: Vec<&str> = Vec::new();
    for r in rows {
        if !algos_seen.contains(&r.algorithm.as_str()) {
            algos_seen.push(&r.algorithm);
        }
    }
    let width = algos_seen.iter().map(|s| s.len()).max().unwrap_or(10).max(9);
    let _ = write!(out, "{:<width$}", "algorithm");
    for n in &names {
        let _ = write!(out, "  {n:>w$}", w = n.len().max(6));
    }
    out.push('\n');
    for alg in &algos_seen {
        let _ = write!(out, "{alg:<width$}");
        for n in &names {
            let cell = match rows.iter().find(|r| r.algorithm == *alg && r.contract == *n).map(|r| &r.outcome) {
                None => "",
                Some(None) if alg.starts_with("control:") => "caught",
                Some(None) => "pass",
                Some(Some(Ok(_))) => "n/a",
                Some(Some(Err(_))) => "FAIL",
            };
            let _ = write!(out, "  {cell:>w$}", w = n.len().max(6));
        }
        out.push('\n');
    }
    let caught = if controls { "; \"caught\": the control broke the contract it was built to break" } else { "" };
    let _ = writeln!(out, "({cases} cases per contract, seed {seed}{caught})");
    for r in rows {
        if let Some(file) = &r.file {
            let _ = writeln!(out, "  {} / {}: scenario written to {file}", r.algorithm, r.contract);
        }
    }
    out
}
