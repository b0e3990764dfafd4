//! `naia`: the real naia crate (0.25) replicating the reference game on
//! virtual time, the state-sync family's real library.
//!
//! naia is built with its published `test_time` feature, which swaps its
//! clock for a settable thread-local one with millisecond resolution
//! (`Clock` sets it to the node's local time before every call into
//! naia); its packets travel the harness's links through its socket
//! traits ([`socket`]). The server (`server.rs`) steps the game on naia's
//! ticks and replicates each entity's [`protocol::Body`]; clients
//! (`client.rs`) send tick-buffered commands, predict their own player
//! with naia's `CommandHistory` and interpolate the rest, as naia's own
//! demo does. With `--aoi` naia's scopes are the area of interest.
//!
//! naia's tick is whole milliseconds: it ticks every ⌊1000 / tick_hz⌋ ms
//! and at most once per call, so it ticks once per harness tick (16 ms
//! asked, 16.7 ms measured at 60 Hz).

mod client;
// naia's derives write public constructors without doc comments.
#[allow(missing_docs)]
pub mod protocol;
mod server;
pub mod socket;
pub mod world;

use harness::contract::{Algorithm, Node, OptionSpec, Options, Setup, Topology};
use std::time::Duration;

/// The adapter.
pub struct Naia;

/// naia's `ClientConfig::handshake_pings`: time-sync pings before the
/// client connects (naia's default).
pub const HANDSHAKE_PINGS: OptionSpec =
    OptionSpec::count("handshake-pings", "10", 1, 255, "time-sync pings before connecting (naia's handshake_pings)");
/// naia's `ClientConfig::send_handshake_interval`, ms (naia's default).
pub const HANDSHAKE_INTERVAL: OptionSpec = OptionSpec::count(
    "handshake-interval",
    "250",
    1,
    5000,
    "ms between handshake packets (naia's send_handshake_interval)",
);

/// The longest handshake allowed, ms: pings × interval within naia's
/// server's `pending_auth_timeout` (10 s), with room for the round trips.
const MAX_HANDSHAKE_MS: f64 = 8000.0;

/// naia's tick interval for a harness tick rate (see the module docs).
pub fn tick_interval(tick_hz: u32) -> Duration {
    Duration::from_millis((1000 / tick_hz.max(1) as u64).max(1))
}

/// One node's naia clock: milliseconds since the node first ran, from
/// 1, set on the calling thread before each call into naia (the screens
/// of an instant may be drawn on other threads).
#[derive(Default)]
pub(crate) struct Clock {
    base: Option<i64>,
}

impl Clock {
    fn set(&mut self, now_us: i64) {
        let base = *self.base.get_or_insert(now_us);
        naia_shared::TestClock::init(((now_us - base).max(0) / 1000) as u64 + 1);
    }
}

impl Algorithm for Naia {
    fn name(&self) -> &'static str {
        "naia"
    }
    fn description(&self) -> &'static str {
        "entity replication with tick-buffered commands, own-player prediction and interpolation, scopes as the area of interest"
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn library(&self) -> Option<&'static str> {
        Some("naia 0.25.0")
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[HANDSHAKE_PINGS, HANDSHAKE_INTERVAL]
    }
    fn check_options(&self, o: &Options) -> Result<(), String> {
        // naia's server forgets a client that has not connected within its
        // pending_auth_timeout (10 s): a longer handshake never connects.
        let ms = o.number(&HANDSHAKE_PINGS) * o.number(&HANDSHAKE_INTERVAL);
        if ms > MAX_HANDSHAKE_MS {
            return Err(format!(
                "handshake-pings × handshake-interval is {ms} ms; naia's server gives up on a client after 10 s, so at most {MAX_HANDSHAKE_MS} ms"
            ));
        }
        Ok(())
    }
    fn takes_corruption(&self) -> Result<(), &'static str> {
        // Measured: 37 of 120 runs with `--corrupted deliver` panicked
        // inside naia 0.25 (unwraps on malformed packets in
        // world_server.rs, message_kinds.rs, client.rs) or aborted on a
        // length read from flipped bits (allocations of 40 GB and more),
        // differently from run to run.
        Err("naia 0.25 panics or aborts on a malformed packet (an unwrap on a failed decode; a length read from flipped bits allocates gigabytes); run it with --corrupted drop, the default")
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn handles_aoi(&self) -> bool {
        true
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        Box::new(server::ServerNode::new(s, tick_interval(s.tick_hz)))
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        Box::new(client::ClientNode::new(s, player, tick_interval(s.tick_hz)))
    }
}
