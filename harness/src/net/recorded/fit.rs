//! Fitting a netem description to a delay recording: the parametric
//! profile closest to a real link, and how close it is.
//!
//! **Delay.** For each of netem's distributions, netem's delay is `D + J·T`
//! with `T` the distribution's standard shape (uniform on ±1, or its table
//! scaled by 8,192), clamped at 0. `D` and `J` are fitted by least squares
//! between the recording's quantiles and the model's on a grid of
//! [`GRID`] probabilities, and the distance reported is the 1-Wasserstein
//! distance between the two distributions (the mean absolute gap between
//! their quantile functions, in ms): the expected amount a packet's delay
//! would have to move to turn one distribution into the other. The
//! distribution with the smallest distance wins.
//!
//! **Loss.** A two-state Gilbert model (`loss gemodel p r`: every packet
//! in the bad state lost) from the recording's run lengths: `p` = the share
//! of received probes followed by a lost one, `r` = the share of lost
//! probes followed by a received one. Both are per probe; a game sends at
//! its own packet interval, so they are rescaled to keep each state's mean
//! duration in time (`Δ/p` in the good state, `Δ/r` in the bad):
//! `p' = p·δ/Δ`, `r' = r·δ/Δ` (at most 1) for a packet interval `δ` and a
//! probe spacing `Δ`, which keeps the long-run loss `p/(p + r)`. Losses
//! that never last past one packet (`r'` = 1) give plain `loss p`.
//!
//! **Delivery-opportunity traces** (Mahimahi pairs) record no delays: a
//! packet's delay is its wait for an opportunity in the replay's queue.
//! Such a direction is fitted from probes sent through the queue at the
//! game's packet rate over the trace's length ([`ProfileFit::new`]); the
//! traces carry no propagation delay, which a profile's own `delay` adds.
//!
//! What netem cannot say is reported, not hidden: a recording's delays are
//! correlated in time (lag-1 autocorrelation) and arrive in order, where
//! netem's jitter draws each packet's delay afresh and reorders packets
//! sent closer together than the jitter.

use super::regimes::{Quantity, RegimeModel, BIN_MS};
use super::replay::{Order, QueueLimit, Replay};
use super::time_structure::Structure;
use super::{Delays, Opportunities};
use crate::error::Source;
use crate::math::{nearest_rank, pearson, round4};
use crate::net::dist::{Distribution, DIST_SCALE, TABLE_SIZE};
use crate::net::link::Link;
use crate::net::link_probe::{probe, probe_delays, probe_stream};
use crate::net::netem::{LossModel, Netem, Prob};
use crate::net::profile::Profile;
use std::fmt::Write;
use std::sync::Arc;

/// Probabilities on which quantile functions are compared.
pub const GRID: usize = 1000;

/// A fit farther from its recording (1-Wasserstein) than this share of
/// the recording's own spread is flagged poor: no netem line describes
/// the link, and the recording itself should be replayed.
pub const POOR_FIT_SHARE: f64 = 0.2;

/// One distribution's best fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The distribution.
    pub distribution: Distribution,
    /// Base delay, µs.
    pub delay_us: u64,
    /// Jitter, µs.
    pub jitter_us: u64,
    /// 1-Wasserstein distance to the recording, ms.
    pub w1_ms: f64,
}

/// Loss bursts: runs of consecutive lost packets.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bursts {
    /// Long-run share lost.
    pub loss: f64,
    /// Number of bursts (recorded; 0 for a model).
    pub count: u64,
    /// Mean burst length, ms.
    pub mean_ms: f64,
    /// Longest burst, ms (recorded only).
    pub max_ms: f64,
}

/// The fit of one direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Fit {
    /// Every distribution's fit, best first.
    pub candidates: Vec<Candidate>,
    /// The fitted description: the best candidate and the loss model.
    pub netem: Netem,
    /// The recording's loss bursts, at its probe spacing.
    pub recorded: Bursts,
    /// The fitted model's, at the packet interval.
    pub fitted: Bursts,
    /// The recording's probe spacing (median), µs.
    pub spacing_us: u64,
    /// Lag-1 autocorrelation of the recorded delays (netem's fit has 0).
    pub autocorrelation: f64,
    /// The recording's spread, ms: the mean distance of its delays from
    /// their median (the 1-Wasserstein distance of the best constant).
    pub spread_ms: f64,
}

impl Fit {
    /// Whether the best candidate is farther from the recording than
    /// [`POOR_FIT_SHARE`] of its spread.
    pub fn poor(&self) -> bool {
        self.candidates[0].w1_ms > POOR_FIT_SHARE * self.spread_ms
    }
}

/// Fits `delays` for packets sent every `packet_interval_us`. `None` if
/// the recording has no received sample.
pub fn fit(delays: &Delays, packet_interval_us: u64) -> Option<Fit> {
    let samples: Vec<(u64, Option<u32>)> = delays.iter().collect();
    let mut got: Vec<f64> = samples.iter().filter_map(|(_, d)| d.map(|us| us as f64 / 1000.0)).collect();
    if got.is_empty() {
        return None;
    }
    let autocorrelation = lag1(&samples);
    got.sort_by(|a, b| a.total_cmp(b));
    let median = nearest_rank(&got, 0.5);
    let spread_ms = got.iter().map(|d| (d - median).abs()).sum::<f64>() / got.len() as f64;
    let grid: Vec<f64> = (0..GRID).map(|i| (i as f64 + 0.5) / GRID as f64).collect();
    let x: Vec<f64> = grid.iter().map(|&u| nearest_rank(&got, u)).collect();
    let mut candidates: Vec<Candidate> =
        [Distribution::Uniform, Distribution::Normal, Distribution::Pareto, Distribution::ParetoNormal]
            .into_iter()
            .map(|d| {
                let q: Vec<f64> = grid.iter().map(|&u| shape_quantile(d, u)).collect();
                let (delay_ms, jitter_ms) = least_squares(&x, &q);
                let (delay_us, jitter_us) = ((delay_ms * 1e3).round() as u64, (jitter_ms * 1e3).round() as u64);
                let (dm, jm) = (delay_us as f64 / 1e3, jitter_us as f64 / 1e3);
                let w1_ms =
                    x.iter().zip(&q).map(|(xi, qi)| (xi - (dm + jm * qi).max(0.0)).abs()).sum::<f64>() / GRID as f64;
                Candidate { distribution: d, delay_us, jitter_us, w1_ms }
            })
            .collect();
    candidates.sort_by(|a, b| a.w1_ms.total_cmp(&b.w1_ms));
    let spacing_us = super::median_spacing(samples.iter().map(|s| s.0)).unwrap_or(10_000);
    let recorded = recorded_bursts(&samples, spacing_us);
    let (loss, fitted) = fit_loss(&samples, spacing_us, packet_interval_us);
    let best = &candidates[0];
    let netem = Netem {
        delay_us: best.delay_us,
        jitter_us: best.jitter_us,
        distribution: if best.jitter_us > 0 { best.distribution } else { Distribution::Uniform },
        loss,
        ..Netem::clean()
    };
    Some(Fit { candidates, netem, recorded, fitted, spacing_us, autocorrelation, spread_ms })
}

/// The `u` quantile of distribution `d`'s standard shape `T`.
fn shape_quantile(d: Distribution, u: f64) -> f64 {
    match d.table() {
        None => 2.0 * u - 1.0,
        Some(table) => {
            // The table is an inverse CDF over its 4,096 entries.
            let mut sorted: Vec<i16> = table.to_vec();
            sorted.sort_unstable();
            sorted[((u * TABLE_SIZE as f64) as usize).min(TABLE_SIZE - 1)] as f64 / DIST_SCALE as f64
        }
    }
}

/// `(D, J)` minimising Σ (x − D − J·q)², with `J` ≥ 0 and `D` ≥ 0.
fn least_squares(x: &[f64], q: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let (mx, mq) = (x.iter().sum::<f64>() / n, q.iter().sum::<f64>() / n);
    let cov: f64 = x.iter().zip(q).map(|(a, b)| (a - mx) * (b - mq)).sum();
    let var: f64 = q.iter().map(|b| (b - mq).powi(2)).sum();
    let j = if var > 0.0 { (cov / var).max(0.0) } else { 0.0 };
    ((mx - j * mq).max(0.0), j)
}

fn lag1(samples: &[(u64, Option<u32>)]) -> f64 {
    let pairs: Vec<(f64, f64)> = samples.windows(2).filter_map(|w| Some((w[0].1? as f64, w[1].1? as f64))).collect();
    pearson(&pairs).unwrap_or(0.0)
}

fn recorded_bursts(samples: &[(u64, Option<u32>)], spacing_us: u64) -> Bursts {
    let mut runs: Vec<u64> = Vec::new();
    let mut run = 0u64;
    for (_, d) in samples {
        if d.is_none() {
            run += 1;
        } else if run > 0 {
            runs.push(run);
            run = 0;
        }
    }
    if run > 0 {
        runs.push(run);
    }
    let lost: u64 = runs.iter().sum();
    let ms = spacing_us as f64 / 1000.0;
    Bursts {
        loss: lost as f64 / samples.len().max(1) as f64,
        count: runs.len() as u64,
        mean_ms: if runs.is_empty() { 0.0 } else { lost as f64 / runs.len() as f64 * ms },
        max_ms: runs.iter().max().copied().unwrap_or(0) as f64 * ms,
    }
}

/// The loss model and what it implies at the packet interval.
fn fit_loss(samples: &[(u64, Option<u32>)], spacing_us: u64, packet_us: u64) -> (LossModel, Bursts) {
    let (mut good, mut bad, mut to_bad, mut to_good) = (0u64, 0u64, 0u64, 0u64);
    for w in samples.windows(2) {
        match (w[0].1.is_some(), w[1].1.is_some()) {
            (true, true) => good += 1,
            (true, false) => {
                good += 1;
                to_bad += 1;
            }
            (false, true) => {
                bad += 1;
                to_good += 1;
            }
            (false, false) => bad += 1,
        }
    }
    if to_bad == 0 || bad == 0 {
        return (LossModel::Random { p: Prob::NEVER, corr: Prob::NEVER }, Bursts::default());
    }
    let (p, r) = (to_bad as f64 / good.max(1) as f64, to_good as f64 / bad as f64);
    // Each state's mean dwell time (spacing / its leaving probability) is
    // kept in time, so the long-run loss is kept too.
    let scale = packet_us as f64 / spacing_us as f64;
    let (mut p2, mut r2) = (p * scale, r * scale);
    if r2 > 1.0 {
        // A loss cannot last less than a packet: r' stops at 1, and p'
        // shrinks with it so that the long-run loss p/(p + r) stays.
        p2 *= 1.0 / r2;
        r2 = 1.0;
    }
    let (p, r) = (p2.min(1.0), r2);
    let fitted = Bursts {
        loss: p / (p + r),
        count: 0,
        mean_ms: if r > 0.0 { packet_us as f64 / 1000.0 / r } else { f64::INFINITY },
        max_ms: 0.0,
    };
    let model = if r >= 1.0 - 1e-9 {
        LossModel::Random { p: Prob::from_percent(p * 100.0), corr: Prob::NEVER }
    } else {
        LossModel::GilbertElliott {
            p: Prob::from_percent(p * 100.0),
            r: Prob::from_percent(r * 100.0),
            bad_loss: Prob::ALWAYS,
            good_loss: Prob::NEVER,
        }
    };
    (model, fitted)
}

/// `profile fit`'s result: each direction that replays a delay recording
/// fitted (the profile's own netem extras kept where they still apply),
/// the profile's two directions as fitted, and notes on what was kept or
/// replaced.
pub struct ProfileFit<'p> {
    /// The profile.
    pub profile: &'p Profile,
    /// Packets per second the fit is for.
    pub packet_hz: u32,
    /// Uplink and downlink as fitted (a direction without a recording keeps its own).
    pub netem: [Netem; 2],
    /// Per fitted direction: its name, its fit and the fit's reorder share.
    pub directions: Vec<(&'static str, Fit, f64)>,
    /// What was kept or replaced, a line each.
    pub notes: Vec<String>,
    /// Per fitted direction (as `directions`): its regime model and the
    /// time structure the fits are judged on.
    pub models: Vec<Modelled>,
    /// Per direction, the delays probed through a delivery-opportunity
    /// trace (a Mahimahi pair), when that is what was fitted.
    probed: [Option<Delays>; 2],
}

/// A direction's regime model ([`super::regimes`]) beside its netem fit,
/// and how each meets the time structure of the recording.
#[derive(Clone, Debug)]
pub struct Modelled {
    /// The regime model.
    pub model: RegimeModel,
    /// The recording, the netem fit and the regime model, each as probes
    /// sent at the packet interval meet it (the profile's own netem
    /// extras left out of all three).
    pub structure: [Structure; 3],
}

/// An autocorrelation gap above this is a time structure netem cannot
/// describe, said in the fit.
pub const ACF_GAP: f64 = 0.2;

/// The structure of `delays`, its netem fit `netem` and its regime model
/// `model`, each probed every `packet_us` through a link as a run meets it.
fn judge(
    delays: &Delays,
    netem: &Netem,
    model: &Replay,
    correlation: crate::net::Correlation,
    packet_us: u64,
) -> [Structure; 3] {
    let n = (delays.period_us() / packet_us).clamp(1, MAX_PROBES);
    let replay = |d: Delays| Replay {
        delays: Some(Arc::new(d)),
        opportunities: None,
        queue: QueueLimit::Unlimited,
        order: Order::Fifo,
        aligned: true,
        from: String::new(),
    };
    let through = |link: Link| probe_delays(link, n, packet_us, PROBE_BYTES);
    let clean = || Link::new(Netem::clean(), correlation, probe_stream(1));
    let recording = through(clean().replaying(Some(&replay(delays.clone())), 1, 0));
    let fitted = through(Link::new(netem.clone(), correlation, probe_stream(1)));
    let modelled = through(clean().replaying(Some(model), 1, 0));
    let mut sorted: Vec<u32> = recording.iter().filter_map(|s| s.1).collect();
    sorted.sort_unstable();
    let slow_ms = sorted
        .get((sorted.len() as f64 * super::time_structure::SLOW_QUANTILE) as usize)
        .map_or(0.0, |&us| us as f64 / 1e3);
    [recording, fitted, modelled].map(|s| Structure::measure(&s, packet_us, slow_ms))
}

/// The delays probes of [`PROBE_BYTES`] every `packet_us` meet through
/// replay `r`'s queue of opportunities `o` (alone: the profile's own
/// netem is added after the fit), over the trace's length; and how many.
fn probe_queue(
    r: &Replay,
    o: &Opportunities,
    p: &Profile,
    packet_us: u64,
    name: &str,
) -> Result<(Delays, u64), String> {
    let n = (o.period_ms() * 1000 / packet_us).clamp(1, MAX_PROBES);
    let link = Link::new(Netem::clean(), p.correlation, probe_stream(1)).replaying(Some(r), 1, 0);
    let samples = probe_delays(link, n, packet_us, PROBE_BYTES);
    let d = Delays::samples(samples, &Source::BuiltIn(format!("{name} probes"))).map_err(|e| e.to_string())?;
    Ok((d, n))
}

/// The most probes sent through a delivery-opportunity trace to fit it.
const MAX_PROBES: u64 = 200_000;

/// The probes' size, bytes: a game's packet.
const PROBE_BYTES: usize = 100;

impl<'p> ProfileFit<'p> {
    /// Fits every direction of `p` that replays a recording, for
    /// `packet_hz` (1..=1000) packets per second: a delay recording as it
    /// is, a delivery-opportunity trace (a Mahimahi pair) through probes
    /// of 100 bytes (`PROBE_BYTES`) sent at that rate through its queue, as a run
    /// meets it, over the trace's length. `Err` says why nothing could be
    /// fitted.
    pub fn new(p: &'p Profile, packet_hz: u32) -> Result<ProfileFit<'p>, String> {
        let packet_us = 1_000_000 / packet_hz as u64;
        let mut fitted = [p.uplink.clone(), p.downlink.clone()];
        let mut directions = Vec::new();
        let mut notes = Vec::new();
        let mut probed = [None, None];
        let mut models = Vec::new();
        for (i, name) in ["uplink", "downlink"].into_iter().enumerate() {
            let replay = p.replay[i].as_ref();
            let delays = match replay {
                Some(Replay { delays: Some(d), .. }) => d,
                Some(r @ Replay { opportunities: Some(o), .. }) => {
                    let (d, n) = probe_queue(r, o, p, packet_us, name)?;
                    notes.push(format!(
                        "{name}: its delivery-opportunity trace fitted from {n} probes of {PROBE_BYTES} bytes through its queue, one every {:.1} ms",
                        packet_us as f64 / 1e3
                    ));
                    &*probed[i].insert(d)
                }
                _ => {
                    notes.push(format!("{name}: no recording; its netem description is kept: {}", fitted[i]));
                    continue;
                }
            };
            let f =
                fit(delays, packet_us).ok_or_else(|| format!("the {name} recording has no delivered sample to fit"))?;
            // The profile's own netem extras come first: a base delay adds,
            // a loss rate stays unless the recording has losses of its own.
            let extras = &fitted[i];
            let mut n = f.netem.clone();
            n.delay_us += extras.delay_us;
            if f.recorded.count == 0 {
                n.loss = extras.loss;
            }
            if extras.jitter_us > 0 || extras.rate.is_some() || extras.slot.is_some() {
                notes.push(format!("{name}: the profile's own `{extras}` is replaced except for its delay and loss"));
            }
            let reorder = probe(&n, p.correlation, 20_000, packet_us, 100, 1).reorder;
            let like = replay.expect("a fitted direction replays");
            let model = match &like.opportunities {
                Some(o) if like.delays.is_none() => RegimeModel::fit_opportunities(o),
                _ => RegimeModel::fit(delays),
            }
            .expect("a fitted recording has a delivered sample");
            let structure = judge(delays, &f.netem, &model.replay(1, i as u64, like), p.correlation, packet_us);
            models.push(Modelled { model, structure });
            fitted[i] = n;
            directions.push((name, f, reorder));
        }
        if directions.is_empty() {
            return Err("no direction replays a recording: nothing to fit (a recording is a delay series, a timed CSV, a ping or IRTT log, or a Mahimahi trace)".into());
        }
        Ok(ProfileFit { profile: p, packet_hz, netem: fitted, directions, notes, models, probed })
    }

    /// The delays fitted in the direction named `name` (`uplink` or
    /// `downlink`): its recording's, or those probed through its trace.
    pub fn delays(&self, name: &str) -> Option<&Delays> {
        let i = usize::from(name != "uplink");
        self.probed[i].as_ref().or_else(|| self.profile.recorded_delays(i))
    }

    /// The JSON document.
    pub fn to_json(&self) -> serde_json::Value {
        let dirs: Vec<serde_json::Value> = self
            .directions
            .iter()
            .zip(&self.models)
            .map(|((name, f, reorder), m)| {
                serde_json::json!({
                    "direction": name,
                    "regime_model": model_json(m),
                    "samples_every_us": f.spacing_us,
                    "span_ms": round4(self.delays(name).map_or(0, |d| d.period_us()) as f64 / 1e3),
                    "candidates": f.candidates.iter().map(|c| serde_json::json!({
                        "distribution": c.distribution.name(), "delay_us": c.delay_us,
                        "jitter_us": c.jitter_us, "w1_ms": round4(c.w1_ms)})).collect::<Vec<_>>(),
                    "recorded_loss": round4(f.recorded.loss), "recorded_bursts": f.recorded.count,
                    "recorded_burst_mean_ms": round4(f.recorded.mean_ms), "recorded_burst_max_ms": round4(f.recorded.max_ms),
                    "fitted_loss": round4(f.fitted.loss), "fitted_burst_mean_ms": round4(f.fitted.mean_ms),
                    "autocorrelation": round4(f.autocorrelation), "fitted_reorder": reorder,
                    "spread_ms": round4(f.spread_ms), "poor_fit": f.poor(),
                })
            })
            .collect();
        serde_json::json!({
            "profile": self.profile.name, "packet_hz": self.packet_hz, "directions": dirs,
            "uplink": self.netem[0].to_string(), "downlink": self.netem[1].to_string(), "notes": self.notes,
        })
    }

    /// The text: per fitted direction its candidates and losses, what
    /// netem cannot say, the notes, and both directions as fitted.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let packet_us = 1_000_000 / self.packet_hz as u64;
        let _ = writeln!(
            out,
            "fit of {}: the netem closest to its recording, for {} packets per second",
            self.profile.name, self.packet_hz
        );
        for ((name, f, reorder), m) in self.directions.iter().zip(&self.models) {
            out.push('\n');
            let _ = writeln!(
                out,
                "{name}: {} samples, one every {:.1} ms",
                self.delays(name).map_or(0, |d| d.iter().count()),
                f.spacing_us as f64 / 1e3
            );
            let _ = writeln!(out, "  {:<13} {:>9} {:>9} {:>8}", "distribution", "delay ms", "jitter ms", "W1 ms");
            for (k, c) in f.candidates.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "  {:<13} {:>9.3} {:>9.3} {:>8.3}{}",
                    c.distribution.name(),
                    c.delay_us as f64 / 1e3,
                    c.jitter_us as f64 / 1e3,
                    c.w1_ms,
                    match (k, f.poor()) {
                        (0, false) => "   best",
                        (0, true) => "   closest, and poor",
                        _ => "",
                    }
                );
            }
            if f.poor() {
                let _ = writeln!(
                    out,
                    "  poor fit: W1 {:.3} ms is {:.0}% of the recording's spread ({:.3} ms, the mean distance from its median), over the {:.0}% a fit may be: no netem line describes this link; replay the recording itself",
                    f.candidates[0].w1_ms,
                    100.0 * f.candidates[0].w1_ms / f.spread_ms.max(f64::MIN_POSITIVE),
                    f.spread_ms,
                    100.0 * POOR_FIT_SHARE
                );
            }
            let _ = writeln!(
                out,
                "  loss: recorded {:.2}% in {} bursts (mean {:.1} ms, longest {:.1} ms); fitted {:.2}%, mean burst {:.1} ms",
                f.recorded.loss * 100.0,
                f.recorded.count,
                f.recorded.mean_ms,
                f.recorded.max_ms,
                f.fitted.loss * 100.0,
                if f.fitted.mean_ms.is_finite() { f.fitted.mean_ms } else { 0.0 }
            );
            let _ = writeln!(
                out,
                "  not in netem: the recording's delays have lag-1 autocorrelation {:.2} (netem draws each afresh) and arrive in order; the fit reorders {:.2}% of packets {:.1} ms apart",
                f.autocorrelation,
                reorder * 100.0,
                packet_us as f64 / 1e3
            );
            out.push_str(&model_text(m, &self.profile.name));
            out.push_str(&structure_text(m, packet_us));
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        out.push('\n');
        let _ = writeln!(out, "uplink = \"{}\"", self.netem[0]);
        let _ = writeln!(out, "downlink = \"{}\"", self.netem[1]);
        out
    }
}

/// A model's value in the units `profile fit` prints: a delay in ms, or
/// opportunities a bin as Mbit/s.
fn value_in_units(q: Quantity, v: f64) -> f64 {
    match q {
        Quantity::Delay => v / 1e3,
        Quantity::Opportunities => v * super::OPPORTUNITY_BYTES as f64 * 8.0 / (BIN_MS as f64 / 1e3) / 1e6,
    }
}

/// The regime model as `profile fit` prints it.
fn model_text(m: &Modelled, profile: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  regime model (`--profile \"model:{profile}\"`): {} regime{}, a sample every {:.1} ms",
        m.model.regimes.len(),
        if m.model.regimes.len() == 1 { "" } else { "s" },
        m.model.spacing_us as f64 / 1e3
    );
    let _ = writeln!(
        out,
        "    {:<7} {:>6} {:>5} {:>13} {:>22} {:>6} {:>6} {:>6}",
        "regime",
        "time %",
        "runs",
        "mean dwell ms",
        match m.model.quantity {
            Quantity::Delay => "delay p5/p50/p95 ms",
            Quantity::Opportunities => "rate p5/p50/p95 Mbit/s",
        },
        match m.model.quantity {
            Quantity::Delay => "loss %",
            Quantity::Opportunities => "idle %",
        },
        "slow",
        "memory"
    );
    let ms = m.model.spacing_us as f64 / 1e3;
    for r in &m.model.regimes {
        let delay = if r.values.is_empty() {
            "none".to_string()
        } else {
            let v = |u: f64| value_in_units(m.model.quantity, r.value_at(u));
            format!("{:.1}/{:.1}/{:.1}", v(0.05), v(0.5), v(0.95))
        };
        let _ = writeln!(
            out,
            "    {:<7} {:>6.1} {:>5} {:>13.1} {:>22} {:>6.2} {:>6.2} {:>6.3}",
            r.kind.name(),
            r.share * 100.0,
            r.runs,
            r.mean_dwell() * ms,
            delay,
            r.loss * 100.0,
            r.slow,
            r.memory
        );
    }
    out
}

/// The recording's time structure beside the netem fit's and the regime
/// model's, with each one's distance from the recording.
fn structure_text(m: &Modelled, packet_us: u64) -> String {
    use super::time_structure::{mean, LAGS_US};
    let [rec, netem, model] = &m.structure;
    let (dn, dm) = (netem.distance(rec), model.distance(rec));
    let mut out = String::new();
    let _ = writeln!(out, "  time structure, as packets every {:.1} ms meet it:", packet_us as f64 / 1e3);
    let _ = writeln!(out, "    {:<30} {:>10} {:>10} {:>10}", "", "recording", "netem fit", "regimes");
    let mut row = |label: String, f: &dyn Fn(&Structure) -> String| {
        let _ = writeln!(out, "    {label:<30} {:>10} {:>10} {:>10}", f(rec), f(netem), f(model));
    };
    row("delay p50 ms".into(), &|s| format!("{:.1}", s.quantile_ms(0.5)));
    row("delay p99 ms".into(), &|s| format!("{:.1}", s.quantile_ms(0.99)));
    row("lost %".into(), &|s| format!("{:.2}", s.loss * 100.0));
    for (k, lag) in LAGS_US.iter().enumerate() {
        let label = if *lag == 0 {
            format!("autocorrelation {:.1} ms", packet_us as f64 / 1e3)
        } else {
            format!("autocorrelation {:.1} s", *lag as f64 / 1e6)
        };
        row(label, &|s| s.acf[k].map_or("—".into(), |a| format!("{a:.2}")));
    }
    row("slow runs a minute".into(), &|s| format!("{:.1}", s.slow_per_minute()));
    row("slow run mean ms".into(), &|s| format!("{:.1}", mean(&s.slow_runs_ms)));
    row("loss bursts a minute".into(), &|s| format!("{:.1}", s.bursts_per_minute()));
    row("loss burst mean ms".into(), &|s| format!("{:.1}", mean(&s.bursts_ms)));
    let _ = writeln!(out, "    distance from the recording:");
    let mut dist = |label: &str, f: &dyn Fn(&super::time_structure::Distance) -> f64| {
        let _ = writeln!(out, "    {label:<30} {:>10} {:>10.3} {:>10.3}", "", f(&dn), f(&dm));
    };
    dist("delay W1 ms", &|d| d.delay_w1_ms);
    dist("autocorrelation, largest gap", &|d| d.acf_gap);
    dist("slow runs W1 ms", &|d| d.slow_w1_ms);
    dist("loss bursts W1 ms", &|d| d.burst_w1_ms);
    if dn.acf_gap > ACF_GAP {
        let _ = writeln!(
            out,
            "  netem cannot describe this link in time: its autocorrelation is {:.2} from the recording's (over {ACF_GAP}); the regime model's is {:.2}",
            dn.acf_gap, dm.acf_gap
        );
    }
    out
}

/// The regime model and the time structure as JSON.
fn model_json(m: &Modelled) -> serde_json::Value {
    let structure = |s: &Structure| {
        serde_json::json!({
            "delay_p50_ms": round4(s.quantile_ms(0.5)), "delay_p99_ms": round4(s.quantile_ms(0.99)),
            "loss": round4(s.loss), "autocorrelation": s.acf.iter().map(|a| a.map(round4)).collect::<Vec<_>>(),
            "slow_runs_per_minute": round4(s.slow_per_minute()),
            "slow_run_mean_ms": round4(super::time_structure::mean(&s.slow_runs_ms)),
            "loss_bursts_per_minute": round4(s.bursts_per_minute()),
            "loss_burst_mean_ms": round4(super::time_structure::mean(&s.bursts_ms)),
        })
    };
    let distance = |s: &Structure| {
        let d = s.distance(&m.structure[0]);
        serde_json::json!({
            "delay_w1_ms": round4(d.delay_w1_ms), "loss_points": round4(d.loss_points), "acf_gap": round4(d.acf_gap),
            "slow_run_w1_ms": round4(d.slow_w1_ms), "loss_burst_w1_ms": round4(d.burst_w1_ms),
        })
    };
    serde_json::json!({
        "samples_every_us": m.model.spacing_us,
        "quantity": match m.model.quantity { Quantity::Delay => "delay_ms", Quantity::Opportunities => "rate_mbit_per_s" },
        "regimes": m.model.regimes.iter().map(|r| serde_json::json!({
            "regime": r.kind.name(), "share": round4(r.share), "runs": r.runs,
            "mean_dwell_ms": round4(r.mean_dwell() * m.model.spacing_us as f64 / 1e3),
            "p50": if r.values.is_empty() { serde_json::Value::Null } else { round4(value_in_units(m.model.quantity, r.value_at(0.5))).into() },
            "loss": round4(r.loss), "slow": round4(r.slow), "memory": round4(r.memory),
        })).collect::<Vec<_>>(),
        "autocorrelation_lags_us": super::time_structure::LAGS_US,
        "recording": structure(&m.structure[0]),
        "netem_fit": structure(&m.structure[1]), "netem_fit_distance": distance(&m.structure[1]),
        "regimes_model": structure(&m.structure[2]), "regimes_model_distance": distance(&m.structure[2]),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Source;
    use crate::net::link_probe::probe;
    use crate::net::Correlation;

    /// A recording drawn from netem itself fits back to the description
    /// that drew it, and scores itself closest.
    #[test]
    fn a_netem_recording_fits_back_to_its_description() {
        for (spec, d) in [
            ("delay 40ms 8ms distribution normal", Distribution::Normal),
            ("delay 30ms 5ms", Distribution::Uniform),
            ("delay 25ms 10ms distribution pareto", Distribution::Pareto),
        ] {
            let netem = Netem::parse(spec).unwrap();
            // Delays of 20,000 probes 10 ms apart (far more than the jitter:
            // no reordering), as a delay series.
            let text: String = (0..20_000)
                .map(|i| {
                    let rnd = crate::rng::mix64(i) as u32;
                    let ns = crate::net::dist::tabledist(
                        netem.delay_us as i64 * 1000,
                        netem.jitter_us as i64 * 1000,
                        rnd,
                        d,
                    );
                    format!("{}\n", ns.max(0) as f64 / 1e6)
                })
                .collect();
            let rec = Delays::series(&text, 10_000, &Source::Inline("t".into())).unwrap();
            let f = fit(&rec, 10_000).unwrap();
            let best = &f.candidates[0];
            assert_eq!(best.distribution, d, "{spec}: {:?}", f.candidates);
            assert!(best.delay_us.abs_diff(netem.delay_us) < 500, "{spec}: {best:?}");
            assert!(best.jitter_us.abs_diff(netem.jitter_us) < 500, "{spec}: {best:?}");
            assert!(best.w1_ms < 0.2, "{spec}: {best:?}");
            assert!(f.candidates[1].w1_ms > best.w1_ms);
            assert!(!f.poor(), "{spec}: W1 {} of spread {}", best.w1_ms, f.spread_ms);
        }
    }

    /// A link with two delays (a path that switches between 10 and 50 ms)
    /// has no netem shape: its best fit is flagged, with the spread it is
    /// measured against (the mean distance from the median: 20 ms).
    #[test]
    fn a_link_no_netem_line_describes_is_flagged() {
        let text: String = (0..2_000).map(|i| if (i / 50) % 2 == 0 { "10\n" } else { "50\n" }).collect();
        let rec = Delays::series(&text, 10_000, &Source::Inline("t".into())).unwrap();
        let f = fit(&rec, 10_000).unwrap();
        assert!((f.spread_ms - 20.0).abs() < 1e-9, "{}", f.spread_ms);
        assert!(f.poor(), "W1 {} of spread {}", f.candidates[0].w1_ms, f.spread_ms);
        assert!(f.candidates[0].w1_ms > POOR_FIT_SHARE * 20.0);
    }

    /// Bursts of lost probes become a Gilbert model whose long-run loss and
    /// mean burst match at the probe spacing, and rescale with the packet
    /// interval.
    #[test]
    fn loss_bursts_fit_a_gilbert_model() {
        // 1,000 probes 10 ms apart; every 100th starts a 4-probe outage.
        let samples: Vec<(u64, Option<u32>)> =
            (0..1_000u64).map(|i| (i * 10_000, if i % 100 < 4 && i >= 100 { None } else { Some(20_000) })).collect();
        let rec = Delays::samples(samples, &Source::Inline("t".into())).unwrap();
        let same = fit(&rec, 10_000).unwrap();
        assert_eq!(same.recorded.count, 9);
        assert!((same.recorded.mean_ms - 40.0).abs() < 1e-9 && (same.recorded.max_ms - 40.0).abs() < 1e-9);
        assert!((same.fitted.mean_ms - 40.0).abs() < 0.5, "{:?}", same.fitted);
        assert!((same.fitted.loss - same.recorded.loss).abs() < 0.002, "{:?} {:?}", same.fitted, same.recorded);
        assert!(matches!(same.netem.loss, LossModel::GilbertElliott { .. }));
        // At 20 ms packets a burst lasts as long in time: two packets.
        let slower = fit(&rec, 20_000).unwrap();
        assert!((slower.fitted.mean_ms - 40.0).abs() < 0.5, "{:?}", slower.fitted);
        assert!((slower.fitted.loss - same.fitted.loss).abs() < 0.005, "{:?}", slower.fitted);
        // The fitted netem loses about the recorded share.
        let s = probe(&same.netem, Correlation::Kernel, 200_000, 10_000, 100, 1);
        assert!((s.loss - same.recorded.loss).abs() < 0.01, "{s:?}");
        // Single lost probes fitted for packets twice as far apart: r'
        // stops at 1 and the long-run loss still holds.
        let single: Vec<(u64, Option<u32>)> =
            (0..2_000u64).map(|i| (i * 10_000, if i % 50 == 7 { None } else { Some(20_000) })).collect();
        let rec = Delays::samples(single, &Source::Inline("t".into())).unwrap();
        let f = fit(&rec, 20_000).unwrap();
        assert!((f.fitted.loss - f.recorded.loss).abs() < 1e-4, "{:?} vs {:?}", f.fitted, f.recorded);
    }
}
