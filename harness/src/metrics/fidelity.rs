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
}

/// The per-player bookkeeping.
#[derive(Clone, Debug)]
pub(crate) struct Fidelity {
    dt_us: u64,
    players: Vec<Player>,
}

impl Fidelity {
    pub(crate) fn new(players: usize, dt_us: u64) -> Fidelity {
        Fidelity { dt_us, players: vec![Player::default(); players] }
    }

    /// The authority's next frame, published at `now`, applied input `seq`
    /// of player `p` (0: no input from the player); `samples` is the
    /// player's sample log and `losses` the send times (µs, ascending) of
    /// the player's packets the network lost or damaged.
    pub(crate) fn frame(&mut self, p: usize, seq: u32, samples: &[(Micros, Input)], now: Micros, losses: &[u64]) {
        let dt = self.dt_us;
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
            pl.repeated += pl.frames.saturating_sub(due);
            pl.judged += 1;
        }
        // Numbers past the sample log name no sample (a damaged packet's):
        // counted dropped at once, so a wild number costs no time.
        let sampled = (samples.len() as u32).saturating_add(1).min(seq);
        for skipped in pl.last + 1..sampled {
            let taken = samples[skipped as usize - 1].0 .0;
            // A packet sent in [taken, now] may have carried it.
            let first = losses.partition_point(|&t| t < taken);
            if losses.get(first).is_some_and(|&t| t <= now.0) {
                pl.dropped += 1;
            } else {
                pl.late += 1;
            }
        }
        pl.dropped += (seq - sampled.max(pl.last + 1)) as u64;
        pl.judged += (seq - pl.last - 1) as u64;
        pl.last = seq;
        pl.frames = 1;
    }

    pub(crate) fn finish(&self, secs: f64) -> InputFidelity {
        let per_min = |x: u64| super::stats::round4(x as f64 / self.players.len().max(1) as f64 / secs * 60.0);
        let repeated: u64 = self.players.iter().map(|p| p.repeated).sum();
        let dropped: u64 = self.players.iter().map(|p| p.dropped).sum();
        let late: u64 = self.players.iter().map(|p| p.late).sum();
        let judged: u64 = self.players.iter().map(|p| p.judged).sum();
        InputFidelity {
            judged,
            repeated,
            dropped,
            late,
            repeated_per_min: per_min(repeated),
            dropped_per_min: per_min(dropped),
            late_per_min: per_min(late),
            per_client: self.players.iter().map(|p| [p.repeated, p.dropped]).collect(),
            late_per_client: self.players.iter().map(|p| p.late).collect(),
        }
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
            f.frame(0, seq, &s, Micros(1_000_000), &[]);
        }
        let r = f.finish(1.0);
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
                f.frame(0, seq, &s, Micros(k as u64 * 18_000), losses);
            }
            f.finish(1.0)
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
        f.frame(0, 1, &s, Micros(20_000), &[]);
        f.frame(0, 3_000_000_000, &s, Micros(40_000), &[]);
        let r = f.finish(1.0);
        assert_eq!((r.late, r.dropped), (2, 3_000_000_000 - 4));
    }

    #[test]
    fn a_sample_held_for_a_key_frame_is_due_that_many_frames() {
        // Samples every 4 ticks (frame locking); each applied on 4 frames.
        let s = samples(5, 4 * 16_666);
        let mut f = Fidelity::new(1, 16_666);
        for seq in 1..=5 {
            for _ in 0..4 {
                f.frame(0, seq, &s, Micros(1_000_000), &[]);
            }
        }
        assert_eq!(f.finish(1.0).repeated, 0);
        // The same samples applied on 6 frames each: 2 too many each.
        let mut f = Fidelity::new(1, 16_666);
        for seq in 1..=5 {
            for _ in 0..6 {
                f.frame(0, seq, &s, Micros(1_000_000), &[]);
            }
        }
        assert_eq!(f.finish(1.0).repeated, 8, "the last sample is not judged");
    }
}
