//! Criterion benchmarks: what simulated matches cost.
//!
//! - `match/<algorithm>`: one 60 s, 4-client, 60 Hz match on `wifi` with
//!   the `random-walk` trace. Throughput is counted in simulated seconds, so
//!   criterion's "elem/s" reads as "× real time".
//! - `overhead/<algorithm>`: the game steps that match executes (every
//!   node's, re-simulation included), replayed alone — the unavoidable work.
//!   `match` ÷ `overhead` is the harness's overhead factor
//!   (`scripts/bench-summary.py` prints it).
//! - `game/step_N`: one step of the reference game for N players;
//!   `game/save_restore_N`: copying the world (what a rollback saves).
//! - `scaling/clients_N`, `scaling/duration_S`: match time as players and
//!   duration grow (should be linear).
//! - `codec/*`: encoding and decoding the full-world snapshot, and the
//!   quantized format of `snapshot` (`full_*`) and `delta-snapshot`
//!   (`delta_*`, a quarter of the entities changed). As in a match, an
//!   encoded packet's buffer goes back to the pool and a snapshot is
//!   decoded into the one a client keeps.
//! - `rollback/rtt_ms/R`, `rollback/window_at_100ms/W`: our rollback's
//!   match time as the round trip and the prediction window grow;
//! - `ours_vs_ggrs/*`: the same 2-player LAN match with our rollback and
//!   with the real ggrs (throughput: frames shown, so time per frame).
//!
//! Every match here runs on one core (rayon's global pool is made with one
//! thread): the goals these measure are per core, and a 32-client match
//! would otherwise judge its screens on two, mixing one- and two-core
//! figures in one scaling table. `benches/interest.rs` times whole
//! large-world matches on the machine's cores.
//!
//! `cargo bench --bench match`; CI runs it short
//! (`-- --warm-up-time 0.2 --measurement-time 0.5 --sample-size 10`).

// criterion's macros generate undocumented public functions.
#![allow(missing_docs)]

use algorithms::support::delta::{self, Quantized};
use algorithms::support::snapshot::{Codec, WorldSnapshot};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use harness::game::{Game, GameConfig, Input, SeqInput, State};
use harness::net::Profile;
use harness::runner::{run, RunConfig};
use harness::trace::Trace;
use std::hint::black_box;

mod setting;

fn wifi() -> Profile {
    setting::wifi().expect("the wifi profile ships")
}

fn trace(players: usize, duration_us: u64) -> Trace {
    setting::trace(players, duration_us).expect("random-walk instantiates")
}

/// Makes rayon's global pool one thread, if nothing made it yet (each group
/// calls it: criterion may run any of them first, or alone).
fn on_one_core() {
    assert!(setting::on_one_core(), "the match benchmarks run on one core");
}

fn matches(c: &mut Criterion) {
    on_one_core();
    let profile = wifi();
    let cfg = setting::match_config();
    let t = trace(cfg.clients, cfg.duration_us);
    let mut g = c.benchmark_group("match");
    g.throughput(Throughput::Elements(60)); // simulated seconds per iteration
    for algo in algorithms::registry::all() {
        g.bench_function(algo.name(), |b| b.iter(|| run(*algo, &profile, &t, &cfg).expect("runs").metrics.desyncs));
    }
    g.finish();

    // The unavoidable work: as many game steps as the match executed.
    let mut g = c.benchmark_group("overhead");
    g.throughput(Throughput::Elements(60));
    let game = Game::new(GameConfig::default());
    let inputs: Vec<Vec<SeqInput>> = (0..3600u64)
        .map(|k| (0..4).map(|p| SeqInput { seq: k as u32 + 1, input: t.input_at(p, k * 16_666) }).collect())
        .collect();
    for algo in algorithms::registry::all() {
        let r = run(*algo, &profile, &t, &cfg).expect("runs");
        let steps = (r.metrics.sim_steps_per_s * 60.0).round() as usize;
        g.bench_function(algo.name(), |b| {
            b.iter(|| {
                let mut s = game.initial_state(4);
                for k in 0..steps {
                    game.step(&mut s, black_box(&inputs[k % inputs.len()]));
                    if k % inputs.len() == inputs.len() - 1 {
                        s = game.initial_state(4);
                    }
                }
                s.checksum()
            })
        });
    }
    g.finish();
}

fn game(c: &mut Criterion) {
    let mut g = c.benchmark_group("game");
    for players in [4usize, 16] {
        let game = Game::new(GameConfig::default());
        let t = trace(players, 60_000_000);
        let inputs: Vec<Vec<SeqInput>> = (0..600u64)
            .map(|k| (0..players).map(|p| SeqInput { seq: k as u32 + 1, input: t.input_at(p, k * 16_666) }).collect())
            .collect();
        g.throughput(Throughput::Elements(inputs.len() as u64));
        g.bench_function(format!("step_{players}"), |b| {
            b.iter(|| {
                let mut s = game.initial_state(players);
                for row in &inputs {
                    game.step(&mut s, black_box(row));
                }
                s.checksum()
            })
        });
        let mut s = game.initial_state(players);
        for row in &inputs {
            game.step(&mut s, row);
        }
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("save_restore_{players}"), |b| {
            let mut slot = State::default();
            b.iter(|| {
                slot.clone_from(black_box(&s));
                black_box(&slot).frame
            })
        });
    }
    g.finish();
}

fn scaling(c: &mut Criterion) {
    on_one_core();
    let profile = wifi();
    let algo = algorithms::registry::find("lockstep").unwrap();
    let mut g = c.benchmark_group("scaling");
    // A peer-to-peer mesh sends n·(n − 1) packets per tick; a server n·2.
    for (name, a) in [("clients", algo), ("clients_cs", algorithms::registry::find("server-verified").unwrap())] {
        for clients in [2usize, 4, 8, 16, 32] {
            let cfg = RunConfig { clients, duration_us: 10_000_000, seed: 1, ..RunConfig::default() };
            let t = trace(clients, cfg.duration_us);
            g.throughput(Throughput::Elements(clients as u64));
            g.bench_with_input(BenchmarkId::new(name, clients), &clients, |b, _| {
                b.iter(|| run(a, &profile, &t, &cfg).unwrap().events)
            });
        }
    }
    for secs in [15u64, 30, 60, 120] {
        let cfg = RunConfig { clients: 4, duration_us: secs * 1_000_000, seed: 1, ..RunConfig::default() };
        let t = trace(4, cfg.duration_us);
        g.throughput(Throughput::Elements(secs));
        g.bench_with_input(BenchmarkId::new("duration_s", secs), &secs, |b, _| {
            b.iter(|| run(algo, &profile, &t, &cfg).unwrap().events)
        });
    }
    g.finish();
}

fn codec(c: &mut Criterion) {
    let game = Game::new(GameConfig::default());
    let mut g = c.benchmark_group("codec");
    for players in [4usize, 32] {
        let s = game.initial_state(players);
        let inputs = vec![Input::buttons(Input::UP); players];
        for (name, codec) in [("", Codec::Raw), ("varint_", Codec::Varint)] {
            let bytes = WorldSnapshot::encode(codec, &s, &inputs);
            g.throughput(Throughput::Bytes(bytes.len() as u64));
            // As in a match: an encoded packet's buffer goes back to the pool
            // once read, and a client decodes into the snapshot it keeps.
            g.bench_function(format!("snapshot_{name}encode_{players}"), |b| {
                b.iter(|| given_back(WorldSnapshot::encode(codec, black_box(&s), &inputs)))
            });
            let mut kept = WorldSnapshot::decode(&bytes, players).expect("the bench's own snapshot decodes");
            g.bench_function(format!("snapshot_{name}decode_{players}"), |b| {
                b.iter(|| kept.decode_into(black_box(&bytes), players).then_some(kept.state.frame))
            });
        }
        // The delta format (`snapshot`/`delta-snapshot`): a world in which
        // a quarter of the entities moved since the baseline.
        let base: Vec<Quantized> = (0..players as i32).map(|i| Quantized::from_um(i * 1000, 0, i * 500)).collect();
        let now: Vec<Quantized> = base
            .iter()
            .enumerate()
            .map(|(i, q)| if i % 4 == 0 { Quantized::from_um(q.um()[0] + 20_000, 0, q.um()[2]) } else { *q })
            .collect();
        for (label, baseline) in [("full", None), ("delta", Some((1u32, base.as_slice())))] {
            let bytes = delta::encode(2, &now, baseline);
            g.bench_function(format!("{label}_encode_{players}"), |b| {
                b.iter(|| given_back(delta::encode(2, black_box(&now), baseline)))
            });
            g.bench_function(format!("{label}_decode_{players}"), |b| {
                b.iter(|| delta::decode(black_box(&bytes), baseline.map(|b| b.1)).map(|w| w.1.len()))
            });
        }
    }
    g.finish();
}

/// The packet's length, its buffer handed back to the pool as the runner
/// does once the receiver has read it (so the next encode reuses it).
fn given_back(packet: Vec<u8>) -> usize {
    let len = packet.len();
    harness::buffers::give(packet);
    len
}

fn rollback(c: &mut Criterion) {
    on_one_core();
    let algo = algorithms::registry::find("rollback").unwrap();
    let mut g = c.benchmark_group("rollback");
    g.throughput(Throughput::Elements(60));
    // Re-simulation cost as the round trip and the prediction window grow.
    for rtt_ms in [20u64, 100, 200] {
        let p = Profile::resolve(&format!("delay {}ms 5ms", rtt_ms / 2), &[]).unwrap();
        let cfg = RunConfig { clients: 4, duration_us: 60_000_000, seed: 1, ..RunConfig::default() };
        let t = trace(4, cfg.duration_us);
        g.bench_with_input(BenchmarkId::new("rtt_ms", rtt_ms), &rtt_ms, |b, _| {
            b.iter(|| run(algo, &p, &t, &cfg).unwrap().metrics.resimulated_frames)
        });
    }
    for window in [4u32, 8, 16] {
        let p = Profile::resolve("delay 50ms 5ms", &[]).unwrap();
        let mut cfg = RunConfig { clients: 4, duration_us: 60_000_000, seed: 1, ..RunConfig::default() };
        cfg.options = harness::contract::Options::parse(&[format!("window={window}")]).unwrap();
        let t = trace(4, cfg.duration_us);
        g.bench_with_input(BenchmarkId::new("window_at_100ms", window), &window, |b, _| {
            b.iter(|| run(algo, &p, &t, &cfg).unwrap().metrics.resimulated_frames)
        });
    }
    g.finish();

    // Ours vs the real ggrs: CPU per confirmed frame on a LAN (virtual
    // time: ggrs runs correctly there, see docs/book/src/rollback-and-ggrs.md).
    let lan = Profile::resolve("lan", &harness::library::dirs("netem-profiles")).unwrap();
    let cfg = RunConfig { clients: 2, duration_us: 10_000_000, seed: 1, ..RunConfig::default() };
    let t = trace(2, cfg.duration_us);
    let mut g = c.benchmark_group("ours_vs_ggrs");
    for name in ["rollback", "ggrs"] {
        let Some(a) = algorithms::registry::find(name) else { continue };
        let frames = (run(a, &lan, &t, &cfg).unwrap().metrics.divergence_m.own.n / 2).max(1);
        g.throughput(Throughput::Elements(frames));
        g.bench_function(name, |b| b.iter(|| run(a, &lan, &t, &cfg).unwrap().events));
    }
    g.finish();
}

criterion_group!(benches, matches, game, scaling, codec, rollback);
criterion_main!(benches);
