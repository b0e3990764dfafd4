//! The network model as runs see it: the profile library, timed events,
//! per-client profiles.

use crate::util::{cfg, run_named};
use harness::net::link_probe::probe;
use harness::net::plan::NetworkPlan;
use harness::net::profile::list;
use harness::runner::run_plan;
use harness::trace::TraceSpec;

#[test]
fn every_shipped_profile_loads_with_description_and_source() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("netem-profiles");
    let files = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "toml"))
        .count();
    let profiles = list(std::slice::from_ref(&dir));
    assert_eq!(profiles.len(), files, "a profile file failed to parse");
    for p in &profiles {
        assert!(!p.description.is_empty() && p.description.len() <= 100, "{}: one-line description", p.name);
        assert!(p.source.len() > 20, "{}: needs a source", p.name);
    }
    for required in [
        "lan",
        "fiber",
        "cable",
        "dsl",
        "wifi",
        "wifi-congested",
        "4g",
        "5g",
        "3g",
        "leo-satellite",
        "geo-satellite",
        "intercontinental",
        "bufferbloat",
        "mobile-handover",
        "very-bad",
        "cn-2005",
        "cn-2012",
        "design-200ms",
    ] {
        assert!(profiles.iter().any(|p| p.name == required), "missing {required}");
    }
}

#[test]
fn shipped_profiles_measure_what_they_describe() {
    let dirs = harness::library::dirs("netem-profiles");
    let rtt = |name: &str| {
        let p = harness::net::Profile::resolve(name, &dirs).unwrap();
        let up = probe(&p.uplink, p.correlation, 5_000, 2_000, 100, 1);
        let down = probe(&p.downlink, p.correlation, 5_000, 2_000, 100, 1);
        up.delay_p50_ms + down.delay_p50_ms
    };
    // The source articles' networks: RTT 100-120 ms, 40-50 ms, 200 ms.
    assert!((100.0..=120.0).contains(&rtt("cn-2005")), "{}", rtt("cn-2005"));
    assert!((40.0..=50.0).contains(&rtt("cn-2012")), "{}", rtt("cn-2012"));
    assert!((rtt("design-200ms") - 200.0).abs() < 0.5);
    assert!(rtt("lan") < 1.0);
    assert!(rtt("geo-satellite") > 550.0);
}

#[test]
fn an_outage_stalls_lockstep_for_its_duration() {
    let dir = std::env::temp_dir().join(format!("syncbench-outage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("outage.toml");
    std::fs::write(&path, "link = \"delay 10ms\"\n[[event]]\nat = \"5s\"\nkind = \"outage\"\nduration = \"2s\"\n")
        .unwrap();
    let with = run_named("lockstep", path.to_str().unwrap(), "random-walk", cfg(3, 12, 1));
    let without = run_named("lockstep", "delay 10ms", "random-walk", cfg(3, 12, 1));
    assert_eq!(with.desyncs, 0);
    assert!(
        with.stalls.stalled_ms_per_client - without.stalls.stalled_ms_per_client >= 1_900.0,
        "{} vs {}",
        with.stalls.stalled_ms_per_client,
        without.stalls.stalled_ms_per_client
    );
    assert!(with.network.lost > 0 && without.network.lost == 0);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn corrupted_packets_are_delivered_or_dropped_at_the_receiver() {
    // server-verified with the plain input queue sends every tick whatever
    // it receives (the adaptive buffer's pace messages depend on what
    // arrives), so both runs make the same link draws: the only difference
    // is what the receiver accepts. A copy may be corrupted on the uplink
    // and again on the downlink, so fewer copies are dropped than
    // corruptions happened.
    let run = |drop: bool| {
        let mut c = harness::runner::RunConfig { drop_corrupted: drop, ..cfg(3, 10, 4) };
        c.options = harness::contract::Options::parse(&["input-buffer=queue".to_string()]).unwrap();
        run_named("server-verified", "corrupt 20%", "random-walk", c)
    };
    let (kept, dropped) = (run(false), run(true));
    assert_eq!(kept.network.corrupted, dropped.network.corrupted);
    let lost = kept.network.packets_delivered - dropped.network.packets_delivered;
    let corrupted = dropped.network.corrupted;
    assert!(corrupted > 0);
    assert!(lost <= corrupted && lost as f64 >= 0.8 * corrupted as f64, "{lost} dropped of {corrupted} corruptions");
    // server-verified's snapshots carry no check of their own: delivered
    // flipped bits show up as impossible screens, which the harness flags;
    // behind a checksum nothing gets through.
    assert!(dropped.violations.is_empty(), "{:?}", dropped.violations);
    assert!(!kept.violations.is_empty());
}

#[test]
fn one_slow_client_only_slows_its_own_view_in_client_server() {
    let dirs = harness::library::dirs("netem-profiles");
    let plan = NetworkPlan::resolve("lan,lan,lan,delay 150ms", &dirs).unwrap();
    assert_eq!(plan.name(), "lan,lan,lan,delay 150ms");
    let c = cfg(4, 10, 1);
    let trace = TraceSpec::resolve("random-walk", &[]).unwrap().instantiate(4, c.duration_us, 1).unwrap();
    let alg = algorithms::registry::find("server-verified").unwrap();
    let m = run_plan(alg, &plan, &trace, &c).unwrap().metrics;
    // Own latency: three clients at ~4 ticks, one at ≥ 300 ms: the median
    // stays low, the tail is the slow client.
    assert!(m.input_latency_ms.own.p50 < 70.0, "{:?}", m.input_latency_ms.own);
    assert!(m.input_latency_ms.own.p99 >= 300.0, "{:?}", m.input_latency_ms.own);
}

/// Snapshots of 300 bots (about 2 KB) cross a 1,500-byte MTU in two IP
/// fragments: each adds an IP header on the wire, and the datagram is lost
/// when either fragment is.
#[test]
fn datagrams_over_the_mtu_leave_in_fragments() {
    let c = harness::runner::RunConfig { bots: 300, ..cfg(2, 5, 1) };
    let trace = TraceSpec::resolve("random-walk", &harness::library::dirs("traces"))
        .unwrap()
        .instantiate(c.clients, c.duration_us, c.seed)
        .unwrap();
    let algo = algorithms::registry::find("snapshot").unwrap();
    let go = |profile: &str, mtu: u32| {
        let plan = NetworkPlan {
            clients: vec![harness::net::Profile { mtu, ..crate::util::profile_of(profile) }],
            server: harness::net::Profile { mtu, ..harness::net::Profile::clean() },
        };
        run_plan(algo, &plan, &trace, &c).unwrap().metrics
    };
    let (ethernet, jumbo) = (go("delay 20ms", 1_500), go("delay 20ms", 9_000));
    assert_eq!(jumbo.network.fragmented, 0);
    // The path MTU is the smaller end's: a jumbo client behind a
    // 1,500-byte server still gets fragments.
    let mixed = NetworkPlan {
        clients: vec![harness::net::Profile { mtu: 9_000, ..crate::util::profile_of("delay 20ms") }],
        server: harness::net::Profile::clean(),
    };
    let mixed = run_plan(algo, &mixed, &trace, &c).unwrap().metrics;
    assert_eq!(mixed.network.fragmented, ethernet.network.fragmented);
    assert!(ethernet.network.fragmented > 0);
    assert_eq!(ethernet.network.fragment_lost, 0);
    assert_eq!(ethernet.network.packets_sent, jumbo.network.packets_sent);
    // Every snapshot crosses two links (the server's and the client's),
    // each counting it; on the wire it is one datagram with one extra
    // 20-byte IP header.
    let snapshots = ethernet.network.fragmented as f64 / 2.0;
    let extra_per_client_s = ethernet.bandwidth.down_bytes_per_s - jumbo.bandwidth.down_bytes_per_s;
    let expected = 20.0 * snapshots / c.clients as f64 / 5.0;
    assert!((extra_per_client_s - expected).abs() < 0.01, "{extra_per_client_s} vs {expected}");
    // Loss on the client's downlink takes a two-fragment datagram with
    // probability 1 − 0.95².
    let lossy = go("delay 20ms loss 5%", 1_500);
    let n = lossy.network.fragmented as f64 / 2.0;
    let p = 1.0 - 0.95f64 * 0.95;
    let sd = (n * p * (1.0 - p)).sqrt();
    let lost = lossy.network.fragment_lost as f64;
    assert!((lost - n * p).abs() < 5.0 * sd, "{lost} of {n} (expected {})", n * p);
}
