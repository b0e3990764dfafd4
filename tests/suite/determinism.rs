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

/// A large world's screens of one instant are judged on several cores, one
/// tally per core, merged exactly: the report is the same bytes as on one
/// core — client/server (renders wait for the authority, the conformance
/// path check on) and peer-to-peer (renders scored as frames confirm).
#[test]
fn results_do_not_depend_on_the_cores_judging_screens() {
    use harness::runner::RunConfig;
    use harness::world::{Aoi, World};
    let (clients, bots) = (30, 250);
    // `threads`: a pool of its own that size, or 0 for the global pool.
    let json = |threads: usize, algo: &str| {
        let go = || {
            let batch = clients * (clients + bots);
            if threads > 1 {
                assert!(harness::parallel::parts(batch, clients) > 2, "a batch this big must be split");
            }
            let c = RunConfig {
                world: World::Field { width_m: 200, height_m: 200 },
                bots,
                aoi: Some(Aoi::parse("none").unwrap()),
                checks: Some(None),
                ..cfg(clients, 1, 5)
            };
            serde_json::to_string(&run_named(algo, "wifi", "random-walk", c)).unwrap()
        };
        match threads {
            0 => go(),
            n => rayon::ThreadPoolBuilder::new().num_threads(n).build().unwrap().install(go),
        }
    };
    for algo in ["delta-snapshot", "lockstep"] {
        let one = json(1, algo);
        assert_eq!(one, json(4, algo), "{algo}");
        // As `syncbench run` runs it: on the global pool's own thread.
        assert_eq!(one, harness::parallel::on_pool(true, || json(0, algo)), "{algo} on the global pool");
    }
}
