//! What each screen last showed of each entity: the newest input, the next
//! input change not yet shown, the snap event in progress, and the last few
//! renders (time, position) the snap test judges spans over.
//!
//! One [`ScreenMemory`] per screen (so screens can be judged on several
//! cores at once), holding the entities it has ever shown in slots handed
//! out on first show. A screen that filters by area of interest shows a
//! few dozen of thousands of entities, so its slots stay few and close
//! together in memory; a table of `entity → slot` (4 bytes an entity)
//! finds them. The recorder's per-render work is then mostly cache hits
//! where a dense `viewer × entity` array missed on every entity.
//!
//! `slot(id)` finds or makes the entity's place; `shown[slot]`,
//! `seen[slot]` and `recent(slot)` are what it remembers. A screen that
//! shows few of many entities shows mostly the same ones render after
//! render, in the same order: their slots are found by walking the last
//! render's `(id, slot)` list alongside, where the table, a few kilobytes a
//! screen read at scattered places, missed the cache on most entities of a
//! 200-screen world (a tenth of its time went to that one load).

/// What one screen last showed of one entity, besides the newest input
/// (which every render reads, so it sits apart: [`ScreenMemory::shown`]).
/// Read only when an input change or a snap is shown.
#[derive(Clone, Copy)]
pub(super) struct Seen {
    /// Index of the entity's next input change not yet shown.
    pub(super) change: u32,
    /// The snap event last seen: where it started, and its last
    /// over-threshold render's time ([`NO_EVENT`]: none yet). Two fields
    /// instead of an `Option`: 24 bytes a slot instead of 40.
    event_from: [i32; 3],
    event_last: u64,
}

const NO_EVENT: u64 = u64::MAX;

impl Seen {
    const NEW: Seen = Seen { change: 0, event_from: [0; 3], event_last: NO_EVENT };

    /// The snap event last seen: where it started and its last
    /// over-threshold render's time.
    pub(super) fn event(&self) -> Option<([i32; 3], u64)> {
        (self.event_last != NO_EVENT).then_some((self.event_from, self.event_last))
    }

    /// Notes the event's start and its newest over-threshold render.
    pub(super) fn set_event(&mut self, from: [i32; 3], last: u64) {
        debug_assert_ne!(last, NO_EVENT, "a render's time is never u64::MAX");
        (self.event_from, self.event_last) = (from, last);
    }
}

/// A render remembered for the snap test: its time and position. Packed
/// to 20 bytes (every render of an entity shifts its ring).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, packed(4))]
pub(super) struct Render {
    t: u64,
    at: [i32; 3],
}

impl Render {
    /// A render at `t` showing the entity at `at`.
    pub(super) fn new(t: u64, at: [i32; 3]) -> Render {
        Render { t, at }
    }

    /// Its time and position, unless the place is empty.
    pub(super) fn get(self) -> Option<(u64, [i32; 3])> {
        let (t, at) = (self.t, self.at);
        (t != EMPTY.t).then_some((t, at))
    }
}

/// An empty place in a ring (`u64::MAX`: no render has that time).
const EMPTY: Render = Render { t: u64::MAX, at: [0; 3] };

/// What one screen remembers of the entities it has shown.
///
/// Every render of an entity reads its slot's `shown` and `recent`, and
/// an unfiltered screen renders thousands of entities: a render streams
/// through these arrays, so what every render needs is kept apart from
/// what few do (`seen`), and small.
pub(super) struct ScreenMemory {
    ring: usize,
    /// Per entity: its slot + 1, or 0 if never shown.
    slot_of: Vec<u32>,
    /// Per slot, the newest input shown.
    pub(super) shown: Vec<u32>,
    /// Per slot, the rest of what was shown.
    pub(super) seen: Vec<Seen>,
    /// Per slot, its last `ring` renders, newest first.
    recent: Vec<Render>,
    /// When the screen shows few of the entities: the `(id, slot)` of the
    /// last render's entities, in its order, and of this render's so far,
    /// and how far this render has walked the last's.
    last: Vec<(u32, u32)>,
    current: Vec<(u32, u32)>,
    cursor: usize,
    walking: bool,
}

/// A screen showing at most one entity in this many walks the last
/// render's slots instead of reading the table.
const WALK_BELOW: usize = 4;

impl ScreenMemory {
    /// Memory for a screen over `entities` entities, keeping `ring`
    /// renders of each.
    pub(super) fn new(entities: usize, ring: usize) -> ScreenMemory {
        ScreenMemory {
            ring,
            slot_of: vec![0; entities],
            shown: Vec::new(),
            seen: Vec::new(),
            recent: Vec::new(),
            last: Vec::new(),
            current: Vec::new(),
            cursor: 0,
            walking: false,
        }
    }

    /// Before a render of `shown` entities. Before the screen's first:
    /// exact room for them (an unfiltered screen shows everything at once;
    /// doubling would leave up to half its memory unused). Later slots
    /// double.
    pub(super) fn begin_render(&mut self, shown: usize) {
        let more = shown.min(self.slot_of.len());
        if self.seen.is_empty() {
            self.shown.reserve_exact(more);
            self.seen.reserve_exact(more);
            self.recent.reserve_exact(more * self.ring);
        }
        let walking = shown * WALK_BELOW <= self.slot_of.len();
        if walking || self.walking {
            std::mem::swap(&mut self.last, &mut self.current);
            self.current.clear();
            self.cursor = 0;
        }
        self.walking = walking;
    }

    /// The slot of entity `id`, made on its first show.
    #[inline]
    pub(super) fn slot(&mut self, id: usize) -> usize {
        if !self.walking {
            return self.slot_in_table(id);
        }
        // Views list entities in the same order render after render (by
        // id, usually): skip the last render's entities this one no longer
        // shows, take the slot if the next is this one, else the table.
        let key = id as u32;
        while self.last.get(self.cursor).is_some_and(|&(i, _)| i < key) {
            self.cursor += 1;
        }
        let slot = match self.last.get(self.cursor) {
            Some(&(i, s)) if i == key => {
                self.cursor += 1;
                s as usize
            }
            _ => self.slot_in_table(id),
        };
        self.current.push((key, slot as u32));
        slot
    }

    /// The slot of entity `id` from the table, made on its first show.
    #[inline]
    fn slot_in_table(&mut self, id: usize) -> usize {
        match self.slot_of[id] {
            0 => self.new_slot(id),
            s => s as usize - 1,
        }
    }

    /// A slot for entity `id`, shown for the first time.
    #[cold]
    #[inline(never)]
    fn new_slot(&mut self, id: usize) -> usize {
        self.shown.push(0);
        self.seen.push(Seen::NEW);
        self.recent.extend(std::iter::repeat_n(EMPTY, self.ring));
        self.slot_of[id] = self.seen.len() as u32;
        self.seen.len() - 1
    }

    /// A slot's remembered renders, newest first.
    pub(super) fn recent(&mut self, slot: usize) -> &mut [Render] {
        &mut self.recent[slot * self.ring..(slot + 1) * self.ring]
    }

    /// The slot of entity `id` if the screen has shown it, outside a render.
    pub(super) fn shown_slot(&self, id: usize) -> Option<usize> {
        self.slot_of.get(id).and_then(|&s| (s as usize).checked_sub(1))
    }

    /// How many of `id`'s input changes the screen has shown.
    pub(super) fn shown_changes(&self, id: usize) -> usize {
        match self.slot_of[id] {
            0 => 0,
            s => self.seen[s as usize - 1].change as usize,
        }
    }
}

/// The newest of `recent` (newest first; empty places skipped) at least
/// `span` before `t`, or failing that the oldest remembered.
pub(super) fn anchor(recent: &[Render], t: u64, span: u64) -> Option<(u64, [i32; 3])> {
    let mut oldest = None;
    for r in recent.iter().filter(|r| r.t != EMPTY.t) {
        let r = (r.t, r.at);
        if t.saturating_sub(r.0) >= span {
            return Some(r);
        }
        oldest = Some(r);
    }
    oldest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_made_on_first_show_and_kept() {
        let mut m = ScreenMemory::new(10, 3);
        let a = m.slot(7);
        let b = m.slot(2);
        assert_ne!(a, b);
        assert_eq!(m.slot(7), a);
        m.seen[a].change = 5;
        assert_eq!(m.shown_changes(7), 5);
        assert_eq!(m.shown_changes(2), 0);
        assert_eq!(m.shown_changes(3), 0);
        assert!(m.recent(a).iter().all(|r| *r == EMPTY));
        m.recent(a)[0] = Render::new(10, [1, 2, 3]);
        assert_eq!(m.recent(b)[0], EMPTY);
        assert_eq!(m.seen[a].event(), None);
        m.seen[a].set_event([4, 5, 6], 7);
        assert_eq!(m.seen[a].event(), Some(([4, 5, 6], 7)));
        assert_eq!(std::mem::size_of::<Seen>(), 24);
        assert_eq!(std::mem::size_of::<Render>(), 20);
        assert_eq!(m.shown[b], 0);
    }

    proptest::proptest! {
        /// Walking the last render's slots finds every entity's slot as
        /// the table does — a slot per entity, in the order first shown —
        /// whatever the renders list: sorted or not, repeats, entities
        /// coming and going, few or many of them.
        #[test]
        fn walked_slots_are_the_table_s(
            renders in proptest::collection::vec(
                // Up to 100 of 400 entities walk, more read the table.
                (proptest::collection::vec(0usize..400, 0..150), proptest::bool::ANY),
                1..30,
            ),
        ) {
            let mut m = ScreenMemory::new(400, 2);
            let mut first_shown: Vec<usize> = Vec::new();
            for (mut ids, sorted) in renders {
                if sorted {
                    ids.sort_unstable();
                }
                m.begin_render(ids.len());
                for id in ids {
                    let want = match first_shown.iter().position(|&e| e == id) {
                        Some(k) => k,
                        None => {
                            first_shown.push(id);
                            first_shown.len() - 1
                        }
                    };
                    proptest::prop_assert_eq!(m.slot(id), want);
                }
            }
        }
    }

    #[test]
    fn anchor_takes_the_newest_render_a_span_back() {
        let recent = [Render::new(100, [3; 3]), Render::new(80, [2; 3]), Render::new(50, [1; 3])];
        assert_eq!(anchor(&recent, 110, 25), Some((80, [2; 3])));
        assert_eq!(anchor(&recent, 110, 100), Some((50, [1; 3])));
        assert_eq!(anchor(&[EMPTY; 3], 110, 25), None);
    }
}
