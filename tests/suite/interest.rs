//! Interest management over real runs: filtering cuts each client's
//! bandwidth by about the share of the world it can see, never leaks, and
//! shows entering entities within the display delay; both methods give the
//! same screens; settings that cannot work are refused.

use crate::util::{cfg, profile_of};
use harness::metrics::Metrics;
use harness::runner::{run, RunConfig};
use harness::trace::TraceSpec;
use harness::world::{Aoi, World};

fn field_run(algo: &str, profile: &str, aoi: &str, clients: usize, bots: usize, side_m: u32) -> Metrics {
    let c = RunConfig {
        world: World::Field { width_m: side_m, height_m: side_m },
        bots,
        aoi: Some(Aoi::parse(aoi).unwrap()),
        ..cfg(clients, 8, 3)
    };
    let a = algorithms::registry::find(algo).unwrap();
    let t = TraceSpec::resolve("random-walk", &[]).unwrap().instantiate(c.clients, c.duration_us, c.seed).unwrap();
    let m = run(a, &profile_of(profile), &t, &c).expect("runs").metrics;
    assert!(m.violations.is_empty(), "{algo} {aoi}: {:?}", m.violations);
    m
}

#[test]
fn filtering_cuts_bandwidth_by_about_the_visible_share_and_never_leaks() {
    for algo in ["snapshot", "delta-snapshot"] {
        let none = field_run(algo, "wifi", "none", 12, 200, 200);
        let grid = field_run(algo, "wifi", "grid", 12, 200, 200);
        let (n, g) = (none.interest.clone().unwrap(), grid.interest.clone().unwrap());
        // The world is the same; only what is sent differs.
        assert_eq!(n.visible_share, g.visible_share);
        assert!(n.visible_share > 0.01 && n.visible_share < 0.2, "{}", n.visible_share);
        // Unfiltered: every render shows the whole world, far entities too.
        assert_eq!(n.shown_per_render, 211.0);
        assert!(n.leak_share > 0.5, "{algo} none leaks {}", n.leak_share);
        assert_eq!(g.leaks, 0, "{algo} grid");
        // Payload (headers aside) falls to within 3x the visible share: the
        // own entity, the hysteresis ring and the ids are the rest.
        let headers = 28.0 * grid.bandwidth.down_packets_per_s;
        let ratio = (grid.bandwidth.down_bytes_per_s - headers) / (none.bandwidth.down_bytes_per_s - headers);
        assert!(ratio < 3.0 * g.visible_share, "{algo}: payload ratio {ratio:.3} vs visible {}", g.visible_share);
        assert!(ratio > 0.5 * g.visible_share, "{algo}: payload ratio {ratio:.3} suspiciously low");
        // Entering entities show within the display delay (one-way ≤ ~30 ms
        // on wifi, 100 ms interpolation, a tick and a render).
        assert!(g.awareness_ms.n > 50, "{algo}: {} entries timed", g.awareness_ms.n);
        assert!(g.longest_unaware_ms < 250.0, "{algo}: {}", g.longest_unaware_ms);
    }
}

#[test]
fn grid_and_crosslist_show_exactly_the_same_world() {
    let mut grid = field_run("delta-snapshot", "4g", "grid", 6, 120, 120);
    let mut cross = field_run("delta-snapshot", "4g", "crosslist", 6, 120, 120);
    // Only the index's own work differs (and is reported).
    let work = |m: &mut harness::metrics::Metrics| m.interest.as_mut().unwrap().index_examined_per_tick.take();
    let (g, c) = (work(&mut grid).unwrap(), work(&mut cross).unwrap());
    assert!(g > 0.0 && c > 0.0 && g < 6.0 * 126.0, "examined per tick: grid {g}, crosslist {c} (a scan: {})", 6 * 126);
    assert_eq!(grid, cross, "the index is a broad phase: visible sets, bytes and screens are identical");
}

#[test]
fn bots_are_judged_like_players_and_peer_to_peer_lockstep_leaks_by_design() {
    // Lockstep peers simulate the whole world: every peer knows every bot.
    let m = field_run("lockstep", "lan", "none", 3, 60, 150);
    assert_eq!(m.desyncs, 0);
    let i = m.interest.unwrap();
    assert!(i.leaks > 0 && i.shown_per_render == 62.0, "{i:?}");
    // Server-verified shows the authority's bots: remote divergence is the
    // delay, bots included.
    let sv = field_run("server-verified", "lan", "none", 3, 60, 150);
    assert!(sv.divergence_m.remote.n > 0 && sv.divergence_m.remote.mean < 0.1, "{:?}", sv.divergence_m.remote);
}

#[test]
fn settings_an_algorithm_cannot_honour_are_refused() {
    // The ggrs adapter (third-party code under test) takes no bots.
    let a = algorithms::registry::find("ggrs").unwrap();
    let t = TraceSpec::resolve("zigzag", &[]).unwrap().instantiate(2, 1_000_000, 1).unwrap();
    let with = |c: RunConfig| run(a, &profile_of("lan"), &t, &c).err().map(|e| e.to_string()).unwrap_or_default();
    let base = cfg(2, 1, 1);
    assert!(with(RunConfig { bots: 5, ..base.clone() }).contains("does not handle server-driven bots"));
    let grid = Some(Aoi::parse("grid").unwrap());
    assert!(with(RunConfig { aoi: grid, ..base.clone() }).contains("does not filter by area of interest"));
    // `none` only measures, so any algorithm may take it.
    assert_eq!(with(RunConfig { aoi: Some(Aoi::parse("none").unwrap()), ..base }), "");
}

#[test]
fn every_algorithm_that_takes_bots_plays_a_field_full_of_them_cleanly() {
    let takers: Vec<_> = algorithms::registry::all().iter().filter(|a| a.handles_bots()).collect();
    assert_eq!(takers.len(), algorithms::registry::all().len(), "every registered algorithm takes bots");
    for a in takers {
        let m = field_run(a.name(), "4g", "none", 3, 40, 80);
        assert_eq!((m.desyncs, m.input_mismatches), (0, 0), "{}", a.name());
        // Bots are shown and scored: 3 players + 40 bots, two of the players remote.
        let i = m.interest.unwrap();
        assert!(i.shown_per_render > 35.0, "{}: {} remote entities per render", a.name(), i.shown_per_render);
        // Shown where they are (a scrambled id would put bots tens of metres
        // off on this 80 m field); `periodic` extrapolates a second at a time.
        assert!(m.divergence_m.remote.mean < 3.0, "{}: {:?}", a.name(), m.divergence_m.remote);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 8, ..Default::default() })]
    /// For arbitrary movement — bots wandering from any seed, players on
    /// any generated trace, any radius and hysteresis, either method — a
    /// filtering server never leaks, and every entity that comes within
    /// the radius is on screen within the display delay (one-way 30 ms
    /// + 100 ms interpolation + a tick and a render: 250 ms).
    #[test]
    fn filtering_never_leaks_and_shows_every_entering_entity_in_time(
        seed in 1u64..1_000_000,
        bots in 10usize..120,
        radius_m in 4i64..30,
        hysteresis_m in 0i64..4,
        grid in proptest::bool::ANY,
        delta in proptest::bool::ANY,
    ) {
        let method = if grid { "grid" } else { "crosslist" };
        let mut aoi = Aoi::parse(method).unwrap();
        aoi.radius_um = radius_m * 1_000_000;
        aoi.hysteresis_um = hysteresis_m * 1_000_000;
        let c = RunConfig {
            world: World::Field { width_m: 90, height_m: 90 },
            bots,
            aoi: Some(aoi),
            ..cfg(3, 4, seed)
        };
        let algo = if delta { "delta-snapshot" } else { "snapshot" };
        let a = algorithms::registry::find(algo).unwrap();
        let t = TraceSpec::resolve("random-walk", &[]).unwrap().instantiate(3, c.duration_us, seed).unwrap();
        let m = run(a, &profile_of("delay 30ms"), &t, &c).unwrap().metrics;
        let i = m.interest.unwrap();
        proptest::prop_assert_eq!(i.leaks, 0);
        proptest::prop_assert!(i.longest_unaware_ms <= 250.0, "{} ms", i.longest_unaware_ms);
        proptest::prop_assert!(m.violations.is_empty(), "{:?}", m.violations);
    }
}
