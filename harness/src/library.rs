//! Where the shipped data lives: the `netem-profiles/` and `traces/` a
//! name on the command line is looked up in.
//!
//! Searched in order: `$SYNCBENCH_HOME/<dir>` if set, `./<dir>` (the
//! current directory), then the copies built into the binary — so a copied
//! or `cargo install`ed binary works from any directory, and a file on disk
//! with a shipped name overrides the built-in one.

use std::path::PathBuf;

mod shipped {
    include!(concat!(env!("OUT_DIR"), "/shipped.rs"));
}

/// The directories to search for `kind` (`"netem-profiles"` or `"traces"`)
/// before the built-in copies.
pub fn dirs(kind: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(home) = std::env::var_os("SYNCBENCH_HOME") {
        out.push(PathBuf::from(home).join(kind));
    }
    out.push(PathBuf::from(kind));
    out
}

/// The built-in profiles: (name, TOML text).
pub fn shipped_profiles() -> &'static [(&'static str, &'static str)] {
    shipped::PROFILES
}

/// The built-in recordings of real links, `netem-profiles/recordings/`:
/// (file name, text).
pub fn shipped_recordings() -> &'static [(&'static str, &'static str)] {
    shipped::RECORDINGS
}

/// The built-in traces: (name, script text).
pub fn shipped_traces() -> &'static [(&'static str, &'static str)] {
    shipped::TRACES
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_shipped_files_are_built_in() {
        assert!(super::shipped_profiles().iter().any(|(n, t)| *n == "wifi" && t.contains("uplink")));
        assert!(super::shipped_traces().iter().any(|(n, _)| *n == "dodge"));
    }
}
