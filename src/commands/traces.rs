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

/// Which 90% band `trace stats` places each player in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BandCheck {
    /// The `human` generator's population (`--band`).
    Population,
    /// For each trace, the population fitted to the others
    /// (`--leave-one-out`).
    LeaveOneOut,
}

/// `trace stats`: how each player of a trace plays.
pub(super) fn trace_stats(
    args: &[String],
    players: usize,
    duration: Option<&str>,
    seed: u64,
    fit: bool,
    check: Option<BandCheck>,
    format: crate::cli::StatsFormat,
) -> Result<()> {
    use crate::cli::StatsFormat;
    use harness::trace::human::Human;
    use harness::trace::population::Population;
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
    match check {
        Some(BandCheck::Population) => return print_band(&measured, seed, format),
        Some(BandCheck::LeaveOneOut) => return print_leave_one_out(&measured, seed, format),
        None => {}
    }
    let fitted = |m: &Measured| fit.then(|| Human::calibrate(&m.all).to_string());
    // With several players, the population of their parameters.
    let every: Vec<stats::PlayerStats> = measured.iter().flat_map(|m| m.players.iter().cloned()).collect();
    let population = if fit { Population::fit(&every) } else { None };
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
        let v = match population {
            Some(p) if measured.len() > 1 => serde_json::json!({ "traces": v, "population": population_json(&p) }),
            Some(p) => {
                let mut v = v;
                v["population"] = population_json(&p);
                v
            }
            None => v,
        };
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
    if let Some(p) = population {
        let names: Vec<&str> = measured.iter().map(|m| m.name.as_str()).collect();
        println!(
            "\npopulation of the {} players of {}: typical player, spread σ (in the log or logit domain), \
             5th–95th percentile of players",
            every.len(),
            names.join(", ")
        );
        if markdown {
            println!();
        }
        print!("{}", p.table(markdown));
        println!("typical player: human:{}", p.typical);
    }
    Ok(())
}

/// A population as JSON: per parameter its typical value, σ and the
/// 5th–95th percentile of players.
fn population_json(p: &harness::trace::population::Population) -> serde_json::Value {
    let rows = p.rows();
    let mut m = serde_json::Map::new();
    for r in rows {
        m.insert(
            r.key.into(),
            serde_json::json!({ "typical": r.typical, "sigma": r.sigma, "domain": r.domain, "p5": r.lo, "p95": r.hi }),
        );
    }
    serde_json::Value::Object(m)
}

/// How many simulated players a band is measured over, and for how long.
const BAND_PLAYERS: usize = harness::trace::population::BAND_PLAYERS;

/// `trace stats --band`: every player against the `human` population.
fn print_band(measured: &[Measured], seed: u64, format: crate::cli::StatsFormat) -> Result<()> {
    use harness::trace::population::{Population, BAND_WINDOW_US};
    use harness::trace::stats::COLUMNS;
    let band = Population::default().band(BAND_PLAYERS, BAND_WINDOW_US, seed);
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut first = vec!["human 5–95%".to_string(), String::new()];
    first.extend((0..COLUMNS.len()).map(|c| format!("{:.1}–{:.1}", band.lo[c], band.hi[c])));
    first.push(String::new());
    rows.push(first);
    let (mut inside, mut total) = (0, 0);
    let mut json = Vec::new();
    for m in measured {
        for (p, s) in m.players.iter().enumerate() {
            let place = band.place(s);
            let mut r = vec![m.name.clone(), p.to_string()];
            r.extend(COLUMNS.iter().zip(place).map(|((_, f), at)| format!("{:.1}{}", f(s) + 0.0, mark(at))));
            let n = place.iter().filter(|&&a| a == 0).count();
            r.push(format!("{n}/{}", place.len()));
            (inside, total) = (inside + n, total + place.len());
            rows.push(r);
            json.push(serde_json::json!({
                "trace": m.name, "player": p,
                "outside": COLUMNS.iter().zip(place).filter(|(_, a)| *a != 0)
                    .map(|((name, _), a)| serde_json::json!({ "statistic": name, "side": if a < 0 { "below" } else { "above" } }))
                    .collect::<Vec<_>>(),
            }));
        }
    }
    if format == crate::cli::StatsFormat::Json {
        let b: serde_json::Map<String, serde_json::Value> = COLUMNS
            .iter()
            .enumerate()
            .map(|(c, (name, _))| ((*name).into(), serde_json::json!([band.lo[c], band.mid[c], band.hi[c]])))
            .collect();
        println!("{}", serde_json::to_string_pretty(&serde_json::json!({ "band": b, "players": json }))?);
        return Ok(());
    }
    print_players(["trace", "player"], &rows, format == crate::cli::StatsFormat::Md);
    println!(
        "\n{inside} of {total} player statistics inside the `human` population's 90% band \
         (5th–95th percentile of {BAND_PLAYERS} simulated players over {} s); ↑ above it, ↓ below",
        BAND_WINDOW_US / 1_000_000
    );
    Ok(())
}

/// A statistic's place against a band: nothing inside, an arrow outside.
fn mark(at: i8) -> &'static str {
    match at {
        a if a < 0 => " ↓",
        a if a > 0 => " ↑",
        _ => "",
    }
}

/// `trace stats --leave-one-out`: each trace against the population
/// fitted to the others.
fn print_leave_one_out(measured: &[Measured], seed: u64, format: crate::cli::StatsFormat) -> Result<()> {
    use harness::trace::population::{Population, BAND_WINDOW_US};
    use harness::trace::stats::COLUMNS;
    if measured.len() < 3 {
        return Err(bad("trace stats --leave-one-out: expected three traces or more (each left out in turn)"));
    }
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut abs_err = [0.0; COLUMNS.len()];
    let (mut inside, mut total) = (0, 0);
    let mut json = Vec::new();
    for (k, m) in measured.iter().enumerate() {
        let others: Vec<_> =
            measured.iter().enumerate().filter(|(j, _)| *j != k).flat_map(|(_, o)| o.players.iter().cloned()).collect();
        let pop = Population::fit(&others).ok_or_else(|| bad("trace stats --leave-one-out: too few players to fit"))?;
        let band = pop.band(BAND_PLAYERS, BAND_WINDOW_US, seed);
        let places: Vec<_> = m.players.iter().map(|s| band.place(s)).collect();
        let mut r = vec![m.name.clone(), m.players.len().to_string()];
        let mut errors = Vec::new();
        for (c, (_, f)) in COLUMNS.iter().enumerate() {
            // The recording's pooled value against the population's median.
            let err = if band.mid[c] != 0.0 { (f(&m.all) - band.mid[c]) / band.mid[c] * 100.0 } else { 0.0 };
            abs_err[c] += err.abs() / measured.len() as f64;
            let out = places.iter().filter(|p| p[c] != 0).count();
            r.push(if out > 0 { format!("{err:+.0}% ({out} out)") } else { format!("{err:+.0}%") });
            errors.push(err);
        }
        let n: usize = places.iter().map(|p| p.iter().filter(|&&a| a == 0).count()).sum();
        let of = places.len() * COLUMNS.len();
        r.push(format!("{n}/{of}"));
        (inside, total) = (inside + n, total + of);
        rows.push(r);
        json.push(serde_json::json!({
            "trace": m.name, "players": m.players.len(), "inside": n, "of": of,
            "error_pct": COLUMNS.iter().zip(&errors).map(|((name, _), e)| ((*name).to_string(), serde_json::json!(harness::metrics::stats::round4(*e)))).collect::<serde_json::Map<_, _>>(),
        }));
    }
    if format == crate::cli::StatsFormat::Json {
        println!("{}", serde_json::to_string_pretty(&json)?);
        return Ok(());
    }
    let mut last = vec!["mean |error|".to_string(), String::new()];
    last.extend(abs_err.iter().map(|e| format!("{e:.0}%")));
    last.push(format!("{inside}/{total}"));
    rows.push(last);
    print_players(["left out", "players"], &rows, format == crate::cli::StatsFormat::Md);
    println!(
        "\nerror: the recording's value (players pooled) against the median of {BAND_PLAYERS} players over {} s drawn \
         from the population fitted to the other traces; (n out): its players outside that population's 90% band",
        BAND_WINDOW_US / 1_000_000
    );
    Ok(())
}

/// A table of players' statistics against the population: `first` names
/// its two leading columns, then a column per statistic and `inside`.
fn print_players(first: [&str; 2], rows: &[Vec<String>], markdown: bool) {
    let header: Vec<String> = first
        .into_iter()
        .chain(harness::trace::stats::COLUMNS.iter().map(|c| c.0))
        .chain(["inside"])
        .map(String::from)
        .collect();
    if markdown {
        println!();
    }
    print!("{}", harness::report::table::render(&header, rows, markdown));
}
