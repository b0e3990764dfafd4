//! Entity interpolation: show remote entities in the past.
//!
//! The buffer keeps the authoritative snapshots received, each stamped with
//! the server time of its frame. A render at server time `t` shows each
//! entity at `t − delay`, interpolated linearly between the two snapshots
//! around that instant — so a displayed position is always on the segment
//! between two received states. When the buffer runs dry (`t − delay` is
//! past the newest snapshot) the [`Dry`] policy decides: hold the newest
//! position, or extrapolate along its velocity for at most a bounded time.

use crate::support::delta::Quantized;
use std::cell::Cell;
use std::collections::VecDeque;
use std::sync::Arc;

/// How a snapshot holds its entities' positions: what the client already
/// keeps, so a snapshot kept as a delta baseline and for interpolation is
/// held once. Positions are read in µm.
pub trait Positions {
    /// Number of entities.
    fn len(&self) -> usize;
    /// Whether there are none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Entity `e`'s position (x, y, z), µm.
    fn um(&self, e: usize) -> [i32; 3];
}

/// Positions in µm, as the game has them.
impl Positions for Vec<[i32; 3]> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    #[inline]
    fn um(&self, e: usize) -> [i32; 3] {
        self[e]
    }
}

/// A decoded snapshot codec world (millimetres), shared with the delta
/// baselines (an `Arc` of the decoder's own `Vec`: no copy).
impl Positions for Arc<Vec<Quantized>> {
    fn len(&self) -> usize {
        self.as_slice().len()
    }
    #[inline]
    fn um(&self, e: usize) -> [i32; 3] {
        self[e].um()
    }
}

/// One received snapshot, reduced to what interpolation needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snap<P = Vec<[i32; 3]>> {
    /// Server time of the frame, µs.
    pub time_us: i64,
    /// The frame.
    pub frame: u32,
    /// Per entity: position (x, y, z), read in µm.
    pub pos: P,
    /// Per entity: velocity (x, y, z), µm/s; empty when the codec carries
    /// none (read as zero: memory, in large worlds).
    pub vel: Vec<[i32; 3]>,
}

/// What to do past the newest snapshot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dry {
    /// Keep showing the newest position.
    Hold,
    /// Extrapolate along the newest velocity for at most this long (µs),
    /// then hold.
    Extrapolate(i64),
}

/// Where an entity is shown and which snapshots it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sample {
    /// Displayed position.
    pub pos: [i32; 3],
    /// The frame whose state the display has reached: the older of the two
    /// interpolated, or past frames lost between them, the last passed.
    pub frame: u32,
    /// The snapshots interpolated between and the blend (0..=65535) —
    /// what a shot carries for lag compensation.
    pub view: (u32, u32, u16),
}

/// The buffer of received snapshots.
#[derive(Clone, Debug, Default)]
pub struct InterpolationBuffer<P = Vec<[i32; 3]>> {
    snaps: VecDeque<Snap<P>>,
    capacity: usize,
    /// Longest gap between two snapshots interpolated across, µs; across a
    /// longer one (an outage) the older state is held until the newer one.
    max_span_us: i64,
    /// The last search: `(t, index)` of the first snapshot after `t`. A
    /// render samples every entity at one instant: one search, not one per
    /// entity. Cleared by every change to `snaps`.
    found: Cell<Option<(i64, usize)>>,
}

impl<P: Positions> InterpolationBuffer<P> {
    /// A buffer keeping at most `capacity` snapshots.
    pub fn new(capacity: usize) -> InterpolationBuffer<P> {
        InterpolationBuffer {
            snaps: VecDeque::new(),
            capacity: capacity.max(2),
            max_span_us: i64::MAX,
            found: Cell::new(None),
        }
    }

    /// Interpolates only between snapshots at most `us` apart. The straight
    /// line between two states seconds apart (either side of an outage)
    /// runs through walls; `conform --cases 10000` caught `delta-snapshot`
    /// drawing a player 0.11 m inside one that way. Holding the older state
    /// until the newer one's time keeps every drawn point authoritative.
    pub fn max_span(mut self, us: i64) -> InterpolationBuffer<P> {
        self.max_span_us = us.max(1);
        self
    }

    /// Adds a snapshot (in any order; duplicates are ignored) and hands
    /// back the one it let go, if any — the oldest past the capacity, or
    /// `s` itself when its frame is held already — so that a caller can
    /// fill the next one in its buffers.
    pub fn push(&mut self, s: Snap<P>) -> Option<Snap<P>> {
        let i = self.snaps.partition_point(|x| x.frame < s.frame);
        if self.snaps.get(i).is_some_and(|x| x.frame == s.frame) {
            return Some(s);
        }
        self.snaps.insert(i, s);
        let mut gone = None;
        while self.snaps.len() > self.capacity {
            gone = self.snaps.pop_front();
        }
        self.found.set(None);
        gone
    }

    /// The newest snapshot.
    pub fn newest(&self) -> Option<&Snap<P>> {
        self.snaps.back()
    }

    /// Entity `e` as shown at server time `t_us`.
    pub fn sample(&self, t_us: i64, e: usize, dry: Dry) -> Option<Sample> {
        self.at(t_us)?.sample(e, dry)
    }

    /// The buffer at server time `t_us`, to sample every entity there: the
    /// snapshots around the instant are found, and the blend between them
    /// worked out, once for all of them. `None` when nothing was received.
    pub fn at(&self, t_us: i64) -> Option<Instant<'_, P>> {
        let first = self.snaps.front()?;
        let i = match self.found.get() {
            Some((t, i)) if t == t_us => i,
            _ => {
                let i = self.snaps.partition_point(|s| s.time_us <= t_us);
                self.found.set(Some((t_us, i)));
                i
            }
        };
        let Some(a) = i.checked_sub(1).map(|k| &self.snaps[k]) else {
            return Some(Instant { t_us, first, between: Between::First });
        };
        let between = match self.snaps.get(i) {
            Some(b) if b.time_us - a.time_us > self.max_span_us => Between::Gap { a, b },
            Some(b) => {
                let span = (b.time_us - a.time_us).max(1);
                let k = (t_us - a.time_us).clamp(0, span);
                // i128 only for a span a damaged frame number made huge.
                let blend =
                    if span < 1 << 31 { (k * 65535 / span) as u16 } else { (k as i128 * 65535 / span as i128) as u16 };
                Between::Lerp { a, b, k, span, blend }
            }
            None => Between::Dry { a },
        };
        Some(Instant { t_us, first, between })
    }
}

/// Where an instant falls among the snapshots.
#[derive(Clone, Copy, Debug)]
enum Between<'a, P> {
    /// Before the second snapshot: the first one is shown.
    First,
    /// Between `a` and `b`, `k` of the `span` µs apart (`blend` of 65535).
    Lerp { a: &'a Snap<P>, b: &'a Snap<P>, k: i64, span: i64, blend: u16 },
    /// Between two snapshots too far apart to interpolate: `a` is held.
    Gap { a: &'a Snap<P>, b: &'a Snap<P> },
    /// Past the newest snapshot, `a`.
    Dry { a: &'a Snap<P> },
}

/// The buffer at one server instant ([`InterpolationBuffer::at`]).
#[derive(Clone, Copy, Debug)]
pub struct Instant<'a, P> {
    t_us: i64,
    first: &'a Snap<P>,
    between: Between<'a, P>,
}

impl<P: Positions> Instant<'_, P> {
    /// Entity `e` as shown at this instant (what
    /// [`InterpolationBuffer::sample`] gives).
    #[inline]
    pub fn sample(&self, e: usize, dry: Dry) -> Option<Sample> {
        let first = self.first;
        if e >= first.pos.len() {
            return None;
        }
        let hold = |a: &Snap<P>| Sample { pos: a.pos.um(e), frame: a.frame, view: (a.frame, a.frame, 0) };
        Some(match self.between {
            Between::First => hold(first),
            Between::Gap { a, b } if e < b.pos.len() => hold(a),
            Between::Lerp { a, b, k, span, blend } if e < b.pos.len() => {
                let (pa, pb) = (a.pos.um(e), b.pos.um(e));
                let pos = if span < 1 << 31 {
                    // |y − x| < 2³² and k ≤ span < 2³¹: the product fits i64.
                    let lerp = |x: i32, y: i32| (x as i64 + (y as i64 - x as i64) * k / span) as i32;
                    [lerp(pa[0], pb[0]), lerp(pa[1], pb[1]), lerp(pa[2], pb[2])]
                } else {
                    // i128: a damaged frame number can make the span huge.
                    let lerp = |x: i32, y: i32| (x as i128 + (y as i128 - x as i128) * k as i128 / span as i128) as i32;
                    [lerp(pa[0], pb[0]), lerp(pa[1], pb[1]), lerp(pa[2], pb[2])]
                };
                // The frame the picture has reached: the older snapshot's, or
                // past a frame lost between the two, that one's.
                let reached = (b.frame as i64 - a.frame as i64).max(0) * k.max(0) / span.max(1);
                let frame = (a.frame as i64 + reached).clamp(a.frame as i64, b.frame.max(a.frame) as i64) as u32;
                Sample { pos, frame, view: (a.frame, b.frame, blend) }
            }
            // Past the newest snapshot (or an entity the next one lacks).
            Between::Gap { a, .. } | Between::Lerp { a, .. } | Between::Dry { a } => {
                let pos = match dry {
                    Dry::Hold => a.pos.um(e),
                    Dry::Extrapolate(max) => {
                        let dt = (self.t_us - a.time_us).clamp(0, max);
                        let ex = |p: i32, v: i32| (p as i64 + v as i64 * dt / 1_000_000) as i32;
                        let v = a.vel.get(e).copied().unwrap_or_default();
                        let p = a.pos.um(e);
                        [ex(p[0], v[0]), ex(p[1], v[1]), ex(p[2], v[2]).max(0)]
                    }
                };
                Sample { pos, frame: a.frame, view: (a.frame, a.frame, 0) }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn snap(frame: u32, x: i32) -> Snap {
        Snap { time_us: frame as i64 * 16_666, frame, pos: vec![[x, 0, 0]], vel: vec![[6_000_000, 0, 0]] }
    }

    #[test]
    fn a_push_hands_back_what_it_let_go() {
        let mut b = InterpolationBuffer::new(2);
        assert_eq!(b.push(snap(1, 0)), None);
        assert_eq!(b.push(snap(2, 10)), None);
        assert_eq!(b.push(snap(3, 20)).map(|s| s.frame), Some(1), "the oldest, past the capacity");
        assert_eq!(b.push(snap(3, 99)).map(|s| s.pos[0][0]), Some(99), "a frame held already: the new one");
        assert_eq!(b.push(snap(0, 5)).map(|s| s.frame), Some(0), "older than everything kept");
        assert_eq!(b.newest().map(|s| (s.frame, s.pos[0][0])), Some((3, 20)));
    }

    #[test]
    fn a_push_between_two_samples_at_one_instant_is_seen() {
        let mut b = InterpolationBuffer::new(10);
        b.push(snap(1, 0));
        let t = 2 * 16_666;
        assert_eq!(b.sample(t, 0, Dry::Hold).unwrap().pos[0], 0);
        b.push(snap(3, 2_000));
        assert_eq!(b.sample(t, 0, Dry::Hold).unwrap().pos[0], 1_000, "the search is redone after a push");
    }

    #[test]
    fn interpolates_holds_and_extrapolates() {
        let mut b = InterpolationBuffer::new(10);
        b.push(snap(1, 0));
        b.push(snap(3, 2_000));
        let mid = b.sample(2 * 16_666, 0, Dry::Hold).unwrap();
        assert_eq!(mid.pos[0], 1_000);
        assert_eq!(mid.view.0, 1);
        assert_eq!(mid.view.1, 3);
        assert_eq!(b.sample(10 * 16_666, 0, Dry::Hold).unwrap().pos[0], 2_000);
        // Extrapolation stops after its limit: 6 m/s for at most 50 ms.
        let ex = b.sample(100 * 16_666, 0, Dry::Extrapolate(50_000)).unwrap();
        assert_eq!(ex.pos[0], 2_000 + 300_000);
        assert_eq!(b.sample(0, 0, Dry::Hold).unwrap().pos[0], 0);
    }

    proptest! {
        /// The `i64` lerp gives what the `i128` one gives, for any spans it
        /// takes and any positions.
        #[test]
        fn the_i64_lerp_is_the_i128_lerp(
            span in 1i64..(1 << 31), k in 0.0f64..=1.0, x in proptest::num::i32::ANY, y in proptest::num::i32::ANY,
        ) {
            let mut b = InterpolationBuffer::new(4);
            b.push(Snap { time_us: 0, frame: 1, pos: vec![[x, y, 0]], vel: Vec::new() });
            b.push(Snap { time_us: span, frame: 2, pos: vec![[y, x, 0]], vel: Vec::new() });
            let t = (span as f64 * k) as i64;
            let s = b.sample(t, 0, Dry::Hold).unwrap();
            let wide = |a: i32, c: i32| (a as i128 + (c as i128 - a as i128) * t as i128 / span as i128) as i32;
            prop_assert_eq!(s.pos, [wide(x, y), wide(y, x), 0]);
            prop_assert_eq!(s.view.2, (t as i128 * 65535 / span as i128) as u16);
        }
        /// A displayed position always lies on the segment between the two
        /// received states around it (never beyond them without the
        /// extrapolate policy).
        #[test]
        fn interpolation_stays_on_the_received_path(
            xs in proptest::collection::vec(-40_000_000i32..40_000_000, 2..30),
            drop in proptest::collection::vec(any::<bool>(), 30),
            t in 0i64..40 * 16_666,
        ) {
            let mut b = InterpolationBuffer::new(64);
            let mut kept = Vec::new();
            for (f, x) in xs.iter().enumerate() {
                if !drop[f] || f == 0 {
                    b.push(snap(f as u32, *x));
                    kept.push((f as i64 * 16_666, *x));
                }
            }
            let s = b.sample(t, 0, Dry::Hold).unwrap();
            let x = s.pos[0];
            let i = kept.partition_point(|(ts, _)| *ts <= t);
            let (lo, hi) = match (i.checked_sub(1).map(|j| kept[j]), kept.get(i)) {
                (Some(a), Some(b)) => (a.1.min(b.1), a.1.max(b.1)),
                (Some(a), None) => (a.1, a.1),
                (None, Some(b)) => (b.1, b.1),
                (None, None) => unreachable!(),
            };
            prop_assert!(lo <= x && x <= hi, "{x} not in [{lo}, {hi}]");
        }
    }

    #[test]
    fn an_outage_is_held_across_not_interpolated() {
        let at =
            |t: i64, x: i32| Snap { time_us: t, frame: (t / 16_666) as u32 + 1, pos: vec![[x, 0, 0]], vel: Vec::new() };
        let mut b = InterpolationBuffer::new(8).max_span(100_000);
        b.push(at(0, 0));
        b.push(at(3_000_000, 3_000_000));
        // Mid-gap: the state before the outage, not a point on a line through walls.
        assert_eq!(b.sample(1_500_000, 0, Dry::Hold).unwrap().pos[0], 0);
        assert_eq!(b.sample(3_000_000, 0, Dry::Hold).unwrap().pos[0], 3_000_000);
        // Snapshots close together are interpolated as before.
        b.push(at(3_050_000, 3_050_000));
        assert_eq!(b.sample(3_025_000, 0, Dry::Hold).unwrap().pos[0], 3_025_000);
    }
}
