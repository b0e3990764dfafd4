//! The recorder: watches a run and turns what nodes publish into [`Metrics`].
//!
//! It keeps the log of sampled inputs (sequence → time and input), the
//! authority timeline and the ideal timeline (their positions only as far
//! back as renders still read them), and per viewer the last sequence and
//! position shown per entity; its `finish` module assembles the [`Metrics`] at the
//! end. See the [module docs](super) for the definitions.

use super::distributions::{RunDistributions, Unit};
use super::fidelity::Fidelity;
use super::ideal::{due, Frames, Ideal};
use super::interest::{InterestRow, InterestTracker};
use super::judge::{Judge, Screen, SecondSums, Spot, Tally, MAX_VIOLATIONS, NAMED_SPAN, SNAP_SPAN_TICKS};
use super::on_map::MapCheck;
use super::runs::Runs;
use super::stats::{round4, Distribution};
use super::InputFidelity;
use super::{
    Bandwidth, Checks, ClientMetrics, ClockError, Desync, Farthest, FinalDivergence, HitAgreement, Impossible, Lag,
    LatencyCdf, Located, Metrics, NetworkCounts, Overclaim, OwnRemote, OwnRemotePct, QuantileGrid, Snaps, Stalls,
    Timeline, TraceFacts,
};
use crate::contract::{EntityView, NodeId, Report, Topology, View};
use crate::game::{Game, Input, PlayerState, SeqInput, State};
use crate::net::LinkStats;
use crate::parallel;
use crate::time::Micros;
use crate::trace::Trace;
use crate::world::Aoi;
use std::collections::VecDeque;

/// How far the ideal world is stepped, counted from the frame a render
/// is judged against: it, the next (renders lerp to it) and two more (see
/// [`Recorder::record_views`]).
const IDEAL_AHEAD: usize = 4;

struct Pending {
    viewer: usize,
    /// The oldest authority frame the render is scored against, and the
    /// newest: it is scored once that exists.
    low: usize,
    need: usize,
    frame: usize,
    /// µs past the frame's instant (the authority is scored between it and
    /// the next frame).
    into: u64,
    t: Micros,
    view: View,
}

/// Per-second counts for the timeline (the divergence sums are in the
/// tallies).
#[derive(Clone, Copy, Default)]
struct Second {
    corrections: u32,
}

#[derive(Clone, Copy, Default)]
struct Traffic {
    up_bytes: u64,
    up_packets: u64,
    down_bytes: u64,
    down_packets: u64,
}

/// Changes made in the run's last two seconds are not counted as never
/// shown: they may simply not have had time (an algorithm that updates
/// once a second shows a change up to a second and a round trip late).
const UNSHOWN_GRACE_US: u64 = 2_000_000;

/// The [`Judge`] of `$r` (a recorder), borrowing only the fields it reads,
/// so the screens and tallies stay free to lend out mutably beside it.
macro_rules! judge {
    ($r:ident, $check_paths:expr) => {
        judge!($r, $check_paths, 0)
    };
    ($r:ident, $check_paths:expr, $now_frame:expr) => {
        Judge {
            topology: $r.topology,
            players: $r.players,
            entities: $r.entities,
            dt_us: $r.dt_us,
            game: &$r.game,
            samples: &$r.samples,
            changes: &$r.ideal.changes,
            authority: &$r.authority,
            authority_seqs: &$r.authority_seqs,
            ideal: &$r.ideal.frames,
            now_frame: $now_frame,
            map: &$r.map,
            check_paths: $check_paths,
            locate: $r.checks.is_some(),
        }
    };
}

mod finish;

/// How far back the authority's positions are kept, µs: the path check's
/// two seconds and one to spare (a 2,200-entity world's frames are 1.6 MB
/// a simulated second).
const AUTHORITY_KEPT_US: u64 = 3_000_000;

/// How far ahead of the real-time schedule a peer's view may name its
/// game's frame, µs (a fast clock runs ahead; farther is no game time).
const NAMED_AHEAD_US: u64 = 10_000_000;

/// An instant of the authority's timeline: a frame and µs past it.
type Instant = (usize, u64);

/// Every entity's position in `timeline` at `at` (see
/// [`Frames::row_between`]), in a spare row if there is one.
fn row_at(spare: &mut Vec<Vec<[i32; 3]>>, timeline: &Frames, (frame, into): Instant, dt: u64) -> Vec<[i32; 3]> {
    let mut row = spare.pop().unwrap_or_default();
    timeline.row_between(frame, into, dt, &mut row);
    row
}

/// Collects everything a run publishes.
pub struct Recorder {
    topology: Topology,
    /// Players (entity ids `0..players`, the ones with inputs).
    players: usize,
    /// Players and bots.
    entities: usize,
    dt_us: u64,
    header_bytes: usize,
    /// Per node, its MTU: a path's is the smaller of its ends'.
    mtus: Vec<u32>,
    trace: Trace,
    game: Game,
    samples: Vec<Vec<(Micros, Input)>>,
    /// Per player, [`Trace::input_near`]'s hint (devices are sampled in order).
    trace_hints: Vec<usize>,
    authority: Frames,
    /// Client/server: the instant each authority frame was published.
    authority_at: Vec<u64>,
    /// Per frame and player, the input sequence the frame had applied
    /// (views that name a frame get their inputs from here, and a named
    /// input's frames are found here).
    authority_seqs: Vec<u32>,
    authority_state: State,
    /// The state before the latest authority frame, kept for its buffers.
    spare_state: State,
    /// The ideal world, stepped as renders need it.
    ideal: Ideal,
    /// The oldest authority frame the latest renders were judged against
    /// (renders come in time order: none later asks for an older one; a
    /// peer's screen names its game's frame, which only moves on).
    render_floor: usize,
    /// Peer-to-peer and relay: per screen, the game frame its latest view
    /// named (0: none yet).
    named: Vec<usize>,
    /// Spare rows of every entity's position at one instant (see
    /// [`Frames::row_between`]), reused from batch to batch.
    spare_rows: Vec<Vec<[i32; 3]>>,
    /// [`Recorder::drain_pending`]'s lists of instants and of their rows,
    /// kept (it drains every frame of a peer-to-peer match).
    spare_instants: Vec<(Instant, usize)>,
    spare_row_list: Vec<(Instant, Vec<[i32; 3]>)>,
    /// Buffers of scored pending views, for the next renders that wait.
    spare_views: Vec<Vec<EntityView>>,
    pending: VecDeque<Pending>,
    /// Per player, what its screen's judgement remembers.
    screens: Vec<Screen>,
    /// What judged renders add up to: one per part a batch of renders is
    /// split into (merged when the run ends).
    tallies: Vec<Tally>,
    corrections: u64,
    rollbacks: u64,
    resimulated: u64,
    /// Per node, runs of stalled ticks.
    stalls: Vec<Runs>,
    node_tick_us: u64,
    fidelity: Fidelity,
    /// Per player, the send times (µs, ascending) of its node's packets
    /// the network lost or damaged, for [`Fidelity`]'s late-or-lost call.
    losses: Vec<Vec<u64>>,
    map: MapCheck,
    desynced_frames: Vec<bool>,
    first_desync: Option<Desync>,
    input_mismatches: u64,
    violations: Vec<String>,
    unscored: u64,
    traffic: Vec<Traffic>,
    clock_err: Distribution,
    clock_err_sum: i128,
    /// Conformance checks, when enabled.
    checks: Option<CheckState>,
    /// Renders kept for a closer look, when asked for.
    probe: Option<(super::kept_renders::Probe, Vec<super::kept_renders::Probed>)>,
    /// Per simulated second, for the timeline.
    seconds: Vec<Second>,
    /// Per player, `(seq, target)` of each sampled shot as the screen saw it.
    screen_shots: Vec<VecDeque<(u32, Option<usize>)>>,
    hits: HitAgreement,
    interest: Option<InterestTracker>,
    /// Entities a server's spatial index examined, and the ticks reported.
    index_work: (u64, u64),
}

impl Recorder {
    /// A recorder for a run of `players` players over `duration_us`, with
    /// `game` (a private copy: its steps are not the algorithm's) and the
    /// trace the harness feeds.
    pub fn new(
        topology: Topology,
        game: &Game,
        initial: &State,
        trace: Trace,
        duration_us: u64,
        header_bytes: usize,
    ) -> Recorder {
        let entities = initial.players.len();
        let players = game.humans(initial);
        let dt_us = game.dt_us();
        let game = game.counting_apart();
        let ideal = Ideal::new(&game, initial, duration_us);
        // A stall of 100 ms or more is a freeze.
        let freeze_ticks = (game.config().tick_hz as u64).div_ceil(10);
        let map = MapCheck::new(game.config());
        // Checksums only where peers confirm frames (desyncs are judged
        // against the replay); a server's authority is not checked.
        let mut authority = Frames::new(entities, topology.confirms());
        authority.push(initial);
        let nodes = players + topology.has_server() as usize;
        Recorder {
            topology,
            players,
            entities,
            dt_us,
            header_bytes,
            mtus: Vec::new(),
            trace,
            game,
            samples: vec![Vec::new(); players],
            trace_hints: vec![0; players],
            authority,
            authority_at: vec![0],
            authority_seqs: vec![0; players],
            authority_state: initial.clone(),
            spare_state: State::default(),
            ideal,
            render_floor: 0,
            named: vec![0; players],
            spare_rows: Vec::new(),
            spare_instants: Vec::new(),
            spare_row_list: Vec::new(),
            spare_views: Vec::new(),
            pending: VecDeque::new(),
            screens: (0..players).map(|_| Screen::new(entities, 3)).collect(),
            tallies: vec![Tally::default()],
            corrections: 0,
            rollbacks: 0,
            resimulated: 0,
            stalls: vec![Runs::new(freeze_ticks); nodes],
            node_tick_us: dt_us,
            fidelity: Fidelity::new(players, dt_us),
            losses: vec![Vec::new(); players],
            map,
            desynced_frames: Vec::new(),
            first_desync: None,
            input_mismatches: 0,
            violations: Vec::new(),
            unscored: 0,
            traffic: vec![Traffic::default(); nodes],
            clock_err: Distribution::default(),
            clock_err_sum: 0,
            checks: None,
            probe: None,
            seconds: Vec::new(),
            screen_shots: vec![VecDeque::new(); players],
            hits: HitAgreement::default(),
            interest: None,
            index_work: (0, 0),
        }
    }

    /// The MTU of each node (by node id; [`crate::net::DEFAULT_MTU`] for a
    /// node not listed): a datagram over its path MTU, the smaller of its
    /// ends', is counted with the IP header of every fragment.
    pub fn set_mtus(&mut self, mtus: Vec<u32>) {
        self.mtus = mtus;
    }

    /// Sizes the render memory of the snap test for screens of up to
    /// `max_hz` (a span of two ticks must fit). Call before the first
    /// render: it starts every screen's memory afresh.
    pub fn set_render_hz(&mut self, max_hz: u32) {
        debug_assert!(self.screens.iter().all(|s| s.memory.seen.is_empty()), "set_render_hz after a render");
        let per_span = (SNAP_SPAN_TICKS * self.dt_us * max_hz.max(1) as u64).div_ceil(1_000_000) as usize;
        // Capped (memory: a ring per pair shown): past it, a span is
        // judged over the oldest render kept, against two ticks' motion.
        let ring = (per_span + 1).clamp(3, 8);
        self.screens = (0..self.players).map(|_| Screen::new(self.entities, ring)).collect();
    }

    /// Turns on the area-of-interest measurements against `aoi`.
    pub fn enable_interest(&mut self, aoi: Aoi) {
        self.interest = Some(InterestTracker::new(aoi, self.players, &self.authority_state.players));
    }

    /// Keeps the renders `probe` names (see [`super::kept_renders`]).
    pub fn enable_probe(&mut self, probe: super::kept_renders::Probe) {
        self.probe = Some((probe, Vec::new()));
    }

    /// The renders kept, with the authority's positions resolved where its
    /// frames came.
    pub fn take_probed(&mut self) -> Vec<super::kept_renders::Probed> {
        self.resolve_probed();
        self.probe.take().map(|(_, kept)| kept).unwrap_or_default()
    }

    /// Fills in the authority's position of kept renders whose frames
    /// have come (the frames older than [`AUTHORITY_KEPT_US`] are gone).
    fn resolve_probed(&mut self) {
        let Some((probe, kept)) = self.probe.as_mut() else { return };
        let e = probe.entity as usize;
        for k in kept.iter_mut().filter(|k| k.authority.is_none()) {
            let (frame, into) = k.instant;
            k.authority = if into == 0 {
                self.authority.try_at(frame, e)
            } else if frame + 1 < self.authority.frames() {
                self.authority.try_at(frame, e).map(|_| self.authority.between(frame, e, into, self.dt_us))
            } else {
                None
            };
        }
    }

    /// Turns on the conformance checks: remote positions against the
    /// authority's path (client/server), and per-client progress after
    /// `mark_us` (confirming topologies).
    pub fn enable_checks(&mut self, mark_us: Option<u64>) {
        let nodes = self.traffic.len();
        self.checks = Some(CheckState {
            off_path_max: 0,
            overclaim: None,
            located: (0, 0),
            named_ahead: 0,
            stepped: (0, 0),
            first_step: None,
            off_path_at: None,
            own_ideal_far: None,
            far: [None; 2],
            snap_at: None,
            path_samples: 0,
            mark_us,
            at_mark: vec![0; nodes],
            last: vec![0; nodes],
        });
    }

    fn violation(&mut self, msg: String) {
        if self.violations.len() < MAX_VIOLATIONS {
            self.violations.push(msg);
        }
    }

    /// Samples player `p`'s device at `t`.
    pub(crate) fn sample_input(&mut self, p: usize, t: Micros) -> SeqInput {
        let input = self.trace.input_hinted(p, t.0, &mut self.trace_hints);
        self.record_sample(p, t, input)
    }

    /// Players (entity ids `0..players`, the ones with inputs).
    pub(crate) fn players(&self) -> usize {
        self.players
    }

    /// How many inputs player `p`'s device has been sampled for.
    pub(crate) fn samples_taken(&self, p: usize) -> usize {
        self.samples.get(p).map_or(0, Vec::len)
    }

    /// Records that player `p`'s device was sampled at `t` and held
    /// `input` (the trace's input then): [`Recorder::sample_input`] once
    /// the input is looked up, or a sample logged while a batch of renders
    /// was judged elsewhere ([`super::deferred`]).
    pub(crate) fn record_sample(&mut self, p: usize, t: Micros, input: Input) -> SeqInput {
        self.samples[p].push((t, input));
        let seq = self.samples[p].len() as u32;
        if input.held(Input::SHOOT) && (input.aim_x != 0 || input.aim_y != 0) && !self.screens[p].last_view.is_empty() {
            // What the shooter's screen shows now decides their verdict.
            let far = PlayerState { x: -1_000_000_000, y: -1_000_000_000, ..Default::default() };
            let mut shown = vec![far; self.players];
            for e in &self.screens[p].last_view {
                if (e.id as usize) < self.players {
                    shown[e.id as usize] = PlayerState { x: e.x, y: e.y, z: e.z, ..Default::default() };
                }
            }
            let target = self.game.hitscan(&shown, p, input);
            self.screen_shots[p].push_back((seq, target));
            if self.screen_shots[p].len() > 4096 {
                self.screen_shots[p].pop_front();
            }
        }
        SeqInput { seq, input }
    }

    /// Compares the shots the authority fired between `prev` and `next`
    /// with what the shooters' screens showed.
    fn observe_shots(&mut self, prev: &State, next: &State) {
        for (p, (a, b)) in prev.players.iter().zip(&next.players).take(self.players).enumerate() {
            if b.shots <= a.shots {
                continue;
            }
            let q = &mut self.screen_shots[p];
            while q.front().is_some_and(|(s, _)| *s < b.last_seq) {
                q.pop_front();
            }
            if let Some(&(s, screen)) = q.front() {
                if s == b.last_seq {
                    q.pop_front();
                    let authority = (b.last_target != PlayerState::NO_TARGET).then_some(b.last_target as usize);
                    self.hits.shots += 1;
                    if screen.is_some() || authority.is_some() {
                        self.hits.hit_shots += 1;
                        self.hits.agreed_hits += (screen == authority) as u64;
                    }
                    self.hits.screen_hits += screen.is_some() as u64;
                    self.hits.authority_hits += authority.is_some() as u64;
                }
            }
        }
    }

    /// The network lost (or damaged) a packet `from` sent at `sent`.
    pub(crate) fn count_loss(&mut self, from: NodeId, sent: Micros) {
        let p = self.topology.player_of_node(self.players, from);
        let Some(list) = p.and_then(|p| self.losses.get_mut(p)) else { return };
        // Losses on a downlink come after later sends' uplink losses.
        let at = list.partition_point(|&t| t <= sent.0);
        list.insert(at, sent.0);
    }

    /// Counts a packet of `payload` bytes sent from `from` to `to`; one
    /// UDP cannot carry is a violation and counts nothing (it is never
    /// sent).
    pub(crate) fn count_send(&mut self, from: NodeId, to: NodeId, payload: usize) {
        if payload > crate::net::MAX_UDP_PAYLOAD {
            self.violation(format!(
                "node {} sent node {} a {payload}-byte datagram: UDP carries at most {} bytes, so it was not sent",
                from.0,
                to.0,
                crate::net::MAX_UDP_PAYLOAD
            ));
            return;
        }
        let mtu_of = |n: NodeId| self.mtus.get(n.0 as usize).copied().unwrap_or(crate::net::DEFAULT_MTU);
        let mtu = mtu_of(from).min(mtu_of(to));
        let bytes = crate::net::wire_bytes(payload, mtu, self.header_bytes) as u64;
        if let Some(t) = self.traffic.get_mut(from.0 as usize) {
            t.up_bytes += bytes;
            t.up_packets += 1;
        }
        if let Some(t) = self.traffic.get_mut(to.0 as usize) {
            t.down_bytes += bytes;
            t.down_packets += 1;
        }
    }

    /// Records what node `node` reported on its tick `tick` (or, from a
    /// packet, before it).
    pub(crate) fn report(&mut self, node: NodeId, t: Micros, local: i64, tick: u64, what: Report) {
        match what {
            Report::DesyncDetected { frame } => {
                self.violation(format!("{node} detected a desync at frame {frame} (its own checksum exchange)"));
            }
            Report::ClockOffset { estimate_us } => {
                let truth = t.0 as i64 - local;
                let err = estimate_us - truth;
                self.clock_err_sum += err as i128;
                self.clock_err.record(err.unsigned_abs());
            }
            Report::Correction => {
                self.corrections += 1;
                self.second(t).corrections += 1;
            }
            Report::Resimulated(n) => self.resimulated += n as u64,
            Report::Rollback { depth } => {
                self.rollbacks += 1;
                self.resimulated += depth as u64;
            }
            Report::IndexWork { examined } => {
                self.index_work.0 += examined;
                self.index_work.1 += 1;
            }
            Report::Stalled => {
                if let Some(s) = self.stalls.get_mut(node.0 as usize) {
                    s.mark(tick);
                }
            }
        }
    }

    /// Server publishes its state.
    pub(crate) fn publish_authority(&mut self, t: Micros, state: &State) {
        if self.topology.confirms() {
            self.violation("publish_authority in a topology whose authority is the confirmed log".into());
            return;
        }
        let f = state.frame as usize;
        if f < self.authority.frames() {
            return; // republished frame: the first wins
        }
        if state.players.len() != self.entities {
            self.violation(format!(
                "authority frame {f} has {} entities, expected {}",
                state.players.len(),
                self.entities
            ));
            return;
        }
        // Frames skipped by the server hold the previous state.
        while self.authority.frames() < f {
            let last = self.authority_state.clone();
            self.authority.push(&last);
            self.authority_at.push(t.0);
            self.authority_seqs.extend(last.players.iter().take(self.players).map(|p| p.last_seq));
        }
        self.authority.push(state);
        self.authority_at.push(t.0);
        self.authority_seqs.extend(state.players.iter().take(self.players).map(|p| p.last_seq));
        for (p, ps) in state.players.iter().take(self.players).enumerate() {
            let connected = self.connected(p);
            self.fidelity.frame(p, ps.last_seq, &self.samples[p], t, &self.losses[p], connected);
        }
        // The previous state goes to the spare, whose buffers the new one reuses.
        let mut prev = std::mem::take(&mut self.spare_state);
        std::mem::swap(&mut prev, &mut self.authority_state);
        self.authority_state.clone_from(state);
        self.observe_shots(&prev, state);
        self.spare_state = prev;
        if let Some(i) = self.interest.as_mut() {
            i.authority(t, &state.players);
        }
        self.drain_pending();
        self.forget_old_authority();
    }

    /// Peer publishes a confirmed state and the inputs that produced it.
    pub(crate) fn publish_confirmed(&mut self, node: NodeId, t: Micros, state: &State, inputs: &[SeqInput]) {
        if let Some(c) = self.checks.as_mut() {
            let n = node.0 as usize;
            if n < c.last.len() {
                c.last[n] = c.last[n].max(state.frame);
                if c.mark_us.is_some_and(|m| t.0 <= m) {
                    c.at_mark[n] = c.last[n];
                }
            }
        }
        if !self.topology.confirms() {
            self.violation("publish_confirmed in a client/server topology (the server publishes the authority)".into());
            return;
        }
        let f = state.frame as usize;
        let have = self.authority.frames();
        if f == 0 || f > have {
            self.violation(format!("{node} confirmed frame {f} but the agreed log ends at frame {}", have - 1));
            return;
        }
        if f == have {
            // Extend the agreed log: replay with the published inputs.
            if inputs.len() != self.players {
                self.violation(format!(
                    "{node} confirmed frame {f} with {} inputs, expected {}",
                    inputs.len(),
                    self.players
                ));
                return;
            }
            for (p, si) in inputs.iter().enumerate() {
                let ok = match si.seq {
                    0 => si.input == Input::IDLE,
                    s => self.samples[p].get(s as usize - 1).is_some_and(|(_, i)| *i == si.input),
                };
                if !ok {
                    self.input_mismatches += 1;
                    if self.input_mismatches == 1 {
                        self.violation(format!(
                            "{node} frame {f}: player {p} input seq {} is not what the harness sampled",
                            si.seq
                        ));
                    }
                }
            }
            for (p, si) in inputs.iter().enumerate() {
                let connected = self.connected(p);
                self.fidelity.frame(p, si.seq, &self.samples[p], t, &self.losses[p], connected);
            }
            self.authority_seqs.extend(inputs.iter().map(|si| si.seq));
            // Stepped in place; the previous state is copied to the spare
            // (its buffers reused) for the shots' judgement.
            let mut prev = std::mem::take(&mut self.spare_state);
            prev.clone_from(&self.authority_state);
            let mut next = std::mem::take(&mut self.authority_state);
            self.game.step(&mut next, inputs);
            self.authority.push(&next);
            self.desynced_frames.push(false);
            self.observe_shots(&prev, &next);
            if let Some(i) = self.interest.as_mut() {
                // The frame due at (f − 1)·dt (see the module docs).
                i.authority(Micros((f as u64 - 1) * self.dt_us), &next.players);
            }
            self.authority_state = next;
            self.spare_state = prev;
            self.drain_pending();
        }
        self.forget_old_authority();
        // A state equal to the agreed one has its checksum (most peers
        // confirm the newest frame): the hash only for the others.
        let agreed = self.authority_state.frame as usize == f && *state == self.authority_state;
        if !agreed && state.checksum() != self.authority.checksums[f] && !self.desynced_frames[f - 1] {
            self.desynced_frames[f - 1] = true;
            if self.first_desync.is_none() {
                self.first_desync = Some(self.describe_desync(node, f, state));
            }
        }
    }

    /// Lets the authority's positions older than [`AUTHORITY_KEPT_US`] go
    /// (its checksums and input sequences stay): renders are scored
    /// against the newest frames and the path check looks two seconds back.
    /// Never a frame a render may still be scored against: renders come in
    /// time order, so none asks for a frame before the last one asked or
    /// the oldest waiting render's (peers' confirmed log can run seconds
    /// ahead of the renders when their clocks drift).
    ///
    /// Nor one a render waiting for its named input may be judged against
    /// however far the authority trails (see [`super::claims`]): those are
    /// looked for only when frames would go, which is in bulk, rarely.
    fn forget_old_authority(&mut self) {
        let kept = (AUTHORITY_KEPT_US / self.dt_us) as usize + 2;
        let asked = self.pending.iter().map(|p| p.low).fold(self.render_floor, usize::min);
        let floor = self.authority.frames().saturating_sub(kept).min(asked);
        if !self.authority.would_forget(floor) {
            return;
        }
        let judge = judge!(self, false);
        let needed = self.screens.iter().filter_map(|s| judge.oldest_needed(s)).fold(floor, usize::min);
        self.authority.forget_before(needed);
    }

    fn describe_desync(&self, node: NodeId, f: usize, published: &State) -> Desync {
        let mut differences = Vec::new();
        // Only the last replayed state is kept in full; earlier frames are
        // compared by position.
        let expected: Option<&State> = (self.authority_state.frame as usize == f).then_some(&self.authority_state);
        for (p, got) in published.players.iter().enumerate() {
            match expected.and_then(|e| e.players.get(p)) {
                Some(want) => differences.extend(diff_player(p, want, got)),
                None if p < self.entities => match self.authority.try_at(f, p) {
                    Some(w) if w != [got.x, got.y, got.z] => {
                        differences.push(format!("player{p}.position: {w:?} vs {:?}", [got.x, got.y, got.z]));
                    }
                    Some(_) => {}
                    None => differences.push(format!("player{p}.position: frame {f} is older than the frames kept")),
                },
                None => differences.push(format!("player{p}: not in the agreed state")),
            }
        }
        if let Some(e) = expected {
            if e.rng != published.rng {
                differences.push(format!("world.rng: {:#x} vs {:#x}", e.rng, published.rng));
            }
            if e.item != published.item {
                differences.push(format!("world.item: {:?} vs {:?}", e.item, published.item));
            }
        }
        if differences.is_empty() {
            differences.push("(a field not kept for frames before the newest replayed one)".into());
        }
        Desync {
            frame: f as u32,
            node: node.0,
            expected_checksum: format!("{:016x}", self.authority.checksums[f]),
            published_checksum: format!("{:016x}", published.checksum()),
            differences,
        }
    }

    /// Records what `viewer` (a player's client or peer) shows at `t`.
    /// Keeps the view's entities as the viewer's last view, leaving the
    /// one before in `view` (the caller clears it for the next render: no
    /// copy of a whole world per render).
    pub(crate) fn record_view(&mut self, viewer: usize, t: Micros, view: &mut View) {
        let mut one = [(viewer, std::mem::take(view))];
        self.record_views(t, &mut one);
        *view = std::mem::take(&mut one[0].1);
    }

    /// Records what the screens of `batch` (player, view) showed at `t`,
    /// in the order given — exactly as one [`Recorder::record_view`] per
    /// render would, but a batch with enough entities to be worth it and
    /// each player at most once is judged on several cores (see
    /// [`super::judge`]). Each view is left holding its screen's view
    /// before.
    pub(crate) fn record_views(&mut self, t: Micros, batch: &mut [(usize, View)]) {
        let players = self.players;
        for &(viewer, _) in batch.iter().filter(|(v, _)| *v >= players) {
            self.violation(format!("a view from screen {viewer}, but the run has {players} players"));
        }
        // The authority at t: its frame in force, on the way to the next.
        let (frame, into) = if self.topology.confirms() {
            ((t.0 / self.dt_us) as usize + 1, t.0 % self.dt_us)
        } else {
            let f = self.authority.frames() - 1;
            (f, t.0.saturating_sub(self.authority_at[f]).min(self.dt_us))
        };
        let (low, need) = self.name_games((frame, into), batch);
        let span = |n: usize| n.saturating_sub(NAMED_SPAN);
        // A peer's screen that has not named a frame yet may name any (one
        // whose link was out from the start names its first frame seconds
        // late): nothing goes until every screen has named one.
        let unnamed = if self.topology.confirms() { 0 } else { usize::MAX };
        self.render_floor =
            self.named.iter().map(|&n| if n > 0 { span(n) } else { unnamed }).fold(low.min(frame), usize::min);
        // Every render of one instant is scored now or waits, alike.
        let score_now = self.pending.is_empty() && need < self.authority.frames();
        // The ideal world as far as renders at t read it: its frame in force
        // and the next — and two more, so that it steps the bots of a large
        // world ahead of the server even when judged on the other core, and
        // the server's steps take them from it (see `Game::counting_apart`).
        // Renders come in time order: older frames can go.
        let ideal_at = due(t.0, self.dt_us, self.ideal.total_frames());
        self.ideal.advance(&self.game, &self.trace, ideal_at.0 + IDEAL_AHEAD);
        self.ideal.frames.forget_before(ideal_at.0);
        if let Some((probe, kept)) = self.probe.as_mut() {
            for (_, view) in batch.iter().filter(|(v, _)| probe.wants(*v, t.0)) {
                for e in view.entities.iter().filter(|e| e.id == probe.entity) {
                    let ideal = self
                        .ideal
                        .frames
                        .try_at(ideal_at.0, e.id as usize)
                        .map(|_| self.ideal.frames.between(ideal_at.0, e.id as usize, ideal_at.1, self.dt_us));
                    kept.push(super::kept_renders::Probed {
                        t_us: t.0,
                        view: *e,
                        authority: None,
                        ideal,
                        instant: (frame, into),
                    });
                }
            }
            self.resolve_probed();
        }
        let judge = judge!(self, !self.topology.confirms() && self.checks.is_some(), frame);
        let rows = self.interest.as_mut().map(|i| i.rows_mut());
        let entity_renders: usize = batch.iter().map(|(_, v)| v.entities.len()).sum();
        // With more entity-renders than entities, where the ideal world and
        // the authority have every entity at t is worked out once.
        let worth = entity_renders > self.entities;
        let spare = &mut self.spare_rows;
        let ideal_buf = worth.then(|| row_at(spare, &self.ideal.frames, ideal_at, self.dt_us));
        // (Peers' renders that name their games' frames may be scored
        // before the schedule's instant exists: no row then.)
        let at_t = worth && score_now && frame + usize::from(into > 0) < self.authority.frames();
        let truth_buf = at_t.then(|| row_at(spare, &self.authority, (frame, into), self.dt_us));
        let (ideal_row, truth_row) = (ideal_buf.as_deref(), truth_buf.as_deref());
        let shown: &[(usize, View)] = batch;
        by_screens(
            &mut self.screens,
            rows,
            &mut self.tallies,
            parallel::fine_parts(entity_renders, batch.len()),
            |first, screens, mut rows, tally| {
                let mine = first..first + screens.len();
                for (pos, (viewer, view)) in shown.iter().enumerate().filter(|(_, (v, _))| mine.contains(v)) {
                    let (k, screen) = (viewer - first, &mut screens[viewer - first]);
                    let interest = rows.as_deref_mut().map(|r| &mut r[k]);
                    judge.view(screen, interest, tally, pos, *viewer, t, view, (ideal_at, ideal_row));
                    if score_now {
                        judge.score(screen, tally, *viewer, (frame, into), truth_row, t, &view.entities);
                    }
                }
            },
        );
        self.spare_rows.extend(ideal_buf.into_iter().chain(truth_buf));
        self.take_violations();
        for (viewer, view) in batch.iter_mut() {
            let Some(screen) = self.screens.get_mut(*viewer) else { continue };
            if !score_now {
                let mut entities = self.spare_views.pop().unwrap_or_default();
                entities.clone_from(&view.entities);
                let view = View { entities };
                self.pending.push_back(Pending { viewer: *viewer, low, need, frame, into, t, view });
            }
            std::mem::swap(&mut screen.last_view, &mut view.entities);
        }
    }

    /// When player `p`'s client connected, µs (`None`: not yet).
    fn connected(&self, p: usize) -> Option<u64> {
        self.screens.get(p).and_then(|s| s.connected)
    }

    /// The oldest and the newest authority frame `batch`'s renders at the
    /// authority instant `(frame, into)` are scored against. Peer-to-peer
    /// and relay: an entity whose view names its game's frame is scored at
    /// that frame, the others at the instant. A name more than
    /// [`NAMED_AHEAD_US`] ahead of the schedule, or older than the frames
    /// kept, is a violation and is taken as no name: a render never waits
    /// for a frame that may never come, nor asks for one forgotten.
    fn name_games(&mut self, (frame, into): Instant, batch: &mut [(usize, View)]) -> (usize, usize) {
        let at_t = (frame, frame + usize::from(into > 0));
        if !self.topology.confirms() {
            return at_t;
        }
        let ahead = frame + (NAMED_AHEAD_US / self.dt_us) as usize;
        let first = self.authority.first();
        let (mut low, mut need) = (usize::MAX, 0);
        for (viewer, view) in batch.iter_mut() {
            let mut screen_newest = 0;
            for e in view.entities.iter_mut() {
                if e.frame == 0 {
                    (low, need) = (low.min(at_t.0), need.max(at_t.1));
                    continue;
                }
                let f = e.frame as usize;
                if f > ahead || f < first {
                    let msg = if f > ahead {
                        format!("player {viewer}'s view names game frame {f}, more than 10 s ahead of the schedule's {frame}")
                    } else {
                        format!("player {viewer}'s view names game frame {f}, older than the frames kept")
                    };
                    self.violation(msg);
                    e.frame = 0;
                    (low, need) = (low.min(at_t.0), need.max(at_t.1));
                } else {
                    screen_newest = screen_newest.max(f);
                    (low, need) = (low.min(f.saturating_sub(NAMED_SPAN)), need.max(f));
                }
            }
            if let Some(n) = self.named.get_mut(*viewer).filter(|_| screen_newest > 0) {
                *n = screen_newest;
            }
        }
        if need == 0 {
            return at_t;
        }
        (low, need)
    }

    /// Moves the violations the tallies found into the run's, in the
    /// order of the renders that found them.
    fn take_violations(&mut self) {
        if self.tallies.iter().all(|t| t.violations.is_empty()) {
            return;
        }
        let mut found: Vec<(usize, String)> = self.tallies.iter_mut().flat_map(|t| t.violations.drain(..)).collect();
        found.sort_by_key(|v| v.0); // stable: one render's in the order found
        for (_, msg) in found {
            self.violation(msg);
        }
    }

    fn second(&mut self, t: Micros) -> &mut Second {
        let i = (t.0 / 1_000_000) as usize;
        if self.seconds.len() <= i {
            self.seconds.resize(i + 1, Second::default());
        }
        &mut self.seconds[i]
    }

    /// Scores the waiting renders whose authority frames now exist, in
    /// order; many at once are split by screen over several cores.
    fn drain_pending(&mut self) {
        let ready = self.pending.iter().take_while(|p| p.need < self.authority.frames()).count();
        if ready == 0 {
            return;
        }
        let judge = judge!(self, false);
        let entity_renders: usize = self.pending.iter().take(ready).map(|p| p.view.entities.len()).sum();
        // The authority's row at each instant more entity-renders wait for
        // than there are entities (renders of one instant wait together).
        let mut instants = std::mem::take(&mut self.spare_instants);
        instants.clear();
        for p in self.pending.iter().take(ready) {
            let at = (p.frame, p.into);
            match instants.iter_mut().find(|(i, _)| *i == at) {
                Some((_, n)) => *n += p.view.entities.len(),
                None => instants.push((at, p.view.entities.len())),
            }
        }
        let mut rows = std::mem::take(&mut self.spare_row_list);
        rows.clear();
        rows.extend(
            instants
                .iter()
                .filter(|&&((f, into), n)| n > self.entities && f + usize::from(into > 0) < self.authority.frames())
                .map(|&(at, _)| (at, row_at(&mut self.spare_rows, &self.authority, at, self.dt_us))),
        );
        self.spare_instants = instants;
        let pending = &self.pending;
        by_screens(
            &mut self.screens,
            None,
            &mut self.tallies,
            parallel::parts(entity_renders, ready),
            |first, screens, _, tally| {
                let mine = first..first + screens.len();
                for p in pending.iter().take(ready).filter(|p| mine.contains(&p.viewer)) {
                    let screen = &mut screens[p.viewer - first];
                    let at = (p.frame, p.into);
                    let row = rows.iter().find(|(i, _)| *i == at).map(|(_, r)| &r[..]);
                    judge.score(screen, tally, p.viewer, at, row, p.t, &p.view.entities);
                }
            },
        );
        // A few spare rows suffice (a long stall may have needed many).
        self.spare_rows.extend(rows.drain(..).map(|(_, r)| r));
        self.spare_rows.truncate(4);
        self.spare_row_list = rows;
        // Their buffers serve the renders that wait next (as many as wait
        // at once, at most).
        for p in self.pending.drain(..ready) {
            if self.spare_views.len() < ready.max(16) {
                self.spare_views.push(p.view.entities);
            }
        }
    }
}

/// Splits the screens into `parts` ranges (at most one a screen) and runs
/// `f(first, screens, rows, tally)` for each — on several cores when more
/// than one: a range's screens from index `first`, their interest rows
/// when measured, and a tally of the part's own. Each part walks the
/// renders in their order and takes those of its screens, so a screen's
/// renders are judged in order by one part, as on one core.
fn by_screens(
    screens: &mut [Screen],
    rows: Option<&mut [InterestRow]>,
    tallies: &mut Vec<Tally>,
    parts: usize,
    f: impl Fn(usize, &mut [Screen], Option<&mut [InterestRow]>, &mut Tally) + Sync + Send,
) {
    let parts = parts.clamp(1, screens.len().max(1));
    if tallies.len() < parts {
        tallies.resize_with(parts, Tally::default);
    }
    let per = screens.len().div_ceil(parts).max(1);
    let rows = rows.into_iter().flat_map(|r| r.chunks_mut(per)).map(Some).chain(std::iter::repeat_with(|| None));
    let split = screens.chunks_mut(per).zip(rows).zip(tallies.iter_mut()).enumerate();
    parallel::for_each(parts, split, |(k, ((screens, rows), tally))| f(k * per, screens, rows, tally));
}

/// Conformance bookkeeping.
#[derive(Clone, Debug)]
struct CheckState {
    off_path_max: u64,
    overclaim: Option<super::claims::Behind>,
    located: (u64, u64),
    named_ahead: u64,
    stepped: (u64, u64),
    first_step: Option<Spot>,
    off_path_at: Option<Spot>,
    own_ideal_far: Option<Spot>,
    far: [Option<Spot>; 2],
    snap_at: Option<Spot>,
    path_samples: u64,
    mark_us: Option<u64>,
    at_mark: Vec<u32>,
    last: Vec<u32>,
}

fn diff_player(p: usize, want: &PlayerState, got: &PlayerState) -> Vec<String> {
    let fields: [(&str, i64, i64); 14] = [
        ("items", want.items as i64, got.items as i64),
        ("x", want.x as i64, got.x as i64),
        ("y", want.y as i64, got.y as i64),
        ("z", want.z as i64, got.z as i64),
        ("vx", want.vx as i64, got.vx as i64),
        ("vy", want.vy as i64, got.vy as i64),
        ("vz", want.vz as i64, got.vz as i64),
        ("prev_buttons", want.prev_buttons as i64, got.prev_buttons as i64),
        ("cooldown", want.cooldown as i64, got.cooldown as i64),
        ("last_seq", want.last_seq as i64, got.last_seq as i64),
        ("shots", want.shots as i64, got.shots as i64),
        ("hits", want.hits as i64, got.hits as i64),
        ("last_target", want.last_target as i64, got.last_target as i64),
        ("facing", (want.facing_x as i64) * 3 + want.facing_y as i64, (got.facing_x as i64) * 3 + got.facing_y as i64),
    ];
    fields.iter().filter(|(_, w, g)| w != g).map(|(name, w, g)| format!("player{p}.{name}: {w} vs {g}")).collect()
}

impl crate::contract::Observer for Recorder {
    fn sample_input(&mut self, p: usize, t: Micros) -> SeqInput {
        Recorder::sample_input(self, p, t)
    }
    fn publish_authority(&mut self, t: Micros, state: &State) {
        Recorder::publish_authority(self, t, state)
    }
    fn publish_confirmed(&mut self, node: NodeId, t: Micros, state: &State, inputs: &[SeqInput]) {
        Recorder::publish_confirmed(self, node, t, state, inputs)
    }
    fn report(&mut self, node: NodeId, t: Micros, local: i64, tick: u64, what: Report) {
        Recorder::report(self, node, t, local, tick, what)
    }
}
