//! Impossible screens: entities shown inside a wall or outside the arena.
//!
//! The game never puts a player's box (half-size `h`) inside a wall or
//! past the arena's bounds, so a screen that shows one there shows
//! something that cannot happen — typically an extrapolation run through
//! the world. The **depth** of a displayed position is how far its box
//! would have to move to be legal: the distance back inside the bounds, or
//! the shortest way out of a wall it overlaps (the larger of the two).
//! A render counts as impossible when its depth exceeds
//! [`TOLERANCE_UM`] (interpolating between two legal frames around a
//! corner cuts it by up to about 10 cm; that is not what this measures).
//!
//! Walls are filed in a uniform grid so the check is constant time per
//! entity-render in large fields too.

use crate::game::{Aabb, GameConfig};

/// Depths up to this are not counted (µm): 10 cm. Drawing the straight
/// line between two legal positions a few ticks apart (interpolation, a
/// catch-up after jitter) cuts a wall's corner by up to about that much.
pub const TOLERANCE_UM: i64 = 100_000;

/// Side of a grid cell, µm.
const CELL: i64 = 4_000_000;

/// The legal region of a player's centre, and the walls by cell.
pub(crate) struct MapCheck {
    width: i64,
    height: i64,
    h: i64,
    /// Walls grown by `h`: a centre strictly inside one is inside a wall.
    walls: Vec<Aabb>,
    cols: i64,
    rows: i64,
    /// One bit per cell: whether any wall reaches it. A large field is
    /// mostly empty cells, and this small table stays in cache where
    /// per-cell lists missed it on nearly every entity-render.
    occupied: Vec<u64>,
    /// Per cell, where its walls start in `in_cell` (one more entry than
    /// cells: a cell's walls end where the next cell's start).
    starts: Vec<u32>,
    in_cell: Vec<u32>,
}

impl MapCheck {
    pub(crate) fn new(config: &GameConfig) -> MapCheck {
        let a = &config.arena;
        let h = config.half_size;
        let walls: Vec<Aabb> = a.walls.iter().map(|w| w.grown(h)).collect();
        let cols = ((a.width + CELL - 1) / CELL).max(1);
        let rows = ((a.height + CELL - 1) / CELL).max(1);
        let mut cells = vec![Vec::new(); (cols * rows) as usize];
        for (i, w) in walls.iter().enumerate() {
            let (cx0, cx1) = ((w.min_x / CELL).clamp(0, cols - 1), (w.max_x / CELL).clamp(0, cols - 1));
            let (cy0, cy1) = ((w.min_y / CELL).clamp(0, rows - 1), (w.max_y / CELL).clamp(0, rows - 1));
            for cy in cy0..=cy1 {
                for cx in cx0..=cx1 {
                    cells[(cy * cols + cx) as usize].push(i as u32);
                }
            }
        }
        let mut occupied = vec![0u64; cells.len().div_ceil(64)];
        let mut starts = Vec::with_capacity(cells.len() + 1);
        starts.push(0);
        for (c, walls) in cells.iter().enumerate() {
            if !walls.is_empty() {
                occupied[c / 64] |= 1 << (c % 64);
            }
            starts.push(starts[c] + walls.len() as u32);
        }
        let in_cell = cells.concat();
        MapCheck { width: a.width, height: a.height, h, walls, cols, rows, occupied, starts, in_cell }
    }

    /// How deep an entity shown at `(x, y)` is in the impossible, µm (0 if
    /// it could be there).
    pub(crate) fn depth(&self, x: i32, y: i32) -> i64 {
        let (x, y) = (x as i64, y as i64);
        let h = self.h;
        let dx = (h - x).max(x - (self.width - h)).max(0);
        let dy = (h - y).max(y - (self.height - h)).max(0);
        let mut deepest = if dx == 0 && dy == 0 { 0 } else { crate::math::hypot3(dx as u64, dy as u64, 0) as i64 };
        let (cx, cy) = ((x / CELL).clamp(0, self.cols - 1), (y / CELL).clamp(0, self.rows - 1));
        let c = (cy * self.cols + cx) as usize;
        if self.occupied[c / 64] & (1 << (c % 64)) == 0 {
            return deepest;
        }
        for &i in &self.in_cell[self.starts[c] as usize..self.starts[c + 1] as usize] {
            let w = &self.walls[i as usize];
            if x > w.min_x && x < w.max_x && y > w.min_y && y < w.max_y {
                let out = (x - w.min_x).min(w.max_x - x).min(y - w.min_y).min(w.max_y - y);
                deepest = deepest.max(out);
            }
        }
        deepest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Arena;

    #[test]
    fn depth_inside_walls_and_outside_bounds() {
        let c = MapCheck::new(&GameConfig::default());
        // A legal spawn point, and a box touching the left bound.
        assert_eq!(c.depth(4_000_000, 4_000_000), 0);
        assert_eq!(c.depth(400_000, 4_000_000), 0);
        // 30 m left of the arena.
        assert_eq!(c.depth(-30_000_000, 4_000_000), 30_400_000);
        // Beyond a corner: Euclidean.
        assert_eq!(c.depth(-2_600_000, -3_600_000), 5_000_000);
        // The central pillar is 18–22 × 13–17 m; grown by 0.4 m. At its
        // centre the shortest way out is 2.4 m.
        assert_eq!(c.depth(20_000_000, 15_000_000), 2_400_000);
        // Touching its grown edge is legal; 1 mm in is 1 mm deep.
        assert_eq!(c.depth(17_600_000, 15_000_000), 0);
        assert_eq!(c.depth(17_601_000, 15_000_000), 1_000);
    }

    #[test]
    fn fields_find_their_pillars_through_the_grid() {
        let cfg = GameConfig { arena: Arena::field(400_000_000, 400_000_000), ..GameConfig::default() };
        let c = MapCheck::new(&cfg);
        // Pillars are 2 m squares every 50 m from (25, 25) m.
        assert_eq!(c.depth(375_000_000, 225_000_000), 1_400_000);
        assert_eq!(c.depth(376_300_000, 225_000_000), 100_000);
        assert_eq!(c.depth(380_000_000, 225_000_000), 0);
    }
}
