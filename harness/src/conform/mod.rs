//! Conformance: contracts every algorithm of a family must keep, checked on
//! generated scenarios, with failing cases shrunk and written as replayable
//! scenario files.
//!
//! This is also the entry point for a netcode author who wants to check an
//! algorithm of their own crate:
//!
//! ```
//! use harness::conform::{check, Verdict};
//! # use harness::contract::*;
//! # use harness::game::{Input, SeqInput, State};
//! # struct Still;
//! # impl Algorithm for Still {
//! #     fn name(&self) -> &'static str { "still" }
//! #     fn description(&self) -> &'static str { "shows the initial state" }
//! #     fn topology(&self) -> Topology { Topology::ClientServer }
//! #     fn server(&self, s: &Setup) -> Box<dyn Node> { Box::new(Srv(s.initial.clone())) }
//! #     fn client(&self, s: &Setup, _: usize) -> Box<dyn Node> { Box::new(Cl(s.initial.clone())) }
//! # }
//! # struct Srv(State);
//! # impl Node for Srv {
//! #     fn on_tick(&mut self, ctx: &mut Ctx) {
//! #         let right = SeqInput { seq: 0, input: Input::buttons(Input::RIGHT) };
//! #         let n = self.0.players.len();
//! #         ctx.game().step(&mut self.0, &vec![right; n]);
//! #         ctx.publish_authority(&self.0);
//! #     }
//! #     fn on_packet(&mut self, _: &mut Ctx, _: NodeId, _: &[u8]) {}
//! # }
//! # struct Cl(State);
//! # impl Node for Cl {
//! #     fn on_tick(&mut self, _: &mut Ctx) {}
//! #     fn on_packet(&mut self, _: &mut Ctx, _: NodeId, _: &[u8]) {}
//! #     fn render(&mut self, _: &RenderCtx, v: &mut View) { v.show_state(&self.0) }
//! # }
//! // `Still`'s server runs everyone to the right, but its clients keep
//! // showing the initial state: the screens never converge to the world.
//! let results = check(&Still, 2, 1);
//! let verdict = |name: &str| &results.iter().find(|r| r.contract == name).unwrap().verdict;
//! assert!(matches!(verdict("converges"), Verdict::Fail(_)));
//! assert!(matches!(verdict("no-desync"), Verdict::NotApplicable(_)));
//! ```

pub mod contracts;
pub mod junit;
pub mod scenario;
pub mod table;

use crate::contract::Algorithm;
use crate::net::netem::{LossModel, Prob};
pub use contracts::Contract;
pub use scenario::Scenario;

/// The outcome of a contract on an algorithm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every case passed.
    Pass,
    /// A case failed: what was wrong.
    Fail(String),
    /// The contract does not apply (and why).
    NotApplicable(String),
}

/// One contract's result on one algorithm.
#[derive(Clone, Debug)]
pub struct ContractResult {
    /// Contract name.
    pub contract: &'static str,
    /// Cases run.
    pub cases: u64,
    /// The verdict.
    pub verdict: Verdict,
    /// The shrunk failing scenario, if one failed.
    pub counterexample: Option<Scenario>,
}

/// Runs every contract on `algorithm`, `cases` generated scenarios each
/// (case numbers derived from `seed`). A failing case is shrunk.
pub fn check(algorithm: &dyn Algorithm, cases: u64, seed: u64) -> Vec<ContractResult> {
    contracts::all().iter().map(|c| check_one(algorithm, c, cases, seed)).collect()
}

/// Runs one contract.
pub fn check_one(algorithm: &dyn Algorithm, c: &Contract, cases: u64, seed: u64) -> ContractResult {
    check_one_with_progress(algorithm, c, cases, seed, &|_, _| {})
}

/// Runs one contract on all cores, calling `progress(done, cases)` after
/// each batch of cases.
pub fn check_one_with_progress(
    algorithm: &dyn Algorithm,
    c: &Contract,
    cases: u64,
    seed: u64,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> ContractResult {
    if !(c.applies)(algorithm.topology()) {
        return ContractResult {
            contract: c.name,
            cases: 0,
            verdict: Verdict::NotApplicable(format!("not for {} algorithms", algorithm.topology().as_str())),
            counterexample: None,
        };
    }
    if let Some((_, why)) = algorithm.waived_contracts().iter().find(|(name, _)| *name == c.name) {
        return ContractResult {
            contract: c.name,
            cases: 0,
            verdict: Verdict::NotApplicable(format!("waived: {why}")),
            counterexample: None,
        };
    }
    // Cases run in parallel batches; results are read in case order, so
    // the first failing (or not-applicable) case is the one a sequential
    // run would find, whatever the thread count.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(cases.max(1) as usize);
    let batch = (threads * 4) as u64;
    let mut done = 0u64;
    while done < cases {
        let n = batch.min(cases - done);
        let verdicts: Vec<(Scenario, Verdict)> = std::thread::scope(|scope| {
            let chunk = n.div_ceil(threads as u64);
            let handles: Vec<_> = (0..threads as u64)
                .map(|t| {
                    scope.spawn(move || {
                        let (lo, hi) = (done + t * chunk, (done + (t + 1) * chunk).min(done + n));
                        (lo..hi)
                            .map(|i| {
                                let mut s = (c.case)(algorithm, seed.wrapping_mul(1_000_003).wrapping_add(i));
                                s.contract = c.name.to_string();
                                let s = contracts::after_connecting(algorithm, s);
                                let v = (c.check)(algorithm, &s);
                                (s, v)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().flat_map(|h| h.join().expect("a case panicked")).collect()
        });
        for (k, (s, v)) in verdicts.into_iter().enumerate() {
            let i = done + k as u64;
            match v {
                Verdict::Pass => {}
                Verdict::NotApplicable(why) => {
                    return ContractResult {
                        contract: c.name,
                        cases: i + 1,
                        verdict: Verdict::NotApplicable(why),
                        counterexample: None,
                    };
                }
                Verdict::Fail(_) => {
                    let (s, why) = shrink(algorithm, c, s);
                    return ContractResult {
                        contract: c.name,
                        cases: i + 1,
                        verdict: Verdict::Fail(why),
                        counterexample: Some(s),
                    };
                }
            }
        }
        done += n;
        progress(done, cases);
    }
    ContractResult { contract: c.name, cases, verdict: Verdict::Pass, counterexample: None }
}

/// Replays a scenario against its contract.
pub fn replay(algorithm: &dyn Algorithm, s: &Scenario) -> Result<Verdict, String> {
    let c = contracts::all().iter().find(|c| c.name == s.contract).ok_or_else(|| {
        let names: Vec<&str> = contracts::all().iter().map(|c| c.name).collect();
        format!("unknown contract `{}`: expected one of {}", s.contract, names.join(", "))
    })?;
    // A scenario that cannot run as described is malformed, not failing.
    crate::runner::check_config(algorithm, &s.plan(), &s.config()).map_err(|e| e.to_string())?;
    Ok((c.check)(algorithm, s))
}

/// Where a contract's failure message points: the first render it
/// locates, and the render rate of the run it was seen in when the
/// message names one ("at 144 Hz the farthest … client 0 at …":
/// `frame-rate-independent` compares runs at several rates).
pub fn located_in(why: &str) -> Option<(crate::metrics::Located, Option<u32>)> {
    why.split("; ").find_map(|clause| {
        let at = crate::metrics::Located::find_in(clause)?;
        let before = &clause[..clause.find("client ").unwrap_or(0)];
        let hz = before.split_once(" Hz").and_then(|(head, _)| head.rsplit(' ').next()?.parse().ok());
        Some((at, hz))
    })
}

/// The renders of `at`'s screen and entity within `window_us` either
/// side of its instant, on a rerun of `s` (at `render_hz` when given),
/// each beside the authority's and the ideal world's position: what
/// `replay` prints around a failure.
pub fn renders_around(
    algorithm: &dyn Algorithm,
    s: &Scenario,
    (at, render_hz): &(crate::metrics::Located, Option<u32>),
    window_us: u64,
) -> Result<Vec<crate::metrics::kept_renders::Probed>, String> {
    let t = (at.t_s * 1e6).round() as u64;
    let entity = u16::try_from(at.entity).map_err(|_| format!("entity {} is out of range", at.entity))?;
    let mut cfg = s.config();
    if let Some(hz) = render_hz {
        cfg.render_hz = vec![*hz];
    }
    cfg.probe = Some(crate::metrics::kept_renders::Probe {
        client: at.client,
        entity,
        from_us: t.saturating_sub(window_us),
        to_us: t.saturating_add(window_us),
    });
    crate::runner::run_plan(algorithm, &s.plan(), &s.trace, &cfg).map(|r| r.probed).map_err(|e| e.to_string())
}

/// A track with at most this many changes is shrunk one change at a
/// time; a longer one only by halves.
const SHORT_TRACK: usize = 64;

/// Simplifies a failing scenario while it keeps failing: fewer players,
/// a shorter run, fewer impairments. Returns the smallest found and its
/// failure.
fn shrink(algorithm: &dyn Algorithm, c: &Contract, mut s: Scenario) -> (Scenario, String) {
    let fails = |s: &Scenario| match (c.check)(algorithm, s) {
        Verdict::Fail(why) => Some(why),
        _ => None,
    };
    let mut why = fails(&s).unwrap_or_else(|| "failure did not reproduce".into());
    let candidates = |s: &Scenario| -> Vec<Scenario> {
        let mut v = Vec::new();
        if s.clients > 2 {
            let mut t = s.clone();
            t.clients -= 1;
            t.trace.tracks.truncate(t.clients);
            v.push(t);
        }
        if s.bots > 1 {
            let mut t = s.clone();
            t.bots /= 2;
            v.push(t);
        }
        // A shorter run: half as long (at least a second, and past the
        // heal or outage the contract needs), the trace cut with it.
        let floor =
            [s.heal_at_us, s.outage_us.map(|o| o.1), Some(s.lead_in_us)].into_iter().flatten().max().unwrap_or(0)
                + 1_000_000;
        if s.duration_us / 2 >= floor.max(1_000_000) {
            let mut t = s.clone();
            t.duration_us /= 2;
            for tr in &mut t.trace.tracks {
                tr.segments.retain(|(at, _)| *at < t.duration_us);
            }
            v.push(t);
        }
        // Fewer trace lines: half of a track's changes at once, the later
        // or the earlier half (a recording of play has hundreds), then,
        // once a track is short, each change but the first in turn (the
        // input before a dropped change is held on).
        for (p, tr) in s.trace.tracks.iter().enumerate() {
            let n = tr.segments.len();
            if n > 2 {
                for later in [true, false] {
                    let mut t = s.clone();
                    let segs = &mut t.trace.tracks[p].segments;
                    if later {
                        segs.truncate(n / 2);
                    } else {
                        segs.drain(1..n / 2);
                    }
                    segs.dedup_by(|b, a| a.1 == b.1);
                    v.push(t);
                }
            }
        }
        for (p, tr) in s.trace.tracks.iter().enumerate().filter(|(_, tr)| tr.segments.len() <= SHORT_TRACK) {
            for k in 1..tr.segments.len() {
                let mut t = s.clone();
                t.trace.tracks[p].segments.remove(k);
                t.trace.tracks[p].segments.dedup_by(|b, a| a.1 == b.1);
                v.push(t);
            }
        }
        for dir in 0..2 {
            let n = if dir == 0 { &s.uplink } else { &s.downlink };
            let mut variants = Vec::new();
            if n.jitter_us > 0 {
                let mut m = n.clone();
                m.jitter_us = 0;
                variants.push(m);
            }
            if n.loss.is_set() {
                let mut m = n.clone();
                m.loss = LossModel::Random { p: Prob::NEVER, corr: Prob::NEVER };
                variants.push(m);
            }
            if n.duplicate.is_set() {
                let mut m = n.clone();
                m.duplicate = Prob::NEVER;
                variants.push(m);
            }
            if n.reorder.is_set() {
                let mut m = n.clone();
                m.reorder = Prob::NEVER;
                m.gap = 0;
                variants.push(m);
            }
            for m in variants {
                let mut t = s.clone();
                if dir == 0 {
                    t.uplink = m;
                } else {
                    t.downlink = m;
                }
                v.push(t);
            }
        }
        v
    };
    'outer: for _ in 0..256 {
        for t in candidates(&s) {
            if let Some(w) = fails(&t) {
                s = t;
                why = w;
                continue 'outer;
            }
        }
        break;
    }
    (s, why)
}
