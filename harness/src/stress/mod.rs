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
//!   is, over the run's last quarter, on average no more than a round trip
//!   of the undisturbed link and [`LAG_MS`] behind the schedule (a lockstep
//!   game runs a round trip behind by design; one that falls further
//!   behind does not keep the clock). The last quarter, not the last
//!   render: one loss burst in the final second leaves a game that keeps
//!   the clock behind for an instant;
//! - **recovery**: once a disturbed link is back to its earlier state, the
//!   divergence of the run's last quarter is within twice that before the
//!   disturbance and [`RECOVERY_SLACK_M`];
//! - **stationarity**: on a link that is the same throughout, the events
//!   behind the per-minute rates (inputs never run, inputs repeated,
//!   snaps) fall alike in two spans after the warm-ups the rates leave out
//!   ([`crate::metrics::WARMUP_US`] after the last client connected): the
//!   run lasts the warm-up and twice the campaign's duration, and the
//!   spans are its two halves after the warm-up — a run of the campaign's
//!   length against one twice as long. They fail when the halves' counts
//!   per second are implausible for one mean (Welch's test on seconds,
//!   not events, so a loss burst's cluster is one sample:
//!   p < [`STATIONARITY_P`]) *and* the rates differ by more than
//!   [`RATE_SLACK_PER_MIN`] a client-minute;
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

/// How far behind the schedule a game may be over the last quarter of a
/// run, on average, beyond a round trip of the undisturbed link, ms.
pub const LAG_MS: f64 = 500.0;

/// What recovery allows above twice the divergence before the disturbance, m.
pub const RECOVERY_SLACK_M: f64 = 0.25;

/// How far the rates of a run's two halves may differ, per client-minute,
/// whatever the test says (a difference too small to matter).
pub const RATE_SLACK_PER_MIN: f64 = 1.0;

/// How unlikely the split of events between a run's halves must be under
/// one steady rate to count as a change of rate.
pub const STATIONARITY_P: f64 = 0.001;

/// The two-sided p-value of Welch's test that per-second counts `a` and
/// `b` have one mean (the t statistic against the normal distribution:
/// the spans hold tens of seconds). Counts per second, not events, are
/// the samples, so a burst's cluster of events weighs as one second and
/// its spread shows in the variance.
pub fn welch_p(a: &[u32], b: &[u32]) -> f64 {
    let moments = |v: &[u32]| {
        let n = v.len().max(1) as f64;
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        (mean, var / n)
    };
    let ((ma, va), (mb, vb)) = (moments(a), moments(b));
    if ma == mb {
        return 1.0;
    }
    if va + vb == 0.0 {
        return 0.0; // two constant, different counts
    }
    let z = (ma - mb).abs() / (va + vb).sqrt();
    erfc(z / std::f64::consts::SQRT_2).min(1.0)
}

/// The complementary error function (Abramowitz and Stegun 7.1.26, error
/// under 1.5e-7).
fn erfc(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let e = poly * (-x * x).exp();
    if x >= 0.0 {
        e
    } else {
        2.0 - e
    }
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

/// Whether the rates of `m` (a run of `duration_us` on a link the same
/// throughout) hold alike in the two halves after its warm-ups; why not.
fn stationarity(m: &Metrics, clients: usize, duration_us: u64) -> Option<String> {
    // A client that never connected warms up as one connected at the start.
    let last = m.per_client.iter().map(|p| p.connected_ms.unwrap_or(0.0)).fold(0.0, f64::max);
    let from = ((last * 1e3) as u64 + crate::metrics::WARMUP_US).div_ceil(1_000_000) as usize;
    let to = (duration_us / 1_000_000) as usize;
    let half = (to.saturating_sub(from)) / 2;
    if half == 0 {
        return Some(format!("connected only {:.1} s into a {} s run", last / 1e3, to));
    }
    let tl = &m.timeline;
    let series =
        [("inputs never run", &tl.inputs_unrun), ("inputs repeated", &tl.inputs_repeated), ("snaps", &tl.snaps)];
    let per_min = |n: u64| n as f64 / clients as f64 / (half as f64 / 60.0);
    series.into_iter().find_map(|(what, v)| {
        let span = |k: std::ops::Range<usize>| k.map(|i| v.get(i).copied().unwrap_or(0)).collect::<Vec<u32>>();
        let (a, b) = (span(from..from + half), span(from + half..from + 2 * half));
        let sum = |x: &[u32]| x.iter().map(|&n| n as u64).sum::<u64>();
        let (r1, r2) = (per_min(sum(&a)), per_min(sum(&b)));
        let p = welch_p(&a, &b);
        ((r1 - r2).abs() > RATE_SLACK_PER_MIN && p < STATIONARITY_P).then(|| {
            format!(
                "{what} {r1:.2} a client-minute in {from}–{} s, {r2:.2} in {}–{} s (per-second counts: p = {p:.1e})",
                from + half,
                from + half,
                from + 2 * half
            )
        })
    })
}

/// Checks the invariants that apply to `algo` on `link`, written by
/// [`write_link`] into the campaign's folder first.
pub fn check(algo: &dyn Algorithm, link: &Link, c: &Campaign) -> Outcome {
    let checks = (|| {
        // A link the same throughout runs on past the warm-ups for twice
        // the campaign's duration (see the stationarity invariant).
        let duration_us = match link.disturbed_us {
            Some(_) => c.duration_us,
            None => crate::metrics::WARMUP_US + 2 * c.duration_us,
        };
        let m = measure(algo, link, c, duration_us)?;
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
            let bound = LAG_MS + 2.0 * link.base_delay_ms;
            let secs = duration_us.div_ceil(1_000_000) as usize;
            let named = m.timeline.lag_ms.iter().take(secs).skip(secs - secs / 4).flatten();
            let (sum, n) = named.fold((0.0, 0), |(s, n), l| (s + l, n + 1));
            let last = if n > 0 { sum / n as f64 } else { lag.at_end_ms };
            put(
                Invariant::RealTime,
                (last > bound).then(|| {
                    format!(
                        "{last:.0} ms behind the schedule over the last quarter, over {bound:.0} ms (at the end {:.0} ms, over the run {:.0} ms)",
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
            put(Invariant::Stationarity, stationarity(&m, c.clients, duration_us));
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
    fn the_welch_test_tells_a_fixed_early_count_from_clustered_noise() {
        // 70 events spread over the first half's 30 seconds, none after:
        // a fixed early count.
        let early: Vec<u32> = (0..30).map(|k| 2 + (k % 3 == 0) as u32).collect();
        assert!(welch_p(&early, &[0; 30]) < 1e-9);
        // The same 20-event burst in each half, in different seconds:
        // one rate.
        let mut a = [0u32; 30];
        let mut b = [0u32; 30];
        a[3] = 20;
        b[17] = 20;
        assert!((welch_p(&a, &b) - 1.0).abs() < 1e-12);
        // Two bursts against one: 40 events against 20, yet plausible for
        // one rate of bursts.
        a[20] = 20;
        assert!(welch_p(&a, &b) > 0.3, "{}", welch_p(&a, &b));
        // Symmetric, and the normal tail at a known point: z = 1.96.
        assert_eq!(welch_p(&a, &b), welch_p(&b, &a));
        assert!((erfc(1.96 / std::f64::consts::SQRT_2) - 0.05).abs() < 1e-4);
        assert_eq!(welch_p(&[0; 5], &[0; 5]), 1.0);
    }
}
