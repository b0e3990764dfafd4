//! A server's per-client input buffer: sequenced inputs arrive (repeated by
//! redundancy, out of order across packets) and leave one per server tick.
//!
//! Two ways to run it (`--opt input-buffer=adaptive|queue`):
//!
//! - **adaptive** (default; Overwatch's design, Tim Ford's GDC 2017 talk):
//!   nothing is dropped — each input is run once, in order. The buffer
//!   measures the jitter of its client's packets (the spread of their
//!   arrival times against the client's steady tick schedule `tick × dt`
//!   — the packet says which tick sent it — over the last two seconds,
//!   from its 2nd to its 98th percentile) and keeps a target depth that
//!   covers it. Ten times a second
//!   it tells the client how far its depth is from that target
//!   ([`InputQueue::pace`]); the client shifts its input clock — one sample
//!   fewer to drain a deep buffer, one more to fill a shallow one
//!   ([`super::uplink::InputUplink`]) — so the buffer holds just enough
//!   inputs to ride out the jitter. Only when it runs dry is the last input
//!   run again (the client's next one is late).
//! - **queue** (the earlier design, kept for comparison): at most
//!   `max-queue` inputs; when full the oldest is dropped, when empty the
//!   last is repeated, and the client is never told.

use std::collections::VecDeque;

/// Inputs whose arrival spread the adaptive buffer covers: two seconds'
/// worth at 60 Hz.
const WINDOW: usize = 120;

/// Percent of recent arrivals the target depth covers: the rest — a long
/// tail's last 2% — would cost a tick of latency each for a repeat a
/// minute.
const COVERED: usize = 98;

/// A hostile or runaway client cannot queue more than this.
const HARD_CAP: usize = 256;

/// How the buffer is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Run every input once; a target depth that follows the jitter.
    Adaptive,
    /// At most `max` inputs; drop the oldest, repeat the last.
    Queue {
        /// Depth limit.
        max: usize,
    },
}

/// Queued inputs of one client, each with its sequence number.
#[derive(Clone, Debug)]
pub struct InputQueue<T: Clone> {
    queue: VecDeque<(u32, T)>,
    newest: u32,
    mode: Mode,
    current: Option<(u32, T)>,
    /// Tick length, µs.
    dt: i64,
    /// Arrival time − `tick × dt` of the newest packets (adaptive).
    offsets: VecDeque<i64>,
    /// The same offsets in ascending order: the target's percentiles are
    /// read off it every tick.
    sorted: Vec<i64>,
    /// Depth after each tick since the last pace report: (sum, ticks).
    depth: (u64, u64),
}

impl<T: Clone> InputQueue<T> {
    /// A buffer run in `mode`, for ticks of `dt` µs.
    pub fn new(mode: Mode, dt: i64) -> InputQueue<T> {
        InputQueue {
            queue: VecDeque::new(),
            newest: 0,
            mode,
            current: None,
            dt: dt.max(1),
            offsets: VecDeque::new(),
            sorted: Vec::new(),
            depth: (0, 0),
        }
    }

    /// A packet the client sent on its tick `tick` arrived at server time
    /// `now` (the jitter measurement: arrival − `tick × dt`).
    pub fn arrived(&mut self, tick: u32, now: i64) {
        let offset = now - tick as i64 * self.dt;
        self.offsets.push_back(offset);
        let at = self.sorted.partition_point(|&x| x < offset);
        if self.offsets.len() <= WINDOW {
            self.sorted.insert(at, offset);
            return;
        }
        // A full window: the oldest offset leaves as the new one comes,
        // so only the values between their places shift, by one.
        let old = self.offsets.pop_front().expect("longer than the window");
        let gone = self.sorted.partition_point(|&x| x < old);
        if gone < at {
            self.sorted[gone..at].rotate_left(1);
            self.sorted[at - 1] = offset;
        } else {
            self.sorted[at..=gone].rotate_right(1);
            self.sorted[at] = offset;
        }
    }

    /// Offers input `seq`; ignored unless newer than every input seen.
    pub fn offer(&mut self, seq: u32, item: T) {
        if seq <= self.newest {
            return;
        }
        self.newest = seq;
        self.queue.push_back((seq, item));
        let max = match self.mode {
            Mode::Queue { max } => max.max(1),
            Mode::Adaptive => HARD_CAP,
        };
        while self.queue.len() > max {
            self.queue.pop_front();
        }
    }

    /// The input for this tick: the next queued one, or the last one again.
    pub fn for_tick(&mut self) -> Option<&(u32, T)> {
        if let Some(n) = self.queue.pop_front() {
            self.current = Some(n);
        }
        self.depth.0 += self.queue.len() as u64;
        self.depth.1 += 1;
        self.current.as_ref()
    }

    /// The depth that covers the measured jitter: the spread of recent
    /// arrivals (from the 2nd to the 98th percentile), in ticks (0 when
    /// inputs arrive like clockwork).
    pub fn target(&self) -> usize {
        let v = &self.sorted;
        if v.is_empty() {
            return 0;
        }
        // From the 2nd to the 98th percentile: one damaged or freak
        // arrival at either end does not size the buffer. (Read off the
        // offsets kept in order: this runs every tick.)
        let (k_lo, k_hi) = (((v.len() - 1) * (100 - COVERED)) / 100, ((v.len() - 1) * COVERED) / 100);
        let (lo, hi) = (v[k_lo], v[k_hi]);
        (hi.saturating_sub(lo).saturating_add(self.dt - 1) / self.dt).max(0) as usize
    }

    /// Adaptive: how many ticks the buffer's mean depth since the last call
    /// is beyond its target (negative: short of it), for the client to
    /// correct; `None` in queue mode.
    pub fn pace(&mut self) -> Option<i8> {
        let (sum, ticks) = std::mem::take(&mut self.depth);
        if self.mode != Mode::Adaptive || ticks == 0 {
            return None;
        }
        let mean = sum as f64 / ticks as f64;
        Some((mean - self.target() as f64).round().clamp(-100.0, 100.0) as i8)
    }

    /// Inputs waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_dedups_orders_bounds_and_repeats() {
        let mut q = InputQueue::new(Mode::Queue { max: 2 }, 10);
        assert!(q.for_tick().is_none());
        q.offer(1, 'a');
        q.offer(1, 'a');
        q.offer(2, 'b');
        q.offer(3, 'c'); // drops 1
        assert_eq!(q.len(), 2);
        assert_eq!(q.for_tick().map(|x| x.0), Some(2));
        assert_eq!(q.for_tick().map(|x| x.0), Some(3));
        assert_eq!(q.for_tick().map(|x| x.0), Some(3), "repeats the last input");
        q.offer(2, 'z');
        assert!(q.is_empty(), "older than the newest seen");
        assert_eq!(q.pace(), None, "a queue tells the client nothing");
    }

    #[test]
    fn an_adaptive_buffer_keeps_everything_and_sizes_its_target_by_the_jitter() {
        let mut q = InputQueue::new(Mode::Adaptive, 100);
        // Steady arrivals: no buffer needed.
        for s in 1..=20u32 {
            q.offer(s, s);
            q.arrived(s, s as i64 * 100 + 7);
        }
        assert_eq!(q.target(), 0);
        assert_eq!(q.len(), 20, "nothing dropped");
        // One input in 21 late by 350 µs: the last 2% of a spread is not
        // covered; two in 22 are.
        q.offer(21, 21);
        q.arrived(21, 21 * 100 + 357);
        assert_eq!(q.target(), 0);
        q.offer(22, 22);
        q.arrived(22, 22 * 100 + 357);
        assert_eq!(q.target(), 4);
        // 22 queued, 1 taken per tick: mean depth far beyond the target.
        for _ in 0..5 {
            q.for_tick();
        }
        assert_eq!(q.pace(), Some(15), "mean depth 19, target 4");
        assert_eq!(q.pace(), None, "nothing measured since");
    }

    proptest::proptest! {
        /// The target read off the ordered offsets is the one two
        /// selections over the window's offsets give, however the arrivals
        /// wander and the window slides.
        #[test]
        fn the_target_is_the_window_percentile_spread(
            arrivals in proptest::collection::vec((0u32..50, -5_000i64..5_000), 1..400),
        ) {
            let mut q: InputQueue<u32> = InputQueue::new(Mode::Adaptive, 100);
            let mut window: VecDeque<i64> = VecDeque::new();
            for (k, (tick, jitter)) in arrivals.into_iter().enumerate() {
                let now = k as i64 * 100 + jitter;
                q.arrived(tick, now);
                window.push_back(now - tick as i64 * 100);
                if window.len() > WINDOW {
                    window.pop_front();
                }
                let mut v: Vec<i64> = window.iter().copied().collect();
                let mut ordered = v.clone();
                ordered.sort_unstable();
                proptest::prop_assert_eq!(&q.sorted, &ordered);
                let (k_lo, k_hi) = (((v.len() - 1) * (100 - COVERED)) / 100, ((v.len() - 1) * COVERED) / 100);
                let hi = *v.select_nth_unstable(k_hi).1;
                let lo = if k_lo < k_hi { *v[..k_hi].select_nth_unstable(k_lo).1 } else { hi };
                let want = (hi.saturating_sub(lo).saturating_add(99) / 100).max(0) as usize;
                proptest::prop_assert_eq!(q.target(), want);
            }
        }
    }
}
