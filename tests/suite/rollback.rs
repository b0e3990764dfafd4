//! `rollback`: never desyncs, shows own input after the input delay, rolls
//! back more as latency grows.

use crate::util::{cfg, run_named, TICK_MS};
use proptest::prelude::*;

fn with_delay(d: u32) -> harness::runner::RunConfig {
    let mut c = cfg(4, 20, 1);
    c.options = harness::contract::Options::parse(&[format!("delay={d}")]).unwrap();
    c
}

#[test]
fn own_input_shows_after_the_input_delay() {
    let mut means = Vec::new();
    for d in [1u32, 2, 4] {
        let m = run_named("rollback", "wifi", "random-walk", with_delay(d));
        // A change waits for the next tick's sample (uniformly up to a
        // tick: the trace's changes fall anywhere), then `d` frames, then a
        // tick of render interpolation: never sooner than d + 1 ticks. The
        // picture reaches the named frame up to two ticks after the view
        // names it (render interpolation names the new state a tenth of
        // the way there; a peer ahead of the schedule skips a tick to wait),
        // and latency is held to the picture: never later than d + 3 ticks.
        let s = &m.input_latency_ms.own;
        let want = (d + 1) as f64 * TICK_MS;
        assert!(s.p50 >= want - 0.05 && s.max <= want + 2.0 * TICK_MS + 0.05, "delay {d}: {s:?}");
        assert_eq!(m.desyncs, 0);
        means.push(s.mean);
    }
    assert!(means.windows(2).all(|w| w[0] < w[1]), "a longer delay shows later: {means:?}");
}

#[test]
fn re_simulation_rises_with_the_round_trip() {
    let resim =
        |ms: u32| run_named("rollback", &format!("delay {ms}ms"), "random-walk", cfg(4, 20, 1)).resimulated_frames;
    let (a, b, c) = (resim(5), resim(30), resim(60));
    assert!(a < b && b < c, "re-simulated frames {a} < {b} < {c}");
}

#[test]
fn rollback_does_not_stall_where_lockstep_does() {
    let rb = run_named("rollback", "4g", "random-walk", cfg(4, 20, 1));
    let ls = run_named("lockstep", "4g", "random-walk", cfg(4, 20, 1));
    assert!(
        rb.stalls.stalled_ms_per_client < ls.stalls.stalled_ms_per_client / 4.0,
        "rollback {} vs lockstep {}",
        rb.stalls.stalled_ms_per_client,
        ls.stalls.stalled_ms_per_client
    );
    assert!(rb.rollbacks > 0 && rb.resimulated_frames >= rb.rollbacks);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    /// Through loss, jitter, reordering, duplication and an outage, peers
    /// never confirm different states.
    #[test]
    fn rollback_never_desyncs(
        delay in 1u32..80, jitter in 0u32..30, loss in 0u32..25, dup in 0u32..10, reorder in 0u32..15,
        outage in any::<bool>(), seed in 0u64..1000, players in 2usize..5,
    ) {
        let dir = std::env::temp_dir().join(format!("syncbench-rb-{}-{seed}-{delay}-{jitter}-{loss}.toml", std::process::id()));
        let link = format!("delay {delay}ms {jitter}ms loss {loss}% duplicate {dup}% reorder {reorder}%");
        let mut toml = format!("link = \"{link}\"\n");
        if outage {
            toml += "[[event]]\nat = \"2s\"\nkind = \"outage\"\nduration = \"1s\"\n";
        }
        std::fs::write(&dir, toml).unwrap();
        let m = run_named("rollback", dir.to_str().unwrap(), "random-walk", cfg(players, 6, seed));
        std::fs::remove_file(&dir).ok();
        prop_assert_eq!(m.desyncs, 0);
        prop_assert_eq!(m.input_mismatches, 0);
        prop_assert!(m.violations.is_empty(), "{:?}", m.violations);
    }
}
