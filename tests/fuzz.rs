//! Fuzzing every parser a user's input reaches: netem strings, profile
//! files, trace scripts, scenario files and report JSON. Property-based
//! (proptest), grammar-aware: each target mixes mutations of the shipped,
//! valid files (cut, doubled, spliced, numbers swapped for extremes, tokens
//! from the grammar inserted) with token soup and raw bytes, so the cases
//! reach deep into the parsers instead of dying at the first byte.
//!
//! Every case must return — an `Ok`, or an error naming its source — never
//! panic, never take longer than [`CASE_LIMIT`]; the whole process never
//! holds more than [`ALLOC_LIMIT`] (the allocator below refuses beyond it,
//! which aborts the test binary). `SYNCBENCH_FUZZ_CASES` sets the cases per target (default 4,000:
//! 20,000 over the five targets, which `cargo test` and so CI run); a
//! failure is shrunk and stored in `proptest-regressions/fuzz.txt`, which is
//! committed and replayed first on every later run.

use cap::Cap;
use harness::conform::Scenario;
use harness::error::Source;
use harness::net::netem::Netem;
use harness::net::Profile;
use harness::report::Report;
use harness::trace::script::Script;
use proptest::prelude::*;
use std::alloc::System;
use std::time::{Duration, Instant};

/// The test process may not hold more than this at once (all cases,
/// across the parallel targets).
const ALLOC_LIMIT: usize = 512 << 20;
/// No case may run longer than this (a hang detector, not a speed target:
/// every case here takes well under a millisecond).
const CASE_LIMIT: Duration = Duration::from_secs(5);

#[global_allocator]
static ALLOCATOR: Cap<System> = Cap::new(System, ALLOC_LIMIT);

fn cases() -> u32 {
    std::env::var("SYNCBENCH_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(4_000)
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: cases(), max_shrink_iters: 2_000, ..ProptestConfig::default() }
}

/// Runs `f` and holds it to the time limit.
fn timed<T>(what: &str, input: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    assert!(took < CASE_LIMIT, "{what} took {took:?} on {:?}", input.chars().take(300).collect::<String>());
    out
}

/// Numbers that break naive arithmetic.
const EXTREMES: &[&str] = &[
    "0",
    "-1",
    "1e308",
    "NaN",
    "inf",
    "18446744073709551615",
    "4294967296",
    "2147483647",
    "0.0000001",
    "99999999999",
    "1us",
    "0ms",
    "10000000s",
    "1e9s",
    "-5ms",
    "100%",
    "101%",
    "1bps",
    "1tbit",
];

/// A mutation of `seed`: cut, doubled, spliced with `other`, a number or
/// a grammar token swapped in.
fn mutate(seed: &str, other: &str, tokens: &[&str]) -> impl Strategy<Value = String> {
    let (seed, other) = (seed.to_string(), other.to_string());
    let tokens: Vec<String> = tokens.iter().chain(EXTREMES).map(|t| t.to_string()).collect();
    (0usize..8, any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<prop::sample::Index>(), 0usize..40)
        .prop_map(move |(op, a, b, t, n)| {
            let cut = |s: &str, i: &prop::sample::Index| {
                let mut k = i.index(s.len() + 1);
                while !s.is_char_boundary(k) {
                    k -= 1;
                }
                k
            };
            let (i, j) = (cut(&seed, &a), cut(&seed, &b));
            let (lo, hi) = (i.min(j), i.max(j));
            let tok = &tokens[t.index(tokens.len())];
            match op {
                0 => format!("{}{}", &seed[..lo], &seed[hi..]),
                1 => format!("{}{}{}", &seed[..hi], &seed[lo..hi].repeat(n.min(8)), &seed[hi..]),
                2 => format!("{}{}", &seed[..lo], &other[cut(&other, &b)..]),
                3 => format!("{}{tok}{}", &seed[..lo], &seed[lo..]),
                // Every number in the text becomes the token.
                4 => {
                    let mut out = String::new();
                    let mut in_num = false;
                    for c in seed.chars() {
                        if c.is_ascii_digit() {
                            if !in_num {
                                out.push_str(tok);
                            }
                            in_num = true;
                        } else {
                            in_num = false;
                            out.push(c);
                        }
                    }
                    out
                }
                5 => seed[lo..hi].to_string(),
                // One line's value (after `=`, or a trace row's second
                // field) becomes the token, quoted or bare: the structure
                // survives, the value is hostile.
                _ => {
                    let lines: Vec<&str> = seed.lines().collect();
                    let k = a.index(lines.len().max(1));
                    let quote = if op == 6 { "\"" } else { "" };
                    lines
                        .iter()
                        .enumerate()
                        .map(|(i, l)| match (i == k, l.split_once(" = "), l.split_once(' ')) {
                            (true, Some((key, _)), _) => format!("{key} = {quote}{tok}{quote}"),
                            (true, None, Some((first, _))) => format!("{first} {tok}"),
                            _ => l.to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                }
            }
        })
}

/// Token soup from `tokens`, or raw characters.
fn soup(tokens: &[&str]) -> impl Strategy<Value = String> {
    let tokens: Vec<String> = tokens.iter().chain(EXTREMES).map(|t| t.to_string()).collect();
    prop_oneof![
        proptest::collection::vec(proptest::sample::select(tokens), 0..30).prop_map(|v| v.join(" ")),
        ".{0,200}",
        proptest::collection::vec(any::<u8>(), 0..200).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

fn shipped(dir: &str, ext: &str) -> Vec<String> {
    let mut v: Vec<_> = std::fs::read_dir(format!("{}/{dir}", env!("CARGO_MANIFEST_DIR")))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v.iter().map(|p| std::fs::read_to_string(p).unwrap()).collect()
}

/// Mutations of the shipped seeds, token soup, raw bytes.
fn inputs(seeds: Vec<String>, tokens: &'static [&'static str]) -> BoxedStrategy<String> {
    let n = seeds.len();
    let seeds2 = seeds.clone();
    prop_oneof![
        4 => (0..n, 0..n).prop_flat_map(move |(a, b)| mutate(&seeds[a], &seeds2[b], tokens)),
        1 => soup(tokens),
    ]
    .boxed()
}

const NETEM_TOKENS: &[&str] = &[
    "delay",
    "latency",
    "distribution",
    "normal",
    "pareto",
    "paretonormal",
    "uniform",
    "loss",
    "random",
    "state",
    "gemodel",
    "ecn",
    "duplicate",
    "corrupt",
    "reorder",
    "gap",
    "rate",
    "slot",
    "packets",
    "bytes",
    "limit",
    "50ms",
    "10ms",
    "5%",
    "25%",
    "1mbit",
    "100kbps",
    "1500",
    "-20",
    "64",
];
const FILE_TOKENS: &[&str] = &[
    "=",
    "\"",
    "\"\"\"",
    "[[event]]",
    "[",
    "]",
    "{",
    "}",
    "\n",
    "#",
    "uplink",
    "downlink",
    "link",
    "description",
    "at",
    "kind",
    "outage",
    "spike",
    "bandwidth",
    "handover",
    "duration",
    "delay",
    "direction",
    "up",
    "down",
    "syncbench-trace 1",
    "exact 60",
    "player",
    "player *",
    "repeat",
    "generate",
    "random-walk",
    "zigzag:period=",
    "U",
    "D",
    "L",
    "R",
    "J",
    "S",
    "LU",
    ".",
    "contract",
    "algorithm",
    "clients",
    "seed",
    "tick_rate",
    "trace",
    "transport",
    "kcp",
    "quic",
    "options",
    "bots",
    "arena",
    "aoi",
];
const GAME_TOKENS: &[&str] = &[
    "=",
    "\"",
    "\n",
    "#",
    "name",
    "max_speed",
    "acceleration",
    "friction",
    "gravity",
    "jump_speed",
    "player_size",
    "shot_cooldown_ms",
    "shot_range",
    "arena",
    "arena_scale",
    "tick_hz",
    "\"standard\"",
    "\"400x400\"",
    "0",
    "-1",
    "1e308",
    "nan",
    "inf",
    "0.001",
    "1000000",
    "true",
    "[",
    "]",
];
const CSV_TOKENS: &[&str] = &[
    ",", "\n", "#", "time_ms", "time_s", "time_us", "player", "keys", "up", "down", "left", "right", "jump", "shoot",
    "aim_x", "aim_y", "0", "1", "9999", "10000", "-1", "1e308", "nan", "R", "U+S", "RJ", ".", "true", "x", "-127",
    "128", "183.4",
];
const JSON_TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "\"schema\"",
    "\"syncbench.report.v3\"",
    "\"syncbench.report.v2\"",
    "\"runs\"",
    "null",
    "true",
    "1e999",
];

fn named(source: &str, message: &str) -> bool {
    message.contains(source)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn netem_strings(s in inputs(shipped("netem-profiles", "toml").iter().flat_map(|t| {
        t.lines().filter_map(|l| l.split_once(" = ").map(|(_, v)| v.trim_matches('"').to_string())).collect::<Vec<_>>()
    }).collect(), NETEM_TOKENS)) {
        let r = timed("netem", &s, || Netem::parse(&s));
        if let Err(e) = r {
            prop_assert!(!e.to_string().is_empty());
        }
    }

    #[test]
    fn profile_files(s in inputs(shipped("netem-profiles", "toml"), FILE_TOKENS)) {
        let src = Source::File("fuzz.toml".into());
        if let Err(e) = timed("profile", &s, || Profile::parse(&s, "fuzz", &src)) {
            prop_assert!(named("fuzz.toml", &e.to_string()), "{e}");
        } else if let Ok(p) = Profile::parse(&s, "fuzz", &src) {
            // What parses compiles to a schedule, also in bounded time.
            timed("schedule", &s, || (p.schedule(true), p.schedule(false)));
        }
    }

    #[test]
    fn trace_scripts(s in inputs(shipped("traces", "trace"), FILE_TOKENS)) {
        let src = Source::File("fuzz.trace".into());
        match timed("trace", &s, || Script::parse(&s, "fuzz", &src)) {
            Err(e) => prop_assert!(named("fuzz.trace", &e.to_string()), "{e}"),
            Ok(script) => {
                // And a run's worth of it, for four players.
                let r = timed("instantiate", &s, || script.instantiate(4, 10_000_000, 1));
                if let Err(e) = r {
                    prop_assert!(named("fuzz.trace", &e.to_string()), "{e}");
                }
            }
        }
    }

    #[test]
    fn game_files(s in inputs(shipped("games", "toml"), GAME_TOKENS)) {
        match timed("game", &s, || harness::game::GameSettings::parse(&s, "fuzz-game.toml")) {
            Err(e) => prop_assert!(named("fuzz-game.toml", &e.to_string()), "{e}"),
            Ok(g) => {
                // What parses builds a game and steps it, in bounded time,
                // at any tick rate and in any room it fits (a debug build
                // panics on any overflow): held jumps for three seconds.
                let small = harness::world::World::Field { width_m: 10, height_m: 10 };
                for (world, hz) in [(g.world(), g.tick_hz.unwrap_or(60)), (g.world(), 1), (g.world(), 1000), (small, 20)] {
                    if g.check_room(world).is_err() {
                        continue;
                    }
                    let game = harness::game::Game::new(g.config(world, hz, 0, 1));
                    let mut st = game.initial_state(2);
                    let held = harness::game::Input::buttons(harness::game::Input::RIGHT | harness::game::Input::UP | harness::game::Input::JUMP);
                    let both = [harness::game::SeqInput { seq: 1, input: held }; 2];
                    timed("game steps", &s, || for _ in 0..3 * hz { game.step(&mut st, &both) });
                }
            }
        }
    }

    #[test]
    fn csv_recordings(s in inputs(vec![include_str!("data/duel.csv").to_string()], CSV_TOKENS)) {
        let src = Source::File("fuzz.csv".into());
        match timed("csv", &s, || harness::trace::csv::parse(&s, "fuzz", &src)) {
            Err(e) => prop_assert!(named("fuzz.csv", &e.to_string()), "{e}"),
            Ok(script) => {
                let players = script.sections.len();
                let r = timed("instantiate", &s, || script.instantiate(players, 10_000_000, 1));
                prop_assert!(r.is_ok(), "{r:?}");
            }
        }
    }

    #[test]
    fn scenario_files(s in inputs(vec![SCENARIO.to_string(), SCENARIO_AOI.to_string()], FILE_TOKENS)) {
        let src = Source::File("fuzz-scenario.toml".into());
        match timed("scenario", &s, || Scenario::parse(&s, &src)) {
            Err(e) => prop_assert!(named("fuzz-scenario.toml", &e.to_string()), "{e}"),
            Ok(mut sc) => {
                // What parses either is refused by the run's checks or runs
                // (cut to 300 ms): options, transports and worlds with
                // extreme values included.
                if let Some(a) = algorithms::registry::find(&sc.algorithm) {
                    sc.duration_us = sc.duration_us.min(300_000);
                    let _ = timed("run", &s, || harness::runner::run_plan(a, &sc.plan(), &sc.trace, &sc.config()));
                }
            }
        }
    }

    #[test]
    fn report_json(s in inputs(vec![report_seed()], JSON_TOKENS)) {
        let r = timed("report", &s, || Report::from_json(&s));
        if let Err(e) = r {
            prop_assert!(!e.is_empty());
        }
    }
}

/// A scenario file as `conform` writes them.
const SCENARIO: &str = r#"# a scenario
contract = "no-desync"
algorithm = "lockstep"
options = { adapt = "1" }
clients = 2
duration = "2000000us"
seed = 7
tick_rate = 60
render_rate = [60, 144]
transport = "kcp"
uplink = "delay 20ms 5ms loss 3%"
downlink = "delay 10ms"
heal_at = "1000000us"
trace = """
syncbench-trace 1
exact 60
UL R
UL RJ
. DS
"""
"#;

const SCENARIO_AOI: &str = r#"contract = "no-leak"
algorithm = "delta-snapshot"
clients = 3
duration = "1s"
seed = 1
tick_rate = 30
uplink = "(clean)"
downlink = ""
arena = "100x100"
bots = 20
aoi = "grid"
aoi_radius_um = 20000000
trace = """
syncbench-trace 1
player 0
0s    R
2s    U J
repeat 3s
player *
generate zigzag:period=250ms
"""
"#;

/// A small report, made the way `run --format json` makes one.
fn report_seed() -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_syncbench"))
        .args(["run", "--algo", "lockstep", "--duration", "1s", "--format", "json"])
        .output()
        .expect("binary runs");
    String::from_utf8(out.stdout).expect("utf-8")
}
