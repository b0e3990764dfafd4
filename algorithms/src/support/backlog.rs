//! Which unacknowledged items a packet carries, when a packet holds at
//! most `max` of them.
//!
//! While the backlog (`acked..have`) fits in a packet, every packet
//! carries all of it: each one repeats what the last may have lost, so a
//! loss costs nothing. Past that — a round trip longer than `max` ticks,
//! or an outage — successive packets carry successive slices of the
//! backlog and start again from the oldest once they reach the newest. A
//! packet that always carried the oldest `max` would deliver `max` items
//! a *round trip* (the oldest moves only when an acknowledgement comes
//! back): on a 2 s round trip at 60 Hz, 64 inputs every 120 ticks, and a
//! game that waits for them falls behind the clock for good. Slices
//! deliver `max` a packet, and a lost slice comes again on the next pass.
//!
//! ```
//! use algorithms::support::backlog::Backlog;
//! let mut b = Backlog::new(1);
//! assert_eq!(b.range(0, 10, 30, 64), 10..30, "it fits: all of it");
//! assert_eq!(b.range(0, 10, 150, 64), 10..74, "past a packet: the oldest slice first");
//! assert_eq!(b.range(0, 10, 151, 64), 74..138, "then the next");
//! assert_eq!(b.range(0, 10, 152, 64), 138..152, "up to the newest");
//! assert_eq!(b.range(0, 10, 153, 64), 10..74, "then from the oldest again");
//! assert_eq!(b.range(0, 100, 153, 64), 100..153, "an acknowledgement shrinks it");
//! ```

use std::ops::Range;

/// Per receiver, where the next slice of its backlog starts.
#[derive(Clone, Debug)]
pub struct Backlog {
    next: Vec<u32>,
}

impl Backlog {
    /// For `receivers` receivers (indexed `0..receivers`).
    pub fn new(receivers: usize) -> Backlog {
        Backlog { next: vec![0; receivers] }
    }

    /// The items the next packet to `receiver` carries: it holds `acked`
    /// items (`0..acked`), the sender has `have`, and a packet takes at
    /// most `max` (at least 1).
    pub fn range(&mut self, receiver: usize, acked: u32, have: u32, max: u32) -> Range<u32> {
        let max = max.max(1);
        let acked = acked.min(have);
        let Some(next) = self.next.get_mut(receiver) else { return acked..have.min(acked + max) };
        if have - acked <= max {
            *next = acked;
            return acked..have;
        }
        let from = if (acked..have).contains(next) { *next } else { acked };
        let end = have.min(from + max);
        *next = if end >= have { acked } else { end };
        from..end
    }
}
