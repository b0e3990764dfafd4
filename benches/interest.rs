//! Criterion benchmarks of interest management: the server's cost per tick
//! of keeping 200 clients' visible sets, as the entity count grows, for
//! each spatial index.
//!
//! - `interest/<density>/<method>/<entities>`: one tick — every entity
//!   takes a random-walk step, the index is updated, and all 200 watchers'
//!   sets and enter/leave/move events are recomputed. `none` scans every
//!   entity per watcher (O(watchers × entities)); `grid` is the nine-grid;
//!   `crosslist` the per-axis ordered lists. View radius 30 m, hysteresis
//!   2 m, grid cells 32 m.
//! - densities: `sparse` (an 800 m square map) and `dense` (200 m).
//! - `interest_match/<method>`: a whole simulated match, harness included —
//!   `delta-snapshot` with 50 clients and 500 bots on a 200 m field, 2 s
//!   on `wifi`, under `--aoi none|grid|crosslist` (the summary prints it
//!   as a multiple of real time).
//!
//! `cargo bench --bench interest`; CI runs it short, as `match`.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use algorithms::interest::crosslist::CrossList;
use algorithms::interest::grid::NineGrid;
use algorithms::interest::{BruteForce, InterestSets, Pos, SpatialIndex};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const WATCHERS: usize = 200;
const RADIUS: i64 = 30_000_000;
const HYSTERESIS: i64 = 2_000_000;

/// A seeded xorshift: the benchmark's walk must be the same every run.
struct Walk(u64);

impl Walk {
    fn next(&mut self, bound: i64) -> i64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % (2 * bound as u64 + 1)) as i64 - bound
    }
}

fn interest(c: &mut Criterion) {
    for (density, half_side) in [("sparse", 400_000_000i64), ("dense", 100_000_000)] {
        let mut g = c.benchmark_group(format!("interest/{density}"));
        for entities in [250usize, 1_000, 4_000] {
            g.throughput(Throughput::Elements(entities as u64));
            let mut walk = Walk(0x9E37_79B9_7F4A_7C15 ^ entities as u64);
            let start: Vec<Pos> =
                (0..entities).map(|_| [walk.next(half_side) as i32, walk.next(half_side) as i32]).collect();
            let indices: [Box<dyn Fn() -> Box<dyn SpatialIndex>>; 3] = [
                Box::new(|| Box::new(BruteForce::default())),
                Box::new(|| Box::new(NineGrid::new(RADIUS + HYSTERESIS))),
                Box::new(|| Box::new(CrossList::new())),
            ];
            for make in &indices {
                let mut index = make();
                let mut pos = start.clone();
                let watchers = (0..WATCHERS.min(entities) as u32).map(|w| (w, RADIUS)).collect();
                let mut sets = InterestSets::new(watchers, HYSTERESIS);
                index.update(&pos);
                sets.tick(index.as_ref(), &pos);
                let mut walk = Walk(42);
                g.bench_with_input(BenchmarkId::new(index.name(), entities), &entities, |b, _| {
                    b.iter(|| {
                        // One 60 Hz tick of walking: up to 10 cm per axis.
                        for p in pos.iter_mut() {
                            p[0] = (p[0] as i64 + walk.next(100_000)).clamp(-half_side, half_side) as i32;
                            p[1] = (p[1] as i64 + walk.next(100_000)).clamp(-half_side, half_side) as i32;
                        }
                        index.update(&pos);
                        sets.tick(index.as_ref(), &pos).iter().map(|e| e.moved.len()).sum::<usize>()
                    })
                });
            }
        }
        g.finish();
    }
}

fn interest_match(c: &mut Criterion) {
    use harness::net::Profile;
    use harness::runner::{run, RunConfig};
    use harness::trace::TraceSpec;
    use harness::world::{Aoi, World};
    let mut g = c.benchmark_group("interest_match");
    let profile = Profile::resolve("wifi", &harness::library::dirs("netem-profiles")).expect("wifi");
    let algo = algorithms::registry::find("delta-snapshot").expect("registered");
    for method in ["none", "grid", "crosslist"] {
        let cfg = RunConfig {
            clients: 50,
            duration_us: 2_000_000,
            world: World::Field { width_m: 200, height_m: 200 },
            bots: 500,
            aoi: Some(Aoi::parse(method).expect("method")),
            ..RunConfig::default()
        };
        let trace =
            TraceSpec::resolve("random-walk", &[]).unwrap().instantiate(cfg.clients, cfg.duration_us, 1).unwrap();
        // As `syncbench run` runs one: on the pool if its screens split.
        let big = harness::runner::runs_on_pool(&cfg);
        g.bench_function(method, |b| {
            b.iter(|| {
                harness::parallel::on_pool(big, || {
                    run(algo, &profile, &trace, &cfg).expect("runs").metrics.snaps.events
                })
            })
        });
        // The same on one core: what judging screens on the machine's
        // cores (harness::parallel) buys.
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool of one");
        g.bench_function(format!("{method}-1core"), |b| {
            b.iter(|| one.install(|| run(algo, &profile, &trace, &cfg).expect("runs").metrics.snaps.events))
        });
    }
    g.finish();
}

criterion_group!(benches, interest, interest_match);
criterion_main!(benches);
