//! `lockstep`: strict, DOOM-style lockstep (Ushen, `TryRunTics`).
//!
//! Peer to peer. Every tick a peer makes the frames real time says are due
//! (`maketic` catches up after a wait, as DOOM's `NetUpdate` does), sampling
//! its player's input for each — unless it is already `max-ahead` frames
//! ahead of the game, in which case the device is not read (DOOM's buffer
//! is 6 frames; by default the limit is the round trip to the slowest peer
//! as measured from acknowledgements, so the buffer suits the link) — and
//! sends every other peer all its inputs that peer has not acknowledged,
//! with an acknowledgement of the inputs it holds from that peer. Then it
//! runs every frame (`gametic`) for which it holds every player's input; a
//! tick in which no frame ran while the game is behind is a stall. Every
//! peer simulates exactly the same inputs for every frame, so no peer can
//! diverge: the harness checks that by replaying the inputs each peer
//! confirms.
//!
//! By default (`pace=1`) frames play at a steady pace: frame `f` runs on
//! the tick `f` plus a playout delay that covers how late frames become
//! complete ([`Playout`]), so a jittery link costs the delay instead of a
//! stall on every late frame and a double frame on the next. `pace=0` runs
//! each frame as soon as its inputs are all here, as DOOM does: on `delay
//! 100ms 20ms` that stalls about 18 s of every minute in one-tick hiccups.
//!
//! With `adapt=1`, DOOM's clock adaptation (`TryRunTics`): a peer whose own
//! tics ran ahead of what it has received from the key player (player 0)
//! on 4 tics in a row gives up one tic, so a fast clock does not keep
//! running into the backup limit.
//!
//! Input packets (peer → peer, little-endian): `3, ack: u32, start: u32, n:
//! u8, n × input(3)` — `ack` is how many of the receiver's inputs the
//! sender holds contiguously, `start` the frame of the first input carried;
//! at most 64 a packet, a longer backlog in successive slices ([`Backlog`]).
//! An input made for frame `f` has sequence number `f + 1` (one sample per
//! frame), so sequence numbers need not travel.

use crate::support::backlog::Backlog;
use crate::support::playout::Playout;
use crate::support::render_lerp::{Picture, Smooth};
use crate::support::round_trip::RoundTrips;
use crate::wire::{Reader, Writer};
use harness::contract::{Algorithm, Ctx, Node, NodeId, OptionSpec, RenderCtx, Report, Setup, Topology, View};
use harness::game::{Input, SeqInput, State};
use std::ops::Range;

const TAG_INPUTS: u8 = 3;
/// Inputs carried per packet at most.
const MAX_BATCH: usize = 64;
/// Frames a peer will accept ahead of its game (anything farther is junk).
const ACCEPT_WINDOW: u32 = 4096;

const MAX_AHEAD: OptionSpec = OptionSpec::count(
    "max-ahead",
    "0",
    0,
    1000,
    "frames of input a peer may make before the game has run them (DOOM: BACKUPTICS/2 = 6); 0: the round trip to the slowest peer as measured, in frames, and 2 more, at least 6",
);

/// Frames a peer may run ahead when the round trip is not measured yet,
/// and at least (DOOM's `BACKUPTICS/2`).
const DOOM_AHEAD: u32 = 6;

const ADAPT: OptionSpec = OptionSpec::count(
    "adapt",
    "0",
    0,
    1,
    "1: DOOM's clock adaptation — a peer ahead of the key player (player 0) for 4 tics in a row skips a tic",
);

const PACE: OptionSpec = OptionSpec::count(
    "pace",
    "1",
    0,
    1,
    "1: frames run one a tick, a playout delay behind that covers how late their inputs arrive; 0: each frame as soon as its inputs are here (DOOM; stutters on jitter)",
);

/// The algorithm.
pub struct Lockstep {
    /// Name on the command line.
    pub name: &'static str,
}

/// `lockstep` as it should be.
pub const LOCKSTEP: Lockstep = Lockstep { name: "lockstep" };

impl Algorithm for Lockstep {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "strict peer-to-peer lockstep: a frame runs only when every player's input for it is there (DOOM, Ushen)"
    }
    fn topology(&self) -> Topology {
        Topology::PeerToPeer
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[MAX_AHEAD, ADAPT, PACE]
    }
    fn client(&self, setup: &Setup, player: usize) -> Box<dyn Node> {
        let n = setup.players;
        Box::new(Smooth::new(
            Peer {
                me: player,
                state: setup.initial.clone(),
                inputs: vec![Vec::new(); n],
                have: vec![0; n],
                acked_by: vec![0; n],
                backlog: Backlog::new(n),
                max_ahead: setup.options.number(&MAX_AHEAD).clamp(0.0, 1000.0) as u32,
                round_trips: RoundTrips::new(n),
                frame_inputs: vec![SeqInput::default(); n],
                received: Vec::new(),
                adapt: setup.options.number(&ADAPT) != 0.0,
                skipped: 0,
                frameskip: [false; 4],
                playout: (setup.options.number(&PACE) != 0.0).then(Playout::new),
                complete: 0,
            },
            setup,
        ))
    }
}

struct Peer {
    me: usize,
    state: State,
    /// Per player, the input of each frame received so far.
    inputs: Vec<Vec<Option<Input>>>,
    /// Per player, how many inputs from frame 0 on are held contiguously
    /// (for `me`: `maketic`).
    have: Vec<u32>,
    /// Per peer, how many of my inputs it has acknowledged.
    acked_by: Vec<u32>,
    /// Which slice of its unacknowledged inputs each peer gets next.
    backlog: Backlog,
    /// 0: from the measured round trip (see [`Peer::ahead_limit`]).
    max_ahead: u32,
    /// The round trip to each peer, from acknowledgements of my inputs.
    round_trips: RoundTrips,
    frame_inputs: Vec<SeqInput>,
    /// Scratch: the inputs of the packet being read.
    received: Vec<Input>,
    adapt: bool,
    /// Tics given up to clock adaptation.
    skipped: u32,
    frameskip: [bool; 4],
    /// With `pace`, when frames may run.
    playout: Option<Playout>,
    /// Frames from 0 on whose inputs are all here.
    complete: u32,
}

/// The player everyone else adapts to (DOOM's key player).
const KEY_PLAYER: usize = 0;

impl Peer {
    fn gametic(&self) -> u32 {
        self.state.frame
    }

    fn store(&mut self, p: usize, frame: u32, input: Input) {
        if frame < self.have[p] {
            // Held already (every frame below `have` is), and `have` stays.
            return;
        }
        let v = &mut self.inputs[p];
        if v.len() <= frame as usize {
            v.resize(frame as usize + 1, None);
        }
        if v[frame as usize].is_none() {
            v[frame as usize] = Some(input);
        }
        while self.inputs[p].get(self.have[p] as usize).is_some_and(|i| i.is_some()) {
            self.have[p] += 1;
        }
    }

    /// Frames newly complete on `tick` tell the playout when they came.
    fn note_complete(&mut self, tick: u64) {
        let complete = self.have.iter().copied().min().unwrap_or(0);
        if let Some(p) = self.playout.as_mut() {
            for f in self.complete..complete {
                p.arrived(f, tick);
            }
        }
        self.complete = self.complete.max(complete);
    }

    /// Runs every frame whose inputs are all here (with `pace`, that is
    /// due by `tick`); returns how many ran.
    fn try_run(&mut self, ctx: &mut Ctx<'_>, tick: u64) -> u32 {
        let mut ran = 0;
        let due = self.playout.as_mut().map(|p| p.due(tick));
        loop {
            let f = self.gametic();
            if self.have.iter().any(|&h| h <= f) || due.is_some_and(|d| d.is_none_or(|d| f > d)) {
                return ran;
            }
            for (p, slot) in self.frame_inputs.iter_mut().enumerate() {
                let input = self.inputs[p][f as usize].expect("have covers it");
                *slot = SeqInput { seq: f + 1, input };
            }
            ctx.game().step(&mut self.state, &self.frame_inputs);
            ctx.publish_confirmed(&self.state, &self.frame_inputs);
            ran += 1;
        }
    }

    /// How far ahead of the game a peer may make inputs: `max-ahead`, or
    /// with 0 the round trip to the slowest peer and 2 frames — a frame
    /// runs once every peer's input for it has come, about a one-way trip
    /// after it was made, so a buffer of the round trip never throttles a
    /// link whose paths are alike, as DOOM's 6 throttles a 100 ms one.
    ///
    /// An input a peer has not acknowledged yet bounds the round trip from
    /// below by its age, so the first round trip on a long link is not
    /// throttled to the floor while the first acknowledgement travels.
    fn ahead_limit(&self, now: u64) -> u32 {
        if self.max_ahead > 0 {
            return self.max_ahead;
        }
        let rtt = self.round_trips.ticks(self.me, &self.acked_by, now);
        // A playout delay holds that many frames made and not yet run.
        let held = self.playout.as_ref().map_or(0, |p| p.delay().clamp(0, 1000) as u32);
        (rtt.ceil() as u32 + 2).max(held + 2).clamp(DOOM_AHEAD, 1000)
    }

    fn packet_for(&mut self, q: usize) -> Vec<u8> {
        let Range { start, end } = self.backlog.range(q, self.acked_by[q], self.have[self.me], MAX_BATCH as u32);
        let mut w = Writer::with_capacity(10 + 3 * (end - start) as usize);
        w.u8(TAG_INPUTS).u32(self.have[q]).u32(start).u8((end - start) as u8);
        for f in start..end {
            self.inputs[self.me][f as usize].expect("own inputs are contiguous").encode(&mut w.0);
        }
        w.finish()
    }
}

impl Picture for Peer {
    /// The state changes only by stepping a frame.
    fn picture_stamp(&self) -> Option<u64> {
        Some(self.state.frame as u64)
    }
}

impl Node for Peer {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        // NetUpdate: make the tics real time says are due (one normally,
        // several after a wait), as far as the backup buffer allows —
        // minus one if DOOM's clock adaptation says we run ahead.
        let mut due = ctx.tick() as u32 + 1 - self.skipped;
        if self.adapt && self.me != KEY_PLAYER {
            let ahead = self.have[self.me] > self.have[KEY_PLAYER];
            self.frameskip[(ctx.tick() % 4) as usize] = ahead;
            if self.frameskip.iter().all(|&a| a) {
                self.skipped += 1;
                due -= 1;
                self.frameskip = [false; 4];
            }
        }
        let limit = self.ahead_limit(ctx.tick());
        while self.have[self.me] < due && self.have[self.me] < self.gametic() + limit {
            let maketic = self.have[self.me];
            let Some(s) = ctx.sample_input() else { break };
            self.round_trips.made(maketic, ctx.tick());
            debug_assert_eq!(s.seq, maketic + 1, "one sample per frame");
            self.store(self.me, maketic, s.input);
        }
        self.note_complete(ctx.tick());
        for q in 0..ctx.setup().players {
            if q != self.me {
                let msg = self.packet_for(q);
                ctx.send(ctx.setup().node_of_player(q), msg);
            }
        }
        if self.try_run(ctx, ctx.tick()) == 0 {
            ctx.report(Report::Stalled);
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(q) = ctx.setup().player_of_node(from).filter(|&q| q != self.me) else {
            return;
        };
        let mut inputs = std::mem::take(&mut self.received);
        let Some((ack, start)) = decode(bytes, &mut inputs) else {
            self.received = inputs;
            return;
        };
        if ack <= self.have[self.me] && ack > self.acked_by[q] {
            self.acked_by[q] = ack;
            self.round_trips.acked(q, ack, ctx.tick());
        }
        for (k, &input) in inputs.iter().enumerate() {
            let f = start.saturating_add(k as u32);
            if f < self.gametic().saturating_add(ACCEPT_WINDOW) {
                self.store(q, f, input);
            }
        }
        self.received = inputs;
        self.note_complete(ctx.tick());
    }

    fn render(&mut self, _ctx: &RenderCtx<'_>, view: &mut View) {
        view.show_game(&self.state);
    }
}

/// Reads an input packet: the acknowledgement and the first frame, its
/// inputs into `inputs` (cleared first; a buffer kept between packets).
fn decode(bytes: &[u8], inputs: &mut Vec<Input>) -> Option<(u32, u32)> {
    inputs.clear();
    let mut r = Reader::new(bytes);
    if r.u8()? != TAG_INPUTS {
        return None;
    }
    let ack = r.u32()?;
    let start = r.u32()?;
    let n = r.u8()? as usize;
    for _ in 0..n {
        inputs.push(r.take(3).and_then(Input::decode)?);
    }
    r.is_done().then_some((ack, start))
}
