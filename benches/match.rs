//! Criterion benchmarks: what a simulated match costs.
//!
//! - `match/<algorithm>`: one 60 s, 4-client, 60 Hz match on the `wifi`
//!   profile with the `random-walk` trace (throughput is reported in
//!   simulated seconds, so criterion's "elem/s" reads as "× real time");
//! - `game/step_4_players` and `game/step_16_players`: one step of the
//!   reference game, the unavoidable work of every simulation.
//!
//! Run `cargo bench --bench match`; quick mode for CI: `cargo bench --bench
//! match -- --quick`.

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use harness::game::{Game, GameConfig, SeqInput};
use harness::net::Profile;
use harness::runner::{run, RunConfig};
use harness::trace::TraceSpec;
use std::hint::black_box;

fn matches(c: &mut Criterion) {
    let profile = Profile::resolve("wifi", &harness::library::dirs("netem-profiles")).expect("wifi profile ships");
    let cfg = RunConfig { clients: 4, duration_us: 60_000_000, seed: 1, ..RunConfig::default() };
    let trace = TraceSpec::resolve("random-walk", &[]).unwrap().instantiate(4, cfg.duration_us, 1).unwrap();
    let mut g = c.benchmark_group("match");
    g.throughput(Throughput::Elements(60)); // simulated seconds per iteration
    g.sample_size(20);
    for algo in algorithms::registry::all() {
        g.bench_function(algo.name(), |b| b.iter(|| run(*algo, &profile, &trace, &cfg).expect("runs").metrics.desyncs));
    }
    g.finish();
}

fn game_step(c: &mut Criterion) {
    let mut g = c.benchmark_group("game");
    for players in [4usize, 16] {
        let game = Game::new(GameConfig::default());
        let trace = TraceSpec::resolve("random-walk", &[]).unwrap().instantiate(players, 60_000_000, 1).unwrap();
        let inputs: Vec<Vec<SeqInput>> = (0..600u64)
            .map(|k| {
                (0..players).map(|p| SeqInput { seq: k as u32 + 1, input: trace.input_at(p, k * 16_666) }).collect()
            })
            .collect();
        g.throughput(Throughput::Elements(inputs.len() as u64));
        g.bench_function(format!("step_{players}_players"), |b| {
            b.iter(|| {
                let mut s = game.initial_state(players);
                for row in &inputs {
                    game.step(&mut s, black_box(row));
                }
                s.checksum()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, matches, game_step);
criterion_main!(benches);
