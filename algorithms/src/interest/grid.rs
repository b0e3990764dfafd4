//! The nine-grid (seed 004): the map cut into square cells, each entity
//! filed under the cell it stands in. A query with a radius no larger than
//! the cell looks at the 3 × 3 cells around the point (a larger radius
//! looks at more rings); the cells are a broad phase, the exact distance
//! test decides.
//!
//! Cells are kept in a `BTreeMap` (ordered, so iteration never depends on
//! hashing) and an entity is re-filed only when it crosses a cell border —
//! the seed's "moved without crossing: no regrouping".

use super::{clamp_radius, dist2, Pos, SpatialIndex};
use std::collections::BTreeMap;

/// Queries reaching at most this many rings of cells look them up column
/// by column.
const MAX_RINGS_BY_COLUMN: i64 = 8;

/// The nine-grid index.
#[derive(Clone, Debug)]
pub struct NineGrid {
    cell: i64,
    cells: BTreeMap<(i64, i64), Vec<u32>>,
    /// Per entity: its position and cell.
    filed: Vec<(Pos, (i64, i64))>,
}

impl NineGrid {
    /// Cells of `cell` µm on a side (the seed: about a quarter screen, at
    /// least the view radius plus hysteresis so that nine cells cover it).
    pub fn new(cell: i64) -> NineGrid {
        NineGrid { cell: cell.max(1), cells: BTreeMap::new(), filed: Vec::new() }
    }

    fn cell_of(&self, p: Pos) -> (i64, i64) {
        ((p[0] as i64).div_euclid(self.cell), (p[1] as i64).div_euclid(self.cell))
    }

    fn unfile(&mut self, id: u32, cell: (i64, i64)) {
        if let Some(v) = self.cells.get_mut(&cell) {
            if let Some(k) = v.iter().position(|&e| e == id) {
                v.swap_remove(k);
            }
            if v.is_empty() {
                self.cells.remove(&cell);
            }
        }
    }
}

impl SpatialIndex for NineGrid {
    fn name(&self) -> &'static str {
        "grid"
    }

    fn update(&mut self, positions: &[Pos]) {
        while self.filed.len() > positions.len() {
            let (_, cell) = self.filed.pop().expect("longer than positions");
            self.unfile(self.filed.len() as u32, cell);
        }
        for (id, &p) in positions.iter().enumerate() {
            let cell = self.cell_of(p);
            match self.filed.get(id).copied() {
                Some((_, old)) if old == cell => self.filed[id].0 = p,
                Some((_, old)) => {
                    self.unfile(id as u32, old);
                    self.cells.entry(cell).or_default().push(id as u32);
                    self.filed[id] = (p, cell);
                }
                None => {
                    self.cells.entry(cell).or_default().push(id as u32);
                    self.filed.push((p, cell));
                }
            }
        }
    }

    fn query(&self, at: Pos, radius: i64, out: &mut Vec<u32>) -> usize {
        let start = out.len();
        let mut examined = 0;
        let (r, r2) = clamp_radius(radius);
        let rings = (r + self.cell - 1) / self.cell;
        let (cx, cy) = self.cell_of(at);
        let ys = cy - rings..=cy + rings;
        let mut take = |ids: &Vec<u32>| {
            examined += ids.len();
            out.extend(ids.iter().copied().filter(|&e| dist2(self.filed[e as usize].0, at) <= r2));
        };
        // Cells are ordered by (x, y). A few columns: each column's rows of
        // the square, one range each. Many (a huge radius): the occupied
        // cells of the column strip, skipping rows outside the square, so
        // a huge radius costs the occupied cells, never the empty ones.
        // Either way the same cells in the same order.
        if rings <= MAX_RINGS_BY_COLUMN {
            for x in cx - rings..=cx + rings {
                for (_, ids) in self.cells.range((x, cy - rings)..=(x, cy + rings)) {
                    take(ids);
                }
            }
        } else {
            for (&(_, y), ids) in self.cells.range((cx - rings, i64::MIN)..=(cx + rings, i64::MAX)) {
                if ys.contains(&y) {
                    take(ids);
                }
            }
        }
        harness::id_sort::sort_distinct(&mut out[start..]); // one cell each: distinct
        examined
    }
}
