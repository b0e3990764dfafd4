//! The simulated network: netem-syntax profiles, per-direction links, and
//! the topology that joins nodes.
//!
//! Every node has an access link to the network core: an uplink (node →
//! core) and a downlink (core → node), each applying its own [`Netem`]
//! description with its own random stream. The core adds nothing. A packet
//! from A to B crosses A's uplink and then B's downlink. In client/server
//! runs the server's own link is clean by default, so a client's profile is
//! exactly what its packets see each way; in peer-to-peer runs a packet
//! crosses two access links, the sender's and the receiver's (so two peers
//! on `delay 50ms` are 100 ms apart one way — the physical truth of two home
//! connections, and what makes "one player on 4G" affect every packet to and
//! from that player only).

pub mod dist;
pub mod link;
pub mod netem;
pub mod probe;
pub mod profile;
pub mod transport;

pub use link::{Correlation, Delivery, Link, LinkStats};
pub use netem::Netem;
pub use profile::Profile;

/// IPv4 (20 bytes) + UDP (8 bytes): the per-packet header overhead counted
/// in every bandwidth figure.
pub const UDP_IPV4_HEADER_BYTES: usize = 28;

/// The largest payload a UDP datagram over IPv4 carries (65,535 − 20 −
/// 8): a larger one is refused by the sender's kernel (`EMSGSIZE`), so
/// the simulated network refuses it too and the run records a violation.
pub const MAX_UDP_PAYLOAD: usize = 65_507;

/// Ethernet header bytes counted by netem's `rate` (the qdisc sees L2 frames).
pub const ETHERNET_HEADER_BYTES: usize = 14;
