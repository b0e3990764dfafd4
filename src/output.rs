//! Writing output files atomically: a temporary file in the same
//! directory, then a rename, so a file is either complete or absent — and
//! report sets (report.json, .csv, .md, .html) marked as a set by a
//! manifest written last, so a set cut short or mixed with an older run's
//! files is told apart from a complete one.

use anyhow::Context;
use std::path::Path;

/// Writes `text` to `path` atomically, creating parent directories.
pub fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
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
        write_atomic(&dir.join(name), text)?;
        manifest.push_str(&format!("{} {name}\n", fingerprint(text.as_bytes())));
    }
    write_atomic(&dir.join(MANIFEST), &manifest)
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
