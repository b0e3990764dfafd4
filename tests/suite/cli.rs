//! The `syncbench` binary as a user meets it.

use std::process::Command;

use crate::util::syncbench;

fn assert_bad_input(args: &[&str], needles: &[&str]) {
    let (code, out, err) = syncbench(args);
    assert_eq!(code, 2, "{args:?}: stderr {err}");
    assert!(out.is_empty(), "{args:?}: no partial report on stdout, got {out}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: stderr should mention `{n}`: {err}");
    }
}

#[test]
fn run_twice_prints_identical_json() {
    let args = [
        "run",
        "--algo",
        "lockstep",
        "--profile",
        "wifi",
        "--trace",
        "zigzag",
        "--duration",
        "10s",
        "--seed",
        "7",
        "--format",
        "json",
    ];
    let (c1, a, _) = syncbench(&args);
    let (c2, b, _) = syncbench(&args);
    assert_eq!((c1, c2), (0, 0));
    assert_eq!(a, b);
    let v: serde_json::Value = serde_json::from_str(&a).unwrap();
    assert_eq!(v["schema"], "syncbench.report.v3");
    let run = &v["runs"][0];
    assert_eq!(run["algorithm"], "lockstep");
    assert_eq!(run["seed"], 7);
    for key in ["divergence_m", "ideal_divergence_m", "input_latency_ms"] {
        for side in ["own", "remote"] {
            for stat in ["mean", "p50", "p90", "p99", "max"] {
                assert!(run["metrics"][key][side][stat].is_number(), "{key}.{side}.{stat}");
            }
        }
    }
    for key in ["desyncs", "corrections", "rollbacks", "resimulated_frames", "sim_steps_per_s"] {
        assert!(run["metrics"][key].is_number(), "{key}");
    }
    for (block, key) in [
        ("snaps", "per_client_per_min"),
        ("snaps", "largest_jump_m"),
        ("stalls", "freeze_ms_per_client"),
        ("stalls", "longest_ms"),
        ("input_fidelity", "repeated"),
        ("input_fidelity", "dropped"),
        ("impossible", "share"),
        ("trace_facts", "contact_frames"),
    ] {
        assert!(run["metrics"][block][key].is_number(), "{block}.{key}");
    }
    for key in ["up_bytes_per_s", "down_bytes_per_s", "up_packets_per_s", "down_packets_per_s"] {
        assert!(run["metrics"]["bandwidth"][key].is_number(), "{key}");
    }
}

#[test]
fn bad_input_exits_2_with_a_message() {
    assert_bad_input(&["run", "--algo", "lockstep", "--profile", "delay banana"], &["banana", "unit"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--profile", "marsnet"], &["unknown profile", "lan"]);
    assert_bad_input(&["run", "--algo", "telepathy"], &["unknown algorithm", "lockstep"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--trace", "warp"], &["unknown trace", "zigzag"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--duration", "60"], &["no unit"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--opt", "turbo=1"], &["no option `turbo`", "max-ahead"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--clients", "0"], &["clients"]);
    assert_bad_input(&["compare", "--algos", "lockstep,nope"], &["unknown algorithm `nope`"]);
}

#[test]
fn clock_drift_shows_as_the_clock_sync_sawtooth() {
    // thc's clock sync re-synchronizes every 10 s, so a clock 2,000 ppm
    // off drifts up to 20 ms away between syncs: a sawtooth averaging 10 ms,
    // signed as the drift. An exact clock stays within a millisecond.
    let error = |clock: &str| {
        let mut args = vec!["run", "--algo", "prediction", "--profile", "lan", "--duration", "30s", "--format", "json"];
        if !clock.is_empty() {
            args.push(clock);
        }
        let (code, out, err) = syncbench(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let run = &v["runs"][0];
        let e = &run["metrics"]["clock_offset_error"];
        (run["clocks"].clone(), e["mean_signed_ms"].as_f64().unwrap(), e["abs_ms"]["max"].as_f64().unwrap())
    };
    let (clocks, mean, max) = error("");
    assert!(clocks.is_null(), "exact clocks are not written: {clocks}");
    assert!(mean.abs() < 1.0 && max < 1.0, "{mean} {max}");
    for (flag, sign) in [("--clock=@+2000ppm", 1.0), ("--clock=-40ms@-2000ppm", -1.0)] {
        let (clocks, mean, max) = error(flag);
        assert_eq!(clocks.as_array().map(Vec::len), Some(4), "{clocks}");
        assert!((8.0..12.0).contains(&(mean * sign)), "{flag}: mean signed error {mean} ms");
        assert!((18.0..22.0).contains(&max), "{flag}: max error {max} ms");
    }
    assert_bad_input(&["run", "--algo", "prediction", "--clock", "5ms@3"], &["--clock `5ms@3`", "ppm"]);
    assert_bad_input(&["run", "--algo", "prediction", "--clock", "40"], &["--clock `40`", "unit"]);
}

#[test]
fn malformed_files_are_named_with_their_line() {
    let dir = std::env::temp_dir().join(format!("syncbench-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("bad.trace");
    std::fs::write(&trace, "player 0\n0s R\n1s Q\n").unwrap();
    let profile = dir.join("bad.toml");
    std::fs::write(&profile, "description = \"x\"\nuplink = \"delay 10ms\"\ndownlink = \"delay 10ms loss lots\"\n")
        .unwrap();
    let t = trace.to_str().unwrap();
    let p = profile.to_str().unwrap();
    assert_bad_input(&["run", "--algo", "lockstep", "--trace", t], &[&format!("{t}:3"), "`Q`"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--profile", p], &[&format!("{p}:3"), "lots"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn compare_prints_both_algorithms_and_writes_reports() {
    let dir = std::env::temp_dir().join(format!("syncbench-compare-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let (code, out, err) = syncbench(&[
        "compare",
        "--profile",
        "lan",
        "--algos",
        "server-verified,lockstep",
        "--duration",
        "5s",
        "--out",
        d,
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("server-verified") && out.contains("lockstep"), "{out}");
    // Five seeds by default: the table shows the spread, the JSON each seed.
    assert!(out.contains("5 seeds: mean ±95% confidence interval"), "{out}");
    assert!(out.contains('±'), "{out}");
    let json = std::fs::read_to_string(dir.join("report.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 10);
    let seeds: Vec<u64> =
        runs.iter().filter(|r| r["algorithm"] == "lockstep").map(|r| r["seed"].as_u64().unwrap()).collect();
    assert_eq!(seeds, [1, 2, 3, 4, 5]);
    assert!(std::fs::read_to_string(dir.join("report.md")).unwrap().contains("| metric"));
    std::fs::remove_dir_all(&dir).ok();
    // One seed still works, without an interval.
    let (code, out, err) =
        syncbench(&["compare", "--profile", "lan", "--algos", "lockstep", "--duration", "2s", "--seeds", "1"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("· 1 seed") && !out.contains('±'), "{out}");
}

#[test]
fn list_shows_algorithms_profiles_and_traces() {
    let (code, out, _) = syncbench(&["list"]);
    assert_eq!(code, 0);
    for n in ["server-verified", "lockstep", "wifi", "4g", "lan", "dodge", "zigzag"] {
        assert!(out.contains(n), "{n}: {out}");
    }
    let (code, out, _) = syncbench(&["list", "algorithms", "--format", "json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["algorithms"].as_array().unwrap().len() >= 2);
}

#[test]
fn unknown_transport_is_bad_input() {
    assert_bad_input(
        &["run", "--algo", "lockstep", "--transport", "carrier-pigeon"],
        &["unknown transport", "quic-datagram"],
    );
    assert_bad_input(&["run", "--algo", "lockstep", "--transport", "redundant:0"], &["redundancy"]);
}

#[test]
fn conform_catches_controls_writes_junit_and_replays() {
    let dir = std::env::temp_dir().join(format!("syncbench-conform-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    let junit = dir.join("conform.xml");
    let (code, out, err) =
        syncbench(&["conform", "--controls", "--cases", "3", "--out", d, "--junit", junit.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("control:lockstep-own-seed") && out.contains("caught"), "{out}");
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.contains("<testsuite name=\"lockstep\"") && xml.contains("failures=\"0\""), "{xml}");
    // Times, the seed and the command to reproduce; controls named for what
    // they must do; contracts that do not apply are not "skipped" cases.
    assert!(xml.contains("time=\"") && xml.contains("name=\"seed\" value=\"1\""), "{xml}");
    assert!(xml.contains("syncbench conform --algo lockstep --cases 3 --seed 1"), "{xml}");
    assert!(xml.contains("name=\"catches no-desync\"") && xml.contains("negative-control"), "{xml}");
    assert!(!xml.contains("<skipped") && xml.contains("name=\"not-applicable\""), "{xml}");
    // The control's counterexample replays to the same failure: exit 1.
    let file = dir.join("lockstep-own-seed.no-desync.toml");
    let (code, out, _) = syncbench(&["replay", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL") && out.contains("world.rng"), "{out}");
    // A real algorithm breaking a contract exits 1 too.
    let (code, _, err) = syncbench(&["conform", "--algo", "frame-based", "--cases", "3", "--out", d]);
    assert_eq!(code, 1, "{err}");
    std::fs::remove_dir_all(&dir).ok();
    // A malformed scenario is bad input.
    let bad = std::env::temp_dir().join(format!("syncbench-bad-{}.toml", std::process::id()));
    std::fs::write(&bad, "contract = \"no-desync\"\nalgorithm = \"lockstep\"\nclients = 0\n").unwrap();
    assert_bad_input(&["replay", bad.to_str().unwrap()], &["clients"]);
    std::fs::remove_file(&bad).ok();
}

#[test]
fn world_and_interest_flags_are_checked_and_reported() {
    assert_bad_input(&["run", "--algo", "snapshot", "--arena", "huge"], &["--arena", "WIDTHxHEIGHT"]);
    assert_bad_input(&["run", "--algo", "snapshot", "--arena", "5000x10"], &["--arena", "10..=2000"]);
    assert_bad_input(&["run", "--algo", "ggrs", "--bots", "3"], &["ggrs", "bots"]);
    assert_bad_input(&["run", "--algo", "rollback", "--aoi", "grid"], &["rollback", "area of interest"]);
    assert_bad_input(&["run", "--algo", "snapshot", "--aoi", "grid", "--aoi-radius=-3"], &["--aoi-radius"]);
    assert_bad_input(&["run", "--algo", "snapshot", "--aoi", "quadtree"], &["quadtree"]);
    assert_bad_input(&["run", "--algo", "snapshot", "--aoi-radius", "20"], &["need --aoi"]);
    let (code, out, err) = syncbench(&[
        "run",
        "--algo",
        "delta-snapshot",
        "--clients",
        "3",
        "--bots",
        "40",
        "--arena",
        "100x100",
        "--aoi",
        "crosslist",
        "--aoi-radius",
        "15",
        "--duration",
        "2s",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let run = &v["runs"][0];
    assert_eq!(run["arena"], "100x100");
    assert_eq!(run["bots"], 40);
    assert_eq!(run["aoi"]["method"], "crosslist");
    assert_eq!(run["aoi"]["radius_m"], 15.0);
    assert_eq!(run["metrics"]["interest"]["leaks"], 0);
    // A default run writes none of these keys (reports stay comparable).
    let (_, out, _) =
        syncbench(&["run", "--algo", "snapshot", "--clients", "2", "--duration", "1s", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    for k in ["arena", "bots", "aoi"] {
        assert!(v["runs"][0].get(k).is_none(), "{k}");
    }
    assert!(v["runs"][0]["metrics"].get("interest").is_none());
}

#[test]
fn live_prints_a_live_report_and_refuses_what_it_cannot_do() {
    let (code, out, err) = syncbench(&[
        "live",
        "--algo",
        "server-verified",
        "--profile",
        "lan",
        "--clients",
        "2",
        "--duration",
        "500ms",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["runs"][0]["mode"], "live");
    assert!(v["runs"][0]["live"]["relay_delivered"].as_u64().unwrap() > 0);
    assert_bad_input(
        &["live", "--algo", "lockstep", "--profile", "delay 5ms slot 10ms", "--duration", "1s"],
        &["slot"],
    );
    assert_bad_input(&["live", "--algo", "lockstep", "--paced"], &["--paced"]);
    assert_bad_input(&["live", "--algo", "nope"], &["unknown algorithm"]);
}

#[test]
fn compare_all_leaves_out_what_cannot_play_the_world_and_names_it() {
    let (code, out, err) = syncbench(&[
        "compare",
        "--aoi",
        "grid",
        "--bots",
        "10",
        "--arena",
        "60x60",
        "--duration",
        "1s",
        "--clients",
        "2",
        "--seeds",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("leaves out") && err.contains("dead-reckoning") && err.contains("--aoi"), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let algos: Vec<&str> = v["runs"].as_array().unwrap().iter().map(|r| r["algorithm"].as_str().unwrap()).collect();
    assert_eq!(algos, ["snapshot", "delta-snapshot"]);
    assert_bad_input(&["compare", "--algos", "snapshot,periodic", "--aoi", "grid"], &["periodic", "area-of-interest"]);
}

#[test]
fn a_metric_without_samples_prints_a_dash_never_zero() {
    // Dead reckoning on `idle`: nobody changes an input, so no latency
    // sample exists (the heartbeat is not an input).
    let (code, out, err) = syncbench(&["run", "--algo", "dead-reckoning", "--trace", "idle", "--duration", "4s"]);
    assert_eq!(code, 0, "{err}");
    for label in ["own input latency p50", "remote input latency p99", "hit agreement on hits"] {
        let row = out.lines().find(|l| l.starts_with(label)).expect("row");
        assert!(row.trim_end().ends_with('–'), "{row}");
    }
}

#[test]
fn a_closed_stdout_ends_quietly() {
    // `syncbench list | head -1`: the reader goes away before the writer.
    for args in [&["list"][..], &["run", "--algo", "lockstep", "--duration", "1s", "--format", "json"][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_syncbench"))
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("binary runs");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("waits");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn the_hardening_audits_breaches_are_refused_with_exit_2() {
    // Each was a panic, an allocation without end, or a wrong answer.
    assert_bad_input(
        &["run", "--algo", "framelock", "--opt", "key-max=1"],
        &["key-min (2) must not exceed key-max (1)"],
    );
    assert_bad_input(&["run", "--algo", "framelock", "--opt", "key-min=31", "--opt", "key-max=30"], &["key-min (31)"]);
    assert_bad_input(&["run", "--algo", "rollback", "--opt", "delay=2.5"], &["a whole number in 0..=30"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--bots", "18446744073709551615"], &["entity-seconds"]);
    // Many clients: the work is clients × entities × renders, refused up
    // front with the estimate.
    assert_bad_input(
        &["run", "--algo", "server-verified", "--clients", "4096", "--duration", "2s"],
        &["4096 clients × 4096 entities", "screen entries", "limit"],
    );
    assert_bad_input(
        &["run", "--algo", "delta-snapshot", "--clients", "1400", "--duration", "45s"],
        &["entity-renders", "--render-rate"],
    );
    assert_bad_input(&["run", "--algo", "lockstep", "--profile", "/dev/zero"], &["/dev/zero", "limit of 8 MB"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--trace", "/dev/urandom"], &["/dev/urandom", "limit"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--trace", "zigzag:period=1us"], &["expected 1ms..=1h"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--duration", "999999999s"], &["the limit is 4 h"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--profile", "delay 10000000s"], &["at most 1h"]);
    // A negative number is the option's value, refused by its own parser.
    assert_bad_input(&["run", "--algo", "lockstep", "--seed", "-1"], &["--seed", "-1"]);
    assert_bad_input(&["diff", "a.json", "b.json", "--tolerance", "-5"], &["--tolerance -5"]);
    // Long input is cut in messages: a 100,000-character trace spec, a
    // 309-digit tolerance.
    let long = "z".repeat(100_000);
    let (code, _, err) = syncbench(&["run", "--algo", "lockstep", "--trace", &long]);
    assert_eq!(code, 2);
    assert!(err.len() < 2_000 && err.contains("z…"), "{} bytes", err.len());
    assert_bad_input(
        &["diff", "a.json", "b.json", "--tolerance", "1e308"],
        &["--tolerance 1e308: expected a percentage"],
    );
    // netem's words, in capitals or as a bare `seed`.
    assert_bad_input(&["run", "--algo", "lockstep", "--profile", "DELAY 5ms"], &["lower case (`delay`)"]);
    assert_bad_input(&["run", "--algo", "lockstep", "--profile", "rate 1bit"], &["from 8bit"]);
    // An ANSI escape in the input is shown escaped, not sent to the terminal.
    let (code, _, err) = syncbench(&["run", "--algo", "rollback", "--opt", "delay=\u{1b}[31m"]);
    assert_eq!(code, 2);
    assert!(err.contains("\\u{1b}[31m") && !err.contains('\u{1b}'), "{err}");
}

#[test]
fn a_packet_that_would_take_years_is_lost_not_delivered_early() {
    let (code, out, err) =
        syncbench(&["profile", "show", "rate 1bps 2147483647", "--packets", "50", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let up = &j["uplink_measured"];
    assert_eq!((up["loss"].as_f64(), up["received"].as_u64()), (Some(1.0), Some(0)), "{up}");
}

#[test]
fn replay_tells_a_malformed_scenario_from_a_failing_one() {
    let dir = std::env::temp_dir().join(format!("syncbench-replay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = "contract = \"no-desync\"\nalgorithm = \"lockstep\"\nclients = 2\nduration = \"500ms\"\nseed = 1\ntick_rate = 60\nuplink = \"delay 10ms\"\ndownlink = \"delay 10ms\"\ntrace = \"\"\"\nsyncbench-trace 1\nexact 60\nR L\nR L\n\"\"\"\n";
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let (code, out, err) = syncbench(&["replay", &write("good.toml", good)]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("pass"), "{out}");
    let zero = write("zero.toml", &good.replace("\"500ms\"", "\"0us\""));
    assert_bad_input(&["replay", &zero], &["zero.toml:4", "at least 100ms"]);
    let nope = write("nope.toml", &good.replace("no-desync", "nope"));
    let (code, _, err) = syncbench(&["replay", &nope]);
    assert_eq!(code, 2);
    assert!(err.contains("nope.toml") && err.contains("unknown contract"), "{err}");
    let noseed = write("noseed.toml", &good.replace("seed = 1\n", ""));
    assert_bad_input(&["replay", &noseed], &["noseed.toml", "missing key `seed`"]);
    // A bad row of the embedded trace: line 13 of the file.
    let badrow = write("badrow.toml", &good.replace("R L\nR L\n", "R L\nR Q\n"));
    assert_bad_input(&["replay", &badrow], &["badrow.toml:13"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A scratch directory with a `netem-profiles/` of its own.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("syncbench-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("netem-profiles")).unwrap();
    d
}

fn syncbench_in(dir: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_syncbench")).args(args).current_dir(dir).output().expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn stating_an_option_at_its_default_changes_nothing_in_diff() {
    let d = scratch("default-opt");
    let run = |extra: &[&str], out: &str| {
        let mut args = vec!["run", "--algo", "dead-reckoning", "--duration", "3s", "--format", "json"];
        args.extend_from_slice(extra);
        let (code, json, err) = syncbench_in(&d, &args);
        assert_eq!(code, 0, "{err}");
        std::fs::write(d.join(out), json).unwrap();
    };
    run(&[], "a.json");
    run(&["--opt", "threshold=0.050"], "b.json");
    let (code, out, err) = syncbench_in(&d, &["diff", "a.json", "b.json"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("1 of 1 runs compared") && !out.contains("MISSING"), "{out}");
}

#[test]
fn a_profile_edited_under_its_name_is_a_network_change_not_a_regression() {
    let d = scratch("edited-profile");
    let profile = d.join("netem-profiles/mine.toml");
    let matrix = |out: &str| {
        let args = ["matrix", "--algos", "lockstep,prediction", "--profiles", "mine", "--traces", "random-walk"];
        let mut args = args.to_vec();
        args.extend_from_slice(&["--seeds", "1", "--duration", "3s", "--quiet", "--out", out]);
        // An option for one of the two algorithms only.
        args.extend_from_slice(&["--opt", "prediction:interp=150"]);
        let (code, _, err) = syncbench_in(&d, &args);
        assert_eq!(code, 0, "{err}");
    };
    std::fs::write(&profile, "uplink = \"delay 20ms\"\ndownlink = \"delay 20ms\"\n").unwrap();
    matrix("r1");
    std::fs::write(&profile, "uplink = \"delay 90ms loss 5%\"\ndownlink = \"delay 90ms\"\n").unwrap();
    matrix("r2");
    let (code, out, err) = syncbench_in(&d, &["diff", "r1/report.json", "r2/report.json"]);
    // Not judged as regressions — but the gate cannot pass what it could
    // not judge, unless told to.
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(out.matches("network changed: not compared").count(), 2, "{out}");
    assert!(!out.contains("WORSE") && err.contains("--accept-input-changes"), "{out}{err}");
    let (code, _, err) = syncbench_in(&d, &["diff", "r1/report.json", "r2/report.json", "--accept-input-changes"]);
    assert_eq!(code, 0, "{err}");
    // A profile's description is not its network.
    std::fs::write(
        &profile,
        "description = \"reworded\"\nuplink = \"delay 90ms loss 5%\"\ndownlink = \"delay 90ms\"\n",
    )
    .unwrap();
    matrix("r3");
    let (code, out, err) = syncbench_in(&d, &["diff", "r2/report.json", "r3/report.json"]);
    assert_eq!(code, 0, "{out}{err}");
    // The prefixed option reached prediction and only prediction.
    let r: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("r1/report.json")).unwrap()).unwrap();
    let opts: Vec<_> = r["runs"].as_array().unwrap().iter().map(|x| x["options"].clone()).collect();
    assert!(opts.iter().any(|o| o["interp"] == "150") && opts.iter().any(|o| o.get("interp").is_none()), "{opts:?}");
    // Unprefixed, the option must suit every algorithm in the matrix.
    let (code, _, err) = syncbench_in(
        &d,
        &["matrix", "--algos", "lockstep,prediction", "--profiles", "mine", "--seeds", "1", "--opt", "interp=150"],
    );
    assert_eq!(code, 2);
    assert!(err.contains("--opt ALGO:key=value"), "{err}");
}

#[test]
fn a_binary_copied_alone_to_an_empty_directory_finds_the_shipped_profiles_and_traces() {
    let d = std::env::temp_dir().join(format!("syncbench-alone-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let bin = d.join("syncbench");
    std::fs::copy(env!("CARGO_BIN_EXE_syncbench"), &bin).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(&bin).args(args).current_dir(&d).env_remove("SYNCBENCH_HOME").output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert!(run(&["list", "profiles"]).contains("wifi"));
    assert!(run(&["list", "traces"]).contains("dodge"));
    let t = run(&[
        "compare",
        "--profile",
        "wifi",
        "--algos",
        "lockstep",
        "--traces",
        "dodge",
        "--duration",
        "2s",
        "--seeds",
        "1",
    ]);
    assert!(t.contains("profile wifi"), "{t}");
    // A file on disk with a shipped name overrides the built-in one.
    std::fs::create_dir_all(d.join("netem-profiles")).unwrap();
    std::fs::write(d.join("netem-profiles/wifi.toml"), "description = \"mine\"\nlink = \"delay 1ms\"\n").unwrap();
    assert!(run(&["profile", "show", "wifi", "--packets", "10"]).contains("mine"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn ab_tells_two_option_values_apart_with_their_spread() {
    let (code, out, err) = syncbench(&[
        "ab",
        "--algo",
        "prediction",
        "--a-opt",
        "interp=100",
        "--b-opt",
        "interp=150",
        "--profile",
        "4g",
        "--duration",
        "5s",
        "--seeds",
        "4",
        "--quiet",
    ]);
    // More interpolation delay: remote latency is worse by about 50 ms on
    // every seed, which the paired test calls significant (exit 1).
    assert_eq!(code, 1, "{out}{err}");
    let line = out.lines().find(|l| l.starts_with("latency.remote.p50")).expect("the row");
    let diff: f64 = line.split_whitespace().nth(3).and_then(|d| d.split('±').next()?.parse().ok()).expect("B − A");
    assert!(line.contains("B worse") && (45.0..=55.0).contains(&diff), "{line}");
    assert!(out.contains("identical on every pair:") && out.contains("bandwidth.up"), "{out}");
    // The same configuration on both sides: nothing differs.
    let (code, out, err) = syncbench(&["ab", "--algo", "lockstep", "--duration", "3s", "--seeds", "3", "--quiet"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("better on 0 metric(s), worse on 0"), "{out}");
}

#[test]
fn shrunk_counterexamples_are_short_files_that_replay_exactly() {
    let d = std::env::temp_dir().join(format!("syncbench-shrunk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    let (code, _, err) = syncbench(&["conform", "--controls", "--cases", "5", "--out", d.to_str().unwrap()]);
    assert_eq!(code, 0, "every control is caught: {err}");
    let files: Vec<_> = std::fs::read_dir(&d).unwrap().map(|e| e.unwrap().path()).collect();
    assert!(files.len() >= 7, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(text.lines().count() < 60, "{}: {} lines", f.display(), text.lines().count());
        // The replay reproduces the failure the header states, word for word.
        let why = text.lines().next().unwrap().split_once(": ").unwrap().1.to_string();
        let (code, out, _) = syncbench(&["replay", f.to_str().unwrap()]);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains(&format!("FAIL: {why}")), "{}: {why}\n{out}", f.display());
    }
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compare_fits_a_100_column_terminal_and_picks_metrics() {
    let (code, out, err) = syncbench(&["compare", "--profile", "wifi", "--duration", "2s", "--seeds", "2", "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let widest = out.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 100, "{widest} columns:\n{out}");
    assert!(out.contains("algorithm") && out.contains("rollback"), "{out}");
    // The spread is in the cells, not only in a note under the table.
    let rows_with_spread = out.lines().filter(|l| !l.starts_with('(') && l.contains('±') && !l.contains(" · ")).count();
    assert!(rows_with_spread >= 6, "{rows_with_spread} rows show a spread:\n{out}");
    let (code, out, _) = syncbench(&[
        "compare",
        "--profile",
        "wifi",
        "--duration",
        "2s",
        "--seeds",
        "1",
        "--quiet",
        "--metrics",
        "remote-lat-p99,up",
    ]);
    assert_eq!(code, 0);
    let header = out.lines().nth(1).unwrap();
    assert!(header.contains("rem p99 ms") && header.contains("up B/s") && !header.contains("own div"), "{header}");
    assert_bad_input(&["compare", "--profile", "wifi", "--metrics", "speed"], &["--metrics speed", "own-lat"]);
    // The full table on request.
    let (_, out, _) =
        syncbench(&["compare", "--profile", "lan", "--duration", "1s", "--seeds", "1", "--quiet", "--all-metrics"]);
    assert!(out.contains("remote input changes never shown (%)"), "{out}");
}

#[test]
fn a_pasted_tc_line_runs_and_says_what_it_dropped() {
    let line = "tc qdisc add dev eth0 root netem delay 50ms loss 1%";
    let (code, out, err) = syncbench(&["run", "--algo", "lockstep", "--profile", line, "--duration", "2s"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("uplink: delay 50ms loss 1%"), "{out}");
    assert!(err.contains("device eth0 ignored"), "{err}");
    // Byte units are pointed out; the canonical form is in bits.
    let (code, out, _) = syncbench(&["profile", "show", "delay 5ms rate 1mbps", "--packets", "100"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("`rate 1mbps` is bytes per second to tc: 8.000 Mbit/s") && out.contains("rate 8000000bit"),
        "{out}"
    );
}

#[test]
fn corruption_is_dropped_by_default_as_the_kernels_netem_makes_it() {
    // reports/netem-corrupt.md: behind Linux's UDP checksum no damaged
    // datagram reaches the socket, so lockstep on a corrupting link only
    // loses packets; delivered flips make it desync (exit 1).
    let args = ["run", "--algo", "lockstep", "--profile", "corrupt 1%", "--duration", "5s"];
    let (code, _, err) = syncbench(&args);
    assert_eq!(code, 0, "{err}");
    let mut deliver = args.to_vec();
    deliver.extend(["--corrupted", "deliver"]);
    let (code, _, err) = syncbench(&deliver);
    assert_eq!(code, 1, "{err}");
}

/// `--out` writes to what the path names: `-` and `/dev/stdout` are the
/// standard output (never replaced), a full device is an error.
#[test]
fn out_writes_through_standard_output_and_devices() {
    let (code, printed, err) = syncbench(&["trace", "convert", "tests/data/duel.csv"]);
    assert_eq!(code, 0, "{err}");
    for target in ["-", "/dev/stdout"] {
        let (code, out, err) = syncbench(&["trace", "convert", "tests/data/duel.csv", "--out", target]);
        assert_eq!(code, 0, "{target}: {err}");
        assert_eq!(out, printed, "{target}");
        assert!(std::fs::symlink_metadata("/dev/stdout").unwrap().file_type().is_symlink());
    }
    if std::path::Path::new("/dev/full").exists() {
        let (code, _, err) = syncbench(&["trace", "convert", "tests/data/duel.csv", "--out", "/dev/full"]);
        assert_ne!(code, 0, "{err}");
        assert!(err.contains("/dev/full") && !err.contains("wrote"), "{err}");
        assert!(!std::fs::symlink_metadata("/dev/full").unwrap().is_file(), "/dev/full is still a device");
    }
}

#[test]
fn a_csv_recording_runs_in_compare_and_converts_to_the_same_trace() {
    // tests/data/duel.csv: two players' inputs as a game would log them.
    let (code, out, err) = syncbench(&[
        "compare",
        "--profile",
        "wifi",
        "--traces",
        "tests/data/duel.csv",
        "--clients",
        "2",
        "--duration",
        "15s",
        "--seeds",
        "2",
        "--quiet",
        "--algos",
        "prediction,lockstep",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("trace duel") && out.contains("prediction"), "{out}");
    // Converted to a script, it is the same trace (the same digest).
    let dir = std::env::temp_dir().join(format!("syncbench-convert-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("duel.trace");
    let (code, _, err) = syncbench(&["trace", "convert", "tests/data/duel.csv", "--out", script.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let digest = |trace: &str| {
        let (code, out, err) = syncbench(&[
            "run",
            "--algo",
            "lockstep",
            "--trace",
            trace,
            "--clients",
            "2",
            "--duration",
            "5s",
            "--format",
            "json",
        ]);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["runs"][0]["trace_digest"].as_str().unwrap().to_string()
    };
    assert_eq!(digest("tests/data/duel.csv"), digest(script.to_str().unwrap()));
    // A recording with fewer players than the run is refused, not padded.
    assert_bad_input(
        &["run", "--algo", "lockstep", "--trace", "tests/data/duel.csv", "--clients", "3"],
        &["duel.csv", "the recording has 2 players; run it with --clients 2 or fewer"],
    );
    let bad = dir.join("bad.csv");
    std::fs::write(&bad, "time_ms,player,keys\n0,0,R\n10,0,X\n").unwrap();
    assert_bad_input(&["trace", "convert", bad.to_str().unwrap()], &["bad.csv:3", "expected keys"]);
    // Played by fewer clients than it has players, a recording says so.
    let (code, _, err) = syncbench(&[
        "run",
        "--algo",
        "lockstep",
        "--trace",
        "tests/data/duel.csv",
        "--clients",
        "1",
        "--duration",
        "1s",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("note: tests/data/duel.csv: the recording has 2 players; a run of 1 plays player 0"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn new_writes_a_crate_of_its_own_named_throughout() {
    let root = std::env::temp_dir().join(format!("syncbench-new-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let dir = root.join("dash-sync");
    let (code, _, err) = syncbench(&["new", dir.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0, "{err}");
    let read = |p: &str| std::fs::read_to_string(dir.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"));
    for p in
        ["src/lib.rs", "src/main.rs", "tests/netcode.rs", "gate.toml", "scripts/gate.sh", "README.md", ".gitignore"]
    {
        let text = read(p);
        for old in ["my-netcode", "my_netcode", "MyNetcode"] {
            assert!(!text.contains(old), "{p} still says {old}");
        }
    }
    assert!(read("src/lib.rs").contains("pub struct DashSync;"));
    assert!(read("src/main.rs").contains("dash_sync::DashSync"));
    assert!(read(".github/workflows/syncbench.yml").contains("scripts/gate.sh"));
    assert!(read("scripts/gate.sh").contains("--algos dash-sync"));
    // Its own workspace, syncbench's lock, and syncbench's release profile
    // line for line (so its dependencies build as syncbench's do).
    let manifest = read("Cargo.toml");
    assert!(manifest.contains("name = \"dash-sync\"") && manifest.contains("\n[workspace]\n"), "{manifest}");
    let ours = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")).unwrap();
    let table = |text: &str, header: &str| -> String {
        text.lines().skip_while(|l| *l != header).take_while(|l| !l.is_empty()).collect::<Vec<_>>().join("\n")
    };
    for header in ["[profile.release]", "[profile.fast]"] {
        assert!(!table(&ours, header).is_empty(), "{header}");
        assert_eq!(table(&manifest, header), table(&ours, header));
    }
    let lock = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.lock")).unwrap();
    assert_eq!(read("Cargo.lock"), lock);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("scripts/gate.sh")).unwrap().permissions().mode();
        assert!(mode & 0o100 != 0, "gate.sh is executable");
    }
    // A second time into the same folder is refused, as are names cargo or
    // the catalog would not take, and a folder that is not a checkout.
    let d = dir.to_str().unwrap();
    assert_bad_input(&["new", d], &["dash-sync", "not empty"]);
    let other = root.join("x");
    let o = other.to_str().unwrap();
    assert_bad_input(&["new", o, "--name", "Dash_Sync"], &["lower-case words"]);
    assert_bad_input(&["new", o, "--name", "lockstep"], &["already has this name"]);
    // What `cargo new` refuses, and syncbench's own crates, by name and why.
    for (name, why) in [
        ("fn", "Rust keyword"),
        ("self", "Rust keyword"),
        ("Self", "Rust keyword"),
        ("type", "Rust keyword"),
        ("async", "Rust keyword"),
        ("crate", "Rust keyword"),
        ("super", "Rust keyword"),
        ("std", "Rust's own"),
        ("core", "Rust's own"),
        ("alloc", "Rust's own"),
        ("test", "Rust's own"),
        ("proc-macro", "Rust's own"),
        ("proc_macro", "Rust's own"),
        ("syncbench", "syncbench's own"),
        ("syncbench-harness", "syncbench's own"),
        ("syncbench-algorithms", "syncbench's own"),
        ("harness", "syncbench's own"),
        ("algorithms", "syncbench's own"),
    ] {
        assert_bad_input(&["new", o, "--name", name], &[&format!("`{name}`"), why]);
    }
    assert_bad_input(&["new", o, "--path", root.to_str().unwrap()], &["expected a syncbench checkout"]);
    assert!(!other.exists(), "nothing written on bad input");
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn seeds_take_a_count_or_a_list_with_ranges() {
    let args = |seeds: &str| {
        let v = [
            "compare",
            "--algos",
            "snapshot",
            "--profile",
            "lan",
            "--duration",
            "2s",
            "--quiet",
            "--format",
            "json",
            "--seeds",
        ];
        let mut a: Vec<String> = v.iter().map(|s| s.to_string()).collect();
        a.push(seeds.into());
        a
    };
    let seeds_run = |seeds: &str| -> Vec<u64> {
        let a = args(seeds);
        let (code, out, err) = syncbench(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        v["runs"].as_array().unwrap().iter().map(|r| r["seed"].as_u64().unwrap()).collect()
    };
    assert_eq!(seeds_run("3"), [1, 2, 3]);
    assert_eq!(seeds_run("914,2718"), [914, 2718]);
    assert_eq!(seeds_run("1-2,42"), [1, 2, 42]);
    assert_eq!(seeds_run("7,"), [7]);
    for (bad, says) in
        [("5-3", "smaller seed"), ("x", "not a whole number"), ("1,1", "named twice"), ("0", "expected 1..=")]
    {
        let a = args(bad);
        assert_bad_input(&a.iter().map(String::as_str).collect::<Vec<_>>(), &[says]);
    }
}

/// Under `compare --vary profile=A,B`, the ranks table gives Spearman's ρ
/// per metric between the algorithms' means on A and on B. A profile
/// against itself on the same seeds ranks every algorithm alike: ρ = 1
/// wherever the algorithms differ, "–" where they are all equal; another
/// variant than a profile gets no ranks.
#[test]
fn ranks_of_a_profile_against_itself_agree_exactly() {
    let base = ["compare", "--algos", "lockstep,prediction,snapshot,rollback", "--seeds", "2", "--duration", "3s"];
    let md = |vary: &str| {
        let mut args = base.to_vec();
        args.extend_from_slice(&[
            "--vary",
            vary,
            "--metrics",
            "own-lat,remote-div,frozen",
            "--format",
            "md",
            "--quiet",
        ]);
        let (code, out, err) = syncbench(&args);
        assert_eq!(code, 0, "{err}");
        out
    };
    // The same profile named two ways (a name may not be given twice).
    let out = md("profile=wifi,netem-profiles/wifi.toml");
    let ranks = &out[out.find("**ranks against profile=wifi").expect("a ranks table")..];
    assert!(ranks.contains("(4 algorithms;"), "{ranks}");
    let row = |m: &str| ranks.lines().find(|l| l.starts_with(&format!("| {m} "))).expect(m).to_string();
    assert!(row("own lat ms").ends_with("1.00 |"), "{ranks}");
    assert!(row("rem div m").ends_with("1.00 |"), "{ranks}");
    assert!(row("frozen ms").ends_with("– |"), "no freezes anywhere: {ranks}");
    assert!(!md("transport=unreliable,kcp").contains("ranks against"), "only profiles are ranked against each other");
}

/// `compare --vary` runs each algorithm once per value, a row each, and a
/// varied row is the run the plain flag makes: the same metrics.
#[test]
fn compare_vary_makes_a_row_per_value_equal_to_the_plain_run() {
    let common = ["compare", "--algos", "lockstep", "--seeds", "1", "--duration", "2s", "--quiet"];
    let json = |extra: &[&str]| -> serde_json::Value {
        let mut args = common.to_vec();
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--format", "json"]);
        let (code, out, err) = syncbench(&args);
        assert_eq!(code, 0, "{args:?}: {err}");
        serde_json::from_str(&out).unwrap()
    };
    let varied = json(&["--vary", "transport=unreliable,kcp:resend=2,interval=10"]);
    let runs = varied["runs"].as_array().unwrap();
    let labels: Vec<&str> = runs.iter().map(|r| r["variant"].as_str().unwrap()).collect();
    assert_eq!(labels, ["transport=unreliable", "transport=kcp:resend=2,interval=10"]);
    for (run, transport) in runs.iter().zip(["unreliable", "kcp:resend=2,interval=10"]) {
        let plain = json(&["--transport", transport]);
        assert!(plain["runs"][0].get("variant").is_none(), "a plain run names no variant");
        assert_eq!(run["metrics"], plain["runs"][0]["metrics"], "{transport}");
        assert_eq!(run["transport"], plain["runs"][0]["transport"]);
    }
    let mut args = common.to_vec();
    args.extend_from_slice(&["--vary", "max-ahead=2,8", "--metrics", "own-lat,frozen", "--format", "md"]);
    let (code, md, err) = syncbench(&args);
    assert_eq!(code, 0, "{err}");
    assert!(md.contains("| lockstep max-ahead=2 ") && md.contains("| lockstep max-ahead=8 "), "{md}");
    assert!(md.contains("own lat ms") && md.contains("frozen ms") && !md.contains("down B/s"), "{md}");
    for (vary, extra, says) in [
        ("max-ahead=2,8", &["--opt", "max-ahead=4"][..], &["--opt max-ahead", "one place"][..]),
        ("transport", &[], &["NAME=V1,V2"]),
        ("aoi=none,square", &[], &["aoi=square"]),
        ("transport=kcp,kcp", &[], &["named twice"]),
        ("seed=1,2", &[], &["--seeds", "every seed"]),
        ("duration=1s,2s", &[], &["flag of its own"]),
    ] {
        let mut args = common.to_vec();
        args.extend_from_slice(&["--vary", vary]);
        args.extend_from_slice(extra);
        assert_bad_input(&args, says);
    }
}

/// `compare --help` names every column `--metrics` takes.
#[test]
fn compare_help_names_every_column() {
    let (_, help, _) = syncbench(&["compare", "--help"]);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    for (name, ..) in harness::report::table::COLUMNS {
        assert!(help.contains(&format!("{name},")) || help.contains(&format!("{name} ")), "{name}: {help}");
    }
}

/// `profile stream` pools every message of every seed's run into one row
/// per transport: its p50 is the nearest-rank median of the messages the
/// single-seed JSON runs list, lost ones ranking last.
#[test]
fn profile_stream_pools_seeds_into_a_row_per_transport() {
    let profile = "delay 30ms 5ms loss 5%";
    let run = |args: &[&str]| {
        let mut all = vec!["profile", "stream", profile, "--duration", "3s"];
        all.extend_from_slice(args);
        let (code, out, err) = syncbench(&all);
        assert_eq!(code, 0, "{args:?}: {err}");
        out
    };
    for transport in ["tcp-like", "kcp"] {
        let mut pooled: Vec<u64> = Vec::new();
        for seed in ["1", "2"] {
            let j: serde_json::Value =
                serde_json::from_str(&run(&["--transport", transport, "--seed", seed, "--format", "json"])).unwrap();
            let lat = j["latencies_us"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap());
            pooled.extend(lat.map(|l| if l < 0 { u64::MAX } else { l as u64 }));
        }
        pooled.sort_unstable();
        let median = pooled[pooled.len().div_ceil(2) - 1];
        let md = run(&["--transport", "tcp-like,kcp", "--seeds", "2", "--format", "md"]);
        let row = md.lines().find(|l| l.starts_with(&format!("| {transport} "))).expect("a row per transport");
        let p50: f64 = row.split('|').nth(2).unwrap().trim().parse().unwrap();
        assert_eq!(format!("{p50:.1}"), format!("{:.1}", median as f64 / 1000.0), "{transport}: {md}");
    }
    // `--seed N` is `--seeds N,`.
    let one = run(&["--transport", "kcp", "--seed", "3"]);
    assert_eq!(one, run(&["--transport", "kcp", "--seeds", "3,"]));
    assert!(one.contains("seed 3"), "{one}");
    assert_bad_input(
        &["profile", "stream", profile, "--transport", "tcp-like,kcp", "--format", "json"],
        &["one --transport and one seed"],
    );
    assert_bad_input(&["profile", "stream", profile, "--transport", ","], &["no transport named"]);
    // A transport's own settings stay with it in a list.
    let tuned = run(&["--transport", "kcp:resend=3,interval=20,tcp-like"]);
    assert!(tuned.contains("kcp:interval=20,resend=3 ") && tuned.contains("tcp-like "), "{tuned}");
}

#[test]
fn tcp_like_past_its_validation_is_warned_about_and_within_it_is_not() {
    let stream =
        |profile: &str| syncbench(&["profile", "stream", profile, "--transport", "tcp-like", "--duration", "2s"]);
    for (profile, why) in [
        ("delay 30ms loss 9%", "loss 9% (validated up to 5%)"),
        ("delay 30ms loss gemodel 3% 30%", "bursty loss"),
        ("delay 30ms loss 2% 25%", "correlated loss"),
    ] {
        let (code, _, err) = stream(profile);
        assert_eq!(code, 0, "{err}");
        assert!(err.contains("warning: --transport tcp-like") && err.contains(why), "{profile}: {err}");
    }
    let (code, _, err) = stream("delay 30ms loss 5%");
    assert_eq!((code, err.contains("warning")), (0, false), "{err}");
    // The real KCP needs no such warning.
    let (_, _, err) = syncbench(&["profile", "stream", "delay 30ms loss 9%", "--transport", "kcp", "--duration", "2s"]);
    assert!(!err.contains("warning"), "{err}");
    let (_, _, err) = syncbench(&[
        "run",
        "--algo",
        "lockstep",
        "--profile",
        "delay 30ms loss 9%",
        "--transport",
        "tcp-like",
        "--duration",
        "1s",
    ]);
    assert!(err.contains("warning: --transport tcp-like"), "{err}");
}
