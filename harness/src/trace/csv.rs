//! Traces from play: a CSV of timestamped inputs, as a game (or a capture
//! tool beside it) logs them, read as a trace.
//!
//! ```text
//! # Two players in a 1v1, logged by my game's input recorder   <- description
//! time_ms,player,keys,aim_x,aim_y
//! 0,0,,0,0
//! 183.4,0,R,0,0
//! 201,1,U+S,12,-40
//! 950,0,RJ,0,0
//! ```
//!
//! - one row per change: from its time on, the player holds what the row
//!   says, until that player's next row;
//! - a time column `time_ms`, `time_s` or `time_us` (decimals allowed); the
//!   recording is shifted so its first row is at 0;
//! - `player`: 0-based;
//! - the buttons either as `keys` (as in trace scripts: letters `UDLRJS`,
//!   run together or joined by `+` or spaces, words `up`…`shoot`, empty or
//!   `.` for none) or as one column per button, `up,down,left,right,jump,
//!   shoot`, each `1/0`, `true/false` or empty;
//! - optional `aim_x`, `aim_y` in −127..=127;
//! - `#` lines are comments, the first one the trace's description;
//! - a file's leading byte-order mark is dropped as it is read, as for
//!   every text input ([`crate::limits::read_text`]).
//!
//! Rows of one player must not go back in time; rows at the same time keep
//! the last. Every player from 0 to the highest one must have a row.

use super::script::{parse_keys, Body, Players, Script};
use super::Track;
use crate::error::{echo, InputError, Source};
use crate::game::Input;

/// The button columns, in the order of [`Input`]'s bits.
const BUTTONS: [(&str, u8); 6] = [
    ("up", Input::UP),
    ("down", Input::DOWN),
    ("left", Input::LEFT),
    ("right", Input::RIGHT),
    ("jump", Input::JUMP),
    ("shoot", Input::SHOOT),
];

/// Most players a recording may hold.
pub const MAX_PLAYERS: usize = 10_000;

/// Reads and parses a CSV recording file.
pub fn load(path: &std::path::Path) -> Result<Script, InputError> {
    let source = Source::File(path.display().to_string());
    let text = crate::limits::read_text(path, crate::limits::MAX_INPUT_FILE, "input recording")?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("recording");
    parse(&text, stem, &source)
}

/// Parses a CSV recording into a script of one section per player.
pub fn parse(text: &str, name: &str, source: &Source) -> Result<Script, InputError> {
    let err = |line: usize, m: String| InputError::at(source, Some(line), m);
    let mut description = String::new();
    let mut header: Option<(usize, Vec<String>)> = None;
    let mut rows: Vec<(u64, usize, Input)> = Vec::new();
    let mut scale_us = 0.0;
    let mut cols = Columns::default();
    let mut last_time: Vec<Option<u64>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let l = raw.trim();
        if l.is_empty() {
            continue;
        }
        if let Some(c) = l.strip_prefix('#') {
            if description.is_empty() && header.is_none() {
                description = c.trim().to_string();
            }
            continue;
        }
        // Spreadsheets may quote fields (`"U+S"`); a quoted comma is not
        // supported (no field needs one).
        let fields: Vec<&str> = l.split(',').map(|f| f.trim().trim_matches('"').trim()).collect();
        let Some((_, names)) = &header else {
            let names: Vec<String> = fields.iter().map(|f| f.to_ascii_lowercase()).collect();
            (cols, scale_us) = Columns::find(&names).map_err(|m| err(line, m))?;
            header = Some((line, names));
            continue;
        };
        if fields.len() != names.len() {
            return Err(err(line, format!("{} fields, expected {} as the header has", fields.len(), names.len())));
        }
        let t: f64 = fields[cols.time]
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0 && *t * scale_us < crate::limits::MAX_DURATION_US as f64)
            .ok_or_else(|| {
                err(line, format!("`{}`: expected a time of at least 0 (at most 4 h)", fields[cols.time]))
            })?;
        let player: usize = fields[cols.player].parse().ok().filter(|p| *p < MAX_PLAYERS).ok_or_else(|| {
            err(line, format!("`{}`: expected a player number 0..{MAX_PLAYERS}", fields[cols.player]))
        })?;
        let mut input = match cols.keys {
            Some(k) => {
                let toks: Vec<&str> = fields[k].split([' ', '+']).filter(|s| !s.is_empty()).collect();
                if toks.is_empty() {
                    Input::IDLE
                } else {
                    parse_keys(&toks).map_err(|m| err(line, m))?
                }
            }
            None => {
                let mut input = Input::IDLE;
                for (col, bit) in &cols.buttons {
                    match fields[*col].to_ascii_lowercase().as_str() {
                        "1" | "true" | "yes" | "x" => input.buttons |= bit,
                        "" | "0" | "false" | "no" => {}
                        other => {
                            return Err(err(
                                line,
                                format!("`{other}` in `{}`: expected 1/0 or true/false", names[*col]),
                            ))
                        }
                    }
                }
                input
            }
        };
        for (col, slot) in [(cols.aim_x, &mut input.aim_x), (cols.aim_y, &mut input.aim_y)] {
            if let Some(c) = col {
                let f = fields[c];
                if !f.is_empty() {
                    *slot =
                        f.parse::<i8>().ok().filter(|v| *v >= -127).ok_or_else(|| {
                            err(line, format!("`{f}` in `{}`: expected an aim in -127..=127", names[c]))
                        })?;
                }
            }
        }
        if rows.len() as u64 >= crate::limits::MAX_TRACE_CHANGES {
            return Err(err(line, format!("more than {} rows", crate::limits::MAX_TRACE_CHANGES)));
        }
        let t_us = (t * scale_us).round() as u64;
        if last_time.len() <= player {
            last_time.resize(player + 1, None);
        }
        if last_time[player].is_some_and(|prev| prev > t_us) {
            return Err(err(
                line,
                format!("player {player} goes back in time: rows of a player must be in time order"),
            ));
        }
        last_time[player] = Some(t_us);
        rows.push((t_us, player, input));
    }
    if header.is_none() {
        return Err(InputError::at(source, None, "no header line: expected e.g. `time_ms,player,keys`"));
    }
    if rows.is_empty() {
        return Err(InputError::at(source, None, "no rows after the header"));
    }
    let start = rows.iter().map(|r| r.0).min().unwrap_or(0);
    let players = rows.iter().map(|r| r.1).max().unwrap_or(0) + 1;
    let mut tracks: Vec<Vec<(u64, Input)>> = vec![Vec::new(); players];
    for (t, p, input) in rows {
        let seg = &mut tracks[p];
        let t = t - start;
        match seg.last_mut() {
            Some(last) if last.0 == t => last.1 = input,
            Some(last) if last.1 == input => {}
            _ => seg.push((t, input)),
        }
    }
    let mut sections = Vec::with_capacity(players);
    for (p, mut segments) in tracks.into_iter().enumerate() {
        if segments.is_empty() {
            return Err(InputError::at(
                source,
                None,
                format!("player {p} has no rows (players are numbered from 0 to {})", players - 1),
            ));
        }
        if segments[0].0 > 0 {
            segments.insert(0, (0, Input::IDLE));
        }
        sections.push((Players::One(p), Body::Segments(Track { segments, repeat_us: None })));
    }
    Ok(Script { name: name.to_string(), description, sections, exact: None, recorded: true, source: source.clone() })
}

/// A recording as trace-script text (`syncbench trace convert`): one
/// section per player, one line per change at its exact microsecond
/// (written in ms), so the script plays exactly what the CSV did.
pub fn to_script_text(script: &Script, note: &str) -> String {
    let mut out = String::new();
    let description = if script.description.is_empty() {
        format!("recorded play: {}", script.name)
    } else {
        script.description.clone()
    };
    out.push_str(&format!("# {}\n", description.replace('\n', " ")));
    for l in note.lines() {
        out.push_str(&format!("# {l}\n"));
    }
    out.push_str("syncbench-trace 1\n");
    if script.recorded {
        out.push_str("recorded\n");
    }
    for (who, body) in &script.sections {
        let (Players::One(p), Body::Segments(track)) = (who, body) else { continue };
        out.push_str(&format!("\nplayer {p}\n"));
        for (t, input) in &track.segments {
            out.push_str(&format!("{} {input}\n", ms_text(*t)));
        }
        if let Some(r) = track.repeat_us {
            out.push_str(&format!("repeat {}\n", ms_text(r)));
        }
    }
    out
}

/// `t_us` as the shortest exact `…ms`.
fn ms_text(t_us: u64) -> String {
    let ms = format!("{}.{:03}", t_us / 1000, t_us % 1000);
    format!("{}ms", ms.trim_end_matches('0').trim_end_matches('.'))
}

/// Where the columns are.
#[derive(Default)]
struct Columns {
    time: usize,
    player: usize,
    keys: Option<usize>,
    buttons: Vec<(usize, u8)>,
    aim_x: Option<usize>,
    aim_y: Option<usize>,
}

impl Columns {
    /// The columns of a header, and the time column's µs per unit.
    fn find(names: &[String]) -> Result<(Columns, f64), String> {
        let at = |n: &str| names.iter().position(|x| x == n);
        if let Some((_, twice)) = names.iter().enumerate().find(|(i, n)| names[..*i].contains(n)) {
            return Err(format!("column `{}` appears twice: which one to read is not clear", echo(twice)));
        }
        let times: Vec<&str> = ["time_ms", "time_s", "time_us"].into_iter().filter(|n| at(n).is_some()).collect();
        if times.len() > 1 {
            return Err(format!("the header has {} time columns ({}): keep one", times.len(), times.join(", ")));
        }
        let (time, scale) = [("time_ms", 1e3), ("time_s", 1e6), ("time_us", 1.0)]
            .iter()
            .find_map(|(n, s)| at(n).map(|i| (i, *s)))
            .ok_or_else(|| {
                format!("header `{}`: expected a time column time_ms, time_s or time_us", echo(&names.join(",")))
            })?;
        let player = at("player").ok_or("the header has no `player` column")?;
        let keys = at("keys");
        let buttons: Vec<(usize, u8)> = BUTTONS.iter().filter_map(|(n, b)| at(n).map(|i| (i, *b))).collect();
        if keys.is_none() && buttons.is_empty() {
            return Err(
                "the header names no buttons: expected a `keys` column or columns up,down,left,right,jump,shoot".into(),
            );
        }
        if keys.is_some() && !buttons.is_empty() {
            return Err("the header has both `keys` and button columns: use one or the other".into());
        }
        let known = ["time_ms", "time_s", "time_us", "player", "keys", "aim_x", "aim_y"];
        if let Some(other) = names.iter().find(|n| !known.contains(&n.as_str()) && !BUTTONS.iter().any(|b| b.0 == *n)) {
            return Err(format!(
                "unknown column `{}`: expected time_ms|time_s|time_us, player, keys or up/down/left/right/jump/shoot, aim_x, aim_y",
                echo(other)
            ));
        }
        Ok((Columns { time, player, keys, buttons, aim_x: at("aim_x"), aim_y: at("aim_y") }, scale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source::File("play.csv".into())
    }

    #[test]
    fn keys_and_button_columns_read_the_same() {
        let a =
            "# a duel\ntime_ms,player,keys,aim_x,aim_y\n1000,0,,0,0\n1200,0,R,0,0\n1250,1,U+S,12,-40\n1900,0,RJ,,\n";
        let b = "time_s,player,up,down,left,right,jump,shoot,aim_x,aim_y\n1.0,0,0,0,0,0,0,0,0,0\n1.2,0,0,0,0,1,0,0,0,0\n1.25,1,1,0,0,0,0,1,12,-40\n1.9,0,0,0,0,1,1,0,,\n";
        let (sa, sb) = (parse(a, "duel", &src()).unwrap(), parse(b, "duel", &src()).unwrap());
        assert_eq!(sa.description, "a duel");
        assert_eq!(sa.sections, sb.sections);
        let t = sa.instantiate(2, 10_000_000, 1).unwrap();
        // Shifted so the first row is at 0; a player idle until its first row.
        assert_eq!(t.input_at(0, 150_000), Input::IDLE);
        assert_eq!(t.input_at(0, 200_000), Input::buttons(Input::RIGHT));
        assert_eq!(t.input_at(0, 950_000).buttons, Input::RIGHT | Input::JUMP);
        assert_eq!(t.input_at(1, 100_000), Input::IDLE);
        let p1 = t.input_at(1, 300_000);
        assert_eq!((p1.buttons, p1.aim_x, p1.aim_y), (Input::UP | Input::SHOOT, 12, -40));
    }

    #[test]
    fn a_converted_recording_plays_the_same_inputs() {
        let text =
            "# a duel\ntime_ms,player,keys,aim_x,aim_y\n1000,0,,0,0\n1200.5,0,R,0,0\n1250,1,U+S,12,-40\n1900,0,RJ,,\n";
        let s = parse(text, "duel", &src()).unwrap();
        let written = to_script_text(&s, "converted by a test");
        let back = Script::parse(&written, "duel", &Source::File("duel.trace".into())).unwrap();
        assert_eq!(back.description, "a duel");
        let (a, b) = (s.instantiate(2, 5_000_000, 1).unwrap(), back.instantiate(2, 5_000_000, 1).unwrap());
        assert_eq!(a.tracks, b.tracks);
    }

    #[test]
    fn a_spreadsheet_export_with_a_bom_and_quotes_reads_the_same() {
        let plain = "time_ms,player,keys\n0,0,R\n100,0,U+S\n";
        let sheet = "\u{feff}\"time_ms\",\"player\",\"keys\"\r\n0,0,\"R\"\r\n100,0,\"U+S\"\r\n";
        // The file's byte-order mark is dropped as it is read (`read_text`).
        let path = std::env::temp_dir().join(format!("syncbench-bom-{}.csv", std::process::id()));
        std::fs::write(&path, sheet).unwrap();
        assert_eq!(parse(plain, "x", &src()).unwrap().sections, load(&path).unwrap().sections);
        // A second one is text, and shows in the message.
        std::fs::write(&path, format!("\u{feff}{sheet}")).unwrap();
        let e = load(&path).unwrap_err();
        assert!(crate::error::escape(&e.message).contains("\\u{feff}\"time_ms"), "{e}");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn bad_rows_name_their_line() {
        let line = |text: &str| parse(text, "x", &src()).unwrap_err();
        let e = line("time_ms,player,keys\n0,0,R\n10,0,Q\n");
        assert_eq!(e.line, Some(3));
        assert!(e.message.contains("expected keys"), "{e}");
        let e = line("time_ms,player,keys\n50,0,R\n10,0,L\n");
        assert!(e.message.contains("back in time") && e.line == Some(3), "{e}");
        assert!(line("time,player,keys\n0,0,R\n").message.contains("time_ms, time_s or time_us"));
        assert!(line("time_ms,player\n0,0\n").message.contains("no buttons"));
        assert!(line("time_ms,player,keys\n0,0\n").message.contains("2 fields, expected 3"));
        assert!(line("time_ms,player,keys\n-5,0,R\n").message.contains("at least 0"));
        assert!(line("time_ms,player,keys,aim_x\n0,0,R,300\n").message.contains("-127..=127"));
        assert!(line("time_ms,player,keys\n0,1,R\n").message.contains("player 0 has no rows"));
        assert!(line("# nothing\n").message.contains("no header"));
        assert!(line("time_ms,player,keys,speed\n").message.contains("unknown column `speed`"));
    }

    #[test]
    fn a_header_says_one_thing_once() {
        let line = |text: &str| parse(text, "x", &src()).unwrap_err();
        let e = line("time_s,time_ms,player,keys\n1,1000,0,R\n");
        assert!(e.message.contains("2 time columns (time_ms, time_s): keep one"), "{e}");
        assert_eq!(e.line, Some(1));
        let e = line("time_ms,player,keys,player\n0,0,R,1\n");
        assert!(e.message.contains("column `player` appears twice"), "{e}");
        // A byte-order mark in the text is text, and shows in the message.
        let e = line("\u{feff}time_ms,player,keys\n0,0,R\n");
        assert!(crate::error::escape(&e.message).contains("\\u{feff}time_ms"), "{e}");
    }

    #[test]
    fn a_recording_says_how_many_players_it_has() {
        let two = parse("time_ms,player,keys\n0,0,R\n0,1,L\n", "duel", &src()).unwrap();
        let e = two.instantiate(4, 1_000_000, 1).unwrap_err();
        assert!(e.message.contains("the recording has 2 players; run it with --clients 2 or fewer"), "{e}");
        assert_eq!(two.players_note(2), None);
        let note = two.players_note(1).unwrap();
        assert!(
            note.contains("the recording has 2 players; a run of 1 plays player 0 and leaves the other 1 out"),
            "{note}"
        );
        let script = Script::parse("player 0\n0ms R\nplayer 1\n0ms L\n", "s", &src()).unwrap();
        assert_eq!(script.players_note(1), None, "a script's extra sections are not a recording's players");
    }
}
