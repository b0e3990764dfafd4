//! `new`: a crate of one's own under syncbench — `examples/my-netcode`
//! renamed (algorithm, binary, conform and `Match` tests, gate file, gate
//! script, CI workflow, README), with syncbench's `Cargo.lock` and its
//! `release` and `fast` profiles so the crate builds what syncbench is
//! tested with, and edits relink in about a second.

use super::bad;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The example's files, each written renamed: (path in the crate, text).
/// `template/` links to `examples/my-netcode/` (a crate of its own, which
/// a package would leave out); the published package holds the files.
const FILES: &[(&str, &str)] = &[
    ("src/lib.rs", include_str!("template/src/lib.rs")),
    ("src/main.rs", include_str!("template/src/main.rs")),
    ("tests/netcode.rs", include_str!("template/tests/netcode.rs")),
    ("gate.toml", include_str!("template/gate.toml")),
    ("scripts/gate.sh", include_str!("template/scripts/gate.sh")),
    (".github/workflows/syncbench.yml", include_str!("template/.github/workflows/syncbench.yml")),
    ("README.md", include_str!("template/README.md")),
    (".gitignore", include_str!("template/gitignore")),
];

/// syncbench's own lock: the versions it is built and tested with.
const LOCK: &str = include_str!("../../Cargo.lock");
/// syncbench's manifest, for its profiles.
const MANIFEST: &str = include_str!("../../Cargo.toml");
/// The checkout this binary was built from (a path dependency's default).
const CHECKOUT: &str = env!("CARGO_MANIFEST_DIR");

/// Where the new crate's `syncbench` dependency comes from.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Source {
    /// A git repository.
    Git(String),
    /// A checkout on this machine.
    Path(PathBuf),
    /// A version on crates.io.
    Registry(&'static str),
}

/// Whether this binary was built from a package cargo downloaded (`cargo
/// install syncbench`): its source lies in cargo's registry cache.
fn built_from_registry(checkout: &Path) -> bool {
    let parts: Vec<_> = checkout.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.windows(2).any(|w| w[0] == "registry" && w[1] == "src")
}

/// Writes a new crate into `dir`, named `name` (default: the folder's
/// name); `source` defaults to the checkout this binary was built from.
pub(super) fn new_crate(dir: &Path, name: Option<&str>, source: Option<Source>, quiet: bool) -> Result<()> {
    let name =
        match name {
            Some(n) => n.to_string(),
            None => dir.file_name().and_then(|n| n.to_str()).map(str::to_string).ok_or_else(|| {
                bad(format!("{}: cannot take a crate name from this path: give --name", dir.display()))
            })?,
        };
    check_name(&name)?;
    let source = match source {
        Some(Source::Path(p)) => Source::Path(checkout(&p)?),
        Some(s) => s,
        None if built_from_registry(Path::new(CHECKOUT)) => Source::Registry(env!("CARGO_PKG_VERSION")),
        None => Source::Path(checkout(Path::new(CHECKOUT)).map_err(|_| {
            bad(format!(
                "the syncbench checkout this binary was built from ({CHECKOUT}) is gone: give --git URL or --path DIR"
            ))
        })?),
    };
    if let Ok(mut entries) = std::fs::read_dir(dir) {
        if entries.next().is_some() {
            return Err(bad(format!("{}: exists and is not empty: give a new folder", dir.display())));
        }
    } else if dir.exists() {
        return Err(bad(format!("{}: exists and is not a folder", dir.display())));
    }
    for (path, text) in render(&name, &source) {
        let at = dir.join(&path);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&at, text).with_context(|| format!("cannot write {}", at.display()))?;
        if path.ends_with(".sh") {
            executable(&at)?;
        }
    }
    if !quiet {
        eprintln!(
            "wrote {name} into {}: next, in that folder, scripts/gate.sh --baseline (the first build takes minutes), \
             then scripts/gate.sh; README.md says the rest",
            dir.display()
        );
    }
    Ok(())
}

/// Every file of the crate `name`: (path, text).
fn render(name: &str, source: &Source) -> Vec<(String, String)> {
    let snake = name.replace('-', "_");
    let camel: String = name
        .split('-')
        .map(|w| {
            let mut c = w.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
        })
        .collect();
    let rename = |t: &str| t.replace("my-netcode", name).replace("my_netcode", &snake).replace("MyNetcode", &camel);
    let mut out: Vec<(String, String)> = FILES.iter().map(|(p, t)| (p.to_string(), rename(t))).collect();
    out.push(("Cargo.toml".into(), manifest(name, source)));
    out.push(("Cargo.lock".into(), LOCK.to_string()));
    out
}

/// A TOML basic string: JSON's string escapes are all TOML's too.
fn basic_string(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

fn manifest(name: &str, source: &Source) -> String {
    let dep = match source {
        Source::Git(url) => format!("syncbench = {{ git = {} }}", basic_string(url)),
        Source::Path(p) => format!("syncbench = {{ path = {} }}", basic_string(&p.to_string_lossy())),
        Source::Registry(version) => format!("syncbench = \"{version}\""),
    };
    let note = match source {
        Source::Path(_) => "# A path dependency is for this machine; CI needs a version or git: syncbench = \"x.y\"\n",
        _ => "",
    };
    let mut text = format!(
        "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\npublish = false\n\n\
         [dependencies]\n{note}{dep}\n\n\
         # A workspace of its own, wherever the folder lies.\n[workspace]\n\n\
         # syncbench's profiles: `release` as syncbench builds itself (whole-program\n\
         # LTO, for long sweeps), `fast` for the edit loop and the gate; in `dev`\n\
         # (tests) the crates that simulate and judge are optimised a little.\n"
    );
    for table in [
        "[profile.release]",
        "[profile.fast]",
        "[profile.dev.package.syncbench-harness]",
        "[profile.dev.package.syncbench-algorithms]",
    ] {
        text.push_str(&profile_table(table));
        text.push('\n');
    }
    text.pop();
    text
}

/// The lines of `header`'s table in syncbench's manifest, up to the next
/// blank line.
fn profile_table(header: &str) -> String {
    let mut lines = MANIFEST.lines().skip_while(|l| l.trim() != header);
    let mut out = String::new();
    for l in lines.by_ref().take_while(|l| !l.trim().is_empty()) {
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// A name cargo and the catalog both take: lower-case words joined by
/// `-`, none of the [`reserved`] ones.
fn check_name(name: &str) -> Result<()> {
    if let Some(why) = reserved(name) {
        return Err(bad(format!("`{name}`: {why}: pick another name")));
    }
    let words_ok = !name.is_empty()
        && name.len() <= 40
        && name.split('-').all(|w| {
            w.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    if !words_ok {
        return Err(bad(format!(
            "`{}`: expected a crate name of lower-case words joined by `-`, at most 40 characters (e.g. dash-sync)",
            harness::error::echo(name)
        )));
    }
    if crate::catalog::find(name).is_some() {
        return Err(bad(format!("`{name}`: a syncbench algorithm already has this name: pick another")));
    }
    Ok(())
}

/// Rust's keywords, strict and reserved (2018 to 2024 editions): a crate
/// of such a name cannot be written in a `use` (`cargo new` refuses them).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn", "else",
    "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod",
    "move", "mut", "override", "priv", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
    "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Why a crate may not be called `name`, when it may not: a Rust keyword,
/// a crate of Rust's own, a folder cargo builds into, a name Windows
/// reserves, or a crate of syncbench's.
fn reserved(name: &str) -> Option<String> {
    let snake = name.replace('-', "_");
    if KEYWORDS.contains(&name) || KEYWORDS.contains(&snake.as_str()) {
        return Some("a Rust keyword, which cannot name a crate (cargo new refuses it)".into());
    }
    if ["std", "core", "alloc", "test", "proc_macro"].contains(&snake.as_str()) {
        return Some("a crate of Rust's own (cargo new refuses or warns on it)".into());
    }
    if ["deps", "examples", "build", "incremental"].contains(&name) {
        return Some("a folder cargo builds into (cargo new refuses it)".into());
    }
    let windows = ["con", "prn", "aux", "nul"].contains(&name)
        || (name.len() == 4
            && (name.starts_with("com") || name.starts_with("lpt"))
            && name.as_bytes()[3].is_ascii_digit()
            && name.as_bytes()[3] != b'0');
    if windows {
        return Some("a file name Windows reserves (the crate could not be checked out there)".into());
    }
    if ["syncbench", "syncbench-harness", "syncbench-algorithms", "harness", "algorithms"].contains(&name) {
        return Some("a crate of syncbench's own, which the new crate depends on".into());
    }
    None
}

/// `dir` if it holds a syncbench checkout, made absolute.
fn checkout(dir: &Path) -> Result<PathBuf> {
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))
        .with_context(|| format!("{}: no Cargo.toml: expected a syncbench checkout", dir.display()))?;
    if !manifest.lines().any(|l| l.trim() == "name = \"syncbench\"") {
        return Err(bad(format!(
            "{}/Cargo.toml: not syncbench's manifest: expected a syncbench checkout",
            dir.display()
        )));
    }
    std::fs::canonicalize(dir).with_context(|| format!("cannot resolve {}", dir.display()))
}

#[cfg(unix)]
fn executable(path: &Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut p = std::fs::metadata(path)?.permissions();
    p.set_mode(p.mode() | 0o111);
    std::fs::set_permissions(path, p).with_context(|| format!("cannot make {} executable", path.display()))
}

#[cfg(not(unix))]
fn executable(_: &Path) -> Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_binary_depends_on_its_crates_io_version() {
        let cached = Path::new("/home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/syncbench-0.1.0");
        assert!(built_from_registry(cached));
        assert!(!built_from_registry(Path::new("/home/u/src/syncbench")));
        let m = manifest("dash-sync", &Source::Registry("0.1.0"));
        assert!(m.contains("\nsyncbench = \"0.1.0\"\n") && !m.contains("path dependency"), "{m}");
        let m = manifest("dash-sync", &Source::Path(PathBuf::from("/x")));
        assert!(m.contains("syncbench = { path = \"/x\" }") && m.contains("path dependency"), "{m}");
        assert!(m.contains("[profile.release]") && m.contains("[profile.dev.package.syncbench-harness]"));
    }
}
