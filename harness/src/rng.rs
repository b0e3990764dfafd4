//! Seeded randomness: one run seed split into independent, named streams.
//!
//! Every random draw in a run comes from a [`Stream`] derived from the run
//! seed and a stream identity (which link, which direction, which
//! generator), so adding a draw in one place never shifts the draws of
//! another, and the same seed always gives the same run. Streams are
//! ChaCha8, which `rand_chacha` documents as portable and reproducible across
//! platforms and versions.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};

/// What a stream is for; part of its identity.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A node's uplink (node → network).
    Uplink = 1,
    /// A node's downlink (network → node).
    Downlink = 2,
    /// A trace generator.
    Trace = 3,
    /// Anything an algorithm or game needs (seeded by the session).
    Session = 4,
    /// A transport endpoint's own randomness (QUIC's handshake, IDs).
    Transport = 5,
    /// Where a node starts reading a recorded link.
    Replay = 6,
    /// The links of an adversarial campaign (`stress`).
    Stress = 7,
    /// A link whose netem description sets its own `seed N`.
    Netem = 8,
    /// The scenarios of a conformance contract.
    Contract = 9,
}

/// splitmix64: a bijective mixer used to derive stream seeds.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of `(seed, purpose, index)`: every stream starts from one, and
/// a seed handed on whole (the session's, a QUIC connection ID) is one.
pub fn derive(seed: u64, purpose: Purpose, index: u64) -> u64 {
    let a = mix64(seed);
    let b = mix64(a ^ (purpose as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93));
    mix64(b ^ index.wrapping_mul(0xA076_1D64_78BD_642F))
}

/// An independent random stream.
#[derive(Clone, Debug)]
pub struct Stream(ChaCha8Rng);

impl Stream {
    /// The stream for `(seed, purpose, index)`.
    pub fn new(seed: u64, purpose: Purpose, index: u64) -> Stream {
        let c = derive(seed, purpose, index);
        let mut key = [0u8; 32];
        for (i, chunk) in key.chunks_mut(8).enumerate() {
            chunk.copy_from_slice(&mix64(c.wrapping_add(i as u64)).to_le_bytes());
        }
        Stream(ChaCha8Rng::from_seed(key))
    }

    /// A uniform 32-bit value.
    pub fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// Fills `buf` with uniform bytes.
    pub fn fill(&mut self, buf: &mut [u8]) {
        self.0.fill_bytes(buf)
    }

    /// A uniform 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform integer in `[0, n)` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: u64) -> u64 {
        debug_assert!(n > 0);
        // Lemire's multiply-shift with rejection.
        let threshold = n.wrapping_neg() % n;
        loop {
            let x = self.next_u64();
            let m = (x as u128) * (n as u128);
            if (m as u64) >= threshold {
                return (m >> 64) as u64;
            }
        }
    }

    /// A uniform integer in `[lo, hi]`.
    pub fn range_inclusive(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below((hi - lo) as u64 + 1) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_identity_same_stream_different_identity_different_stream() {
        let mut a = Stream::new(7, Purpose::Uplink, 1);
        let mut b = Stream::new(7, Purpose::Uplink, 1);
        let mut c = Stream::new(7, Purpose::Downlink, 1);
        let mut d = Stream::new(8, Purpose::Uplink, 1);
        let va: Vec<u32> = (0..8).map(|_| a.next_u32()).collect();
        let vb: Vec<u32> = (0..8).map(|_| b.next_u32()).collect();
        let vc: Vec<u32> = (0..8).map(|_| c.next_u32()).collect();
        let vd: Vec<u32> = (0..8).map(|_| d.next_u32()).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        assert_ne!(va, vd);
    }

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut s = Stream::new(1, Purpose::Session, 0);
        let mut seen = [0u32; 7];
        for _ in 0..7_000 {
            seen[s.below(7) as usize] += 1;
        }
        // Each bucket expects 1000; 6 sigma is ~170.
        assert!(seen.iter().all(|&n| (830..1170).contains(&n)), "{seen:?}");
    }
}
