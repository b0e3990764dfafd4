//! Sorting entity ids that are known to be distinct, in time linear in
//! their count and span.
//!
//! Area-of-interest queries gather an entity's neighbours cell by cell and
//! must hand them over ascending. Ids are small integers (entity indices),
//! distinct in such a gathering, and packed into a few thousand: setting
//! one bit per id and reading the bits back in order sorts them in two
//! short passes, where a comparison sort spent `n log n` mispredicted
//! branches (the sorts were a sixth of a 200-client world's event loop).
//! [`sort_distinct`] falls back to the comparison sort where the bits
//! would cost more (few ids over a wide span) or the ids are not distinct,
//! so its result is always exactly `sort_unstable`'s.
//!
//! ```
//! let mut ids = vec![40, 3, 17, 64, 0, 129, 5, 100, 63, 65, 1, 2, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 18, 19, 20, 21, 22, 23, 24, 25];
//! let mut want = ids.clone();
//! want.sort_unstable();
//! harness::id_sort::sort_distinct(&mut ids);
//! assert_eq!(ids, want);
//! ```

use std::cell::RefCell;

/// Below this many ids a comparison sort is as quick.
const MIN_IDS: usize = 32;

/// The bits may span at most this many 64-bit words per id.
const WORDS_PER_ID: usize = 8;

thread_local! {
    static BITS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Sorts `ids` ascending: exactly `ids.sort_unstable()`, faster when they
/// are many, distinct and close together.
pub fn sort_distinct(ids: &mut [u32]) {
    if ids.len() < MIN_IDS || !by_bits(ids) {
        ids.sort_unstable();
    }
}

/// Sorts `ids` by setting a bit per id; `false` (and `ids` untouched)
/// when their span is too wide for their count or one is repeated.
fn by_bits(ids: &mut [u32]) -> bool {
    let (lo, hi) = ids.iter().fold((u32::MAX, 0), |(lo, hi), &id| (lo.min(id), hi.max(id)));
    let base = lo / 64;
    let words = (hi / 64 - base) as usize + 1;
    if words > ids.len() * WORDS_PER_ID {
        return false;
    }
    BITS.with_borrow_mut(|bits| {
        bits.clear();
        bits.resize(words, 0);
        for &id in ids.iter() {
            let (w, bit) = ((id / 64 - base) as usize, 1u64 << (id % 64));
            if bits[w] & bit != 0 {
                return false; // repeated: the comparison sort keeps both
            }
            bits[w] |= bit;
        }
        let mut k = 0;
        for (w, &word) in bits.iter().enumerate() {
            let mut b = word;
            while b != 0 {
                ids[k] = (base + w as u32) * 64 + b.trailing_zeros();
                k += 1;
                b &= b - 1;
            }
        }
        debug_assert_eq!(k, ids.len());
        true
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Always exactly the comparison sort: distinct or repeated ids,
        /// close together or far apart, few or many.
        #[test]
        fn sorts_as_the_comparison_sort_does(
            ids in prop_oneof![
                proptest::collection::vec(0u32..3_000, 0..400),
                proptest::collection::vec(any::<u32>(), 0..100),
                proptest::collection::btree_set(0u32..600, 0..300).prop_map(|s| s.into_iter().rev().collect::<Vec<_>>()),
            ],
            shuffle in any::<u64>(),
        ) {
            let mut ids = ids;
            // A deterministic shuffle, so sets arrive in any order.
            let mut g = shuffle | 1;
            for i in (1..ids.len()).rev() {
                g ^= g << 13;
                g ^= g >> 7;
                g ^= g << 17;
                ids.swap(i, (g % (i as u64 + 1)) as usize);
            }
            let mut want = ids.clone();
            want.sort_unstable();
            sort_distinct(&mut ids);
            prop_assert_eq!(ids, want);
        }
    }

    #[test]
    fn edges_of_the_span() {
        let mut ids: Vec<u32> = (0..40).map(|i| u32::MAX - i * 3).collect();
        let mut want = ids.clone();
        want.sort_unstable();
        assert!(by_bits(&mut ids), "a close set near u32::MAX uses the bits");
        assert_eq!(ids, want);
        let mut spread: Vec<u32> = (0..40).map(|i| i * 100_000).collect();
        assert!(!by_bits(&mut spread), "too wide a span for 40 ids");
        let mut twice: Vec<u32> = (0..40).map(|i| i / 2).collect();
        assert!(!by_bits(&mut twice), "repeated ids");
        assert_eq!(twice, (0..40).map(|i| i / 2).collect::<Vec<u32>>(), "untouched");
    }
}
