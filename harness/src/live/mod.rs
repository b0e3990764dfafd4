//! Live mode: the same nodes over real UDP sockets on 127.0.0.1, driven by
//! real timers, through a userspace impairment relay that applies the
//! profile with the simulator's own netem model.
//!
//! Nothing of an algorithm changes: each node gets the same [`Ctx`] as in
//! a simulated run, only what is underneath differs — `now` is the wall
//! clock since the session started (through the node's `--clock` offset
//! and drift), `send` puts an [`envelope`] on a real datagram, and
//! a packet arrives because a socket received it. The recorder is the same
//! too, so a live run reports the same metrics in the same schema (`"mode":
//! "live"`).
//!
//! Topology, as in the simulator: every node has a socket, and for every
//! node the relay has one socket that is that node's *access link*. A node
//! sends everything to its own relay socket; the relay applies the node's
//! uplink ([`Link`], netem semantics), then the receiver's downlink, and
//! delivers from the sender's relay socket — so each node knows each peer
//! by one address, as on a real network. All tasks share one thread
//! (tokio's current-thread runtime), which keeps the recorder single-owner
//! and the timing honest on a 2-core machine.
//!
//! [`LiveOptions::hostile`] adds an attacker: through the relay socket of
//! node 1 (an address node 0 trusts) it sends node 0 truncated, oversized
//! and garbage datagrams, replays of datagrams already delivered, and
//! forgeries (a real datagram with its sequence number set to 2³²−1), and
//! from a socket of its own copies of real datagrams; node 0's [`Gate`]
//! must drop and count every one, and node 1's traffic must still pass.
//!
//! [`Relay::None`] takes the relay out (nodes send straight to each other),
//! [`Relay::External`] sends everything through a forwarder elsewhere: in
//! both, something outside syncbench impairs the path — in
//! `scripts/kernel-validation/netem-live.sh`, the kernel's own netem on a veth pair between
//! two network namespaces, inside User-Mode Linux.
//!
//! The transports (`--transport redundant|tcp-like|kcp|quic|quic-datagram`) sit between
//! the nodes and the envelopes as in simulation, their timers fired every
//! millisecond. Not live: netem's `slot` (refused with a message).
//!
//! The session's state and tasks are in `session`, the relay in `relay`,
//! the attacker in `attacker`; this module starts them and reports.

mod attacker;
pub mod envelope;
mod relay;
mod session;
pub mod socket_drops;

use crate::contract::{Algorithm, Ctx, NodeId, RenderCtx, View};
use crate::metrics::Metrics;
use crate::net::link::{Delivery, Link};
use crate::net::plan::NetworkPlan;
use crate::net::transport::{Endpoint, Output, TransportKind};
use crate::net::LinkStats;
use crate::runner::{node_parts, prepare, NodeParts, Prepared, RunConfig, RunError};
use crate::time::{LocalClock, Micros, Periodic};
use crate::trace::Trace;
use attacker::hostile_task;
use envelope::{Drops, Envelope, Gate, HEADER, MAX_DATAGRAM};
use relay::relay_task;
use session::{at, bind, receive_task, timer_task, transport_timers, Net, NodeState, Session};
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::rc::Rc;
use std::time::Duration;
use tokio::net::UdpSocket;
use tokio::time::{sleep_until, Instant};

/// Where the nodes' datagrams go.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Relay {
    /// syncbench's relay applies the profile (per node an access link).
    #[default]
    Userspace,
    /// Straight to the receiver; the profile is *not* applied by
    /// syncbench (the kernel's netem on the path does it).
    None,
    /// Everything to one external forwarder (which delivers by the
    /// envelope's receiver, e.g. `scripts/kernel-validation/udp_reflector.py` across a veth
    /// pair with `tc netem` on it); the profile is not applied by syncbench.
    External(SocketAddr),
}

/// What a live run adds to a run's configuration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiveOptions {
    /// Hostile datagrams of each kind sent at node 0 during the session
    /// (0: none).
    pub hostile: u32,
    /// Where datagrams go.
    pub relay: Relay,
    /// The address the nodes' (and the userspace relay's) sockets bind.
    pub bind: IpAddr,
}

impl Default for LiveOptions {
    fn default() -> Self {
        LiveOptions { hostile: 0, relay: Relay::Userspace, bind: IpAddr::from([127, 0, 0, 1]) }
    }
}

/// What the live machinery counted besides the metrics.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LiveCounters {
    /// `userspace` (the relay applied the profile), `none` (the nodes
    /// talked directly) or an external forwarder's address; in the last two
    /// whatever impaired the path was outside syncbench.
    pub relay: String,
    /// What each node's gate dropped, by node.
    pub dropped: Vec<Drops>,
    /// What the attacker sent node 0, by the drop it should cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostile_sent: Option<Drops>,
    /// Datagrams the relay refused (not from the node its socket serves,
    /// or not an envelope).
    pub relay_refused: u64,
    /// Datagrams the relay delivered.
    pub relay_delivered: u64,
    /// Per node, what reached its socket and what became of it.
    #[serde(default)]
    pub sockets: Vec<SocketCounts>,
    /// Datagrams the kernel dropped at the relay's sockets (their receive
    /// buffers full) before the relay read them, where Linux tells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relay_kernel_dropped: Option<u64>,
}

/// One node's socket: sent to it = read + dropped by the kernel + left
/// unread when the run ended.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SocketCounts {
    /// Datagrams sent to it by syncbench (the relay, a peer with no relay,
    /// the attacker); `None` when a forwarder outside syncbench sends.
    pub sent_to: Option<u64>,
    /// Datagrams the node read (each then went through its gate).
    pub read: u64,
    /// Datagrams the kernel dropped with its receive buffer full (Linux's
    /// per-socket count in `/proc/net/udp`), where it can be read.
    pub kernel_dropped: Option<u64>,
}

/// A live run's outcome.
#[derive(Clone, Debug)]
pub struct LiveResult {
    /// Everything measured, as in a simulated run.
    pub metrics: Metrics,
    /// Drops and relay counts.
    pub counters: LiveCounters,
}

/// Why a live run failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LiveError {
    /// The configuration cannot run live.
    #[error("{0}")]
    Config(String),
    /// A socket or the runtime failed.
    #[error("live run: {0}")]
    Io(String),
}

impl From<RunError> for LiveError {
    fn from(e: RunError) -> Self {
        LiveError::Config(e.to_string())
    }
}

fn io(e: std::io::Error) -> LiveError {
    LiveError::Io(e.to_string())
}

/// Runs `algorithm` live for `cfg.duration_us` of wall time.
pub fn run_live(
    algorithm: &dyn Algorithm,
    plan: &NetworkPlan,
    trace: &Trace,
    cfg: &RunConfig,
    opts: LiveOptions,
) -> Result<LiveResult, LiveError> {
    let prepared = prepare(algorithm, plan, trace, cfg)?;
    let setup = &prepared.setup;
    let n = setup.nodes();
    if opts.hostile > 0 && n < 2 {
        return Err(LiveError::Config("--hostile needs at least two nodes (node 1 is the attacker's way in)".into()));
    }
    let userspace = opts.relay == Relay::Userspace;
    if opts.hostile > 0 && !userspace {
        return Err(LiveError::Config(
            "--hostile goes through syncbench's own relay: use it with --relay userspace".into(),
        ));
    }
    let mut links = Vec::with_capacity(n);
    let mut nodes = Vec::with_capacity(n);
    // A secret per session, 256 bits from the OS (live mode is not
    // reproducible anyway): each node's envelope key derives from it.
    let mut secret = [0u8; 32];
    ring::rand::SecureRandom::fill(&ring::rand::SystemRandom::new(), &mut secret)
        .map_err(|_| LiveError::Config("the OS gave no random bytes for the session key".into()))?;
    let key_of = move |i: usize, j: usize| envelope::pair_key(&secret, i as u16, j as u16);
    for i in 0..n {
        let NodeParts { node, clock, player, profile, links: pair } = node_parts(algorithm, setup, plan, cfg, i);
        if pair.iter().any(Link::has_slots) && userspace {
            return Err(LiveError::Config(format!(
                "profile `{}`: netem's `slot` is simulated only (the relay does not hold packets for slots)",
                profile.name
            )));
        }
        links.push(pair);
        nodes.push(NodeState {
            node,
            clock,
            ticks: 0,
            player,
            next_seq: vec![1; n],
            keys: (0..n).map(|j| key_of(i, j)).collect(),
            gate: Gate::new(i as u16, Vec::new()),
        });
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(io)?;
    let local = tokio::task::LocalSet::new();
    let duration_us = cfg.duration_us;
    let render_hz: Vec<u32> = (0..cfg.clients).map(|p| cfg.render_hz_of(p)).collect();
    let tick_hz = cfg.tick_hz;
    let drop_corrupted = cfg.drop_corrupted;
    let cfg_transport = cfg.transport;
    let result = local.block_on(&rt, async move {
        let mut net = bind(n, opts.bind).await?;
        match opts.relay {
            Relay::Userspace => {}
            // Every node's "gateway" is the receiver itself: see `flush`.
            Relay::None => net.relay_addrs = net.node_addrs.clone(),
            Relay::External(a) => net.relay_addrs = vec![a; n],
        }
        if let Relay::External(a) = opts.relay {
            // Introduce every node to the forwarder (an envelope to itself,
            // which the forwarder drops), so it can deliver to nodes that
            // have not sent anything yet.
            for (i, sock) in net.node_socks.iter().enumerate() {
                let hello = Envelope { from: i as u16, to: i as u16, seq: 0 }.wrap(&key_of(i, i), &[]);
                sock.send_to(&hello, a).await.map_err(io)?;
            }
        }
        let net = Rc::new(net);
        for (j, node) in nodes.iter_mut().enumerate() {
            let peers = (0..n).map(|i| (i != j).then(|| (net.relay_addrs[i], key_of(i, j)))).collect();
            node.gate = Gate::new(j as u16, peers);
        }
        let sess = Rc::new(RefCell::new(Session {
            prepared,
            nodes,
            links,
            delivered: 0,
            relay_refused: 0,
            relay_delivered: 0,
            captured: VecDeque::new(),
            hostile_sent: Drops::default(),
            start: Instant::now(),
            transport: cfg_transport,
            seed: cfg.seed,
            endpoints: BTreeMap::new(),
            retransmitted: 0,
        }));
        let start = sess.borrow().start;
        let end = start + Duration::from_micros(duration_us);
        for i in 0..n {
            tokio::task::spawn_local(receive_task(sess.clone(), net.clone(), i));
            if userspace {
                tokio::task::spawn_local(relay_task(sess.clone(), net.clone(), i, drop_corrupted));
            }
        }
        let hz: Vec<Option<u32>> = sess.borrow().nodes.iter().map(|s| s.player.map(|p| render_hz[p])).collect();
        tokio::task::spawn_local(timer_task(sess.clone(), net.clone(), tick_hz, hz, duration_us));
        if cfg_transport != TransportKind::Unreliable {
            tokio::task::spawn_local(transport_timers(sess.clone(), net.clone()));
        }
        if opts.hostile > 0 {
            let stranger = Rc::new(UdpSocket::bind("127.0.0.1:0").await.map_err(io)?);
            tokio::task::spawn_local(hostile_task(sess.clone(), net.clone(), stranger, opts.hostile, duration_us));
        }
        sleep_until(end).await;
        let counts = net.socket_counts(!matches!(opts.relay, Relay::External(_)));
        Ok::<_, LiveError>((sess, counts))
    });
    drop(local); // ends the tasks and their references to the session
    let (sess, (sockets, relay_kernel_dropped)) = result?;
    let sess = Rc::try_unwrap(sess).map_err(|_| LiveError::Io("a task outlived the session".into()))?.into_inner();
    let link_stats: Vec<LinkStats> = sess.links.iter().flat_map(|l| [l[0].stats(), l[1].stats()]).collect();
    let steps = sess.prepared.game.steps_executed();
    let mut metrics = sess.prepared.recorder.finish(duration_us, steps, &link_stats, sess.delivered);
    metrics.network.retransmissions = sess.retransmitted;
    Ok(LiveResult {
        metrics,
        counters: LiveCounters {
            relay: match opts.relay {
                Relay::Userspace => "userspace".into(),
                Relay::None => "none".into(),
                Relay::External(a) => a.to_string(),
            },
            dropped: sess.nodes.iter().map(|s| s.gate.drops).collect(),
            hostile_sent: (opts.hostile > 0).then_some(sess.hostile_sent),
            relay_refused: sess.relay_refused,
            relay_delivered: sess.relay_delivered,
            sockets,
            relay_kernel_dropped: relay_kernel_dropped.filter(|_| userspace),
        },
    })
}
