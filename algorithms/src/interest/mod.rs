//! Interest management (area of interest, antsmallant §区域裁剪): which
//! entities a server tells each client about.
//!
//! Two parts, kept apart so each can be tested against a reference:
//!
//! - a spatial index ([`SpatialIndex`]) answers "which entities lie within
//!   `r` of this point?": [`BruteForce`] scans every entity (what `--aoi
//!   none` costs), [`grid::NineGrid`] looks in the cells around the point,
//!   [`crosslist::CrossList`] walks per-axis ordered lists;
//! - [`InterestSets`] keeps every watcher's visible set with hysteresis
//!   (an entity enters at `radius`, leaves beyond `radius + hysteresis`) and
//!   turns each tick's change into antsmallant's events: *leave* for old − new,
//!   *enter* for new − old, *move* for the intersection.
//!
//! Positions are 2-D integer micrometres on the ground plane; distance is
//! Euclidean. Every index returns exactly the entities within the radius
//! (the grid and the cross list are broad phases followed by the exact
//! test), so the visible sets do not depend on the index — a property test
//! holds the three to the same answers, and no watcher is ever told about
//! an entity beyond `radius + hysteresis` (the *leak* a map hack would
//! read).
//!
//! ```
//! use algorithms::interest::{grid::NineGrid, InterestSets, SpatialIndex};
//! let mut index = NineGrid::new(10_000);
//! index.update(&[[0, 0], [5_000, 0], [50_000, 0]]);
//! let mut sets = InterestSets::new(vec![(0, 8_000)], 1_000);
//! let events = sets.tick(&index, &[[0, 0], [5_000, 0], [50_000, 0]]);
//! assert_eq!(events[0].enter, vec![1]); // itself excluded, entity 2 too far
//! ```

pub mod crosslist;
pub mod grid;

use harness::world::{Aoi, AoiMethod};

/// A 2-D position in micrometres.
pub type Pos = [i32; 2];

/// The largest radius: the largest whose square fits `i64` (about 3 km of
/// micrometres). Radii are clamped to `0..=MAX_RADIUS`.
pub const MAX_RADIUS: i64 = 3_037_000_499;

/// Squared Euclidean distance, exact: coordinate differences reach 2³²,
/// so the sum can pass `i64`; it saturates at `i64::MAX`, beyond
/// `MAX_RADIUS²`. Each square fits `u64` (a difference is below 2³² in
/// magnitude), so only their sum saturates: no 128-bit arithmetic on the
/// index's hottest line.
#[inline]
pub fn dist2(a: Pos, b: Pos) -> i64 {
    let dx = (a[0] as i64 - b[0] as i64).unsigned_abs();
    let dy = (a[1] as i64 - b[1] as i64).unsigned_abs();
    (dx * dx).saturating_add(dy * dy).min(i64::MAX as u64) as i64
}

/// `radius` clamped to `0..=MAX_RADIUS`, and its square.
pub fn clamp_radius(radius: i64) -> (i64, i64) {
    let r = radius.clamp(0, MAX_RADIUS);
    (r, r * r)
}

/// Answers range queries over the entities' current positions.
pub trait SpatialIndex {
    /// The method's name (`none`, `grid`, `crosslist`).
    fn name(&self) -> &'static str;
    /// Takes this tick's positions; entity ids are indices, and the number
    /// of entities may change between calls.
    fn update(&mut self, positions: &[Pos]);
    /// Appends to `out` the ids of entities within `radius` (inclusive,
    /// clamped to `0..=MAX_RADIUS`) of `at`, in ascending order. Returns
    /// how many entities the broad phase put to the exact test: the
    /// index's work, deterministic (reports show it; criterion times it).
    fn query(&self, at: Pos, radius: i64, out: &mut Vec<u32>) -> usize;
}

/// The index `aoi` names: a scan for `none`, a nine-grid whose cells are
/// the leave radius (so nine cells cover any view), or a cross list.
pub fn index_for(aoi: &Aoi) -> Box<dyn SpatialIndex + Send + Sync> {
    match aoi.method {
        AoiMethod::None => Box::new(BruteForce::default()),
        AoiMethod::Grid => Box::new(grid::NineGrid::new(aoi.leave_radius_um().max(1))),
        AoiMethod::CrossList => Box::new(crosslist::CrossList::new()),
    }
}

/// The reference: every query scans every entity.
#[derive(Clone, Debug, Default)]
pub struct BruteForce {
    positions: Vec<Pos>,
}

impl SpatialIndex for BruteForce {
    fn name(&self) -> &'static str {
        "none"
    }
    fn update(&mut self, positions: &[Pos]) {
        self.positions.clear();
        self.positions.extend_from_slice(positions);
    }
    fn query(&self, at: Pos, radius: i64, out: &mut Vec<u32>) -> usize {
        let (_, r2) = clamp_radius(radius);
        out.extend((0..self.positions.len() as u32).filter(|&i| dist2(self.positions[i as usize], at) <= r2));
        self.positions.len()
    }
}

/// What changed in one watcher's view this tick (ids ascending).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ViewEvents {
    /// The watching entity.
    pub watcher: u32,
    /// Newly visible: send the whole entity.
    pub enter: Vec<u32>,
    /// No longer visible: tell the client to drop it.
    pub leave: Vec<u32>,
    /// Still visible: send its update.
    pub moved: Vec<u32>,
}

/// Every watcher's visible set, with hysteresis.
#[derive(Clone, Debug)]
pub struct InterestSets {
    /// `(watcher entity, view radius)`: radii may differ per watcher.
    watchers: Vec<(u32, i64)>,
    hysteresis: i64,
    visible: Vec<Vec<u32>>,
    /// Each watcher's set before the last update (its buffer the next
    /// update fills: no allocation per watcher per tick).
    previous: Vec<Vec<u32>>,
    /// One query buffer per part of an update (at least one).
    scratch: Vec<Vec<u32>>,
    examined: u64,
}

/// Work units (see [`harness::parallel::parts`]) of one watcher's update:
/// a query and a filter over some dozens of entities.
const UPDATE_WORK: usize = 64;

impl InterestSets {
    /// For `watchers` (`(entity, radius)`), leaving at `radius + hysteresis`
    /// (both clamped to `0..=MAX_RADIUS`).
    ///
    /// Entities are their index in the positions: an index reused by a new
    /// entity within view reads as `moved`, not leave + enter — a server that
    /// recycles ids must send a leave first (or not recycle within a tick).
    pub fn new(watchers: Vec<(u32, i64)>, hysteresis: i64) -> InterestSets {
        let n = watchers.len();
        let watchers = watchers.into_iter().map(|(e, r)| (e, clamp_radius(r).0)).collect();
        InterestSets {
            watchers,
            hysteresis: clamp_radius(hysteresis).0,
            visible: vec![Vec::new(); n],
            previous: vec![Vec::new(); n],
            scratch: vec![Vec::new()],
            examined: 0,
        }
    }

    /// Entities the index put to the exact test, over every tick so far.
    pub fn examined(&self) -> u64 {
        self.examined
    }

    /// Watcher `w`'s visible entities (ascending).
    pub fn visible(&self, w: usize) -> &[u32] {
        &self.visible[w]
    }

    /// Recomputes every visible set from `index` (already updated with
    /// `positions`) and returns each watcher's events. A watcher never sees
    /// itself; a watcher whose entity does not exist sees nothing.
    pub fn tick(&mut self, index: &dyn SpatialIndex, positions: &[Pos]) -> Vec<ViewEvents> {
        self.update(index, positions);
        let events = self.watchers.iter().zip(self.previous.iter().zip(&self.visible));
        events
            .map(|(&(me, _), (old, new))| {
                let mut ev = ViewEvents { watcher: me, ..ViewEvents::default() };
                diff(old, new, &mut ev);
                ev
            })
            .collect()
    }

    /// Recomputes every visible set, as [`InterestSets::tick`] does, for a
    /// server that reads the sets ([`InterestSets::visible`]) and not the
    /// events.
    pub fn update(&mut self, index: &dyn SpatialIndex, positions: &[Pos]) {
        let (watchers, visible, previous) = (&self.watchers, &mut self.visible[..], &mut self.previous[..]);
        self.examined +=
            update_range(watchers, visible, previous, &mut self.scratch[0], index, self.hysteresis, positions);
    }

    /// [`InterestSets::update`] with the watchers split over the machine's
    /// cores when they are many (each watcher's set is its own, and the
    /// work counted is a sum: the same result on any number of cores).
    pub fn update_on_cores(&mut self, index: &(dyn SpatialIndex + Sync), positions: &[Pos]) {
        let n = self.watchers.len();
        let parts = harness::parallel::parts(n * UPDATE_WORK, n);
        if parts <= 1 {
            return self.update(index, positions);
        }
        let per = n.div_ceil(parts).max(1);
        let parts = n.div_ceil(per);
        if self.scratch.len() < parts {
            self.scratch.resize_with(parts, Vec::new);
        }
        let mut examined = vec![0u64; parts];
        let hysteresis = self.hysteresis;
        let split = self.watchers.chunks(per).zip(self.visible.chunks_mut(per)).zip(self.previous.chunks_mut(per));
        let split = split.zip(self.scratch.iter_mut().zip(examined.iter_mut()));
        harness::parallel::for_each(parts, split, |(((watchers, visible), previous), (scratch, examined))| {
            *examined = update_range(watchers, visible, previous, scratch, index, hysteresis, positions);
        });
        self.examined += examined.iter().sum::<u64>();
    }
}

/// Recomputes the visible sets of `watchers` (`visible[i]`, `previous[i]`
/// theirs); returns the entities the index examined.
fn update_range(
    watchers: &[(u32, i64)],
    visible: &mut [Vec<u32>],
    previous: &mut [Vec<u32>],
    scratch: &mut Vec<u32>,
    index: &dyn SpatialIndex,
    hysteresis: i64,
    positions: &[Pos],
) -> u64 {
    let mut examined = 0;
    for (w, &(me, radius)) in watchers.iter().enumerate() {
        std::mem::swap(&mut visible[w], &mut previous[w]);
        let (old, new) = (&previous[w], &mut visible[w]);
        new.clear();
        if let Some(&at) = positions.get(me as usize) {
            scratch.clear();
            examined += index.query(at, radius + hysteresis, scratch) as u64;
            let r2 = radius * radius;
            new.extend(
                scratch
                    .iter()
                    .copied()
                    .filter(|&e| e != me && (dist2(positions[e as usize], at) <= r2 || old.binary_search(&e).is_ok())),
            );
        }
    }
    examined
}

/// Merges two ascending lists into leave (old only), enter (new only) and
/// moved (both).
fn diff(old: &[u32], new: &[u32], ev: &mut ViewEvents) {
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a == b => {
                ev.moved.push(*a);
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a < b => {
                ev.leave.push(*a);
                i += 1;
            }
            (Some(a), None) => {
                ev.leave.push(*a);
                i += 1;
            }
            (_, Some(b)) => {
                ev.enter.push(*b);
                j += 1;
            }
            (None, None) => unreachable!("loop condition"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hysteresis_keeps_an_entity_until_it_is_clearly_gone() {
        let idx_at = |p: &[Pos]| {
            let mut b = BruteForce::default();
            b.update(p);
            b
        };
        let mut sets = InterestSets::new(vec![(0, 100)], 10);
        let step = |sets: &mut InterestSets, x: i32| {
            let p = [[0, 0], [x, 0]];
            sets.tick(&idx_at(&p), &p).remove(0)
        };
        assert_eq!(step(&mut sets, 105).enter, Vec::<u32>::new(), "outside the radius: not yet");
        assert_eq!(step(&mut sets, 100).enter, vec![1], "enters at the radius");
        assert_eq!(step(&mut sets, 108).moved, vec![1], "inside the hysteresis band: stays");
        let ev = step(&mut sets, 111);
        assert_eq!((ev.leave, ev.moved), (vec![1], vec![]), "beyond radius + hysteresis: leaves");
        assert_eq!(step(&mut sets, 108).enter, Vec::<u32>::new(), "the band does not let it back in");
    }

    #[test]
    fn extreme_positions_and_radii_do_not_overflow() {
        assert_eq!(MAX_RADIUS.checked_mul(MAX_RADIUS).map(|r2| r2 < i64::MAX), Some(true));
        assert!((MAX_RADIUS + 1).checked_mul(MAX_RADIUS + 1).is_none());
        assert_eq!(dist2([i32::MIN, i32::MIN], [i32::MAX, i32::MAX]), i64::MAX);
        assert_eq!(dist2([-1_600_000_000, 0], [1_500_000_000, 0]), i64::MAX, "3.1 km: beyond any radius");
        assert_eq!(dist2([-3, 4], [0, 0]), 25);
        assert_eq!(clamp_radius(-100), (0, 0));
    }

    #[test]
    fn diff_splits_old_and_new() {
        let mut ev = ViewEvents::default();
        diff(&[1, 3, 5, 7], &[2, 3, 7, 9], &mut ev);
        assert_eq!((ev.leave, ev.enter, ev.moved), (vec![1, 5], vec![2, 9], vec![3, 7]));
    }

    use super::crosslist::CrossList;
    use super::grid::NineGrid;
    use proptest::prelude::*;

    /// Start positions, per tick a step per entity, entity count per tick.
    type World = (Vec<Pos>, Vec<Vec<(i32, i32)>>, Vec<usize>);

    /// A world: start positions, then per tick a step per entity (a big
    /// step is a teleport), and the entity count per tick.
    fn world() -> impl Strategy<Value = World> {
        let n = 1usize..40;
        n.prop_flat_map(|n| {
            (
                prop::collection::vec(
                    prop_oneof![
                        9 => [-50_000i32..50_000, -50_000i32..50_000],
                        1 => (prop_oneof![Just(i32::MIN), Just(i32::MAX), any::<i32>()], any::<i32>()).prop_map(|(x, y)| [x, y]),
                    ],
                    n,
                ),
                prop::collection::vec(
                    prop::collection::vec(
                        prop_oneof![8 => (-3_000i32..3_000, -3_000i32..3_000), 1 => (-60_000i32..60_000, -60_000i32..60_000)],
                        n,
                    ),
                    1..25,
                ),
                prop::collection::vec(1..=n, 25),
            )
        })
    }

    proptest! {
        /// `dist2` is the exact square, saturated at `i64::MAX`, at any
        /// two positions (extremes included).
        #[test]
        fn dist2_is_the_exact_square_saturated(
            a in prop_oneof![Just(i32::MIN), Just(i32::MAX), any::<i32>(), -1_000i32..1_000],
            b in prop_oneof![Just(i32::MIN), Just(i32::MAX), any::<i32>(), -1_000i32..1_000],
            c in prop_oneof![Just(i32::MIN), Just(i32::MAX), any::<i32>(), -1_000i32..1_000],
            d in prop_oneof![Just(i32::MIN), Just(i32::MAX), any::<i32>(), -1_000i32..1_000],
        ) {
            let (dx, dy) = (a as i128 - c as i128, b as i128 - d as i128);
            let exact = i64::try_from(dx * dx + dy * dy).unwrap_or(i64::MAX);
            prop_assert_eq!(dist2([a, b], [c, d]), exact);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Updating on several cores gives every watcher's set and the
        /// work counted exactly as one core does, over many watchers (enough
        /// to split) on a pool of three.
        #[test]
        fn updating_on_cores_is_updating_on_one(
            (start, steps, counts) in world(),
            radius in 1_000i64..40_000,
            watchers in 32usize..120,
        ) {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(3).build().unwrap();
            let watchers: Vec<(u32, i64)> = (0..watchers).map(|w| ((w % start.len()) as u32, radius + w as i64)).collect();
            let mut one = InterestSets::new(watchers.clone(), 700);
            let mut many = InterestSets::new(watchers.clone(), 700);
            let mut grid = NineGrid::new(20_000);
            let mut pos = start.clone();
            for (t, step) in steps.iter().enumerate() {
                for (p, d) in pos.iter_mut().zip(step) {
                    *p = [p[0].saturating_add(d.0), p[1].saturating_add(d.1)];
                }
                let live = &pos[..counts[t]];
                grid.update(live);
                one.update(&grid, live);
                pool.install(|| many.update_on_cores(&grid, live));
                for w in 0..watchers.len() {
                    prop_assert_eq!(one.visible(w), many.visible(w));
                }
                prop_assert_eq!(one.examined(), many.examined());
            }
        }

        /// The grid and the cross list answer every query as the brute
        /// force does, and the visible sets built on each are identical,
        /// never leak and miss nothing — under arbitrary movement,
        /// teleports, and entities coming and going.
        #[test]
        fn indices_agree_and_views_neither_leak_nor_miss(
            (start, steps, counts) in world(),
            radii in prop::collection::vec(prop_oneof![8 => 1_000i64..40_000, 1 => Just(0i64), 1 => Just(i64::MAX)], 1..6),
            hysteresis in 0i64..5_000,
            cell in 2_000i64..60_000,
        ) {
            let mut pos = start.clone();
            let watchers: Vec<(u32, i64)> = radii.iter().enumerate().map(|(w, r)| (w as u32, *r)).collect();
            let mut brute = BruteForce::default();
            let mut grid = NineGrid::new(cell);
            let mut cross = CrossList::new();
            let mut sets = [0, 1, 2].map(|_| InterestSets::new(watchers.clone(), hysteresis));
            // Updated without events, as a server that reads the sets does.
            let mut updated = InterestSets::new(watchers.clone(), hysteresis);
            let mut before: Vec<Vec<u32>> = vec![Vec::new(); watchers.len()];
            for (t, step) in steps.iter().enumerate() {
                for (p, d) in pos.iter_mut().zip(step) {
                    *p = [p[0].saturating_add(d.0), p[1].saturating_add(d.1)];
                }
                let live = &pos[..counts[t]];
                brute.update(live);
                grid.update(live);
                cross.update(live);
                for (&at, r) in live.iter().zip(radii.iter().cycle()) {
                    let (mut a, mut b, mut c) = (Vec::new(), Vec::new(), Vec::new());
                    brute.query(at, *r, &mut a);
                    let examined = grid.query(at, *r, &mut b);
                    cross.query(at, *r, &mut c);
                    // The grid's work: the entities of the cells within its
                    // rings of the point's, whatever it keeps them in.
                    let cell_of = |p: Pos| [p[0] as i64, p[1] as i64].map(|v| v.div_euclid(cell));
                    let rings = (clamp_radius(*r).0 + cell - 1) / cell;
                    let home = cell_of(at);
                    let near = live.iter().filter(|&&p| (0..2).all(|k| (cell_of(p)[k] - home[k]).abs() <= rings)).count();
                    prop_assert_eq!(examined, near, "the grid's work at {:?} r {}", at, r);
                    prop_assert_eq!(&a, &b, "grid vs brute force at {:?} r {}", at, r);
                    prop_assert_eq!(&a, &c, "cross list vs brute force at {:?} r {}", at, r);
                }
                let ev = [
                    sets[0].tick(&brute, live),
                    sets[1].tick(&grid, live),
                    sets[2].tick(&cross, live),
                ];
                prop_assert_eq!(&ev[0], &ev[1]);
                prop_assert_eq!(&ev[0], &ev[2]);
                updated.update(&grid, live);
                for w in 0..watchers.len() {
                    prop_assert_eq!(updated.visible(w), sets[0].visible(w));
                }
                prop_assert_eq!(updated.examined(), sets[1].examined());
                for (w, &(me, r)) in watchers.iter().enumerate() {
                    let seen = sets[0].visible(w);
                    let e = &ev[0][w];
                    if let Some(&at) = live.get(me as usize) {
                        for (id, &p) in live.iter().enumerate() {
                            let d2 = dist2(p, at);
                            let shown = seen.contains(&(id as u32));
                            let (r, r2) = clamp_radius(r);
                            let (_, out2) = clamp_radius(r + hysteresis);
                            prop_assert!(!shown || d2 <= out2, "leak: {} at d²={}", id, d2);
                            prop_assert!(shown || id as u32 == me || d2 > r2, "miss: {} at d²={}", id, d2);
                        }
                    } else {
                        prop_assert!(seen.is_empty());
                    }
                    // The events are exactly the change of the set.
                    let mut rebuilt: Vec<u32> = before[w].iter().copied().filter(|x| !e.leave.contains(x)).collect();
                    rebuilt.extend(&e.enter);
                    rebuilt.sort_unstable();
                    prop_assert_eq!(&rebuilt[..], seen);
                    prop_assert_eq!(e.moved.len() + e.leave.len(), before[w].len());
                    before[w] = seen.to_vec();
                }
            }
        }
    }
}
