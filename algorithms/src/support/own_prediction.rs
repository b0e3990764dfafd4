//! The own player moved at once: client-side prediction with server
//! reconciliation (Liang & Chen §1.3, antsmallant: "everything but the local
//! player is dead-reckoned; the local player is predicted and reconciled").
//!
//! [`MoveLog`] is the machinery `prediction` is built on: each sampled input
//! is applied at once and remembered with the own state it led to; when the
//! server says it has applied the moves up to `ack` and what the own player
//! was then, acknowledged moves are dropped and, if the prediction after
//! `ack` was wrong, the pending ones are replayed from the server's state.
//!
//! [`OwnPlayer`] packages it for algorithms whose remote entities are shown
//! by other means (dead reckoning, periodic updates, latency correction,
//! shadows): a predicted world in which the client steps its own player on
//! its own inputs (other players stand where the client shows them, so
//! collisions with them are predicted), reconciled with the server's own
//! state messages ([`encode_own`]), drawn through [`TickLerp`].

use crate::support::render_lerp::TickLerp;
use crate::support::uplink::{InputUplink, Samples};
use crate::wire::{Reader, Writer};
use harness::contract::{Ctx, EntityView, OptionSpec, Report, Setup, View};
use harness::game::{Input, PlayerState, SeqInput, State};
use std::collections::VecDeque;

/// A pending move: the input, what the algorithm keeps with it, and the own
/// state predicted after it.
#[derive(Clone, Copy, Debug)]
pub struct Move<V> {
    /// Sequence number of the sample.
    pub seq: u32,
    /// The input.
    pub input: Input,
    /// What the algorithm keeps with the move (e.g. the view it was
    /// pressed on, for lag compensation).
    pub extra: V,
    /// The own player predicted after it.
    pub after: PlayerState,
}

/// Whether `a` and `b` differ by more than `threshold_um` in position (any
/// difference at all when 0).
pub fn differs(a: &PlayerState, b: &PlayerState, threshold_um: i64) -> bool {
    if threshold_um == 0 {
        return a != b;
    }
    let d = |x: i32, y: i32| (x as i128 - y as i128).pow(2);
    let dist2 = d(a.x, b.x) + d(a.y, b.y) + d(a.z, b.z);
    dist2 > (threshold_um as i128).pow(2)
}

/// The moves the server has not acknowledged yet, oldest first.
#[derive(Clone, Debug)]
pub struct MoveLog<V> {
    moves: VecDeque<Move<V>>,
    cap: usize,
}

impl<V: Copy> MoveLog<V> {
    /// A log holding at most `cap` moves: past that the server is gone, and
    /// replaying them all would cost more than it is worth.
    pub fn new(cap: usize) -> MoveLog<V> {
        MoveLog { moves: VecDeque::new(), cap: cap.max(1) }
    }

    /// Remembers a move just applied.
    pub fn push(&mut self, m: Move<V>) {
        self.moves.push_back(m);
        while self.moves.len() > self.cap {
            self.moves.pop_front();
        }
    }

    /// The pending moves, oldest first.
    pub fn pending(&self) -> impl DoubleEndedIterator<Item = &Move<V>> + ExactSizeIterator {
        self.moves.iter()
    }

    /// Forgets every pending move.
    pub fn clear(&mut self) {
        self.moves.clear();
    }

    /// The server has applied the moves up to `ack` and its own player was
    /// then `server`: drops the acknowledged moves and says whether the
    /// prediction after `ack` was wrong — compared with the move's predicted
    /// state, or, when the log no longer holds it and nothing is pending,
    /// with `shown` (what the client has now).
    pub fn acknowledge(&mut self, ack: u32, server: &PlayerState, shown: &PlayerState, threshold_um: i64) -> bool {
        let mut acked = None;
        while self.moves.front().is_some_and(|m| m.seq <= ack) {
            acked = self.moves.pop_front();
        }
        match acked {
            Some(m) if m.seq == ack => differs(&m.after, server, threshold_um),
            _ => ack > 0 && self.moves.is_empty() && differs(shown, server, threshold_um),
        }
    }

    /// Re-simulates every pending move in `world` with `step`, refreshing
    /// each move's predicted state of player `me`; returns how many.
    pub fn replay(&mut self, world: &mut State, me: usize, mut step: impl FnMut(&mut State, SeqInput)) -> u32 {
        for m in self.moves.iter_mut() {
            step(world, SeqInput { seq: m.seq, input: m.input });
            m.after = world.players[me];
        }
        self.moves.len() as u32
    }
}

const TAG_OWN: u8 = 80;

/// A server frame more than this many ticks ahead of the client's own tick
/// count is taken for a damaged packet (clocks run at the same rate).
pub const PLAUSIBLE_LEAD: u64 = 600;

/// `--opt own-rate=N`: own-state messages to each client per second.
pub const OWN_RATE: OptionSpec =
    OptionSpec::number("own-rate", "10", 0.1, 1000.0, "own-state messages to each client per second (reconciliation)");

/// The server's side: every `own-rate`-th of a second, each player's own
/// state to its client.
#[derive(Clone, Copy, Debug)]
pub struct OwnStates {
    every: u32,
}

impl OwnStates {
    /// As the run's options say.
    pub fn from_setup(s: &Setup) -> OwnStates {
        let every = (s.tick_hz as f64 / s.options.number(&OWN_RATE).clamp(0.1, 1000.0)).round() as u32;
        OwnStates { every: every.max(1) }
    }

    /// Sends each player its state in `state`, when due.
    pub fn send(&self, ctx: &mut Ctx<'_>, state: &State) {
        if !state.frame.is_multiple_of(self.every) {
            return;
        }
        for q in 0..ctx.setup().players {
            let to = ctx.setup().node_of_player(q);
            ctx.send(to, encode_own(state.frame, &state.players[q]));
        }
    }
}

/// The server's word to one client about its own player: `80, frame: u32,
/// ack: u32, x, y, z, vx, vy, vz: i32, prev_buttons: u8, facing: i8 × 2,
/// cooldown: u16` (38 bytes).
pub fn encode_own(frame: u32, p: &PlayerState) -> Vec<u8> {
    let mut w = Writer::with_capacity(38);
    w.u8(TAG_OWN).u32(frame).u32(p.last_seq);
    for v in [p.x, p.y, p.z, p.vx, p.vy, p.vz] {
        w.i32(v);
    }
    w.u8(p.prev_buttons).u8(p.facing_x as u8).u8(p.facing_y as u8).u16(p.cooldown);
    w.finish()
}

/// Reads [`encode_own`]: `(frame, the own player)` (its `last_seq` is the
/// acknowledged move); `None` for anything else.
pub fn decode_own(bytes: &[u8]) -> Option<(u32, PlayerState)> {
    let mut r = Reader::new(bytes);
    if r.u8()? != TAG_OWN {
        return None;
    }
    let (frame, last_seq) = (r.u32()?, r.u32()?);
    let (x, y, z, vx, vy, vz) = (r.i32()?, r.i32()?, r.i32()?, r.i32()?, r.i32()?, r.i32()?);
    let (prev_buttons, fx, fy, cooldown) = (r.u8()?, r.u8()? as i8, r.u8()? as i8, r.u16()?);
    if !(-1..=1).contains(&fx) || !(-1..=1).contains(&fy) || prev_buttons & !Input::ALL != 0 {
        return None;
    }
    r.is_done().then_some((
        frame,
        PlayerState {
            x,
            y,
            z,
            vx,
            vy,
            vz,
            prev_buttons,
            facing_x: fx,
            facing_y: fy,
            cooldown,
            last_seq,
            ..Default::default()
        },
    ))
}

/// What [`encode_own`] carries of a player (what a replay depends on).
fn carried(p: &PlayerState) -> PlayerState {
    PlayerState {
        x: p.x,
        y: p.y,
        z: p.z,
        vx: p.vx,
        vy: p.vy,
        vz: p.vz,
        prev_buttons: p.prev_buttons,
        facing_x: p.facing_x,
        facing_y: p.facing_y,
        cooldown: p.cooldown,
        last_seq: p.last_seq,
        ..Default::default()
    }
}

/// A client's own player, predicted and reconciled.
pub struct OwnPlayer {
    me: usize,
    world: State,
    /// Pending moves, each with the local tick it was sampled on.
    log: MoveLog<u64>,
    newest_frame: u32,
    /// Server frame minus local tick of the newest acknowledged input:
    /// how far ahead of the client's tick the server applies its inputs.
    lead: Option<i64>,
    lerp: TickLerp,
    /// The inputs of the step being simulated (kept: one every tick).
    inputs: Vec<SeqInput>,
}

impl OwnPlayer {
    /// Player `me` of a run starting at `initial`, with ticks of `dt` µs.
    pub fn new(initial: &State, me: usize, dt: i64) -> OwnPlayer {
        let mut lerp = TickLerp::new(initial.players.len(), dt);
        let p = &initial.players[me];
        lerp.set(i64::MIN / 2, &[EntityView { id: me as u16, x: p.x, y: p.y, z: p.z, ..Default::default() }]);
        let inputs = Vec::with_capacity(initial.players.len());
        OwnPlayer { me, world: initial.clone(), log: MoveLog::new(600), newest_frame: 0, lead: None, lerp, inputs }
    }

    fn show(&mut self, now: i64) {
        let p = &self.world.players[self.me];
        self.lerp.set(now, &[EntityView { id: self.me as u16, x: p.x, y: p.y, z: p.z, seq: p.last_seq, frame: 0 }]);
    }

    /// Places the other players where the client shows them, `(id,
    /// position, velocity)`, so the own player collides with them; its own
    /// id and bots (which push no one) are skipped.
    pub fn place_others(&mut self, ctx: &Ctx<'_>, others: impl IntoIterator<Item = (usize, [i32; 3], [i32; 3])>) {
        let players = ctx.setup().players;
        for (q, pos, vel) in others {
            if q != self.me && q < players {
                let p = &mut self.world.players[q];
                (p.x, p.y, p.z, p.vx, p.vy, p.vz) = (pos[0], pos[1], pos[2], vel[0], vel[1], vel[2]);
            }
        }
    }

    /// A client tick: applies this tick's samples at once, adds them to
    /// what the uplink carries and sends the server its packet.
    pub fn play(&mut self, ctx: &mut Ctx<'_>, uplink: &mut InputUplink, samples: Samples) {
        for s in samples {
            self.tick(ctx, s);
            uplink.remember(s);
        }
        let packet = uplink.packet(ctx.tick() as u32, |_| {});
        ctx.send(ctx.setup().server(), packet);
    }

    /// Applies the sampled input at once.
    pub fn tick(&mut self, ctx: &Ctx<'_>, s: SeqInput) {
        step_own(ctx, &mut self.world, self.me, s, &mut self.inputs);
        let after = carried(&self.world.players[self.me]);
        self.log.push(Move { seq: s.seq, input: s.input, extra: ctx.tick(), after });
        self.show(ctx.now());
    }

    /// The server's own-state message: reconciles (a correction, with the
    /// moves replayed) when the prediction was wrong.
    pub fn on_server(&mut self, ctx: &mut Ctx<'_>, frame: u32, server: PlayerState) {
        if frame <= self.newest_frame {
            return; // late: already reconciled against something newer
        }
        if frame as u64 > ctx.tick() + PLAUSIBLE_LEAD {
            return; // from the future: damaged, and it would block the rest
        }
        self.newest_frame = frame;
        if let Some(m) = self.log.pending().find(|m| m.seq == server.last_seq) {
            self.lead = Some(frame as i64 - m.extra as i64);
        }
        let shown = carried(&self.world.players[self.me]);
        if self.log.acknowledge(server.last_seq, &server, &shown, 0) {
            let p = &mut self.world.players[self.me];
            let keep = *p;
            *p = PlayerState {
                shots: keep.shots,
                hits: keep.hits,
                last_target: keep.last_target,
                items: keep.items,
                ..server
            };
            let (me, inputs) = (self.me, &mut self.inputs);
            let n = self.log.replay(&mut self.world, me, |w, s| step_own(ctx, w, me, s, inputs));
            for m in self.log.moves.iter_mut() {
                m.after = carried(&m.after);
            }
            ctx.report(Report::Correction);
            ctx.report(Report::Resimulated(n));
            self.show(ctx.now());
        }
    }

    /// The server time at which the server will apply an input sampled on
    /// local tick `tick` (ticks of `dt` µs), once an acknowledgement has
    /// measured the lead: where the other players should stand for the own
    /// player's prediction to meet them as the server will.
    pub fn apply_time(&self, tick: u64, dt: i64) -> Option<i64> {
        self.lead.map(|lead| (tick as i64 + lead - 1) * dt)
    }

    /// The own player's position and velocity now (for a client that
    /// places it among the entities it extrapolates).
    pub fn state(&self) -> &PlayerState {
        &self.world.players[self.me]
    }

    /// Draws the own player.
    pub fn render(&self, now: i64, view: &mut View) {
        self.lerp.render(now, view);
    }
}

/// Steps `world` with `own` for player `me` and nothing for the others
/// (they are placed where the client shows them before each step); the
/// step's inputs are written to `inputs`.
fn step_own(ctx: &Ctx<'_>, world: &mut State, me: usize, own: SeqInput, inputs: &mut Vec<SeqInput>) {
    let humans = ctx.game().humans(world);
    inputs.clear();
    inputs.extend((0..humans).map(|q| if q == me { own } else { SeqInput::default() }));
    ctx.game().step(world, inputs);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_state_messages_round_trip_and_reject_garbage() {
        let p = PlayerState {
            x: 1,
            y: -2,
            z: 3,
            vx: 4,
            vy: 5,
            vz: -6,
            prev_buttons: Input::JUMP,
            facing_x: -1,
            facing_y: 1,
            cooldown: 9,
            last_seq: 77,
            shots: 5,
            ..Default::default()
        };
        let b = encode_own(12, &p);
        assert_eq!(b.len(), 38);
        assert_eq!(decode_own(&b), Some((12, carried(&p))));
        for cut in 0..b.len() {
            assert!(decode_own(&b[..cut]).is_none());
        }
        let mut bad = b.clone();
        bad[34] = 7; // facing_x out of range
        assert!(decode_own(&bad).is_none());
    }

    #[test]
    fn acknowledging_drops_moves_and_judges_the_acked_prediction() {
        let mut log = MoveLog::new(10);
        for seq in 1..=4 {
            let after = PlayerState { x: seq as i32 * 100, ..Default::default() };
            log.push(Move { seq, input: Input::IDLE, extra: (), after });
        }
        let right = PlayerState { x: 200, ..Default::default() };
        assert!(!log.acknowledge(2, &right, &right, 0));
        assert_eq!(log.pending().len(), 2);
        let wrong = PlayerState { x: 333, ..Default::default() };
        assert!(log.acknowledge(3, &wrong, &wrong, 0));
        assert!(!log.acknowledge(3, &wrong, &wrong, 50), "within the threshold");
    }
}
