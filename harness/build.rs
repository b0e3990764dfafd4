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
    let root = Path::new(&manifest).join("..");
    let mut out = String::new();
    for (name, dir, ext) in [("PROFILES", "netem-profiles", "toml"), ("TRACES", "traces", "trace")] {
        let dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        // A binary that ships no profiles is broken: fail the build.
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        files.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == ext));
        files.sort();
        writeln!(out, "/// Shipped `{ext}` files: (name, text).").unwrap();
        writeln!(out, "pub static {name}: &[(&str, &str)] = &[").unwrap();
        for f in files {
            let stem = f.file_stem().and_then(|s| s.to_str()).expect("file names are UTF-8");
            let abs = f.canonicalize().expect("listed files exist");
            writeln!(out, "    ({stem:?}, include_str!({:?})),", abs.display().to_string()).unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("shipped.rs");
    std::fs::write(dest, out).expect("OUT_DIR is writable");
}
