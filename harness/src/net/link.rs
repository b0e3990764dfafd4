//! One direction of a network link, applying a [`Netem`] description to each
//! packet the way the Linux kernel's `sch_netem` does.
//!
//! Per packet, in the kernel's order: duplicate (the copy takes its own loss
//! and delay draws and is never duplicated again), loss, corruption, the
//! queue limit, then reorder-or-delay. Each packet gets its own delay draw,
//! so jitter alone reorders packets sent closer together than the jitter,
//! exactly as the kernel's time-sorted queue does. Correlation uses the
//! kernel's formula (a weighted average of a fresh uniform and the last
//! value, see `notes/netem.md`).
//!
//! ```
//! use harness::net::{link::Link, netem::Netem};
//! use harness::rng::{Purpose, Stream};
//! use harness::time::Micros;
//! let mut link = Link::new(Netem::parse("delay 20ms").unwrap(), Stream::new(1, Purpose::Uplink, 0));
//! let out = link.send(Micros(1_000), 60);
//! assert_eq!(out.as_slice()[0].time, Micros(21_000));
//! ```

use super::netem::{Netem, Prob};
use crate::rng::Stream;
use crate::time::Micros;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// One copy of a packet leaving the link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Delivery {
    /// When it reaches the far end.
    pub time: Micros,
    /// Bit to flip (`byte · 8 + bit`) if netem corrupted this copy.
    pub corrupt_bit: Option<u32>,
}

/// The copies of one packet that survive the link: none, one, or two.
#[derive(Clone, Copy, Debug, Default)]
pub struct Deliveries {
    items: [Option<Delivery>; 2],
}

impl Deliveries {
    fn push(&mut self, d: Delivery) {
        let slot = self
            .items
            .iter_mut()
            .find(|s| s.is_none())
            .expect("at most two copies");
        *slot = Some(d);
    }
    /// The surviving copies, in the order netem enqueued them.
    pub fn as_slice(&self) -> Vec<Delivery> {
        self.iter().collect()
    }
    /// Iterates over the surviving copies.
    pub fn iter(&self) -> impl Iterator<Item = Delivery> + '_ {
        self.items.iter().flatten().copied()
    }
    /// Number of surviving copies.
    pub fn len(&self) -> usize {
        self.items.iter().flatten().count()
    }
    /// Whether the packet was lost.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Counters of what the link did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkStats {
    /// Packets offered to the link.
    pub offered: u64,
    /// Copies delivered (duplicates included).
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

/// netem's correlated uniform generator (`get_crandom`), kernel semantics.
#[derive(Clone, Copy, Debug, Default)]
struct Crandom {
    last: u32,
}

impl Crandom {
    fn next(&mut self, rho: Prob, rng: &mut Stream) -> u32 {
        let value = rng.next_u32() as u64;
        if rho.0 == 0 {
            return value as u32;
        }
        let rho = rho.0 as u64 + 1;
        let answer = ((value * ((1u64 << 32) - rho) + self.last as u64 * rho) >> 32) as u32;
        self.last = answer;
        answer
    }
}

/// One direction of a link with its own random stream and queue.
#[derive(Clone, Debug)]
pub struct Link {
    spec: Netem,
    rng: Stream,
    loss_cor: Crandom,
    dup_cor: Crandom,
    corrupt_cor: Crandom,
    reorder_cor: Crandom,
    delay_cor: Crandom,
    counter: u32,
    queue: BinaryHeap<Reverse<Micros>>,
    stats: LinkStats,
}

impl Link {
    /// A link applying `spec`, drawing from `rng`.
    pub fn new(spec: Netem, rng: Stream) -> Link {
        Link {
            spec,
            rng,
            loss_cor: Crandom::default(),
            dup_cor: Crandom::default(),
            corrupt_cor: Crandom::default(),
            reorder_cor: Crandom::default(),
            delay_cor: Crandom::default(),
            counter: 0,
            queue: BinaryHeap::new(),
            stats: LinkStats::default(),
        }
    }

    /// The description this link applies.
    pub fn spec(&self) -> &Netem {
        &self.spec
    }

    /// What the link has done so far.
    pub fn stats(&self) -> LinkStats {
        self.stats
    }

    /// Whether packets pass unchanged and at once.
    pub fn is_clean(&self) -> bool {
        self.spec.is_clean()
    }

    /// Offers a packet of `len` bytes at `now`; returns the copies that
    /// survive and when each arrives.
    pub fn send(&mut self, now: Micros, len: usize) -> Deliveries {
        self.stats.offered += 1;
        let mut out = Deliveries::default();
        self.enqueue(now, len, true, &mut out);
        out
    }

    fn enqueue(&mut self, now: Micros, len: usize, may_duplicate: bool, out: &mut Deliveries) {
        let s = &self.spec;
        let mut count = 1;
        if may_duplicate
            && s.duplicate.is_set()
            && s.duplicate.0 >= self.dup_cor.next(s.duplicate_corr, &mut self.rng)
        {
            count += 1;
        }
        if s.loss.is_set() && s.loss.0 >= self.loss_cor.next(s.loss_corr, &mut self.rng) {
            count -= 1;
        }
        if count == 0 {
            self.stats.lost += 1;
            return;
        }
        let mut corrupt_bit = None;
        if s.corrupt.is_set()
            && len > 0
            && s.corrupt.0 >= self.corrupt_cor.next(s.corrupt_corr, &mut self.rng)
        {
            let byte = self.rng.below(len as u64) as u32;
            let bit = self.rng.below(8) as u32;
            corrupt_bit = Some(byte * 8 + bit);
            self.stats.corrupted += 1;
        }
        if count > 1 {
            // The clone goes through the whole enqueue path first, with
            // duplication off, as the kernel does.
            self.stats.duplicated += 1;
            self.enqueue(now, len, false, out);
        }
        // Limit: packets still held (waiting out their delay) count.
        while self.queue.peek().is_some_and(|Reverse(t)| *t <= now) {
            self.queue.pop();
        }
        if self.queue.len() >= self.spec.limit as usize {
            self.stats.limit_dropped += 1;
            return;
        }
        let s = &self.spec;
        let time = if s.gap == 0
            || self.counter < s.gap - 1
            || s.reorder.0 < self.reorder_cor.next(s.reorder_corr, &mut self.rng)
        {
            self.counter = self.counter.saturating_add(1);
            let delay = self.tabledist();
            Micros((now.0 as i64 + delay).max(now.0 as i64) as u64)
        } else {
            self.counter = 0;
            self.stats.reordered += 1;
            now
        };
        if time > now {
            self.queue.push(Reverse(time));
        }
        self.stats.delivered += 1;
        out.push(Delivery { time, corrupt_bit });
    }

    /// The delay draw: `delay ± jitter`, uniform over `[D − J, D + J)`.
    fn tabledist(&mut self) -> i64 {
        let mu = self.spec.delay_us as i64;
        let sigma = self.spec.jitter_us;
        if sigma == 0 {
            return mu;
        }
        let rnd = self.delay_cor.next(self.spec.delay_corr, &mut self.rng) as u64;
        (rnd % (2 * sigma)) as i64 + mu - sigma as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Purpose;

    fn link(s: &str, seed: u64) -> Link {
        Link::new(
            Netem::parse(s).unwrap(),
            Stream::new(seed, Purpose::Uplink, 0),
        )
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
        let delays: Vec<u64> = v.iter().map(|(i, t)| t.0 - i * 2_000).collect();
        assert!(delays.iter().all(|d| (40_000..60_000).contains(d)));
        let mean = delays.iter().sum::<u64>() as f64 / delays.len() as f64;
        assert!((mean - 50_000.0).abs() < 300.0, "mean {mean}");
        // Packets 2 ms apart under ±10 ms jitter arrive out of order often
        // (the kernel measures about 59%, the note says).
        let mut by_arrival = v.clone();
        by_arrival.sort_by_key(|&(i, t)| (t, i));
        let inversions = by_arrival.windows(2).filter(|w| w[1].0 < w[0].0).count();
        let share = inversions as f64 / v.len() as f64;
        assert!(share > 0.3, "reorder share {share}");
    }

    #[test]
    fn duplicate_share_and_duplicate_plus_loss_sends_one() {
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
        // Expected copies per packet: 0.5·1 + 0.5·(1 + 0.5) = 1.25.
        let per = v.len() as f64 / 10_000.0;
        assert!((per - 1.25).abs() < 0.03, "{per}");
    }

    #[test]
    fn reorder_with_gap_sends_every_gth_packet_at_once() {
        // reorder 100% gap 5: packets 5, 10, 15 … (1-based) skip the delay.
        let mut l = link("delay 10ms reorder 100% gap 5", 7);
        let v = probe(&mut l, 20, 1_000);
        let immediate: Vec<u64> = v
            .iter()
            .filter(|(i, t)| t.0 == i * 1_000)
            .map(|(i, _)| *i)
            .collect();
        assert_eq!(immediate, vec![4, 9, 14, 19]);
        // reorder 25% (gap 1): about a quarter skip the delay.
        let mut l = link("delay 10ms reorder 25%", 8);
        let n = 20_000;
        probe(&mut l, n, 1_000);
        assert!(within_binomial(l.stats().reordered, n, 0.25));
    }

    #[test]
    fn kernel_correlation_collapses_loss_rate() {
        // The note measures loss 10% 25% → about 1.8% on a real kernel.
        let mut l = link("loss 10% 25%", 9);
        let n = 50_000;
        let v = probe(&mut l, n, 1_000);
        let rate = (n - v.len() as u64) as f64 / n as f64;
        assert!((0.01..0.03).contains(&rate), "{rate}");
    }

    #[test]
    fn limit_tail_drops_when_queue_is_full() {
        let mut l = link("delay 100ms limit 10", 10);
        let v = probe(&mut l, 50, 1_000); // 100 in flight wanted, 10 allowed
        assert_eq!(v.len(), 10);
        assert_eq!(l.stats().limit_dropped, 40);
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
}
