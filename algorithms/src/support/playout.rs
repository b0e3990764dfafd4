//! A playout delay for frames that arrive with jitter: frame `f` plays on
//! tick `f + delay`, so a game that plays frames as they come plays one a
//! tick instead of stalling on a late one and doubling up on the next.
//!
//! The delay is the largest lateness (`arrival tick − f`) among frames
//! that arrived in the last two windows (of [`WINDOW_TICKS`] each): it grows
//! at once to a frame that came later, and falls back to what the last two
//! windows needed when a window closes — so after a delay spike the game
//! returns to the link's usual delay within two windows, playing the
//! frames held meanwhile faster. A frame later than the delay in force
//! still stalls the game (the delay then covers it): the price of a
//! shorter delay is such stalls, of a longer one latency.
//!
//! ```
//! use algorithms::support::playout::Playout;
//! let mut p = Playout::new();
//! assert_eq!(p.due(0), None, "nothing arrived yet");
//! p.arrived(0, 6); // frame 0 came on tick 6
//! assert_eq!(p.due(6), Some(0));
//! p.arrived(1, 9); // frame 1 three ticks later than frame 0 was
//! assert_eq!(p.due(9), Some(1), "the delay grew to 8");
//! assert_eq!(p.due(10), Some(2));
//! ```

/// Ticks in a window of the delay's memory (a second at 60 Hz).
pub const WINDOW_TICKS: u64 = 60;

/// The playout delay of one stream of frames.
#[derive(Clone, Debug, Default)]
pub struct Playout {
    /// Ticks between a frame's number and its playing tick (`None` until a
    /// frame has arrived).
    delay: Option<i64>,
    /// The largest lateness in the window open now and the one before.
    this_window: Option<i64>,
    last_window: Option<i64>,
    /// The tick the open window started on.
    window_start: u64,
}

impl Playout {
    /// No frame arrived yet.
    pub fn new() -> Playout {
        Playout::default()
    }

    /// Frame `f` arrived (became playable) on tick `tick`.
    pub fn arrived(&mut self, f: u32, tick: u64) {
        let late = tick as i64 - f as i64;
        self.this_window = Some(self.this_window.map_or(late, |m| m.max(late)));
        if self.delay.is_none_or(|d| late > d) {
            self.delay = Some(late);
        }
    }

    /// The newest frame due on tick `tick` (`None`: none yet, or before
    /// frame 0). Closes the window when its time is up.
    pub fn due(&mut self, tick: u64) -> Option<u32> {
        if tick >= self.window_start + WINDOW_TICKS {
            let needed = match (self.this_window, self.last_window) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            };
            if let (Some(n), Some(d)) = (needed, self.delay) {
                self.delay = Some(n.min(d));
            }
            self.last_window = self.this_window.take();
            self.window_start = tick;
        }
        let f = tick as i64 - self.delay?;
        u32::try_from(f).ok()
    }

    /// The delay in force, ticks (0 before any frame arrived).
    pub fn delay(&self) -> i64 {
        self.delay.unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spike_is_forgotten_within_two_windows() {
        let mut p = Playout::new();
        // Frames 6 ticks late, then one 60 ticks late, then 6 again.
        for f in 0..100u32 {
            p.arrived(f, f as u64 + 6);
            p.due(f as u64 + 6);
        }
        p.arrived(100, 160);
        assert_eq!(p.delay(), 60);
        for f in 101..1000u32 {
            p.arrived(f, f as u64 + 6);
            p.due(f as u64 + 6);
        }
        assert_eq!(p.delay(), 6);
    }

    #[test]
    fn the_delay_covers_the_latest_frame_of_two_windows() {
        let mut p = Playout::new();
        // Lateness 5, 7, 5, 7, ...: the delay settles at 7, and every
        // frame is there by its tick.
        for f in 0..1000u32 {
            let t = f as u64 + 5 + 2 * (f % 2) as u64;
            p.arrived(f, t);
            p.due(t);
        }
        assert_eq!(p.delay(), 7);
    }
}
