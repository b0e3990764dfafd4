//! Area-of-interest measurements: what each client was shown against what
//! it should have been, by the authority's positions and the run's radius.
//!
//! - **visible share**: per authority frame, the share of the other
//!   entities within `radius` of a player (mean over players and frames) —
//!   the fraction of the world an ideal filter sends;
//! - **awareness latency**: from the authority frame at which an entity
//!   comes within `radius` of a player (and the client is not showing it)
//!   to the first render that shows it; waits that end because the entity
//!   left again, or the run ended, count as *unaware visits* and their
//!   length still bounds `longest_unaware_ms`. A wait counts from the
//!   viewer's connection (see [`super::WARMUP_US`]): the time before it
//!   is the client's time to connect, a metric of its own. A viewer that
//!   never connects has its waits counted whole, as one connected at the
//!   start;
//! - **leaks**: entity-renders of an entity that has been farther than
//!   `radius + hysteresis` from the viewer's player for more than
//!   [`LEAK_GRACE_US`] of authority time. An honest filter stops sending
//!   at `radius + hysteresis` and the screen drops the entity within its
//!   display delay; anything shown after the grace was told too much — the
//!   information a map hack reads (Ushen's closing remark).
//!
//! Cost: every authority frame compares every player with the entities in
//! the cells around it that reach within `radius + hysteresis` (and those
//! it was tracking), every render looks up the entities it shows.

use super::stats::{round4, Distribution};
use super::InterestMetrics;
use crate::contract::EntityView;
use crate::game::PlayerState;
use crate::parallel;
use crate::time::Micros;
use crate::world::Aoi;

/// How long an entity may stay on screen after it was last within
/// `radius + hysteresis` of the viewer, µs: longer than any honest display
/// delay (interpolation buffer + one-way latency + a snapshot interval) in
/// the shipped profiles.
pub const LEAK_GRACE_US: u64 = 1_000_000;

const NEVER: u64 = u64::MAX;

/// A viewer's row update as work for [`parallel::parts`] (about as much as
/// judging this many entity-renders).
const ROW_WORK: usize = 40;

/// What the tracker knows of one (viewer, entity) pair.
#[derive(Clone, Copy, Debug)]
struct Pair {
    /// When the current unaware wait began (`NEVER`: none).
    since: u64,
    /// Last authority time within `radius + hysteresis`.
    last_near: u64,
    /// Within `radius` at the last authority frame.
    inside: bool,
    /// Shown at the viewer's latest render.
    shown: bool,
}

/// One viewer's pairs: its row of the tracker, judged on its own when
/// screens are judged on several cores.
#[derive(Clone, Debug)]
pub(crate) struct InterestRow {
    /// Per entity, together: the authority frame and the render touch all
    /// of a pair's fields at once.
    pairs: Vec<Pair>,
    /// The ids the viewer's latest render showed.
    shown_ids: Vec<u16>,
    /// Entities inside the viewer's radius or waiting to be shown (in no
    /// particular order), and a bit per entity saying which: an update
    /// reads a pair's memory only for these and the entities near enough
    /// (most of the cells' looked at are neither).
    tracked: Vec<u32>,
    tracking: Vec<u64>,
    /// When the viewer's screen connected, once it has.
    connected: Option<u64>,
    /// Waits that ended before the viewer connected and after its latest
    /// render: settled when it connects (their time after it counts), in
    /// full at the end if it never does.
    before_connect: Vec<Wait>,
    /// The waits of a viewer not yet connected that ended by its latest
    /// render, counted whole: dropped if it connects (at a later render,
    /// so after they ended), added at the end if it never does. Folding
    /// them keeps `before_connect` to the few frames judged ahead of the
    /// renders, however long a viewer stays unconnected.
    unconnected: Option<Box<ShownCounts>>,
}

/// An unaware wait that ended: shown at `end` (an awareness sample) or
/// not (an unaware visit).
#[derive(Clone, Copy, Debug)]
struct Wait {
    since: u64,
    end: u64,
    shown: bool,
}

/// How long wait `w` counts for a viewer connected at `connected`: from
/// the connection on; `None` (held in `before`) while not connected.
fn settle(connected: Option<u64>, before: &mut Vec<Wait>, w: Wait) -> Option<u64> {
    match connected {
        Some(c) => Some(w.end.saturating_sub(w.since.max(c))),
        None => {
            before.push(w);
            None
        }
    }
}

/// What renders add up to: sums, counts and maxima only, so counts kept
/// apart (one per core) and merged give exactly what one would have.
#[derive(Clone, Debug, Default)]
pub(crate) struct ShownCounts {
    awareness: Distribution,
    longest_unaware_us: u64,
    /// Unaware visits settled at a render (the viewer's connection).
    unaware_visits: u64,
    leaks: u64,
    remote_shown: u64,
    renders: u64,
}

impl ShownCounts {
    /// Counts wait `w` as lasting `wait` µs: an awareness sample if a
    /// render ended it, an unaware visit if not.
    fn record_wait(&mut self, w: Wait, wait: u64) {
        if w.shown {
            self.awareness.record(wait);
        } else {
            self.unaware_visits += 1;
        }
        self.longest_unaware_us = self.longest_unaware_us.max(wait);
    }

    /// Adds `other`'s renders to these.
    pub(crate) fn merge(&mut self, other: &ShownCounts) {
        self.awareness.merge(&other.awareness);
        self.longest_unaware_us = self.longest_unaware_us.max(other.longest_unaware_us);
        self.unaware_visits += other.unaware_visits;
        self.leaks += other.leaks;
        self.remote_shown += other.remote_shown;
        self.renders += other.renders;
    }
}

/// The radii a pair is judged by, squared where compared with squares.
#[derive(Clone, Copy, Debug)]
struct Radii {
    enter2: i64,
    leave2: i64,
    /// `radius + hysteresis`.
    reach: i64,
}

impl Radii {
    /// The side of a cell: half of `reach` (rounded up), so only entities
    /// in the 5 × 5 cells around a player can be within reach of it, and
    /// the cells of that square entirely out of reach — its corners and
    /// most of its edges — can be left out (a 3 × 3 square of `reach`-sized
    /// cells holds 9 reach² of entities; the cells kept, about 5.4).
    fn cell(&self) -> i64 {
        ((self.reach + 1) / 2).max(1)
    }

    /// The cell of `p`.
    fn cell_of(&self, p: &PlayerState) -> (i64, i64) {
        let cell = self.cell();
        ((p.x as i64).div_euclid(cell), (p.y as i64).div_euclid(cell))
    }

    /// How far `at` lies from cell `c`'s span on an axis (0 inside it).
    fn gap(&self, at: i64, c: i64) -> i64 {
        let cell = self.cell();
        (c * cell - at).max(at - (c * cell + cell - 1)).max(0)
    }
}

/// A viewer's connection and the waits held until it (see [`settle`]).
type Viewer<'a> = (Option<u64>, &'a mut Vec<Wait>);

/// What authority frames add up to (kept per part when viewers' rows are
/// updated on several cores, then added: sums and maxima only).
#[derive(Clone, Copy, Debug, Default)]
struct FrameCounts {
    inside_pairs: u128,
    longest_unaware_us: u64,
    unaware_visits: u64,
}

impl FrameCounts {
    fn merge(&mut self, other: &FrameCounts) {
        self.inside_pairs += other.inside_pairs;
        self.longest_unaware_us = self.longest_unaware_us.max(other.longest_unaware_us);
        self.unaware_visits += other.unaware_visits;
    }

    /// One (player, entity) pair at `t`, at squared distance `d` (`None`:
    /// out of reach).
    fn pair(&mut self, r: &Radii, pair: &mut Pair, t: Micros, d: Option<i64>, viewer: Viewer<'_>) {
        if d.is_some_and(|d| d <= r.leave2) {
            pair.last_near = t.0;
        }
        let now_inside = d.is_some_and(|d| d <= r.enter2);
        self.inside_pairs += now_inside as u128;
        if now_inside && !pair.inside && !pair.shown && pair.since == NEVER {
            pair.since = t.0;
        } else if !now_inside && pair.since != NEVER {
            self.end_unaware(pair, t.0, viewer);
        }
        pair.inside = now_inside;
    }

    fn end_unaware(&mut self, pair: &mut Pair, t: u64, (connected, before): Viewer<'_>) {
        if let Some(wait) = settle(connected, before, Wait { since: pair.since, end: t, shown: false }) {
            self.longest_unaware_us = self.longest_unaware_us.max(wait);
            self.unaware_visits += 1;
        }
        pair.since = NEVER;
    }
}

/// A frame's entities by cell (see [`Radii::cell`]): a dense
/// table of the cells of the entities' bounding box when it holds few
/// enough cells (the usual arena), else a list sorted by cell. Rebuilt
/// every authority frame, its buffers kept.
#[derive(Clone, Debug, Default)]
struct Cells {
    /// Each entity's cell (scratch).
    of: Vec<(i64, i64)>,
    /// Dense: the box's first cell, its width and height, where each
    /// cell's entities begin in `ids` (one more entry than cells), and the
    /// entities, each cell's in id order.
    origin: (i64, i64),
    width: i64,
    height: i64,
    starts: Vec<u32>,
    ids: Vec<u32>,
    /// Scratch: where each cell's next entity goes while filling `ids`.
    fill: Vec<u32>,
    /// Sparse: `(cell, entity)`, sorted.
    sorted: Vec<((i64, i64), u32)>,
    dense: bool,
}

impl Cells {
    /// Buckets `state`'s entities.
    fn build(&mut self, r: &Radii, state: &[PlayerState]) {
        self.of.clear();
        self.of.extend(state.iter().map(|p| r.cell_of(p)));
        let (mut lo, mut hi) = ((i64::MAX, i64::MAX), (i64::MIN, i64::MIN));
        for &(x, y) in &self.of {
            lo = (lo.0.min(x), lo.1.min(y));
            hi = (hi.0.max(x), hi.1.max(y));
        }
        let (w, h) = (hi.0 as i128 - lo.0 as i128 + 1, hi.1 as i128 - lo.1 as i128 + 1);
        self.dense = !self.of.is_empty() && w * h <= 8 * self.of.len() as i128 + 1024;
        if !self.dense {
            self.sorted.clear();
            self.sorted.extend(self.of.iter().enumerate().map(|(e, &c)| (c, e as u32)));
            self.sorted.sort_unstable();
            return;
        }
        (self.origin, self.width, self.height) = (lo, w as i64, h as i64);
        let index = |(x, y): (i64, i64)| ((y - lo.1) * w as i64 + (x - lo.0)) as usize;
        self.starts.clear();
        self.starts.resize((w * h) as usize + 1, 0);
        for &c in &self.of {
            self.starts[index(c) + 1] += 1;
        }
        for k in 1..self.starts.len() {
            self.starts[k] += self.starts[k - 1];
        }
        self.ids.clear();
        self.ids.resize(self.of.len(), 0);
        self.fill.clear();
        self.fill.extend_from_slice(&self.starts);
        for (e, &c) in self.of.iter().enumerate() {
            let k = index(c);
            self.ids[self.fill[k] as usize] = e as u32;
            self.fill[k] += 1;
        }
    }

    /// Appends to `out` the entities of the cells around `me` (see
    /// [`Radii::cell`]) — in the dense table, only those not wholly
    /// farther than `reach` from it: every entity within `reach`, each
    /// once.
    fn around(&self, r: &Radii, me: &PlayerState, out: &mut Vec<u32>) {
        let (cx, cy) = r.cell_of(me);
        if !self.dense {
            for x in cx - 2..=cx + 2 {
                let lo = self.sorted.partition_point(|c| c.0 < (x, cy - 2));
                let hi = self.sorted.partition_point(|c| c.0 <= (x, cy + 2));
                out.extend(self.sorted[lo..hi].iter().map(|c| c.1));
            }
            return;
        }
        let (x, y) = (me.x as i64, me.y as i64);
        // Gaps are at most two cells' width (`reach + 1`), so their
        // squares add up within `i64` (`reach` is at most 2 km of µm).
        let near = |gx: i64, gy: i64| gx * gx + gy * gy <= r.leave2;
        // A row's cells are side by side in the table: one slice a row,
        // trimmed at both ends to the cells within reach (a disc's cells
        // in a row are contiguous).
        for cy in (cy - 2).max(self.origin.1)..=(cy + 2).min(self.origin.1 + self.height - 1) {
            let gy = r.gap(y, cy);
            let (mut x0, mut x1) = ((cx - 2).max(self.origin.0), (cx + 2).min(self.origin.0 + self.width - 1));
            while x0 <= x1 && !near(r.gap(x, x0), gy) {
                x0 += 1;
            }
            while x1 >= x0 && !near(r.gap(x, x1), gy) {
                x1 -= 1;
            }
            if x0 > x1 {
                continue;
            }
            let row = (cy - self.origin.1) * self.width - self.origin.0;
            let (a, b) = (self.starts[(row + x0) as usize], self.starts[(row + x1 + 1) as usize]);
            out.extend_from_slice(&self.ids[a as usize..b as usize]);
        }
    }
}

/// The tracker behind [`InterestMetrics`].
#[derive(Clone, Debug)]
pub struct InterestTracker {
    radii: Radii,
    entities: usize,
    /// Per viewer.
    rows: Vec<InterestRow>,
    /// This frame's entities by cell (scratch).
    cells: Cells,
    /// What renders judged through [`InterestTracker::view`] added up to
    /// (the recorder keeps its own per core and merges them in).
    shown: ShownCounts,
    frames: FrameCounts,
    pair_frames: u128,
}

/// Squared distance, or `None` when farther than `reach` on either axis
/// (the common case, and it keeps the squares within `i64`: `reach` is at
/// most twice [`Aoi::MAX_UM`]).
fn d2_within(a: &PlayerState, b: &PlayerState, reach: i64) -> Option<i64> {
    let dx = (a.x as i64 - b.x as i64).abs();
    let dy = (a.y as i64 - b.y as i64).abs();
    (dx <= reach && dy <= reach).then(|| dx * dx + dy * dy)
}

impl InterestTracker {
    /// A tracker for `players` viewers over `initial` (players first, then
    /// bots) with `aoi`'s radius.
    pub fn new(aoi: Aoi, players: usize, initial: &[PlayerState]) -> InterestTracker {
        let entities = initial.len();
        let r = aoi.radius_um.clamp(0, Aoi::MAX_UM);
        let l = aoi.leave_radius_um().clamp(0, 2 * Aoi::MAX_UM);
        // Leaving cells wholly beyond `l` out (see `Cells::around`) is
        // exact only while nothing beyond `l` can be inside `r`.
        debug_assert!(r <= l, "a negative hysteresis (runner::prepare rejects one)");
        let row = InterestRow {
            pairs: vec![Pair { since: NEVER, last_near: 0, inside: false, shown: false }; entities],
            shown_ids: Vec::new(),
            tracked: Vec::new(),
            tracking: vec![0; entities.div_ceil(64)],
            connected: None,
            before_connect: Vec::new(),
            unconnected: None,
        };
        let mut t = InterestTracker {
            radii: Radii { enter2: r * r, leave2: l * l, reach: l },
            entities,
            rows: vec![row; players],
            cells: Cells::default(),
            shown: ShownCounts::default(),
            frames: FrameCounts::default(),
            pair_frames: 0,
        };
        t.authority(Micros(0), initial);
        t
    }

    /// The authority's positions at `t`.
    ///
    /// Only pairs within `radius + hysteresis` can change anything but
    /// "not inside", so entities are bucketed in cells of half that size
    /// and each player looks at the cells around it that reach within that
    /// distance, plus the entities it was tracking (inside, or waiting to be shown) — the same
    /// result as comparing every pair (a test holds the two equal), in
    /// time near-linear in the entities.
    pub fn authority(&mut self, t: Micros, state: &[PlayerState]) {
        if state.len() != self.entities {
            return;
        }
        let radii = self.radii;
        self.cells.build(&radii, state);
        // Viewers' rows are independent: many are updated on several cores,
        // a range each, with counts of their own.
        let viewers = self.rows.len();
        let parts = parallel::parts(viewers * ROW_WORK, viewers);
        let per = viewers.div_ceil(parts.max(1)).max(1);
        let cells = &self.cells;
        let mut counts = vec![FrameCounts::default(); parts.max(1)];
        let split = self.rows.chunks_mut(per).zip(counts.iter_mut()).enumerate();
        parallel::for_each(parts, split, |(k, (rows, counts))| {
            let (mut candidates, mut spare) = (Vec::new(), Vec::new());
            for (i, row) in rows.iter_mut().enumerate() {
                let v = k * per + i;
                row.update(&radii, cells, state, v, t, counts, &mut candidates, &mut spare);
            }
        });
        for c in &counts {
            self.frames.merge(c);
        }
        self.pair_frames += (viewers * self.entities.saturating_sub(1)) as u128;
    }

    /// The reference for [`InterestTracker::authority`]: every pair.
    #[cfg(test)]
    fn authority_scan(&mut self, t: Micros, state: &[PlayerState]) {
        for (v, row) in self.rows.iter_mut().enumerate() {
            for e in 0..self.entities {
                if e != v {
                    let d = d2_within(&state[v], &state[e], self.radii.reach);
                    self.frames.pair(&self.radii, &mut row.pairs[e], t, d, (row.connected, &mut row.before_connect));
                }
            }
        }
        self.pair_frames += (self.rows.len() * self.entities.saturating_sub(1)) as u128;
    }

    /// Every viewer's row, in viewer order (to judge renders apart, with
    /// [`InterestRow::view`]).
    pub(crate) fn rows_mut(&mut self) -> &mut [InterestRow] {
        &mut self.rows
    }

    /// Adds what renders judged apart added up to.
    pub(crate) fn absorb(&mut self, counts: &ShownCounts) {
        self.shown.merge(counts);
    }

    /// What `viewer`'s screen, connected at `connected` (`None`: not yet),
    /// shows at `t` (ids already checked to be entities).
    pub fn view(&mut self, viewer: usize, t: Micros, entities: &[EntityView], connected: Option<u64>) {
        self.rows[viewer].view(&mut self.shown, viewer, t, entities, connected);
    }

    /// The measurements at `end`.
    pub fn finish(mut self, end: Micros) -> InterestMetrics {
        for row in &mut self.rows {
            for pair in row.pairs.iter_mut().filter(|p| p.since != NEVER) {
                self.frames.end_unaware(pair, end.0, (row.connected, &mut row.before_connect));
            }
            // Never connected: its waits count whole.
            if let Some(held) = row.unconnected.take() {
                self.shown.merge(&held);
            }
            for w in row.before_connect.drain(..) {
                let wait = w.end - w.since.min(w.end);
                self.shown.record_wait(w, wait);
            }
        }
        let s = &self.shown;
        let f = &self.frames;
        InterestMetrics {
            visible_share: round4(f.inside_pairs as f64 / self.pair_frames.max(1) as f64),
            shown_per_render: round4(s.remote_shown as f64 / s.renders.max(1) as f64),
            awareness_ms: s.awareness.stats(1e3),
            longest_unaware_ms: round4(f.longest_unaware_us.max(s.longest_unaware_us) as f64 / 1e3),
            unaware_visits: f.unaware_visits + s.unaware_visits,
            leaks: s.leaks,
            leak_share: round4(s.leaks as f64 / s.remote_shown.max(1) as f64),
            index_examined_per_tick: None,
        }
    }
}

impl InterestRow {
    /// Viewer `v`'s pairs at the authority's positions `state` at `t`,
    /// looking at the `cells` around it and the entities it tracked.
    /// Each pair is judged on its own and the counts only add up, so the
    /// order of the entities found does not matter: no sorting, no search.
    #[allow(clippy::too_many_arguments)]
    fn update(
        &mut self,
        r: &Radii,
        cells: &Cells,
        state: &[PlayerState],
        v: usize,
        t: Micros,
        counts: &mut FrameCounts,
        candidates: &mut Vec<u32>,
        spare: &mut Vec<u32>,
    ) {
        let me = &state[v];
        candidates.clear();
        cells.around(r, me, candidates); // one cell each: distinct
        let prev = std::mem::take(&mut self.tracked);
        let mut tracked = std::mem::take(spare);
        tracked.clear();
        let bit = |e: u32| (e as usize / 64, 1u64 << (e % 64));
        for &e in candidates.iter() {
            if e as usize == v {
                continue;
            }
            let d = d2_within(me, &state[e as usize], r.reach);
            let (w, b) = bit(e);
            let was_tracked = self.tracking[w] & b != 0;
            // An untracked pair (not inside, not waiting) beyond
            // `radius + hysteresis` stays as it is: skip its memory.
            if !was_tracked && d.is_none_or(|d| d > r.leave2) {
                continue;
            }
            // Judged now: its bit no longer says "tracked, not yet seen".
            self.tracking[w] &= !b;
            let pair = &mut self.pairs[e as usize];
            counts.pair(r, pair, t, d, (self.connected, &mut self.before_connect));
            if pair.inside || pair.since != NEVER {
                tracked.push(e);
            }
        }
        // Tracked entities not around any more are out of reach.
        for &e in &prev {
            let (w, b) = bit(e);
            if self.tracking[w] & b != 0 {
                self.tracking[w] &= !b;
                counts.pair(r, &mut self.pairs[e as usize], t, None, (self.connected, &mut self.before_connect));
            }
        }
        for &e in &tracked {
            let (w, b) = bit(e);
            self.tracking[w] |= b;
        }
        self.tracked = tracked;
        *spare = prev;
    }

    /// What `viewer`'s screen shows at `t` (ids already checked to be
    /// entities), added to `counts`.
    pub(crate) fn view(
        &mut self,
        counts: &mut ShownCounts,
        viewer: usize,
        t: Micros,
        entities: &[EntityView],
        connected: Option<u64>,
    ) {
        match (self.connected, connected) {
            (None, Some(c)) => {
                // Connected: what the held waits lasted after it counts.
                self.connected = Some(c);
                self.unconnected = None;
                for w in self.before_connect.drain(..).filter(|w| w.end > c) {
                    counts.record_wait(w, w.end - w.since.max(c));
                }
            }
            (None, None) if !self.before_connect.is_empty() => {
                let held = self.unconnected.get_or_insert_with(Box::default);
                self.before_connect.retain(|w| {
                    let done = w.end <= t.0;
                    if done {
                        held.record_wait(*w, w.end - w.since.min(w.end));
                    }
                    !done
                });
            }
            _ => {}
        }
        for id in self.shown_ids.drain(..) {
            self.pairs[id as usize].shown = false;
        }
        counts.renders += 1;
        for e in entities {
            let id = e.id as usize;
            if id == viewer || id >= self.pairs.len() {
                continue;
            }
            let pair = &mut self.pairs[id];
            if pair.shown {
                continue; // listed twice
            }
            pair.shown = true;
            self.shown_ids.push(e.id);
            counts.remote_shown += 1;
            if pair.since != NEVER {
                let w = Wait { since: pair.since, end: t.0, shown: true };
                if let Some(wait) = settle(self.connected, &mut self.before_connect, w) {
                    counts.record_wait(w, wait);
                }
                pair.since = NEVER;
            }
            if t.0.saturating_sub(pair.last_near) > LEAK_GRACE_US {
                counts.leaks += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::AoiMethod;

    fn at(x: i32) -> PlayerState {
        PlayerState { x, ..Default::default() }
    }
    fn shown(id: u16) -> EntityView {
        EntityView { id, ..Default::default() }
    }

    #[test]
    fn awareness_is_entry_to_first_render_and_leaks_need_the_grace_to_pass() {
        let aoi = Aoi { method: AoiMethod::Grid, radius_um: 10, hysteresis_um: 5 };
        // Viewer 0 at 0; entity 1 far, entity 2 near from the start.
        let mut t = InterestTracker::new(aoi, 1, &[at(0), at(100), at(3)]);
        t.view(0, Micros(0), &[shown(0), shown(2)], Some(0));
        // Entity 1 enters at 1 s; first shown at 1.25 s.
        t.authority(Micros(1_000_000), &[at(0), at(8), at(3)]);
        t.view(0, Micros(1_100_000), &[shown(2)], Some(0));
        t.view(0, Micros(1_250_000), &[shown(1), shown(2)], Some(0));
        // Entity 2 moves away (beyond 15) at 2 s; shown at 2.5 s (fine),
        // at 3.1 s (a leak: far for over a second).
        t.authority(Micros(1_990_000), &[at(0), at(8), at(3)]);
        t.authority(Micros(2_000_000), &[at(0), at(8), at(40)]);
        t.view(0, Micros(2_500_000), &[shown(1), shown(2)], Some(0));
        t.authority(Micros(3_000_000), &[at(0), at(8), at(40)]);
        t.view(0, Micros(3_100_000), &[shown(1), shown(2)], Some(0));
        let m = t.finish(Micros(4_000_000));
        assert_eq!(m.awareness_ms.n, 2, "entity 2 at once, entity 1 after 250 ms");
        assert!((m.awareness_ms.max - 250.0).abs() < 0.5, "{:?}", m.awareness_ms); // 3 significant digits
        assert_eq!(m.leaks, 1);
        assert_eq!(m.unaware_visits, 0);
        assert_eq!(m.longest_unaware_ms, 250.0);
        // Visible share: one of two, two of two twice, one of two twice.
        assert_eq!(m.visible_share, round4(7.0 / 10.0));
    }

    #[test]
    fn waits_count_from_the_viewers_connection_or_whole_if_it_never_connects() {
        let aoi = Aoi { method: AoiMethod::Grid, radius_um: 10, hysteresis_um: 5 };
        // Entity 1 is near 0.2–1.0 s, entity 2 from 0.5 s on; entity 3
        // comes near at 2.2 s. The viewer shows nothing until 2.5 s.
        let run = |connected: Option<u64>| {
            let mut t = InterestTracker::new(aoi, 1, &[at(0), at(100), at(100), at(100)]);
            t.authority(Micros(200_000), &[at(0), at(3), at(100), at(100)]);
            t.authority(Micros(500_000), &[at(0), at(3), at(4), at(100)]);
            t.authority(Micros(1_000_000), &[at(0), at(100), at(4), at(100)]);
            t.view(0, Micros(1_500_000), &[], None);
            t.authority(Micros(2_200_000), &[at(0), at(100), at(4), at(5)]);
            t.view(0, Micros(2_500_000), &[shown(2)], connected);
            t.finish(Micros(3_000_000))
        };
        // Connected at 2 s (its first naming render, at 2.5 s): entity 1's
        // visit ended before it and is the time to connect's; entity 2
        // counts 500 ms, from 2 s; entity 3 waits from 2.2 s to the end.
        let m = run(Some(2_000_000));
        assert_eq!((m.unaware_visits, m.awareness_ms.n), (1, 1));
        assert!((m.awareness_ms.max - 500.0).abs() < 0.5, "{:?}", m.awareness_ms);
        assert_eq!(m.longest_unaware_ms, 800.0, "entity 3: 2.2 s to the end");
        // Never connected: every wait whole (entity 2's 2 s is a sample).
        let m = run(None);
        assert_eq!((m.unaware_visits, m.awareness_ms.n), (2, 1));
        assert!((m.awareness_ms.max - 2_000.0).abs() < 2.0, "{:?}", m.awareness_ms);
        assert_eq!(m.longest_unaware_ms, 2_000.0);
        // A viewer that never connects holds no list of its visits: a
        // thousand, each folded at the next render.
        let mut t = InterestTracker::new(aoi, 1, &[at(0), at(100)]);
        for k in 0..1_000u64 {
            t.authority(Micros(k * 100_000), &[at(0), at(3)]);
            t.authority(Micros(k * 100_000 + 50_000), &[at(0), at(100)]);
            t.view(0, Micros(k * 100_000 + 60_000), &[], None);
            assert!(t.rows[0].before_connect.is_empty());
        }
        let m = t.finish(Micros(100_000_000));
        assert_eq!((m.unaware_visits, m.longest_unaware_ms), (1_000, 50.0));
    }

    proptest::proptest! {
        /// The cell-bucketed update gives exactly what comparing every
        /// pair gives, whatever the movement and the renders.
        #[test]
        fn bucketing_changes_nothing(
            frames in proptest::collection::vec(
                (
                    proptest::collection::vec(
                        proptest::prop_oneof![12 => (-60i32..60, -60i32..60), 1 => (proptest::num::i32::ANY, proptest::num::i32::ANY)],
                        12,
                    ),
                    proptest::collection::vec(0u16..12, 0..6),
                ),
                1..30),
            radius in 0i64..25,
            hysteresis in 0i64..10,
        ) {
            let aoi = Aoi { method: AoiMethod::Grid, radius_um: radius, hysteresis_um: hysteresis };
            let at2 = |p: &(i32, i32)| PlayerState { x: p.0, y: p.1, ..Default::default() };
            let first: Vec<PlayerState> = frames[0].0.iter().map(at2).collect();
            let mut fast = InterestTracker::new(aoi, 3, &first);
            let mut slow = fast.clone();
            for (k, (pos, shown_ids)) in frames.iter().enumerate() {
                let state: Vec<PlayerState> = pos.iter().map(at2).collect();
                let t = Micros(k as u64 * 100_000 + 100_000);
                fast.authority(t, &state);
                slow.authority_scan(t, &state);
                let view: Vec<EntityView> = shown_ids.iter().map(|&id| shown(id)).collect();
                fast.view(k % 3, t, &view, Some(0));
                slow.view(k % 3, t, &view, Some(0));
            }
            let end = Micros(frames.len() as u64 * 100_000 + 200_000);
            proptest::prop_assert_eq!(fast.finish(end), slow.finish(end));
        }
    }

    /// Many viewers' rows are updated on several cores, a range each with
    /// counts of its own: the same as comparing every pair on one.
    #[test]
    fn rows_updated_on_several_cores_equal_the_scan() {
        let aoi = Aoi { method: AoiMethod::Grid, radius_um: 30, hysteresis_um: 5 };
        let viewers = 160;
        assert!(viewers * ROW_WORK >= 2 * parallel::MIN_PER_PART, "enough rows to split");
        let mut rng = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % 400) as i32 - 200
        };
        let frames: Vec<Vec<PlayerState>> = (0..12)
            .map(|_| (0..viewers + 40).map(|_| PlayerState { x: next(), y: next(), ..Default::default() }).collect())
            .collect();
        let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
        let mut fast = InterestTracker::new(aoi, viewers, &frames[0]);
        let mut slow = fast.clone();
        for (k, state) in frames.iter().enumerate() {
            let t = Micros(k as u64 * 300_000 + 100_000);
            pool.install(|| {
                assert!(parallel::parts(viewers * ROW_WORK, viewers) > 1);
                fast.authority(t, state);
            });
            slow.authority_scan(t, state);
            let view: Vec<EntityView> = (0..(k as u16 * 7) % 50).map(|id| shown(id * 3)).collect();
            fast.view(k % viewers, t, &view, Some(0));
            slow.view(k % viewers, t, &view, Some(0));
        }
        let end = Micros(5_000_000);
        assert_eq!(fast.finish(end), slow.finish(end));
    }

    #[test]
    fn a_visit_never_shown_counts_with_its_length() {
        let aoi = Aoi { method: AoiMethod::Grid, radius_um: 10, hysteresis_um: 0 };
        let mut t = InterestTracker::new(aoi, 1, &[at(0), at(100)]);
        t.authority(Micros(1_000_000), &[at(0), at(5)]);
        t.authority(Micros(1_400_000), &[at(0), at(50)]);
        t.authority(Micros(2_000_000), &[at(0), at(5)]);
        let m = t.finish(Micros(2_900_000));
        assert_eq!(m.unaware_visits, 2);
        assert_eq!(m.longest_unaware_ms, 900.0);
        assert_eq!(m.awareness_ms.n, 0);
    }
}
