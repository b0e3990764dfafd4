//! Allocations per simulated second of a small match: what a match does
//! per packet, per frame and per render should allocate nothing (see
//! ARCHITECTURE.md, "Nothing per packet, per frame or per render is
//! allocated"), so a longer match allocates about as often as a shorter
//! one. Its own binary: the allocator counts every thread of the process.

use harness::runner::{run, RunConfig};
use harness::trace::TraceSpec;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Allocations (new blocks and grown ones) of one 4-client `wifi` match of
/// `secs` simulated seconds, its trace made beforehand.
fn allocations(algo: &str, secs: u64) -> usize {
    let a = algorithms::registry::find(algo).expect("registered");
    let profile = harness::net::Profile::resolve("wifi", &harness::library::dirs("netem-profiles")).expect("profile");
    let cfg = RunConfig { clients: 4, duration_us: secs * 1_000_000, seed: 1, ..RunConfig::default() };
    let trace = TraceSpec::resolve("random-walk", &[])
        .expect("trace")
        .instantiate(cfg.clients, cfg.duration_us, cfg.seed)
        .expect("instantiate");
    let region = Region::new(GLOBAL);
    let out = run(a, &profile, &trace, &cfg).expect("run");
    let change = region.change();
    drop(out);
    change.allocations + change.reallocations
}

#[test]
fn allocations_per_simulated_second() {
    for algo in algorithms::registry::all().iter().map(|a| a.name()).filter(|n| *n != "ggrs") {
        let (short, long) = (allocations(algo, 10), allocations(algo, 40));
        let per_second = (long - short.min(long)) as f64 / 30.0;
        eprintln!("{algo}: {short} in 10 s, {long} in 40 s: {per_second:.1} a simulated second");
    }
}
