//! The discrete-event scheduler: a calendar queue of `(time, class,
//! sequence)` keys over a slab of events.
//!
//! Events at the same instant are ordered first by [`EventClass`] (packets
//! arrive, then nodes tick, then screens render: a packet that arrives at `t`
//! is seen by a tick at `t`, and a render at `t` shows that tick), then by
//! insertion sequence. Nothing is ordered by hash or address, so a run is a
//! pure function of its inputs.
//!
//! Almost every event of a run is due within a few hundred milliseconds —
//! the next tick, the next render, a packet's delivery — so keys go into a
//! ring of [`BUCKETS`] buckets of [`BUCKET_US`] µs each, as they come; a
//! bucket is put in order once, when the clock reaches it, and events due
//! beyond the ring's horizon wait in a binary heap until it comes within
//! reach. A bucket remembers whether its keys came in order, as in a small
//! match nearly all do (events are pushed in about the order they fall
//! due): it is then reversed, not sorted (a large world's buckets hold
//! hundreds of packets in jittered order, and are). The order popped is
//! exactly the `(time, class, sequence)` order a single heap gives (a
//! property test holds the two equal); pushing is a `Vec` push and popping
//! mostly a `Vec` pop, where a heap sifted through a dozen levels each way.
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

/// A pending event's place in the queue: its ordering key — time, then the
/// class (2 bits) and insertion sequence (62 bits) — and where the event
/// waits in the slab. Kept small (24 bytes) so sorting and sifting move
/// little; the events themselves (a packet is 40 bytes) never move.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    time: u64,
    order: u64,
    slot: u32,
}

/// Where a key's class sits in `order` (above the 62-bit sequence).
const CLASS_SHIFT: u32 = 62;

impl Key {
    /// The event class the key was pushed with.
    fn class(&self) -> u64 {
        self.order >> CLASS_SHIFT
    }
}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Key {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed, earliest greatest: BinaryHeap is a max-heap and a
        // sorted bucket pops from its end. (The slot never decides: (time,
        // order) is unique.)
        (other.time, other.order).cmp(&(self.time, self.order))
    }
}

/// Width of a calendar bucket, µs, as a power of two (1.024 ms).
const BUCKET_BITS: u32 = 10;
/// Width of a calendar bucket, µs.
pub const BUCKET_US: u64 = 1 << BUCKET_BITS;
/// Buckets in the ring: events up to `BUCKETS × BUCKET_US` ≈ 262 ms ahead
/// of the bucket being drained go into buckets, later ones into the heap.
pub const BUCKETS: usize = 256;

/// A min-priority queue of timed events with deterministic tie-breaking.
pub struct Scheduler<E> {
    /// The ring: bucket `b` (time >> BUCKET_BITS) lives at `b % BUCKETS`.
    buckets: Vec<Vec<Key>>,
    /// The bucket number being drained.
    base: u64,
    /// Whether the bucket being drained is sorted (latest first).
    sorted: bool,
    /// Per bucket not being drained: whether its keys came in order
    /// (earliest first).
    ascending: Vec<bool>,
    /// Keys in the ring.
    in_ring: usize,
    /// Keys due at or past the ring's horizon when pushed (earliest on top).
    far: BinaryHeap<Key>,
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
        Scheduler {
            buckets: (0..BUCKETS).map(|_| Vec::new()).collect(),
            base: 0,
            sorted: false,
            ascending: vec![true; BUCKETS],
            in_ring: 0,
            far: BinaryHeap::new(),
            slab: Vec::new(),
            free: Vec::new(),
            next_seq: 0,
            now: Micros::ZERO,
        }
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
        self.insert(Key { time: time.0, order: (class as u64) << CLASS_SHIFT | seq, slot });
    }

    /// Files a key into its bucket, or the heap if beyond the horizon.
    fn insert(&mut self, k: Key) {
        // Never before `base`: times are clamped to now, which is in it.
        let b = k.time >> BUCKET_BITS;
        if b >= self.base + BUCKETS as u64 {
            self.far.push(k);
            return;
        }
        let i = (b % BUCKETS as u64) as usize;
        let bucket = &mut self.buckets[i];
        if b == self.base && self.sorted {
            // Latest first (`Key`'s order is reversed: greater is earlier).
            let at = bucket.partition_point(|x| x < &k);
            bucket.insert(at, k);
        } else {
            // Came out of order: due before the last (greater is earlier).
            match bucket.last() {
                None => self.ascending[i] = true,
                Some(last) if k > *last => self.ascending[i] = false,
                Some(_) => {}
            }
            bucket.push(k);
        }
        self.in_ring += 1;
    }

    /// Removes and returns the earliest event, advancing the clock to it.
    pub fn pop(&mut self) -> Option<(Micros, E)> {
        loop {
            let i = (self.base % BUCKETS as u64) as usize;
            let bucket = &mut self.buckets[i];
            if !bucket.is_empty() {
                if !self.sorted {
                    // Latest first: keys that came in order only turn round;
                    // the others are turned round before they are sorted, as
                    // most came about in order (a few packets overtaken by
                    // jitter): a small bucket's insertion sort then moves
                    // those few, not every key the whole way.
                    bucket.reverse();
                    if !self.ascending[i] {
                        bucket.sort_unstable();
                    }
                    self.sorted = true;
                }
                let k = bucket.pop().expect("not empty");
                self.now = Micros(k.time);
                return Some((self.now, self.take(k)));
            }
            // This bucket is drained: on to the next that can hold anything.
            self.base = if self.in_ring == 0 { self.far.peek()?.time >> BUCKET_BITS } else { self.base + 1 };
            self.sorted = false;
            while self.far.peek().is_some_and(|k| k.time >> BUCKET_BITS < self.base + BUCKETS as u64) {
                let k = self.far.pop().expect("peeked");
                self.insert(k);
            }
        }
    }

    /// Removes and returns the earliest event if it is at `time` and of
    /// `class` — the next of a run of events of one instant and class,
    /// which a caller may handle together. `None` otherwise (and, being
    /// conservative, whenever the bucket holding `time` is not the one
    /// being drained).
    pub fn pop_same(&mut self, time: Micros, class: EventClass) -> Option<E> {
        if !self.sorted || time.0 >> BUCKET_BITS != self.base {
            return None;
        }
        let bucket = &mut self.buckets[(self.base % BUCKETS as u64) as usize];
        let k = *bucket.last()?;
        if k.time != time.0 || k.class() != class as u64 {
            return None;
        }
        bucket.pop();
        Some(self.take(k))
    }

    /// The event of `k`, just taken off the ring; its slot is freed.
    fn take(&mut self, k: Key) -> E {
        self.in_ring -= 1;
        self.free.push(k.slot);
        self.slab[k.slot as usize].take().expect("a queued slot holds its event")
    }

    /// Time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Micros> {
        if self.in_ring > 0 {
            let ring = (0..BUCKETS as u64).map(|i| &self.buckets[((self.base + i) % BUCKETS as u64) as usize]);
            let first = ring.into_iter().find(|b| !b.is_empty())?;
            return first.iter().map(|k| Micros(k.time)).min();
        }
        self.far.peek().map(|k| Micros(k.time))
    }

    /// The time of the last event popped.
    pub fn now(&self) -> Micros {
        self.now
    }

    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.in_ring + self.far.len()
    }

    /// Whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
        /// Pushes and pops in any mix, due anywhere from now to far past
        /// the ring's horizon, come out in the order of a sorted map of
        /// `(time, class, sequence)`; `pop_same` takes the next event
        /// exactly when the map's first is at the clock's time and of the
        /// class asked (once anything was popped: before, it may decline).
        #[test]
        fn the_calendar_pops_what_a_sorted_map_pops(
            ops in proptest::collection::vec((0u64..6, 0u64..700_000, 0u8..3), 0..400)
        ) {
            let mut s = Scheduler::new();
            let mut model = std::collections::BTreeMap::new();
            let classes = [EventClass::Packet, EventClass::Tick, EventClass::Render];
            let mut seq = 0usize;
            let mut popped = false;
            for (op, ahead, class) in ops {
                if op == 0 {
                    let got = s.pop();
                    let want = model.pop_first().map(|((t, _, _), e)| (Micros(t), e));
                    popped |= got.is_some();
                    prop_assert_eq!(got, want);
                } else if op == 4 {
                    let now = s.now();
                    let got = s.pop_same(now, classes[class as usize]);
                    let first = model.keys().next().copied();
                    let matches = first.is_some_and(|(t, c, _)| t == now.0 && c == class);
                    if matches && popped {
                        prop_assert_eq!(got, model.pop_first().map(|(_, e)| e));
                    } else if matches {
                        if let Some(e) = got {
                            prop_assert_eq!(Some(e), model.pop_first().map(|(_, e)| e));
                        }
                    } else {
                        prop_assert_eq!(got, None);
                    }
                } else {
                    // Op 5: at the current instant (of any class: maybe
                    // before the events of it already popped).
                    let t = s.now().0 + match op { 1 => ahead % 3_000, 5 => 0, _ => ahead };
                    s.push(Micros(t), classes[class as usize], seq);
                    model.insert((t, class, seq), seq);
                    seq += 1;
                }
                prop_assert_eq!(s.len(), model.len());
                prop_assert_eq!(s.peek_time(), model.keys().next().map(|k| Micros(k.0)));
            }
            while let Some(got) = s.pop() {
                let want = model.pop_first().map(|((t, _, _), e)| (Micros(t), e));
                prop_assert_eq!(Some(got), want);
            }
            prop_assert!(model.is_empty());
        }

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
