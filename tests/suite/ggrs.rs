//! The real `ggrs` crate under the suite: what works, and what the
//! contracts find. These are characterization tests: they pin down
//! ggrs 0.13's behaviour here, so a change in it (or in the adapter) shows.

use crate::util::{cfg, run_named, TICK_MS};

#[test]
fn on_a_lan_under_virtual_time_ggrs_runs_and_agrees() {
    let m = run_named("ggrs", "lan", "strafe-shoot", cfg(4, 10, 1));
    assert_eq!(m.desyncs, 0);
    assert_eq!(m.input_mismatches, 0, "{:?}", m.violations);
    assert!(m.violations.is_empty(), "{:?}", m.violations);
    assert!(m.sim_steps_per_s > 4.0 * 50.0, "progress: {}", m.sim_steps_per_s);
    // Own input shows after ggrs's input delay (2 frames), plus the wait
    // for the next tick's sample (up to one) and a tick of render
    // interpolation.
    let s = &m.input_latency_ms.own;
    assert!(s.p50 >= 3.0 * TICK_MS - 0.05 && s.p50 <= 4.0 * TICK_MS + 0.05, "{s:?}");
}

#[test]
fn under_virtual_time_ggrs_stalls_on_a_long_link_where_paced_it_runs() {
    // Nothing lost, 84 ms each way: under virtual time ggrs synchronizes,
    // then its wall-clock timers barely move and it stops advancing.
    let dir = std::env::temp_dir().join(format!("syncbench-ggrs-{}.toml", std::process::id()));
    std::fs::write(&dir, "uplink = \"delay 38ms\"\ndownlink = \"delay 46ms\"\n").unwrap();
    let p = dir.to_str().unwrap();
    let virt = run_named("ggrs", p, "random-walk", cfg(2, 5, 1));
    assert!(virt.sim_steps_per_s < 20.0, "expected the virtual-time stall, got {} steps/s", virt.sim_steps_per_s);
    let mut paced = cfg(2, 3, 1);
    paced.paced = true;
    let real = run_named("ggrs", p, "random-walk", paced);
    std::fs::remove_file(&dir).ok();
    assert!(real.sim_steps_per_s > 50.0, "paced: {} steps/s", real.sim_steps_per_s);
    assert_eq!(real.desyncs + real.input_mismatches, 0, "{:?}", real.violations);
}

#[test]
fn the_contracts_report_ggrs_liveness_failure_under_virtual_time() {
    use harness::conform::{check_one, contracts, Verdict};
    let ggrs = algorithms::registry::find("ggrs").unwrap();
    let c = |name: &str| contracts::all().iter().find(|c| c.name == name).unwrap();
    assert!(matches!(check_one(ggrs, c("no-desync"), 5, 1).verdict, Verdict::Pass));
    assert!(matches!(check_one(ggrs, c("liveness"), 5, 1).verdict, Verdict::Fail(_)));
}
