//! A run's configuration and outcome: what the entry points take and give.

use crate::contract::Options;
use crate::metrics::Metrics;
use crate::net::transport::TransportKind;
use crate::net::UDP_IPV4_HEADER_BYTES;
use crate::time::LocalClock;
use crate::world::{Aoi, World};

/// How a run is set up, apart from algorithm, network and trace.
#[derive(Clone, Debug, PartialEq)]
pub struct RunConfig {
    /// Players (one client or peer each).
    pub clients: usize,
    /// Simulated duration, µs.
    pub duration_us: u64,
    /// The run seed: every random stream is derived from it.
    pub seed: u64,
    /// Node tick rate and game step rate, Hz.
    pub tick_hz: u32,
    /// Render rate per client, Hz (the last value repeats for the rest).
    pub render_hz: Vec<u32>,
    /// Clock of each client or peer (the last value repeats); the server's
    /// clock is exact.
    pub clocks: Vec<LocalClock>,
    /// Algorithm options.
    pub options: Options,
    /// Per-packet header overhead counted in bandwidth.
    pub header_bytes: usize,
    /// What carries the algorithm's messages.
    pub transport: TransportKind,
    /// Conformance checks: `Some(mark)` turns them on, with progress counted
    /// after `mark` µs.
    pub checks: Option<Option<u64>>,
    /// Paced: virtual time follows the wall clock (for code under test that
    /// reads the clock itself, like `ggrs`). The only place the simulator
    /// reads the wall clock; a paced run is not reproducible.
    pub paced: bool,
    /// Drop corrupted copies at the receiver, as a real UDP stack's
    /// checksum does (the default: what Linux's netem does to a UDP socket,
    /// measured in `reports/netem-corrupt.md`). `false` delivers the
    /// flipped bytes, as to a sender with `SO_NO_CHECK`, so decoders are
    /// tested against them.
    pub drop_corrupted: bool,
    /// The arena.
    pub world: World,
    /// The reference game's numbers (`--game`): speeds, sizes, jump, shot.
    pub game: crate::game::GameSettings,
    /// Server-driven bots after the players.
    pub bots: usize,
    /// The area of interest (`None`: not set, nothing measured against it).
    pub aoi: Option<Aoi>,
    /// Renders to keep for a closer look ([`RunResult::probed`]).
    pub probe: Option<crate::metrics::kept_renders::Probe>,
}

impl RunConfig {
    /// Player `p`'s render rate (the list's last entry repeats; 60 if empty).
    pub fn render_hz_of(&self, p: usize) -> u32 {
        *self.render_hz.get(p).or(self.render_hz.last()).unwrap_or(&60)
    }

    /// Player `p`'s local clock (the list's last entry repeats; exact if empty).
    pub fn clock_of(&self, p: usize) -> LocalClock {
        *self.clocks.get(p).or(self.clocks.last()).unwrap_or(&LocalClock::EXACT)
    }
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            clients: 4,
            duration_us: 60_000_000,
            seed: 1,
            tick_hz: 60,
            render_hz: vec![60],
            clocks: vec![LocalClock::EXACT],
            options: Options::default(),
            header_bytes: UDP_IPV4_HEADER_BYTES,
            transport: TransportKind::Unreliable,
            checks: None,
            paced: false,
            drop_corrupted: true,
            world: World::Standard,
            game: crate::game::GameSettings::default(),
            bots: 0,
            aoi: None,
            probe: None,
        }
    }
}

/// Why a run could not start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The configuration is unusable.
    #[error("bad run configuration: {0}")]
    Config(String),
}

/// The outcome of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Everything measured.
    pub metrics: Metrics,
    /// The distributions the metrics summarise.
    pub distributions: crate::metrics::distributions::RunDistributions,
    /// Events processed (for cost accounting).
    pub events: u64,
    /// The renders [`RunConfig::probe`] asked for.
    pub probed: Vec<crate::metrics::kept_renders::Probed>,
}

/// Most entities (players + bots) in a run: entity ids are `u16` on screens.
pub const MAX_ENTITIES: usize = 60_000;
