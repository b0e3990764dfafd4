//! How a trace plays: per player, the statistics that say whether it
//! presses keys as a person does, measured on the held inputs alone.
//!
//! Over a window `[0, D)` (a recording's own length, or a run's):
//!
//! - **key changes/s**: instants the held buttons change;
//! - **aim changes/s**: instants the aim changes;
//! - **holds**: how long each movement direction (one of eight, or
//!   stopped) is held before the next, as quantiles; the hold cut by the
//!   window's end is left out;
//! - **stopped**: share of time with no direction held;
//! - **two or more keys**: share of time with at least two buttons held
//!   (a diagonal, or moving while firing);
//! - **reversals/min**: changes of direction by 135° or more between one
//!   moving direction and the next, stops between them skipped;
//! - **fire duty**: share of time with fire held, and the median press;
//! - **turn rate**: the aim's angular change, degrees per second, summed
//!   over every aim change with both aims set.

use super::{Trace, Track};
use crate::game::Input;

/// One player's statistics.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerStats {
    /// The window, seconds.
    pub seconds: f64,
    /// Button changes per second.
    pub key_changes_per_s: f64,
    /// Aim changes per second.
    pub aim_changes_per_s: f64,
    /// Direction holds, ms: 10th, 50th and 90th percentiles and the mean.
    pub hold_ms: [f64; 4],
    /// Share of time with no direction held.
    pub stopped: f64,
    /// Share of time with two or more buttons held.
    pub two_keys: f64,
    /// Direction reversals per minute.
    pub reversals_per_min: f64,
    /// Reversals per change from one moving direction to another.
    pub reverse_share: f64,
    /// Share of time with fire held.
    pub fire_duty: f64,
    /// Median fire press, ms (0 without presses).
    pub fire_press_ms: f64,
    /// Aim turning, degrees per second.
    pub turn_deg_per_s: f64,
}

/// A statistic's column name (with its unit) and how to read it.
pub type Column = (&'static str, fn(&PlayerStats) -> f64);

/// The statistics' columns, in table order.
pub const COLUMNS: [Column; 11] = [
    ("key changes/s", |s| s.key_changes_per_s),
    ("aim changes/s", |s| s.aim_changes_per_s),
    ("hold p10 ms", |s| s.hold_ms[0]),
    ("hold p50 ms", |s| s.hold_ms[1]),
    ("hold p90 ms", |s| s.hold_ms[2]),
    ("stopped %", |s| s.stopped * 100.0),
    ("2+ keys %", |s| s.two_keys * 100.0),
    ("reversals/min", |s| s.reversals_per_min),
    ("fire duty %", |s| s.fire_duty * 100.0),
    ("fire press ms", |s| s.fire_press_ms),
    ("turn °/s", |s| s.turn_deg_per_s),
];

/// Statistics of every player of `trace` over `[0, window_us)`.
pub fn of_trace(trace: &Trace, window_us: u64) -> Vec<PlayerStats> {
    trace.tracks.iter().map(|t| of_track(t, window_us)).collect()
}

/// The window a recording covers: its longest repeat period, or, for one
/// that does not repeat (a CSV), up to and including its last change.
pub fn recorded_window_us(trace: &Trace) -> u64 {
    let period = |t: &Track| t.repeat_us.unwrap_or(t.segments.last().map_or(0, |s| s.0) + 1);
    trace.tracks.iter().map(period).max().unwrap_or(1).max(1)
}

/// Checks that measuring `trace` over `window_us` stays within the limit
/// on input changes (a repeating track is unrolled over the window).
pub fn check_window(trace: &Trace, window_us: u64) -> Result<(), String> {
    let unrolled = |t: &Track| match t.repeat_us {
        Some(p) if p > 0 => (t.segments.len() as u64).saturating_mul(window_us / p + 1),
        _ => t.segments.len() as u64,
    };
    let total = trace.tracks.iter().map(unrolled).fold(0u64, u64::saturating_add);
    if total > crate::limits::MAX_TRACE_CHANGES {
        return Err(format!(
            "{} over {} s unrolls to {total} input changes: the limit is {} (a shorter --duration)",
            trace.name,
            window_us / 1_000_000,
            crate::limits::MAX_TRACE_CHANGES
        ));
    }
    Ok(())
}

/// One track's statistics over `[0, window_us)` (at least 1 µs).
pub fn of_track(track: &Track, window_us: u64) -> PlayerStats {
    let window_us = window_us.max(1);
    let segs = held(track, window_us);
    let seconds = window_us as f64 / 1e6;
    let ends = segs.iter().skip(1).map(|s| s.0).chain([window_us]);
    let spans: Vec<(u64, Input)> = segs.iter().zip(ends).map(|(&(t, i), end)| (end - t, i)).collect();
    let share = |f: &dyn Fn(Input) -> bool| {
        spans.iter().filter(|(_, i)| f(*i)).map(|(d, _)| *d).sum::<u64>() as f64 / window_us as f64
    };
    let key_changes = segs.windows(2).filter(|w| w[0].1.buttons != w[1].1.buttons).count();
    let aim_changes = segs.windows(2).filter(|w| (w[0].1.aim_x, w[0].1.aim_y) != (w[1].1.aim_x, w[1].1.aim_y)).count();

    // Direction holds: runs of one direction, the last (cut) one left out.
    let mut holds: Vec<f64> = Vec::new();
    let mut run: Option<((i64, i64), u64)> = None;
    let mut moving: Vec<(i64, i64)> = Vec::new();
    for &(t, i) in &segs {
        let d = i.direction();
        match run {
            Some((rd, _)) if rd == d => {}
            Some((_, start)) => {
                holds.push((t - start) as f64 / 1e3);
                run = Some((d, t));
            }
            None => run = Some((d, t)),
        }
        if d != (0, 0) && moving.last() != Some(&d) {
            moving.push(d);
        }
    }
    let reversals = moving.windows(2).filter(|w| angle_between(w[0], w[1]) >= 135.0 - 1e-9).count();

    // Fire presses, the last (cut) one left out.
    let mut presses: Vec<f64> = Vec::new();
    let mut since: Option<u64> = None;
    for &(t, i) in &segs {
        match (since, i.held(Input::SHOOT)) {
            (None, true) => since = Some(t),
            (Some(s), false) => {
                presses.push((t - s) as f64 / 1e3);
                since = None;
            }
            _ => {}
        }
    }

    let turn: f64 = segs
        .windows(2)
        .filter_map(|w| {
            let (a, b) = (w[0].1, w[1].1);
            let set = |i: Input| i.aim_x != 0 || i.aim_y != 0;
            (set(a) && set(b)).then(|| aim_turn_deg(a, b))
        })
        .sum();

    PlayerStats {
        seconds,
        key_changes_per_s: key_changes as f64 / seconds,
        aim_changes_per_s: aim_changes as f64 / seconds,
        hold_ms: quantiles(&mut holds),
        stopped: share(&|i| i.direction() == (0, 0)),
        two_keys: share(&|i| i.buttons.count_ones() >= 2),
        reversals_per_min: reversals as f64 / seconds * 60.0,
        reverse_share: reversals as f64 / moving.len().saturating_sub(1).max(1) as f64,
        fire_duty: share(&|i| i.held(Input::SHOOT)),
        fire_press_ms: quantiles(&mut presses)[1],
        turn_deg_per_s: turn / seconds,
    }
}

/// The mean of per-player statistics, each weighted by its window.
pub fn pooled(players: &[PlayerStats]) -> Option<PlayerStats> {
    let total: f64 = players.iter().map(|p| p.seconds).sum();
    if players.is_empty() || total <= 0.0 {
        return None;
    }
    let mean = |f: &dyn Fn(&PlayerStats) -> f64| players.iter().map(|p| f(p) * p.seconds).sum::<f64>() / total;
    Some(PlayerStats {
        seconds: total,
        key_changes_per_s: mean(&|p| p.key_changes_per_s),
        aim_changes_per_s: mean(&|p| p.aim_changes_per_s),
        hold_ms: [0, 1, 2, 3].map(|k| mean(&|p| p.hold_ms[k])),
        stopped: mean(&|p| p.stopped),
        two_keys: mean(&|p| p.two_keys),
        reversals_per_min: mean(&|p| p.reversals_per_min),
        reverse_share: mean(&|p| p.reverse_share),
        fire_duty: mean(&|p| p.fire_duty),
        fire_press_ms: mean(&|p| p.fire_press_ms),
        turn_deg_per_s: mean(&|p| p.turn_deg_per_s),
    })
}

/// The held inputs over `[0, window_us)`, the repeat unrolled and equal
/// neighbours merged: `(start µs, input)`, the first at 0.
fn held(track: &Track, window_us: u64) -> Vec<(u64, Input)> {
    let mut out: Vec<(u64, Input)> = vec![(0, track.input_at(0))];
    let mut t = 0;
    while let Some(next) = track.first_change(t, window_us.saturating_sub(1), out[out.len() - 1].1) {
        if next >= window_us {
            break;
        }
        out.push((next, track.input_at(next)));
        t = next;
    }
    out
}

/// The angle between two directions in {−1, 0, 1}², degrees.
fn angle_between(a: (i64, i64), b: (i64, i64)) -> f64 {
    let (x, y) = ((a.0 * b.0 + a.1 * b.1) as f64, (a.0 * b.1 - a.1 * b.0) as f64);
    libm::atan2(y, x).abs().to_degrees()
}

/// The aim's turn from `a` to `b`, degrees in [0, 180].
fn aim_turn_deg(a: Input, b: Input) -> f64 {
    let ang = |i: Input| libm::atan2(i.aim_y as f64, i.aim_x as f64);
    let d = (ang(b) - ang(a)).to_degrees().rem_euclid(360.0);
    d.min(360.0 - d)
}

/// 10th, 50th, 90th percentile (nearest rank) and mean; zeros if empty.
fn quantiles(v: &mut [f64]) -> [f64; 4] {
    if v.is_empty() {
        return [0.0; 4];
    }
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1];
    [at(0.1), at(0.5), at(0.9), v.iter().sum::<f64>() / v.len() as f64]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(buttons: u8) -> Input {
        Input::buttons(buttons)
    }

    /// A toy track with every statistic known by hand: 10 s, R 2 s, stop
    /// 1 s, L+S 3 s, U 4 s (cut by the window).
    #[test]
    fn a_toy_track_has_the_statistics_worked_by_hand() {
        let t = Track {
            segments: vec![
                (0, i(Input::RIGHT)),
                (2_000_000, i(0)),
                (3_000_000, i(Input::LEFT | Input::SHOOT)),
                (6_000_000, Input { buttons: Input::UP, aim_x: 0, aim_y: 5 }),
            ],
            repeat_us: None,
        };
        let s = of_track(&t, 10_000_000);
        assert_eq!(s.key_changes_per_s, 0.3);
        assert_eq!(s.aim_changes_per_s, 0.1);
        // Holds 2 s, 1 s, 3 s (the 4 s one is cut).
        assert_eq!(s.hold_ms, [1_000.0, 2_000.0, 3_000.0, 2_000.0]);
        assert_eq!(s.stopped, 0.1);
        assert_eq!(s.two_keys, 0.3);
        // R then L: one reversal in 10 s; L then U is 90°.
        assert_eq!(s.reversals_per_min, 6.0);
        assert_eq!(s.reverse_share, 0.5);
        assert_eq!(s.fire_duty, 0.3);
        assert_eq!(s.fire_press_ms, 3_000.0);
        assert_eq!(s.turn_deg_per_s, 0.0, "the first aim is unset: no turn");
    }

    #[test]
    fn turn_rate_and_repeats_unroll() {
        let aim = |x, y| Input { buttons: 0, aim_x: x, aim_y: y };
        // East, then north after 1 s, looping every 2 s: over 4 s three
        // turns of 90° (E→N, N→E at the loop, E→N).
        let t = Track { segments: vec![(0, aim(100, 0)), (1_000_000, aim(0, 100))], repeat_us: Some(2_000_000) };
        let s = of_track(&t, 4_000_000);
        assert!((s.turn_deg_per_s - 270.0 / 4.0).abs() < 1e-9, "{}", s.turn_deg_per_s);
        assert_eq!(s.aim_changes_per_s, 0.75);
        assert_eq!(s.key_changes_per_s, 0.0);
    }

    #[test]
    fn windows_of_recordings_and_their_limit() {
        let t = |segments: Vec<(u64, Input)>, repeat_us| Track { segments, repeat_us };
        let csv = Trace {
            name: "csv".into(),
            tracks: vec![t(vec![(0, i(0)), (7_000, i(1))], None), t(vec![(0, i(0))], None)],
        };
        assert_eq!(recorded_window_us(&csv), 7_001, "up to and including the last change");
        let looped = Trace { name: "l".into(), tracks: vec![t(vec![(0, i(0)), (1, i(1))], Some(2))] };
        assert_eq!(recorded_window_us(&looped), 2);
        assert!(check_window(&looped, 1_000_000).is_ok());
        let e = check_window(&looped, 3_600_000_000).unwrap_err();
        assert!(e.contains("the limit is"), "{e}");
    }

    /// A press still held at the window's end is cut, not counted.
    #[test]
    fn a_press_cut_by_the_window_is_left_out() {
        let t =
            Track { segments: vec![(0, i(Input::SHOOT)), (1_000, i(0)), (2_000, i(Input::SHOOT))], repeat_us: None };
        let s = of_track(&t, 10_000);
        assert_eq!(s.fire_press_ms, 1.0);
        assert_eq!(s.fire_duty, 0.9);
    }
}
