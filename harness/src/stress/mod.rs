//! An adversarial link campaign: generated links ([`links`]) — delay
//! spikes and bufferbloat ramps, multi-second outages with and without
//! loss, delay that moves in runs, satellite and 2G/3G delays, long loss
//! bursts, duplication, reordering — run against an algorithm long enough
//! to see it recover, with invariants checked on what the harness measured
//! (never on what the algorithm says of itself):
//!
//! - **accounting**: every input change a screen showed the player for is
//!   shown, or in flight at the end: at most [`UNSHOWN_PCT`] never shown;
//! - **violations**: the run reports none (a harness limit reported as an
//!   algorithm's violation fails here too);
//! - **real time**: a game that names its frames (peer-to-peer and relay)
//!   ends no more than a round trip of the undisturbed link and
//!   [`LAG_AT_END_MS`] behind the schedule (a lockstep game runs a round
//!   trip behind by design; one that falls further behind does not keep
//!   the clock);
//! - **recovery**: once a disturbed link is back to its earlier state, the
//!   divergence of the run's last quarter is within twice that before the
//!   disturbance and [`RECOVERY_SLACK_M`];
//! - **stationarity**: on a link that is the same throughout, the events
//!   behind the per-minute rates (inputs dropped, late and repeated, snaps)
//!   fall alike in the run's two halves: a run half as long (the same
//!   seed: the first half) against the whole. They fail when the halves'
//!   counts are implausible for one rate (two-sided binomial test,
//!   p < [`STATIONARITY_P`]) *and* the rates differ by more than
//!   [`RATE_SLACK_PER_MIN`] a client-minute — a fixed count early in the
//!   run, not the noise of a few events;
//! - **bounds**: no remote input change is shown sooner than the link's
//!   least delay along its path allows.
//!
//! A failing link is shrunk (its disturbance halved while the same
//! invariant still fails) and written as a profile that `syncbench run`
//! replays.

pub mod known;
pub mod links;

use crate::contract::{Algorithm, Topology};
use crate::metrics::Metrics;
use crate::net::Profile;
use crate::runner::{run, RunConfig};
use crate::trace::TraceSpec;
use links::{Family, Link};
use std::path::{Path, PathBuf};

/// The most input changes that may go unshown, %.
pub const UNSHOWN_PCT: f64 = 1.0;

/// How far behind the schedule a game may end beyond a round trip of the
/// undisturbed link, ms.
pub const LAG_AT_END_MS: f64 = 500.0;

/// What recovery allows above twice the divergence before the disturbance, m.
pub const RECOVERY_SLACK_M: f64 = 0.25;

/// How far the rates of a run's two halves may differ, per client-minute,
/// whatever the test says (a difference too small to matter).
pub const RATE_SLACK_PER_MIN: f64 = 1.0;

/// How unlikely the split of events between a run's halves must be under
/// one steady rate to count as a change of rate.
pub const STATIONARITY_P: f64 = 0.001;

/// The two-sided p-value of `k` of `n` events falling in the first of two
/// equal halves, under one rate for both (binomial, p = ½).
pub fn halves_p(k: u64, n: u64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    // ln C(n, i) − n ln 2, summed over the tail as far from n/2 as k.
    let ln_fact = |m: u64| (1..=m).map(|x| (x as f64).ln()).sum::<f64>();
    let ln_n = ln_fact(n);
    let pmf = |i: u64| (ln_n - ln_fact(i) - ln_fact(n - i) - n as f64 * std::f64::consts::LN_2).exp();
    let far = (2 * k).abs_diff(n);
    let p: f64 = (0..=n).filter(|&i| (2 * i).abs_diff(n) >= far).map(pmf).sum();
    p.min(1.0)
}

/// An invariant the campaign checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Invariant {
    /// Every change shown, or in flight at the end.
    Accounting,
    /// No violation reported.
    Violations,
    /// The game keeps the schedule.
    RealTime,
    /// Back to the earlier state after a disturbance.
    Recovery,
    /// Rates that do not depend on run length.
    Stationarity,
    /// Nothing shown sooner than the link allows.
    Bounds,
}

impl Invariant {
    /// Every invariant, in report order.
    pub const ALL: [Invariant; 6] = [
        Invariant::Accounting,
        Invariant::Violations,
        Invariant::RealTime,
        Invariant::Recovery,
        Invariant::Stationarity,
        Invariant::Bounds,
    ];

    /// Its name in reports and files.
    pub fn name(self) -> &'static str {
        match self {
            Invariant::Accounting => "accounting",
            Invariant::Violations => "violations",
            Invariant::RealTime => "real-time",
            Invariant::Recovery => "recovery",
            Invariant::Stationarity => "stationarity",
            Invariant::Bounds => "bounds",
        }
    }
}

/// What a campaign runs.
#[derive(Clone, Debug)]
pub struct Campaign {
    /// Seed of the links and the runs.
    pub seed: u64,
    /// Links generated per family.
    pub links: u64,
    /// The families.
    pub families: Vec<Family>,
    /// Each run's length, µs.
    pub duration_us: u64,
    /// Players.
    pub clients: usize,
    /// Where links are written (a folder the campaign owns).
    pub work: PathBuf,
}

/// One invariant on one link: `None` held, `Some(why)` failed.
#[derive(Clone, Debug)]
pub struct Check {
    /// The invariant.
    pub invariant: Invariant,
    /// Why it failed, with what was measured.
    pub failure: Option<String>,
}

/// An algorithm on one link.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The link.
    pub link: Link,
    /// The invariants that apply, each held or failed; `Err` when the run
    /// itself failed.
    pub checks: Result<Vec<Check>, String>,
}

/// What a campaign found, after its table: the failures a known property
/// explains, then the others, a line each (Markdown list items with
/// `markdown`).
pub fn findings(expected: &[String], failures: &[String], markdown: bool) -> String {
    let mut out = String::new();
    let item = if markdown { "- " } else { "  " };
    if !expected.is_empty() {
        out += &format!("Known properties ({}):{}\n", expected.len(), if markdown { "\n" } else { "" });
        for f in expected {
            out += &format!("{item}{f}\n");
        }
    }
    if !failures.is_empty() {
        out += &format!(
            "{}Failures ({}):{}\n",
            if markdown && !expected.is_empty() { "\n" } else { "" },
            failures.len(),
            if markdown { "\n" } else { "" }
        );
    }
    for f in failures {
        out += &format!("{item}{f}\n");
    }
    out
}

/// Every link of the campaign, in order.
pub fn links_of(c: &Campaign) -> Vec<Link> {
    c.families
        .iter()
        .flat_map(|&f| (0..c.links).map(move |i| (f, i)))
        .map(|(f, i)| Link::generate(f, c.seed, i, c.duration_us, 1.0))
        .collect()
}

/// Writes `link` into `dir` as a profile (`NAME.toml`, and `NAME.csv` for a
/// recording, which every node reads from its start) and returns the
/// profile's path; `description` heads it.
pub fn write_link(link: &Link, dir: &Path, description: &str) -> Result<PathBuf, String> {
    let name = link.name();
    let toml_path = dir.join(format!("{name}.toml"));
    let describe = |s: &str| s.replace('\\', "\\\\").replace('"', "\\\"");
    let body = match link.recording() {
        Some(csv) => {
            let csv_path = dir.join(format!("{name}.csv"));
            std::fs::write(&csv_path, csv).map_err(|e| format!("{}: {e}", csv_path.display()))?;
            format!(
                "description = \"{}\"\nsource = \"generated by syncbench stress\"\nuplink = \"\"\ndownlink = \"\"\n\n[replay]\nsamples = \"{name}.csv\"\nstart = \"aligned\"\n",
                describe(description)
            )
        }
        None => {
            let line = link.profile_arg(Path::new(""));
            format!(
                "description = \"{}\"\nsource = \"generated by syncbench stress\"\nuplink = \"{line}\"\ndownlink = \"{line}\"\n",
                describe(description)
            )
        }
    };
    std::fs::write(&toml_path, body).map_err(|e| format!("{}: {e}", toml_path.display()))?;
    Ok(toml_path)
}

/// Where [`write_link`] puts `link` in the campaign's folder.
pub fn link_path(link: &Link, c: &Campaign) -> PathBuf {
    c.work.join(format!("{}.toml", link.name()))
}

/// Runs `algo` on `link` (written at [`link_path`]) for `duration_us` and
/// returns its metrics.
fn measure(algo: &dyn Algorithm, link: &Link, c: &Campaign, duration_us: u64) -> Result<Metrics, String> {
    let path = link_path(link, c);
    let profile = Profile::resolve(&path.display().to_string(), &[]).map_err(|e| e.to_string())?;
    let cfg = RunConfig { clients: c.clients, duration_us, seed: c.seed, ..RunConfig::default() };
    let trace = TraceSpec::resolve("random-walk", &crate::library::dirs("traces"))
        .and_then(|t| t.instantiate(cfg.clients, cfg.duration_us, cfg.seed))
        .map_err(|e| e.to_string())?;
    run(algo, &profile, &trace, &cfg).map(|r| r.metrics).map_err(|e| e.to_string())
}

/// The mean of `v` over seconds `from..to` (clamped), `None` if empty.
fn mean_over(v: &[f64], from: usize, to: usize) -> Option<f64> {
    let s = v.get(from.min(v.len())..to.min(v.len()))?;
    (!s.is_empty()).then(|| s.iter().sum::<f64>() / s.len() as f64)
}

/// Checks the invariants that apply to `algo` on `link`, written by
/// [`write_link`] into the campaign's folder first.
pub fn check(algo: &dyn Algorithm, link: &Link, c: &Campaign) -> Outcome {
    let checks = (|| {
        let m = measure(algo, link, c, c.duration_us)?;
        let mut out = Vec::new();
        let mut put = |invariant, failure: Option<String>| out.push(Check { invariant, failure });
        let u = &m.input_changes_unshown_pct;
        put(
            Invariant::Accounting,
            (u.own > UNSHOWN_PCT || u.remote > UNSHOWN_PCT).then(|| {
                format!(
                    "never shown: own {:.2}%, remote {:.2}% (in flight at the end: own {:.2}%, remote {:.2}%)",
                    u.own, u.remote, m.input_changes_in_flight_pct.own, m.input_changes_in_flight_pct.remote
                )
            }),
        );
        put(
            Invariant::Violations,
            m.violations.first().map(|v| format!("{} violations, the first: {v}", m.violations.len())),
        );
        if let Some(lag) = &m.lag_ms {
            let bound = LAG_AT_END_MS + 2.0 * link.base_delay_ms;
            put(
                Invariant::RealTime,
                (lag.at_end_ms > bound).then(|| {
                    format!(
                        "{:.0} ms behind the schedule at the end, over {bound:.0} ms (mean {:.0} ms)",
                        lag.at_end_ms, lag.behind_ms.mean
                    )
                }),
            );
        }
        if let (Some(start), Some(_)) = (link.disturbed_us, link.settled_us) {
            let secs = (c.duration_us / 1_000_000) as usize;
            let before = (start / 1_000_000) as usize;
            let tl = &m.timeline;
            let worst = [(&tl.own_divergence_m, "own"), (&tl.remote_divergence_m, "remote")].into_iter().find_map(
                |(v, side)| {
                    let (b, a) = (mean_over(v, 1, before)?, mean_over(v, secs - secs / 4, secs)?);
                    (a > 2.0 * b + RECOVERY_SLACK_M).then(|| {
                        format!(
                            "{side} divergence {a:.3} m in the last quarter against {b:.3} m before the disturbance"
                        )
                    })
                },
            );
            put(Invariant::Recovery, worst);
        } else {
            let half = measure(algo, link, c, c.duration_us / 2)?;
            let counts = |m: &Metrics| {
                [
                    ("inputs dropped", m.input_fidelity.dropped),
                    ("inputs late", m.input_fidelity.late),
                    ("inputs repeated", m.input_fidelity.repeated),
                    ("snaps", m.snaps.events),
                ]
            };
            let per_min = |n: u64, us: u64| n as f64 / c.clients as f64 / (us as f64 / 60e6);
            let half_us = c.duration_us / 2;
            let moved = counts(&m).into_iter().zip(counts(&half)).find_map(|((what, all), (_, first))| {
                let first = first.min(all);
                let (r1, r2) = (per_min(first, half_us), per_min(all - first, c.duration_us - half_us));
                let p = halves_p(first, all);
                ((r1 - r2).abs() > RATE_SLACK_PER_MIN && p < STATIONARITY_P).then(|| {
                    format!(
                        "{what} {r1:.2} a client-minute in the first {:.0} s, {r2:.2} in the rest ({first} of {all} events in the first half: p = {p:.1e})",
                        half_us as f64 / 1e6
                    )
                })
            });
            put(Invariant::Stationarity, moved);
        }
        // A remote change crosses the link once between peers, twice
        // through a server or relay.
        let hops = if algo.topology() == Topology::PeerToPeer { 1.0 } else { 2.0 };
        let least = hops * link.min_delay_ms - 1.0;
        let first = m.latency_cdf_ms.remote.first().map(|q| q[1]);
        put(
            Invariant::Bounds,
            first
                .filter(|&f| f < least)
                .map(|f| format!("a remote change shown after {f:.1} ms, under the link's least {least:.1} ms")),
        );
        Ok(out)
    })();
    Outcome { link: link.clone(), checks }
}

/// The smallest scale of `link`'s disturbance (halving it, at most
/// `steps` times) at which `invariant` still fails for `algo`, and why.
pub fn shrink(algo: &dyn Algorithm, link: &Link, invariant: Invariant, c: &Campaign, steps: u32) -> (Link, String) {
    let why_of = |l: &Link| {
        check(algo, l, c).checks.ok()?.into_iter().find(|k| k.invariant == invariant).and_then(|k| k.failure)
    };
    let mut best = (link.clone(), why_of(link).unwrap_or_default());
    let mut scale = link.scale;
    for _ in 0..steps {
        scale /= 2.0;
        let smaller = Link::generate(link.family, c.seed, link.index, c.duration_us, scale);
        if write_link(&smaller, &c.work, &smaller.summary).is_err() {
            break;
        }
        match why_of(&smaller) {
            Some(why) => best = (smaller, why),
            None => break,
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_halves_test_tells_a_fixed_early_count_from_noise() {
        // 0 of 3 events early: plausible for one rate.
        assert!((halves_p(0, 3) - 0.25).abs() < 1e-9);
        assert!((halves_p(5, 10) - 1.0).abs() < 1e-9);
        // 79 of 79 early (drops that stop once a buffer has learned).
        assert!(halves_p(79, 79) < 1e-20);
        // Symmetric.
        assert!((halves_p(2, 12) - halves_p(10, 12)).abs() < 1e-12);
        assert_eq!(halves_p(0, 0), 1.0);
    }
}
