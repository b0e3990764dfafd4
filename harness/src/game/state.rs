//! The reference game's state: per player position, velocity, jump height,
//! weapon cooldown and the sequence number of the last input applied; a
//! canonical byte encoding; and the checksum peers compare.
//!
//! Positions are integer micrometres and velocities micrometres per second,
//! so every machine computes bit-identical states.

/// One player's state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PlayerState {
    /// Centre x, µm.
    pub x: i32,
    /// Centre y, µm.
    pub y: i32,
    /// Height above the ground, µm (0 when standing).
    pub z: i32,
    /// Velocity x, µm/s.
    pub vx: i32,
    /// Velocity y, µm/s.
    pub vy: i32,
    /// Vertical velocity, µm/s.
    pub vz: i32,
    /// Buttons held on the previous step (for press edges).
    pub prev_buttons: u8,
    /// Last movement direction x in {−1, 0, 1} (aim when no aim is given).
    pub facing_x: i8,
    /// Last movement direction y in {−1, 0, 1}.
    pub facing_y: i8,
    /// Steps until the weapon can fire again.
    pub cooldown: u16,
    /// Sequence number of the last input applied to this player.
    pub last_seq: u32,
    /// Shots fired.
    pub shots: u32,
    /// Shots that hit another player.
    pub hits: u32,
    /// Player hit by the latest shot, or [`PlayerState::NO_TARGET`].
    pub last_target: u8,
    /// Items picked up.
    pub items: u16,
}

impl PlayerState {
    /// `last_target` when the latest shot hit nobody.
    pub const NO_TARGET: u8 = u8::MAX;
    /// Bytes in the canonical encoding.
    pub const WIRE_BYTES: usize = 44;

    /// Whether standing on the ground.
    pub fn grounded(&self) -> bool {
        self.z == 0 && self.vz == 0
    }

    fn encode(&self, out: &mut Vec<u8>) {
        // Built in place and appended at once: every confirmed frame is
        // encoded for its checksum.
        let mut b = [0u8; Self::WIRE_BYTES];
        let mut at = 0;
        let mut put = |bytes: &[u8]| {
            b[at..at + bytes.len()].copy_from_slice(bytes);
            at += bytes.len();
        };
        for v in [self.x, self.y, self.z, self.vx, self.vy, self.vz] {
            put(&v.to_le_bytes());
        }
        put(&[self.prev_buttons, self.facing_x as u8, self.facing_y as u8]);
        put(&self.cooldown.to_le_bytes());
        for v in [self.last_seq, self.shots, self.hits] {
            put(&v.to_le_bytes());
        }
        put(&[self.last_target]);
        put(&self.items.to_le_bytes());
        debug_assert_eq!(at, Self::WIRE_BYTES);
        out.extend_from_slice(&b);
    }

    fn decode(b: &[u8]) -> PlayerState {
        let i32_at = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        let u32_at = |o: usize| u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        PlayerState {
            x: i32_at(0),
            y: i32_at(4),
            z: i32_at(8),
            vx: i32_at(12),
            vy: i32_at(16),
            vz: i32_at(20),
            prev_buttons: b[24],
            facing_x: b[25] as i8,
            facing_y: b[26] as i8,
            cooldown: u16::from_le_bytes([b[27], b[28]]),
            last_seq: u32_at(29),
            shots: u32_at(33),
            hits: u32_at(37),
            last_target: b[41],
            items: u16::from_le_bytes([b[42], b[43]]),
        }
    }
}

/// The world's random pick-up: it appears at a random free spot (drawn
/// from the state's own generator, seeded once per session) and the first
/// player to touch it takes it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Item {
    /// Whether it is on the map.
    pub active: bool,
    /// Position x, µm.
    pub x: i32,
    /// Position y, µm.
    pub y: i32,
    /// Frame at which the next one appears (when not active).
    pub next_frame: u32,
}

/// The whole world after `frame` steps.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
pub struct State {
    /// Steps applied since the initial state.
    pub frame: u32,
    /// One entry per player, indexed by player id.
    pub players: Vec<PlayerState>,
    /// The game's deterministic random generator (splitmix64 state),
    /// seeded by the session: every peer must start from the same seed.
    pub rng: u64,
    /// The random pick-up.
    pub item: Item,
}

/// Written out so that `clone_from` copies into the players' buffer
/// (derived `Clone` makes a new one and frees the old): rollback's ring
/// and the recorder's spare state copy a state every frame.
impl Clone for State {
    fn clone(&self) -> State {
        State { frame: self.frame, players: self.players.clone(), rng: self.rng, item: self.item }
    }

    fn clone_from(&mut self, source: &State) {
        let State { frame, players, rng, item } = source;
        (self.frame, self.rng, self.item) = (*frame, *rng, *item);
        self.players.clone_from(players);
    }
}

impl State {
    /// Bytes after the players in the canonical encoding.
    pub const TAIL_BYTES: usize = 8 + 1 + 4 + 4 + 4;

    /// Appends the canonical encoding: frame, player count, players, rng,
    /// item.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.reserve(6 + self.players.len() * PlayerState::WIRE_BYTES + Self::TAIL_BYTES);
        out.extend_from_slice(&self.frame.to_le_bytes());
        out.extend_from_slice(&(self.players.len() as u16).to_le_bytes());
        for p in &self.players {
            p.encode(out);
        }
        self.encode_tail(out);
    }

    fn encode_tail(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.rng.to_le_bytes());
        out.push(self.item.active as u8);
        out.extend_from_slice(&self.item.x.to_le_bytes());
        out.extend_from_slice(&self.item.y.to_le_bytes());
        out.extend_from_slice(&self.item.next_frame.to_le_bytes());
    }

    /// Reads the canonical encoding; `None` if malformed. Returns the state
    /// and the bytes consumed.
    pub fn decode(b: &[u8]) -> Option<(State, usize)> {
        let mut s = State::default();
        let used = s.decode_into(b)?;
        Some((s, used))
    }

    /// [`State::decode`] into `self`, its players' buffer reused (a client
    /// that decodes a state every tick allocates nothing); returns the bytes
    /// consumed. `None` if malformed, and then `self` is as it was.
    pub fn decode_into(&mut self, b: &[u8]) -> Option<usize> {
        let frame = u32::from_le_bytes(b.get(..4)?.try_into().ok()?);
        let n = u16::from_le_bytes(b.get(4..6)?.try_into().ok()?) as usize;
        let end = 6 + n * PlayerState::WIRE_BYTES;
        let body = b.get(6..end)?;
        let t = b.get(end..end + Self::TAIL_BYTES)?;
        let i32_at = |o: usize| i32::from_le_bytes([t[o], t[o + 1], t[o + 2], t[o + 3]]);
        let rng = u64::from_le_bytes(t[..8].try_into().ok()?);
        if t[8] > 1 {
            return None;
        }
        let item = Item { active: t[8] == 1, x: i32_at(9), y: i32_at(13), next_frame: i32_at(17) as u32 };
        (self.frame, self.rng, self.item) = (frame, rng, item);
        self.players.clear();
        self.players.extend(body.chunks_exact(PlayerState::WIRE_BYTES).map(PlayerState::decode));
        Some(end + Self::TAIL_BYTES)
    }

    /// What peers compare to detect a desync: [`lane_hash`] of the
    /// canonical encoding ([`State::encode`]). Word-wise, so it costs a
    /// few multiplications per player rather than one per byte (it was
    /// FNV-1a over the bytes, 13% of a lockstep match), in four lanes
    /// side by side (one chain of multiplications, [`word_hash`], was
    /// still 4% of a rollback match's time); any change to any
    /// field changes the encoding and so, but for a 2⁻⁶⁴ chance, the hash.
    pub fn checksum(&self) -> u64 {
        // Every confirmed frame is checksummed: the encoding goes to a
        // buffer each thread keeps, not a new one each time.
        thread_local! {
            static ENCODED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        ENCODED.with_borrow_mut(|buf| {
            buf.clear();
            self.encode(buf);
            lane_hash(buf)
        })
    }
}

/// The multiplier's constant of [`mum`] (wyhash's first secret).
const K: u64 = 0xa076_1d64_78bd_642f;

/// The "mum" step of wyhash: `w` folded into `h` with a 64×64→128-bit
/// multiply whose halves are xored, which spreads every bit of the word
/// over the whole state.
#[inline(always)]
fn mum(h: u64, w: u64) -> u64 {
    let m = ((h ^ w) as u128) * ((K ^ w.rotate_left(32)) as u128 | 1);
    (m as u64) ^ ((m >> 64) as u64)
}

/// Where both hashes start: the length, spread (so trailing zeros count).
fn length_seed(bytes: &[u8]) -> u64 {
    (bytes.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ K
}

/// MurmurHash3's `fmix64` finish.
#[inline(always)]
fn fmix64(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^ (h >> 33)
}

/// A deterministic 64-bit hash of `bytes` read as little-endian 64-bit
/// words (the last one zero-padded, the length mixed in): each word is
/// folded in turn into the state with a 64×64→128-bit multiply whose
/// halves are xored (the "mum" step of wyhash), which spreads every bit of
/// the word over the whole state, and the result is finished with
/// MurmurHash3's `fmix64`. The same on every machine.
pub fn word_hash(bytes: &[u8]) -> u64 {
    let mut h = length_seed(bytes);
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        h = mum(h, u64::from_le_bytes(c.try_into().expect("8 bytes")));
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 8];
        last[..rest.len()].copy_from_slice(rest);
        h = mum(h, u64::from_le_bytes(last));
    }
    fmix64(h)
}

/// [`word_hash`]'s mixing in four lanes: the words of each 32-byte block
/// go one to a lane (the last block zero-padded), so four chains of
/// multiplications, a quarter as long, run side by side; the lanes, each
/// from a seed of its own, are then folded in order into the length and
/// finished with `fmix64`. The same on every machine.
pub fn lane_hash(bytes: &[u8]) -> u64 {
    // The first 256 bits of π's fraction (nothing up the sleeve), a word a lane.
    const SEEDS: [u64; 4] =
        [0x243f_6a88_85a3_08d3, 0x1319_8a2e_0370_7344, 0xa409_3822_299f_31d0, 0x082e_fa98_ec4e_6c89];
    let mut lanes = SEEDS;
    let mut fold = |block: &[u8]| {
        for (lane, w) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            *lane = mum(*lane, u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
    };
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        fold(block);
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        let mut last = [0u8; 32];
        last[..rest.len()].copy_from_slice(rest);
        fold(&last);
    }
    let h = lanes.iter().fold(length_seed(bytes), |h, &lane| mum(h, lane));
    fmix64(h)
}

/// FNV-1a, 64-bit: tiny, portable, order-sensitive.
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Self::new()
    }
}

impl Fnv64 {
    /// A fresh hasher.
    pub fn new() -> Fnv64 {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }
    /// Feeds bytes.
    pub fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> State {
        State {
            rng: 0xDEAD_BEEF,
            item: Item { active: true, x: 5, y: -6, next_frame: 99 },
            frame: 77,
            players: vec![
                PlayerState {
                    x: -3,
                    y: 1_000_000,
                    z: 5,
                    vx: -6_000_000,
                    last_seq: 9,
                    last_target: 1,
                    facing_x: -1,
                    ..Default::default()
                },
                PlayerState {
                    hits: 3,
                    shots: 4,
                    cooldown: 15,
                    prev_buttons: 0x21,
                    last_target: PlayerState::NO_TARGET,
                    ..Default::default()
                },
            ],
        }
    }

    #[test]
    fn encoding_round_trips() {
        let s = sample();
        let mut b = Vec::new();
        s.encode(&mut b);
        assert_eq!(b.len(), 6 + 2 * PlayerState::WIRE_BYTES + State::TAIL_BYTES);
        assert_eq!(State::decode(&b), Some((s.clone(), b.len())));
        assert_eq!(State::decode(&b[..b.len() - 1]), None);
        // Into a state of another size, and refused without a change.
        let mut into = State { frame: 77, players: vec![PlayerState::default(); 5], ..State::default() };
        assert_eq!(into.decode_into(&b), Some(b.len()));
        assert_eq!(into, s);
        let mut bad = b.clone();
        bad[b.len() - State::TAIL_BYTES + 8] = 2; // the item's flag is 0 or 1
        let kept = into.clone();
        assert_eq!(into.decode_into(&bad), None);
        assert_eq!(into.decode_into(&b[..b.len() - 1]), None);
        assert_eq!(into, kept);
    }

    #[test]
    fn both_hashes_see_every_bit_and_the_length() {
        for hash in [word_hash as fn(&[u8]) -> u64, lane_hash] {
            // 150 bytes: whole blocks and a partial one, for the lanes.
            let base: Vec<u8> = (0..150u32).map(|i| (i * 37 % 251) as u8).collect();
            let h = hash(&base);
            let mut seen = std::collections::BTreeSet::new();
            for bit in 0..base.len() * 8 {
                let mut b = base.clone();
                b[bit / 8] ^= 1 << (bit % 8);
                let g = hash(&b);
                assert_ne!(g, h, "bit {bit}");
                // Avalanche: a one-bit change flips about half the output bits.
                assert!((12..=52).contains(&(g ^ h).count_ones()), "bit {bit}: {} bits", (g ^ h).count_ones());
                seen.insert(g);
            }
            assert_eq!(seen.len(), base.len() * 8, "no two flips collide");
            // Trailing zeros are not free: the length is part of it.
            assert_ne!(hash(&[1, 0]), hash(&[1]));
            assert_ne!(hash(&[]), hash(&[0]));
            assert_ne!(hash(&[0; 32]), hash(&[0; 31]));
            // Two words swapped — within a block (two lanes), within a
            // lane (two blocks), across both — change the hash.
            let words: Vec<u8> = (1..=64u8).collect();
            for (i, j) in [(0, 1), (0, 4), (0, 7)] {
                let mut swapped = words.clone();
                swapped[8 * i..8 * i + 8].copy_from_slice(&words[8 * j..8 * j + 8]);
                swapped[8 * j..8 * j + 8].copy_from_slice(&words[8 * i..8 * i + 8]);
                assert_ne!(hash(&words), hash(&swapped), "words {i} and {j}");
            }
        }
        // Pinned: a change to either definition changes every checksum
        // (and the example netcode's wire format). The values are an
        // independent implementation's of the definitions above
        // (`python3 scripts/hash-reference.py`).
        let base: Vec<u8> = (0..150u32).map(|i| (i * 37 % 251) as u8).collect();
        assert_eq!(word_hash(&base), 0x5dd2_b821_876e_5d4a);
        assert_eq!(lane_hash(&base), 0xaddc_5288_bbe3_af11);
        assert_eq!(word_hash(&[]), 0x05f8_0708_adb6_c5a9);
        assert_eq!(lane_hash(&[]), 0xfc19_79e7_41de_435b);
    }

    #[test]
    fn checksum_sees_every_field() {
        let s = sample();
        let c = s.checksum();
        let mut t = s.clone();
        t.players[1].hits += 1;
        assert_ne!(t.checksum(), c);
        let mut t = s.clone();
        t.frame += 1;
        assert_ne!(t.checksum(), c);
        let mut t = s.clone();
        t.rng ^= 1;
        assert_ne!(t.checksum(), c);
        let mut t = s.clone();
        t.item.x += 1;
        assert_ne!(t.checksum(), c);
        assert_eq!(s.clone().checksum(), c);
    }
}
