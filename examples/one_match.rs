//! One iteration of the `match` benchmark (`benches/match.rs`): a 60 s,
//! 4-client match on `wifi` with `random-walk` input, seed 1, on one core,
//! through the library's `run` — so its instructions can be counted
//! (criterion times many iterations; this runs exactly one). The setting
//! is the benchmark's own (`benches/setting/mod.rs`).
//!
//! ```text
//! cargo build --release --example one_match
//! SYNCBENCH=target/release/examples/one_match scripts/count-instructions.sh snapshot
//! ```

use harness::runner::run;
use std::process::ExitCode;

#[path = "../benches/setting/mod.rs"]
mod setting;

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
    if !setting::on_one_core() {
        return refuse("rayon's pool has more than one thread; the benchmark runs on one");
    }
    let cfg = setting::match_config();
    let (profile, trace) = match (setting::wifi(), setting::trace(cfg.clients, cfg.duration_us)) {
        (Ok(p), Ok(t)) => (p, t),
        (Err(e), _) | (_, Err(e)) => return refuse(e),
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
