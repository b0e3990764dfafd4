//! A live session's state and its tasks: the nodes with their clocks,
//! gates and keys, the sockets, and the tasks that tick and render the
//! nodes, read their sockets, fire transport timers and send what they
//! wrote, each datagram in an envelope.

use super::*;

pub(super) struct NodeState {
    pub(super) node: Box<dyn crate::contract::Node>,
    pub(super) clock: LocalClock,
    pub(super) ticks: u64,
    pub(super) player: Option<usize>,
    /// Next envelope sequence number per receiver.
    pub(super) next_seq: Vec<u32>,
    /// The key of this node's traffic to each node.
    pub(super) keys: Vec<ring::hmac::Key>,
    pub(super) gate: Gate,
}

/// Everything the tasks share (one thread: borrowed, never across an await).
pub(super) struct Session {
    pub(super) prepared: Prepared,
    pub(super) nodes: Vec<NodeState>,
    /// Per node: uplink, downlink.
    pub(super) links: Vec<[Link; 2]>,
    pub(super) delivered: u64,
    pub(super) relay_refused: u64,
    pub(super) relay_delivered: u64,
    /// Datagrams the relay delivered from node 1 to node 0 (the attacker
    /// replays them).
    pub(super) captured: VecDeque<Vec<u8>>,
    pub(super) hostile_sent: Drops,
    pub(super) start: Instant,
    /// The transport under the nodes, and its endpoints by (node, peer).
    pub(super) transport: TransportKind,
    /// The run's seed (the transports' own randomness derives from it).
    pub(super) seed: u64,
    pub(super) endpoints: BTreeMap<(usize, usize), Endpoint>,
    pub(super) retransmitted: u64,
}

impl Session {
    pub(super) fn now(&self) -> Micros {
        Micros(self.start.elapsed().as_micros() as u64)
    }
}

/// Enveloped datagrams waiting to be sent, each with its receiver.
pub(super) type Outgoing = Vec<(usize, Vec<u8>)>;

pub(super) struct Net {
    pub(super) node_socks: Vec<Rc<UdpSocket>>,
    pub(super) relay_socks: Vec<Rc<UdpSocket>>,
    pub(super) node_addrs: Vec<SocketAddr>,
    pub(super) relay_addrs: Vec<SocketAddr>,
    /// Per node socket: datagrams sent to it from inside syncbench, and
    /// datagrams it read.
    pub(super) sent_to: Vec<Cell<u64>>,
    pub(super) read: Vec<Cell<u64>>,
}

impl Net {
    /// What each node's socket saw, with the kernel's drops read now
    /// (while the sockets are open); `counted_sends`: whether every
    /// datagram sent to a node came from inside syncbench.
    pub(super) fn socket_counts(&self, counted_sends: bool) -> (Vec<SocketCounts>, Option<u64>) {
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

pub(super) async fn bind(n: usize, ip: IpAddr) -> Result<Net, LiveError> {
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

pub(super) fn at(start: Instant, t: Micros) -> Instant {
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
pub(super) async fn timer_task(
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
pub(super) async fn receive_task(sess: Rc<RefCell<Session>>, net: Rc<Net>, i: usize) {
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
pub(super) async fn transport_timers(sess: Rc<RefCell<Session>>, net: Rc<Net>) {
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
