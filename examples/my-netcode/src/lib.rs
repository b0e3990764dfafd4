//! `my-netcode`: half-rate snapshots — written the way a netcode author
//! would write an algorithm of their own against syncbench's contract,
//! outside the syncbench repository's algorithms.
//!
//! Client/server. Each tick a client samples its input and sends it to the
//! server with the three inputs before it (one lost packet loses nothing).
//! The server applies each player's inputs in sequence, one per tick,
//! keeping at most [`MAX_BUFFERED`] waiting (older ones are skipped, so a
//! jitter burst cannot add latency for good) and repeating the last one
//! when none has arrived. Every `send-every` ticks (default 2: 30 Hz at the
//! reference game's 60 Hz) it sends every client the positions of the
//! frame it just stepped. A client shows them — no prediction — moving
//! from the previous positions to the newest over one snapshot interval
//! after they arrive, so a 144 Hz screen sees motion, not a 30 Hz
//! staircase (the first version showed the newest positions as they were,
//! and `conform` failed it on `frame-rate-independent`: divergence three
//! times larger at 144 Hz than at 30 Hz). Each entity names the frame its
//! picture comes from, so the harness knows which inputs it shows.
//!
//! The trade it makes: half the downlink of sending every tick, for up to
//! one snapshot interval more latency.
//!
//! Every message ends with a 4-byte check of its bytes (`seal`): UDP's
//! own checksum drops damaged datagrams, but a sender may turn it off
//! (`SO_NO_CHECK`, `--corrupted deliver`), and one flipped bit in a frame
//! or sequence number would otherwise stall this client or server for
//! good.

use std::collections::BTreeMap;
use syncbench::harness::contract::{
    Algorithm, Ctx, EntityView, Node, NodeId, OptionSpec, RenderCtx, Setup, Topology, View,
};
use syncbench::harness::game::{word_hash, Game, Input, SeqInput, State};

/// Inputs a client carries per packet: the newest and the three before it.
pub const REDUNDANCY: usize = 4;
/// Inputs the server keeps waiting per player.
pub const MAX_BUFFERED: usize = 3;

const SEND_EVERY: OptionSpec = OptionSpec::count("send-every", "2", 1, 60, "ticks between snapshots to the clients");

/// The algorithm.
pub struct MyNetcode;

impl Algorithm for MyNetcode {
    fn name(&self) -> &'static str {
        "my-netcode"
    }
    fn description(&self) -> &'static str {
        "half-rate snapshots: inputs with redundancy up, positions every other tick down (the example crate)"
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[SEND_EVERY]
    }
    fn server(&self, setup: &Setup) -> Box<dyn Node> {
        Box::new(Server {
            state: setup.initial.clone(),
            every: setup.options.number(&SEND_EVERY).clamp(1.0, 60.0) as u64,
            players: vec![PlayerInputs::default(); setup.players],
            ticks: 0,
        })
    }
    fn client(&self, setup: &Setup, _player: usize) -> Box<dyn Node> {
        let every = setup.options.number(&SEND_EVERY).clamp(1.0, 60.0) as i64;
        let first = Positions::of(&setup.initial);
        Box::new(Client {
            recent: Vec::new(),
            from: first.clone(),
            to: first,
            since: i64::MIN / 2,
            interval_us: every * 1_000_000 / setup.tick_hz.max(1) as i64,
        })
    }
}

/// Appends the check of `msg`: the low 32 bits of a word-wise hash.
fn seal(mut msg: Vec<u8>) -> Vec<u8> {
    let check = word_hash(&msg) as u32;
    msg.extend_from_slice(&check.to_le_bytes());
    msg
}

/// The message without its check, if the check holds.
fn unseal(bytes: &[u8]) -> Option<&[u8]> {
    let (msg, check) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
    (u32::from_le_bytes(check.try_into().ok()?) == word_hash(msg) as u32).then_some(msg)
}

/// Client → server: `n: u8`, then `n × (seq: u32 LE, input: 3 bytes)`,
/// newest first; sealed.
fn encode_inputs(recent: &[SeqInput]) -> Vec<u8> {
    let mut out = vec![recent.len() as u8];
    for s in recent.iter().rev() {
        out.extend_from_slice(&s.seq.to_le_bytes());
        s.input.encode(&mut out);
    }
    seal(out)
}

fn decode_inputs(bytes: &[u8]) -> Option<Vec<SeqInput>> {
    let (&n, mut rest) = unseal(bytes)?.split_first()?;
    let mut out = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let seq = u32::from_le_bytes(rest.get(..4)?.try_into().ok()?);
        let input = Input::decode(rest.get(4..)?)?;
        out.push(SeqInput { seq, input });
        rest = &rest[4 + Input::WIRE_BYTES..];
    }
    rest.is_empty().then_some(out)
}

/// Server → client: `frame: u32 LE`, then `(x, y, z): 3 × i32 LE` per
/// entity; sealed.
#[derive(Clone, Debug, PartialEq)]
struct Positions {
    frame: u32,
    at: Vec<[i32; 3]>,
}

impl Positions {
    fn of(s: &State) -> Positions {
        Positions { frame: s.frame, at: s.players.iter().map(|p| [p.x, p.y, p.z]).collect() }
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(4 + 12 * self.at.len());
        out.extend_from_slice(&self.frame.to_le_bytes());
        for p in &self.at {
            for v in p {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        seal(out)
    }

    fn decode(bytes: &[u8]) -> Option<Positions> {
        let bytes = unseal(bytes)?;
        let frame = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
        let body = &bytes[4..];
        if body.len() % 12 != 0 {
            return None;
        }
        let at = body
            .chunks_exact(12)
            .map(|c| {
                let v = |i: usize| i32::from_le_bytes(c[i..i + 4].try_into().expect("4 bytes"));
                [v(0), v(4), v(8)]
            })
            .collect();
        Some(Positions { frame, at })
    }
}

struct Client {
    recent: Vec<SeqInput>,
    /// What the screen moves from and to, and since when (local µs).
    from: Positions,
    to: Positions,
    since: i64,
    interval_us: i64,
}

impl Client {
    /// Where entity `i` is drawn at local time `now`, and the frame it shows.
    /// A straight line between two pictures can cut a wall's corner (the
    /// first interpolating version failed `conform`'s `on-map` that way):
    /// where it would, the entity is drawn at its newest position instead.
    fn drawn(&self, game: &Game, i: usize, now: i64) -> ([i32; 3], u32) {
        let t = (now - self.since).clamp(0, self.interval_us);
        let (a, b) = (self.from.at[i], self.to.at[i]);
        let lerp = |a: i32, b: i32| (a as i64 + (b as i64 - a as i64) * t / self.interval_us.max(1)) as i32;
        let p = [lerp(a[0], b[0]), lerp(a[1], b[1]), lerp(a[2], b[2])];
        let c = game.config();
        if !c.arena.is_free(p[0] as i64, p[1] as i64, c.half_size) {
            return (b, self.to.frame);
        }
        // The frame the picture has reached on its way from one to the
        // other: naming the newest while still drawing between them would
        // overstate what the screen shows (`conform`'s `honest-names`).
        let (f0, f1) = (self.from.frame as i64, self.to.frame as i64);
        let frame = f0 + (f1 - f0) * t / self.interval_us.max(1);
        (p, frame as u32)
    }
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let Some(input) = ctx.sample_input() else { return };
        self.recent.push(input);
        if self.recent.len() > REDUNDANCY {
            self.recent.remove(0);
        }
        let server = ctx.setup().server();
        ctx.send(server, encode_inputs(&self.recent));
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        if let Some(p) = Positions::decode(bytes) {
            if p.frame > self.to.frame && p.at.len() == ctx.setup().entities() {
                // Move between consecutive authoritative pictures (starting
                // from wherever the screen was drawn instead cuts corners
                // off the path: `conform` failed `remote-on-path` on it).
                self.from = std::mem::replace(&mut self.to, p);
                self.since = ctx.now();
            }
        }
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        for i in 0..self.to.at.len() {
            let (p, frame) = self.drawn(ctx.game(), i, ctx.now());
            view.entities.push(EntityView { id: i as u16, x: p[0], y: p[1], z: p[2], seq: 0, frame });
        }
    }
}

/// One player's inputs at the server.
#[derive(Clone, Default)]
struct PlayerInputs {
    waiting: BTreeMap<u32, Input>,
    last: SeqInput,
}

impl PlayerInputs {
    fn receive(&mut self, inputs: Vec<SeqInput>) {
        for s in inputs {
            if s.seq > self.last.seq {
                self.waiting.insert(s.seq, s.input);
            }
        }
        while self.waiting.len() > MAX_BUFFERED {
            self.waiting.pop_first();
        }
    }

    /// The input for this tick: the next one waiting (skipping any that
    /// never came), else the last one again.
    fn next(&mut self) -> SeqInput {
        if let Some((seq, input)) = self.waiting.pop_first() {
            self.last = SeqInput { seq, input };
        }
        self.last
    }
}

struct Server {
    state: State,
    every: u64,
    players: Vec<PlayerInputs>,
    ticks: u64,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let mut inputs: Vec<SeqInput> = self.players.iter_mut().map(PlayerInputs::next).collect();
        inputs.resize(self.state.players.len(), SeqInput::default());
        ctx.game().step(&mut self.state, &inputs);
        ctx.publish_authority(&self.state);
        self.ticks += 1;
        if self.ticks.is_multiple_of(self.every) {
            ctx.send_to_players(Positions::of(&self.state).encode());
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        if let Some(inputs) = decode_inputs(bytes) {
            self.players[p].receive(inputs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_formats_round_trip_and_refuse_garbage() {
        let recent =
            vec![SeqInput { seq: 7, input: Input::buttons(Input::UP) }, SeqInput { seq: 8, input: Input::IDLE }];
        let bytes = encode_inputs(&recent);
        let back = decode_inputs(&bytes).unwrap();
        assert_eq!(back.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![8, 7]);
        assert_eq!(decode_inputs(&bytes[..bytes.len() - 1]), None);
        assert_eq!(decode_inputs(&[]), None);
        let p = Positions { frame: 3, at: vec![[1, -2, 3]] };
        assert_eq!(Positions::decode(&p.encode()), Some(p));
        assert_eq!(Positions::decode(&[1, 2, 3, 4, 5]), None);
        // Any flipped bit is caught by the check.
        for bit in 0..bytes.len() * 8 {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(decode_inputs(&b), None, "bit {bit}");
        }
    }

    #[test]
    fn the_server_skips_what_never_came_and_bounds_its_buffer() {
        let mut p = PlayerInputs::default();
        let s = |seq| SeqInput { seq, input: Input::IDLE };
        p.receive(vec![s(3), s(1)]);
        assert_eq!((p.next().seq, p.next().seq, p.next().seq), (1, 3, 3));
        p.receive((4..=10).map(s).collect());
        assert_eq!(p.waiting.len(), MAX_BUFFERED);
        assert_eq!(p.next().seq, 8);
    }
}
