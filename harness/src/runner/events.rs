//! What the event loop schedules (packets, ticks, renders, wake-ups) and
//! the nodes it runs, each with its clock and its two links.

use crate::contract::{Node, NodeId};
use crate::net::Link;
use crate::time::{LocalClock, Micros, Periodic};

/// Which of a node's two links.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Dir {
    Up,
    Down,
}

/// A packet in flight.
pub(super) struct Packet {
    pub(super) from: NodeId,
    pub(super) to: NodeId,
    pub(super) bytes: Vec<u8>,
    /// When its sender put it on the wire.
    pub(super) sent: Micros,
    /// A link flipped a bit of it on the way.
    pub(super) corrupt: bool,
}

impl Packet {
    /// A packet as its sender wrote it at `sent`.
    pub(super) fn new(from: NodeId, to: NodeId, bytes: Vec<u8>, sent: Micros) -> Packet {
        Packet { from, to, bytes, sent, corrupt: false }
    }
}

/// An event of the loop.
pub(super) enum Ev {
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

/// A node with what the loop keeps of it.
pub(super) struct NodeSlot {
    pub(super) node: Box<dyn Node>,
    /// Its local clock.
    pub(super) clock: LocalClock,
    /// When it ticks, and how many ticks it has run.
    pub(super) tick: Periodic,
    pub(super) ticks: u64,
    /// A client's renders: when, and how many so far.
    pub(super) render: Option<(Periodic, u64)>,
    pub(super) player: Option<usize>,
    /// Its uplink and downlink ([`Dir`] indexes them).
    pub(super) links: [Link; 2],
}
