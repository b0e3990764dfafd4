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
