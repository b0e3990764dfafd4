//! Counting runs: consecutive marked steps make one event.
//!
//! A stalled tick is a *hiccup* when alone; consecutive stalled ticks are
//! one stall whose length is what a player perceives (a freeze of 100 ms
//! or more is visible, a one-tick hiccup is not). [`Runs::mark`] is called
//! with the index of each marked step (increasing), and a run ends at the
//! first index that is skipped. (Snap events follow the same idea over
//! renders, with spans instead of indices: see the recorder.)

/// Runs of consecutive marked indices, and how many of them reached a
/// length of `long` or more.
#[derive(Clone, Debug)]
pub struct Runs {
    long: u64,
    open: Option<(u64, u64)>,
    /// Runs seen (closed and the open one).
    pub count: u64,
    /// Marked indices in all runs.
    pub marked: u64,
    /// Length of the longest run.
    pub longest: u64,
    /// Runs of length ≥ `long` (closed; the open one counts once closed).
    pub long_count: u64,
    /// Indices in runs of length ≥ `long`.
    pub long_marked: u64,
}

impl Runs {
    /// Runs of length `long` or more are counted apart.
    pub fn new(long: u64) -> Runs {
        Runs { long: long.max(1), open: None, count: 0, marked: 0, longest: 0, long_count: 0, long_marked: 0 }
    }

    /// Marks index `i` (indices increase; a repeated index is ignored).
    /// Returns whether `i` starts a new run.
    pub fn mark(&mut self, i: u64) -> bool {
        match self.open {
            Some((_, last)) if i <= last => false,
            Some((start, last)) if i == last + 1 => {
                self.open = Some((start, i));
                self.marked += 1;
                self.longest = self.longest.max(i - start + 1);
                false
            }
            _ => {
                self.close();
                self.open = Some((i, i));
                self.count += 1;
                self.marked += 1;
                self.longest = self.longest.max(1);
                true
            }
        }
    }

    /// Ends the open run, if any.
    pub fn close(&mut self) {
        if let Some((start, last)) = self.open.take() {
            let len = last - start + 1;
            if len >= self.long {
                self.long_count += 1;
                self.long_marked += len;
            }
        }
    }

    /// Whether a run is open and its last index is `i`.
    pub fn open_at(&self, i: u64) -> bool {
        self.open.is_some_and(|(_, last)| last == i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The reference: split a boolean sequence into maximal runs of `true`.
    fn reference(marks: &[bool], long: u64) -> (u64, u64, u64, u64, u64) {
        let mut lens = Vec::new();
        let mut cur = 0u64;
        for &m in marks.iter().chain(std::iter::once(&false)) {
            if m {
                cur += 1;
            } else if cur > 0 {
                lens.push(cur);
                cur = 0;
            }
        }
        let long_runs: Vec<u64> = lens.iter().copied().filter(|&l| l >= long).collect();
        (
            lens.len() as u64,
            lens.iter().sum(),
            lens.iter().copied().max().unwrap_or(0),
            long_runs.len() as u64,
            long_runs.iter().sum(),
        )
    }

    #[test]
    fn one_tick_hiccups_and_a_freeze() {
        let mut r = Runs::new(6);
        for i in [3, 10, 20, 21, 22, 23, 24, 25, 26, 40] {
            r.mark(i);
        }
        r.close();
        assert_eq!((r.count, r.marked, r.longest, r.long_count, r.long_marked), (4, 10, 7, 1, 7));
    }

    proptest! {
        #[test]
        fn runs_match_a_plain_split(marks in prop::collection::vec(any::<bool>(), 0..300), long in 1u64..10) {
            let mut r = Runs::new(long);
            for (i, &m) in marks.iter().enumerate() {
                if m {
                    r.mark(i as u64);
                    r.mark(i as u64); // a second mark of the same index changes nothing
                }
            }
            r.close();
            prop_assert_eq!((r.count, r.marked, r.longest, r.long_count, r.long_marked), reference(&marks, long));
        }
    }
}
