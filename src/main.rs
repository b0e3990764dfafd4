//! `syncbench`: the command-line front end over the `harness` and
//! `algorithms` crates. Thin by design: it resolves names into algorithms,
//! profiles and traces, runs matches (in parallel where asked), and prints
//! or writes reports. Exit codes: 0 fine, 1 a violation found, 2 bad usage
//! or bad input.

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

mod cli;
mod commands;
mod output;

use clap::Parser;
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
        eprintln!("syncbench: error: cannot write to stdout: {e}");
        std::process::exit(2);
    }
}

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(v) = e.downcast_ref::<Violation>() {
                eprintln!("syncbench: {}", harness::error::escape(&v.to_string()));
                return ExitCode::from(1);
            }
            // Input is echoed in messages: never raw control characters.
            eprintln!("syncbench: error: {}", harness::error::escape(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}
