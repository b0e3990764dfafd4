//! The plug-in contract: what an algorithm implements and what it may touch.
//!
//! An [`Algorithm`] is a factory of nodes. Client/server algorithms make one
//! server and one client per player; peer-to-peer algorithms make one peer
//! per player. A [`Node`] reacts to two things — its own fixed-rate `tick`
//! (on its local clock) and a `packet` arriving — and is asked to `render`
//! at its client's screen rate. It reaches the world only through a
//! [`Ctx`]: local time, the player's input device, `send`, the game, and
//! *publishing*:
//!
//! - a server publishes its authoritative state every frame
//!   ([`Ctx::publish_authority`]);
//! - a peer publishes every state it confirms with the inputs that produced
//!   it ([`Ctx::publish_confirmed`]): the harness replays those inputs itself
//!   and compares, so desyncs are found, not self-reported;
//! - a client (or peer) fills a [`View`] at each render: what its player
//!   sees, per entity a position and either the sequence number of the
//!   last input applied to it (what a client knows of its own player) or
//!   the authoritative frame the state comes from (the harness knows which
//!   inputs that frame had applied). These names are held to the drawn
//!   positions (see [`EntityView`] for what to name).
//!
//! From these the harness derives divergence, snaps, latency and desyncs.
//! Algorithms only [`report`](Ctx::report) what only they can know
//! (a reconciliation, a rollback of depth d, a stalled tick).
//!
//! Messages are bytes the algorithm encodes itself, so bandwidth is measured
//! on real encodings (plus 28 bytes of UDP/IPv4 header per packet).
//! Algorithms never read a clock, never do I/O and never use unseeded
//! randomness: a run is a pure function of its inputs.
//!
//! # Adding an algorithm
//!
//! A minimal client/server algorithm — the server steps the world with the
//! latest input of each client and broadcasts the positions; clients show
//! the latest broadcast:
//!
//! ```
//! use harness::contract::*;
//! use harness::game::{SeqInput, State, Input};
//!
//! struct Echo;
//! impl Algorithm for Echo {
//!     fn name(&self) -> &'static str { "echo" }
//!     fn description(&self) -> &'static str { "toy: latest input, full state" }
//!     fn topology(&self) -> Topology { Topology::ClientServer }
//!     fn server(&self, s: &Setup) -> Box<dyn Node> {
//!         Box::new(EchoServer { state: s.initial.clone(), inputs: vec![SeqInput::default(); s.players] })
//!     }
//!     fn client(&self, s: &Setup, _player: usize) -> Box<dyn Node> {
//!         Box::new(EchoClient { shown: s.initial.clone() })
//!     }
//! }
//!
//! struct EchoServer { state: State, inputs: Vec<SeqInput> }
//! impl Node for EchoServer {
//!     fn on_tick(&mut self, ctx: &mut Ctx) {
//!         ctx.game().step(&mut self.state, &self.inputs);
//!         ctx.publish_authority(&self.state);
//!         let mut msg = Vec::new();
//!         self.state.encode(&mut msg);
//!         for p in 0..ctx.setup().players {
//!             ctx.send(ctx.setup().node_of_player(p), msg.clone());
//!         }
//!     }
//!     fn on_packet(&mut self, ctx: &mut Ctx, from: NodeId, bytes: &[u8]) {
//!         let (Some(p), Some(input)) = (ctx.setup().player_of_node(from), Input::decode(&bytes[4..])) else { return };
//!         let seq = u32::from_le_bytes(bytes[..4].try_into().unwrap());
//!         if seq > self.inputs[p].seq { self.inputs[p] = SeqInput { seq, input }; }
//!     }
//! }
//!
//! struct EchoClient { shown: State }
//! impl Node for EchoClient {
//!     fn on_tick(&mut self, ctx: &mut Ctx) {
//!         let Some(s) = ctx.sample_input() else { return };
//!         let mut msg = s.seq.to_le_bytes().to_vec();
//!         s.input.encode(&mut msg);
//!         ctx.send(ctx.setup().server(), msg);
//!     }
//!     fn on_packet(&mut self, _ctx: &mut Ctx, _from: NodeId, bytes: &[u8]) {
//!         if let Some((s, _)) = State::decode(bytes) { if s.frame > self.shown.frame { self.shown = s; } }
//!     }
//!     fn render(&mut self, _ctx: &RenderCtx, view: &mut View) {
//!         view.show_state(&self.shown);
//!     }
//! }
//!
//! // Run it for two seconds on a 30 ms link.
//! use harness::{net::Profile, runner::{run, RunConfig}, trace::TraceSpec};
//! let profile = Profile::resolve("delay 30ms", &[]).unwrap();
//! let cfg = RunConfig { clients: 2, duration_us: 2_000_000, ..RunConfig::default() };
//! let trace = TraceSpec::resolve("zigzag", &[]).unwrap().instantiate(2, cfg.duration_us, 1).unwrap();
//! let result = run(&Echo, &profile, &trace, &cfg).unwrap();
//! assert!(result.metrics.input_latency_ms.own.p50 >= 60.0);
//! ```
//!
//! To select it by name from the command line, build your own binary on
//! the `syncbench` library — `syncbench::Cli::new().algorithm(&Echo).run()`
//! (see `examples/my-netcode/`) — or, inside this repository, register it
//! in the `algorithms` crate's registry.

use crate::game::{Game, SeqInput, State};
use crate::time::Micros;
use std::collections::BTreeMap;
use std::fmt;

/// A node's address in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub u16);

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node{}", self.0)
    }
}

/// How the nodes of an algorithm are arranged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// One server (node 0) and one client per player (node 1 + player); the
    /// server's published state is the authority.
    ClientServer,
    /// One peer per player (node = player); the authority is the agreed
    /// input log, replayed by the harness from what peers confirm.
    PeerToPeer,
    /// A relay server (node 0) and one client per player (node 1 + player):
    /// the clients run the game on the inputs the server relays and confirm
    /// frames, as peers do (frame locking, bucket synchronization).
    Relay,
}

impl Topology {
    /// The player node `n` plays in a match of `players`, if any (not the
    /// server): players take node ids after the server's 0, or from 0.
    pub fn player_of_node(&self, players: usize, n: NodeId) -> Option<usize> {
        let p = if self.has_server() { (n.0 as usize).checked_sub(1)? } else { n.0 as usize };
        (p < players).then_some(p)
    }

    /// Short name for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Topology::ClientServer => "client-server",
            Topology::PeerToPeer => "peer-to-peer",
            Topology::Relay => "relay",
        }
    }

    /// Whether node 0 is a server.
    pub fn has_server(self) -> bool {
        self != Topology::PeerToPeer
    }

    /// Whether the authority is the confirmed input log (not a server's
    /// published state).
    pub fn confirms(self) -> bool {
        self != Topology::ClientServer
    }
}

/// An algorithm option: name, default, allowed values, meaning.
#[derive(Clone, Copy, Debug)]
pub struct OptionSpec {
    /// Key used with `--opt key=value`.
    pub name: &'static str,
    /// Default value as text.
    pub default: &'static str,
    /// What it does.
    pub help: &'static str,
    /// The allowed words; empty for a numeric option.
    pub choices: &'static [&'static str],
    /// Smallest allowed value (numeric options).
    pub min: f64,
    /// Largest allowed value (numeric options).
    pub max: f64,
    /// Whole numbers only (frames, counts, 0/1 switches).
    pub whole: bool,
}

impl OptionSpec {
    /// A real-valued option allowed in `min..=max`.
    pub const fn number(
        name: &'static str,
        default: &'static str,
        min: f64,
        max: f64,
        help: &'static str,
    ) -> OptionSpec {
        OptionSpec { name, default, help, choices: &[], min, max, whole: false }
    }
    /// A whole-number option allowed in `min..=max` (frames, counts, 0/1).
    pub const fn count(
        name: &'static str,
        default: &'static str,
        min: u32,
        max: u32,
        help: &'static str,
    ) -> OptionSpec {
        OptionSpec { name, default, help, choices: &[], min: min as f64, max: max as f64, whole: true }
    }
    /// An option taking one of `choices`.
    pub const fn choice(
        name: &'static str,
        default: &'static str,
        choices: &'static [&'static str],
        help: &'static str,
    ) -> OptionSpec {
        OptionSpec { name, default, help, choices, min: 0.0, max: 0.0, whole: false }
    }

    /// The allowed values, as `list algorithms` and errors state them.
    pub fn allowed(&self) -> String {
        if !self.choices.is_empty() {
            return format!("one of {}", self.choices.join(", "));
        }
        let kind = if self.whole { "a whole number" } else { "a number" };
        format!("{kind} in {}..={}", self.min, self.max)
    }

    /// Checks one value against the spec.
    pub fn check(&self, v: &str) -> Result<(), String> {
        let ok = if self.choices.is_empty() {
            v.parse::<f64>()
                .ok()
                .is_some_and(|x| x.is_finite() && x >= self.min && x <= self.max && (!self.whole || x.fract() == 0.0))
        } else {
            self.choices.contains(&v)
        };
        if ok {
            Ok(())
        } else {
            Err(format!("option `{}={}`: expected {}", self.name, crate::error::echo(v), self.allowed()))
        }
    }
}

/// Algorithm options given with `--opt key=value`, checked against the
/// algorithm's [`Algorithm::options`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Options(pub BTreeMap<String, String>);

impl Options {
    /// Parses `key=value` items.
    pub fn parse(items: &[String]) -> Result<Options, String> {
        let mut m = BTreeMap::new();
        for it in items {
            let (k, v) = it.split_once('=').ok_or_else(|| format!("option `{it}`: expected key=value"))?;
            m.insert(k.trim().to_string(), v.trim().to_string());
        }
        Ok(Options(m))
    }

    /// Rejects keys the algorithm does not declare.
    pub fn check(&self, algorithm: &dyn Algorithm) -> Result<(), String> {
        let known = algorithm.options();
        for k in self.0.keys() {
            if !known.iter().any(|o| o.name == k) {
                let names: Vec<&str> = known.iter().map(|o| o.name).collect();
                return Err(format!(
                    "algorithm `{}` has no option `{k}` (its options: {})",
                    algorithm.name(),
                    if names.is_empty() { "none".to_string() } else { names.join(", ") }
                ));
            }
        }
        for o in known {
            if let Some(v) = self.0.get(o.name) {
                o.check(v)?;
            }
        }
        algorithm.check_options(self).map_err(|e| format!("algorithm `{}`: {e}", algorithm.name()))
    }

    /// The options meant for `algorithm` out of a list that may name
    /// algorithms (`prediction:interp=150` applies to `prediction` only,
    /// `interp=150` to every algorithm): prefixes for other algorithms are
    /// dropped, this one's stripped.
    pub fn for_algorithm(&self, algorithm: &str) -> Options {
        let mut out = BTreeMap::new();
        for (k, v) in &self.0 {
            match k.split_once(':') {
                Some((a, key)) if a == algorithm => {
                    out.insert(key.to_string(), v.clone());
                }
                Some(_) => {}
                None => {
                    out.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
        }
        Options(out)
    }

    /// The algorithms the options name by prefix.
    pub fn named_algorithms(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.0.keys().filter_map(|k| k.split_once(':').map(|(a, _)| a)).collect();
        v.dedup();
        v
    }

    /// Every option `algorithm` declares, as it takes effect: the value
    /// given or the default, numbers written canonically (`0.050` and
    /// `5e-2` are `0.05`), so two runs that behave the same compare equal.
    pub fn effective(&self, algorithm: &dyn Algorithm) -> BTreeMap<String, String> {
        algorithm
            .options()
            .iter()
            .map(|o| {
                let v = self.0.get(o.name).map(String::as_str).unwrap_or(o.default);
                let v = match (o.choices.is_empty(), v.parse::<f64>()) {
                    (true, Ok(x)) => format!("{x}"),
                    _ => v.to_string(),
                };
                (o.name.to_string(), v)
            })
            .collect()
    }

    /// A word option, or the declared default.
    pub fn word(&self, spec: &OptionSpec) -> String {
        self.0.get(spec.name).cloned().unwrap_or_else(|| spec.default.to_string())
    }

    /// A numeric option, or the declared default.
    pub fn number(&self, spec: &OptionSpec) -> f64 {
        self.0.get(spec.name).map(String::as_str).unwrap_or(spec.default).parse().unwrap_or(0.0)
    }
}

/// What every node of a run is told at creation.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Number of players.
    pub players: usize,
    /// Node tick rate, Hz (the game's step rate).
    pub tick_hz: u32,
    /// The state at frame 0, known to everyone.
    pub initial: State,
    /// Topology of this run.
    pub topology: Topology,
    /// Algorithm options.
    pub options: Options,
    /// A seed for anything the session must agree on (a game's random item
    /// spawns, say); derived from the run seed.
    pub session_seed: u64,
    /// The area of interest, when the run sets one (`--aoi`): algorithms
    /// that [filter](Algorithm::handles_aoi) tell each client only about
    /// the entities within it.
    pub aoi: Option<crate::world::Aoi>,
}

impl Setup {
    /// The server's node (client/server runs).
    pub fn server(&self) -> NodeId {
        NodeId(0)
    }

    /// The node that plays player `p`.
    pub fn node_of_player(&self, p: usize) -> NodeId {
        if self.topology.has_server() {
            NodeId(1 + p as u16)
        } else {
            NodeId(p as u16)
        }
    }

    /// The player a node plays, if any (not the server).
    pub fn player_of_node(&self, n: NodeId) -> Option<usize> {
        self.topology.player_of_node(self.players, n)
    }

    /// Number of nodes in the run.
    pub fn nodes(&self) -> usize {
        self.players + self.topology.has_server() as usize
    }

    /// Entities in the world: the players, then the server-driven bots
    /// (entity ids `players..entities`).
    pub fn entities(&self) -> usize {
        self.initial.players.len()
    }
}

/// A synchronization algorithm: a factory of nodes.
pub trait Algorithm: Send + Sync {
    /// Name used on the command line.
    fn name(&self) -> &'static str;
    /// One line for `list`.
    fn description(&self) -> &'static str;
    /// Client/server or peer-to-peer.
    fn topology(&self) -> Topology;
    /// Options accepted with `--opt`.
    fn options(&self) -> &'static [OptionSpec] {
        &[]
    }
    /// Checks relations between options (each option's own range is checked
    /// from [`Algorithm::options`] before this), e.g. `key-min ≤ key-max`.
    fn check_options(&self, _options: &Options) -> Result<(), String> {
        Ok(())
    }
    /// Conformance contracts this algorithm does not promise, each with the
    /// reason (shown as "n/a" with it; e.g. dead reckoning extrapolates by
    /// design, so it waives `remote-on-path`).
    fn waived_contracts(&self) -> &'static [(&'static str, &'static str)] {
        &[]
    }
    /// Whether the algorithm copes with server-driven bots (entities after
    /// the players, `--bots`): runs with bots are refused otherwise.
    fn handles_bots(&self) -> bool {
        false
    }
    /// Whether the server filters what it sends by [`Setup::aoi`] (`--aoi
    /// grid|crosslist`): runs that ask for filtering are refused otherwise.
    fn handles_aoi(&self) -> bool {
        false
    }
    /// The third-party library and version this algorithm runs, when it
    /// is one (`list algorithms` marks it; e.g. `naia 0.25.0`).
    fn library(&self) -> Option<&'static str> {
        None
    }
    /// Whether the algorithm takes packets delivered with netem's flipped
    /// bits (`--corrupted deliver`): `Err` says why not, and runs that ask
    /// for it are refused with that reason (a library that panics or
    /// aborts on a malformed packet; `list algorithms` says so).
    fn takes_corruption(&self) -> Result<(), &'static str> {
        Ok(())
    }
    /// The server node (client/server algorithms only).
    fn server(&self, setup: &Setup) -> Box<dyn Node> {
        let _ = setup;
        unimplemented!("{} is peer-to-peer and has no server", self.name())
    }
    /// The node of player `player` (a client or a peer).
    fn client(&self, setup: &Setup, player: usize) -> Box<dyn Node>;
}

/// What an algorithm reports that only it can know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Report {
    /// A reconciliation moved the predicted state.
    Correction,
    /// Frames re-simulated outside a rollback to repair a misprediction:
    /// after a [`Report::Correction`], the pending inputs replayed onto the
    /// server's state. A replay that only confirms the prediction (some
    /// designs replay on every snapshot) is not reported, so the count is
    /// what mispredictions cost and every algorithm counts alike.
    Resimulated(u32),
    /// A rollback to `depth` frames ago, re-simulating them.
    Rollback {
        /// Frames re-simulated.
        depth: u32,
    },
    /// This tick was spent waiting for input (the game did not advance).
    Stalled,
    /// The algorithm's own desync check found peers disagreeing about
    /// `frame` (the harness finds desyncs itself; this records that the
    /// algorithm noticed, and when).
    DesyncDetected {
        /// The frame the peers disagree on.
        frame: u32,
    },
    /// The node's current estimate of `server time − local time`, µs (from
    /// clock synchronization). The harness knows the true offset and
    /// reports the error.
    ClockOffset {
        /// Estimated offset, µs.
        estimate_us: i64,
    },
    /// A filtering server's interest-management work this tick: entities
    /// its spatial index put to the exact distance test (for every client).
    IndexWork {
        /// Entities examined.
        examined: u64,
    },
}

/// What watches the nodes through their [`Ctx`]: the harness's recorder.
/// A trait here, implemented by `metrics::recorder`, so the contract does
/// not depend on the measuring (the recorder depends on the contract's
/// types, not the other way round).
pub(crate) trait Observer {
    /// The input player `p` holds at `t`, with a new sequence number.
    fn sample_input(&mut self, p: usize, t: Micros) -> SeqInput;
    /// A server's authoritative state.
    fn publish_authority(&mut self, t: Micros, state: &State);
    /// A peer's confirmed state and the inputs that made it.
    fn publish_confirmed(&mut self, node: NodeId, t: Micros, state: &State, inputs: &[SeqInput]);
    /// Something only the algorithm knows.
    fn report(&mut self, node: NodeId, t: Micros, local: i64, tick: u64, what: Report);
}

/// A node's doorway to the world during a tick or a packet.
pub struct Ctx<'a> {
    pub(crate) now_global: Micros,
    pub(crate) now_local: i64,
    pub(crate) tick: u64,
    pub(crate) me: NodeId,
    pub(crate) setup: &'a Setup,
    pub(crate) game: &'a Game,
    pub(crate) outbox: &'a mut Vec<(NodeId, Vec<u8>)>,
    pub(crate) recorder: &'a mut dyn Observer,
}

impl<'a> Ctx<'a> {
    /// Local time of this node, µs (its clock, with offset and drift).
    pub fn now(&self) -> i64 {
        self.now_local
    }

    /// Index of this node's current tick (0, 1, …); on a packet, the index
    /// of the next tick.
    pub fn tick(&self) -> u64 {
        self.tick
    }

    /// This node.
    pub fn me(&self) -> NodeId {
        self.me
    }

    /// The player this node plays, if any.
    pub fn player(&self) -> Option<usize> {
        self.setup.player_of_node(self.me)
    }

    /// The run's setup.
    pub fn setup(&self) -> &'a Setup {
        self.setup
    }

    /// The game rules; steps taken through it are counted as simulation cost.
    pub fn game(&self) -> &Game {
        self.game
    }

    /// Samples the player's input device now: the input held at this
    /// instant, with a new sequence number. `None` on a server.
    pub fn sample_input(&mut self) -> Option<SeqInput> {
        let p = self.player()?;
        Some(self.recorder.sample_input(p, self.now_global))
    }

    /// Sends `bytes` to `to` over the unreliable link. Writing it into a
    /// buffer from [`crate::buffers::take`] saves an allocation: the run
    /// returns delivered packets to that pool (any `Vec` works).
    pub fn send(&mut self, to: NodeId, bytes: Vec<u8>) {
        self.outbox.push((to, bytes));
    }

    /// Sends a copy of `bytes` to every player's node (a server broadcast).
    pub fn send_to_players(&mut self, bytes: Vec<u8>) {
        let setup = self.setup;
        self.send_to_each((0..setup.players).map(|p| setup.node_of_player(p)), bytes);
    }

    /// Sends a copy of `bytes` to each of `nodes`, in their order: copies in
    /// pooled buffers ([`crate::buffers`]), the original to the last (back
    /// to the pool when there is none).
    pub fn send_to_each(&mut self, nodes: impl IntoIterator<Item = NodeId>, bytes: Vec<u8>) {
        let mut nodes = nodes.into_iter().peekable();
        while let Some(to) = nodes.next() {
            if nodes.peek().is_none() {
                self.outbox.push((to, bytes));
                return;
            }
            let mut copy = crate::buffers::take(bytes.len());
            copy.extend_from_slice(&bytes);
            self.outbox.push((to, copy));
        }
        crate::buffers::give(bytes);
    }

    /// Server (client/server topology): publishes the authoritative state of
    /// frame `state.frame`.
    pub fn publish_authority(&mut self, state: &State) {
        self.recorder.publish_authority(self.now_global, state);
    }

    /// Peer or relay client: publishes a confirmed state and the inputs (one per player)
    /// that stepped the previous confirmed state into it. Frames must be
    /// published in order, each once per peer.
    pub fn publish_confirmed(&mut self, state: &State, inputs: &[SeqInput]) {
        self.recorder.publish_confirmed(self.me, self.now_global, state, inputs);
    }

    /// What the node would see if it rendered now (for a node that draws
    /// its own picture between events, e.g. to interpolate).
    pub fn render_ctx(&self) -> RenderCtx<'_> {
        RenderCtx { now_local: self.now_local, me: self.me, setup: self.setup, game: self.game }
    }

    /// Reports something only the algorithm knows.
    pub fn report(&mut self, what: Report) {
        self.recorder.report(self.me, self.now_global, self.now_local, self.tick, what);
    }
}

/// What a node may read while rendering.
pub struct RenderCtx<'a> {
    pub(crate) now_local: i64,
    pub(crate) me: NodeId,
    pub(crate) setup: &'a Setup,
    pub(crate) game: &'a Game,
}

impl RenderCtx<'_> {
    /// Local time of this render, µs.
    pub fn now(&self) -> i64 {
        self.now_local
    }
    /// This node.
    pub fn me(&self) -> NodeId {
        self.me
    }
    /// The player this node plays.
    pub fn player(&self) -> Option<usize> {
        self.setup.player_of_node(self.me)
    }
    /// The run's setup.
    pub fn setup(&self) -> &Setup {
        self.setup
    }
    /// The game rules (e.g. for extrapolation). Steps taken here count.
    pub fn game(&self) -> &Game {
        self.game
    }
}

/// One entity as a screen shows it.
///
/// # Naming what the picture includes
///
/// `seq` and `frame` name the newest input of the entity's player that the
/// *drawn* picture includes; latency is timed from them only as far as the
/// picture bears them out (see [`crate::metrics::claims`]): the harness finds where
/// on the authority's path the drawn position lies and credits the render
/// with the older of that and the name. A name newer than the picture buys
/// nothing; a name older than the picture costs latency. Name:
///
/// - **a state drawn as it is**: its frame, or its input's sequence number;
/// - **an interpolated picture** (between states A and B, older first): A —
///   the state the picture includes whole — until the picture reaches B;
/// - **an extrapolated picture** (a state A coasted on): A, the newest
///   state it comes from, not the instant it is coasted to;
/// - **a predicted own player**: the sequence number of the last own input
///   applied to the drawn state;
/// - **a blend from an old picture toward a new state**: the old one until
///   the blend ends.
///
/// The `honest-names` contract fails a screen whose pictures lie more than
/// two ticks behind their names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EntityView {
    /// Entity id (= player id; bots follow the players).
    pub id: u16,
    /// Displayed x, µm.
    pub x: i32,
    /// Displayed y, µm.
    pub y: i32,
    /// Displayed height, µm.
    pub z: i32,
    /// Sequence number of the last input of this entity's player that the
    /// drawn state includes, when the client knows it itself (its own
    /// predicted player; a peer's inputs); 0 otherwise.
    pub seq: u32,
    /// The frame the drawn state of this entity comes from, 0 if none.
    /// Client/server: a frame the server published; the harness looks up
    /// which input of the entity's player that frame had applied, so
    /// algorithms need not send input sequence numbers of every entity,
    /// which no real game does. Peer-to-peer and relay: the frame of the
    /// game the peer shows ([`View::show_game`]) — its game time: remote
    /// divergence is held to the agreed log at that frame, and how far it
    /// trails the real-time schedule is the lag (see the metrics' docs).
    pub frame: u32,
}

/// What a client's screen shows at a render instant.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The entities shown (an entity not listed is not on screen).
    pub entities: Vec<EntityView>,
}

impl View {
    /// Shows every entity of `state` as it is.
    pub fn show_state(&mut self, state: &State) {
        self.entities.clear();
        self.entities.extend(state.players.iter().enumerate().map(|(i, p)| EntityView {
            id: i as u16,
            x: p.x,
            y: p.y,
            z: p.z,
            seq: p.last_seq,
            frame: 0,
        }));
    }

    /// Shows every entity of a peer's game `state` at its frame (peer to
    /// peer and relay): as [`View::show_state`], naming `state.frame` as
    /// the game time the screen is at. A stalled peer is then judged on
    /// what it shows of that frame and its stall counted as lag, once; a
    /// name that is not the picture's frame only adds divergence.
    pub fn show_game(&mut self, state: &State) {
        self.show_state(state);
        for e in &mut self.entities {
            e.frame = state.frame;
        }
    }
}

/// A participant of a run.
///
/// `Send`: the screens of one instant may be drawn on several cores (each
/// node by one thread at a time; never two calls on one node at once), so
/// a node holds no `Rc` or `RefCell` shared with anything else.
pub trait Node: Send {
    /// This node's fixed-rate timer fired.
    fn on_tick(&mut self, ctx: &mut Ctx<'_>);
    /// A packet arrived from `from`.
    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]);
    /// Fill `view` with what this node's screen shows now (clients and
    /// peers; servers are never asked). `view` arrives empty.
    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        let _ = (ctx, view);
    }
}
