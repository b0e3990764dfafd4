//! `quic` and `quic-datagram`: QUIC through `quinn-proto`, driven on
//! virtual time.
//!
//! `quinn-proto` is QUIC without I/O: datagrams go in through
//! `Endpoint::handle`, come out of `Connection::poll_transmit`, and time is
//! whatever `Instant` the caller passes. Each pair of nodes is one QUIC
//! connection; the node with the higher index connects (game clients are
//! the higher indices; in a mesh, every pair picks the same way), the other
//! accepts. The TLS 1.3 handshake runs for real (rustls with ring's
//! ciphers; see `quic_crypto.rs` for how its randomness is seeded), so a
//! run starts with one round trip before the first message can leave, and
//! every byte — Initial packets padded to 1,200 bytes, ACK frames, MTU
//! probes, headers, AEAD tags — is on the link and counted.
//!
//! - `quic`: the messages of each direction are one unidirectional stream,
//!   each message prefixed with its length (LEB128): reliable and ordered,
//!   so a lost packet holds back what follows it (head-of-line blocking
//!   within the stream), repaired by QUIC's loss detection (RFC 9002:
//!   packet and time thresholds, probe timeouts), under quinn's congestion
//!   control (CUBIC) and pacing.
//! - `quic-datagram`: each message is one RFC 9221 DATAGRAM frame:
//!   unreliable, unordered, acknowledged and congestion-controlled but
//!   never resent. A message larger than the path allows is dropped, as
//!   `send_datagram` would refuse it.
//!
//! Before the handshake completes, messages wait (up to a bound). quinn's
//! defaults are kept: they are what a game using quinn gets.
//!
//! Randomness: the endpoint's `rng_seed`, the connection-ID generator, the
//! stateless-reset key and the token key come from the run's seed.
//! `Instant`s are one origin read at creation plus virtual time: quinn only
//! ever subtracts them, so the origin cannot change a result.
//!
//! Retransmissions: QUIC resends frames, not packets; the count reported is
//! the packets quinn declared lost.

use super::quic_crypto::{self, with_rng};
use super::{deframe, frame, seal, Output};
use crate::rng::Stream;
use crate::time::Micros;
use quinn_proto::{
    ConnectionHandle, ConnectionIdGenerator, DatagramEvent, Dir, EndpointConfig, Event, ServerConfig, StreamEvent,
    StreamId,
};
use std::collections::VecDeque;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Messages that wait for the handshake, at most.
const MAX_WAITING: usize = 4_096;
/// Stream bytes queued behind flow control, at most (a dead peer).
const MAX_QUEUED_BYTES: usize = 8 << 20;
/// The largest message a stream frame may announce.
const MAX_MESSAGE: usize = 4 << 20;

/// Connection IDs from the run's seed (quinn's default draws them from the
/// OS).
struct SeededCids {
    seed: u64,
    next: u64,
}

impl ConnectionIdGenerator for SeededCids {
    fn generate_cid(&mut self) -> quinn_proto::ConnectionId {
        self.next += 1;
        quinn_proto::ConnectionId::new(
            &crate::rng::derive(self.seed, crate::rng::Purpose::Transport, self.next).to_le_bytes(),
        )
    }
    fn cid_len(&self) -> usize {
        8
    }
    fn cid_lifetime(&self) -> Option<Duration> {
        None
    }
}

/// The address a node has on the simulated network.
fn addr(node: usize) -> SocketAddr {
    SocketAddr::new(IpAddr::V4(Ipv4Addr::new(10, 77, (node >> 8) as u8, node as u8)), 4433)
}

/// One side of a QUIC connection.
pub struct Quic {
    datagrams: bool,
    endpoint: quinn_proto::Endpoint,
    conn: Option<(ConnectionHandle, quinn_proto::Connection)>,
    rng: Stream,
    epoch: Instant,
    peer: SocketAddr,
    local: IpAddr,
    connected: bool,
    send_stream: Option<StreamId>,
    recv_streams: Vec<StreamId>,
    received: Vec<u8>,
    waiting: VecDeque<Vec<u8>>,
    queued: VecDeque<u8>,
    lost_seen: u64,
    buf: Vec<u8>,
    /// When the connection next wants `handle_timeout` (`poll_timeout`
    /// needs `&mut`, so the driver keeps its answer).
    timer: Option<Micros>,
}

impl fmt::Debug for Quic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Quic")
            .field("datagrams", &self.datagrams)
            .field("connected", &self.connected)
            .finish_non_exhaustive()
    }
}

impl Quic {
    /// Node `local`'s end of its connection with `peer`, with randomness from
    /// `seed`; the connecting side starts its handshake at `now`.
    pub fn new(datagrams: bool, local: usize, peer: usize, seed: u64, now: Micros) -> Quic {
        let index = ((local as u64) << 32) | peer as u64;
        let mut rng = Stream::new(seed, crate::rng::Purpose::Transport, index);
        let mut key = [0u8; 64];
        rng.fill(&mut key);
        let cid_seed = rng.next_u64();
        let mut cfg = EndpointConfig::new(Arc::new(ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &key[..32])));
        cfg.cid_generator(move || Box::new(SeededCids { seed: cid_seed, next: 0 }));
        let connects = local > peer;
        let server = (!connects).then(|| {
            let crypto = quic_crypto::server_config().expect("the pinned certificate loads");
            let token_key = ring::hkdf::Salt::new(ring::hkdf::HKDF_SHA256, &[]).extract(&key[32..]);
            let mut sc = ServerConfig::new(Arc::new(crypto), Arc::new(token_key));
            sc.transport_config(Arc::new(transport_config(datagrams)));
            Arc::new(sc)
        });
        let mut endpoint_seed = [0u8; 32];
        rng.fill(&mut endpoint_seed);
        let endpoint = quinn_proto::Endpoint::new(Arc::new(cfg), server, true, Some(endpoint_seed));
        let mut q = Quic {
            datagrams,
            endpoint,
            conn: None,
            rng,
            epoch: Instant::now(),
            peer: addr(peer),
            local: addr(local).ip(),
            connected: false,
            send_stream: None,
            recv_streams: Vec::new(),
            received: Vec::new(),
            waiting: VecDeque::new(),
            queued: VecDeque::new(),
            lost_seen: 0,
            buf: Vec::new(),
            timer: None,
        };
        if connects {
            let mut cc = quinn_proto::ClientConfig::new(Arc::new(
                quic_crypto::client_config().expect("the client configuration builds"),
            ));
            cc.transport_config(Arc::new(transport_config(datagrams)));
            let at = q.instant(now);
            let (endpoint, rng, peer) = (&mut q.endpoint, &mut q.rng, q.peer);
            // The handshake's first flight leaves at the first timer.
            q.conn = with_rng(rng, || endpoint.connect(at, cc, peer, quic_crypto::SERVER_NAME)).ok();
            q.timer = Some(now);
        }
        q
    }

    fn instant(&self, t: Micros) -> Instant {
        self.epoch + Duration::from_micros(t.0)
    }

    /// An `Instant` as virtual time, rounded up to the microsecond (a timer
    /// due at that time has expired).
    fn micros(&self, i: Instant) -> Micros {
        let d = i.saturating_duration_since(self.epoch);
        Micros(d.as_nanos().div_ceil(1_000).min(u64::MAX as u128) as u64)
    }

    pub(super) fn send(&mut self, now: Micros, msg: Vec<u8>, out: &mut Output) {
        if !self.connected {
            if self.waiting.len() < MAX_WAITING {
                self.waiting.push_back(msg);
            }
            return;
        }
        self.write(msg);
        self.drive(now, out);
    }

    /// Hands one message to the connection (which is established).
    fn write(&mut self, msg: Vec<u8>) {
        let Some((_, conn)) = self.conn.as_mut() else { return };
        if self.datagrams {
            // Too large for the path or datagrams refused: the message is
            // lost, as a game's `send_datagram` error would make it.
            let _ = conn.datagrams().send(msg.into(), true);
            return;
        }
        if self.queued.len() + msg.len() > MAX_QUEUED_BYTES {
            return;
        }
        frame(&mut self.queued, &msg);
        self.flush_stream();
    }

    /// Writes queued stream bytes as far as flow control allows.
    fn flush_stream(&mut self) {
        let Some((_, conn)) = self.conn.as_mut() else { return };
        if self.send_stream.is_none() {
            self.send_stream = conn.streams().open(Dir::Uni);
        }
        let Some(id) = self.send_stream else { return };
        while !self.queued.is_empty() {
            let (a, _) = self.queued.as_slices();
            match conn.send_stream(id).write(a) {
                Ok(n) if n > 0 => {
                    self.queued.drain(..n);
                }
                _ => break,
            }
        }
    }

    pub(super) fn receive(&mut self, now: Micros, body: &[u8], out: &mut Output) {
        let at = self.instant(now);
        let (endpoint, rng, peer, local, buf) =
            (&mut self.endpoint, &mut self.rng, self.peer, self.local, &mut self.buf);
        buf.clear();
        let event = with_rng(rng, || endpoint.handle(at, peer, Some(local), None, body.into(), buf));
        match event {
            Some(DatagramEvent::ConnectionEvent(h, ev)) => {
                if let Some((ch, conn)) = self.conn.as_mut() {
                    if *ch == h {
                        let rng = &mut self.rng;
                        with_rng(rng, || conn.handle_event(ev));
                    }
                }
            }
            Some(DatagramEvent::NewConnection(incoming)) => {
                if self.conn.is_some() {
                    self.endpoint.ignore(incoming);
                } else {
                    let (endpoint, rng, buf) = (&mut self.endpoint, &mut self.rng, &mut self.buf);
                    buf.clear();
                    // (The refusal's response, if any, is all that is kept of
                    // an error.)
                    let accepted = with_rng(rng, || endpoint.accept(incoming, at, buf, None).map_err(|e| e.response));
                    match accepted {
                        Ok(c) => self.conn = Some(c),
                        Err(Some(t)) => out.send.push(seal(self.buf[..t.size].to_vec())),
                        Err(None) => {}
                    }
                }
            }
            Some(DatagramEvent::Response(t)) => out.send.push(seal(self.buf[..t.size].to_vec())),
            None => {}
        }
        self.drive(now, out);
    }

    pub(super) fn on_timer(&mut self, now: Micros, out: &mut Output) {
        let at = self.instant(now);
        if let Some((_, conn)) = self.conn.as_mut() {
            if conn.poll_timeout().is_some_and(|t| t <= at + Duration::from_nanos(999)) {
                let rng = &mut self.rng;
                with_rng(rng, || conn.handle_timeout(at));
            }
        }
        self.drive(now, out);
    }

    /// Whether the connection was lost or closed (quinn gives up after its
    /// idle timeout, 30 s by default: under heavy loss a handshake whose
    /// last flights keep being lost can end that way, as real QUIC does).
    pub(super) fn gave_up(&self) -> bool {
        self.conn.as_ref().is_some_and(|(_, c)| c.is_closed())
    }

    pub(super) fn next_timer(&self) -> Option<Micros> {
        self.timer
    }

    /// Lets the connection run after anything happened to it: endpoint
    /// bookkeeping, application events, then every datagram it wants sent.
    fn drive(&mut self, now: Micros, out: &mut Output) {
        let at = self.instant(now);
        loop {
            let mut progressed = false;
            let Some((ch, conn)) = self.conn.as_mut() else { return };
            while let Some(ev) = conn.poll_endpoint_events() {
                if let Some(back) = self.endpoint.handle_event(*ch, ev) {
                    let rng = &mut self.rng;
                    with_rng(rng, || conn.handle_event(back));
                }
                progressed = true;
            }
            while let Some(ev) = conn.poll() {
                progressed = true;
                match ev {
                    Event::Connected => self.connected = true,
                    Event::Stream(StreamEvent::Opened { dir: Dir::Uni }) => {
                        while let Some(id) = conn.streams().accept(Dir::Uni) {
                            self.recv_streams.push(id);
                        }
                    }
                    Event::DatagramReceived => {
                        while let Some(d) = conn.datagrams().recv() {
                            out.deliver.push(d.to_vec());
                        }
                    }
                    _ => {}
                }
            }
            if self.connected {
                for msg in std::mem::take(&mut self.waiting) {
                    self.write(msg);
                }
            }
            let Some((_, conn)) = self.conn.as_mut() else { return };
            // Stream data: read what arrived, write what flow control
            // freed.
            for &id in &self.recv_streams {
                let mut rs = conn.recv_stream(id);
                if let Ok(mut chunks) = rs.read(true) {
                    while let Ok(Some(chunk)) = chunks.next(usize::MAX) {
                        if self.received.len() < MAX_MESSAGE * 2 {
                            self.received.extend_from_slice(&chunk.bytes);
                        }
                    }
                    let _ = chunks.finalize();
                };
            }
            deframe(&mut self.received, MAX_MESSAGE, &mut out.deliver);
            if !self.datagrams && !self.queued.is_empty() {
                self.flush_stream();
            }
            let Some((_, conn)) = self.conn.as_mut() else { return };
            loop {
                self.buf.clear();
                let rng = &mut self.rng;
                let buf = &mut self.buf;
                match with_rng(rng, || conn.poll_transmit(at, 1, buf)) {
                    Some(t) => {
                        out.send.push(seal(self.buf[..t.size].to_vec()));
                        progressed = true;
                    }
                    None => break,
                }
            }
            if !progressed {
                break;
            }
        }
        if let Some((_, conn)) = self.conn.as_mut() {
            let lost = conn.stats().path.lost_packets;
            out.retransmitted += lost.saturating_sub(self.lost_seen);
            self.lost_seen = lost;
            let next = conn.poll_timeout();
            self.timer = next.map(|t| self.micros(t).max(now));
        }
    }
}

/// quinn's transport defaults, with datagrams on for `quic-datagram`.
fn transport_config(datagrams: bool) -> quinn_proto::TransportConfig {
    let mut t = quinn_proto::TransportConfig::default();
    if !datagrams {
        t.datagram_receive_buffer_size(None);
    }
    t
}
