//! The client's clock for drawing the past: server time as the
//! least-delayed snapshot dates it, and the `interp` option every
//! interpolating algorithm reads against it.
//!
//! Frame `f` is the server's state at `(f − 1) · dt`. A snapshot that
//! arrives at local time `now` says the server clock reads at least its
//! frame's time then; the largest such reading over all arrivals is the
//! server time of the newest snapshot on the fastest path. Drawing remote
//! entities `interp` behind it is Source's `cl_interp`: the delay is
//! counted from the newest snapshot received, not from an estimate of the
//! server's present, so the same `interp` means the same buffering on any
//! link and every algorithm.

use harness::contract::OptionSpec;

/// `interp`: how far behind the newest snapshot remote entities are drawn.
pub const INTERP: OptionSpec = OptionSpec::number(
    "interp",
    "100",
    0.0,
    10000.0,
    "draw remote players this far behind the newest snapshot received, ms (Source's cl_interp)",
);

/// Server time ≈ local time + offset, from the least-delayed arrival.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ArrivalClock {
    offset: Option<i64>,
}

impl ArrivalClock {
    /// Takes the arrival of `frame` at local time `now_us` (tick `dt_us`).
    pub fn on_frame(&mut self, frame: u32, dt_us: i64, now_us: i64) {
        let arrival = (frame as i64 - 1) * dt_us - now_us;
        self.offset = Some(self.offset.map_or(arrival, |o| o.max(arrival)));
    }

    /// Server time minus local time, once a snapshot has arrived.
    pub fn offset(&self) -> Option<i64> {
        self.offset
    }

    /// The server time to draw at local time `now_us`, `interp_us` behind
    /// the newest snapshot; `None` before any arrival.
    pub fn draw_time(&self, now_us: i64, interp_us: i64) -> Option<i64> {
        self.offset.map(|o| now_us + o - interp_us)
    }
}

/// The `interp` option in µs.
pub fn interp_us(options: &harness::contract::Options) -> i64 {
    (options.number(&INTERP).max(0.0) * 1e3) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_delayed_arrival_sets_the_clock() {
        let dt = 16_666;
        let mut c = ArrivalClock::default();
        assert_eq!(c.draw_time(0, 0), None);
        // Frame 11 (server time 166,660 µs) arrives after 50 ms, then
        // frame 12 after 30 ms: the second reading is the later one.
        c.on_frame(11, dt, 166_660 + 50_000);
        c.on_frame(12, dt, 183_326 + 30_000);
        assert_eq!(c.offset(), Some(-30_000));
        // A slower arrival does not move it back.
        c.on_frame(13, dt, 199_992 + 90_000);
        assert_eq!(c.offset(), Some(-30_000));
        // 100 ms behind the newest snapshot on the 30 ms path.
        assert_eq!(c.draw_time(300_000, 100_000), Some(300_000 - 30_000 - 100_000));
    }
}
