//! `latency-corrected`: thc's position sync with timestamps.
//!
//! Clients synchronize their clock with the server (12 round trips, see
//! [`ClockSync`]). The server sends an entity's state — its send time,
//! position and velocity, vertical included — whenever its velocity
//! changes, it takes off or lands (and at least every `heartbeat`), at most
//! `rate` times a second. A receiver measures the message's delay on the
//! synchronized clock and advances the reported state by it: where the
//! entity is *now*. Each remote entity then runs thc's four-state
//! machine, interrupted by every message:
//!
//! - `to-target-before-run`: moving; first catch up with the corrected
//!   position (faster than running), then
//! - `by-direction-run`: run along the direction at the reported speed;
//! - `to-target-stop`: stopped; walk to the corrected position, then
//! - `idle-stop`: stand.
//!
//! The seed runs the machine once per frame; here it runs on a fixed grid
//! of four steps a tick, and a frame between grid points is drawn a
//! part-step on without keeping it, so every render rate shows the same
//! motion.
//!
//! thc's scheme is planar; here the height follows the reported
//! vertical speed under gravity, so jumps are shown. Remote copies move by
//! the world's rules ([`Coast`], [`harness::game::Game::slide`]): they stop
//! at walls and bounds, run for at most `extrapolate-max` after a message,
//! and jump to the corrected position when it is more than `teleport` away
//! (after a gap) instead of chasing it for seconds.
//!
//! The own player is not corrected but predicted (thc: the move
//! initiator moves and sends its state; the state machine is for
//! OtherPlayer): moved at once on its own inputs and reconciled with the
//! server's own-state message ([`OwnPlayer`]); the server stays
//! authoritative.
//!
//! Wire: input as `server-verified`; clock sync as [`ClockSync`]; states,
//! server → clients: `70, n: var, n × (id: var, sent: i64, x, y, z, vx, vy,
//! vz: i32)`; own state, server → each client: [`encode_own`](crate::support::own_prediction::encode_own). (Views
//! name the frame a message was sent on; no input sequence numbers
//! travel.)

use crate::support::clock_sync::ClockSync;
use crate::support::coast::{self, distance, Coast};
use crate::support::own_prediction::{decode_own, OwnPlayer, OwnStates, OWN_RATE, PLAUSIBLE_LEAD};
use crate::support::step_grid::{at_least_a_micrometre, StepGrid};
use crate::support::uplink::{InputUplink, ServerInputs, INPUT_BUFFER, MAX_QUEUE, REDUNDANCY};
use crate::wire::{Reader, Writer};
use harness::contract::{
    Algorithm, Ctx, EntityView, Node, NodeId, OptionSpec, RenderCtx, Report, Setup, Topology, View,
};
use harness::game::State;

const TAG_STATES: u8 = 70;

const RATE: OptionSpec =
    OptionSpec::number("rate", "10", 0.1, 1000.0, "most messages per entity per second (thc's 10 packets/s)");
const HEARTBEAT: OptionSpec =
    OptionSpec::number("heartbeat", "500", 1.0, 3600000.0, "send an unchanged entity at least this often, ms");
const CATCH_UP: OptionSpec =
    OptionSpec::number("catch-up", "1.5", 0.1, 100.0, "speed toward the corrected position, × max speed");
const EXTRAPOLATE_MAX: OptionSpec = coast::extrapolate_max("stop running an entity this long after its message, ms");
const TELEPORT: OptionSpec = coast::teleport("jump to the corrected position when it is this far off, m");

/// The algorithm.
pub struct LatencyCorrected;

impl Algorithm for LatencyCorrected {
    fn name(&self) -> &'static str {
        "latency-corrected"
    }
    fn description(&self) -> &'static str {
        "timestamped 3-D state advanced by the measured one-way delay; the four-state OtherPlayer machine for others, own player predicted (thc)"
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[RATE, HEARTBEAT, CATCH_UP, EXTRAPOLATE_MAX, TELEPORT, OWN_RATE, REDUNDANCY, INPUT_BUFFER, MAX_QUEUE]
    }
    fn waived_contracts(&self) -> &'static [(&'static str, &'static str)] {
        &[("remote-on-path", "runs entities along their direction between messages by design")]
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        let o = &s.options;
        let frames = |ms: f64| ((ms * s.tick_hz as f64 / 1000.0).round() as u32).max(1);
        Box::new(Server {
            state: s.initial.clone(),
            inputs: ServerInputs::from_setup(s),
            last_sent: vec![None; s.entities()],
            min_gap: frames(1000.0 / o.number(&RATE).clamp(0.1, 1000.0)),
            heartbeat: frames(o.number(&HEARTBEAT).max(1.0)),
            own_states: OwnStates::from_setup(s),
        })
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        let o = &s.options;
        let dt = 1_000_000 / s.tick_hz.max(1) as i64;
        Box::new(Client {
            me: player,
            dt,
            clock: ClockSync::new(10_000_000),
            others: s
                .initial
                .players
                .iter()
                .map(|p| Other { shown: [p.x, p.y, p.z], msg: None, mode: Mode::IdleStop, frame: 0 })
                .collect(),
            machine: Machine {
                catch_up: o.number(&CATCH_UP).clamp(1.0, 10.0) * 6_000_000.0,
                cap_us: (o.number(&EXTRAPOLATE_MAX).clamp(0.0, 3.6e6) * 1e3) as i64,
            },
            teleport_um: (o.number(&TELEPORT).max(0.0) * 1e6) as i64,
            meet_cap_us: (2.0 * o.number(&HEARTBEAT).clamp(1.0, 3.6e6) * 1e3) as i64,
            grid: StepGrid::new(dt),
            own: OwnPlayer::new(&s.initial, player, dt),
            uplink: InputUplink::from_options(&s.options),
            got: Vec::new(),
            arrival: None,
        })
    }
}

struct Server {
    state: State,
    inputs: ServerInputs,
    /// Per entity: (frame, vx, vy, airborne) of the last message.
    last_sent: Vec<Option<(u32, i32, i32, bool)>>,
    min_gap: u32,
    heartbeat: u32,
    own_states: OwnStates,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, self.inputs.for_tick());
        self.inputs.send_paces(ctx);
        ctx.publish_authority(&self.state);
        let f = self.state.frame;
        let mut body = Writer::with_capacity(64);
        let mut n = 0u32;
        for (i, p) in self.state.players.iter().enumerate() {
            let airborne = !p.grounded();
            let due = match self.last_sent[i] {
                None => true,
                Some((sf, vx, vy, was_airborne)) => {
                    let changed = (p.vx - vx).abs() > 300_000
                        || (p.vy - vy).abs() > 300_000
                        || ((p.vx, p.vy) == (0, 0)) != ((vx, vy) == (0, 0));
                    let since = f.saturating_sub(sf);
                    // A take-off or a landing is sent at once.
                    airborne != was_airborne || (changed && since >= self.min_gap) || since >= self.heartbeat
                }
            };
            if due {
                let w = &mut body;
                w.var(i as u32);
                w.0.extend_from_slice(&ctx.now().to_le_bytes());
                w.i32(p.x).i32(p.y).i32(p.z).i32(p.vx).i32(p.vy).i32(p.vz);
                self.last_sent[i] = Some((f, p.vx, p.vy, airborne));
                n += 1;
            }
        }
        self.own_states.send(ctx, &self.state);
        if n > 0 {
            let mut w = Writer::with_capacity(6 + body.0.len());
            w.u8(TAG_STATES).var(n);
            w.0.extend_from_slice(&body.0);
            ctx.send_to_players(w.finish());
        }
        // The body's buffer goes back to the pool the packets come from.
        harness::buffers::give(body.0);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        if let Some(reply) = ClockSync::answer(ctx.now(), bytes) {
            ctx.send(from, reply);
            return;
        }
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        self.inputs.receive(p, ctx.now(), bytes, |_| Some(()));
    }
}

/// thc's OtherPlayer states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    IdleStop,
    ToTargetBeforeRun,
    ToTargetStop,
    ByDirectionRun,
}

#[derive(Clone, Copy)]
struct Other {
    shown: [i32; 3],
    /// The newest message, as a state coasting from its send time.
    msg: Option<Coast>,
    mode: Mode,
    /// The frame the newest message was sent on.
    frame: u32,
}

struct Client {
    me: usize,
    dt: i64,
    clock: ClockSync,
    others: Vec<Other>,
    machine: Machine,
    teleport_um: i64,
    /// How long a message is run on to meet the own prediction: two
    /// heartbeats (a newer one is due by then), whatever the screen's
    /// `extrapolate-max`.
    meet_cap_us: i64,
    /// The grid the copies' state machine runs on.
    grid: StepGrid,
    own: OwnPlayer,
    uplink: InputUplink,
    /// The states being read, `(id, motion, frame)` (the buffer kept).
    got: Vec<(usize, Coast, u32)>,
    /// Until the clock is synchronized: server time ≈ local time + this,
    /// the least-delayed arrival of a message (no latency correction yet,
    /// but copies run between messages instead of waiting at each).
    arrival: Option<i64>,
}

/// The server time at local `now`: the synchronized clock's, or before it
/// is, the least-delayed arrival's.
fn server_time(clock: &ClockSync, arrival: Option<i64>, now: i64) -> Option<i64> {
    clock.server_time(now).or(arrival.map(|o| now + o))
}

/// A states message into `out` (cleared first): `None` unless it is whole
/// and plausible for a client at `tick` (ticks of `dt` µs).
fn read_states(bytes: &[u8], dt: i64, tick: u64, out: &mut Vec<(usize, Coast, u32)>) -> Option<()> {
    out.clear();
    let mut r = Reader::new(bytes);
    let (Some(TAG_STATES), Some(n)) = (r.u8(), r.count(33)) else { return None };
    for _ in 0..n {
        let id = r.var()?;
        let sent = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
        let (x, y, z, vx, vy, vz) = (r.i32()?, r.i32()?, r.i32()?, r.i32()?, r.i32()?, r.i32()?);
        // Sent on the server's tick that made frame `sent / dt + 1`
        // (rounded: a live timer fires a little late). A time before
        // the run or far ahead of this client is a damaged packet.
        let frame = sent.checked_add(dt / 2)? / dt + 1;
        if sent < 0 || frame > (tick + PLAUSIBLE_LEAD) as i64 {
            return None;
        }
        out.push((id as usize, Coast::new(sent, [x, y, z], [vx, vy, vz]), frame as u32));
    }
    r.is_done().then_some(())
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        self.advance(ctx.game(), ctx.now());
        let server = ctx.setup().server();
        if let Some(m) = self.clock.poll(ctx.now()) {
            ctx.send(server, m);
        }
        if let Some(o) = self.clock.offset() {
            ctx.report(Report::ClockOffset { estimate_us: o });
        }
        if ctx.player().is_none() {
            return;
        }
        let samples = self.uplink.sample(ctx);
        // The own prediction meets the others where the server will have
        // them when it applies this tick's input: each message run on to
        // then. Until a move is acknowledged, where this screen shows them.
        let apply = self.own.apply_time(ctx.tick(), self.dt);
        let (game, cap) = (ctx.game(), self.meet_cap_us);
        let others = self.others.iter_mut().enumerate().map(|(q, o)| match (apply, o.msg.as_mut()) {
            (Some(t), Some(m)) => (q, m.at(game, t, cap, true), m.velocity(t, cap)),
            _ => (q, o.shown, [0; 3]),
        });
        self.own.place_others(ctx, others);
        self.own.play(ctx, &mut self.uplink, samples);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        self.advance(ctx.game(), ctx.now());
        if self.uplink.pacer.on_packet(bytes) {
            return;
        }
        if self.clock.on_packet(ctx.now(), bytes) {
            return;
        }
        if let Some((frame, own)) = decode_own(bytes) {
            self.own.on_server(ctx, frame, own);
            return;
        }
        // Read into a kept buffer (states arrive about every tick).
        let mut got = std::mem::take(&mut self.got);
        if read_states(bytes, self.dt, ctx.tick(), &mut got).is_some() {
            self.take_states(ctx, &mut got);
        }
        self.got = got;
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        let now = ctx.now();
        let game = ctx.game();
        self.advance(game, now);
        self.own.render(now, view);
        // From the last step to now: a part-step, shown and not kept.
        let rest = self.grid.since_last(now);
        let server_now = server_time(&self.clock, self.arrival, now);
        for (i, o) in self.others.iter().enumerate() {
            if i == self.me {
                continue;
            }
            let shown = if rest > 0 {
                let mut part = *o;
                self.machine.step(&mut part, game, server_now, rest);
                part.shown
            } else {
                o.shown
            };
            view.entities.push(EntityView {
                id: i as u16,
                x: shown[0],
                y: shown[1],
                z: shown[2],
                seq: 0,
                frame: o.frame,
            });
        }
    }
}

impl Client {
    /// Takes the states of a message (read into `got`, which it empties).
    fn take_states(&mut self, ctx: &Ctx<'_>, got: &mut Vec<(usize, Coast, u32)>) {
        for (_, m, _) in got.iter() {
            let o = m.origin - ctx.now();
            self.arrival = Some(self.arrival.map_or(o, |a| a.max(o)));
        }
        let server_now = server_time(&self.clock, self.arrival, ctx.now());
        for (id, mut m, frame) in got.drain(..) {
            let Some(o) = self.others.get_mut(id) else { continue };
            if o.msg.is_some_and(|old| old.origin >= m.origin) {
                continue;
            }
            // A message interrupts the state machine; after a gap, a
            // position too far off is jumped to rather than chased.
            let moving = m.vel[0] != 0 || m.vel[1] != 0;
            let target = m.at(ctx.game(), server_now.unwrap_or(m.origin), self.machine.cap_us, true);
            if distance(o.shown, target) > self.teleport_um {
                o.shown = target;
                o.mode = if moving { Mode::ByDirectionRun } else { Mode::IdleStop };
            } else {
                o.mode = if moving { Mode::ToTargetBeforeRun } else { Mode::ToTargetStop };
            }
            o.msg = Some(m);
            o.frame = frame;
        }
    }

    /// Runs every remote copy's state machine on to local time `now` on the
    /// step grid (the seed steps it once per frame; at 30 and 144 Hz those
    /// steps drew different paths — `conform`'s `frame-rate-independent`:
    /// remote p90 1.0 m at 30 Hz, 1.95 m at 144 Hz). Called before
    /// anything reads or changes the copies: ticks, packets (before a clock
    /// sample moves the server time), renders.
    fn advance(&mut self, game: &harness::game::Game, now: i64) {
        let (me, clock, arrival, machine, others) =
            (self.me, &self.clock, self.arrival, &self.machine, &mut self.others);
        self.grid.run_until(now, |t, span| {
            let server_t = server_time(clock, arrival, t);
            for (i, o) in others.iter_mut().enumerate() {
                if i != me {
                    machine.step(o, game, server_t, span);
                }
            }
        });
    }
}

/// thc's OtherPlayer state machine, with this run's numbers.
struct Machine {
    /// Catch-up speed, µm/s.
    catch_up: f64,
    cap_us: i64,
}

impl Machine {
    /// One step of `span_us` ending at server time `server_now` (`None`
    /// before the clock is synchronized: the message's own time, no
    /// correction at all).
    fn step(&self, o: &mut Other, game: &harness::game::Game, server_now: Option<i64>, span_us: i64) {
        let Some(m) = o.msg.as_mut() else { return };
        let t = server_now.unwrap_or(m.origin);
        // A chaser closes in on the message's copy in all three axes (a
        // jump reported late is caught up with, not popped to its height
        // by the delay); a runner or a stopped copy follows the message's
        // own arc.
        let z = match o.mode {
            Mode::ToTargetBeforeRun | Mode::ToTargetStop => {
                let target = m.at(game, t, self.cap_us, true);
                let d = [0, 1, 2].map(|k| (target[k] - o.shown[k]) as f64);
                let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
                let step = self.catch_up * span_us as f64 / 1e6;
                if dist <= step.max(1.0) {
                    o.shown = target;
                    o.mode = if o.mode == Mode::ToTargetStop { Mode::IdleStop } else { Mode::ByDirectionRun };
                } else {
                    let part = |k: usize| {
                        let c = d[k] / dist * step;
                        at_least_a_micrometre(c as i32, c)
                    };
                    let to = [o.shown[0] + part(0), o.shown[1] + part(1), o.shown[2] + part(2)];
                    o.shown = game.slide(o.shown, to);
                }
                o.shown[2]
            }
            Mode::ByDirectionRun => {
                // Runs along the reported direction, through nothing,
                // and not past the cap.
                let ran = (t - m.origin).min(self.cap_us) - (t - span_us - m.origin).clamp(0, self.cap_us);
                o.shown = game.glide(o.shown, [m.vel[0], m.vel[1], 0], ran.max(0), false).0;
                m.height_at(game, t, self.cap_us, true)
            }
            Mode::IdleStop => m.height_at(game, t, self.cap_us, true),
        };
        o.shown[2] = z;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A states message of one entity sent at `sent` µs.
    fn states(sent: i64) -> Vec<u8> {
        let mut w = Writer::default();
        w.u8(TAG_STATES).var(1).var(2);
        w.0.extend_from_slice(&sent.to_le_bytes());
        for v in [1, 2, 3, 4, 5, 6] {
            w.i32(v);
        }
        w.finish()
    }

    #[test]
    fn states_are_read_whole_and_implausible_times_refused() {
        let dt = 16_666;
        let mut got = vec![(9, Coast::new(0, [0; 3], [0; 3]), 9)];
        assert_eq!(read_states(&states(10 * dt), dt, 20, &mut got), Some(()));
        assert_eq!(got.len(), 1, "the buffer is cleared first");
        assert_eq!((got[0].0, got[0].2), (2, 11));
        let b = states(10 * dt);
        assert_eq!(read_states(&b[..b.len() - 1], dt, 20, &mut got), None, "truncated");
        assert_eq!(read_states(&states(-1), dt, 20, &mut got), None, "before the run");
        assert_eq!(read_states(&states(10_000 * dt), dt, 20, &mut got), None, "far ahead of the client");
        // A damaged time near the top of i64 is refused, not overflowed.
        assert_eq!(read_states(&states(i64::MAX - 1), dt, 20, &mut got), None);
    }
}
