//! Decoded snapshots shared by the clients of one process.
//!
//! The clients of a whole-world `snapshot`/`delta-snapshot` run receive,
//! frame after frame, many identical datagrams: the same world encoded
//! against the same baseline. Each decoding is a pure function of the
//! datagram's bytes and the baseline's contents, so a client that gets the
//! bytes another client already decoded, against the very baseline that
//! client held (the same `Arc`: equal contents), gets the same decoded
//! world — here, the same `Arc` instead of its own copy. Results, reports
//! and bytes on the wire are unchanged; a large world's clients then hold
//! one copy of each world between them instead of one each (200 clients
//! kept 200 copies of every 2,200-entity snapshot), and decode each
//! distinct datagram once.
//!
//! Clients acknowledge different frames, so one frame reaches them encoded
//! against a dozen baselines: each of those is decoded once, and a world
//! equal to one already decoded for its frame is replaced by that one (the
//! comparison is of the contents), so every client's baseline of a frame
//! is the same `Arc` and the next frame's datagrams match again.
//!
//! The memo keeps the newest [`KEPT`] decodings and the worlds of the
//! newest [`KEPT_FRAMES`] frames of the thread (a run's packets are
//! handled on its event-loop thread), and owns the baselines it compared,
//! so a pointer it compares against can never be freed and reused by
//! another world. A lookup compares the frame numbers, then the baseline
//! pointers, then the bytes.
//!
//! ```
//! use algorithms::support::delta::{encode, Quantized};
//! use algorithms::support::shared_decode::decode_shared;
//! use std::sync::Arc;
//! let world = vec![Quantized { x: 1, y: 2, z: 3 }; 300];
//! let bytes = encode(7, &world, None);
//! let (f, a) = decode_shared(&bytes, None).unwrap();
//! let (_, b) = decode_shared(&bytes, None).unwrap();
//! assert_eq!((f, &a[..]), (7, &world[..]));
//! assert!(Arc::ptr_eq(&a, &b), "the second client gets the first one's world");
//! ```

use super::delta::{self, Quantized};
use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// Decodings remembered per thread: a few frames' worth of the distinct
/// (baseline, datagram) pairs a server sends its clients.
pub const KEPT: usize = 256;

/// Frames whose decoded world is remembered per thread, to stand for every
/// equal decoding of the frame.
pub const KEPT_FRAMES: usize = 64;

/// A decoded world, shared.
pub type World = Arc<Vec<Quantized>>;

struct Decoded {
    frame: u32,
    base_frame: u32,
    baseline: Option<World>,
    bytes: Box<[u8]>,
    world: World,
}

#[derive(Default)]
struct Memo {
    /// Oldest first; `decoded[i]` was the `first + i`-th remembered.
    decoded: VecDeque<Decoded>,
    first: u64,
    /// Per (frame, baseline frame), the numbers of its decodings, oldest
    /// first (a small match's clients ask for one each, and find it
    /// without a pass over the rest).
    by_frames: BTreeMap<(u32, u32), Vec<u64>>,
    /// Per frame, the world its decodings share.
    frames: VecDeque<(u32, World)>,
}

impl Memo {
    fn find(&self, frame: u32, base_frame: u32, baseline: Option<&World>, bytes: &[u8]) -> Option<&World> {
        let same_baseline = |b: &Option<World>| match (b, baseline) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        self.by_frames.get(&(frame, base_frame))?.iter().rev().find_map(|&n| {
            let d = &self.decoded[(n - self.first) as usize];
            (same_baseline(&d.baseline) && *d.bytes == *bytes).then_some(&d.world)
        })
    }

    fn remember(&mut self, d: Decoded) {
        if self.decoded.len() == KEPT {
            let old = self.decoded.pop_front().expect("full");
            let key = (old.frame, old.base_frame);
            let numbers = self.by_frames.get_mut(&key).expect("every decoding is indexed");
            debug_assert_eq!(numbers.first(), Some(&self.first));
            numbers.remove(0);
            if numbers.is_empty() {
                self.by_frames.remove(&key);
            }
            self.first += 1;
        }
        let n = self.first + self.decoded.len() as u64;
        self.by_frames.entry((d.frame, d.base_frame)).or_default().push(n);
        self.decoded.push_back(d);
    }
}

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// Worlds of fewer entities are decoded by each client on its own: a
/// small match's few clients acknowledge different frames, so their
/// datagrams rarely match, and remembering them would cost more than
/// decoding a few entities again.
pub const SHARED_FROM: usize = 256;

/// [`delta::decode`] of `bytes` against `baseline`, as a shared world: the
/// one an earlier call made of the same bytes against the same baseline
/// `Arc`, or a new one (then remembered) — for worlds of at least
/// [`SHARED_FROM`] entities; a new one always for smaller ones.
pub fn decode_shared(bytes: &[u8], baseline: Option<&World>) -> Option<(u32, World)> {
    let entities = bytes.get(9..11).map_or(0, |n| u16::from_le_bytes([n[0], n[1]]) as usize);
    if entities < SHARED_FROM {
        let (frame, world) = delta::decode(bytes, baseline.map(|b| &b[..]))?;
        return Some((frame, Arc::new(world)));
    }
    shared(bytes, baseline)
}

/// [`decode_shared`] through the memo, whatever the world's size.
fn shared(bytes: &[u8], baseline: Option<&World>) -> Option<(u32, World)> {
    let (frame, base_frame) = delta::header(bytes)?;
    MEMO.with_borrow_mut(|memo| {
        if let Some(w) = memo.find(frame, base_frame, baseline, bytes) {
            return Some((frame, Arc::clone(w)));
        }
        let (frame, world) = delta::decode(bytes, baseline.map(|b| &b[..]))?;
        let world = match memo.frames.iter().rev().find(|(f, _)| *f == frame) {
            Some((_, w)) if **w == world => Arc::clone(w),
            Some(_) => Arc::new(world), // damaged on the way: its own
            None => {
                let world = Arc::new(world);
                if memo.frames.len() == KEPT_FRAMES {
                    memo.frames.pop_front();
                }
                memo.frames.push_back((frame, Arc::clone(&world)));
                world
            }
        };
        memo.remember(Decoded {
            frame,
            base_frame,
            baseline: baseline.cloned(),
            bytes: bytes.into(),
            world: Arc::clone(&world),
        });
        Some((frame, world))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::support::delta::encode;
    use proptest::prelude::*;

    fn world(seed: i32, n: usize) -> Vec<Quantized> {
        (0..n as i32).map(|i| Quantized { x: seed * 7 + i, y: seed - i, z: (seed * i).rem_euclid(900) }).collect()
    }

    #[test]
    fn equal_worlds_of_a_frame_are_one_whatever_the_baseline() {
        let (b1, b2) = (Arc::new(world(1, 5)), Arc::new(world(4, 5)));
        let now = world(2, 5);
        let x = shared(&encode(9, &now, Some((4, &b1[..]))), Some(&b1)).unwrap().1;
        let y = shared(&encode(9, &now, Some((6, &b2[..]))), Some(&b2)).unwrap().1;
        assert_eq!((&x[..], &y[..]), (&now[..], &now[..]));
        assert!(Arc::ptr_eq(&x, &y), "one world for the frame");
        // Frame 10 against frame 9's world: one decoding for both clients.
        let next = world(3, 5);
        let bytes = encode(10, &next, Some((9, &x[..])));
        let a = shared(&bytes, Some(&x)).unwrap().1;
        let b = shared(&bytes, Some(&y)).unwrap().1;
        assert!(Arc::ptr_eq(&a, &b));
        // A different world claiming frame 10 keeps its own.
        let other = world(8, 5);
        let c = shared(&encode(10, &other, None), None).unwrap().1;
        assert_eq!(&c[..], &other[..]);
        assert!(!Arc::ptr_eq(&a, &c));
    }

    #[test]
    fn damaged_bytes_are_not_remembered_and_differ() {
        let now = world(3, 6);
        let mut bytes = encode(5, &now, None);
        let (_, good) = shared(&bytes, None).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        let damaged = shared(&bytes, None);
        assert_eq!(damaged.as_ref().map(|d| &d.1[..]), delta::decode(&bytes, None).as_ref().map(|d| &d.1[..]));
        assert_eq!(decode_shared(&bytes, None).map(|d| d.1.to_vec()), delta::decode(&bytes, None).map(|d| d.1));
        assert!(damaged.is_none_or(|d| !Arc::ptr_eq(&d.1, &good)));
        assert!(shared(&bytes[..last], None).is_none());
    }

    #[test]
    fn the_oldest_decodings_are_forgotten_and_the_newest_kept() {
        let bytes: Vec<Vec<u8>> = (0..KEPT as u32 * 2 + 5).map(|f| encode(f + 1, &world(f as i32, 3), None)).collect();
        let first: Vec<World> = bytes.iter().map(|b| shared(b, None).unwrap().1).collect();
        for (b, w) in bytes.iter().zip(&first).rev().take(KEPT) {
            assert!(Arc::ptr_eq(&shared(b, None).unwrap().1, w), "still remembered");
        }
        for (b, w) in bytes.iter().zip(&first).take(3) {
            let again = shared(b, None).unwrap().1;
            assert_eq!(again, *w);
            assert!(!Arc::ptr_eq(&again, w), "forgotten: decoded again");
        }
    }

    proptest! {
        /// Whatever the datagrams, baselines and repeats, a shared decode
        /// is exactly the decode.
        #[test]
        fn a_shared_decode_is_the_decode(
            worlds in proptest::collection::vec((-50i32..50, 1usize..6), 1..12),
            picks in proptest::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<bool>()), 1..60),
        ) {
            let worlds: Vec<World> = worlds.iter().map(|&(s, n)| Arc::new(world(s, n))).collect();
            for (now, base, full) in picks {
                let now = &worlds[now.index(worlds.len())];
                let base = &worlds[base.index(worlds.len())];
                let baseline = (!full).then_some(base);
                let bytes = encode(3, now, baseline.map(|b| (2, &b[..])));
                let plain = delta::decode(&bytes, baseline.map(|b| &b[..]));
                let small = decode_shared(&bytes, baseline); // below SHARED_FROM: its own
                prop_assert_eq!(small.map(|(f, w)| (f, w.to_vec())), plain.clone());
                let shared = shared(&bytes, baseline);
                prop_assert_eq!(shared.map(|(f, w)| (f, w.to_vec())), plain);
            }
        }
    }
}
