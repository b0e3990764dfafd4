//! Builds the shipped profiles and traces into the library, so a copied or
//! installed binary finds them from any directory (files on disk still
//! take precedence; see `src/library.rs`).

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read when the script runs, not when it was compiled: a build script
    // compiled in another checkout sharing the target directory (a git
    // worktree) would otherwise embed that checkout's files, or none.
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    // netem-profiles/ and traces/ sit beside this file: links to the
    // workspace's folders in the repository, the files themselves in the
    // published package.
    let root = Path::new(&manifest);
    let mut out = String::new();
    for (name, dir, ext) in [
        ("PROFILES", "netem-profiles", "toml"),
        ("TRACES", "traces", "trace"),
        ("RECORDINGS", "netem-profiles/recordings", ""),
    ] {
        let dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        // A binary that ships no profiles is broken: fail the build.
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        // Recordings keep their whole file name (any extension).
        files.retain(|p: &std::path::PathBuf| {
            p.is_file() && (ext.is_empty() || p.extension().is_some_and(|e| e == ext))
        });
        files.sort();
        writeln!(out, "/// Shipped files of `{}`: (name, text).", dir.display()).unwrap();
        writeln!(out, "pub static {name}: &[(&str, &str)] = &[").unwrap();
        for f in files {
            let stem = if ext.is_empty() { f.file_name() } else { f.file_stem() };
            let stem = stem.and_then(|s| s.to_str()).expect("file names are UTF-8");
            let abs = f.canonicalize().expect("listed files exist");
            writeln!(out, "    ({stem:?}, include_str!({:?})),", abs.display().to_string()).unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("shipped.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
