//! One iteration of the `match` benchmark (`benches/match.rs`): a 60 s,
//! 4-client match on `wifi` with `random-walk` input, seed 1, on one core,
//! through the library's `run` — so its instructions can be counted
//! (criterion times many iterations; this runs exactly one).
//!
//! ```text
//! cargo build --release --example one_match
//! SYNCBENCH=target/release/examples/one_match scripts/count-instructions.sh snapshot
//! ```

use harness::net::Profile;
use harness::runner::{run, RunConfig};
use harness::trace::TraceSpec;
use std::process::ExitCode;

/// Prints `what` and exits 2 (bad input: an unknown algorithm, or a
/// profile or trace that does not load).
fn refuse(what: impl std::fmt::Display) -> ExitCode {
    eprintln!("one_match: {what}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let Some(name) = std::env::args().nth(1) else {
        return refuse("usage: one_match ALGORITHM (one of the registry's, e.g. snapshot)");
    };
    let Some(algo) = algorithms::registry::all().iter().find(|a| a.name() == name) else {
        return refuse(format!("no algorithm '{name}'; expected one of {}", algorithms::registry::names().join(", ")));
    };
    // As the benchmark: one thread judges.
    let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
    if rayon::current_num_threads() != 1 {
        return refuse("rayon's pool has more than one thread; the benchmark runs on one");
    }
    let profile = match Profile::resolve("wifi", &harness::library::dirs("netem-profiles")) {
        Ok(p) => p,
        Err(e) => return refuse(e),
    };
    let cfg = RunConfig { clients: 4, duration_us: 60_000_000, seed: 1, ..RunConfig::default() };
    let trace = match TraceSpec::resolve("random-walk", &[]).and_then(|s| s.instantiate(4, cfg.duration_us, 1)) {
        Ok(t) => t,
        Err(e) => return refuse(e),
    };
    match run(*algo, &profile, &trace, &cfg) {
        Ok(r) => {
            println!("{name}: {} desynced frames", r.metrics.desyncs);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("one_match: {name}: {e}");
            ExitCode::FAILURE
        }
    }
}
