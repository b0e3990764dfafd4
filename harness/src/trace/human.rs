//! The `human` generator: play whose statistics ([`super::stats`]) are a
//! recorded human's, for runs longer and more varied than a recording.
//!
//! Three independent processes per player, each a renewal process at
//! microsecond instants:
//!
//! - **movement**, a semi-Markov chain over the eight directions and a
//!   stop. Each state is held for a log-normal time (median `hold`,
//!   log-spread `spread`, calibrated so the mean hold is the recording's:
//!   the generator changes direction as often as the people did); from a
//!   move the next state is a stop with probability `stop / (1 − stop)`
//!   (so stops take about a `stop` share of holds, and of time); above a
//!   half, every move is followed by a stop and a stop's median hold is
//!   `hold · stop / (1 − stop)`, so stops still take a `stop` share of
//!   time (up to 0.9); after a stop comes a direction other than the
//!   last: with probability `reverse` one at 135° or more from the last,
//!   else one of the others; a diagonal with probability `diagonal`;
//! - **fire**, presses of log-normal length (median `press`, log-spread
//!   1) and exponential gaps sized so fire is held a `fire` share of time;
//! - **aim**, a turning facing: changes at `aim-hz` on average
//!   (exponential gaps), each turning by an exponential angle with mean
//!   `turn / aim-hz` degrees, continuing the last turn's sense with
//!   probability 0.8 (people turn in sweeps).
//!
//! A [`Human`] is one player type. [`Human::calibrate`] sets every
//! parameter from one player's (or a trace's pooled) statistics;
//! [`Human::default`] is the typical player of the default
//! [`super::population::Population`], fitted to the shipped Freedoom
//! recordings (a test keeps it current). The `human` generator draws
//! each player's own `Human` from that population.

use super::stats::PlayerStats;
use crate::game::Input;
use crate::rng::Stream;
use std::fmt;

/// The parameters, in integers so that a generator compares exactly:
/// durations in ms, shares and probabilities in thousandths, the aim rate
/// in hundredths of a hertz, the turn rate in degrees per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Human {
    /// Median hold of a direction or stop, ms.
    pub hold_ms: u32,
    /// Log-normal spread (σ of the log) of holds, thousandths.
    pub spread: u32,
    /// Share of holds (and time) stopped, thousandths.
    pub stop: u32,
    /// Share of moves on a diagonal, thousandths.
    pub diagonal: u32,
    /// Chance a new direction reverses (135° or more), thousandths.
    pub reverse: u32,
    /// Share of time fire is held, thousandths.
    pub fire: u32,
    /// Median fire press, ms.
    pub press_ms: u32,
    /// Aim changes per second, hundredths.
    pub aim_chz: u32,
    /// Aim turning, degrees per second.
    pub turn_dps: u32,
}

/// How often an aim sweep keeps its sense.
const SWEEP_KEEP: f64 = 0.8;
/// The largest `stop` share: a stop always leads to a move, so above a
/// half the stops are held longer than the moves.
pub(super) const MAX_STOP: f64 = 0.9;
/// The largest `fire` share, so that fire is sometimes released.
pub(super) const MAX_FIRE: f64 = 0.99;
/// The spread of fire presses (σ of the log).
const PRESS_SPREAD: f64 = 1.0;
/// The shortest hold, press or aim gap, µs: a change per player per
/// process per 10 ms at most, so a trace's size is bounded in advance.
pub const MIN_GAP_US: u64 = 10_000;

impl Default for Human {
    /// The typical player of the default population (its centre in every
    /// parameter), fitted to the calibration recordings (`syncbench trace
    /// stats freedoom-dm,freedoom-coop,… --fit`).
    fn default() -> Human {
        super::population::Population::default().typical
    }
}

impl Human {
    /// The parameter names, in [`fmt::Display`] order.
    pub const KEYS: &'static [&'static str] =
        &["hold", "spread", "stop", "diagonal", "reverse", "fire", "press", "aim-hz", "turn"];

    /// The parameters that reproduce `s`.
    pub fn calibrate(s: &PlayerStats) -> Human {
        let thousandths = |x: f64, max: f64| (x.clamp(0.0, max) * 1000.0).round() as u32;
        let ms = |x: f64| x.round().clamp(1.0, 60_000.0) as u32;
        let p50 = s.hold_ms[1];
        // The spread that gives the recording's mean hold, so the generator
        // changes direction as often as the recording does.
        let mean = s.hold_ms[3];
        let spread = if p50 > 0.0 && mean > p50 { libm::sqrt(2.0 * libm::log(mean / p50)) } else { 0.5 };
        let moving = (1.0 - s.stopped).max(1e-9);
        // Time with 2+ keys: moving on a diagonal, or moving straight
        // while firing: two_keys = moving · (diag + (1 − diag) · fire).
        let diagonal = if s.fire_duty < 1.0 { (s.two_keys / moving - s.fire_duty) / (1.0 - s.fire_duty) } else { 0.0 };
        Human {
            hold_ms: ms(p50),
            spread: (spread.clamp(0.001, 3.0) * 1000.0).round() as u32,
            stop: thousandths(s.stopped, MAX_STOP),
            diagonal: thousandths(diagonal, 1.0),
            reverse: thousandths(s.reverse_share, 1.0),
            fire: thousandths(s.fire_duty, MAX_FIRE),
            press_ms: ms(s.fire_press_ms),
            aim_chz: (s.aim_changes_per_s * 100.0).round().clamp(0.0, 10_000.0) as u32,
            turn_dps: s.turn_deg_per_s.round().clamp(0.0, 100_000.0) as u32,
        }
    }

    /// Sets one parameter from its text; an error says what was expected.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let ms = |v: &str| -> Result<u32, String> {
            crate::time::parse_duration(v)
                .ok()
                .filter(|&us| (1_000..=60_000_000).contains(&us))
                .map(|us| (us / 1_000) as u32)
                .ok_or_else(|| format!("{key} `{v}`: expected a duration from 1ms to 60s, such as 250ms"))
        };
        let share = |v: &str, max: f64| -> Result<u32, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| (0.0..=max).contains(x))
                .map(|x| (x * 1000.0).round() as u32)
                .ok_or_else(|| format!("{key} `{v}`: expected a share from 0 to {max}, such as 0.25"))
        };
        let number = |v: &str, hi: f64, scale: f64| -> Result<u32, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| (0.0..=hi).contains(x))
                .map(|x| (x * scale).round() as u32)
                .ok_or_else(|| format!("{key} `{v}`: expected a number from 0 to {hi}"))
        };
        match key {
            "hold" => self.hold_ms = ms(value)?,
            "spread" => self.spread = number(value, 3.0, 1000.0)?,
            "stop" => self.stop = share(value, MAX_STOP)?,
            "diagonal" => self.diagonal = share(value, 1.0)?,
            "reverse" => self.reverse = share(value, 1.0)?,
            "fire" => self.fire = share(value, MAX_FIRE)?,
            "press" => self.press_ms = ms(value)?,
            "aim-hz" => self.aim_chz = number(value, 100.0, 100.0)?,
            "turn" => self.turn_dps = number(value, 100_000.0, 1.0)?,
            _ => {
                return Err(format!(
                    "unknown parameter `{key}`: expected {}, population or seed",
                    Human::KEYS.join(", ")
                ))
            }
        }
        Ok(())
    }

    /// At most how many changes one track has over `duration_us`: four
    /// times the expected number, and 64 more. A track stops changing
    /// there (it never does in practice: the count is a sum of thousands
    /// of draws, far inside four times its mean).
    pub fn changes(&self, duration_us: u64) -> u64 {
        let gap = MIN_GAP_US as f64;
        let sigma = self.spread as f64 / 1000.0;
        let mean_hold = (self.hold_ms as f64 * 1e3 * libm::exp(sigma * sigma / 2.0)).max(gap);
        let duty = self.fire as f64 / 1000.0;
        let mean_press = (self.press_ms as f64 * 1e3 * libm::exp(PRESS_SPREAD * PRESS_SPREAD / 2.0)).max(gap);
        let fire = if duty > 0.0 { 2.0 / (mean_press + (mean_press * (1.0 - duty) / duty).max(gap)) } else { 0.0 };
        let aim = (self.aim_chz as f64 / 100.0 / 1e6).min(1.0 / gap);
        let per_us = 1.0 / mean_hold + fire + aim;
        (4.0 * per_us * duration_us as f64).ceil().min(u64::MAX as f64 / 2.0) as u64 + 64
    }

    /// One player's segments over `duration_us`, from `rng`.
    pub fn segments(&self, duration_us: u64, rng: &mut Stream) -> Vec<(u64, Input)> {
        // Each process's change instants, then merged in time order.
        let moves = self.movement(duration_us, rng);
        let fire = self.fire(duration_us, rng);
        let aims = self.aim(duration_us, rng);
        let mut instants: Vec<u64> =
            moves.iter().map(|c| c.0).chain(fire.iter().map(|c| c.0)).chain(aims.iter().map(|c| c.0)).collect();
        instants.sort_unstable();
        instants.dedup();
        instants.truncate(self.changes(duration_us) as usize);
        let (mut m, mut f, mut a) = (0, 0, 0);
        instants
            .into_iter()
            .map(|t| {
                while m + 1 < moves.len() && moves[m + 1].0 <= t {
                    m += 1;
                }
                while f + 1 < fire.len() && fire[f + 1].0 <= t {
                    f += 1;
                }
                while a + 1 < aims.len() && aims[a + 1].0 <= t {
                    a += 1;
                }
                let mut buttons = moves[m].1;
                if fire[f].1 {
                    buttons |= Input::SHOOT;
                }
                (t, Input { buttons, aim_x: aims[a].1, aim_y: aims[a].2 })
            })
            .collect()
    }

    /// `(instant, direction buttons)` from 0.
    fn movement(&self, duration_us: u64, rng: &mut Stream) -> Vec<(u64, u8)> {
        let stop = self.stop as f64 / 1000.0;
        // Stops per move; above 1 (a stop share above a half), one stop
        // per move, held that many times longer.
        let per_move = stop / (1.0 - stop);
        let p_stop = per_move.min(1.0);
        let sigma = self.spread as f64 / 1000.0;
        let median = self.hold_ms as f64 * 1e3;
        let stop_median = median * per_move.max(1.0);
        let mut out = Vec::new();
        let mut t: u64 = 0;
        let mut last: Option<usize> = None; // the last moving direction
        let mut stopped = chance(rng, stop);
        loop {
            let buttons = if stopped {
                0
            } else {
                let d = self.next_direction(last, rng);
                last = Some(d);
                Input::DIRECTIONS[d]
            };
            out.push((t, buttons));
            let m = if stopped { stop_median } else { median };
            t = t.saturating_add(log_normal(rng, m, sigma).max(MIN_GAP_US as f64) as u64);
            if t >= duration_us {
                return out;
            }
            // After a stop, always a move; after a move, a stop or a move.
            stopped = !stopped && chance(rng, p_stop);
        }
    }

    /// A direction index after `last`.
    fn next_direction(&self, last: Option<usize>, rng: &mut Stream) -> usize {
        let diagonal = chance(rng, self.diagonal as f64 / 1000.0);
        let Some(l) = last else {
            return 2 * rng.below(4) as usize + usize::from(diagonal);
        };
        // Directions of the wanted kind (diagonal or not), split into those
        // 135° or more from `l` and the others (not `l` itself).
        let kind: Vec<usize> = (0..8).filter(|d| (d % 2 == 1) == diagonal && *d != l).collect();
        let far = |d: &usize| {
            let k = (d + 8 - l) % 8;
            (3..=5).contains(&k)
        };
        let (rev, other): (Vec<usize>, Vec<usize>) = kind.into_iter().partition(far);
        let pool = if chance(rng, self.reverse as f64 / 1000.0) { rev } else { other };
        pool[rng.below(pool.len() as u64) as usize]
    }

    /// `(instant, fire held)` from 0.
    fn fire(&self, duration_us: u64, rng: &mut Stream) -> Vec<(u64, bool)> {
        let duty = self.fire as f64 / 1000.0;
        let mut out = vec![(0, false)];
        if duty <= 0.0 {
            return out;
        }
        let median = self.press_ms as f64 * 1e3;
        let mean_press = median * libm::exp(PRESS_SPREAD * PRESS_SPREAD / 2.0);
        let mean_gap = mean_press * (1.0 - duty) / duty;
        let mut t = exponential(rng, mean_gap).max(MIN_GAP_US as f64) as u64;
        while t < duration_us {
            out.push((t, true));
            t = t.saturating_add(log_normal(rng, median, PRESS_SPREAD).max(MIN_GAP_US as f64) as u64);
            if t >= duration_us {
                break;
            }
            out.push((t, false));
            t = t.saturating_add(exponential(rng, mean_gap).max(MIN_GAP_US as f64) as u64);
        }
        out
    }

    /// `(instant, aim x, aim y)` from 0: a facing turning in sweeps.
    fn aim(&self, duration_us: u64, rng: &mut Stream) -> Vec<(u64, i8, i8)> {
        let mut facing = rng.below(360) as f64;
        let point = |deg: f64| {
            let r = deg.to_radians();
            let (s, c) = (libm::sin(r), libm::cos(r));
            ((127.0 * c).round() as i8, (127.0 * s).round() as i8)
        };
        let (x, y) = point(facing);
        let mut out = vec![(0, x, y)];
        let hz = self.aim_chz as f64 / 100.0;
        if hz <= 0.0 {
            return out;
        }
        let step = self.turn_dps as f64 / hz;
        let mut sense = 1.0;
        let mut t: u64 = 0;
        loop {
            t = t.saturating_add(exponential(rng, 1e6 / hz).max(MIN_GAP_US as f64) as u64);
            if t >= duration_us {
                return out;
            }
            if !chance(rng, SWEEP_KEEP) {
                sense = -sense;
            }
            facing = (facing + sense * exponential(rng, step)).rem_euclid(360.0);
            let (x, y) = point(facing);
            out.push((t, x, y));
        }
    }
}

impl fmt::Display for Human {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let k = |v: u32| format!("{}", v as f64 / 1000.0);
        write!(
            f,
            "hold={}ms,spread={},stop={},diagonal={},reverse={},fire={},press={}ms,aim-hz={},turn={}",
            self.hold_ms,
            k(self.spread),
            k(self.stop),
            k(self.diagonal),
            k(self.reverse),
            k(self.fire),
            self.press_ms,
            self.aim_chz as f64 / 100.0,
            self.turn_dps
        )
    }
}

/// A uniform draw in [0, 1).
fn unit(rng: &mut Stream) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// True with probability `p`.
fn chance(rng: &mut Stream, p: f64) -> bool {
    unit(rng) < p
}

/// An exponential draw with mean `mean`.
fn exponential(rng: &mut Stream, mean: f64) -> f64 {
    -mean * libm::log(1.0 - unit(rng))
}

/// A standard normal draw (Box–Muller).
pub(super) fn normal(rng: &mut Stream) -> f64 {
    let (u1, u2) = (1.0 - unit(rng), unit(rng));
    libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(std::f64::consts::TAU * u2)
}

/// A log-normal draw with median `median` and log-spread `sigma`.
fn log_normal(rng: &mut Stream, median: f64, sigma: f64) -> f64 {
    median * libm::exp(sigma * normal(rng))
}
