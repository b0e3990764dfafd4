//! `syncbench tune` through the binary: the same bytes twice, the
//! optimum where it is known by derivation, a population, bad input.

use crate::util::syncbench;

/// The front, a recommendation and the rules, byte-identical twice.
#[test]
fn tune_prints_a_front_a_recommendation_and_the_rules_the_same_twice() {
    let args = ["tune", "--algo", "snapshot", "--profile", "4g", "--seeds", "2", "--duration", "5s", "--quiet"];
    let (code, first, err) = syncbench(&args);
    assert_eq!(code, 0, "{err}");
    let (_, second, _) = syncbench(&args);
    assert_eq!(first, second);
    for want in ["setting", "front", "recommended: interp=", "rule: lightyear", "rule: Source defaults", "defaults"] {
        assert!(first.contains(want), "{want}: {first}");
    }
    let (code, json, err) = syncbench(&[&args[..], &["--format", "json"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let points = v["points"].as_array().unwrap();
    assert_eq!(points.iter().filter(|p| p["recommended"] == true).count(), 1);
    assert!(points.iter().any(|p| p["on_front"] == true));
    // The picture: a scatter per limit, the recommendation named.
    let page = std::env::temp_dir().join(format!("syncbench-tune-{}.html", std::process::id()));
    let (code, _, err) = syncbench(&[&args[..], &["--html", page.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(html.matches("<svg").count(), 3, "snaps, frozen and up against remote latency");
    assert!(html.contains("◀ interp="), "{html}");
}

/// Rollback between two peers each on `delay 50ms` (100 ms one way, six
/// ticks at 60 Hz): the input delay that never mispredicts covers the
/// one-way delay, so the smallest delay with no snaps is six frames; tune
/// finds it within one step of its grid.
#[test]
fn tune_finds_the_input_delay_that_covers_a_constant_delay() {
    let (code, json, err) = syncbench(&[
        "tune",
        "--algo",
        "rollback",
        "--profile",
        "delay 50ms",
        "--opts",
        "delay=0..10:1",
        "--goal",
        "min own-lat; snaps<=0",
        "--seeds",
        "3",
        "--duration",
        "20s",
        "--quiet",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let best = v["points"].as_array().unwrap().iter().find(|p| p["recommended"] == true).unwrap().clone();
    let delay: i64 = best["options"]["delay"].as_str().unwrap().parse().unwrap();
    assert!((delay - 6).abs() <= 1, "{best}");
    assert_eq!(best["meets_goal"], true, "{best}");
}

/// Two networks weighted: the recommendation's value and regret on each.
#[test]
fn a_population_reports_each_network_and_its_regret() {
    let (code, json, err) = syncbench(&[
        "tune",
        "--algo",
        "snapshot",
        "--profile",
        "lan:0.7,4g:0.3",
        "--opts",
        "interp=0,50,100",
        "--seeds",
        "2",
        "--duration",
        "5s",
        "--quiet",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let nets = v["networks"].as_array().unwrap();
    assert_eq!(nets.len(), 2);
    assert!((nets[0]["weight"].as_f64().unwrap() - 0.7).abs() < 1e-9);
    assert!(nets.iter().all(|n| n["regret"].as_f64().unwrap() >= 0.0), "{v}");
    for (args, says) in [
        (vec!["--algo", "snapshot", "--opts", "interp=a..b:1"], "is not a number"),
        (vec!["--algo", "snapshot", "--goal", "min banana"], "unknown metric"),
        (vec!["--algo", "snapshot", "--profile", "lan:0.5,4g"], "weight every network or none"),
        (vec!["--algo", "periodic"], "no option of this algorithm has a default search"),
    ] {
        let (code, _, err) = syncbench(&[&["tune", "--duration", "1s"][..], &args[..]].concat());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// Three options: successive halving over the seeds, a third kept a rung,
/// its runs counted as they were run.
#[test]
fn three_options_are_searched_by_successive_halving() {
    let (code, json, err) = syncbench(&[
        "tune",
        "--algo",
        "prediction",
        "--profile",
        "lan",
        "--opts",
        "interp=0,50,100",
        "--opts",
        "smoothing=0,100",
        "--opts",
        "redundancy=1,3",
        "--seeds",
        "4",
        "--duration",
        "3s",
        "--quiet",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["searched"], 12);
    let rungs: Vec<(u64, u64)> = v["halving"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["settings"].as_u64().unwrap(), r["seeds"].as_u64().unwrap()))
        .collect();
    assert_eq!(rungs, [(12, 1), (4, 2), (2, 4)]);
    // 12 + 4 + 2·2 search runs, and the defaults and the rules on all four seeds.
    let fixed = v["points"].as_array().unwrap().iter().filter(|p| p["origin"] != "search").count() as u64;
    assert_eq!(v["runs"].as_u64().unwrap(), 12 + 4 + 4 + 4 * fixed);
}
