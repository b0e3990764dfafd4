//! `dead-reckoning`: send an entity's state only when the receivers'
//! extrapolation of it has drifted too far (Wei and antsmallant); and
//! `periodic`, the non-dead-reckoned variant: every entity's position,
//! heading and speed at a low fixed rate (about once a second, as Wei
//! describes WoW), clients moving each entity along its last heading and
//! correcting toward each update — so a turn (or a tree in the way) is
//! learned up to a period late.
//!
//! The server keeps, per entity, the last state it sent — position,
//! velocity, frame — and extrapolates it exactly as the clients will. After
//! each step it compares every entity with that extrapolation and sends an
//! update only for those off by more than `threshold` (and for everyone at
//! least every `heartbeat`, which bounds the damage of a lost update the
//! server cannot know about). Clients extrapolate each entity from its
//! newest update and, when a new update arrives, blend from the old
//! extrapolation to the new one over `blend` ms (projective velocity
//! blending) instead of jumping — unless the two are more than `teleport`
//! apart (after a gap in the stream), when the entity jumps. The threshold
//! trades bandwidth for divergence.
//!
//! Extrapolation follows the world ([`Coast`]): an entity coasts along its
//! velocity, stops at walls and bounds, comes down from jumps, and stops
//! coasting after `extrapolate-max` (dead reckoning: 1 s, the heartbeat;
//! periodic: 5 s, Wei's freeze of a silent player). The server's test
//! uses the same rule, so a copy stopped by the cap or a wall is refreshed.
//!
//! The own player is not dead-reckoned (antsmallant: "everything except the
//! local player, who is predicted and reconciled"; Wei's WoW lets its
//! client move first). The client moves it at once on its own inputs and
//! reconciles with the server's own-state message, sent to each client
//! `own-rate` times a second ([`OwnPlayer`]). WoW's client is authoritative
//! over its own movement; the variant built here keeps the server
//! authoritative, as every other client/server algorithm in the suite does,
//! so the numbers compare.
//!
//! Dead reckoning extrapolates by design, so it waives the `remote-on-path`
//! contract (its display leaves the authority's path between updates); it
//! must still converge once inputs stop.
//!
//! Wire: input as `server-verified` (`1, newest_seq: u32, tick: var, n: u8,
//! n × input(3)`); updates, server → clients: `50, frame: u32, n: var, n × (id:
//! var, x, y, z, vx, vy, vz: i32)`; own state, server → each client:
//! [`encode_own`](crate::support::own_prediction::encode_own). (Views name the update's frame; no input sequence
//! numbers travel.)

use crate::support::arrival_clock::ArrivalClock;
use crate::support::coast::{self, distance, Coast};
use crate::support::own_prediction::{decode_own, OwnPlayer, OwnStates, OWN_RATE, PLAUSIBLE_LEAD};
use crate::support::uplink::{InputUplink, ServerInputs, INPUT_BUFFER, MAX_QUEUE, REDUNDANCY};
use crate::wire::{Reader, Writer};
use harness::contract::{Algorithm, Ctx, EntityView, Node, NodeId, OptionSpec, RenderCtx, Setup, Topology, View};
use harness::game::{PlayerState, State};

const TAG_UPDATE: u8 = 50;

const THRESHOLD: OptionSpec = OptionSpec::number(
    "threshold",
    "0.05",
    0.0,
    100000.0,
    "send an entity when the extrapolation is off by more than this, m",
);
const BLEND: OptionSpec = OptionSpec::number(
    "blend",
    "100",
    0.0,
    60000.0,
    "blend from the old extrapolation to the new one over this long, ms",
);
const HEARTBEAT: OptionSpec =
    OptionSpec::number("heartbeat", "1000", 1.0, 3600000.0, "send every entity at least this often, ms");

const EXTRAPOLATE_MAX: OptionSpec = coast::extrapolate_max("stop coasting an entity this long after its update, ms");
const TELEPORT: OptionSpec = coast::teleport("jump instead of blending when the new update is this far off, m");

const RATE: OptionSpec = OptionSpec::number("rate", "1", 0.1, 1000.0, "periodic: updates per second");
const PERIODIC_BLEND: OptionSpec =
    OptionSpec::number("blend", "300", 0.0, 60000.0, "correct toward each update over this long, ms");
const PERIODIC_EXTRAPOLATE_MAX: OptionSpec = OptionSpec::number(
    "extrapolate-max",
    "5000",
    0.0,
    600000.0,
    "stop coasting an entity this long after its update, ms (Wei freezes a silent player after 5 s)",
);

/// The algorithm: threshold-driven (`dead-reckoning`) or periodic.
pub struct DeadReckoning {
    /// Name on the command line.
    pub name: &'static str,
    /// Send everyone at a fixed rate instead of on drift.
    pub periodic: bool,
}

/// `dead-reckoning`.
pub const DEAD_RECKONING: DeadReckoning = DeadReckoning { name: "dead-reckoning", periodic: false };
/// `periodic`.
pub const PERIODIC: DeadReckoning = DeadReckoning { name: "periodic", periodic: true };

impl Algorithm for DeadReckoning {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        if self.periodic {
            "position, heading and speed of everyone about once a second; clients move remote copies along (stopping at walls) and correct; own player predicted (WoW, Wei)"
        } else {
            "updates only when the shared, world-aware extrapolation drifts past a threshold; clients blend old and new; own player predicted (Wei, antsmallant)"
        }
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        if self.periodic {
            &[RATE, PERIODIC_BLEND, PERIODIC_EXTRAPOLATE_MAX, TELEPORT, OWN_RATE, REDUNDANCY, INPUT_BUFFER, MAX_QUEUE]
        } else {
            &[THRESHOLD, BLEND, HEARTBEAT, EXTRAPOLATE_MAX, TELEPORT, OWN_RATE, REDUNDANCY, INPUT_BUFFER, MAX_QUEUE]
        }
    }
    fn waived_contracts(&self) -> &'static [(&'static str, &'static str)] {
        if self.periodic {
            &[
                ("remote-on-path", "extrapolates between updates by design"),
                (
                    "honest-names",
                    "blends each 1 Hz update in over 300 ms from the copy it replaces, naming the update's frame: a quarter of its located pictures lag their names (its latency is held to the picture all the same)",
                ),
            ]
        } else {
            &[
                ("remote-on-path", "extrapolates between updates by design"),
                (
                    "honest-names",
                    "blends each update in over `blend` (100 ms) from the copy it replaces, naming the update's frame: where everyone sets off at once a fifth of its located pictures lag their names (its latency is held to the picture all the same)",
                ),
            ]
        }
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        let o = &s.options;
        let dt = 1_000_000 / s.tick_hz.max(1) as i64;
        Box::new(Server {
            state: s.initial.clone(),
            inputs: ServerInputs::from_setup(s),
            sent: s.initial.players.iter().map(|p| Model::of(p, 0, dt)).collect(),
            cap_us: self.cap_us(s),
            own_states: OwnStates::from_setup(s),
            threshold_um: if self.periodic { i64::MAX } else { (o.number(&THRESHOLD).max(0.0) * 1e6) as i64 },
            heartbeat_frames: if self.periodic {
                (s.tick_hz as f64 / o.number(&RATE).clamp(0.01, 1000.0)).round().max(1.0) as u32
            } else {
                ((o.number(&HEARTBEAT).max(1.0) * 1e3) as i64 / dt).max(1) as u32
            },
            dt,
        })
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        let dt = 1_000_000 / s.tick_hz.max(1) as i64;
        Box::new(Client {
            me: player,
            dt,
            models: s.initial.players.iter().map(|p| (Model::of(p, 0, dt), None)).collect(),
            clock: ArrivalClock::default(),
            blend_us: (s.options.number(if self.periodic { &PERIODIC_BLEND } else { &BLEND }).max(0.0) * 1e3) as i64,
            cap_us: self.cap_us(s),
            teleport_um: (s.options.number(&TELEPORT).max(0.0) * 1e6) as i64,
            drawn: vec![None; s.entities()],
            shown: vec![None; s.entities()],
            own: OwnPlayer::new(&s.initial, player, dt),
            uplink: InputUplink::from_options(&s.options),
            updates: Vec::new(),
            others: Vec::with_capacity(s.players),
        })
    }
}

impl DeadReckoning {
    /// How long an entity coasts after its update, µs.
    fn cap_us(&self, s: &Setup) -> i64 {
        let spec = if self.periodic { &PERIODIC_EXTRAPOLATE_MAX } else { &EXTRAPOLATE_MAX };
        (s.options.number(spec).clamp(0.0, 3.6e6) * 1e3) as i64
    }
}

/// What a client knows of an entity and extrapolates from: the frame of
/// its update (whose time is `(frame − 1)·dt` on the server clock) and
/// the coast it follows from there by the world's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Model {
    /// The frame of the update.
    pub(crate) frame: u32,
    /// Where the update said the entity was and how it moved.
    pub(crate) coast: Coast,
}

impl Model {
    fn of(p: &PlayerState, frame: u32, dt: i64) -> Model {
        let coast = Coast::new((frame as i64 - 1) * dt, [p.x, p.y, p.z], [p.vx, p.vy, p.vz]);
        Model { frame, coast }
    }
}

struct Server {
    state: State,
    inputs: ServerInputs,
    sent: Vec<Model>,
    cap_us: i64,
    own_states: OwnStates,
    threshold_um: i64,
    heartbeat_frames: u32,
    dt: i64,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, self.inputs.for_tick());
        self.inputs.send_paces(ctx);
        ctx.publish_authority(&self.state);
        let f = self.state.frame;
        let now = (f as i64 - 1) * self.dt;
        let mut body = Writer::with_capacity(64);
        let mut n = 0u32;
        for (i, p) in self.state.players.iter().enumerate() {
            let seen = self.sent[i].coast.at(ctx.game(), now, self.cap_us, true);
            let off = distance([p.x, p.y, p.z], seen);
            let stale = f.saturating_sub(self.sent[i].frame) >= self.heartbeat_frames;
            if off > self.threshold_um || stale {
                let m = Model::of(p, f, self.dt);
                let w = &mut body;
                w.var(i as u32);
                for v in m.coast.pos.iter().chain(&m.coast.vel) {
                    w.i32(*v);
                }
                self.sent[i] = m;
                n += 1;
            }
        }
        self.own_states.send(ctx, &self.state);
        if n > 0 {
            let mut w = Writer::with_capacity(10 + body.0.len());
            w.u8(TAG_UPDATE).u32(f).var(n);
            w.0.extend_from_slice(&body.0);
            ctx.send_to_players(w.finish());
        }
        // The body's buffer goes back to the pool the packets come from.
        harness::buffers::give(body.0);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        self.inputs.receive(p, ctx.now(), bytes, |_| Some(()));
    }
}

/// An update's entities into `out` (cleared first): `None` unless the
/// packet is a whole update; else its frame.
pub(crate) fn read_update(bytes: &[u8], dt: i64, out: &mut Vec<(usize, Model)>) -> Option<u32> {
    out.clear();
    let mut r = Reader::new(bytes);
    let (Some(TAG_UPDATE), Some(frame), Some(n)) = (r.u8(), r.u32(), r.count(25)) else { return None };
    for _ in 0..n {
        let id = r.var()?;
        let mut v = [0i32; 6];
        for x in v.iter_mut() {
            *x = r.i32()?;
        }
        let coast = Coast::new((frame as i64 - 1) * dt, [v[0], v[1], v[2]], [v[3], v[4], v[5]]);
        out.push((id as usize, Model { frame, coast }));
    }
    r.is_done().then_some(frame)
}

/// What a [`Client::remote_at`] answer depends on besides the models.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Asked {
    t: i64,
    now: i64,
    drawn: Option<[i32; 3]>,
}

struct Client {
    me: usize,
    dt: i64,
    /// Per entity: the newest model, and the one it replaced with the
    /// local time the blend started.
    models: Vec<(Model, Option<(Model, i64)>)>,
    /// Server time from the least-delayed arrival.
    clock: ArrivalClock,
    blend_us: i64,
    cap_us: i64,
    teleport_um: i64,
    /// Per entity, where it was last drawn (a blend moves on from there
    /// by the world's rules, never through a wall).
    drawn: Vec<Option<[i32; 3]>>,
    /// Per entity, the last [`Client::remote_at`] answer and what it was
    /// asked with: a render at its tick's instant draws what the tick
    /// placed (the same question, so the same answer) without coasting
    /// it again.
    shown: Vec<Option<(Asked, [i32; 3])>>,
    own: OwnPlayer,
    uplink: InputUplink,
    /// The update being read (the buffer kept).
    updates: Vec<(usize, Model)>,
    /// The other players as this screen has them, `(id, position,
    /// velocity)`, gathered each tick (the buffer kept).
    others: Vec<(usize, [i32; 3], [i32; 3])>,
}

impl Client {
    /// Takes an update of `frame`'s entities (read into `updates`, which
    /// it empties).
    fn apply(&mut self, ctx: &Ctx<'_>, frame: u32, updates: &mut Vec<(usize, Model)>) {
        self.clock.on_frame(frame, self.dt, ctx.now());
        let (t, now) = (ctx.now() + self.clock.offset().unwrap_or(0), ctx.now());
        for (id, mut m) in updates.drain(..) {
            if id >= self.models.len() || m.frame <= self.models[id].0.frame {
                continue;
            }
            // Blend from what is shown now, unless it is too far off.
            let shown = self.remote_at(ctx.game(), id, t, now);
            let far = distance(shown, m.coast.at(ctx.game(), t, self.cap_us, true)) > self.teleport_um;
            let old = self.models[id].0;
            self.models[id] = (m, (!far).then_some((old, now)));
            self.shown[id] = None;
        }
    }

    /// Where remote entity `i` is shown at server time `t`, local time `now`.
    /// A function of its arguments, `drawn[i]` and the entity's models
    /// (coasting is a function of time; see [`Coast`]), so an answer is
    /// kept until they change.
    fn remote_at(&mut self, game: &harness::game::Game, i: usize, t: i64, now: i64) -> [i32; 3] {
        let asked = Asked { t, now, drawn: self.drawn[i] };
        if let Some((_, pos)) = self.shown[i].filter(|(a, _)| *a == asked) {
            return pos;
        }
        let pos = self.coast_remote(game, i, t, now);
        self.shown[i] = Some((asked, pos));
        pos
    }

    /// [`Client::remote_at`] worked out: the newest model's coast, blended
    /// from the one it replaced while the blend lasts.
    fn coast_remote(&mut self, game: &harness::game::Game, i: usize, t: i64, now: i64) -> [i32; 3] {
        let (m, old) = &mut self.models[i];
        let new = m.coast.at(game, t, self.cap_us, true);
        match old {
            Some((o, since)) if now - *since < self.blend_us => {
                let k = (now - *since).max(0);
                let was = o.coast.at(game, t, self.cap_us, true);
                let want = std::array::from_fn(|d| {
                    (was[d] as i64 + (new[d] as i64 - was[d] as i64) * k / self.blend_us) as i32
                });
                match self.drawn[i] {
                    Some(from) => game.slide(from, want),
                    _ => want,
                }
            }
            _ => {
                *old = None;
                new
            }
        }
    }
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        if ctx.player().is_none() {
            return;
        }
        let samples = self.uplink.sample(ctx);
        // The own player collides with the others where this screen has them.
        let (t, now) = (ctx.now() + self.clock.offset().unwrap_or(0), ctx.now());
        let mut others = std::mem::take(&mut self.others);
        others.clear();
        let me = self.me;
        for q in (0..ctx.setup().players).filter(|&q| q != me) {
            let at = self.remote_at(ctx.game(), q, t, now);
            others.push((q, at, self.models[q].0.coast.velocity(t, self.cap_us)));
        }
        self.own.place_others(ctx, others.iter().copied());
        self.others = others;
        self.own.play(ctx, &mut self.uplink, samples);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        if self.uplink.pacer.on_packet(bytes) {
            return;
        }
        if let Some((frame, own)) = decode_own(bytes) {
            self.own.on_server(ctx, frame, own);
            return;
        }
        // Read into a kept buffer (an update arrives about every tick).
        let mut updates = std::mem::take(&mut self.updates);
        let plausible = |&frame: &u32| frame as u64 <= ctx.tick() + PLAUSIBLE_LEAD;
        if let Some(frame) = read_update(bytes, self.dt, &mut updates).filter(plausible) {
            self.apply(ctx, frame, &mut updates);
        }
        self.updates = updates;
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        let (t, now) = (ctx.now() + self.clock.offset().unwrap_or(0), ctx.now());
        self.own.render(now, view);
        for i in 0..self.models.len() {
            if i == self.me {
                continue;
            }
            let pos = self.remote_at(ctx.game(), i, t, now);
            self.drawn[i] = Some(pos);
            view.entities.push(EntityView {
                id: i as u16,
                x: pos[0],
                y: pos[1],
                z: pos[2],
                seq: 0,
                frame: self.models[i].0.frame,
            });
        }
    }
}
