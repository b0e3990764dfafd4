//! The orthogonal ("cross") list (antsmallant): entities kept ordered along
//! each axis. When an entity moves, it walks past the neighbours it
//! overtook, as a node in antsmallant's doubly linked list does — an insertion
//! pass over nearly sorted lists, O(n + crossings) per tick.
//!
//! Where antsmallant hangs two sentinel nodes at ±radius on each axis and
//! reacts to entities crossing them, this index finds the same window by
//! binary search on the ordered axis at query time: the window's ends *are*
//! the sentinels, located on demand instead of maintained per move. It
//! keeps the property antsmallant wants the cross list for — every watcher may
//! have its own radius — and the event semantics live in
//! [`super::InterestSets`], shared with the grid. The axis whose window
//! holds fewer entities is scanned, then the exact distance test decides.

use super::{clamp_radius, dist2, Pos, SpatialIndex};

/// The cross-list index.
#[derive(Clone, Debug, Default)]
pub struct CrossList {
    positions: Vec<Pos>,
    /// Entity ids ordered by (coordinate, id), one list per axis.
    axes: [Vec<u32>; 2],
}

impl CrossList {
    /// An empty index.
    pub fn new() -> CrossList {
        CrossList::default()
    }

    /// The `[lo, hi)` range of axis `a`'s list with coordinates in
    /// `[from, to]`.
    fn window(&self, a: usize, from: i64, to: i64) -> (usize, usize) {
        let list = &self.axes[a];
        let lo = list.partition_point(|&e| (self.positions[e as usize][a] as i64) < from);
        let hi = list.partition_point(|&e| (self.positions[e as usize][a] as i64) <= to);
        (lo, hi.max(lo))
    }
}

impl SpatialIndex for CrossList {
    fn name(&self) -> &'static str {
        "crosslist"
    }

    fn update(&mut self, positions: &[Pos]) {
        let n = positions.len();
        self.positions.clear();
        self.positions.extend_from_slice(positions);
        for (a, list) in self.axes.iter_mut().enumerate() {
            let key = |e: u32| (positions[e as usize][a], e);
            if list.len() != n {
                // Entities came or went: sort the lists afresh.
                *list = (0..n as u32).collect();
                list.sort_unstable_by_key(|&e| key(e));
            }
            // Insertion pass: each node walks left past those it overtook.
            for i in 1..list.len() {
                let mut j = i;
                while j > 0 && key(list[j - 1]) > key(list[j]) {
                    list.swap(j - 1, j);
                    j -= 1;
                }
            }
        }
    }

    fn query(&self, at: Pos, radius: i64, out: &mut Vec<u32>) -> usize {
        let (r, r2) = clamp_radius(radius);
        let windows = [0, 1].map(|a| self.window(a, at[a] as i64 - r, at[a] as i64 + r));
        let a = if windows[0].1 - windows[0].0 <= windows[1].1 - windows[1].0 { 0 } else { 1 };
        let (lo, hi) = windows[a];
        let start = out.len();
        out.extend(self.axes[a][lo..hi].iter().copied().filter(|&e| dist2(self.positions[e as usize], at) <= r2));
        harness::id_sort::sort_distinct(&mut out[start..]); // one entry an entity: distinct
        hi - lo
    }
}
