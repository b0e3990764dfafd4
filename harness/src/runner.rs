//! The runner: builds a run's world — nodes, clocks, links, recorder — and
//! drives the event loop until the simulated duration is over.
//!
//! A run is a pure function of (algorithm, profile, trace, seed, config):
//! the only randomness comes from streams split off the seed, events are
//! ordered by `(time, class, insertion)`, and nothing reads the wall clock.

use crate::contract::{Algorithm, Ctx, Node, NodeId, Options, RenderCtx, Setup, View};
use crate::event::{EventClass, Scheduler};
use crate::game::{Game, GameConfig};
use crate::metrics::recorder::Recorder;
use crate::metrics::Metrics;
use crate::net::{Link, LinkStats, Netem, Profile, UDP_IPV4_HEADER_BYTES};
use crate::rng::{mix64, Purpose, Stream};
use crate::time::{LocalClock, Micros, Periodic};
use crate::trace::Trace;

/// How a run is set up, apart from algorithm, profile and trace.
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
}

enum Ev {
    Tick(usize),
    Render(usize),
    /// A packet reached the core; it still has to cross `to`'s downlink.
    Core {
        from: NodeId,
        to: NodeId,
        bytes: Vec<u8>,
    },
    Deliver {
        from: NodeId,
        to: NodeId,
        bytes: Vec<u8>,
    },
}

struct NodeSlot {
    node: Box<dyn Node>,
    clock: LocalClock,
    tick: Periodic,
    ticks: u64,
    render: Option<(Periodic, u64)>,
    player: Option<usize>,
    uplink: Link,
    downlink: Link,
}

/// Runs `algorithm` on `profile` with `trace` (one track per client).
pub fn run(
    algorithm: &dyn Algorithm,
    profile: &Profile,
    trace: &Trace,
    cfg: &RunConfig,
) -> Result<RunResult, RunError> {
    if cfg.clients == 0 || cfg.clients > 4096 {
        return Err(RunError::Config(format!(
            "clients must be 1..=4096, got {}",
            cfg.clients
        )));
    }
    if !(1..=1000).contains(&cfg.tick_hz) {
        return Err(RunError::Config(format!(
            "tick rate must be 1..=1000 Hz, got {}",
            cfg.tick_hz
        )));
    }
    if cfg.render_hz.iter().any(|&r| !(1..=1000).contains(&r)) {
        return Err(RunError::Config("render rates must be 1..=1000 Hz".into()));
    }
    if cfg.duration_us == 0 {
        return Err(RunError::Config("duration must be positive".into()));
    }
    cfg.options.check(algorithm).map_err(RunError::Config)?;
    let game = Game::new(GameConfig {
        tick_hz: cfg.tick_hz,
        ..GameConfig::default()
    });
    let initial = game.initial_state(cfg.clients);
    let topology = algorithm.topology();
    let setup = Setup {
        players: cfg.clients,
        tick_hz: cfg.tick_hz,
        initial: initial.clone(),
        topology,
        options: cfg.options.clone(),
        session_seed: mix64(cfg.seed ^ 0x5E55_1011),
    };
    let mut recorder = Recorder::new(
        topology,
        &game,
        &initial,
        trace.clone(),
        cfg.duration_us,
        cfg.header_bytes,
    );
    let pick = |v: &[u32], i: usize| *v.get(i).or(v.last()).unwrap_or(&60);

    let mut slots: Vec<NodeSlot> = Vec::with_capacity(setup.nodes());
    for n in 0..setup.nodes() {
        let id = NodeId(n as u16);
        let player = setup.player_of_node(id);
        let (node, clock, up, down) = match player {
            Some(p) => (
                algorithm.client(&setup, p),
                *cfg.clocks
                    .get(p)
                    .or(cfg.clocks.last())
                    .unwrap_or(&LocalClock::EXACT),
                profile.uplink.clone(),
                profile.downlink.clone(),
            ),
            None => (
                algorithm.server(&setup),
                LocalClock::EXACT,
                Netem::clean(),
                Netem::clean(),
            ),
        };
        slots.push(NodeSlot {
            node,
            clock,
            tick: Periodic::from_hz(cfg.tick_hz),
            ticks: 0,
            render: player.map(|p| (Periodic::from_hz(pick(&cfg.render_hz, p)), 0)),
            player,
            uplink: Link::new(up, Stream::new(cfg.seed, Purpose::Uplink, n as u64)),
            downlink: Link::new(down, Stream::new(cfg.seed, Purpose::Downlink, n as u64)),
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
    let mut outbox: Vec<(NodeId, Vec<u8>)> = Vec::new();
    let mut view = View::default();
    let mut events = 0u64;
    let mut delivered = 0u64;

    while let Some((now, ev)) = sched.pop() {
        if now >= end {
            break; // the run covers [0, duration)
        }
        events += 1;
        // Handle the event; the nodes that ran code may have sent packets.
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
                    recorder: &mut recorder,
                };
                s.node.on_tick(&mut ctx);
                s.ticks += 1;
                sched.push(
                    s.tick.firing(&s.clock, s.ticks),
                    EventClass::Tick,
                    Ev::Tick(i),
                );
                NodeId(i as u16)
            }
            Ev::Render(i) => {
                let s = &mut slots[i];
                let (r, k) = s.render.as_mut().expect("only clients render");
                let rctx = RenderCtx {
                    now_local: s.clock.local_at(now),
                    me: NodeId(i as u16),
                    setup: &setup,
                    game: &game,
                };
                view.entities.clear();
                s.node.render(&rctx, &mut view);
                recorder.record_view(s.player.expect("clients have players"), now, &view);
                *k += 1;
                let next = r.firing(&s.clock, *k);
                sched.push(next, EventClass::Render, Ev::Render(i));
                continue;
            }
            Ev::Core { from, to, bytes } => {
                let down = &mut slots[to.0 as usize].downlink;
                for d in down.send(now, bytes.len()).iter() {
                    let mut b = bytes.clone();
                    flip(&mut b, d.corrupt_bit);
                    sched.push(
                        d.time,
                        EventClass::Packet,
                        Ev::Deliver { from, to, bytes: b },
                    );
                }
                continue;
            }
            Ev::Deliver { from, to, bytes } => {
                delivered += 1;
                let s = &mut slots[to.0 as usize];
                let mut ctx = Ctx {
                    now_global: now,
                    now_local: s.clock.local_at(now),
                    tick: s.ticks,
                    me: to,
                    setup: &setup,
                    game: &game,
                    outbox: &mut outbox,
                    recorder: &mut recorder,
                };
                s.node.on_packet(&mut ctx, from, &bytes);
                to
            }
        };
        // Put what the node sent on the wire.
        for (to, bytes) in outbox.drain(..) {
            if to.0 as usize >= slots.len() || to == from_node {
                continue;
            }
            recorder.count_send(from_node, to, bytes.len());
            let up = &mut slots[from_node.0 as usize].uplink;
            let copies = up.send(now, bytes.len());
            let down_clean = slots[to.0 as usize].downlink.is_clean();
            let n = copies.len();
            let mut bytes = Some(bytes);
            for (k, d) in copies.iter().enumerate() {
                // The last copy takes the buffer; a duplicate gets a clone.
                let mut b = if k + 1 == n {
                    bytes.take().unwrap_or_default()
                } else {
                    bytes.clone().unwrap_or_default()
                };
                flip(&mut b, d.corrupt_bit);
                let ev = if down_clean {
                    Ev::Deliver {
                        from: from_node,
                        to,
                        bytes: b,
                    }
                } else {
                    Ev::Core {
                        from: from_node,
                        to,
                        bytes: b,
                    }
                };
                sched.push(d.time, EventClass::Packet, ev);
            }
        }
    }

    let links: Vec<LinkStats> = slots
        .iter()
        .flat_map(|s| [s.uplink.stats(), s.downlink.stats()])
        .collect();
    let metrics = recorder.finish(cfg.duration_us, game.steps_executed(), &links, delivered);
    Ok(RunResult { metrics, events })
}

fn flip(bytes: &mut [u8], bit: Option<u32>) {
    if let Some(b) = bit {
        if let Some(byte) = bytes.get_mut((b / 8) as usize) {
            *byte ^= 1 << (b % 8);
        }
    }
}
