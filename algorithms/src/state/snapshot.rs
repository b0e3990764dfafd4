//! `snapshot` and `delta-snapshot`: the server sends every client the whole
//! world every tick (Quake, Ushen); the delta variant encodes each
//! snapshot against the last one the client acknowledged (Quake 3), so an
//! entity that did not move costs one byte.
//!
//! Both quantize positions to millimetres and write each changed field as
//! a byte-aligned zigzag varint after a one-byte change mask (see
//! [`crate::support::delta`]; no bit packing); `snapshot` always encodes against nothing,
//! `delta-snapshot` against the newest snapshot the client acknowledged —
//! or against nothing when it has acknowledged none the server still
//! holds. A client that missed snapshots still decodes: the baseline is
//! always one it has. Clients show their own player as the newest
//! snapshot has it (no prediction: bandwidth is the point here) and the
//! others `interp` ms in the past, interpolated.
//!
//! Both handle server-driven bots, and with `--aoi grid|crosslist` send
//! each client only its area of interest (see `aoi_snapshot.rs`).
//!
//! Wire: input, client → server: as [`crate::support::uplink`], then `ack:
//! u32` (newest snapshot frame decoded); snapshot:
//! [`crate::support::delta`] ([`crate::support::sparse_delta`] under an
//! area of interest).

use super::aoi_snapshot::{AoiClient, AoiServer};
use crate::support::arrival_clock::{interp_us, ArrivalClock, INTERP};
use crate::support::delta::{self, quantize, quantize_into, Quantized, HISTORY};
use crate::support::interpolation::{Dry, InterpolationBuffer, Snap};
use crate::support::render_lerp::TickLerp;
use crate::support::shared_decode::decode_shared;
use crate::support::uplink::{InputUplink, ServerInputs, INPUT_BUFFER, MAX_QUEUE, REDUNDANCY};
use harness::contract::{Algorithm, Ctx, EntityView, Node, NodeId, OptionSpec, RenderCtx, Setup, Topology, View};
use harness::game::State;
use harness::parallel;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// The algorithm: full snapshots, or deltas against the acknowledged one.
pub struct Snapshots {
    /// Name on the command line.
    pub name: &'static str,
    /// Encode against the client's acknowledged snapshot.
    pub delta: bool,
}

/// `snapshot`.
pub const SNAPSHOT: Snapshots = Snapshots { name: "snapshot", delta: false };
/// `delta-snapshot`.
pub const DELTA_SNAPSHOT: Snapshots = Snapshots { name: "delta-snapshot", delta: true };

impl Algorithm for Snapshots {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        if self.delta {
            "delta snapshots against the last one the client acknowledged: millimetres, a change mask and byte-aligned varints per entity (Quake 3, Ushen)"
        } else {
            "the whole world to every client every tick, millimetres as byte-aligned varints (Quake, Ushen)"
        }
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[INTERP, REDUNDANCY, INPUT_BUFFER, MAX_QUEUE]
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn handles_aoi(&self) -> bool {
        true
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        if let Some(aoi) = s.aoi.filter(|a| a.filters()) {
            return Box::new(AoiServer::new(s, &aoi, self.delta));
        }
        Box::new(Server {
            state: s.initial.clone(),
            inputs: ServerInputs::from_setup(s),
            history: VecDeque::new(),
            acked: vec![0; s.players],
            delta: self.delta,
            spare: Vec::new(),
        })
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        let interp_us = interp_us(&s.options);
        if s.aoi.is_some_and(|a| a.filters()) {
            return Box::new(AoiClient::new(s, player, interp_us));
        }
        let dt = 1_000_000 / s.tick_hz.max(1) as i64;
        let world = Arc::new(quantize(&s.initial));
        // Two seconds of snapshots; half a second in large worlds (memory).
        // Gaps of more than six ticks are not interpolated across.
        let mut interp = InterpolationBuffer::new(if world.len() > 64 { 32 } else { 128 }).max_span(6 * dt);
        interp.push(snap(0, &world, dt));
        Box::new(Client {
            me: player,
            dt,
            own: {
                let mut l = TickLerp::new(s.entities(), dt);
                let q = &world[player];
                let at = q.um();
                l.set(0, &[EntityView { id: player as u16, x: at[0], y: at[1], z: at[2], ..Default::default() }]);
                l
            },
            kept: BTreeMap::from([(0, world)]),
            newest: 0,
            interp,
            clock: ArrivalClock::default(),
            interp_us,
            uplink: InputUplink::from_options(&s.options),
        })
    }
}

/// A decoded world as interpolation holds it: the baseline's own copy.
fn snap(frame: u32, world: &Arc<Vec<Quantized>>, dt: i64) -> Snap<Arc<Vec<Quantized>>> {
    Snap {
        time_us: (frame as i64 - 1) * dt,
        frame,
        pos: Arc::clone(world),
        // The codecs carry no velocity: none stored (12 bytes per entity per
        // buffered snapshot, per client, add up in large worlds).
        vel: Vec::new(),
    }
}

struct Server {
    state: State,
    inputs: ServerInputs,
    history: VecDeque<(u32, Vec<Quantized>)>,
    acked: Vec<u32>,
    delta: bool,
    /// The buffer the next tick's quantized world is made in.
    spare: Vec<Quantized>,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, self.inputs.for_tick());
        self.inputs.send_paces(ctx);
        ctx.publish_authority(&self.state);
        let mut world = std::mem::take(&mut self.spare);
        quantize_into(&self.state, &mut world);
        let frame = self.state.frame;
        // A client's snapshot depends only on the frame it acknowledged
        // (none, without deltas): clients that acknowledged the same one get
        // the same bytes, so each baseline's snapshot is encoded once (on
        // several cores when there are many and the world is large: the
        // harness's `parallel::map` keeps their order) and every client is
        // sent a copy of its own, in client order.
        let (history, delta) = (&self.history, self.delta);
        let encode = |&acked: &u32| {
            let base = history.iter().find(|(f, _)| *f == acked && *f != 0).map(|(f, w)| (*f, w.as_slice()));
            delta::encode(frame, &world, base)
        };
        let acked = &self.acked[..self.inputs.players()];
        let baseline = |a: u32| if delta { a } else { 0 };
        let mut bases: Vec<u32> = acked.iter().map(|&a| baseline(a)).collect();
        bases.sort_unstable();
        bases.dedup();
        let parts = parallel::parts(bases.len() * world.len(), bases.len());
        let made = parallel::map(&bases, parts, encode);
        for (p, &a) in acked.iter().enumerate() {
            let msg = &made[bases.binary_search(&baseline(a)).expect("every client's baseline is encoded")];
            let mut copy = harness::buffers::take(msg.len());
            copy.extend_from_slice(msg);
            ctx.send(ctx.setup().node_of_player(p), copy);
        }
        made.into_iter().for_each(harness::buffers::give);
        self.history.push_back((frame, world));
        while self.history.len() > HISTORY {
            // The oldest world's buffer takes the next tick's.
            self.spare = self.history.pop_front().expect("longer than kept").1;
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        let Some(ack) = self.inputs.receive(p, ctx.now(), bytes, |r| r.u32()) else { return };
        if ack <= self.state.frame {
            self.acked[p] = self.acked[p].max(ack);
        }
    }
}

struct Client {
    me: usize,
    dt: i64,
    /// Decoded snapshots the server may use as baselines.
    kept: BTreeMap<u32, Arc<Vec<Quantized>>>,
    newest: u32,
    /// The own player, moved to each newer snapshot over a tick.
    own: TickLerp,
    interp: InterpolationBuffer<Arc<Vec<Quantized>>>,
    clock: ArrivalClock,
    interp_us: i64,
    uplink: InputUplink,
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let newest = self.newest;
        self.uplink.send_tick(ctx, |w| {
            w.u32(newest);
        });
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        if self.uplink.pacer.on_packet(bytes) {
            return;
        }
        let Some((frame, base)) = delta::header(bytes) else { return };
        if self.kept.contains_key(&frame) {
            return;
        }
        let baseline = if base == 0 { None } else { self.kept.get(&base) };
        if base != 0 && baseline.is_none() {
            return; // a baseline we no longer hold: wait for the next one
        }
        // The world another client decoded from the same bytes against the
        // same baseline, or a new one (see `shared_decode`).
        let Some((frame, world)) = decode_shared(bytes, baseline) else { return };
        if world.len() != ctx.setup().entities() {
            return;
        }
        self.clock.on_frame(frame, self.dt, ctx.now());
        self.interp.push(snap(frame, &world, self.dt));
        if frame > self.newest {
            let q = &world[self.me];
            let at = q.um();
            self.own.set(ctx.now(), &[EntityView { id: self.me as u16, x: at[0], y: at[1], z: at[2], seq: 0, frame }]);
        }
        self.kept.insert(frame, world);
        self.newest = self.newest.max(frame);
        while self.kept.len() > HISTORY {
            self.kept.pop_first();
        }
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        let Some(newest) = self.kept.get(&self.newest) else { return };
        let t = self.clock.draw_time(ctx.now(), self.interp_us);
        // The snapshots around the instant, found once for every entity.
        let at = t.and_then(|t| self.interp.at(t));
        view.entities.reserve(newest.len());
        for (i, q) in newest.iter().enumerate() {
            let (pos, frame) = if i == self.me {
                self.own.render(ctx.now(), view);
                continue;
            } else {
                match at.as_ref().and_then(|at| at.sample(i, Dry::Hold)) {
                    Some(s) => (s.pos, s.frame),
                    None => (q.um(), self.newest),
                }
            };
            view.entities.push(EntityView { id: i as u16, x: pos[0], y: pos[1], z: pos[2], seq: 0, frame });
        }
    }
}
