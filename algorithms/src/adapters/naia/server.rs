//! The server: naia's `Server` replicating the reference game.
//!
//! On each of naia's ticks it reads the commands buffered for that tick,
//! steps the game (a player whose command did not come keeps its last
//! input), copies every entity's position and velocity into its [`Body`]
//! and has naia send. Every entity is in one room; with `--aoi` each
//! client's scope is recomputed every tick from the view radius (naia's
//! scopes are the area of interest), otherwise everything is in scope.

use super::protocol::{Body, Command, Commands};
use super::socket::{self, ServerSocket, Wire};
use super::world::{Entity, World};
use super::Clock;
use harness::contract::{Ctx, Node, NodeId, Setup};
use harness::game::{SeqInput, State};
use harness::world::Aoi;
use naia_server::{ConnectEvent, RoomKey, Server, ServerConfig, TickEvent, UserKey};
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

struct Live {
    server: Server<Entity>,
    world: World,
    room: RoomKey,
    /// naia's entity of each harness entity.
    entities: Vec<Entity>,
    /// The harness entity of each of naia's.
    ids: BTreeMap<Entity, usize>,
}

/// The server node.
pub(super) struct ServerNode {
    setup: Setup,
    tick: Duration,
    clock: Clock,
    wire: Wire,
    live: Option<Live>,
    state: State,
    /// The command each player's last came with.
    inputs: Vec<SeqInput>,
}

impl ServerNode {
    pub(super) fn new(s: &Setup, tick: Duration) -> ServerNode {
        ServerNode {
            setup: s.clone(),
            tick,
            clock: Clock::default(),
            wire: Wire::default(),
            live: None,
            state: s.initial.clone(),
            inputs: vec![SeqInput::default(); s.players],
        }
    }

    /// naia, started on the first call (it reads its clock when made).
    fn live(&mut self) -> &mut Live {
        let (tick, wire, state) = (self.tick, &self.wire, &self.state);
        self.live.get_or_insert_with(|| {
            // No credentials asked: naia hands out identity tokens at once.
            let config = ServerConfig { require_auth: false, ..ServerConfig::default() };
            let mut server = Server::new(config, super::protocol::protocol(tick));
            server.listen(Box::new(ServerSocket(wire.clone())) as Box<dyn naia_server::transport::Socket>);
            let mut world = World::default();
            let room = server.create_room().key();
            let entities = state
                .players
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    server
                        .spawn_entity(world.proxy_mut())
                        .enter_room(&room)
                        .insert_component(Body::of(i as u16, p))
                        .id()
                })
                .collect::<Vec<Entity>>();
            let ids = entities.iter().enumerate().map(|(i, e)| (*e, i)).collect();
            Live { server, world, room, entities, ids }
        })
    }

    fn flush(&self, ctx: &mut Ctx<'_>) {
        let mut out = self.wire.take_out();
        // naia sends to its users in an order of its own (a `HashMap`'s
        // keys, shuffled by an unseeded generator): sorted, the datagrams
        // enter the links in one order run to run. Each client's own
        // datagrams keep naia's order (the sort is stable).
        out.sort_by_key(|(a, _)| socket::node_of(a));
        for (to, bytes) in out {
            if let Some(n) = socket::node_of(&to) {
                ctx.send(NodeId(n), bytes);
            }
        }
    }

    /// Brings every client's scope up to date.
    fn scope(&mut self, aoi: Option<Aoi>) {
        let live = self.live.as_mut().expect("started");
        if aoi.is_some() {
            live.server.mark_all_scope_checks_pending();
        }
        let mut pending = live.server.scope_checks_pending();
        pending.sort_by_key(|(_, _, e)| *e);
        for (_, user, entity) in pending {
            let Some(p) = player_of(&self.setup, &live.server, &user) else { continue };
            let Some(&i) = live.ids.get(&entity) else { continue };
            let mut scope = live.server.user_scope_mut(&user);
            match aoi {
                None => {
                    scope.include(&entity);
                }
                Some(aoi) => {
                    let (a, b) = (&self.state.players[p], &self.state.players[i]);
                    let (dx, dy) = (a.x as i64 - b.x as i64, a.y as i64 - b.y as i64);
                    let d2 = dx * dx + dy * dy;
                    let leave = aoi.leave_radius_um();
                    if i == p || d2 < aoi.radius_um * aoi.radius_um {
                        scope.include(&entity);
                    } else if d2 > leave * leave {
                        scope.exclude(&entity);
                    }
                }
            }
        }
        live.server.mark_scope_checks_pending_handled();
    }
}

/// The player whose client `user` is.
fn player_of(setup: &Setup, server: &Server<Entity>, user: &UserKey) -> Option<usize> {
    let node = socket::node_of(&server.user_address(user)?)?;
    setup.player_of_node(NodeId(node))
}

impl Node for ServerNode {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        self.clock.set(ctx.now());
        let now = naia_shared::Instant::now();
        let room = self.live().room;
        let live = self.live.as_mut().expect("started");
        live.server.receive_all_packets();
        live.server.process_all_packets(live.world.proxy_mut(), &now);
        let mut events = live.server.take_world_events();
        let connected: Vec<UserKey> = events.read::<ConnectEvent>().collect();
        for user in connected {
            live.server.user_mut(&user).enter_room(&room);
        }
        let ticks: Vec<_> = live.server.take_tick_events(&now).read::<TickEvent>().collect();
        for tick in &ticks {
            let mut buffered = self.live.as_mut().expect("started").server.receive_tick_buffer_messages(tick);
            let mut commands: Vec<(usize, Command)> = Vec::new();
            for (user, c) in buffered.read::<Commands, Command>() {
                if let Some(p) = player_of(&self.setup, &self.live.as_ref().expect("started").server, &user) {
                    commands.push((p, c));
                }
            }
            for (p, c) in commands {
                self.inputs[p] = c.input();
            }
            ctx.game().step(&mut self.state, &self.inputs);
            ctx.publish_authority(&self.state);
            let live = self.live.as_mut().expect("started");
            for (e, p) in live.entities.iter().zip(&self.state.players) {
                if let Some(mut body) = live.server.entity_mut(live.world.proxy_mut(), e).component::<Body>() {
                    body.set(p);
                }
            }
        }
        if !ticks.is_empty() {
            self.scope(self.setup.aoi.filter(|a| a.filters()));
            let live = self.live.as_mut().expect("started");
            live.server.send_all_packets(live.world.proxy());
        }
        self.flush(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let at: SocketAddr = socket::address(from.0);
        self.wire.receive(at, bytes);
        self.clock.set(ctx.now());
        let now = naia_shared::Instant::now();
        let live = self.live();
        live.server.receive_all_packets();
        live.server.process_all_packets(live.world.proxy_mut(), &now);
        self.flush(ctx);
    }
}
