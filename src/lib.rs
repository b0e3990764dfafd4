//! # syncbench as a library
//!
//! The whole `syncbench` command line, with your algorithms added beside
//! the built-in ones — so a netcode crate gets `list`, `run`, `compare`,
//! `matrix`, `diff`, `ab` and `conform` for its own algorithm without
//! forking this repository:
//!
//! ```no_run
//! use syncbench::harness::contract::{Algorithm, Node, Setup, Topology};
//! # struct MyNetcode;
//! # impl Algorithm for MyNetcode {
//! #     fn name(&self) -> &'static str { "my-netcode" }
//! #     fn description(&self) -> &'static str { "" }
//! #     fn topology(&self) -> Topology { Topology::PeerToPeer }
//! #     fn client(&self, _: &Setup, _: usize) -> Box<dyn Node> { unimplemented!() }
//! # }
//! fn main() -> std::process::ExitCode {
//!     syncbench::Cli::new().algorithm(&MyNetcode).run()
//! }
//! ```
//!
//! and, in tests, one match as a value ([`Match`]) and the conformance
//! contracts ([`harness::conform::check`]):
//!
//! ```
//! let report = syncbench::Match::new(syncbench::catalog::find("lockstep").unwrap())
//!     .profile("delay 30ms 5ms")
//!     .seconds(5)
//!     .run()
//!     .unwrap();
//! assert_eq!(report.metrics.desyncs, 0);
//! ```
//!
//! The crates underneath are re-exported: [`harness`] (the contract an
//! algorithm implements, the simulator, metrics, reports) and
//! [`algorithms`] (the built-in ones, with their shared parts). Exit codes
//! of the command line: 0 fine, 1 a violation or regression found, 2 bad
//! usage or bad input.

/// `print!` that stops printing quietly when stdout is closed (`| head`)
/// instead of panicking; the command's exit code stands.
macro_rules! print {
    ($($arg:tt)*) => { $crate::stdout_write(format_args!($($arg)*)) };
}

/// `println!`, likewise.
macro_rules! println {
    () => { $crate::stdout_write(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdout_write(format_args!("{}\n", format_args!($($arg)*))) };
}

pub mod catalog;
mod cli;
mod commands;
mod match_run;
mod output;

pub use algorithms;
pub use harness;
pub use match_run::Match;

use clap::{CommandFactory, FromArgMatches};
use harness::contract::Algorithm;
use std::ffi::OsString;
use std::process::ExitCode;

/// An error whose exit code is 2: bad usage or bad input.
#[derive(Debug)]
pub struct BadInput(pub String);

impl std::fmt::Display for BadInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadInput {}

/// A finding: the command ran and found a violation (exit code 1).
#[derive(Debug)]
pub struct Violation(pub String);

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Violation {}

/// Set once the reader of stdout went away: nothing more is printed, and
/// the command still finishes and exits with its own verdict (so `syncbench
/// diff … | head` under `pipefail` still fails on a regression).
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes to stdout; a closed pipe stops the printing quietly, any other
/// write error ends the program with 2.
pub fn stdout_write(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            STDOUT_CLOSED.store(true, Ordering::Relaxed);
            return;
        }
        eprintln!("{}: error: cannot write to stdout: {e}", program());
        std::process::exit(2);
    }
}

/// The program's name and arguments as this command was given them (the
/// arguments of [`Cli::run_from`], not necessarily the process's): what
/// reports record and scenario files tell to replay with.
static INVOCATION: std::sync::Mutex<Option<(String, Vec<String>)>> = std::sync::Mutex::new(None);

fn remember_invocation(args: &[OsString]) {
    let program = args
        .first()
        .and_then(|p| std::path::Path::new(p).file_stem().map(|s| s.to_string_lossy().into_owned()))
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "syncbench".into());
    let rest = args.iter().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    *INVOCATION.lock().unwrap_or_else(|e| e.into_inner()) = Some((program, rest));
}

/// The program name (`syncbench`, or a netcode crate's own binary) and the
/// arguments of the command being run.
pub(crate) fn invocation() -> (String, Vec<String>) {
    INVOCATION.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_else(|| ("syncbench".into(), Vec::new()))
}

/// The program's name: `syncbench`, or a netcode crate's own binary.
pub(crate) fn program() -> String {
    invocation().0
}

/// `cmd` as `program` calls it: its name in usage lines, and in every
/// example of every subcommand's help.
/// Every option takes a negative number as its value (`--clock -5ms@0`,
/// `--seed -1` is then refused by its own parser, naming the option)
/// rather than reading it as an unknown flag.
fn negative_values(cmd: clap::Command) -> clap::Command {
    cmd.mut_args(|a| if a.get_action().takes_values() { a.allow_negative_numbers(true) } else { a })
        .mut_subcommands(negative_values)
}

fn named(cmd: clap::Command, program: &str) -> clap::Command {
    if program == "syncbench" {
        return cmd;
    }
    fn rename(mut cmd: clap::Command, program: &str) -> clap::Command {
        if let Some(help) = cmd.get_after_help() {
            let text = help.to_string().replace("syncbench ", &format!("{program} "));
            cmd = cmd.after_help(text);
        }
        let subs: Vec<String> = cmd.get_subcommands().map(|c| c.get_name().to_string()).collect();
        for name in subs {
            cmd = cmd.mut_subcommand(name, |c| rename(c, program));
        }
        cmd
    }
    rename(cmd.bin_name(program), program)
}

/// `args` (`args[0]` the program name) as the command line `program`
/// parses them.
fn parse(args: Vec<OsString>, program: &str) -> Result<cli::Cli, clap::Error> {
    named(negative_values(cli::Cli::command()), program)
        .try_get_matches_from(args)
        .and_then(|m| cli::Cli::from_arg_matches(&m))
}

/// The command line, with algorithms of your own added.
///
/// The algorithms added are process-wide (every command can name them, so
/// they live beside the built-in registry): a process may add one set —
/// running the CLI again with the same set is fine, a different set is
/// refused with exit 2.
#[derive(Default)]
pub struct Cli {
    added: Vec<&'static dyn Algorithm>,
}

impl Cli {
    /// The command line with the built-in algorithms only.
    pub fn new() -> Cli {
        Cli::default()
    }

    /// Adds an algorithm beside the built-in ones: every command can name
    /// it, and `all` includes it. Its name must be new.
    pub fn algorithm(mut self, algorithm: &'static dyn Algorithm) -> Cli {
        self.added.push(algorithm);
        self
    }

    /// Parses this process's arguments and runs the command. The process
    /// is then this command line's binary, which may start itself again to
    /// run a third-party library's runs apart (see `commands::isolate`);
    /// [`Cli::run_from`] alone runs everything in its own process.
    pub fn run(self) -> ExitCode {
        commands::may_start_children();
        self.run_from(std::env::args_os())
    }

    /// Runs the command `args` names (`args[0]` is the program name).
    pub fn run_from<I, T>(self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
        remember_invocation(&args);
        if let Err(e) = catalog::add(self.added) {
            eprintln!("{}: error: {}", program(), harness::error::escape(&e));
            return ExitCode::from(2);
        }
        let program = program();
        let args = match parse(args, &program) {
            Ok(a) => a,
            Err(e) => {
                let _ = e.print();
                return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
            }
        };
        match commands::dispatch(args.command) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                if let Some(v) = e.downcast_ref::<Violation>() {
                    eprintln!("{program}: {}", harness::error::printable(&v.to_string()));
                    return ExitCode::from(1);
                }
                // Input is echoed in messages: never raw control characters,
                // never a whole 100,000-character argument.
                eprintln!("{program}: error: {}", harness::error::printable(&format!("{e:#}")));
                ExitCode::from(2)
            }
        }
    }
}
