//! The subcommands, one module each; this module dispatches a parsed
//! command and holds what they share: resolving names into algorithms,
//! profiles and traces, building run configurations, turning a run into a
//! report entry, printing runs.

mod compare;
mod conform;
mod diff;
mod isolate;
mod list;
mod matrix;
mod new;
mod profile;
mod run;
mod stress;
mod traces;
mod tune;

use compare::*;
use conform::*;
use diff::*;
use list::*;
use matrix::*;
use profile::*;
use run::*;
use stress::*;
use traces::*;
use tune::*;

pub(crate) use isolate::may_start_children;

use crate::cli::{
    AbArgs, Command, CompareArgs, ConformArgs, Format, ListFormat, ListWhat, LiveArgs, MatchArgs, MatrixArgs, RunArgs,
    StressArgs,
};
use crate::cli::{ProfileCmd, StreamFormat, TraceCmd};
use crate::output::write_output;
use crate::{BadInput, Violation};
use anyhow::Result;
use harness::contract::{Algorithm, Options};
use harness::library;
use harness::net::plan::NetworkPlan;
use harness::net::transport::TransportKind;
use harness::report::AoiSetting;
use harness::report::{table, FailedRun, Report, RunReport};
use harness::runner::{run_plan, run_plan_observed, RunConfig};
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
        Command::Stress(a) => stress(a),
        Command::Replay { file } => replay(&file),
        Command::Run(a) => run_cmd(a),
        Command::Live(a) => live_cmd(a),
        Command::Compare(a) => compare(a),
        Command::Ab(a) => ab(a),
        Command::Tune(a) => tune(a),
        Command::IsolatedRun => isolate::isolated_run(),
        Command::Matrix(a) => matrix(a),
        Command::Diff { base, new, tolerance, gate, metric, format, accept_input_changes } => {
            diff_cmd(&base, &new, tolerance, gate.as_deref(), &metric, format, accept_input_changes)
        }
        Command::Merge { inputs, out, partial, quiet } => merge(&inputs, &out, partial, quiet),
        Command::New { dir, name, git, path, quiet } => {
            let source = git.map(new::Source::Git).or(path.map(new::Source::Path));
            new::new_crate(&dir, name.as_deref(), source, quiet)
        }
        Command::Trace(TraceCmd::Convert { file, out }) => trace_convert(&file, out.as_deref()),
        Command::Trace(TraceCmd::Import { format: _, file, out, threshold, description, note }) => {
            trace_import_doom(&file, out.as_deref(), threshold, description.as_deref(), &note)
        }
        Command::Trace(TraceCmd::Stats { traces, players, duration, seed, fit, band, leave_one_out, format }) => {
            let check = if band {
                Some(BandCheck::Population)
            } else if leave_one_out {
                Some(BandCheck::LeaveOneOut)
            } else {
                None
            };
            trace_stats(&traces, players, duration.as_deref(), seed, fit, check, format)
        }
        Command::Profile(ProfileCmd::Show { profile, packets, spacing, payload, seed, format }) => {
            profile_show(&profile, packets, &spacing, payload, seed, format)
        }
        Command::Profile(ProfileCmd::Import { file, out, description }) => {
            profile_import(&file, &out, description.as_deref())
        }
        Command::Profile(ProfileCmd::Fit { profile, packet_hz, out, format }) => {
            profile_fit(&profile, packet_hz, out.as_deref(), format)
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
            seeds,
            seed,
            format,
        }) => {
            let seeds = seed.map_or(seeds.0, |s| vec![s]);
            let stream = profile::Stream { rate, size, duration: &duration, hops, both, nagle };
            profile_stream(&profile, &transport, &stream, &seeds, format)
        }
    }
}

fn bad(msg: impl Into<String>) -> anyhow::Error {
    BadInput(msg.into()).into()
}

/// What a profile argument written as a tc line or in tc's byte units
/// means, and what a recording it names by path lacks or infers, said
/// before it runs.
fn profile_notes(arg: &str) -> Vec<String> {
    let mut notes: Vec<String> = harness::net::netem::tc_prefix_note(arg).into_iter().collect();
    notes.extend(harness::net::netem::byte_rate_notes(arg));
    notes.extend(harness::net::recorded::path_notes(arg));
    notes
}

fn find_algo(name: &str) -> Result<&'static dyn Algorithm> {
    crate::catalog::find(name).ok_or_else(|| {
        bad(format!("unknown algorithm `{name}`: expected one of {}", crate::catalog::names().join(", ")))
    })
}

pub(crate) fn resolve_profile(arg: &str) -> Result<NetworkPlan> {
    for note in profile_notes(arg) {
        eprintln!("{}: note: {note}", crate::program());
    }
    NetworkPlan::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))
}

/// Warns when `tcp-like` is to run over a link past what the model was
/// validated against Linux at: its numbers there are the model's alone.
pub(crate) fn warn_unvalidated(transport: &TransportKind, profiles: &[&harness::net::Profile]) {
    if !matches!(transport, TransportKind::TcpLike(_)) {
        return;
    }
    for p in profiles {
        let why: Vec<String> =
            [&p.uplink, &p.downlink].into_iter().filter_map(harness::net::transport::tcp_beyond_validation).collect();
        if let Some(why) = why.first() {
            eprintln!(
                "{}: warning: --transport tcp-like on `{}`: {why}; the TCP model has not been checked against Linux there (reports/transport-validation.md)",
                crate::program(),
                p.name
            );
        }
    }
}

pub(crate) fn resolve_trace(arg: &str) -> Result<TraceSpec> {
    TraceSpec::resolve(arg, &library::dirs("traces")).map_err(|e| bad(e.to_string()))
}

/// Says on stderr when a run of `clients` players leaves players of a
/// recording out.
pub(crate) fn note_players(specs: &[TraceSpec], clients: usize) {
    for note in specs.iter().filter_map(|s| s.players_note(clients)) {
        eprintln!("note: {}", harness::error::escape(&note));
    }
}

/// Refuses, before any run starts, a recording with fewer players than
/// the run has clients (each run would fail alike).
pub(crate) fn check_players(specs: &[TraceSpec], clients: usize) -> Result<()> {
    for s in specs {
        if let Some(n) = s.recorded_players().filter(|&n| n < clients) {
            return Err(bad(format!(
                "--traces {}: the recording has {n} players and the run {clients} clients: run it with --clients {n} or fewer",
                s.name()
            )));
        }
    }
    Ok(())
}

/// `cfg` with the options meant for `algo` (`--opt ALGO:key=value` names
/// one algorithm); an option naming another algorithm is an error here,
/// where only one runs.
pub(crate) fn options_for_one(algo: &dyn Algorithm, mut cfg: RunConfig) -> Result<RunConfig> {
    if let Some(other) = cfg.options.named_algorithms().into_iter().find(|a| *a != algo.name()) {
        return Err(bad(format!("--opt {other}:…: this command runs only `{}`", algo.name())));
    }
    cfg.options = cfg.options.for_algorithm(algo.name());
    Ok(cfg)
}

/// Refuses `--corrupted deliver` for an algorithm that cannot take it
/// (a library that panics or aborts on a malformed packet), naming why.
pub(crate) fn check_corruption(algo: &dyn Algorithm, cfg: &RunConfig) -> Result<()> {
    match algo.takes_corruption() {
        Err(why) if !cfg.drop_corrupted => Err(bad(format!(
            "{} does not handle corrupted packets delivered (--corrupted deliver): {why}",
            algo.name()
        ))),
        _ => Ok(()),
    }
}

/// The run configuration `m` describes; `default_duration` when it names
/// none.
pub(crate) fn run_config(m: &MatchArgs, seed: u64, default_duration: &str) -> Result<RunConfig> {
    let duration = m.duration.as_deref().unwrap_or(default_duration);
    let duration_us = parse_duration(duration).map_err(|e| bad(format!("--duration {e}")))?;
    if duration_us < 100_000 {
        return Err(bad(format!("--duration {duration}: expected at least 100ms")));
    }
    // The run's size is bounded before anything (the trace first) is built.
    harness::limits::check_run(m.clients.saturating_add(m.bots), duration_us)
        .map_err(|e| bad(format!("run too large (--clients, --bots, --duration): {e}")))?;
    let fastest = m.render_rate.iter().copied().max().unwrap_or(60);
    harness::limits::check_work(m.clients, m.clients.saturating_add(m.bots), fastest, duration_us)
        .map_err(|e| bad(format!("run too large (--clients, --bots, --duration, --render-rate): {e}")))?;
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

/// FNV-1a 64 of `text`, hex: a content fingerprint for run keys (kept
/// byte-wise FNV so fingerprints in existing reports stay valid).
fn digest(text: &str) -> String {
    let mut h = harness::game::Fnv64::new();
    h.write(text.as_bytes());
    format!("{:016x}", h.finish())
}

/// The fingerprint of the network a run had: each client's and the
/// server's links as they behave (netem, events, correlation, an MTU
/// other than the default) — not the
/// profiles' names, descriptions or sources.
fn network_digest(plan: &NetworkPlan, clients: usize) -> String {
    let behaviour = |p: &harness::net::Profile| {
        let mut b = format!("{} | {} | {:?} | {:?}", p.uplink, p.downlink, p.events, p.correlation);
        if p.mtu != harness::net::DEFAULT_MTU {
            b += &format!(" | mtu {}", p.mtu);
        }
        // A recording counts by its content, not its file name.
        for (dir, r) in ["up", "down"].iter().zip(&p.replay) {
            if let Some(r) = r {
                b += &format!(
                    " | replay {dir} {}",
                    digest(&format!("{:?}", (&r.delays, &r.opportunities, r.queue, r.order)))
                );
            }
        }
        b
    };
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
pub(crate) fn run_one(
    algo: &dyn Algorithm,
    plan: &NetworkPlan,
    spec: &TraceSpec,
    cfg: &RunConfig,
) -> Result<RunReport> {
    run_one_observed(algo, plan, spec, cfg, &mut |_| {})
}

/// [`run_one`], telling `progress` each whole simulated second reached.
pub(crate) fn run_one_observed(
    algo: &dyn Algorithm,
    plan: &NetworkPlan,
    spec: &TraceSpec,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(harness::time::Micros),
) -> Result<RunReport> {
    let trace = spec.instantiate(cfg.clients, cfg.duration_us, cfg.seed).map_err(|e| bad(e.to_string()))?;
    let result = run_plan_observed(algo, plan, &trace, cfg, progress).map_err(|e| bad(e.to_string()))?;
    let mode = if cfg.paced { "paced" } else { "simulated" };
    let mut report = report_of(algo, plan, spec, &trace, cfg, result.metrics, mode);
    // A report carries its latency histograms (for diff's shapes); they
    // are encoded here rather than in every run (conformance makes no
    // report).
    report.metrics.latency_histograms = result.distributions.latency_histograms();
    report.distributions = Some(Box::new(result.distributions));
    Ok(report)
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
        variant: String::new(),
        profile: plan.name(),
        trace: spec.name(),
        seed: cfg.seed,
        clients: cfg.clients,
        duration_s: cfg.duration_us as f64 / 1e6,
        tick_hz: cfg.tick_hz,
        render_hz: (0..cfg.clients).map(|i| cfg.render_hz_of(i)).collect(),
        topology: algo.topology().as_str().to_string(),
        uplink: per_client(|p| p.describe(true)),
        downlink: per_client(|p| p.describe(false)),
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
        distributions: None,
    }
}

/// Says where `--hlog` wrote `runs` logs, or fails (exit 2) with the
/// first that could not be written: after the report, which is kept.
fn hlogs_written(dir: Option<&std::path::Path>, error: Option<String>, runs: usize, quiet: bool) -> Result<()> {
    let Some(dir) = dir else { return Ok(()) };
    if let Some(e) = error {
        return Err(bad(e));
    }
    if !quiet {
        eprintln!("wrote {runs} interval log{} to {}", if runs == 1 { "" } else { "s" }, dir.display());
    }
    Ok(())
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
