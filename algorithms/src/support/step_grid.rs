//! A fixed grid of steps a screen-side simulation advances on, whatever
//! the render rate: four steps a tick, at `k · dt / 4` µs of local time.
//!
//! Wei and thc move remote copies once per rendered frame by the
//! frame's time — an Euler step at the screen's rate, so a faster screen
//! draws another path. A client that keeps a [`StepGrid`] runs its copies
//! on the grid before anything reads them (ticks, packets, renders), and a
//! render draws a part-step from [`StepGrid::last`] without keeping it:
//! what a screen shows is then a function of time.
//!
//! ```
//! use algorithms::support::step_grid::StepGrid;
//! let mut g = StepGrid::new(16_000);
//! let mut steps = Vec::new();
//! g.run_until(0, |t, span| steps.push((t, span))); // starts the grid
//! g.run_until(10_000, |t, span| steps.push((t, span)));
//! assert_eq!(steps, [(4_000, 4_000), (8_000, 4_000)]);
//! assert_eq!(g.last(), Some(8_000));
//! ```

/// Steps per tick.
pub const STEPS_PER_TICK: i64 = 4;

/// The grid and how far along it a simulation has been run.
#[derive(Clone, Copy, Debug)]
pub struct StepGrid {
    dt: i64,
    /// The last step taken (`None` before the first call).
    done: Option<i64>,
}

impl StepGrid {
    /// A grid for ticks of `dt` µs.
    pub fn new(dt: i64) -> StepGrid {
        StepGrid { dt: dt.max(1), done: None }
    }

    /// Local time of step `k`.
    fn time(&self, k: i64) -> i64 {
        k * self.dt / STEPS_PER_TICK
    }

    /// Local time of the last step taken.
    pub fn last(&self) -> Option<i64> {
        self.done.map(|k| self.time(k))
    }

    /// How far local time `now` is past the last step (0 before the first):
    /// the part-step a render draws without keeping.
    pub fn since_last(&self, now: i64) -> i64 {
        now - self.last().unwrap_or(now)
    }

    /// Calls `step(t, span)` for every grid step after the last one up to
    /// local time `now`, in order (`t` the step's time, `span` its length,
    /// µs). The first call only places the grid at `now`.
    pub fn run_until(&mut self, now: i64, mut step: impl FnMut(i64, i64)) {
        let Some(mut k) = self.done else {
            self.done = Some((now * STEPS_PER_TICK).div_euclid(self.dt));
            return;
        };
        let (mut prev, mut next) = (self.time(k), self.time(k + 1));
        while next <= now {
            k += 1;
            step(next, next - prev);
            (prev, next) = (next, self.time(k + 1));
        }
        self.done = Some(k);
    }
}

/// `c.round() as i32` (to the nearest, halves away from zero; saturating;
/// NaN to 0) without a call: `f64::round` is a library routine on
/// x86-64's baseline (no SSE4.1), and a chaser rounds three components
/// four times a tick for every entity it draws.
///
/// ```
/// use algorithms::support::step_grid::round_to_i32;
/// assert_eq!([round_to_i32(2.5), round_to_i32(-2.5), round_to_i32(2.49), round_to_i32(-0.5)], [3, -3, 2, -1]);
/// assert_eq!([round_to_i32(1e300), round_to_i32(f64::NEG_INFINITY), round_to_i32(f64::NAN)], [i32::MAX, i32::MIN, 0]);
/// ```
#[inline]
pub fn round_to_i32(c: f64) -> i32 {
    // Truncated (a single conversion, saturating), then the fraction it
    // dropped — exact below 2⁵² (larger doubles are whole: it is 0).
    let whole = c as i64;
    let frac = c - whole as f64;
    let r = if frac >= 0.5 {
        whole.saturating_add(1)
    } else if frac <= -0.5 {
        whole.saturating_sub(1)
    } else {
        whole
    };
    r.clamp(i32::MIN as i64, i32::MAX as i64) as i32
}

/// `r`, a step's component rounded or truncated to whole µm, but at least
/// 1 µm toward `c` (the exact component) when `c` is not zero: rounded to
/// nothing, a copy just inside a wall's reach would never move out of it
/// along the axis that has a way to go.
pub fn at_least_a_micrometre(r: i32, c: f64) -> i32 {
    if r == 0 && c != 0.0 {
        c.signum() as i32
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The same integer as `f64::round` then `as i32`, on any double
        /// (its bits drawn at random: huge, tiny, halves, NaN, infinities).
        #[test]
        fn rounds_as_the_library_does(bits in any::<u64>(), small in -1e7f64..1e7, half in -100_000i32..100_000) {
            for c in [f64::from_bits(bits), small, half as f64 + 0.5, half as f64 - 0.5] {
                prop_assert_eq!(round_to_i32(c), c.round() as i32, "{}", c);
            }
        }
    }
}
