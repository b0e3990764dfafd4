//! Which walls a player box can touch while it moves along one axis: the
//! arena's walls bucketed by bands of the *other* coordinate.
//!
//! A box moving along x keeps its y, so only walls whose y-range meets the
//! box's can stop it. [`WallBands`] lists, for each band of the
//! perpendicular coordinate, the indices of those walls **in the arena's
//! order** — the order `move_axis` resolves collisions in — so a step over
//! a band's walls gives exactly the result of a step over all of them.
//! An open field with a pillar every 50 m then tests a handful of walls per
//! move instead of all 64; a coordinate outside the arena falls back to
//! every wall.

use super::arena::Arena;

/// Most bands an index is cut into (a band is at least 2²⁰ µm ≈ 1 m wide,
/// its width a power of two, so finding a band is a shift).
const MAX_BANDS: i64 = 4096;

/// The walls per band of one axis (compressed rows: `offsets[b]..offsets[b
/// + 1]` of `walls`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WallBands {
    /// Band width, µm: `1 << shift`.
    shift: u32,
    /// Extent of the banded coordinate, µm (`0..extent`).
    extent: i64,
    offsets: Vec<u32>,
    walls: Vec<u32>,
    /// Every wall, in order (outside the bands).
    all: Vec<u32>,
}

impl WallBands {
    /// Bands for boxes of half-size `h` moving along y (`along_y`: bands
    /// of x) or along x (bands of y).
    pub fn new(arena: &Arena, h: i64, along_y: bool) -> WallBands {
        let extent = if along_y { arena.width } else { arena.height }.max(1);
        let shift = ((extent / MAX_BANDS).max(1 << 20) as u64).next_power_of_two().trailing_zeros();
        let width = 1i64 << shift;
        let bands = (extent + width - 1) / width;
        let span = |w: &super::arena::Aabb| if along_y { (w.min_x, w.max_x) } else { (w.min_y, w.max_y) };
        let mut offsets = Vec::with_capacity(bands as usize + 1);
        let mut walls = Vec::new();
        offsets.push(0);
        for b in 0..bands {
            for (i, w) in arena.walls.iter().enumerate() {
                if may_meet(span(w), (b * width, (b + 1) * width), h) {
                    walls.push(i as u32);
                }
            }
            offsets.push(walls.len() as u32);
        }
        let all = (0..arena.walls.len() as u32).collect();
        WallBands { shift, extent, offsets, walls, all }
    }

    /// The walls a box centred at `coord` on the banded axis can meet, in
    /// the arena's order.
    pub fn candidates(&self, coord: i64) -> &[u32] {
        if !(0..self.extent).contains(&coord) {
            return &self.all;
        }
        let b = (coord >> self.shift) as usize;
        &self.walls[self.offsets[b] as usize..self.offsets[b + 1] as usize]
    }
}

/// Whether a box of half-size `h` centred somewhere in `[lo, hi)` on one
/// axis can meet a wall spanning `(min, max)` on it: the box spans
/// `(c - h, c + h)`, which meets the wall only if `min < c + h` and
/// `c - h < max` — possible for some `c` in the band iff `min < hi + h`
/// and `lo - h < max` (a little wide at `hi`, never narrow).
pub(super) fn may_meet((min, max): (i64, i64), (lo, hi): (i64, i64), h: i64) -> bool {
    min < hi + h && lo - h < max
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Aabb;
    use proptest::prelude::*;

    fn meets(w: &Aabb, c: i64, h: i64, along_y: bool) -> bool {
        let (min, max) = if along_y { (w.min_x, w.max_x) } else { (w.min_y, w.max_y) };
        min < c + h && c - h < max
    }

    #[test]
    fn a_field_row_of_pillars() {
        let arena = Arena::field(400_000_000, 400_000_000);
        let bands = WallBands::new(&arena, 400_000, false);
        // Moving along x at y = 25 m: only the row of pillars around y = 25 m.
        assert_eq!(bands.candidates(25_000_000).len(), 8);
        // Between the rows, none; off the arena, all 64.
        assert!(bands.candidates(50_000_000).is_empty());
        assert_eq!(bands.candidates(-1).len(), 64);
    }

    proptest! {
        /// Every wall a box can meet is a candidate, in the arena's order.
        #[test]
        fn candidates_cover_every_wall_a_box_meets(
            walls in proptest::collection::vec((0i64..40_000_000, 0i64..30_000_000, 1i64..5_000_000, 1i64..5_000_000), 0..30),
            c in -2_000_000i64..45_000_000,
            h in 1i64..2_000_000,
            along_y: bool,
        ) {
            let arena = Arena {
                width: 40_000_000,
                height: 30_000_000,
                walls: walls.iter().map(|&(x, y, w, d)| Aabb { min_x: x, min_y: y, max_x: x + w, max_y: y + d }).collect(),
                spread_spawns: false,
            };
            let bands = WallBands::new(&arena, h, along_y);
            let got = bands.candidates(c);
            prop_assert!(got.windows(2).all(|p| p[0] < p[1]));
            for (i, w) in arena.walls.iter().enumerate() {
                if meets(w, c, h, along_y) {
                    prop_assert!(got.contains(&(i as u32)), "wall {i} missing at {c}");
                }
            }
        }
    }
}
