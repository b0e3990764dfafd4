//! `dead-reckoning`: send an entity's state only when the receivers'
//! extrapolation of it has drifted too far (seeds 001 and 004); and
//! `periodic`, the non-dead-reckoned variant: every entity's position,
//! heading and speed at a low fixed rate (about once a second, as seed 001
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
//! newest update along its velocity and, when a new update arrives, blend
//! from the old extrapolation to the new one over `blend` ms (projective
//! velocity blending) instead of jumping. The threshold trades bandwidth
//! for divergence.
//!
//! Dead reckoning extrapolates by design, so it waives the `remote-on-path`
//! contract (its display leaves the authority's path between updates); it
//! must still converge once inputs stop.
//!
//! Wire: input as `server-verified` (`1, newest_seq: u32, n: u8, n ×
//! input(3)`); updates, server → clients: `50, frame: u32, n: u8, n × (id:
//! u8, x, y, z, vx, vy, vz: i32, seq: u32)`.

use crate::support::uplink::{InputUplink, ServerInputs};
use crate::wire::{Reader, Writer};
use harness::contract::{Algorithm, Ctx, EntityView, Node, NodeId, OptionSpec, RenderCtx, Setup, Topology, View};
use harness::game::{PlayerState, State};

const TAG_UPDATE: u8 = 50;

const THRESHOLD: OptionSpec =
    OptionSpec::number("threshold", "0.05", "send an entity when the extrapolation is off by more than this, m");
const BLEND: OptionSpec =
    OptionSpec::number("blend", "100", "blend from the old extrapolation to the new one over this long, ms");
const HEARTBEAT: OptionSpec = OptionSpec::number("heartbeat", "1000", "send every entity at least this often, ms");
const MAX_QUEUE: OptionSpec = OptionSpec::number("max-queue", "2", "server input queue per client");

const RATE: OptionSpec = OptionSpec::number("rate", "1", "periodic: updates per second");
const PERIODIC_BLEND: OptionSpec = OptionSpec::number("blend", "300", "correct toward each update over this long, ms");

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
            "position, heading and speed of everyone about once a second; clients move along and correct (WoW, seed 001)"
        } else {
            "updates only when the shared extrapolation drifts past a threshold; clients blend old and new (seeds 001, 004)"
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
            &[RATE, PERIODIC_BLEND, MAX_QUEUE]
        } else {
            &[THRESHOLD, BLEND, HEARTBEAT, MAX_QUEUE]
        }
    }
    fn waived_contracts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("remote-on-path", "extrapolates between updates by design"),
            ("on-map", "extrapolation ignores walls and bounds (to be made world-aware)"),
        ]
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        let o = &s.options;
        let dt = 1_000_000 / s.tick_hz.max(1) as i64;
        Box::new(Server {
            state: s.initial.clone(),
            inputs: ServerInputs::new(s.players, o.number(&MAX_QUEUE).clamp(1.0, 1000.0) as usize),
            sent: s.initial.players.iter().map(|p| Model::of(p, 0)).collect(),
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
        let _ = player;
        let dt = 1_000_000 / s.tick_hz.max(1) as i64;
        Box::new(Client {
            dt,
            models: s.initial.players.iter().map(|p| (Model::of(p, 0), None)).collect(),
            offset: None,
            blend_us: (s.options.number(if self.periodic { &PERIODIC_BLEND } else { &BLEND }).max(0.0) * 1e3) as i64,
            uplink: InputUplink::new(3),
        })
    }
}

/// What receivers extrapolate from: a state at a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Model {
    frame: u32,
    pos: [i32; 3],
    vel: [i32; 3],
    seq: u32,
}

impl Model {
    fn of(p: &PlayerState, frame: u32) -> Model {
        Model { frame, pos: [p.x, p.y, p.z], vel: [p.vx, p.vy, p.vz], seq: p.last_seq }
    }

    /// Position at server time `t_us` (the frame's time is `(frame−1)·dt`).
    fn at(&self, t_us: i64, dt: i64) -> [i64; 3] {
        let since = (t_us - (self.frame as i64 - 1) * dt).max(0);
        let mut p: [i64; 3] = std::array::from_fn(|k| self.pos[k] as i64 + self.vel[k] as i64 * since / 1_000_000);
        p[2] = p[2].max(0);
        p
    }
}

fn dist(a: [i64; 3], b: [i64; 3]) -> i64 {
    let d: i64 = (0..3).map(|k| (a[k] - b[k]).pow(2)).sum();
    (d as f64).sqrt() as i64
}

struct Server {
    state: State,
    inputs: ServerInputs,
    sent: Vec<Model>,
    threshold_um: i64,
    heartbeat_frames: u32,
    dt: i64,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, self.inputs.for_tick());
        ctx.publish_authority(&self.state);
        let f = self.state.frame;
        let now = (f as i64 - 1) * self.dt;
        let mut body = Writer::with_capacity(64);
        let mut n = 0u32;
        for (i, p) in self.state.players.iter().enumerate() {
            let truth = [p.x as i64, p.y as i64, p.z as i64];
            let off = dist(truth, self.sent[i].at(now, self.dt));
            let stale = f.saturating_sub(self.sent[i].frame) >= self.heartbeat_frames;
            if off > self.threshold_um || stale {
                let m = Model::of(p, f);
                let w = &mut body;
                w.var(i as u32);
                for v in m.pos.iter().chain(&m.vel) {
                    w.i32(*v);
                }
                w.u32(m.seq);
                self.sent[i] = m;
                n += 1;
            }
        }
        if n > 0 {
            let mut w = Writer::with_capacity(10 + body.0.len());
            w.u8(TAG_UPDATE).u32(f).var(n);
            w.0.extend_from_slice(&body.0);
            ctx.send_to_players(w.finish());
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        self.inputs.receive(p, bytes, |_| Some(()));
    }
}

struct Client {
    dt: i64,
    /// Per entity: the newest model, and the one it replaced with the
    /// local time the blend started.
    models: Vec<(Model, Option<(Model, i64)>)>,
    offset: Option<i64>,
    blend_us: i64,
    uplink: InputUplink,
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        self.uplink.send_tick(ctx, |_| {});
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        let mut r = Reader::new(bytes);
        let (Some(TAG_UPDATE), Some(frame), Some(n)) = (r.u8(), r.u32(), r.count(29)) else { return };
        let mut updates = Vec::with_capacity(n);
        for _ in 0..n {
            let Some(id) = r.var() else { return };
            let mut v = [0i32; 6];
            for x in v.iter_mut() {
                let Some(y) = r.i32() else { return };
                *x = y;
            }
            let Some(seq) = r.u32() else { return };
            updates.push((id as usize, Model { frame, pos: [v[0], v[1], v[2]], vel: [v[3], v[4], v[5]], seq }));
        }
        if !r.is_done() {
            return;
        }
        let arrival = (frame as i64 - 1) * self.dt - ctx.now();
        self.offset = Some(self.offset.map_or(arrival, |o| o.max(arrival)));
        for (id, m) in updates {
            let Some(slot) = self.models.get_mut(id) else { continue };
            if m.frame > slot.0.frame {
                let old = slot.0;
                *slot = (m, Some((old, ctx.now())));
            }
        }
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        let t = ctx.now() + self.offset.unwrap_or(0);
        for (i, (m, old)) in self.models.iter_mut().enumerate() {
            let new = m.at(t, self.dt);
            let pos = match *old {
                Some((o, since)) if ctx.now() - since < self.blend_us => {
                    let k = (ctx.now() - since).max(0);
                    let was = o.at(t, self.dt);
                    std::array::from_fn(|d| was[d] + (new[d] - was[d]) * k / self.blend_us)
                }
                _ => {
                    *old = None;
                    new
                }
            };
            view.entities.push(EntityView {
                id: i as u16,
                x: pos[0] as i32,
                y: pos[1] as i32,
                z: pos[2] as i32,
                seq: m.seq,
            });
        }
    }
}
