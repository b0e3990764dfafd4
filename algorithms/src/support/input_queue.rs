//! A server's per-client input buffer: sequenced inputs arrive (repeated by
//! redundancy, out of order across packets) and leave one per server tick.
//!
//! Two ways to run it (`--opt input-buffer=adaptive|queue`):
//!
//! - **adaptive** (default; Overwatch's design, Tim Ford's GDC 2017 talk):
//!   nothing is dropped — each input is run once, in order, whatever order
//!   the packets carrying it arrive in: an input older than one already
//!   queued takes its place in the sequence, and a gap at the head is
//!   waited for while the buffer is no deeper than its target (the missing
//!   input may be on a slower path) and skipped only after. The buffer
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

/// Inputs a client carries per packet until its server asks for more: the
/// newest and the two before it (one lost packet in a row loses nothing).
pub const DEFAULT_REDUNDANCY: u8 = 3;

/// The most inputs a server asks a client to carry per packet.
pub const MAX_REDUNDANCY: u8 = 32;

/// Client ticks over which the longest loss is remembered: ten seconds at
/// 60 Hz (bursts of loss are rare and long: two seconds would forget one
/// before the next).
const LOSS_WINDOW: u32 = 1_800;

/// Which client ticks' packets arrived, over the last [`LOSS_WINDOW`]
/// ticks: a ring of bits, made once (a packet a tick allocates nothing).
#[derive(Clone, Debug, Default)]
struct TickSet {
    bits: Vec<u64>,
    /// The ticks covered: the first recorded (within the window) and the
    /// newest.
    span: Option<(u32, u32)>,
}

impl TickSet {
    const WORDS: usize = (LOSS_WINDOW as usize).div_ceil(64);

    fn slot(t: u32) -> (usize, u64) {
        let i = (t % (Self::WORDS as u32 * 64)) as usize;
        (i / 64, 1 << (i % 64))
    }

    fn set(&mut self, t: u32, on: bool) {
        let (w, b) = Self::slot(t);
        if on {
            self.bits[w] |= b;
        } else {
            self.bits[w] &= !b;
        }
    }

    fn insert(&mut self, t: u32) {
        if self.bits.is_empty() {
            self.bits = vec![0; Self::WORDS];
        }
        let (first, newest) = self.span.unwrap_or((t, t));
        if t.saturating_add(LOSS_WINDOW) <= newest {
            return; // older than the window
        }
        if t > newest {
            // The ticks between leave the ring's memory: clear them.
            for old in (newest + 1).max(t.saturating_sub(Self::WORDS as u32 * 64 - 1))..t {
                self.set(old, false);
            }
        }
        self.set(t, true);
        let newest = newest.max(t);
        self.span = Some((first.min(t).max(newest.saturating_sub(LOSS_WINDOW - 1)), newest));
    }

    /// Whether every tick of the 64 from `t` (a multiple of 64) came.
    fn word_full(&self, t: u32) -> bool {
        self.bits.get(Self::slot(t).0).is_some_and(|&w| w == u64::MAX)
    }

    fn contains(&self, t: u32) -> bool {
        let (w, b) = Self::slot(t);
        self.bits.get(w).is_some_and(|x| x & b != 0)
    }
}

/// Inputs a minute a client's redundancy may let be lost to runs of loss
/// longer than it ([`InputQueue::redundancy`]).
const LOST_PER_MINUTE: f64 = 0.1;

/// Server ticks between two reminders of a redundancy above the default
/// (the message that told it may have been lost): one second at 60 Hz.
const REMIND_EVERY: u32 = 60;

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
    /// Waiting inputs in sequence order, each newer than `taken`.
    queue: VecDeque<(u32, T)>,
    /// The sequence of the last input run (0: none yet).
    taken: u32,
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
    /// The client ticks whose packets arrived, over the loss window.
    ticks: TickSet,
    /// Ticks run waiting at a gap at the head of the queue.
    gap_waits: usize,
    /// The redundancy last asked of the client, and ticks since.
    told: (u8, u32),
}

impl<T: Clone> InputQueue<T> {
    /// A buffer run in `mode`, for ticks of `dt` µs.
    pub fn new(mode: Mode, dt: i64) -> InputQueue<T> {
        InputQueue {
            queue: VecDeque::new(),
            taken: 0,
            mode,
            current: None,
            dt: dt.max(1),
            offsets: VecDeque::new(),
            sorted: Vec::new(),
            depth: (0, 0),
            ticks: TickSet::default(),
            gap_waits: 0,
            told: (DEFAULT_REDUNDANCY, 0),
        }
    }

    /// A packet the client sent on its tick `tick` arrived at server time
    /// `now` (the jitter measurement: arrival − `tick × dt`).
    pub fn arrived(&mut self, tick: u32, now: i64) {
        self.ticks.insert(tick);
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

    /// Offers input `seq`: queued in its place in the sequence unless it
    /// has been run (or skipped) already or is queued.
    pub fn offer(&mut self, seq: u32, item: T) {
        if seq <= self.taken {
            return;
        }
        // Inputs mostly come newest last: look from the back.
        let at = match self.queue.back() {
            Some(&(last, _)) if last < seq => self.queue.len(),
            _ => match self.queue.binary_search_by_key(&seq, |&(s, _)| s) {
                Ok(_) => return,
                Err(at) => at,
            },
        };
        self.queue.insert(at, (seq, item));
        while self.queue.len() > self.cap() {
            self.queue.pop_front();
        }
    }

    fn cap(&self) -> usize {
        match self.mode {
            Mode::Queue { max } => max.max(1),
            Mode::Adaptive => HARD_CAP,
        }
    }

    /// How long (in ticks) and how deep the buffer may grow while a gap
    /// at its head is waited for: the adaptive target, at least one tick;
    /// the queue does not wait. Past it, the missing input is taken for
    /// lost.
    fn reach(&self) -> usize {
        match self.mode {
            Mode::Queue { .. } => 0,
            Mode::Adaptive => self.target().max(1),
        }
    }

    /// The input for this tick: the next one in sequence; across a gap,
    /// the last one again while the gap is within reach, else the next one
    /// queued; with nothing queued, the last one again.
    pub fn for_tick(&mut self) -> Option<&(u32, T)> {
        let reach = self.reach();
        let next = match self.queue.front() {
            Some(&(seq, _)) => seq == self.taken.wrapping_add(1) || self.queue.len() > reach || self.gap_waits >= reach,
            None => false,
        };
        self.gap_waits = if next || self.queue.is_empty() { 0 } else { self.gap_waits + 1 };
        if next {
            if let Some(n) = self.queue.pop_front() {
                self.taken = n.0;
                self.current = Some(n);
            }
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

    /// The runs of client ticks whose packets never came, over the loss
    /// window (a packet still on its way counts until it comes): (runs,
    /// ticks lost, longest run, ticks spanned).
    pub fn losses(&self) -> (u32, u32, u32, u32) {
        let Some((first, newest)) = self.ticks.span else { return (0, 0, 0, 0) };
        let (mut runs, mut lost, mut longest, mut run) = (0, 0, 0, 0);
        let mut t = first;
        while t <= newest {
            // A word of ticks that all came ends any run at once (most do).
            if t % 64 == 0 && t + 63 <= newest && self.ticks.word_full(t) {
                run = 0;
                t += 64;
                continue;
            }
            if self.ticks.contains(t) {
                run = 0;
            } else {
                runs += u32::from(run == 0);
                run += 1;
                lost += 1;
                longest = longest.max(run);
            }
            t += 1;
        }
        (runs, lost, longest, newest - first + 1)
    }

    /// The inputs per packet this client should carry: enough that a run
    /// of losses longer than it comes less than 0.1 times a minute
    /// (`LOST_PER_MINUTE`), reading runs as geometric with the mean length
    /// seen (bursty links: netem's Gilbert–Elliott model), and more than the
    /// longest run seen; one more for a tick that took two samples
    /// ([`super::uplink::Pacer`]); from [`DEFAULT_REDUNDANCY`] to
    /// [`MAX_REDUNDANCY`].
    pub fn redundancy(&self) -> u8 {
        let (runs, lost, longest, span) = self.losses();
        let mut needed = longest as f64 + 1.0;
        if runs > 0 {
            // A run goes on with probability 1 − 1/mean, the mean read with
            // one run of two more (few runs seen: a careful guess); runs a
            // minute at 60 packets a second.
            let go_on = 1.0 - (runs + 1) as f64 / (lost + 2) as f64;
            let per_minute = runs as f64 * 3_600.0 / span.max(1) as f64;
            if per_minute > LOST_PER_MINUTE {
                needed = needed.max(1.0 + (LOST_PER_MINUTE / per_minute).ln() / go_on.ln());
            }
        }
        (needed.ceil() + 1.0).clamp(DEFAULT_REDUNDANCY as f64, MAX_REDUNDANCY as f64) as u8
    }

    /// The redundancy to tell the client (called every `ticks` server
    /// ticks): when it changed, and a reminder each second while it is
    /// above the default, as the message that told it may have been lost.
    /// Adaptive buffers only.
    pub fn redundancy_news(&mut self, ticks: u32) -> Option<u8> {
        if self.mode != Mode::Adaptive {
            return None; // the queue tells the client nothing
        }
        let r = self.redundancy();
        self.told.1 = self.told.1.saturating_add(ticks);
        let remind = r > DEFAULT_REDUNDANCY && self.told.1 >= REMIND_EVERY;
        (r != self.told.0 || remind).then(|| {
            self.told = (r, 0);
            r
        })
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
        assert!(q.is_empty(), "already run");
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

    #[test]
    fn losses_are_runs_of_ticks_that_never_came_and_size_the_redundancy() {
        let mut q: InputQueue<u32> = InputQueue::new(Mode::Adaptive, 100);
        for t in [1, 2, 5, 6, 10] {
            q.arrived(t, t as i64 * 100);
        }
        assert_eq!(q.losses(), (2, 5, 3, 10), "runs 3–4 and 7–9 of ticks 1..=10");
        // A lone loss every 50 ticks for a minute: a run of three is rare
        // enough at four inputs a packet.
        let mut iid: InputQueue<u32> = InputQueue::new(Mode::Adaptive, 100);
        // Runs of six every 50 ticks: runs that long are the rule, so more.
        let mut bursts: InputQueue<u32> = InputQueue::new(Mode::Adaptive, 100);
        for t in 1..=3_600u32 {
            if t % 50 != 0 {
                iid.arrived(t, 0);
            }
            if t % 50 >= 6 {
                bursts.arrived(t, 0);
            }
        }
        assert!(iid.redundancy() <= 4, "{}", iid.redundancy());
        assert!(bursts.redundancy() > 7, "{}", bursts.redundancy());
        assert_eq!(bursts.redundancy_news(6), Some(bursts.redundancy()));
        assert_eq!(bursts.redundancy_news(6), None, "told already");
        assert_eq!(bursts.redundancy_news(60), Some(bursts.redundancy()), "reminded each second");
        let mut queue: InputQueue<u32> = InputQueue::new(Mode::Queue { max: 2 }, 100);
        queue.arrived(1, 0);
        queue.arrived(9, 0);
        assert_eq!(queue.redundancy_news(60), None, "the queue tells nothing");
    }

    proptest::proptest! {
        /// Packets of `r` consecutive inputs, delivered in any order and
        /// any number of times: the inputs run are each run once, in
        /// sequence — all of them when every packet came before the first
        /// tick, and, as packets keep coming between ticks, never one
        /// older than one already run.
        #[test]
        fn reordered_and_repeated_packets_run_each_input_once_in_order(
            n in 1u32..60,
            r in 1u32..6,
            order in proptest::collection::vec((0u32..60, 0usize..4), 1..200),
            ticks_between in proptest::collection::vec(0usize..3, 200),
        ) {
            let packet = |k: u32| (k.saturating_sub(r - 1).max(1)..=k).collect::<Vec<u32>>();
            // Every packet once, then the rest in the generated order.
            let mut sends: Vec<u32> = (1..=n).collect();
            sends.extend(order.iter().map(|&(k, _)| 1 + k % n));
            let shuffle = |v: &mut Vec<u32>| {
                for (i, &(_, swap)) in order.iter().enumerate() {
                    let (a, b) = (i % v.len(), (i + swap * 7) % v.len());
                    v.swap(a, b);
                }
            };
            shuffle(&mut sends);
            for mode in [Mode::Adaptive, Mode::Queue { max: 1000 }] {
                let mut all: InputQueue<u32> = InputQueue::new(mode, 100);
                for &k in &sends {
                    for s in packet(k) {
                        all.offer(s, s);
                    }
                }
                let run: Vec<u32> = (0..n).filter_map(|_| all.for_tick().map(|x| x.0)).collect();
                proptest::prop_assert_eq!(run, (1..=n).collect::<Vec<u32>>());
                // Interleaved with ticks: run inputs only ever increase.
                let mut q: InputQueue<u32> = InputQueue::new(mode, 100);
                let mut last = 0;
                for (i, &k) in sends.iter().enumerate() {
                    for s in packet(k) {
                        q.offer(s, s);
                    }
                    for _ in 0..ticks_between[i % ticks_between.len()] {
                        if let Some(&(seq, item)) = q.for_tick() {
                            proptest::prop_assert!(seq >= last && item == seq);
                            last = seq;
                        }
                    }
                }
            }
        }

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
