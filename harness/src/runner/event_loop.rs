//! The event loop: one simulated run, an event at a time in `(time,
//! class, insertion)` order, from the first tick to the run's duration.
//!
//! [`EventLoop::run`] hands each event to its method: a tick or a packet
//! runs a node's code in the one [`Ctx`] [`Surroundings::ctx`] makes, and
//! what the node sent goes through its transport onto the wire
//! ([`EventLoop::send_outbox`]); a render instant draws every screen due
//! then and has the recorder judge them together.

use super::config::{RunConfig, RunError, RunResult};
use super::events::{Dir, Ev, NodeSlot, Packet};
use super::network::{Network, Transports};
use super::prepare::{node_parts, prepare, runs_on_pool, NodeParts, Prepared};
use super::recording::Recording;
use crate::contract::{Algorithm, Ctx, NodeId, RenderCtx, Setup, View};
use crate::event::{EventClass, Scheduler};
use crate::game::Game;
use crate::metrics::deferred::Deferred;
use crate::net::plan::NetworkPlan;
use crate::net::transport::Output;
use crate::net::{LinkStats, MAX_UDP_PAYLOAD};
use crate::parallel;
use crate::time::{Micros, Periodic};
use crate::trace::Trace;

/// What every node's code sees: the setup, the game, the outbox it sends
/// into and the recorder it reports to.
struct Surroundings<'t> {
    setup: Setup,
    game: Game,
    outbox: Vec<(NodeId, Vec<u8>)>,
    rec: Recording<'t>,
}

impl Surroundings<'_> {
    /// The context node `me` (in `slot`) runs its code in at `now`.
    fn ctx(&mut self, now: Micros, slot: &NodeSlot, me: usize) -> Ctx<'_> {
        Ctx {
            now_global: now,
            now_local: slot.clock.local_at(now),
            tick: slot.ticks,
            me: NodeId(me as u16),
            setup: &self.setup,
            game: &self.game,
            outbox: &mut self.outbox,
            recorder: self.rec.observer(),
        }
    }
}

/// One run in progress.
pub(super) struct EventLoop<'t> {
    cfg: &'t RunConfig,
    env: Surroundings<'t>,
    slots: Vec<NodeSlot>,
    sched: Scheduler<Ev>,
    net: Network,
    transports: Transports,
    /// A big run on a pool of several threads judges each render instant's
    /// batch on another core while its events go on (see `Recording`).
    overlap: bool,
    /// Messages a transport delivered, for the node (the buffer kept).
    delivered: Vec<Vec<u8>>,
    /// The screens rendering at one instant, and their views.
    rendering: Vec<usize>,
    views: Vec<(usize, View)>,
    /// Entities the last render instant's screens drew.
    last_drawn: usize,
    /// Events handled.
    events: u64,
}

impl<'t> EventLoop<'t> {
    /// The run's nodes, links and recorder, each node's first tick and
    /// render scheduled.
    pub(super) fn new(
        algorithm: &dyn Algorithm,
        plan: &NetworkPlan,
        trace: &'t Trace,
        cfg: &'t RunConfig,
    ) -> Result<EventLoop<'t>, RunError> {
        let Prepared { game, setup, recorder } = prepare(algorithm, plan, trace, cfg)?;
        let overlap = runs_on_pool(cfg) && rayon::current_thread_index().is_some();
        let players = recorder.players();
        let slots: Vec<NodeSlot> = (0..setup.nodes()).map(|n| node_slot(algorithm, &setup, plan, cfg, n)).collect();
        let mut sched = Scheduler::new();
        for (i, s) in slots.iter().enumerate() {
            sched.push(s.tick.firing(&s.clock, 0), EventClass::Tick, Ev::Tick(i));
            if let Some((r, _)) = s.render {
                sched.push(r.firing(&s.clock, 0), EventClass::Render, Ev::Render(i));
            }
        }
        Ok(EventLoop {
            cfg,
            env: Surroundings {
                setup,
                game,
                outbox: Vec::new(),
                rec: Recording::new(recorder, Deferred::new(trace, players)),
            },
            slots,
            sched,
            net: Network::default(),
            transports: Transports::new(cfg.transport, cfg.seed),
            overlap,
            delivered: Vec::new(),
            rendering: Vec::new(),
            views: Vec::new(),
            last_drawn: 0,
            events: 0,
        })
    }

    /// Runs every event before the run's end, calling `progress` at each
    /// whole simulated second reached, and measures.
    pub(super) fn run(mut self, progress: &mut dyn FnMut(Micros)) -> RunResult {
        let end = Micros(self.cfg.duration_us);
        let wall_start = self.cfg.paced.then(std::time::Instant::now);
        let mut next_second = 1_000_000;
        while let Some((now, ev)) = self.sched.pop() {
            if now >= end {
                break; // the run covers [0, duration)
            }
            if now.0 >= next_second {
                progress(Micros(now.0 - now.0 % 1_000_000));
                next_second = now.0 - now.0 % 1_000_000 + 1_000_000;
            }
            if let Some(start) = wall_start {
                let ahead = std::time::Duration::from_micros(now.0).saturating_sub(start.elapsed());
                if !ahead.is_zero() {
                    std::thread::sleep(ahead);
                }
            }
            self.events += 1;
            match ev {
                Ev::Tick(i) => self.on_tick(now, i),
                Ev::Render(i) => self.on_render(now, i),
                Ev::Core(p) => {
                    let to = p.to.0 as usize;
                    if let Some((from, sent)) = self.net.offer(&mut self.slots, &mut self.sched, now, to, Dir::Down, p)
                    {
                        self.env.rec.count_loss(from, sent);
                    }
                }
                Ev::Wake { node, dir } => self.on_wake(now, node, dir),
                Ev::Deliver(p) => self.on_deliver(now, p),
                Ev::TransportTimer { at, peer } => self.on_transport_timer(now, at, peer),
            }
        }
        self.finish()
    }

    /// Node `i` ticks; what it sent goes on the wire.
    fn on_tick(&mut self, now: Micros, i: usize) {
        let s = &mut self.slots[i];
        let mut ctx = self.env.ctx(now, s, i);
        s.node.on_tick(&mut ctx);
        s.ticks += 1;
        self.sched.push(s.tick.firing(&s.clock, s.ticks), EventClass::Tick, Ev::Tick(i));
        self.send_outbox(now, i);
    }

    /// Every screen drawn at this instant renders, then all are judged
    /// together (on several cores when they are many): nothing else can
    /// happen between them, so this is the order one at a time would take.
    fn on_render(&mut self, now: Micros, i: usize) {
        // The views buffer comes back with the recorder.
        if self.overlap {
            self.env.rec.views_back(&mut self.views);
        } else {
            self.env.rec.back(&mut self.views);
        }
        self.rendering.clear();
        self.rendering.push(i);
        while let Some(ev) = self.sched.pop_same(now, EventClass::Render) {
            match ev {
                Ev::Render(j) => self.rendering.push(j),
                _ => unreachable!("only renders are of the render class"),
            }
        }
        self.events += self.rendering.len() as u64 - 1;
        if self.views.len() < self.rendering.len() {
            self.views.resize_with(self.rendering.len(), Default::default);
        }
        let n = self.rendering.len();
        let batch = &mut self.views[..n];
        let (setup, game) = (&self.env.setup, &self.env.game);
        // Split by what the last instant's screens drew (filtering
        // screens draw a few dozen of thousands of entities).
        let parts = parallel::parts(self.last_drawn, n);
        if parts > 1 {
            // Each screen's node draws on its own: a part per range.
            let mut by_slot: Vec<Option<&mut NodeSlot>> = self.slots.iter_mut().map(Some).collect();
            let mut work: Vec<_> = self
                .rendering
                .iter()
                .zip(batch.iter_mut())
                .map(|(&j, pv)| (j, by_slot[j].take().expect("a screen renders once an instant"), pv))
                .collect();
            let chunk = work.len().div_ceil(parts);
            parallel::for_each(parts, work.chunks_mut(chunk), |items| {
                for (j, s, (player, view)) in items.iter_mut() {
                    *player = render_screen(s, *j, now, setup, game, view);
                }
            });
        } else {
            for (&j, (player, view)) in self.rendering.iter().zip(batch.iter_mut()) {
                *player = render_screen(&mut self.slots[j], j, now, setup, game, view);
            }
        }
        self.last_drawn = self.views[..n].iter().map(|(_, v)| v.entities.len()).sum();
        if self.overlap {
            self.env.rec.judge_away(now, &mut self.views, n);
        } else {
            self.env.rec.back(&mut self.views).record_views(now, &mut self.views[..n]);
        }
        for &j in &self.rendering {
            let s = &mut self.slots[j];
            let (r, k) = s.render.as_mut().expect("only clients render");
            *k += 1;
            let next = r.firing(&s.clock, *k);
            self.sched.push(next, EventClass::Render, Ev::Render(j));
        }
    }

    /// A slotted link may let held packets go, if this wake-up is still
    /// the one armed.
    fn on_wake(&mut self, now: Micros, node: usize, dir: Dir) {
        if self.net.wake.get(&(node, dir)) == Some(&now) {
            self.net.wake.remove(&(node, dir));
            self.net.release(&mut self.slots, &mut self.sched, now, node, dir);
        }
    }

    /// A packet reaches its node: through the transport (messages for the
    /// node, datagrams such as ACKs and repairs back to the sender), then
    /// into the node's code; what the node sent goes on the wire.
    fn on_deliver(&mut self, now: Micros, p: Packet) {
        if p.corrupt && self.cfg.drop_corrupted {
            return; // the receiver's checksum fails
        }
        self.net.delivered += 1;
        let (to, from) = (p.to.0 as usize, p.from.0 as usize);
        let mut messages = std::mem::take(&mut self.delivered);
        match self.transports.endpoint(&mut self.sched, now, to, from) {
            None => messages.push(p.bytes),
            Some(ep) => {
                let mut out = Output::default();
                ep.receive(now, &p.bytes, &mut out);
                self.transports.retransmitted += out.retransmitted;
                messages.append(&mut out.deliver);
                self.put_on_wire(now, p.to, p.from, out.send);
                self.transports.arm(&mut self.sched, to, from);
            }
        }
        let s = &mut self.slots[to];
        for msg in messages.drain(..) {
            let mut ctx = self.env.ctx(now, s, to);
            s.node.on_packet(&mut ctx, p.from, &msg);
            crate::buffers::give(msg);
        }
        self.delivered = messages;
        self.send_outbox(now, to);
    }

    /// A transport endpoint's timer, if still the one armed: what it sends
    /// again goes on the wire.
    fn on_transport_timer(&mut self, now: Micros, at: usize, peer: usize) {
        if self.transports.armed.get(&(at, peer)) != Some(&now) {
            return;
        }
        self.transports.armed.remove(&(at, peer));
        let mut out = Output::default();
        if let Some(ep) = self.transports.endpoint(&mut self.sched, now, at, peer) {
            ep.on_timer(now, &mut out);
        }
        self.transports.retransmitted += out.retransmitted;
        self.put_on_wire(now, NodeId(at as u16), NodeId(peer as u16), out.send);
        self.transports.arm(&mut self.sched, at, peer);
    }

    /// What node `node` sent, through its transport, onto its uplink.
    fn send_outbox(&mut self, now: Micros, node: usize) {
        let from = NodeId(node as u16);
        let mut outbox = std::mem::take(&mut self.env.outbox);
        for (to, bytes) in outbox.drain(..) {
            let peer = to.0 as usize;
            if peer >= self.slots.len() || to == from {
                continue;
            }
            match self.transports.endpoint(&mut self.sched, now, node, peer) {
                None => self.put_on_wire(now, from, to, [bytes]),
                Some(ep) => {
                    let mut out = Output::default();
                    ep.send(now, bytes, &mut out);
                    self.put_on_wire(now, from, to, out.send);
                    self.transports.arm(&mut self.sched, node, peer);
                }
            }
        }
        self.env.outbox = outbox;
    }

    /// Datagrams from `from` to `to` onto `from`'s uplink at `now`, each
    /// counted as sent; one over UDP's payload limit is counted and goes
    /// nowhere, as `sendto` refuses it.
    fn put_on_wire(&mut self, now: Micros, from: NodeId, to: NodeId, datagrams: impl IntoIterator<Item = Vec<u8>>) {
        for d in datagrams {
            self.env.rec.count_send(from, to, d.len());
            if d.len() <= MAX_UDP_PAYLOAD {
                let node = from.0 as usize;
                let p = Packet::new(from, to, d, now);
                if let Some((from, sent)) = self.net.offer(&mut self.slots, &mut self.sched, now, node, Dir::Up, p) {
                    self.env.rec.count_loss(from, sent);
                }
            }
        }
    }

    /// The run's measurements, once every event before its end ran.
    fn finish(mut self) -> RunResult {
        let links: Vec<LinkStats> = self.slots.iter().flat_map(|s| [s.links[0].stats(), s.links[1].stats()]).collect();
        let mut recorder = self.env.rec.into_recorder(&mut self.views);
        let probed = recorder.take_probed();
        let (mut metrics, distributions) = recorder.finish_with_distributions(
            self.cfg.duration_us,
            self.env.game.steps_executed(),
            &links,
            self.net.delivered,
        );
        metrics.network.retransmissions = self.transports.retransmitted;
        RunResult { metrics, distributions, events: self.events, probed }
    }
}

/// Node `n` of the run: the server or a player's client or peer, with its
/// clock, its first tick and render, and its two links.
fn node_slot(algorithm: &dyn Algorithm, setup: &Setup, plan: &NetworkPlan, cfg: &RunConfig, n: usize) -> NodeSlot {
    let NodeParts { node, clock, player, links, .. } = node_parts(algorithm, setup, plan, cfg, n);
    NodeSlot {
        node,
        clock,
        tick: Periodic::started_on(cfg.tick_hz, &clock),
        ticks: 0,
        render: player.map(|p| (Periodic::started_on(cfg.render_hz_of(p), &clock), 0)),
        player,
        links,
    }
}

/// Has the node in `s` (slot `j`, a player's client or peer) draw its
/// screen at `now` into `view`; returns the player.
fn render_screen(s: &mut NodeSlot, j: usize, now: Micros, setup: &Setup, game: &Game, view: &mut View) -> usize {
    let rctx = RenderCtx { now_local: s.clock.local_at(now), me: NodeId(j as u16), setup, game };
    view.entities.clear();
    s.node.render(&rctx, view);
    s.player.expect("clients have players")
}
