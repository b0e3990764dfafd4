//! `rollback`: GGPO-style prediction and rollback ("Time Warp", 预测回滚 in
//! Wei and antsmallant).
//!
//! Peer to peer. Every tick a peer samples its input for frame `now +
//! delay` (input delay, default 2 frames) and sends every peer all its
//! inputs they have not acknowledged. It then advances one frame without
//! waiting: a remote input that has not arrived is *predicted* as that
//! player's last known input. Each frame's state is saved in a ring buffer.
//! When a remote input arrives that differs from what was predicted for
//! its frame, the peer loads the state of that frame and re-simulates to
//! the present with the corrected inputs — a rollback, reported with its
//! depth. A peer never runs more than `window` frames past the last frame
//! whose inputs it has from everyone: beyond that it stalls rather than
//! predicts. GGPO's window is 8 frames; by default it is the round trip
//! to the slowest peer as measured from acknowledgements, so it suits the
//! link. After a stall a peer runs up to `catchup` frames a tick until it
//! has made up the ticks it lost (DOOM's catch-up; GGPO never
//! fast-forwards, so its game falls behind the clock for good). Frames whose inputs are all known are *confirmed*
//! and published, so the harness checks them against the agreed log.
//!
//! A late input that confirms its prediction costs nothing: the states
//! simulated since are already right, except for the input's sequence
//! number, which the peer stamps into them (it is the bookkeeping the
//! harness measures latency with; no game rule reads it).
//!
//! Time sync: each packet carries the sender's frame; a peer that runs
//! more than `ahead` frames ahead of what the latency explains skips a
//! tick (GGPO's wait recommendation). A packet carries at most 64 inputs:
//! a longer backlog goes out in successive slices ([`Backlog`]). Desync detection: packets carry the
//! checksum of the sender's newest confirmed frame; a peer that finds a
//! different checksum for that frame reports it and stops.
//!
//! Wire (little-endian): `9, ack: u32, start: u32, n: u8, n × input(3),
//! frame: u32, confirmed: u32, checksum: u64` — `ack`: how many of the
//! receiver's inputs the sender holds contiguously; `start`: the frame of
//! the first input carried.

use crate::support::backlog::Backlog;
use crate::support::render_lerp::{Picture, Smooth};
use crate::support::round_trip::RoundTrips;
use crate::wire::{Reader, Writer};
use harness::contract::{Algorithm, Ctx, Node, NodeId, OptionSpec, RenderCtx, Report, Setup, Topology, View};
use harness::game::{Input, SeqInput, State};
use std::collections::VecDeque;
use std::ops::Range;

const TAG: u8 = 9;
const MAX_BATCH: u32 = 64;
const RING: usize = 128;

const DELAY: OptionSpec = OptionSpec::count("delay", "2", 0, 30, "input delay, frames");
const WINDOW: OptionSpec = OptionSpec::count(
    "window",
    "0",
    0,
    120,
    "prediction window: frames past the last confirmed one before stalling (GGPO: 8); 0: the round trip to the slowest peer as measured, in frames, and 2 more, at least 8",
);
const CATCHUP: OptionSpec = OptionSpec::count(
    "catchup",
    "2",
    1,
    8,
    "frames a peer may run in one tick to make up for ticks it stalled (1: never catches up, as GGPO)",
);

/// GGPO's prediction window, and the least the measured one is.
const GGPO_WINDOW: u32 = 8;
const AHEAD: OptionSpec = OptionSpec::count(
    "ahead",
    "2",
    0,
    60,
    "time sync: frames ahead of the peers (beyond latency) before skipping a tick",
);

/// How a peer brings the state a rollback restored back to the present
/// frame: [`Peer::resimulate`], or a negative control's flaw.
pub(crate) type Replay = fn(&mut Peer, &mut Ctx<'_>, u32);

/// The algorithm.
pub struct Rollback {
    /// Name on the command line.
    pub name: &'static str,
    /// One line for `list`.
    pub description: &'static str,
    /// Brings a restored state back to the present.
    pub(crate) replay: Replay,
}

/// `rollback` as it should be.
pub const ROLLBACK: Rollback = Rollback {
    name: "rollback",
    description: "GGPO-style rollback: input delay, predict remote input, roll back and re-simulate on a misprediction (Wei, antsmallant)",
    replay: Peer::resimulate,
};

impl Algorithm for Rollback {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn topology(&self) -> Topology {
        Topology::PeerToPeer
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[DELAY, WINDOW, CATCHUP, AHEAD]
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        let n = s.players;
        let delay = s.options.number(&DELAY).clamp(0.0, 60.0) as u32;
        let mut inputs = vec![Vec::new(); n];
        // Frames before the input delay has filled are idle for everyone.
        for v in inputs.iter_mut() {
            v.resize(delay as usize, Some(Input::IDLE));
        }
        let mut saved = VecDeque::with_capacity(RING);
        saved.push_back(s.initial.clone());
        Box::new(Smooth::new(
            Peer {
                me: player,
                state: s.initial.clone(),
                saved,
                spare: Vec::new(),
                inputs,
                have: vec![delay; n],
                acked_by: vec![0; n],
                backlog: Backlog::new(n),
                used: Vec::new(),
                changes: 0,
                published: 0,
                delay,
                window: s.options.number(&WINDOW).clamp(0.0, 120.0) as u32,
                catchup: s.options.number(&CATCHUP).clamp(1.0, 8.0) as u32,
                behind: 0,
                round_trips: RoundTrips::new(n),
                ahead: s.options.number(&AHEAD).clamp(0.0, 120.0) as u32,
                remote_frame: vec![0; n],
                replay: self.replay,
                stopped: false,
                sums: [(u32::MAX, 0); SUMS_KEPT],
                scratch: Vec::new(),
                received: Vec::new(),
            },
            s,
        ))
    }
}

/// One player's peer.
pub(crate) struct Peer {
    me: usize,
    /// The state at the present frame.
    pub(crate) state: State,
    /// Saved states: `saved[i]` is the state at frame `saved[0].frame + i`.
    saved: VecDeque<State>,
    /// States a rollback dropped from the ring, whose buffers the frames
    /// re-simulated after it take (no allocation per re-simulated frame).
    spare: Vec<State>,
    /// Per player, the input of each frame (None: not received yet).
    inputs: Vec<Vec<Option<Input>>>,
    /// Per player, inputs held contiguously from frame 0 (for `me`: made).
    have: Vec<u32>,
    /// Per peer, how many of my inputs it acknowledged.
    acked_by: Vec<u32>,
    /// Which slice of its unacknowledged inputs each peer gets next.
    backlog: Backlog,
    /// Per simulated frame, the inputs used (predictions included): frame
    /// `f`'s at `f × players ..`, one per player.
    used: Vec<Input>,
    /// Changes to `state` so far (the picture stamp).
    changes: u64,
    /// Frames published as confirmed.
    published: u32,
    delay: u32,
    /// 0: from the measured round trip (see [`Peer::window`]).
    window: u32,
    /// Frames a tick at most, catching up.
    catchup: u32,
    /// Ticks stalled and not yet made up for.
    behind: u32,
    /// The round trip to each peer, from acknowledgements of my inputs
    /// (the first `delay` frames' inputs are never made nor sent).
    round_trips: RoundTrips,
    ahead: u32,
    /// Per peer, the newest frame it said it was at.
    remote_frame: Vec<u32>,
    replay: Replay,
    stopped: bool,
    /// Checksums of recently published frames, frame `f`'s at
    /// `f % SUMS_KEPT` (a frame's slot names it): every packet
    /// carries the newest one's and is checked against one, and a
    /// published frame's state never changes again (rollbacks start at a
    /// frame not yet confirmed, and confirmed inputs are never stamped).
    sums: [(u32, u64); SUMS_KEPT],
    /// Scratch: the inputs, with sequence numbers, of the frame being published.
    scratch: Vec<SeqInput>,
    /// Scratch: the inputs of the packet being read.
    received: Vec<Input>,
}

/// Published frames whose checksums are kept (a peer's confirmed frame
/// trails ours by a round trip at most, nearly always).
const SUMS_KEPT: usize = 16;

impl Peer {
    /// The present frame.
    pub(crate) fn frame(&self) -> u32 {
        self.state.frame
    }

    /// The frame of the oldest saved state.
    fn base(&self) -> u32 {
        self.saved.front().map_or(0, |s| s.frame)
    }

    /// The prediction window: `window`, or with 0 the round trip to the
    /// slowest peer and 2 frames, at least GGPO's 8 — a remote input
    /// arrives about a one-way trip after its frame, so a window of the
    /// round trip predicts through a link whose paths are alike instead
    /// of stalling on it.
    ///
    /// An input a peer has not acknowledged yet bounds the round trip from
    /// below by its age, so the first round trip on a long link is not
    /// held to the floor while the first acknowledgement travels.
    fn window(&self, now: u64) -> u32 {
        if self.window > 0 {
            return self.window;
        }
        let rtt = self.round_trips.ticks(self.me, &self.acked_by, now);
        (rtt.ceil() as u32 + 2).clamp(GGPO_WINDOW, (RING - 8) as u32)
    }

    fn confirmed(&self) -> u32 {
        self.have.iter().copied().min().unwrap_or(0)
    }

    fn input_for(&self, p: usize, f: u32) -> Input {
        // Known, or predicted as the player's last known input.
        match self.inputs[p].get(f as usize).copied().flatten() {
            Some(i) => i,
            None => (0..f.min(self.inputs[p].len() as u32))
                .rev()
                .find_map(|g| self.inputs[p][g as usize])
                .unwrap_or(Input::IDLE),
        }
    }

    /// The inputs of frame `f` with their sequence numbers, into `out`
    /// (cleared first).
    fn seq_inputs_into(&self, f: u32, inputs: &[Input], out: &mut Vec<SeqInput>) {
        // A real input made for frame f carries sequence f − delay + 1 (one
        // sample per frame); predicted and pre-delay inputs carry none.
        out.clear();
        out.extend(inputs.iter().enumerate().map(|(p, i)| {
            let known = self.inputs[p].get(f as usize).copied().flatten().is_some();
            let seq = if known && f >= self.delay { f - self.delay + 1 } else { 0 };
            SeqInput { seq, input: *i }
        }));
    }

    /// The checksum of published frame `f`'s saved state, if still saved.
    fn published_sum(&mut self, f: u32) -> Option<u64> {
        debug_assert!(f <= self.published);
        let base = self.base();
        let state = f.checked_sub(base).and_then(|i| self.saved.get(i as usize))?;
        let slot = &mut self.sums[f as usize % SUMS_KEPT];
        if slot.0 != f {
            *slot = (f, state.checksum());
        }
        Some(slot.1)
    }

    fn step_frame(&mut self, ctx: &mut Ctx<'_>) {
        let f = self.frame();
        let n = self.inputs.len();
        let at = f as usize * n;
        // Frames are stepped in order (re-simulation steps them again).
        debug_assert!(self.used.len() >= at);
        if self.used.len() < at + n {
            self.used.resize(at + n, Input::IDLE);
        }
        for p in 0..n {
            self.used[at + p] = self.input_for(p, f);
        }
        let mut si = std::mem::take(&mut self.scratch);
        self.seq_inputs_into(f, &self.used[at..at + n], &mut si);
        ctx.game().step(&mut self.state, &si);
        self.changes += 1;
        self.scratch = si;
        self.save();
    }

    /// Saves the present state at the ring's end.
    pub(crate) fn save(&mut self) {
        // The ring is full but for the first frames: the oldest state's
        // buffers take the new one.
        if self.saved.len() >= RING {
            let mut oldest = self.saved.pop_front().expect("the ring is full");
            oldest.clone_from(&self.state);
            self.saved.push_back(oldest);
        } else {
            let mut next = self.spare.pop().unwrap_or_default();
            next.clone_from(&self.state);
            self.saved.push_back(next);
        }
    }

    fn store(&mut self, p: usize, f: u32, input: Input) -> bool {
        let v = &mut self.inputs[p];
        if v.len() <= f as usize {
            v.resize(f as usize + 1, None);
        }
        let fresh = v[f as usize].is_none();
        if fresh {
            v[f as usize] = Some(input);
        }
        while self.inputs[p].get(self.have[p] as usize).is_some_and(|i| i.is_some()) {
            self.have[p] += 1;
        }
        fresh
    }

    /// A late input confirmed a prediction: the states simulated since
    /// already hold the right world, but not the input's sequence number
    /// (the bookkeeping the harness reads latency from; no game rule reads
    /// it). Stamp it instead of re-simulating.
    fn stamp(&mut self, q: usize, f: u32, seq: u32) {
        self.changes += 1;
        // The saved states after frame `f` (the ring holds consecutive
        // frames).
        let base = self.base();
        let after = ((f + 1).saturating_sub(base) as usize).min(self.saved.len());
        debug_assert!(self.saved.range(..after).all(|s| s.frame <= f), "the states skipped are at or before the frame");
        for s in self.saved.range_mut(after..).chain(std::iter::once(&mut self.state)) {
            if s.frame > f && s.players[q].last_seq < seq {
                s.players[q].last_seq = seq;
            }
        }
    }

    /// Rolls back to `from` and re-simulates to the present.
    fn rollback(&mut self, ctx: &mut Ctx<'_>, from: u32) {
        let now = self.frame();
        let base = self.base();
        if from < base {
            return; // older than the ring: cannot happen within the window
        }
        let idx = (from - base) as usize;
        self.spare.extend(self.saved.drain(idx + 1..));
        self.state.clone_from(&self.saved[idx]);
        self.changes += 1;
        ctx.report(Report::Rollback { depth: now - from });
        (self.replay)(self, ctx, now);
    }

    /// Re-simulates from the restored state to frame `now` with the
    /// inputs known now.
    fn resimulate(&mut self, ctx: &mut Ctx<'_>, now: u32) {
        while self.frame() < now {
            self.step_frame(ctx);
        }
    }

    fn publish(&mut self, ctx: &mut Ctx<'_>) {
        let upto = self.confirmed().min(self.frame());
        let base = self.base();
        while self.published < upto {
            let f = self.published + 1;
            let Some(state) = f.checked_sub(base).and_then(|i| self.saved.get(i as usize)) else { break };
            let mut si = std::mem::take(&mut self.scratch);
            let n = self.inputs.len();
            let at = (f - 1) as usize * n;
            self.seq_inputs_into(f - 1, &self.used[at..at + n], &mut si);
            ctx.publish_confirmed(state, &si);
            self.scratch = si;
            self.published = f;
        }
    }

    /// The packet for peer `q`, carrying `sum`, the checksum of published
    /// frame `conf` (0: none).
    fn packet_for(&mut self, q: usize, conf: u32, sum: u64) -> Vec<u8> {
        let Range { start, end } = self.backlog.range(q, self.acked_by[q], self.have[self.me], MAX_BATCH);
        let mut w = Writer::with_capacity(32 + 3 * (end.saturating_sub(start)) as usize);
        w.u8(TAG).u32(self.have[q]).u32(start).u8(end.saturating_sub(start) as u8);
        for f in start..end {
            self.inputs[self.me][f as usize].unwrap_or_default().encode(&mut w.0);
        }
        w.u32(self.frame()).u32(if sum == 0 { 0 } else { conf });
        w.0.extend_from_slice(&sum.to_le_bytes());
        w.finish()
    }
}

impl Peer {
    /// Whether a frame may run now, and whether the window allows it: none
    /// runs more than the window past the confirmed frame, and a peer more
    /// than the latency explains ahead of the slowest one skips a tick.
    fn can_advance(&self, now: u64) -> (bool, bool) {
        let slowest = (0..self.remote_frame.len()).filter(|&q| q != self.me).map(|q| self.remote_frame[q]).min();
        let lead = slowest.map_or(0, |s| self.frame().saturating_sub(s));
        let window = self.window(now);
        let in_window = self.frame() < self.confirmed() + window;
        (in_window && lead <= window + self.ahead, in_window)
    }

    /// Samples the input for frame `frame + delay` unless it is made.
    fn make_input(&mut self, ctx: &mut Ctx<'_>) {
        if self.have[self.me] <= self.frame() + self.delay {
            let f = self.have[self.me];
            if let Some(s) = ctx.sample_input() {
                self.round_trips.made(f, ctx.tick());
                self.store(self.me, f, s.input);
            }
        }
    }
}

impl Picture for Peer {
    /// Counts every change to the state: a step, a rollback, a stamp.
    fn picture_stamp(&self) -> Option<u64> {
        Some(self.changes)
    }
}

impl Node for Peer {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        if self.stopped {
            ctx.report(Report::Stalled);
            return;
        }
        // Time sync: skip a tick when running ahead of the peers by more
        // than the latency explains.
        let (can_advance, in_window) = self.can_advance(ctx.tick());
        // Make this tick's input (frame = now + delay), unless the window
        // is full and we are about to stall anyway.
        if can_advance {
            self.make_input(ctx);
        }
        // Every packet carries the newest published frame's checksum.
        let conf = self.published;
        let sum = self.published_sum(conf).unwrap_or(0);
        for q in 0..ctx.setup().players {
            if q != self.me {
                let msg = self.packet_for(q, conf, sum);
                ctx.send(ctx.setup().node_of_player(q), msg);
            }
        }
        if can_advance && self.have[self.me] > self.frame() {
            self.step_frame(ctx);
            // Ticks stalled are made up for, `catchup` frames a tick at
            // most, as DOOM's NetUpdate does: the game keeps to the clock.
            for _ in 1..self.catchup {
                if self.behind == 0 || !self.can_advance(ctx.tick()).0 {
                    break;
                }
                self.make_input(ctx);
                if self.have[self.me] <= self.frame() {
                    break;
                }
                self.step_frame(ctx);
                self.behind -= 1;
            }
        } else {
            ctx.report(Report::Stalled);
            // A tick the window stalled is made up for later; one given
            // up to time sync is not.
            self.behind += !in_window as u32;
        }
        self.publish(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(q) = ctx.setup().player_of_node(from).filter(|&q| q != self.me) else { return };
        let mut inputs = std::mem::take(&mut self.received);
        let Some(p) = decode(bytes, &mut inputs) else {
            self.received = inputs;
            return;
        };
        if p.ack <= self.have[self.me] && p.ack > self.acked_by[q] {
            self.acked_by[q] = p.ack;
            self.round_trips.acked(q, p.ack, ctx.tick());
        }
        self.remote_frame[q] = self.remote_frame[q].max(p.frame);
        // New inputs; the earliest misprediction decides the rollback.
        let mut rollback_to: Option<u32> = None;
        // The inputs before `have[q]` are held already (a packet repeats
        // every input its receiver has not acknowledged, so most are).
        let held = self.have[q].saturating_sub(p.start) as usize;
        for (k, &input) in inputs.iter().enumerate().skip(held) {
            let f = p.start.saturating_add(k as u32);
            if f > self.frame() + 4 * RING as u32 {
                break;
            }
            if self.store(q, f, input) && f < self.frame() {
                let n = self.inputs.len();
                let predicted = self.used.get(f as usize * n + q).copied();
                if predicted != Some(input) {
                    rollback_to = Some(rollback_to.map_or(f, |r| r.min(f)));
                } else if f >= self.delay {
                    self.stamp(q, f, f - self.delay + 1);
                }
            }
        }
        if let Some(f) = rollback_to {
            self.rollback(ctx, f);
        }
        // Desync detection on the peer's newest confirmed frame.
        self.received = inputs;
        if p.confirmed > 0 && p.confirmed <= self.published {
            if let Some(mine) = self.published_sum(p.confirmed) {
                if mine != p.checksum {
                    ctx.report(Report::DesyncDetected { frame: p.confirmed });
                    self.stopped = true;
                }
            }
        }
        self.publish(ctx);
    }

    fn render(&mut self, _ctx: &RenderCtx<'_>, view: &mut View) {
        view.show_game(&self.state);
    }
}

/// A packet's fields (its inputs are read into a buffer the peer keeps).
struct Packet {
    ack: u32,
    start: u32,
    frame: u32,
    confirmed: u32,
    checksum: u64,
}

fn decode(bytes: &[u8], inputs: &mut Vec<Input>) -> Option<Packet> {
    inputs.clear();
    let mut r = Reader::new(bytes);
    if r.u8()? != TAG {
        return None;
    }
    let ack = r.u32()?;
    let start = r.u32()?;
    let n = r.u8()? as usize;
    for _ in 0..n {
        inputs.push(r.take(3).and_then(Input::decode)?);
    }
    let frame = r.u32()?;
    let confirmed = r.u32()?;
    let checksum = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
    r.is_done().then_some(Packet { ack, start, frame, confirmed, checksum })
}

/// GGPO's SyncTest, extended: runs `frames` frames of `inputs` through
/// `step`, and on every frame rolls back `distance` frames and re-simulates
/// — first with the true inputs (the save/load path), then, when
/// `mispredict` is set, from a state simulated with a *wrong* prediction
/// of every input (the correction path) — and compares checksums with the
/// straight run. Returns the first frame where they differ.
pub fn synctest(
    initial: &State,
    inputs: &[Vec<SeqInput>],
    distance: usize,
    mispredict: bool,
    step: &dyn Fn(&mut State, &[SeqInput]),
) -> Result<(), String> {
    let mut straight = vec![initial.clone()];
    for (f, row) in inputs.iter().enumerate() {
        let mut s = straight[f].clone();
        step(&mut s, row);
        straight.push(s);
    }
    for f in 1..=inputs.len() {
        let from = f.saturating_sub(distance);
        // Save/load: re-simulate from the saved state with the true inputs.
        let mut s = straight[from].clone();
        for row in &inputs[from..f] {
            step(&mut s, row);
        }
        if s.checksum() != straight[f].checksum() {
            return Err(format!(
                "frame {f}: re-simulating {} frames from a saved state gives a different state",
                f - from
            ));
        }
        if mispredict && f > from {
            // Predict wrongly (every input inverted), then correct: roll
            // back to `from` and re-simulate with the truth.
            let mut wrong = straight[from].clone();
            for row in &inputs[from..f] {
                let bad: Vec<SeqInput> = row
                    .iter()
                    .map(|i| SeqInput {
                        seq: i.seq,
                        input: Input { buttons: !i.input.buttons & Input::ALL, ..i.input },
                    })
                    .collect();
                step(&mut wrong, &bad);
            }
            let mut fixed = straight[from].clone();
            for row in &inputs[from..f] {
                step(&mut fixed, row);
            }
            if fixed.checksum() != straight[f].checksum() {
                return Err(format!(
                    "frame {f}: after a misprediction and rollback the state differs from the straight run"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::game::{Game, GameConfig};
    use std::cell::Cell;

    fn inputs(frames: usize, players: usize) -> Vec<Vec<SeqInput>> {
        let trace = harness::trace::TraceSpec::resolve("random-walk", &[])
            .unwrap()
            .instantiate(players, 60_000_000, 3)
            .unwrap();
        (0..frames)
            .map(|k| {
                (0..players)
                    .map(|p| SeqInput { seq: k as u32 + 1, input: trace.input_at(p, k as u64 * 16_666) })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn synctest_passes_the_reference_game() {
        let g = Game::new(GameConfig::default());
        let s0 = g.initial_state_seeded(4, 7);
        let step = |s: &mut State, i: &[SeqInput]| g.step(s, i);
        assert_eq!(synctest(&s0, &inputs(300, 4), 7, true, &step), Ok(()));
    }

    #[test]
    fn synctest_catches_a_non_deterministic_game() {
        // A game variant with hidden state outside `State`: every 50th
        // step it nudges player 0. Saved states cannot capture it.
        let g = Game::new(GameConfig::default());
        let s0 = g.initial_state(2);
        let calls = Cell::new(0u64);
        let step = |s: &mut State, i: &[SeqInput]| {
            g.step(s, i);
            calls.set(calls.get() + 1);
            if calls.get().is_multiple_of(50) {
                s.players[0].x += 1;
            }
        };
        let err = synctest(&s0, &inputs(200, 2), 5, false, &step).unwrap_err();
        assert!(err.contains("different state"), "{err}");
    }

    #[test]
    fn packets_round_trip_and_reject_garbage() {
        let mut w = Writer::default();
        w.u8(TAG).u32(3).u32(5).u8(2);
        Input::buttons(Input::UP).encode(&mut w.0);
        Input::IDLE.encode(&mut w.0);
        w.u32(9).u32(4);
        w.0.extend_from_slice(&77u64.to_le_bytes());
        let b = w.finish();
        let mut inputs = vec![Input::IDLE; 7]; // what the last packet left
        let p = decode(&b, &mut inputs).unwrap();
        assert_eq!((p.ack, p.start, p.frame, p.confirmed, p.checksum), (3, 5, 9, 4, 77));
        assert_eq!(inputs, [Input::buttons(Input::UP), Input::IDLE]);
        for cut in 0..b.len() {
            assert!(decode(&b[..cut], &mut inputs).is_none());
        }
    }
}
