//! What is measured, with the definitions every algorithm shares.
//!
//! [`recorder::Recorder`] watches a run — the inputs the harness samples,
//! what servers and peers publish, every client's view at each render — and
//! derives the numbers in [`Metrics`]. Every number comes from what the
//! harness knows itself (the trace, the authority, the screens), never from
//! an algorithm's account of itself:
//!
//! - **input latency**: from the instant a player's held input *changed*
//!   (a press, a release, a new direction or aim) to the first render
//!   showing a state that includes an input sampled at or after that
//!   instant, own and remote. What a render shows is the older of what its
//!   view names (the entity's input sequence number or authority frame)
//!   and where its drawn position lies on the authority's path — see
//!   [`claims`]: a name newer than the picture buys nothing. Holding an input produces no sample; sampling delay is
//!   part of latency; changes the world ignores (pushing into a wall,
//!   jumping in mid-air, firing on cooldown) are counted, not timed — see
//!   [`ideal`]. No change ever shown: no samples (tables print "–").
//! - **time to connect**: from the start to a client's first render that
//!   names a frame the authority made (a peer's game frame past the first)
//!   or own inputs of which the authority had already applied one (a
//!   screen that predicts its player names inputs ahead of the authority)
//!   — the harness checks every name against the authority, so no
//!   algorithm says it itself. Divergence and latency count the time
//!   before as any other: it is what the player saw. The contracts judge
//!   each case from its clients' connection: its players stand still
//!   until then (`conform::contracts::after_connecting`).
//! - **warm-up**: each client's first [`WARMUP_US`] after it connected
//!   (and the time before; a client that never connects warms up as one
//!   connected at the start). Per-minute rates (snaps, inputs dropped, late
//!   and repeated) count the events after the warm-ups over the
//!   client-minutes after them, so a rate reads the same for a 30 s and a
//!   600 s run of one link; the events in the warm-ups are reported apart
//!   ([`Warmup`]), and a run that ends in its warm-ups has no rate ("–").
//! - **divergence**: |displayed position − authority position at `t`| per
//!   client, entity and render (3-D, metres), split into the client's *own*
//!   entity and *remote* ones; and the same against the **ideal world**
//!   (every input applied the instant it is pressed, no network). The
//!   authority at `t` is its frame in force, on the straight line to the
//!   next frame (so the render's phase does not move the number).
//!   Client/server: the frame in force is the server's latest published
//!   frame, `t` measured from its publication. Peer-to-peer and relay: the
//!   harness's own replay of the agreed input log at the frame the view
//!   names as its game time ([`crate::contract::View::show_game`]) — where
//!   the peers agreed the entities are at the moment of the game the screen
//!   shows — or, for a view that names none, the frame due at `t`
//!   (`⌊t/dt⌋ + 1`). A render is scored once the frames it needs exist;
//!   renders for which it never does are counted as `unscored_samples`. The ideal world also reports
//!   **contact** (frames in which players touch): with contact, `vs ideal`
//!   is chaotic.
//! - **desyncs**: frames for which a peer published a state whose checksum
//!   differs from the harness's replay of the agreed inputs.
//! - **snap events**: a render is over the threshold when an entity on
//!   one screen has moved (3-D) farther since an earlier render of it than
//!   [`crate::game::Game::max_travel`] (twice the max speed) allows in the
//!   time between — the earlier render being the newest one at least two
//!   ticks before, so a tick-stepped picture, a one-frame catch-up or a
//!   correction blended over a tick is judged whole, alike at 30, 60 and
//!   144 Hz (from standing, a pop of more than 40 cm). Over-threshold renders of one entity on one screen whose
//!   judged spans overlap are one event. Reported
//!   per client-minute after the warm-ups, with the largest jump (straight-line distance from
//!   the position before an event to its farthest point).
//! - **stalls**: ticks in which a node's game did not advance (the
//!   algorithm reports them). Consecutive stalled ticks are one stall;
//!   stalls of 100 ms or more are **freezes** (perceptible); the rest are
//!   hiccups. Per client: time stalled, time frozen, longest freeze.
//! - **lag** (peer-to-peer and relay): how far the frame a screen's game
//!   is at trails the real-time schedule — see [`Lag`]. A stall is counted
//!   in the stall and lag rows, not as divergence.
//! - **input fidelity**: sampled inputs the authority applied more often
//!   than their duration or never — see [`fidelity`].
//! - **impossible screens**: entity-renders inside a wall or outside the
//!   arena, by more than 10 cm — see [`on_map`].
//! - **bandwidth**: bytes (with 28 bytes of UDP/IPv4 header per packet) and
//!   packets per second each node sent (up) and that were sent to it
//!   (down), before the link's loss; per client, mean over clients.
//! - corrections, rollbacks and re-simulated frames as the algorithm
//!   reports them; `sim_steps_per_s`: game steps executed by all nodes
//!   (re-simulation included) per simulated second.
//! - **clock offset error**: each estimate of `server − local` time an
//!   algorithm reports, against the true offset the simulator knows.
//! - **hit agreement**: when a player's input fires, the harness runs the
//!   hitscan on what that player's screen showed at that instant (the
//!   latest render); when the authority's state shows the shot, the two
//!   verdicts are compared. The share is taken over the shots either side
//!   scored as a hit (agreed misses say nothing about lag compensation).
//! - **area of interest** (runs with `--aoi`): visible share, awareness
//!   latency, unaware visits and leaks — see [`interest`].

pub mod claims;
pub(crate) mod deferred;
pub mod distributions;
pub mod fidelity;
pub mod ideal;
pub mod interest;
mod judge;
pub mod kept_renders;
pub mod on_map;
pub mod recorder;
pub mod runs;
mod screen_memory;
mod spot;
pub mod stats;

use serde::{Deserialize, Serialize};
pub use stats::Stats;

/// Statistics split into the viewer's own entity and the others.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OwnRemote {
    /// The client's own player.
    pub own: Stats,
    /// Every other player.
    pub remote: Stats,
}

/// A share (%) for the own player and for the others.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OwnRemotePct {
    /// The client's own player.
    pub own: f64,
    /// Every other player.
    pub remote: f64,
}

/// Traffic rates.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Bandwidth {
    /// Bytes per second sent, headers included.
    pub up_bytes_per_s: f64,
    /// Bytes per second sent to this node, headers included.
    pub down_bytes_per_s: f64,
    /// Packets per second sent.
    pub up_packets_per_s: f64,
    /// Packets per second sent to this node.
    pub down_packets_per_s: f64,
}

/// The first frame on which a peer disagreed with the agreed input log.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Desync {
    /// The frame.
    pub frame: u32,
    /// The peer's node index.
    pub node: u16,
    /// Checksum of the harness's replay.
    pub expected_checksum: String,
    /// Checksum the peer published.
    pub published_checksum: String,
    /// Fields that differ, `player.field: expected vs published`.
    pub differences: Vec<String>,
}

/// What the links did over the run (all directions summed).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NetworkCounts {
    /// Packets offered to a first link.
    pub packets_sent: u64,
    /// Copies delivered to their destination.
    pub packets_delivered: u64,
    /// Copies lost to the loss models.
    pub lost: u64,
    /// Extra copies made by duplication.
    pub duplicated: u64,
    /// Copies sent early by the reorder rule.
    pub reordered: u64,
    /// Copies with a flipped bit.
    pub corrupted: u64,
    /// Copies tail-dropped at a queue limit.
    pub limit_dropped: u64,
    /// Datagrams over a link's MTU, sent in IP fragments (counted per
    /// link crossed; the counts above count each fragment).
    #[serde(default)]
    pub fragmented: u64,
    /// Of those, the ones lost because a fragment was.
    #[serde(default)]
    pub fragment_lost: u64,
    /// Datagrams a reliable transport sent again.
    pub retransmissions: u64,
}

/// How well clients estimated the server clock (algorithms that sync clocks).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClockError {
    /// Mean of estimate − truth, ms (the bias: half the up/down asymmetry
    /// for the rtt/2 rule).
    pub mean_signed_ms: f64,
    /// |estimate − truth|, ms.
    pub abs_ms: Stats,
}

/// Divergence at the end of the run: each client's last scored render, the
/// worst client. Shows whether an algorithm converges once inputs stop.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FinalDivergence {
    /// Own entity, metres.
    pub own: f64,
    /// Worst remote entity, metres.
    pub remote: f64,
}

/// The run second by second (what report plots draw).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Mean own-entity divergence from the authority in each second, m.
    pub own_divergence_m: Vec<f64>,
    /// Mean remote-entity divergence in each second, m.
    pub remote_divergence_m: Vec<f64>,
    /// Corrections in each second.
    pub corrections: Vec<u32>,
    /// Snap events that began in each second, all screens.
    #[serde(default)]
    pub snaps: Vec<u32>,
    /// Inputs sampled in each second and never run (dropped or late), all
    /// players.
    #[serde(default)]
    pub inputs_unrun: Vec<u32>,
    /// Repeated frames charged to the inputs sampled in each second, all
    /// players.
    #[serde(default)]
    pub inputs_repeated: Vec<u32>,
    /// Peer-to-peer and relay: the screens' mean lag behind the schedule
    /// in each second, ms (`None`: no render named a frame; empty for
    /// client/server).
    #[serde(default)]
    pub lag_ms: Vec<Option<f64>>,
}

/// Input-latency distributions as `(quantile, ms)` points.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyCdf {
    /// Own input to own screen.
    pub own: Vec<[f64; 2]>,
    /// Other players' inputs.
    pub remote: Vec<[f64; 2]>,
}

/// Input-latency distributions in full: HdrHistogram's V2 compressed
/// encoding in base64 (3 significant digits, values in µs), as an interval
/// log line ends — `Histogram.decodeFromCompressedByteBuffer` in Java,
/// `HdrHistogram.decode` in Python, [`stats::Distribution::decode`] here.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyHistograms {
    /// Own input to own screen.
    pub own: String,
    /// Other players' inputs.
    pub remote: String,
}

/// What the conformance checks saw (only when enabled).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checks {
    /// Client/server: the farthest a remote entity was shown from the path
    /// the authority took over the previous two seconds, metres.
    pub off_path_max_m: Option<f64>,
    /// Where that render was seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub off_path_at: Option<Located>,
    /// Confirming topologies: frames each client confirmed after the mark.
    pub frames_after_mark: Option<Vec<u32>>,
    /// Own-player renders that named an input the authority had not
    /// applied yet: the client says it predicts its own player.
    #[serde(default)]
    pub own_named_ahead: u64,
    /// Of the renders whose pictures were located on the authority's path
    /// (see [`claims`]), the share more than two ticks behind the frame
    /// (or input) they named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub behind_share: Option<f64>,
    /// The picture furthest behind the frame (or input) it named, when one
    /// was more than two ticks behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overclaim: Option<Overclaim>,
    /// Client/server: remote entity-renders that held still for under
    /// 100 ms between moves (a picture stepping at a rate below the
    /// screen's), as a share of the moving and held-between-moves renders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stepped_share: Option<f64>,
    /// The first such hold: where it was seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_step: Option<Located>,
    /// The own-player render farthest from where its inputs put it (the
    /// ideal world).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_ideal_farthest: Option<Farthest>,
    /// The own-player render farthest from the authority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_farthest: Option<Farthest>,
    /// The remote render farthest from the authority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remote_farthest: Option<Farthest>,
    /// Of every screen's last scored render, the entity farthest from the
    /// authority (what `converges` holds to 1 mm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_farthest: Option<Farthest>,
    /// The largest snap: the render and how far it jumped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub largest_snap: Option<Farthest>,
    /// Divergence at every step of [`QuantileGrid::STEPS`], what
    /// `frame-rate-independent` reads its confidence intervals from (not
    /// in reports).
    #[serde(skip)]
    pub divergence_grid_m: QuantileGrid,
}

/// A distribution as its value at quantiles `k / STEPS`, `k = 0..=STEPS`
/// (empty with no samples), own and remote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuantileGrid {
    /// Own entity.
    pub own: Vec<f64>,
    /// Remote entities.
    pub remote: Vec<f64>,
}

impl QuantileGrid {
    /// Steps of the grid: every 0.1%.
    pub const STEPS: usize = 1000;

    /// The quantiles the grid holds.
    pub fn quantiles() -> Vec<f64> {
        (0..=Self::STEPS).map(|k| k as f64 / Self::STEPS as f64).collect()
    }
}

/// A located render and a distance that made it the worst of its kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Farthest {
    /// Where it was seen.
    pub at: Located,
    /// The distance, m.
    pub distance_m: f64,
}

impl std::fmt::Display for Farthest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.3} m: {}", self.distance_m, self.at)
    }
}

/// A picture that named more than it showed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Overclaim {
    /// Where it was seen.
    pub at: Located,
    /// The frame the render named (for an input, its first applying frame).
    pub named_frame: u64,
    /// Where on the authority's path the picture was, in frames.
    pub shown_frame: f64,
    /// How far behind its name the picture was, ms.
    pub behind_ms: f64,
}

/// Where a render was seen: the screen, the entity, the instant and the
/// drawn position.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Located {
    /// The screen's player.
    pub client: usize,
    /// The entity drawn.
    pub entity: usize,
    /// The render's instant, s.
    pub t_s: f64,
    /// The drawn position, m.
    pub position_m: [f64; 3],
}

impl Located {
    /// The first place a message names in [`Located`]'s own words
    /// ("client C at T s, entity E …"): how `replay` finds the moment a
    /// failure points at.
    pub fn find_in(text: &str) -> Option<Located> {
        let mut rest = text;
        while let Some(i) = rest.find("client ") {
            rest = &rest[i + "client ".len()..];
            let parsed = (|| {
                let (client, r) = rest.split_once(" at ")?;
                let (t, r) = r.split_once(" s, entity ")?;
                let (entity, r) = r.split_once(" drawn at (")?;
                let (pos, _) = r.split_once(") m")?;
                let p: Vec<f64> = pos.split(", ").map(|v| v.parse().ok()).collect::<Option<_>>()?;
                Some(Located {
                    client: client.parse().ok()?,
                    entity: entity.parse().ok()?,
                    t_s: t.parse().ok()?,
                    position_m: p.try_into().ok()?,
                })
            })();
            if parsed.is_some() {
                return parsed;
            }
        }
        None
    }
}

impl std::fmt::Display for Located {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let [x, y, z] = self.position_m;
        write!(
            f,
            "client {} at {:.4} s, entity {} drawn at ({x:.3}, {y:.3}, {z:.3}) m",
            self.client, self.t_s, self.entity
        )
    }
}

/// What one client experienced (the run-level figures average or pool
/// these; a slow player shows up here).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientMetrics {
    /// Player id.
    pub player: usize,
    /// Own input to own screen, ms.
    pub own_input_latency_ms: Stats,
    /// Time this client's game waited for input, ms (hiccups and freezes).
    pub stall_ms: f64,
    /// Time spent in freezes (stalls of 100 ms or more), ms.
    pub freeze_ms: f64,
    /// Freezes.
    pub freezes: u64,
    /// The longest stall, ms.
    pub longest_stall_ms: f64,
    /// Snap events on this client's screen.
    pub snap_events: u64,
    /// This player's inputs the authority ran beyond their duration.
    pub inputs_repeated: u64,
    /// This player's inputs the authority never ran while the network lost
    /// a packet that may have carried them.
    pub inputs_dropped: u64,
    /// This player's inputs the authority never ran although nothing that
    /// may have carried them was lost.
    #[serde(default)]
    pub inputs_late: u64,
    /// Peer-to-peer and relay: how far this screen's game trailed the
    /// real-time schedule at its last render, ms (see [`Lag`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_at_end_ms: Option<f64>,
    /// When this client connected, ms (see [`Warmup`]); `None`: never.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connected_ms: Option<f64>,
}

/// How long after connecting a client is warming up, µs: its events in
/// that time (and before it connected) are counted apart from the rates
/// per client-minute, so a rate reads the same for a 30 s and a 600 s run
/// of one link (estimators converging — a clock, an input buffer, a
/// redundancy level — make a fixed count of events early in every run).
pub const WARMUP_US: u64 = 10_000_000;

/// `n` events a client-minute over `client_s` client-seconds (0 when
/// there are none: [`Metrics::rate`] shows such a rate as missing).
pub(crate) fn per_client_minute(n: u64, client_s: f64) -> f64 {
    if client_s > 0.0 {
        stats::round4(n as f64 / client_s * 60.0)
    } else {
        0.0
    }
}

/// The start of a run the rates leave out, and what happened in it (see
/// [`WARMUP_US`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Warmup {
    /// How long after connecting a client is warming up, s.
    pub after_connect_s: f64,
    /// The time clients took to connect, ms: from the start to each
    /// client's first render naming a frame the authority made (a peer's
    /// game frame past the first) or own inputs of which the authority had
    /// applied one — measured by the harness, never said by the algorithm.
    /// Clients that never connected are not in it.
    pub connect_ms: Stats,
    /// Clients that never connected.
    pub never_connected: u64,
    /// Client-seconds after the warm-ups: what the rates are taken over.
    pub counted_client_s: f64,
    /// Snap events in the warm-ups, all clients.
    pub snaps: u64,
    /// Inputs sampled in the warm-ups and dropped, all players.
    pub inputs_dropped: u64,
    /// Inputs sampled in the warm-ups and late, all players.
    pub inputs_late: u64,
    /// Inputs sampled in the warm-ups and repeated, all players.
    pub inputs_repeated: u64,
}

/// Peer-to-peer and relay: how far the game a screen shows trails the
/// real-time schedule. The schedule's tick at `(f − 1)·dt` makes frame
/// `f`; a render at `t` is drawn after the ticks at instants before it,
/// which have made `⌈t/dt⌉` frames (one at a tick's instant comes before
/// that tick), and a screen that interpolates toward the newest frame
/// draws it over the tick after (`algorithms::support::render_lerp`). A
/// screen whose view names frame `n` (its game time,
/// [`crate::contract::View::show_game`]) lags `(⌈t/dt⌉ − 1 − n)·dt`, 0 when
/// at or ahead of it — so a screen on schedule reads 0 at any render rate
/// and phase, and one a stall left k frames behind reads k ticks. Stalls
/// accumulate here, not in divergence: a peer that waited is judged on
/// what it shows of the frame it is at.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Lag {
    /// Over every render of every screen, ms.
    pub behind_ms: Stats,
    /// The screen furthest behind at its last render, ms.
    pub at_end_ms: f64,
}

/// Displayed jumps, counted as events (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snaps {
    /// Events, all clients (warm-ups included).
    pub events: u64,
    /// Events after the warm-ups per client-minute after them (see
    /// [`Warmup`]).
    pub per_client_per_min: f64,
    /// The largest jump of any event, metres.
    pub largest_jump_m: f64,
    /// Entity-renders over the threshold (all events' renders).
    pub renders: u64,
}

/// Stalls as runs of stalled ticks (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stalls {
    /// Stalls (runs of stalled ticks) per client.
    pub stalls_per_client: f64,
    /// Time stalled per client, ms.
    pub stalled_ms_per_client: f64,
    /// Freezes (stalls of 100 ms or more) per client.
    pub freezes_per_client: f64,
    /// Time in freezes per client, ms: the perceptible part.
    pub freeze_ms_per_client: f64,
    /// Freezes, all clients.
    pub freezes: u64,
    /// The longest stall of any client, ms.
    pub longest_ms: f64,
}

/// Whether each sampled input ran once, for its own duration.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InputFidelity {
    /// Samples judged (all players).
    pub judged: u64,
    /// Frames that ran an input beyond its duration, or none new (all players).
    pub repeated: u64,
    /// Samples never run while the network lost a packet that may have
    /// carried them (all players).
    pub dropped: u64,
    /// Samples never run although the network lost nothing that may have
    /// carried them: late, not lost (all players).
    #[serde(default)]
    pub late: u64,
    /// `repeated` after the warm-ups per client-minute after them (see
    /// [`Warmup`]).
    pub repeated_per_min: f64,
    /// `dropped` after the warm-ups per client-minute after them.
    pub dropped_per_min: f64,
    /// `late` after the warm-ups per client-minute after them.
    #[serde(default)]
    pub late_per_min: f64,
    /// Per player `[repeated, dropped]`.
    pub per_client: Vec<[u64; 2]>,
    /// Per player, `late`.
    #[serde(default)]
    pub late_per_client: Vec<u64>,
}

impl InputFidelity {
    /// Samples never run a client-minute, dropped or late.
    pub fn unrun_per_min(&self) -> f64 {
        self.dropped_per_min + self.late_per_min
    }
}

/// Entities shown where the game cannot put them (see [`on_map`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Impossible {
    /// Entity-renders inside a wall or outside the arena by more than 10 cm.
    pub renders: u64,
    /// `renders` / all entity-renders.
    pub share: f64,
    /// The deepest, metres.
    pub deepest_m: f64,
    /// Where the deepest was seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deepest_at: Option<Located>,
}

/// Facts about the trace the ideal world revealed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceFacts {
    /// Input changes that move something (the ones latency is timed on).
    pub effective_changes: u64,
    /// Input changes the world ignores (not timed).
    pub ineffective_changes: u64,
    /// Frames of the ideal world in which two players touch.
    pub contact_frames: u64,
}

/// Whether the shooter's screen and the authority agreed on each shot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HitAgreement {
    /// Authoritative shots matched with what the shooter's screen showed.
    pub shots: u64,
    /// Shots the screen or the authority (or both) scored as a hit.
    pub hit_shots: u64,
    /// Of those, shots where both named the same target.
    pub agreed_hits: u64,
    /// `agreed_hits / hit_shots` (none when no shot hit on either side).
    pub share: Option<f64>,
    /// Shots the shooter's screen showed as hits.
    pub screen_hits: u64,
    /// Shots the authority counted as hits.
    pub authority_hits: u64,
}

/// What clients were shown against their area of interest (runs with
/// `--aoi`; definitions in [`interest`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct InterestMetrics {
    /// Mean share of the other entities within a player's radius.
    pub visible_share: f64,
    /// Mean remote entities shown per render.
    pub shown_per_render: f64,
    /// Entering the radius to first shown, ms.
    pub awareness_ms: Stats,
    /// Longest wait to be shown, finished or not, ms.
    pub longest_unaware_ms: f64,
    /// Entities that entered a radius and left (or the run ended) unshown.
    pub unaware_visits: u64,
    /// Entity-renders shown after being beyond radius + hysteresis for
    /// longer than the grace.
    pub leaks: u64,
    /// `leaks` / remote entity-renders.
    pub leak_share: f64,
    /// A filtering server's index work: entities put to the exact distance
    /// test per tick, for all clients (none when the server does not filter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_examined_per_tick: Option<f64>,
}

impl Metrics {
    /// `rate`, one of the per-client-minute rates, when the run has time
    /// after its warm-ups to take it over (`None`: every client was still
    /// warming up at the end).
    pub fn rate(&self, rate: f64) -> Option<f64> {
        match &self.warmup {
            Some(w) if w.counted_client_s <= 0.0 => None,
            _ => Some(rate),
        }
    }

    /// A distance in metres as a multiple of the player's size (`None` for a
    /// report written before the size was recorded).
    pub fn in_player_sizes(&self, metres: f64) -> Option<f64> {
        (self.player_size_m > 0.0).then(|| metres / self.player_size_m)
    }
}

/// Every number of one run (the `metrics` object of a report).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    /// Displayed vs authority, metres.
    pub divergence_m: OwnRemote,
    /// The side of a player's square in this run's game, m: divergence
    /// divided by it reads the same across games of different scales
    /// ([`Metrics::in_player_sizes`]).
    #[serde(default)]
    pub player_size_m: f64,
    /// Displayed vs ideal world, metres.
    pub ideal_divergence_m: OwnRemote,
    /// Frames on which a peer's confirmed state differed from the replay.
    pub desyncs: u64,
    /// Reconciliations that moved the predicted state.
    pub corrections: u64,
    /// Rollbacks.
    pub rollbacks: u64,
    /// Frames re-simulated (rollbacks and replays).
    pub resimulated_frames: u64,
    /// Displayed jumps, as events.
    pub snaps: Snaps,
    /// Time clients spent waiting for input, as stalls and freezes.
    pub stalls: Stalls,
    /// Peer-to-peer and relay: the game's lag behind the real-time
    /// schedule (none for client/server, or views that name no frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lag_ms: Option<Lag>,
    /// Sampled inputs the authority ran too often or never.
    pub input_fidelity: InputFidelity,
    /// The warm-ups the rates leave out, and the time to connect
    /// (`None` in reports made before rates left them out: their rates
    /// are over the whole run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warmup: Option<Warmup>,
    /// Entities shown inside walls or off the map.
    pub impossible: Impossible,
    /// What the ideal world says about the trace.
    pub trace_facts: TraceFacts,
    /// Per client, mean over clients.
    pub bandwidth: Bandwidth,
    /// Server traffic (client/server runs).
    pub server_bandwidth: Option<Bandwidth>,
    /// Input to screen, ms: over the changes that were shown.
    pub input_latency_ms: OwnRemote,
    /// Changes never shown: of the effective input changes made before the
    /// run's last two seconds, of players a screen still showed at the end,
    /// the share (%) that screen never showed — leaving out those in flight
    /// at the end. A latency percentile is over shown changes only; this is
    /// what it leaves out.
    #[serde(default)]
    pub input_changes_unshown_pct: OwnRemotePct,
    /// Changes in flight at the end: of all the effective input changes of
    /// players a screen still showed at the end, the share (%) the screen
    /// had not been credited with when the run ended, made in its last two
    /// seconds or drawn by a render that waits for the authority to apply
    /// them. Shown, in flight and never shown account for every change.
    #[serde(default)]
    pub input_changes_in_flight_pct: OwnRemotePct,
    /// Game steps executed by all nodes per simulated second.
    pub sim_steps_per_s: f64,
    /// Render samples whose authority frame was never confirmed.
    pub unscored_samples: u64,
    /// Published inputs that differ from what the harness sampled.
    pub input_mismatches: u64,
    /// First desync, with the fields that differ.
    pub first_desync: Option<Desync>,
    /// Contract violations seen (first few).
    pub violations: Vec<String>,
    /// What the network did.
    pub network: NetworkCounts,
    /// Clock-sync error, for algorithms that estimate the server clock.
    pub clock_offset_error: Option<ClockError>,
    /// Divergence at the last render (worst client).
    pub final_divergence_m: FinalDivergence,
    /// Per client: own latency and stall.
    pub per_client: Vec<ClientMetrics>,
    /// Second by second.
    pub timeline: Timeline,
    /// Latency distributions.
    pub latency_cdf_ms: LatencyCdf,
    /// The input-latency distributions in full, as HdrHistogram encodes
    /// them: what `diff` measures a change of shape by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_histograms: Option<LatencyHistograms>,
    /// Conformance checks, when a conformance run asked for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Checks>,
    /// Hit agreement, when players shot.
    pub hit_agreement: Option<HitAgreement>,
    /// Area-of-interest measurements, when the run set one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interest: Option<InterestMetrics>,
}
