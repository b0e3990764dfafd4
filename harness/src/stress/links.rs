//! The links of an adversarial campaign: each family generates links from
//! `(seed, family, index)`, as a netem line or a timed CSV recording
//! (`time_ms,delay_ms`, one row every 10 ms, `lost` for a lost packet) that
//! the replay stage reads like any recording. A link says what it is, when
//! its disturbance ends (after which it is back where it began) and the
//! least one-way delay it ever has.

use crate::rng::{Purpose, Stream};

/// Rows of a generated recording: one every this many ms.
pub const STEP_MS: u64 = 10;

/// A family of generated links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    /// One queue-like delay spike: the delay jumps and falls back as the
    /// queue drains (bufferbloat's burst).
    Spike,
    /// The delay climbs for seconds, then drops (a bloated buffer filling).
    Ramp,
    /// Seconds in which nothing gets through and everything arrives at the
    /// end: an outage that loses nothing (a cellular link's retransmission).
    Outage,
    /// Seconds in which everything is lost.
    OutageLoss,
    /// Delay that moves in runs: good, degraded and outage regimes with
    /// their own delays and dwell times, as recorded links move.
    Runs,
    /// A geostationary satellite path.
    Satellite,
    /// 2G/3G delays with their loss.
    Cellular,
    /// Loss in long bursts (Gilbert–Elliott).
    BurstLoss,
    /// Duplicated packets.
    Duplicate,
    /// Reordered packets.
    Reorder,
}

impl Family {
    /// Every family, in the order a campaign runs them.
    pub const ALL: [Family; 10] = [
        Family::Spike,
        Family::Ramp,
        Family::Outage,
        Family::OutageLoss,
        Family::Runs,
        Family::Satellite,
        Family::Cellular,
        Family::BurstLoss,
        Family::Duplicate,
        Family::Reorder,
    ];

    /// Its name on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            Family::Spike => "spike",
            Family::Ramp => "ramp",
            Family::Outage => "outage",
            Family::OutageLoss => "outage-loss",
            Family::Runs => "runs",
            Family::Satellite => "satellite",
            Family::Cellular => "cellular",
            Family::BurstLoss => "burst-loss",
            Family::Duplicate => "duplicate",
            Family::Reorder => "reorder",
        }
    }

    /// The family named `name`.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// Whether its links are disturbed once and then return to their
    /// earlier state (the others are the same throughout: stationary).
    pub fn recovers(self) -> bool {
        matches!(self, Family::Spike | Family::Ramp | Family::Outage | Family::OutageLoss | Family::Runs)
    }

    fn index(self) -> u64 {
        Family::ALL.iter().position(|f| *f == self).unwrap_or(0) as u64
    }
}

/// What a link is made of.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A netem line, both directions.
    Netem(String),
    /// A delay recording, both directions: per [`STEP_MS`], the one-way
    /// delay in ms, or `None` for a lost packet.
    Series(Vec<Option<u32>>),
}

/// One generated link.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Its family.
    pub family: Family,
    /// Its index in the family.
    pub index: u64,
    /// How strong its disturbance is, 1 as generated: shrinking lowers it.
    pub scale: f64,
    /// What it is.
    pub shape: Shape,
    /// When its disturbance is over, µs (`None`: stationary).
    pub settled_us: Option<u64>,
    /// When its disturbance begins, µs (`None`: stationary).
    pub disturbed_us: Option<u64>,
    /// The least one-way delay it ever has, ms.
    pub min_delay_ms: f64,
    /// Its one-way delay when undisturbed (a stationary link's mean), ms.
    pub base_delay_ms: f64,
    /// One line on what it is, for reports.
    pub summary: String,
}

impl Link {
    /// Link `index` of `family` for a run of `duration_us`, from `seed`,
    /// its disturbance scaled by `scale` (1: as generated).
    pub fn generate(family: Family, seed: u64, index: u64, duration_us: u64, scale: f64) -> Link {
        let mut rng = Stream::new(seed, Purpose::Stress, family.index() << 32 | index);
        let mut pick = |lo: i64, hi: i64| rng.range_inclusive(lo, hi);
        let rows = (duration_us / 1000 / STEP_MS) as usize + 1;
        let at = |ms: u64| (ms / STEP_MS) as usize;
        // Disturbances start a quarter into the run and are over by its
        // middle, so the second half shows whether the algorithm recovered.
        let start_ms = duration_us / 1000 / 4;
        let s = |v: i64| ((v as f64) * scale).round().max(0.0) as i64;
        let (shape, settled, summary, min_delay, base_delay) = match family {
            Family::Spike | Family::Outage => {
                let base = pick(10, 50);
                let (lo, hi) = if family == Family::Spike { (500, 3000) } else { (2000, 6000) };
                let height = s(pick(lo, hi));
                let mut rows_v = vec![Some(base as u32); rows];
                for (k, r) in rows_v.iter_mut().enumerate().skip(at(start_ms)).take(at(height as u64)) {
                    let t = (k - at(start_ms)) as i64 * STEP_MS as i64;
                    *r = Some((base + height - t) as u32);
                }
                let what = if family == Family::Spike { "delay spike" } else { "outage that loses nothing" };
                let summary = format!("{base} ms, a {height} ms {what} at {:.1} s", start_ms as f64 / 1e3);
                (Shape::Series(rows_v), start_ms + height as u64 + 2 * base as u64, summary, base as f64, base as f64)
            }
            Family::Ramp => {
                let base = pick(10, 50);
                let rise = s(pick(300, 1500));
                let width = pick(3000, 10000);
                let mut rows_v = vec![Some(base as u32); rows];
                for (k, r) in rows_v.iter_mut().enumerate().skip(at(start_ms)).take(at(width as u64)) {
                    let t = (k - at(start_ms)) as i64 * STEP_MS as i64;
                    *r = Some((base + rise * t / width) as u32);
                }
                let summary = format!(
                    "{base} ms rising by {rise} ms over {:.1} s from {:.1} s",
                    width as f64 / 1e3,
                    start_ms as f64 / 1e3
                );
                (Shape::Series(rows_v), start_ms + width as u64 + rise as u64, summary, base as f64, base as f64)
            }
            Family::OutageLoss => {
                let base = pick(10, 50);
                let length = s(pick(2000, 6000));
                let mut rows_v = vec![Some(base as u32); rows];
                for r in rows_v.iter_mut().skip(at(start_ms)).take(at(length as u64)) {
                    *r = None;
                }
                let summary = format!("{base} ms, everything lost for {length} ms at {:.1} s", start_ms as f64 / 1e3);
                (Shape::Series(rows_v), start_ms + length as u64 + base as u64, summary, base as f64, base as f64)
            }
            Family::Runs => {
                // Regimes until the middle of the run, then good again.
                let good = pick(10, 40);
                let end_ms = duration_us / 1000 / 2;
                let mut rows_v = vec![Some(good as u32); rows];
                let mut k = at(start_ms);
                let mut regimes = 0;
                while (k as u64) * STEP_MS < end_ms {
                    let (dwell, delay) = match pick(0, 9) {
                        0..=4 => (pick(200, 2000), Some(good + pick(0, 5))),
                        5..=8 => (pick(300, 3000), Some(good + s(pick(100, 400)))),
                        _ => (s(pick(500, 3000)), None),
                    };
                    let jitter = pick(0, 30);
                    for r in rows_v.iter_mut().skip(k).take(at(dwell as u64)) {
                        *r = delay.map(|d| (d + pick(0, s(jitter))) as u32);
                    }
                    k += at(dwell as u64).max(1);
                    regimes += 1;
                }
                let settled = (k as u64) * STEP_MS + 500;
                let summary = format!(
                    "{good} ms, {regimes} regimes (good, degraded, outage) from {:.1} s",
                    start_ms as f64 / 1e3
                );
                (Shape::Series(rows_v), settled, summary, good as f64, good as f64)
            }
            Family::Satellite => {
                let (d, j) = (pick(280, 320), s(pick(5, 25)));
                (Shape::Netem(format!("delay {d}ms {j}ms loss 0.3%")), 0, String::new(), (d - j) as f64, d as f64)
            }
            Family::Cellular => {
                let (d, j, l) = (pick(200, 520), s(pick(20, 50)), s(pick(20, 70)));
                let line = format!("delay {d}ms {j}ms loss {}.{}%", l / 10, l % 10);
                (Shape::Netem(line), 0, String::new(), (d - j) as f64, d as f64)
            }
            Family::BurstLoss => {
                // Bursts of 1/r packets on average, entered with p.
                let (d, p, burst) = (pick(20, 60), s(pick(5, 20)), s(pick(5, 15)).max(1));
                let r = 100.0 / burst as f64;
                let line = format!("delay {d}ms 5ms loss gemodel {}.{}% {r:.1}%", p / 10, p % 10);
                (Shape::Netem(line), 0, String::new(), (d - 5) as f64, d as f64)
            }
            Family::Duplicate => {
                let (d, p) = (pick(20, 60), s(pick(5, 30)));
                (Shape::Netem(format!("delay {d}ms 10ms duplicate {p}%")), 0, String::new(), (d - 10) as f64, d as f64)
            }
            Family::Reorder => {
                let (d, p) = (pick(30, 80), s(pick(5, 40)));
                (Shape::Netem(format!("delay {d}ms reorder {p}% 50%")), 0, String::new(), 0.0, d as f64)
            }
        };
        let summary = match &shape {
            Shape::Netem(line) => line.clone(),
            Shape::Series(_) => summary,
        };
        let disturbed = family.recovers().then_some(start_ms * 1000);
        Link {
            family,
            index,
            scale,
            shape,
            settled_us: family.recovers().then_some(settled * 1000),
            disturbed_us: disturbed,
            min_delay_ms: min_delay,
            base_delay_ms: base_delay,
            summary,
        }
    }

    /// Its name in files: family, index and scale.
    pub fn name(&self) -> String {
        if self.scale == 1.0 {
            format!("{}-{}", self.family.name(), self.index)
        } else {
            format!("{}-{}-x{}", self.family.name(), self.index, self.scale)
        }
    }

    /// The profile argument that runs it: the netem line, or `file` after
    /// [`Link::recording`] is written there.
    pub fn profile_arg(&self, file: &std::path::Path) -> String {
        match &self.shape {
            Shape::Netem(line) => line.clone(),
            Shape::Series(_) => file.display().to_string(),
        }
    }

    /// The recording as a timed CSV (`None` for a netem line).
    pub fn recording(&self) -> Option<String> {
        let Shape::Series(rows) = &self.shape else { return None };
        let mut out = format!("# syncbench stress: {} ({})\ntime_ms,delay_ms\n", self.name(), self.summary);
        for (k, r) in rows.iter().enumerate() {
            match r {
                Some(d) => out.push_str(&format!("{},{d}\n", k as u64 * STEP_MS)),
                None => out.push_str(&format!("{},lost\n", k as u64 * STEP_MS)),
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_reproducible_and_differ_by_index() {
        for f in Family::ALL {
            let a = Link::generate(f, 7, 0, 60_000_000, 1.0);
            assert_eq!(a, Link::generate(f, 7, 0, 60_000_000, 1.0), "{f:?}");
            assert_ne!(a.shape, Link::generate(f, 7, 1, 60_000_000, 1.0).shape, "{f:?}");
            if f.recovers() {
                let settled = a.settled_us.unwrap();
                assert!(settled <= 40_000_000 && settled > a.disturbed_us.unwrap(), "{f:?}: {settled}");
                let csv = a.recording().unwrap();
                assert!(csv.lines().nth(1) == Some("time_ms,delay_ms"), "{csv:.80}");
            }
        }
    }

    #[test]
    fn a_spike_drains_like_a_queue_and_shrinks_with_its_scale() {
        let l = Link::generate(Family::Spike, 1, 0, 60_000_000, 1.0);
        let Shape::Series(rows) = &l.shape else { panic!() };
        let base = rows[0].unwrap();
        let start = 15_000 / STEP_MS as usize;
        let height = rows[start].unwrap() - base;
        assert!((500..=3000).contains(&height), "{height}");
        // Falls one step a step: every packet leaves as the queue empties.
        assert_eq!(rows[start + 1].unwrap() + STEP_MS as u32, rows[start].unwrap());
        let Shape::Series(half) = Link::generate(Family::Spike, 1, 0, 60_000_000, 0.5).shape else { panic!() };
        assert!((half[start].unwrap() - base) * 2 <= height + 1);
    }
}
