//! Every algorithm at its defaults on every shipped profile: a default
//! that suits one link and throttles another misleads whoever compares
//! them there.

use crate::util::{cfg, run_named};
use harness::contract::Options;
use harness::metrics::Metrics;
use harness::runner::RunConfig;

/// Each run's length: long enough that a multi-second first round trip
/// (a satellite, 2G) is not most of it.
const SECS: u64 = 30;

/// The shipped profiles, by name.
fn shipped() -> Vec<&'static str> {
    harness::library::shipped_profiles().iter().map(|(name, _)| *name).collect()
}

fn run(algo: &str, profile: &str, opts: &[&str]) -> Metrics {
    let options = Options::parse(&opts.iter().map(|o| o.to_string()).collect::<Vec<_>>()).expect("options");
    run_named(algo, profile, "random-walk", RunConfig { options, ..cfg(4, SECS, 1) })
}

/// The share of the frames real time called for that the game ran: one
/// minus how far it trailed the schedule at the end, as a share of the run.
fn frames_run(m: &Metrics) -> f64 {
    1.0 - m.lag_ms.as_ref().expect("a peer's lag").at_end_ms / (SECS as f64 * 1e3)
}

/// A frame-sync algorithm at its defaults runs at least 95% of its frames
/// on every shipped profile — or, where it does not, no setting does
/// better: with the largest buffers its options allow it falls as short
/// (within a point), so the link is what stops it (a 2 s round trip on a
/// 400 kbit/s path, a 2G link).
fn frames_run_where_the_link_allows(algo: &str, generous: &[&str]) {
    let mut short = Vec::new();
    for p in shipped() {
        let m = run(algo, p, &[]);
        let share = frames_run(&m);
        if share < 0.95 {
            let best = frames_run(&run(algo, p, generous));
            if best > share + 0.01 {
                short.push(format!("{p}: {share:.3} at defaults, {best:.3} with {}", generous.join(" ")));
            }
        }
    }
    assert!(short.is_empty(), "{algo} runs fewer frames at its defaults than the link allows:\n{}", short.join("\n"));
}

#[test]
fn lockstep_runs_its_frames_where_the_link_allows() {
    frames_run_where_the_link_allows("lockstep", &["max-ahead=1000"]);
}

#[test]
fn rollback_runs_its_frames_where_the_link_allows() {
    frames_run_where_the_link_allows("rollback", &["window=120", "catchup=8"]);
}

#[test]
fn framelock_runs_its_frames_where_the_link_allows() {
    frames_run_where_the_link_allows("framelock", &["catchup=8", "key-max=600"]);
}

#[test]
fn bucket_runs_its_frames_where_the_link_allows() {
    frames_run_where_the_link_allows("bucket", &["catchup=60", "buffer=0"]);
}

/// On a shipped profile that loses nothing, no algorithm at its defaults
/// leaves a sampled input unrun: none dropped (which such a link cannot
/// cause) and none late.
#[test]
fn no_input_is_dropped_where_the_link_loses_nothing() {
    let mut dropped = Vec::new();
    let mut lossless = 0;
    for p in shipped() {
        let first = run("server-verified", p, &[]);
        if first.network.lost + first.network.limit_dropped > 0 {
            continue;
        }
        lossless += 1;
        for a in algorithms::registry::names() {
            let m = if a == "server-verified" { first.clone() } else { run(a, p, &[]) };
            let n = &m.network;
            let f = &m.input_fidelity;
            if n.lost + n.limit_dropped == 0 && f.dropped + f.late > 0 {
                dropped.push(format!("{a} on {p}: {} dropped, {} late", f.dropped, f.late));
            }
        }
    }
    assert!(lossless >= 5, "only {lossless} shipped profiles lose nothing in {SECS} s");
    assert!(dropped.is_empty(), "inputs unrun on links that lost nothing:\n{}", dropped.join("\n"));
}

/// Running most frames is not running them smoothly: on a jittery link a
/// frame-sync game that plays each frame as soon as it can stalls a tick
/// on every late one and plays two on the next. At their defaults
/// `lockstep` and `bucket` pace their frames (a playout delay that covers
/// the jitter): at most a second of stalls a client-minute, the start
/// included, and no more than two snaps — where on `delay 100ms 20ms`
/// playing frames as they come (`pace=0`) stalls ten times as long.
#[test]
fn frame_sync_plays_smoothly_on_a_jittery_link() {
    let mut rough = Vec::new();
    for algo in ["lockstep", "bucket"] {
        for p in ["delay 100ms 20ms", "wifi", "4g"] {
            let paced = run(algo, p, &[]);
            let eager = run(algo, p, &["pace=0"]);
            let stalled_per_min = |m: &Metrics| m.stalls.stalled_ms_per_client * 60.0 / SECS as f64;
            let (s, e) = (stalled_per_min(&paced), stalled_per_min(&eager));
            let snaps = paced.snaps.per_client_per_min;
            if s > 1000.0 || snaps > 2.0 || (p.starts_with("delay") && e < 10.0 * s) {
                rough.push(format!(
                    "{algo} on {p}: {s:.0} ms stalled and {snaps:.1} snaps a client-minute paced, {e:.0} ms as frames come"
                ));
            }
        }
    }
    assert!(rough.is_empty(), "frame sync stutters:\n{}", rough.join("\n"));
}
