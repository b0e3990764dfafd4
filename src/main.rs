//! `syncbench`: the command-line front end over the `harness` and
//! `algorithms` crates. Thin by design: it resolves names into algorithms,
//! profiles and traces, runs matches (in parallel where asked), and prints
//! or writes reports. Exit codes: 0 fine, 1 a violation found, 2 bad usage
//! or bad input.

/// `print!` that ends the program quietly when stdout is closed (`| head`)
/// instead of panicking, as command-line tools conventionally do.
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

/// Writes to stdout; a reader that went away (a closed pipe) ends the
/// program with exit code 0, any other write error with 2.
pub fn stdout_write(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
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
