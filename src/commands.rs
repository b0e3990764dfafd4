//! The subcommands: resolve names, run matches, print reports.

use crate::cli::{
    AbArgs, Command, CompareArgs, ConformArgs, Format, ListFormat, ListWhat, LiveArgs, MatchArgs, MatrixArgs, RunArgs,
};
use crate::cli::{ProfileCmd, TraceCmd};
use crate::output::write_atomic;
use crate::{BadInput, Violation};
use anyhow::Result;
use harness::contract::{Algorithm, Options};
use harness::library;
use harness::net::profile::NetworkPlan;
use harness::net::transport::TransportKind;
use harness::report::AoiSetting;
use harness::report::{table, FailedRun, Report, RunReport};
use harness::runner::{run_plan, RunConfig};
use harness::time::{parse_duration, LocalClock};
use harness::trace::{self, generate::Generator, TraceSpec};
use harness::world::{Aoi, World};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Runs a parsed command.
pub fn dispatch(cmd: Command) -> Result<()> {
    match cmd {
        Command::List { what, format, all } => list(what, format, all),
        Command::Conform(a) => conform(a),
        Command::Replay { file } => replay(&file),
        Command::Run(a) => run_cmd(a),
        Command::Live(a) => live_cmd(a),
        Command::Compare(a) => compare(a),
        Command::Ab(a) => ab(a),
        Command::Matrix(a) => matrix(a),
        Command::Diff { base, new, tolerance, gate, metric, format, accept_input_changes } => {
            diff_cmd(&base, &new, tolerance, gate.as_deref(), &metric, format, accept_input_changes)
        }
        Command::Merge { inputs, out, quiet } => merge(&inputs, &out, quiet),
        Command::Trace(TraceCmd::Convert { file, out }) => trace_convert(&file, out.as_deref()),
        Command::Profile(ProfileCmd::Show { profile, packets, spacing, payload, seed, format }) => {
            profile_show(&profile, packets, &spacing, payload, seed, format)
        }
        Command::Profile(ProfileCmd::Stream {
            profile,
            transport,
            rate,
            size,
            duration,
            hops,
            both,
            nagle,
            seed,
            format,
        }) => profile_stream(&profile, &transport, rate, size, &duration, hops, both, nagle, seed, format),
    }
}

fn bad(msg: impl Into<String>) -> anyhow::Error {
    BadInput(msg.into()).into()
}

/// What a profile argument written as a tc line or in tc's byte units
/// means, said before it runs.
fn profile_notes(arg: &str) -> Vec<String> {
    let mut notes: Vec<String> = harness::net::netem::tc_prefix_note(arg).into_iter().collect();
    notes.extend(harness::net::netem::byte_rate_notes(arg));
    notes
}

fn find_algo(name: &str) -> Result<&'static dyn Algorithm> {
    algorithms::registry::find(name).ok_or_else(|| {
        bad(format!("unknown algorithm `{name}`: expected one of {}", algorithms::registry::names().join(", ")))
    })
}

fn resolve_profile(arg: &str) -> Result<NetworkPlan> {
    for note in profile_notes(arg) {
        eprintln!("syncbench: note: {note}");
    }
    NetworkPlan::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))
}

fn resolve_trace(arg: &str) -> Result<TraceSpec> {
    TraceSpec::resolve(arg, &library::dirs("traces")).map_err(|e| bad(e.to_string()))
}

/// `cfg` with the options meant for `algo` (`--opt ALGO:key=value` names
/// one algorithm); an option naming another algorithm is an error here,
/// where only one runs.
fn options_for_one(algo: &dyn Algorithm, mut cfg: RunConfig) -> Result<RunConfig> {
    if let Some(other) = cfg.options.named_algorithms().into_iter().find(|a| *a != algo.name()) {
        return Err(bad(format!("--opt {other}:…: this command runs only `{}`", algo.name())));
    }
    cfg.options = cfg.options.for_algorithm(algo.name());
    Ok(cfg)
}

/// The run configuration `m` describes; `default_duration` when it names
/// none.
fn run_config(m: &MatchArgs, seed: u64, default_duration: &str) -> Result<RunConfig> {
    let duration = m.duration.as_deref().unwrap_or(default_duration);
    let duration_us = parse_duration(duration).map_err(|e| bad(format!("--duration {e}")))?;
    if duration_us < 100_000 {
        return Err(bad(format!("--duration {duration}: expected at least 100ms")));
    }
    // The run's size is bounded before anything (the trace first) is built.
    harness::limits::check_run(m.clients.saturating_add(m.bots), duration_us)
        .map_err(|e| bad(format!("run too large (--clients, --bots, --duration): {e}")))?;
    let game = match &m.game {
        None => harness::game::GameSettings::default(),
        Some(g) => harness::game::GameSettings::resolve(g).map_err(|e| bad(format!("--game: {e}")))?,
    };
    Ok(RunConfig {
        clients: m.clients,
        duration_us,
        seed,
        tick_hz: m.tick_rate.or(game.tick_hz).unwrap_or(60),
        render_hz: m.render_rate.clone(),
        options: Options::parse(&m.opt).map_err(|e| bad(format!("--opt {e}")))?,
        transport: TransportKind::parse(&m.transport).map_err(|e| bad(format!("--transport: {e}")))?,
        paced: m.paced,
        drop_corrupted: m.corrupted == crate::cli::Corrupted::Drop,
        world: match &m.arena {
            Some(a) => World::parse_arena(a).map_err(|e| bad(format!("--arena: {e}")))?,
            None => game.world(),
        },
        game,
        bots: m.bots,
        aoi: match &m.aoi {
            None if m.aoi_radius.is_some() || m.aoi_hysteresis.is_some() => {
                return Err(bad("--aoi-radius and --aoi-hysteresis need --aoi none|grid|crosslist"));
            }
            None => None,
            Some(method) => {
                let metres = |flag: &str, v: Option<f64>, default_um: i64| match v {
                    None => Ok(default_um),
                    Some(v) if v.is_finite() && (0.0..=1000.0).contains(&v) => Ok((v * 1e6).round() as i64),
                    Some(v) => Err(bad(format!("{flag} {v}: expected metres in 0..=1000"))),
                };
                Some(Aoi {
                    radius_um: metres("--aoi-radius", m.aoi_radius, Aoi::DEFAULT_RADIUS_UM)?,
                    hysteresis_um: metres("--aoi-hysteresis", m.aoi_hysteresis, Aoi::DEFAULT_HYSTERESIS_UM)?,
                    ..Aoi::parse(method).map_err(|e| bad(format!("--aoi: {e}")))?
                })
            }
        },
        clocks: if m.clock.is_empty() {
            RunConfig::default().clocks
        } else {
            m.clock
                .iter()
                .map(|c| LocalClock::parse(c).map_err(|e| bad(format!("--clock `{c}`: {e}"))))
                .collect::<Result<_>>()?
        },
        ..RunConfig::default()
    })
}

/// FNV-1a 64 of `text` (the game's checksum hasher), hex: a content
/// fingerprint for run keys.
fn digest(text: &str) -> String {
    let mut h = harness::game::Fnv64::new();
    h.write(text.as_bytes());
    format!("{:016x}", h.finish())
}

/// The fingerprint of the network a run had: each client's and the
/// server's links as they behave (netem, events, correlation) — not the
/// profiles' names, descriptions or sources.
fn network_digest(plan: &NetworkPlan, clients: usize) -> String {
    let behaviour =
        |p: &harness::net::Profile| format!("{} | {} | {:?} | {:?}", p.uplink, p.downlink, p.events, p.correlation);
    let all: Vec<String> = (0..clients).map(|i| behaviour(plan.client(i))).chain([behaviour(&plan.server)]).collect();
    digest(&all.join("\n"))
}

/// The fingerprint of the trace a run played (its content, not its name).
fn trace_digest(trace: &harness::trace::Trace) -> String {
    digest(&format!("{:?}", trace.tracks))
}

/// A clock as `--clock` takes it.
fn clock_text(c: LocalClock) -> String {
    let sign = if c.offset_us < 0 { "-" } else { "+" };
    format!("{sign}{}us@{:+}ppm", c.offset_us.unsigned_abs(), c.drift_ppm)
}

/// One match, as a report entry.
fn run_one(algo: &dyn Algorithm, plan: &NetworkPlan, spec: &TraceSpec, cfg: &RunConfig) -> Result<RunReport> {
    let trace = spec.instantiate(cfg.clients, cfg.duration_us, cfg.seed).map_err(|e| bad(e.to_string()))?;
    let result = run_plan(algo, plan, &trace, cfg).map_err(|e| bad(e.to_string()))?;
    let mode = if cfg.paced { "paced" } else { "simulated" };
    Ok(report_of(algo, plan, spec, &trace, cfg, result.metrics, mode))
}

/// A report entry for `metrics` measured in `mode`.
fn report_of(
    algo: &dyn Algorithm,
    plan: &NetworkPlan,
    spec: &TraceSpec,
    trace: &harness::trace::Trace,
    cfg: &RunConfig,
    metrics: harness::metrics::Metrics,
    mode: &str,
) -> RunReport {
    let per_client = |f: fn(&harness::net::Profile) -> String| {
        let all: Vec<String> = (0..cfg.clients).map(|i| f(plan.client(i))).collect();
        if all.iter().all(|s| *s == all[0]) {
            all[0].clone()
        } else {
            all.join(" | ")
        }
    };
    RunReport {
        index: 0,
        algorithm: algo.name().to_string(),
        profile: plan.name(),
        trace: spec.name(),
        seed: cfg.seed,
        clients: cfg.clients,
        duration_s: cfg.duration_us as f64 / 1e6,
        tick_hz: cfg.tick_hz,
        render_hz: (0..cfg.clients).map(|i| cfg.render_hz_of(i)).collect(),
        topology: algo.topology().as_str().to_string(),
        uplink: per_client(|p| p.uplink.to_string()),
        downlink: per_client(|p| p.downlink.to_string()),
        options: cfg.options.0.clone(),
        effective_options: cfg.options.effective(algo),
        network_digest: network_digest(plan, cfg.clients),
        trace_digest: trace_digest(trace),
        transport: cfg.transport.to_string(),
        mode: mode.to_string(),
        clocks: {
            let used: Vec<LocalClock> = (0..cfg.clients).map(|i| cfg.clock_of(i)).collect();
            if used.iter().all(|c| *c == LocalClock::EXACT) {
                Vec::new()
            } else {
                used.into_iter().map(clock_text).collect()
            }
        },
        deliver_corrupted: !cfg.drop_corrupted,
        game: cfg.game.clone(),
        arena: cfg.world.label(),
        bots: cfg.bots,
        aoi: cfg.aoi.as_ref().map(AoiSetting::of),
        live: None,
        metrics,
    }
}

/// Exit 1 if any run broke a contract the harness checks.
fn check_violations(runs: &[RunReport]) -> Result<()> {
    let bad: Vec<String> = runs
        .iter()
        .filter(|r| r.metrics.desyncs > 0 || r.metrics.input_mismatches > 0 || !r.metrics.violations.is_empty())
        .map(|r| {
            format!(
                "{} on {} / {} seed {}: {} desyncs, {} input mismatches, {} violations",
                r.algorithm,
                r.profile,
                r.trace,
                r.seed,
                r.metrics.desyncs,
                r.metrics.input_mismatches,
                r.metrics.violations.len()
            )
        })
        .collect();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(Violation(format!("violations found:\n  {}", bad.join("\n  "))).into())
    }
}

fn print_runs(runs: &[RunReport], format: Format, single: bool) {
    match format {
        Format::Json => print!("{}", Report::new(env!("CARGO_PKG_VERSION"), runs.to_vec()).to_json()),
        Format::Table | Format::Md if single => {
            print!("{}", table::single(&runs[0], format == Format::Md))
        }
        Format::Table | Format::Md => print!("{}", table::compare(runs, format == Format::Md)),
    }
}

fn run_cmd(a: RunArgs) -> Result<()> {
    let algo = find_algo(&a.algo)?;
    let profile = resolve_profile(&a.profile)?;
    let spec = resolve_trace(&a.trace)?;
    let cfg = options_for_one(algo, run_config(&a.common, a.seed, "60s")?)?;
    let r = run_one(algo, &profile, &spec, &cfg)?;
    let runs = vec![r];
    print_runs(&runs, a.format, true);
    check_violations(&runs)
}

fn live_cmd(a: LiveArgs) -> Result<()> {
    let algo = find_algo(&a.run.algo)?;
    let plan = resolve_profile(&a.run.profile)?;
    let spec = resolve_trace(&a.run.trace)?;
    let cfg = options_for_one(algo, run_config(&a.run.common, a.run.seed, "10s")?)?;
    if cfg.paced {
        return Err(bad("--paced: a live run is already in real time"));
    }
    let trace = spec.instantiate(cfg.clients, cfg.duration_us, cfg.seed).map_err(|e| bad(e.to_string()))?;
    let sim = if a.against_sim {
        let result = run_plan(algo, &plan, &trace, &cfg).map_err(|e| bad(e.to_string()))?;
        Some(report_of(algo, &plan, &spec, &trace, &cfg, result.metrics, "simulated"))
    } else {
        None
    };
    if std::io::stderr().is_terminal() {
        eprintln!("live: {} on {} for {:.1} s of wall time…", algo.name(), plan.name(), cfg.duration_us as f64 / 1e6);
    }
    let relay = match a.relay.as_str() {
        "userspace" => harness::live::Relay::Userspace,
        "none" => harness::live::Relay::None,
        addr => harness::live::Relay::External(addr.parse().map_err(|_| {
            bad(format!("--relay `{addr}`: expected userspace, none or a forwarder's IP:PORT (e.g. 10.0.0.2:9000)"))
        })?),
    };
    let bind = a.bind.parse().map_err(|_| bad(format!("--bind `{}`: expected an IP address", a.bind)))?;
    let opts = harness::live::LiveOptions { hostile: a.hostile, relay, bind };
    let result = harness::live::run_live(algo, &plan, &trace, &cfg, opts).map_err(|e| match e {
        harness::live::LiveError::Config(m) => bad(m),
        other => anyhow::anyhow!(other),
    })?;
    let mut live = report_of(algo, &plan, &spec, &trace, &cfg, result.metrics, "live");
    live.live = Some(result.counters);
    let runs: Vec<RunReport> = sim.into_iter().chain([live]).collect();
    match a.run.format {
        Format::Json => print!("{}", Report::new(env!("CARGO_PKG_VERSION"), runs.clone()).to_json()),
        f if runs.len() == 2 => print!("{}", table::against_sim(&runs[0], &runs[1], f == Format::Md)),
        f => print!("{}", table::single(&runs[0], f == Format::Md)),
    }
    check_violations(&runs)
}

/// A matrix to run: every algorithm × profile × trace × seed.
struct Matrix {
    algos: Vec<&'static dyn Algorithm>,
    profiles: Vec<NetworkPlan>,
    specs: Vec<TraceSpec>,
    seeds: u64,
    base: RunConfig,
}

/// Runs the matrix (or shard `k` of `n`) in parallel; the report lists runs
/// in job order whatever the thread count. A run that errors or panics is
/// recorded as failed and the others go on.
fn run_matrix(m: &Matrix, threads: Option<usize>, shard: Option<(usize, usize)>, quiet: bool) -> Result<Report> {
    let mut jobs = Vec::new();
    for plan in &m.profiles {
        for spec in &m.specs {
            for algo in &m.algos {
                for seed in 1..=m.seeds {
                    let options = m.base.options.for_algorithm(algo.name());
                    jobs.push((jobs.len(), *algo, plan, spec, RunConfig { seed, options, ..m.base.clone() }));
                }
            }
        }
    }
    if let Some((k, n)) = shard {
        jobs.retain(|j| j.0 % n == k - 1);
    }
    let threads = threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
        .min(jobs.len().max(1));
    let results: Vec<Mutex<Option<Result<RunReport, String>>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let progress = !quiet && std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((index, algo, plan, spec, cfg)) = jobs.get(i) else { break };
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_one(*algo, plan, spec, cfg)))
                    .map_err(|p| {
                        p.downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "panic".into())
                    })
                    .and_then(|r| r.map_err(|e| e.to_string()))
                    .map(|mut r| {
                        r.index = *index;
                        r
                    });
                *results[i].lock().expect("no poisoning") = Some(r);
                let d = done.fetch_add(1, Ordering::Relaxed) + 1;
                if progress {
                    eprint!(
                        "\r[{d}/{}] {} · {} · {} · seed {}        ",
                        jobs.len(),
                        algo.name(),
                        plan.name(),
                        spec.name(),
                        cfg.seed
                    );
                }
            });
        }
    });
    if progress {
        eprintln!();
    }
    let mut report = Report::new(env!("CARGO_PKG_VERSION"), Vec::with_capacity(jobs.len()));
    report.command = command_line();
    for (job, r) in jobs.iter().zip(results) {
        match r.into_inner().expect("no poisoning").expect("every job ran") {
            Ok(run) => report.runs.push(run),
            Err(error) => report.failed.push(FailedRun {
                index: job.0,
                what: format!("{} · {} · {} · seed {}", job.1.name(), job.2.name(), job.3.name(), job.4.seed),
                error,
            }),
        }
    }
    Ok(report)
}

fn resolve_algos(names: &[String]) -> Result<Vec<&'static dyn Algorithm>> {
    if names.iter().any(|s| s == "all") {
        Ok(algorithms::registry::all().to_vec())
    } else {
        names.iter().map(|n| find_algo(n.trim())).collect()
    }
}

/// Checks the matrix before running it. Algorithms that cannot play the
/// world (`--bots`, `--aoi grid|crosslist`) are an error when named, and
/// left out of `all` (with a note).
fn check_options(m: &mut Matrix, names: &[String], quiet: bool) -> Result<()> {
    if !(1..=10_000).contains(&m.seeds) {
        return Err(bad(format!("--seeds {}: expected 1..=10000", m.seeds)));
    }
    let jobs = (m.algos.len().max(1) as u64)
        .saturating_mul(m.profiles.len().max(1) as u64)
        .saturating_mul(m.specs.len().max(1) as u64)
        .saturating_mul(m.seeds);
    if jobs > harness::limits::MAX_MATRIX_RUNS {
        return Err(bad(format!(
            "{jobs} runs (algorithms × profiles × traces × seeds): the limit is {} (fewer seeds, profiles or traces)",
            harness::limits::MAX_MATRIX_RUNS
        )));
    }
    let why_not = |a: &dyn Algorithm| -> Option<&'static str> {
        if m.base.bots > 0 && !a.handles_bots() {
            Some("server-driven bots (--bots)")
        } else if m.base.aoi.is_some_and(|x| x.filters()) && !a.handles_aoi() {
            Some("area-of-interest filtering (--aoi)")
        } else {
            None
        }
    };
    let all = names.iter().any(|n| n == "all");
    let mut skipped = Vec::new();
    let mut kept = Vec::new();
    for algo in &m.algos {
        match why_not(*algo) {
            Some(what) if !all => return Err(bad(format!("{} does not handle {what}", algo.name()))),
            Some(what) => skipped.push((what, algo.name())),
            None => kept.push(*algo),
        }
    }
    let mut reasons: Vec<&str> = skipped.iter().map(|s| s.0).collect();
    reasons.dedup();
    let listed: Vec<String> = reasons
        .iter()
        .map(|r| {
            let names: Vec<&str> = skipped.iter().filter(|s| s.0 == *r).map(|s| s.1).collect();
            format!("{} (no {r})", names.join(", "))
        })
        .collect();
    if kept.is_empty() {
        return Err(bad(format!("no algorithm handles this world: {}", listed.join("; "))));
    }
    if !skipped.is_empty() && !quiet {
        eprintln!("note: `all` leaves out {}", listed.join("; "));
    }
    m.algos = kept;
    for named in m.base.options.named_algorithms() {
        if !m.algos.iter().any(|a| a.name() == named) {
            return Err(bad(format!("--opt {named}:…: `{named}` is not among the algorithms run")));
        }
    }
    for algo in &m.algos {
        m.base.options.for_algorithm(algo.name()).check(*algo).map_err(|e| {
            bad(format!("--opt: {e} (to give an option to one algorithm of several: --opt ALGO:key=value)"))
        })?;
    }
    Ok(())
}

/// Writes report.json, .csv, .md and .html into `dir`.
fn write_reports(dir: &std::path::Path, report: &Report, quiet: bool) -> Result<()> {
    crate::output::write_set(
        dir,
        &[
            ("report.json", report.to_json()),
            ("report.csv", harness::report::csv::render(&report.runs)),
            ("report.md", table::compare(&report.runs, true)),
            ("report.html", harness::report::html::render(report)),
        ],
    )?;
    if !quiet {
        eprintln!("wrote {0}/report.json, report.csv, report.md, report.html", dir.display());
    }
    Ok(())
}

/// Exit 1 if a run failed or broke a contract the harness checks.
fn finish(report: &Report) -> Result<()> {
    for f in &report.failed {
        eprintln!("syncbench: run failed: {}: {}", f.what, f.error);
    }
    check_violations(&report.runs)?;
    if report.failed.is_empty() {
        Ok(())
    } else {
        Err(Violation(format!("{} run(s) failed", report.failed.len())).into())
    }
}

fn compare(a: CompareArgs) -> Result<()> {
    let mut m = Matrix {
        algos: resolve_algos(&a.algos)?,
        profiles: vec![resolve_profile(&a.profile)?],
        specs: a.traces.iter().map(|t| resolve_trace(t.trim())).collect::<Result<_>>()?,
        seeds: a.seeds,
        base: run_config(&a.common, 1, "60s")?,
    };
    check_options(&mut m, &a.algos, a.quiet)?;
    let known: Vec<&str> = harness::report::table::COLUMNS.iter().map(|c| c.0).collect();
    if let Some(bad_col) = a.metrics.iter().find(|c| !known.contains(&c.as_str())) {
        return Err(bad(format!("--metrics {bad_col}: expected one of {}", known.join(", "))));
    }
    let report = run_matrix(&m, a.jobs, None, a.quiet)?;
    if a.format == Format::Table && !a.all_metrics {
        // Fit the terminal: $COLUMNS when the shell exports it, else 100.
        let width = std::env::var("COLUMNS").ok().and_then(|c| c.parse().ok()).filter(|w| *w >= 40).unwrap_or(100);
        print!("{}", table::compare_fit(&report.runs, width, &a.metrics).map_err(bad)?);
    } else {
        print_runs(&report.runs, a.format, false);
    }
    if let Some(dir) = &a.out {
        write_reports(dir, &report, a.quiet)?;
    }
    finish(&report)
}

fn ab(a: AbArgs) -> Result<()> {
    use harness::report::ab::{compare as compare_ab, Verdict};
    let pick = |side: &Option<String>, what: &str| -> Result<&'static dyn Algorithm> {
        match side.as_ref().or(a.algo.as_ref()) {
            Some(n) => find_algo(n),
            None => Err(bad(format!("--algo or --{what}-algo: which algorithm does side {what} run?"))),
        }
    };
    let (algo_a, algo_b) = (pick(&a.a_algo, "a")?, pick(&a.b_algo, "b")?);
    let side = |algo: &'static dyn Algorithm, opt: &[String], transport: &Option<String>, profile: &Option<String>| {
        let mut common = a.common.clone();
        common.opt.extend(opt.iter().cloned());
        if let Some(t) = transport {
            common.transport = t.clone();
        }
        let mut m = Matrix {
            algos: vec![algo],
            profiles: vec![resolve_profile(profile.as_deref().unwrap_or(&a.profile))?],
            specs: a.traces.iter().map(|t| resolve_trace(t.trim())).collect::<Result<_>>()?,
            seeds: a.seeds,
            base: run_config(&common, 1, "60s")?,
        };
        check_options(&mut m, &[algo.name().to_string()], true)?;
        Ok::<Matrix, anyhow::Error>(m)
    };
    let ma = side(algo_a, &a.a_opt, &a.a_transport, &a.a_profile)?;
    let mb = side(algo_b, &a.b_opt, &a.b_transport, &a.b_profile)?;
    let describe = |m: &Matrix| {
        let r = &m.base;
        let opts: Vec<String> =
            r.options.for_algorithm(m.algos[0].name()).0.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!(
            "{} on {} · {}{}",
            m.algos[0].name(),
            m.profiles[0].name(),
            r.transport,
            if opts.is_empty() { String::new() } else { format!(" · {}", opts.join(" ")) }
        )
    };
    let (ra, rb) = (run_matrix(&ma, a.jobs, None, a.quiet)?, run_matrix(&mb, a.jobs, None, a.quiet)?);
    if !ra.failed.is_empty() || !rb.failed.is_empty() {
        return finish(if ra.failed.is_empty() { &rb } else { &ra });
    }
    let rows = compare_ab(&ra.runs, &rb.runs);
    let pairs = ra.runs.len().min(rb.runs.len());
    println!("A: {}\nB: {}", describe(&ma), describe(&mb));
    println!(
        "{pairs} pairs ({} trace(s) × {} seeds, paired by seed), {} clients, {}s; B − A with its 95% interval (Student's t on the paired differences); lower is better for every metric",
        a.traces.len(),
        a.seeds,
        ma.base.clients,
        ma.base.duration_us as f64 / 1e6
    );
    let (same, rows): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.diff == 0.0 && r.ci.is_none_or(|h| h == 0.0));
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|r| {
            let rel = if r.a.abs() > 1e-12 { format!(" ({:+.1}%)", 100.0 * r.diff / r.a) } else { String::new() };
            let ci = r.ci.map_or(String::new(), |h| format!("±{h:.3}"));
            [
                r.metric.to_string(),
                format!("{:.3}", r.a),
                format!("{:.3}", r.b),
                format!("{:+.3}{ci}{rel}", r.diff),
                r.verdict.as_str().to_string(),
            ]
        })
        .collect();
    let header = ["metric", "A", "B", "B − A", "verdict"];
    if a.md {
        println!("\n| {} |\n|:--|--:|--:|--:|:--|", header.join(" | "));
        for c in &cells {
            println!("| {} |", c.join(" | "));
        }
    } else {
        let w: Vec<usize> = (0..5)
            .map(|i| cells.iter().map(|c| c[i].chars().count()).chain([header[i].len()]).max().unwrap_or(0))
            .collect();
        println!();
        let line = |c: [&str; 5]| {
            println!(
                "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {}",
                c[0],
                c[1],
                c[2],
                c[3],
                c[4],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3]
            );
        };
        line(header);
        for c in &cells {
            line([&c[0], &c[1], &c[2], &c[3], &c[4]]);
        }
    }
    if !same.is_empty() {
        let names: Vec<&str> = same.iter().map(|r| r.metric).collect();
        println!("\nidentical on every pair: {}", names.join(", "));
    }
    let worse = rows.iter().filter(|r| r.verdict == Verdict::BWorse).count();
    let better = rows.iter().filter(|r| r.verdict == Verdict::BBetter).count();
    println!("\nB is significantly better on {better} metric(s), worse on {worse}.");
    if worse > 0 {
        Err(Violation(format!("B is significantly worse than A on {worse} metric(s)")).into())
    } else {
        Ok(())
    }
}

fn matrix(a: MatrixArgs) -> Result<()> {
    let (profiles, traces, seeds, duration) = if a.quick {
        (
            vec!["lan".to_string(), "wifi".into(), "4g".into()],
            vec!["random-walk".to_string(), "wall-run".into()],
            1,
            "20s".to_string(),
        )
    } else {
        (
            vec!["lan".to_string(), "wifi".into(), "4g".into(), "cable".into(), "3g".into(), "very-bad".into()],
            vec!["random-walk".to_string(), "zigzag".into(), "wall-run".into(), "strafe-shoot".into()],
            3,
            "60s".to_string(),
        )
    };
    let common = a.common.clone();
    let profiles = if a.profiles.is_empty() { profiles } else { a.profiles.clone() };
    let traces = if a.traces.is_empty() { traces } else { a.traces.clone() };
    let shard = match &a.shard {
        None => None,
        Some(s) => {
            let parse = || -> Option<(usize, usize)> {
                let (k, n) = s.split_once('/')?;
                let (k, n) = (k.parse().ok()?, n.parse().ok()?);
                (n >= 1 && (1..=n).contains(&k)).then_some((k, n))
            };
            Some(parse().ok_or_else(|| bad(format!("--shard {s}: expected K/N with 1 <= K <= N, e.g. 2/3")))?)
        }
    };
    let mut m = Matrix {
        algos: resolve_algos(&a.algos)?,
        profiles: profiles.iter().map(|p| resolve_profile(p.trim())).collect::<Result<_>>()?,
        specs: traces.iter().map(|t| resolve_trace(t.trim())).collect::<Result<_>>()?,
        seeds: a.seeds.unwrap_or(seeds),
        base: run_config(&common, 1, &duration)?,
    };
    check_options(&mut m, &a.algos, a.quiet)?;
    let report = run_matrix(&m, a.jobs, shard, a.quiet)?;
    let dir = a
        .out
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from(if a.quick { "reports/quick" } else { "reports/matrix" }));
    write_reports(&dir, &report, a.quiet)?;
    if !a.quiet {
        eprintln!("{} runs{}", report.runs.len(), shard.map(|(k, n)| format!(" (shard {k}/{n})")).unwrap_or_default());
    }
    finish(&report)
}

fn read_report(path: &std::path::Path) -> Result<Report> {
    if let Some(why) = crate::output::check_set(path) {
        eprintln!("syncbench: warning: {why}");
    }
    let text =
        harness::limits::read_text(path, harness::limits::MAX_REPORT_FILE, "report").map_err(|e| bad(e.to_string()))?;
    Report::from_json(&text).map_err(|e| bad(format!("{}: {e}", path.display())))
}

fn diff_cmd(
    base: &std::path::Path,
    new: &std::path::Path,
    tolerance: Option<f64>,
    gate: Option<&std::path::Path>,
    metrics: &[String],
    format: crate::cli::DiffFormat,
    accept_input_changes: bool,
) -> Result<()> {
    use crate::cli::DiffFormat;
    use harness::report::diff::{diff, Change, Tolerances, WATCHED};
    for m in metrics {
        if !WATCHED.iter().any(|w| w.name == m) {
            let names: Vec<&str> = WATCHED.iter().map(|w| w.name).collect();
            return Err(bad(format!("--metric {m}: expected one of {}", names.join(", "))));
        }
    }
    let mut tol = match gate {
        Some(p) => {
            let text = harness::limits::read_text(p, harness::limits::MAX_INPUT_FILE, "gate file")
                .map_err(|e| bad(e.to_string()))?;
            Tolerances::parse(&text, &harness::error::Source::File(p.display().to_string()))
                .map_err(|e| bad(e.to_string()))?
        }
        None => Tolerances::uniform(0.05),
    };
    if let Some(t) = tolerance {
        if !(0.0..=10_000.0).contains(&t) {
            return Err(bad(format!("--tolerance {t}: expected a percentage 0..=10000, e.g. 5")));
        }
        tol.default = t / 100.0;
    }
    let (b, n) = (read_report(base)?, read_report(new)?);
    let d = diff(&b, &n, &tol, metrics);
    let worse: Vec<&Change> = d.changes.iter().filter(|c| c.regression).collect();
    let better: Vec<&Change> = d.changes.iter().filter(|c| c.new < c.base).collect();
    let runs_worse = {
        let mut r: Vec<&str> = worse.iter().map(|c| c.run.as_str()).collect();
        r.sort_unstable();
        r.dedup();
        r.len()
    };
    let summary = format!(
        "{} of {} runs compared (default tolerance {}%{}): {runs_worse} configurations regressed ({} metrics), {} metrics improved, {} worse within tolerance, {} worse within the seeds' noise{}{}",
        d.compared,
        b.runs.len(),
        tol.default * 100.0,
        if tol.per_metric.is_empty() { String::new() } else { format!(", {} per metric", tol.per_metric.len()) },
        worse.len(),
        better.len(),
        d.within_tolerance.len(),
        d.within_noise.len(),
        if d.missing.is_empty() { String::new() } else { format!(", {} MISSING", d.missing.len()) },
        if d.inputs_changed.is_empty() { String::new() } else { format!(", {} on changed inputs", d.inputs_changed.len()) },
    );
    let value = |c: &Change| {
        let ci = c.ci.map_or(String::new(), |h| format!(" ±{h:.4}"));
        format!("{:.4} -> {:.4}{ci}", c.base, c.new)
    };
    match format {
        DiffFormat::Junit => print!("{}", harness::report::diff::to_junit(&d, accept_input_changes)),
        DiffFormat::Json => {
            let ch = |c: &Change| serde_json::json!({"run": c.run, "metric": c.metric, "base": c.base, "new": c.new, "seeds": c.seeds, "ci95": c.ci, "regression": c.regression});
            let j = serde_json::json!({
                "compared": d.compared,
                "regressed": worse.iter().map(|c| ch(c)).collect::<Vec<_>>(),
                "improved": better.iter().map(|c| ch(c)).collect::<Vec<_>>(),
                "within_tolerance": d.within_tolerance.iter().map(ch).collect::<Vec<_>>(),
                "within_noise": d.within_noise.iter().map(ch).collect::<Vec<_>>(),
                "missing": d.missing,
                "added": d.added,
                "inputs_changed": d.inputs_changed.iter().map(|(k, w)| serde_json::json!({"run": k, "why": w})).collect::<Vec<_>>(),
                "verdict": if d.regressed() { "regressed" } else { "pass" },
            });
            println!("{}", serde_json::to_string_pretty(&j)?);
        }
        DiffFormat::Md => {
            let verdict = if d.regressed() { "❌ regressed" } else { "✅ no regression" };
            println!("**syncbench gate: {verdict}** — {summary}\n");
            let table = |title: &str, list: &[&Change], open: bool| {
                if list.is_empty() {
                    return;
                }
                println!("<details{}><summary>{title} ({})</summary>\n", if open { " open" } else { "" }, list.len());
                println!("| metric | base → new | configuration |\n|:--|--:|:--|");
                for c in list {
                    println!("| `{}` | {} | {} |", c.metric, value(c), c.run);
                }
                println!("\n</details>\n");
            };
            table("Regressed", &worse, true);
            table("Worse within the seeds' noise", &d.within_noise.iter().collect::<Vec<_>>(), false);
            table("Worse within tolerance", &d.within_tolerance.iter().collect::<Vec<_>>(), false);
            table("Improved", &better, false);
            for (title, list) in [("Missing from the new report", &d.missing), ("New", &d.added)] {
                if !list.is_empty() {
                    println!("<details><summary>{title} ({})</summary>\n", list.len());
                    for k in list.iter() {
                        println!("- {k}");
                    }
                    println!("\n</details>\n");
                }
            }
        }
        DiffFormat::Text => {
            println!("{summary}");
            for (label, list) in [("WORSE", &worse), ("better", &better)] {
                for c in list.iter() {
                    println!("  {label:<6} {:<28} {:>26} {}", c.metric, value(c), c.run);
                }
            }
            for c in &d.within_noise {
                println!("  noise  {:<28} {:>26} {}", c.metric, value(c), c.run);
            }
            for c in &d.within_tolerance {
                println!("  within {:<28} {:>26} {}", c.metric, value(c), c.run);
            }
            for (k, why) in &d.inputs_changed {
                println!("  {why}: not compared: {k}");
            }
            for k in &d.missing {
                println!("  MISSING {k}");
            }
            for k in &d.added {
                println!("  new     {k}");
            }
        }
    }
    if !d.inputs_changed.is_empty() && !accept_input_changes {
        return Err(Violation(format!(
            "{} runs ran on a different network or trace under the same name: the gate cannot judge them (regenerate the baseline if the change is meant, or pass --accept-input-changes)",
            d.inputs_changed.len()
        ))
        .into());
    }
    if d.regressed() {
        let why = if d.missing.is_empty() {
            "quality regressed beyond the tolerance"
        } else {
            "runs of the baseline are missing from the new report (a different configuration?)"
        };
        Err(Violation(why.into()).into())
    } else {
        Ok(())
    }
}

/// This process's command line for a report's header, shell-quoted, as
/// `syncbench …`: without `--out`, `--jobs` and `--quiet`, which cannot
/// change the results (so the same matrix gives the same bytes whatever
/// its output directory or thread count).
fn command_line() -> String {
    let mut words = vec!["syncbench".to_string()];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" | "--jobs" => {
                args.next();
            }
            "--quiet" => {}
            _ if a.starts_with("--out=") || a.starts_with("--jobs=") => {}
            _ => words.push(a),
        }
    }
    words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

/// `w` as a POSIX shell word: as is when it is safe, else single-quoted.
fn shell_quote(w: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%^".contains(c);
    if !w.is_empty() && w.chars().all(safe) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// A shard's command without its `--shard K/N`.
fn without_shard(command: &str) -> String {
    let words: Vec<&str> = command.split(' ').collect();
    let mut out: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words[i] == "--shard" {
            i += 2;
            continue;
        }
        if !words[i].starts_with("--shard=") {
            out.push(words[i]);
        }
        i += 1;
    }
    out.join(" ")
}

fn merge(inputs: &[std::path::PathBuf], out: &std::path::Path, quiet: bool) -> Result<()> {
    let mut merged = Report::new(env!("CARGO_PKG_VERSION"), Vec::new());
    let mut commands = Vec::new();
    for p in inputs {
        let r = read_report(p)?;
        commands.push(without_shard(&r.command));
        merged.runs.extend(r.runs);
        merged.failed.extend(r.failed);
    }
    // Shards of one matrix: its command without `--shard`, as the unsharded
    // run would have written; else this merge's own command.
    merged.command = match commands.first() {
        Some(c) if !c.is_empty() && commands.iter().all(|x| x == c) => c.clone(),
        _ => command_line(),
    };
    merged.runs.sort_by_key(|r| r.index);
    merged.failed.sort_by_key(|f| f.index);
    if let Some(w) = merged.runs.windows(2).find(|w| w[0].index == w[1].index) {
        return Err(bad(format!(
            "run {} appears in more than one input: were the shards taken from different matrices?",
            w[0].index
        )));
    }
    write_reports(out, &merged, quiet)?;
    finish(&merged)
}

fn list(what: Option<ListWhat>, format: ListFormat, all: bool) -> Result<()> {
    let show = |w: ListWhat| what.is_none() || what == Some(w);
    let mut json = serde_json::Map::new();
    if show(ListWhat::Algorithms) {
        let mut algos: Vec<&dyn Algorithm> = algorithms::registry::all().to_vec();
        algos.extend(algorithms::registry::under_test().iter().copied());
        if all {
            algos.extend(algorithms::controls::all().iter().map(|(a, _)| *a));
        }
        if format == ListFormat::Json {
            json.insert(
                "algorithms".into(),
                algos
                    .iter()
                    .map(|a| {
                        let caught_by = algorithms::controls::all().iter().find(|(c, _)| c.name() == a.name()).map(|(_, k)| *k);
                        serde_json::json!({
                            "name": a.name(), "topology": a.topology().as_str(), "description": a.description(),
                            "negative_control_caught_by": caught_by,
                            "handles_bots": a.handles_bots(), "filters_by_aoi": a.handles_aoi(),
                            "options": a.options().iter().map(|o| serde_json::json!({"name": o.name, "default": o.default, "allowed": o.allowed(), "help": o.help})).collect::<Vec<_>>()
                        })
                    })
                    .collect(),
            );
        } else {
            println!("ALGORITHMS");
            for a in &algos {
                println!("  {:<18} {:<14} {}", a.name(), a.topology().as_str(), a.description());
                if a.handles_aoi() {
                    println!("  {:<18} --aoi grid|crosslist  filters what each client is told by area of interest", "");
                }
                if !a.handles_bots() {
                    println!("  {:<18} (no --bots)", "");
                }
                for o in a.options() {
                    println!("  {:<18} --opt {}={}  {} ({})", "", o.name, o.default, o.help, o.allowed());
                }
            }
        }
    }
    if show(ListWhat::Profiles) {
        let profiles = harness::net::profile::list(&library::dirs("netem-profiles"));
        if format == ListFormat::Json {
            json.insert(
                "profiles".into(),
                profiles
                    .iter()
                    .map(|p| serde_json::json!({"name": p.name, "description": p.description, "source": p.source, "uplink": p.uplink.to_string(), "downlink": p.downlink.to_string()}))
                    .collect(),
            );
        } else {
            println!("PROFILES (netem-profiles/, or --profile \"<netem string>\")");
            for p in &profiles {
                println!("  {:<22} {}", p.name, p.description);
            }
        }
    }
    if show(ListWhat::Traces) {
        let files = trace::list(&library::dirs("traces"));
        if format == ListFormat::Json {
            json.insert("generators".into(), Generator::NAMES.iter().map(|n| serde_json::json!(n)).collect());
            json.insert(
                "traces".into(),
                files.iter().map(|(n, d)| serde_json::json!({"name": n, "description": d})).collect(),
            );
        } else {
            println!("TRACES (traces/, a path, or a generator)");
            for (n, d) in &files {
                println!("  {n:<18} {d}");
            }
            println!("  generators: {} (e.g. zigzag:period=2s, random-walk:seed=3)", Generator::NAMES.join(", "));
        }
    }
    if format == ListFormat::Json {
        println!("{}", serde_json::to_string_pretty(&serde_json::Value::Object(json))?);
    }
    Ok(())
}

fn profile_show(arg: &str, packets: u64, spacing: &str, payload: usize, seed: u64, format: ListFormat) -> Result<()> {
    use harness::net::netem::LossModel;
    use harness::net::probe::probe;
    use harness::net::profile::EventKind;
    let p = harness::net::Profile::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))?;
    let spacing_us = parse_duration(spacing).map_err(|e| bad(format!("--spacing {e}")))?;
    if spacing_us == 0 || packets == 0 || packets > 10_000_000 {
        return Err(bad("--spacing must be positive and --packets in 1..=10000000"));
    }
    let up = probe(&p.uplink, p.correlation, packets, spacing_us, payload, seed);
    let down = probe(&p.downlink, p.correlation, packets, spacing_us, payload, seed);
    let events: Vec<String> = p
        .events
        .iter()
        .map(|e| {
            let dir = match e.direction {
                harness::net::profile::Direction::Both => "",
                harness::net::profile::Direction::Up => " (uplink)",
                harness::net::profile::Direction::Down => " (downlink)",
            };
            let what = match &e.kind {
                EventKind::Outage { duration_us } => format!("outage for {}ms", duration_us / 1000),
                EventKind::Spike { duration_us, delay_us } => {
                    format!("+{}ms delay for {}ms", delay_us / 1000, duration_us / 1000)
                }
                EventKind::Bandwidth { duration_us, rate } => {
                    format!("rate {} B/s for {}ms", rate.bytes_per_s, duration_us / 1000)
                }
                EventKind::Handover { outage_us, uplink, downlink } => {
                    format!("handover: {}ms blackout, then uplink `{uplink}`, downlink `{downlink}`", outage_us / 1000)
                }
            };
            format!("at {}: {what}{dir}", e.at)
        })
        .collect();
    if format == ListFormat::Json {
        let v = serde_json::json!({
            "name": p.name, "description": p.description, "source": p.source,
            "correlation": p.correlation.name(),
            "uplink": p.uplink.to_string(), "downlink": p.downlink.to_string(),
            "events": events,
            "probe": {"packets": packets, "spacing_us": spacing_us, "payload": payload, "seed": seed},
            "uplink_measured": up, "downlink_measured": down,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("profile {}", p.name);
    if !p.description.is_empty() {
        println!("  {}", p.description);
    }
    if !p.source.is_empty() {
        println!("  source: {}", p.source);
    }
    println!("  correlation: {}", p.correlation.name());
    for note in profile_notes(arg) {
        println!("  note: {note}");
    }
    println!("  probe: {packets} packets of {payload} B every {spacing_us} us per direction, seed {seed}");
    println!();
    println!(
        "{:<9} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "", "mean ms", "sd ms", "p50 ms", "p90 ms", "p99 ms", "loss %", "reord %", "dup %"
    );
    for (name, spec, m) in [("uplink", &p.uplink, &up), ("downlink", &p.downlink, &down)] {
        println!(
            "{:<9} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>8.2}",
            name,
            m.delay_mean_ms,
            m.delay_sd_ms,
            m.delay_p50_ms,
            m.delay_p90_ms,
            m.delay_p99_ms,
            m.loss * 100.0,
            m.reorder * 100.0,
            m.duplicate * 100.0
        );
        println!("          netem: {spec}");
        if let Some(r) = spec.rate {
            // tc's units surprise: `bps` is bytes per second, `bit` bits.
            println!(
                "          rate: {:.3} Mbit/s = {} bytes/s (tc's `kbit`, `mbit` are bits; `kbps`, `mbps` bytes per second)",
                r.bytes_per_s as f64 * 8.0 / 1e6,
                r.bytes_per_s
            );
        }
        if let LossModel::Random { p: lp, corr } = spec.loss {
            if corr.is_set() && p.correlation == harness::net::Correlation::Kernel {
                println!(
                    "          note: with netem-compatible correlation, `loss {:.3}% {:.0}%` loses {:.2}%, not {:.3}% (the kernel's correlation collapses it; use `correlation = \"correct\"` or `loss gemodel` for bursts)",
                    lp.percent(),
                    corr.percent(),
                    m.loss * 100.0,
                    lp.percent()
                );
            }
        }
    }
    if !events.is_empty() {
        println!();
        println!("timed events (not in the probe above):");
        for e in &events {
            println!("  {e}");
        }
    }
    Ok(())
}

/// One cell of the conformance table.
struct ConformRow {
    algorithm: String,
    contract: &'static str,
    /// `None`: pass (or, for a control, caught); `Ok`: not applicable; `Err`: failed.
    outcome: Option<Result<String, String>>,
    file: Option<String>,
    cases: u64,
    seconds: f64,
}

fn conform(a: ConformArgs) -> Result<()> {
    use harness::conform::{contracts, junit, Verdict};
    let algos: Vec<&'static dyn Algorithm> =
        if a.algo == "all" { algorithms::registry::all().to_vec() } else { vec![find_algo(&a.algo)?] };
    if !(1..=harness::limits::MAX_CONFORM_CASES).contains(&a.cases) {
        return Err(bad(format!("--cases {}: expected 1..={}", a.cases, harness::limits::MAX_CONFORM_CASES)));
    }
    let mut rows: Vec<ConformRow> = Vec::new();
    let mut failed = Vec::new();
    let write_case = |name: &str, contract: &str, s: &harness::conform::Scenario, why: &str| -> Result<String> {
        let path = a.out.join(format!("{name}.{contract}.toml"));
        write_atomic(&path, &s.to_toml(&format!("{name} broke `{contract}`: {why}")))?;
        Ok(path.display().to_string())
    };
    // Progress on a terminal: cases done of all, with an estimate of what
    // is left (cases take about as long as each other).
    let total = (algos.len() * contracts::all().len()) as u64 * a.cases
        + if a.controls { algorithms::controls::all().len() as u64 * a.cases } else { 0 };
    let started = std::time::Instant::now();
    let finished_before = std::sync::atomic::AtomicU64::new(0);
    let show = std::io::stderr().is_terminal();
    let progress = |label: &str, done: u64| {
        if !show {
            return;
        }
        let all = finished_before.load(std::sync::atomic::Ordering::Relaxed) + done;
        let secs = started.elapsed().as_secs_f64();
        let eta = if all > 0 { secs * (total.saturating_sub(all)) as f64 / all as f64 } else { 0.0 };
        eprint!("\r\x1b[2Kconform: {label}: {all}/{total} cases, {secs:.0} s, about {eta:.0} s left");
    };
    let run_contract = |algo: &dyn Algorithm, c: &harness::conform::contracts::Contract| {
        let label = format!("{} / {}", algo.name(), c.name);
        // Wall time, for JUnit's `time` only: no result depends on it.
        let t0 = std::time::Instant::now();
        let r = harness::conform::check_one_with_progress(algo, c, a.cases, a.seed, &|d, _| progress(&label, d));
        finished_before.fetch_add(a.cases, std::sync::atomic::Ordering::Relaxed);
        (r, t0.elapsed().as_secs_f64())
    };
    for algo in &algos {
        let results: Vec<_> = contracts::all().iter().map(|c| run_contract(*algo, c)).collect();
        for (r, seconds) in results {
            let (outcome, file) = match &r.verdict {
                Verdict::Pass => (None, None),
                Verdict::NotApplicable(why) => (Some(Ok(why.clone())), None),
                Verdict::Fail(why) => {
                    let file = match &r.counterexample {
                        Some(s) => Some(write_case(algo.name(), r.contract, s, why)?),
                        None => None,
                    };
                    failed.push(format!("{} broke {}: {why}", algo.name(), r.contract));
                    (Some(Err(why.clone())), file)
                }
            };
            rows.push(ConformRow {
                algorithm: algo.name().to_string(),
                contract: r.contract,
                outcome,
                file,
                cases: r.cases,
                seconds,
            });
        }
    }
    if a.controls {
        for (control, contract) in algorithms::controls::all() {
            let c = contracts::all().iter().find(|c| c.name == *contract).expect("controls name real contracts");
            let (r, seconds) = run_contract(*control, c);
            let (outcome, file) = match &r.verdict {
                Verdict::Fail(why) => {
                    let file =
                        r.counterexample.as_ref().map(|s| write_case(control.name(), contract, s, why)).transpose()?;
                    (None, file) // caught: the control "passes" the test
                }
                other => {
                    failed.push(format!("negative control {} was not caught by {contract}", control.name()));
                    (Some(Err(format!("not caught: {other:?}"))), None)
                }
            };
            rows.push(ConformRow {
                algorithm: format!("control:{}", control.name()),
                contract,
                outcome,
                file,
                cases: r.cases,
                seconds,
            });
        }
    }
    if show {
        eprintln!();
    }
    // The table: algorithm × contract.
    let names: Vec<&str> = contracts::all().iter().map(|c| c.name).collect();
    let mut algos_seen: Vec<String> = Vec::new();
    for r in &rows {
        if !algos_seen.contains(&r.algorithm) {
            algos_seen.push(r.algorithm.clone());
        }
    }
    let width = algos_seen.iter().map(|s| s.len()).max().unwrap_or(10).max(9);
    print!("{:<width$}", "algorithm");
    for n in &names {
        print!("  {n:>w$}", w = n.len().max(6));
    }
    println!();
    for alg in &algos_seen {
        print!("{alg:<width$}");
        for n in &names {
            let cell = match rows.iter().find(|r| r.algorithm == *alg && r.contract == *n).map(|r| &r.outcome) {
                None => "",
                Some(None) if alg.starts_with("control:") => "caught",
                Some(None) => "pass",
                Some(Some(Ok(_))) => "n/a",
                Some(Some(Err(_))) => "FAIL",
            };
            print!("  {cell:>w$}", w = n.len().max(6));
        }
        println!();
    }
    println!(
        "({} cases per contract, seed {}; \"caught\": the control broke the contract it was built to break)",
        a.cases, a.seed
    );
    for r in &rows {
        if let Some(file) = &r.file {
            println!("  {} / {}: scenario written to {file}", r.algorithm, r.contract);
        }
    }
    if let Some(path) = &a.junit {
        let jrows: Vec<junit::Row<'_>> = rows
            .iter()
            .map(|r| junit::Row {
                algorithm: &r.algorithm,
                contract: r.contract,
                outcome: r.outcome.clone(),
                scenario: r.file.clone(),
                cases: r.cases,
                seconds: r.seconds,
                seed: a.seed,
            })
            .collect();
        write_atomic(path, &junit::render(&jrows))?;
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Violation(format!("conformance failures:\n  {}", failed.join("\n  "))).into())
    }
}

fn replay(file: &std::path::Path) -> Result<()> {
    use harness::conform::{replay as replay_scenario, Scenario, Verdict};
    use harness::error::Source;
    let source = Source::File(file.display().to_string());
    let text = harness::limits::read_text(file, harness::limits::MAX_SCENARIO_FILE, "scenario")
        .map_err(|e| bad(e.to_string()))?;
    let s = Scenario::parse(&text, &source).map_err(|e| bad(e.to_string()))?;
    let algo = find_algo(&s.algorithm).map_err(|e| bad(format!("{}: {e}", file.display())))?;
    println!(
        "replaying {} on `{}` / `{}`, {} clients, {} s, seed {}, contract {}",
        s.algorithm,
        s.uplink,
        s.downlink,
        s.clients,
        s.duration_us as f64 / 1e6,
        s.seed,
        s.contract
    );
    match replay_scenario(algo, &s).map_err(|e| bad(format!("{}: {e}", file.display())))? {
        Verdict::Pass => {
            println!("pass: the contract holds on this scenario");
            Ok(())
        }
        Verdict::NotApplicable(why) => {
            println!("not applicable: {why}");
            Ok(())
        }
        Verdict::Fail(why) => {
            println!("FAIL: {why}");
            if let Some(f) = why
                .split("first at frame ")
                .nth(1)
                .and_then(|r| r.split_whitespace().next())
                .and_then(|n| n.parse::<u64>().ok())
            {
                let dt = 1_000_000 / s.tick_hz as u64;
                println!("inputs around frame {f} (per player, by tick):");
                for k in f.saturating_sub(3)..=f + 1 {
                    let row: Vec<String> =
                        (0..s.clients).map(|p| s.trace.input_at(p, k.saturating_sub(1) * dt).to_string()).collect();
                    println!("  frame {k:>5}: {}", row.join("  "));
                }
            }
            Err(Violation("the scenario's failure reproduced".into()).into())
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn profile_stream(
    arg: &str,
    transport: &str,
    rate: u32,
    size: usize,
    duration: &str,
    hops: usize,
    both: bool,
    nagle: bool,
    seed: u64,
    format: ListFormat,
) -> Result<()> {
    use harness::net::transport::probe::{stream_probe, StreamProbe};
    use harness::net::transport::TcpSettings;
    let p = harness::net::Profile::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))?;
    let mut kind = TransportKind::parse(transport).map_err(|e| bad(format!("--transport: {e}")))?;
    if nagle {
        match kind {
            TransportKind::TcpLike(_) => kind = TransportKind::TcpLike(TcpSettings { nodelay: false }),
            _ => return Err(bad("--nagle applies to --transport tcp-like only")),
        }
    }
    let duration_us = parse_duration(duration).map_err(|e| bad(format!("--duration {e}")))?;
    let probe = StreamProbe { rate_hz: rate, size, duration_us, hops, both, seed };
    let r = stream_probe(kind, &p, &probe).map_err(bad)?;
    let nodelay = !matches!(kind, TransportKind::TcpLike(TcpSettings { nodelay: false }));
    let minutes = duration_us as f64 / 60e6;
    match format {
        ListFormat::Json => {
            let lat = |v: &[Option<u64>]| v.iter().map(|l| l.map_or(-1, |l| l as i64)).collect::<Vec<i64>>();
            let mut j = serde_json::json!({
                "source": "model",
                "profile": p.name,
                "transport": kind.to_string(),
                "nodelay": nodelay,
                "hops": hops,
                "both": both,
                "duration_s": duration_us as f64 / 1e6,
                "messages": r.latencies_us.len(),
                "latencies_us": lat(&r.latencies_us),
                "counters": {
                    "segments": r.segments,
                    "acks": r.acks,
                    "retransmits": r.retransmits,
                    "rtos": r.rtos,
                },
            });
            if both {
                j["back_latencies_us"] = lat(&r.back_latencies_us).into();
            }
            println!("{}", serde_json::to_string(&j)?);
        }
        ListFormat::Table => {
            let mut got: Vec<u64> = r.latencies_us.iter().flatten().copied().collect();
            got.sort_unstable();
            let n = r.latencies_us.len();
            let lost = n - got.len();
            // Nearest rank over every message; a lost one ranks last.
            let q = |f: f64| -> String {
                let rank = ((f * n as f64).ceil() as usize).clamp(1, n.max(1));
                got.get(rank - 1).map_or("lost".into(), |v| format!("{:.1}", *v as f64 / 1000.0))
            };
            let over = r.latencies_us.iter().filter(|l| l.is_none_or(|l| l > 200_000)).count();
            println!(
                "{} over `{}`, {hops} hop(s) each way{}: {n} messages of {size} B at {rate} Hz",
                kind,
                p.name,
                if both { ", both directions" } else { "" }
            );
            println!(
                "  latency ms  p50 {}  p90 {}  p99 {}  p99.9 {}  max {}",
                q(0.5),
                q(0.9),
                q(0.99),
                q(0.999),
                q(1.0)
            );
            println!("  over 200 ms {:.2}%   never delivered {lost}", 100.0 * over as f64 / n.max(1) as f64);
            println!(
                "  sender: {:.1} datagrams/s, {:.1} retransmissions/min, {:.1} timeouts/min; receiver: {:.1} datagrams/s",
                r.segments as f64 / (minutes * 60.0),
                r.retransmits as f64 / minutes,
                r.rtos as f64 / minutes,
                r.acks as f64 / (minutes * 60.0)
            );
        }
    }
    Ok(())
}

/// `trace convert`: a CSV recording of play as a trace script.
fn trace_convert(file: &std::path::Path, out: Option<&std::path::Path>) -> Result<()> {
    let TraceSpec::Script(script) = TraceSpec::load_csv(file).map_err(|e| bad(e.to_string()))? else {
        unreachable!("a CSV recording loads as a script")
    };
    let changes: usize = script
        .sections
        .iter()
        .map(|(_, b)| match b {
            harness::trace::script::Body::Segments(t) => t.segments.len(),
            harness::trace::script::Body::Generate(_) => 0,
        })
        .sum();
    let note = format!(
        "converted from {} by `syncbench trace convert`: {} players, {changes} input changes",
        file.file_name().and_then(|n| n.to_str()).unwrap_or("a recording"),
        script.sections.len()
    );
    let text = harness::trace::csv::to_script_text(&script, &note);
    match out {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| bad(format!("{}: cannot write: {e}", path.display())))?;
            eprintln!("wrote {} ({note})", path.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}
