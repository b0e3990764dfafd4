//! A run's distributions as an HdrHistogram interval log (`--hlog DIR`):
//! the format of Java's `HistogramLogWriter`, which HistogramLogAnalyzer,
//! `HistogramLogProcessor` and the HdrHistogram libraries in Go, Python,
//! C and Rust read. One tagged interval per distribution, spanning the
//! whole run in simulated seconds from 0, each a V2 compressed histogram;
//! the header names the run, the units and the report field each tag
//! summarises. Nothing in it reads a clock: the same run writes the same
//! bytes.

use super::RunReport;
use crate::metrics::distributions::{RunDistributions, Unit};
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The interval log of `run`'s `distributions`.
pub fn log_of(run: &RunReport, distributions: &RunDistributions) -> Vec<u8> {
    let mut head = String::new();
    let _ = writeln!(head, "#[Logged with syncbench {}]", env!("CARGO_PKG_VERSION"));
    let _ = writeln!(head, "#[Histogram log format version 1.3]");
    let _ = writeln!(
        head,
        "#[Run: {} on {}, trace {}, seed {}, {} clients, {} s simulated]",
        run.label().replace('\n', " "),
        run.profile.replace('\n', " "),
        run.trace.replace('\n', " "),
        run.seed,
        run.clients,
        run.duration_s
    );
    let _ = writeln!(head, "#[Times: simulated seconds from the run's start; one interval per tag, the whole run]");
    for unit in [Unit::Micros, Unit::Micrometres] {
        let mut tags: Vec<String> =
            distributions.named.iter().filter(|n| n.unit == unit).map(|n| n.tag.clone()).collect();
        if unit == Unit::Micros {
            tags.extend((0..distributions.per_client.len()).map(client_tag));
        }
        if !tags.is_empty() {
            let _ = writeln!(head, "#[Units: {} ({}): {}]", unit.symbol(), unit_name(unit), tags.join(" "));
        }
    }
    for n in &distributions.named {
        let _ = writeln!(
            head,
            "#[Tag {}: the report's {} ({} there)]",
            n.tag,
            n.field,
            if n.unit == Unit::Micros { "ms" } else { "m" }
        );
    }
    for p in 0..distributions.per_client.len() {
        let _ =
            writeln!(head, "#[Tag {}: the report's per_client[{p}].own_input_latency_ms (ms there)]", client_tag(p));
    }
    head.push_str("#[StartTime: 0.000 (seconds since epoch)]\n");
    head.push_str("#[BaseTime: 0.000 (seconds since epoch)]\n");
    head.push_str("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n");
    let mut out = head.into_bytes();
    let mut serializer = V2DeflateSerializer::new();
    let length = Duration::from_micros((run.duration_s * 1e6).round() as u64);
    let mut log = IntervalLogWriterBuilder::new()
        .begin_log_with(&mut out, &mut serializer)
        .expect("writing to memory does not fail");
    for n in &distributions.named {
        // Tags are made of names without spaces or commas.
        let tag = Tag::new(&n.tag).expect("a distribution's tag has no space or comma");
        log.write_histogram(&n.values.canonical(), Duration::ZERO, length, Some(tag))
            .expect("a histogram encodes into memory");
    }
    for (p, values) in distributions.per_client.iter().enumerate() {
        let tag = client_tag(p);
        let tag = Tag::new(&tag).expect("a client's tag has no space or comma");
        log.write_histogram(&values.canonical(), Duration::ZERO, length, Some(tag))
            .expect("a histogram encodes into memory");
    }
    out
}

/// The tag of client `p`'s own input latency.
fn client_tag(p: usize) -> String {
    format!("latency-own.client-{p}")
}

fn unit_name(unit: Unit) -> &'static str {
    match unit {
        Unit::Micros => "microseconds",
        Unit::Micrometres => "micrometres",
    }
}

/// The file a run's log is written to in the `--hlog` folder: its place
/// `index` in the command's runs, algorithm, variant, profile, trace and
/// seed, in characters every file system takes.
pub fn file_name(run: &RunReport, index: usize) -> String {
    let clean = |s: &str| -> String {
        let kept: String =
            s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
        kept.chars().take(40).collect()
    };
    let mut parts = vec![format!("{index:04}"), clean(&run.algorithm)];
    if !run.variant.is_empty() {
        parts.push(clean(&run.variant));
    }
    parts.extend([clean(&run.profile), clean(&run.trace), format!("seed{}", run.seed)]);
    parts.join("-") + ".hlog"
}

/// Makes the `--hlog` folder (before any run, so a folder that cannot be
/// made costs no run); the error names it and what is in its way: `-`
/// (not standard output: a folder of logs), a file, or a symlink to
/// nothing or to a file.
pub fn prepare(dir: &Path) -> Result<(), String> {
    let shown = dir.display();
    if dir.as_os_str() == "-" {
        return Err("--hlog -: expected a folder for the interval logs (one file per run), not standard output".into());
    }
    if let Ok(meta) = std::fs::symlink_metadata(dir) {
        if meta.file_type().is_symlink() {
            match std::fs::metadata(dir) {
                Err(_) => {
                    return Err(format!(
                        "--hlog {shown}: a symlink to nothing: expected a folder (or a symlink to one) for the interval logs"
                    ))
                }
                Ok(m) if !m.is_dir() => {
                    return Err(format!(
                        "--hlog {shown}: a symlink to a file: expected a folder (or a symlink to one) for the interval logs"
                    ))
                }
                Ok(_) => {}
            }
        } else if !meta.is_dir() {
            return Err(format!("--hlog {shown}: a file is there: expected a folder for the interval logs"));
        }
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("{shown}: cannot make the --hlog folder: {e}"))
}

/// Writes `run`'s log into `dir` (made by [`prepare`]) as run `index` of
/// its command, and returns its path; the error names the path. A run
/// without distributions (one read from a report) writes nothing.
pub fn write(dir: &Path, run: &RunReport, index: usize) -> Result<Option<PathBuf>, String> {
    let Some(d) = &run.distributions else { return Ok(None) };
    write_log(dir, run, index, &log_of(run, d)).map(Some)
}

/// Writes `log`, `run`'s log made elsewhere (by [`log_of`] in a child
/// process), as [`write()`] would.
pub fn write_log(dir: &Path, run: &RunReport, index: usize, log: &[u8]) -> Result<PathBuf, String> {
    let path = dir.join(file_name(run, index));
    std::fs::write(&path, log).map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
    Ok(path)
}
