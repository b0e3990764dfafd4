//! `syncbench`: the command line. Everything is in the library
//! (`src/lib.rs`), which a netcode crate can use to get this same binary
//! with its own algorithms added.

fn main() -> std::process::ExitCode {
    syncbench::Cli::new().run()
}
