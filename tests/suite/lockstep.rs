//! `lockstep`: never desyncs; stalls grow with delay.

use crate::util::{cfg, run_named};
use proptest::prelude::*;

#[test]
fn no_desync_on_a_lossy_reordering_duplicating_link() {
    let m = run_named("lockstep", "delay 40ms 20ms loss 10% duplicate 5% reorder 10%", "wall-run", cfg(4, 30, 5));
    assert_eq!(m.desyncs, 0);
    assert_eq!(m.input_mismatches, 0);
    assert!(m.violations.is_empty(), "{:?}", m.violations);
    assert!(m.network.lost > 0 && m.network.duplicated > 0 && m.network.reordered > 0);
    // Confirmed frames were scored against the harness's replay.
    assert!(m.divergence_m.own.n > 1000);
}

#[test]
fn stall_grows_when_one_direction_slows_down() {
    let stall = |up: &str| {
        let dir =
            std::env::temp_dir().join(format!("syncbench-stall-{}-{}.toml", std::process::id(), up.replace(' ', "_")));
        std::fs::write(&dir, format!("uplink = \"{up}\"\ndownlink = \"delay 10ms 2ms\"\n")).unwrap();
        let m = run_named("lockstep", dir.to_str().unwrap(), "random-walk", cfg(4, 30, 1));
        std::fs::remove_file(&dir).ok();
        assert_eq!(m.desyncs, 0);
        m.stalls.stalled_ms_per_client
    };
    let fast = stall("delay 10ms 2ms");
    let slow = stall("delay 80ms 2ms");
    let slower = stall("delay 150ms 2ms");
    assert!(fast < slow && slow < slower, "stall {fast} / {slow} / {slower} ms");
}

#[test]
fn everyone_sees_the_same_frames_on_lan() {
    let m = run_named("lockstep", "lan", "random-walk", cfg(4, 10, 1));
    assert_eq!(m.desyncs, 0);
    // Only each peer's last render can fall before its frame is confirmed.
    assert!(m.unscored_samples <= 4, "{}", m.unscored_samples);
    // On a LAN, lockstep shows inputs within a few ticks: the wait for the
    // sample, a frame, a tick of render interpolation.
    assert!(m.input_latency_ms.own.p50 <= 3.0 * crate::util::TICK_MS, "{:?}", m.input_latency_ms.own);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn lockstep_never_desyncs(
        delay in 0u32..120,
        jitter in 0u32..40,
        loss in 0u32..30,
        dup in 0u32..10,
        reorder in 0u32..20,
        seed in 0u64..1000,
        players in 2usize..5,
    ) {
        let mut p = format!("delay {delay}ms {jitter}ms loss {loss}% duplicate {dup}%");
        if delay > 0 {
            p += &format!(" reorder {reorder}%");
        }
        let m = run_named("lockstep", &p, "random-walk", cfg(players, 5, seed));
        prop_assert_eq!(m.desyncs, 0);
        prop_assert_eq!(m.input_mismatches, 0);
        prop_assert!(m.violations.is_empty(), "{:?}", m.violations);
    }
}

#[test]
fn drifting_clocks_do_not_break_agreement() {
    use harness::time::LocalClock;
    let mut c = cfg(3, 20, 4);
    c.clocks = vec![
        LocalClock { offset_us: 0, drift_ppm: 0 },
        LocalClock { offset_us: 7_000, drift_ppm: 2_000 },
        LocalClock { offset_us: -3_000, drift_ppm: -1_500 },
    ];
    let m = run_named("lockstep", "delay 20ms 5ms loss 2%", "random-walk", c);
    assert_eq!(m.desyncs, 0);
    assert!(m.violations.is_empty(), "{:?}", m.violations);
    // The slow clock (−1500 ppm) holds everyone back: the fast peers stall.
    assert!(m.stalls.stalled_ms_per_client > 0.0);
}
