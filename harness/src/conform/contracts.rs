//! The contracts: what each family of algorithms promises, as checks on
//! generated scenarios.

use super::scenario::Scenario;
use super::Verdict;
use crate::contract::{Algorithm, Topology};
use crate::game::Input;
use crate::metrics::{Checks, Farthest, Metrics, QuantileGrid};
use crate::net::netem::{LossModel, Netem, Prob};
use crate::net::transport::TransportKind;
use crate::rng::{Purpose, Stream};
use crate::runner::run_plan;
use crate::trace::generate::Generator;
use crate::trace::{Trace, Track};
use std::collections::BTreeMap;

/// A stated promise, checked on generated scenarios.
pub struct Contract {
    /// Short name (used in tables, JUnit and scenario files).
    pub name: &'static str,
    /// The promise, in one sentence.
    pub promise: &'static str,
    /// Which topologies it applies to.
    pub applies: fn(Topology) -> bool,
    /// Scenario number `case` for `algorithm`.
    pub case: fn(&dyn Algorithm, u64) -> Scenario,
    /// The check.
    pub check: fn(&dyn Algorithm, &Scenario) -> Verdict,
}

/// Every contract.
pub fn all() -> &'static [Contract] {
    &CONTRACTS
}

static CONTRACTS: [Contract; 10] = [
    Contract {
        name: "no-desync",
        promise: "no two peers ever confirm different states for a frame, and every confirmed input is one the player really gave",
        applies: Topology::confirms,
        case: impaired_case,
        check: check_no_desync,
    },
    Contract {
        name: "converges",
        promise: "once inputs stop and the link is clean, every screen shows exactly the authority's world",
        applies: |_| true,
        case: converge_case,
        check: check_converges,
    },
    Contract {
        name: "frame-rate-independent",
        promise: "what a player sees does not depend on their render rate: at 30, 60 and 144 Hz the divergence distributions (median, p90, p99; own, remote and against the ideal world) agree, and so do snap events (a 30 Hz screen may hide small jumps in a frame's motion, never show more)",
        applies: |_| true,
        case: gentle_case,
        check: check_frame_rate,
    },
    Contract {
        name: "on-map",
        promise: "no screen ever shows an entity inside a wall or outside the arena (beyond 10 cm), through loss, jitter and outages of up to 5 s",
        applies: |_| true,
        case: on_map_case,
        check: check_on_map,
    },
    Contract {
        name: "predicted-own-bound",
        promise: "a client that predicts its own player (its views name own inputs the server has not applied yet) shows it where the inputs put it (within 10 cm of the ideal world on a clean link: a tick of motion, the price of render interpolation)",
        applies: |t| t == Topology::ClientServer,
        case: squares_case,
        check: check_predicted_own,
    },
    Contract {
        name: "remote-on-path",
        promise: "remote players are shown on the path the authority took (within 30 cm), never extrapolated away from it",
        applies: |t| t == Topology::ClientServer,
        case: impaired_case,
        check: check_on_path,
    },
    Contract {
        name: "no-leak",
        promise: "a server filtering by area of interest never shows a client an entity that has been beyond radius + hysteresis for a second, and shows every entity that comes within the radius within 500 ms (links up to 120 ms one way, 5% loss)",
        applies: |t| t == Topology::ClientServer,
        case: aoi_case,
        check: check_no_leak,
    },
    Contract {
        name: "honest-names",
        promise: "a screen names the frame or input its picture has reached: at most 20% of the pictures found on the authority's path (within 1 cm) lie more than two ticks behind what their views name (a misprediction or a blend may lag for a while; a netcode that names what it does not draw lags whenever a player moves)",
        applies: |_| true,
        case: gentle_case,
        check: check_honest_names,
    },
    Contract {
        name: "smooth-remote",
        promise: "remote players move on every render while they move: on a 144 Hz screen no remote player is held in place for under 100 ms between moves in more than 5% of its renders (a picture stepping at the snapshot rate is)",
        applies: |t| t == Topology::ClientServer,
        case: smooth_case,
        check: check_smooth_remote,
    },
    Contract {
        name: "liveness",
        promise: "after the link heals, every client makes progress (at least 80% of real-time frames)",
        applies: Topology::confirms,
        case: outage_case,
        check: check_liveness,
    },
];

/// A case judged from its clients' connection: contracts judge an
/// algorithm in play, and its time to connect is a metric of its own
/// (`connect`). The case runs once as it is; if every client connected
/// (see [`crate::metrics::WARMUP_US`] for what connecting is), the case's
/// inputs, heal and outage start that much later
/// (the latest client's time to connect, rounded up to 100 ms) and the
/// run lasts as much longer. A client that never connects gets no
/// lead-in: the case is judged from the start, as its warm-up is.
pub fn after_connecting(algorithm: &dyn Algorithm, mut s: Scenario) -> Scenario {
    let Ok(m) = run(algorithm, &s) else { return s };
    let Some(last) = m.per_client.iter().map(|c| c.connected_ms).collect::<Option<Vec<f64>>>() else { return s };
    let last_us = (last.into_iter().fold(0.0, f64::max) * 1e3).ceil() as u64;
    let lead = last_us.div_ceil(100_000) * 100_000;
    if lead == 0 {
        return s;
    }
    let until = s.duration_us;
    for t in &mut s.trace.tracks {
        *t = delayed(t, lead, until);
    }
    s.duration_us += lead;
    s.lead_in_us = lead;
    s.heal_at_us = s.heal_at_us.map(|h| h + lead);
    s.outage_us = s.outage_us.map(|(a, b)| (a + lead, b + lead));
    s
}

/// `t` held idle for `lead` µs, its changes before `until` after that.
fn delayed(t: &Track, lead: u64, until: u64) -> Track {
    let mut segments = vec![(0, Input::IDLE)];
    let period = t.repeat_us.filter(|&p| p > 0).unwrap_or(u64::MAX);
    let mut base = 0u64;
    'repeats: while base < until {
        for &(at, input) in &t.segments {
            let at = base.saturating_add(at);
            if at >= until {
                break 'repeats;
            }
            if at >= base.saturating_add(period) {
                break;
            }
            segments.push((at + lead, input));
        }
        base = base.saturating_add(period);
    }
    segments.dedup_by(|b, a| a.1 == b.1);
    Track { segments, repeat_us: None }
}

fn run(algorithm: &dyn Algorithm, s: &Scenario) -> Result<Metrics, Verdict> {
    run_plan(algorithm, &s.plan(), &s.trace, &s.config())
        .map(|r| r.metrics)
        .map_err(|e| Verdict::Fail(format!("the run did not start: {e}")))
}

fn pct(rng: &mut Stream, max: u64) -> Prob {
    Prob::from_percent(rng.below(max + 1) as f64)
}

/// Random impairments: delay, jitter, loss, duplication, reordering.
fn impairment(rng: &mut Stream, max_loss: u64) -> Netem {
    let mut n = Netem::clean();
    n.delay_us = rng.range_inclusive(1, 100) as u64 * 1_000;
    n.jitter_us = rng.below(30) * 1_000;
    n.loss = LossModel::Random { p: pct(rng, max_loss), corr: Prob::NEVER };
    n.duplicate = pct(rng, 5);
    n.reorder = pct(rng, 10);
    n.gap = if n.reorder.is_set() { 1 } else { 0 };
    n
}

/// A scenario's inputs: a seeded generator, the `human` one among them,
/// or a stretch of a shipped recording of people playing.
fn generated_trace(rng: &mut Stream, clients: usize, duration_us: u64, stop_us: Option<u64>) -> Trace {
    let name = ["random-walk", "zigzag", "stop-go", "strafe-shoot", "human", "recorded"][rng.below(6) as usize];
    let seed = rng.next_u64() % 1_000_000;
    let (name, mut tracks) = if name == "recorded" {
        recorded_stretch(rng, clients)
    } else {
        // `human` plays one player type here, the population's typical
        // player: a failing case shrinks to a short file, where drawn
        // players keep more lines.
        let fixed = if name == "human" { "population=off," } else { "" };
        let g =
            Generator::parse(&format!("{name}:{fixed}seed={seed}"), &crate::error::Source::BuiltIn("conform".into()))
                .ok()
                .flatten()
                .expect("built-in generator");
        (g.to_string(), (0..clients).map(|p| g.track(p, duration_us, seed)).collect())
    };
    if let Some(stop) = stop_us {
        for t in &mut tracks {
            *t = Track { segments: t.segments.iter().copied().filter(|(s, _)| *s < stop).collect(), repeat_us: None };
            t.segments.push((stop, Input::IDLE));
        }
    }
    Trace { name, tracks }
}

/// `clients` players of a shipped human recording (`freedoom-dm` or
/// `freedoom-coop`, players reused when it has fewer), from a drawn
/// instant of the game on.
fn recorded_stretch(rng: &mut Stream, clients: usize) -> (String, Vec<Track>) {
    let name = ["freedoom-dm", "freedoom-coop"][rng.below(2) as usize];
    let (_, text) =
        crate::library::shipped_traces().iter().find(|(n, _)| *n == name).expect("the human recordings ship");
    let script = crate::trace::script::Script::parse(text, name, &crate::error::Source::BuiltIn(name.into()))
        .expect("a shipped trace parses");
    let players = script.sections.len();
    let whole = script.instantiate(players, 1, 0).expect("a shipped recording instantiates");
    let period = whole.tracks[0].repeat_us.unwrap_or(1).max(1);
    let from = rng.below(period);
    let first = rng.below(players as u64) as usize;
    let tracks = (0..clients).map(|p| whole.tracks[(first + p) % players].shifted(from)).collect();
    (format!("{name}@{}ms", from / 1000), tracks)
}

fn base(algorithm: &dyn Algorithm, contract: &str, rng: &mut Stream, duration_us: u64) -> Scenario {
    let clients = 2 + rng.below(3) as usize;
    Scenario {
        world: crate::world::World::Standard,
        bots: 0,
        aoi: None,
        contract: contract.into(),
        algorithm: algorithm.name().into(),
        options: BTreeMap::new(),
        clients,
        duration_us,
        seed: rng.next_u64() % 1_000_000,
        tick_hz: 60,
        render_hz: vec![60],
        transport: TransportKind::Unreliable,
        uplink: Netem::clean(),
        downlink: Netem::clean(),
        heal_at_us: None,
        lead_in_us: 0,
        outage_us: None,
        trace: Trace { name: String::new(), tracks: Vec::new() },
    }
}

fn stream(name: &str, case: u64) -> Stream {
    Stream::new(case, Purpose::Contract, name.bytes().fold(0u64, |h, b| h.wrapping_mul(31).wrapping_add(b as u64)))
}

fn impaired_case(a: &dyn Algorithm, case: u64) -> Scenario {
    let mut rng = stream("impaired", case);
    let mut s = base(a, "", &mut rng, 6_000_000);
    s.uplink = impairment(&mut rng, 20);
    s.downlink = impairment(&mut rng, 20);
    s.transport = match rng.below(8) {
        0 => TransportKind::Redundant(3),
        1 => TransportKind::Kcp(Default::default()),
        _ => TransportKind::Unreliable,
    };
    s.trace = generated_trace(&mut rng, s.clients, s.duration_us, None);
    s
}

fn converge_case(a: &dyn Algorithm, case: u64) -> Scenario {
    let mut rng = stream("converge", case);
    let mut s = base(a, "", &mut rng, 8_000_000);
    s.uplink = impairment(&mut rng, 10);
    s.downlink = impairment(&mut rng, 10);
    s.heal_at_us = Some(3_000_000);
    s.trace = generated_trace(&mut rng, s.clients, s.duration_us, Some(2_000_000));
    s
}

fn gentle_case(a: &dyn Algorithm, case: u64) -> Scenario {
    let mut rng = stream("gentle", case);
    let mut s = base(a, "", &mut rng, 6_000_000);
    let mut n = Netem::clean();
    n.delay_us = rng.range_inclusive(5, 60) as u64 * 1_000;
    s.uplink = n.clone();
    s.downlink = n;
    s.trace = generated_trace(&mut rng, s.clients, s.duration_us, None);
    s
}

/// A gentle link seen on a 144 Hz screen.
fn smooth_case(a: &dyn Algorithm, case: u64) -> Scenario {
    let mut s = gentle_case(a, case);
    s.render_hz = vec![144];
    s
}

fn squares_case(a: &dyn Algorithm, case: u64) -> Scenario {
    let mut rng = stream("squares", case);
    let mut s = base(a, "", &mut rng, 6_000_000);
    let mut n = Netem::clean();
    n.delay_us = rng.range_inclusive(40, 80) as u64 * 1_000;
    s.uplink = n.clone();
    s.downlink = n;
    // Everyone walks a small square in step: no walls, no collisions, so
    // prediction has nothing to get wrong.
    let side = rng.range_inclusive(150_000, 300_000) as u64;
    let dirs = [Input::RIGHT, Input::UP, Input::LEFT, Input::DOWN];
    let mut segs: Vec<(u64, Input)> = (0..16).map(|k| (k * side, Input::buttons(dirs[(k % 4) as usize]))).collect();
    segs.push((16 * side, Input::IDLE));
    s.trace = Trace { name: "squares".into(), tracks: vec![Track { segments: segs, repeat_us: None }; s.clients] };
    s
}

fn outage_case(a: &dyn Algorithm, case: u64) -> Scenario {
    let mut rng = stream("outage", case);
    let mut s = base(a, "", &mut rng, 7_000_000);
    s.uplink = impairment(&mut rng, 20);
    s.downlink = impairment(&mut rng, 20);
    if rng.below(2) == 0 {
        s.uplink.loss = LossModel::Random { p: Prob::ALWAYS, corr: Prob::NEVER };
    }
    s.heal_at_us = Some(4_000_000);
    s.trace = generated_trace(&mut rng, s.clients, s.duration_us, None);
    s
}

/// A field with wandering bots, a random radius and hysteresis, either
/// filtering method, and a moderately impaired link (no outages: awareness
/// needs a link to be aware through).
fn aoi_case(a: &dyn Algorithm, case: u64) -> Scenario {
    use crate::world::{Aoi, AoiMethod, World};
    let mut rng = stream("aoi", case);
    let mut s = base(a, "", &mut rng, 5_000_000);
    s.clients = 2 + rng.below(5) as usize;
    let side = rng.range_inclusive(60, 160) as u32;
    s.world = World::Field { width_m: side, height_m: side };
    s.bots = rng.range_inclusive(20, 150) as usize;
    s.aoi = Some(Aoi {
        method: if rng.below(2) == 0 { AoiMethod::Grid } else { AoiMethod::CrossList },
        radius_um: rng.range_inclusive(5, 30) * 1_000_000,
        hysteresis_um: rng.below(4) as i64 * 1_000_000,
    });
    let mut n = Netem::clean();
    n.delay_us = rng.range_inclusive(1, 100) as u64 * 1_000;
    n.jitter_us = rng.below(21) * 1_000;
    n.loss = LossModel::Random { p: pct(&mut rng, 5), corr: Prob::NEVER };
    n.duplicate = pct(&mut rng, 5);
    s.uplink = n.clone();
    s.downlink = n;
    s.trace = generated_trace(&mut rng, s.clients, s.duration_us, None);
    s
}

fn check_no_leak(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    if !a.handles_aoi() {
        return Verdict::NotApplicable("does not filter by area of interest".into());
    }
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    let Some(i) = m.interest else { return Verdict::Fail("no area-of-interest measurements".into()) };
    if i.leaks > 0 {
        return Verdict::Fail(format!(
            "{} entity-renders ({:.2}%) showed an entity beyond radius + hysteresis for over a second",
            i.leaks,
            i.leak_share * 100.0
        ));
    }
    if i.longest_unaware_ms > 500.0 {
        return Verdict::Fail(format!(
            "an entity within the radius went unshown for {:.0} ms ({} unaware visits)",
            i.longest_unaware_ms, i.unaware_visits
        ));
    }
    if !m.violations.is_empty() {
        return Verdict::Fail(m.violations.join("; "));
    }
    Verdict::Pass
}

fn check_no_desync(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    if let Some(d) = &m.first_desync {
        return Verdict::Fail(format!(
            "{} desynced frame(s); first at frame {} on node {}: {}",
            m.desyncs,
            d.frame,
            d.node,
            d.differences.join("; ")
        ));
    }
    if m.input_mismatches > 0 || !m.violations.is_empty() {
        return Verdict::Fail(format!("{} input mismatches; {}", m.input_mismatches, m.violations.join("; ")));
    }
    Verdict::Pass
}

fn check_converges(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    // The promise is about a world at rest: every player's inputs must end
    // with nothing that moves (no direction, no jump; aiming and fire are
    // allowed), not looping, by the time the link heals — or, with no heal,
    // a second before the end. A scenario without that (the shrinker
    // dropping the stop, once) is outside the contract, not a failure of it.
    let rest_by = s.heal_at_us.unwrap_or(s.duration_us.saturating_sub(1_000_000));
    let still = |i: &crate::game::Input| i.direction() == (0, 0) && !i.held(crate::game::Input::JUMP);
    let at_rest =
        s.trace.tracks.iter().take(s.clients).all(|t| {
            t.repeat_us.is_none() && t.segments.last().is_none_or(|(at, input)| still(input) && *at <= rest_by)
        });
    if !at_rest {
        return Verdict::NotApplicable("the players' inputs do not stop by the time the link heals".into());
    }
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    let f = &m.final_divergence_m;
    if f.own > 0.001 || f.remote > 0.001 {
        let at = worst_note(&m, "; the farthest", |c| &c.final_farthest);
        return Verdict::Fail(format!(
            "at the end the screens are {:.3} m (own) and {:.3} m (remote) from the authority (bound 0.001 m){at}",
            f.own, f.remote
        ));
    }
    Verdict::Pass
}

/// The same scenario at 30, 60 and 144 Hz renders: snap events agree
/// within Poisson noise (2 + 3√n events), and each divergence quantile
/// within 10 cm (a tick of motion at full speed) + 25% — a render samples
/// a moving picture at other instants than the ticks, so small differences
/// are expected; a screen that steps or snaps at one rate and not another
/// is not. A quantile of a few hundred renders is itself uncertain: its
/// distribution-free 99% confidence interval (the order statistics
/// `n·q ± 2.58·√(n·q·(1−q))`) is compared, not the point. With 360
/// renders the p99's interval runs from about the p97.6 to the maximum,
/// so a p99 fails only when the whole tail differs; with 1,700 it is
/// p98.4–p99.6. A jump smaller than the motion a 30 Hz frame allows
/// cannot be told from motion at 30 Hz, so there snap events are only held
/// to be no more than at the faster rates.
fn check_frame_rate(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    let mut runs = Vec::new();
    for hz in [30, 60, 144] {
        let mut at = s.clone();
        at.render_hz = vec![hz];
        match run(a, &at) {
            Ok(m) => runs.push((hz, m)),
            Err(v) => return v,
        }
    }
    let pairs = [(0, 1), (0, 2), (1, 2)];
    for (i, j) in pairs {
        let ((hx, mx), (hy, my)) = (&runs[i], &runs[j]);
        let (x, y) = (mx.snaps.events as f64, my.snaps.events as f64);
        // Events are counts: within Poisson noise, 2 + 3√n (three
        // standard deviations: many comparisons are made).
        let allowed = 2.0 + 3.0 * x.max(y).sqrt();
        let hidden = *hx == 30 && x < y;
        if !hidden && (x - y).abs() > allowed {
            let what =
                format!("snap events: {x:.3} at {hx} Hz but {y:.3} at {hy} Hz (allowed difference {allowed:.3})");
            return rate_failure(what, &runs[i], &runs[j], "the largest snap", |c| &c.largest_snap);
        }
    }
    let quantiles: [(&str, f64, bool, Worst); 6] = [
        ("own divergence p50", 0.5, true, |c| &c.own_farthest),
        ("own divergence p90", 0.9, true, |c| &c.own_farthest),
        ("own divergence p99", 0.99, true, |c| &c.own_farthest),
        ("remote divergence p50", 0.5, false, |c| &c.remote_farthest),
        ("remote divergence p90", 0.9, false, |c| &c.remote_farthest),
        ("remote divergence p99", 0.99, false, |c| &c.remote_farthest),
    ];
    for (name, q, own, worst) in quantiles {
        for (i, j) in pairs {
            let ((hx, mx), (hy, my)) = (&runs[i], &runs[j]);
            let (Some(x), Some(y)) = (interval(mx, own, q), interval(my, own, q)) else { continue };
            let allowed = 0.1 + 0.25 * x.point.max(y.point);
            if x.low - y.high > allowed || y.low - x.high > allowed {
                let what = format!("{name}: {x} at {hx} Hz but {y} at {hy} Hz (allowed gap {allowed:.3})");
                return rate_failure(what, &runs[i], &runs[j], "the farthest", worst);
            }
        }
    }
    let ideal = |m: &Metrics| (m.ideal_divergence_m.own.mean, m.ideal_divergence_m.own.n);
    for (i, j) in pairs {
        let ((hx, mx), (hy, my)) = (&runs[i], &runs[j]);
        let ((x, nx), (y, ny)) = (ideal(mx), ideal(my));
        let allowed = 0.1 + 0.25 * x.max(y);
        if nx > 0 && ny > 0 && (x - y).abs() > allowed {
            let what =
                format!("own vs ideal mean: {x:.3} at {hx} Hz but {y:.3} at {hy} Hz (allowed difference {allowed:.3})");
            return rate_failure(what, &runs[i], &runs[j], "the farthest", |c| &c.own_ideal_farthest);
        }
    }
    Verdict::Pass
}

/// `frame-rate-independent`'s failure: `what` differed between two runs
/// `(render rate, metrics)`, with each run's `worst` render, called `kind`.
fn rate_failure(
    what: String,
    (hx, mx): &(u32, Metrics),
    (hy, my): &(u32, Metrics),
    kind: &str,
    worst: Worst,
) -> Verdict {
    let at = |hz: &u32, m: &Metrics| worst_note(m, &format!("; at {hz} Hz {kind}"), worst);
    Verdict::Fail(format!("{what}{}{}", at(hx, mx), at(hy, my)))
}

/// A quantile and its distribution-free 99% confidence interval, m.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Interval {
    point: f64,
    low: f64,
    high: f64,
}

impl std::fmt::Display for Interval {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.3} (99% interval {:.3}–{:.3})", self.point, self.low, self.high)
    }
}

/// Quantile `q` of the own (or remote) divergence, with the interval
/// between the order statistics of ranks `n·q ± 2.58·√(n·q·(1−q))`;
/// `None` without samples.
fn interval(m: &Metrics, own: bool, q: f64) -> Option<Interval> {
    let grid = &m.checks.as_ref()?.divergence_grid_m;
    let (g, n) = match own {
        true => (&grid.own, m.divergence_m.own.n),
        false => (&grid.remote, m.divergence_m.remote.n),
    };
    if g.len() != QuantileGrid::STEPS + 1 || n == 0 {
        return None;
    }
    let (n, steps) = (n as f64, QuantileGrid::STEPS as f64);
    let spread = 2.58 * (n * q * (1.0 - q)).sqrt();
    // Rank r of n is quantile r / n; the grid is read outward.
    let index = |rank: f64, round: fn(f64) -> f64| round(rank.clamp(0.0, n) / n * steps) as usize;
    Some(Interval {
        point: g[(q * steps).round() as usize],
        low: g[index((n * q - spread).floor(), f64::floor)],
        high: g[index((n * q + spread).ceil(), f64::ceil)],
    })
}

/// Which of the located worst renders ([`Checks`]) a failure names.
type Worst = fn(&Checks) -> &Option<Farthest>;

/// `lead` and the render `worst` picks, or nothing when none was located.
fn worst_note(m: &Metrics, lead: &str, worst: Worst) -> String {
    m.checks.as_ref().and_then(|c| worst(c).as_ref()).map_or(String::new(), |w| format!("{lead} {w}"))
}

/// An impaired link, sometimes with an outage of 1–5 s in the middle.
fn on_map_case(a: &dyn Algorithm, case: u64) -> Scenario {
    let mut rng = stream("on-map", case);
    let mut s = base(a, "", &mut rng, 10_000_000);
    s.uplink = impairment(&mut rng, 10);
    s.downlink = impairment(&mut rng, 10);
    if rng.below(2) == 0 {
        let start = rng.range_inclusive(1_000, 3_000) as u64 * 1_000;
        s.outage_us = Some((start, start + rng.range_inclusive(1_000, 5_000) as u64 * 1_000));
    }
    s.trace = generated_trace(&mut rng, s.clients, s.duration_us, None);
    s
}

fn check_on_map(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    let i = &m.impossible;
    if i.renders > 0 {
        let at = i.deepest_at.as_ref().map_or(String::new(), |a| format!(" ({a})"));
        return Verdict::Fail(format!(
            "{} entity-renders ({:.2}%) showed an entity inside a wall or off the map, the deepest {:.2} m (bound 0.10 m){at}",
            i.renders,
            i.share * 100.0,
            i.deepest_m
        ));
    }
    Verdict::Pass
}

fn check_predicted_own(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    // The promise binds a client that says it shows its own inputs before
    // the server has them: one whose views name inputs ahead of the
    // authority (its latency is the harness's, whatever it says).
    if m.checks.as_ref().is_none_or(|c| c.own_named_ahead == 0) {
        return Verdict::NotApplicable("does not predict (never names an own input the server has not applied)".into());
    }
    // A tick of motion at full speed (10 cm) for render interpolation,
    // which draws the newest predicted step over the next tick.
    let d = m.ideal_divergence_m.own.mean;
    if d > 0.1 {
        let at = worst_note(&m, "; the farthest", |c| &c.own_ideal_farthest);
        return Verdict::Fail(format!(
            "own player shown {d:.3} m (mean, bound 0.100 m) from where its inputs put it{at}"
        ));
    }
    Verdict::Pass
}

fn check_on_path(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    let at = m.checks.as_ref().and_then(|c| c.off_path_at.as_ref()).map_or(String::new(), |a| format!(": {a}"));
    match m.checks.and_then(|c| c.off_path_max_m) {
        Some(d) if d > 0.3 => {
            Verdict::Fail(format!("a remote player was shown {d:.3} m off the authority's path (bound 0.300 m){at}"))
        }
        Some(_) => Verdict::Pass,
        None => Verdict::NotApplicable("shows no remote players".into()),
    }
}

/// The share of pictures allowed behind their names: a misprediction or a
/// blend toward a correction lags its name for a while; a netcode that
/// names what it does not draw does so whenever the player moves.
const BEHIND_MAX: f64 = 0.2;

fn check_honest_names(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    let (share, worst) = m.checks.map(|c| (c.behind_share.unwrap_or(0.0), c.overclaim)).unwrap_or_default();
    match worst {
        Some(o) if share > BEHIND_MAX => Verdict::Fail(format!(
            "{:.1}% of the pictures located on the authority's path were more than two ticks behind what their views named (allowed {:.0}%); the worst: {}: the view named frame {} but the picture was the authority's frame {:.1}, {:.1} ms older",
            share * 100.0,
            BEHIND_MAX * 100.0,
            o.at,
            o.named_frame,
            o.shown_frame,
            o.behind_ms
        )),
        None if m.input_latency_ms.own.n + m.input_latency_ms.remote.n == 0 => {
            Verdict::NotApplicable("names no input or frame".into())
        }
        _ => Verdict::Pass,
    }
}

/// The share of held renders allowed: a hold at a lost or late update is
/// not a staircase.
const STEPPED_MAX: f64 = 0.05;

fn check_smooth_remote(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    let Some(c) = m.checks else { return Verdict::NotApplicable("no checks recorded".into()) };
    match (c.stepped_share, c.first_step) {
        (None, _) => Verdict::NotApplicable("shows no moving remote players".into()),
        (Some(share), Some(first)) if share > STEPPED_MAX => Verdict::Fail(format!(
            "{:.1}% of moving remote players' renders were held in place for under 100 ms between moves (allowed {:.0}%); the first: {first}",
            share * 100.0,
            STEPPED_MAX * 100.0
        )),
        _ => Verdict::Pass,
    }
}

fn check_liveness(a: &dyn Algorithm, s: &Scenario) -> Verdict {
    let m = match run(a, s) {
        Ok(m) => m,
        Err(v) => return v,
    };
    let window = s.duration_us - s.heal_at_us.unwrap_or(0);
    let want = (window as f64 / 1e6 * s.tick_hz as f64 * 0.8) as u32;
    let progress = m.checks.and_then(|c| c.frames_after_mark).unwrap_or_default();
    match progress.iter().enumerate().find(|(_, &f)| f < want) {
        Some((p, f)) => Verdict::Fail(format!(
            "player {p} confirmed {f} frames in the {:.1} s after the link healed (want ≥ {want})",
            window as f64 / 1e6
        )),
        None => Verdict::Pass,
    }
}
