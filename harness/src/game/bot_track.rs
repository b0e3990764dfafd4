//! The bots' recent states, frame by frame, shared by the copies of one
//! game: a large world's bots are stepped once per frame, not once per
//! world that steps them.
//!
//! A bot moves by its own plan and touches nothing else, so its state
//! after a step is a function of its state before it, its id and the
//! frame alone. The track holds the bots of one set of ids (the first is
//! the number of players before them) and compares it as well.
//! A run steps the same bots in several worlds — the server's, the
//! recorder's ideal world, every re-simulation — and each of those steps
//! repeated the same work (2,000 bots: most of a step). A world that is
//! about to step frame `f` with exactly the bots the track holds for
//! `f − 1` takes the track's `f` instead ([`BotTrack::replay`]); the
//! first world to step a frame the track does not hold yet adds it
//! ([`BotTrack::extend`]). The comparison makes it exact whatever a world
//! holds: a world whose bots differ by one field steps them itself.
//!
//! Worlds stepped on different threads share one track (behind a mutex,
//! taken at most twice a step, never during the stepping itself). Only
//! the last few frames are kept. A world that begins the track anew
//! starts a new generation of it, and a world extends only the
//! generation it compared against.

use super::PlayerState;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// Frames the track keeps at least (it drops them in bulk at twice this):
/// the worlds of a run step the same frames within a few of each other.
const KEEP_FRAMES: usize = 16;

/// A track this many frames behind the world about to step is begun anew
/// from that world's bots. Not at once: a client predicting ahead of the
/// server, whose bots came from a quantized snapshot, would otherwise take
/// the track over every step, and the server would step its own.
const STALE_FRAMES: u32 = 64;

/// What a world about to step frame `f` should do with its bots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Plan {
    /// The track held `f`: the bots are stepped already.
    Replayed,
    /// Step them, then offer the result ([`BotTrack::extend`]): the track
    /// (of this generation) ends at `f − 1` with exactly these bots.
    StepAndExtend(u64),
    /// Step them; the track cannot use the result.
    Step,
}

/// The bots' states of consecutive frames.
#[derive(Debug, Default)]
pub(super) struct BotTrack {
    frames: Mutex<Frames>,
    replayed: AtomicU64,
}

#[derive(Debug, Default)]
struct Frames {
    /// Begun anew this many times.
    generation: u64,
    /// The first bot's id (the players before the bots).
    first_id: usize,
    /// The frame of the first state kept.
    first: u32,
    bots: usize,
    /// The frames kept, `bots` states each.
    states: Vec<PlayerState>,
}

impl Frames {
    fn count(&self) -> usize {
        self.states.len().checked_div(self.bots).unwrap_or(0)
    }

    fn get(&self, frame: u32) -> Option<&[PlayerState]> {
        let k = frame.checked_sub(self.first)? as usize;
        (k < self.count()).then(|| &self.states[k * self.bots..(k + 1) * self.bots])
    }

    fn last(&self) -> Option<u32> {
        self.count().checked_sub(1).map(|k| self.first + k as u32)
    }

    /// Whether the track holds the bots `first_id..first_id + bots`.
    fn holds(&self, first_id: usize, bots: usize) -> bool {
        (self.first_id, self.bots) == (first_id, bots)
    }

    /// Forgets every frame and keeps `bots` (from id `first_id` on) as
    /// frame `frame`.
    fn restart(&mut self, frame: u32, first_id: usize, bots: &[PlayerState]) {
        self.states.clear();
        self.states.extend_from_slice(bots);
        (self.first, self.first_id, self.bots) = (frame, first_id, bots.len());
        self.generation += 1;
    }

    fn push(&mut self, bots: &[PlayerState]) {
        let count = self.count();
        if count >= 2 * KEEP_FRAMES {
            let gone = count - KEEP_FRAMES;
            self.states.drain(..gone * self.bots);
            self.first += gone as u32;
        }
        self.states.extend_from_slice(bots);
    }
}

impl BotTrack {
    /// Before stepping `bots` (the bots of frame `frame − 1`, ids from
    /// `first_id` on) to `frame`: copies the track's `frame` into them when
    /// the track holds these bots as `frame − 1` and holds `frame`.
    pub(super) fn replay(&self, frame: u32, first_id: usize, bots: &mut [PlayerState]) -> Plan {
        let Some(before) = frame.checked_sub(1) else { return Plan::Step };
        let mut track = self.frames.lock().unwrap_or_else(|e| e.into_inner());
        let stale = |last: u32| last.saturating_add(STALE_FRAMES) < before;
        if !track.holds(first_id, bots.len()) || track.last().is_none_or(stale) {
            // Nothing to compare with, or nobody has stepped on from it
            // for long: these bots begin it anew.
            track.restart(before, first_id, bots);
            return Plan::StepAndExtend(track.generation);
        }
        if track.get(before) != Some(&*bots) {
            return Plan::Step;
        }
        match track.get(frame) {
            Some(after) => {
                bots.copy_from_slice(after);
                self.replayed.fetch_add(1, Ordering::Relaxed);
                Plan::Replayed
            }
            None => Plan::StepAndExtend(track.generation),
        }
    }

    /// After [`Plan::StepAndExtend`] of `generation`: `bots` are frame
    /// `frame`'s. Kept unless another world has added that frame meanwhile
    /// (the same states: they were stepped from the same ones) or begun
    /// the track anew.
    pub(super) fn extend(&self, frame: u32, generation: u64, bots: &[PlayerState]) {
        let mut track = self.frames.lock().unwrap_or_else(|e| e.into_inner());
        if track.generation == generation && track.last().is_some_and(|last| last.checked_add(1) == Some(frame)) {
            track.push(bots);
        }
    }

    /// Steps whose bots were taken from the track.
    pub(super) fn replayed(&self) -> u64 {
        self.replayed.load(Ordering::Relaxed)
    }
}
