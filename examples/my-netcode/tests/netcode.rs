//! my-netcode under syncbench: the conformance contracts and assertions
//! on its own metrics. `scripts/gate.sh` runs these, then the regression
//! gate against the baseline this crate commits.

use my_netcode::MyNetcode;
use std::process::Command;
use syncbench::harness::conform::{check, Verdict};
use syncbench::Match;

#[test]
fn keeps_every_contract_that_applies() {
    for r in check(&MyNetcode, 100, 1) {
        assert!(
            !matches!(r.verdict, Verdict::Fail(_)),
            "{}: {:?} (counterexample: {:?})",
            r.contract,
            r.verdict,
            r.counterexample.map(|s| s.to_toml("my-netcode"))
        );
    }
}

#[test]
fn sends_half_the_downlink_of_every_tick_snapshots_for_at_most_an_interval_more_latency() {
    let server_verified = syncbench::catalog::find("server-verified").unwrap();
    let run = |a| Match::new(a).profile("wifi").seconds(30).seed(2).run().unwrap();
    let (mine, theirs) = (run(&MyNetcode), run(server_verified));
    let (m, t) = (&mine.metrics, &theirs.metrics);
    assert_eq!(m.desyncs, 0);
    assert!(m.violations.is_empty(), "{:?}", m.violations);
    let down = m.bandwidth.down_bytes_per_s / t.bandwidth.down_bytes_per_s;
    assert!((0.35..=0.6).contains(&down), "downlink ×{down:.2} of server-verified's");
    // 30 Hz pictures drawn over one interval: at most ~33 ms more.
    let extra = m.input_latency_ms.remote.p50 - t.input_latency_ms.remote.p50;
    assert!(extra < 40.0, "remote latency {extra:.1} ms above server-verified's");
}

#[test]
fn its_binary_lists_it_beside_the_built_in_algorithms() {
    let out = Command::new(env!("CARGO_BIN_EXE_my-netcode")).args(["list", "algorithms"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("my-netcode") && text.contains("lockstep") && text.contains("--opt send-every="), "{text}");
}

#[test]
fn its_binary_speaks_in_its_own_name() {
    let help = Command::new(env!("CARGO_BIN_EXE_my-netcode")).args(["compare", "--help"]).output().unwrap();
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("Usage: my-netcode compare") && text.contains("  my-netcode compare --profile wifi"),
        "{text}"
    );
    let bad = Command::new(env!("CARGO_BIN_EXE_my-netcode")).args(["run", "--algo", "nope"]).output().unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2));
    assert!(err.starts_with("my-netcode: error: unknown algorithm `nope`"), "{err}");
}

#[test]
fn its_binary_tunes_it_with_its_own_options() {
    let tune = |extra: &[&str]| {
        let mut args = vec!["tune", "--algo", "my-netcode", "--profile", "wifi", "--seeds", "2", "--duration", "5s"];
        args.extend_from_slice(extra);
        let out = Command::new(env!("CARGO_BIN_EXE_my-netcode")).args(&args).arg("--quiet").output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        )
    };
    let (code, text, err) = tune(&["--opts", "send-every=1,2,4"]);
    assert_eq!(code, Some(0), "{err}");
    let row = |s: &str| text.lines().find(|l| l.starts_with(s)).unwrap_or_else(|| panic!("{s}: {text}")).to_string();
    let latency = |s: &str| {
        let cell = row(s).split_whitespace().find(|t| t.contains('±')).unwrap().to_string();
        cell.split('±').next().unwrap().parse::<f64>().unwrap()
    };
    // Snapshots every 4 ticks are older when they arrive than every tick.
    assert!(latency("send-every=4") > latency("send-every=1"), "{text}");
    assert!(text.contains("recommended: send-every="), "{text}");
    // Its option is not one the published rules speak of: it says which to name.
    let (code, _, err) = tune(&[]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--opts NAME=LO..HI:STEP (send-every)"), "{err}");
}
