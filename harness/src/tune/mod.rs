//! Tuning an algorithm's numeric options for the networks its players
//! have (`syncbench tune`): candidate settings on a grid, each run on the
//! same seeds (paired), the Pareto front of what trades, a recommendation
//! under a goal ([`goal`]), and the published rules of thumb ([`rules`])
//! placed on the same front ([`front`]).
//!
//! The search space ([`Space`]) is up to [`MAX_OPTIONS`] options, each a
//! list of values: given as `name=lo..hi:step` or `name=v1,v2,…`, or by
//! default the options the rules speak about that the algorithm has, on a
//! grid over the part of their declared range around their default. One
//! or two options run every setting on every seed; more are searched by
//! successive halving over the seeds ([`rungs`]): every setting on the
//! first seeds, the best third on more, and so on to all of them.

pub mod front;
pub mod goal;
pub mod picture;
pub mod rules;

use crate::contract::OptionSpec;
use crate::net::link_probe::{probe_link, probe_stream};
use crate::net::Profile;

/// The most options one search spans.
pub const MAX_OPTIONS: usize = 4;

/// The most options searched when none is named: every setting on every seed.
pub const DEFAULT_OPTIONS: usize = 2;

/// The most settings one search's grid holds.
pub const MAX_SETTINGS: usize = 1024;

/// The most values one option takes.
pub const MAX_VALUES: usize = 64;

/// Points on a default grid.
pub const GRID_POINTS: usize = 9;

/// The options searched, each with its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Space {
    /// `(option, values)`, values as `--opt` takes them.
    pub dims: Vec<(String, Vec<String>)>,
}

impl Space {
    /// From `--opts` items (`name=lo..hi:step` or `name=v1,v2,…`) checked
    /// against `specs`; with none, the default space (see the module
    /// docs). `Err` says what was expected.
    pub fn new(items: &[String], specs: &[OptionSpec]) -> Result<Space, String> {
        let mut dims: Vec<(String, Vec<String>)> = Vec::new();
        for item in items {
            let (name, values) = item
                .split_once('=')
                .ok_or_else(|| format!("--opts {item}: expected NAME=LO..HI:STEP or NAME=V1,V2,…"))?;
            let name = name.trim();
            let spec = numeric(specs, name)?;
            let values = if let Some((range, step)) = values.split_once(':') {
                let (lo, hi) = range.split_once("..").ok_or_else(|| format!("--opts {item}: expected LO..HI:STEP"))?;
                let parse = |s: &str| {
                    s.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|v| v.is_finite())
                        .ok_or_else(|| format!("--opts {item}: `{s}` is not a number"))
                };
                let (lo, hi, step) = (parse(lo)?, parse(hi)?, parse(step)?);
                if step <= 0.0 || hi < lo {
                    return Err(format!("--opts {item}: expected LO ≤ HI and a STEP above 0"));
                }
                let n = ((hi - lo) / step + 1e-9).floor() as usize + 1;
                if n > MAX_VALUES {
                    return Err(format!("--opts {item}: {n} values; at most {MAX_VALUES}"));
                }
                (0..n).map(|k| show(lo + k as f64 * step)).collect()
            } else {
                values.split(',').map(|v| v.trim().to_string()).collect::<Vec<_>>()
            };
            for v in &values {
                spec.check(v).map_err(|e| format!("--opts {item}: {e}"))?;
            }
            if dims.iter().any(|d| d.0 == name) {
                return Err(format!("--opts {name}: named twice"));
            }
            dims.push((name.to_string(), values));
        }
        if dims.is_empty() {
            let spoken = ["interp", "delay", "window", "max-ahead"];
            for spec in specs.iter().filter(|s| spoken.contains(&s.name) && s.choices.is_empty()).take(DEFAULT_OPTIONS)
            {
                dims.push((spec.name.to_string(), default_grid(spec)));
            }
            if dims.is_empty() {
                let numeric: Vec<&str> = specs.iter().filter(|s| s.choices.is_empty()).map(|s| s.name).collect();
                return Err(format!(
                    "no option of this algorithm has a default search: name one or two with --opts NAME=LO..HI:STEP ({})",
                    if numeric.is_empty() { "it has no numeric option".to_string() } else { numeric.join(", ") }
                ));
            }
        }
        if dims.len() > MAX_OPTIONS {
            return Err(format!("--opts: {} options; a search spans at most {MAX_OPTIONS}", dims.len()));
        }
        let settings = dims.iter().fold(1usize, |n, d| n.saturating_mul(d.1.len()));
        if settings > MAX_SETTINGS {
            return Err(format!("--opts: {settings} settings on the grid; at most {MAX_SETTINGS} (coarser steps)"));
        }
        Ok(Space { dims })
    }

    /// Every setting on the grid, the first option varying slowest.
    pub fn settings(&self) -> Vec<Vec<(String, String)>> {
        let mut out: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for (name, values) in &self.dims {
            out = out
                .into_iter()
                .flat_map(|s| {
                    values.iter().map(move |v| {
                        let mut s = s.clone();
                        s.push((name.clone(), v.clone()));
                        s
                    })
                })
                .collect();
        }
        out
    }
}

fn numeric<'a>(specs: &'a [OptionSpec], name: &str) -> Result<&'a OptionSpec, String> {
    let spec = specs.iter().find(|s| s.name == name).ok_or_else(|| {
        let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
        format!("--opts {name}: not an option of this algorithm ({})", names.join(", "))
    })?;
    if !spec.choices.is_empty() {
        return Err(format!(
            "--opts {name}: takes words ({}), not numbers: tune searches numbers",
            spec.choices.join(", ")
        ));
    }
    Ok(spec)
}

/// [`GRID_POINTS`] values from the declared minimum to twice the default
/// (within the declared range; whole numbers for a whole option, every
/// value when fewer).
fn default_grid(spec: &OptionSpec) -> Vec<String> {
    let default: f64 = spec.default.parse().unwrap_or(spec.min);
    let hi = (2.0 * default).max(spec.min + if spec.whole { 8.0 } else { 1.0 }).min(spec.max);
    let mut v: Vec<String> = (0..GRID_POINTS)
        .map(|k| spec.min + (hi - spec.min) * k as f64 / (GRID_POINTS - 1) as f64)
        .map(|x| if spec.whole { show(x.round()) } else { show(x) })
        .collect();
    v.dedup();
    v
}

/// A value as `--opt` takes it: at most one decimal.
fn show(v: f64) -> String {
    format!("{}", (v * 10.0).round() / 10.0)
}

/// The seeds measured by each rung of a successive halving over `seeds`
/// seeds: a quarter, a half, then all (at least one each, no rung twice).
pub fn rungs(seeds: usize) -> Vec<usize> {
    let mut r: Vec<usize> = [seeds.div_ceil(4), seeds.div_ceil(2), seeds].into_iter().map(|n| n.max(1)).collect();
    r.dedup();
    r
}

/// What the rules read of profile `p` for a game at `tick_hz`: its round
/// trip (median each way, probed) and the spread of its downlink's delay.
pub fn network(p: &Profile, tick_hz: u32) -> rules::Network {
    let probe = |up: bool| probe_link(p.link(up, 1, 0, probe_stream(1)), 6_000, 10_000, 100);
    let (up, down) = (probe(true), probe(false));
    rules::Network { rtt_ms: up.delay_p50_ms + down.delay_p50_ms, jitter_sd_ms: down.delay_sd_ms, tick_hz }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECS: &[OptionSpec] = &[
        OptionSpec::number("interp", "100", 0.0, 10_000.0, "ms"),
        OptionSpec::count("delay", "2", 0, 30, "frames"),
        OptionSpec::count("window", "0", 0, 120, "frames"),
        OptionSpec::choice("remote", "interp", &["interp", "raw"], "how"),
    ];

    #[test]
    fn a_space_from_ranges_lists_and_defaults() {
        let s = Space::new(&["interp=0..100:25".into(), "delay=1,3".into()], SPECS).unwrap();
        assert_eq!(s.dims[0].1, ["0", "25", "50", "75", "100"]);
        assert_eq!(s.settings().len(), 10);
        assert_eq!(s.settings()[1], [("interp".to_string(), "0".to_string()), ("delay".into(), "3".into())]);
        // By default: the options rules speak of, on a grid to twice the default.
        let d = Space::new(&[], SPECS).unwrap();
        assert_eq!(d.dims.len(), 2);
        assert_eq!(d.dims[0].1, ["0", "25", "50", "75", "100", "125", "150", "175", "200"]);
        assert_eq!(d.dims[1].1, ["0", "1", "2", "3", "4", "5", "6", "7", "8"], "whole values, at least 8 wide");
        for (bad, says) in [
            ("remote=1,2", "takes words"),
            ("banana=1", "not an option"),
            ("interp=0..10:0", "STEP above 0"),
            ("interp=-5,5", "expected a number in 0..=10000"),
            ("delay=1.5", "a whole number"),
            ("interp=0..1000:1", "at most 64"),
        ] {
            let e = Space::new(&[bad.to_string()], SPECS).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let three = Space::new(&["interp=1".into(), "delay=1".into(), "window=1".into()], SPECS).unwrap();
        assert_eq!(three.settings().len(), 1);
        let e = Space::new(&["interp=0..63:1".into(), "delay=0..30:1".into()], SPECS).unwrap_err();
        assert!(e.contains("1984 settings"), "{e}");
        assert_eq!(rungs(5), [2, 3, 5]);
        assert_eq!(rungs(2), [1, 2]);
        assert_eq!(rungs(1), [1]);
    }
}
