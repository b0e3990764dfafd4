//! Render interpolation between ticks (Liang & Chen §1.2, `RenderLocalPlayer(alpha)`;
//! "fix your timestep"): a screen faster than the tick rate must not show a
//! staircase.
//!
//! An algorithm whose picture changes only on ticks (or when a state
//! arrives) hands each new picture to [`TickLerp::set`] with the local time
//! it became current; [`TickLerp::render`] then draws every entity moving
//! from where it was drawn at that instant to the new picture over one
//! tick. The display is continuous and lags the newest picture by at most
//! one tick, at every render rate alike — which is the price real engines
//! pay for smooth motion at any frame rate. An entity's input sequence
//! number (or frame) is the new picture's once the motion toward it is a
//! tenth of the way; the harness credits it where the drawn position is
//! (`harness::metrics::claims`), so the name runs at most a tick ahead. An
//! entity farther than three ticks of motion ([`JUMP_SPEED`]) from the new picture jumps there instead
//! (a teleport is not interpolated: a straight line across the arena would
//! run through walls).
//!
//! ```
//! use algorithms::support::render_lerp::TickLerp;
//! use harness::contract::{EntityView, View};
//! let at = |x| EntityView { id: 0, x, ..Default::default() };
//! let mut l = TickLerp::new(1, 16_000);
//! l.set(0, &[at(0)]);
//! l.set(16_000, &[at(160_000)]);
//! let mut v = View::default();
//! l.render(24_000, &mut v);
//! assert_eq!(v.entities[0].x, 80_000, "half a tick into the move");
//! ```

use harness::contract::{Ctx, EntityView, Node, NodeId, RenderCtx, Setup, View};

/// Moves longer than three ticks of motion at this speed (µm/s: three
/// times the reference game's max speed... over one tick, i.e. three ticks
/// at full speed; 30 cm at 60 Hz) are not interpolated.
pub const JUMP_SPEED: i64 = 18_000_000;

/// The picture being moved to, and where each entity was drawn when it
/// became current.
#[derive(Clone, Debug)]
pub struct TickLerp {
    dt: i64,
    /// Longer moves jump (µm).
    jump_um: i64,
    since: i64,
    /// Per entity id: when its current motion began (a picture that moves
    /// it begins one; one that leaves it where it was heading does not).
    began: Vec<i64>,
    to: Vec<EntityView>,
    /// Per entity id: where it was drawn when `to` became current.
    from: Vec<Option<EntityView>>,
    /// Scratch: which ids the picture being set holds (all `false` between calls).
    keep: Vec<bool>,
    /// Scratch: where the entities of `to` are drawn when a picture is set.
    drawn: Vec<EntityView>,
}

impl TickLerp {
    /// For `entities` entity ids and a tick of `dt` µs.
    pub fn new(entities: usize, dt: i64) -> TickLerp {
        let dt = dt.max(1);
        TickLerp {
            dt,
            jump_um: JUMP_SPEED * dt / 1_000_000,
            since: i64::MIN,
            began: vec![i64::MIN; entities],
            to: Vec::new(),
            from: vec![None; entities],
            keep: vec![false; entities],
            drawn: Vec::new(),
        }
    }

    /// `picture` is current from local time `now` on.
    pub fn set(&mut self, now: i64, picture: &[EntityView]) {
        // The usual case — the same entities as the last picture, in the
        // same ascending order (a peer's players, tick after tick) — is
        // each entity's own affair: no bookkeeping of who came and went.
        let same = picture.len() == self.to.len()
            && picture.iter().zip(&self.to).all(|(p, t)| p.id == t.id)
            && picture.windows(2).all(|w| w[0].id < w[1].id);
        if same {
            // An entity the new picture leaves where it was heading keeps
            // its motion (only its names change): a late input that
            // confirms a prediction, or a rollback that corrects another
            // entity, does not restart it a tick late.
            for (k, e) in picture.iter().enumerate() {
                let to = &self.to[k];
                if (to.x, to.y, to.z) == (e.x, e.y, e.z) {
                    continue;
                }
                let d = self.drawn(now, to);
                self.from[e.id as usize] = (!self.jumps(&d, e)).then_some(d);
                self.began[e.id as usize] = now;
            }
            self.to.copy_from_slice(picture);
            self.since = now;
            return;
        }
        self.set_any(now, picture);
    }

    /// [`TickLerp::set`] for any picture.
    fn set_any(&mut self, now: i64, picture: &[EntityView]) {
        // Invariant: `from[id]` is set exactly for the ids of `to`.
        let mut drawn = std::mem::take(&mut self.drawn);
        drawn.clear();
        drawn.extend(self.to.iter().map(|e| self.drawn(now, e)));
        let ids = picture.iter().chain(&drawn).map(|e| e.id as usize + 1).max().unwrap_or(0);
        if self.from.len() < ids {
            self.from.resize(ids, None);
        }
        for d in &drawn {
            self.from[d.id as usize] = Some(*d);
        }
        // An entity new to the picture appears where it is (its slot is
        // empty); one far from where it was drawn jumps. Slots of entities
        // that left are emptied: mark the new picture's ids, clear the rest.
        let mut keep = std::mem::take(&mut self.keep);
        keep.resize(self.from.len(), false);
        for e in picture {
            let id = e.id as usize;
            keep[id] = true;
            if self.from[id].is_some_and(|f| self.jumps(&f, e)) {
                self.from[id] = None;
            }
        }
        for d in &drawn {
            let id = d.id as usize;
            if !keep[id] {
                self.from[id] = None;
            }
        }
        for e in picture {
            keep[e.id as usize] = false;
        }
        self.keep = keep;
        if self.began.len() < self.from.len() {
            self.began.resize(self.from.len(), i64::MIN);
        }
        for e in picture {
            self.began[e.id as usize] = now;
        }
        self.to.clear();
        self.to.extend_from_slice(picture);
        self.drawn = drawn;
        self.since = now;
    }

    /// Whether moving from where an entity was drawn (`from`) to `to` is a
    /// jump, not a motion to interpolate.
    fn jumps(&self, from: &EntityView, to: &EntityView) -> bool {
        harness::math::farther_than([from.x, from.y, from.z], [to.x, to.y, to.z], self.jump_um)
    }

    /// Whether a picture was set.
    pub fn is_set(&self) -> bool {
        self.since != i64::MIN
    }

    fn drawn(&self, now: i64, e: &EntityView) -> EntityView {
        let k = now.saturating_sub(self.began.get(e.id as usize).copied().unwrap_or(self.since));
        // A tick after it was set, the picture is drawn as it is (the
        // motion below ends exactly there).
        if k >= self.dt {
            return *e;
        }
        let Some(from) = self.from.get(e.id as usize).copied().flatten() else { return *e };
        let k = k.max(0);
        let l = |a: i32, b: i32| (a as i64 + (b as i64 - a as i64) * k / self.dt) as i32;
        // The new picture's input counts as shown once the motion toward
        // it is a tenth of the way (a render microseconds after the tick,
        // as real timers fire, shows nothing new yet).
        let (seq, frame) = if k * 10 >= self.dt { (e.seq, e.frame) } else { (from.seq, from.frame) };
        EntityView { id: e.id, x: l(from.x, e.x), y: l(from.y, e.y), z: l(from.z, e.z), seq, frame }
    }

    /// Draws the picture as it is at local time `now`.
    pub fn render(&self, now: i64, view: &mut View) {
        view.entities.extend(self.to.iter().map(|e| self.drawn(now, e)));
    }
}

/// What a node drawn through [`Smooth`] may say about its picture, so the
/// wrapper need not draw it after an event that changed nothing.
pub trait Picture: Node {
    /// A number that stays the same only while the picture `render` draws
    /// stays the same (the frame of a state that changes only by stepping,
    /// a count of changes); `None`, the default: unknown, the wrapper draws
    /// the picture after every event and compares. Debug builds check the
    /// promise on every event.
    fn picture_stamp(&self) -> Option<u64> {
        None
    }
}

/// A node whose picture changes only on its events (ticks, packets) and
/// whose `render` only reads its state, drawn through a [`TickLerp`]:
/// after every event the wrapper takes the node's picture (unless the
/// node's [`Picture::picture_stamp`] says it cannot have changed) and, if
/// it changed, moves to it over the next tick from that instant.
pub struct Smooth<N> {
    inner: N,
    lerp: TickLerp,
    scratch: View,
    /// The inner node's [`Picture::picture_stamp`] when its picture was last taken.
    stamp: Option<u64>,
}

impl<N: Picture> Smooth<N> {
    /// Wraps `inner` for a run set up as `setup`.
    pub fn new(inner: N, setup: &Setup) -> Smooth<N> {
        let mut lerp = TickLerp::new(setup.entities(), 1_000_000 / setup.tick_hz.max(1) as i64);
        let mut first = View::default();
        first.show_state(&setup.initial);
        lerp.set(i64::MIN / 2, &first.entities);
        Smooth { inner, lerp, scratch: View::default(), stamp: None }
    }

    fn observe(&mut self, ctx: &Ctx<'_>) {
        let stamp = self.inner.picture_stamp();
        let same = stamp.is_some() && stamp == self.stamp;
        if same && !cfg!(debug_assertions) {
            return;
        }
        self.stamp = stamp;
        self.scratch.entities.clear();
        self.inner.render(&ctx.render_ctx(), &mut self.scratch);
        if self.scratch.entities != self.lerp.to {
            assert!(!same, "a node's picture changed under the same picture_stamp");
            self.lerp.set(ctx.now(), &self.scratch.entities);
        }
    }
}

impl<N: Picture> Node for Smooth<N> {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        self.inner.on_tick(ctx);
        self.observe(ctx);
    }
    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        self.inner.on_packet(ctx, from, bytes);
        self.observe(ctx);
    }
    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        self.lerp.render(ctx.now(), view);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A picture of the same entities in the same order is set exactly
        /// as any picture is: the same motion, the same jumps, drawn the
        /// same at any instant.
        #[test]
        fn the_same_entities_are_set_as_any(
            steps in proptest::collection::vec(
                (any::<bool>(), proptest::collection::vec((0u16..6, -400_000i32..400_000, 0u32..9), 0..5), 0i64..40_000),
                1..40,
            ),
        ) {
            let (mut fast, mut any) = (TickLerp::new(6, 16_000), TickLerp::new(6, 16_000));
            let mut now = 0;
            for (keep_ids, entities, dt) in steps {
                now += dt;
                // Half the steps move the last picture's entities (the
                // usual case); the others show any entities at all.
                let picture: Vec<EntityView> = if keep_ids && !fast.to.is_empty() {
                    fast.to.iter().zip(entities.iter().cycle()).map(|(t, &(_, x, s))| at(t.id, x, s)).collect()
                } else {
                    entities.iter().map(|&(id, x, s)| at(id, x, s)).collect()
                };
                fast.set(now, &picture);
                any.set_any(now, &picture);
                prop_assert_eq!(&fast.to, &any.to);
                prop_assert_eq!(&fast.from, &any.from);
                for later in [0, 1_000, 8_000, 16_000, 30_000] {
                    let (mut a, mut b) = (View::default(), View::default());
                    fast.render(now + later, &mut a);
                    any.render(now + later, &mut b);
                    prop_assert_eq!(a.entities, b.entities);
                }
            }
        }
    }

    fn at(id: u16, x: i32, seq: u32) -> EntityView {
        EntityView { id, x, seq, ..Default::default() }
    }

    #[test]
    fn a_tick_state_is_reached_one_tick_after_it_is_set() {
        let mut l = TickLerp::new(2, 100);
        l.set(0, &[at(0, 0, 1), at(1, 50, 0)]);
        let draw = |l: &TickLerp, t| {
            let mut v = View::default();
            l.render(t, &mut v);
            v.entities
        };
        assert_eq!(draw(&l, 0)[0], at(0, 0, 1), "the first picture appears where it is");
        l.set(100, &[at(0, 1000, 2), at(1, 50, 0)]);
        assert_eq!(draw(&l, 100)[0], at(0, 0, 1), "at the instant it is set: the old picture, old input");
        assert_eq!(draw(&l, 105)[0], at(0, 50, 1), "5% of the way: not yet the new input");
        assert_eq!(draw(&l, 125)[0], at(0, 250, 2), "a quarter of the way: the new input shows");
        assert_eq!(draw(&l, 200)[0], at(0, 1000, 2));
        assert_eq!(draw(&l, 900)[0], at(0, 1000, 2), "and stays");
        // A picture arriving mid-move starts from where the entity is drawn.
        l.set(1000, &[at(0, 2000, 3)]);
        l.set(1050, &[at(0, 3000, 4)]);
        assert_eq!(draw(&l, 1050)[0].x, 1500);
        assert_eq!(draw(&l, 1150)[0].x, 3000);
        // Entity 1 left the picture and comes back where it is.
        l.set(1200, &[at(0, 3000, 4), at(1, 9000, 0)]);
        assert_eq!(draw(&l, 1200)[1].x, 9000);
        // A teleport is not interpolated.
        let jump = (JUMP_SPEED * 100 / 1_000_000) as i32;
        l.set(1300, &[at(0, 3000 + jump + 1, 5), at(1, 9000, 0)]);
        assert_eq!(draw(&l, 1300)[0].x, 3000 + jump + 1);
    }
}
