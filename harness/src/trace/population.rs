//! A population of `human` players: how the parameters of one
//! [`Human`] vary from person to person, fitted over many recorded
//! players, and what such a population plays.
//!
//! Each parameter has a domain in which people spread about normally:
//! the log for durations and rates (`hold`, `spread`, `press`, `aim-hz`,
//! `turn`), the logit for shares (`stop` and `fire` as shares of their
//! largest value, `diagonal`, `reverse`). [`Population::fit`] calibrates
//! one [`Human`] per recorded player ([`Human::calibrate`]) and takes, per
//! parameter, the mean and the standard deviation σ of those players in
//! its domain. [`Population::draw`] draws a player: each parameter the
//! mean plus σ times a standard normal draw (cut at ±3, so a trace's size
//! is bounded in advance), independently: the correlations between
//! parameters are not modelled.
//!
//! The population's centre is kept as its typical player, a [`Human`]
//! (the back-transformed mean), and σ in thousandths, so a population
//! compares exactly and prints as the numbers it runs with.
//!
//! [`Band`] is what the population plays: per statistic of
//! [`super::stats::COLUMNS`], the 5th, 50th and 95th percentile over many
//! simulated players, each with its own draw. A recorded player whose
//! statistic lies inside its band plays, in that statistic, like one of
//! the population.

use super::human::{normal, Human, MAX_FIRE, MAX_STOP};
use super::stats::{self, PlayerStats, COLUMNS};
use crate::rng::{Purpose, Stream};

/// The number of parameters, in [`Human::KEYS`] order.
pub const PARAMS: usize = 9;

/// How many simulated players a [`Band`] is measured over.
pub const BAND_PLAYERS: usize = 200;

/// How long each simulated player of a [`Band`] plays, µs.
pub const BAND_WINDOW_US: u64 = 60_000_000;

/// The farthest a drawn parameter lies from the mean, in σ.
const MAX_Z: f64 = 3.0;

/// A population: its typical player and, per parameter in
/// [`Human::KEYS`] order, the spread σ of the people in the parameter's
/// domain (log or logit), thousandths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Population {
    /// The centre: every parameter at the population's mean.
    pub typical: Human,
    /// σ per parameter, thousandths, in [`Human::KEYS`] order.
    pub sigma: [u32; PARAMS],
}

impl Default for Population {
    /// Fitted over the 17 players of the seven calibration recordings
    /// (`syncbench trace stats freedoom-dm,freedoom-coop,freedoom-e1m6,
    /// freedoom-map03,freedoom-map10,freedoom-e3m9,freedoom-e4m6 --fit`);
    /// a test keeps it current.
    fn default() -> Population {
        Population {
            typical: Human {
                hold_ms: 143,
                spread: 871,
                stop: 387,
                diagonal: 393,
                reverse: 133,
                fire: 285,
                press_ms: 443,
                aim_chz: 1129,
                turn_dps: 51,
            },
            sigma: [280, 126, 770, 450, 405, 398, 502, 155, 249],
        }
    }
}

/// How a parameter spreads: `Log` for durations and rates, `Logit(max)`
/// for a share of `max`.
#[derive(Clone, Copy)]
enum Domain {
    Log,
    Logit(f64),
}

/// Each parameter's domain and natural unit (what its integer is
/// divided by), in [`Human::KEYS`] order.
const DOMAINS: [(Domain, f64); PARAMS] = [
    (Domain::Log, 1.0),                // hold, ms
    (Domain::Log, 1000.0),             // spread
    (Domain::Logit(MAX_STOP), 1000.0), // stop
    (Domain::Logit(1.0), 1000.0),      // diagonal
    (Domain::Logit(1.0), 1000.0),      // reverse
    (Domain::Logit(MAX_FIRE), 1000.0), // fire
    (Domain::Log, 1.0),                // press, ms
    (Domain::Log, 100.0),              // aim-hz
    (Domain::Log, 1.0),                // turn, °/s
];

/// Each parameter's integer range, as [`Human::set`] takes it.
const RANGES: [(u32, u32); PARAMS] = [
    (1, 60_000),
    (1, 3_000),
    (0, (MAX_STOP * 1000.0) as u32),
    (0, 1000),
    (0, 1000),
    (0, (MAX_FIRE * 1000.0) as u32),
    (1, 60_000),
    (0, 10_000),
    (0, 100_000),
];

/// The parameters of `h` as integers, in [`Human::KEYS`] order.
fn params(h: &Human) -> [u32; PARAMS] {
    [h.hold_ms, h.spread, h.stop, h.diagonal, h.reverse, h.fire, h.press_ms, h.aim_chz, h.turn_dps]
}

/// The [`Human`] of integer parameters in [`Human::KEYS`] order.
fn human(p: [u32; PARAMS]) -> Human {
    Human {
        hold_ms: p[0],
        spread: p[1],
        stop: p[2],
        diagonal: p[3],
        reverse: p[4],
        fire: p[5],
        press_ms: p[6],
        aim_chz: p[7],
        turn_dps: p[8],
    }
}

/// Parameter `k`'s integer value in its domain. A share is kept off its
/// ends (half a percent in) and a duration or rate at one unit or more,
/// so every player has a finite value.
fn to_domain(k: usize, v: u32) -> f64 {
    let (domain, unit) = DOMAINS[k];
    let x = v as f64 / unit;
    match domain {
        Domain::Log => libm::log(x.max(1.0 / unit)),
        Domain::Logit(max) => {
            let s = (x / max).clamp(0.005, 0.995);
            libm::log(s / (1.0 - s))
        }
    }
}

/// Parameter `k`'s integer value at `y` in its domain, in its range.
fn from_domain(k: usize, y: f64) -> u32 {
    let (domain, unit) = DOMAINS[k];
    let x = match domain {
        Domain::Log => libm::exp(y),
        Domain::Logit(max) => max / (1.0 + libm::exp(-y)),
    };
    let (lo, hi) = RANGES[k];
    ((x * unit).round().clamp(lo as f64, hi as f64)) as u32
}

impl Population {
    /// The population of `players`, one calibrated [`Human`] each; `None`
    /// for fewer than two players (no spread to measure).
    pub fn fit(players: &[PlayerStats]) -> Option<Population> {
        if players.len() < 2 {
            return None;
        }
        let each: Vec<[f64; PARAMS]> = players
            .iter()
            .map(|s| {
                let p = params(&Human::calibrate(s));
                std::array::from_fn(|k| to_domain(k, p[k]))
            })
            .collect();
        let n = each.len() as f64;
        let mean: [f64; PARAMS] = std::array::from_fn(|k| each.iter().map(|v| v[k]).sum::<f64>() / n);
        let sd: [f64; PARAMS] = std::array::from_fn(|k| {
            libm::sqrt(each.iter().map(|v| (v[k] - mean[k]) * (v[k] - mean[k])).sum::<f64>() / (n - 1.0))
        });
        Some(Population {
            typical: human(std::array::from_fn(|k| from_domain(k, mean[k]))),
            sigma: sd.map(|s| (s * 1000.0).round().min(u32::MAX as f64) as u32),
        })
    }

    /// Parameter `k` at `z` σ from the centre, in its range.
    fn at(&self, k: usize, z: f64) -> u32 {
        let centre = to_domain(k, params(&self.typical)[k]);
        from_domain(k, centre + z * self.sigma[k] as f64 / 1000.0)
    }

    /// One player's parameters, drawn from `rng`.
    pub fn draw(&self, rng: &mut Stream) -> Human {
        human(std::array::from_fn(|k| self.at(k, normal(rng).clamp(-MAX_Z, MAX_Z))))
    }

    /// The player that changes inputs fastest of any this population
    /// draws (shortest holds and presses, most fire and aim changes): its
    /// [`Human::changes`] bounds every drawn player's.
    pub fn fastest(&self) -> Human {
        // Changes grow with fire and aim-hz and shrink with hold, spread
        // and press; stop, diagonal, reverse and turn do not count.
        let z = [-MAX_Z, -MAX_Z, 0.0, 0.0, 0.0, MAX_Z, -MAX_Z, MAX_Z, 0.0];
        human(std::array::from_fn(|k| self.at(k, z[k])))
    }

    /// Parameter `k` at the population's 5th and 95th percentile.
    pub fn range(&self, k: usize) -> (u32, u32) {
        (self.at(k, -Z95), self.at(k, Z95))
    }

    /// What `players` simulated players play over `window_us`, each
    /// drawing its parameters as the `human` generator's player of that
    /// index does with `seed`.
    pub fn band(&self, players: usize, window_us: u64, seed: u64) -> Band {
        let each: Vec<PlayerStats> = (0..players)
            .map(|p| {
                let mut rng = Stream::new(seed, Purpose::Trace, p as u64);
                let h = self.draw(&mut rng);
                let track = super::Track { segments: h.segments(window_us, &mut rng), repeat_us: None };
                stats::of_track(&track, window_us)
            })
            .collect();
        let mut lo = [0.0; COLUMNS.len()];
        let mut mid = [0.0; COLUMNS.len()];
        let mut hi = [0.0; COLUMNS.len()];
        for (c, (_, f)) in COLUMNS.iter().enumerate() {
            let mut v: Vec<f64> = each.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len().max(1)) - 1];
            if !v.is_empty() {
                (lo[c], mid[c], hi[c]) = (at(0.05), at(0.5), at(0.95));
            }
        }
        Band { lo, mid, hi }
    }
}

/// The standard normal's 95th percentile.
const Z95: f64 = 1.6448536269514722;

/// One parameter of a population, in natural units.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamRow {
    /// The parameter's name, as [`Human::set`] takes it.
    pub key: &'static str,
    /// The typical player's value.
    pub typical: f64,
    /// The spread σ in the parameter's domain.
    pub sigma: f64,
    /// `log` or `logit`.
    pub domain: &'static str,
    /// The 5th percentile of the population's players.
    pub lo: f64,
    /// The 95th percentile of the population's players.
    pub hi: f64,
}

impl Population {
    /// Every parameter, in [`Human::KEYS`] order.
    pub fn rows(&self) -> Vec<ParamRow> {
        let typical = params(&self.typical);
        (0..PARAMS)
            .map(|k| {
                let (domain, unit) = DOMAINS[k];
                let (lo, hi) = self.range(k);
                ParamRow {
                    key: Human::KEYS[k],
                    typical: typical[k] as f64 / unit,
                    sigma: self.sigma[k] as f64 / 1000.0,
                    domain: match domain {
                        Domain::Log => "log",
                        Domain::Logit(_) => "logit",
                    },
                    lo: lo as f64 / unit,
                    hi: hi as f64 / unit,
                }
            })
            .collect()
    }

    /// The parameters as a table (Markdown if `markdown`): the typical
    /// value, σ in its domain and the 5th–95th percentile of players.
    pub fn table(&self, markdown: bool) -> String {
        let header: Vec<String> =
            ["parameter", "typical", "σ", "domain", "players 5–95%"].into_iter().map(String::from).collect();
        let rows: Vec<Vec<String>> = self
            .rows()
            .into_iter()
            .map(|r| {
                vec![
                    r.key.to_string(),
                    format!("{}", r.typical),
                    format!("{:.3}", r.sigma),
                    r.domain.to_string(),
                    format!("{}–{}", r.lo, r.hi),
                ]
            })
            .collect();
        crate::report::table::render(&header, &rows, markdown)
    }
}

/// Per statistic of [`COLUMNS`], the 5th, 50th and 95th percentile over
/// simulated players.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// 5th percentiles.
    pub lo: [f64; COLUMNS.len()],
    /// Medians.
    pub mid: [f64; COLUMNS.len()],
    /// 95th percentiles.
    pub hi: [f64; COLUMNS.len()],
}

impl Band {
    /// Per statistic, where `s` lies: −1 below the band, 0 inside, 1
    /// above.
    pub fn place(&self, s: &PlayerStats) -> [i8; COLUMNS.len()] {
        std::array::from_fn(|c| {
            let v = (COLUMNS[c].1)(s);
            if v < self.lo[c] {
                -1
            } else if v > self.hi[c] {
                1
            } else {
                0
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains_round_trip_every_integer_value_they_hold() {
        for k in 0..PARAMS {
            let (lo, hi) = RANGES[k];
            for v in [lo.max(1), lo.max(1) + 7, (lo + hi) / 2, hi.saturating_sub(50)] {
                let (domain, _) = DOMAINS[k];
                // Shares are kept half a percent off their ends.
                let kept = match domain {
                    Domain::Logit(_) => to_domain(k, v) > -5.29 && to_domain(k, v) < 5.29,
                    Domain::Log => true,
                };
                if kept {
                    assert_eq!(from_domain(k, to_domain(k, v)), v, "{}", Human::KEYS[k]);
                }
            }
        }
    }

    #[test]
    fn a_population_without_spread_draws_its_typical_player() {
        let p = Population { typical: Human::default(), sigma: [0; PARAMS] };
        let mut rng = Stream::new(1, Purpose::Trace, 0);
        for _ in 0..10 {
            assert_eq!(p.draw(&mut rng), p.typical);
        }
    }

    /// Draws vary by player and stay within ±3σ, and the fastest player
    /// bounds every drawn player's changes.
    #[test]
    fn draws_spread_and_the_fastest_bounds_them() {
        let p = Population { typical: Human::default(), sigma: [400; PARAMS] };
        let fastest = p.fastest().changes(60_000_000);
        let drawn: Vec<Human> = (0..200).map(|i| p.draw(&mut Stream::new(3, Purpose::Trace, i))).collect();
        assert!(drawn.windows(2).all(|w| w[0] != w[1]));
        for h in &drawn {
            assert!(h.changes(60_000_000) <= fastest, "{h}");
            assert!(h.hold_ms as f64 <= p.typical.hold_ms as f64 * libm::exp(3.0 * 0.4) + 1.0, "{h}");
        }
        let holds: Vec<f64> = drawn.iter().map(|h| libm::log(h.hold_ms as f64)).collect();
        let mean = holds.iter().sum::<f64>() / holds.len() as f64;
        let sd = libm::sqrt(holds.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / holds.len() as f64);
        assert!((sd - 0.4).abs() < 0.06, "{sd}");
    }

    /// Fitting the draws of a population gives it back (within what 200
    /// players of two minutes measure).
    #[test]
    fn a_fit_recovers_spreads() {
        let p = Population { typical: Human::default(), sigma: [200, 100, 300, 300, 300, 300, 300, 150, 200] };
        let players: Vec<PlayerStats> = (0..200)
            .map(|i| {
                let mut rng = Stream::new(9, Purpose::Trace, i);
                let h = p.draw(&mut rng);
                let t = super::super::Track { segments: h.segments(120_000_000, &mut rng), repeat_us: None };
                stats::of_track(&t, 120_000_000)
            })
            .collect();
        let fit = Population::fit(&players).unwrap();
        for k in [0, 5, 7, 8] {
            let (want, got) = (p.sigma[k] as f64, fit.sigma[k] as f64);
            assert!((got - want).abs() < 0.25 * want, "{}: σ {got} against {want}", Human::KEYS[k]);
        }
    }
}
