//! `profile show`, `profile fit` and `profile stream`: what a profile does to probe packets, the netem closest to a recording, and a message stream through a transport.

use super::*;

pub(super) fn profile_show(
    arg: &str,
    packets: u64,
    spacing: &str,
    payload: usize,
    seed: u64,
    format: ListFormat,
) -> Result<()> {
    use harness::net::link_probe::Shown;
    let p = harness::net::derived::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))?;
    let spacing_us = parse_duration(spacing).map_err(|e| bad(format!("--spacing {e}")))?;
    if spacing_us == 0 || packets == 0 || packets > 10_000_000 {
        return Err(bad("--spacing must be positive and --packets in 1..=10000000"));
    }
    let shown = Shown::new(&p, packets, spacing_us, payload, seed);
    if format == ListFormat::Json {
        println!("{}", serde_json::to_string_pretty(&shown.to_json())?);
    } else {
        print!("{}", shown.to_text(&profile_notes(arg)));
    }
    Ok(())
}

/// `profile stream`'s stream: what is sent, for how long, over how many
/// hops.
pub(super) struct Stream<'a> {
    pub(super) rate: u32,
    pub(super) size: usize,
    pub(super) duration: &'a str,
    pub(super) hops: usize,
    pub(super) both: bool,
    pub(super) nagle: bool,
}

/// One transport's messages, pooled over the seeds' runs.
struct Pooled {
    kind: TransportKind,
    /// Every message's latency, µs (`None`: never delivered), both
    /// directions with `--both`.
    latencies: Vec<Option<u64>>,
    segments: u64,
    acks: u64,
    retransmits: u64,
    rtos: u64,
}

pub(super) fn profile_stream(
    arg: &str,
    transports: &str,
    stream: &Stream,
    seeds: &[u64],
    format: StreamFormat,
) -> Result<()> {
    use harness::net::transport::stream_probe::{stream_probe, StreamProbe};
    use harness::net::transport::TcpSettings;
    let p = harness::net::derived::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))?;
    let mut kinds = Vec::new();
    for t in harness::net::transport::split_list(transports).iter().filter(|t| !t.is_empty()) {
        let mut kind = TransportKind::parse(t).map_err(|e| bad(format!("--transport: {e}")))?;
        if stream.nagle {
            match kind {
                TransportKind::TcpLike(_) => kind = TransportKind::TcpLike(TcpSettings { nodelay: false }),
                _ => return Err(bad("--nagle applies to --transport tcp-like only")),
            }
        }
        kinds.push(kind);
    }
    if kinds.is_empty() {
        return Err(bad("--transport: no transport named (expected e.g. tcp-like,kcp,quic)"));
    }
    if format == StreamFormat::Json && (kinds.len() > 1 || seeds.len() > 1) {
        return Err(bad("--format json lists every message of one run: give one --transport and one seed"));
    }
    for kind in &kinds {
        super::warn_unvalidated(kind, &[&p]);
    }
    let duration_us = parse_duration(stream.duration).map_err(|e| bad(format!("--duration {e}")))?;
    let (rate, size, hops, both) = (stream.rate, stream.size, stream.hops, stream.both);
    if format == StreamFormat::Json {
        let probe = StreamProbe { rate_hz: rate, size, duration_us, hops, both, seed: seeds[0] };
        let r = stream_probe(kinds[0], &p, &probe).map_err(bad)?;
        let lat = |v: &[Option<u64>]| v.iter().map(|l| l.map_or(-1, |l| l as i64)).collect::<Vec<i64>>();
        let mut j = serde_json::json!({
            "source": "model",
            "profile": p.name,
            "transport": kinds[0].to_string(),
            "nodelay": !matches!(kinds[0], TransportKind::TcpLike(TcpSettings { nodelay: false })),
            "hops": hops,
            "both": both,
            "duration_s": duration_us as f64 / 1e6,
            "messages": r.latencies_us.len(),
            "latencies_us": lat(&r.latencies_us),
            "counters": {
                "segments": r.segments,
                "acks": r.acks,
                "retransmits": r.retransmits,
                "rtos": r.rtos,
            },
        });
        if both {
            j["back_latencies_us"] = lat(&r.back_latencies_us).into();
        }
        println!("{}", serde_json::to_string(&j)?);
        return Ok(());
    }
    let (mut pooled, mut messages) = (Vec::new(), 0);
    for &kind in &kinds {
        let mut pool = Pooled { kind, latencies: Vec::new(), segments: 0, acks: 0, retransmits: 0, rtos: 0 };
        for &seed in seeds {
            let probe = StreamProbe { rate_hz: rate, size, duration_us, hops, both, seed };
            let r = stream_probe(kind, &p, &probe).map_err(bad)?;
            messages = r.latencies_us.len();
            pool.latencies.extend(r.latencies_us.iter().chain(&r.back_latencies_us));
            pool.segments += r.segments;
            pool.acks += r.acks;
            pool.retransmits += r.retransmits;
            pool.rtos += r.rtos;
        }
        pooled.push(pool);
    }
    let markdown = format == StreamFormat::Md;
    let runs = if seeds.len() == 1 { format!("seed {}", seeds[0]) } else { format!("{} seeds pooled", seeds.len()) };
    let title = format!(
        "`{}`, {hops} hop(s) each way{}: {messages} messages of {size} B at {rate} Hz a run, {runs}",
        p.name,
        if both { ", both directions" } else { "" }
    );
    let title = if both { title.replace(" a run,", " each way a run,") } else { title };
    println!("{}\n", if markdown { format!("**{title}**") } else { title });
    print!("{}", stream_table(&pooled, duration_us as f64 * seeds.len() as f64 / 60e6, markdown));
    Ok(())
}

/// One row per transport: latency percentiles by nearest rank over every
/// message (a lost one ranks last), the share over 200 ms, and what the
/// transport sent per run-minute.
fn stream_table(pooled: &[Pooled], minutes: f64, markdown: bool) -> String {
    let header: Vec<String> = [
        "transport",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "p99.9 ms",
        "max ms",
        "over 200 ms",
        "never delivered",
        "sender datagrams/s",
        "retransmissions/min",
        "timeouts/min",
        "receiver datagrams/s",
    ]
    .map(String::from)
    .to_vec();
    let rows: Vec<Vec<String>> = pooled
        .iter()
        .map(|pool| {
            let mut got: Vec<u64> = pool.latencies.iter().flatten().copied().collect();
            got.sort_unstable();
            let n = pool.latencies.len();
            let q = |f: f64| -> String {
                let rank = ((f * n as f64).ceil() as usize).clamp(1, n.max(1));
                got.get(rank - 1).map_or("lost".into(), |v| format!("{:.1}", *v as f64 / 1000.0))
            };
            let over = pool.latencies.iter().filter(|l| l.is_none_or(|l| l > 200_000)).count();
            vec![
                pool.kind.to_string(),
                q(0.5),
                q(0.9),
                q(0.99),
                q(0.999),
                q(1.0),
                format!("{:.2}%", 100.0 * over as f64 / n.max(1) as f64),
                (n - got.len()).to_string(),
                format!("{:.1}", pool.segments as f64 / (minutes * 60.0)),
                format!("{:.1}", pool.retransmits as f64 / minutes),
                format!("{:.1}", pool.rtos as f64 / minutes),
                format!("{:.1}", pool.acks as f64 / (minutes * 60.0)),
            ]
        })
        .collect();
    harness::report::table::render(&header, &rows, markdown)
}

/// `profile fit`: the netem description closest to each recorded direction.
pub(super) fn profile_fit(arg: &str, packet_hz: u32, out: Option<&std::path::Path>, format: ListFormat) -> Result<()> {
    use harness::net::recorded::fit::ProfileFit;
    if !(1..=1000).contains(&packet_hz) {
        return Err(bad(format!("--packet-hz {packet_hz}: expected 1..=1000 packets per second")));
    }
    let p = harness::net::derived::resolve(arg, &library::dirs("netem-profiles")).map_err(|e| bad(e.to_string()))?;
    let fit = ProfileFit::new(&p, packet_hz).map_err(|e| bad(format!("{arg}: {e}")))?;
    let toml = fitted_toml(&fit);
    if let Some(path) = out {
        crate::output::write_output(path, &toml)?;
    }
    if format == ListFormat::Json {
        println!("{}", serde_json::to_string_pretty(&fit.to_json())?);
        return Ok(());
    }
    print!("{}", fit.to_text());
    if let Some(path) = out {
        println!("(written to {})", path.display());
    }
    Ok(())
}

/// The fitted profile as a file: its description, its provenance (the
/// command and the distances) and both directions.
fn fitted_toml(fit: &harness::net::recorded::fit::ProfileFit<'_>) -> String {
    let (p, fitted, packet_hz) = (fit.profile, &fit.netem, fit.packet_hz);
    let distances: Vec<String> = fit
        .directions
        .iter()
        .map(|(name, f, _)| {
            let loss = if f.recorded.count == 0 {
                "no loss in the recording".to_string()
            } else {
                format!("recorded loss {:.2}% vs fitted {:.2}%", f.recorded.loss * 100.0, f.fitted.loss * 100.0)
            };
            let w1 = f.candidates[0].w1_ms;
            let poor = if f.poor() {
                format!(" (a poor fit: {:.0}% of the recording's spread)", 100.0 * w1 / f.spread_ms)
            } else {
                String::new()
            };
            format!("{name} W1 {w1:.3} ms{poor}, {loss}")
        })
        .collect();
    format!(
        "description = \"{}\"\nsource = \"{}\"\ncorrelation = \"{}\"\nuplink = \"{}\"\ndownlink = \"{}\"\n",
        toml_text(&format!("netem fitted to the recording of {}", p.name)),
        toml_text(&format!(
            "syncbench profile fit {} --packet-hz {packet_hz}: {}. Netem draws each delay afresh and reorders; the recording is time-correlated and in order.",
            p.name,
            distances.join("; ")
        )),
        p.correlation.name(),
        fitted[0],
        fitted[1]
    )
}

/// `profile import`: a recording of the user's own link as a profile that
/// replays it (NAME.toml, and NAME.csv beside it). Every check comes
/// before anything is written: the targets, the recording, the CSV's size
/// and that the pair loads as a profile (from a folder of its own beside
/// `--out`, then moved into place); on an error nothing is left behind.
pub(super) fn profile_import(file: &std::path::Path, out: &std::path::Path, description: Option<&str>) -> Result<()> {
    use harness::error::Source;
    use harness::net::recorded::import::import;
    if out.extension().is_none_or(|e| e != "toml") {
        return Err(bad(format!("--out {}: expected a path ending in .toml", out.display())));
    }
    let csv_path = out.with_extension("csv");
    check_import_target(out, "--out")?;
    check_import_target(&csv_path, "its recording")?;
    let same = |a: &std::path::Path, b: &std::path::Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(file, &csv_path) || same(file, out) {
        return Err(bad(format!(
            "--out {}: would write over {}, the file being imported: choose another name",
            out.display(),
            file.display()
        )));
    }
    let replaces_csv = replaces_csv(out, &csv_path)?;
    let text = harness::limits::read_text(file, harness::limits::MAX_INPUT_FILE, "recording")
        .map_err(|e| bad(e.to_string()))?;
    let source = Source::File(file.display().to_string());
    let rec = import(&text, &source).map_err(|e| bad(e.to_string()))?;
    let csv_name = csv_path.file_name().and_then(|n| n.to_str()).unwrap_or("recording.csv");
    let shown = file.display().to_string();
    let header = vec![
        format!("{IMPORTED} {shown}` from {} output.", rec.tool.name()),
        format!("{} probes, {} lost; times relative to the first probe.", rec.len(), rec.lost()),
    ];
    let csv = rec.to_csv(&header);
    // A profile reads its recording up to the input limit: a CSV past it
    // would be written and then not load.
    let cap = harness::limits::MAX_INPUT_FILE;
    if csv.len() as u64 > cap {
        return Err(bad(format!(
            "{shown}: {} probes make a {:.1} MB CSV, over the {} MB a profile's recording may hold: import a shorter recording (split the file)",
            rec.len(),
            csv.len() as f64 / (1 << 20) as f64,
            cap >> 20
        )));
    }
    // Check what is to be written reads back as a recording.
    let gaps = harness::net::recorded::Gaps::Unsent;
    let back = harness::net::recorded::timed_csv(&csv, &Source::File(format!("{shown} (as imported)")), gaps)
        .map_err(|e| bad(format!("the imported recording does not read back: {e}")))?;
    let span_s = back.up.period_us() as f64 / 1e6;
    let what = match rec.samples {
        harness::net::recorded::import::Samples::Rtt(_) => "round trips, half each way",
        harness::net::recorded::import::Samples::OneWay(_) => "one-way delays each way",
    };
    let desc = description
        .map(str::to_string)
        .unwrap_or_else(|| format!("recorded link: {span_s:.1} s of {} from {shown}", rec.tool.name()));
    let toml = format!(
        "description = \"{}\"\nsource = \"{}\"\n\n[replay]\nsamples = \"{}\"\ngaps = \"unsent\"   # every probe sent is a row\n",
        toml_text(&desc),
        toml_text(&format!(
            "{} recording {shown}: {} probes over {span_s:.1} s, {} lost; {what}.{}",
            rec.tool.name(),
            rec.len(),
            rec.lost(),
            rec.note.as_ref().map_or(String::new(), |n| format!(" Note: {n}."))
        )),
        toml_text(csv_name)
    );
    write_import(out, &csv_path, &toml, &csv)?;
    println!("imported {} probes ({} lost) from {} output: {what}", rec.len(), rec.lost(), rec.tool.name());
    if let Some(n) = &rec.note {
        println!("note: {n}");
    }
    let replaced = if replaces_csv { " (replacing the recording an earlier import wrote there)" } else { "" };
    println!("wrote {} and {}{replaced}", out.display(), csv_path.display());
    let name = out.file_stem().and_then(|s| s.to_str()).unwrap_or("profile");
    println!("next: syncbench profile show {}   # its delays, and the file's", out.display());
    println!("      syncbench profile fit {}    # the netem closest to it", out.display());
    let by = if out.parent().is_some_and(|p| p.ends_with("netem-profiles")) {
        name.to_string()
    } else {
        out.display().to_string()
    };
    println!("      syncbench compare --profile {by}");
    Ok(())
}

/// Whether `profile import` replaces the recording at `csv_path` (beside
/// `out`): a NAME.csv an earlier import wrote is replaced (and said);
/// anything else there is refused, never replaced.
fn replaces_csv(out: &std::path::Path, csv_path: &std::path::Path) -> Result<bool> {
    let begins = |p: &std::path::Path| -> Option<Vec<u8>> {
        use std::io::Read;
        let mut start = Vec::new();
        std::fs::File::open(p).ok()?.take(64).read_to_end(&mut start).ok()?;
        Some(start)
    };
    match begins(csv_path) {
        None => Ok(false),
        Some(old) if old.starts_with(format!("# {IMPORTED}").as_bytes()) => Ok(true),
        Some(_) => Err(bad(format!(
            "--out {}: {} exists and is not a recording `profile import` wrote; it would be replaced: move it, or choose another --out name",
            out.display(),
            csv_path.display()
        ))),
    }
}

/// How an imported recording's CSV begins (after `# `): an earlier
/// import's is replaced by a new one of the same name.
const IMPORTED: &str = "Imported by `syncbench profile import";

/// Refuses a path `profile import` cannot write a file at: a folder, a
/// symlink (the pair must lie side by side), a device, FIFO or socket.
fn check_import_target(path: &std::path::Path, what: &str) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return Ok(()) };
    let kind = if meta.is_dir() {
        "a folder"
    } else if meta.file_type().is_symlink() {
        if std::fs::metadata(path).is_err() {
            "a symlink to nothing"
        } else {
            "a symlink"
        }
    } else if !meta.is_file() {
        "a device, FIFO or socket"
    } else {
        return Ok(());
    };
    Err(bad(format!(
        "{what} {}: {kind} is there: expected a regular file or nothing (a profile and its recording are written as files side by side)",
        path.display()
    )))
}

/// Writes the profile `out` and its recording `csv_path`: both into a
/// folder of their own beside `out`, loaded from there as a profile, then
/// moved into place (the recording first). On an error the folder is
/// removed and nothing is left.
fn write_import(out: &std::path::Path, csv_path: &std::path::Path, toml: &str, csv: &str) -> Result<()> {
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    // Folders --out names that do not exist yet are made, and removed again
    // on an error.
    let mut made = Vec::new();
    let mut at = dir;
    while !at.as_os_str().is_empty() && !at.exists() {
        made.push(at.to_path_buf());
        at = at.parent().unwrap_or(std::path::Path::new(""));
    }
    let undo_dirs = |made: &[std::path::PathBuf]| {
        for d in made {
            let _ = std::fs::remove_dir(d);
        }
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| bad(format!("--out {}: cannot make {}: {e}", out.display(), dir.display())))?;
    let stage = dir.join(format!(".syncbench-import-{}", std::process::id()));
    let result = (|| -> Result<()> {
        std::fs::create_dir(&stage).map_err(|e| bad(format!("cannot make {}: {e}", stage.display())))?;
        let name = |p: &std::path::Path| p.file_name().map(std::path::PathBuf::from).unwrap_or_default();
        let (staged_toml, staged_csv) = (stage.join(name(out)), stage.join(name(csv_path)));
        std::fs::write(&staged_csv, csv).map_err(|e| bad(format!("cannot write {}: {e}", staged_csv.display())))?;
        std::fs::write(&staged_toml, toml).map_err(|e| bad(format!("cannot write {}: {e}", staged_toml.display())))?;
        // What is written must load as the profile it is.
        harness::net::Profile::load(&staged_toml).map_err(|e| bad(format!("the profile would not load: {e}")))?;
        std::fs::rename(&staged_csv, csv_path)
            .map_err(|e| bad(format!("cannot move {} into place: {e}", csv_path.display())))?;
        std::fs::rename(&staged_toml, out).map_err(|e| {
            let _ = std::fs::remove_file(csv_path);
            bad(format!("cannot move {} into place: {e}", out.display()))
        })
    })();
    let _ = std::fs::remove_dir_all(&stage);
    if result.is_err() {
        undo_dirs(&made);
    }
    result
}

/// `text` as the inside of a TOML basic string: backslash, quote and
/// control characters escaped, so any description reads back as written.
fn toml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn toml_text_reads_back_as_written() {
        for text in ["plain", "a \"quoted\" \\ path", "two\nlines\tand\u{1}bell\u{7f}", "ünï"] {
            let doc = format!("k = \"{}\"", super::toml_text(text));
            let table: toml::Table = doc.parse().unwrap_or_else(|e| panic!("{doc}: {e}"));
            assert_eq!(table["k"].as_str(), Some(text), "{doc}");
        }
    }
}
