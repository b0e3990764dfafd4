//! The trace text format.
//!
//! ```text
//! # Two players dodge around the pillar.     <- first comment: description
//! syncbench-trace 1                          <- optional version line
//! player 0                                   <- a player's section (0-based)
//! 0s     R                                   <- from 0 s hold RIGHT
//! 1.5s   R U                                 <- from 1.5 s RIGHT and UP
//! 3s     left jump                           <- words work too
//! 3.2s   S @1,-1                             <- SHOOT, aiming at (1, -1)
//! 4s     .                                   <- nothing held
//! repeat 5s                                  <- loop this player's script
//! player 1
//! generate zigzag period=2s                  <- a generator for this player
//! player *                                   <- everyone not listed
//! generate random-walk
//! ```
//!
//! A line `recorded` before the sections marks a recording of play: one
//! section per recorded player, none to add (a run with more players is
//! an error that says how many the recording has; one with fewer plays
//! the first ones and says so).
//!
//! Keys are letters `U D L R J S` (up, down, left, right, jump, shoot),
//! alone or run together (`RU`, `R+U`), or the words `up down left right
//! jump shoot`; `.`, `idle` or `none` hold nothing; `@x,y` sets the aim
//! (−127…127 each). Times need a unit (`ms`, `s`, `m`). A line's input is
//! held until the next line.
//!
//! The **exact per-tick form** replaces player sections by a table:
//!
//! ```text
//! syncbench-trace 1
//! exact 60          <- rows per second
//! R     .     U@1,0
//! R     .     U
//! ```
//!
//! one row per tick and one column per player; row `k` holds from
//! `k / rate` seconds. This is what failing property tests write out.

use super::generate::Generator;
use super::{Trace, Track};
use crate::error::{InputError, Source};
use crate::game::Input;
use crate::time::parse_duration;

/// Which players a section applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Players {
    /// One player id.
    One(usize),
    /// Every player without a section of their own.
    Rest,
}

/// A section's body.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// Scripted segments.
    Segments(Track),
    /// A generator.
    Generate(Generator),
}

/// A parsed trace file.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// File stem.
    pub name: String,
    /// First comment line.
    pub description: String,
    /// Player sections in file order.
    pub sections: Vec<(Players, Body)>,
    /// The exact per-tick form: rate and rows.
    pub exact: Option<(u32, Vec<Vec<Input>>)>,
    /// A recording (a CSV): one section per recorded player, and nothing
    /// to add for players it does not have.
    pub recorded: bool,
    /// Where it came from (for errors at instantiation).
    pub source: Source,
}

impl Script {
    /// Parses the text of a trace file.
    pub fn parse(text: &str, name: &str, source: &Source) -> Result<Script, InputError> {
        let mut script = Script {
            name: name.to_string(),
            description: String::new(),
            sections: Vec::new(),
            exact: None,
            recorded: false,
            source: source.clone(),
        };
        let mut current: Option<(Players, Body, usize)> = None;
        let mut rows: Vec<Vec<Input>> = Vec::new();
        let mut exact_rate: Option<u32> = None;
        let finish = |cur: Option<(Players, Body, usize)>, script: &mut Script| -> Result<(), InputError> {
            if let Some((p, body, line)) = cur {
                if let Body::Segments(t) = &body {
                    if t.segments.is_empty() {
                        return Err(InputError::at(
                            source,
                            Some(line),
                            "player section has no input lines: expected `<time> <keys>` or `generate <name>`",
                        ));
                    }
                }
                if script.sections.iter().any(|(q, _)| *q == p) {
                    return Err(InputError::at(source, Some(line), "a section for this player appears twice"));
                }
                script.sections.push((p, body));
            }
            Ok(())
        };
        for (idx, raw) in text.lines().enumerate() {
            let line_no = idx + 1;
            let err = |msg: String| InputError::at(source, Some(line_no), msg);
            let (content, comment) = match raw.find('#') {
                Some(i) => (&raw[..i], Some(raw[i + 1..].trim())),
                None => (raw, None),
            };
            if script.description.is_empty() && content.trim().is_empty() {
                if let Some(c) = comment {
                    script.description = c.to_string();
                }
            }
            let toks: Vec<&str> = content.split_whitespace().collect();
            let Some(&head) = toks.first() else { continue };
            if let Some(rate) = exact_rate {
                let row = toks
                    .iter()
                    .map(|t| parse_keys(&[t]).map_err(|m| err(format!("row {}: {m}", rows.len()))))
                    .collect::<Result<Vec<_>, _>>()?;
                if let Some(first) = rows.first() {
                    if first.len() != row.len() {
                        return Err(err(format!(
                            "expected {} columns (one per player) like the first row, found {}",
                            first.len(),
                            row.len()
                        )));
                    }
                }
                rows.push(row);
                let _ = rate;
                continue;
            }
            match head {
                "syncbench-trace" => {
                    if toks.get(1) != Some(&"1") {
                        return Err(err(format!(
                            "unsupported trace version `{}`: expected `syncbench-trace 1`",
                            toks.get(1).unwrap_or(&"")
                        )));
                    }
                }
                "recorded" => {
                    if current.is_some() || !script.sections.is_empty() || toks.len() > 1 || exact_rate.is_some() {
                        return Err(err(
                            "`recorded` stands alone on a line before the player sections (not with `exact`)".into(),
                        ));
                    }
                    script.recorded = true;
                }
                "player" => {
                    finish(current.take(), &mut script)?;
                    let who = match toks.get(1) {
                        Some(&"*") => Players::Rest,
                        Some(t) => Players::One(
                            t.parse().map_err(|_| err(format!("`{t}`: expected a player number (0, 1, …) or `*`")))?,
                        ),
                        None => return Err(err("`player` needs a player number or `*`".into())),
                    };
                    if toks.len() > 2 {
                        return Err(err(format!("unexpected `{}` after the player number", toks[2])));
                    }
                    current = Some((who, Body::Segments(Track { segments: Vec::new(), repeat_us: None }), line_no));
                }
                "exact" => {
                    if script.recorded {
                        return Err(err("`exact` cannot follow `recorded`: a recording has player sections".into()));
                    }
                    if current.is_some() || !script.sections.is_empty() {
                        return Err(err("`exact` cannot be mixed with player sections".into()));
                    }
                    let rate = toks
                        .get(1)
                        .and_then(|t| t.trim_end_matches("hz").parse::<u32>().ok())
                        .filter(|&r| r > 0 && r <= 10_000)
                        .ok_or_else(|| err("`exact` needs a row rate in Hz, e.g. `exact 60`".into()))?;
                    exact_rate = Some(rate);
                }
                "generate" => {
                    let Some((_, body, _)) = current.as_mut() else {
                        return Err(err(
                            "`generate` outside a player section: start one with `player N` or `player *`".into(),
                        ));
                    };
                    if !matches!(body, Body::Segments(t) if t.segments.is_empty()) {
                        return Err(err("`generate` must be the only line of its player section".into()));
                    }
                    let spec = toks[1..].join(":").replacen(':', "\u{0}", 1).replace(':', ",").replace('\u{0}', ":");
                    let g = Generator::parse(&spec, source)
                        .map_err(|e| InputError { line: Some(line_no), ..e })?
                        .ok_or_else(|| {
                            err(format!(
                                "unknown generator `{}`: expected one of {}",
                                toks.get(1).unwrap_or(&""),
                                Generator::NAMES.join(", ")
                            ))
                        })?;
                    *body = Body::Generate(g);
                }
                "repeat" => {
                    let Some((_, Body::Segments(track), _)) = current.as_mut() else {
                        return Err(err("`repeat` belongs after the scripted lines of a player section".into()));
                    };
                    let p = toks.get(1).ok_or_else(|| err("`repeat` needs a period, e.g. `repeat 4s`".into()))?;
                    let period = parse_duration(p).map_err(&err)?;
                    if period == 0 || track.segments.last().is_some_and(|s| s.0 >= period) {
                        return Err(err(format!("repeat period `{p}` must be longer than the last segment's start")));
                    }
                    track.repeat_us = Some(period);
                }
                _ => {
                    let Some((_, body, _)) = current.as_mut() else {
                        return Err(err(format!(
                            "`{head}`: expected `player N`, `player *` or `exact HZ` before input lines"
                        )));
                    };
                    let Body::Segments(track) = body else {
                        return Err(err("input lines cannot follow `generate` in the same section".into()));
                    };
                    if track.repeat_us.is_some() {
                        return Err(err("input lines after `repeat`: `repeat` must be the section's last line".into()));
                    }
                    let t = parse_duration(head).map_err(|m| err(format!("expected `<time> <keys>`: {m}")))?;
                    if track.segments.last().is_some_and(|s| s.0 >= t) {
                        return Err(err(format!("time `{head}` is not after the previous line's")));
                    }
                    if track.segments.is_empty() && t > 0 {
                        track.segments.push((0, Input::IDLE));
                    }
                    let input = parse_keys(&toks[1..]).map_err(err)?;
                    track.segments.push((t, input));
                }
            }
        }
        finish(current.take(), &mut script)?;
        if let Some(rate) = exact_rate {
            if rows.is_empty() {
                return Err(InputError::at(source, None, "`exact` trace has no rows"));
            }
            script.exact = Some((rate, rows));
        } else if script.sections.is_empty() {
            return Err(InputError::at(
                source,
                None,
                "empty trace: expected `player N` sections or an `exact HZ` table",
            ));
        }
        Ok(script)
    }

    /// What a run of `players` players leaves out of a recording with more,
    /// said so that it is not a surprise.
    pub fn players_note(&self, players: usize) -> Option<String> {
        let recorded = self.sections.len();
        (self.recorded && recorded > players).then(|| {
            let played = if players == 1 { "player 0".to_string() } else { format!("players 0–{}", players - 1) };
            format!(
                "{}: the recording has {recorded} players; a run of {players} plays {played} and leaves the other {} out",
                self.source,
                recorded - players
            )
        })
    }

    /// The trace for `players` players.
    pub fn instantiate(&self, players: usize, duration_us: u64, seed: u64) -> Result<Trace, InputError> {
        if let Some((rate, rows)) = &self.exact {
            let cols = rows[0].len();
            if cols < players {
                return Err(InputError::at(
                    &self.source,
                    None,
                    format!("exact trace has {cols} columns but the run has {players} players"),
                ));
            }
            let tracks = (0..players)
                .map(|p| {
                    let mut segments: Vec<(u64, Input)> = Vec::new();
                    for (k, row) in rows.iter().enumerate() {
                        if segments.last().is_none_or(|s| s.1 != row[p]) {
                            segments.push((k as u64 * 1_000_000 / *rate as u64, row[p]));
                        }
                    }
                    Track { segments, repeat_us: None }
                })
                .collect();
            return Ok(Trace { name: self.name.clone(), tracks });
        }
        // Generated sections are bounded before any is generated.
        let generated: u64 = (0..players)
            .filter_map(|p| match self.body_of(p) {
                Some(Body::Generate(g)) => Some(g.changes(duration_us)),
                _ => None,
            })
            .fold(0u64, u64::saturating_add);
        if generated > crate::limits::MAX_TRACE_CHANGES {
            return Err(InputError::at(
                &self.source,
                None,
                format!(
                    "up to {generated} generated input changes for {players} players over {} s: the limit is {} (fewer players or a shorter run)",
                    duration_us / 1_000_000,
                    crate::limits::MAX_TRACE_CHANGES
                ),
            ));
        }
        let mut tracks = Vec::with_capacity(players);
        for p in 0..players {
            let body = self.body_of(p).ok_or_else(|| {
                    let advice = if self.recorded {
                        format!("the recording has {p} players; run it with --clients {p} or fewer")
                    } else {
                        format!("no section for player {p} (the run has {players} players): add `player {p}` or a `player *` section")
                    };
                    InputError::at(&self.source, None, advice)
                })?;
            tracks.push(match body {
                Body::Segments(t) => t.clone(),
                Body::Generate(g) => g.track(p, duration_us, seed),
            });
        }
        Ok(Trace { name: self.name.clone(), tracks })
    }

    /// Input changes written in the script's sections (generated ones not
    /// counted).
    pub fn change_count(&self) -> usize {
        self.sections
            .iter()
            .map(|(_, b)| match b {
                Body::Segments(t) => t.segments.len(),
                Body::Generate(_) => 0,
            })
            .sum()
    }

    /// The section that plays player `p`: their own, else `player *`.
    fn body_of(&self, p: usize) -> Option<&Body> {
        self.sections
            .iter()
            .find(|(w, _)| *w == Players::One(p))
            .or_else(|| self.sections.iter().find(|(w, _)| *w == Players::Rest))
            .map(|(_, b)| b)
    }
}

/// Parses key tokens into an input.
pub fn parse_keys(toks: &[&str]) -> Result<Input, String> {
    let mut input = Input::IDLE;
    if toks.is_empty() {
        return Err("expected keys after the time (`.` for none)".into());
    }
    for tok in toks {
        let (keys, aim) = match tok.find('@') {
            Some(i) => (&tok[..i], Some(&tok[i + 1..])),
            None => (*tok, None),
        };
        match keys.to_ascii_lowercase().as_str() {
            "" | "." | "idle" | "none" => {}
            "up" => input.buttons |= Input::UP,
            "down" => input.buttons |= Input::DOWN,
            "left" => input.buttons |= Input::LEFT,
            "right" => input.buttons |= Input::RIGHT,
            "jump" => input.buttons |= Input::JUMP,
            "shoot" => input.buttons |= Input::SHOOT,
            _ => {
                for c in keys.chars() {
                    input.buttons |= match c {
                        'U' => Input::UP,
                        'D' => Input::DOWN,
                        'L' => Input::LEFT,
                        'R' => Input::RIGHT,
                        'J' => Input::JUMP,
                        'S' => Input::SHOOT,
                        '+' => 0,
                        _ => {
                            return Err(format!(
                                "`{tok}`: expected keys U D L R J S (or up/down/left/right/jump/shoot, `.` for none)"
                            ))
                        }
                    };
                }
            }
        }
        if let Some(aim) = aim {
            let bad = || format!("`{tok}`: expected an aim `@x,y` with x, y in -127..127");
            let (x, y) = aim.split_once(',').ok_or_else(bad)?;
            input.aim_x = x.parse::<i8>().ok().filter(|v| *v >= -127).ok_or_else(bad)?;
            input.aim_y = y.parse::<i8>().ok().filter(|v| *v >= -127).ok_or_else(bad)?;
        }
    }
    Ok(input)
}

/// Writes `trace` as player sections of its changes, each at its exact
/// microsecond: as exact as the per-tick form, and one line per change
/// instead of one per tick — what scenario files embed.
pub fn write_changes(trace: &Trace) -> String {
    let mut out = String::from("syncbench-trace 1\n");
    for (p, track) in trace.tracks.iter().enumerate() {
        out.push_str(&format!("player {p}\n"));
        for (t, input) in &track.segments {
            out.push_str(&format!("{t}us {input}\n"));
        }
        if let Some(r) = track.repeat_us {
            out.push_str(&format!("repeat {r}us\n"));
        }
    }
    out
}

/// Writes `trace` in the exact per-tick form at `rate` rows per second for
/// `ticks` rows. Parsing the result gives back the same inputs at every tick.
pub fn write_exact(trace: &Trace, rate: u32, ticks: u64, header: &str) -> String {
    let mut out = String::new();
    for l in header.lines() {
        out.push_str(&format!("# {l}\n"));
    }
    out.push_str(&format!("syncbench-trace 1\nexact {rate}\n"));
    for k in 0..ticks {
        let t = k * 1_000_000 / rate as u64;
        let row: Vec<String> = (0..trace.tracks.len()).map(|p| trace.input_at(p, t).to_string()).collect();
        out.push_str(&row.join(" "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source::File("t.trace".into())
    }

    #[test]
    fn parses_sections_words_aim_and_repeat() {
        let text = "# demo trace\nsyncbench-trace 1\nplayer 0\n0s R\n1.5s R U\n3s left jump\n3.2s S @1,-1\nrepeat 5s\nplayer *\ngenerate zigzag period=2s\n";
        let s = Script::parse(text, "demo", &src()).unwrap();
        assert_eq!(s.description, "demo trace");
        let t = s.instantiate(3, 10_000_000, 1).unwrap();
        assert_eq!(t.tracks.len(), 3);
        assert_eq!(t.input_at(0, 0), Input::buttons(Input::RIGHT));
        assert_eq!(t.input_at(0, 2_000_000), Input::buttons(Input::RIGHT | Input::UP));
        assert_eq!(t.input_at(0, 3_100_000), Input::buttons(Input::LEFT | Input::JUMP));
        assert_eq!(t.input_at(0, 3_300_000), Input { buttons: Input::SHOOT, aim_x: 1, aim_y: -1 });
        assert_eq!(t.input_at(0, 5_000_000), Input::buttons(Input::RIGHT));
        assert_ne!(t.tracks[1], t.tracks[0]);
    }

    #[test]
    fn errors_name_line_and_expectation() {
        let cases = [
            ("player 0\n0s R\n1s banana\n", 3, "expected keys"),
            ("player 0\n0s R\n0s L\n", 3, "not after"),
            ("0s R\n", 1, "expected `player N`"),
            ("player 0\n5 R\n", 2, "no unit"),
            ("player x\n", 1, "player number"),
            ("player 0\ngenerate warp-drive\n", 2, "unknown generator"),
            ("player 0\n0s R@200,0\n", 2, "aim"),
            ("recorded\nexact 60\nR\n", 2, "recorded"),
            ("exact 60\nrecorded\n", 2, "row 0"),
            ("player 0\n0s R\nrecorded\n", 3, "before the player sections"),
        ];
        for (text, line, needle) in cases {
            let e = Script::parse(text, "t", &src()).unwrap_err();
            assert_eq!(e.line, Some(line), "{text:?}: {e}");
            assert!(e.message.contains(needle), "{text:?}: {e}");
        }
        let s = Script::parse("player 0\n0s R\n", "t", &src()).unwrap();
        let e = s.instantiate(2, 1_000_000, 0).unwrap_err();
        assert!(e.message.contains("player 1"), "{e}");
    }

    #[test]
    fn exact_form_round_trips() {
        let text = "player 0\n0s R\n0.1s U J\nplayer 1\n0s .\n0.05s S@3,4\n";
        let t = Script::parse(text, "t", &src()).unwrap().instantiate(2, 1_000_000, 0).unwrap();
        let written = write_exact(&t, 60, 30, "counterexample");
        let back = Script::parse(&written, "t", &src()).unwrap().instantiate(2, 1_000_000, 0).unwrap();
        for k in 0..30u64 {
            let at = k * 1_000_000 / 60;
            for p in 0..2 {
                assert_eq!(t.input_at(p, at), back.input_at(p, at), "tick {k} player {p}");
            }
        }
        let e = Script::parse("exact 60\nR .\nR\n", "t", &src()).unwrap_err();
        assert_eq!(e.line, Some(3));
    }
}
