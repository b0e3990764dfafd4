//! `trace` subcommands: `convert` (a CSV recording of play as a script),
//! `import doom` (a Doom demo lump as a recorded script) and `stats` (how
//! the players of a trace play).

use super::*;

/// `trace convert`: a CSV recording of play as a trace script.
pub(super) fn trace_convert(file: &std::path::Path, out: Option<&std::path::Path>) -> Result<()> {
    let script = harness::trace::csv::load(file).map_err(|e| bad(e.to_string()))?;
    let changes = script.change_count();
    let note = format!(
        "converted from {} by `syncbench trace convert`: {} players, {changes} input changes",
        file.file_name().and_then(|n| n.to_str()).unwrap_or("a recording"),
        script.sections.len()
    );
    let text = harness::trace::csv::to_script_text(&script, &note);
    match out {
        Some(path) => {
            write_output(path, &text)?;
            if path.as_os_str() != "-" {
                eprintln!("wrote {} ({note})", path.display());
            }
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// `trace import doom`: a Doom v1.9 demo lump as a recorded trace script.
pub(super) fn trace_import_doom(
    file: &std::path::Path,
    out: Option<&std::path::Path>,
    threshold: f64,
    description: Option<&str>,
    notes: &[String],
) -> Result<()> {
    use harness::trace::doom::{Conversion, Demo};
    if !(threshold.is_finite() && (0.0..=200.0).contains(&threshold)) {
        return Err(bad(format!("--threshold {threshold}: expected 0 to 200 (Doom units per tic)")));
    }
    let source = harness::error::Source::File(file.display().to_string());
    let bytes = harness::limits::read_bytes(file, harness::limits::MAX_INPUT_FILE, "demo lump")
        .map_err(|e| bad(e.to_string()))?;
    let demo = Demo::parse(&bytes, &source).map_err(|e| bad(e.to_string()))?;
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("demo");
    let mut script = demo.to_script(stem, &source, Conversion { move_threshold: threshold });
    if let Some(d) = description {
        script.description = d.to_string();
    }
    let changes = script.change_count();
    let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("a demo");
    let mut note: Vec<String> = notes.iter().map(|n| n.replace('\n', " ")).collect();
    note.push(format!(
        "converted from {name} by `syncbench trace import doom --threshold {threshold}`: {}; {changes} input changes",
        demo.summary()
    ));
    let slots: Vec<String> = demo.slots.iter().map(|s| (s + 1).to_string()).collect();
    note.push(format!(
        "players 0..{} are the demo's slots {} in order; the facing starts east and follows each player's turns only (a respawn or teleport is not in a demo)",
        demo.slots.len() - 1,
        slots.join(", ")
    ));
    if demo.trailing > 0 {
        note.push(format!("{} bytes after the end marker ignored", demo.trailing));
    }
    let text = harness::trace::csv::to_script_text(&script, &note.join("\n"));
    match out {
        Some(path) => {
            write_output(path, &text)?;
            if path.as_os_str() != "-" {
                eprintln!("wrote {} ({})", path.display(), demo.summary());
            }
        }
        None => print!("{text}"),
    }
    Ok(())
}

/// One trace's statistics, measured.
struct Measured {
    name: String,
    window_us: u64,
    players: Vec<harness::trace::stats::PlayerStats>,
    all: harness::trace::stats::PlayerStats,
}

/// `trace stats`: how each player of a trace plays.
pub(super) fn trace_stats(
    args: &[String],
    players: usize,
    duration: Option<&str>,
    seed: u64,
    fit: bool,
    format: crate::cli::StatsFormat,
) -> Result<()> {
    use crate::cli::StatsFormat;
    use harness::trace::human::Human;
    use harness::trace::stats;
    if players == 0 || players > harness::trace::csv::MAX_PLAYERS {
        return Err(bad(format!("--players {players}: expected 1 to {}", harness::trace::csv::MAX_PLAYERS)));
    }
    let duration_us = match duration {
        Some(d) => parse_duration(d)
            .ok()
            .filter(|&us| us > 0 && us <= harness::limits::MAX_DURATION_US)
            .ok_or_else(|| bad(format!("--duration {d}: expected a duration above 0, at most 4h, such as 10m")))?,
        None => 600_000_000,
    };
    let mut measured = Vec::new();
    for arg in &harness::trace::rejoin_specs(args) {
        let spec = resolve_trace(arg)?;
        // A recording is measured with its own players over its own length.
        let recorded = spec.recorded_players();
        let trace = spec.instantiate(recorded.unwrap_or(players), duration_us, seed).map_err(|e| bad(e.to_string()))?;
        let window_us = match (recorded, duration) {
            (Some(_), None) => stats::recorded_window_us(&trace),
            _ => duration_us,
        };
        stats::check_window(&trace, window_us).map_err(|e| bad(format!("trace stats {arg}: {e}")))?;
        let per = stats::of_trace(&trace, window_us);
        let all = stats::pooled(&per).ok_or_else(|| bad(format!("trace stats {arg}: the trace has no players")))?;
        measured.push(Measured { name: spec.name(), window_us, players: per, all });
    }
    let fitted = |m: &Measured| fit.then(|| Human::calibrate(&m.all).to_string());
    if format == StatsFormat::Json {
        let row = |s: &stats::PlayerStats| {
            let mut m = serde_json::Map::new();
            m.insert("seconds".into(), harness::metrics::stats::round4(s.seconds).into());
            for (name, f) in stats::COLUMNS {
                m.insert(name.into(), harness::metrics::stats::round4(f(s) + 0.0).into());
            }
            serde_json::Value::Object(m)
        };
        let v: Vec<serde_json::Value> = measured
            .iter()
            .map(|m| {
                serde_json::json!({
                    "trace": m.name, "window_s": m.window_us as f64 / 1e6,
                    "players": m.players.iter().map(row).collect::<Vec<_>>(), "all": row(&m.all),
                    "fit": fitted(m),
                })
            })
            .collect();
        let v = if v.len() == 1 { v.into_iter().next().expect("one") } else { serde_json::Value::Array(v) };
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    let cells = |first: Vec<String>, s: &stats::PlayerStats| {
        let mut r = first;
        r.extend(stats::COLUMNS.iter().map(|(_, f)| format!("{:.1}", f(s) + 0.0)));
        r
    };
    let markdown = format == StatsFormat::Md;
    let (header, rows): (Vec<String>, Vec<Vec<String>>) = if let [m] = &measured[..] {
        println!("{}: {} players over {:.1} s", m.name, m.players.len(), m.window_us as f64 / 1e6);
        let mut rows: Vec<Vec<String>> =
            m.players.iter().enumerate().map(|(p, s)| cells(vec![p.to_string()], s)).collect();
        if m.players.len() > 1 {
            rows.push(cells(vec!["all".into()], &m.all));
        }
        (["player"].into_iter().chain(stats::COLUMNS.iter().map(|c| c.0)).map(String::from).collect(), rows)
    } else {
        let rows = measured
            .iter()
            .map(|m| {
                cells(vec![m.name.clone(), format!("{} × {:.0} s", m.players.len(), m.window_us as f64 / 1e6)], &m.all)
            })
            .collect();
        (
            ["trace", "players × s"].into_iter().chain(stats::COLUMNS.iter().map(|c| c.0)).map(String::from).collect(),
            rows,
        )
    };
    if markdown {
        println!();
    }
    print!("{}", harness::report::table::render(&header, &rows, markdown));
    for m in &measured {
        if let Some(h) = fitted(m) {
            println!("\ncalibrated to {}: human:{h}", m.name);
        }
    }
    Ok(())
}
