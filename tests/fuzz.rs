//! Fuzzing every parser a user's input reaches — netem strings, profile
//! files, trace scripts, CSV recordings, scenario files and report JSON —
//! and the limits around them: datagrams of any size through the links and
//! transports, run sizes up to absurd client counts, `--out` at every kind
//! of path, and merges of any set of shards; and around what runs
//! third-party code and writes files: a real library given delivered
//! corruption (refused by name, never a crash), `profile import` through
//! wall-clock steps (refused or noted with the line, never rewritten
//! unsaid) and at every kind of `--out`, `new` of any name. Property-based
//! (proptest), grammar-aware: each target mixes mutations of the shipped,
//! valid files (cut, doubled, spliced, numbers swapped for extremes, tokens
//! from the grammar inserted) with token soup and raw bytes, so the cases
//! reach deep into the parsers instead of dying at the first byte.
//!
//! Every case must return — an `Ok`, or an error naming its source — never
//! panic, never take longer than [`CASE_LIMIT`]; the whole process never
//! holds more than [`ALLOC_LIMIT`] (the allocator below refuses beyond it,
//! which aborts the test binary). `SYNCBENCH_FUZZ_CASES` sets the cases per target (default 4,000:
//! 36,000 over the nine generated targets, which `cargo test` and so CI
//! run; a quarter of that for the import clock steps, a fiftieth, at
//! least 16, for the targets that start the binary per case; the output
//! targets and merges are tried exhaustively); a
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
    ",",
    "\n",
    "#",
    "time_ms",
    "time_s",
    "time_us",
    "player",
    "keys",
    "up",
    "down",
    "left",
    "right",
    "jump",
    "shoot",
    "aim_x",
    "aim_y",
    "0",
    "1",
    "9999",
    "10000",
    "-1",
    "1e308",
    "nan",
    "R",
    "U+S",
    "RJ",
    ".",
    "true",
    "x",
    "-127",
    "128",
    "183.4",
    "\u{feff}",
    "time_ms,time_s",
    "player,player",
    "\"",
    "\r\n",
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

    /// Any datagram size on any MTU: a fragmented datagram arrives at
    /// most once, and the link counts what it split; redundant UDP keeps
    /// to one unfragmented packet unless one message alone is larger.
    #[test]
    fn oversized_datagrams(
        payload in prop_oneof![0usize..3_000, 0usize..=200_000],
        mtu in prop_oneof![Just(1_500u32), 0u32..=70_000],
        spec in prop::sample::select(vec!["", "delay 10ms 5ms", "loss 30%", "duplicate 50%", "rate 1mbit", "slot 5ms 5ms packets 2", "reorder 50% gap 2 delay 5ms"]),
        seed in 0u64..1_000,
        sizes in prop::collection::vec(prop_oneof![0usize..100, 0usize..100_000], 1..12),
    ) {
        use harness::net::{link::{Correlation, Link}, transport::{Endpoint, Output, TransportKind}};
        let mut link = Link::new(Netem::parse(spec).unwrap(), Correlation::Kernel, harness::rng::Stream::new(seed, harness::rng::Purpose::Uplink, 0)).with_mtu(mtu);
        let mtu = link.mtu();
        let out = timed("link", spec, || link.send(harness::time::Micros(1_000), payload));
        let split = payload > harness::net::unfragmented_payload(mtu);
        prop_assert_eq!(link.stats().fragmented, split as u64);
        if split {
            prop_assert!(out.len() <= 1, "{} copies of a fragmented datagram", out.len());
        }
        let mut ends = Endpoint::new(TransportKind::Redundant(64), 0, 1, seed, harness::time::Micros::ZERO).unwrap();
        for size in sizes {
            let mut o = Output::default();
            ends.send(harness::time::Micros(0), vec![7; size], &mut o);
            for d in &o.send {
                prop_assert!(d.len() <= harness::net::unfragmented_payload(harness::net::DEFAULT_MTU).max(size + 16), "{} bytes for a {size}-byte message", d.len());
            }
        }
    }

    /// Any run size: refused with its estimate, or within every limit a
    /// user is told of.
    #[test]
    fn many_clients(
        clients in prop_oneof![1usize..64, 1usize..100_000],
        bots in prop_oneof![Just(0usize), 0usize..100_000],
        secs in prop_oneof![1u64..120, 1u64..100_000],
        render in prop_oneof![Just(60u32), 1u32..=1_000],
        algo in prop::sample::select(vec!["snapshot", "delta-snapshot", "server-verified", "lockstep", "prediction"]),
    ) {
        let a = algorithms::registry::find(algo).unwrap();
        let cfg = harness::runner::RunConfig {
            clients, bots, duration_us: secs * 1_000_000, render_hz: vec![render],
            world: harness::world::World::Field { width_m: 400, height_m: 400 },
            ..harness::runner::RunConfig::default()
        };
        let plan = harness::net::plan::NetworkPlan::uniform(Profile::clean());
        match harness::runner::check_config(a, &plan, &cfg) {
            Ok(()) => {
                let entities = (clients + bots) as u64;
                prop_assert!(clients as u64 * entities <= harness::limits::MAX_CLIENT_ENTITIES);
                prop_assert!(clients as u64 * entities * render as u64 * secs <= harness::limits::MAX_ENTITY_RENDERS);
                prop_assert!(entities * secs <= harness::limits::MAX_ENTITY_SECONDS);
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
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

/// The `syncbench` binary: exit code, stdout, stderr.
fn syncbench(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_syncbench"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("syncbench-fuzz-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `--out` at every kind of path: written (the path keeps its kind — a
/// link stays a link, a device a device) or refused naming the path, exit
/// 2; never anything else. Every kind is tried, not a sample — as the
/// user running the tests and, when that is root and `setpriv` is here,
/// again as `nobody` (a rename over a device fails differently for each).
#[cfg(unix)]
#[test]
fn output_targets() {
    output_targets_as(&[]);
    let root = std::process::Command::new("id").arg("-u").output().is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let setpriv = std::path::Path::new("/usr/bin/setpriv").exists();
    if root && setpriv {
        output_targets_as(&["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]);
    }
}

#[cfg(unix)]
fn output_targets_as(prefix: &[&str]) {
    use std::os::unix::fs::{symlink, FileTypeExt, PermissionsExt};
    let d = scratch(if prefix.is_empty() { "out" } else { "out-nobody" });
    let open =
        |p: &std::path::Path, mode: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
    open(&d, 0o777);
    let kind = |p: &std::path::Path| std::fs::symlink_metadata(p).map(|m| m.file_type());
    for f in ["file", "target"] {
        std::fs::write(d.join(f), "old").unwrap();
        open(&d.join(f), 0o666);
    }
    symlink(d.join("target"), d.join("link")).unwrap();
    symlink(d.join("nowhere"), d.join("dangling")).unwrap();
    std::fs::create_dir(d.join("dir")).unwrap();
    symlink(d.join("dir"), d.join("dir-link")).unwrap();
    symlink("/dev/null", d.join("null-link")).unwrap();
    let targets: Vec<(&str, std::path::PathBuf)> = vec![
        ("new file", d.join("sub/new.trace")),
        ("file", d.join("file")),
        ("link", d.join("link")),
        ("dangling", d.join("dangling")),
        ("dir", d.join("dir")),
        ("dir-link", d.join("dir-link")),
        ("null", "/dev/null".into()),
        ("null-link", d.join("null-link")),
        ("stdout", "/dev/stdout".into()),
        ("dash", "-".into()),
    ];
    let who = if prefix.is_empty() { "as this user" } else { "as nobody" };
    for (what, path) in targets {
        let before = kind(&path).ok();
        let mut command = prefix.to_vec();
        command.push(env!("CARGO_BIN_EXE_syncbench"));
        command.extend(["trace", "convert", "tests/data/duel.csv", "--out", path.to_str().unwrap()]);
        let out = std::process::Command::new(command[0])
            .args(&command[1..])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("binary runs");
        let (code, out, err) = (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(code == 0 || code == 2, "{what} {who}: exit {code}: {err}");
        let refused = matches!(what, "dangling" | "dir" | "dir-link");
        assert_eq!(code == 2, refused, "{what} {who}: exit {code}: {err}");
        if refused {
            assert!(err.contains(path.to_str().unwrap()), "{what} {who}: {err}");
        }
        if let Some(before) = before {
            let after = kind(&path).unwrap();
            assert_eq!(
                (before.is_symlink(), before.is_char_device(), before.is_dir()),
                (after.is_symlink(), after.is_char_device(), after.is_dir()),
                "{what} {who} changed kind"
            );
        }
        match what {
            "link" => assert!(std::fs::read_to_string(d.join("target")).unwrap().contains("syncbench-trace")),
            "file" | "new file" => assert!(std::fs::read_to_string(&path).unwrap().contains("syncbench-trace")),
            "stdout" | "dash" => assert!(out.contains("syncbench-trace"), "{what} {who}"),
            _ => {}
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

/// `merge` of every set of three shards, repeats included: the complete
/// set merges; anything else is refused (exit 2) naming what is wrong,
/// or with `--partial` merged and marked partial — never passed off as
/// the whole matrix.
#[test]
fn partial_merges() {
    let d = scratch("merge");
    let small = [
        "--algos",
        "lockstep",
        "--profiles",
        "lan",
        "--traces",
        "zigzag",
        "--seeds",
        "1,2,3",
        "--duration",
        "1s",
        "--clients",
        "2",
    ];
    let shards: Vec<String> = (1..=3)
        .map(|k| {
            let out = d.join(format!("shard{k}"));
            let spec = format!("{k}/3");
            let mut args = vec!["matrix", "--quiet", "--shard", &spec, "--out", out.to_str().unwrap()];
            args.extend(small);
            assert_eq!(syncbench(&args).0, 0);
            out.join("report.json").to_str().unwrap().to_string()
        })
        .collect();
    // Every list of one to four shard files, in order (repeats allowed).
    let mut sets: Vec<Vec<usize>> = Vec::new();
    for len in 1..=4u32 {
        for code in 0..3usize.pow(len) {
            sets.push((0..len).map(|i| code / 3usize.pow(i) % 3).collect());
        }
    }
    let out = d.join("merged");
    for set in sets {
        let files: Vec<&str> = set.iter().map(|&i| shards[i].as_str()).collect();
        let mut distinct = set.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let complete = distinct.len() == 3 && set.len() == 3;
        let repeated = distinct.len() < set.len();
        for partial in [false, true] {
            let _ = std::fs::remove_dir_all(&out);
            let mut args = vec!["merge", "--quiet", "--out", out.to_str().unwrap()];
            if partial {
                args.push("--partial");
            }
            args.extend(&files);
            let (code, _, err) = syncbench(&args);
            let marked = std::fs::read_to_string(out.join("report.md")).is_ok_and(|md| md.contains("partial:"));
            if complete {
                assert_eq!((code, marked), (0, false), "{set:?}: {err}");
            } else if repeated {
                assert_eq!(code, 2, "{set:?} merged: {err}");
                assert!(err.contains("shard"), "{set:?}: {err}");
            } else if partial {
                assert_eq!((code, marked), (0, true), "{set:?}: {err}");
            } else {
                assert_eq!(code, 2, "{set:?}: {err}");
                assert!(err.contains("missing shards") && !out.join("report.json").exists(), "{set:?}: {err}");
            }
        }
    }
    std::fs::remove_dir_all(&d).ok();
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

/// Cases for the targets that run the binary once per case (a process
/// each): a fiftieth of the others', at least 16.
fn binary_cases() -> u32 {
    (cases() / 50).max(16)
}

/// A `ping -D` recording of `rtts.len()` replies `interval_us` apart, the
/// wall clock stepped by `steps[k]` µs before reply `k` (stamps may go
/// back, forward, past 1970 or decades ahead); each round trip printed
/// with ping's three significant figures. Also the true send times, and
/// the send times the file says (each stamp less its printed round trip,
/// read as an importer reads them).
fn ping_text(interval_us: u64, rtts: &[u32], steps: &[(usize, i64)]) -> (String, Vec<i64>, Vec<i64>) {
    let mut text = String::from("PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n");
    let mut sends = Vec::new();
    let mut said = Vec::new();
    let mut clock: i64 = 1_700_000_000_000_000;
    for (k, &rtt_us) in rtts.iter().enumerate() {
        clock += steps.iter().filter(|(at, _)| *at == k).map(|(_, d)| *d).sum::<i64>();
        let send = clock + (k as u64 * interval_us) as i64;
        let rtt_ms = rtt_us as f64 / 1e3;
        let printed = if rtt_ms >= 100.0 {
            format!("{rtt_ms:.0}")
        } else if rtt_ms >= 10.0 {
            format!("{rtt_ms:.1}")
        } else {
            format!("{rtt_ms:.2}")
        };
        let stamp = send + rtt_us as i64;
        let sign = if stamp < 0 { "-" } else { "" };
        let (s, us) = (stamp.unsigned_abs() / 1_000_000, stamp.unsigned_abs() % 1_000_000);
        let stamp_text = format!("{sign}{s}.{us:06}");
        text += &format!("[{stamp_text}] 64 bytes from 10.0.0.2: icmp_seq={} ttl=64 time={printed} ms\n", k + 1);
        sends.push(send);
        let read = |t: &str, scale: f64| (t.parse::<f64>().unwrap() * scale).round() as i64;
        said.push(read(&stamp_text, 1e6) - read(&printed, 1e3));
    }
    (text, sends, said)
}

/// IRTT's JSON of round trips `interval_us` apart by the monotonic clock,
/// the wall clock stepped by `steps`; `monotonic` false leaves that stamp
/// out (as older IRTT does).
fn irtt_text(interval_us: u64, rtts: &[u32], steps: &[(usize, i64)], monotonic: bool) -> String {
    let mut wall: i64 = 1_700_000_000_000_000_000;
    let trips: Vec<String> = rtts
        .iter()
        .enumerate()
        .map(|(k, &rtt_us)| {
            wall += steps.iter().filter(|(at, _)| *at == k).map(|(_, d)| d.saturating_mul(1000)).sum::<i64>();
            let mono = k as u64 * interval_us * 1000;
            let mono_field = if monotonic { format!(", \"monotonic\": {mono}") } else { String::new() };
            format!(
                r#"{{"seqno": {k}, "lost": "false", "timestamps": {{"client": {{"send": {{"wall": {}{mono_field}}}}}}}, "delay": {{"rtt": {}}}}}"#,
                wall.max(0) as u64 + mono,
                rtt_us as u64 * 1000
            )
        })
        .collect();
    format!(r#"{{"round_trips": [{}]}}"#, trips.join(","))
}

/// Steps of a wall clock: small (NTP's slews), a second, a day, decades.
fn clock_steps(n: usize) -> impl Strategy<Value = Vec<(usize, i64)>> {
    let size = prop_oneof![
        -2_000i64..2_000,
        -2_000_000i64..2_000_000,
        Just(-86_400_000_000i64),
        Just(1_800_000_000_000_000),
        Just(-1_800_000_000_000_000)
    ];
    proptest::collection::vec((0..n, size), 0..3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: (cases() / 4).max(64), ..config() })]

    /// Imports keep time as recorded: a `ping -D` reply sent before the one
    /// below it by more than the two round trips' rounding is refused
    /// naming its line; a reply within the rounding is moved and the note
    /// says so; a probe past what a recording spans is refused naming its
    /// line; otherwise the times are the sends, in sequence order, exactly.
    #[test]
    fn import_clock_steps(
        interval_us in prop_oneof![Just(1_000u64), Just(10_000), Just(200_000), Just(1_000_000)],
        rtts in proptest::collection::vec(1u32..300_000, 2..30),
        steps in clock_steps(30),
    ) {
        use harness::net::recorded::import::{import, Cell, Samples};
        let (text, sends, said) = ping_text(interval_us, &rtts, &steps);
        let src = Source::File("fuzz.ping".into());
        let got = timed("ping import", &text, || import(&text, &src));
        // Back by more than twice ping's coarsest rounding (0.5 ms a round
        // trip): a step, whatever the rounding did.
        let went_back = sends.windows(2).any(|w| w[1] < w[0] - 2_000);
        let back_at_all = sends.windows(2).any(|w| w[1] < w[0]);
        let too_long = sends.iter().any(|&s| s - sends[0] > 1_000_000_000_000_000);
        match got {
            Err(e) => {
                let e = e.to_string();
                prop_assert!(e.starts_with("fuzz.ping:"), "{}", e);
                prop_assert!(back_at_all || too_long || sends.iter().any(|&s| s < 0), "refused a clean recording: {}", e);
            }
            Ok(rec) => {
                prop_assert!(!went_back && !too_long, "a step accepted silently: {:?}", rec.note);
                let said_rounding = rec.note.as_deref().is_some_and(|n| n.contains("placed 1 µs after"));
                let Samples::Rtt(v) = rec.samples else { panic!("round trips") };
                prop_assert_eq!(v.len(), rtts.len());
                prop_assert!(v.windows(2).all(|w| w[1].0 > w[0].0), "times increase");
                // Each time is what the file says, unless moved for rounding,
                // which the note says.
                let moved = v.iter().zip(&said).any(|(s, &t)| s.0 as i64 != t - said[0]);
                prop_assert_eq!(moved, said_rounding);
                prop_assert!(v.iter().all(|s| matches!(s.1, Cell::Delay(_))));
            }
        }
        // IRTT: with monotonic stamps the wall clock's steps change nothing;
        // without, a step back is refused naming the round trip — never
        // reordered.
        for monotonic in [true, false] {
            let json = irtt_text(interval_us, &rtts, &steps, monotonic);
            let src = Source::File("fuzz.json".into());
            match timed("irtt import", &json, || import(&json, &src)) {
                Ok(rec) => {
                    let Samples::Rtt(v) = rec.samples else { panic!("round trips") };
                    let want: Vec<u64> = (0..rtts.len() as u64).map(|k| k * interval_us).collect();
                    if monotonic {
                        prop_assert_eq!(v.iter().map(|s| s.0).collect::<Vec<_>>(), want);
                    } else {
                        prop_assert!(v.windows(2).all(|w| w[1].0 > w[0].0));
                    }
                }
                Err(e) => {
                    let e = e.to_string();
                    prop_assert!(!monotonic, "monotonic stamps refused: {}", e);
                    prop_assert!(e.starts_with("fuzz.json: round_trips["), "{}", e);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: binary_cases(), ..config() })]

    /// A real library given delivered corruption: refused by name (exit 2,
    /// never a panic or an abort), whatever the profile, seed or command.
    #[test]
    fn real_library_corruption(
        corrupt in 1u32..=100,
        extra in prop_oneof![Just(""), Just(" duplicate 30%"), Just(" reorder 30%"), Just(" loss 10%")],
        seed in 1u64..1000,
        command in 0usize..3,
    ) {
        let profile = format!("delay 5ms corrupt {corrupt}%{extra}");
        let (seed, seeds) = (seed.to_string(), format!("{seed},"));
        let mut args: Vec<&str> = match command {
            0 => vec!["run", "--algo", "naia", "--seed", &seed, "--opt", "handshake-pings=1", "--opt", "handshake-interval=1"],
            1 => vec!["compare", "--algos", "snapshot,naia", "--seeds", &seeds],
            _ => vec!["ab", "--a-algo", "naia", "--b-algo", "snapshot", "--seeds", &seeds],
        };
        args.extend(["--profile", &profile, "--corrupted", "deliver", "--duration", "2s", "--clients", "2"]);
        let (code, out, err) = syncbench(&args);
        prop_assert_eq!(code, 2, "{:?}: {}", args, err);
        prop_assert!(out.is_empty() && !err.contains("panicked"), "{}", err);
        prop_assert!(err.contains("naia does not handle corrupted packets delivered"), "{}", err);
    }

    /// `new` of any name: a crate written (exit 0) whose name is no Rust
    /// keyword nor a crate `cargo new` or syncbench reserves, or refused
    /// naming it (exit 2) with nothing written.
    #[test]
    fn new_names(name in prop_oneof![
        proptest::sample::select(RESERVED_NAMES.to_vec()).prop_map(String::from),
        proptest::sample::select(RESERVED_NAMES.to_vec()).prop_map(|n| format!("{n}-x")),
        "[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4}){0,2}",
        "[A-Za-z_\\-][A-Za-z0-9_\\-]{0,8}",
    ]) {
        let d = scratch("new");
        let dir = d.join("crate");
        let flag = format!("--name={name}");
        let (code, _, err) = syncbench(&["new", dir.to_str().unwrap(), &flag, "--quiet"]);
        prop_assert!(code == 0 || code == 2, "{}: exit {}: {}", name, code, err);
        let reserved = RESERVED_NAMES.contains(&name.as_str());
        if reserved {
            prop_assert_eq!(code, 2, "{} accepted", name);
        }
        if code == 2 {
            prop_assert!(err.contains(&name) && !dir.exists(), "{}: {}", name, err);
        } else {
            let lib = std::fs::read_to_string(dir.join("tests/netcode.rs")).unwrap();
            let wanted = format!("use {}::", name.replace('-', "_"));
            prop_assert!(lib.contains(&wanted), "{}: {}", name, wanted);
        }
        std::fs::remove_dir_all(&d).ok();
    }
}

/// Every name `new` must refuse: Rust's keywords, `cargo new`'s reserved
/// names, syncbench's own crates.
const RESERVED_NAMES: &[&str] = &[
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "Self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "macro",
    "override",
    "priv",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "try",
    "gen",
    "std",
    "core",
    "alloc",
    "test",
    "proc-macro",
    "proc_macro",
    "build",
    "deps",
    "examples",
    "incremental",
    "syncbench",
    "syncbench-harness",
    "syncbench-algorithms",
    "harness",
    "algorithms",
];

/// `profile import --out` at every kind of path, beside every kind of
/// `NAME.csv`: written, or refused (exit 2) naming the path with the
/// folder exactly as it was — never a file left behind or replaced unsaid.
#[cfg(unix)]
#[test]
fn import_output_targets() {
    use std::os::unix::fs::symlink;
    let d = scratch("import-out");
    let input = d.join("input.ping");
    std::fs::write(
        &input,
        "[1.010000] 64 bytes from x: icmp_seq=1 ttl=1 time=10.0 ms\n[1.020000] 64 bytes from x: icmp_seq=2 ttl=1 time=10.0 ms\n",
    )
    .unwrap();
    let w = d.join("w");
    // (what, the --out name, what to put there and at NAME.csv first, exit)
    type Setup = fn(&std::path::Path, &std::path::Path);
    let nothing: Setup = |_, _| {};
    let cases: Vec<(&str, &str, Setup, i32)> = vec![
        ("new", "a.toml", nothing, 0),
        ("new folder", "sub/deeper/a.toml", nothing, 0),
        ("file", "a.toml", |t, _| std::fs::write(t, "old").unwrap(), 0),
        (
            "earlier import",
            "a.toml",
            |_, c| std::fs::write(c, "# Imported by `syncbench profile import x` from CSV output.\n").unwrap(),
            0,
        ),
        ("foreign csv", "a.toml", |_, c| std::fs::write(c, "mine\n").unwrap(), 2),
        ("csv folder", "a.toml", |_, c| std::fs::create_dir(c).unwrap(), 2),
        ("csv dangling", "a.toml", |_, c| symlink("nowhere", c).unwrap(), 2),
        ("folder", "a.toml", |t, _| std::fs::create_dir(t).unwrap(), 2),
        ("dangling", "a.toml", |t, _| symlink("nowhere.toml", t).unwrap(), 2),
        (
            "link",
            "a.toml",
            |t, _| {
                std::fs::write(t.with_file_name("real.toml"), "old").unwrap();
                symlink("real.toml", t).unwrap()
            },
            2,
        ),
        ("device link", "a.toml", |t, _| symlink("/dev/null", t).unwrap(), 2),
        ("not toml", "a.txt", nothing, 2),
    ];
    let listing = |dir: &std::path::Path| -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = walk(dir)
            .into_iter()
            .map(|p| {
                let bytes = std::fs::read(&p).unwrap_or_default();
                (p.strip_prefix(dir).unwrap().display().to_string(), bytes)
            })
            .collect();
        v.sort();
        v
    };
    for (what, name, setup, want) in cases {
        let _ = std::fs::remove_dir_all(&w);
        std::fs::create_dir_all(&w).unwrap();
        let out = w.join(name);
        setup(&out, &out.with_extension("csv"));
        let before = listing(&w);
        let (code, text, err) =
            syncbench(&["profile", "import", input.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        assert_eq!(code, want, "{what}: {err}");
        if code == 2 {
            assert!(
                err.contains(out.to_str().unwrap())
                    || err.contains(out.with_extension("csv").to_str().unwrap())
                    || err.contains(name),
                "{what}: {err}"
            );
            assert_eq!(listing(&w), before, "{what}: the folder changed on exit 2");
        } else {
            assert!(std::fs::read_to_string(&out).unwrap().contains("[replay]"), "{what}");
            assert!(std::fs::read_to_string(out.with_extension("csv")).unwrap().contains("time_ms,rtt_ms"), "{what}");
            assert_eq!(text.contains("replacing"), what == "earlier import", "{what}: {text}");
            let left: Vec<String> =
                listing(&w).into_iter().map(|(n, _)| n).filter(|n| n.contains(".syncbench-import")).collect();
            assert!(left.is_empty(), "{what}: {left:?}");
        }
    }
    std::fs::remove_dir_all(&d).ok();
}

/// Every file and symlink under `dir` (folders as their own entries).
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        out.push(p.clone());
        if std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_dir()) {
            out.extend(walk(&p));
        }
    }
    out
}
