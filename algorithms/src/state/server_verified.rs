//! `server-verified`: the client waits for the server (Liang & Chen §1.4 (1)).
//!
//! No prediction, no interpolation. Each tick a client samples its input
//! and sends it — with the previous two inputs again, so one lost packet
//! loses nothing — to the server. The server keeps a queue of inputs per
//! client and applies one per tick (repeating the last one when the queue is
//! empty, dropping the oldest when it grows past `max-queue`), steps the
//! world, publishes it and sends every client a snapshot of positions. A
//! client shows the newest snapshot it has. Own input therefore reaches the
//! screen about one round trip after it was pressed: the baseline every
//! other client/server algorithm is measured against.
//!
//! The queue is a jitter buffer: inputs arrive one per tick on average and
//! leave one per tick, so its depth ratchets up to `max-queue` after a
//! jitter burst and stays there, adding that many ticks of latency. A depth
//! of 1 drops an input whenever two arrive within a tick, which shifts a
//! player's timeline by a tick and — through collisions — sends the world on
//! a different path. The default, 2, is the measured compromise on `wifi`
//! (`--opt max-queue=N` to see the trade-off).
//!
//! Wire format (little-endian):
//! - input, client → server: `1, newest_seq: u32, tick: var, n: u8, n ×
//!   input(3)` (newest first; see [`crate::support::uplink`], which also
//!   carries the input buffer's pace messages back);
//! - snapshot, server → client: `2, frame: u32, players: u16, players ×
//!   (x: i32, y: i32, z: i32)`. (The client's view names the frame; the
//!   harness knows which inputs it had applied, so no input sequence
//!   numbers travel.)

use crate::support::render_lerp::{Picture, Smooth};
use crate::support::uplink::{InputUplink, ServerInputs, INPUT_BUFFER, MAX_QUEUE, REDUNDANCY};
use crate::wire::{Reader, Writer};
use harness::contract::{Algorithm, Ctx, Node, NodeId, OptionSpec, RenderCtx, Setup, Topology, View};
use harness::game::State;

const TAG_SNAPSHOT: u8 = 2;

/// The algorithm.
pub struct ServerVerified;

impl Algorithm for ServerVerified {
    fn name(&self) -> &'static str {
        "server-verified"
    }
    fn description(&self) -> &'static str {
        "client waits for the server: no prediction, shows the latest server state (Liang & Chen §1.4)"
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[REDUNDANCY, INPUT_BUFFER, MAX_QUEUE]
    }
    fn server(&self, setup: &Setup) -> Box<dyn Node> {
        Box::new(Server { state: setup.initial.clone(), inputs: ServerInputs::from_setup(setup) })
    }
    fn client(&self, setup: &Setup, _player: usize) -> Box<dyn Node> {
        Box::new(Smooth::new(
            Client { shown: Snapshot::of(&setup.initial), uplink: InputUplink::from_options(&setup.options) },
            setup,
        ))
    }
}

/// A snapshot's bytes: `frame`, then every player's position.
fn encode_positions(frame: u32, players: impl ExactSizeIterator<Item = [i32; 3]>) -> Vec<u8> {
    let mut w = Writer::with_capacity(7 + 12 * players.len());
    w.u8(TAG_SNAPSHOT).u32(frame).u16(players.len() as u16);
    for p in players {
        w.i32(p[0]).i32(p[1]).i32(p[2]);
    }
    w.finish()
}

/// What a client shows: positions per player, of a frame.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Snapshot {
    frame: u32,
    players: Vec<[i32; 3]>,
}

impl Snapshot {
    fn of(s: &State) -> Snapshot {
        Snapshot { frame: s.frame, players: s.players.iter().map(|p| [p.x, p.y, p.z]).collect() }
    }

    #[cfg(test)]
    fn encode(&self) -> Vec<u8> {
        encode_positions(self.frame, self.players.iter().copied())
    }

    /// Takes `bytes` in place of what `self` holds (its buffer reused: a
    /// snapshot arrives every tick) if they are a whole snapshot of a newer
    /// frame with `entities` players; otherwise leaves `self` as it was.
    fn replace_if_newer(&mut self, bytes: &[u8], entities: usize) -> bool {
        let mut r = Reader::new(bytes);
        let (Some(TAG_SNAPSHOT), Some(frame), Some(n)) = (r.u8(), r.u32(), r.u16()) else {
            return false;
        };
        let n = n as usize;
        let whole = r.take(12 * n).filter(|_| r.is_done());
        let Some(body) = whole.filter(|_| frame > self.frame && n == entities) else {
            return false;
        };
        let mut r = Reader::new(body);
        self.frame = frame;
        self.players.clear();
        while let (Some(x), Some(y), Some(z)) = (r.i32(), r.i32(), r.i32()) {
            self.players.push([x, y, z]);
        }
        true
    }
}

struct Client {
    shown: Snapshot,
    uplink: InputUplink,
}

impl Picture for Client {
    /// A snapshot replaces the one shown only when its frame is newer.
    fn picture_stamp(&self) -> Option<u64> {
        Some(self.shown.frame as u64)
    }
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        self.uplink.send_tick(ctx, |_| {});
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        if self.uplink.pacer.on_packet(bytes) {
            return;
        }
        self.shown.replace_if_newer(bytes, ctx.setup().entities());
    }

    fn render(&mut self, _ctx: &RenderCtx<'_>, view: &mut View) {
        let frame = self.shown.frame;
        for (i, p) in self.shown.players.iter().enumerate() {
            view.entities.push(harness::contract::EntityView {
                id: i as u16,
                x: p[0],
                y: p[1],
                z: p[2],
                seq: 0,
                frame,
            });
        }
    }
}

struct Server {
    state: State,
    inputs: ServerInputs,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, self.inputs.for_tick());
        self.inputs.send_paces(ctx);
        ctx.publish_authority(&self.state);
        // Written straight from the state (a snapshot every tick).
        let msg = encode_positions(self.state.frame, self.state.players.iter().map(|p| [p.x, p.y, p.z]));
        ctx.send_to_players(msg);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else {
            return;
        };
        self.inputs.receive(p, ctx.now(), bytes, |_| Some(()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshot_round_trip_and_garbage() {
        let s = Snapshot { frame: 9, players: vec![[1, -2, 3], [4, 5, 6]] };
        let b = s.encode();
        let mut shown = Snapshot { frame: 3, players: vec![[7, 7, 7]; 2] };
        let before = shown.clone();
        assert!(!shown.replace_if_newer(&b[..b.len() - 1], 2), "a truncated snapshot");
        assert!(!shown.replace_if_newer(&[b.as_slice(), &[0]].concat(), 2), "a byte too many");
        assert!(!shown.replace_if_newer(&[], 2));
        assert!(!shown.replace_if_newer(&b, 3), "the wrong number of players");
        assert_eq!(shown, before, "refused snapshots change nothing");
        assert!(shown.replace_if_newer(&b, 2));
        assert_eq!(shown, s);
        let older = Snapshot { frame: 8, players: vec![[0; 3]; 2] }.encode();
        assert!(!shown.replace_if_newer(&older, 2), "an older frame");
        assert!(!shown.replace_if_newer(&b, 2), "the same frame again");
        assert_eq!(shown, s);
    }
}
