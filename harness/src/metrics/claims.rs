//! Input latency from what a screen draws, with the plug-in's word as an
//! upper bound only.
//!
//! A view names, per entity, the newest input its picture includes: the
//! input's sequence number (`seq`) or the authoritative frame the picture
//! comes from (`frame`, whose applied input the harness looks up). A name
//! alone proves nothing, so the harness holds it to the picture:
//!
//! - The frame a name stands for is the named frame, or for a sequence
//!   number the first authority frame that applied it.
//! - Where the picture is: the point of the authority's path of the entity
//!   (straight segments between its frames, from [`LOOKBACK_US`] before
//!   the named frame — yet no more than [`SETTLE_FRAMES`] before where the
//!   screen's last picture of the entity was found — to [`LOOKAHEAD_US`]
//!   after it) nearest the drawn position. The *guess* is where the
//!   screen's lag puts the picture: the last picture's place, moved on by
//!   the frames since. A point behind the guess pays
//!   [`BEHIND_COST_UM_PER_S`] for the time it lies behind, and among the
//!   points within [`TIE_UM`] of the best the one nearest the guess wins,
//!   so a name cannot pull a picture toward itself, even one that is the
//!   same on many frames (a player standing still). In frames, rounded
//!   down (within [`REACHED_FRAMES`]): the frame whose state the picture
//!   has reached.
//! - The render is credited with the older of the two, and with the input
//!   that frame had applied: a name newer than its picture buys nothing.
//!   An input change is shown by the first render so credited with an
//!   input sampled at or after the change.
//!
//! A picture drawn 100 ms behind the frame it names is credited as 100 ms
//! old; a picture standing where the player stood before a start is
//! credited with the frames before the start (the start's first step moves
//! a player 8 mm in the shipped games, sixteen times [`TIE_UM`]). A picture
//! off the path (an extrapolation, a misprediction) is credited where it
//! is nearest the path, never past its name.
//!
//! A render is judged once the authority has published the frames it may
//! show: the named frame (a predicted own player names inputs the server
//! has not applied yet) and [`LOOKAHEAD_US`] beyond. Until then it waits in
//! a queue per screen and player, however far the authority trails: no
//! render is let go uncredited. When the run ends, the waiting renders are
//! judged against the frames there are (`Claims::settle`); those that
//! name an input the authority never applied stay waiting, and the changes
//! they name are *in flight at the end*, counted apart from those never
//! shown.
//!
//! The same check measures **overclaims** for the conformance suite: a
//! picture within [`ON_PATH_UM`] of the path more than [`BEHIND_FRAMES`]
//! behind the frame it named.

use super::ideal::Frames;
use super::spot::{worst_by, Spot};
use crate::time::Micros;
use std::collections::VecDeque;

/// Points of the path this much farther from the picture than the best
/// count as best too (the one nearest the guess is taken), µm: half a
/// millimetre, a sixteenth of a start's first step.
pub const TIE_UM: f64 = 500.0;

/// What placing a picture a second behind where the screen's lag puts it
/// costs, in µm of distance: a picture is taken for an older state only
/// when it is nearer that state by more than this, pro rata (6 cm a
/// second, 1 mm a tick at 60 Hz — a hundredth of a player's top speed). A
/// picture a few mm off the state its lag predicts (a small misprediction)
/// is not taken for an older pass of the path through the same place.
pub const BEHIND_COST_UM_PER_S: f64 = 60_000.0;

/// How far before the named frame the picture is looked for, µs.
pub const LOOKBACK_US: u64 = 1_000_000;

/// How far after the named frame the picture is looked for (an
/// extrapolation or a prediction draws a state the authority reaches
/// later), µs.
pub const LOOKAHEAD_US: u64 = 100_000;

/// A picture is looked for no earlier than this many frames before where
/// the screen's previous picture of the entity was found: pictures move
/// forward along the path, and one that revisits a place (a reversal, a
/// loop) is not taken for its older pass.
pub const SETTLE_FRAMES: f64 = 2.0;

/// A picture this near the authority's path is on it, for the overclaim
/// check, µm.
pub const ON_PATH_UM: f64 = 10_000.0;

/// A picture this many frames behind its name overclaims: render
/// interpolation draws the newest state a tick late and names it a tenth
/// of the way there, so an honest name may run up to two ticks ahead.
pub const BEHIND_FRAMES: f64 = 2.0;

/// A picture this close to a frame (in frames: under a millisecond at
/// 60 Hz) has reached it: a render timed a few µs before its lerp ends
/// (clocks that drift, timers that fire late) is not a tick late.
pub const REACHED_FRAMES: f64 = 0.05;

/// A render whose name runs ahead of what the screen has been credited.
#[derive(Clone, Copy, Debug)]
pub(super) struct Claim {
    /// Render time, µs.
    t: u64,
    /// Drawn position, µm.
    at: [i32; 3],
    /// The input named (the newest the picture claims to include).
    seq: u32,
    /// The authority frame named, 0 when the name is a sequence number.
    frame: u32,
    /// The authority frame in force at the render.
    now: u32,
}

/// The worst overclaim seen: a picture behind the frame it named.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct Behind {
    /// The render; its measure is how far the picture lies behind its
    /// name, in thousandths of a frame.
    pub(super) spot: Spot,
    /// The frame named (a sequence number's first applying frame).
    pub(super) named: usize,
    /// Where on the authority's path the picture is, in frames.
    pub(super) shown: f64,
}

impl Behind {
    /// The worse of two, as [`Spot::worse`] orders them.
    pub(super) fn worse(a: Option<Behind>, b: Option<Behind>) -> Option<Behind> {
        worst_by(a, b, |o| o.spot)
    }
}

/// One screen's waiting renders, per player entity, and where its latest
/// picture of each was found: `(place on the path, frame in force then)`,
/// both in frames.
#[derive(Default)]
pub(super) struct Claims {
    waiting: Vec<VecDeque<Claim>>,
    found: Vec<(f64, f64)>,
    /// Per entity, `(index, first input sampled at or after it)` of the
    /// next change not yet shown, once that input is sampled: every render
    /// asks, so the samples are searched once a change, not once a render.
    next: Vec<(u32, u32)>,
}

/// What resolving claims reads of the run.
pub(super) struct Truth<'a> {
    pub(super) players: usize,
    pub(super) dt_us: u64,
    /// Per player, the sampled inputs (sequence − 1 → time).
    pub(super) samples: &'a [Vec<(Micros, crate::game::Input)>],
    /// Per player, the instants of its effective input changes.
    pub(super) changes: &'a [Vec<u64>],
    pub(super) authority: &'a Frames,
    /// Per frame and player, the input sequence the frame had applied.
    pub(super) authority_seqs: &'a [u32],
}

/// Where a screen's credit of one player's changes stands, and where the
/// latencies go.
pub(super) struct Credit<'a> {
    /// Index of the player's next change not yet shown.
    pub(super) change: &'a mut u32,
    /// Latencies of changes shown, µs.
    pub(super) record: &'a mut dyn FnMut(u64),
    /// The worst overclaim so far.
    pub(super) overclaim: &'a mut Option<Behind>,
    /// Renders located on the path, and those of them more than
    /// [`BEHIND_FRAMES`] behind their names.
    pub(super) located: &'a mut (u64, u64),
}

impl Truth<'_> {
    /// The first authority frame that applied an input of `player` at or
    /// after `seq`, if one has been published (the applied sequence never
    /// goes down).
    fn first_applying(&self, player: usize, seq: u32) -> Option<usize> {
        let frames = self.authority_seqs.len() / self.players.max(1);
        let f = partition_point_by(frames, |f| self.authority_seqs[f * self.players + player] < seq);
        (f < frames).then_some(f)
    }

    /// The sequence number of the first input of `player` sampled at or
    /// after `instant`.
    fn first_sample_at(&self, player: usize, instant: u64) -> u32 {
        self.samples[player].partition_point(|(t, _)| t.0 < instant) as u32 + 1
    }

    /// Where a picture of `entity` drawn at `at` and named `named` is on the
    /// authority's path, in frames (see the module docs), and how far from
    /// it; `None` when none of the frames around `named` are kept.
    fn locate(&self, entity: usize, at: [i32; 3], named: usize, (since, guess): (f64, f64)) -> Option<(f64, f64)> {
        let last = self.authority.frames() - 1;
        let (lo, hi) = self.window(named, since);
        let hi = hi.min(last);
        let p = [at[0] as f64, at[1] as f64, at[2] as f64];
        // Each segment's nearest point (distance, frames), newest first;
        // the path ends where the kept frames do.
        let points = |visit: &mut dyn FnMut(f64, f64)| {
            let Some(mut b) = self.authority.try_at(hi, entity) else { return };
            visit(distance(p, b), hi as f64);
            for f in (lo..hi).rev() {
                let Some(a) = self.authority.try_at(f, entity) else { return };
                let (d, u) = point_segment(p, a, b);
                visit(d, f as f64 + u);
                b = a;
            }
        };
        // Each point's distance, plus a cost for every frame it lies behind
        // the guess (never the name: a name must not pull the picture's
        // place toward itself); the least wins, the one nearest the guess
        // on a tie.
        let per_frame = BEHIND_COST_UM_PER_S * self.dt_us as f64 / 1e6;
        let cost = |d: f64, f: f64| d + per_frame * (guess - f).max(0.0);
        let mut best = f64::INFINITY;
        points(&mut |d, f| best = best.min(cost(d, f)));
        if best == f64::INFINITY {
            return None;
        }
        let (mut off, mut place) = (f64::INFINITY, f64::NEG_INFINITY);
        points(&mut |d, f| {
            let nearer = place == f64::NEG_INFINITY || (f - guess).abs() < (place - guess).abs();
            if cost(d, f) <= best + TIE_UM && nearer {
                (off, place) = (d, f);
            }
        });
        Some((place, off))
    }

    /// The frames a picture named `named` is looked for between, `since`
    /// where the screen's last picture of the entity was found.
    fn window(&self, named: usize, since: f64) -> (usize, usize) {
        let back = named.saturating_sub((LOOKBACK_US / self.dt_us) as usize);
        let lo = back.max((since - SETTLE_FRAMES).max(0.0) as usize).min(named);
        (lo, named + (LOOKAHEAD_US / self.dt_us) as usize)
    }
}

impl Claims {
    /// Notes what a render of `entity` (a player) at `t` drew and named,
    /// with `now` the authority frame in force then, and credits every
    /// change of the player the screen's waiting renders show.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn render(
        &mut self,
        truth: &Truth<'_>,
        credit: Credit<'_>,
        viewer: usize,
        entity: usize,
        t: u64,
        at: [i32; 3],
        (seq, frame): (u32, u32),
        now: usize,
    ) {
        if self.waiting.len() <= entity {
            self.waiting.resize_with(entity + 1, VecDeque::new);
            self.found.resize(entity + 1, (0.0, 0.0));
            self.next.resize(entity + 1, (0, 0));
        }
        let change = *credit.change;
        let first = match self.next[entity] {
            (k, first) if k == change && first > 0 => first,
            _ => match truth.changes[entity].get(change as usize) {
                Some(&c) => {
                    let first = truth.first_sample_at(entity, c);
                    if first as usize <= truth.samples[entity].len() {
                        self.next[entity] = (change, first);
                    }
                    first
                }
                None => u32::MAX,
            },
        };
        let q = &mut self.waiting[entity];
        if seq >= first {
            q.push_back(Claim { t, at, seq, frame, now: now as u32 });
        }
        if !q.is_empty() {
            resolve(truth, q, &mut self.found[entity], credit, viewer, entity, false);
        }
    }

    /// At the run's end: judges `entity`'s waiting renders against the
    /// frames the authority published (no more are coming, so none waits
    /// for frames past the last), and returns the newest input the renders
    /// still waiting name — inputs the authority never applied (0: none).
    pub(super) fn settle(&mut self, truth: &Truth<'_>, credit: Credit<'_>, viewer: usize, entity: usize) -> u32 {
        let Some(q) = self.waiting.get_mut(entity).filter(|q| !q.is_empty()) else { return 0 };
        resolve(truth, q, &mut self.found[entity], credit, viewer, entity, true);
        q.iter().map(|c| c.seq).max().unwrap_or(0)
    }

    /// The player entities with renders waiting.
    pub(super) fn waiting_entities(&self) -> impl Iterator<Item = usize> + '_ {
        self.waiting.iter().enumerate().filter(|(_, q)| !q.is_empty()).map(|(e, _)| e)
    }

    /// The oldest authority frame a waiting render of `entity` may be
    /// judged against, if one waits and its named frame is known.
    pub(super) fn oldest_needed(&self, truth: &Truth<'_>, entity: usize) -> Option<usize> {
        let c = self.waiting.get(entity)?.front()?;
        let named = if c.frame > 0 { Some(c.frame as usize) } else { truth.first_applying(entity, c.seq) }?;
        Some(truth.window(named, self.found[entity].0).0)
    }
}

/// Credits the changes the oldest waiting renders show, in order, until a
/// render names an input the authority has not applied yet — or, unless
/// `settling` (the run is over), one whose frames ahead of its name have
/// not been published yet.
fn resolve(
    truth: &Truth<'_>,
    q: &mut VecDeque<Claim>,
    found: &mut (f64, f64),
    credit: Credit<'_>,
    viewer: usize,
    entity: usize,
    settling: bool,
) {
    let changes = &truth.changes[entity];
    while let Some(c) = q.front().copied() {
        let named = if c.frame > 0 { Some(c.frame as usize) } else { truth.first_applying(entity, c.seq) };
        let Some(named) = named else { return };
        // Wait for the frames a picture ahead of its name may show.
        if !settling && truth.window(named, found.0).1 >= truth.authority.frames() {
            return;
        }
        q.pop_front();
        let guess = found.0 + (c.now as f64 - found.1);
        // The recorder keeps every frame a waiting render may be judged
        // against (`Claims::oldest_needed`): `None` is a picture named past
        // the last frame published, which only settling meets.
        let Some((shown, off)) = truth.locate(entity, c.at, named, (found.0, guess)) else { continue };
        *found = (shown, c.now as f64);
        credit.located.0 += 1;
        if off <= ON_PATH_UM && shown + BEHIND_FRAMES < named as f64 {
            credit.located.1 += 1;
            let milliframes = ((named as f64 - shown) * 1000.0).round() as u64;
            let spot = Spot { measure: milliframes, t: c.t, viewer, entity, at: c.at };
            let o = Behind { spot, named, shown };
            *credit.overclaim = Behind::worse(*credit.overclaim, Some(o));
        }
        // The input of the frame the picture has reached, never past the name.
        let reached = ((shown + REACHED_FRAMES).floor() as usize).min(named);
        let input = truth.authority_seqs[reached * truth.players + entity].min(c.seq);
        while let Some(&k) = changes.get(*credit.change as usize) {
            if truth.first_sample_at(entity, k) > input {
                break;
            }
            (credit.record)(c.t - k);
            *credit.change += 1;
        }
    }
}

/// The first index in `0..n` where `pred` is false (`pred` true, then false).
fn partition_point_by(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn distance(p: [f64; 3], a: [i32; 3]) -> f64 {
    let d = [p[0] - a[0] as f64, p[1] - a[1] as f64, p[2] - a[2] as f64];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// Distance from `p` to the segment `a`–`b`, µm, and where on it the
/// nearest point lies (0 at `a`, 1 at `b`).
fn point_segment(p: [f64; 3], a: [i32; 3], b: [i32; 3]) -> (f64, f64) {
    let a = [a[0] as f64, a[1] as f64, a[2] as f64];
    let ab = [b[0] as f64 - a[0], b[1] as f64 - a[1], b[2] as f64 - a[2]];
    let ap = [p[0] - a[0], p[1] - a[1], p[2] - a[2]];
    let len2 = ab[0] * ab[0] + ab[1] * ab[1] + ab[2] * ab[2];
    let u = if len2 > 0.0 { ((ap[0] * ab[0] + ap[1] * ab[1] + ap[2] * ab[2]) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let d = [ap[0] - u * ab[0], ap[1] - u * ab[1], ap[2] - u * ab[2]];
    ((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt(), u)
}
