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
//! `slot(id)` finds or makes the entity's place, `parts(slot)` gives its
//! [`Seen`] and renders.

/// What one screen last showed of one entity.
#[derive(Clone, Copy)]
pub(super) struct Seen {
    /// The newest input shown.
    pub(super) seq: u32,
    /// Index of the entity's next input change not yet shown.
    pub(super) change: usize,
    /// The snap event last seen: where it started and its last
    /// over-threshold render's time.
    pub(super) event: Option<([i32; 3], u64)>,
}

/// A render remembered for the snap test: (time, position); `u64::MAX`
/// time marks an empty place.
pub(super) type Render = (u64, [i32; 3]);

const EMPTY: Render = (u64::MAX, [0; 3]);

/// What one screen remembers of the entities it has shown.
pub(super) struct ScreenMemory {
    ring: usize,
    /// Per entity: its slot + 1, or 0 if never shown.
    slot_of: Vec<u32>,
    /// Per slot.
    pub(super) seen: Vec<Seen>,
    /// Per slot, its last `ring` renders, newest first.
    recent: Vec<Render>,
}

impl ScreenMemory {
    /// Memory for a screen over `entities` entities, keeping `ring`
    /// renders of each.
    pub(super) fn new(entities: usize, ring: usize) -> ScreenMemory {
        ScreenMemory { ring, slot_of: vec![0; entities], seen: Vec::new(), recent: Vec::new() }
    }

    /// The slot of entity `id`, made on its first show.
    pub(super) fn slot(&mut self, id: usize) -> usize {
        let k = id;
        match self.slot_of[k] {
            0 => {
                self.seen.push(Seen { seq: 0, change: 0, event: None });
                self.recent.extend(std::iter::repeat_n(EMPTY, self.ring));
                self.slot_of[k] = self.seen.len() as u32;
                self.seen.len() - 1
            }
            s => s as usize - 1,
        }
    }

    /// A slot's [`Seen`] and its remembered renders, newest first.
    pub(super) fn parts(&mut self, slot: usize) -> (&mut Seen, &mut [Render]) {
        (&mut self.seen[slot], &mut self.recent[slot * self.ring..(slot + 1) * self.ring])
    }

    /// How many of `id`'s input changes the screen has shown.
    pub(super) fn shown_changes(&self, id: usize) -> usize {
        match self.slot_of[id] {
            0 => 0,
            s => self.seen[s as usize - 1].change,
        }
    }
}

/// The newest of `recent` (newest first; empty places skipped) at least
/// `span` before `t`, or failing that the oldest remembered.
pub(super) fn anchor(recent: &[Render], t: u64, span: u64) -> Option<Render> {
    let mut oldest = None;
    for &r in recent.iter().filter(|r| r.0 != u64::MAX) {
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
        assert!(m.parts(a).1.iter().all(|r| r.0 == u64::MAX));
        m.parts(a).1[0] = (10, [1, 2, 3]);
        assert_eq!(m.parts(b).1[0].0, u64::MAX);
    }

    #[test]
    fn anchor_takes_the_newest_render_a_span_back() {
        let recent = [(100, [3; 3]), (80, [2; 3]), (50, [1; 3])];
        assert_eq!(anchor(&recent, 110, 25), Some((80, [2; 3])));
        assert_eq!(anchor(&recent, 110, 100), Some((50, [1; 3])));
        assert_eq!(anchor(&[EMPTY; 3], 110, 25), None);
    }
}
