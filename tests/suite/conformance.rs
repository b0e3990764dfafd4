//! The conformance suite bites: real algorithms keep their contracts,
//! every negative control is caught, and a failing case replays.

use harness::conform::{check, check_one, contracts, replay, Scenario, Verdict};
use harness::error::Source;

#[test]
fn every_algorithm_keeps_every_contract_that_applies() {
    // (Third-party code under test is not in `all()`; its known failures are
    // pinned in `ggrs.rs`.)
    for algo in algorithms::registry::all() {
        for r in check(*algo, 3, 1) {
            assert!(
                !matches!(r.verdict, Verdict::Fail(_)),
                "{} broke {}: {:?}\n{}",
                algo.name(),
                r.contract,
                r.verdict,
                r.counterexample.map(|s| s.to_toml("")).unwrap_or_default()
            );
        }
    }
}

#[test]
fn every_negative_control_is_caught_by_its_contract() {
    for (control, contract) in algorithms::controls::all() {
        let c = contracts::all().iter().find(|c| c.name == *contract).expect("named contract exists");
        let r = check_one(*control, c, 6, 1);
        assert!(
            matches!(r.verdict, Verdict::Fail(_)),
            "{} was not caught by {}: {:?}",
            control.name(),
            contract,
            r.verdict
        );
        assert!(r.counterexample.is_some());
        // Every failure says where: a located render (screen, entity,
        // instant, position), or for a desync the frame and the node.
        let Verdict::Fail(why) = &r.verdict else { unreachable!() };
        let located = harness::conform::located_in(why);
        match *contract {
            "no-desync" => assert!(why.contains("frame ") && why.contains("node"), "{why}"),
            "no-leak" => {} // counted over a second of renders: no single one to name
            _ => assert!(located.is_some(), "{}'s {contract} failure names no render: {why}", control.name()),
        }
        // `replay` shows the renders around that moment.
        if let (Some(place), Some(s)) = (located, &r.counterexample) {
            let kept = harness::conform::renders_around(*control, s, &place, 50_000).unwrap();
            let at = place.0;
            let t_us = (at.t_s * 1e6).round() as u64;
            assert!(kept.iter().any(|k| k.t_us.abs_diff(t_us) <= 60), "{contract}: no render at {at}: {kept:?}");
            assert!(kept.iter().all(|k| k.view.id as usize == at.entity && k.t_us.abs_diff(t_us) <= 50_000));
        }
    }
}

#[test]
fn a_located_render_reads_back_from_the_message_that_names_it() {
    let at = harness::metrics::Located { client: 3, entity: 12, t_s: 4.25, position_m: [1.5, -2.0, 0.25] };
    let msg = format!("7 renders, client 2 was slow; the worst {at}: the view named frame 9");
    assert_eq!(harness::metrics::Located::find_in(&msg), Some(at.clone()));
    assert_eq!(harness::metrics::Located::find_in("client 2 at noon"), None);
    // With the render rate of the run it was seen in, when named.
    assert_eq!(harness::conform::located_in(&msg), Some((at.clone(), None)));
    let msg = format!("snap events: 9 at 30 Hz but 2 at 144 Hz; at 30 Hz the largest snap 0.400 m: {at}; at 144 Hz …");
    assert_eq!(harness::conform::located_in(&msg), Some((at, Some(30))));
}

#[test]
fn a_failing_case_written_to_disk_replays_to_the_same_failure() {
    let control = algorithms::registry::find("lockstep-own-seed").unwrap();
    let c = contracts::all().iter().find(|c| c.name == "no-desync").unwrap();
    let r = check_one(control, c, 6, 1);
    let Verdict::Fail(why) = r.verdict else { panic!("control not caught") };
    let s = r.counterexample.unwrap();
    let path = std::env::temp_dir().join(format!("syncbench-replay-{}.toml", std::process::id()));
    std::fs::write(&path, s.to_toml(&why)).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let back = Scenario::parse(&text, &Source::File(path.display().to_string())).unwrap();
    assert_eq!(back.trace.tracks.len(), s.trace.tracks.len());
    assert_eq!(replay(control, &back).unwrap(), Verdict::Fail(why.clone()), "bit for bit");
    std::fs::remove_file(&path).ok();
    // The shrunk case names the first divergent frame.
    assert!(why.contains("first at frame"), "{why}");
}

#[test]
fn every_generated_scenario_survives_its_own_file_format() {
    // What `conform` writes, `replay` must read back as the same scenario —
    // for every contract's kind of case (outages, heals, worlds, areas of
    // interest). A key the writer knows and the reader refuses once made
    // every outage counterexample unreplayable.
    let src = Source::File("round-trip.toml".into());
    for algo in [algorithms::registry::find("delta-snapshot").unwrap(), algorithms::registry::find("lockstep").unwrap()]
    {
        for c in contracts::all() {
            for case in 0..40 {
                let mut s = (c.case)(algo, case);
                s.contract = c.name.to_string();
                let text = s.to_toml("round trip");
                let mut back =
                    Scenario::parse(&text, &src).unwrap_or_else(|e| panic!("{} case {case}: {e}\n{text}", c.name));
                // (The file keeps the trace's inputs, not its generator's name.)
                back.trace.name.clone_from(&s.trace.name);
                assert_eq!(back, s, "{} case {case}:\n{text}", c.name);
            }
        }
    }
}

/// Counterexamples the 10,000-case sweeps found and this project fixed
/// (`tests/data/fixed/`; `reports/known-failures/README.md` says what each
/// showed and what fixed it): each must keep its contract.
#[test]
fn fixed_counterexamples_stay_fixed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fixed");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 6, "{files:?}");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let s = Scenario::parse(&text, &Source::File(path.display().to_string())).unwrap();
        let algo = algorithms::registry::find(&s.algorithm).unwrap();
        assert_eq!(replay(algo, &s).unwrap(), Verdict::Pass, "{}", path.display());
    }
}

/// `converges` promises a world at rest: a scenario whose players never
/// stop (the shrinker once made one by dropping the stop) is outside it —
/// not applicable, so shrinking cannot wander there — while the same
/// scenario with the stop put back is judged.
#[test]
fn converges_is_judged_only_on_a_world_at_rest() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/outside/converges-without-stop.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut s = Scenario::parse(&text, &Source::File(path.display().to_string())).unwrap();
    let algo = algorithms::registry::find(&s.algorithm).unwrap();
    assert!(matches!(replay(algo, &s).unwrap(), Verdict::NotApplicable(_)));
    for t in &mut s.trace.tracks {
        t.segments.push((2_000_000, harness::game::Input::IDLE));
    }
    assert!(!matches!(replay(algo, &s).unwrap(), Verdict::NotApplicable(_)));
}

#[test]
fn naming_newer_frames_than_the_screen_draws_buys_no_latency() {
    // `claims-newest` draws `snapshot`'s picture and names the newest
    // snapshot's frame for it: its latency is held to the same picture.
    use crate::util::{cfg, run_algo};
    let honest = algorithms::registry::find("snapshot").unwrap();
    let liar = algorithms::registry::find("claims-newest").unwrap();
    for seed in [1, 2] {
        let h = run_algo(honest, "wifi", "random-walk", cfg(4, 20, seed));
        let l = run_algo(liar, "wifi", "random-walk", cfg(4, 20, seed));
        let (h, l) = (&h.input_latency_ms.remote, &l.input_latency_ms.remote);
        assert!(h.n > 100, "{h:?}");
        assert!(l.p50 >= h.p50 && l.p99 >= h.p99 && l.mean >= h.mean, "seed {seed}: {l:?} against {h:?}");
    }
}
