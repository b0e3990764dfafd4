//! `stress`: the adversarial link campaign's invariants on toys with known
//! answers, and the command end to end.

use crate::toys::{Faults, Oracle};
use crate::util::syncbench;
use harness::stress::links::{Family, Link};
use harness::stress::{check, write_link, Campaign, Invariant};

fn campaign(dir: &std::path::Path) -> Campaign {
    std::fs::create_dir_all(dir).unwrap();
    Campaign { seed: 1, links: 1, families: vec![], duration_us: 20_000_000, clients: 3, work: dir.to_path_buf() }
}

fn failures(algo: &Oracle, family: Family, dir: &std::path::Path) -> Vec<(Invariant, String)> {
    let c = campaign(dir);
    let link = Link::generate(family, c.seed, 0, c.duration_us, 1.0);
    write_link(&link, &c.work, &link.summary).unwrap();
    let checks = check(algo, &link, &c).checks.expect("the run");
    checks.into_iter().filter_map(|k| k.failure.map(|f| (k.invariant, f))).collect()
}

#[test]
fn the_oracle_breaks_only_the_bounds_and_a_frozen_screen_breaks_accounting() {
    let dir = std::env::temp_dir().join(format!("syncbench-stress-toys-{}", std::process::id()));
    // The oracle shares inputs through memory: whatever the link, every
    // change is shown a tick late, on schedule, with nothing to recover —
    // sooner than any link allows, which only the bounds catch.
    for family in [Family::Spike, Family::OutageLoss, Family::BurstLoss] {
        let found = failures(&Oracle::new(Faults { names_game: Some(0), ..Faults::default() }), family, &dir);
        let invariants: Vec<Invariant> = found.iter().map(|f| f.0).collect();
        assert_eq!(invariants, vec![Invariant::Bounds], "{family:?}: {found:?}");
        assert!(found[0].1.contains("under the link's least"), "{found:?}");
    }
    // A screen frozen from render 120 (2 s) on never shows a change after.
    let frozen = Oracle::new(Faults { frozen_from: Some(120), ..Faults::default() });
    let found = failures(&frozen, Family::Spike, &dir);
    assert!(found.iter().any(|(i, why)| *i == Invariant::Accounting && why.contains("never shown")), "{found:?}");
    // Screens drawn 60 ticks (1 s) late end more than 500 ms behind.
    let late = Oracle::new(Faults { lag: Some((60, false)), names_game: Some(0), ..Faults::default() });
    let found = failures(&late, Family::Spike, &dir);
    assert!(found.iter().any(|(i, _)| *i == Invariant::RealTime), "{found:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_campaign_prints_its_table_writes_its_failures_and_they_replay() {
    let out = std::env::temp_dir().join(format!("syncbench-stress-cli-{}", std::process::id()));
    let o = out.to_str().unwrap();
    let args =
        ["stress", "--algos", "bucket,rollback", "--families", "outage", "--duration", "30s", "--out", o, "--quiet"];
    let (code, stdout, err) = syncbench(&args);
    assert!(stdout.contains("algorithm") && stdout.contains("accounting") && stdout.contains("rollback"), "{stdout}");
    // bucket drops what an outage holds past its bucket (stress-known.toml).
    assert_eq!(code, 1, "{stdout}{err}");
    assert!(stdout.contains("bucket broke accounting on outage-0"), "{stdout}");
    let file = out.join("bucket.accounting").join("outage-0.toml");
    assert!(file.exists(), "{stdout}");
    // The written profile replays with `run`.
    let (code, _, err) = syncbench(&[
        "run",
        "--algo",
        "bucket",
        "--profile",
        file.to_str().unwrap(),
        "--duration",
        "30s",
        "--clients",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    // Known, it is listed apart and the campaign passes.
    let known = format!("{}/stress-known.toml", env!("CARGO_MANIFEST_DIR"));
    let mut with_known = args.to_vec();
    with_known.extend(["--known", &known]);
    let (code, stdout, err) = syncbench(&with_known);
    assert_eq!(code, 0, "{stdout}{err}");
    assert!(stdout.contains("Known properties (1)"), "{stdout}");
    // The same campaign prints the same bytes.
    assert_eq!(syncbench(&with_known).1, stdout);
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn bad_campaign_arguments_are_refused_by_name() {
    for (args, needle) in [
        (vec!["stress", "--families", "tsunami"], "--families tsunami"),
        (vec!["stress", "--duration", "2s"], "--duration 2s"),
        (vec!["stress", "--algos", "nope"], "unknown algorithm `nope`"),
        (vec!["stress", "--known", "/nonexistent/known.toml"], "/nonexistent/known.toml"),
    ] {
        let (code, out, err) = syncbench(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty() && err.contains(needle), "{args:?}: {err}");
    }
}
