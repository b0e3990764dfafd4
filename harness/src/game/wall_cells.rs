//! Where a player box cannot touch any wall: the arena cut into square
//! cells, one bit each, set when a box centred anywhere in the cell might
//! meet a wall.
//!
//! A move stops at a wall only if the box at the place it moves to meets
//! one, so a move that ends in a clear cell needs no wall test at all; one
//! that ends in a marked cell (or off the arena) tests the walls its
//! [`super::wall_bands::WallBands`] band lists, exactly as before. The
//! answer is the same either way: a clear cell is one no wall can meet.
//! Most of a room is clear (in the standard arena, more than 70% of the
//! places on a 25 cm grid, as this module's test checks), while a band
//! across the room lists every wall along it.

use super::arena::Arena;
use super::wall_bands::may_meet;

/// Most cells an arena is cut into (the bits fit in 128 KiB); a cell is at
/// least 2²⁰ µm ≈ 1 m wide, its width a power of two, so finding one is a
/// shift.
const MAX_CELLS: i64 = 1 << 20;

/// One bit per cell: set where a box might meet a wall.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WallCells {
    /// Cell width, µm: `1 << shift`.
    shift: u32,
    width: i64,
    height: i64,
    cols: i64,
    /// Row-major, 64 cells a word.
    marked: Vec<u64>,
}

impl WallCells {
    /// The cells of `arena` for boxes of half-size `h`.
    pub fn new(arena: &Arena, h: i64) -> WallCells {
        let (width, height) = (arena.width.max(1), arena.height.max(1));
        let mut shift = 20u32;
        while (width >> shift).saturating_add(1).saturating_mul((height >> shift).saturating_add(1)) > MAX_CELLS {
            shift += 1;
        }
        let size = 1i64 << shift;
        let (cols, rows) = ((width + size - 1) >> shift, (height + size - 1) >> shift);
        let mut marked = vec![0u64; ((cols * rows) as usize).div_ceil(64)];
        for w in &arena.walls {
            // The cells on one axis a box centred in them may meet the
            // wall from (the bands' test), on both axes.
            let cells = |min: i64, max: i64, count: i64| {
                let first = ((min - h).max(0) >> shift).min(count);
                let last = (((max + h) >> shift) + 1).clamp(0, count);
                (first..last).filter(move |&c| may_meet((min, max), (c << shift, (c + 1) << shift), h))
            };
            for y in cells(w.min_y, w.max_y, rows) {
                for x in cells(w.min_x, w.max_x, cols) {
                    let bit = (y * cols + x) as usize;
                    marked[bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        WallCells { shift, width, height, cols, marked }
    }

    /// Whether no wall can meet a box centred at `(x, y)`: `false` when one
    /// might, and off the arena.
    #[inline(always)]
    pub fn clear(&self, x: i64, y: i64) -> bool {
        if !(0..self.width).contains(&x) || !(0..self.height).contains(&y) {
            return false;
        }
        let bit = (((y >> self.shift) * self.cols) + (x >> self.shift)) as usize;
        self.marked[bit / 64] & (1 << (bit % 64)) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Aabb;
    use proptest::prelude::*;

    #[test]
    fn the_standard_room_is_mostly_clear_and_its_walls_are_not() {
        let arena = Arena::standard();
        let cells = WallCells::new(&arena, 400_000);
        assert!(cells.clear(2_000_000, 2_000_000));
        assert!(!cells.clear(20_000_000, 15_000_000), "inside the pillar");
        assert!(!cells.clear(17_700_000, 15_000_000), "0.3 m from the pillar's side");
        assert!(!cells.clear(-1, 5_000_000) && !cells.clear(5_000_000, 30_000_000), "off the room");
        let step = 250_000;
        let (mut clear, mut all) = (0, 0);
        for x in (0..40_000_000).step_by(step) {
            for y in (0..30_000_000).step_by(step) {
                all += 1;
                clear += cells.clear(x, y) as usize;
            }
        }
        assert!(clear * 10 > all * 7, "most of the room is clear: {clear} of {all}");
    }

    #[test]
    fn a_huge_field_is_cut_into_at_most_max_cells() {
        let arena = Arena::field(4_000_000_000, 4_000_000_000);
        let cells = WallCells::new(&arena, 400_000);
        assert!(cells.marked.len() as i64 * 64 <= MAX_CELLS + 64);
        assert!(!cells.clear(25_000_000, 25_000_000), "a pillar every 50 m, from 25 m");
        assert!(cells.clear(50_000_000, 50_000_000));
    }

    proptest! {
        /// A clear cell is one where no box meets any wall: at random
        /// places, and at places near a wall's corner.
        #[test]
        fn no_box_centred_in_a_clear_cell_meets_a_wall(
            walls in proptest::collection::vec((0i64..40_000_000, 0i64..30_000_000, 1i64..5_000_000, 1i64..5_000_000), 1..12),
            anywhere in (-2_000_000i64..42_000_000, -2_000_000i64..32_000_000),
            near in (0usize..12, proptest::bool::ANY, proptest::bool::ANY, -3_000_000i64..3_000_000, -3_000_000i64..3_000_000),
            h in 1i64..2_000_000,
            scale in 0u32..4,
        ) {
            let k = 1i64 << (scale * 4);
            let arena = Arena {
                width: 40_000_000 * k,
                height: 30_000_000 * k,
                walls: walls.iter().map(|&(x, y, w, d)| Aabb { min_x: x * k, min_y: y * k, max_x: x * k + w, max_y: y * k + d }).collect(),
                spread_spawns: false,
            };
            let cells = WallCells::new(&arena, h);
            let (i, right, top, dx, dy) = near;
            let w = arena.walls[i % arena.walls.len()];
            let corner = (if right { w.max_x } else { w.min_x } + dx, if top { w.max_y } else { w.min_y } + dy);
            for (x, y) in [(anywhere.0 * k, anywhere.1 * k), corner] {
                if cells.clear(x, y) {
                    let b = Aabb::around(x, y, h);
                    for (i, w) in arena.walls.iter().enumerate() {
                        prop_assert!(!b.overlaps(w), "wall {i} meets a box at ({x}, {y}) in a clear cell");
                    }
                }
            }
        }
    }
}
