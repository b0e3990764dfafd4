//! State sync, part 2: full vs delta snapshots, dead reckoning's
//! bandwidth/divergence trade-off, convergence once inputs stop.

use crate::util::{cfg, run_named};
use harness::contract::Topology;

/// Every registered state-sync algorithm (client/server), in listing order.
fn state_sync_algorithms() -> Vec<&'static str> {
    algorithms::registry::all().iter().filter(|a| a.topology() == Topology::ClientServer).map(|a| a.name()).collect()
}

#[test]
fn delta_snapshots_cost_far_less_than_full_ones_for_the_same_picture() {
    let full = run_named("snapshot", "4g", "stop-go", cfg(16, 20, 1));
    let delta = run_named("delta-snapshot", "4g", "stop-go", cfg(16, 20, 1));
    let (f, d) = (full.bandwidth.down_bytes_per_s, delta.bandwidth.down_bytes_per_s);
    assert!(d < 0.7 * f, "delta {d} B/s vs full {f} B/s");
    // The screens are the same: only the encoding differs.
    assert_eq!(full.divergence_m, delta.divergence_m);
    assert_eq!(full.input_latency_ms, delta.input_latency_ms);
}

#[test]
fn dead_reckoning_trades_bandwidth_for_divergence_as_its_threshold_rises() {
    let at = |th: &str| {
        let mut c = cfg(4, 30, 1);
        c.options = harness::contract::Options::parse(&[format!("threshold={th}")]).unwrap();
        run_named("dead-reckoning", "4g", "random-walk", c)
    };
    let runs: Vec<_> = ["0.01", "0.05", "0.2", "0.5"].iter().map(|t| at(t)).collect();
    for w in runs.windows(2) {
        assert!(w[1].bandwidth.down_bytes_per_s < w[0].bandwidth.down_bytes_per_s, "bandwidth falls");
        assert!(w[1].divergence_m.remote.mean > w[0].divergence_m.remote.mean, "divergence grows");
    }
    // ...and it is far cheaper than sending every tick, own-state messages
    // for reconciliation (10 a second, 66 bytes with headers) included.
    let every_tick = run_named("snapshot", "4g", "random-walk", cfg(4, 30, 1));
    assert!(runs[2].bandwidth.down_bytes_per_s < 0.4 * every_tick.bandwidth.down_bytes_per_s);
}

#[test]
fn every_state_sync_algorithm_converges_once_inputs_stop() {
    let trace = std::env::temp_dir().join(format!("syncbench-stop-{}.trace", std::process::id()));
    std::fs::write(&trace, "player *\n0s R\n0.5s U\n1s L J\n1.5s D\n2s RU\n3s .\n").unwrap();
    for algo in state_sync_algorithms() {
        let m = run_named(algo, "delay 30ms 5ms", trace.to_str().unwrap(), cfg(4, 6, 1));
        assert!(m.divergence_m.remote.max > 0.05, "{algo}: players moved");
        // Within 3 s of the last input every screen shows the world (the
        // snapshot codecs quantize to 1 mm).
        assert!(
            m.final_divergence_m.own <= 0.001 && m.final_divergence_m.remote <= 0.001,
            "{algo}: {:?}",
            m.final_divergence_m
        );
    }
    std::fs::remove_file(&trace).ok();
}

#[test]
fn periodic_is_the_cheapest_and_the_least_accurate() {
    let periodic = run_named("periodic", "4g", "random-walk", cfg(4, 30, 1));
    for other in ["dead-reckoning", "latency-corrected", "shadow-follow", "snapshot"] {
        let m = run_named(other, "4g", "random-walk", cfg(4, 30, 1));
        assert!(periodic.bandwidth.down_bytes_per_s < m.bandwidth.down_bytes_per_s, "{other}");
        assert!(periodic.divergence_m.remote.mean > m.divergence_m.remote.mean, "{other}");
    }
}

#[test]
fn the_key_state_buffer_shows_take_off_and_landing() {
    // `hops`: everyone jumps once a second, and 1 Hz updates sample the top
    // of each jump. Plain extrapolation (arc=0) keeps remote players flying
    // at the apex; buffering take-off and landing brings them down.
    let run = |keys: &str, arc: &str| {
        let mut c = cfg(4, 10, 1);
        c.options = harness::contract::Options::parse(&["rate=1".into(), format!("keys={keys}"), format!("arc={arc}")])
            .unwrap();
        run_named("shadow-follow", "delay 20ms", "hops", c).divergence_m.remote
    };
    let flying = run("0", "0");
    let keyed = run("1", "0");
    // Shown at the apex (0.9 m) while the true height averages ~0.36 m.
    assert!(flying.mean > 0.4, "{flying:?}");
    assert!(keyed.mean < 0.55 * flying.mean, "{keyed:?} vs {flying:?}");
    // With the jump arc as well, the remote jump is close to the truth.
    let best = run("1", "1");
    assert!(best.mean < 0.1 && best.p99 < flying.p99, "{best:?}");
}

#[test]
fn extrapolating_algorithms_show_their_own_player_at_once() {
    // Wei, thc, antsmallant: only other players are extrapolated; the own one
    // is predicted and reconciled, as in `prediction`.
    let pr = run_named("prediction", "wifi", "random-walk", cfg(4, 20, 1)).input_latency_ms.own.p50;
    for algo in ["periodic", "dead-reckoning", "latency-corrected", "shadow-follow"] {
        let m = run_named(algo, "wifi", "random-walk", cfg(4, 20, 1));
        let own = m.input_latency_ms.own.p50;
        assert!((own - pr).abs() <= crate::util::TICK_MS, "{algo}: own p50 {own} vs prediction {pr}");
        assert!(m.input_latency_ms.remote.p50 > own + 30.0, "{algo}: remotes wait for the network");
        assert!(m.violations.is_empty(), "{algo}: {:?}", m.violations);
    }
}

#[test]
fn after_a_five_second_outage_nothing_is_shown_off_the_map_and_client_server_screens_recover_within_a_second() {
    // wifi-outage: the link is gone from 20 s to 25 s.
    for algo in algorithms::registry::names() {
        let m = run_named(algo, "wifi-outage", "random-walk", cfg(4, 32, 1));
        assert_eq!(m.impossible.renders, 0, "{algo}: {:?}", m.impossible);
        let a = algorithms::registry::find(algo).unwrap();
        if a.topology() != harness::contract::Topology::ClientServer {
            continue;
        }
        let tl = &m.timeline;
        let worst = |s: usize| tl.own_divergence_m[s].max(tl.remote_divergence_m[s]);
        let normal = (5..20).map(worst).sum::<f64>() / 15.0;
        assert!(worst(23) > 2.0 * normal + 1.0, "{algo}: the outage shows ({} vs {normal})", worst(23));
        for s in 26..30 {
            assert!(worst(s) <= 1.5 * normal + 0.1, "{algo}: second {s}: {} vs normal {normal}", worst(s));
        }
    }
}

#[test]
fn latency_corrected_shows_jumps() {
    // Messages carry the vertical speed and a take-off is sent at once.
    let lc = run_named("latency-corrected", "wifi", "jumps", cfg(4, 20, 1));
    let sf = run_named("shadow-follow", "wifi", "jumps", cfg(4, 20, 1));
    assert!(
        lc.divergence_m.remote.mean < 2.0 * sf.divergence_m.remote.mean,
        "{:?} vs {:?}",
        lc.divergence_m,
        sf.divergence_m
    );
}

#[test]
fn no_input_sequence_numbers_travel_yet_every_change_is_timed() {
    // Views name the authoritative frame an entity's state comes from and
    // the harness looks up which inputs it had applied: the same changes
    // are timed for every algorithm, whatever it sends.
    let mut counts = Vec::new();
    for algo in state_sync_algorithms() {
        let m = run_named(algo, "wifi", "random-walk", cfg(4, 20, 1));
        assert!(m.violations.is_empty(), "{algo}: {:?}", m.violations);
        let changes = m.trace_facts.effective_changes;
        // Own: every change (but maybe the last few before the run ends);
        // remote: on three screens each.
        assert!(m.input_latency_ms.own.n + 8 >= changes, "{algo}: {} of {changes}", m.input_latency_ms.own.n);
        assert!(
            m.input_latency_ms.remote.n + 24 >= 3 * changes,
            "{algo}: {} of {changes}",
            m.input_latency_ms.remote.n
        );
        counts.push(changes);
    }
    assert!(counts.windows(2).all(|w| w[0] == w[1]), "one trace, one set of changes: {counts:?}");
}

#[test]
fn damaged_packets_never_crash_an_algorithm() {
    // Flipped bits reach every decoder (timestamps, frames, sequence
    // numbers, counts): a debug build panics on any overflow they cause.
    for algo in algorithms::registry::names() {
        for seed in 1..=3 {
            let c = harness::runner::RunConfig { drop_corrupted: false, ..cfg(3, 10, seed) };
            let m = run_named(algo, "delay 20ms 5ms corrupt 5%", "random-walk", c);
            assert!(m.network.corrupted > 0, "{algo}");
        }
    }
}

/// A jittery, lossy, reordering link (packets overtake by up to 80 ms).
const REORDERING: &str = "delay 80ms 50ms distribution pareto loss 2% reorder 10% gap 3";
/// Losses in bursts (Gilbert–Elliott: mean run 3.3 packets), duplication
/// and more reordering.
const BURSTY: &str = "delay 60ms 40ms distribution pareto loss gemodel 3% 30% duplicate 5% reorder 25% gap 2";

#[test]
fn every_client_server_algorithm_runs_each_input_once_on_a_reordering_link() {
    for a in algorithms::registry::all().iter().filter(|a| !a.topology().confirms()) {
        let m = run_named(a.name(), REORDERING, "random-walk", cfg(4, 30, 3));
        let f = &m.input_fidelity;
        assert!(f.unrun_per_min() < 2.0, "{}: {} inputs unrun per client-minute", a.name(), f.unrun_per_min());
        assert!(f.repeated_per_min < 15.0, "{}: {} inputs repeated per client-minute", a.name(), f.repeated_per_min);
    }
}

#[test]
fn redundancy_follows_bursts_of_loss() {
    // Asked for by the server, the redundancy covers the bursts once it
    // has seen a few (32 inputs a packet, the most, lose none at all).
    let sized = run_named("server-verified", BURSTY, "random-walk", cfg(4, 120, 1));
    let mut held = cfg(4, 120, 1);
    held.options = harness::contract::Options([("redundancy".to_string(), "32".to_string())].into());
    let most = run_named("server-verified", BURSTY, "random-walk", held);
    assert!(sized.input_fidelity.unrun_per_min() < 2.0, "{:?}", sized.input_fidelity);
    assert_eq!(most.input_fidelity.unrun_per_min(), 0.0, "{:?}", most.input_fidelity);
    // Sized to the link: well under what 32 inputs a packet cost.
    let (up, up_most) = (sized.bandwidth.up_bytes_per_s, most.bandwidth.up_bytes_per_s);
    assert!(up < 0.8 * up_most, "uplink {up:.0} B/s against {up_most:.0} at 32 inputs a packet");
}
