//! Virtual time: the one global clock the harness owns, and the local clocks
//! nodes see.
//!
//! All times are integer microseconds. [`Micros`] is global time since the run
//! started; a node never sees it directly. Each node reads a [`LocalClock`]:
//! global time shifted by an offset and stretched by a drift in parts per
//! million, the way a real machine's oscillator runs. Nothing in the
//! simulator reads the wall clock.
//!
//! ```
//! use harness::time::{LocalClock, Micros};
//! let clock = LocalClock { offset_us: 5_000, drift_ppm: 100 };
//! let local = clock.local_at(Micros(1_000_000));
//! assert_eq!(local, 1_005_100); // 1 s + 5 ms offset + 100 µs of drift
//! assert_eq!(clock.global_at(local), Micros(1_000_000));
//! ```

use std::fmt;

/// Global virtual time: microseconds since the run started.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Micros(pub u64);

impl Micros {
    /// Time zero, the start of a run.
    pub const ZERO: Micros = Micros(0);

    /// From whole milliseconds.
    pub const fn from_millis(ms: u64) -> Micros {
        Micros(ms * 1_000)
    }

    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Micros {
        Micros(s * 1_000_000)
    }

    /// As (fractional) seconds, for reports.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e6
    }

    /// As (fractional) milliseconds, for reports.
    pub fn as_millis_f64(self) -> f64 {
        self.0 as f64 / 1e3
    }

    /// `self + us`, saturating.
    pub fn plus(self, us: u64) -> Micros {
        Micros(self.0.saturating_add(us))
    }

    /// `self - other`, zero if `other` is later.
    pub fn since(self, other: Micros) -> u64 {
        self.0.saturating_sub(other.0)
    }
}

impl fmt::Display for Micros {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3}s", self.as_secs_f64())
    }
}

/// A node's view of time: `local = global + offset + global · drift_ppm / 10⁶`.
///
/// Local time is signed (an offset may put it before zero) and in
/// microseconds. The mapping is strictly increasing for drifts above
/// −1,000,000 ppm, so it can be inverted: [`LocalClock::global_at`] returns the
/// first global instant at which the local clock reads at least the given
/// value, which is how the harness schedules a node's timers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LocalClock {
    /// Local reading at global time zero, µs.
    pub offset_us: i64,
    /// Rate error in parts per million (positive: the clock runs fast).
    pub drift_ppm: i32,
}

impl LocalClock {
    /// The ideal clock: local time equals global time.
    pub const EXACT: LocalClock = LocalClock { offset_us: 0, drift_ppm: 0 };

    /// Parses `OFFSET`, `OFFSET@DRIFTppm` or `@DRIFTppm`: a signed duration
    /// within ±60 s (`-40ms`, `+1.5s`, `0`) and a signed rate error within ±100,000 ppm
    /// (`@+200ppm`: the clock runs 200 µs per second fast).
    pub fn parse(text: &str) -> Result<LocalClock, String> {
        let t = text.trim();
        let (offset, drift) = t.split_once('@').unwrap_or((t, ""));
        let offset_us = match offset.trim() {
            "" | "0" | "+0" | "-0" => 0,
            o => {
                let (neg, mag) = match o.as_bytes()[0] {
                    b'-' => (true, &o[1..]),
                    b'+' => (false, &o[1..]),
                    _ => (false, o),
                };
                let us = parse_duration(mag).map_err(|e| format!("offset {e}"))?;
                if us > 60_000_000 {
                    return Err(format!("offset `{o}`: expected at most 60s either way"));
                }
                let us = us as i64;
                if neg {
                    -us
                } else {
                    us
                }
            }
        };
        let drift_ppm = match drift.trim() {
            "" => 0,
            d => {
                let num =
                    d.strip_suffix("ppm").ok_or_else(|| format!("drift `{d}`: expected a rate like `+200ppm`"))?;
                let v: i32 = num.parse().map_err(|_| format!("drift `{d}`: expected an integer before `ppm`"))?;
                if !(-100_000..=100_000).contains(&v) {
                    return Err(format!("drift `{d}`: expected between -100000ppm and +100000ppm"));
                }
                v
            }
        };
        Ok(LocalClock { offset_us, drift_ppm })
    }

    /// The local reading at global time `t`.
    pub fn local_at(&self, t: Micros) -> i64 {
        if self.drift_ppm == 0 {
            // The common case, without 128-bit division (same result).
            return (t.0 as i128 + self.offset_us as i128) as i64;
        }
        let g = t.0 as i128;
        let drift = (g * self.drift_ppm as i128).div_euclid(1_000_000);
        (g + drift + self.offset_us as i128) as i64
    }

    /// The earliest global time at which this clock reads `local` or later
    /// (zero if it already did at the start of the run).
    pub fn global_at(&self, local: i64) -> Micros {
        // Solve g + floor(g·d/1e6) + off >= local for the smallest g.
        let target = local as i128 - self.offset_us as i128;
        if target <= 0 {
            return Micros::ZERO;
        }
        if self.drift_ppm == 0 {
            return Micros(target as u64);
        }
        let rate = 1_000_000 + self.drift_ppm as i128;
        debug_assert!(rate > 0, "drift must be above -1e6 ppm");
        // First guess from the real-valued inverse, then step to the exact answer.
        let mut g = (target * 1_000_000) / rate;
        while g > 0 && self.local_at(Micros((g - 1) as u64)) as i128 >= local as i128 {
            g -= 1;
        }
        while (self.local_at(Micros(g as u64)) as i128) < local as i128 {
            g += 1;
        }
        Micros(g as u64)
    }
}

/// A fixed-rate timer on a local clock: the `k`-th firing is when the local
/// clock reads `phase + k · period`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Periodic {
    /// Period in local microseconds.
    pub period_us: u64,
    /// Local time of firing zero.
    pub phase_us: i64,
}

impl Periodic {
    /// A timer firing `hz` times per second of local time, starting at local zero.
    pub fn from_hz(hz: u32) -> Periodic {
        Periodic { period_us: period_us(hz), phase_us: 0 }
    }

    /// A timer firing `hz` times per second of `clock`, starting when the
    /// node starts (global zero) — whatever its clock reads then, so an
    /// offset clock neither bursts through missed firings nor waits.
    pub fn started_on(hz: u32, clock: &LocalClock) -> Periodic {
        Periodic { period_us: period_us(hz), phase_us: clock.local_at(Micros::ZERO) }
    }

    /// Global time of firing `k` on `clock`.
    pub fn firing(&self, clock: &LocalClock, k: u64) -> Micros {
        clock.global_at(self.phase_us + (k * self.period_us) as i64)
    }
}

/// The integer period of a rate in Hz: `10⁶ / hz` µs, rounded down. A 60 Hz
/// game therefore steps every 16,666 µs (60.0024 Hz); the reference game uses
/// exactly this `dt`, so simulated and displayed time agree.
pub fn period_us(hz: u32) -> u64 {
    1_000_000 / u64::from(hz.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_clock_is_identity() {
        for t in [0, 1, 999_999, 123_456_789] {
            assert_eq!(LocalClock::EXACT.local_at(Micros(t)), t as i64);
            assert_eq!(LocalClock::EXACT.global_at(t as i64), Micros(t));
        }
    }

    #[test]
    fn offset_and_drift_shift_and_stretch() {
        let fast = LocalClock { offset_us: 0, drift_ppm: 1_000 };
        assert_eq!(fast.local_at(Micros::from_secs(10)), 10_010_000);
        let slow = LocalClock { offset_us: -2_000, drift_ppm: -500 };
        assert_eq!(slow.local_at(Micros::from_secs(2)), 2_000_000 - 2_000 - 1_000);
    }

    #[test]
    fn global_at_inverts_local_at() {
        let clocks = [
            LocalClock { offset_us: 0, drift_ppm: 0 },
            LocalClock { offset_us: 7_777, drift_ppm: 250 },
            LocalClock { offset_us: -40_000, drift_ppm: -999 },
            LocalClock { offset_us: 3, drift_ppm: 50_000 },
        ];
        for c in clocks {
            for local in [-50_000i64, 0, 1, 16_666, 1_000_000, 59_999_999] {
                let g = c.global_at(local);
                assert!(c.local_at(g) >= local || g == Micros::ZERO);
                if g.0 > 0 {
                    assert!(c.local_at(Micros(g.0 - 1)) < local, "{c:?} {local}");
                }
            }
        }
    }

    #[test]
    fn periodic_timer_fires_on_local_schedule() {
        let c = LocalClock { offset_us: 0, drift_ppm: 10_000 }; // 1% fast
        let t = Periodic::from_hz(100);
        // 100 firings of a 1% fast clock take 0.99 s of global time.
        let g = t.firing(&c, 100);
        assert!((990_000..=990_100).contains(&g.0), "{g:?}");
        assert_eq!(period_us(60), 16_666);
    }

    #[test]
    fn offset_clocks_start_their_timers_at_once() {
        for offset_us in [-40_000, 0, 25_000, 60_000_000] {
            let c = LocalClock { offset_us, drift_ppm: 0 };
            let t = Periodic::started_on(60, &c);
            assert_eq!(t.firing(&c, 0), Micros::ZERO, "{offset_us}");
            assert_eq!(t.firing(&c, 1), Micros(16_666), "{offset_us}: no burst, no wait");
        }
    }
}

/// Parses a human duration: a decimal number with a unit `us`, `ms`, `s`,
/// `m` or `h` (`60s`, `2m`, `1.5s`, `250ms`). A bare number is rejected: the
/// unit is never guessed.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("`{t}` has no unit: expected a duration like `60s`, `2m`, `250ms`"))?;
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().map_err(|_| format!("`{t}`: expected a number before the unit"))?;
    let scale = match unit {
        "us" => 1.0,
        "ms" => 1e3,
        "s" => 1e6,
        "m" | "min" => 60e6,
        "h" => 3600e6,
        _ => return Err(format!("`{t}`: unknown unit `{unit}`, expected us, ms, s, m or h")),
    };
    let us = (value * scale).round();
    if !(0.0..1e15).contains(&us) {
        return Err(format!("`{t}`: out of range"));
    }
    Ok(us as u64)
}

#[cfg(test)]
mod duration_tests {
    use super::{parse_duration, LocalClock};

    #[test]
    fn clocks_parse_offset_and_drift() {
        let c = |o, d| Ok(LocalClock { offset_us: o, drift_ppm: d });
        assert_eq!(LocalClock::parse("0"), c(0, 0));
        assert_eq!(LocalClock::parse("-40ms"), c(-40_000, 0));
        assert_eq!(LocalClock::parse("+1.5s@-200ppm"), c(1_500_000, -200));
        assert_eq!(LocalClock::parse("@+50ppm"), c(0, 50));
        for bad in ["40", "5ms@3", "@xppm", "@2000000ppm", "--3ms", "+2m", "@++200ppm"] {
            assert!(LocalClock::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_need_units() {
        assert_eq!(parse_duration("60s"), Ok(60_000_000));
        assert_eq!(parse_duration("2m"), Ok(120_000_000));
        assert_eq!(parse_duration("1.5s"), Ok(1_500_000));
        assert_eq!(parse_duration("250ms"), Ok(250_000));
        assert!(parse_duration("60").is_err());
        assert!(parse_duration("s").is_err());
        assert!(parse_duration("5 parsecs").is_err());
    }
}
