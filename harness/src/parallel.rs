//! Independent work split over cores (rayon's pool), only where a batch is
//! big enough to pay for it.
//!
//! The split never shows in a result: callers give each part its own state
//! (a screen, a tally) and merge exactly — counts, integer sums, maxima,
//! histogram counts — so a run reports the same bytes on one core or many
//! (tested). The pool's size is rayon's: the machine's cores, or
//! `RAYON_NUM_THREADS`.

use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Entity-renders below which a part is not worth a core: about 15 µs of
/// judging, against a hand-over of a µs or two to a thread kept awake
/// ([`on_pool`]). With threads that slept between parts, 2,048 was the
/// least that paid; at 512 a 50-client, 500-bot world runs 30% faster
/// and 256 gains nothing more.
pub const MIN_PER_PART: usize = 512;

/// How many parts a batch of `items` items and `work` units of work
/// (entity-renders) is split into: 1 on one core or for a small batch.
pub fn parts(work: usize, items: usize) -> usize {
    split(work, items, 1)
}

/// [`parts`] for a batch judged away from the event loop (the runner's
/// `Recording`): up to four a core, so that the event loop's thread, once
/// its events are done, finds parts left to take instead of waiting for
/// the other core's half.
pub fn fine_parts(work: usize, items: usize) -> usize {
    split(work, items, 4)
}

/// Parts of at least [`MIN_PER_PART`] work, at most `per_thread` a thread
/// and one an item; 1 on one core.
fn split(work: usize, items: usize, per_thread: usize) -> usize {
    let threads = rayon::current_num_threads();
    if threads <= 1 {
        return 1;
    }
    (work / MIN_PER_PART).min(per_thread * threads).min(items).max(1)
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
///
/// While `f` runs, the pool's other threads stay awake, looking for its
/// parts instead of going to sleep between them. A big run splits a few
/// hundred times per simulated second, with a few hundred µs of one-core
/// work in between: long enough for an idle rayon thread to fall asleep,
/// and waking it (a futex call, then the kernel scheduling it) cost tens
/// of µs, often as much as the part it was woken for. The price is the
/// other cores busy for the run's length.
///
/// For one run at a time — a caller running many runs at once (`matrix`)
/// keeps them off the pool, or a thread waiting for a batch's other half
/// could take up a whole other run meanwhile and hold the first up for
/// all of it.
pub fn on_pool<R: Send>(big: bool, f: impl FnOnce() -> R + Send) -> R {
    if !big || rayon::current_thread_index().is_some() {
        return f();
    }
    let done = &AtomicBool::new(false);
    rayon::scope(|s| {
        let home = rayon::current_thread_index();
        s.spawn_broadcast(move |_, ctx| {
            if Some(ctx.index()) != home {
                help_until(|| done.load(Ordering::Acquire));
            }
        });
        // Set however `f` ends, or a panic in it would leave the
        // others spinning and the scope waiting for them.
        let _done = SetOnDrop(done);
        f()
    })
}

/// Runs the pool's work as it comes until `done()`, without sleeping: a
/// thread kept awake for a run, or one waiting for work it handed to the
/// pool (and taking its parts meanwhile).
pub fn help_until(mut done: impl FnMut() -> bool) {
    while !done() {
        if rayon::yield_now() != Some(rayon::Yield::Executed) {
            std::hint::spin_loop();
        }
    }
}

/// Sets its flag when dropped.
struct SetOnDrop<'a>(&'a AtomicBool);

impl Drop for SetOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A run on the pool gives back what it returns, its parts run, and
    /// when it panics the panic reaches the caller: the threads kept
    /// awake for it stop, instead of the scope waiting on them for ever.
    #[test]
    fn on_pool_returns_and_panics_reach_the_caller() {
        let items: Vec<u32> = (0..64).collect();
        let got = on_pool(true, || map(&items, 2, |x| x * 2));
        assert_eq!(got, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        // On a thread of its own, so that a hang fails the test instead
        // of hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let caught = std::panic::catch_unwind(|| on_pool(true, || -> u32 { panic!("a run's panic") }));
            let _ = tx.send(caught.map_err(|e| e.downcast_ref::<&str>().map(|s| s.to_string())));
        });
        let caught = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("on_pool came back after the panic");
        assert_eq!(caught, Err(Some("a run's panic".to_string())));
        // The pool is still usable afterwards.
        assert_eq!(on_pool(true, || 7), 7);
    }

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
