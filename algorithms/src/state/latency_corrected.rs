//! `latency-corrected`: seed 002's position sync with timestamps.
//!
//! Clients synchronize their clock with the server (12 round trips, see
//! [`ClockSync`]). The server sends an entity's state — its send time,
//! position, direction and speed — whenever its velocity changes (and at
//! least every `heartbeat`), at most `rate` times a second. A receiver
//! measures the message's delay on the synchronized clock and advances the
//! reported position by speed × delay along the direction: where the
//! entity is *now*. Each remote entity then runs the seed's four-state
//! machine, interrupted by every message:
//!
//! - `to-target-before-run`: moving; first catch up with the corrected
//!   position (faster than running), then
//! - `by-direction-run`: run along the direction at the reported speed;
//! - `to-target-stop`: stopped; walk to the corrected position, then
//! - `idle-stop`: stand.
//!
//! Wire: input as `server-verified`; clock sync as [`ClockSync`]; states,
//! server → clients: `70, n: u8, n × (id: u8, sent: i64, x, y, z, vx, vy:
//! i32, seq: u32)`.

use crate::support::clock_sync::ClockSync;
use crate::support::uplink::{InputUplink, ServerInputs};
use crate::wire::{Reader, Writer};
use harness::contract::{
    Algorithm, Ctx, EntityView, Node, NodeId, OptionSpec, RenderCtx, Report, Setup, Topology, View,
};
use harness::game::State;

const TAG_STATES: u8 = 70;

const RATE: OptionSpec =
    OptionSpec::number("rate", "10", "most messages per entity per second (the seed's 10 packets/s)");
const HEARTBEAT: OptionSpec =
    OptionSpec::number("heartbeat", "500", "send an unchanged entity at least this often, ms");
const CATCH_UP: OptionSpec = OptionSpec::number("catch-up", "1.5", "speed toward the corrected position, × max speed");
const MAX_QUEUE: OptionSpec = OptionSpec::number("max-queue", "2", "server input queue per client");

/// The algorithm.
pub struct LatencyCorrected;

impl Algorithm for LatencyCorrected {
    fn name(&self) -> &'static str {
        "latency-corrected"
    }
    fn description(&self) -> &'static str {
        "timestamped state advanced by the measured one-way delay; the four-state OtherPlayer machine (seed 002)"
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[RATE, HEARTBEAT, CATCH_UP, MAX_QUEUE]
    }
    fn waived_contracts(&self) -> &'static [(&'static str, &'static str)] {
        &[
            ("remote-on-path", "runs entities along their direction between messages by design"),
            ("on-map", "extrapolation ignores walls and bounds (to be made world-aware)"),
        ]
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        let o = &s.options;
        let frames = |ms: f64| ((ms * s.tick_hz as f64 / 1000.0).round() as u32).max(1);
        Box::new(Server {
            state: s.initial.clone(),
            inputs: ServerInputs::new(s.players, o.number(&MAX_QUEUE).clamp(1.0, 1000.0) as usize),
            last_sent: vec![None; s.entities()],
            min_gap: frames(1000.0 / o.number(&RATE).clamp(0.1, 1000.0)),
            heartbeat: frames(o.number(&HEARTBEAT).max(1.0)),
        })
    }
    fn client(&self, s: &Setup, _player: usize) -> Box<dyn Node> {
        Box::new(Client {
            clock: ClockSync::new(10_000_000),
            others: s
                .initial
                .players
                .iter()
                .map(|p| Other { shown: [p.x as f64, p.y as f64], z: p.z, msg: None, mode: Mode::IdleStop, seq: 0 })
                .collect(),
            catch_up: s.options.number(&CATCH_UP).clamp(1.0, 10.0) * 6_000_000.0,
            last_render: None,
            uplink: InputUplink::new(3),
        })
    }
}

struct Server {
    state: State,
    inputs: ServerInputs,
    /// Per entity: (frame, vx, vy) of the last message.
    last_sent: Vec<Option<(u32, i32, i32)>>,
    min_gap: u32,
    heartbeat: u32,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, self.inputs.for_tick());
        ctx.publish_authority(&self.state);
        let f = self.state.frame;
        let mut body = Writer::with_capacity(64);
        let mut n = 0u32;
        for (i, p) in self.state.players.iter().enumerate() {
            let due = match self.last_sent[i] {
                None => true,
                Some((sf, vx, vy)) => {
                    let changed = (p.vx - vx).abs() > 300_000
                        || (p.vy - vy).abs() > 300_000
                        || ((p.vx, p.vy) == (0, 0)) != ((vx, vy) == (0, 0));
                    let since = f.saturating_sub(sf);
                    (changed && since >= self.min_gap) || since >= self.heartbeat
                }
            };
            if due {
                let w = &mut body;
                w.var(i as u32);
                w.0.extend_from_slice(&ctx.now().to_le_bytes());
                w.i32(p.x).i32(p.y).i32(p.z).i32(p.vx).i32(p.vy).u32(p.last_seq);
                self.last_sent[i] = Some((f, p.vx, p.vy));
                n += 1;
            }
        }
        if n > 0 {
            let mut w = Writer::with_capacity(6 + body.0.len());
            w.u8(TAG_STATES).var(n);
            w.0.extend_from_slice(&body.0);
            ctx.send_to_players(w.finish());
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        if let Some(reply) = ClockSync::answer(ctx.now(), bytes) {
            ctx.send(from, reply);
            return;
        }
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        self.inputs.receive(p, bytes, |_| Some(()));
    }
}

/// The seed's OtherPlayer states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    IdleStop,
    ToTargetBeforeRun,
    ToTargetStop,
    ByDirectionRun,
}

/// The newest message about an entity.
#[derive(Clone, Copy, Debug)]
struct Msg {
    sent: i64,
    pos: [f64; 2],
    vel: [f64; 2],
}

impl Msg {
    /// Where the entity is at server time `t`, by the message.
    fn at(&self, t: i64) -> [f64; 2] {
        let s = (t - self.sent).max(0) as f64 / 1e6;
        [self.pos[0] + self.vel[0] * s, self.pos[1] + self.vel[1] * s]
    }
}

struct Other {
    shown: [f64; 2],
    z: i32,
    msg: Option<Msg>,
    mode: Mode,
    seq: u32,
}

struct Client {
    clock: ClockSync,
    others: Vec<Other>,
    catch_up: f64,
    last_render: Option<i64>,
    uplink: InputUplink,
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let server = ctx.setup().server();
        if let Some(m) = self.clock.poll(ctx.now()) {
            ctx.send(server, m);
        }
        if let Some(o) = self.clock.offset() {
            ctx.report(Report::ClockOffset { estimate_us: o });
        }
        self.uplink.send_tick(ctx, |_| {});
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        if self.clock.on_packet(ctx.now(), bytes) {
            return;
        }
        let mut r = Reader::new(bytes);
        let (Some(TAG_STATES), Some(n)) = (r.u8(), r.count(33)) else { return };
        let mut got = Vec::with_capacity(n);
        for _ in 0..n {
            let Some(id) = r.var() else { return };
            let Some(sent) = r.take(8).and_then(|b| b.try_into().ok()).map(i64::from_le_bytes) else { return };
            let (Some(x), Some(y), Some(z), Some(vx), Some(vy), Some(seq)) =
                (r.i32(), r.i32(), r.i32(), r.i32(), r.i32(), r.u32())
            else {
                return;
            };
            got.push((id as usize, Msg { sent, pos: [x as f64, y as f64], vel: [vx as f64, vy as f64] }, z, seq));
        }
        if !r.is_done() {
            return;
        }
        for (id, m, z, seq) in got {
            let Some(o) = self.others.get_mut(id) else { continue };
            if o.msg.is_some_and(|old| old.sent >= m.sent) {
                continue;
            }
            // A message interrupts the state machine.
            o.mode = if m.vel == [0.0, 0.0] { Mode::ToTargetStop } else { Mode::ToTargetBeforeRun };
            o.msg = Some(m);
            o.z = z;
            o.seq = seq;
        }
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        let now = ctx.now();
        let dt = self.last_render.map_or(0.0, |l| (now - l).max(0) as f64 / 1e6);
        self.last_render = Some(now);
        // Before the clock is synchronized, take the message's own time:
        // no correction at all.
        let server_now = self.clock.server_time(now);
        for (i, o) in self.others.iter_mut().enumerate() {
            if let Some(m) = o.msg {
                let t = server_now.unwrap_or(m.sent);
                let target = m.at(t);
                match o.mode {
                    Mode::ToTargetBeforeRun | Mode::ToTargetStop => {
                        let d = [target[0] - o.shown[0], target[1] - o.shown[1]];
                        let dist = (d[0] * d[0] + d[1] * d[1]).sqrt();
                        let step = self.catch_up * dt;
                        if dist <= step.max(1.0) {
                            o.shown = target;
                            o.mode = if o.mode == Mode::ToTargetStop { Mode::IdleStop } else { Mode::ByDirectionRun };
                        } else {
                            o.shown = [o.shown[0] + d[0] / dist * step, o.shown[1] + d[1] / dist * step];
                        }
                    }
                    Mode::ByDirectionRun => o.shown = [o.shown[0] + m.vel[0] * dt, o.shown[1] + m.vel[1] * dt],
                    Mode::IdleStop => {}
                }
            }
            view.entities.push(EntityView {
                id: i as u16,
                x: o.shown[0] as i32,
                y: o.shown[1] as i32,
                z: o.z,
                seq: o.seq,
            });
        }
    }
}
