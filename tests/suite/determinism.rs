//! Same scenario and seed → byte-identical report; different seed → not.

use crate::util::{cfg, run_named};

fn json(algo: &str, profile: &str, seed: u64) -> String {
    serde_json::to_string(&run_named(algo, profile, "random-walk", cfg(4, 10, seed))).unwrap()
}

#[test]
fn same_inputs_give_byte_identical_metrics() {
    for algo in algorithms::registry::names() {
        let p = "delay 30ms 10ms loss 3% duplicate 1% reorder 5%";
        assert_eq!(json(algo, p, 7), json(algo, p, 7), "{algo}");
        assert_ne!(json(algo, p, 7), json(algo, p, 8), "{algo}: the seed must matter");
    }
}

#[test]
fn results_do_not_depend_on_threads() {
    let single = json("lockstep", "wifi", 3);
    let from_threads: Vec<String> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..2).map(|_| s.spawn(|| json("lockstep", "wifi", 3))).collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(from_threads.iter().all(|j| *j == single));
}
