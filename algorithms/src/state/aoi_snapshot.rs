//! `snapshot` and `delta-snapshot` under an area of interest (`--aoi grid`
//! or `crosslist`, antsmallant): the server tells each client only about the
//! entities within its view radius (plus hysteresis before they leave),
//! as leave / enter / move events against the view the client
//! acknowledged ([`crate::support::sparse_delta`]); `snapshot` sends the
//! whole view every tick (everything enters).
//!
//! Server, each tick: step, file every entity's position in the index
//! ([`crate::interest::index_for`]), recompute each client's visible set
//! ([`crate::interest::InterestSets`]), and encode the client's view (the
//! visible set plus its own player). Client: keeps the views it decoded,
//! shows its own player as the newest has it and every other entity of the
//! view in force `interp` ms ago, interpolated towards the next view that
//! still holds it — so an entity appears when the view that brought it is
//! due, and disappears when the view that dropped it is.

use crate::interest::{index_for, InterestSets, Pos, SpatialIndex};
use crate::support::arrival_clock::ArrivalClock;
use crate::support::delta::{quantize, Quantized, HISTORY};
use crate::support::render_lerp::TickLerp;
use crate::support::sparse_delta::{self, SparseWorld};
use crate::support::uplink::{InputUplink, ServerInputs};
use harness::contract::{Ctx, EntityView, Node, NodeId, RenderCtx, Report, Setup, View};
use harness::game::State;
use harness::parallel;
use harness::world::Aoi;
use std::collections::{BTreeMap, VecDeque};

pub(crate) struct AoiServer {
    state: State,
    inputs: ServerInputs,
    delta: bool,
    acked: Vec<u32>,
    /// Per client, the views sent (delta only).
    sent: Vec<VecDeque<(u32, SparseWorld)>>,
    index: Box<dyn SpatialIndex + Send + Sync>,
    sets: InterestSets,
    positions: Vec<Pos>,
}

impl AoiServer {
    pub(crate) fn new(s: &Setup, aoi: &Aoi, delta: bool) -> AoiServer {
        let watchers = (0..s.players as u32).map(|p| (p, aoi.radius_um)).collect();
        AoiServer {
            state: s.initial.clone(),
            inputs: ServerInputs::from_setup(s),
            delta,
            acked: vec![0; s.players],
            sent: vec![VecDeque::new(); s.players],
            index: index_for(aoi),
            sets: InterestSets::new(watchers, aoi.hysteresis_um),
            positions: Vec::new(),
        }
    }
}

impl Node for AoiServer {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, self.inputs.for_tick());
        self.inputs.send_paces(ctx);
        ctx.publish_authority(&self.state);
        self.positions.clear();
        self.positions.extend(self.state.players.iter().map(|p| [p.x, p.y]));
        self.index.update(&self.positions);
        let before = self.sets.examined();
        self.sets.update_on_cores(self.index.as_ref(), &self.positions);
        ctx.report(Report::IndexWork { examined: self.sets.examined() - before });
        let frame = self.state.frame;
        let world = quantize(&self.state);
        let entry = |e: u32| (e as u16, world[e as usize]);
        // Each client's view and snapshot are made on their own (on several
        // cores when there is enough to make: `parallel::map` keeps their
        // order), then sent and kept in client order.
        let (sets, sent, acked) = (&self.sets, &self.sent, &self.acked);
        let delta = self.delta;
        let view_of = |&p: &usize| {
            let visible = sets.visible(p);
            let mut view: SparseWorld = Vec::with_capacity(visible.len() + 1);
            let own = visible.partition_point(|&e| e < p as u32);
            view.extend(visible[..own].iter().map(|&e| entry(e)));
            view.push(entry(p as u32));
            view.extend(visible[own..].iter().map(|&e| entry(e)));
            let sent = &sent[p];
            let base = if delta {
                let acked = acked[p];
                sent.iter().find(|(f, _)| *f == acked && acked != 0).map(|(f, w)| (*f, w.as_slice()))
            } else {
                None
            };
            let msg = sparse_delta::encode(frame, &view, base);
            (view, msg)
        };
        let clients: Vec<usize> = (0..self.inputs.players()).collect();
        let work = clients.iter().map(|&p| sets.visible(p).len() + 1).sum();
        let made = parallel::map(&clients, parallel::parts(work, clients.len()), view_of);
        for (p, (view, msg)) in made.into_iter().enumerate() {
            ctx.send(ctx.setup().node_of_player(p), msg);
            if self.delta {
                let sent = &mut self.sent[p];
                sent.push_back((frame, view));
                while sent.len() > HISTORY {
                    sent.pop_front();
                }
            }
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

pub(crate) struct AoiClient {
    me: u16,
    dt: i64,
    entities: usize,
    /// Decoded views by frame (baselines and the interpolation history).
    kept: BTreeMap<u32, SparseWorld>,
    newest: u32,
    /// The own player, moved to each newer view over a tick.
    own: TickLerp,
    clock: ArrivalClock,
    interp_us: i64,
    uplink: InputUplink,
}

impl AoiClient {
    pub(crate) fn new(s: &Setup, player: usize, interp_us: i64) -> AoiClient {
        AoiClient {
            me: player as u16,
            dt: 1_000_000 / s.tick_hz.max(1) as i64,
            entities: s.entities(),
            kept: BTreeMap::new(),
            newest: 0,
            own: TickLerp::new(s.entities(), 1_000_000 / s.tick_hz.max(1) as i64),
            clock: ArrivalClock::default(),
            interp_us,
            uplink: InputUplink::from_options(&s.options),
        }
    }
}

fn lookup(view: &[(u16, Quantized)], id: u16) -> Option<&Quantized> {
    view.binary_search_by_key(&id, |e| e.0).ok().map(|k| &view[k].1)
}

impl Node for AoiClient {
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
        let Some((frame, base)) = sparse_delta::header(bytes) else { return };
        if frame == 0 || self.kept.contains_key(&frame) {
            return;
        }
        let baseline = if base == 0 { None } else { self.kept.get(&base).map(Vec::as_slice) };
        if base != 0 && baseline.is_none() {
            return; // a baseline we no longer hold: wait for the next one
        }
        let Some((frame, view)) = sparse_delta::decode(bytes, baseline) else { return };
        if view.last().is_some_and(|e| e.0 as usize >= self.entities) {
            return;
        }
        self.clock.on_frame(frame, self.dt, ctx.now());
        if frame > self.newest {
            if let Some(q) = lookup(&view, self.me) {
                let at = q.um();
                self.own.set(ctx.now(), &[EntityView { id: self.me, x: at[0], y: at[1], z: at[2], seq: 0, frame }]);
            }
        }
        self.kept.insert(frame, view);
        self.newest = self.newest.max(frame);
        while self.kept.len() > HISTORY {
            self.kept.pop_first();
        }
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        let Some(newest) = self.kept.get(&self.newest) else { return };
        let show =
            |id: u16, pos: [i32; 3], frame: u32| EntityView { id, x: pos[0], y: pos[1], z: pos[2], seq: 0, frame };
        if self.own.is_set() {
            self.own.render(ctx.now(), view);
        } else if let Some(q) = lookup(newest, self.me) {
            view.entities.push(show(self.me, q.um(), self.newest));
        }
        // The view in force at the display time, and the next one.
        let (fa, a, b, k, span) = match self.clock.draw_time(ctx.now(), self.interp_us) {
            None => (self.newest, newest, None, 0, 1),
            Some(t) => {
                let due = (t.div_euclid(self.dt) + 1).max(0) as u32;
                let a = self.kept.range(..=due).next_back().or_else(|| self.kept.first_key_value());
                let Some((&fa, a)) = a else { return };
                let b = self.kept.range(fa + 1..).next();
                let ta = (fa as i64 - 1) * self.dt;
                match b {
                    Some((&fb, b)) => {
                        let span = ((fb - fa) as i64 * self.dt).max(1);
                        (fa, a, Some(b), (t - ta).clamp(0, span), span)
                    }
                    None => (fa, a, None, 0, 1),
                }
            }
        };
        // Both views are ascending by id (the codec's gaps make them so):
        // the next view's entities are found by walking it alongside.
        let mut in_b = 0;
        for (id, qa) in a.iter().filter(|e| e.0 != self.me) {
            let pa = qa.um();
            let qb = b.and_then(|b| {
                in_b = sparse_delta::seek(b, in_b, *id);
                b.get(in_b).filter(|e| e.0 == *id).map(|e| &e.1)
            });
            let pos = match qb {
                Some(qb) => {
                    let pb = qb.um();
                    let lerp = |x: i32, y: i32| (x as i64 + (y as i64 - x as i64) * k / span) as i32;
                    [lerp(pa[0], pb[0]), lerp(pa[1], pb[1]), lerp(pa[2], pb[2])]
                }
                None => pa,
            };
            view.entities.push(show(*id, pos, fa));
        }
    }
}
