//! Input fidelity: did the authority run each sampled input once, for its
//! own duration?
//!
//! A sample is the player's device read at one instant; it stands for the
//! time until the next sample (one tick when a client samples every tick,
//! several when frame locking samples only at key frames). The authority
//! should apply it on `round(duration / dt)` frames (at least one).
//! From the harness's log of samples and the per-frame input sequence the
//! authority published (a server's `last_seq` per player, or the inputs a
//! peer confirmed), per player:
//!
//! - **dropped**: samples no frame ever applied (a server queue discarding
//!   its oldest entry, a bucket overwriting a slot) while the network lost
//!   or damaged a packet the player's node sent between the sample and the
//!   frame that passed it — a packet that may have carried it;
//! - **late**: samples no frame ever applied although the network lost
//!   nothing the player's node sent in that time: the input was still on
//!   its way, or never sent, when the authority passed it (an outage that
//!   queued packets, a queue cut short). The harness tells the two apart
//!   from the links, not from what an algorithm says;
//! - **repeated**: frames beyond a sample's due count that applied no new
//!   input — the algorithm ran an input again, or ran none, because the
//!   next had not arrived (a server queue running dry).
//!
//! Samples after the last one applied are not judged (the run ended).
//!
//! Each count is also kept apart for the samples taken in the player's
//! warm-up (see [`super::WARMUP_US`]), and per second of the sample.

use super::judge::Phase;
use super::InputFidelity;
use crate::game::Input;
use crate::time::Micros;

#[derive(Clone, Copy, Debug, Default)]
struct Player {
    /// Sequence number the previous frame applied (0: none yet).
    last: u32,
    /// Frames that applied `last` (or nothing new after it).
    frames: u64,
    repeated: u64,
    dropped: u64,
    late: u64,
    judged: u64,
    /// Of `repeated`, `dropped` and `late`, those of samples taken in the
    /// warm-up, and those taken while unconnected past the run's first
    /// warm-up span (see [`super::judge::Phase`]).
    warmup: [[u64; 3]; 2],
}

/// The per-player bookkeeping.
#[derive(Clone, Debug)]
pub(crate) struct Fidelity {
    dt_us: u64,
    players: Vec<Player>,
    /// Per second of the sample, all players: [never run, repeated].
    seconds: Vec<[u32; 2]>,
}

impl Fidelity {
    pub(crate) fn new(players: usize, dt_us: u64) -> Fidelity {
        Fidelity { dt_us, players: vec![Player::default(); players], seconds: Vec::new() }
    }

    /// Charges `n` events of kind `k` (0 repeated, 1 dropped, 2 late) to a
    /// sample taken at `taken` µs by a player whose client connected at
    /// `connected`.
    fn charge(seconds: &mut Vec<[u32; 2]>, pl: &mut Player, k: usize, n: u64, taken: u64, connected: Option<u64>) {
        if n == 0 {
            return;
        }
        match Phase::of(connected, taken) {
            Phase::Warmup => pl.warmup[0][k] += n,
            Phase::Unconnected => pl.warmup[1][k] += n,
            Phase::Counted => {}
        }
        let sec = (taken / 1_000_000) as usize;
        if seconds.len() <= sec {
            seconds.resize(sec + 1, [0; 2]);
        }
        let slot = &mut seconds[sec][usize::from(k == 0)];
        *slot = slot.saturating_add(n.min(u32::MAX as u64) as u32);
    }

    /// The authority's next frame, published at `now`, applied input `seq`
    /// of player `p` (0: no input from the player); `samples` is the
    /// player's sample log and `losses` the send times (µs, ascending) of
    /// the player's packets the network lost or damaged; the player's
    /// client connected at `connected` µs (`None`: not yet).
    pub(crate) fn frame(
        &mut self,
        p: usize,
        seq: u32,
        samples: &[(Micros, Input)],
        now: Micros,
        losses: &[u64],
        connected: Option<u64>,
    ) {
        let dt = self.dt_us;
        let seconds = &mut self.seconds;
        let Some(pl) = self.players.get_mut(p) else { return };
        if seq == 0 || seq == pl.last {
            if pl.last > 0 {
                pl.frames += 1;
            }
            return;
        }
        if seq < pl.last {
            return; // an older input applied late: its gap was counted
        }
        if pl.last > 0 {
            // `last` is done: its due count is known (a later one was sampled).
            let due = match (samples.get(pl.last as usize - 1), samples.get(pl.last as usize)) {
                (Some(a), Some(b)) => ((b.0 .0 - a.0 .0 + dt / 2) / dt).max(1),
                _ => 1,
            };
            let extra = pl.frames.saturating_sub(due);
            pl.repeated += extra;
            let taken = samples.get(pl.last as usize - 1).map_or(now.0, |s| s.0 .0);
            Self::charge(seconds, pl, 0, extra, taken, connected);
            pl.judged += 1;
        }
        // Numbers past the sample log name no sample (a damaged packet's):
        // counted dropped at once, so a wild number costs no time.
        let sampled = (samples.len() as u32).saturating_add(1).min(seq);
        for skipped in pl.last + 1..sampled {
            let taken = samples[skipped as usize - 1].0 .0;
            // A packet sent in [taken, now] may have carried it.
            let first = losses.partition_point(|&t| t < taken);
            let kind = if losses.get(first).is_some_and(|&t| t <= now.0) {
                pl.dropped += 1;
                1
            } else {
                pl.late += 1;
                2
            };
            Self::charge(seconds, pl, kind, 1, taken, connected);
        }
        let wild = (seq - sampled.max(pl.last + 1)) as u64;
        pl.dropped += wild;
        Self::charge(seconds, pl, 1, wild, now.0, connected);
        pl.judged += (seq - pl.last - 1) as u64;
        pl.last = seq;
        pl.frames = 1;
    }

    /// The counts, with rates over `counted_client_s` client-seconds after
    /// the warm-ups (0 when there are none); `connected`: per player,
    /// whether its client ever connected.
    pub(crate) fn finish(&self, counted_client_s: f64, connected: &[bool]) -> InputFidelity {
        let per_min = |x: u64| super::per_client_minute(x, counted_client_s);
        let sum = |f: &dyn Fn(&Player) -> u64| self.players.iter().map(f).sum::<u64>();
        let (repeated, dropped, late) = (sum(&|p| p.repeated), sum(&|p| p.dropped), sum(&|p| p.late));
        let judged = sum(&|p| p.judged);
        let warm = self.warmup(connected);
        InputFidelity {
            judged,
            repeated,
            dropped,
            late,
            repeated_per_min: per_min(repeated - warm[0]),
            dropped_per_min: per_min(dropped - warm[1]),
            late_per_min: per_min(late - warm[2]),
            per_client: self.players.iter().map(|p| [p.repeated, p.dropped]).collect(),
            late_per_client: self.players.iter().map(|p| p.late).collect(),
        }
    }

    /// Repeated, dropped and late, of samples taken in the warm-ups;
    /// `connected`: per player, whether its client ever connected.
    pub(crate) fn warmup(&self, connected: &[bool]) -> [u64; 3] {
        let mut w = [0; 3];
        for (i, p) in self.players.iter().enumerate() {
            let later = connected.get(i).copied().unwrap_or(false);
            for (k, sum) in w.iter_mut().enumerate() {
                *sum += p.warmup[0][k] + if later { p.warmup[1][k] } else { 0 };
            }
        }
        w
    }

    /// Per second of the sample: never run, and repeated (all players).
    pub(crate) fn seconds(&self) -> &[[u32; 2]] {
        &self.seconds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(n: u32, every_us: u64) -> Vec<(Micros, Input)> {
        (0..n).map(|k| (Micros(k as u64 * every_us), Input::IDLE)).collect()
    }

    #[test]
    fn each_input_once_is_perfect() {
        let s = samples(10, 16_666);
        let mut f = Fidelity::new(1, 16_666);
        for seq in 1..=10 {
            f.frame(0, seq, &s, Micros(1_000_000), &[], Some(0));
        }
        let r = f.finish(1.0, &[true]);
        assert_eq!((r.repeated, r.dropped, r.judged), (0, 0, 9));
    }

    #[test]
    fn a_queue_running_dry_repeats_and_a_full_one_drops() {
        let s = samples(10, 16_666);
        // Sample 4 is taken at 50 ms; the frame that skips it is published at 90 ms.
        let run = |losses: &[u64]| {
            let mut f = Fidelity::new(1, 16_666);
            // 1, 2, 2 (dry), 0 (no input: also a repeat), 3, 5 (4 skipped), 6..10
            for (k, seq) in [1, 2, 2, 0, 3, 5, 6, 7, 8, 9, 10].into_iter().enumerate() {
                f.frame(0, seq, &s, Micros(k as u64 * 18_000), losses, Some(0));
            }
            f.finish(1.0, &[true])
        };
        // A packet sent at 60 ms was lost: sample 4 may have been on it.
        let r = run(&[10_000, 60_000]);
        assert_eq!((r.repeated, r.dropped, r.late), (2, 1, 0));
        assert_eq!(r.per_client, vec![[2, 1]]);
        assert_eq!(r.late_per_client, vec![0]);
        // Nothing lost while it travelled (a loss before it was taken, one
        // after the frame passed it): late, not dropped.
        let r = run(&[10_000, 95_000]);
        assert_eq!((r.repeated, r.dropped, r.late), (2, 0, 1));
        assert_eq!(r.late_per_client, vec![1]);
        // The window's ends count: a loss at the sample's instant.
        assert_eq!(run(&[50_000]).dropped, 1);
        assert_eq!(run(&[90_000]).dropped, 1);
    }

    #[test]
    fn a_number_past_the_samples_is_dropped_at_once() {
        // A damaged packet's sequence number: three billion samples that
        // were never taken, counted without visiting each.
        let s = samples(3, 16_666);
        let mut f = Fidelity::new(1, 16_666);
        f.frame(0, 1, &s, Micros(20_000), &[], Some(0));
        f.frame(0, 3_000_000_000, &s, Micros(40_000), &[], Some(0));
        let r = f.finish(1.0, &[true]);
        assert_eq!((r.late, r.dropped), (2, 3_000_000_000 - 4));
    }

    #[test]
    fn warm_up_samples_are_counted_apart_and_rates_take_the_rest() {
        // Samples every tick for 12 s; the client connected at 0, so it
        // warms up until 10 s. Input 10 (taken at 0.15 s) and input 700
        // (at 11.65 s) are never run; input 650 (at 10.82 s) runs on two
        // extra frames.
        let s = samples(720, 16_666);
        let mut f = Fidelity::new(1, 16_666);
        let mut k = 0u64;
        for seq in (1..=720).filter(|&q| q != 10 && q != 700) {
            for _ in 0..if seq == 650 { 3 } else { 1 } {
                k += 1;
                f.frame(0, seq, &s, Micros(k * 16_666 + 1_000), &[], Some(0));
            }
        }
        let r = f.finish(1.5, &[true]);
        assert_eq!((r.late, r.repeated), (2, 2));
        assert_eq!(f.warmup(&[true]), [0, 0, 1], "input 10 was taken in the warm-up");
        // The rest over 1.5 client-seconds: 1 late and 2 repeated → 40 and 80 a minute.
        assert_eq!((r.late_per_min, r.repeated_per_min), (40.0, 80.0));
        let mut seconds = [[0; 2]; 12];
        seconds[0] = [1, 0];
        seconds[10] = [0, 2];
        seconds[11] = [1, 0];
        assert_eq!(f.seconds(), &seconds[..]);
        // No time after the warm-up: no rate.
        assert_eq!(f.finish(0.0, &[true]).late_per_min, 0.0);
        // A client not connected yet is warming up for the run's first
        // 10 s; after that, its events are warm-up only if it connects
        // later.
        let mut g = Fidelity::new(1, 16_666);
        g.frame(0, 1, &s, Micros(20_000), &[], None);
        g.frame(0, 3, &s, Micros(40_000), &[], None); // skips input 2, at 17 ms
        g.frame(0, 700, &s, Micros(11_700_000), &[], None); // skips 696 inputs, 98 of them after 10 s
        assert_eq!(g.warmup(&[false]), [0, 0, 599]);
        assert_eq!(g.warmup(&[true]), [0, 0, 697]);
    }

    #[test]
    fn a_sample_held_for_a_key_frame_is_due_that_many_frames() {
        // Samples every 4 ticks (frame locking); each applied on 4 frames.
        let s = samples(5, 4 * 16_666);
        let mut f = Fidelity::new(1, 16_666);
        for seq in 1..=5 {
            for _ in 0..4 {
                f.frame(0, seq, &s, Micros(1_000_000), &[], Some(0));
            }
        }
        assert_eq!(f.finish(1.0, &[true]).repeated, 0);
        // The same samples applied on 6 frames each: 2 too many each.
        let mut f = Fidelity::new(1, 16_666);
        for seq in 1..=5 {
            for _ in 0..6 {
                f.frame(0, seq, &s, Micros(1_000_000), &[], Some(0));
            }
        }
        assert_eq!(f.finish(1.0, &[true]).repeated, 8, "the last sample is not judged");
    }
}
