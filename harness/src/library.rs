//! Where the shipped data lives: the `netem-profiles/` and `traces/`
//! directories a name on the command line is looked up in.
//!
//! Searched in order: `$SYNCBENCH_HOME/<dir>` if set, `./<dir>` (the
//! current directory), then the directory of the source checkout the binary
//! was built from.

use std::path::PathBuf;

/// The directories to search for `kind` (`"netem-profiles"` or `"traces"`).
pub fn dirs(kind: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(home) = std::env::var_os("SYNCBENCH_HOME") {
        out.push(PathBuf::from(home).join(kind));
    }
    out.push(PathBuf::from(kind));
    let built = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(kind);
    out.push(built);
    out
}
