//! Allocations per simulated second of a small match (4 clients, `wifi`,
//! 10 s against 40 s, so what a run allocates once cancels out). A match
//! should allocate nothing per packet, per frame or per render (see
//! docs/decisions/0006-compute-once-allocate-nothing-per-event.md): what
//! is left is its logs growing. Three algorithms keep something per
//! message by design, and have budgets of their own.
//! Its own test binary: the allocator counts every thread of the process.

use harness::runner::{run, RunConfig};
use harness::trace::TraceSpec;
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// A 4-peer 60 Hz match has 240 peer-frames and 700-odd packets a
/// simulated second: one allocation per frame or per packet would exceed
/// this many; logs that grow by doubling stay well under it.
const NOTHING_PER_EVENT: f64 = 30.0;

/// Allowances per simulated second, and why.
fn budget(algo: &str) -> f64 {
    match algo {
        // Every client decodes each snapshot into a new world shared with
        // the clients that decoded the same bytes (support/shared_decode.rs):
        // at most 3 allocations for each of 4 × 60 snapshots a second.
        "snapshot" | "delta-snapshot" => 3.0 * 240.0,
        // Each UPDATE's inputs are kept until its key frame, by the server
        // and every client: a key frame every few frames, 5 nodes.
        "framelock" => 120.0,
        _ => NOTHING_PER_EVENT,
    }
}

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
fn a_small_match_allocates_nothing_per_packet_frame_or_render() {
    let mut over = Vec::new();
    // ggrs reads the wall clock: its runs are not reproducible.
    for algo in algorithms::registry::all().iter().map(|a| a.name()).filter(|n| *n != "ggrs") {
        let (short, long) = (allocations(algo, 10), allocations(algo, 40));
        let per_second = long.saturating_sub(short) as f64 / 30.0;
        eprintln!("{algo}: {short} allocations in 10 s, {long} in 40 s: {per_second:.1} a simulated second");
        if per_second > budget(algo) {
            over.push(format!("{algo}: {per_second:.1} a simulated second, budget {}", budget(algo)));
        }
    }
    assert!(over.is_empty(), "allocating per event again: {over:?}");
}
