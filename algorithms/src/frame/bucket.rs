//! `bucket`: optimistic lockstep without waiting (Wei "帧间无等待改进",
//! DOOM 3 in Ushen).
//!
//! The server ticks at a fixed rate (the run's tick rate: `--tick-rate 50`
//! gives Wei's 50 Hz) and each tick stamps a new frame with every
//! player's latest input, whether or not it changed — a player whose input
//! is late simply keeps the previous one. Clients play the frames like a
//! recording: one per tick; if none has arrived they wait; if they fall
//! behind they fast-forward, up to `catchup` frames per tick. A slow
//! player therefore delays only their own inputs, never the others. By
//! default (`pace=1`) a client plays frame `F` a playout delay after its
//! number that covers how late frames arrive ([`Playout`]), so a jittery
//! link costs that delay instead of a stall and a double frame on every
//! late one; `pace=0` plays whatever has come, keeping `buffer` frames in
//! hand (on `delay 100ms 20ms`, about 11 s of one-tick stalls a minute).
//!
//! With `playout=D` (MiMaze's bucket synchronization: a playout delay) the
//! server does not stamp the latest input but each player's input `F − D`
//! on frame `F`: every input runs once, on its own frame, if it arrives
//! within `D` ticks — a late one is replaced by the previous input and
//! never runs. With `adapt=1` (the default) each player's delay starts at
//! `D` and grows to the lateness its inputs arrive with, so every input
//! that arrives runs once (the frames skipped while it grows repeat the
//! input before). `playout=0 adapt=0` is Wei's latest-input bucket,
//! which repeats an input when the next is late and overwrites one when two
//! arrive in a tick. The delay buys input fidelity with its ticks of latency.
//!
//! Over the unreliable link a client sends, every tick, its newest input
//! and how many frames it holds contiguously; the server sends each client
//! every frame it has not acknowledged (up to 32 per datagram; a longer
//! backlog in successive slices, [`Backlog`]). (Wei's
//! clients send only when a key changes, over TCP; here the ACK has to
//! travel anyway, so the input rides along.)
//!
//! Wire (little-endian): input, client → server: `7, ack: u32, seq: u32,
//! input(3)`; frames, server → client: `8, first: u32, n: u8, players: u8,
//! n × players × (seq: u32, input(3))`.

use crate::support::backlog::Backlog;
use crate::support::playout::Playout;
use crate::support::render_lerp::{Picture, Smooth};
use crate::wire::{stamped_input, Reader, Writer, STAMPED_INPUT_BYTES};
use harness::contract::{Algorithm, Ctx, Node, NodeId, OptionSpec, RenderCtx, Report, Setup, Topology, View};
use harness::game::{Input, SeqInput, State};
use std::collections::{BTreeMap, VecDeque};

const TAG_INPUT: u8 = 7;
const TAG_FRAMES: u8 = 8;
const MAX_BATCH: u32 = 32;
/// Frames a client accepts ahead of what it has played.
const ACCEPT_WINDOW: u32 = 4096;

const CATCHUP: OptionSpec =
    OptionSpec::count("catchup", "4", 1, 60, "frames a late client may play in one tick to catch up");
const BUFFER: OptionSpec =
    OptionSpec::count("buffer", "1", 0, 120, "frames a client keeps in hand before it fast-forwards (a jitter buffer)");
const PACE: OptionSpec = OptionSpec::count(
    "pace",
    "1",
    0,
    1,
    "1: a client plays a frame a tick, a playout delay behind that covers how late frames arrive; 0: whatever has come, `buffer` frames in hand",
);
const ADAPT: OptionSpec = OptionSpec::count(
    "adapt",
    "1",
    0,
    1,
    "1: each player's playout delay grows to the lateness its inputs arrive with (at least `playout`), so every input that arrives runs",
);
const PLAYOUT: OptionSpec = OptionSpec::count(
    "playout",
    "0",
    0,
    600,
    "server playout delay, frames: frame F runs each player's input F − playout (0: the latest input, as the seed)",
);

/// The algorithm.
pub struct Bucket;

impl Algorithm for Bucket {
    fn name(&self) -> &'static str {
        "bucket"
    }
    fn description(&self) -> &'static str {
        "optimistic lockstep: the server stamps a frame every tick with everyone's latest input; no one waits for a slow player (Wei, Ushen)"
    }
    fn topology(&self) -> Topology {
        Topology::Relay
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[CATCHUP, BUFFER, PLAYOUT, ADAPT, PACE]
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        Box::new(Server {
            latest: vec![SeqInput::default(); s.players],
            frames: VecDeque::new(),
            spare: Vec::new(),
            first: 0,
            acked: vec![0; s.players],
            backlog: Backlog::new(s.players),
            playout: s.options.number(&PLAYOUT).clamp(0.0, 600.0) as u32,
            adapt: s.options.number(&ADAPT) != 0.0,
            delay: vec![s.options.number(&PLAYOUT).clamp(0.0, 600.0) as u32; s.players],
            pending: vec![BTreeMap::new(); s.players],
        })
    }
    fn client(&self, s: &Setup, _player: usize) -> Box<dyn Node> {
        Box::new(Smooth::new(
            Client {
                state: s.initial.clone(),
                frames: BTreeMap::new(),
                spare: Vec::new(),
                latest: None,
                catchup: s.options.number(&CATCHUP).clamp(1.0, 1000.0) as u32,
                buffer: s.options.number(&BUFFER).clamp(0.0, 1000.0) as u32,
                playout: (s.options.number(&PACE) != 0.0).then(Playout::new),
                arrived: 0,
            },
            s,
        ))
    }
}

struct Server {
    latest: Vec<SeqInput>,
    /// Frames not yet acknowledged by every client; `frames[i]` is frame
    /// `first + i + 1` (frame numbers are 1-based: the state after it).
    frames: VecDeque<Vec<SeqInput>>,
    /// Frames everyone has, their buffers kept for the frames to come.
    spare: Vec<Vec<SeqInput>>,
    first: u32,
    /// Per client, how many frames it holds contiguously.
    acked: Vec<u32>,
    /// Which slice of its unacknowledged frames each client gets next.
    backlog: Backlog,
    /// Playout delay, frames (0 without `adapt`: stamp the latest input).
    playout: u32,
    /// Whether each player's delay follows its inputs' lateness.
    adapt: bool,
    /// Per player, the playout delay in force, frames.
    delay: Vec<u32>,
    /// Per player, inputs waiting for their frame (playout > 0).
    pending: Vec<BTreeMap<u32, Input>>,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        if self.scheduled() {
            // Frame F runs input F − delay of each player, if it is here.
            let next = self.first + self.frames.len() as u32 + 1;
            for ((latest, pending), &delay) in self.latest.iter_mut().zip(&mut self.pending).zip(&self.delay) {
                let due = next.saturating_sub(delay);
                if let Some(input) = pending.remove(&due) {
                    *latest = SeqInput { seq: due, input };
                }
                while pending.first_key_value().is_some_and(|(&s, _)| s <= due) {
                    pending.pop_first();
                }
            }
        }
        let mut frame = self.spare.pop().unwrap_or_default();
        frame.clone_from(&self.latest);
        self.frames.push_back(frame);
        let newest = self.first + self.frames.len() as u32;
        let n = self.latest.len();
        for p in 0..n {
            // Frames `from..=to`: the backlog's items are 0-based, frames 1-based.
            let slice = self.backlog.range(p, self.acked[p], newest, MAX_BATCH);
            let (from, to) = (slice.start + 1, slice.end);
            let mut w = Writer::with_capacity(7 + (to + 1 - from) as usize * n * 7);
            w.u8(TAG_FRAMES).u32(from).u8((to + 1 - from) as u8).u8(n as u8);
            for f in from..=to {
                for si in &self.frames[(f - self.first - 1) as usize] {
                    w.u32(si.seq);
                    si.input.encode(&mut w.0);
                }
            }
            ctx.send(ctx.setup().node_of_player(p), w.finish());
        }
        // Forget what everyone has.
        let everyone = self.acked.iter().copied().min().unwrap_or(0);
        while self.first < everyone {
            let Some(frame) = self.frames.pop_front() else { break };
            self.spare.push(frame);
            self.first += 1;
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        let mut r = Reader::new(bytes);
        let (Some(TAG_INPUT), Some(ack), Some(seq), Some(input)) =
            (r.u8(), r.u32(), r.u32(), r.take(3).and_then(Input::decode))
        else {
            return;
        };
        if !r.is_done() {
            return;
        }
        let newest = self.first + self.frames.len() as u32;
        if ack <= newest {
            self.acked[p] = self.acked[p].max(ack);
        }
        if self.scheduled() {
            // Kept for its frame; a late one (its frame stamped) never runs
            // — with `adapt`, the player's delay grows so that it does (its
            // frames in between repeat the input before). Only inputs still
            // to be stamped, and not implausibly far ahead.
            let stamped = self.first + self.frames.len() as u32;
            let needed = (stamped + 1).saturating_sub(seq);
            if self.adapt && needed > self.delay[p] && needed <= MAX_PLAYOUT {
                self.delay[p] = needed;
            }
            let due = seq.checked_add(self.delay[p]);
            let pending = &mut self.pending[p];
            if due.is_some_and(|d| d > stamped && d <= stamped + MAX_PLAYOUT)
                && pending.len() < 4 * self.delay[p] as usize + 64
            {
                pending.insert(seq, input);
            }
        } else if seq > self.latest[p].seq {
            self.latest[p] = SeqInput { seq, input };
        }
    }
}

/// The longest playout delay, frames.
const MAX_PLAYOUT: u32 = 600;

impl Server {
    /// Whether frames run each player's inputs on their own frames (a
    /// playout delay) rather than the latest input.
    fn scheduled(&self) -> bool {
        self.adapt || self.playout > 0
    }
}

struct Client {
    state: State,
    /// Frames received and not yet played, by frame number.
    frames: BTreeMap<u32, Vec<SeqInput>>,
    /// Frames played, their buffers kept for the frames to come.
    spare: Vec<Vec<SeqInput>>,
    latest: Option<SeqInput>,
    catchup: u32,
    buffer: u32,
    /// With `pace`, when frames play.
    playout: Option<Playout>,
    /// Frames held contiguously as last told to the playout.
    arrived: u32,
}

impl Client {
    /// Frames held contiguously: played ones and the unbroken run after.
    fn contiguous(&self) -> u32 {
        let mut f = self.state.frame;
        while self.frames.contains_key(&(f + 1)) {
            f += 1;
        }
        f
    }
}

impl Picture for Client {
    /// The state changes only by stepping a frame.
    fn picture_stamp(&self) -> Option<u64> {
        Some(self.state.frame as u64)
    }
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(s) = ctx.sample_input() {
            self.latest = Some(s);
        }
        let contiguous = self.contiguous();
        let budget = match self.playout.as_mut() {
            // Play what is due, fast-forwarding up to `catchup` a tick.
            Some(p) => {
                for f in self.arrived.max(self.state.frame) + 1..=contiguous {
                    p.arrived(f, ctx.tick());
                }
                self.arrived = self.arrived.max(contiguous);
                let due = p.due(ctx.tick()).unwrap_or(0);
                due.saturating_sub(self.state.frame).min(self.catchup)
            }
            // Play one frame; fast-forward when more than `buffer` wait.
            None if contiguous - self.state.frame > self.buffer + 1 => self.catchup,
            None => 1,
        };
        let mut played = 0;
        while played < budget {
            let Some(inputs) = self.frames.remove(&(self.state.frame + 1)) else { break };
            ctx.game().step(&mut self.state, &inputs);
            ctx.publish_confirmed(&self.state, &inputs);
            self.spare.push(inputs);
            played += 1;
        }
        if played == 0 {
            ctx.report(Report::Stalled);
        }
        let s = self.latest.unwrap_or_default();
        let mut w = Writer::with_capacity(12);
        w.u8(TAG_INPUT).u32(self.contiguous()).u32(s.seq);
        s.input.encode(&mut w.0);
        ctx.send(ctx.setup().server(), w.finish());
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        let mut r = Reader::new(bytes);
        let (Some(TAG_FRAMES), Some(first), Some(n), Some(players)) = (r.u8(), r.u32(), r.u8(), r.u8()) else { return };
        if players as usize != ctx.setup().players {
            return;
        }
        // Each input is `seq: u32, input(3)`. The packet is checked whole
        // before anything is kept (a damaged one changes nothing); the
        // frames it repeats that are held already are not decoded again.
        let per_frame = players as usize * STAMPED_INPUT_BYTES;
        let Some(body) = r.take(n as usize * per_frame) else { return };
        if per_frame == 0 || !r.is_done() || body.chunks_exact(STAMPED_INPUT_BYTES).any(|c| stamped_input(c).is_none())
        {
            return;
        }
        for (k, frame) in body.chunks_exact(per_frame).enumerate() {
            let f = first.saturating_add(k as u32);
            if f > self.state.frame
                && f <= self.state.frame.saturating_add(ACCEPT_WINDOW)
                && !self.frames.contains_key(&f)
            {
                let mut inputs = self.spare.pop().unwrap_or_default();
                inputs.clear();
                // Every input decodes: the packet was checked whole above.
                inputs.extend(frame.chunks_exact(STAMPED_INPUT_BYTES).filter_map(stamped_input));
                self.frames.insert(f, inputs);
            }
        }
    }

    fn render(&mut self, _ctx: &RenderCtx<'_>, view: &mut View) {
        view.show_game(&self.state);
    }
}
