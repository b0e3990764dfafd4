//! One direction of a network link, applying a [`Netem`] description to each
//! packet the way the Linux kernel's `sch_netem` does.
//!
//! Per packet, in the kernel's order: duplicate (the copy takes its own loss
//! and delay draws and is never duplicated again), loss (random,
//! 4-state Markov or Gilbert–Elliott), corruption, the queue limit, then
//! reorder-or-delay, then rate. Each packet gets its own delay draw, so
//! jitter alone reorders packets sent closer together than the jitter,
//! exactly as the kernel's time-sorted queue does; `rate` serialises packets
//! behind the last one queued, which preserves order and turns jitter into a
//! running maximum. `slot` gates departures in bursts and is applied when
//! packets leave ([`Link::release`]), as the kernel's dequeue does.
//!
//! A datagram larger than its path MTU (the smaller of its two ends' MTUs)
//! leaves in IP fragments, each its own packet through all of the above;
//! the far end has the datagram when every fragment has arrived (its first
//! copy of each), and loses it when any fragment is lost — as IPv4
//! reassembly does. A packet from node A to node B is reassembled after
//! each access link it crosses, not only at B: exact when one of the two
//! links is clean (client/server runs by default), a bound on the delay
//! otherwise.
//!
//! A link may replay a recorded link after all of that
//! ([`Link::with_replay`], [`super::recorded::replay`]).
//!
//! Internally times are nanoseconds, as in the kernel; deliveries are
//! rounded up to the microsecond clock of the simulator.
//!
//! Correlation has two models ([`Correlation`]): the kernel's (a weighted
//! average of a fresh uniform and the last value — which collapses the
//! effective rate of correlated loss: `loss 10% 25%` loses about 1.6%), the default so
//! that a pasted `tc` line behaves as it does on a real netem box; and a
//! correct one (with probability ρ repeat the last draw), which keeps the
//! marginal rate and has lag-1 correlation ρ.
//!
//! ```
//! use harness::net::{link::{Correlation, Link}, netem::Netem};
//! use harness::rng::{Purpose, Stream};
//! use harness::time::Micros;
//! let mut link = Link::new(Netem::parse("delay 20ms").unwrap(), Correlation::Kernel, Stream::new(1, Purpose::Uplink, 0));
//! let out = link.send(Micros(1_000), 60);
//! assert_eq!(out.iter().next().unwrap().time, Micros(21_000));
//! ```

use super::dist::tabledist;
use super::netem::{LossModel, Netem, Prob};
use super::recorded::replay::{Outcome, Replay, Replayer};
use super::{DEFAULT_MTU, ETHERNET_HEADER_BYTES, IPV4_HEADER_BYTES, UDP_IPV4_HEADER_BYTES};
use crate::rng::Stream;
use crate::time::Micros;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// How correlation parameters are applied.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Correlation {
    /// The Linux kernel's formula (matches a real netem box).
    #[default]
    Kernel,
    /// With probability ρ the previous draw repeats: marginal rates kept.
    Correct,
}

impl Correlation {
    /// Name used in profiles and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Correlation::Kernel => "netem-compatible",
            Correlation::Correct => "correct",
        }
    }
    /// From its name.
    pub fn from_name(s: &str) -> Option<Correlation> {
        match s {
            "netem-compatible" | "kernel" => Some(Correlation::Kernel),
            "correct" => Some(Correlation::Correct),
            _ => None,
        }
    }
}

/// One copy of a packet leaving the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// When it reaches the far end (for a held copy: not before this).
    pub time: Micros,
    /// Bit to flip (`byte · 8 + bit`) if netem corrupted this copy.
    pub corrupt_bit: Option<u32>,
    /// `Some(token)`: the copy waits for a slot; [`Link::release`] returns
    /// the token when it leaves.
    pub held: Option<u64>,
}

impl Delivery {
    /// Flips the bit netem corrupted in this copy of `payload`, if any;
    /// whether a bit was flipped.
    pub fn corrupt(&self, payload: &mut [u8]) -> bool {
        let Some(bit) = self.corrupt_bit else { return false };
        let Some(byte) = payload.get_mut((bit / 8) as usize) else { return false };
        *byte ^= 1 << (bit % 8);
        true
    }
}

/// The copies of one packet that survive the link: none, one, or two.
#[derive(Clone, Copy, Debug)]
pub struct Deliveries {
    items: [Delivery; 2],
    len: u8,
}

impl Default for Deliveries {
    fn default() -> Self {
        let none = Delivery { time: Micros::ZERO, corrupt_bit: None, held: None };
        Deliveries { items: [none; 2], len: 0 }
    }
}

impl Deliveries {
    fn push(&mut self, d: Delivery) {
        if let Some(slot) = self.items.get_mut(self.len as usize) {
            *slot = d;
            self.len += 1;
        }
    }
    /// The surviving copies, in the order netem enqueued them.
    pub fn as_slice(&self) -> &[Delivery] {
        &self.items[..self.len as usize]
    }
    /// Iterates over the surviving copies, in the order netem enqueued them.
    pub fn iter(&self) -> impl Iterator<Item = Delivery> + '_ {
        self.as_slice().iter().copied()
    }
    /// Number of surviving copies.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether the packet was lost.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Counters of what the link did. A datagram split into fragments counts
/// once in `offered`, `fragmented` and `fragment_lost`; every other counter
/// counts packets on the wire, each fragment one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Datagrams offered to the link.
    pub offered: u64,
    /// Datagrams larger than the MTU, sent in fragments.
    pub fragmented: u64,
    /// Fragmented datagrams lost because a fragment was.
    pub fragment_lost: u64,
    /// Copies that left the link (duplicates included).
    pub delivered: u64,
    /// Packets or copies lost to the loss model.
    pub lost: u64,
    /// Extra copies made by duplication.
    pub duplicated: u64,
    /// Copies with a flipped bit.
    pub corrupted: u64,
    /// Copies sent at once by the reorder rule.
    pub reordered: u64,
    /// Copies tail-dropped at the queue limit.
    pub limit_dropped: u64,
}

/// netem's correlated uniform generator.
#[derive(Clone, Copy, Debug, Default)]
struct Crandom {
    last: u32,
    primed: bool,
}

impl Crandom {
    fn next(&mut self, rho: Prob, model: Correlation, rng: &mut Stream) -> u32 {
        if rho.0 == 0 {
            return rng.next_u32();
        }
        match model {
            Correlation::Kernel => {
                // get_crandom: (value·(2³² − ρ) + last·ρ) >> 32.
                let value = rng.next_u32() as u64;
                let rho = rho.0 as u64 + 1;
                let answer = ((value * ((1u64 << 32) - rho) + self.last as u64 * rho) >> 32) as u32;
                self.last = answer;
                answer
            }
            Correlation::Correct => {
                let repeat = self.primed && rng.next_u32() < rho.0;
                if !repeat {
                    self.last = rng.next_u32();
                    self.primed = true;
                }
                self.last
            }
        }
    }
}

/// The state of the 4-state and Gilbert–Elliott loss models.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LossState {
    /// 4-state: good reception (1); GE: good.
    TxGap,
    /// 4-state: good reception within a burst (2).
    TxBurst,
    /// 4-state: isolated loss (4).
    LostGap,
    /// 4-state: burst loss (3); GE: bad.
    LostBurst,
}

/// A copy waiting for a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Held {
    tts_ns: u64,
    seq: u64,
    len: u32,
}

/// One direction of a link with its own random stream and queue.
#[derive(Clone, Debug)]
pub struct Link {
    /// `(from, spec)`: the description in force from each instant on.
    schedule: Vec<(Micros, Netem)>,
    current: usize,
    /// `schedule[current]`'s description, kept beside the state it drives
    /// (every packet reads it), and when the next entry takes over.
    spec: Netem,
    next_change: Micros,
    /// Whether every entry of the schedule passes packets unchanged and at
    /// once, and whether any gates departures by slots (asked per packet).
    clean: bool,
    slotted: bool,
    correlation: Correlation,
    rng: Stream,
    loss_cor: Crandom,
    dup_cor: Crandom,
    corrupt_cor: Crandom,
    reorder_cor: Crandom,
    delay_cor: Crandom,
    loss_state: LossState,
    counter: u32,
    /// Departure times (ns) of the copies in the queue.
    queue: Departures,
    /// The latest departure time queued (ns): `rate`'s reference point.
    last_tts_ns: u64,
    held: BinaryHeap<Reverse<Held>>,
    next_token: u64,
    /// Held fragments: their datagram's token and their index in it.
    fragment_of: BTreeMap<u64, (u64, usize)>,
    /// Held datagrams still missing a fragment: which have left.
    reassembling: BTreeMap<u64, Vec<bool>>,
    mtu: u32,
    slot_next_ns: u64,
    slot_packets_left: i64,
    slot_bytes_left: i64,
    /// A recorded link replayed after netem (see [`super::recorded::replay`]).
    replay: Option<Box<Replayer>>,
    stats: LinkStats,
}

/// The departure times (ns) of a link's queued copies, for its limit.
/// Most links never fill their queue: a list, appended to and cleared of
/// the departed only when it is as long as the limit (then the count must
/// be exact) or twice what the last pruning left (memory in proportion to
/// what is in flight) — no work per packet that waits on comparing random
/// delays. A link that reaches its limit would scan the list on every
/// packet from then on: it moves to a heap, cleared of the departed on
/// every packet, each departure popped once.
#[derive(Clone, Debug)]
enum Departures {
    List { times: Vec<u64>, prune_at: usize },
    Heap(BinaryHeap<Reverse<u64>>),
}

/// Entries a link's list of departures holds before its first pruning.
const MIN_PRUNE_AT: usize = 64;

impl Departures {
    /// How many copies are still queued at `now_ns` — exactly, when
    /// there might be `limit` or more; otherwise a number under `limit`.
    fn waiting(&mut self, now_ns: u64, limit: usize) -> usize {
        match self {
            Departures::List { times, prune_at } => {
                if times.len() < limit.min(*prune_at) {
                    return times.len();
                }
                times.retain(|&t| t > now_ns);
                *prune_at = (2 * times.len()).max(MIN_PRUNE_AT);
                let waiting = times.len();
                if waiting >= limit {
                    // Full: from now on a heap (every entry still waits).
                    *self = Departures::Heap(times.drain(..).map(Reverse).collect());
                }
                waiting
            }
            Departures::Heap(heap) => {
                while heap.peek().is_some_and(|Reverse(t)| *t <= now_ns) {
                    heap.pop();
                }
                heap.len()
            }
        }
    }

    fn push(&mut self, t: u64) {
        match self {
            Departures::List { times, .. } => times.push(t),
            Departures::Heap(heap) => heap.push(Reverse(t)),
        }
    }
}

impl Link {
    /// A link applying `spec` throughout, drawing from `rng` (or from the
    /// spec's own `seed`).
    pub fn new(spec: Netem, correlation: Correlation, rng: Stream) -> Link {
        Link::scheduled(vec![(Micros::ZERO, spec)], correlation, rng)
    }

    /// A link whose description changes over time: `schedule[i].1` applies
    /// from `schedule[i].0` on (sorted; the first entry should start at 0).
    pub fn scheduled(schedule: Vec<(Micros, Netem)>, correlation: Correlation, rng: Stream) -> Link {
        let schedule = if schedule.is_empty() { vec![(Micros::ZERO, Netem::clean())] } else { schedule };
        let rng = match schedule[0].1.seed {
            Some(s) => Stream::new(s, crate::rng::Purpose::Netem, 0),
            None => rng,
        };
        let spec = schedule[0].1.clone();
        let next_change = schedule.get(1).map_or(Micros(u64::MAX), |e| e.0);
        let clean = schedule.iter().all(|(_, s)| s.is_clean());
        let slotted = schedule.iter().any(|(_, s)| s.slot.is_some());
        let mut link = Link {
            schedule,
            current: 0,
            spec,
            next_change,
            clean,
            slotted,
            correlation,
            rng,
            loss_cor: Crandom::default(),
            dup_cor: Crandom::default(),
            corrupt_cor: Crandom::default(),
            reorder_cor: Crandom::default(),
            delay_cor: Crandom::default(),
            loss_state: LossState::TxGap,
            counter: 0,
            queue: Departures::List { times: Vec::new(), prune_at: MIN_PRUNE_AT },
            last_tts_ns: 0,
            held: BinaryHeap::new(),
            next_token: 0,
            fragment_of: BTreeMap::new(),
            reassembling: BTreeMap::new(),
            mtu: DEFAULT_MTU,
            slot_next_ns: 0,
            slot_packets_left: 0,
            slot_bytes_left: 0,
            replay: None,
            stats: LinkStats::default(),
        };
        link.configure_slot(0);
        link
    }

    /// The link with a path MTU of `mtu` bytes (at least
    /// [`super::MIN_MTU`]) in place of [`DEFAULT_MTU`].
    pub fn with_mtu(mut self, mtu: u32) -> Link {
        self.mtu = mtu.max(super::MIN_MTU);
        self
    }

    /// The link with `replayer`'s recorded link after netem (see
    /// [`super::recorded::replay`]).
    pub fn with_replay(mut self, replayer: Replayer) -> Link {
        self.replay = Some(Box::new(replayer));
        self.clean = false;
        self
    }

    /// The link replaying `replay`, if any, from the place node `node` of
    /// a run seeded `seed` reads it (see [`Replayer::draw`]).
    pub fn replaying(self, replay: Option<&Replay>, seed: u64, node: u64) -> Link {
        match replay {
            Some(r) => self.with_replay(Replayer::new(r.clone(), Replayer::draw(seed, node))),
            None => self,
        }
    }

    /// The MTU of the interface this link belongs to, bytes.
    pub fn mtu(&self) -> u32 {
        self.mtu
    }

    /// The description in force now.
    pub fn spec(&self) -> &Netem {
        &self.spec
    }

    /// What the link has done so far.
    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// Whether packets always pass unchanged and at once.
    pub fn is_clean(&self) -> bool {
        self.clean
    }

    /// Whether departures are gated by `slot` (then the caller must call
    /// [`Link::release`] at [`Link::next_wake`]).
    pub fn has_slots(&self) -> bool {
        self.slotted
    }

    fn advance_schedule(&mut self, now: Micros) {
        if now < self.next_change {
            return;
        }
        let before = self.current;
        while self.schedule.get(self.current + 1).is_some_and(|(t, _)| *t <= now) {
            self.current += 1;
        }
        self.next_change = self.schedule.get(self.current + 1).map_or(Micros(u64::MAX), |e| e.0);
        if self.current != before {
            self.spec = self.schedule[self.current].1.clone();
            self.configure_slot(now.0 * 1000);
        }
    }

    fn configure_slot(&mut self, now_ns: u64) {
        match self.spec().slot {
            Some(s) => {
                self.slot_packets_left = if s.packets == 0 { i32::MAX as i64 } else { s.packets as i64 };
                self.slot_bytes_left = if s.bytes == 0 { i32::MAX as i64 } else { s.bytes as i64 };
                self.slot_next_ns = if s.min_us | s.max_us != 0 { now_ns.max(1) } else { 0 };
            }
            None => self.slot_next_ns = 0,
        }
    }

    /// Offers a packet with `payload` bytes (UDP payload; headers are added
    /// for `rate`) at `now`; returns the copies that survive and when each
    /// arrives.
    pub fn send(&mut self, now: Micros, payload: usize) -> Deliveries {
        self.send_on_path(now, payload, self.mtu)
    }

    /// [`Link::send`] for a datagram whose path MTU is `path_mtu` (the
    /// smaller of its two ends': it leaves its sender in fragments of that
    /// size and crosses every link in them).
    pub fn send_on_path(&mut self, now: Micros, payload: usize, path_mtu: u32) -> Deliveries {
        self.advance_schedule(now);
        self.stats.offered += 1;
        let mut out = Deliveries::default();
        if payload <= super::unfragmented_payload(path_mtu) {
            let ip_len = payload + UDP_IPV4_HEADER_BYTES;
            self.enqueue(now.0 * 1000, ip_len, (0, payload), true, &mut out);
        } else {
            self.send_fragments(now.0 * 1000, payload, path_mtu.max(super::MIN_MTU), &mut out);
        }
        out
    }

    /// A datagram over the MTU: each fragment through the link, then
    /// reassembled (see the module docs). Out: at most one copy.
    fn send_fragments(&mut self, now_ns: u64, payload: usize, mtu: u32, out: &mut Deliveries) {
        self.stats.fragmented += 1;
        let udp_header = UDP_IPV4_HEADER_BYTES - IPV4_HEADER_BYTES;
        let (mut complete, mut arrival, mut corrupt_bit) = (true, Micros::ZERO, None);
        let mut held = Vec::new();
        let (mut offset, mut count) = (0, 0); // where the fragment's data starts in the UDP datagram
        for (i, data) in super::fragments(payload, mtu).enumerate() {
            count += 1;
            // The bytes of the UDP payload this fragment carries.
            let start = offset.max(udp_header) - udp_header;
            let carried = (offset + data).saturating_sub(udp_header) - start;
            offset += data;
            let mut copies = Deliveries::default();
            self.enqueue(now_ns, data + IPV4_HEADER_BYTES, (start, carried), true, &mut copies);
            let Some(first) = copies.iter().min_by_key(|d| d.time) else {
                complete = false;
                continue;
            };
            arrival = arrival.max(first.time);
            corrupt_bit = corrupt_bit.or(first.corrupt_bit);
            held.extend(copies.iter().filter_map(|d| d.held).map(|t| (t, i)));
        }
        if !complete {
            self.stats.fragment_lost += 1;
        }
        if held.is_empty() {
            if complete {
                out.push(Delivery { time: arrival, corrupt_bit, held: None });
            }
            return;
        }
        // Slot links: the datagram leaves when its last fragment does.
        let token = self.next_token;
        self.next_token += 1;
        for (t, i) in held {
            self.fragment_of.insert(t, (token, i));
        }
        if complete {
            self.reassembling.insert(token, vec![false; count]);
            out.push(Delivery { time: arrival, corrupt_bit, held: Some(token) });
        }
    }

    /// A held copy with `token` left the link: the token of what the far
    /// end now has — the copy itself, or the datagram it completes.
    fn reassemble(&mut self, token: u64) -> Option<u64> {
        let Some((datagram, i)) = self.fragment_of.remove(&token) else { return Some(token) };
        let arrived = self.reassembling.get_mut(&datagram)?;
        arrived[i] = true;
        if arrived.iter().all(|a| *a) {
            self.reassembling.remove(&datagram);
            return Some(datagram);
        }
        None
    }

    fn loss_event(&mut self) -> bool {
        let model = self.spec().loss;
        match model {
            LossModel::Random { p, corr } => {
                p.is_set() && p.0 >= self.loss_cor.next(corr, self.correlation, &mut self.rng)
            }
            LossModel::State { p13, p31, p32, p23, p14 } => {
                let rnd = self.rng.next_u32() as u64;
                let (a1, a2, a3, a4, a5) = (p13.0 as u64, p31.0 as u64, p32.0 as u64, p14.0 as u64, p23.0 as u64);
                match self.loss_state {
                    LossState::TxGap => {
                        if rnd < a4 {
                            self.loss_state = LossState::LostGap;
                            return true;
                        } else if a4 < rnd && rnd < a1 + a4 {
                            self.loss_state = LossState::LostBurst;
                            return true;
                        }
                    }
                    LossState::TxBurst => {
                        if rnd < a5 {
                            self.loss_state = LossState::LostBurst;
                            return true;
                        }
                    }
                    LossState::LostBurst => {
                        if rnd < a3 {
                            self.loss_state = LossState::TxBurst;
                        } else if a3 < rnd && rnd < a2 + a3 {
                            self.loss_state = LossState::TxGap;
                        } else if a2 + a3 < rnd {
                            return true;
                        }
                    }
                    LossState::LostGap => self.loss_state = LossState::TxGap,
                }
                false
            }
            LossModel::GilbertElliott { p, r, bad_loss, good_loss } => {
                // Transition first, then lose with the loss probability of
                // the state the packet started in (kernel loss_gilb_ell).
                let h = bad_loss.complement();
                if self.loss_state == LossState::LostBurst {
                    if self.rng.next_u32() < r.0 {
                        self.loss_state = LossState::TxGap;
                    }
                    self.rng.next_u32() > h.0
                } else {
                    if self.rng.next_u32() < p.0 {
                        self.loss_state = LossState::LostBurst;
                    }
                    self.rng.next_u32() < good_loss.0
                }
            }
        }
    }

    /// One packet of `ip_len` bytes (IP header included) into the queue;
    /// `payload` is the part of the UDP payload it carries (`(start, len)`),
    /// where corruption flips a bit.
    fn enqueue(
        &mut self,
        now_ns: u64,
        ip_len: usize,
        payload: (usize, usize),
        may_duplicate: bool,
        out: &mut Deliveries,
    ) {
        let model = self.correlation;
        let mut count = 1;
        let (dup, dup_corr) = (self.spec().duplicate, self.spec().duplicate_corr);
        if may_duplicate && dup.is_set() && dup.0 >= self.dup_cor.next(dup_corr, model, &mut self.rng) {
            count += 1;
        }
        if self.loss_event() {
            count -= 1;
        }
        if count == 0 {
            self.stats.lost += 1;
            return;
        }
        let mut corrupt_bit = None;
        let (cor, cor_corr) = (self.spec().corrupt, self.spec().corrupt_corr);
        if cor.is_set() && payload.1 > 0 && cor.0 >= self.corrupt_cor.next(cor_corr, model, &mut self.rng) {
            let byte = (payload.0 as u64 + self.rng.below(payload.1 as u64)) as u32;
            let bit = self.rng.below(8) as u32;
            corrupt_bit = Some(byte * 8 + bit);
            self.stats.corrupted += 1;
        }
        if count > 1 {
            // The clone goes through the whole enqueue path first, with
            // duplication off, as the kernel does.
            self.stats.duplicated += 1;
            self.enqueue(now_ns, ip_len, payload, false, out);
        }
        // Limit: copies still held (waiting out their delay) count.
        if self.queue.waiting(now_ns, self.spec.limit as usize) >= self.spec.limit as usize {
            self.stats.limit_dropped += 1;
            return;
        }
        let s = &self.spec;
        let qdisc_len = (ip_len + ETHERNET_HEADER_BYTES) as u64;
        let tts_ns = if s.gap == 0
            || self.counter < s.gap - 1
            || s.reorder.0 < self.reorder_cor.next(s.reorder_corr, model, &mut self.rng)
        {
            let rnd = if s.jitter_us > 0 { self.delay_cor.next(s.delay_corr, model, &mut self.rng) } else { 0 };
            // In i128: delays, spikes and rate times summed can exceed any
            // run (a packet that would take years), never wrap.
            let delay_ns = (s.delay_us as i128 * 1000).min(i64::MAX as i128) as i64;
            let jitter_ns = (s.jitter_us as i128 * 1000).min(i64::MAX as i128) as i64;
            let mut delay = tabledist(delay_ns, jitter_ns, rnd, s.distribution) as i128;
            let mut now = now_ns as i128;
            if let Some(r) = s.rate {
                // A copy still queued: the latest departure is later than
                // now (every copy queued leaves later than it came).
                if self.last_tts_ns > now_ns {
                    // The last packet queued is the reference point: only the
                    // part of the delay beyond its departure remains.
                    let last = self.last_tts_ns as i128;
                    delay = (delay - (last - now)).max(0);
                    now = last;
                }
                delay += packet_time_ns(qdisc_len, &r) as i128;
            }
            self.counter = self.counter.saturating_add(1);
            (now + delay).clamp(now_ns as i128, NEVER_NS as i128) as u64
        } else {
            self.counter = 0;
            self.stats.reordered += 1;
            now_ns
        };
        if tts_ns > now_ns {
            self.queue.push(tts_ns);
        }
        self.last_tts_ns = self.last_tts_ns.max(tts_ns);
        let tts_ns = match &mut self.replay {
            Some(r) if tts_ns < NEVER_NS => match r.pass(tts_ns, ip_len as u32) {
                Outcome::Arrives(t) => t,
                Outcome::Lost => {
                    self.stats.lost += 1;
                    return;
                }
                Outcome::Dropped => {
                    self.stats.limit_dropped += 1;
                    return;
                }
            },
            _ => tts_ns,
        };
        if tts_ns >= NEVER_NS {
            // It would leave the queue after any run ends: lost, and what
            // queues behind it waits as long.
            self.stats.lost += 1;
            return;
        }
        self.stats.delivered += 1;
        if s.slot.is_some() {
            let token = self.next_token;
            self.next_token += 1;
            self.held.push(Reverse(Held { tts_ns, seq: token, len: qdisc_len as u32 }));
            out.push(Delivery { time: ns_to_us(tts_ns), corrupt_bit, held: Some(token) });
        } else {
            out.push(Delivery { time: ns_to_us(tts_ns), corrupt_bit, held: None });
        }
    }

    /// Slot links: the copies that leave at `now` (as the kernel's dequeue
    /// would, in departure-time order within slot budgets).
    pub fn release(&mut self, now: Micros) -> Vec<u64> {
        let now_ns = now.0 * 1000;
        let mut out = Vec::new();
        let Some(slot) = self.spec().slot else {
            // Slotting was switched off: everything due leaves.
            while let Some(Reverse(h)) = self.held.peek().copied() {
                if h.tts_ns > now_ns {
                    break;
                }
                self.held.pop();
                out.extend(self.reassemble(h.seq));
            }
            return out;
        };
        while let Some(Reverse(h)) = self.held.peek().copied() {
            if self.slot_next_ns != 0 && self.slot_next_ns < h.tts_ns {
                self.next_slot(now_ns, &slot);
            }
            if h.tts_ns <= now_ns && self.slot_next_ns <= now_ns {
                self.held.pop();
                out.extend(self.reassemble(h.seq));
                if self.slot_next_ns != 0 {
                    self.slot_packets_left -= 1;
                    self.slot_bytes_left -= h.len as i64;
                    if self.slot_packets_left <= 0 || self.slot_bytes_left <= 0 {
                        self.next_slot(now_ns, &slot);
                    }
                }
            } else {
                break;
            }
        }
        out
    }

    /// When [`Link::release`] should next be called, if anything is held.
    pub fn next_wake(&self) -> Option<Micros> {
        let Reverse(h) = self.held.peek()?;
        Some(ns_to_us(h.tts_ns.max(self.slot_next_ns)))
    }

    fn next_slot(&mut self, now_ns: u64, slot: &super::netem::Slot) {
        let next_delay = match slot.distribution {
            None => {
                let span = (slot.max_us - slot.min_us) * 1000;
                slot.min_us * 1000 + ((self.rng.next_u32() as u64 * span) >> 32)
            }
            Some(d) => {
                let rnd = self.rng.next_u32();
                tabledist(slot.min_us as i64 * 1000, slot.max_us as i64 * 1000, rnd, d).max(0) as u64
            }
        };
        self.slot_next_ns = now_ns + next_delay;
        self.slot_packets_left = if slot.packets == 0 { i32::MAX as i64 } else { slot.packets as i64 };
        self.slot_bytes_left = if slot.bytes == 0 { i32::MAX as i64 } else { slot.bytes as i64 };
    }
}

fn ns_to_us(ns: u64) -> Micros {
    Micros(ns.div_ceil(1000))
}

/// A departure time past every run (about 31 years): a packet due then is
/// never delivered.
pub const NEVER_NS: u64 = 1_000_000_000_000_000_000;

/// netem's `packet_time_ns`: serialisation time of `len` bytes (qdisc
/// length: IP packet + Ethernet header) at `rate`, with overhead and cells.
pub fn packet_time_ns(len: u64, rate: &super::netem::Rate) -> u64 {
    let mut len = (len as i64 + rate.packet_overhead as i64).max(0) as u64;
    if rate.cell_size > 0 {
        let cells = len.div_ceil(rate.cell_size as u64);
        len = (cells as i64 * (rate.cell_size as i64 + rate.cell_overhead as i64)).max(0) as u64;
    }
    (len as u128 * 1_000_000_000 / rate.bytes_per_s.max(1) as u128).min(NEVER_NS as u128) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Purpose;

    fn link(s: &str, seed: u64) -> Link {
        Link::new(Netem::parse(s).unwrap(), Correlation::Kernel, Stream::new(seed, Purpose::Uplink, 0))
    }

    /// Sends `n` packets `spacing` µs apart; returns (send index, arrival) per copy.
    fn probe(l: &mut Link, n: u64, spacing: u64) -> Vec<(u64, Micros)> {
        let mut v = Vec::new();
        for i in 0..n {
            for d in l.send(Micros(i * spacing), 100).iter() {
                v.push((i, d.time));
            }
        }
        v
    }

    /// Binomial bound: |observed − expected| within 5 standard deviations.
    fn within_binomial(observed: u64, n: u64, p: f64) -> bool {
        let mean = n as f64 * p;
        let sd = (n as f64 * p * (1.0 - p)).sqrt();
        (observed as f64 - mean).abs() <= 5.0 * sd + 1.0
    }

    fn delays(v: &[(u64, Micros)], spacing: u64) -> Vec<f64> {
        let mut d: Vec<f64> = v.iter().map(|(i, t)| (t.0 - i * spacing) as f64 / 1000.0).collect();
        d.sort_by(|a, b| a.total_cmp(b));
        d
    }

    fn pct(sorted: &[f64], p: f64) -> f64 {
        sorted[((sorted.len() - 1) as f64 * p).round() as usize]
    }

    #[test]
    fn fixed_delay_preserves_order() {
        let mut l = link("delay 40ms", 1);
        let v = probe(&mut l, 100, 2_000);
        assert_eq!(v.len(), 100);
        for (i, t) in v {
            assert_eq!(t.0, i * 2_000 + 40_000);
        }
    }

    #[test]
    fn loss_rate_is_binomial() {
        let mut l = link("delay 1ms loss 5%", 2);
        let n = 20_000;
        let v = probe(&mut l, n, 1_000);
        let lost = n - v.len() as u64;
        assert!(within_binomial(lost, n, 0.05), "lost {lost} of {n}");
        assert_eq!(l.stats().lost, lost);
    }

    #[test]
    fn uniform_jitter_spans_its_interval_and_reorders() {
        let mut l = link("delay 50ms 10ms", 3);
        let v = probe(&mut l, 10_000, 2_000);
        let d = delays(&v, 2_000);
        assert!(d[0] >= 40.0 && d[d.len() - 1] < 60.0);
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        assert!((mean - 50.0).abs() < 0.3, "mean {mean}");
        // Packets 2 ms apart under ±10 ms jitter arrive out of order often
        // (the kernel measures 58.6%, the note says).
        let mut by_arrival = v.clone();
        by_arrival.sort_by_key(|&(i, t)| (t, i));
        let late = by_arrival.windows(2).filter(|w| w[1].0 < w[0].0).count();
        let share = late as f64 / v.len() as f64;
        assert!(share > 0.3, "reorder share {share}");
    }

    #[test]
    fn table_distributions_have_their_percentiles() {
        // delay 50ms 10ms distribution X: percentile q is µ + σ·T(q) with
        // T the table's quantile: normal Φ⁻¹(q); pareto
        // ((1 − q)^(−1/3) − 1.5)·4/3 capped at 4; paretonormal (N + 3P)/4.
        for (dist, p01, p50, p99) in
            [("normal", 26.7, 50.0, 73.3), ("pareto", 43.4, 46.8, 90.0), ("paretonormal", 39.2, 47.6, 85.8)]
        {
            let mut l = link(&format!("delay 50ms 10ms distribution {dist}"), 4);
            let v = probe(&mut l, 40_000, 500);
            let d = delays(&v, 500);
            let (a, b, c) = (pct(&d, 0.01), pct(&d, 0.5), pct(&d, 0.99));
            assert!(
                (a - p01).abs() < 1.0 && (b - p50).abs() < 1.0 && (c - p99).abs() < 1.5,
                "{dist}: p1 {a} p50 {b} p99 {c}"
            );
        }
    }

    #[test]
    fn duplicate_share_and_duplicate_plus_loss() {
        let mut l = link("delay 1ms duplicate 10%", 4);
        let n = 20_000;
        let v = probe(&mut l, n, 1_000);
        let extra = v.len() as u64 - n;
        assert!(within_binomial(extra, n, 0.10), "extra {extra}");
        // With 100% duplication and 100% loss the kernel still sends exactly
        // one copy: the duplicate raises the count to 2, the loss lowers it
        // to 1, and the clone that is never made cannot be lost.
        let mut l = link("duplicate 100% loss 100%", 5);
        assert_eq!(probe(&mut l, 100, 1_000).len(), 100);
        // 100% duplication and 50% loss: one copy when the first loss draw
        // hits (count 2 → 1, no clone), else the clone (50%) plus original.
        let mut l = link("duplicate 100% loss 50%", 6);
        let v = probe(&mut l, 10_000, 1_000);
        let per = v.len() as f64 / 10_000.0;
        assert!((per - 1.25).abs() < 0.03, "{per}");
    }

    #[test]
    fn reorder_with_gap_sends_every_gth_packet_at_once() {
        let mut l = link("delay 10ms reorder 100% gap 5", 7);
        let v = probe(&mut l, 20, 1_000);
        let immediate: Vec<u64> = v.iter().filter(|(i, t)| t.0 == i * 1_000).map(|(i, _)| *i).collect();
        assert_eq!(immediate, vec![4, 9, 14, 19]);
        let mut l = link("delay 10ms reorder 25%", 8);
        let n = 20_000;
        probe(&mut l, n, 1_000);
        assert!(within_binomial(l.stats().reordered, n, 0.25));
        // With gap 5 and 50%: after each 4 delayed packets, each next one
        // goes early with probability 1/2; expected share 1/(4 + 2) = 1/6.
        let mut l = link("delay 10ms reorder 50% gap 5", 9);
        probe(&mut l, n, 1_000);
        let share = l.stats().reordered as f64 / n as f64;
        assert!((share - 1.0 / 6.0).abs() < 0.01, "{share}");
    }

    #[test]
    fn kernel_correlation_collapses_loss_and_the_correct_model_does_not() {
        // The note measures loss 10% 25% → about 1.8% on a real kernel.
        let n = 50_000;
        let mut l = link("loss 10% 25%", 9);
        let rate = (n - probe(&mut l, n, 1_000).len() as u64) as f64 / n as f64;
        assert!((0.01..0.03).contains(&rate), "{rate}");
        let mut l =
            Link::new(Netem::parse("loss 10% 25%").unwrap(), Correlation::Correct, Stream::new(9, Purpose::Uplink, 0));
        let mut lost = Vec::new();
        for i in 0..n {
            lost.push(l.send(Micros(i * 1_000), 100).is_empty());
        }
        let rate = lost.iter().filter(|x| **x).count() as f64 / n as f64;
        assert!((rate - 0.10).abs() < 0.01, "{rate}");
        // P(loss | previous lost) = ρ + (1 − ρ)p = 0.325.
        let after_loss: Vec<bool> = lost.windows(2).filter(|w| w[0]).map(|w| w[1]).collect();
        let cond = after_loss.iter().filter(|x| **x).count() as f64 / after_loss.len() as f64;
        assert!((cond - 0.325).abs() < 0.03, "{cond}");
    }

    #[test]
    fn gilbert_elliott_rate_and_burst_length() {
        // p = 1%, r = 20%, 1-h = 100%: πB = p/(p+r) = 4.76%, bursts ≈ 1/r = 5.
        let mut l = link("loss gemodel 1% 20%", 10);
        let n = 200_000u64;
        let mut lost = Vec::with_capacity(n as usize);
        for i in 0..n {
            lost.push(l.send(Micros(i * 100), 100).is_empty());
        }
        let rate = lost.iter().filter(|x| **x).count() as f64 / n as f64;
        assert!((rate - 0.0476).abs() < 0.004, "{rate}");
        let mut bursts = Vec::new();
        let mut run = 0;
        for &x in &lost {
            if x {
                run += 1;
            } else if run > 0 {
                bursts.push(run);
                run = 0;
            }
        }
        let mean = bursts.iter().sum::<u64>() as f64 / bursts.len() as f64;
        assert!((mean - 5.0).abs() < 0.3, "{mean}");
    }

    #[test]
    fn four_state_model_matches_its_stationary_loss() {
        // loss state 1%: p13 = 1%, p31 = 99%, p32 = 0, p23 = 100%, p14 = 0:
        // every stay in state 3 lasts ~1 packet: loss ≈ p13/(1 + p13).
        let mut l = link("loss state 1%", 11);
        let n = 200_000u64;
        let lost = (0..n).filter(|i| l.send(Micros(i * 100), 100).is_empty()).count() as f64 / n as f64;
        assert!((lost - 0.01 / 1.01).abs() < 0.002, "{lost}");
        // p14 alone: isolated losses at rate p14/(1 + p14).
        let mut l = link("loss state 0% 100% 0% 0% 2%", 12);
        let lost = (0..n).filter(|i| l.send(Micros(i * 100), 100).is_empty()).count() as f64 / n as f64;
        assert!((lost - 0.02 / 1.02).abs() < 0.002, "{lost}");
    }

    #[test]
    fn rate_serialises_and_limit_plateaus() {
        // 1 mbit/s, 100-byte payloads = 142 bytes on the qdisc = 1136 µs each.
        let mut l = link("rate 1mbit", 13);
        let v = probe(&mut l, 10, 0);
        let times: Vec<u64> = v.iter().map(|(_, t)| t.0).collect();
        for (k, t) in times.iter().enumerate() {
            assert_eq!(*t, ((k as u64 + 1) * 1_136_000).div_ceil(1000));
        }
        // Offered 2× the rate with limit 50: the queue fills, the queueing
        // delay plateaus at about limit × transmit time, the excess drops.
        let mut l = link("rate 1mbit limit 50", 14);
        let v = probe(&mut l, 4_000, 568);
        let d = delays(&v, 568);
        let plateau = pct(&d, 0.9);
        assert!((plateau - 50.0 * 1.136).abs() < 3.0, "{plateau}");
        let dropped = l.stats().limit_dropped as f64 / 4_000.0;
        assert!((dropped - 0.5).abs() < 0.03, "{dropped}");
    }

    #[test]
    fn rate_makes_jitter_a_running_maximum_and_keeps_order() {
        let mut l = link("delay 50ms 10ms rate 10mbit", 15);
        let v = probe(&mut l, 5_000, 2_000);
        assert!(v.windows(2).all(|w| w[0].1 <= w[1].1), "order kept");
        let d = delays(&v, 2_000);
        let mean = d.iter().sum::<f64>() / d.len() as f64;
        assert!(mean > 52.0, "the running maximum raises the mean: {mean}");
    }

    #[test]
    fn rate_cells_and_overhead() {
        use super::super::netem::Rate;
        let r = Rate { bytes_per_s: 1_000, packet_overhead: 10, cell_size: 48, cell_overhead: 5 };
        // 100 + 10 = 110 bytes → 3 cells of 53 = 159 bytes → 0.159 s.
        assert_eq!(packet_time_ns(100, &r), 159_000_000);
    }

    #[test]
    fn slots_release_in_bursts() {
        // Slots every 10 ms, at most 3 packets each; packets sent every 1 ms
        // with no delay leave in groups of at most 3 at slot boundaries.
        let mut l = link("slot 10ms 10ms packets 3", 16);
        let mut released: Vec<(u64, u64)> = Vec::new();
        let mut tokens = std::collections::BTreeMap::new();
        for i in 0..100u64 {
            let now = Micros(i * 1_000);
            for t in l.release(now) {
                released.push((tokens[&t], now.0));
            }
            for d in l.send(now, 100).iter() {
                tokens.insert(d.held.unwrap(), i);
            }
            for t in l.release(now) {
                released.push((tokens[&t], now.0));
            }
        }
        let mut t = 100_000;
        while l.next_wake().is_some() && t < 1_000_000 {
            let w = l.next_wake().unwrap().0.max(t);
            for tok in l.release(Micros(w)) {
                released.push((tokens[&tok], w));
            }
            t = w + 1;
        }
        assert_eq!(released.len(), 100);
        let mut per_instant = std::collections::BTreeMap::new();
        for (_, at) in &released {
            *per_instant.entry(*at).or_insert(0) += 1;
        }
        assert!(per_instant.values().all(|&n| n <= 3), "{per_instant:?}");
        assert!(released.windows(2).all(|w| w[0].0 < w[1].0), "in order");
        assert!(released.iter().all(|(i, at)| *at >= i * 1_000));
    }

    #[test]
    fn schedule_switches_description() {
        let mut l = Link::scheduled(
            vec![
                (Micros::ZERO, Netem::parse("delay 10ms").unwrap()),
                (Micros(1_000_000), Netem::parse("loss 100%").unwrap()),
                (Micros(2_000_000), Netem::parse("delay 30ms").unwrap()),
            ],
            Correlation::Kernel,
            Stream::new(1, Purpose::Uplink, 0),
        );
        assert_eq!(l.send(Micros(0), 10).iter().next().unwrap().time, Micros(10_000));
        assert!(l.send(Micros(1_500_000), 10).is_empty());
        assert_eq!(l.send(Micros(2_000_000), 10).iter().next().unwrap().time, Micros(2_030_000));
    }

    proptest::proptest! {
        /// The unreliable link never delivers before the profile's minimum
        /// delay (base delay minus jitter), whatever the other impairments.
        #[test]
        fn never_delivers_before_the_minimum_delay(
            delay in 0u64..200, jitter in 0u64..200, loss in 0u32..50, dup in 0u32..20, seed in 0u64..1000,
        ) {
            let jitter = jitter.min(delay);
            let mut l = link(&format!("delay {delay}ms {jitter}ms loss {loss}% duplicate {dup}%"), seed);
            for i in 0..500u64 {
                for d in l.send(Micros(i * 1_000), 100).iter() {
                    proptest::prop_assert!(d.time.0 >= i * 1_000 + (delay - jitter) * 1_000);
                }
            }
        }

        /// The queue limit counts exactly the copies still waiting: a copy
        /// is dropped when, and only when, `limit` earlier ones leave after
        /// it arrives (a departure rounded up to the µs, as delivered, is
        /// later than a send instant, a whole µs, exactly when it is).
        #[test]
        fn the_limit_counts_the_copies_still_waiting(
            delay in 1u64..80, jitter in 0u64..80, limit in 1u32..150, rate: bool,
            gaps in proptest::collection::vec(0u64..30, 1..600), seed in 0u64..1000,
        ) {
            // Half the cases without jitter: copies then leave on the
            // whole-ms instants packets (sent on 100 µs steps) arrive at.
            let jitter = if seed % 2 == 0 { 0 } else { jitter.min(delay) };
            let rate = if rate { " rate 2mbit" } else { "" };
            let mut l = link(&format!("delay {delay}ms {jitter}ms limit {limit}{rate}"), seed);
            let (mut now, mut leaving, mut dropped) = (0u64, Vec::new(), 0u64);
            for gap in gaps {
                now += gap * 100;
                let waiting = leaving.iter().filter(|&&t| t > now).count();
                let out = l.send(Micros(now), 100);
                proptest::prop_assert_eq!(out.is_empty(), waiting >= limit as usize, "at {} µs, {} waiting", now, waiting);
                dropped += u64::from(out.is_empty());
                leaving.extend(out.iter().map(|d| d.time.0));
            }
            proptest::prop_assert_eq!(l.stats().limit_dropped, dropped);
        }
    }

    #[test]
    fn corruption_flips_a_bit_inside_the_packet() {
        let mut l = link("corrupt 100%", 11);
        for i in 0..100 {
            let d = l.send(Micros(i), 10);
            let bit = d.iter().next().unwrap().corrupt_bit.unwrap();
            assert!(bit < 80);
        }
    }

    /// A datagram over the MTU arrives whole or not at all: a 3-fragment
    /// datagram survives `loss 20%` with probability 0.8³.
    #[test]
    fn a_fragment_lost_loses_the_datagram() {
        let (mut small, mut large) = (link("loss 20%", 21), link("loss 20%", 22));
        let n = 20_000;
        let mut arrived = [0u64; 2];
        for i in 0..n {
            arrived[0] += small.send(Micros(i * 1_000), 1_472).len() as u64;
            let copies = large.send(Micros(i * 1_000), 3_000);
            assert!(copies.len() <= 1);
            arrived[1] += copies.len() as u64;
        }
        assert!(within_binomial(arrived[0], n, 0.8), "{arrived:?}");
        assert!(within_binomial(arrived[1], n, 0.8f64.powi(3)), "{arrived:?}");
        let st = large.stats();
        assert_eq!((st.offered, st.fragmented, st.fragment_lost), (n, n, n - arrived[1]));
        assert_eq!(small.stats().fragmented, 0);
    }

    /// The datagram arrives with its last fragment: under jitter, the
    /// latest of three delays.
    #[test]
    fn a_datagram_arrives_with_its_last_fragment() {
        let (mut small, mut large) = (link("delay 50ms 20ms", 23), link("delay 50ms 20ms", 23));
        let mean = |l: &mut Link, bytes: usize| {
            let n = 10_000u64;
            let total: u64 = (0..n).map(|i| l.send(Micros(i * 10_000), bytes).as_slice()[0].time.0 - i * 10_000).sum();
            total as f64 / n as f64 / 1000.0
        };
        // Uniform on [30, 70] ms: the mean is 50, the largest of three 60.
        let (one, three) = (mean(&mut small, 100), mean(&mut large, 2_961));
        assert!((one - 50.0).abs() < 0.5, "{one}");
        assert!((three - 60.0).abs() < 0.5, "{three}");
    }

    /// Every fragment is serialised at `rate` with its own IP and Ethernet
    /// headers: 3,000 bytes leave as 1,480 + 1,480 + 48 bytes of IP payload.
    #[test]
    fn fragments_serialise_with_their_own_headers() {
        let mut l = link("rate 1mbit", 24);
        let d = l.send(Micros::ZERO, 3_000);
        let wire = (1_480 + 20 + 14) * 2 + (48 + 20 + 14);
        assert_eq!(d.as_slice()[0].time, Micros((wire as u64 * 8 * 1_000_000).div_ceil(1_000_000)));
        assert_eq!(crate::net::fragments(3_000, 1_500).collect::<Vec<_>>(), vec![1_480, 1_480, 48]);
        assert_eq!(crate::net::wire_bytes(3_000, 1_500, 28), 3_000 + 28 + 40);
        assert_eq!(crate::net::wire_bytes(1_472, 1_500, 28), 1_500);
        // A smaller MTU splits sooner.
        let mut l = link("delay 1ms", 25).with_mtu(576);
        l.send(Micros::ZERO, 1_000);
        assert_eq!(l.stats().fragmented, 1);
        assert_eq!(crate::net::fragments(1_000, 576).collect::<Vec<_>>(), vec![552, 456]);
    }

    /// A corrupted fragment flips a bit of the datagram's payload, at the
    /// offset that fragment carries.
    #[test]
    fn corruption_in_a_fragment_lands_in_its_part_of_the_payload() {
        // 4,000 bytes: fragments carry payload bytes [0, 1472), [1472,
        // 2952) and [2952, 4000). At `corrupt 30%` each gets hit.
        let mut l = link("corrupt 30%", 26);
        let mut hit = [0u32; 3];
        for i in 0..600 {
            if let Some(bit) = l.send(Micros(i), 4_000).as_slice()[0].corrupt_bit {
                assert!(bit < 4_000 * 8, "{bit}");
                hit[[1_472 * 8, 2_952 * 8].iter().filter(|&&b| bit >= b).count()] += 1;
            }
        }
        assert!(hit.iter().all(|&h| h > 20), "{hit:?}");
        let mut l = link("corrupt 100%", 27);
        let d = l.send(Micros(0), 3_000).as_slice()[0];
        let mut payload = vec![0u8; 3_000];
        assert!(d.corrupt(&mut payload));
        assert_eq!(payload.iter().map(|b| b.count_ones()).sum::<u32>(), 1);
    }

    /// On a slotted link a fragmented datagram leaves when its last
    /// fragment gets a slot: one token, released once.
    #[test]
    fn slotted_fragments_release_their_datagram_once() {
        let mut l = link("slot 10ms 10ms packets 1", 28);
        let d = l.send(Micros::ZERO, 3_000);
        let token = d.as_slice()[0].held.unwrap();
        let mut released = Vec::new();
        let mut t = 0;
        while let Some(w) = l.next_wake() {
            let w = w.0.max(t);
            released.extend(l.release(Micros(w)).into_iter().map(|x| (x, w)));
            t = w + 1;
            assert!(t < 1_000_000, "never drained");
        }
        // Three fragments, one per 10 ms slot: the datagram leaves with the third.
        assert_eq!(released.len(), 1, "{released:?}");
        assert_eq!(released[0].0, token);
        assert!(released[0].1 >= 20_000, "{released:?}");
    }
}
