//! Seeded input generators: named patterns that produce a [`Track`] per
//! player. A generator is written `name` or `name:key=value,...`, e.g.
//! `zigzag:period=2s` or `random-walk:seed=9`.
//!
//! | name | what the player does |
//! |---|---|
//! | `idle` | nothing |
//! | `random-walk` | a random direction (or a stop) every 0.3–1.5 s, sometimes jumping |
//! | `zigzag` | diagonals alternating up/down every `period` (default 1 s), reversing horizontally every 4 periods |
//! | `stop-go` | moves for `period` (default 1 s), stops for `period`; direction turns R, U, L, D |
//! | `strafe-shoot` | strafes left/right every 0.4–1.2 s while firing in a random aim |
//! | `human` | plays like people: direction holds, stops, diagonals, reversals, fire and aim sweeps; each player draws its own parameters from a population fitted to recorded players ([`super::population`]); `human:KEY=VALUE,…` is one player type for every player (`trace stats FILE --fit` gives a recording's), see [`super::human`] |
//! | `lanes` | up, down or a stop every 0.3–1.5 s, sometimes jumping, never sideways: each player keeps to its spawn column, so on the standard arena up to 12 players never touch (contact-free: `vs ideal` without collision chaos) |
//!
//! Each player's stream is seeded from `(seed, player)`, so players differ
//! and the same seed always gives the same trace. The periodic patterns
//! (`zigzag`, `stop-go`) move each change later by a seeded amount under
//! 100 ms ([`DITHER_US`]) so that it does not phase-lock to the tick; the
//! random patterns' instants are random to the microsecond already.

use super::human::Human;
use super::population::Population;
use super::Track;
use crate::error::{InputError, Source};
use crate::game::Input;
use crate::rng::{Purpose, Stream};
use crate::time::parse_duration;
use std::fmt;

/// Which pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Nothing held.
    Idle,
    /// Random directions and stops.
    RandomWalk,
    /// Alternating diagonals.
    Zigzag,
    /// Move, stop, turn.
    StopGo,
    /// Strafe and fire.
    StrafeShoot,
    /// Up and down in one's own column: contact-free.
    Lanes,
    /// Calibrated to recorded human play.
    Human,
}

/// A generator: a pattern and its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Generator {
    /// The pattern.
    pub pattern: Pattern,
    /// Its period, µs, for periodic patterns.
    pub period_us: u64,
    /// Its own seed, overriding the run's.
    pub seed: Option<u64>,
    /// The `human` pattern's parameters when [`Generator::population`]
    /// is off: one player type for every player.
    pub human: Human,
    /// Whether each `human` player draws its own parameters from the
    /// default [`Population`] (`human` alone), rather than all playing
    /// [`Generator::human`] (`human:KEY=VALUE,…` or `population=off`).
    pub population: bool,
}

impl Generator {
    /// The generator names.
    pub const NAMES: &'static [&'static str] =
        &["idle", "random-walk", "zigzag", "stop-go", "strafe-shoot", "lanes", "human"];

    /// Parses `name[:key=value,...]`; `Ok(None)` if `name` is no generator.
    pub fn parse(spec: &str, source: &Source) -> Result<Option<Generator>, InputError> {
        let (name, params) = spec.split_once(':').unwrap_or((spec, ""));
        let pattern = match name {
            "idle" => Pattern::Idle,
            "random-walk" => Pattern::RandomWalk,
            "zigzag" => Pattern::Zigzag,
            "stop-go" => Pattern::StopGo,
            "strafe-shoot" => Pattern::StrafeShoot,
            "lanes" => Pattern::Lanes,
            "human" => Pattern::Human,
            _ => return Ok(None),
        };
        let mut g = Generator { pattern, period_us: 1_000_000, seed: None, human: Human::default(), population: false };
        // `human` draws each player from the population unless a parameter
        // or `population=off` fixes one player type; `population=on` with
        // a parameter is refused, as the two ask for different things.
        let mut population = None;
        let mut fixed = None;
        for kv in params.split(',').filter(|s| !s.is_empty()) {
            let err = |m: String| InputError::at(source, None, format!("generator `{name}`: {m}"));
            let (k, v) = kv.split_once('=').ok_or_else(|| err(format!("`{kv}`: expected key=value")))?;
            match k {
                "period" if pattern == Pattern::Human => {
                    return Err(err("`period`: `human` has none; its parameters are hold, spread, stop, diagonal, reverse, fire, press, aim-hz, turn, population and seed".into()))
                }
                "period" => {
                    g.period_us = parse_duration(v).map_err(err)?;
                    if !(1_000..=3_600_000_000).contains(&g.period_us) {
                        return Err(err(format!("period `{v}`: expected 1ms..=1h")));
                    }
                }
                "seed" => g.seed = Some(v.parse().map_err(|_| err(format!("seed `{v}`: expected an integer")))?),
                "population" if pattern == Pattern::Human => {
                    population = Some(match v {
                        "on" => true,
                        "off" => false,
                        _ => return Err(err(format!("population `{v}`: expected on or off"))),
                    })
                }
                _ if pattern == Pattern::Human => {
                    g.human.set(k, v).map_err(err)?;
                    fixed = Some(k.to_string());
                }
                _ => return Err(err(format!("unknown parameter `{k}`: expected period or seed"))),
            }
        }
        if pattern == Pattern::Human {
            if let (Some(true), Some(k)) = (population, &fixed) {
                return Err(InputError::at(
                    source,
                    None,
                    format!("generator `human`: `{k}` fixes one player type for every player, `population=on` draws each player's own: drop one"),
                ));
            }
            g.population = population.unwrap_or(fixed.is_none());
        }
        Ok(Some(g))
    }

    /// At most how many input changes one track has over `duration_us`
    /// (known before any is generated, to bound the trace's memory).
    pub fn changes(&self, duration_us: u64) -> u64 {
        let spacing = match self.pattern {
            Pattern::Idle => return 1,
            Pattern::Human if self.population => return Population::default().fastest().changes(duration_us),
            Pattern::Human => return self.human.changes(duration_us),
            Pattern::Zigzag | Pattern::StopGo => self.period_us.max(1),
            // The random patterns change every 0.3 s at the most.
            Pattern::RandomWalk | Pattern::Lanes | Pattern::StrafeShoot => 300_000,
        };
        duration_us / spacing + 2
    }

    /// Player `p`'s track over `duration_us` (the last segment then holds).
    pub fn track(&self, p: usize, duration_us: u64, run_seed: u64) -> Track {
        let mut rng = Stream::new(self.seed.unwrap_or(run_seed), Purpose::Trace, p as u64);
        let mut segs: Vec<(u64, Input)> = Vec::new();
        let period = self.period_us;
        let dirs = [Input::RIGHT, Input::UP, Input::LEFT, Input::DOWN];
        match self.pattern {
            Pattern::Idle => segs.push((0, Input::IDLE)),
            Pattern::RandomWalk => {
                let mut t = 0;
                while t < duration_us {
                    let k = rng.below(10);
                    // Stop, one of four directions, or one of four diagonals.
                    let mut b = match k {
                        0 => 0,
                        1..=4 => dirs[k as usize - 1],
                        _ => dirs[(k as usize - 5) % 4] | dirs[(k as usize - 4) % 4],
                    };
                    if rng.below(10) == 0 {
                        b |= Input::JUMP;
                    }
                    segs.push((t, Input::buttons(b)));
                    t += rng.range_inclusive(300_000, 1_500_000) as u64;
                }
            }
            Pattern::Zigzag => {
                let offset = (p as u64 % 4) * period / 4;
                segs.push((0, Input::IDLE));
                let mut k = 0u64;
                let mut t = offset;
                while t < duration_us {
                    let h = if (k / 4).is_multiple_of(2) { Input::RIGHT } else { Input::LEFT };
                    let v = if k.is_multiple_of(2) { Input::UP } else { Input::DOWN };
                    segs.push((dithered(t, period, &mut rng), Input::buttons(h | v)));
                    k += 1;
                    t += period;
                }
            }
            Pattern::StopGo => {
                let mut k = (p % 4) as u64;
                let mut t = 0;
                while t < duration_us {
                    segs.push((dithered(t, period, &mut rng), Input::buttons(dirs[(k % 4) as usize])));
                    segs.push((dithered(t + period, period, &mut rng), Input::IDLE));
                    k += 1;
                    t += 2 * period;
                }
            }
            Pattern::Lanes => {
                let mut t = 0;
                while t < duration_us {
                    let mut b = [0, Input::UP, Input::DOWN][rng.below(3) as usize];
                    if rng.below(10) == 0 {
                        b |= Input::JUMP;
                    }
                    segs.push((t, Input::buttons(b)));
                    t += rng.range_inclusive(300_000, 1_500_000) as u64;
                }
            }
            // A drawn player draws its parameters first, then its play,
            // from its own stream.
            Pattern::Human if self.population => {
                segs = Population::default().draw(&mut rng).segments(duration_us, &mut rng)
            }
            Pattern::Human => segs = self.human.segments(duration_us, &mut rng),
            Pattern::StrafeShoot => {
                let mut t = 0;
                let mut left = p.is_multiple_of(2);
                while t < duration_us {
                    let aim_x = rng.range_inclusive(-127, 127) as i8;
                    let aim_y = rng.range_inclusive(-127, 127) as i8;
                    let dir = if left { Input::LEFT } else { Input::RIGHT };
                    segs.push((t, Input { buttons: dir | Input::SHOOT, aim_x, aim_y }));
                    left = !left;
                    t += rng.range_inclusive(400_000, 1_200_000) as u64;
                }
            }
        }
        // Normalise: start at 0, a later segment at the same instant wins,
        // and consecutive equal inputs merge.
        let mut out: Vec<(u64, Input)> = vec![(0, Input::IDLE)];
        for (t, input) in segs {
            match out.last_mut() {
                Some(last) if last.0 == t => last.1 = input,
                _ => out.push((t, input)),
            }
        }
        out.dedup_by(|b, a| a.1 == b.1);
        Track { segments: out, repeat_us: None }
    }
}

/// How far a periodic pattern's change may land after its nominal
/// instant: 100 ms is a whole number of ticks at every tick rate that
/// divides a second into tenths (10, 20, … 120, 240 Hz), so a uniform
/// dither over it leaves the change uniform in phase against the tick.
pub const DITHER_US: u64 = 100_000;

/// `t` moved later by a seeded amount uniform in `[0, DITHER_US)`, less
/// than `period` so changes keep their order (the first stays at 0).
/// Round instants would otherwise all land just after a tick (a 60 Hz
/// tick is 16,666 µs) and every input would wait nearly a whole tick to
/// be sampled.
fn dithered(t: u64, period: u64, rng: &mut Stream) -> u64 {
    let width = DITHER_US.min(period);
    if t == 0 || width <= 1 {
        return t;
    }
    t + rng.below(width)
}

impl fmt::Display for Generator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = Self::NAMES[self.pattern as usize];
        write!(f, "{name}")?;
        let mut params = Vec::new();
        if self.period_us != 1_000_000 && matches!(self.pattern, Pattern::Zigzag | Pattern::StopGo) {
            params.push(format!("period={}ms", self.period_us / 1000));
        }
        // One player type prints every parameter: `human` alone would
        // draw from the population.
        if self.pattern == Pattern::Human && !self.population {
            params.push(self.human.to_string());
        }
        if let Some(s) = self.seed {
            params.push(format!("seed={s}"));
        }
        if !params.is_empty() {
            write!(f, ":{}", params.join(","))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(spec: &str) -> Generator {
        Generator::parse(spec, &Source::BuiltIn("test".into())).unwrap().unwrap()
    }

    #[test]
    fn every_generator_is_seeded_and_deterministic() {
        for name in Generator::NAMES {
            let g = gen(name);
            assert_eq!(g.track(1, 20_000_000, 5), g.track(1, 20_000_000, 5), "{name}");
            let t = g.track(0, 20_000_000, 5);
            assert_eq!(t.segments[0].0, 0);
            assert!(t.segments.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1), "{name}");
        }
        let rw = gen("random-walk");
        assert_ne!(rw.track(0, 20_000_000, 1), rw.track(0, 20_000_000, 2));
        assert_ne!(rw.track(0, 20_000_000, 1), rw.track(1, 20_000_000, 1));
        assert_eq!(
            gen("random-walk:seed=4").track(0, 20_000_000, 1),
            gen("random-walk:seed=4").track(0, 20_000_000, 99)
        );
    }

    #[test]
    fn zigzag_alternates_with_its_period() {
        let t = gen("zigzag:period=500ms").track(0, 4_000_000, 0);
        assert_eq!(t.input_at(100_000), Input::buttons(Input::RIGHT | Input::UP));
        assert_eq!(t.input_at(600_000), Input::buttons(Input::RIGHT | Input::DOWN));
        assert_eq!(t.input_at(2_100_000), Input::buttons(Input::LEFT | Input::UP));
    }

    /// Round instants would all sit just past a 60 Hz tick; dithered, the
    /// changes' phase within the tick is spread evenly.
    #[test]
    fn periodic_changes_do_not_phase_lock_to_the_tick() {
        let tick = 1_000_000.0 / 60.0;
        for spec in ["zigzag", "stop-go", "zigzag:period=250ms"] {
            let t = gen(spec).track(1, 3_600_000_000, 3);
            let phases: Vec<f64> = t.segments[1..].iter().map(|s| (s.0 as f64 % tick) / tick).collect();
            let mean = phases.iter().sum::<f64>() / phases.len() as f64;
            // Uniform phases: mean 1/2 with a standard error under 0.006.
            assert!((mean - 0.5).abs() < 0.03, "{spec}: mean phase {mean} over {}", phases.len());
            let early = phases.iter().filter(|&&p| p < 0.5).count() as f64 / phases.len() as f64;
            assert!((early - 0.5).abs() < 0.05, "{spec}: {early} in the first half");
        }
    }

    #[test]
    fn bad_parameters_are_reported() {
        let src = Source::BuiltIn("t".into());
        assert!(Generator::parse("zigzag:period=fast", &src).is_err());
        assert!(Generator::parse("zigzag:speed=2", &src).is_err());
        assert_eq!(Generator::parse("teleport", &src), Ok(None));
    }
}
