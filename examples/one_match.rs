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

fn main() -> ExitCode {
    let Some(name) = std::env::args().nth(1) else {
        eprintln!("usage: one_match ALGORITHM (one of the registry's, e.g. snapshot)");
        return ExitCode::from(2);
    };
    let Some(algo) = algorithms::registry::all().iter().find(|a| a.name() == name) else {
        let names: Vec<&str> = algorithms::registry::all().iter().map(|a| a.name()).collect();
        eprintln!("one_match: no algorithm '{name}'; expected one of {}", names.join(", "));
        return ExitCode::from(2);
    };
    let _ = rayon::ThreadPoolBuilder::new().num_threads(1).build_global();
    let profile = Profile::resolve("wifi", &harness::library::dirs("netem-profiles")).expect("the wifi profile ships");
    let cfg = RunConfig { clients: 4, duration_us: 60_000_000, seed: 1, ..RunConfig::default() };
    let trace = TraceSpec::resolve("random-walk", &[])
        .and_then(|s| s.instantiate(4, cfg.duration_us, 1))
        .expect("random-walk instantiates");
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
