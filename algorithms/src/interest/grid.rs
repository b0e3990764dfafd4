//! The nine-grid (antsmallant): the map cut into square cells, each entity
//! filed under the cell it stands in. A query with a radius no larger than
//! the cell looks at the 3 × 3 cells around the point (a larger radius
//! looks at more rings); the cells are a broad phase, the exact distance
//! test decides.
//!
//! The cells are one list of entities ordered by cell (column, then row),
//! each entry carrying its entity's position: a column's cells around the
//! point are one contiguous run, and the exact test reads positions from
//! the run itself instead of from wherever their entities are. A run is
//! found in a table of where each cell's entities begin, or by binary
//! search where the entities span too many cells for a table. An entity
//! that stays in its cell keeps its place in the order — antsmallant's
//! "moved without crossing: no regrouping"; one that crosses a border walks
//! to its new place. Ordered, so nothing depends on hashing.

use super::{clamp_radius, dist2, Pos, SpatialIndex};

/// Queries reaching at most this many rings of cells look them up column
/// by column.
const MAX_RINGS_BY_COLUMN: i64 = 8;

/// The nine-grid index.
#[derive(Clone, Debug)]
pub struct NineGrid {
    cell: i64,
    /// Every entity, ordered by its cell, then as it came.
    filed: Vec<Filed>,
    /// Where each cell's entities begin in `filed`, when the cells the
    /// entities span are few enough to tabulate.
    table: Option<Table>,
}

/// The cell, of `cell` µm on a side, that `p` stands in.
fn cell_of(p: Pos, cell: i64) -> (i64, i64) {
    ((p[0] as i64).div_euclid(cell), (p[1] as i64).div_euclid(cell))
}

/// An entity in the ordered list.
#[derive(Clone, Copy, Debug)]
struct Filed {
    cell: (i64, i64),
    at: Pos,
    id: u32,
}

/// The first entry of each cell of the box of cells the entities span, in
/// the list's order (column by column), and the end of the list.
#[derive(Clone, Debug)]
struct Table {
    /// The box's first column and row, and its columns and rows.
    x0: i64,
    y0: i64,
    rows: i64,
    cols: i64,
    starts: Vec<u32>,
}

/// The box of cells is tabulated when it has at most this many cells per
/// entity (plus [`TABLE_SLACK`]): a table is then no larger than a few
/// lists of entities, however far apart entities stray.
const TABLE_CELLS_PER_ENTITY: i64 = 4;
/// Cells any table may have, however few the entities.
const TABLE_SLACK: i64 = 1_024;

/// An insertion pass moving entries this many times per entity (entities
/// teleporting, not walking) gives way to a sort.
const MOVES_PER_ENTITY: usize = 8;

impl NineGrid {
    /// Cells of `cell` µm on a side (the seed: about a quarter screen, at
    /// least the view radius plus hysteresis so that nine cells cover it).
    pub fn new(cell: i64) -> NineGrid {
        NineGrid { cell: cell.max(1), filed: Vec::new(), table: None }
    }

    /// Where the first entry of cell `key` or a later one is.
    fn lower(&self, (x, y): (i64, i64)) -> usize {
        match &self.table {
            Some(t) if x < t.x0 => 0,
            Some(t) if x >= t.x0 + t.cols => self.filed.len(),
            // Past the column's last row: the next column's first.
            Some(t) => t.starts[((x - t.x0) * t.rows + (y.clamp(t.y0, t.y0 + t.rows) - t.y0)) as usize] as usize,
            None => self.filed.partition_point(|f| f.cell < (x, y)),
        }
    }

    /// The entities filed under cells `from..=to` (in the list's order):
    /// one run.
    fn run(&self, from: (i64, i64), (x, y): (i64, i64)) -> &[Filed] {
        let lo = self.lower(from);
        // Cells end at |x| ≤ 2³¹: neither coordinate overflows.
        let hi = if y == i64::MAX { self.lower((x + 1, i64::MIN)) } else { self.lower((x, y + 1)) };
        &self.filed[lo..hi.max(lo)]
    }

    /// Orders the list by cell after the entities moved: an insertion pass
    /// (each entity that crossed walks to its new place, every other keeps
    /// its place), or a stable sort when many jumped far.
    fn reorder(&mut self) {
        let budget = MOVES_PER_ENTITY * self.filed.len();
        let mut moves = 0;
        for i in 1..self.filed.len() {
            let mut j = i;
            while j > 0 && self.filed[j - 1].cell > self.filed[j].cell {
                self.filed.swap(j - 1, j);
                j -= 1;
            }
            moves += i - j;
            if moves > budget {
                self.filed.sort_by_key(|f| f.cell);
                return;
            }
        }
    }

    /// The table of the box of cells from `lo` to `hi`, if it is small
    /// enough.
    fn tabulate(&self, lo: (i64, i64), hi: (i64, i64)) -> Option<Table> {
        let (cols, rows) = (hi.0.checked_sub(lo.0)? + 1, hi.1.checked_sub(lo.1)? + 1);
        let limit = TABLE_CELLS_PER_ENTITY * self.filed.len() as i64 + TABLE_SLACK;
        if cols.checked_mul(rows)? > limit {
            return None;
        }
        let cells = (cols * rows) as usize;
        let mut starts = Vec::with_capacity(cells + 1);
        let mut k = 0;
        for c in 0..=cells {
            while self.filed.get(k).is_some_and(|f| (((f.cell.0 - lo.0) * rows + f.cell.1 - lo.1) as usize) < c) {
                k += 1;
            }
            starts.push(k as u32);
        }
        Some(Table { x0: lo.0, y0: lo.1, rows, cols, starts })
    }
}

impl SpatialIndex for NineGrid {
    fn name(&self) -> &'static str {
        "grid"
    }

    fn update(&mut self, positions: &[Pos]) {
        if self.filed.len() != positions.len() {
            // Entities came or went: file them afresh.
            self.filed = (0..positions.len() as u32).map(|id| Filed { cell: (0, 0), at: [0, 0], id }).collect();
        }
        let cell = self.cell;
        let (mut lo, mut hi) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
        for f in self.filed.iter_mut() {
            f.at = positions[f.id as usize];
            f.cell = cell_of(f.at, cell);
            (lo, hi) = ((lo.0.min(f.cell.0), lo.1.min(f.cell.1)), (hi.0.max(f.cell.0), hi.1.max(f.cell.1)));
        }
        self.reorder();
        self.table = self.tabulate(lo, hi);
    }

    fn query(&self, at: Pos, radius: i64, out: &mut Vec<u32>) -> usize {
        let start = out.len();
        let mut examined = 0;
        let (r, r2) = clamp_radius(radius);
        let rings = (r + self.cell - 1) / self.cell;
        let (cx, cy) = cell_of(at, self.cell);
        let mut take = |run: &[Filed]| {
            examined += run.len();
            out.extend(run.iter().filter(|f| dist2(f.at, at) <= r2).map(|f| f.id));
        };
        // A few columns: each column's rows of the square, one run each.
        // Many (a huge radius): the column strip, skipping rows outside the
        // square, so a huge radius costs the entities, never the empty
        // cells. Either way the entities of the same cells.
        if rings <= MAX_RINGS_BY_COLUMN {
            for x in cx - rings..=cx + rings {
                take(self.run((x, cy - rings), (x, cy + rings)));
            }
        } else {
            let strip = self.run((cx - rings, i64::MIN), (cx + rings, i64::MAX));
            let rows = cy - rings..=cy + rings;
            for cell in strip.chunk_by(|a, b| a.cell == b.cell).filter(|c| rows.contains(&c[0].cell.1)) {
                take(cell);
            }
        }
        harness::id_sort::sort_distinct(&mut out[start..]); // one entry each: distinct
        examined
    }
}
