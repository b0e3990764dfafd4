//! `server-verified`: own input reaches the screen one round trip later.

use crate::util::{cfg, run_named, TICK_MS};

#[test]
fn own_latency_is_the_round_trip_plus_a_few_ticks() {
    for one_way in [25.0, 50.0, 100.0] {
        let m = run_named("server-verified", &format!("delay {one_way}ms"), "zigzag", cfg(4, 20, 1));
        let rtt = 2.0 * one_way;
        let p50 = m.input_latency_ms.own.p50;
        assert!(p50 >= rtt, "{one_way} ms: p50 {p50} below the round trip");
        assert!(p50 <= rtt + 3.0 * TICK_MS, "{one_way} ms: p50 {p50} more than 3 ticks above {rtt}");
        assert_eq!(m.desyncs + m.corrections + m.rollbacks, 0);
    }
}

#[test]
fn lan_latency_is_a_few_ticks() {
    // The wait for the sample, the wait for the server's tick, the tick
    // that shows it, render interpolation: about four ticks.
    let m = run_named("server-verified", "lan", "random-walk", cfg(4, 20, 2));
    assert!(m.input_latency_ms.own.p50 <= 4.0 * TICK_MS, "{:?}", m.input_latency_ms.own);
    assert!(m.input_latency_ms.remote.p50 <= 4.0 * TICK_MS, "{:?}", m.input_latency_ms.remote);
}

#[test]
fn loss_raises_the_latency_tail_but_nothing_breaks() {
    let clean = run_named("server-verified", "delay 40ms 10ms", "random-walk", cfg(4, 60, 3));
    let lossy = run_named("server-verified", "delay 40ms 10ms loss 10%", "random-walk", cfg(4, 60, 3));
    // (About 240 timed changes each: the mean and p90, not the max-like p99.)
    let (c, l) = (&clean.input_latency_ms.own, &lossy.input_latency_ms.own);
    assert!(l.mean > c.mean && l.p90 >= c.p90, "{c:?} vs {l:?}");
    assert!(lossy.violations.is_empty(), "{:?}", lossy.violations);
    assert!(lossy.network.lost > 0);
}

#[test]
fn bandwidth_counts_headers() {
    // 4 players: snapshots are 7 + 12·4 = 55 bytes + 28 header, about 60
    // per second (ticks at 16,666 µs: 601 in 10 s); pace messages (3 + 28
    // bytes) at most 10 per second, when the input buffer is off target
    // (the link loses nothing: no redundancy to ask for).
    let m = run_named("server-verified", "lan", "idle", cfg(4, 10, 1));
    let (down, packets) = (m.bandwidth.down_bytes_per_s, m.bandwidth.down_packets_per_s);
    let paces = packets - 60.1;
    assert!((0.0..=10.0).contains(&paces), "{packets}");
    assert!((down - 83.0 * 60.1 - 31.0 * paces).abs() < 1.0, "{down} B/s in {packets} packets/s");
}

#[test]
fn the_input_buffer_drains_after_a_delay_spike() {
    // A 10 ms link whose delay jumps to 1.7 s once every 30 s and falls
    // back as a queue drains (a bufferbloat spike), as a 10 ms delay
    // series; each node reads it from its own seeded offset, so each
    // client meets the spike at its own time. The inputs held up arrive
    // together and fill the client's buffer on the server about 100 deep;
    // the buffer drains once the spike has left its jitter window, so the
    // median own latency is a round trip and a few ticks (before the
    // drain, 3 of 4 clients stayed 1.3 s late to the end, medians 1.3 s).
    let dir = std::env::temp_dir().join(format!("syncbench-spike-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("spike.txt");
    let series: Vec<String> = (0..3000)
        .map(|i| {
            let t = i as f64 * 0.01;
            let d = if (5.0..6.7).contains(&t) { 10.0 + (6.7 - t) * 1000.0 } else { 10.0 };
            format!("{d:.1}")
        })
        .collect();
    std::fs::write(&path, series.join("\n")).unwrap();
    let m = run_named("server-verified", path.to_str().unwrap(), "random-walk", cfg(4, 30, 1));
    for c in &m.per_client {
        let p50 = c.own_input_latency_ms.p50;
        assert!(p50 < 100.0, "player {}: own p50 {p50} ms", c.player);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
