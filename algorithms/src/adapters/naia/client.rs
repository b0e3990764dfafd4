//! A client: naia's `Client`, predicting its own player and interpolating
//! the others the way naia's macroquad demo does.
//!
//! - **Own player.** On each of naia's client ticks the newest input goes
//!   to the server as a tick-buffered [`Command`], into naia's
//!   `CommandHistory`, and onto the predicted world. When naia brings the
//!   server's own body for tick T, the prediction restarts from it and
//!   replays the history after T (naia's `replays`). The screen
//!   interpolates between the last two predicted ticks by naia's
//!   `client_interpolation`.
//! - **Other entities.** Each update naia applies (on its receiving tick,
//!   behind its jitter buffer) moves the entity's target; the screen
//!   interpolates from the previous value by naia's `server_interpolation`.
//!
//! naia's demo runs its client loop every frame; here each screen drawn
//! polls naia's ticks and applies what they read (naia's interpolation
//! fractions move only when polled), and the node's tick receives and
//! sends. Before
//! naia connects, and for entities it has not brought yet, the screen
//! shows the initial world everyone knows (not under `--aoi`).

use super::protocol::{Body, Command, Commands};
use super::socket::{self, ClientSocket, Wire};
use super::world::{Entity, World};
use super::Clock;
use harness::contract::{Ctx, EntityView, Node, NodeId, RenderCtx, Report, Setup, View};
use harness::game::{Game, PlayerState, SeqInput, State};
use naia_client::shared::Tick;
use naia_client::{
    Client, ClientConfig, ClientTickEvent, CommandHistory, DespawnEntityEvent, InsertComponentEvent,
    UpdateComponentEvent,
};
use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

/// Ticks between identity requests until naia has its token (250 ms at
/// 60 Hz).
const REQUEST_EVERY: u64 = 15;

/// Client ticks of own predictions (and naia's command history) kept.
const KEPT_TICKS: usize = 256;

/// An entity as the screen interpolates it: from `from` to `to`.
#[derive(Clone, Copy)]
struct Remote {
    from: [i32; 3],
    from_frame: u32,
    to: [i32; 3],
    to_frame: u32,
}

struct Live {
    client: Client<Entity>,
    world: World,
    history: CommandHistory<Command>,
    /// naia's send budget has started filling (see [`ClientNode::on_tick`]).
    primed: bool,
}

/// The client node.
pub(super) struct ClientNode {
    me: usize,
    config: ClientConfig,
    tick: Duration,
    server: NodeId,
    clock: Clock,
    wire: Wire,
    live: Option<Live>,
    /// The newest input sampled.
    latest: SeqInput,
    /// The newest command sent (the server holds it until the next).
    sent: Command,
    /// The predicted world (its frame: the client tick's).
    predicted: State,
    /// The own player after each client tick's command, by tick.
    own_after: VecDeque<(Tick, PlayerState)>,
    /// The own player before and after the newest client tick.
    own_shown: (PlayerState, PlayerState),
    /// naia's entities → harness entity ids.
    ids: BTreeMap<Entity, u16>,
    /// Entities on screen, by id.
    remote: BTreeMap<u16, Remote>,
    /// Client ticks naia reported while a screen was drawn, handled on the
    /// next tick.
    polled: Vec<Tick>,
    /// Corrections made (frames replayed each) not yet reported.
    corrections: Vec<u32>,
    /// Entities in the world (ids naia brings beyond them are ignored).
    entities: usize,
    /// The newest frame naia told of (to unwrap its 16-bit ticks).
    newest_frame: u32,
    requested_at: u64,
}

impl ClientNode {
    pub(super) fn new(s: &Setup, player: usize, tick: Duration) -> ClientNode {
        let remote = if s.aoi.is_some_and(|a| a.filters()) {
            BTreeMap::new()
        } else {
            let at = |p: &PlayerState| [p.x, p.y, p.z];
            s.initial
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| (i as u16, Remote { from: at(p), from_frame: 0, to: at(p), to_frame: 0 }))
                .collect()
        };
        let own = s.initial.players[player];
        let config = ClientConfig {
            handshake_pings: s.options.number(&super::HANDSHAKE_PINGS) as u8,
            send_handshake_interval: Duration::from_millis(s.options.number(&super::HANDSHAKE_INTERVAL) as u64),
            ..ClientConfig::default()
        };
        ClientNode {
            me: player,
            config,
            tick,
            server: s.server(),
            clock: Clock::default(),
            wire: Wire::default(),
            live: None,
            latest: SeqInput::default(),
            sent: Command::of(SeqInput::default()),
            predicted: s.initial.clone(),
            own_after: VecDeque::new(),
            own_shown: (own, own),
            ids: BTreeMap::new(),
            remote,
            polled: Vec::new(),
            corrections: Vec::new(),
            entities: s.entities(),
            newest_frame: 0,
            requested_at: 0,
        }
    }

    /// naia's tick `t` as the frame the server stepped to on it (the
    /// server steps once per naia tick from its first, so they agree
    /// modulo 2^16), unwrapped near the newest frame known.
    fn frame_of(&self, t: Tick) -> u32 {
        let back = (self.newest_frame as u16).wrapping_sub(t) as i16 as i64;
        (self.newest_frame as i64 - back).max(0) as u32
    }

    fn flush(&self, ctx: &mut Ctx<'_>) {
        for (_, bytes) in self.wire.take_out() {
            ctx.send(self.server, bytes);
        }
    }

    /// Steps the predicted world by one of the own commands.
    fn step(&mut self, game: &Game, c: &Command) {
        let mut inputs = vec![SeqInput::default(); game.humans(&self.predicted)];
        if let Some(i) = inputs.get_mut(self.me) {
            *i = c.input();
        }
        game.step(&mut self.predicted, &inputs);
    }

    /// The steps of naia's client loop that its demo runs every frame,
    /// short of receiving and sending (which may answer with packets, and
    /// only a tick can send): poll the ticks (which reads the packets due
    /// on a new receiving tick and moves the interpolation fractions),
    /// apply what was read, and take in the events. The poll comes first
    /// (the demo applies before it), so a receiving tick's packets are
    /// applied as it begins rather than on the next pass. Returns the
    /// client ticks begun.
    fn poll(&mut self, game: &Game) -> Vec<Tick> {
        let now = naia_shared::Instant::now();
        let live = self.live.as_mut().expect("started");
        let ticks: Vec<Tick> = live.client.take_tick_events(&now).read::<ClientTickEvent>().collect();
        live.client.process_all_packets(live.world.proxy_mut(), &now);
        let mut events = live.client.take_world_events();
        self.apply_events(game, &mut events);
        ticks
    }

    /// naia's events: entities entering, leaving and moving.
    fn apply_events(&mut self, game: &Game, events: &mut naia_client::Events<Entity>) {
        // Leaving first: an entity that left scope and came back within a
        // batch is a despawn and a spawn, in that order.
        for e in events.read::<DespawnEntityEvent>() {
            if let Some(id) = self.ids.remove(&e) {
                self.remote.remove(&id);
            }
        }
        let live = self.live.as_mut().expect("started");
        for e in events.read::<InsertComponentEvent<Body>>() {
            let Some(b) = live.world.get::<Body>(&e) else { continue };
            if *b.id as usize >= self.entities {
                continue;
            }
            self.ids.insert(e, *b.id);
            let at = b.pos();
            // naia does not say which tick an entity's first state is of:
            // named as no frame until its first update.
            self.remote.insert(*b.id, Remote { from: at, from_frame: 0, to: at, to_frame: 0 });
        }
        let mut updates: Vec<(Tick, Entity)> = events.read::<UpdateComponentEvent<Body>>().collect();
        updates.sort_by_key(|&(t, e)| (self.frame_of(t), e));
        let mut own: Option<(u32, Tick, PlayerState)> = None;
        for (t, e) in updates {
            let live = self.live.as_ref().expect("started");
            let (Some(&id), Some(b)) = (self.ids.get(&e), live.world.get::<Body>(&e)) else { continue };
            let frame = self.frame_of(t);
            self.newest_frame = self.newest_frame.max(frame);
            if let Some(r) = self.remote.get_mut(&id) {
                if frame > r.to_frame {
                    *r = Remote { from: r.to, from_frame: r.to_frame, to: b.pos(), to_frame: frame };
                }
            }
            if id as usize == self.me && own.is_none_or(|(f, ..)| frame > f) {
                let mut p = PlayerState::default();
                b.apply(&mut p);
                own = Some((frame, t, p));
            }
        }
        if let Some((frame, t, server)) = own {
            self.reconcile(game, frame, t, server);
        }
    }

    /// The server's own player for tick `t`: restart the prediction there
    /// and replay the commands after it.
    fn reconcile(&mut self, game: &Game, frame: u32, t: Tick, server: PlayerState) {
        // naia's history drops the commands up to `t` whether or not the
        // prediction for `t` is still known.
        let replays = self.live.as_mut().expect("started").history.replays(&t);
        let Some(&(_, predicted)) = self.own_after.iter().find(|(k, _)| *k == t) else { return };
        let moved = |a: &PlayerState| (a.x, a.y, a.z, a.vx, a.vy, a.vz);
        let mispredicted = moved(&predicted) != moved(&server);
        // The fields naia does not carry (facing, cooldown, buttons, the
        // sequence number) are the own commands', as predicted.
        let mut own = predicted;
        (own.x, own.y, own.z, own.vx, own.vy, own.vz) = moved(&server);
        while self.own_after.front().is_some_and(|(k, _)| naia_shared::sequence_less_than(*k, t)) {
            self.own_after.pop_front();
        }
        for (id, r) in &self.remote {
            if let Some(p) = self.predicted.players.get_mut(*id as usize) {
                (p.x, p.y, p.z) = (r.to[0], r.to[1], r.to[2]);
            }
        }
        self.predicted.players[self.me] = own;
        self.predicted.frame = frame;
        for (k, c) in &replays {
            self.step(game, c);
            let after = self.predicted.players[self.me];
            if let Some(slot) = self.own_after.iter_mut().find(|(j, _)| j == k) {
                slot.1 = after;
            }
        }
        self.own_shown.1 = self.predicted.players[self.me];
        if mispredicted {
            self.corrections.push(replays.len() as u32);
        }
    }
}

impl Node for ClientNode {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        if let Some(s) = ctx.sample_input() {
            self.latest = s;
        }
        self.clock.set(ctx.now());
        let (tick, wire, server, config) = (self.tick, &self.wire, socket::address(self.server.0), &self.config);
        let live = self.live.get_or_insert_with(|| {
            let mut client = Client::new(config.clone(), super::protocol::protocol(tick));
            client.connect(
                Box::new(ClientSocket { wire: wire.clone(), server }) as Box<dyn naia_client::transport::Socket>
            );
            Live { client, world: World::default(), history: CommandHistory::default(), primed: false }
        });
        if !live.client.connection_status().is_connected() {
            if !self.wire.lock().identified && ctx.tick() >= self.requested_at + REQUEST_EVERY {
                self.requested_at = ctx.tick();
                self.wire.request(server);
            }
            live.client.receive_all_packets();
            live.client.send_all_packets(live.world.proxy());
            self.flush(ctx);
            return;
        }
        self.live.as_mut().expect("started").client.receive_all_packets();
        let mut ticks = std::mem::take(&mut self.polled);
        ticks.extend(self.poll(ctx.game()));
        for replayed in std::mem::take(&mut self.corrections) {
            ctx.report(Report::Correction);
            ctx.report(Report::Resimulated(replayed));
        }
        // One command per update, on its newest client tick, as naia's demo
        // sends its queued command: when naia's sending clock jumps several
        // ticks at once the server holds the previous command over the ones
        // skipped, and the prediction does the same.
        //
        // None on the first update after connecting: naia's send budget
        // starts empty, so that update's packet is deferred, and a deferred
        // tick-buffered command is queued again beside its copy on the next
        // send, out of order, where naia 0.25 panics ("can't encode a
        // negative number", channel_tick_buffer_sender.rs). That update only
        // starts the budget filling.
        let primed = self.live.as_ref().is_some_and(|l| l.primed);
        for (k, t) in ticks.iter().enumerate() {
            let newest = k + 1 == ticks.len() && primed;
            let c = if newest { Command::of(self.latest) } else { self.sent };
            let live = self.live.as_mut().expect("started");
            if !live.history.can_insert(t) {
                continue;
            }
            live.history.insert(*t, c);
            if newest {
                live.client.send_tick_buffer_message::<Commands, Command>(t, &c);
                self.sent = c;
            }
            let before = self.predicted.players[self.me];
            self.step(ctx.game(), &c);
            self.own_shown = (before, self.predicted.players[self.me]);
            self.own_after.push_back((*t, self.own_shown.1));
            // Four seconds at 60 Hz of ticks to find the one the server
            // answers for; naia's history is kept as long (an idle player
            // gets no answers that would trim it).
            if self.own_after.len() > KEPT_TICKS {
                self.own_after.pop_front();
                let oldest = self.own_after.front().map(|(k, _)| k.wrapping_sub(1));
                if let (Some(oldest), Some(live)) = (oldest, self.live.as_mut()) {
                    live.history.replays(&oldest);
                }
            }
        }
        let live = self.live.as_mut().expect("started");
        if !ticks.is_empty() || !live.primed {
            live.client.send_all_packets(live.world.proxy());
            live.primed = true;
        }
        self.flush(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        self.wire.receive(socket::address(from.0), bytes);
        self.clock.set(ctx.now());
        if let Some(live) = self.live.as_mut() {
            live.client.receive_all_packets();
            if !live.client.connection_status().is_connected() {
                live.client.send_all_packets(live.world.proxy());
            }
        }
        self.flush(ctx);
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        self.clock.set(ctx.now());
        // naia's interpolation fractions move when its ticks are polled,
        // which its demo does every frame: so does the screen here. Client
        // ticks begun are handled (a command sent) on the next tick, as
        // they would be without the poll; until then the own player shows
        // its newest predicted state.
        if self.live.as_ref().is_some_and(|l| l.client.connection_status().is_connected()) {
            let begun = self.poll(ctx.game());
            self.polled.extend(begun);
        }
        let live = self.live.as_ref();
        let connected = live.is_some_and(|l| l.client.connection_status().is_connected());
        let fraction = |f: Option<f32>| if connected { f.unwrap_or(1.0).clamp(0.0, 1.0) as f64 } else { 1.0 };
        let own_f =
            if self.polled.is_empty() { fraction(live.and_then(|l| l.client.client_interpolation())) } else { 1.0 };
        let remote_f = fraction(live.and_then(|l| l.client.server_interpolation()));
        let receiving = live.and_then(|l| l.client.server_tick()).map(|t| self.frame_of(t));
        let lerp = |a: [i32; 3], b: [i32; 3], f: f64| {
            let mut out = [0; 3];
            for k in 0..3 {
                out[k] = (a[k] as f64 + (b[k] - a[k]) as f64 * f).round() as i32;
            }
            out
        };
        let (a, b) = self.own_shown;
        let own = lerp([a.x, a.y, a.z], [b.x, b.y, b.z], own_f);
        // Named by the older of the two predicted states it lies between.
        let own_seq = if own_f >= 1.0 { b.last_seq } else { a.last_seq };
        view.entities.reserve(self.remote.len() + 1);
        let me = self.me as u16;
        let mut own_drawn = false;
        for (&id, r) in &self.remote {
            if id > me && !own_drawn {
                view.entities.push(EntityView { id: me, x: own[0], y: own[1], z: own[2], seq: own_seq, frame: 0 });
                own_drawn = true;
            }
            if id == me {
                continue;
            }
            // An entity naia updated for its current receiving tick moves
            // from the state before it by naia's fraction; one not updated
            // for it (lost, or standing still) is drawn as last updated.
            let (pos, frame) = if Some(r.to_frame) == receiving && r.from_frame < r.to_frame {
                (lerp(r.from, r.to, remote_f), r.from_frame)
            } else {
                (r.to, r.to_frame)
            };
            view.entities.push(EntityView { id, x: pos[0], y: pos[1], z: pos[2], seq: 0, frame });
        }
        if !own_drawn {
            view.entities.push(EntityView { id: me, x: own[0], y: own[1], z: own[2], seq: own_seq, frame: 0 });
        }
    }
}
