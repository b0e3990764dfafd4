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
//!   its oldest entry, a bucket overwriting a slot);
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

    /// The authority's next frame applied input `seq` of player `p` (0: no
    /// input from the player); `samples` is the player's sample log.
    pub(crate) fn frame(&mut self, p: usize, seq: u32, samples: &[(Micros, Input)]) {
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
        pl.dropped += (seq - pl.last - 1) as u64;
        pl.judged += (seq - pl.last - 1) as u64;
        pl.last = seq;
        pl.frames = 1;
    }

    pub(crate) fn finish(&self, secs: f64) -> InputFidelity {
        let per_min = |x: u64| super::stats::round4(x as f64 / self.players.len().max(1) as f64 / secs * 60.0);
        let repeated: u64 = self.players.iter().map(|p| p.repeated).sum();
        let dropped: u64 = self.players.iter().map(|p| p.dropped).sum();
        let judged: u64 = self.players.iter().map(|p| p.judged).sum();
        InputFidelity {
            judged,
            repeated,
            dropped,
            repeated_per_min: per_min(repeated),
            dropped_per_min: per_min(dropped),
            per_client: self.players.iter().map(|p| [p.repeated, p.dropped]).collect(),
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
            f.frame(0, seq, &s);
        }
        let r = f.finish(1.0);
        assert_eq!((r.repeated, r.dropped, r.judged), (0, 0, 9));
    }

    #[test]
    fn a_queue_running_dry_repeats_and_a_full_one_drops() {
        let s = samples(10, 16_666);
        let mut f = Fidelity::new(1, 16_666);
        // 1, 2, 2 (dry), 0 (no input: also a repeat), 3, 5 (4 dropped), 6..10
        for seq in [1, 2, 2, 0, 3, 5, 6, 7, 8, 9, 10] {
            f.frame(0, seq, &s);
        }
        let r = f.finish(1.0);
        assert_eq!((r.repeated, r.dropped), (2, 1));
        assert_eq!(r.per_client, vec![[2, 1]]);
    }

    #[test]
    fn a_sample_held_for_a_key_frame_is_due_that_many_frames() {
        // Samples every 4 ticks (frame locking); each applied on 4 frames.
        let s = samples(5, 4 * 16_666);
        let mut f = Fidelity::new(1, 16_666);
        for seq in 1..=5 {
            for _ in 0..4 {
                f.frame(0, seq, &s);
            }
        }
        assert_eq!(f.finish(1.0).repeated, 0);
        // The same samples applied on 6 frames each: 2 too many each.
        let mut f = Fidelity::new(1, 16_666);
        for seq in 1..=5 {
            for _ in 0..6 {
                f.frame(0, seq, &s);
            }
        }
        assert_eq!(f.finish(1.0).repeated, 8, "the last sample is not judged");
    }
}
