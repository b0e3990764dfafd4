//! The harness's metrics against toy algorithms with known answers.

use crate::toys::{Faults, Oracle};
use crate::util::{cfg, run_algo};

const TICK_MS: f64 = 1000.0 / 60.0;

#[test]
fn oracle_latency_is_exactly_one_tick() {
    let m = run_algo(&Oracle::new(Faults::default()), "lan", "random-walk", cfg(3, 10, 1));
    for s in [&m.input_latency_ms.own, &m.input_latency_ms.remote] {
        assert!((s.p50 - TICK_MS).abs() < 0.05, "{s:?}");
        assert!((s.max - TICK_MS).abs() < 0.05, "{s:?}");
        assert!(s.n > 1000);
    }
    assert_eq!(m.desyncs, 0);
    assert_eq!(m.input_mismatches, 0);
    assert_eq!(m.bandwidth.up_bytes_per_s, 0.0);
    assert_eq!(m.snaps, 0);
}

#[test]
fn oracle_authority_equals_the_ideal_world_and_lags_it_by_one_step() {
    let m = run_algo(&Oracle::new(Faults::default()), "lan", "zigzag", cfg(4, 10, 1));
    // The agreed inputs are the inputs of each tick, so the agreed log and
    // the ideal world coincide; the screen is one step behind both. (The
    // last render of each peer falls before its frame is confirmed: it is
    // scored against the ideal world only.)
    for (a, i) in
        [(&m.divergence_m.own, &m.ideal_divergence_m.own), (&m.divergence_m.remote, &m.ideal_divergence_m.remote)]
    {
        assert_eq!((a.mean, a.p50, a.p99, a.max), (i.mean, i.p50, i.p99, i.max));
    }
    let scored = m.divergence_m.own.n + m.divergence_m.remote.n;
    let all = m.ideal_divergence_m.own.n + m.ideal_divergence_m.remote.n;
    assert_eq!(all - scored, m.unscored_samples * 4, "4 entities per unscored render");
    assert!(m.unscored_samples <= 4, "at most the last render of each peer");
    // One step at max speed is 0.1 m; pushes can add as much again.
    assert!(m.divergence_m.own.max <= 0.2 + 1e-6, "{:?}", m.divergence_m.own);
    assert!(m.divergence_m.own.mean > 0.01, "the players move: {:?}", m.divergence_m.own);
}

#[test]
fn a_perturbed_peer_is_caught_with_the_first_divergent_frame() {
    let m = run_algo(
        &Oracle::new(Faults { perturb: Some((1, 100)), ..Faults::default() }),
        "lan",
        "random-walk",
        cfg(3, 5, 1),
    );
    assert!(m.desyncs > 0);
    let d = m.first_desync.expect("desync described");
    assert_eq!(d.frame, 100);
    assert_eq!(d.node, 1);
    assert!(d.differences.iter().any(|x| x.starts_with("player0.x")), "{:?}", d.differences);
}

#[test]
fn a_fabricated_input_is_caught() {
    let m = run_algo(
        &Oracle::new(Faults { fake_input_at: Some(50), ..Faults::default() }),
        "lan",
        "random-walk",
        cfg(2, 3, 1),
    );
    assert!(m.input_mismatches >= 1);
    assert!(!m.violations.is_empty());
}

#[test]
fn teleports_on_screen_are_snaps() {
    let m =
        run_algo(&Oracle::new(Faults { teleport_every: Some(60), ..Faults::default() }), "lan", "idle", cfg(2, 10, 1));
    // Each teleport is a jump away and a jump back: 2 snaps per event,
    // about 10 events in 10 s at 60 Hz.
    assert!((18..=22).contains(&m.snaps), "{}", m.snaps);
}

#[test]
fn bandwidth_is_payload_plus_header_per_packet() {
    let m = run_algo(&Oracle::new(Faults { chatter: Some(100), ..Faults::default() }), "lan", "idle", cfg(3, 10, 1));
    // One 128-byte packet (100 + 28) per tick; ticks at k·16,666 µs for
    // every k with k·16,666 < 10 s: 601 of them.
    let ticks = 10_000_000u64.div_ceil(16_666) as f64;
    assert_eq!(m.bandwidth.up_bytes_per_s, 128.0 * ticks / 10.0, "{:?}", m.bandwidth);
    assert_eq!(m.bandwidth.down_bytes_per_s, 128.0 * ticks / 10.0, "{:?}", m.bandwidth);
    assert_eq!(m.bandwidth.up_packets_per_s, ticks / 10.0);
}

#[test]
fn each_client_renders_at_its_own_rate() {
    let mut c = cfg(2, 10, 1);
    c.render_hz = vec![144, 30];
    let m = run_algo(&Oracle::new(Faults::default()), "lan", "idle", c);
    // Own-entity samples: 144 + 30 renders per second for 10 s (±1 each).
    let n = m.ideal_divergence_m.own.n as i64;
    assert!((n - 1740).abs() <= 2, "{n}");
}
