//! naia's sockets over the harness's links.
//!
//! naia gets its packets through `Socket` traits (its own transports are
//! UDP and WebRTC); here each side's socket is a [`Wire`] of queues the
//! node fills from `on_packet` and empties into `ctx.send`. naia's
//! transports first fetch an identity token over HTTP; here that exchange
//! rides the same link, told apart by a first byte ([`GAME`], [`AUTH`],
//! [`IDENTITY`]): one byte on every datagram, counted with the rest. The
//! client repeats its request until the token comes, as an HTTP client
//! retries; the server answers a repeat with the token it already gave.

use naia_client::transport as client;
use naia_server::transport as server;
use naia_shared::IdentityToken;
use std::collections::{BTreeMap, VecDeque};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// A naia packet follows.
pub const GAME: u8 = 0;
/// A client asks for its identity token.
pub const AUTH: u8 = 1;
/// The server's identity token follows.
pub const IDENTITY: u8 = 2;

/// Letters in naia's identity token (`generate_identity_token`).
const TOKEN_LEN: usize = 32;

/// What a node and its naia socket share (only the node's thread touches
/// either; the lock makes them `Send`, as naia's traits require).
#[derive(Default)]
pub struct Queues {
    /// Datagrams to send, with their first byte.
    pub out: Vec<(SocketAddr, Vec<u8>)>,
    /// naia packets received, first byte removed.
    inbox: VecDeque<(SocketAddr, Vec<u8>)>,
    /// Server: identity requests not yet handed to naia.
    requests: VecDeque<SocketAddr>,
    /// Server: the token given to each address.
    given: BTreeMap<SocketAddr, IdentityToken>,
    /// Client: the token, once it arrived and until naia takes it.
    token: Option<IdentityToken>,
    /// Client: naia has its token.
    pub identified: bool,
}

/// The shared queues.
#[derive(Clone, Default)]
pub struct Wire(Arc<Mutex<Queues>>);

impl Wire {
    /// The queues.
    pub fn lock(&self) -> MutexGuard<'_, Queues> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A datagram arrived from `from`: queued for naia, or answered.
    pub fn receive(&self, from: SocketAddr, bytes: &[u8]) {
        let mut q = self.lock();
        match bytes.split_first() {
            Some((&GAME, rest)) => q.inbox.push_back((from, rest.to_vec())),
            Some((&AUTH, _)) => match q.given.get(&from) {
                Some(token) => {
                    let reply = identity(token);
                    q.out.push((from, reply));
                }
                None if !q.requests.contains(&from) => q.requests.push_back(from),
                None => {}
            },
            // naia's tokens are 32 lowercase letters: anything else (a
            // damaged reply) is ignored, and the client asks again.
            Some((&IDENTITY, token))
                if !q.identified && token.len() == TOKEN_LEN && token.iter().all(u8::is_ascii_lowercase) =>
            {
                q.token = Some(String::from_utf8_lossy(token).into_owned());
            }
            _ => {}
        }
    }

    /// Asks for the identity token.
    pub fn request(&self, server: SocketAddr) {
        self.lock().out.push((server, vec![AUTH]));
    }

    /// Takes the datagrams to send.
    pub fn take_out(&self) -> Vec<(SocketAddr, Vec<u8>)> {
        std::mem::take(&mut self.lock().out)
    }
}

fn identity(token: &str) -> Vec<u8> {
    let mut b = Vec::with_capacity(1 + token.len());
    b.push(IDENTITY);
    b.extend_from_slice(token.as_bytes());
    b
}

fn framed(payload: &[u8]) -> Vec<u8> {
    let mut b = harness::buffers::take(1 + payload.len());
    b.push(GAME);
    b.extend_from_slice(payload);
    b
}

/// The address of node `n` (naia keys its users by address).
pub fn address(n: u16) -> SocketAddr {
    SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::new(10, 0, (n >> 8) as u8, n as u8), 7000))
}

/// The node at `a`, if it is one of [`address`]'s.
pub fn node_of(a: &SocketAddr) -> Option<u16> {
    match a {
        SocketAddr::V4(v) if v.port() == 7000 && v.ip().octets()[..2] == [10, 0] => {
            let o = v.ip().octets();
            Some(u16::from(o[2]) << 8 | u16::from(o[3]))
        }
        _ => None,
    }
}

/// The packet naia's receiver lends out until its next call.
#[derive(Clone)]
struct Receiver {
    wire: Wire,
    current: Vec<u8>,
    server: SocketAddr,
}

impl Receiver {
    fn next(&mut self) -> Option<SocketAddr> {
        let (from, bytes) = self.wire.lock().inbox.pop_front()?;
        self.current = bytes;
        Some(from)
    }
}

/// The server's socket.
pub struct ServerSocket(pub Wire);

impl server::Socket for ServerSocket {
    fn listen(self: Box<Self>) -> server::ListenResult {
        let wire = self.0;
        let unused = address(0);
        (
            Box::new(ServerAuth(wire.clone())),
            Box::new(ServerAuth(wire.clone())),
            Box::new(Sender { wire: wire.clone(), server: unused }),
            Box::new(Receiver { wire, current: Vec::new(), server: unused }),
        )
    }
}

#[derive(Clone)]
struct ServerAuth(Wire);

impl server::AuthReceiver for ServerAuth {
    fn receive(&mut self) -> Result<Option<(SocketAddr, &[u8])>, server::RecvError> {
        // The request carries no credentials (the server does not ask for
        // them): an empty auth message.
        Ok(self.0.lock().requests.pop_front().map(|a| (a, &[][..])))
    }
}

impl server::AuthSender for ServerAuth {
    fn accept(&self, address: &SocketAddr, token: &IdentityToken) -> Result<(), server::SendError> {
        let mut q = self.0.lock();
        q.given.insert(*address, token.clone());
        q.out.push((*address, identity(token)));
        Ok(())
    }
    fn reject(&self, _: &SocketAddr) -> Result<(), server::SendError> {
        Ok(())
    }
}

#[derive(Clone)]
struct Sender {
    wire: Wire,
    server: SocketAddr,
}

impl server::PacketSender for Sender {
    fn send(&self, address: &SocketAddr, payload: &[u8]) -> Result<(), server::SendError> {
        self.wire.lock().out.push((*address, framed(payload)));
        Ok(())
    }
}

impl server::PacketReceiver for Receiver {
    fn receive(&mut self) -> Result<Option<(SocketAddr, &[u8])>, server::RecvError> {
        Ok(self.next().map(|from| (from, &self.current[..])))
    }
}

/// A client's socket, to the server at `server`.
pub struct ClientSocket {
    /// The queues.
    pub wire: Wire,
    /// The server's address.
    pub server: SocketAddr,
}

type Connected = (Box<dyn client::IdentityReceiver>, Box<dyn client::PacketSender>, Box<dyn client::PacketReceiver>);

impl ClientSocket {
    fn open(self) -> Connected {
        let (wire, server) = (self.wire, self.server);
        wire.request(server);
        (
            Box::new(Identity(wire.clone())),
            Box::new(Sender { wire: wire.clone(), server }),
            Box::new(Receiver { wire, current: Vec::new(), server }),
        )
    }
}

impl client::Socket for ClientSocket {
    fn connect(self: Box<Self>) -> Connected {
        (*self).open()
    }
    fn connect_with_auth(self: Box<Self>, _: Vec<u8>) -> Connected {
        (*self).open()
    }
    fn connect_with_auth_headers(self: Box<Self>, _: Vec<(String, String)>) -> Connected {
        (*self).open()
    }
    fn connect_with_auth_and_headers(self: Box<Self>, _: Vec<u8>, _: Vec<(String, String)>) -> Connected {
        (*self).open()
    }
}

#[derive(Clone)]
struct Identity(Wire);

impl client::IdentityReceiver for Identity {
    fn receive(&mut self) -> client::IdentityReceiverResult {
        let mut q = self.0.lock();
        match q.token.take() {
            Some(token) => {
                q.identified = true;
                client::IdentityReceiverResult::Success(token)
            }
            None => client::IdentityReceiverResult::Waiting,
        }
    }
}

impl client::PacketSender for Sender {
    fn send(&self, payload: &[u8]) -> Result<(), client::SendError> {
        self.wire.lock().out.push((self.server, framed(payload)));
        Ok(())
    }
    fn server_addr(&self) -> client::ServerAddr {
        client::ServerAddr::Found(self.server)
    }
}

impl client::PacketReceiver for Receiver {
    fn receive(&mut self) -> Result<Option<&[u8]>, client::RecvError> {
        Ok(self.next().map(|_| &self.current[..]))
    }
    fn server_addr(&self) -> client::ServerAddr {
        client::ServerAddr::Found(self.server)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_round_trip() {
        for n in [0u16, 1, 255, 256, 4097, u16::MAX] {
            assert_eq!(node_of(&address(n)), Some(n));
        }
        assert_eq!(node_of(&"127.0.0.1:7000".parse().unwrap()), None);
    }

    #[test]
    fn a_repeated_request_is_answered_with_the_token_given() {
        let w = Wire::default();
        let c = address(3);
        w.receive(c, &[AUTH]);
        w.receive(c, &[AUTH]);
        assert_eq!(w.lock().requests.len(), 1, "one request reaches naia");
        w.lock().requests.clear();
        w.lock().given.insert(c, "tok".into());
        w.receive(c, &[AUTH]);
        assert_eq!(w.take_out(), vec![(c, identity("tok"))]);
        // A client takes a well-formed token only.
        let token = "abcdefghijklmnopqrstuvwxyabcdefg";
        w.receive(c, &identity("short"));
        w.receive(c, &identity(&token.to_uppercase()));
        assert_eq!(w.lock().token, None);
        w.receive(c, &identity(token));
        assert_eq!(w.lock().token.as_deref(), Some(token));
        // Unknown first bytes and empty datagrams are dropped.
        w.receive(c, &[9, 1]);
        w.receive(c, &[]);
        assert!(w.lock().inbox.is_empty() && w.lock().requests.is_empty());
    }
}
