//! `matrix` and `merge`: algorithms × profiles × traces × seeds run in parallel (or a shard of them), the report set written, shards joined.

use super::*;
use harness::report::{Partial, Shard};

/// A matrix to run: every algorithm × profile × trace × seed.
pub(super) struct Matrix {
    pub(super) algos: Vec<&'static dyn Algorithm>,
    pub(super) profiles: Vec<NetworkPlan>,
    pub(super) specs: Vec<TraceSpec>,
    /// The seeds every cell runs.
    pub(super) seeds: Vec<u64>,
    pub(super) base: RunConfig,
    /// Where third-party runs are planned again to run in a child
    /// process ([`isolate`]); `None` runs them in this one.
    pub(super) origin: Option<isolate::Origin>,
}

/// One run of a matrix: its index in the matrix, the algorithm, the
/// network, the trace and the configuration.
pub(super) type Job<'a> = (usize, &'static dyn Algorithm, &'a NetworkPlan, &'a TraceSpec, RunConfig);

/// Every run of `m`, in job order: profile × trace × algorithm × seed.
pub(super) fn jobs(m: &Matrix) -> Vec<Job<'_>> {
    let mut jobs = Vec::new();
    for plan in &m.profiles {
        for spec in &m.specs {
            for algo in &m.algos {
                for &seed in &m.seeds {
                    let options = m.base.options.for_algorithm(algo.name());
                    jobs.push((jobs.len(), *algo, plan, spec, RunConfig { seed, options, ..m.base.clone() }));
                }
            }
        }
    }
    jobs
}

/// How a failed run is named: algorithm · profile · trace · seed.
pub(super) fn job_name(algo: &dyn Algorithm, plan: &NetworkPlan, spec: &TraceSpec, seed: u64) -> String {
    format!("{} · {} · {} · seed {seed}", algo.name(), plan.name(), spec.name())
}

/// Where `--hlog` writes a matrix's logs: the folder, and the place of the
/// matrix's runs in the command's (`compare --vary` runs several).
pub(super) struct HlogTarget<'a> {
    pub(super) dir: &'a std::path::Path,
    /// Added to each run's index in this matrix.
    pub(super) first_index: usize,
    /// The row the matrix's runs make (`compare --vary`), or empty.
    pub(super) variant: &'a str,
}

/// Runs the matrix (or shard `k` of `n`) in parallel; the report lists runs
/// in job order whatever the thread count. A run that errors or panics is
/// recorded as failed and the others go on. With `hlog`, each run's
/// interval log is written as the run ends (its distributions are not
/// kept: a large matrix would hold them all); the second value is the
/// first log that could not be written, for the caller to report after
/// the report itself.
pub(super) fn run_matrix(
    m: &Matrix,
    threads: Option<usize>,
    shard: Option<(usize, usize)>,
    quiet: bool,
    hlog: Option<&HlogTarget>,
) -> Result<(Report, Option<String>)> {
    let hlog_error: Mutex<Option<String>> = Mutex::new(None);
    let mut jobs = jobs(m);
    let matrix_runs = jobs.len();
    if let Some((k, n)) = shard {
        jobs.retain(|j| j.0 % n == k - 1);
    }
    if let Some(n) = threads {
        // The pool that judges a large world's screens gets as many cores
        // (it can be set once per process: a second matrix keeps the first's).
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build_global();
    }
    let cores = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())).max(1);
    let threads = cores.min(jobs.len().max(1));
    // With a run on every core already, each run keeps to its own: judging
    // a run's screens on other cores then only adds hand-overs (a 20-client
    // world matrix took 16% longer). With fewer runs than cores, runs share
    // the pool.
    let one_core_each = jobs.len() >= cores && cores > 1;
    let results: Vec<Mutex<Option<Result<RunReport, String>>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let progress = !quiet && std::io::stderr().is_terminal();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                let own = one_core_each.then(|| rayon::ThreadPoolBuilder::new().num_threads(1).build().ok()).flatten();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((index, algo, plan, spec, cfg)) = jobs.get(i) else { break };
                    let run = || run_one(*algo, plan, spec, cfg);
                    // A lone big run goes on the pool, as `run` does.
                    let alone = threads == 1 && harness::runner::runs_on_pool(cfg);
                    let pool = if own.is_some() { isolate::Pool::Own } else { isolate::Pool::Shared { alone } };
                    let child = m.origin.as_ref().filter(|_| isolate::is_third_party(*algo));
                    let (r, log) = match child {
                        Some(origin) => {
                            let what = job_name(*algo, plan, spec, cfg.seed);
                            let label = hlog.map(|t| t.variant);
                            let c = isolate::run_in_child(origin, *index, &what, *algo, pool, label);
                            (c.result, c.hlog)
                        }
                        None => (
                            isolate::caught(|| match &own {
                                Some(pool) => pool.install(run),
                                None => harness::parallel::on_pool(alone, run),
                            }),
                            None,
                        ),
                    };
                    let r = r.map(|r| finish_run(r, *index, hlog, log.as_deref(), &hlog_error));
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
                }
            });
        }
    });
    if progress {
        eprintln!();
    }
    let mut report = Report::new(env!("CARGO_PKG_VERSION"), Vec::with_capacity(jobs.len()));
    report.command = command_line();
    report.shard = shard.map(|(k, n)| Shard { k, n, matrix_runs });
    for (job, r) in jobs.iter().zip(results) {
        match r.into_inner().expect("no poisoning").expect("every job ran") {
            Ok(run) => report.runs.push(run),
            Err(error) => {
                report.failed.push(FailedRun { index: job.0, what: job_name(job.1, job.2, job.3, job.4.seed), error })
            }
        }
    }
    Ok((report, hlog_error.into_inner().expect("no poisoning")))
}

/// A finished run as the report holds it: its index in the matrix, its
/// interval log written (a failure kept in `hlog_error`, the first only)
/// and its distributions dropped.
fn finish_run(
    mut r: RunReport,
    index: usize,
    hlog: Option<&HlogTarget>,
    log: Option<&[u8]>,
    hlog_error: &Mutex<Option<String>>,
) -> RunReport {
    r.index = index;
    if let Some(t) = hlog {
        // Labelled as the command will label it.
        r.variant = t.variant.to_string();
        let at = t.first_index + index;
        let written = match log {
            Some(log) => harness::report::hlog::write_log(t.dir, &r, at, log).map(Some),
            None => harness::report::hlog::write(t.dir, &r, at),
        };
        if let Err(e) = written {
            hlog_error.lock().expect("no poisoning").get_or_insert(e);
        }
    }
    r.distributions = None;
    r
}

pub(super) fn resolve_algos(names: &[String]) -> Result<Vec<&'static dyn Algorithm>> {
    if names.iter().any(|s| s == "all") {
        Ok(crate::catalog::all())
    } else {
        names.iter().map(|n| find_algo(n.trim())).collect()
    }
}

impl Matrix {
    /// How many runs the matrix makes: algorithms × profiles × traces ×
    /// seeds.
    pub(super) fn runs(&self) -> u64 {
        (self.algos.len().max(1) as u64)
            .saturating_mul(self.profiles.len().max(1) as u64)
            .saturating_mul(self.specs.len().max(1) as u64)
            .saturating_mul(self.seeds.len() as u64)
    }
}

/// Refuses more than [`harness::limits::MAX_MATRIX_RUNS`] runs in one
/// command.
pub(super) fn check_run_count(runs: u64) -> Result<()> {
    if runs > harness::limits::MAX_MATRIX_RUNS {
        return Err(bad(format!(
            "{runs} runs (algorithms × profiles × traces × seeds): the limit is {} (fewer seeds, profiles or traces)",
            harness::limits::MAX_MATRIX_RUNS
        )));
    }
    Ok(())
}

/// Checks the matrix before running it, and says (unless `quiet`) what
/// the user should know of it: a transport past its validation, traces
/// with fewer players than clients. Algorithms that cannot play the world
/// (`--bots`, `--aoi grid|crosslist`) are an error when named, and left
/// out of `all` (with a note).
pub(super) fn check_options(m: &mut Matrix, names: &[String], quiet: bool) -> Result<()> {
    if m.seeds.is_empty() {
        return Err(bad("--seeds: no seeds to run"));
    }
    if !quiet {
        warn_unvalidated(&m.base.transport, &m.profiles.iter().flat_map(|p| &p.clients).collect::<Vec<_>>());
        note_players(&m.specs, m.base.clients);
    }
    check_players(&m.specs, m.base.clients)?;
    check_run_count(m.runs())?;
    let why_not = |a: &dyn Algorithm| -> Option<&'static str> {
        if m.base.bots > 0 && !a.handles_bots() {
            Some("server-driven bots (--bots)")
        } else if m.base.aoi.is_some_and(|x| x.filters()) && !a.handles_aoi() {
            Some("area-of-interest filtering (--aoi)")
        } else if !m.base.drop_corrupted && a.takes_corruption().is_err() {
            Some("corrupted packets delivered (--corrupted deliver)")
        } else {
            None
        }
    };
    let all = names.iter().any(|n| n == "all");
    let mut skipped = Vec::new();
    let mut kept = Vec::new();
    for algo in &m.algos {
        match why_not(*algo) {
            Some(what) if !all => {
                let why = algo.takes_corruption().err().filter(|_| what.contains("--corrupted"));
                return Err(bad(format!(
                    "{} does not handle {what}{}",
                    algo.name(),
                    why.map_or(String::new(), |w| format!(": {w}"))
                )));
            }
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
pub(super) fn write_reports(dir: &std::path::Path, report: &Report, quiet: bool) -> Result<()> {
    // A partial merge says so at the top of every file but the JSON,
    // which has it as a field.
    let (csv_note, md_note) = match &report.partial {
        Some(p) => (format!("# {p}\n"), format!("**{p}**\n\n")),
        None => (String::new(), String::new()),
    };
    crate::output::write_set(
        dir,
        &[
            ("report.json", report.to_json()),
            ("report.csv", csv_note + &harness::report::csv::render(&report.runs)),
            ("report.md", md_note + &table::failed(&report.failed, true) + &table::compare(&report.runs, true)),
            ("report.html", harness::report::html::render(report)),
        ],
    )?;
    if !quiet {
        eprintln!("wrote {0}/report.json, report.csv, report.md, report.html", dir.display());
    }
    Ok(())
}

/// Exit 1 if a run failed or broke a contract the harness checks.
pub(super) fn finish(report: &Report) -> Result<()> {
    for f in &report.failed {
        eprintln!("{}: run failed: {}: {}", crate::program(), f.what, f.error);
    }
    check_violations(&report.runs)?;
    if report.failed.is_empty() {
        Ok(())
    } else {
        Err(Violation(format!("{} run(s) failed", report.failed.len())).into())
    }
}

/// The matrix `a` describes, checked, and the shard to run; the child of
/// an isolated run plans it again `quiet`ly.
pub(super) fn plan_matrix(a: &MatrixArgs, quiet: bool) -> Result<(Matrix, Option<(usize, usize)>)> {
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
    let traces = if a.traces.is_empty() { traces } else { harness::trace::rejoin_specs(&a.traces) };
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
        seeds: a.seeds.clone().map_or_else(|| (1..=seeds).collect(), |s| s.0),
        base: run_config(&common, 1, &duration)?,
        origin: isolate::origin(0),
    };
    check_options(&mut m, &a.algos, quiet)?;
    Ok((m, shard))
}

pub(super) fn matrix(a: MatrixArgs) -> Result<()> {
    let (m, shard) = plan_matrix(&a, a.quiet)?;
    if let Some(dir) = &a.hlog {
        harness::report::hlog::prepare(dir).map_err(bad)?;
    }
    let target = a.hlog.as_deref().map(|dir| HlogTarget { dir, first_index: 0, variant: "" });
    let (report, hlog_error) = run_matrix(&m, a.jobs, shard, a.quiet, target.as_ref())?;
    let dir = a
        .out
        .clone()
        .unwrap_or_else(|| std::path::PathBuf::from(if a.quick { "reports/quick" } else { "reports/matrix" }));
    write_reports(&dir, &report, a.quiet)?;
    if !a.quiet {
        eprintln!("{} runs{}", report.runs.len(), shard.map(|(k, n)| format!(" (shard {k}/{n})")).unwrap_or_default());
    }
    hlogs_written(a.hlog.as_deref(), hlog_error, report.runs.len(), a.quiet)?;
    finish(&report)
}

/// The command line for a report's header, shell-quoted, as `syncbench …`
/// (or the netcode crate's own binary): without `--out`, `--hlog`, `--jobs` and `--quiet`, which cannot
/// change the results (so the same matrix gives the same bytes whatever
/// its output directory or thread count).
pub(super) fn command_line() -> String {
    let (program, args) = crate::invocation();
    let mut words = vec![program];
    let mut args = args.into_iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" | "--jobs" | "--hlog" => {
                args.next();
            }
            "--quiet" => {}
            _ if a.starts_with("--out=") || a.starts_with("--jobs=") || a.starts_with("--hlog=") => {}
            _ => words.push(a),
        }
    }
    words.iter().map(|w| shell_quote(w)).collect::<Vec<_>>().join(" ")
}

/// `w` as a POSIX shell word: as is when it is safe, else single-quoted.
pub(super) fn shell_quote(w: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "-_./:=,+@%^".contains(c);
    if !w.is_empty() && w.chars().all(safe) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}

/// A shard's command without its `--shard K/N`.
pub(super) fn without_shard(command: &str) -> String {
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

pub(super) fn merge(inputs: &[std::path::PathBuf], out: &std::path::Path, partial: bool, quiet: bool) -> Result<()> {
    let mut merged = Report::new(env!("CARGO_PKG_VERSION"), Vec::new());
    let mut commands = Vec::new();
    let mut shards = Vec::new();
    // Which input holds each run (to name the files a duplicate is in).
    let mut holder = Vec::new();
    for p in inputs {
        let r = read_report(p)?;
        commands.push(without_shard(&r.command));
        shards.push((p, r.shard));
        holder.extend(r.runs.iter().map(|x| x.index).chain(r.failed.iter().map(|f| f.index)).map(|i| (i, p)));
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
    holder.sort_by_key(|(i, _)| *i);
    let indices: Vec<usize> = holder.iter().map(|(i, _)| *i).collect();
    if let Some(w) = indices.windows(2).find(|w| w[0] == w[1]) {
        let holders: Vec<String> =
            holder.iter().filter(|(i, _)| *i == w[0]).map(|(_, p)| p.display().to_string()).collect();
        return Err(bad(format!(
            "run {} appears in more than one input ({}): were the shards taken from different matrices?",
            w[0],
            holders.join(", ")
        )));
    }
    merged.partial = coverage(&shards, &indices)?;
    if let Some(p) = &merged.partial {
        if !partial {
            return Err(bad(format!(
                "these shards hold {} of the matrix's {} runs (missing shards {}): pass every shard, or --partial to merge what is here",
                p.runs,
                p.of,
                p.missing_shards.join(", ")
            )));
        }
        if !quiet {
            eprintln!("note: {p}");
        }
    }
    write_reports(out, &merged, quiet)?;
    finish(&merged)
}

/// What a merge of `shards` (each input and its shard, if it is one)
/// holding the runs `indices` (sorted) lacks of its matrix: `None` when it
/// holds it all, or when the inputs are no matrix's shards.
fn coverage(shards: &[(&std::path::PathBuf, Option<Shard>)], indices: &[usize]) -> Result<Option<Partial>> {
    let Some(first) = shards.iter().find_map(|(_, s)| *s) else { return Ok(None) };
    for (path, s) in shards {
        match s {
            Some(s) if s.n == first.n && s.matrix_runs == first.matrix_runs => {}
            Some(s) => {
                return Err(bad(format!(
                    "{}: shard {}/{} of a {}-run matrix, where {}/{} of a {}-run one came first: shards of different matrices",
                    path.display(),
                    s.k,
                    s.n,
                    s.matrix_runs,
                    first.k,
                    first.n,
                    first.matrix_runs
                )))
            }
            None => return Err(bad(format!("{}: not a shard, merged with shards", path.display()))),
        }
    }
    if indices.len() == first.matrix_runs && indices.iter().enumerate().all(|(i, &x)| i == x) {
        return Ok(None);
    }
    let present: Vec<usize> = shards.iter().filter_map(|(_, s)| s.map(|s| s.k)).collect();
    Ok(Some(Partial {
        runs: indices.len(),
        of: first.matrix_runs,
        missing_shards: (1..=first.n).filter(|k| !present.contains(k)).map(|k| format!("{k}/{}", first.n)).collect(),
    }))
}
