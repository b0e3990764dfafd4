//! A full-world snapshot: the server's state for one frame and the input it
//! last applied for each player (so clients can predict the others).
//!
//! Two codecs, both exact (reconciliation compares the client's predicted
//! state with the server's to the micrometre, so nothing is quantized):
//!
//! - [`Codec::Varint`]: the snapshot codecs' byte-aligned zigzag varints
//!   ([`crate::support::delta`]), one per field: `32, frame: var, n: var,
//!   n × (x, y, z, vx, vy, vz, prev_buttons, facing_x, facing_y, cooldown,
//!   last_seq, shots, hits, last_target, items), rng: u64, item (active:
//!   u8, x, y, next_frame), players × input(3)`. A standing player costs
//!   about 19 bytes, a running one about 27.
//! - [`Codec::Raw`]: `30`, the state's canonical encoding (fixed-width
//!   little-endian), then one 3-byte input per player. 6 + 47 bytes per
//!   player.

use crate::support::delta::{get_varint, put_varint, unzigzag, zigzag};
use harness::game::{Input, Item, PlayerState, State};

const TAG: u8 = 30;
const TAG_VARINT: u8 = 32;

/// How a snapshot is written on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// Fixed-width fields.
    Raw,
    /// Byte-aligned zigzag varints.
    Varint,
}

/// A decoded snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldSnapshot {
    /// The authoritative state (its `frame` is the snapshot's frame).
    pub state: State,
    /// The input last applied to each player.
    pub inputs: Vec<Input>,
}

impl WorldSnapshot {
    /// Encodes a snapshot with `codec`.
    pub fn encode(codec: Codec, state: &State, inputs: &[Input]) -> Vec<u8> {
        let mut out = harness::buffers::take(7 + 47 * state.players.len() + State::TAIL_BYTES);
        match codec {
            Codec::Raw => {
                out.push(TAG);
                state.encode(&mut out);
            }
            Codec::Varint => encode_varint(state, &mut out),
        }
        for i in inputs {
            i.encode(&mut out);
        }
        out
    }

    /// Decodes a snapshot of a game with `players` players (the entities
    /// after them are bots); `None` on anything malformed.
    pub fn decode(bytes: &[u8], players: usize) -> Option<WorldSnapshot> {
        let mut s = WorldSnapshot::default();
        s.decode_into(bytes, players).then_some(s)
    }

    /// [`WorldSnapshot::decode`] into `self`, its buffers reused (a client
    /// receives one every tick); `false` on anything malformed, and then
    /// what `self` holds is unspecified (use a scratch snapshot).
    pub fn decode_into(&mut self, bytes: &[u8], players: usize) -> bool {
        let used = match bytes.first() {
            Some(&TAG) => self.state.decode_into(&bytes[1..]),
            Some(&TAG_VARINT) => decode_varint(&bytes[1..], &mut self.state),
            _ => None,
        };
        let Some(used) = used else { return false };
        let rest = &bytes[1 + used..];
        if rest.len() != 3 * players || players > self.state.players.len() {
            return false;
        }
        self.inputs.clear();
        for b in rest.chunks_exact(3) {
            let Some(input) = Input::decode(b) else { return false };
            self.inputs.push(input);
        }
        true
    }
}

fn encode_varint(s: &State, out: &mut Vec<u8>) {
    out.push(TAG_VARINT);
    put_varint(out, s.frame as u64);
    put_varint(out, s.players.len() as u64);
    let signed = |out: &mut Vec<u8>, v: i32| put_varint(out, zigzag(v as i64));
    for p in &s.players {
        for v in [p.x, p.y, p.z, p.vx, p.vy, p.vz] {
            signed(out, v);
        }
        out.extend_from_slice(&[p.prev_buttons, p.facing_x as u8, p.facing_y as u8]);
        for v in [p.cooldown as u32, p.last_seq, p.shots, p.hits] {
            put_varint(out, v as u64);
        }
        out.push(p.last_target);
        put_varint(out, p.items as u64);
    }
    out.extend_from_slice(&s.rng.to_le_bytes());
    out.push(s.item.active as u8);
    signed(out, s.item.x);
    signed(out, s.item.y);
    put_varint(out, s.item.next_frame as u64);
}

/// Reads [`encode_varint`]'s form after the tag into `s`; the bytes used,
/// or `None` on anything malformed or out of its field's range.
fn decode_varint(b: &[u8], s: &mut State) -> Option<usize> {
    let mut at = 0;
    let mut r = VarReader { b, at: &mut at };
    let frame = r.unsigned(u32::MAX as u64)? as u32;
    let n = r.unsigned(u16::MAX as u64)? as usize;
    // A player takes at least 18 bytes: a count past the packet is a lie.
    if n > b.len() / 18 {
        return None;
    }
    s.players.clear();
    for _ in 0..n {
        let [x, y, z, vx, vy, vz] = [(); 6].map(|_| r.signed());
        s.players.push(PlayerState {
            x: x?,
            y: y?,
            z: z?,
            vx: vx?,
            vy: vy?,
            vz: vz?,
            prev_buttons: r.byte()?,
            facing_x: r.byte()? as i8,
            facing_y: r.byte()? as i8,
            cooldown: r.unsigned(u16::MAX as u64)? as u16,
            last_seq: r.unsigned(u32::MAX as u64)? as u32,
            shots: r.unsigned(u32::MAX as u64)? as u32,
            hits: r.unsigned(u32::MAX as u64)? as u32,
            last_target: r.byte()?,
            items: r.unsigned(u16::MAX as u64)? as u16,
        });
    }
    let rng = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
    let active = r.byte()?;
    if active > 1 {
        return None;
    }
    let item =
        Item { active: active == 1, x: r.signed()?, y: r.signed()?, next_frame: r.unsigned(u32::MAX as u64)? as u32 };
    (s.frame, s.rng, s.item) = (frame, rng, item);
    Some(at)
}

/// Reads varints and bytes from a slice, advancing a shared position.
struct VarReader<'a, 'p> {
    b: &'a [u8],
    at: &'p mut usize,
}

impl VarReader<'_, '_> {
    fn unsigned(&mut self, max: u64) -> Option<u64> {
        get_varint(self.b, self.at).filter(|&v| v <= max)
    }
    fn signed(&mut self) -> Option<i32> {
        i32::try_from(unzigzag(get_varint(self.b, self.at)?)).ok()
    }
    fn byte(&mut self) -> Option<u8> {
        let v = *self.b.get(*self.at)?;
        *self.at += 1;
        Some(v)
    }
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let v = self.b.get(*self.at..*self.at + n)?;
        *self.at += n;
        Some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::game::{Game, GameConfig};
    use proptest::prelude::*;

    #[test]
    fn round_trip_and_truncation() {
        let g = Game::new(GameConfig::default());
        let s = g.initial_state(3);
        let inputs = vec![Input::buttons(Input::UP), Input::IDLE, Input { buttons: Input::SHOOT, aim_x: 3, aim_y: -4 }];
        for codec in [Codec::Raw, Codec::Varint] {
            let b = WorldSnapshot::encode(codec, &s, &inputs);
            assert_eq!(WorldSnapshot::decode(&b, 3), Some(WorldSnapshot { state: s.clone(), inputs: inputs.clone() }));
            for cut in 0..b.len() {
                assert_eq!(WorldSnapshot::decode(&b[..cut], 3), None, "{codec:?} cut at {cut}");
            }
        }
    }

    fn player() -> impl Strategy<Value = PlayerState> {
        (any::<[i32; 6]>(), any::<[u8; 4]>(), any::<u16>(), any::<[u32; 3]>(), any::<u16>()).prop_map(
            |(v, b, cooldown, [last_seq, shots, hits], items)| PlayerState {
                x: v[0],
                y: v[1],
                z: v[2],
                vx: v[3],
                vy: v[4],
                vz: v[5],
                prev_buttons: b[0],
                facing_x: b[1] as i8,
                facing_y: b[2] as i8,
                cooldown,
                last_seq,
                shots,
                hits,
                last_target: b[3],
                items,
            },
        )
    }

    proptest! {
        /// Both codecs carry every field of every state exactly.
        #[test]
        fn both_codecs_are_exact(
            players in proptest::collection::vec(player(), 0..6),
            frame in any::<u32>(), rng in any::<u64>(), item in any::<(bool, i32, i32, u32)>(),
        ) {
            let s = State { frame, players, rng, item: Item { active: item.0, x: item.1, y: item.2, next_frame: item.3 } };
            let inputs = vec![Input::IDLE; s.players.len()];
            for codec in [Codec::Raw, Codec::Varint] {
                let b = WorldSnapshot::encode(codec, &s, &inputs);
                let got = WorldSnapshot::decode(&b, s.players.len());
                prop_assert_eq!(got.as_ref().map(|w| &w.state), Some(&s));
            }
        }
    }

    /// On a game in play the varints save about a third of the fixed width.
    #[test]
    fn varints_save_a_third_on_a_game_in_play() {
        let g = Game::new(GameConfig::default());
        let mut s = g.initial_state(4);
        let inputs = [Input::RIGHT, Input::UP | Input::LEFT, 0, Input::DOWN].map(Input::buttons);
        let stamped: Vec<_> =
            inputs.iter().enumerate().map(|(k, &input)| harness::game::SeqInput { seq: k as u32 + 1, input }).collect();
        for _ in 0..30 {
            g.step(&mut s, &stamped);
        }
        let raw = WorldSnapshot::encode(Codec::Raw, &s, &inputs).len();
        let varint = WorldSnapshot::encode(Codec::Varint, &s, &inputs).len();
        assert!(varint * 10 < raw * 7, "raw {raw} B, varint {varint} B");
    }
}
