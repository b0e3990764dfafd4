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

pub mod derived;
pub mod dist;
pub mod link;
pub mod link_probe;
pub mod netem;
pub mod plan;
pub mod profile;
pub mod recorded;
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

/// IPv4 header bytes: every IP fragment carries one.
pub const IPV4_HEADER_BYTES: usize = 20;

/// The path MTU a profile has unless it sets `mtu` (Ethernet's 1,500 bytes).
pub const DEFAULT_MTU: u32 = 1_500;

/// The smallest MTU IPv4 allows (RFC 791): 60 header bytes + 8 of data.
pub const MIN_MTU: u32 = 68;

/// The largest UDP payload that crosses a link of `mtu` bytes in one piece
/// (1,472 on the default 1,500).
pub const fn unfragmented_payload(mtu: u32) -> usize {
    mtu as usize - UDP_IPV4_HEADER_BYTES
}

/// The IP fragments a UDP datagram of `payload` bytes leaves in on a link
/// of `mtu` bytes: each fragment's IP payload (the UDP header rides in the
/// first), every one but the last a multiple of 8 bytes as IPv4 requires.
pub fn fragments(payload: usize, mtu: u32) -> impl Iterator<Item = usize> {
    let data = payload + (UDP_IPV4_HEADER_BYTES - IPV4_HEADER_BYTES);
    let per = ((mtu.max(MIN_MTU) as usize - IPV4_HEADER_BYTES) / 8) * 8;
    let n = data.div_ceil(per).max(1);
    (0..n).map(move |i| per.min(data - i * per))
}

/// Bytes a UDP datagram of `payload` bytes puts on the wire on a link of
/// `mtu` bytes, counting `header_bytes` (IP + UDP) once and the IP header
/// again for every further fragment.
pub fn wire_bytes(payload: usize, mtu: u32, header_bytes: usize) -> usize {
    payload + header_bytes + IPV4_HEADER_BYTES * (fragments(payload, mtu).count() - 1)
}
