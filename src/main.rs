//! `syncbench`: the command-line front end over the `harness` and
//! `algorithms` crates. Thin by design: it resolves names into algorithms,
//! profiles and traces, runs matches (in parallel where asked), and prints
//! or writes reports. Exit codes: 0 fine, 1 a violation found, 2 bad usage
//! or bad input.

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

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::dispatch(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if let Some(v) = e.downcast_ref::<Violation>() {
                eprintln!("syncbench: {v}");
                return ExitCode::from(1);
            }
            eprintln!("syncbench: error: {e:#}");
            ExitCode::from(2)
        }
    }
}
