//! The discrete-event scheduler: a binary heap of `(time, class, sequence)`
//! keys over a slab of events.
//!
//! Events at the same instant are ordered first by [`EventClass`] (packets
//! arrive, then nodes tick, then screens render: a packet that arrives at `t`
//! is seen by a tick at `t`, and a render at `t` shows that tick), then by
//! insertion sequence. Nothing is ordered by hash or address, so a run is a
//! pure function of its inputs.
//!
//! ```
//! use harness::event::{EventClass, Scheduler};
//! use harness::time::Micros;
//! let mut s = Scheduler::new();
//! s.push(Micros(10), EventClass::Render, "render");
//! s.push(Micros(10), EventClass::Tick, "tick");
//! s.push(Micros(5), EventClass::Render, "early");
//! assert_eq!(s.pop().map(|(t, e)| (t.0, e)), Some((5, "early")));
//! assert_eq!(s.pop().map(|(_, e)| e), Some("tick"));
//! assert_eq!(s.pop().map(|(_, e)| e), Some("render"));
//! ```

use crate::time::Micros;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What kind of event; orders events that fall on the same microsecond.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EventClass {
    /// A network or harness-internal delivery.
    Packet = 0,
    /// A node's fixed-rate timer.
    Tick = 1,
    /// A client's render sample.
    Render = 2,
}

/// A pending event's place in the heap: its ordering key — time, then the
/// class (2 bits) and insertion sequence (62 bits) — and where the event
/// waits in the slab. Kept small (24 bytes) so the heap's sifting moves
/// little; the events themselves (a packet is 40 bytes) never move.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    time: u64,
    order: u64,
    slot: u32,
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        // BinaryHeap is a max-heap: reverse for earliest-first. (The slot
        // never decides: (time, order) is unique.)
        (other.time, other.order).cmp(&(self.time, self.order))
    }
}

/// A min-priority queue of timed events with deterministic tie-breaking.
pub struct Scheduler<E> {
    heap: BinaryHeap<Key>,
    /// The events, by slot; freed slots are reused.
    slab: Vec<Option<E>>,
    free: Vec<u32>,
    next_seq: u64,
    now: Micros,
}

impl<E> Default for Scheduler<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Scheduler<E> {
    /// An empty scheduler at time zero.
    pub fn new() -> Self {
        Scheduler { heap: BinaryHeap::new(), slab: Vec::new(), free: Vec::new(), next_seq: 0, now: Micros::ZERO }
    }

    /// Schedules `event` at `time`. A time in the past is clamped to now:
    /// the scheduler never runs backwards.
    pub fn push(&mut self, time: Micros, class: EventClass, event: E) {
        let time = time.max(self.now);
        let seq = self.next_seq;
        self.next_seq += 1;
        debug_assert!(seq < 1 << 62 && (class as u8) < 4);
        let slot = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = Some(event);
                i
            }
            None => {
                self.slab.push(Some(event));
                (self.slab.len() - 1) as u32
            }
        };
        self.heap.push(Key { time: time.0, order: (class as u64) << 62 | seq, slot });
    }

    /// Removes and returns the earliest event, advancing the clock to it.
    pub fn pop(&mut self) -> Option<(Micros, E)> {
        let k = self.heap.pop()?;
        self.now = Micros(k.time);
        self.free.push(k.slot);
        let event = self.slab[k.slot as usize].take().expect("a queued slot holds its event");
        Some((self.now, event))
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Micros> {
        self.heap.peek().map(|k| Micros(k.time))
    }

    /// The time of the last event popped.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ties_break_by_class_then_insertion() {
        let mut s = Scheduler::new();
        s.push(Micros(1), EventClass::Render, 0);
        s.push(Micros(1), EventClass::Tick, 1);
        s.push(Micros(1), EventClass::Tick, 2);
        s.push(Micros(1), EventClass::Packet, 3);
        let order: Vec<_> = std::iter::from_fn(|| s.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec![3, 1, 2, 0]);
    }

    #[test]
    fn past_events_are_clamped_to_now() {
        let mut s = Scheduler::new();
        s.push(Micros(100), EventClass::Tick, 'a');
        assert_eq!(s.pop(), Some((Micros(100), 'a')));
        s.push(Micros(50), EventClass::Tick, 'b');
        assert_eq!(s.pop(), Some((Micros(100), 'b')));
    }

    proptest! {
        #[test]
        fn pops_in_nondecreasing_time_and_stable_order(times in proptest::collection::vec(0u64..50, 0..200)) {
            let mut s = Scheduler::new();
            for (i, t) in times.iter().enumerate() {
                s.push(Micros(*t), EventClass::Tick, i);
            }
            let mut last: Option<(Micros, usize)> = None;
            while let Some((t, i)) = s.pop() {
                prop_assert_eq!(t.0, times[i]);
                if let Some((lt, li)) = last {
                    prop_assert!(lt < t || (lt == t && li < i));
                }
                last = Some((t, i));
            }
        }
    }
}
