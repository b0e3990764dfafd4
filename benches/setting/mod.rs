//! The `match` benchmark's setting, shared by `benches/match.rs` and
//! `examples/one_match.rs` (one iteration of it, for counting
//! instructions), so the two cannot drift apart.

use harness::net::Profile;
use harness::runner::RunConfig;
use harness::trace::{Trace, TraceSpec};

/// The profile the benchmark matches run on; the error says why it did
/// not load (a `netem-profiles/wifi.toml` of the user's may shadow it).
pub fn wifi() -> Result<Profile, String> {
    Profile::resolve("wifi", &harness::library::dirs("netem-profiles")).map_err(|e| e.to_string())
}

/// `players` players' `random-walk` input for `duration_us`, seed 1.
pub fn trace(players: usize, duration_us: u64) -> Result<Trace, String> {
    TraceSpec::resolve("random-walk", &[])
        .and_then(|s| s.instantiate(players, duration_us, 1))
        .map_err(|e| e.to_string())
}

/// A `match/<algorithm>` run: 4 clients, 60 s, seed 1.
pub fn match_config() -> RunConfig {
    RunConfig { clients: 4, duration_us: 60_000_000, seed: 1, ..RunConfig::default() }
}

/// Makes rayon's global pool one thread, if nothing made it yet; whether
/// the pool has one thread.
pub fn on_one_core() -> bool {
    let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
    rayon::current_num_threads() == 1
}
