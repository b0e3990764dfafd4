//! Judging renders, one screen at a time, so a batch of screens drawn at
//! one instant can be judged on several cores with exactly the result of
//! one.
//!
//! - [`Screen`] is what one screen's judgement remembers (its last
//!   renders of each entity, its own-input latency, its snap events, its
//!   last view). Only that screen's renders touch it.
//! - [`Judge`] is what the judgement reads of the run and never writes: the
//!   sampled inputs, the authority and ideal timelines, the map.
//! - [`Tally`] is what renders add up to: counts, integer sums, maxima and
//!   histograms. Tallies kept apart (one per core) and merged equal one
//!   tally of every render, whatever the split: histogram counts add, and
//!   the timeline's sums are integers (µm), not floats whose sum would
//!   depend on the order.
//!
//! The recorder ([`super::recorder`]) owns one `Screen` per player and the
//! tallies, and decides when a batch is large enough to split.

use super::claims::{Behind, Claims, Credit, Truth};
use super::ideal::Frames;
use super::interest::{InterestRow, ShownCounts};
use super::on_map::{MapCheck, TOLERANCE_UM};
use super::screen_memory::{anchor, Render, ScreenMemory};
pub(super) use super::spot::Spot;
use super::stats::Distribution;
use crate::contract::{EntityView, Topology, View};
use crate::game::{Game, Input};
use crate::time::Micros;

/// At most this many violation messages are kept (a tally keeps as many,
/// so the run's first ones are among the tallies' first ones).
pub(super) const MAX_VIOLATIONS: usize = 20;

/// Snaps are judged over at least this many ticks: long enough that a
/// tick-stepped picture, a one-tick catch-up or a correction blended over a
/// tick is seen whole in one span at any render rate, so 30, 60 and 144 Hz
/// screens count the same jumps.
pub(super) const SNAP_SPAN_TICKS: u64 = 2;

/// Peer-to-peer and relay: a render naming its game's frame `n` is held
/// to the agreed path back to the frame it named before, at most this
/// many frames (a catch-up after a stall drawn as one motion; longer
/// moves jump, see `algorithms::support::render_lerp`).
pub(super) const NAMED_SPAN: usize = 8;

/// A remote entity drawn in place for less than this between two moves is
/// a step of a picture updated below the screen's rate (a player's motion
/// does not stop and restart that fast), µs.
pub(super) const STEP_HOLD_US: u64 = 100_000;

/// Lends `f` the screen's claims and a credit of the changes of the
/// player in `slot`, whose latencies go to `tally` (and to the screen's
/// own-latency record when the player is the screen's own).
fn credited<R>(
    screen: &mut Screen,
    tally: &mut Tally,
    slot: usize,
    own: bool,
    f: impl FnOnce(&mut Claims, Credit<'_>) -> R,
) -> R {
    let latency = &mut tally.latency[own as usize];
    let own_latency = &mut screen.own_latency;
    let mut record = |waited: u64| {
        latency.record(waited);
        if own {
            own_latency.record(waited);
        }
    };
    let credit = Credit {
        change: &mut screen.memory.seen[slot].change,
        record: &mut record,
        overclaim: &mut tally.overclaim,
        located: &mut tally.located,
    };
    f(&mut screen.claims, credit)
}

/// Where an event falls against its client's warm-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// In the warm-up: less than [`super::WARMUP_US`] after the client
    /// connected, or from the start while it had not connected.
    Warmup,
    /// Past the run's first [`super::WARMUP_US`] with the client not yet
    /// connected: in its warm-up if it connects later, counted if it never
    /// does (a screen that names nothing warms up as one connected at the
    /// start).
    Unconnected,
    /// After the warm-up: counted in the rates.
    Counted,
}

impl Phase {
    /// The phase at `t` of a client that connected at `connected`.
    pub(crate) fn of(connected: Option<u64>, t: u64) -> Phase {
        match connected {
            Some(c) if t < c + super::WARMUP_US => Phase::Warmup,
            Some(_) => Phase::Counted,
            None if t < super::WARMUP_US => Phase::Warmup,
            None => Phase::Unconnected,
        }
    }
}

/// What one screen's judgement remembers.
pub(super) struct Screen {
    /// What it last showed of each entity it has shown.
    pub(super) memory: ScreenMemory,
    /// Latency of the player's own input changes on this screen (at most
    /// one a tick: `u32` counts cannot fill).
    pub(super) own_latency: Distribution<u32>,
    /// Snap events on this screen.
    pub(super) snap_events: u64,
    /// Of those, the ones in its warm-up (see [`super::WARMUP_US`]), and
    /// those after its first [`super::WARMUP_US`] while it had not
    /// connected: warm-up if it connects later, counted if it never does.
    pub(super) warmup_snaps: [u64; 2],
    /// When it connected: its first render naming a frame the authority
    /// made, or own inputs of which the authority had applied one, µs (see
    /// [`Screen::connect`]).
    pub(super) connected: Option<u64>,
    /// The divergence of its last scored render: [remote, own].
    pub(super) last_div: [u64; 2],
    /// Located runs: where that render was farthest: [remote, own].
    pub(super) last_far: [Option<Spot>; 2],
    /// The latest view it showed.
    pub(super) last_view: Vec<EntityView>,
    /// Renders whose names run ahead of the picture credited so far.
    pub(super) claims: Claims,
    /// Peer-to-peer and relay: this screen's lag behind the schedule at
    /// its last render that named its game's frame, µs.
    pub(super) last_lag: Option<u64>,
    /// Peer-to-peer and relay: per entity, the game frame this screen's
    /// last scored render named (0: none).
    pub(super) named_before: Vec<u32>,
    /// Per slot, the entity's current hold: renders drawn where the one
    /// before was, the first of them's time, and whether the entity has
    /// moved on this screen before (conformance runs).
    holds: Vec<(u32, u64, bool)>,
}

impl Screen {
    /// Where an event at `t` falls (see [`super::WARMUP_US`]).
    pub(super) fn phase(&self, t: u64) -> Phase {
        Phase::of(self.connected, t)
    }

    /// A render at `t` showed entity `e` (checked against the authority):
    /// the screen is connected from its first render naming a frame the
    /// authority made (a peer's game frame past the first), or own inputs
    /// of which the authority had already applied one (a screen that
    /// predicts its player names inputs ahead of the authority: alone in
    /// its area of interest, it names nothing else). Called until it
    /// connects.
    fn connect(&mut self, t: u64, frame: u32, own_applied: bool) {
        if frame > 0 || own_applied {
            self.connected = Some(t);
        }
    }

    /// A screen over `entities` entities remembering `ring` renders of each.
    pub(super) fn new(entities: usize, ring: usize) -> Screen {
        Screen {
            memory: ScreenMemory::new(entities, ring),
            own_latency: Distribution::default(),
            snap_events: 0,
            warmup_snaps: [0; 2],
            connected: None,
            last_div: [0; 2],
            last_far: [None; 2],
            last_view: Vec::new(),
            claims: Claims::default(),
            last_lag: None,
            named_before: Vec::new(),
            holds: Vec::new(),
        }
    }
}

/// One simulated second's divergence sums for the timeline: (µm, renders)
/// for own and remote entities.
#[derive(Clone, Copy, Default)]
pub(super) struct SecondSums {
    pub(super) own: (u128, u64),
    pub(super) remote: (u128, u64),
    /// Snap events that began in the second.
    pub(super) snaps: u32,
    /// Peer-to-peer and relay: lag behind the schedule, µs, and renders.
    pub(super) lag: (u128, u64),
}

impl SecondSums {
    fn add(&mut self, other: &SecondSums) {
        self.own.0 += other.own.0;
        self.own.1 += other.own.1;
        self.remote.0 += other.remote.0;
        self.remote.1 += other.remote.1;
        self.snaps += other.snaps;
        self.lag.0 += other.lag.0;
        self.lag.1 += other.lag.1;
    }
}

/// What judged renders add up to.
#[derive(Clone, Default)]
pub(super) struct Tally {
    /// Divergence from the authority: [remote, own].
    pub(super) div: [Distribution; 2],
    /// Divergence from the ideal world: [remote, own].
    pub(super) ideal_div: [Distribution; 2],
    /// Input latency: [remote, own].
    pub(super) latency: [Distribution; 2],
    /// Peer-to-peer and relay: lag behind the schedule per render, µs.
    pub(super) lag: Distribution,
    /// Entity-renders over the snap threshold.
    pub(super) snap_renders: u64,
    /// The largest jump of a snap event, µm.
    pub(super) largest_jump: u64,
    /// Entity-renders inside walls or off the map, all entity-renders, the deepest (µm).
    pub(super) impossible: (u64, u64, i64),
    /// The farthest a remote entity was shown off the authority's path
    /// (µm), and the entity-renders checked.
    pub(super) off_path: (u64, u64),
    /// Per simulated second.
    pub(super) seconds: Vec<SecondSums>,
    /// Area-of-interest counts of the renders.
    pub(super) shown: ShownCounts,
    /// The picture furthest behind the frame it named.
    pub(super) overclaim: Option<Behind>,
    /// Renders located on the authority's path, and those behind their names.
    pub(super) located: (u64, u64),
    /// Own-player renders naming an input the authority had not applied
    /// yet: the client claims to predict.
    pub(super) named_ahead: u64,
    /// Remote entity-renders held still for under [`STEP_HOLD_US`] between
    /// moves, and the moving ones (client/server conformance runs).
    pub(super) stepped: (u64, u64),
    /// The earliest such hold: (time, screen, entity, position).
    pub(super) first_step: Option<Spot>,
    /// The deepest impossible render: (depth, time, screen, entity, position).
    pub(super) deepest_at: Option<Spot>,
    /// The farthest off-path render: (distance, time, screen, entity, position).
    pub(super) off_path_at: Option<Spot>,
    /// Located runs: the own render farthest from the ideal world, µm.
    pub(super) own_ideal_far: Option<Spot>,
    /// Located runs: the renders farthest from the authority: [remote, own], µm.
    pub(super) far: [Option<Spot>; 2],
    /// Located runs: the largest snap, µm.
    pub(super) snap_at: Option<Spot>,
    /// Violations found, each with the position of its render in the batch
    /// being judged (the recorder takes them after every batch).
    pub(super) violations: Vec<(usize, String)>,
    /// Room for a render's distances (not merged).
    scratch: Vec<u64>,
}

impl Tally {
    /// The sums of the simulated second holding `t_us`, made when first
    /// touched.
    fn second(&mut self, t_us: u64) -> &mut SecondSums {
        let sec = (t_us / 1_000_000) as usize;
        if self.seconds.len() <= sec {
            self.seconds.resize(sec + 1, SecondSums::default());
        }
        &mut self.seconds[sec]
    }

    /// Adds `other`'s renders to these (violations excepted: the recorder
    /// takes those after every batch).
    pub(super) fn merge(&mut self, other: &Tally) {
        for k in 0..2 {
            self.div[k].merge(&other.div[k]);
            self.ideal_div[k].merge(&other.ideal_div[k]);
            self.latency[k].merge(&other.latency[k]);
        }
        self.lag.merge(&other.lag);
        self.snap_renders += other.snap_renders;
        self.largest_jump = self.largest_jump.max(other.largest_jump);
        self.impossible.0 += other.impossible.0;
        self.impossible.1 += other.impossible.1;
        self.impossible.2 = self.impossible.2.max(other.impossible.2);
        self.off_path.0 = self.off_path.0.max(other.off_path.0);
        self.off_path.1 += other.off_path.1;
        if self.seconds.len() < other.seconds.len() {
            self.seconds.resize(other.seconds.len(), SecondSums::default());
        }
        for (a, b) in self.seconds.iter_mut().zip(&other.seconds) {
            a.add(b);
        }
        self.shown.merge(&other.shown);
        self.overclaim = Behind::worse(self.overclaim, other.overclaim);
        self.located.0 += other.located.0;
        self.located.1 += other.located.1;
        self.named_ahead += other.named_ahead;
        self.stepped.0 += other.stepped.0;
        self.stepped.1 += other.stepped.1;
        self.deepest_at = Spot::worse(self.deepest_at, other.deepest_at);
        self.off_path_at = Spot::worse(self.off_path_at, other.off_path_at);
        self.own_ideal_far = Spot::worse(self.own_ideal_far, other.own_ideal_far);
        self.far = [Spot::worse(self.far[0], other.far[0]), Spot::worse(self.far[1], other.far[1])];
        self.snap_at = Spot::worse(self.snap_at, other.snap_at);
        self.first_step = Spot::worse(self.first_step, other.first_step);
    }

    fn violation(&mut self, pos: usize, msg: String) {
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push((pos, msg));
        }
    }
}

/// What judging a render reads of the run.
pub(super) struct Judge<'a> {
    pub(super) topology: Topology,
    /// Players (entity ids `0..players`, the ones with inputs).
    pub(super) players: usize,
    /// Players and bots.
    pub(super) entities: usize,
    pub(super) dt_us: u64,
    pub(super) game: &'a Game,
    /// Per player, the sampled inputs (sequence − 1 → time, input).
    pub(super) samples: &'a [Vec<(Micros, Input)>],
    /// Per player, the instants of its effective input changes (those the
    /// ideal world has been stepped through: every one a render at or
    /// before the instant judged can show).
    pub(super) changes: &'a [Vec<u64>],
    pub(super) authority: &'a Frames,
    /// Per frame and player, the input sequence the frame had applied.
    pub(super) authority_seqs: &'a [u32],
    pub(super) ideal: &'a Frames,
    /// The authority frame in force at the renders judged (peer-to-peer
    /// and relay: the schedule's).
    pub(super) now_frame: usize,
    pub(super) map: &'a MapCheck,
    /// Whether remote entities are checked against the authority's path.
    pub(super) check_paths: bool,
    /// Whether the worst renders are located (conformance runs), so a
    /// failure can say where.
    pub(super) locate: bool,
}

impl Judge<'_> {
    /// What the claims of a render are held to.
    fn truth(&self) -> Truth<'_> {
        Truth {
            players: self.players,
            dt_us: self.dt_us,
            samples: self.samples,
            changes: self.changes,
            authority: self.authority,
            authority_seqs: self.authority_seqs,
        }
    }

    /// At the run's end: judges `screen`'s waiting renders against the
    /// frames published ([`Claims::settle`]), into `tally`. Returns, per
    /// player, the newest input the renders still waiting name (0: none):
    /// the changes up to it are in flight at the end, not unshown.
    pub(super) fn settle(&self, screen: &mut Screen, tally: &mut Tally, viewer: usize) -> Vec<u32> {
        let mut waiting = vec![0; self.players];
        let entities: Vec<usize> = screen.claims.waiting_entities().collect();
        for id in entities.into_iter().filter(|&id| id < self.players) {
            let Some(slot) = screen.memory.shown_slot(id) else { continue };
            let truth = self.truth();
            waiting[id] =
                credited(screen, tally, slot, id == viewer, |claims, credit| claims.settle(&truth, credit, viewer, id));
        }
        waiting
    }

    /// The oldest authority frame a render waiting on `screen` may be
    /// judged against.
    pub(super) fn oldest_needed(&self, screen: &Screen) -> Option<usize> {
        let truth = self.truth();
        screen.claims.waiting_entities().filter_map(|id| screen.claims.oldest_needed(&truth, id)).min()
    }

    /// How far each of `entities` is from where `timeline` has it `into` µs
    /// past `frame` (every entity's position there is `row` when given),
    /// in `tally`'s scratch, which the caller gives back. A loop of its
    /// own: each distance is a root whose latency the bookkeeping after it
    /// would otherwise wait out. (An unknown entity's distance is not used.)
    ///
    /// With `named` (the agreed log of a peer-to-peer or relay run: the
    /// game frame the screen last named per entity), an entity whose view
    /// names a game frame `n` is measured against `timeline`'s motion into
    /// that frame instead: the nearest point of the agreed path from the
    /// frame the screen named before (at most [`NAMED_SPAN`] frames back,
    /// at least one) to `n`, the motion render interpolation draws (see
    /// [`crate::contract::View::show_game`]).
    #[allow(clippy::too_many_arguments)]
    fn distances(
        &self,
        timeline: &Frames,
        (frame, into): (usize, u64),
        row: Option<&[[i32; 3]]>,
        entities: &[EntityView],
        named: Option<&mut Vec<u32>>,
        tally: &mut Tally,
    ) -> Vec<u64> {
        let mut d = std::mem::take(&mut tally.scratch);
        d.clear();
        let last = self.entities.saturating_sub(1);
        // A loop for each source of positions (a copy of the loop each),
        // not a choice per entity.
        fn fill(d: &mut Vec<u64>, entities: &[EntityView], last: usize, at: impl Fn(usize) -> [i32; 3]) {
            d.extend(entities.iter().map(|e| crate::math::distance(at((e.id as usize).min(last)), [e.x, e.y, e.z])));
        }
        let at_t = |id| match row {
            Some(row) => row[id],
            None => timeline.between(frame, id, into, self.dt_us),
        };
        if let Some(before) = named.filter(|_| entities.iter().any(|e| e.frame > 0)) {
            // The recorder keeps every frame a view names and the span
            // before it (a name it could not keep it turns into none). A
            // frame not there would be the recorder's mistake: the newest
            // frame then, never a panic.
            let newest = |id| timeline.at(timeline.frames() - 1, id);
            let sure = frame + usize::from(into > 0) < timeline.frames();
            if before.len() < self.entities {
                before.resize(self.entities, 0);
            }
            d.extend(entities.iter().map(|e| {
                let (id, p) = ((e.id as usize).min(last), [e.x, e.y, e.z]);
                let n = e.frame as usize;
                if n == 0 {
                    return crate::math::distance(if sure { at_t(id) } else { newest(id) }, p);
                }
                let from = (before[id] as usize).clamp(n.saturating_sub(NAMED_SPAN), n.saturating_sub(1));
                before[id] = e.frame;
                if (from..=n).any(|f| timeline.try_at(f, id).is_none()) {
                    return crate::math::distance(newest(id), p);
                }
                nearest_on_path(p, from, n, 0.0, |f| timeline.at(f, id)).round() as u64
            }));
        } else {
            match row {
                Some(row) => fill(&mut d, entities, last, |id| row[id]),
                None => fill(&mut d, entities, last, |id| timeline.between(frame, id, into, self.dt_us)),
            }
        }
        d
    }

    /// Judges what `viewer`'s `screen` showed at `t` (the render at `pos`
    /// in its batch): latency, snaps, impossible screens, ideal divergence,
    /// the path check and the area of interest, into `tally`, against the
    /// ideal world's frame and µs into it in force at `t` (the recorder's,
    /// which steps the ideal world to it) and, when given, every entity's
    /// ideal position there (see [`Frames::row_between`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn view(
        &self,
        screen: &mut Screen,
        interest: Option<&mut InterestRow>,
        tally: &mut Tally,
        pos: usize,
        viewer: usize,
        t: Micros,
        view: &View,
        (ideal_at, ideal_row): ((usize, u64), Option<&[[i32; 3]]>),
    ) {
        screen.memory.begin_render(view.entities.len());
        let ideal = self.distances(self.ideal, ideal_at, ideal_row, &view.entities, None, tally);
        if self.topology.confirms() {
            // The game time the screen is at: the newest frame it names,
            // against the frames the schedule's ticks before the render have
            // made — those at instants before t, ⌈t/dt⌉ (a render at a
            // tick's instant is drawn before that tick runs) — less the one
            // tick a render interpolating toward the newest frame takes. So
            // the render's phase in the tick never reads as lag.
            if let Some(n) = view.entities.iter().map(|e| e.frame as usize).max().filter(|&n| n > 0) {
                let due = (t.0.div_ceil(self.dt_us) as usize).saturating_sub(1);
                let lag = due.saturating_sub(n) as u64 * self.dt_us;
                tally.lag.record(lag);
                let sums = &mut tally.second(t.0).lag;
                sums.0 += lag as u128;
                sums.1 += 1;
                screen.last_lag = Some(lag);
            }
        }
        for e in &view.entities {
            let id = e.id as usize;
            if id >= self.entities {
                tally.violation(pos, format!("player {viewer}'s view shows unknown entity {id}"));
                continue;
            }
            // A view that names the authoritative frame gets that frame's input.
            let mut e = *e;
            let mut named_frame = 0;
            if e.frame > 0 && id < self.players && !self.topology.confirms() {
                let f = e.frame as usize;
                if f >= self.authority.frames() {
                    tally.violation(
                        pos,
                        format!("player {viewer}'s view names frame {f}, which the server never published"),
                    );
                } else {
                    let applied = self.authority_seqs[f * self.players + id];
                    if applied >= e.seq {
                        named_frame = e.frame;
                    }
                    e.seq = e.seq.max(applied);
                }
            }
            let e = &e;
            let own = (id == viewer) as usize;
            if screen.connected.is_none() {
                // The authority's frame at t: renders may be judged once
                // later frames exist, and those had not happened yet.
                let at_t = self.authority.frames().min((t.0 / self.dt_us) as usize + 1);
                let own_applied = own == 1
                    && e.seq > 0
                    && id < self.players
                    && at_t > 0
                    && self.authority_seqs.get((at_t - 1) * self.players + id).is_some_and(|&a| a > 0);
                screen.connect(t.0, if self.topology.confirms() { e.frame } else { named_frame }, own_applied);
            }
            let slot = screen.memory.slot(id);
            let shown = screen.memory.shown[slot];
            // Latency: names checked, then held to the picture (see `claims`).
            let mut named = shown;
            if e.seq > shown && id >= self.players {
                tally.violation(pos, format!("player {viewer}'s view shows input {} of bot {id}", e.seq));
            } else if e.seq > shown {
                let taken = self.samples[id].len() as u32;
                if e.seq > taken {
                    let msg =
                        format!("player {viewer}'s view shows input {} of player {id}, which was never sampled", e.seq);
                    tally.violation(pos, msg);
                } else {
                    screen.memory.shown[slot] = e.seq;
                    named = e.seq;
                }
            }
            if own == 1 && named > 0 && self.authority_seqs[(self.authority.frames() - 1) * self.players + id] < named {
                tally.named_ahead += 1;
            }
            if id < self.players && named > 0 {
                let frame = if named == e.seq { named_frame } else { 0 };
                let at = [e.x, e.y, e.z];
                let truth = self.truth();
                credited(screen, tally, slot, own == 1, |claims, credit| {
                    claims.render(&truth, credit, viewer, id, t.0, at, (named, frame), self.now_frame)
                });
            }
            // Snap events: consecutive over-threshold renders are one.
            let at = [e.x, e.y, e.z];
            let span = SNAP_SPAN_TICKS * self.dt_us;
            if let Some((pt, prev)) = anchor(screen.memory.recent(slot), t.0, span) {
                // Twice the max speed over the span (at least two ticks).
                let allowed = self.game.max_travel(t.0.saturating_sub(pt).max(span)) + 1_000;
                if crate::math::farther_than(prev, at, allowed) {
                    // The same event while the judged span reaches back
                    // into it; a new one once it has moved past.
                    let phase = screen.phase(t.0);
                    let seen = &mut screen.memory.seen[slot];
                    let from = match seen.event() {
                        Some((from, last)) if pt <= last => from,
                        _ => {
                            screen.snap_events += 1;
                            match phase {
                                Phase::Warmup => screen.warmup_snaps[0] += 1,
                                Phase::Unconnected => screen.warmup_snaps[1] += 1,
                                Phase::Counted => {}
                            }
                            tally.second(t.0).snaps += 1;
                            prev
                        }
                    };
                    seen.set_event(from, t.0);
                    tally.snap_renders += 1;
                    let jump = crate::math::distance(from, at);
                    tally.largest_jump = tally.largest_jump.max(jump);
                    if self.locate {
                        let spot = Spot { measure: jump, t: t.0, viewer, entity: id, at };
                        tally.snap_at = Spot::worse(tally.snap_at, Some(spot));
                    }
                }
            }
            if self.check_paths && own == 0 {
                Self::hold(screen, tally, slot, viewer, id, t.0, at);
            }
            // Newest first; a ring of 3–8 is shifted by hand (rotate_right
            // calls memmove, which costs more than the copy), the usual
            // ring of 3 (screens up to 60 Hz) without a loop.
            let recent = screen.memory.recent(slot);
            if let [a, b, c] = recent {
                (*c, *b) = (*b, *a);
            } else {
                for i in (1..recent.len()).rev() {
                    recent[i] = recent[i - 1];
                }
            }
            recent[0] = Render::new(t.0, at);
        }
        // Impossible screens and the ideal world's divergence: a loop of
        // their own, over the known entities.
        for (e, &ideal_div) in view.entities.iter().zip(&ideal).filter(|(e, _)| (e.id as usize) < self.entities) {
            let depth = self.map.depth(e.x, e.y);
            tally.impossible.1 += 1;
            if depth > TOLERANCE_UM {
                tally.impossible.0 += 1;
                tally.impossible.2 = tally.impossible.2.max(depth);
                let spot = Spot { measure: depth as u64, t: t.0, viewer, entity: e.id as usize, at: [e.x, e.y, e.z] };
                tally.deepest_at = Spot::worse(tally.deepest_at, Some(spot));
            }
            tally.ideal_div[(e.id as usize == viewer) as usize].record(ideal_div);
            if self.locate && e.id as usize == viewer {
                let spot = Spot { measure: ideal_div, t: t.0, viewer, entity: viewer, at: [e.x, e.y, e.z] };
                tally.own_ideal_far = Spot::worse(tally.own_ideal_far, Some(spot));
            }
        }
        tally.scratch = ideal;
        if self.check_paths {
            self.check_paths(tally, viewer, t.0, view);
        }
        if let Some(row) = interest {
            row.view(&mut tally.shown, viewer, t, &view.entities, screen.connected);
        }
    }

    /// Holds between moves of a remote entity's picture: a render drawn
    /// where the one before was extends the hold; the next move ends it,
    /// and a hold shorter than [`STEP_HOLD_US`] was a step.
    #[allow(clippy::too_many_arguments)]
    fn hold(screen: &mut Screen, tally: &mut Tally, slot: usize, viewer: usize, id: usize, t: u64, at: [i32; 3]) {
        let prev = screen.memory.recent(slot)[0];
        if screen.holds.len() <= slot {
            screen.holds.resize(slot + 1, (0, 0, false));
        }
        let Some((pt, before)) = prev.get() else { return };
        let hold = &mut screen.holds[slot];
        if before == at {
            if hold.0 == 0 {
                hold.1 = pt;
            }
            hold.0 += 1;
            return;
        }
        // A hold that began after a move (not from the first render).
        if hold.0 > 0 && hold.2 && t - hold.1 < STEP_HOLD_US {
            tally.stepped.0 += hold.0 as u64;
            let first = Spot { measure: 0, t: hold.1, viewer, entity: id, at: before };
            tally.first_step = Spot::worse(tally.first_step, Some(first));
        }
        tally.stepped.1 += 1;
        *hold = (0, 0, true);
    }

    /// Remote entities must be shown on the path the authority took over the
    /// last two seconds (on a segment between two of its frames). What is
    /// reported is the farthest, in whole µm: a render whose nearest
    /// segment is found to be no farther than the farthest so far cannot
    /// change it, so its search stops there.
    fn check_paths(&self, tally: &mut Tally, viewer: usize, t: u64, view: &View) {
        let last = self.authority.frames() - 1;
        let first = last.saturating_sub(2 * 1_000_000 / self.dt_us as usize);
        let mut worst = tally.off_path.0;
        let mut samples = 0u64;
        for e in view.entities.iter().filter(|e| e.id as usize != viewer && (e.id as usize) < self.entities) {
            let id = e.id as usize;
            // ⌊d⌋ ≤ worst exactly when d < worst + 1.
            let enough = worst as f64 + 1.0;
            let best = nearest_on_path([e.x, e.y, e.z], first, last, enough, |f| self.authority.at(f, id)) as u64;
            if best > worst || (best == worst && best > 0 && tally.off_path_at.is_none()) {
                let spot = Spot { measure: best, t, viewer, entity: id, at: [e.x, e.y, e.z] };
                tally.off_path_at = Spot::worse(tally.off_path_at, Some(spot));
            }
            worst = worst.max(best);
            samples += 1;
        }
        tally.off_path.0 = tally.off_path.0.max(worst);
        tally.off_path.1 += samples;
    }

    /// Scores what `viewer`'s `screen` showed at `t` against the authority
    /// `into` µs past `frame` — every entity's position there is `row` when
    /// given (see [`Frames::row_between`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn score(
        &self,
        screen: &mut Screen,
        tally: &mut Tally,
        viewer: usize,
        (frame, into): (usize, u64),
        row: Option<&[[i32; 3]]>,
        t: Micros,
        entities: &[EntityView],
    ) {
        let mut last = [0u64; 2];
        let mut last_far = [None; 2];
        let named = self.topology.confirms().then_some(&mut screen.named_before);
        let d = self.distances(self.authority, (frame, into), row, entities, named, tally);
        let mut sums = SecondSums::default();
        for (e, &d) in entities.iter().zip(&d) {
            let id = e.id as usize;
            if id < self.entities {
                let own = (id == viewer) as usize;
                tally.div[own].record(d);
                last[own] = last[own].max(d);
                if self.locate {
                    let spot = Some(Spot { measure: d, t: t.0, viewer, entity: id, at: [e.x, e.y, e.z] });
                    last_far[own] = Spot::worse(last_far[own], spot);
                    tally.far[own] = Spot::worse(tally.far[own], spot);
                }
                let slot = if own == 1 { &mut sums.own } else { &mut sums.remote };
                slot.0 += d as u128;
                slot.1 += 1;
            }
        }
        tally.scratch = d;
        if sums.own.1 + sums.remote.1 > 0 {
            // The second's sums, made on the first entity scored.
            tally.second(t.0).add(&sums);
        }
        screen.last_div = last;
        screen.last_far = last_far;
    }
}

/// The distance from `p` to the nearest segment of the path through
/// `at(first)`, …, `at(last)` (the last a point), µm: the minimum of
/// [`point_segment`] over them — or, once a segment nearer than `enough`
/// is found, that segment's distance (the caller needs no more). Newest
/// first: an entity is drawn near the authority's recent path, so a near
/// segment is found early, and a segment whose bounding box is already
/// farther (by a micrometre, far more than any rounding) cannot be nearer
/// and is skipped — the same minimum, without a division and a root for
/// most of two seconds of segments.
fn nearest_on_path(p: [i32; 3], first: usize, last: usize, enough: f64, at: impl Fn(usize) -> [i32; 3]) -> f64 {
    let pf = [p[0] as f64, p[1] as f64, p[2] as f64];
    let mut best = f64::INFINITY;
    // (best + 1 µm)², compared with squared box distances: no root per
    // segment (the margin dwarfs the squares' rounding at any distance an
    // `i32` field allows).
    let mut limit2 = f64::INFINITY;
    let mut b = at(last);
    for f in (first..=last).rev() {
        let a = at(f);
        if box_distance2(p, a, b) <= limit2 {
            let d = point_segment(pf, a, b);
            if d < best {
                best = d;
                if best < enough {
                    break;
                }
                limit2 = (best + 1.0) * (best + 1.0);
            }
        }
        b = a;
    }
    best
}

/// The squared distance from `p` to the box around `a` and `b` (never
/// more than to the segment `a`–`b`, which the box holds), µm².
fn box_distance2(p: [i32; 3], a: [i32; 3], b: [i32; 3]) -> f64 {
    let axis = |k: usize| {
        let (lo, hi, x) = (a[k].min(b[k]) as i64, a[k].max(b[k]) as i64, p[k] as i64);
        ((lo - x).max(x - hi).max(0)) as f64
    };
    let (dx, dy, dz) = (axis(0), axis(1), axis(2));
    dx * dx + dy * dy + dz * dz
}

/// Distance from `p` to the segment `a`–`b`, µm.
fn point_segment(p: [f64; 3], a: [i32; 3], b: [i32; 3]) -> f64 {
    let a = [a[0] as f64, a[1] as f64, a[2] as f64];
    let b = [b[0] as f64, b[1] as f64, b[2] as f64];
    let ab = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
    let len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    let t = if len2 > 0.0 { ((ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let d = [ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The pruned, newest-first search finds exactly the minimum over
        /// every segment, on paths that wander, double back and stand
        /// still, near and far from the point.
        #[test]
        fn the_nearest_segment_is_found_whatever_is_skipped(
            steps in proptest::collection::vec((-400_000i32..400_000, -400_000i32..400_000, 0i32..3, 0u8..4), 1..130),
            p in (-5_000_000i32..5_000_000, -5_000_000i32..5_000_000, 0i32..2_000_000),
            start in (-1_000_000i32..1_000_000, -1_000_000i32..1_000_000),
        ) {
            let mut path = vec![[start.0, start.1, 0]];
            for &(dx, dy, dz, still) in &steps {
                let q = *path.last().unwrap();
                path.push(if still == 0 { q } else { [q[0] + dx, q[1] + dy, (q[2] + dz * 300_000) % 1_500_000] });
            }
            let last = path.len() - 1;
            let p = [p.0, p.1, p.2];
            let pf = [p[0] as f64, p[1] as f64, p[2] as f64];
            let every = (0..=last).map(|f| point_segment(pf, path[f], path[(f + 1).min(last)])).fold(f64::INFINITY, f64::min);
            for first in [0, last / 3, last] {
                let want = (first..=last).map(|f| point_segment(pf, path[f], path[(f + 1).min(last)])).fold(f64::INFINITY, f64::min);
                prop_assert_eq!(nearest_on_path(p, first, last, 0.0, |f| path[f]).to_bits(), want.to_bits());
            }
            // On the path itself (a drawn point between two frames).
            let mid = path[last / 2];
            let on = nearest_on_path(mid, 0, last, 0.0, |f| path[f]);
            prop_assert_eq!(on, 0.0);
            prop_assert!(every <= nearest_on_path(p, last / 3, last, 0.0, |f| path[f]));
            // Stopping at `enough`: a distance below it when the minimum is,
            // else the minimum itself.
            for enough in [every + 0.5, every + 3_000.0, (every - 1.0).max(0.0)] {
                let got = nearest_on_path(p, 0, last, enough, |f| path[f]);
                if every < enough {
                    prop_assert!(got < enough && got >= every);
                } else {
                    prop_assert_eq!(got.to_bits(), every.to_bits());
                }
            }
        }

    }
}
