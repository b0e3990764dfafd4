//! The ideal world, and the input changes latency is timed from.
//!
//! The ideal world applies every input the instant it is pressed, with no
//! network: the state due at `t` is frame `⌊t/dt⌋ + 1`, stepped with the
//! inputs held at each tick instant. It is the fair line across
//! topologies (`vs ideal` divergence) and it decides which input changes
//! are timed:
//!
//! - A **change** is an instant at which a player's held input stops being
//!   what it was: a press, a release, a new direction, a new aim. Holding
//!   an input is not a change, so an algorithm that only sends on change is
//!   not charged its heartbeat period for inputs that change nothing.
//! - A change is **effective** when the step that first applies it in the
//!   ideal world leaves that player in a different state (position,
//!   velocity, height, shots fired) than the previous input would have.
//!   Pushing into a wall, pressing jump in mid-air or firing on cooldown are
//!   *ineffective*: no screen could ever show them, so they are counted but
//!   not timed. The judgement is made once, in the ideal world, so every
//!   algorithm is timed on the same set of changes.
//! - When several changes fall between two ticks only their net effect is
//!   applied; the window's first change is timed (the press, not the last
//!   wiggle).
//!
//! Also measured here: **contact**, the frames of the ideal world in which
//! two players touch. Players push each other, so on a trace with contact
//! a one-frame timing difference sends trajectories apart and `vs ideal`
//! divergence is chaotic; on a contact-free trace it is not.

use crate::game::{Game, GameConfig, Input, PlayerState, SeqInput, State};
use crate::parallel;
use crate::trace::Trace;

/// One entity of a counterfactual step as work for [`parallel::parts`]
/// (a step moves, collides and clamps each entity: a few entity-renders' worth).
const COUNTERFACTUAL_WORK: usize = 4;

/// Positions of every entity per frame, and each frame's checksum when
/// desyncs are to be judged against it. A run only looks a few seconds
/// back, so positions before a frame can be forgotten
/// ([`Frames::forget_before`]): a 2,200-entity world's frames are 1.6 MB a
/// simulated second. Checksums are kept for every frame.
#[derive(Clone, Debug, Default)]
pub(crate) struct Frames {
    entities: usize,
    /// Positions of frames `first..`, `entities` a frame.
    pos: Vec<[i32; 3]>,
    first: usize,
    pub(crate) checksums: Vec<u64>,
    with_checksums: bool,
}

impl Frames {
    pub(crate) fn new(entities: usize, with_checksums: bool) -> Frames {
        Frames { entities, pos: Vec::new(), first: 0, checksums: Vec::new(), with_checksums }
    }
    /// Frames pushed (kept or not).
    pub(crate) fn frames(&self) -> usize {
        self.checksums.len()
    }
    pub(crate) fn push(&mut self, s: &State) {
        self.pos.extend(s.players.iter().map(|p| [p.x, p.y, p.z]));
        self.pos.resize((self.checksums.len() - self.first) * self.entities + self.entities, [0; 3]);
        self.checksums.push(if self.with_checksums { s.checksum() } else { 0 });
    }
    /// The oldest frame whose positions are kept.
    pub(crate) fn first(&self) -> usize {
        self.first
    }
    /// Entity `entity`'s position in `frame` (which must be kept).
    pub(crate) fn at(&self, frame: usize, entity: usize) -> [i32; 3] {
        self.pos[(frame - self.first) * self.entities + entity]
    }
    /// [`Frames::at`], or `None` for a frame forgotten or not yet pushed.
    pub(crate) fn try_at(&self, frame: usize, entity: usize) -> Option<[i32; 3]> {
        let k = frame.checked_sub(self.first)?;
        (entity < self.entities).then(|| self.pos.get(k * self.entities + entity).copied()).flatten()
    }
    /// Whether [`Frames::forget_before`] `frame` would let any go.
    pub(crate) fn would_forget(&self, frame: usize) -> bool {
        let frame = frame.min(self.frames());
        let (gone, kept) = (frame.saturating_sub(self.first), self.frames() - frame.max(self.first));
        gone > 0 && gone >= kept
    }
    /// Lets positions of frames before `frame` go. They go in bulk, once
    /// at least as many as are kept can (so each is moved at most once on
    /// average): at most twice the frames asked for stay in memory.
    pub(crate) fn forget_before(&mut self, frame: usize) {
        if self.would_forget(frame) {
            let (frame, gone) = (frame.min(self.frames()), frame.min(self.frames()) - self.first);
            self.pos.drain(..gone * self.entities);
            self.first = frame;
        }
    }
    /// Every entity's [`Frames::between`] at one instant, into `row` — for
    /// the many screens judged at that instant, one lerp an entity instead
    /// of one an entity-render.
    pub(crate) fn row_between(&self, frame: usize, into: u64, dt: u64, row: &mut Vec<[i32; 3]>) {
        row.clear();
        row.extend((0..self.entities).map(|e| self.between(frame, e, into, dt)));
    }

    /// The position `into` µs of a `dt`-long frame past `frame`, on the
    /// straight line to the next frame (which must exist when `into > 0`).
    pub(crate) fn between(&self, frame: usize, entity: usize, into: u64, dt: u64) -> [i32; 3] {
        let a = self.at(frame, entity);
        if into == 0 {
            return a;
        }
        let b = self.at(frame + 1, entity);
        let (k, d) = (into.min(dt) as i64, dt.max(1) as i64);
        std::array::from_fn(|i| (a[i] as i64 + (b[i] as i64 - a[i] as i64) * k / d) as i32)
    }
}

/// The ideal world of a run and what it says about the trace, stepped as
/// the run needs it ([`Ideal::advance`]): a frame is due by the time a
/// render at its instant is judged, and the changes latency is timed from
/// are known by then.
pub(crate) struct Ideal {
    /// Positions per frame.
    pub frames: Frames,
    /// Per player, the instants (µs) of its effective input changes, sorted.
    pub changes: Vec<Vec<u64>>,
    /// Changes that moved nothing (not timed).
    pub ineffective: u64,
    /// Frames in which two players touched.
    pub contact_frames: u64,
    /// What stepping on needs: the state, each player's held input, the
    /// inputs of the step, the next step and the last.
    state: State,
    held: Vec<Input>,
    inputs: Vec<SeqInput>,
    /// Per player, [`Trace::input_near`]'s hint (frames are stepped in order).
    trace_hints: Vec<usize>,
    next: u64,
    steps: u64,
    /// The game without its bots, for the counterfactual steps: bots move
    /// by their own plan and neither push nor are pushed, nor shoot or are
    /// shot, so nothing they do reaches a player's step. A world of 2,000
    /// bots stepped whole for every player's input change cost more than
    /// the ideal world itself.
    players_only: Game,
    /// Buffers [`Ideal::advance`] keeps from frame to frame: the step's
    /// input changes, the players' world before it, one counterfactual's
    /// world and inputs, and the contact sweep's coordinates.
    scratch: Scratch,
}

/// [`Ideal::advance`]'s kept buffers (see [`Ideal`]'s `scratch`).
#[derive(Default)]
struct Scratch {
    changed: Vec<(usize, u64, Input)>,
    before: State,
    other: State,
    alt: Vec<SeqInput>,
    sweep: Vec<(i64, i64)>,
}

/// The ideal frame a render at `t_us` is judged against, and µs into it:
/// the frame in force at `t_us` (the last two of `total` frames at most,
/// so the next one exists).
pub(crate) fn due(t_us: u64, dt: u64, total: usize) -> (usize, u64) {
    (((t_us / dt) as usize + 1).min(total.saturating_sub(2)), t_us % dt)
}

/// What a change could show on a screen.
fn visible(p: &PlayerState) -> [i64; 7] {
    [p.x as i64, p.y as i64, p.z as i64, p.vx as i64, p.vy as i64, p.vz as i64, p.shots as i64]
}

impl Ideal {
    /// The ideal world of `initial` over `duration_us` (plus two frames),
    /// not yet stepped.
    pub(crate) fn new(game: &Game, initial: &State, duration_us: u64) -> Ideal {
        let players = game.humans(initial);
        let mut frames = Frames::new(initial.players.len(), false);
        frames.push(initial);
        Ideal {
            frames,
            changes: vec![Vec::new(); players],
            ineffective: 0,
            contact_frames: 0,
            state: initial.clone(),
            held: vec![Input::IDLE; players],
            inputs: vec![SeqInput::default(); players],
            trace_hints: vec![0; players],
            next: 0,
            steps: duration_us / game.dt_us() + 2,
            players_only: Game::new(GameConfig { bots: 0, ..game.config().clone() }),
            scratch: Scratch::default(),
        }
    }

    /// Steps `initial` through `trace` for `duration_us` (plus two frames).
    #[cfg(test)]
    pub(crate) fn build(game: &Game, initial: &State, trace: &Trace, duration_us: u64) -> Ideal {
        let mut i = Ideal::new(game, initial, duration_us);
        i.advance(game, trace, usize::MAX);
        i
    }

    /// Every frame there will be.
    pub(crate) fn total_frames(&self) -> usize {
        self.steps as usize + 1
    }

    /// Steps until `frames` frames exist (or the run's last).
    pub(crate) fn advance(&mut self, game: &Game, trace: &Trace, frames: usize) {
        let dt = game.dt_us();
        let s = &mut self.state;
        while self.next < self.steps && self.frames.frames() < frames {
            let k = self.next;
            self.next += 1;
            let now = k * dt;
            let mut changed = std::mem::take(&mut self.scratch.changed);
            changed.clear();
            for (p, inp) in self.inputs.iter_mut().enumerate() {
                let input = trace.input_near(p, now, &mut self.trace_hints[p]);
                *inp = SeqInput { seq: k as u32 + 1, input };
                if input != self.held[p] {
                    // The window's first change (at 0 for an input held from the start).
                    let lo = now.saturating_sub(dt);
                    let at = if k == 0 { Some(0) } else { trace.first_change(p, lo, now, self.held[p]) };
                    changed.push((p, at.unwrap_or(now), self.held[p]));
                }
            }
            if changed.is_empty() {
                game.step(s, &self.inputs);
            } else {
                // The players' world before the step (bots never reach a player).
                let players = self.held.len();
                let sc = &mut self.scratch;
                sc.before.players.clear();
                sc.before.players.extend_from_slice(&s.players[..players]);
                (sc.before.frame, sc.before.rng, sc.before.item) = (s.frame, s.rng, s.item);
                game.step(s, &self.inputs);
                // The counterfactuals: each changed player kept its old input.
                // Each steps the players' world, and many may fall in one
                // tick of a large one: they are independent, so on several
                // cores; one at a time, in kept buffers, when few.
                let (inputs, players_only, before, now_state) = (&self.inputs, &self.players_only, &sc.before, &*s);
                let effective = |&(p, _, old): &(usize, u64, Input), other: &mut State, alt: &mut Vec<SeqInput>| {
                    other.clone_from(before);
                    alt.clone_from(inputs);
                    alt[p].input = old;
                    players_only.step(other, alt);
                    visible(&other.players[p]) != visible(&now_state.players[p])
                };
                let (changes, ineffective, held) = (&mut self.changes, &mut self.ineffective, &mut self.held);
                let mut settle = |&(p, at, _): &(usize, u64, Input), effective: bool| {
                    if effective {
                        changes[p].push(at);
                    } else {
                        *ineffective += 1;
                    }
                    held[p] = inputs[p].input;
                };
                let work = changed.len() * players * COUNTERFACTUAL_WORK;
                let parts = parallel::parts(work, changed.len());
                if parts <= 1 {
                    for c in &changed {
                        settle(c, effective(c, &mut sc.other, &mut sc.alt));
                    }
                } else {
                    let verdicts =
                        parallel::map(&changed, parts, |c| effective(c, &mut State::default(), &mut Vec::new()));
                    for (c, verdict) in changed.iter().zip(verdicts) {
                        settle(c, verdict);
                    }
                }
            }
            self.scratch.changed = changed;
            let (players, sweep) = (&s.players[..self.held.len()], &mut self.scratch.sweep);
            self.contact_frames += touching(players, game.config().half_size, sweep) as u64;
            self.frames.push(s);
        }
    }
}

/// Whether any two of `players` (boxes of half-size `h`) touch or overlap.
/// Sweep along x: only neighbours within `2h` in x can touch (`xs` is
/// the sweep's buffer).
fn touching(players: &[PlayerState], h: i64, xs: &mut Vec<(i64, i64)>) -> bool {
    xs.clear();
    xs.extend(players.iter().map(|p| (p.x as i64, p.y as i64)));
    xs.sort_unstable();
    for i in 0..xs.len() {
        for j in i + 1..xs.len() {
            if xs[j].0 - xs[i].0 > 2 * h {
                break;
            }
            if (xs[j].1 - xs[i].1).abs() <= 2 * h {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::GameConfig;
    use crate::trace::Track;

    fn trace(tracks: Vec<Vec<(u64, Input)>>) -> Trace {
        Trace {
            name: "t".into(),
            tracks: tracks.into_iter().map(|segments| Track { segments, repeat_us: None }).collect(),
        }
    }

    #[test]
    fn forgotten_frames_go_in_bulk_and_kept_ones_stay() {
        let game = Game::new(GameConfig::default());
        let mut s = game.initial_state(3);
        let mut f = Frames::new(3, true);
        let mut all = Vec::new();
        for k in 0..100usize {
            f.push(&s);
            all.push(s.clone());
            f.forget_before(k.saturating_sub(10));
            s.players[k % 3].x += 1_000;
            s.frame += 1;
            // Never more than twice the frames asked for (and the new one).
            assert!(f.pos.len() <= 3 * (2 * 11 + 1), "{k}: {}", f.pos.len());
        }
        assert_eq!(f.frames(), 100);
        for (k, st) in all.iter().enumerate() {
            let want = [st.players[1].x, st.players[1].y, st.players[1].z];
            if k >= 89 {
                assert_eq!(f.at(k, 1), want);
            }
            assert!(f.try_at(k, 1).is_none_or(|p| p == want), "{k}");
            assert_eq!(f.checksums[k], st.checksum(), "checksums stay");
        }
        assert_eq!(f.try_at(0, 1), None);
        assert_eq!(f.try_at(100, 1), None);
        assert_eq!(f.try_at(99, 3), None);
    }

    proptest::proptest! {
        /// Stepped a little at a time, forgetting frames behind it, the
        /// ideal world is the one built in one go.
        #[test]
        fn stepping_as_needed_builds_the_same_world(
            chunks in proptest::collection::vec(1usize..40, 1..30),
            keys in proptest::collection::vec((0u64..3_000_000, 0u8..16), 0..30),
        ) {
            let game = Game::new(GameConfig::default());
            let s = game.initial_state(3);
            let mut segments: Vec<(u64, Input)> = keys.iter().map(|&(t, b)| (t, Input::buttons(b))).collect();
            segments.sort_by_key(|x| x.0);
            segments.dedup_by_key(|x| x.0);
            segments.insert(0, (0, Input::IDLE));
            segments.dedup_by_key(|x| x.0);
            let t = trace(vec![segments.clone(), segments.iter().map(|&(t, i)| (t / 2, i)).collect(), vec![(0, Input::IDLE)]]);
            let whole = Ideal::build(&game, &s, &t, 3_000_000);
            let mut step = Ideal::new(&game, &s, 3_000_000);
            let mut upto = 0;
            for c in chunks {
                upto += c;
                step.advance(&game, &t, upto);
                let have = step.frames.frames();
                for k in have.saturating_sub(2)..have {
                    for e in 0..3 {
                        proptest::prop_assert_eq!(step.frames.at(k, e), whole.frames.at(k, e));
                    }
                }
                step.frames.forget_before(have.saturating_sub(2));
            }
            step.advance(&game, &t, usize::MAX);
            proptest::prop_assert_eq!(step.frames.frames(), whole.total_frames());
            proptest::prop_assert_eq!(&step.changes, &whole.changes);
            proptest::prop_assert_eq!(step.ineffective, whole.ineffective);
            proptest::prop_assert_eq!(step.contact_frames, whole.contact_frames);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// Judging a change on the players' world alone gives the verdicts
        /// stepping the whole world, bots and all, gives.
        #[test]
        fn counterfactuals_without_the_bots_judge_as_the_whole_world(
            keys in proptest::collection::vec((0u64..2_000_000, 0u8..32, 0usize..3), 0..40),
            bots in 1usize..40,
            seed in 0u64..1_000,
        ) {
            let arena = crate::game::Arena::field(12_000_000, 12_000_000);
            let game = Game::new(GameConfig { bots, bot_seed: seed, arena, ..GameConfig::default() });
            let s = game.initial_state_seeded(3, seed);
            let mut tracks: Vec<Vec<(u64, Input)>> = vec![vec![(0, Input::IDLE)]; 3];
            for &(t, b, p) in &keys {
                tracks[p].push((t, Input::buttons(b)));
            }
            for tr in &mut tracks {
                tr.sort_by_key(|x| x.0);
                tr.dedup_by_key(|x| x.0);
            }
            let t = trace(tracks);
            let ideal = Ideal::build(&game, &s, &t, 2_000_000);
            // The whole world stepped for every change, as it was judged.
            let (dt, mut state) = (game.dt_us(), s.clone());
            let (mut held, mut changes, mut ineffective) = (vec![Input::IDLE; 3], vec![Vec::new(); 3], 0u64);
            for k in 0..ideal.steps {
                let now = k * dt;
                let inputs: Vec<SeqInput> = (0..3).map(|p| SeqInput { seq: k as u32 + 1, input: t.input_at(p, now) }).collect();
                let before = state.clone();
                game.step(&mut state, &inputs);
                for p in 0..3 {
                    if inputs[p].input != held[p] {
                        let at = if k == 0 { Some(0) } else { t.first_change(p, now.saturating_sub(dt), now, held[p]) };
                        let mut other = before.clone();
                        let mut alt = inputs.clone();
                        alt[p].input = held[p];
                        game.step(&mut other, &alt);
                        if visible(&other.players[p]) != visible(&state.players[p]) {
                            changes[p].push(at.unwrap_or(now));
                        } else {
                            ineffective += 1;
                        }
                        held[p] = inputs[p].input;
                    }
                }
            }
            proptest::prop_assert_eq!(&ideal.changes, &changes);
            proptest::prop_assert_eq!(ideal.ineffective, ineffective);
        }
    }

    #[test]
    fn holding_is_not_a_change_and_a_press_is_timed_from_its_instant() {
        let game = Game::new(GameConfig::default());
        let s = game.initial_state(1);
        let r = Input::buttons(Input::RIGHT);
        // Idle, press right at 100 ms (mid-tick), hold, release at 500 ms.
        let t = trace(vec![vec![(0, Input::IDLE), (100_000, r), (500_000, Input::IDLE)]]);
        let i = Ideal::build(&game, &s, &t, 1_000_000);
        assert_eq!(i.changes[0], vec![100_000, 500_000]);
        assert_eq!(i.ineffective, 0);
        assert_eq!(i.contact_frames, 0);
    }

    #[test]
    fn changes_the_world_ignores_are_not_timed() {
        let game = Game::new(GameConfig::default());
        let s = game.initial_state(1);
        // Spawn (4 m, 4 m): walk left into the arena's bound, then jump.
        let l = Input::buttons(Input::LEFT);
        let j = Input::buttons(Input::JUMP);
        let t = trace(vec![vec![
            (0, l),
            // At the bound left moves nothing: releasing it changes nothing.
            (2_000_000, Input::IDLE),
            (2_500_000, j),
            // Releasing jump, and pressing it again in mid-air: nothing.
            (2_550_000, Input::IDLE),
            (2_600_000, j),
            // Landed (at 3.1 s); releasing jump on the ground: nothing.
            (3_400_000, Input::IDLE),
            // Left into the bound does nothing, but the jump does.
            (3_500_000, Input::buttons(Input::LEFT | Input::JUMP)),
        ]]);
        let i = Ideal::build(&game, &s, &t, 4_000_000);
        assert_eq!(i.changes[0], vec![0, 2_500_000, 3_500_000]);
        assert_eq!(i.ineffective, 4);
    }

    #[test]
    fn players_walking_into_each_other_touch() {
        let game = Game::new(GameConfig::default());
        let s = game.initial_state(2); // (4, 4) and (7, 4)
        let t = trace(vec![vec![(0, Input::buttons(Input::RIGHT))], vec![(0, Input::IDLE)]]);
        let i = Ideal::build(&game, &s, &t, 2_000_000);
        assert!(i.contact_frames > 30, "{}", i.contact_frames);
        let apart = trace(vec![vec![(0, Input::buttons(Input::UP))], vec![(0, Input::buttons(Input::UP))]]);
        assert_eq!(Ideal::build(&game, &s, &apart, 2_000_000).contact_frames, 0);
    }

    #[test]
    fn lanes_never_touch_with_twelve_players() {
        use crate::error::Source;
        use crate::trace::generate::Generator;
        let game = Game::new(GameConfig::default());
        let s = game.initial_state(12);
        let g = Generator::parse("lanes", &Source::BuiltIn("test".into())).unwrap().unwrap();
        for seed in 1..=3 {
            let t = Trace { name: "lanes".into(), tracks: (0..12).map(|p| g.track(p, 30_000_000, seed)).collect() };
            let i = Ideal::build(&game, &s, &t, 30_000_000);
            assert_eq!(i.contact_frames, 0, "seed {seed}");
            assert!(i.changes.iter().all(|c| c.len() > 10), "{:?}", i.changes.iter().map(Vec::len).collect::<Vec<_>>());
        }
    }
}
