//! `shadow-follow`: Wei's shadow following ("影子跟随算法"), a
//! refinement of dead reckoning.
//!
//! The server sends each entity's state (position, velocity, frame) at a
//! fixed rate (`rate`, default 10 Hz). On every client each entity has a
//! *shadow*: the newest state received, advanced to the present along its
//! velocity; the shadow jumps with each update, but the displayed entity
//! only ever *chases* it, continuously — so the picture stays smooth.
//! Shadows move along their velocity, and (`arc=1`, our addition) along the
//! jump's arc under gravity while airborne; `arc=0` is Wei's plain
//! straight-line extrapolation. Options from the seed:
//! - `lag`: phase lag — the entity keeps this distance behind its shadow,
//!   so a sudden stop is not overrun and pulled back;
//! - `inertia`: the chase accelerates and brakes (m/s²) instead of moving
//!   at a constant catch-up speed;
//! - `keys`: the key-state buffer — the server also sends every jump's
//!   take-off and landing the moment they happen, and the entity must pass
//!   through each buffered key state, in order, before chasing further. Without
//!   it, updates that happen to sample the top of each jump keep the remote
//!   player flying.
//!
//! Shadows and chasers move by the world's rules ([`Coast`],
//! [`harness::game::Game::slide`]): a shadow stops at walls and bounds and
//! stops coasting `extrapolate-max` after its update; an entity chases it
//! around nothing, and jumps to it when it is more than `teleport` away
//! (after a gap) rather than chasing for seconds.
//!
//! Departure: the seed moves the chaser once per frame, by the frame's
//! time; here it moves on a fixed grid of four steps a tick ([`StepGrid`]), and a frame
//! between grid points is drawn a part-step on without keeping it — so a
//! 30 Hz and a 144 Hz screen show the same chase (Wei's way drew
//! different paths: `conform`'s `frame-rate-independent`).
//!
//! The own player follows no shadow ("客户端先行", the client goes first):
//! it moves at once on its own inputs and is reconciled with the server's
//! own-state message ([`OwnPlayer`]); the server stays authoritative.
//!
//! Wire: input as `server-verified`; states, server → clients: `60, n:
//! var, n × (id: var, frame: u32, kind: u8 (0 state, 1 take-off, 2
//! landing), x, y, z, vx, vy, vz: i32)` (views name the frame); own state, server → each
//! client: [`encode_own`](crate::support::own_prediction::encode_own).

use crate::support::arrival_clock::ArrivalClock;
use crate::support::coast::{self, distance, Coast};
use crate::support::own_prediction::{decode_own, OwnPlayer, OwnStates, OWN_RATE, PLAUSIBLE_LEAD};
use crate::support::step_grid::{at_least_a_micrometre, round_to_i32, StepGrid};
use crate::support::uplink::{InputUplink, ServerInputs, INPUT_BUFFER, MAX_QUEUE, REDUNDANCY};
use crate::wire::{Reader, Writer};
use harness::contract::{Algorithm, Ctx, EntityView, Node, NodeId, OptionSpec, RenderCtx, Setup, Topology, View};
use harness::game::{PlayerState, State};
use std::collections::VecDeque;

const TAG_STATES: u8 = 60;

const RATE: OptionSpec = OptionSpec::number("rate", "10", 0.1, 1000.0, "state updates per second");
const KEYS: OptionSpec = OptionSpec::count("keys", "1", 0, 1, "1: buffer jump take-off and landing key states");
const LAG: OptionSpec = OptionSpec::number("lag", "0", 0.0, 100.0, "phase lag: distance kept behind the shadow, m");
const INERTIA: OptionSpec =
    OptionSpec::number("inertia", "0", 0.0, 10000.0, "chase acceleration, m/s² (0: constant catch-up speed)");
const ARC: OptionSpec = OptionSpec::count(
    "arc",
    "1",
    0,
    1,
    "1: airborne shadows follow the jump arc; 0: straight-line extrapolation, as plain DR",
);
const EXTRAPOLATE_MAX: OptionSpec = coast::extrapolate_max("stop a shadow coasting this long after its update, ms");
const TELEPORT: OptionSpec = coast::teleport("jump to the shadow when it is this far off, m");

/// The algorithm.
pub struct ShadowFollow;

impl Algorithm for ShadowFollow {
    fn name(&self) -> &'static str {
        "shadow-follow"
    }
    fn description(&self) -> &'static str {
        "entities chase a shadow that jumps to each update; phase lag, inertia, key-state buffer for jumps; own player predicted (Wei)"
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[RATE, KEYS, LAG, INERTIA, ARC, EXTRAPOLATE_MAX, TELEPORT, OWN_RATE, REDUNDANCY, INPUT_BUFFER, MAX_QUEUE]
    }
    fn waived_contracts(&self) -> &'static [(&'static str, &'static str)] {
        &[("remote-on-path", "the shadow is extrapolated between updates by design")]
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        let o = &s.options;
        Box::new(Server {
            state: s.initial.clone(),
            inputs: ServerInputs::from_setup(s),
            period: (s.tick_hz as f64 / o.number(&RATE).clamp(0.01, 1000.0)).round().max(1.0) as u32,
            keys: o.number(&KEYS) != 0.0,
            own_states: OwnStates::from_setup(s),
            grounded: Vec::with_capacity(s.players),
            out: Vec::new(),
        })
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        let o = &s.options;
        let dt = 1_000_000 / s.tick_hz.max(1) as i64;
        Box::new(Client {
            me: player,
            dt,
            entities: s
                .initial
                .players
                .iter()
                .map(|p| Follower {
                    shown: [p.x, p.y, p.z],
                    speed: 0.0,
                    shadow: Sample::of(p, 0, 0),
                    coast: Sample::of(p, 0, 0).coast(dt),
                    keys: VecDeque::new(),
                })
                .collect(),
            teleport_um: (o.number(&TELEPORT).max(0.0) * 1e6) as i64,
            own: OwnPlayer::new(&s.initial, player, dt),
            clock: ArrivalClock::default(),
            grid: StepGrid::new(dt),
            chase: Chase {
                speed: 1.5 * 6_000_000.0,
                lag_um: o.number(&LAG).max(0.0) * 1e6,
                inertia: o.number(&INERTIA).max(0.0) * 1e6,
                cap_us: (o.number(&EXTRAPOLATE_MAX).clamp(0.0, 3.6e6) * 1e3) as i64,
                arc: o.number(&ARC) != 0.0,
            },
            uplink: InputUplink::from_options(&s.options),
            got: Vec::new(),
        })
    }
}

/// A state sent for one entity.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample {
    frame: u32,
    kind: u8,
    pos: [i32; 3],
    vel: [i32; 3],
}

impl Sample {
    fn of(p: &PlayerState, frame: u32, kind: u8) -> Sample {
        Sample { frame, kind, pos: [p.x, p.y, p.z], vel: [p.vx, p.vy, p.vz] }
    }

    /// The shadow it casts: the state coasting from its frame's time.
    fn coast(&self, dt: i64) -> Coast {
        Coast::new((self.frame as i64 - 1) * dt, self.pos, self.vel)
    }
}

struct Server {
    state: State,
    inputs: ServerInputs,
    period: u32,
    keys: bool,
    own_states: OwnStates,
    /// Per player, grounded before this tick's step (the buffer kept).
    grounded: Vec<bool>,
    /// This tick's samples to send, by player id (the buffer kept).
    out: Vec<(u32, Sample)>,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let before = &mut self.grounded;
        before.clear();
        before.extend(self.state.players.iter().map(|p| p.grounded()));
        ctx.game().step(&mut self.state, self.inputs.for_tick());
        self.inputs.send_paces(ctx);
        ctx.publish_authority(&self.state);
        let f = self.state.frame;
        let out = &mut self.out;
        out.clear();
        for (i, p) in self.state.players.iter().enumerate() {
            if self.keys && before[i] != p.grounded() {
                let mut key = Sample { kind: if before[i] { 1 } else { 2 }, ..Sample::of(p, f, 0) };
                if before[i] {
                    // Take-off: the key state is the ground it left.
                    key.pos[2] = 0;
                }
                out.push((i as u32, key));
            }
        }
        self.own_states.send(ctx, &self.state);
        if f.is_multiple_of(self.period) {
            out.extend(self.state.players.iter().enumerate().map(|(i, p)| (i as u32, Sample::of(p, f, 0))));
        }
        if out.is_empty() {
            return;
        }
        let mut w = Writer::with_capacity(8 + out.len() * 34);
        w.u8(TAG_STATES).var(out.len() as u32);
        for (id, s) in out.iter() {
            w.var(*id).u32(s.frame).u8(s.kind);
            for v in s.pos.iter().chain(&s.vel) {
                w.i32(*v);
            }
        }
        ctx.send_to_players(w.finish());
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        self.inputs.receive(p, ctx.now(), bytes, |_| Some(()));
    }
}

struct Follower {
    shown: [i32; 3],
    /// Current chase speed (with inertia), µm/s.
    speed: f64,
    shadow: Sample,
    /// The shadow, coasting from its update.
    coast: Coast,
    /// Key states still to pass through, in order.
    keys: VecDeque<Sample>,
}

struct Client {
    me: usize,
    dt: i64,
    teleport_um: i64,
    own: OwnPlayer,
    entities: Vec<Follower>,
    /// Server time from the least-delayed arrival.
    clock: ArrivalClock,
    /// The grid the chase runs on.
    grid: StepGrid,
    chase: Chase,
    uplink: InputUplink,
    /// The states being read (the buffer kept).
    got: Vec<(usize, Sample)>,
}

/// A states message into `out` (cleared first): `None` unless it is whole.
fn read_states(bytes: &[u8], out: &mut Vec<(usize, Sample)>) -> Option<()> {
    out.clear();
    let mut r = Reader::new(bytes);
    let (Some(TAG_STATES), Some(n)) = (r.u8(), r.count(30)) else { return None };
    for _ in 0..n {
        let (id, frame, kind) = (r.var()?, r.u32()?, r.u8()?);
        let mut v = [0i32; 6];
        for x in v.iter_mut() {
            *x = r.i32()?;
        }
        if kind > 2 {
            return None;
        }
        out.push((id as usize, Sample { frame, kind, pos: [v[0], v[1], v[2]], vel: [v[3], v[4], v[5]] }));
    }
    r.is_done().then_some(())
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        if ctx.player().is_none() {
            return;
        }
        self.chase_until(ctx.game(), ctx.now());
        let samples = self.uplink.sample(ctx);
        self.own.place_others(ctx, self.entities.iter().enumerate().map(|(q, e)| (q, e.shown, [0; 3])));
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
        self.chase_until(ctx.game(), ctx.now());
        // Read into a kept buffer (states arrive about every tick).
        let mut got = std::mem::take(&mut self.got);
        let plausible =
            |got: &Vec<(usize, Sample)>| got.iter().all(|(_, s)| s.frame as u64 <= ctx.tick() + PLAUSIBLE_LEAD);
        if read_states(bytes, &mut got).is_some() && plausible(&got) {
            self.take_states(ctx, &mut got);
        }
        self.got = got;
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        let now = ctx.now();
        let game = ctx.game();
        self.chase_until(game, now);
        self.own.render(now, view);
        // From the last step to now: a part-step, shown and not kept.
        let rest = self.grid.since_last(now);
        let t = now + self.clock.offset().unwrap_or(0);
        for (i, e) in self.entities.iter_mut().enumerate() {
            if i == self.me {
                continue;
            }
            let shown = if rest > 0 {
                self.chase.step(e.shown, e.speed, e.keys.front(), &mut e.coast, game, t, rest as f64 / 1e6).0
            } else {
                e.shown
            };
            let frame = e.keys.front().map_or(e.shadow.frame, |k| k.frame);
            let (x, y, z) = (shown[0], shown[1], shown[2].max(0));
            view.entities.push(EntityView { id: i as u16, x, y, z, seq: 0, frame });
        }
    }
}

impl Client {
    /// Takes the states of a message (read into `got`, which it empties).
    fn take_states(&mut self, ctx: &Ctx<'_>, got: &mut Vec<(usize, Sample)>) {
        for (id, s) in got.drain(..) {
            let Some(e) = self.entities.get_mut(id) else { continue };
            self.clock.on_frame(s.frame, self.dt, ctx.now());
            if s.kind != 0 && s.frame > e.shadow.frame {
                e.keys.push_back(s);
            }
            if s.frame >= e.shadow.frame {
                e.shadow = s;
                e.coast = s.coast(self.dt);
                // After a gap the shadow may be far: jump, don't chase.
                let t = ctx.now() + self.clock.offset().unwrap_or(0);
                let at = e.coast.at(ctx.game(), t, self.chase.cap_us, self.chase.arc);
                if distance(e.shown, at) > self.teleport_um {
                    e.shown = at;
                    e.speed = 0.0;
                    e.keys.clear();
                }
            }
        }
    }

    /// Moves every chaser on to local time `now` on the step grid: where a
    /// chaser is depends on the time, not on how often the screen renders
    /// (the seed chases once per frame; at 30 and 144 Hz those Euler steps
    /// drew different paths — `conform`'s `frame-rate-independent`).
    /// Called before anything reads or moves the chasers: ticks, packets,
    /// renders.
    fn chase_until(&mut self, game: &harness::game::Game, now: i64) {
        let (me, offset, chase, entities) =
            (self.me, self.clock.offset().unwrap_or(0), &self.chase, &mut self.entities);
        self.grid.run_until(now, |t, span| {
            for (i, e) in entities.iter_mut().enumerate() {
                if i == me {
                    continue;
                }
                let (shown, speed, reached) =
                    chase.step(e.shown, e.speed, e.keys.front(), &mut e.coast, game, t + offset, span as f64 / 1e6);
                (e.shown, e.speed) = (shown, speed);
                if reached {
                    e.keys.pop_front();
                }
            }
        });
    }
}

/// How a chaser moves toward its shadow (Wei's options).
struct Chase {
    /// Catch-up speed, µm/s.
    speed: f64,
    lag_um: f64,
    /// Acceleration, µm/s² (0: constant catch-up speed).
    inertia: f64,
    cap_us: i64,
    arc: bool,
}

impl Chase {
    /// A chaser at `shown` moving at `speed`, after `step_s` seconds toward
    /// the next key state `key` or else its shadow `coast` at server time
    /// `t`: where it is, its speed, and whether it reached the key.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &self,
        shown: [i32; 3],
        speed: f64,
        key: Option<&Sample>,
        coast: &mut Coast,
        game: &harness::game::Game,
        t: i64,
        step_s: f64,
    ) -> ([i32; 3], f64, bool) {
        let (target, is_key) = match key {
            Some(k) => (k.pos, true),
            None => (coast.at(game, t, self.cap_us, self.arc), false),
        };
        let d: [f64; 3] = std::array::from_fn(|k| (target[k] - shown[k]) as f64);
        let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let keep = if is_key { 0.0 } else { self.lag_um };
        let want = (dist - keep).max(0.0);
        let speed = if self.inertia > 0.0 {
            let target_speed = self.speed.min(want / step_s.max(1e-6));
            let dv = self.inertia * step_s;
            if target_speed > speed {
                (speed + dv).min(target_speed)
            } else {
                (speed - dv).max(target_speed)
            }
        } else {
            self.speed
        };
        let moved = (speed * step_s).min(want);
        let mut at = shown;
        if dist > 0.0 {
            // A component that rounds to nothing still moves a micrometre:
            // else a chaser 5 µm into a wall's reach, its target beyond
            // it, never moves out (the other axis stays blocked).
            let to: [i32; 3] = std::array::from_fn(|k| {
                let c = d[k] / dist * moved;
                shown[k] + at_least_a_micrometre(round_to_i32(c), c)
            });
            // Around nothing: the chase stops at walls like the entity.
            at = game.slide(shown, to);
        }
        (at, speed, is_key && dist - moved < 1_000.0)
    }
}
