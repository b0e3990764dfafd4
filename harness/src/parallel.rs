//! Independent work split over cores (rayon's pool), only where a batch is
//! big enough to pay for it.
//!
//! The split never shows in a result: callers give each part its own state
//! (a screen, a tally) and merge exactly — counts, integer sums, maxima,
//! histogram counts — so a run reports the same bytes on one core or many
//! (tested). The pool's size is rayon's: the machine's cores, or
//! `RAYON_NUM_THREADS`.

use rayon::prelude::*;

/// Entity-renders below which a part is not worth a core (a few µs of
/// judging against the pool's hand-over).
pub const MIN_PER_PART: usize = 2048;

/// How many parts a batch of `items` items and `work` units of work
/// (entity-renders) is split into: 1 on one core or for a small batch.
pub fn parts(work: usize, items: usize) -> usize {
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        return 1;
    }
    (work / MIN_PER_PART).min(threads).min(items).max(1)
}

/// Runs `f` on every item — here, in order, when `parts` is 1; else on as
/// many cores as the pool has (each item is one part's work).
pub fn for_each<I>(parts: usize, items: I, f: impl Fn(I::Item) + Sync + Send)
where
    I: IntoIterator,
    I::Item: Send,
{
    if parts <= 1 {
        items.into_iter().for_each(f);
        return;
    }
    let items: Vec<I::Item> = items.into_iter().collect();
    items.into_par_iter().for_each(f);
}

/// `f` of every item, in order, computed in `parts` parts (here when 1).
pub fn map<T: Sync, R: Send>(items: &[T], parts: usize, f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    if parts <= 1 {
        return items.iter().map(f).collect();
    }
    let per = items.len().div_ceil(parts).max(1);
    items.par_chunks(per).flat_map_iter(|chunk| chunk.iter().map(&f)).collect()
}

/// Runs `f` on a thread of the pool (unless already on one) when `big`,
/// else here. A run whose screens are judged on several cores is faster
/// on a pool thread: a batch is split where it is and its first part
/// judged at once, instead of handed to the pool while the caller waits.
/// For one run at a time — a caller running many runs at once (`matrix`)
/// keeps them off the pool, or a thread waiting for a batch's other half
/// could take up a whole other run meanwhile and hold the first up for
/// all of it.
pub fn on_pool<R: Send>(big: bool, f: impl FnOnce() -> R + Send) -> R {
    if big && rayon::current_thread_index().is_none() {
        rayon::scope(|_| f())
    } else {
        f()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// `map` gives `f` of every item in order, however many parts.
        #[test]
        fn map_keeps_the_order(items in proptest::collection::vec(any::<u32>(), 0..200), parts in 1usize..6) {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            let got = pool.install(|| map(&items, parts, |x| u64::from(*x) * 3 + 1));
            let want: Vec<u64> = items.iter().map(|x| u64::from(*x) * 3 + 1).collect();
            prop_assert_eq!(got, want);
        }
    }
}
