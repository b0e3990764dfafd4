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

pub mod envelope;
pub mod socket_drops;

use crate::contract::{Algorithm, Ctx, NodeId, RenderCtx, View};
use crate::metrics::Metrics;
use crate::net::link::{Delivery, Link};
use crate::net::profile::NetworkPlan;
use crate::net::transport::{Endpoint, Output, TransportKind};
use crate::net::LinkStats;
use crate::runner::{node_parts, prepare, NodeParts, Prepared, RunConfig, RunError};
use crate::time::{LocalClock, Micros, Periodic};
use crate::trace::Trace;
use envelope::{Drops, Envelope, Gate, HEADER, MAX_DATAGRAM};
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

struct NodeState {
    node: Box<dyn crate::contract::Node>,
    clock: LocalClock,
    ticks: u64,
    player: Option<usize>,
    /// Next envelope sequence number per receiver.
    next_seq: Vec<u32>,
    /// The key of this node's traffic to each node.
    keys: Vec<ring::hmac::Key>,
    gate: Gate,
}

/// Everything the tasks share (one thread: borrowed, never across an await).
struct Session {
    prepared: Prepared,
    nodes: Vec<NodeState>,
    /// Per node: uplink, downlink.
    links: Vec<[Link; 2]>,
    delivered: u64,
    relay_refused: u64,
    relay_delivered: u64,
    /// Datagrams the relay delivered from node 1 to node 0 (the attacker
    /// replays them).
    captured: VecDeque<Vec<u8>>,
    hostile_sent: Drops,
    start: Instant,
    /// The transport under the nodes, and its endpoints by (node, peer).
    transport: TransportKind,
    /// The run's seed (the transports' own randomness derives from it).
    seed: u64,
    endpoints: BTreeMap<(usize, usize), Endpoint>,
    retransmitted: u64,
}

impl Session {
    fn now(&self) -> Micros {
        Micros(self.start.elapsed().as_micros() as u64)
    }
}

/// Enveloped datagrams waiting to be sent, each with its receiver.
type Outgoing = Vec<(usize, Vec<u8>)>;

struct Net {
    node_socks: Vec<Rc<UdpSocket>>,
    relay_socks: Vec<Rc<UdpSocket>>,
    node_addrs: Vec<SocketAddr>,
    relay_addrs: Vec<SocketAddr>,
    /// Per node socket: datagrams sent to it from inside syncbench, and
    /// datagrams it read.
    sent_to: Vec<Cell<u64>>,
    read: Vec<Cell<u64>>,
}

impl Net {
    /// What each node's socket saw, with the kernel's drops read now
    /// (while the sockets are open); `counted_sends`: whether every
    /// datagram sent to a node came from inside syncbench.
    fn socket_counts(&self, counted_sends: bool) -> (Vec<SocketCounts>, Option<u64>) {
        let sockets = (0..self.node_addrs.len())
            .map(|i| SocketCounts {
                sent_to: counted_sends.then(|| self.sent_to[i].get()),
                read: self.read[i].get(),
                kernel_dropped: socket_drops::kernel_drops(self.node_addrs[i]),
            })
            .collect();
        let relay: Option<Vec<u64>> =
            self.relay_socks.iter().map(|s| s.local_addr().ok().and_then(socket_drops::kernel_drops)).collect();
        (sockets, relay.map(|r| r.iter().sum()))
    }
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

async fn bind(n: usize, ip: IpAddr) -> Result<Net, LiveError> {
    let mut net = Net {
        node_socks: Vec::new(),
        relay_socks: Vec::new(),
        node_addrs: Vec::new(),
        relay_addrs: Vec::new(),
        sent_to: (0..n).map(|_| Cell::new(0)).collect(),
        read: (0..n).map(|_| Cell::new(0)).collect(),
    };
    for _ in 0..n {
        let a = UdpSocket::bind((ip, 0)).await.map_err(io)?;
        let b = UdpSocket::bind((ip, 0)).await.map_err(io)?;
        net.node_addrs.push(a.local_addr().map_err(io)?);
        net.relay_addrs.push(b.local_addr().map_err(io)?);
        net.node_socks.push(Rc::new(a));
        net.relay_socks.push(Rc::new(b));
    }
    Ok(net)
}

fn at(start: Instant, t: Micros) -> Instant {
    start + Duration::from_micros(t.0)
}

/// Node `i`'s doorway at `now`, as the simulator builds it.
fn node_ctx<'a>(
    prepared: &'a mut Prepared,
    st: &NodeState,
    i: usize,
    now: Micros,
    outbox: &'a mut Vec<(NodeId, Vec<u8>)>,
) -> Ctx<'a> {
    Ctx {
        now_global: now,
        now_local: st.clock.local_at(now),
        tick: st.ticks,
        me: NodeId(i as u16),
        setup: &prepared.setup,
        game: &prepared.game,
        outbox,
        recorder: &mut prepared.recorder,
    }
}

/// Every node's timers, fired in the simulator's order: by time, then ticks
/// before renders, then by node — so a render sees the tick of the same
/// instant, whichever node it belongs to. (Packets arrive in their own
/// tasks, whenever the socket has them.)
async fn timer_task(
    sess: Rc<RefCell<Session>>,
    net: Rc<Net>,
    tick_hz: u32,
    render_hz: Vec<Option<u32>>,
    duration_us: u64,
) {
    let (start, clocks) = {
        let s = sess.borrow();
        (s.start, s.nodes.iter().map(|n| n.clock).collect::<Vec<_>>())
    };
    let ticks: Vec<Periodic> = clocks.iter().map(|c| Periodic::started_on(tick_hz, c)).collect();
    let renders: Vec<Option<Periodic>> =
        render_hz.iter().zip(&clocks).map(|(hz, c)| hz.map(|hz| Periodic::started_on(hz, c))).collect();
    let mut k_tick = vec![0u64; clocks.len()];
    let mut k_render = vec![0u64; clocks.len()];
    let mut view = View::default();
    let mut out: Outgoing = Vec::new();
    loop {
        // The next timer: (time, class, node), class 0 = tick, 1 = render.
        let mut next: Option<(Micros, u8, usize)> = None;
        for i in 0..clocks.len() {
            let t = (ticks[i].firing(&clocks[i], k_tick[i]), 0, i);
            next = Some(next.map_or(t, |n| n.min(t)));
            if let Some(r) = &renders[i] {
                let t = (r.firing(&clocks[i], k_render[i]), 1, i);
                next = Some(next.map_or(t, |n| n.min(t)));
            }
        }
        let Some((t, class, i)) = next else { return };
        if t.0 >= duration_us {
            return;
        }
        sleep_until(at(start, t)).await;
        {
            let mut s = sess.borrow_mut();
            let now = s.now();
            let Session { prepared, nodes, .. } = &mut *s;
            let st = &mut nodes[i];
            if class == 1 {
                let rctx = RenderCtx {
                    now_local: st.clock.local_at(now),
                    me: NodeId(i as u16),
                    setup: &prepared.setup,
                    game: &prepared.game,
                };
                view.entities.clear();
                st.node.render(&rctx, &mut view);
                if let Some(p) = st.player {
                    prepared.recorder.record_view(p, now, &mut view);
                }
                k_render[i] += 1;
            } else {
                let mut outbox = Vec::new();
                st.node.on_tick(&mut node_ctx(prepared, st, i, now, &mut outbox));
                st.ticks += 1;
                k_tick[i] += 1;
                wrap(&mut s, i, outbox, &mut out);
            }
        }
        flush(&net, i, &mut out).await;
    }
}

/// Node `i`'s socket: every datagram through its gate to the node.
async fn receive_task(sess: Rc<RefCell<Session>>, net: Rc<Net>, i: usize) {
    let sock = net.node_socks[i].clone();
    let mut buf = vec![0u8; 65_536];
    let mut out: Outgoing = Vec::new();
    loop {
        // Errors are ICMP echoes of earlier sends (port unreachable): skip.
        if let Ok((len, src)) = sock.recv_from(&mut buf).await {
            net.read[i].set(net.read[i].get() + 1);
            receive(&sess, i, src, &buf, len, &mut out);
            flush(&net, i, &mut out).await;
        }
    }
}

/// A datagram reached node `i`: through its gate, then to the node.
fn receive(sess: &Rc<RefCell<Session>>, i: usize, src: SocketAddr, buf: &[u8], len: usize, out: &mut Outgoing) {
    let mut guard = sess.borrow_mut();
    let s = &mut *guard;
    let now = s.now();
    let Some((from, payload)) = s.nodes[i].gate.admit(src, &buf[..len.min(buf.len())], len) else { return };
    s.delivered += 1;
    // Through the transport: messages for the node, datagrams (ACKs,
    // repairs) back to the sender.
    let j = from as usize;
    let (messages, replies) = match endpoint(&mut s.endpoints, s.transport, s.seed, i, j, now) {
        None => (vec![payload.to_vec()], Vec::new()),
        Some(ep) => {
            let mut o = Output::default();
            ep.receive(now, payload, &mut o);
            s.retransmitted += o.retransmitted;
            (o.deliver, o.send)
        }
    };
    let Session { prepared, nodes, .. } = &mut *s;
    let st = &mut nodes[i];
    let mut outbox = Vec::new();
    for msg in messages {
        st.node.on_packet(&mut node_ctx(prepared, st, i, now, &mut outbox), NodeId(from), &msg);
    }
    for d in replies {
        envelope(s, i, j, d, out);
    }
    wrap(s, i, outbox, out);
}

/// The transport endpoint of node `at` towards `peer` (`None` when the
/// messages go as plain datagrams).
fn endpoint(
    endpoints: &mut BTreeMap<(usize, usize), Endpoint>,
    kind: TransportKind,
    seed: u64,
    at: usize,
    peer: usize,
    now: Micros,
) -> Option<&mut Endpoint> {
    if kind == TransportKind::Unreliable {
        return None;
    }
    // The first use of a pair opens both ends (the transport timers task
    // fires the peer's, which starts a handshake if the transport has one).
    Endpoint::open_pair(endpoints, kind, seed, at, peer, now);
    endpoints.get_mut(&(at, peer))
}

/// Fires the transports' timers (retransmission, delayed ACKs, flushes):
/// every millisecond, tokio's timer resolution, each endpoint that is due.
async fn transport_timers(sess: Rc<RefCell<Session>>, net: Rc<Net>) {
    let mut every = tokio::time::interval(Duration::from_millis(1));
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut out: Outgoing = Vec::new();
    loop {
        every.tick().await;
        let by_node: Vec<(usize, Outgoing)> = {
            let mut s = sess.borrow_mut();
            let now = s.now();
            let due: Vec<(usize, usize)> =
                s.endpoints.iter().filter(|(_, e)| e.next_timer().is_some_and(|t| t <= now)).map(|(k, _)| *k).collect();
            let mut by_node = Vec::new();
            for (at, peer) in due {
                let mut o = Output::default();
                if let Some(ep) = s.endpoints.get_mut(&(at, peer)) {
                    ep.on_timer(now, &mut o);
                }
                s.retransmitted += o.retransmitted;
                for d in o.send {
                    envelope(&mut s, at, peer, d, &mut out);
                }
                by_node.push((at, std::mem::take(&mut out)));
            }
            by_node
        };
        for (at, mut datagrams) in by_node {
            flush(&net, at, &mut datagrams).await;
        }
    }
}

/// What node `i` sent: through its transport (if any), counted and
/// enveloped (each datagram with its receiver, for `--relay none`).
fn wrap(s: &mut Session, i: usize, outbox: Vec<(NodeId, Vec<u8>)>, out: &mut Outgoing) {
    let n = s.nodes.len();
    let now = s.now();
    for (to, bytes) in outbox {
        let j = to.0 as usize;
        if j >= n || j == i {
            continue;
        }
        match endpoint(&mut s.endpoints, s.transport, s.seed, i, j, now) {
            None => envelope(s, i, j, bytes, out),
            Some(ep) => {
                let mut o = Output::default();
                ep.send(now, bytes, &mut o);
                for d in o.send {
                    envelope(s, i, j, d, out);
                }
            }
        }
    }
}

/// Counts one datagram from `i` to `j` and puts it in an envelope.
fn envelope(s: &mut Session, i: usize, j: usize, bytes: Vec<u8>, out: &mut Outgoing) {
    s.prepared.recorder.count_send(NodeId(i as u16), NodeId(j as u16), bytes.len());
    let st = &mut s.nodes[i];
    let seq = st.next_seq[j];
    st.next_seq[j] = seq.wrapping_add(1).max(1);
    out.push((j, Envelope { from: i as u16, to: j as u16, seq }.wrap(&st.keys[j], &bytes)));
}

/// Sends node `i`'s datagrams to its relay socket — or, without a relay
/// (its address is then the node's own), straight to each receiver.
async fn flush(net: &Net, i: usize, out: &mut Outgoing) {
    let direct = net.relay_addrs[i] == net.node_addrs[i];
    for (j, d) in out.drain(..) {
        let to = if direct { net.node_addrs[j] } else { net.relay_addrs[i] };
        // Loopback refuses a datagram only when the receiver is gone.
        if net.node_socks[i].send_to(&d, to).await.is_ok() && direct {
            net.sent_to[j].set(net.sent_to[j].get() + 1);
        }
    }
}

/// Node `i`'s access link: takes what the node sends, applies its uplink,
/// hands each surviving copy on.
async fn relay_task(sess: Rc<RefCell<Session>>, net: Rc<Net>, i: usize, drop_corrupted: bool) {
    let sock = net.relay_socks[i].clone();
    let mut buf = vec![0u8; 65_536];
    loop {
        let Ok((len, src)) = sock.recv_from(&mut buf).await else { continue };
        let n = net.node_addrs.len();
        let env = Envelope::read(&buf[..len.min(buf.len())]);
        let Some(e) = env.filter(|e| src == net.node_addrs[i] && e.from as usize == i && (e.to as usize) < n) else {
            sess.borrow_mut().relay_refused += 1;
            continue;
        };
        let datagram = buf[..len].to_vec();
        let copies: Vec<_> = {
            let mut s = sess.borrow_mut();
            let now = s.now();
            let path_mtu = s.links[i][0].mtu().min(s.links[e.to as usize][0].mtu());
            s.links[i][0].send_on_path(now, len - HEADER, path_mtu).iter().collect()
        };
        for c in copies {
            let Some(d) = copy_through(&datagram, &c, drop_corrupted) else { continue };
            tokio::task::spawn_local(core(sess.clone(), net.clone(), i, e.to as usize, d, c.time, drop_corrupted));
        }
    }
}

/// One copy of an enveloped datagram as a link delivers it: with netem's
/// flipped bit in the payload (the envelope stays intact, as the simulator
/// corrupts only the algorithm's bytes), or `None` when corrupted copies
/// are dropped, as a receiver's checksum would.
fn copy_through(datagram: &[u8], c: &Delivery, drop_corrupted: bool) -> Option<Vec<u8>> {
    let mut d = datagram.to_vec();
    if d.len() >= HEADER && c.corrupt(&mut d[HEADER..]) && drop_corrupted {
        return None;
    }
    Some(d)
}

/// A copy left `from`'s uplink at `t`: through `to`'s downlink, delivered
/// from `from`'s relay socket.
async fn core(
    sess: Rc<RefCell<Session>>,
    net: Rc<Net>,
    from: usize,
    to: usize,
    d: Vec<u8>,
    t: Micros,
    drop_corrupted: bool,
) {
    let start = sess.borrow().start;
    sleep_until(at(start, t)).await;
    let copies: Vec<_> = {
        let mut s = sess.borrow_mut();
        let now = s.now();
        let path_mtu = s.links[from][0].mtu().min(s.links[to][0].mtu());
        let link = &mut s.links[to][1];
        if link.is_clean() {
            vec![Delivery { time: now, corrupt_bit: None, held: None }]
        } else {
            link.send_on_path(now, d.len() - HEADER, path_mtu).iter().collect()
        }
    };
    for c in copies {
        let Some(d2) = copy_through(&d, &c, drop_corrupted) else { continue };
        let t2 = c.time;
        let (sess, net) = (sess.clone(), net.clone());
        tokio::task::spawn_local(async move {
            sleep_until(at(start, t2)).await;
            if net.relay_socks[from].send_to(&d2, net.node_addrs[to]).await.is_ok() {
                net.sent_to[to].set(net.sent_to[to].get() + 1);
                let mut s = sess.borrow_mut();
                s.relay_delivered += 1;
                if from == 1 && to == 0 {
                    s.captured.push_back(d2);
                    if s.captured.len() > 64 {
                        s.captured.pop_front();
                    }
                }
            }
        });
    }
}

/// The attacker: `n` datagrams of each kind at node 0, spread over the
/// middle of the session.
async fn hostile_task(sess: Rc<RefCell<Session>>, net: Rc<Net>, stranger: Rc<UdpSocket>, n: u32, duration_us: u64) {
    let start = sess.borrow().start;
    let (from, to) = (duration_us / 5, duration_us * 7 / 10);
    let step = (to - from) / (6 * n as u64).max(1);
    let victim = net.node_addrs[0];
    let trusted = net.relay_socks[1].clone();
    let mut k = 0u64;
    for round in 0..n as usize {
        for kind in 0..6 {
            sleep_until(at(start, Micros(from + k * step))).await;
            k += 1;
            let (via, bytes) = match kind {
                0 => (&trusted, vec![0x53; 1 + round % (HEADER - 1)]),
                1 => (&trusted, vec![0xA5; MAX_DATAGRAM + 1 + (round * 997) % 8_000]),
                2 => {
                    let mut b: Vec<u8> = (0..HEADER + round % 100).map(|x| (x * 31 + round) as u8).collect();
                    b[0] = b'X'; // never the magic
                    (&trusted, b)
                }
                3 => match sess.borrow().captured.back() {
                    Some(d) => (&trusted, d.clone()),
                    None => continue,
                },
                // A real datagram with its sequence number pushed to the end
                // of the space: accepted, it would lock node 1 out.
                5 => match sess.borrow().captured.back() {
                    Some(d) => {
                        let mut f = d.clone();
                        f[7..11].copy_from_slice(&u32::MAX.to_le_bytes());
                        (&trusted, f)
                    }
                    None => continue,
                },
                _ => match sess.borrow().captured.back() {
                    Some(d) => (&stranger, d.clone()),
                    None => (&stranger, vec![0; HEADER]),
                },
            };
            if via.send_to(&bytes, victim).await.is_ok() {
                net.sent_to[0].set(net.sent_to[0].get() + 1);
                let mut s = sess.borrow_mut();
                let c = &mut s.hostile_sent;
                match kind {
                    0 => c.truncated += 1,
                    1 => c.oversized += 1,
                    2 => c.garbage += 1,
                    3 => c.replayed += 1,
                    5 => c.forged += 1,
                    _ => c.unknown_address += 1,
                }
            }
        }
    }
}
