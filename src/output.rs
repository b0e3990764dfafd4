//! Writing output where a path says: a regular file atomically (a
//! temporary file in the same directory, then a rename, so it is either
//! complete or absent), a device, FIFO or `/dev/stdout` written through,
//! `-` standard output — and report sets (report.json, .csv, .md, .html)
//! marked as a set by a manifest written last, so a set cut short or mixed
//! with an older run's files is told apart from a complete one.

use anyhow::{bail, Context};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `text` to what `path` names:
/// - `-`, or a name of this process's standard output or error
///   (`/dev/stdout`, `/dev/fd/2`, `/proc/self/fd/1`): that descriptor;
/// - a regular file, or nothing yet: replaced atomically, parent
///   directories created;
/// - a symlink to a regular file: its target replaced atomically (the
///   link stays a link);
/// - a device, FIFO or socket, or a symlink to one or through `/proc`
///   (another descriptor's `/dev/fd/N`): written through, never replaced;
/// - a directory, or a symlink to nothing: refused.
pub fn write_output(path: &Path, text: &str) -> anyhow::Result<()> {
    // Our own standard output or error, however named: written through the
    // descriptor we hold (reopening it by name fails for a socket, or for
    // a pipe another user created).
    match (path.as_os_str() == "-").then_some(1).or_else(|| descriptor(path)) {
        Some(1) => {
            let mut out = std::io::stdout().lock();
            return out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .context("cannot write to standard output");
        }
        Some(2) => {
            let mut err = std::io::stderr().lock();
            return err.write_all(text.as_bytes()).and_then(|()| err.flush()).context("cannot write to standard error");
        }
        _ => {}
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else { return replace(path, text) };
    if meta.is_dir() {
        bail!("{} is a directory: expected a file to write", path.display());
    }
    if meta.file_type().is_symlink() {
        let Ok(target) = std::fs::metadata(path) else {
            bail!("{} is a symlink to a file that does not exist: write to the target's path", path.display());
        };
        if target.is_dir() {
            bail!("{} is a symlink to a directory: expected a file to write", path.display());
        }
        if target.is_file() && !through_proc(path) {
            let real = std::fs::canonicalize(path).with_context(|| format!("cannot follow {}", path.display()))?;
            return replace(&real, text);
        }
        return write_through(path, text);
    }
    if meta.is_file() {
        replace(path, text)
    } else {
        write_through(path, text)
    }
}

/// Whether the symlinks from `path` pass through `/proc` (a process's
/// open descriptor: `/dev/stdout` → `/proc/self/fd/1`), whose target must
/// be written through the descriptor, not replaced by name.
fn through_proc(path: &Path) -> bool {
    let mut at: PathBuf = path.to_path_buf();
    for _ in 0..40 {
        if at.starts_with("/proc") || at.starts_with("/dev/fd") {
            return true;
        }
        let Ok(next) = std::fs::read_link(&at) else { return false };
        at = match at.parent() {
            Some(dir) if next.is_relative() => dir.join(next),
            _ => next,
        };
    }
    false
}

/// The descriptor of this process `path` names, following symlinks:
/// `/dev/stdout` → `/proc/self/fd/1` → 1; `/dev/fd/N`, `/proc/PID/fd/N`.
fn descriptor(path: &Path) -> Option<u32> {
    let mut at: PathBuf = path.to_path_buf();
    let own = [
        PathBuf::from("/proc/self/fd"),
        PathBuf::from("/dev/fd"),
        PathBuf::from(format!("/proc/{}/fd", std::process::id())),
    ];
    for _ in 0..40 {
        if let Some(n) = own.iter().find_map(|dir| at.strip_prefix(dir).ok()?.to_str()?.parse().ok()) {
            return Some(n);
        }
        let next = std::fs::read_link(&at).ok()?;
        at = match at.parent() {
            Some(dir) if next.is_relative() => dir.join(next),
            _ => next,
        };
    }
    None
}

/// Writes into what `path` opens (a device, FIFO, or a descriptor's file).
fn write_through(path: &Path, text: &str) -> anyhow::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .with_context(|| format!("cannot open {} for writing", path.display()))?;
    f.write_all(text.as_bytes()).and_then(|()| f.flush()).with_context(|| format!("cannot write {}", path.display()))
}

/// Replaces the regular file `path` atomically, creating parent
/// directories.
fn replace(path: &Path, text: &str) -> anyhow::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create directory {}", dir.display()))?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot move {} into place", path.display()))?;
    Ok(())
}

/// The manifest's file name.
pub const MANIFEST: &str = "report.manifest";

/// FNV-1a 64 of `bytes`, as 16 hex digits: a fingerprint, not a MAC.
fn fingerprint(bytes: &[u8]) -> String {
    let mut h = harness::game::Fnv64::new();
    h.write(bytes);
    format!("{:016x}", h.finish())
}

/// Writes a set of files into `dir`: the old manifest goes first, every
/// file atomically, then the manifest naming each file's fingerprint.
/// Temporaries a killed run left behind for these names are removed.
pub fn write_set(dir: &Path, files: &[(&str, String)]) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create directory {}", dir.display()))?;
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let stale = files.iter().map(|(n, _)| *n).chain([MANIFEST]).any(|n| name.starts_with(&format!(".{n}.tmp")));
            if stale {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    match std::fs::remove_file(dir.join(MANIFEST)) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot remove {}", dir.join(MANIFEST).display())),
    }
    let mut manifest = String::from("# syncbench report set: each file's FNV-1a 64 fingerprint. Written last;\n# a file that does not match, or no manifest, means the set is incomplete.\n");
    for (name, text) in files {
        write_output(&dir.join(name), text)?;
        manifest.push_str(&format!("{} {name}\n", fingerprint(text.as_bytes())));
    }
    write_output(&dir.join(MANIFEST), &manifest)
}

/// Whether the set beside `report` (a `report.json`) is complete: `None`
/// if it is (or `report` is not part of a set: no manifest and no sibling
/// files), else what is wrong.
pub fn check_set(report: &Path) -> Option<String> {
    let dir = report.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = report.file_name()?.to_str()?;
    let cap = harness::limits::MAX_REPORT_FILE;
    let Ok(manifest) = harness::limits::read_text(&dir.join(MANIFEST), harness::limits::MAX_INPUT_FILE, "manifest")
    else {
        let siblings = ["report.csv", "report.md", "report.html"].iter().any(|s| dir.join(s).exists());
        return (name == "report.json" && siblings)
            .then(|| format!("{}: no {MANIFEST}: the report set was cut short or predates manifests", dir.display()));
    };
    for line in manifest.lines().filter(|l| !l.starts_with('#')) {
        let Some((want, file)) = line.split_once(' ') else { continue };
        // Names of files beside the manifest only: no paths.
        if file.contains(['/', '\\']) || file.starts_with('.') {
            return Some(format!(
                "{}: {MANIFEST} names `{}`, not a file of the set",
                dir.display(),
                harness::error::echo(file)
            ));
        }
        let got = harness::limits::read_text(&dir.join(file), cap, "report file")
            .map(|t| fingerprint(t.as_bytes()))
            .unwrap_or_default();
        if got != want {
            return Some(format!(
                "{}: {file} does not belong to this report set (another run's, or cut short)",
                dir.display()
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scratch directory for one test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("syncbench-out-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn files_are_replaced_and_links_followed() {
        let dir = scratch("links");
        let file = dir.join("a.txt");
        write_output(&file, "one").unwrap();
        write_output(&file, "two").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "two");
        // A link to it: the target changes, the link stays a link.
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink("a.txt", &link).unwrap();
        write_output(&link, "three").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "three");
        // A link to nothing, and a directory, are refused.
        let dangling = dir.join("dangling.txt");
        std::os::unix::fs::symlink("missing.txt", &dangling).unwrap();
        let e = write_output(&dangling, "x").unwrap_err().to_string();
        assert!(e.contains("does not exist"), "{e}");
        assert!(!dir.join("missing.txt").exists());
        let e = write_output(&dir, "x").unwrap_err().to_string();
        assert!(e.contains("is a directory"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn devices_and_fifos_are_written_through() {
        // /dev/null stays the device (as root a rename would replace it).
        write_output(Path::new("/dev/null"), "discarded").unwrap();
        let null = std::fs::symlink_metadata("/dev/null").unwrap();
        assert!(!null.is_file(), "/dev/null is still a device");
        // A full device is an error, not "wrote".
        if Path::new("/dev/full").exists() {
            let e = format!("{:#}", write_output(Path::new("/dev/full"), "x").unwrap_err());
            assert!(e.contains("/dev/full"), "{e}");
            assert!(!std::fs::symlink_metadata("/dev/full").unwrap().is_file());
        }
        // A FIFO: a reader gets the text and the FIFO stays one.
        let dir = scratch("fifo");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if made.is_ok_and(|s| s.success()) {
            let reader = {
                let fifo = fifo.clone();
                std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
            };
            write_output(&fifo, "through").unwrap();
            assert_eq!(reader.join().unwrap(), "through");
            assert!(!std::fs::symlink_metadata(&fifo).unwrap().is_file());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_set_is_marked_complete_and_a_mix_is_caught() {
        let dir = std::env::temp_dir().join(format!("syncbench-set-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(".report.json.tmp999"), "stale").unwrap();
        write_set(&dir, &[("report.json", "{}".into()), ("report.csv", "a,b".into())]).unwrap();
        assert!(!dir.join(".report.json.tmp999").exists(), "stale temporaries removed");
        assert_eq!(check_set(&dir.join("report.json")), None);
        // A later run killed after writing the csv: the mix shows.
        std::fs::write(dir.join("report.csv"), "c,d").unwrap();
        assert!(check_set(&dir.join("report.json")).unwrap().contains("report.csv does not belong"));
        // Killed before the manifest: none.
        std::fs::remove_file(dir.join(MANIFEST)).unwrap();
        assert!(check_set(&dir.join("report.json")).unwrap().contains("no report.manifest"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
