//! `prediction`: client-side prediction with server reconciliation, entity
//! interpolation for remote players, lag compensation and clock sync
//! (Liang & Chen §1.3–1.4, thc and antsmallant).
//!
//! **Client.** Every tick it samples its input, applies it to its own
//! predicted world at once (remote players keep their last known input),
//! remembers the move `(seq, input, own state after it)` and sends the
//! newest moves to the server. When a snapshot says the server has applied
//! moves up to `k`, the client drops them from its queue and compares the
//! server's state of its player with the state it predicted after move `k`.
//! If they differ by more than `threshold` it resets to the server's world
//! and re-simulates every pending move — a *correction*, reported with the
//! frames replayed. (Otherwise it only refreshes the remote players of its
//! predicted world.) With `smoothing` the screen eases from the old
//! predicted position to the corrected one instead of snapping.
//!
//! Remote players are shown with `remote`:
//! - `interp` (default): rendered `interp` ms behind the newest snapshot
//!   received (Source's `cl_interp`, as `snapshot` draws; see
//!   [`ArrivalClock`]), between the two snapshots around that instant;
//!   when the buffer runs dry, `dry` decides (hold, or extrapolate for at
//!   most `extrapolate-max` ms);
//! - `raw`: the newest snapshot as is;
//! - `ghost` (Liang & Chen §1.3 step 7): each remote player is a *ghost* the
//!   client simulates with the game rules and the remote's last input the
//!   server reported. When a snapshot arrives the client brings the
//!   server's state up to its own present (replaying its pending moves,
//!   remotes on their reported inputs) and moves a ghost there only if it
//!   has drifted more than `ghost-threshold`, easing over `ghost-smoothing`.
//!   Lag compensation assumes interpolated remotes, so a shooter's view is
//!   not rewound in this mode.
//!
//! **Server.** Like `server-verified` it queues each client's inputs and
//! applies one per tick, then sends every client the whole world (state and
//! last inputs). With `lag-comp=1`, a shot carries the two snapshots the
//! shooter was interpolating between and the blend; the server keeps a
//! second of positions and re-runs the hit test against that past view,
//! from where the shooter's screen drew itself (antsmallant), so what the
//! shooter saw is what counts.
//!
//! Wire (little-endian): input, client → server: `1, newest_seq: u32, tick:
//! var, n: u8, n × (input(3) [, frame_a: u32, frame_b: u32, blend: u16 if
//! SHOOT])`, the newest first (`tick`: the client tick that sent it, for the
//! input buffer's jitter measurement); pace, server → client: see
//! [`crate::support::uplink`]; snapshot, server → client: [`WorldSnapshot`]; clock sync:
//! [`ClockSync`].

use crate::support::arrival_clock::{interp_us, ArrivalClock, INTERP};
use crate::support::clock_sync::ClockSync;
use crate::support::input_queue::InputQueue;
use crate::support::interpolation::{Dry, InterpolationBuffer, Snap};
use crate::support::own_prediction::{differs, Move, MoveLog};
use crate::support::render_lerp::TickLerp;
use crate::support::snapshot::{Codec, WorldSnapshot};
use crate::support::uplink::{buffer_mode, send_paces, Pacer, INPUT_BUFFER, MAX_QUEUE, REDUNDANCY};
use crate::wire::{Reader, Writer};
use harness::contract::{
    Algorithm, Ctx, EntityView, Node, NodeId, OptionSpec, RenderCtx, Report, Setup, Topology, View,
};
use harness::game::{Input, PlayerState, SeqInput, State};
use std::collections::VecDeque;

const TAG_INPUT: u8 = 1;

const REMOTE: OptionSpec =
    OptionSpec::choice("remote", "interp", &["interp", "raw", "ghost"], "how remote players are shown");
const GHOST_THRESHOLD: OptionSpec = OptionSpec::number(
    "ghost-threshold",
    "100",
    0.0,
    1e9,
    "remote=ghost: move a ghost to the server's state when it is off by more than this, mm",
);
const GHOST_SMOOTHING: OptionSpec = OptionSpec::number(
    "ghost-smoothing",
    "100",
    0.0,
    10000.0,
    "remote=ghost: ease a ghost's correction over this long, ms",
);
const DRY: OptionSpec =
    OptionSpec::choice("dry", "hold", &["hold", "extrapolate"], "when the interpolation buffer runs dry");
const EXTRAPOLATE_MAX: OptionSpec =
    OptionSpec::number("extrapolate-max", "100", 0.0, 600000.0, "longest extrapolation, ms");
const THRESHOLD: OptionSpec = OptionSpec::number(
    "threshold",
    "0",
    0.0,
    1e9,
    "reconcile when the own state differs by more than this, mm (0: any difference)",
);
const SMOOTHING: OptionSpec =
    OptionSpec::number("smoothing", "0", 0.0, 10000.0, "ease corrections over this long on screen, ms (0: snap)");
const LAG_COMP: OptionSpec =
    OptionSpec::count("lag-comp", "1", 0, 1, "1: the server rewinds to the shooter's view for hit tests");
const CODEC: OptionSpec = OptionSpec::choice(
    "codec",
    "varint",
    &["varint", "raw"],
    "snapshot wire form, both exact: varint (the snapshot codecs' byte-aligned varints) or raw (fixed-width)",
);
const RESYNC: OptionSpec =
    OptionSpec::number("resync", "10", 0.0, 3600.0, "re-run clock sync every this many seconds (0: once)");

/// How a client brings its predicted world in line with a newer server
/// state (and whether its own prediction was wrong): [`Client::reconcile`],
/// or a negative control's flaw.
pub(crate) type Reconcile = fn(&mut Client, &mut Ctx<'_>, &State, bool);

/// The algorithm.
pub struct Prediction {
    /// Name on the command line.
    pub name: &'static str,
    /// One line for `list`.
    pub description: &'static str,
    /// Brings the adopted server state to the present.
    pub(crate) reconcile: Reconcile,
}

/// `prediction` as it should be.
pub const PREDICTION: Prediction = Prediction {
    name: "prediction",
    description:
        "client prediction + server reconciliation, interpolated remotes, lag compensation (Liang & Chen, thc, antsmallant)",
    reconcile: Client::reconcile,
};

impl Algorithm for Prediction {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[
            INTERP,
            REMOTE,
            DRY,
            EXTRAPOLATE_MAX,
            THRESHOLD,
            SMOOTHING,
            GHOST_THRESHOLD,
            GHOST_SMOOTHING,
            LAG_COMP,
            REDUNDANCY,
            INPUT_BUFFER,
            MAX_QUEUE,
            RESYNC,
            CODEC,
        ]
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        let (mode, dt) = (buffer_mode(&s.options), 1_000_000 / s.tick_hz.max(1) as i64);
        Box::new(Server {
            state: s.initial.clone(),
            queues: (0..s.players).map(|_| InputQueue::new(mode, dt)).collect(),
            applied: vec![Input::IDLE; s.players],
            history: VecDeque::new(),
            lag_comp: s.options.number(&LAG_COMP) != 0.0,
            tick: TickScratch::default(),
            received: Vec::new(),
            codec: if s.options.word(&CODEC) == "raw" { Codec::Raw } else { Codec::Varint },
        })
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        let o = &s.options;
        let dt = 1_000_000 / s.tick_hz.max(1) as i64;
        // Gaps of more than six ticks are not interpolated across.
        let mut interp = InterpolationBuffer::new(128).max_span(6 * dt);
        let spare_snap = interp.push(snap_of(&s.initial, dt, None));
        Box::new(Client {
            me: player,
            dt,
            predicted: s.initial.clone(),
            newest_frame: 0,
            known_inputs: vec![Input::IDLE; s.players],
            moves: MoveLog::new(600),
            interp,
            spare_snap,
            step_inputs: Vec::with_capacity(s.players),
            received: WorldSnapshot::default(),
            clock: ClockSync::new((o.number(&RESYNC).max(0.0) * 1e6) as i64),
            arrivals: ArrivalClock::default(),
            interp_us: interp_us(o),
            raw: o.word(&REMOTE) == "raw",
            ghost: (o.word(&REMOTE) == "ghost").then(|| Ghosts {
                threshold_um: (o.number(&GHOST_THRESHOLD).max(0.0) * 1e3) as i64,
                smoothing_us: (o.number(&GHOST_SMOOTHING).max(0.0) * 1e3) as i64,
                easing: vec![None; s.entities()],
                shown: vec![None; s.entities()],
            }),
            dry: if o.word(&DRY) == "extrapolate" {
                Dry::Extrapolate((o.number(&EXTRAPOLATE_MAX).max(0.0) * 1e3) as i64)
            } else {
                Dry::Hold
            },
            reconcile: self.reconcile,
            threshold_um: (o.number(&THRESHOLD).max(0.0) * 1e3) as i64,
            smoothing_us: (o.number(&SMOOTHING).max(0.0) * 1e3) as i64,
            smooth: None,
            own: {
                let mut l = TickLerp::new(s.entities(), dt);
                let p = &s.initial.players[player];
                l.set(i64::MIN / 2, &[EntityView { id: player as u16, x: p.x, y: p.y, z: p.z, ..Default::default() }]);
                l
            },
            shown_own: None,
            last_view: (0, 0, 0),
            redundancy: o.number(&REDUNDANCY).clamp(1.0, 32.0) as usize,
            pacer: Pacer::default(),
        })
    }
}

/// One tick's inputs into `out`: `own` for player `me`, the last reported
/// input for every other (players only: the game moves the bots itself).
fn inputs_with(out: &mut Vec<SeqInput>, known: &[Input], me: usize, own: SeqInput) {
    out.clear();
    out.extend((0..known.len()).map(|q| if q == me { own } else { SeqInput { seq: 0, input: known[q] } }));
}

/// The server time of frame `f`: the tick that produced it started at
/// `(f − 1)·dt`.
fn frame_time(frame: u32, dt: i64) -> i64 {
    (frame as i64 - 1) * dt
}

/// What interpolation keeps of `s`, in `spare`'s buffers if given (the
/// snapshot the buffer let go last: one arrives every tick).
fn snap_of(s: &State, dt: i64, spare: Option<Snap>) -> Snap {
    let mut snap = spare.unwrap_or(Snap { time_us: 0, frame: 0, pos: Vec::new(), vel: Vec::new() });
    (snap.time_us, snap.frame) = (frame_time(s.frame, dt), s.frame);
    snap.pos.clear();
    snap.pos.extend(s.players.iter().map(|p| [p.x, p.y, p.z]));
    snap.vel.clear();
    snap.vel.extend(s.players.iter().map(|p| [p.vx, p.vy, p.vz]));
    snap
}

/// A player's client.
pub(crate) struct Client {
    pub(crate) me: usize,
    dt: i64,
    /// The world as this client predicts it.
    pub(crate) predicted: State,
    newest_frame: u32,
    known_inputs: Vec<Input>,
    /// Pending moves, each with the view it was pressed on (lag compensation).
    pub(crate) moves: MoveLog<(u32, u32, u16)>,
    interp: InterpolationBuffer,
    /// The snapshot interpolation let go last, to fill with the next.
    spare_snap: Option<Snap>,
    /// The inputs of the step being simulated (kept: one every tick).
    step_inputs: Vec<SeqInput>,
    /// The snapshot being received (its buffers kept).
    received: WorldSnapshot,
    /// Estimates the server's present (its error is reported).
    clock: ClockSync,
    /// Dates the newest snapshot: remote players are drawn `interp` behind.
    arrivals: ArrivalClock,
    interp_us: i64,
    raw: bool,
    /// `remote=ghost`: the remotes are simulated in `predicted`.
    ghost: Option<Ghosts>,
    dry: Dry,
    /// Reconcile when the own state is off by more than this.
    pub(crate) threshold_um: i64,
    smoothing_us: i64,
    /// An eased correction: (offset at start, start time).
    smooth: Option<([i64; 3], i64)>,
    /// The own player, moved to each new predicted state over a tick.
    own: TickLerp,
    shown_own: Option<[i32; 3]>,
    last_view: (u32, u32, u16),
    redundancy: usize,
    reconcile: Reconcile,
    pacer: Pacer,
}

/// `remote=ghost` bookkeeping.
struct Ghosts {
    threshold_um: i64,
    smoothing_us: i64,
    /// Per player: an eased correction (offset at start, start time).
    easing: Vec<Option<([i64; 3], i64)>>,
    /// Per player: where the ghost was last drawn.
    shown: Vec<Option<[i32; 3]>>,
}

/// How far `from` (what was drawn) is from `to`'s position.
fn offset(from: [i32; 3], to: &PlayerState) -> [i64; 3] {
    [from[0] as i64 - to.x as i64, from[1] as i64 - to.y as i64, from[2] as i64 - to.z as i64]
}

/// The offset still to show of an easing that began at `start`.
fn eased(easing: &mut Option<([i64; 3], i64)>, now: i64, over_us: i64) -> [i64; 3] {
    match *easing {
        Some((off, start)) if now - start < over_us => {
            let left = over_us - (now - start);
            off.map(|d| d * left / over_us)
        }
        _ => {
            *easing = None;
            [0; 3]
        }
    }
}

impl Client {
    /// Steps the predicted world with `own` for this player and the last
    /// reported input of every other.
    fn step_predicted(&mut self, ctx: &Ctx<'_>, own: SeqInput) {
        inputs_with(&mut self.step_inputs, &self.known_inputs, self.me, own);
        ctx.game().step(&mut self.predicted, &self.step_inputs);
    }

    /// The predicted own player is current from `now` on.
    fn show_own(&mut self, now: i64) {
        let p = &self.predicted.players[self.me];
        self.own.set(now, &[EntityView { id: self.me as u16, x: p.x, y: p.y, z: p.z, seq: p.last_seq, frame: 0 }]);
    }

    /// Brings the predicted world in line with the server's state `s`:
    /// on a misprediction, adopts it and replays the pending moves; else
    /// refreshes the other players from it.
    fn reconcile(&mut self, ctx: &mut Ctx<'_>, s: &State, mispredicted: bool) {
        if mispredicted {
            let before = self.predicted.players[self.me];
            self.predicted.clone_from(s);
            let (known, me, inputs) = (&self.known_inputs, self.me, &mut self.step_inputs);
            let replayed = self.moves.replay(&mut self.predicted, me, |w, own| {
                inputs_with(inputs, known, me, own);
                ctx.game().step(w, inputs);
            });
            ctx.report(Report::Correction);
            ctx.report(Report::Resimulated(replayed));
            self.show_own(ctx.now());
            let after = self.predicted.players[self.me];
            if self.smoothing_us > 0 {
                let shown = self.shown_own.unwrap_or([before.x, before.y, before.z]);
                self.smooth = Some((offset(shown, &after), ctx.now()));
            }
        } else if self.ghost.is_some() {
            // Own prediction holds; bring the server's world to the present
            // to judge the ghosts against it.
            let mut present = s.clone();
            for m in self.moves.pending() {
                let own = SeqInput { seq: m.seq, input: m.input };
                inputs_with(&mut self.step_inputs, &self.known_inputs, self.me, own);
                ctx.game().step(&mut present, &self.step_inputs);
            }
            for q in 0..present.players.len() {
                if q != self.me {
                    self.predicted.players[q] = present.players[q];
                }
            }
        } else {
            // Own prediction holds: refresh the others from the server.
            for (q, p) in s.players.iter().enumerate() {
                if q != self.me {
                    self.predicted.players[q] = *p;
                }
            }
        }
    }

    fn on_snapshot(&mut self, ctx: &mut Ctx<'_>, snap: &WorldSnapshot) {
        let s = &snap.state;
        self.spare_snap = self.interp.push(snap_of(s, self.dt, self.spare_snap.take()));
        self.arrivals.on_frame(s.frame, self.dt, ctx.now());
        if s.frame <= self.newest_frame {
            return; // late: already reconciled against something newer
        }
        self.newest_frame = s.frame;
        self.known_inputs.clone_from(&snap.inputs);
        let ack = s.players[self.me].last_seq;
        let server_own = s.players[self.me];
        let mispredicted =
            self.moves.acknowledge(ack, &server_own, &self.predicted.players[self.me], self.threshold_um);
        let ghosts_before = self.ghost.as_ref().map(|_| self.predicted.players.clone());
        (self.reconcile)(self, ctx, s, mispredicted);
        if let (Some(g), Some(before)) = (self.ghost.as_mut(), ghosts_before) {
            // `predicted` now holds the server's present; a ghost close
            // enough keeps its own course (with the server's input count).
            let now = ctx.now();
            for (q, old) in before.into_iter().enumerate() {
                if q == self.me {
                    continue;
                }
                let fresh = self.predicted.players[q];
                if differs(&old, &fresh, g.threshold_um) {
                    if g.smoothing_us > 0 {
                        let from = g.shown[q].unwrap_or([old.x, old.y, old.z]);
                        g.easing[q] = Some((offset(from, &fresh), now));
                    }
                } else {
                    self.predicted.players[q] = PlayerState { last_seq: fresh.last_seq, ..old };
                }
            }
        }
    }

    fn input_packet(&self, tick: u32) -> Vec<u8> {
        let n = self.moves.pending().len().min(self.pacer.redundancy(self.redundancy));
        let newest = self.moves.pending().next_back().map_or(0, |m| m.seq);
        let mut w = Writer::with_capacity(9 + 13 * n);
        w.u8(TAG_INPUT).u32(newest).var(tick).u8(n as u8);
        for m in self.moves.pending().rev().take(n) {
            m.input.encode(&mut w.0);
            if m.input.held(Input::SHOOT) {
                w.u32(m.extra.0).u32(m.extra.1).u16(m.extra.2);
            }
        }
        w.finish()
    }
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let server = ctx.setup().server();
        if let Some(msg) = self.clock.poll(ctx.now()) {
            ctx.send(server, msg);
        }
        // Usually one sample; none or two when the server's buffer asks.
        let mut sampled = false;
        for _ in 0..self.pacer.samples() {
            let Some(s) = ctx.sample_input() else { return };
            self.step_predicted(ctx, s);
            let after = self.predicted.players[self.me];
            self.moves.push(Move { seq: s.seq, input: s.input, extra: self.last_view, after });
            sampled = true;
        }
        if sampled {
            self.show_own(ctx.now());
        }
        let packet = self.input_packet(ctx.tick() as u32);
        ctx.send(server, packet);
        if let Some(o) = self.clock.offset() {
            ctx.report(Report::ClockOffset { estimate_us: o });
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        if self.clock.on_packet(ctx.now(), bytes) || self.pacer.on_packet(bytes) {
            return;
        }
        // Decoded into a kept snapshot (one arrives every tick).
        let mut snap = std::mem::take(&mut self.received);
        if snap.decode_into(bytes, ctx.setup().players) && snap.state.players.len() == self.predicted.players.len() {
            self.on_snapshot(ctx, &snap);
        }
        self.received = snap;
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        // The own player's one entity, drawn and taken back to be eased.
        self.own.render(ctx.now(), view);
        let me = view.entities.pop().expect("the own player is drawn");
        let mut own = [me.x, me.y, me.z];
        let off = eased(&mut self.smooth, ctx.now(), self.smoothing_us);
        for (o, d) in own.iter_mut().zip(off) {
            *o = (*o as i64 + d) as i32;
        }
        self.shown_own = Some(own);
        view.entities.push(EntityView { id: self.me as u16, x: own[0], y: own[1], z: own[2], seq: me.seq, frame: 0 });
        if let Some(g) = self.ghost.as_mut() {
            for (q, p) in self.predicted.players.iter().enumerate() {
                if q == self.me {
                    continue;
                }
                let off = eased(&mut g.easing[q], ctx.now(), g.smoothing_us);
                let at = [p.x as i64 + off[0], p.y as i64 + off[1], p.z as i64 + off[2]].map(|v| v as i32);
                g.shown[q] = Some(at);
                view.entities.push(EntityView {
                    id: q as u16,
                    x: at[0],
                    y: at[1],
                    z: at[2],
                    seq: p.last_seq,
                    frame: 0,
                });
            }
            return;
        }
        let t = match self.raw {
            false => self.arrivals.draw_time(ctx.now(), self.interp_us),
            true => None,
        };
        // The snapshots around the instant, found once for every remote.
        let (instant, dry) = match t {
            Some(t) => (self.interp.at(t), self.dry),
            None => (self.interp.newest().and_then(|n| self.interp.at(n.time_us)), Dry::Hold),
        };
        for q in 0..self.predicted.players.len() {
            if q == self.me {
                continue;
            }
            let sample = instant.as_ref().and_then(|i| i.sample(q, dry));
            if let Some(s) = sample {
                self.last_view = s.view;
                view.entities.push(EntityView {
                    id: q as u16,
                    x: s.pos[0],
                    y: s.pos[1],
                    z: s.pos[2],
                    seq: 0,
                    frame: s.frame,
                });
            }
        }
    }
}

/// What a queued input carries.
#[derive(Clone, Copy, Debug)]
struct Queued {
    input: Input,
    view: Option<(u32, u32, u16)>,
}

struct Server {
    state: State,
    queues: Vec<InputQueue<Queued>>,
    applied: Vec<Input>,
    /// Positions of the last second of frames, for lag compensation.
    history: VecDeque<(u32, Vec<[i32; 3]>)>,
    lag_comp: bool,
    /// A tick's working buffers, kept between ticks.
    tick: TickScratch,
    /// The inputs of the packet being read (kept between packets).
    received: Vec<Queued>,
    codec: Codec,
}

/// What a server tick works in: the inputs it applies, the views they were
/// pressed on, and each player's shots and position before the step.
#[derive(Default)]
struct TickScratch {
    inputs: Vec<SeqInput>,
    views: Vec<Option<(u32, u32, u16)>>,
    shots_before: Vec<u32>,
    stood: Vec<[i32; 3]>,
}

/// Reads an input packet: the newest sequence number and the client's tick,
/// its moves into `out` (cleared first).
fn decode_inputs(bytes: &[u8], out: &mut Vec<Queued>) -> Option<(u32, u32)> {
    out.clear();
    let mut r = Reader::new(bytes);
    if r.u8()? != TAG_INPUT {
        return None;
    }
    let newest = r.u32()?;
    let tick = r.var()?;
    let n = r.u8()? as usize;
    for _ in 0..n {
        let input = Input::decode(r.take(3)?)?;
        let view = if input.held(Input::SHOOT) { Some((r.u32()?, r.u32()?, r.u16()?)) } else { None };
        out.push(Queued { input, view });
    }
    (r.is_done() && newest as usize >= n).then_some((newest, tick))
}

impl Server {
    fn past_positions(&self, view: (u32, u32, u16)) -> Option<Vec<[i32; 3]>> {
        let find = |f: u32| self.history.iter().find(|(g, _)| *g == f).map(|(_, p)| p);
        let (a, b) = (find(view.0)?, find(view.1)?);
        let k = view.2 as i64;
        Some(
            a.iter()
                .zip(b)
                .map(|(pa, pb)| {
                    let l = |x: i32, y: i32| (x as i64 + (y as i64 - x as i64) * k / 65535) as i32;
                    [l(pa[0], pb[0]), l(pa[1], pb[1]), l(pa[2], pb[2])]
                })
                .collect(),
        )
    }
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let n = self.state.players.len();
        let mut scratch = std::mem::take(&mut self.tick);
        let TickScratch { inputs, views, shots_before, stood } = &mut scratch;
        inputs.clear();
        inputs.resize(n, SeqInput::default());
        views.clear();
        views.resize(n, None);
        for (p, q) in self.queues.iter_mut().enumerate() {
            if let Some((seq, item)) = q.for_tick() {
                inputs[p] = SeqInput { seq: *seq, input: item.input };
                views[p] = item.view;
                self.applied[p] = item.input;
            }
        }
        shots_before.clear();
        shots_before.extend(self.state.players.iter().map(|p| p.shots));
        // Where each shooter stood before this step: where its own screen
        // drew it when it pressed (render interpolation draws the newest
        // predicted step a tick later).
        stood.clear();
        stood.extend(self.state.players.iter().map(|p| [p.x, p.y, p.z]));
        ctx.game().step(&mut self.state, inputs);
        send_paces(ctx, &mut self.queues);
        if self.lag_comp {
            for p in 0..n {
                let fired = self.state.players[p].shots > shots_before[p];
                let Some(past) = views[p].filter(|_| fired).and_then(|v| self.past_positions(v)) else { continue };
                // The shooter where its screen drew it; everyone else where
                // the shooter saw them.
                let mut rewound = self.state.players.clone();
                for (q, pos) in past.iter().enumerate() {
                    let pos = if q == p { stood[p] } else { *pos };
                    (rewound[q].x, rewound[q].y, rewound[q].z) = (pos[0], pos[1], pos[2]);
                }
                let humans = ctx.game().humans(&self.state);
                let target = ctx.game().hitscan(&rewound[..humans], p, inputs[p].input);
                let pl = &mut self.state.players[p];
                let was_hit = pl.last_target != PlayerState::NO_TARGET;
                pl.hits = pl.hits - was_hit as u32 + target.is_some() as u32;
                pl.last_target = target.map_or(PlayerState::NO_TARGET, |t| t as u8);
            }
        }
        self.tick = scratch;
        // The oldest second's positions make room for the newest.
        let mut positions =
            if self.history.len() >= ctx.setup().tick_hz as usize { self.history.pop_front() } else { None }
                .map_or_else(Vec::new, |(_, v)| v);
        positions.clear();
        positions.extend(self.state.players.iter().map(|p| [p.x, p.y, p.z]));
        self.history.push_back((self.state.frame, positions));
        while self.history.len() > ctx.setup().tick_hz as usize {
            self.history.pop_front();
        }
        ctx.publish_authority(&self.state);
        let msg = WorldSnapshot::encode(self.codec, &self.state, &self.applied);
        ctx.send_to_players(msg);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        if let Some(reply) = ClockSync::answer(ctx.now(), bytes) {
            ctx.send(from, reply);
            return;
        }
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        let mut items = std::mem::take(&mut self.received);
        if let Some((newest, tick)) = decode_inputs(bytes, &mut items) {
            self.queues[p].arrived(tick, ctx.now());
            for (k, item) in items.iter().enumerate().rev() {
                self.queues[p].offer(newest - k as u32, *item);
            }
        }
        self.received = items;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_packets_round_trip_and_reject_garbage() {
        let mut c_moves = VecDeque::new();
        for (seq, b) in [(1, Input::UP), (2, Input::SHOOT | Input::LEFT), (3, Input::DOWN)] {
            c_moves.push_back(Move {
                seq,
                input: Input { buttons: b, aim_x: 1, aim_y: 0 },
                extra: (7, 8, 900),
                after: PlayerState::default(),
            });
        }
        let w = {
            let n = 3;
            let mut w = Writer::default();
            w.u8(TAG_INPUT).u32(3).var(9).u8(n);
            for m in c_moves.iter().rev() {
                m.input.encode(&mut w.0);
                if m.input.held(Input::SHOOT) {
                    w.u32(m.extra.0).u32(m.extra.1).u16(m.extra.2);
                }
            }
            w.finish()
        };
        let mut items = vec![Queued { input: Input::IDLE, view: None }; 5];
        let (newest, tick) = decode_inputs(&w, &mut items).unwrap();
        assert_eq!((newest, tick), (3, 9));
        assert_eq!(items.len(), 3, "the buffer is cleared first");
        assert_eq!(items[1].view, Some((7, 8, 900)));
        assert!(items[0].view.is_none());
        for cut in 0..w.len() {
            assert!(decode_inputs(&w[..cut], &mut items).is_none());
        }
    }
}
