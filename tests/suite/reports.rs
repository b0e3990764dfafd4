//! Reports: matrix outputs, determinism across thread counts, sharding,
//! and the regression gate.

use std::process::Command;

fn syncbench(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_syncbench"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A fresh directory path: one left by an earlier run whose process had
/// the same id is removed first.
fn tmp(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("syncbench-reports-{}-{name}", std::process::id()));
    std::fs::remove_dir_all(&d).ok();
    d
}

const SMALL: [&str; 8] =
    ["--algos", "lockstep,prediction", "--profiles", "lan,wifi", "--traces", "zigzag", "--duration", "5s"];

#[test]
fn matrix_writes_four_files_identically_for_any_thread_count() {
    let (a, b) = (tmp("j1"), tmp("j2"));
    for (dir, jobs) in [(&a, "1"), (&b, "2")] {
        let mut args = vec!["matrix", "--quiet", "--jobs", jobs, "--seeds", "2", "--out", dir.to_str().unwrap()];
        args.extend(SMALL);
        let (code, _, err) = syncbench(&args);
        assert_eq!(code, 0, "{err}");
    }
    for f in ["report.json", "report.csv", "report.md", "report.html"] {
        let x = std::fs::read(a.join(f)).unwrap();
        let y = std::fs::read(b.join(f)).unwrap();
        assert!(!x.is_empty());
        assert_eq!(x, y, "{f} differs between --jobs 1 and --jobs 2");
    }
    let csv = std::fs::read_to_string(a.join("report.csv")).unwrap();
    assert_eq!(csv.lines().count(), 1 + 2 * 2 * 2, "header + one row per run");
    let html = std::fs::read_to_string(a.join("report.html")).unwrap();
    assert!(html.matches("<svg").count() >= 5, "inline SVG plots");
    // Provenance: each algorithm's options as they took effect, each
    // profile's links, the settings and seeds.
    assert!(html.contains("How these runs were made") && html.contains("max-ahead=0"), "provenance");
    assert!(html.contains("seeds 1,2") && html.contains("<code>delay"), "provenance");
    assert!(csv.lines().next().unwrap().contains(",options,render_hz,"), "CSV provenance columns");
    assert!(
        !html.contains("<script") && !html.contains("src=\"http") && !html.contains("href=\"http"),
        "self-contained"
    );
    std::fs::remove_dir_all(&a).ok();
    std::fs::remove_dir_all(&b).ok();
}

#[test]
fn three_shards_merged_equal_the_whole() {
    let whole = tmp("whole");
    let mut args = vec!["matrix", "--quiet", "--out", whole.to_str().unwrap()];
    args.extend(SMALL);
    assert_eq!(syncbench(&args).0, 0);
    let mut inputs = Vec::new();
    for k in 1..=3 {
        let d = tmp(&format!("shard{k}"));
        let shard = format!("{k}/3");
        let mut args = vec!["matrix", "--quiet", "--shard", &shard, "--out", d.to_str().unwrap()];
        args.extend(SMALL);
        assert_eq!(syncbench(&args).0, 0);
        inputs.push(d.join("report.json").to_str().unwrap().to_string());
    }
    let merged = tmp("merged");
    let mut args: Vec<&str> = vec!["merge", "--quiet", "--out", merged.to_str().unwrap()];
    args.extend(inputs.iter().map(String::as_str));
    let (code, _, err) = syncbench(&args);
    assert_eq!(code, 0, "{err}");
    for f in ["report.json", "report.csv", "report.md"] {
        assert_eq!(std::fs::read(whole.join(f)).unwrap(), std::fs::read(merged.join(f)).unwrap(), "{f}");
    }
    assert_eq!(syncbench(&["matrix", "--shard", "4/3"]).0, 2);
    // Two shards of three: refused, naming what is missing ...
    let part = tmp("partial");
    let two = [inputs[0].as_str(), inputs[2].as_str()];
    let (code, _, err) = syncbench(&[&["merge", "--quiet", "--out", part.to_str().unwrap()][..], &two[..]].concat());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("missing shards 2/3") && err.contains("--partial"), "{err}");
    assert!(!part.join("report.json").exists());
    // ... or, with --partial, merged and marked so in every format.
    let (code, _, err) =
        syncbench(&[&["merge", "--quiet", "--partial", "--out", part.to_str().unwrap()][..], &two[..]].concat());
    assert_eq!(code, 0, "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(part.join("report.json")).unwrap()).unwrap();
    let (runs, of) = (json["partial"]["runs"].as_u64().unwrap(), json["partial"]["of"].as_u64().unwrap());
    assert!(runs < of, "{runs} of {of}");
    let mark = format!("partial: {runs} of {of} runs");
    for f in ["report.csv", "report.md", "report.html"] {
        assert!(std::fs::read_to_string(part.join(f)).unwrap().contains(&mark), "{f}");
    }
    // A whole matrix's report records no shard and no partial.
    let whole_json = std::fs::read_to_string(whole.join("report.json")).unwrap();
    assert!(!whole_json.contains("\"partial\"") && !whole_json.contains("\"shard\""));
}

#[test]
fn diff_passes_identical_and_flags_an_injected_regression() {
    let dir = tmp("diff");
    let mut args = vec!["matrix", "--quiet", "--out", dir.to_str().unwrap()];
    args.extend(SMALL);
    assert_eq!(syncbench(&args).0, 0);
    let base = dir.join("report.json");
    let (code, out, _) = syncbench(&["diff", base.to_str().unwrap(), base.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    // Inject: the own latency of one configuration up by half on every
    // one of its three seeds (runs 0..3: the seeds are innermost).
    let original: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    let inject = |runs: &[usize], name: &str| {
        let mut v = original.clone();
        for &i in runs {
            let p50 = &mut v["runs"][i]["metrics"]["input_latency_ms"]["own"]["p50"];
            *p50 = serde_json::json!(p50.as_f64().unwrap() * 1.5 + 10.0 + i as f64);
        }
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_string(&v).unwrap()).unwrap();
        path
    };
    let worse = inject(&[0, 1, 2], "worse.json");
    let (code, out, _) = syncbench(&["diff", base.to_str().unwrap(), worse.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("WORSE") && out.contains("latency.own.p50") && out.contains("3 seeds"), "{out}");
    // One seed of three worse: within the spread across seeds, not failed,
    // but listed.
    let one = inject(&[1], "one.json");
    let (code, out, _) = syncbench(&["diff", base.to_str().unwrap(), one.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 worse within the seeds' noise") && out.contains("noise  latency.own.p50"), "{out}");
    // A gate file can give the metric more room; Markdown puts the verdict first.
    let gate = dir.join("gate.toml");
    std::fs::write(&gate, "tolerance = 5\n[metrics]\n\"latency.own.p50\" = 200\n").unwrap();
    let (code, out, err) = syncbench(&[
        "diff",
        base.to_str().unwrap(),
        worse.to_str().unwrap(),
        "--gate",
        gate.to_str().unwrap(),
        "--format",
        "md",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("**syncbench gate: ✅ no regression**") && out.contains("Worse within tolerance"), "{out}");
    std::fs::write(&gate, "[metrics]\n\"latency.p50\" = 20\n").unwrap();
    let (code, _, err) =
        syncbench(&["diff", base.to_str().unwrap(), worse.to_str().unwrap(), "--gate", gate.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("gate.toml:2") && err.contains("unknown metric"), "{err}");
    let (code, out, _) = syncbench(&["diff", base.to_str().unwrap(), worse.to_str().unwrap(), "--format", "json"]);
    assert_eq!(code, 1);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["verdict"], "regressed");
    assert_eq!(j["regressed"][0]["seeds"], 3);
    let (code, xml, _) = syncbench(&["diff", base.to_str().unwrap(), worse.to_str().unwrap(), "--format", "junit"]);
    assert_eq!(code, 1);
    assert!(xml.contains("<testsuite name=\"syncbench diff\" tests=\"4\"") && xml.contains("failures=\"1\""), "{xml}");
    assert!(xml.contains("latency.own.p50: ") && xml.contains("name=\"seeds\" value=\"3\""), "{xml}");
    // ...within a large enough tolerance it passes.
    let (code, _, _) = syncbench(&["diff", base.to_str().unwrap(), worse.to_str().unwrap(), "--tolerance", "1000"]);
    assert_eq!(code, 0);
    assert_eq!(syncbench(&["diff", base.to_str().unwrap(), "/nonexistent.json"]).0, 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_committed_quick_baseline_still_holds() {
    // The same gate CI runs: today's quick matrix against the baseline.
    let dir = tmp("quick");
    let (code, _, err) = syncbench(&["matrix", "--quick", "--quiet", "--out", dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = syncbench(&["diff", "reports/baseline/quick.json", dir.join("report.json").to_str().unwrap()]);
    assert_eq!(code, 0, "the quick matrix regressed against reports/baseline/quick.json; if intended, regenerate it with `syncbench matrix --quick --out reports/quick && cp reports/quick/report.json reports/baseline/quick.json`\n{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A matrix whose runs of one algorithm failed on two of three seeds:
/// report.md and report.html list the failed runs with why, and the
/// header counts the matrix's three seeds, naming the row short of them.
#[test]
fn failed_runs_are_listed_and_seeds_counted_right() {
    let (full, shard, merged) = (tmp("failed-full"), tmp("failed-shard"), tmp("failed-merged"));
    let (code, _, err) = syncbench(&[
        "matrix",
        "--quiet",
        "--algos",
        "lockstep,snapshot",
        "--profiles",
        "lan",
        "--traces",
        "zigzag",
        "--seeds",
        "3",
        "--duration",
        "1s",
        "--out",
        full.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    // Two of lockstep's runs become failed runs, as a panic inside a
    // library would leave them.
    let text = std::fs::read_to_string(full.join("report.json")).unwrap();
    let mut report: serde_json::Value = serde_json::from_str(&text).unwrap();
    let runs = report["runs"].as_array().unwrap().clone();
    let (failed, kept): (Vec<_>, Vec<_>) =
        runs.into_iter().partition(|r| r["algorithm"] == "lockstep" && r["seed"].as_u64() != Some(2));
    assert_eq!(failed.len(), 2);
    report["runs"] = kept.into();
    report["failed"] = failed
        .iter()
        .map(|r| {
            serde_json::json!({
                "index": r["index"],
                "what": format!("lockstep · lan · zigzag · seed {}", r["seed"]),
                "error": "panicked at world_server.rs:355: Bin deserialize error",
            })
        })
        .collect::<Vec<_>>()
        .into();
    std::fs::create_dir_all(&shard).unwrap();
    std::fs::write(shard.join("report.json"), report.to_string()).unwrap();
    let (code, _, err) = syncbench(&[
        "merge",
        "--quiet",
        "--out",
        merged.to_str().unwrap(),
        shard.join("report.json").to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "failed runs fail the command: {err}");
    let md = std::fs::read_to_string(merged.join("report.md")).unwrap();
    assert!(md.starts_with("**Failed runs (2)"), "{md}");
    assert!(md.contains("- `lockstep · lan · zigzag · seed 1`: panicked at world_server.rs:355"), "{md}");
    let title = md.lines().find(|l| l.starts_with("**profile lan")).unwrap();
    assert!(title.contains("3 seeds") && title.contains("lockstep: 1 of 3 seeds"), "{title}");
    let html = std::fs::read_to_string(merged.join("report.html")).unwrap();
    assert!(html.contains("<h2>Failed runs</h2>") && html.contains("Bin deserialize error"));
    for d in [full, shard, merged] {
        let _ = std::fs::remove_dir_all(d);
    }
}
