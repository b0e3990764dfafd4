//! Helpers shared by the integration tests.

use harness::contract::Algorithm;
use harness::metrics::Metrics;
use harness::net::Profile;
use harness::runner::{run, RunConfig};
use harness::trace::TraceSpec;

/// Runs `algo` by name on an inline or named profile and a trace spec.
pub fn run_named(algo: &str, profile: &str, trace: &str, cfg: RunConfig) -> Metrics {
    let a = algorithms::registry::find(algo).expect("registered");
    run_algo(a, profile, trace, cfg)
}

/// Runs an algorithm value.
pub fn run_algo(a: &dyn Algorithm, profile: &str, trace: &str, cfg: RunConfig) -> Metrics {
    let p = profile_of(profile);
    let t = TraceSpec::resolve(trace, &harness::library::dirs("traces"))
        .expect("trace")
        .instantiate(cfg.clients, cfg.duration_us, cfg.seed)
        .expect("instantiate");
    run(a, &p, &t, &cfg).expect("run").metrics
}

/// A profile from a name or inline string.
pub fn profile_of(s: &str) -> Profile {
    Profile::resolve(s, &harness::library::dirs("netem-profiles")).expect("profile")
}

/// A config of `clients` players for `secs` seconds with `seed`.
pub fn cfg(clients: usize, secs: u64, seed: u64) -> RunConfig {
    RunConfig { clients, duration_us: secs * 1_000_000, seed, ..RunConfig::default() }
}

/// One 60 Hz tick in ms.
pub const TICK_MS: f64 = 1000.0 / 60.0;

/// Runs the `syncbench` binary in the repository root: exit code, stdout,
/// stderr.
pub fn syncbench(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_syncbench"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}
