//! The harness's metrics against toy algorithms with known answers.

use crate::toys::{Faults, Oracle};
use crate::util::{cfg, profile_of, run_algo};
use harness::contract::Algorithm;
use harness::game::Input;
use harness::metrics::Metrics;
use harness::runner::{run, RunConfig};
use harness::trace::{Trace, Track};
use proptest::prelude::*;

const TICK_MS: f64 = 1000.0 / 60.0;
const DT: u64 = 16_666;

/// Runs `a` on a clean LAN with explicit tracks.
fn run_tracks(a: &dyn Algorithm, tracks: Vec<Vec<(u64, Input)>>, c: RunConfig) -> Metrics {
    let trace = Trace {
        name: "toy".into(),
        tracks: tracks.into_iter().map(|segments| Track { segments, repeat_us: None }).collect(),
    };
    run(a, &profile_of("lan"), &trace, &c).expect("run").metrics
}

#[test]
fn latency_runs_from_each_input_change_to_the_render_that_shows_it() {
    // The oracle samples at every tick and shows a tick's sample one tick
    // later: a change at t is sampled at the next tick ⌈t/dt⌉·dt and shown
    // at the render one tick after that.
    let r = Input::buttons(Input::RIGHT);
    let u = Input::buttons(Input::UP);
    let changes = [1_010_000u64, 2_345_678, 3_000_000];
    let p0 = vec![(0, Input::IDLE), (changes[0], r), (changes[1], Input::IDLE), (changes[2], u)];
    let idle = vec![(0, Input::IDLE)];
    let m = run_tracks(&Oracle::new(Faults::default()), vec![p0, idle.clone(), idle], cfg(3, 5, 1));
    let expected: Vec<f64> = changes.iter().map(|&t| ((t.div_ceil(DT) + 1) * DT - t) as f64 / 1000.0).collect();
    let (lo, hi) = (expected.iter().cloned().fold(f64::MAX, f64::min), expected.iter().cloned().fold(0.0, f64::max));
    // Three changes, each timed once on its own screen and on two others;
    // the idle players, holding nothing, give no sample at all.
    assert_eq!(m.input_latency_ms.own.n, 3, "{:?}", m.input_latency_ms.own);
    assert_eq!(m.input_latency_ms.remote.n, 6, "{:?}", m.input_latency_ms.remote);
    assert_eq!(m.trace_facts.effective_changes, 3);
    for s in [&m.input_latency_ms.own, &m.input_latency_ms.remote] {
        assert!((s.max - hi).abs() < 0.05 && s.p50 >= lo - 0.05, "{s:?} vs {expected:?}");
        let mean = expected.iter().sum::<f64>() / 3.0;
        assert!((s.mean - mean).abs() < 0.05, "{s:?} vs {expected:?}");
    }
}

#[test]
fn latency_is_held_to_the_picture_not_to_what_a_view_names() {
    // The same changes as above on screens drawn 6 ticks late: the honest
    // screen names the drawn state's inputs, the other the newest state's.
    // Both are charged the 6 ticks; naming more than is drawn buys nothing
    // (two of the changes are starts from standing: a picture still
    // standing where the player stood is not taken for the start).
    let r = Input::buttons(Input::RIGHT);
    let u = Input::buttons(Input::UP);
    let changes = [1_010_000u64, 2_345_678, 3_000_000];
    let p0 = vec![(0, Input::IDLE), (changes[0], r), (changes[1], Input::IDLE), (changes[2], u)];
    let idle = vec![(0, Input::IDLE)];
    let tracks = vec![p0, idle.clone(), idle];
    let lagged = |names_newest| {
        let faults = Faults { lag: Some((6, names_newest)), ..Faults::default() };
        run_tracks(&Oracle::new(faults), tracks.clone(), cfg(3, 5, 1))
    };
    let (honest, claims) = (lagged(false), lagged(true));
    let expected: Vec<f64> = changes.iter().map(|&t| ((t.div_ceil(DT) + 7) * DT - t) as f64 / 1000.0).collect();
    let mean = expected.iter().sum::<f64>() / 3.0;
    for m in [&honest, &claims] {
        for s in [&m.input_latency_ms.own, &m.input_latency_ms.remote] {
            assert!((s.mean - mean).abs() < 0.05, "{s:?} vs {expected:?}");
        }
    }
    assert_eq!(honest.input_latency_ms, claims.input_latency_ms);
}

#[test]
fn holding_an_input_gives_no_latency_samples_and_ignored_changes_are_not_timed() {
    let l = Input::buttons(Input::LEFT);
    // Left into the arena's bound from the start (a press at 0), released
    // there at 2 s: the release moves nothing, so it is counted, not timed.
    let m = run_tracks(
        &Oracle::new(Faults::default()),
        vec![vec![(0, l), (2_000_000, Input::IDLE)], vec![(0, Input::IDLE)]],
        cfg(2, 4, 1),
    );
    assert_eq!(m.input_latency_ms.own.n, 1, "{:?}", m.input_latency_ms.own);
    assert!((m.input_latency_ms.own.p50 - TICK_MS).abs() < 0.05, "sampled at 0, shown a tick later");
    assert_eq!((m.trace_facts.effective_changes, m.trace_facts.ineffective_changes), (1, 1));
    // Nobody pressing anything: no samples (printed "–", never 0: see
    // the CLI test).
    let idle = run_algo(&Oracle::new(Faults::default()), "lan", "idle", cfg(2, 4, 1));
    assert_eq!(idle.input_latency_ms.own.n + idle.input_latency_ms.remote.n, 0);
}

#[test]
fn random_walk_latencies_fall_within_the_oracles_tick_window() {
    let m = run_algo(&Oracle::new(Faults::default()), "lan", "random-walk", cfg(3, 10, 1));
    for s in [&m.input_latency_ms.own, &m.input_latency_ms.remote] {
        // Between one tick (a change exactly on a tick) and two.
        assert!(s.p50 >= TICK_MS - 0.05 && s.max < 2.0 * TICK_MS + 0.05, "{s:?}");
    }
    let changes = m.trace_facts.effective_changes;
    assert!(changes > 20, "{changes}");
    // Each change once on its own screen (a change in the last tick may
    // not be shown before the run ends).
    assert!(m.input_latency_ms.own.n <= changes && m.input_latency_ms.own.n + 3 >= changes);
    assert_eq!(m.desyncs, 0);
    assert_eq!(m.input_mismatches, 0);
    assert_eq!(m.bandwidth.up_bytes_per_s, 0.0);
    assert_eq!(m.snaps.events, 0);
    assert_eq!((m.input_fidelity.repeated, m.input_fidelity.dropped, m.input_fidelity.late), (0, 0, 0));
    assert_eq!(m.impossible.renders, 0);
    assert!(m.trace_facts.contact_frames > 0, "random walkers bump into each other");
    let lanes = run_algo(&Oracle::new(Faults::default()), "lan", "lanes", cfg(3, 10, 1));
    assert_eq!(lanes.trace_facts.contact_frames, 0);
}

#[test]
fn a_one_tick_move_between_fast_renders_is_no_snap() {
    let mut c = cfg(3, 10, 1);
    c.render_hz = vec![144];
    let m = run_algo(&Oracle::new(Faults::default()), "lan", "random-walk", c);
    assert_eq!(m.snaps.events, 0, "{:?}", m.snaps);
}

#[test]
fn a_slide_is_one_snap_event_and_its_length_is_the_jump() {
    // 5 m over 10 renders: 50 cm per render, a metre per two-tick span
    // where the game allows 40 cm. The render after the slide still sees
    // the last step within its span.
    let faults = Faults { slide: Some((120, 10, 5_000_000)), ..Faults::default() };
    let m = run_algo(&Oracle::new(faults), "lan", "idle", cfg(2, 10, 1));
    assert_eq!((m.snaps.events, m.snaps.renders), (1, 11), "{:?}", m.snaps);
    assert!((m.snaps.largest_jump_m - 5.0).abs() < 1e-3, "{:?}", m.snaps);
    // The same slide over 20 renders (25 cm per render, 50 cm per span) is
    // still one event; over 40 (12.5 cm per render) it is legal motion.
    let slow = |renders| {
        let faults = Faults { slide: Some((120, renders, 5_000_000)), ..Faults::default() };
        run_algo(&Oracle::new(faults), "lan", "idle", cfg(2, 10, 1)).snaps.events
    };
    assert_eq!((slow(20), slow(40)), (1, 0));
    assert_eq!(m.per_client[0].snap_events, 1);
    assert_eq!(m.per_client[1].snap_events, 0);
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
fn a_peer_that_names_its_games_frame_is_judged_at_it_and_its_lag_is_measured() {
    // Screens drawn 6 ticks late. Named by their frame, they show exactly
    // where the agreed log has everyone at that frame (divergence 0), and
    // trail the schedule (see below). Unnamed,
    // the same screens are judged at the schedule's frame: 7 steps of
    // motion, and no lag measured.
    let run = |names_game| {
        let faults = Faults { lag: Some((6, false)), names_game, ..Faults::default() };
        run_algo(&Oracle::new(faults), "lan", "zigzag", cfg(3, 10, 1))
    };
    let (named, unnamed) = (run(Some(0)), run(None));
    // (The first six ticks show the initial state, frame 0: no name, judged
    // at the schedule's frame.)
    for s in [&named.divergence_m.own, &named.divergence_m.remote] {
        assert_eq!((s.p99, s.n > 1000), (0.0, true), "{s:?}");
        assert!(s.mean < 0.001, "{s:?}");
    }
    assert!(unnamed.divergence_m.remote.mean > 0.1, "{:?}", unnamed.divergence_m.remote);
    assert_eq!(unnamed.lag_ms, None);
    let lag = named.lag_ms.expect("named frames give a lag");
    // The first renders show the initial state (frame 0, no name).
    // The oracle on time reads 0. Drawn 6 ticks late, it reads 5: lag
    // leaves out the one tick a screen interpolating toward the newest
    // frame takes, and the oracle draws the newest frame at once.
    let on_time =
        run_algo(&Oracle::new(Faults { names_game: Some(0), ..Faults::default() }), "lan", "zigzag", cfg(3, 10, 1));
    assert_eq!(on_time.lag_ms.expect("named").behind_ms.max, 0.0);
    let five = 5.0 * DT as f64 / 1e3;
    // (Quantiles to the histogram's 3 significant digits.)
    assert!((lag.behind_ms.p50 - five).abs() < 0.1 && lag.behind_ms.max < five + 0.1, "{lag:?}");
    assert!((lag.at_end_ms - five).abs() < 0.05, "{lag:?}");
    // Second by second too; a second in which no render named a frame has
    // no lag, not a lag of 0.
    let seconds = &named.timeline.lag_ms;
    assert_eq!(seconds.len(), 10);
    assert!(seconds[1..].iter().all(|l| l.is_some_and(|l| (l - five).abs() < 0.05)), "{seconds:?}");
    assert!(unnamed.timeline.lag_ms.iter().all(Option::is_none), "{:?}", unnamed.timeline.lag_ms);
    assert!(named.per_client.iter().all(|c| c.lag_at_end_ms.is_some_and(|l| (l - five).abs() < 0.05)));
    // What the screens drew and when their inputs showed did not change.
    assert_eq!(named.input_latency_ms, unnamed.input_latency_ms);
    assert_eq!(named.ideal_divergence_m, unnamed.ideal_divergence_m);
}

#[test]
fn a_name_other_than_the_drawn_frame_only_adds_divergence() {
    // Naming a frame 30 ticks newer than drawn cuts the lag the screen
    // shows, and costs the distance the players moved in those ticks;
    // naming one more than 10 s ahead is a violation and judged as no name.
    let run = |more| {
        let faults = Faults { lag: Some((6, false)), names_game: Some(more), ..Faults::default() };
        run_algo(&Oracle::new(faults), "lan", "zigzag", cfg(3, 10, 1))
    };
    let (honest, newer, wild) = (run(0), run(30), run(1_000_000));
    assert!(newer.divergence_m.remote.mean > honest.divergence_m.remote.mean + 0.5, "{:?}", newer.divergence_m);
    assert!(newer.lag_ms.unwrap().behind_ms.p50 < 1.0);
    assert!(wild.violations.iter().any(|v| v.contains("more than 10 s ahead")), "{:?}", wild.violations);
    assert_eq!(wild.lag_ms, None);
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
fn teleports_on_screen_are_snap_events() {
    let m =
        run_algo(&Oracle::new(Faults { teleport_every: Some(60), ..Faults::default() }), "lan", "idle", cfg(2, 20, 1));
    // Each teleport is a jump away and, on the next render, back: the
    // renders judged against the picture before and against the teleported
    // one are over the threshold, one event; about 20 in 20 s, a client.
    assert!((19..=21).contains(&m.snaps.events), "{:?}", m.snaps);
    assert!(m.snaps.renders >= 2 * m.snaps.events - 1 && m.snaps.renders <= 2 * m.snaps.events, "{:?}", m.snaps);
    assert!((m.snaps.largest_jump_m - 5.0).abs() < 1e-3, "{:?}", m.snaps);
    // Per client-minute after the warm-ups: each client connects on its
    // first render and warms up 10 s, so about 10 events are in the
    // warm-ups and the rate is the rest over 2 × ~10 client-seconds: 30 a
    // minute.
    let w = m.warmup.as_ref().expect("warm-ups measured");
    assert!((9..=11).contains(&w.snaps), "{w:?}");
    assert!(w.connect_ms.max < 20.0 && w.never_connected == 0, "{w:?}");
    let rate = (m.snaps.events - w.snaps) as f64 / w.counted_client_s * 60.0;
    assert!((m.snaps.per_client_per_min - rate).abs() < 1e-3, "{} vs {rate}", m.snaps.per_client_per_min);
    assert!((27.0..=33.0).contains(&rate), "{rate}");
    // A run that ends inside its warm-ups has no rate to show.
    let short =
        run_algo(&Oracle::new(Faults { teleport_every: Some(60), ..Faults::default() }), "lan", "idle", cfg(2, 5, 1));
    assert!(short.snaps.events > 0 && short.rate(short.snaps.per_client_per_min).is_none(), "{:?}", short.warmup);
}

#[test]
fn consecutive_stalled_ticks_are_one_stall_and_long_ones_are_freezes() {
    // Hiccups of one tick at 100 and 200, a 6-tick stall (100 ms: a
    // freeze) at 300 and a 10-tick one at 400.
    let faults = Faults { stalls: &[(100, 1), (200, 1), (300, 6), (400, 10)], ..Faults::default() };
    let m = run_algo(&Oracle::new(faults), "lan", "idle", cfg(2, 10, 1));
    let tick = 16.666;
    let p0 = &m.per_client[0];
    assert_eq!(p0.freezes, 2);
    assert!((p0.stall_ms - 18.0 * tick).abs() < 0.01, "{p0:?}");
    assert!((p0.freeze_ms - 16.0 * tick).abs() < 0.01, "{p0:?}");
    assert!((p0.longest_stall_ms - 10.0 * tick).abs() < 0.01, "{p0:?}");
    assert_eq!(m.per_client[1].stall_ms, 0.0);
    assert_eq!(m.stalls.freezes, 2);
    assert_eq!(m.stalls.stalls_per_client, 2.0, "4 stalls over 2 clients");
    assert!((m.stalls.freeze_ms_per_client - 8.0 * tick).abs() < 0.01, "{:?}", m.stalls);
}

#[test]
fn an_input_run_twice_and_one_never_run_are_counted() {
    let faults = Faults { repeat_at: Some(100), ..Faults::default() };
    let m = run_algo(&Oracle::new(faults), "lan", "random-walk", cfg(3, 5, 1));
    // The LAN lost nothing: the input never run is late, not dropped.
    let f = &m.input_fidelity;
    assert_eq!((f.repeated, f.dropped, f.late), (1, 0, 1), "{f:?}");
    assert_eq!(f.per_client, vec![[1, 0], [0, 0], [0, 0]]);
    assert_eq!(f.late_per_client, vec![1, 0, 0]);
    let p0 = &m.per_client[0];
    assert_eq!((p0.inputs_repeated, p0.inputs_dropped, p0.inputs_late), (1, 0, 1));
    assert_eq!(m.desyncs, 0, "the peers agree on the mistake");
}

#[test]
fn an_entity_shown_off_the_map_is_an_impossible_screen() {
    let faults = Faults { off_map_every: Some(10), ..Faults::default() };
    let m = run_algo(&Oracle::new(faults), "lan", "idle", cfg(2, 10, 1));
    // Peer 0 renders ~600 times, entity 1 off the map on every tenth; 2
    // screens × 2 entities are shown at each render instant.
    assert!((59..=61).contains(&m.impossible.renders), "{:?}", m.impossible);
    let all = m.ideal_divergence_m.own.n + m.ideal_divergence_m.remote.n;
    assert!((m.impossible.share - m.impossible.renders as f64 / all as f64).abs() < 1e-4);
    // Three metres left of x = 0: 3.4 m from where a box can be.
    assert!((m.impossible.deepest_m - 3.4).abs() < 1e-3, "{:?}", m.impossible);
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

/// A datagram larger than UDP carries is refused, as the kernel would:
/// never on the wire, not counted, and a violation naming its size.
#[test]
fn datagrams_larger_than_udp_carries_are_refused_and_reported() {
    let fits =
        run_algo(&Oracle::new(Faults { chatter: Some(65_507), ..Faults::default() }), "lan", "idle", cfg(2, 2, 1));
    assert!(fits.violations.is_empty(), "{:?}", fits.violations);
    assert!(fits.bandwidth.up_bytes_per_s > 0.0);
    let m = run_algo(&Oracle::new(Faults { chatter: Some(65_508), ..Faults::default() }), "lan", "idle", cfg(2, 2, 1));
    assert_eq!(m.bandwidth.up_bytes_per_s, 0.0, "{:?}", m.bandwidth);
    assert_eq!(m.network.packets_delivered, 0);
    let v = m.violations.first().expect("a violation");
    assert!(v.contains("65508-byte datagram") && v.contains("65507"), "{v}");
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// However many one-render teleports a screen shows, and at whatever
    /// render rate, each is one snap event of five metres.
    #[test]
    fn every_teleport_is_one_snap_event_at_any_render_rate(
        gaps in prop::collection::vec(12u64..200, 1..12),
        hz in prop::sample::select(vec![30u32, 60, 144]),
    ) {
        let mut at = 20;
        let renders: Vec<u64> = gaps.iter().map(|g| { at += g; at }).collect();
        let duration_s = renders.last().unwrap() / hz as u64 + 2;
        let teleports: &'static [u64] = Box::leak(renders.clone().into_boxed_slice());
        let mut c = cfg(2, duration_s, 1);
        c.render_hz = vec![hz];
        let m = run_algo(&Oracle::new(Faults { teleports, ..Faults::default() }), "lan", "idle", c);
        prop_assert_eq!(m.snaps.events, renders.len() as u64, "{:?} at {} Hz", m.snaps, hz);
        prop_assert!((m.snaps.largest_jump_m - 5.0).abs() < 1e-3);
    }
}

#[test]
fn changes_a_frozen_screen_never_shows_are_counted_not_hidden() {
    // Peer 0's screen freezes at render 120 (2 s). Player 0 changes at
    // 1.01 s (shown everywhere) and 3 s (not on its own screen), player 1
    // at 3.5 s (not on peer 0's screen); player 2 idles.
    let (r, u, l) = (Input::buttons(Input::RIGHT), Input::buttons(Input::UP), Input::buttons(Input::LEFT));
    let p0 = vec![(0, Input::IDLE), (1_010_000, r), (3_000_000, u)];
    let p1 = vec![(0, Input::IDLE), (3_500_000, l)];
    let idle = vec![(0, Input::IDLE)];
    let frozen = Faults { frozen_from: Some(120), ..Faults::default() };
    // (6 s: changes before the last two seconds are judged.)
    let m = run_tracks(&Oracle::new(frozen), vec![p0.clone(), p1.clone(), idle.clone()], cfg(3, 6, 1));
    // Own: 3 eligible changes (two of player 0, one of player 1), one
    // unshown. Remote: viewer 0 misses player 1's change (1 of 1), viewer 1
    // sees player 0's two, viewer 2 player 0's two and player 1's one.
    assert!((m.input_changes_unshown_pct.own - 100.0 / 3.0).abs() < 0.01, "{:?}", m.input_changes_unshown_pct);
    assert!((m.input_changes_unshown_pct.remote - 100.0 / 6.0).abs() < 0.01, "{:?}", m.input_changes_unshown_pct);
    // The latency percentiles cover only what was shown.
    assert_eq!(m.input_latency_ms.own.n, 2);
    let fine = run_tracks(&Oracle::new(Faults::default()), vec![p0, p1, idle], cfg(3, 6, 1));
    assert_eq!((fine.input_changes_unshown_pct.own, fine.input_changes_unshown_pct.remote), (0.0, 0.0));
}

#[test]
fn a_screen_on_schedule_lags_zero_at_any_render_rate() {
    // rollback steps to frame j + 1 at tick j — the frame the schedule has
    // due then — and on a LAN it never waits. Lag is how long ago the
    // frame after the one shown fell due, so every render reads 0 at any
    // rate: one at a tick's instant drawn before the tick (60 Hz), one
    // between ticks (144 Hz), one just after a tick (30 Hz) — never the
    // render's phase in the tick.
    for hz in [30, 60, 144] {
        let mut c = cfg(3, 5, 1);
        c.render_hz = vec![hz];
        let m = crate::util::run_named("rollback", "lan", "zigzag", c);
        let lag = m.lag_ms.expect("rollback names its game's frame");
        assert_eq!((lag.behind_ms.max, lag.at_end_ms), (0.0, 0.0), "{hz} Hz: {lag:?}");
    }
}

#[test]
fn a_screen_ahead_of_an_authority_seconds_behind_is_credited_every_change() {
    // prediction draws the own player at once; on a 1.5 s one-way delay its
    // server applies each input 1.5 s later, and the renders wait that long
    // to be judged (100 renders at 60 Hz). Every change is credited, at
    // the latency prediction shows on a LAN; the changes a render drew
    // and the server had not applied when the run ended are in flight,
    // not unshown.
    let far = crate::util::run_named("prediction", "delay 1500ms", "random-walk", cfg(2, 20, 1));
    let near = crate::util::run_named("prediction", "lan", "random-walk", cfg(2, 20, 1));
    assert_eq!(far.input_changes_unshown_pct.own, 0.0, "{:?}", far.input_changes_unshown_pct);
    let (a, b) = (far.input_latency_ms.own.p50, near.input_latency_ms.own.p50);
    assert!((a - b).abs() <= crate::util::TICK_MS, "own p50 {a} ms at 1.5 s against {b} ms on a LAN");
    assert!(
        far.input_latency_ms.own.n + 5 >= near.input_latency_ms.own.n,
        "{} vs {}",
        far.input_latency_ms.own.n,
        near.input_latency_ms.own.n
    );
    // In flight: at least the changes of the last 1.5 s, as a share of all.
    let flight = far.input_changes_in_flight_pct.own;
    assert!(flight > 100.0 * 1.0 / 20.0 && flight < 100.0 * 3.5 / 20.0, "{flight}%");
}

#[test]
fn shown_in_flight_and_never_shown_account_for_every_change() {
    // The frozen-screen case: peer 0 freezes at 2 s, so its own change at
    // 3 s is never shown; a change at 5.5 s, in the last two seconds of a
    // 6 s run, is in flight on every screen that had not shown it.
    let (r, u, l) = (Input::buttons(Input::RIGHT), Input::buttons(Input::UP), Input::buttons(Input::LEFT));
    let p0 = vec![(0, Input::IDLE), (1_010_000, r), (3_000_000, u), (5_990_000, l)];
    let idle = vec![(0, Input::IDLE)];
    let frozen = Faults { frozen_from: Some(120), ..Faults::default() };
    let m = run_tracks(&Oracle::new(frozen), vec![p0, idle.clone(), idle], cfg(3, 6, 1));
    // Own (screen 0, player 0): 3 changes, 1 shown, 1 never, 1 in flight.
    assert!((m.input_changes_unshown_pct.own - 50.0).abs() < 0.01, "{:?}", m.input_changes_unshown_pct);
    assert!((m.input_changes_in_flight_pct.own - 100.0 / 3.0).abs() < 0.01, "{:?}", m.input_changes_in_flight_pct);
    assert_eq!(m.input_latency_ms.own.n, 1);
}
