//! The network between the nodes: packets through their links, held by
//! slotted links, and the transport endpoints of every pair that talked.

use super::events::{Dir, Ev, NodeSlot, Packet};
use crate::contract::NodeId;
use crate::event::{EventClass, Scheduler};
use crate::net::transport::{Endpoint, TransportKind};
use crate::net::Delivery;
use crate::time::Micros;
use std::collections::BTreeMap;

/// The links of every node and the packets slotted links hold.
#[derive(Default)]
pub(super) struct Network {
    held: BTreeMap<(usize, Dir, u64), Packet>,
    /// The wake-up armed per slotted link.
    pub(super) wake: BTreeMap<(usize, Dir), Micros>,
    /// Packets delivered to a node.
    pub(super) delivered: u64,
}

impl Network {
    /// Puts `p` on `node`'s link `dir` at `now`; schedules what comes out.
    /// Returns who sent it and when if this link lost it or damaged every
    /// copy (one damaged on an earlier link was told of there).
    pub(super) fn offer(
        &mut self,
        slots: &mut [NodeSlot],
        sched: &mut Scheduler<Ev>,
        now: Micros,
        node: usize,
        dir: Dir,
        p: Packet,
    ) -> Option<(NodeId, Micros)> {
        let path_mtu = slots[p.from.0 as usize].links[0].mtu().min(slots[p.to.0 as usize].links[0].mtu());
        let link = &mut slots[node].links[dir as usize];
        let copies = link.send_on_path(now, p.bytes.len(), path_mtu);
        let lost = !p.corrupt && copies.iter().all(|d| d.corrupt_bit.is_some());
        let told = lost.then_some((p.from, p.sent));
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
        told
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
    pub(super) fn release(
        &mut self,
        slots: &mut [NodeSlot],
        sched: &mut Scheduler<Ev>,
        now: Micros,
        node: usize,
        dir: Dir,
    ) {
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
pub(super) struct Transports {
    kind: TransportKind,
    seed: u64,
    endpoints: BTreeMap<(usize, usize), Endpoint>,
    /// The timer armed per endpoint.
    pub(super) armed: BTreeMap<(usize, usize), Micros>,
    /// Datagrams the endpoints sent again.
    pub(super) retransmitted: u64,
}

impl Transports {
    /// No endpoint yet: each pair's opens when it first talks.
    pub(super) fn new(kind: TransportKind, seed: u64) -> Transports {
        Transports { kind, seed, endpoints: BTreeMap::new(), armed: BTreeMap::new(), retransmitted: 0 }
    }

    /// The endpoint of `at` towards `peer`. The first use of a pair opens
    /// both ends at once (a connection has two), arming the peer's timer:
    /// a transport with a handshake starts it then.
    pub(super) fn endpoint(
        &mut self,
        sched: &mut Scheduler<Ev>,
        now: Micros,
        at: usize,
        peer: usize,
    ) -> Option<&mut Endpoint> {
        if self.kind == TransportKind::Unreliable {
            return None;
        }
        if Endpoint::open_pair(&mut self.endpoints, self.kind, self.seed, at, peer, now) {
            self.arm(sched, peer, at);
        }
        self.endpoints.get_mut(&(at, peer))
    }

    /// Re-arms the timer of `(at, peer)` if it moved.
    pub(super) fn arm(&mut self, sched: &mut Scheduler<Ev>, at: usize, peer: usize) {
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
