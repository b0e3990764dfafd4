//! The runner: builds a run's world — nodes, clocks, links, recorder — and
//! drives the event loop until the simulated duration is over.
//!
//! A run is a pure function of (algorithm, network plan, trace, seed,
//! config): the only randomness comes from streams split off the seed,
//! events are ordered by `(time, class, insertion)`, and nothing reads the
//! wall clock.

use crate::contract::Observer;
use crate::contract::{Algorithm, Ctx, Node, NodeId, Options, RenderCtx, Setup, View};
use crate::event::{EventClass, Scheduler};
use crate::game::Game;
use crate::metrics::deferred::{Deferred, Log};
use crate::metrics::recorder::Recorder;
use crate::metrics::Metrics;
use crate::net::profile::NetworkPlan;
use crate::net::transport::{Endpoint, Output, TransportKind};
use crate::net::{Delivery, Link, LinkStats, Profile, MAX_UDP_PAYLOAD, UDP_IPV4_HEADER_BYTES};
use crate::parallel;
use crate::rng::{mix64, Purpose, Stream};
use crate::time::{LocalClock, Micros, Periodic};
use crate::trace::Trace;
use crate::world::{Aoi, World};
use std::collections::BTreeMap;
use std::sync::mpsc::{Receiver, TryRecvError};

/// How a run is set up, apart from algorithm, network and trace.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Players (one client or peer each).
    pub clients: usize,
    /// Simulated duration, µs.
    pub duration_us: u64,
    /// The run seed: every random stream is derived from it.
    pub seed: u64,
    /// Node tick rate and game step rate, Hz.
    pub tick_hz: u32,
    /// Render rate per client, Hz (the last value repeats for the rest).
    pub render_hz: Vec<u32>,
    /// Clock of each client or peer (the last value repeats); the server's
    /// clock is exact.
    pub clocks: Vec<LocalClock>,
    /// Algorithm options.
    pub options: Options,
    /// Per-packet header overhead counted in bandwidth.
    pub header_bytes: usize,
    /// What carries the algorithm's messages.
    pub transport: TransportKind,
    /// Conformance checks: `Some(mark)` turns them on, with progress counted
    /// after `mark` µs.
    pub checks: Option<Option<u64>>,
    /// Paced: virtual time follows the wall clock (for code under test that
    /// reads the clock itself, like `ggrs`). The only place the simulator
    /// reads the wall clock; a paced run is not reproducible.
    pub paced: bool,
    /// Drop corrupted copies at the receiver, as a real UDP stack's
    /// checksum does (the default: what Linux's netem does to a UDP socket,
    /// measured in `reports/netem-corrupt.md`). `false` delivers the
    /// flipped bytes, as to a sender with `SO_NO_CHECK`, so decoders are
    /// tested against them.
    pub drop_corrupted: bool,
    /// The arena.
    pub world: World,
    /// The reference game's numbers (`--game`): speeds, sizes, jump, shot.
    pub game: crate::game::GameSettings,
    /// Server-driven bots after the players.
    pub bots: usize,
    /// The area of interest (`None`: not set, nothing measured against it).
    pub aoi: Option<Aoi>,
    /// Renders to keep for a closer look ([`RunResult::probed`]).
    pub probe: Option<crate::metrics::probe::Probe>,
}

impl RunConfig {
    /// Player `p`'s render rate (the list's last entry repeats; 60 if empty).
    pub fn render_hz_of(&self, p: usize) -> u32 {
        *self.render_hz.get(p).or(self.render_hz.last()).unwrap_or(&60)
    }

    /// Player `p`'s local clock (the list's last entry repeats; exact if empty).
    pub fn clock_of(&self, p: usize) -> LocalClock {
        *self.clocks.get(p).or(self.clocks.last()).unwrap_or(&LocalClock::EXACT)
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            clients: 4,
            duration_us: 60_000_000,
            seed: 1,
            tick_hz: 60,
            render_hz: vec![60],
            clocks: vec![LocalClock::EXACT],
            options: Options::default(),
            header_bytes: UDP_IPV4_HEADER_BYTES,
            transport: TransportKind::Unreliable,
            checks: None,
            paced: false,
            drop_corrupted: true,
            world: World::Standard,
            game: crate::game::GameSettings::default(),
            bots: 0,
            aoi: None,
            probe: None,
        }
    }
}

/// Why a run could not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The configuration is unusable.
    #[error("bad run configuration: {0}")]
    Config(String),
}

/// The outcome of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Everything measured.
    pub metrics: Metrics,
    /// Events processed (for cost accounting).
    pub events: u64,
    /// The renders [`RunConfig::probe`] asked for.
    pub probed: Vec<crate::metrics::probe::Probed>,
}

/// Which of a node's two links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Dir {
    Up,
    Down,
}

/// A packet in flight.
struct Packet {
    from: NodeId,
    to: NodeId,
    bytes: Vec<u8>,
    /// A link flipped a bit of it on the way.
    corrupt: bool,
}

impl Packet {
    /// A packet as its sender wrote it.
    fn new(from: NodeId, to: NodeId, bytes: Vec<u8>) -> Packet {
        Packet { from, to, bytes, corrupt: false }
    }
}

enum Ev {
    Tick(usize),
    Render(usize),
    /// A packet left `from`'s uplink; it still has to cross `to`'s downlink.
    Core(Packet),
    Deliver(Packet),
    /// A slotted link may release held packets.
    Wake {
        node: usize,
        dir: Dir,
    },
    /// A transport endpoint's timer (`at` node, talking to `peer`).
    TransportTimer {
        at: usize,
        peer: usize,
    },
}

struct NodeSlot {
    node: Box<dyn Node>,
    clock: LocalClock,
    tick: Periodic,
    ticks: u64,
    render: Option<(Periodic, u64)>,
    player: Option<usize>,
    links: [Link; 2],
}

/// The links of every node and the packets slotted links hold.
struct Network {
    held: BTreeMap<(usize, Dir, u64), Packet>,
    wake: BTreeMap<(usize, Dir), Micros>,
    delivered: u64,
}

impl Network {
    /// Puts `p` on `node`'s link `dir` at `now`; schedules what comes out.
    fn offer(
        &mut self,
        slots: &mut [NodeSlot],
        sched: &mut Scheduler<Ev>,
        now: Micros,
        node: usize,
        dir: Dir,
        p: Packet,
    ) {
        let path_mtu = slots[p.from.0 as usize].links[0].mtu().min(slots[p.to.0 as usize].links[0].mtu());
        let link = &mut slots[node].links[dir as usize];
        let copies = link.send_on_path(now, p.bytes.len(), path_mtu);
        if let Some((last, first)) = copies.as_slice().split_last() {
            // A duplicate gets a clone; the last copy takes the packet.
            for d in first {
                let copy = Packet { bytes: p.bytes.clone(), ..p };
                self.emit(slots, sched, node, dir, d, copy);
            }
            self.emit(slots, sched, node, dir, last, p);
        }
        if slots[node].links[dir as usize].has_slots() {
            self.release(slots, sched, now, node, dir);
        }
    }

    /// One copy leaving `node`'s link `dir` as `d` says: corrupted if it
    /// says so, held for a slot or forwarded.
    fn emit(
        &mut self,
        slots: &[NodeSlot],
        sched: &mut Scheduler<Ev>,
        node: usize,
        dir: Dir,
        d: &Delivery,
        mut p: Packet,
    ) {
        p.corrupt |= d.corrupt(&mut p.bytes);
        match d.held {
            Some(token) => {
                self.held.insert((node, dir, token), p);
            }
            None => self.forward(slots, sched, d.time, dir, p),
        }
    }

    /// A copy left a link at `at`: on to the core, or to its destination.
    fn forward(&mut self, slots: &[NodeSlot], sched: &mut Scheduler<Ev>, at: Micros, dir: Dir, p: Packet) {
        let ev = if dir == Dir::Up && !slots[p.to.0 as usize].links[Dir::Down as usize].is_clean() {
            Ev::Core(p)
        } else {
            Ev::Deliver(p)
        };
        sched.push(at, EventClass::Packet, ev);
    }

    /// Releases what a slotted link lets go at `now`; re-arms its wake-up.
    fn release(&mut self, slots: &mut [NodeSlot], sched: &mut Scheduler<Ev>, now: Micros, node: usize, dir: Dir) {
        let link = &mut slots[node].links[dir as usize];
        let tokens = link.release(now);
        let next = link.next_wake();
        for t in tokens {
            if let Some(p) = self.held.remove(&(node, dir, t)) {
                self.forward(slots, sched, now, dir, p);
            }
        }
        rearm(&mut self.wake, (node, dir), next, sched, || Ev::Wake { node, dir });
    }
}

/// The transport endpoints of every pair of nodes that talked.
struct Transports {
    kind: TransportKind,
    seed: u64,
    endpoints: BTreeMap<(usize, usize), Endpoint>,
    armed: BTreeMap<(usize, usize), Micros>,
    retransmitted: u64,
}

impl Transports {
    /// The endpoint of `at` towards `peer`. The first use of a pair opens
    /// both ends at once (a connection has two), arming the peer's timer:
    /// a transport with a handshake starts it then.
    fn endpoint(&mut self, sched: &mut Scheduler<Ev>, now: Micros, at: usize, peer: usize) -> Option<&mut Endpoint> {
        if self.kind == TransportKind::Unreliable {
            return None;
        }
        if Endpoint::open_pair(&mut self.endpoints, self.kind, self.seed, at, peer, now) {
            self.arm(sched, peer, at);
        }
        self.endpoints.get_mut(&(at, peer))
    }

    /// Re-arms the timer of `(at, peer)` if it moved.
    fn arm(&mut self, sched: &mut Scheduler<Ev>, at: usize, peer: usize) {
        let next = self.endpoints.get(&(at, peer)).and_then(|e| e.next_timer());
        rearm(&mut self.armed, (at, peer), next, sched, || Ev::TransportTimer { at, peer });
    }
}

/// Keeps one pending wake-up per `key` in `armed`: schedules `event` at
/// `next` unless that exact time is already armed, forgets the key when
/// nothing is due. A superseded event still fires; its handler ignores it
/// because `armed` no longer names its time.
fn rearm<K: Ord>(
    armed: &mut BTreeMap<K, Micros>,
    key: K,
    next: Option<Micros>,
    sched: &mut Scheduler<Ev>,
    event: impl FnOnce() -> Ev,
) {
    match next {
        Some(t) if armed.get(&key) != Some(&t) => {
            armed.insert(key, t);
            sched.push(t, EventClass::Packet, event());
        }
        Some(_) => {}
        None => {
            armed.remove(&key);
        }
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

/// Most entities (players + bots) in a run: entity ids are `u16` on screens.
pub const MAX_ENTITIES: usize = 60_000;

/// Runs `algorithm` on one profile for every client (see [`run_plan`]).
pub fn run(
    algorithm: &dyn Algorithm,
    profile: &Profile,
    trace: &Trace,
    cfg: &RunConfig,
) -> Result<RunResult, RunError> {
    run_plan(algorithm, &NetworkPlan::uniform(profile.clone()), trace, cfg)
}

/// What every run starts from, simulated or live: the checked
/// configuration turned into the game, the nodes' setup and the recorder.
pub(crate) struct Prepared {
    pub(crate) game: Game,
    pub(crate) setup: Setup,
    pub(crate) recorder: Recorder,
}

/// Checks that `cfg` describes a run `algorithm` can make on `plan`: every
/// range, the run's size, the options, what the algorithm supports. Every
/// run calls it first; `replay` calls it to tell a malformed scenario (exit
/// 2) from a failing one.
pub fn check_config(algorithm: &dyn Algorithm, plan: &NetworkPlan, cfg: &RunConfig) -> Result<(), RunError> {
    if cfg.clients == 0 || cfg.clients > 4096 {
        return Err(RunError::Config(format!("clients must be 1..=4096, got {}", cfg.clients)));
    }
    if !(1..=1000).contains(&cfg.tick_hz) {
        return Err(RunError::Config(format!("tick rate must be 1..=1000 Hz, got {}", cfg.tick_hz)));
    }
    if cfg.render_hz.iter().any(|&r| !(1..=1000).contains(&r)) {
        return Err(RunError::Config("render rates must be 1..=1000 Hz".into()));
    }
    if cfg.duration_us < 100_000 {
        return Err(RunError::Config(format!("duration must be at least 100 ms, got {} us", cfg.duration_us)));
    }
    if plan.clients.is_empty() {
        return Err(RunError::Config("no network profile".into()));
    }
    cfg.options.check(algorithm).map_err(RunError::Config)?;
    cfg.game.check_room(cfg.world).map_err(RunError::Config)?;
    let entities = cfg.clients.saturating_add(cfg.bots);
    if entities > MAX_ENTITIES {
        return Err(RunError::Config(format!("players + bots must be at most {MAX_ENTITIES}, got {entities}")));
    }
    crate::limits::check_run(entities, cfg.duration_us).map_err(RunError::Config)?;
    let fastest = (0..cfg.clients).map(|i| cfg.render_hz_of(i)).max().unwrap_or(0);
    crate::limits::check_work(cfg.clients, entities, fastest, cfg.duration_us).map_err(RunError::Config)?;
    if cfg.bots > 0 && !algorithm.handles_bots() {
        return Err(RunError::Config(format!("{} does not handle server-driven bots (--bots)", algorithm.name())));
    }
    if let Some(aoi) = cfg.aoi {
        if aoi.filters() && !algorithm.handles_aoi() {
            return Err(RunError::Config(format!(
                "{} does not filter by area of interest (--aoi {})",
                algorithm.name(),
                aoi.method.as_str()
            )));
        }
        if !(0..=Aoi::MAX_UM).contains(&aoi.radius_um) || !(0..=Aoi::MAX_UM).contains(&aoi.hysteresis_um) {
            return Err(RunError::Config("area-of-interest radius and hysteresis must be 0..=1000 m".into()));
        }
    }
    Ok(())
}

/// Checks `cfg` against `algorithm` and `plan` and builds the run's game,
/// setup and recorder.
pub(crate) fn prepare(
    algorithm: &dyn Algorithm,
    plan: &NetworkPlan,
    trace: &Trace,
    cfg: &RunConfig,
) -> Result<Prepared, RunError> {
    check_config(algorithm, plan, cfg)?;
    let session_seed = mix64(cfg.seed ^ 0x5E55_1011);
    let game = Game::new(cfg.game.config(cfg.world, cfg.tick_hz, cfg.bots, session_seed));
    // The session's random seed is in the initial state every node is given:
    // the game's pick-ups appear in the same places for everyone.
    let initial = game.initial_state_seeded(cfg.clients, session_seed);
    let topology = algorithm.topology();
    let setup = Setup {
        players: cfg.clients,
        tick_hz: cfg.tick_hz,
        initial: initial.clone(),
        topology,
        options: cfg.options.clone(),
        session_seed,
        aoi: cfg.aoi,
    };
    let mut recorder = Recorder::new(topology, &game, &initial, trace.clone(), cfg.duration_us, cfg.header_bytes);
    recorder.set_render_hz((0..cfg.clients).map(|p| cfg.render_hz_of(p)).max().unwrap_or(60));
    if let Some(aoi) = cfg.aoi {
        recorder.enable_interest(aoi);
    }
    if let Some(probe) = cfg.probe {
        recorder.enable_probe(probe);
    }
    if let Some(mark) = cfg.checks {
        recorder.enable_checks(mark);
    }
    recorder.set_mtus(
        (0..setup.nodes())
            .map(|n| setup.player_of_node(NodeId(n as u16)).map_or(plan.server.mtu, |p| plan.client(p).mtu))
            .collect(),
    );
    Ok(Prepared { game, setup, recorder })
}

/// The run's recorder: here, or away on another core judging a render
/// instant's batch while the event loop goes on against a log of what the
/// nodes tell it meanwhile (`metrics::deferred`). The log goes with the
/// next batch and is replayed first, on that core; the last one is
/// replayed here at the end. Nothing the events do reads what judging
/// writes, and the recorder gets every call in the order it would have,
/// so the report is the same.
struct Recording<'t> {
    here: Option<Recorder>,
    /// Back from judging with the log since it left not yet replayed: it
    /// leaves again with the next batch and that log.
    returned: Option<Recorder>,
    log: Deferred<'t>,
    away: Option<Receiver<Judged>>,
}

/// What a batch judged away sends back: the recorder, the views buffer and
/// the replayed log's buffers, or the panic that stopped it.
type Judged = std::thread::Result<(Recorder, Vec<(usize, View)>, Log)>;

impl Recording<'_> {
    /// What the nodes report to now.
    fn observer(&mut self) -> &mut dyn Observer {
        match &mut self.here {
            Some(r) => r,
            None => &mut self.log,
        }
    }

    fn count_send(&mut self, from: NodeId, to: NodeId, payload: usize) {
        match &mut self.here {
            Some(r) => r.count_send(from, to, payload),
            None => self.log.count_send(from, to, payload),
        }
    }

    /// Waits for the batch away, if any, and takes its views buffer into
    /// `views`; the recorder waits in `returned` for its next batch.
    /// Waiting, this thread runs the pool's work (its batch's other parts,
    /// say) instead of sleeping.
    fn views_back(&mut self, views: &mut Vec<(usize, View)>) {
        let Some(away) = self.away.take() else { return };
        let mut judged = None;
        parallel::help_until(|| match away.try_recv() {
            Ok(done) => {
                judged = Some(done);
                true
            }
            Err(TryRecvError::Empty) => false,
            Err(TryRecvError::Disconnected) => unreachable!("the judging job answers before it ends"),
        });
        let judged = judged.expect("help_until returns once answered");
        let (recorder, batch, log) = judged.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        *views = batch;
        self.log.give_back(log);
        self.returned = Some(recorder);
    }

    /// The recorder, here, with every call so far — its batch's views in
    /// `views` and what it missed replayed.
    fn back(&mut self, views: &mut Vec<(usize, View)>) -> &mut Recorder {
        self.views_back(views);
        if let Some(mut recorder) = self.returned.take() {
            self.log.replay_into(&mut recorder);
            self.here = Some(recorder);
        }
        self.here.as_mut().expect("the recorder is here unless away")
    }

    /// Judges the first `n` of `views`, rendered at `now`, on the pool,
    /// after replaying what the recorder missed; the views come back with
    /// the recorder ([`Recording::views_back`]).
    fn judge_away(&mut self, now: Micros, views: &mut Vec<(usize, View)>, n: usize) {
        let mut recorder = match self.here.take() {
            Some(recorder) => {
                self.log.start(&recorder);
                recorder
            }
            None => self.returned.take().expect("judged once at a time"),
        };
        let mut log = self.log.take_log();
        let mut batch = std::mem::take(views);
        let (answer, away) = std::sync::mpsc::sync_channel(1);
        rayon::spawn(move || {
            let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                log.replay_into(&mut recorder);
                recorder.record_views(now, &mut batch[..n]);
                (recorder, batch, log)
            }));
            let _ = answer.send(done);
        });
        self.away = Some(away);
    }
}

/// Whether a run of `cfg` should go through [`crate::parallel::on_pool`]
/// (a single run; a caller running many at once should not): when it is
/// big enough that its screens may be judged on several cores, and not
/// paced — a paced run waits for the wall clock between events, and
/// keeping the pool's threads awake for it would only burn them.
pub fn runs_on_pool(cfg: &RunConfig) -> bool {
    let batch = cfg.clients.saturating_mul(cfg.clients.saturating_add(cfg.bots));
    parallel::parts(batch, cfg.clients) > 1 && !cfg.paced
}

/// Runs `algorithm` on `plan` (a profile per client) with `trace`.
pub fn run_plan(
    algorithm: &dyn Algorithm,
    plan: &NetworkPlan,
    trace: &Trace,
    cfg: &RunConfig,
) -> Result<RunResult, RunError> {
    run_plan_observed(algorithm, plan, trace, cfg, &mut |_| {})
}

/// [`run_plan`], calling `progress` with the simulated time at each whole
/// simulated second reached (for a progress line on long runs; it sees
/// the clock only, so it cannot change the run).
pub fn run_plan_observed(
    algorithm: &dyn Algorithm,
    plan: &NetworkPlan,
    trace: &Trace,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(Micros),
) -> Result<RunResult, RunError> {
    let Prepared { game, setup, recorder } = prepare(algorithm, plan, trace, cfg)?;
    // A big run on a pool of several threads judges each render instant's
    // batch on another core while its events go on (see `Recording`).
    let overlap = runs_on_pool(cfg) && rayon::current_thread_index().is_some();
    let players = recorder.players();
    let mut rec = Recording { here: Some(recorder), returned: None, log: Deferred::new(trace, players), away: None };
    let mut slots: Vec<NodeSlot> = Vec::with_capacity(setup.nodes());
    for n in 0..setup.nodes() {
        let id = NodeId(n as u16);
        let player = setup.player_of_node(id);
        let (node, clock, profile) = match player {
            Some(p) => (algorithm.client(&setup, p), cfg.clock_of(p), plan.client(p)),
            None => (algorithm.server(&setup), LocalClock::EXACT, &plan.server),
        };
        let link = |up: bool| {
            let purpose = if up { Purpose::Uplink } else { Purpose::Downlink };
            Link::scheduled(profile.schedule(up), profile.correlation, Stream::new(cfg.seed, purpose, n as u64))
                .with_mtu(profile.mtu)
        };
        slots.push(NodeSlot {
            node,
            clock,
            tick: Periodic::started_on(cfg.tick_hz, &clock),
            ticks: 0,
            render: player.map(|p| (Periodic::started_on(cfg.render_hz_of(p), &clock), 0)),
            player,
            links: [link(true), link(false)],
        });
    }

    let end = Micros(cfg.duration_us);
    let mut sched: Scheduler<Ev> = Scheduler::new();
    for (i, s) in slots.iter().enumerate() {
        sched.push(s.tick.firing(&s.clock, 0), EventClass::Tick, Ev::Tick(i));
        if let Some((r, _)) = s.render {
            sched.push(r.firing(&s.clock, 0), EventClass::Render, Ev::Render(i));
        }
    }
    let mut net = Network { held: BTreeMap::new(), wake: BTreeMap::new(), delivered: 0 };
    let mut transports = Transports {
        kind: cfg.transport,
        seed: cfg.seed,
        endpoints: BTreeMap::new(),
        armed: BTreeMap::new(),
        retransmitted: 0,
    };
    let mut delivered_msgs: Vec<Vec<u8>> = Vec::new();
    let mut outbox: Vec<(NodeId, Vec<u8>)> = Vec::new();
    // The screens rendering at one instant, and their views.
    let mut rendering: Vec<usize> = Vec::new();
    let mut views: Vec<(usize, View)> = Vec::new();
    let mut last_drawn = 0usize;
    let mut events = 0u64;

    let wall_start = cfg.paced.then(std::time::Instant::now);
    let mut next_second = 1_000_000;
    while let Some((now, ev)) = sched.pop() {
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
        events += 1;
        // Handle the event; the node that ran code may have sent packets.
        let from_node = match ev {
            Ev::Tick(i) => {
                let s = &mut slots[i];
                let mut ctx = Ctx {
                    now_global: now,
                    now_local: s.clock.local_at(now),
                    tick: s.ticks,
                    me: NodeId(i as u16),
                    setup: &setup,
                    game: &game,
                    outbox: &mut outbox,
                    recorder: rec.observer(),
                };
                s.node.on_tick(&mut ctx);
                s.ticks += 1;
                sched.push(s.tick.firing(&s.clock, s.ticks), EventClass::Tick, Ev::Tick(i));
                i
            }
            Ev::Render(i) => {
                // Every screen drawn at this instant renders, then all are
                // judged together (on several cores when they are many):
                // nothing else can happen between them, so this is the
                // order one at a time would take.
                // The views buffer comes back with the recorder.
                if overlap {
                    rec.views_back(&mut views);
                } else {
                    rec.back(&mut views);
                }
                rendering.clear();
                rendering.push(i);
                while let Some(ev) = sched.pop_same(now, EventClass::Render) {
                    match ev {
                        Ev::Render(j) => rendering.push(j),
                        _ => unreachable!("only renders are of the render class"),
                    }
                }
                events += rendering.len() as u64 - 1;
                if views.len() < rendering.len() {
                    views.resize_with(rendering.len(), Default::default);
                }
                let batch = &mut views[..rendering.len()];
                // Split by what the last instant's screens drew (filtering
                // screens draw a few dozen of thousands of entities).
                let parts = parallel::parts(last_drawn, rendering.len());
                if parts > 1 {
                    // Each screen's node draws on its own: a part per range.
                    let mut by_slot: Vec<Option<&mut NodeSlot>> = slots.iter_mut().map(Some).collect();
                    let mut work: Vec<_> = rendering
                        .iter()
                        .zip(batch.iter_mut())
                        .map(|(&j, pv)| (j, by_slot[j].take().expect("a screen renders once an instant"), pv))
                        .collect();
                    let chunk = work.len().div_ceil(parts);
                    parallel::for_each(parts, work.chunks_mut(chunk), |items| {
                        for (j, s, (player, view)) in items.iter_mut() {
                            *player = render_screen(s, *j, now, &setup, &game, view);
                        }
                    });
                } else {
                    for (&j, (player, view)) in rendering.iter().zip(batch.iter_mut()) {
                        *player = render_screen(&mut slots[j], j, now, &setup, &game, view);
                    }
                }
                last_drawn = batch.iter().map(|(_, v)| v.entities.len()).sum();
                let n = rendering.len();
                if overlap {
                    rec.judge_away(now, &mut views, n);
                } else {
                    rec.back(&mut views).record_views(now, &mut views[..n]);
                }
                for &j in &rendering {
                    let s = &mut slots[j];
                    let (r, k) = s.render.as_mut().expect("only clients render");
                    *k += 1;
                    let next = r.firing(&s.clock, *k);
                    sched.push(next, EventClass::Render, Ev::Render(j));
                }
                continue;
            }
            Ev::Core(p) => {
                let to = p.to.0 as usize;
                net.offer(&mut slots, &mut sched, now, to, Dir::Down, p);
                continue;
            }
            Ev::Wake { node, dir } => {
                if net.wake.get(&(node, dir)) == Some(&now) {
                    net.wake.remove(&(node, dir));
                    net.release(&mut slots, &mut sched, now, node, dir);
                }
                continue;
            }
            Ev::Deliver(p) => {
                if p.corrupt && cfg.drop_corrupted {
                    continue; // the receiver's checksum fails
                }
                net.delivered += 1;
                let to = p.to.0 as usize;
                let from = p.from.0 as usize;
                // Through the transport: messages for the node, datagrams
                // (ACKs, repairs) back to the sender.
                delivered_msgs.clear();
                match transports.endpoint(&mut sched, now, to, from) {
                    None => delivered_msgs.push(p.bytes),
                    Some(ep) => {
                        let mut out = Output::default();
                        ep.receive(now, &p.bytes, &mut out);
                        transports.retransmitted += out.retransmitted;
                        delivered_msgs.append(&mut out.deliver);
                        for d in out.send {
                            rec.count_send(p.to, p.from, d.len());
                            net.offer(&mut slots, &mut sched, now, to, Dir::Up, Packet::new(p.to, p.from, d));
                        }
                        transports.arm(&mut sched, to, from);
                    }
                }
                let s = &mut slots[to];
                for msg in delivered_msgs.drain(..) {
                    let mut ctx = Ctx {
                        now_global: now,
                        now_local: s.clock.local_at(now),
                        tick: s.ticks,
                        me: p.to,
                        setup: &setup,
                        game: &game,
                        outbox: &mut outbox,
                        recorder: rec.observer(),
                    };
                    s.node.on_packet(&mut ctx, p.from, &msg);
                    crate::buffers::give(msg);
                }
                to
            }
            Ev::TransportTimer { at, peer } => {
                if transports.armed.get(&(at, peer)) != Some(&now) {
                    continue;
                }
                transports.armed.remove(&(at, peer));
                let mut out = Output::default();
                if let Some(ep) = transports.endpoint(&mut sched, now, at, peer) {
                    ep.on_timer(now, &mut out);
                }
                transports.retransmitted += out.retransmitted;
                let (a, b) = (NodeId(at as u16), NodeId(peer as u16));
                for d in out.send {
                    rec.count_send(a, b, d.len());
                    net.offer(&mut slots, &mut sched, now, at, Dir::Up, Packet::new(a, b, d));
                }
                transports.arm(&mut sched, at, peer);
                continue;
            }
        };
        // Put what the node sent on the wire: its uplink first.
        let from = NodeId(from_node as u16);
        for (to, bytes) in outbox.drain(..) {
            let peer = to.0 as usize;
            if peer >= slots.len() || to == from {
                continue;
            }
            match transports.endpoint(&mut sched, now, from_node, peer) {
                None => {
                    rec.count_send(from, to, bytes.len());
                    if bytes.len() <= MAX_UDP_PAYLOAD {
                        net.offer(&mut slots, &mut sched, now, from_node, Dir::Up, Packet::new(from, to, bytes));
                    }
                }
                Some(ep) => {
                    let mut out = Output::default();
                    ep.send(now, bytes, &mut out);
                    for d in out.send {
                        rec.count_send(from, to, d.len());
                        if d.len() <= MAX_UDP_PAYLOAD {
                            net.offer(&mut slots, &mut sched, now, from_node, Dir::Up, Packet::new(from, to, d));
                        }
                    }
                    transports.arm(&mut sched, from_node, peer);
                }
            }
        }
    }

    let links: Vec<LinkStats> = slots.iter().flat_map(|s| [s.links[0].stats(), s.links[1].stats()]).collect();
    rec.back(&mut views);
    let mut recorder = rec.here.take().expect("the recorder is back");
    let probed = recorder.take_probed();
    let mut metrics = recorder.finish(cfg.duration_us, game.steps_executed(), &links, net.delivered);
    metrics.network.retransmissions = transports.retransmitted;
    Ok(RunResult { metrics, events, probed })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A big run goes on the pool; a small one, or a paced one (which waits
    /// on the wall clock and would keep the pool's threads spinning for
    /// nothing), does not.
    #[test]
    fn which_runs_go_on_the_pool() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pool.install(|| {
            let big = RunConfig { clients: 200, bots: 2000, ..RunConfig::default() };
            assert!(runs_on_pool(&big));
            assert!(!runs_on_pool(&RunConfig { paced: true, ..big.clone() }));
            assert!(!runs_on_pool(&RunConfig { clients: 4, ..RunConfig::default() }));
        });
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        one.install(|| assert!(!runs_on_pool(&RunConfig { clients: 200, bots: 2000, ..RunConfig::default() })));
    }
}
