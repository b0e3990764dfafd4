//! Third-party code in a child process. A run of a library under test
//! (`algorithms::registry::under_test()`) goes to a child of this same
//! binary, so that an abort inside the library (a failed allocation, a
//! panic while panicking) becomes a failed run with its message instead
//! of ending the whole `compare`, `matrix` or `ab`. The child reads the
//! parent's command line and the job's place in it on stdin, plans the
//! same matrices, runs that one job with its address space bounded, and
//! answers with the run's report as one line of JSON on stdout. The
//! built-in algorithms run in the parent, at full speed.
//!
//! Only on Linux, and only when the process is the command line's own
//! binary ([`crate::Cli::run`]); elsewhere, and with `SYNCBENCH_IN_PROCESS=1`
//! (for debugging), every run stays in the process. A report is the same
//! bytes either way: the child's report is the in-process one, read back
//! exactly (`serde_json`'s `float_roundtrip`), and a panic or an error
//! comes back as the same message.

use super::*;
use std::sync::atomic::AtomicBool;

/// Set when the process is the command line's binary, which can start
/// itself again.
static MAY_START_CHILDREN: AtomicBool = AtomicBool::new(false);

/// The environment variable that keeps every run in the process.
const IN_PROCESS: &str = "SYNCBENCH_IN_PROCESS";

/// The environment variable, for tests only, that makes a child fail as
/// naia does on a malformed packet: set to an algorithm's name, the child
/// running it asks for 8 GiB at once, which the address-space limit
/// refuses, and Rust aborts with "memory allocation of 8589934592 bytes
/// failed". A child without the limit aborts all the same. Nothing else
/// reads it; it is no option of the product.
const TEST_ABORT: &str = "SYNCBENCH_TEST_ABORT_IN_CHILD";

/// The address space a child may map: 4 GiB, the bound the hardening
/// campaign ran every library under (a naia run of 20 s maps under 100
/// MiB; naia's allocations on malformed packets ask for 40 GB to 15 PB).
pub(super) const ADDRESS_SPACE: u64 = 4 << 30;

/// The line a child writes on stderr before its run: what follows is the
/// run's own.
const RUN_BEGINS: &str = "syncbench isolated-run: the run begins";

/// Called by [`crate::Cli::run`].
pub(crate) fn may_start_children() {
    MAY_START_CHILDREN.store(true, Ordering::Relaxed);
}

/// Where a matrix's jobs come from: the command line that planned it and
/// the matrix's place among the ones it plans (`compare --vary` and `ab`
/// plan several).
#[derive(Clone, Debug)]
pub(super) struct Origin {
    args: Vec<String>,
    matrix: usize,
}

/// The origin of the command's matrix number `matrix`, when its
/// third-party runs go to children: on Linux, from the command line's
/// binary, unless `SYNCBENCH_IN_PROCESS` is set or an argument is not
/// UTF-8 (the child reads them as text).
pub(super) fn origin(matrix: usize) -> Option<Origin> {
    let enabled = cfg!(target_os = "linux")
        && MAY_START_CHILDREN.load(Ordering::Relaxed)
        && std::env::var_os(IN_PROCESS).is_none_or(|v| v.is_empty() || v == "0")
        && std::env::args_os().all(|a| a.to_str().is_some());
    enabled.then(|| Origin { args: crate::invocation().1, matrix })
}

/// Whether `algo` is third-party code, run in a child.
pub(super) fn is_third_party(algo: &dyn Algorithm) -> bool {
    algorithms::registry::under_test().iter().any(|a| a.name() == algo.name())
}

/// How the parent runs the job in process: on a one-thread pool of its
/// own, or on the shared pool (alone: the run splits its screens over it).
#[derive(Clone, Copy, Debug)]
pub(super) enum Pool {
    Own,
    Shared { alone: bool },
}

/// What a child run gives back: the report (or the run's error or panic
/// message) and, when asked, the run's interval log.
pub(super) struct ChildRun {
    pub(super) result: Result<RunReport, String>,
    pub(super) hlog: Option<Vec<u8>>,
}

/// Runs job `job` (its `what`, to check the child planned the same job) of
/// the matrix `origin` names in a child process, which answers as the
/// in-process run would; an abnormal end (a signal, an exit code, no
/// answer) is a failed run naming `algo`, what ended it, and the last
/// lines the child wrote on stderr. With `hlog`, the run is labelled
/// `hlog` and its interval log comes back too. What the run wrote on
/// stderr is passed on.
pub(super) fn run_in_child(
    origin: &Origin,
    job: usize,
    what: &str,
    algo: &dyn Algorithm,
    pool: Pool,
    hlog: Option<&str>,
) -> ChildRun {
    let request = serde_json::json!({
        "args": origin.args,
        "matrix": origin.matrix,
        "job": job,
        "what": what,
        "pool": match pool { Pool::Own => "own", Pool::Shared { alone: true } => "alone", Pool::Shared { alone: false } => "shared" },
        "hlog": hlog,
    });
    let failed = |e: String| ChildRun { result: Err(e), hlog: None };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return failed(format!("{}: cannot find this program to run it apart: {e}", algo.name())),
    };
    let child = std::process::Command::new(exe)
        .arg("isolated-run")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return failed(format!("{}: cannot start a process for the run: {e}", algo.name())),
    };
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        // A child that ends before reading says why on stderr.
        let _ = stdin.write_all(request.to_string().as_bytes());
    }
    let out = match child.wait_with_output() {
        Ok(out) => out,
        Err(e) => return failed(format!("{}: lost the run's process: {e}", algo.name())),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    let own = stderr.split_once(RUN_BEGINS).map_or("", |(_, rest)| rest.trim_start_matches('\n'));
    if !own.is_empty() {
        eprint!("{own}");
    }
    let answer = String::from_utf8_lossy(&out.stdout)
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok());
    match (out.status.success(), answer) {
        (true, Some(mut a)) => {
            let hlog = a["hlog"].as_str().map(|s| s.as_bytes().to_vec());
            let result = match a["error"].as_str() {
                Some(e) => Err(e.to_string()),
                None => serde_json::from_value::<RunReport>(a["run"].take())
                    .map_err(|e| format!("{}: the run's process answered something unreadable: {e}", algo.name())),
            };
            ChildRun { result, hlog }
        }
        (success, _) => failed(format!("{} {}{}", algo.name(), how_it_ended(&out.status, success), tail(&stderr))),
    }
}

/// What ended a child: a signal (by name), an exit code, or an exit
/// without an answer.
fn how_it_ended(status: &std::process::ExitStatus, success: bool) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(n) = status.signal() {
            let name = match n {
                4 => " (SIGILL)",
                6 => " (SIGABRT)",
                7 => " (SIGBUS)",
                8 => " (SIGFPE)",
                9 => " (SIGKILL: out of memory, or killed)",
                11 => " (SIGSEGV)",
                15 => " (SIGTERM)",
                _ => "",
            };
            let what = if n == 6 { "aborted" } else { "was killed" };
            return format!("{what}: its run's process ended on signal {n}{name}");
        }
    }
    match status.code() {
        Some(c) if !success => format!("failed: its run's process exited with code {c}"),
        _ => "failed: its run's process ended without a report".into(),
    }
}

/// The last lines (at most three, 300 characters each) a child wrote on
/// stderr, without backtraces (their lines are indented) or Rust's notes
/// about them: where an abort says why.
fn tail(stderr: &str) -> String {
    let backtrace = |l: &str| {
        l.starts_with([' ', '\t'])
            || l == "stack backtrace:"
            || (l.starts_with("note: ") && l.contains("RUST_BACKTRACE"))
    };
    let lines: Vec<&str> =
        stderr.lines().filter(|l| !l.trim().is_empty() && !backtrace(l) && *l != RUN_BEGINS).map(str::trim).collect();
    let last: Vec<String> = lines[lines.len().saturating_sub(3)..]
        .iter()
        .map(|l| harness::error::printable(&l.chars().take(300).collect::<String>()))
        .collect();
    if last.is_empty() {
        String::new()
    } else {
        format!(": {}", last.join(" / "))
    }
}

/// `isolated-run`: the child's side. Bounds its own address space, reads
/// the job from stdin, plans the parent's command again, runs the job as
/// the parent would in process, and answers on stdout.
pub(super) fn isolated_run() -> Result<()> {
    bound_address_space();
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)?;
    let request: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(format!("isolated-run: {e}")))?;
    let args: Vec<std::ffi::OsString> = std::iter::once("syncbench".into())
        .chain(request["args"].as_array().into_iter().flatten().filter_map(|a| a.as_str()).map(Into::into))
        .collect();
    let number = |key: &str| request[key].as_u64().map(|n| n as usize);
    let (Some(matrix), Some(job)) = (number("matrix"), number("job")) else {
        return Err(bad("isolated-run: expected a matrix and a job"));
    };
    let command = crate::parse(args, &crate::program()).map_err(|e| bad(format!("isolated-run: {e}")))?.command;
    let matrices = plan(command)?;
    let m = matrices.get(matrix).ok_or_else(|| bad(format!("isolated-run: no matrix {matrix}")))?;
    let jobs = jobs(m);
    let Some((_, algo, plan, spec, cfg)) = jobs.iter().find(|j| j.0 == job) else {
        return Err(bad(format!("isolated-run: no job {job}")));
    };
    if request["what"].as_str() != Some(job_name(*algo, plan, spec, cfg.seed).as_str()) {
        return Err(bad("isolated-run: the command's inputs changed since it began"));
    }
    eprintln!("{RUN_BEGINS}");
    if std::env::var(TEST_ABORT).is_ok_and(|v| v == algo.name()) {
        // See TEST_ABORT: fails as naia's malformed-packet allocations do.
        let huge: Vec<u8> = Vec::with_capacity(std::hint::black_box(8 << 30));
        std::hint::black_box(&huge);
        eprintln!("{TEST_ABORT}: the allocation of 8 GiB succeeded; aborting");
        std::process::abort();
    }
    let run = || run_one(*algo, plan, spec, cfg);
    let result = match request["pool"].as_str() {
        Some("own") => {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
            caught(|| pool.install(run))
        }
        Some(p) => caught(|| harness::parallel::on_pool(p == "alone", run)),
        None => return Err(bad("isolated-run: expected a pool")),
    };
    let answer = match result {
        Ok(mut run) => {
            let label = request["hlog"].as_str();
            let hlog = label.and_then(|variant| {
                run.variant = variant.to_string();
                let log = harness::report::hlog::log_of(&run, run.distributions.as_deref()?);
                Some(String::from_utf8_lossy(&log).into_owned())
            });
            run.distributions = None;
            serde_json::json!({ "run": run, "hlog": hlog })
        }
        Err(e) => serde_json::json!({ "error": e }),
    };
    println!("{answer}");
    Ok(())
}

/// `run` with its panic caught, as the message a failed run records.
pub(super) fn caught(run: impl FnOnce() -> Result<RunReport>) -> Result<RunReport, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run))
        .map_err(|p| {
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "panic".into())
        })
        .and_then(|r| r.map_err(|e| e.to_string()))
}

/// Every matrix `command` plans, in the order it runs them.
fn plan(command: crate::cli::Command) -> Result<Vec<Matrix>> {
    match command {
        Command::Compare(a) => Ok(plan_compare(&a, true)?.into_iter().map(|(_, m)| m).collect()),
        Command::Matrix(a) => Ok(vec![plan_matrix(&a, true)?.0]),
        Command::Ab(a) => {
            let (ma, mb) = plan_ab(&a, true)?;
            Ok(vec![ma, mb])
        }
        _ => Err(bad("isolated-run: the command runs no matrix")),
    }
}

/// Bounds this process's address space to [`ADDRESS_SPACE`] (or less, if
/// it is bounded tighter already): an allocation past it fails, and Rust
/// aborts naming its size, where it could have taken the machine's memory.
fn bound_address_space() {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{getrlimit, setrlimit, Resource, Rlimit};
        let now = getrlimit(Resource::As);
        let current = now.current.map_or(ADDRESS_SPACE, |c| c.min(ADDRESS_SPACE));
        // Failing to bound it leaves the run as it would be in process.
        let _ = setrlimit(Resource::As, Rlimit { current: Some(current), maximum: now.maximum });
    }
}
