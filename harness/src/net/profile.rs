//! Network profiles: an uplink and a downlink, each a netem string, with a
//! description, the source of the numbers, and optional timed events.
//!
//! A profile file in `netem-profiles/NAME.toml`:
//!
//! ```toml
//! description = "Home Wi-Fi, 2.4 GHz, moderate contention"
//! source = "where the numbers come from"
//! uplink = "delay 20ms 6ms loss 0.5%"
//! downlink = "delay 18ms 5ms loss 0.3%"
//! correlation = "netem-compatible"   # or "correct" (see net::link)
//! mtu = 1400                         # this end's MTU, bytes (1,500 unless set)
//!
//! [[event]]                          # a 2 s outage 20 s in
//! at = "20s"
//! kind = "outage"                    # outage | spike | handover | bandwidth
//! duration = "2s"
//!
//! [[event]]
//! at = "30s"
//! kind = "spike"                     # add `delay` for `duration`
//! duration = "3s"
//! delay = "250ms"
//!
//! [[event]]
//! at = "40s"
//! kind = "bandwidth"                 # cap the rate for `duration`
//! duration = "5s"
//! rate = "256kbit"
//!
//! [[event]]
//! at = "50s"
//! kind = "handover"                  # an `outage` blackout, then a new profile for good
//! outage = "300ms"
//! uplink = "delay 40ms 10ms"
//! downlink = "delay 35ms 8ms"
//! ```
//!
//! A profile may replay a recorded link in a direction ([`super::recorded::replay`]);
//! its netem strings are then optional extras applied first:
//!
//! ```toml
//! [replay]                       # or [replay.up] / [replay.down]
//! delays = "recordings/leo-starlink.txt"   # beside this file
//! interval = "10ms"
//! ```
//!
//! (`link = "..."` sets both directions at once; an event may say
//! `direction = "up"` or `"down"` to touch one side only.) `--profile` takes
//! a name from the profile directories, a path to such a file, a
//! recording's path with optional netem extras ([`Profile::recording`]),
//! or an inline netem string used for both directions: `--profile "delay 50ms 10ms loss
//! 2%"`; a comma-separated list gives one profile per client, the last
//! repeating (`--profile lan,lan,lan,4g`, [`super::plan`]). `fit:ITEM` and
//! `model:ITEM` put a recording's netem fit or regime model in its place
//! ([`super::derived`]).

use super::link::{Correlation, Link};
use super::netem::{self, LossModel, Netem, Prob, Rate, KEYWORDS};
use super::recorded::replay::Replay;
use crate::error::{InputError, Source};
use crate::rng::Stream;
use crate::time::{parse_duration, Micros};
use std::path::{Path, PathBuf};

/// File name endings `--profile` reads as a recording given by path (any
/// path with a `/` is one too, unless it ends in `.toml`).
pub const RECORDING_EXTENSIONS: [&str; 7] = [".up", ".down", ".csv", ".txt", ".log", ".json", ".ping"];

/// Which directions an event touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Uplink and downlink.
    Both,
    /// Uplink only.
    Up,
    /// Downlink only.
    Down,
}

impl Direction {
    fn touches(self, up: bool) -> bool {
        match self {
            Direction::Both => true,
            Direction::Up => up,
            Direction::Down => !up,
        }
    }
}

/// What happens at a timed event.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// Every packet lost for `duration_us`.
    Outage {
        /// How long.
        duration_us: u64,
    },
    /// `delay_us` added to the delay for `duration_us`.
    Spike {
        /// How long.
        duration_us: u64,
        /// Added one-way delay.
        delay_us: u64,
    },
    /// The rate capped for `duration_us`.
    Bandwidth {
        /// How long.
        duration_us: u64,
        /// The cap.
        rate: Rate,
    },
    /// A blackout of `outage_us`, then new descriptions for good.
    Handover {
        /// The blackout.
        outage_us: u64,
        /// The new uplink.
        uplink: Box<Netem>,
        /// The new downlink.
        downlink: Box<Netem>,
    },
}

/// A timed event on a profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// When it starts.
    pub at: Micros,
    /// Which directions.
    pub direction: Direction,
    /// What happens.
    pub kind: EventKind,
}

impl Event {
    /// The event in words, as `profile show` lists it.
    pub fn describe(&self) -> String {
        let dir = match self.direction {
            Direction::Both => "",
            Direction::Up => " (uplink)",
            Direction::Down => " (downlink)",
        };
        let what = match &self.kind {
            EventKind::Outage { duration_us } => format!("outage for {}ms", duration_us / 1000),
            EventKind::Spike { duration_us, delay_us } => {
                format!("+{}ms delay for {}ms", delay_us / 1000, duration_us / 1000)
            }
            EventKind::Bandwidth { duration_us, rate } => {
                format!("rate {} B/s for {}ms", rate.bytes_per_s, duration_us / 1000)
            }
            EventKind::Handover { outage_us, uplink, downlink } => {
                format!("handover: {}ms blackout, then uplink `{uplink}`, downlink `{downlink}`", outage_us / 1000)
            }
        };
        format!("at {}: {what}{dir}", self.at)
    }
}

/// A resolved network profile.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    /// Name (file stem, or the inline string).
    pub name: String,
    /// One line on what network this is.
    pub description: String,
    /// Where its numbers come from.
    pub source: String,
    /// Node → network.
    pub uplink: Netem,
    /// Network → node.
    pub downlink: Netem,
    /// How correlation parameters are applied.
    pub correlation: Correlation,
    /// Timed events, in file order.
    pub events: Vec<Event>,
    /// The MTU of the node's interface, bytes: a datagram to or from it
    /// fragments above the smaller of this and the other end's.
    pub mtu: u32,
    /// Recorded links replayed after netem: `[uplink, downlink]` (see
    /// [`super::recorded::replay`]).
    pub replay: [Option<Replay>; 2],
}

impl Profile {
    /// A profile with no impairment at all.
    pub fn clean() -> Profile {
        Profile {
            name: "clean".into(),
            description: "no delay, no loss".into(),
            source: "built in".into(),
            uplink: Netem::clean(),
            downlink: Netem::clean(),
            correlation: Correlation::Kernel,
            events: Vec::new(),
            mtu: super::DEFAULT_MTU,
            replay: [None, None],
        }
    }

    /// One direction as a report names it: its netem description, and the
    /// recording it replays after it, if any.
    pub fn describe(&self, up: bool) -> String {
        let (netem, replay) = if up { (&self.uplink, &self.replay[0]) } else { (&self.downlink, &self.replay[1]) };
        match replay {
            None => netem.to_string(),
            Some(r) if netem.is_clean() => format!("replay {r}"),
            Some(r) => format!("{netem}, then replay {r}"),
        }
    }

    /// A replayed direction's netem must keep packets in the order sent:
    /// the recording's stage takes them in that order and sets when they
    /// leave. No `slot`, no jitter, no `reorder`, here or in a handover.
    fn check_replayed_netem(&self) -> Result<(), String> {
        for (i, name) in ["uplink", "downlink"].into_iter().enumerate() {
            if self.replay[i].is_none() {
                continue;
            }
            for (_, n) in self.schedule(i == 0) {
                if n.slot.is_some() || n.jitter_us > 0 || n.reorder.is_set() {
                    return Err(format!(
                        "the {name} replays a recording, so its netem (`{n}`) cannot take `slot`, jitter or `reorder`: the recording sets the delay and when packets leave; add a base delay or loss only"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Whether a direction replays a recorded link.
    pub fn is_recorded(&self) -> bool {
        self.replay.iter().any(Option::is_some)
    }

    /// The delay recording direction `i` (0 up, 1 down) replays, if any.
    pub fn recorded_delays(&self, i: usize) -> Option<&super::recorded::Delays> {
        self.replay.get(i)?.as_ref()?.delays.as_deref()
    }

    /// The link of one direction (`up`: node → network) of node `node` in
    /// a run seeded `seed`, drawing from `rng`.
    pub fn link(&self, up: bool, seed: u64, node: u64, rng: Stream) -> Link {
        Link::scheduled(self.schedule(up), self.correlation, rng).with_mtu(self.mtu).replaying(
            self.replay[usize::from(!up)].as_ref(),
            seed,
            node,
        )
    }

    /// Resolves one `--profile` item (see the module docs).
    pub fn resolve(arg: &str, dirs: &[PathBuf]) -> Result<Profile, InputError> {
        let arg = arg.trim();
        let first = arg.split_whitespace().next().unwrap_or("");
        let lower = first.to_ascii_lowercase();
        if lower != first && (KEYWORDS.contains(&lower.as_str()) || lower == "tc") {
            return Err(InputError::at(
                &Source::Inline(format!("--profile \"{}\"", crate::error::echo(arg))),
                None,
                format!(
                    "`{}`: netem's keywords are lower case (`{lower}`), as tc takes them",
                    crate::error::echo(first)
                ),
            ));
        }
        if KEYWORDS.contains(&first) || first == "tc" || first == "sudo" {
            let source = Source::Inline(format!("--profile \"{}\"", crate::error::echo(arg)));
            let n = Netem::parse(arg).map_err(|e| InputError::at(&source, None, e.to_string()))?;
            return Ok(Profile {
                name: arg.to_string(),
                description: "inline netem string, both directions".into(),
                source: "command line".into(),
                uplink: n.clone(),
                downlink: n,
                ..Profile::clean()
            });
        }
        if arg.ends_with(".toml") {
            return Self::load(Path::new(arg));
        }
        if first.contains('/') || RECORDING_EXTENSIONS.iter().any(|e| first.ends_with(e)) {
            return Self::recording(first, arg[first.len()..].trim());
        }
        for d in dirs {
            let p = d.join(format!("{arg}.toml"));
            if p.is_file() {
                return Self::load(&p);
            }
        }
        if let Some((name, text)) = crate::library::shipped_profiles().iter().find(|(n, _)| *n == arg) {
            return Self::parse(text, name, &Source::BuiltIn(format!("profile {name}")));
        }
        let known: Vec<String> = list(dirs).into_iter().map(|p| p.name).collect();
        Err(InputError::at(
            &Source::Inline(format!("--profile {}", crate::error::echo(arg))),
            None,
            format!(
                "unknown profile `{}`: expected a name ({}), a path to a .toml file, or a netem string such as \"delay 50ms 10ms loss 1%\"",
                crate::error::echo(arg),
                if known.is_empty() { "none found".to_string() } else { known.join(", ") }
            ),
        ))
    }

    /// A recorded link given by path (see [`super::recorded::replay::from_path`]),
    /// with `extras`, a netem string, applied each way before it.
    pub fn recording(path: &str, extras: &str) -> Result<Profile, InputError> {
        let replay = super::recorded::replay::from_path(Path::new(path))?;
        let netem = Netem::parse(extras).map_err(|e| {
            InputError::at(
                &Source::Inline(format!("--profile \"{}\"", crate::error::echo(path))),
                None,
                format!("after the recording: {e}"),
            )
        })?;
        let name = Path::new(path).file_stem().and_then(|s| s.to_str()).unwrap_or("recording").to_string();
        let p = Profile {
            name: if extras.is_empty() { name } else { format!("{name} {extras}") },
            description: format!("recorded link {path}, replayed each way"),
            source: format!("the recording {path}"),
            uplink: netem.clone(),
            downlink: netem,
            replay,
            ..Profile::clean()
        };
        p.check_replayed_netem().map_err(|m| {
            InputError::at(&Source::Inline(format!("--profile \"{}\"", crate::error::echo(path))), None, m)
        })?;
        Ok(p)
    }

    /// Loads a profile file.
    pub fn load(path: &Path) -> Result<Profile, InputError> {
        let source = Source::File(path.display().to_string());
        let text = crate::limits::read_text(path, crate::limits::MAX_INPUT_FILE, "profile")?;
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("profile");
        Self::parse(&text, name, &source)
    }

    /// Parses the text of a profile file.
    pub fn parse(text: &str, name: &str, source: &Source) -> Result<Profile, InputError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e.span().map(|s| crate::error::line_at(text, s.start));
            InputError::at(source, line, format!("invalid TOML: {}", e.message()))
        })?;
        let lines = LineFinder { text };
        // Where each [[event]] starts, found once (not per event).
        let event_lines: Vec<usize> =
            text.lines().enumerate().filter(|(_, l)| l.trim() == "[[event]]").map(|(i, _)| i + 1).collect();
        let mut p = Profile { name: name.to_string(), ..Profile::clean() };
        p.description.clear();
        p.source.clear();
        let mut have = (false, false);
        for (key, value) in &table {
            let line = lines.key(key, 0);
            if key == "event" {
                let items =
                    value.as_array().ok_or_else(|| InputError::at(source, line, "`event` must be [[event]] tables"))?;
                for (k, item) in items.iter().enumerate() {
                    let start = event_lines.get(k).copied();
                    let t =
                        item.as_table().ok_or_else(|| InputError::at(source, start, "an [[event]] must be a table"))?;
                    p.events.push(parse_event(t, source, &lines, start.unwrap_or(0))?);
                }
                continue;
            }
            if key == "replay" {
                let t = value
                    .as_table()
                    .ok_or_else(|| InputError::at(source, line, "`replay` must be a [replay] table"))?;
                let replay_line = lines.key("replay", 0).unwrap_or(0);
                p.replay = super::recorded::replay::from_table(t, source, &|k| lines.key(k, replay_line))?;
                continue;
            }
            if key == "mtu" {
                p.mtu = value
                    .as_integer()
                    .and_then(|m| u32::try_from(m).ok())
                    .filter(|m| (super::MIN_MTU..=u16::MAX as u32).contains(m))
                    .ok_or_else(|| {
                        InputError::at(
                            source,
                            line,
                            format!(
                                "`mtu`: expected a whole number of bytes from {} (IPv4's minimum) to 65535, found {}",
                                super::MIN_MTU,
                                match value {
                                    toml::Value::Integer(i) => i.to_string(),
                                    v => format!("a {}", v.type_str()),
                                }
                            ),
                        )
                    })?;
                continue;
            }
            let s = value.as_str().ok_or_else(|| InputError::at(source, line, format!("`{key}` must be a string")))?;
            let netem = |s: &str| Netem::parse(s).map_err(|e| InputError::at(source, line, format!("`{key}`: {e}")));
            match key.as_str() {
                "description" => p.description = s.to_string(),
                "source" => p.source = s.to_string(),
                "uplink" => {
                    p.uplink = netem(s)?;
                    have.0 = true;
                }
                "downlink" => {
                    p.downlink = netem(s)?;
                    have.1 = true;
                }
                "link" => {
                    p.uplink = netem(s)?;
                    p.downlink = p.uplink.clone();
                    have = (true, true);
                }
                "correlation" => {
                    p.correlation = Correlation::from_name(s).ok_or_else(|| {
                        InputError::at(source, line, format!("`correlation = \"{s}\"`: expected \"netem-compatible\" or \"correct\""))
                    })?;
                }
                _ => {
                    return Err(InputError::at(
                        source,
                        line,
                        format!("unknown key `{key}`: expected description, source, uplink, downlink, link, correlation, mtu, [replay] or [[event]]"),
                    ))
                }
            }
        }
        // A replayed direction's netem string is optional: extras added
        // before the recording (a base delay, say).
        if !((have.0 || p.replay[0].is_some()) && (have.1 || p.replay[1].is_some())) {
            return Err(InputError::at(
                source,
                None,
                "a profile needs `uplink` and `downlink` (or `link` for both), or a [replay] of a recorded link",
            ));
        }
        p.check_replayed_netem().map_err(|m| InputError::at(source, lines.key("replay", 0), m))?;
        p.events.sort_by_key(|e| e.at);
        Ok(p)
    }

    /// The description of one direction over time: `(from, spec)` pieces,
    /// the events applied to the base descriptions.
    pub fn schedule(&self, uplink: bool) -> Vec<(Micros, Netem)> {
        // A sweep over the instants where an event starts or ends. At each,
        // the description is the base (or the newest finished handover's)
        // with the events active then applied in order: O(n log n) plus the
        // overlap, where applying every event at every instant was O(n²).
        let end_of = |e: &Event| {
            e.at.plus(match &e.kind {
                EventKind::Outage { duration_us }
                | EventKind::Spike { duration_us, .. }
                | EventKind::Bandwidth { duration_us, .. } => *duration_us,
                EventKind::Handover { outage_us, .. } => *outage_us,
            })
        };
        let events: Vec<(usize, &Event)> =
            self.events.iter().enumerate().filter(|(_, e)| e.direction.touches(uplink)).collect();
        // (instant, 0 = ends / 1 = starts, event index)
        let mut marks: Vec<(Micros, u8, usize)> = Vec::with_capacity(2 * events.len() + 1);
        for &(i, e) in &events {
            // A zero-length event is never active (a zero-length handover
            // only replaces the description, at its end).
            if end_of(e) > e.at {
                marks.push((e.at, 1, i));
            }
            marks.push((end_of(e), 0, i));
        }
        marks.sort_unstable();
        let base = if uplink { &self.uplink } else { &self.downlink };
        let mut active: std::collections::BTreeSet<usize> = std::collections::BTreeSet::new();
        // The newest (by index) handover whose blackout is over: it replaced
        // the description for good, and what came before it no longer counts.
        let mut replaced: Option<usize> = None;
        let mut out: Vec<(Micros, Netem)> = Vec::new();
        let mut k = 0;
        let mut t = Micros::ZERO;
        loop {
            while k < marks.len() && marks[k].0 <= t {
                let (_, starts, i) = marks[k];
                if starts == 1 {
                    active.insert(i);
                } else {
                    active.remove(&i);
                    if matches!(self.events[i].kind, EventKind::Handover { .. }) && replaced.is_none_or(|r| r < i) {
                        replaced = Some(i);
                    }
                }
                k += 1;
            }
            let mut spec = match replaced.map(|i| &self.events[i].kind) {
                Some(EventKind::Handover { uplink: u, downlink: d, .. }) => {
                    if uplink {
                        (**u).clone()
                    } else {
                        (**d).clone()
                    }
                }
                _ => base.clone(),
            };
            for &i in active.range(replaced.map_or(0, |r| r + 1)..) {
                match &self.events[i].kind {
                    EventKind::Handover { .. } | EventKind::Outage { .. } => {
                        spec.loss = LossModel::Random { p: Prob::ALWAYS, corr: Prob::NEVER };
                    }
                    EventKind::Spike { delay_us, .. } => spec.delay_us = spec.delay_us.saturating_add(*delay_us),
                    EventKind::Bandwidth { rate, .. } => spec.rate = Some(*rate),
                }
            }
            if out.last().is_none_or(|(_, s)| *s != spec) {
                out.push((t, spec));
            }
            match marks.get(k) {
                Some(m) => t = m.0,
                None => break,
            }
        }
        out
    }
}

struct LineFinder<'a> {
    text: &'a str,
}

impl LineFinder<'_> {
    /// 1-based line of the first `key =` at or after line `from`.
    fn key(&self, key: &str, from: usize) -> Option<usize> {
        crate::error::line_of_key(self.text, key, from)
    }
}

fn parse_event(t: &toml::Table, source: &Source, lines: &LineFinder<'_>, start: usize) -> Result<Event, InputError> {
    let err = |key: &str, msg: String| InputError::at(source, lines.key(key, start), msg);
    let get = |key: &str| -> Result<Option<&str>, InputError> {
        match t.get(key) {
            None => Ok(None),
            Some(v) => v.as_str().map(Some).ok_or_else(|| err(key, format!("event `{key}` must be a string"))),
        }
    };
    let dur = |key: &str| -> Result<u64, InputError> {
        let v = get(key)?.ok_or_else(|| {
            InputError::at(source, Some(start), format!("this event needs `{key}`, e.g. `{key} = \"2s\"`"))
        })?;
        parse_duration(v).map_err(|m| err(key, format!("event `{key}`: {m}")))
    };
    for key in t.keys() {
        if !["at", "kind", "duration", "delay", "rate", "outage", "uplink", "downlink", "direction"]
            .contains(&key.as_str())
        {
            return Err(err(key, format!("unknown event key `{key}`: expected at, kind, duration, delay, rate, outage, uplink, downlink or direction")));
        }
    }
    let at = Micros(dur("at")?);
    let direction = match get("direction")? {
        None | Some("both") => Direction::Both,
        Some("up") => Direction::Up,
        Some("down") => Direction::Down,
        Some(d) => return Err(err("direction", format!("direction `{d}`: expected both, up or down"))),
    };
    let kind = match get("kind")? {
        Some("outage") => EventKind::Outage { duration_us: dur("duration")? },
        Some("spike") => EventKind::Spike { duration_us: dur("duration")?, delay_us: dur("delay")? },
        Some("bandwidth") => {
            let r = get("rate")?.ok_or_else(|| {
                InputError::at(source, Some(start), "a bandwidth event needs `rate`, e.g. `rate = \"256kbit\"`")
            })?;
            let bytes_per_s = netem::rate(r).ok_or_else(|| {
                let expected = if netem::rate_bytes(r).is_some() { netem::RATE_RANGE } else { "e.g. 256kbit, 2mbit" };
                err("rate", format!("rate `{}`: expected {expected}", crate::error::echo(r)))
            })?;
            EventKind::Bandwidth {
                duration_us: dur("duration")?,
                rate: Rate { bytes_per_s, packet_overhead: 0, cell_size: 0, cell_overhead: 0 },
            }
        }
        Some("handover") => {
            let netem = |key: &str| -> Result<Netem, InputError> {
                let s = get(key)?.ok_or_else(|| {
                    InputError::at(source, Some(start), format!("a handover needs `{key}`: the profile after it"))
                })?;
                Netem::parse(s).map_err(|e| err(key, format!("`{key}`: {e}")))
            };
            EventKind::Handover {
                outage_us: dur("outage")?,
                uplink: Box::new(netem("uplink")?),
                downlink: Box::new(netem("downlink")?),
            }
        }
        Some(k) => return Err(err("kind", format!("event kind `{k}`: expected outage, spike, bandwidth or handover"))),
        None => {
            return Err(InputError::at(
                source,
                Some(start),
                "an event needs `kind`: outage, spike, bandwidth or handover",
            ))
        }
    };
    Ok(Event { at, direction, kind })
}

/// The profiles found in `dirs`, sorted by name (first directory wins);
/// files that fail to parse are skipped here and reported when used.
pub fn list(dirs: &[PathBuf]) -> Vec<Profile> {
    let mut out: Vec<Profile> = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else { continue };
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files.iter().filter(|f| f.extension().is_some_and(|e| e == "toml")) {
            if let Ok(p) = Profile::load(f) {
                if !out.iter().any(|q| q.name == p.name) {
                    out.push(p);
                }
            }
        }
    }
    for (name, text) in crate::library::shipped_profiles() {
        if !out.iter().any(|q| q.name == *name) {
            if let Ok(p) = Profile::parse(text, name, &Source::BuiltIn(format!("profile {name}"))) {
                out.push(p);
            }
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source::File("p.toml".into())
    }

    #[test]
    fn parses_a_profile_file() {
        let p = Profile::parse("description = \"x\"\nsource = \"y\"\nuplink = \"delay 20ms\"\ndownlink = \"delay 10ms loss 1%\"\ncorrelation = \"correct\"\n", "wifi", &src()).unwrap();
        assert_eq!(p.uplink.delay_us, 20_000);
        assert_eq!(p.downlink.delay_us, 10_000);
        assert_eq!(p.correlation, Correlation::Correct);
        let both = Profile::parse("link = \"delay 5ms\"\n", "l", &src()).unwrap();
        assert_eq!(both.uplink, both.downlink);
    }

    #[test]
    fn errors_name_line_and_key() {
        let e = Profile::parse("description = \"x\"\nuplink = \"delay banana\"\ndownlink = \"\"\n", "p", &src())
            .unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("banana"), "{e}");
        let e = Profile::parse("uplink = \"\"\ndownlink = \"\"\nlatency = \"1\"\n", "p", &src()).unwrap_err();
        assert_eq!(e.line, Some(3));
        let e = Profile::parse("uplink = \n", "p", &src()).unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(Profile::parse("uplink = \"delay 1ms\"\n", "p", &src()).is_err());
        let text = "link = \"delay 1ms\"\n\n[[event]]\nat = \"1s\"\nkind = \"outage\"\nduration = \"1s\"\n\n[[event]]\nat = \"2s\"\nkind = \"spike\"\nduration = \"1s\"\ndelay = \"soon\"\n";
        let e = Profile::parse(text, "p", &src()).unwrap_err();
        assert_eq!(e.line, Some(12), "{e}");
        let e = Profile::parse("link = \"\"\n[[event]]\nat = \"1s\"\nkind = \"meteor\"\n", "p", &src()).unwrap_err();
        assert_eq!(e.line, Some(4), "{e}");
        // A table where [[event]] or a value belongs is found on its line.
        let e = Profile::parse("link = \"\"\n\n[event]\nat = \"1s\"\n", "p", &src()).unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
        let e = Profile::parse("link = \"\"\n[table]\nx = 1\n", "p", &src()).unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
    }

    #[test]
    fn mtu_is_a_whole_number_of_bytes_in_range() {
        assert_eq!(Profile::parse("link = \"\"\n", "p", &src()).unwrap().mtu, crate::net::DEFAULT_MTU);
        assert_eq!(Profile::parse("link = \"\"\nmtu = 1280\n", "p", &src()).unwrap().mtu, 1_280);
        for bad in ["67", "65536", "-1", "\"1500\"", "1500.5"] {
            let e = Profile::parse(&format!("link = \"\"\nmtu = {bad}\n"), "p", &src()).unwrap_err();
            assert_eq!(e.line, Some(2), "{e}");
            assert!(e.message.contains("`mtu`: expected a whole number of bytes from 68"), "{e}");
        }
    }

    #[test]
    fn events_compile_to_a_schedule() {
        let text = "uplink = \"delay 10ms\"\ndownlink = \"delay 20ms\"\n\
            [[event]]\nat = \"1s\"\nkind = \"outage\"\nduration = \"500ms\"\n\
            [[event]]\nat = \"2s\"\nkind = \"spike\"\nduration = \"1s\"\ndelay = \"100ms\"\ndirection = \"up\"\n\
            [[event]]\nat = \"4s\"\nkind = \"bandwidth\"\nduration = \"1s\"\nrate = \"1mbit\"\n\
            [[event]]\nat = \"6s\"\nkind = \"handover\"\noutage = \"300ms\"\nuplink = \"delay 50ms\"\ndownlink = \"delay 60ms\"\n";
        let p = Profile::parse(text, "p", &src()).unwrap();
        let up = p.schedule(true);
        let at = |s: &[(Micros, Netem)], t: u64| s.iter().rev().find(|(from, _)| from.0 <= t).unwrap().1.clone();
        assert_eq!(at(&up, 0).delay_us, 10_000);
        assert!(at(&up, 1_200_000).loss.is_set());
        assert!(!at(&up, 1_600_000).loss.is_set());
        assert_eq!(at(&up, 2_500_000).delay_us, 110_000);
        assert_eq!(at(&p.schedule(false), 2_500_000).delay_us, 20_000, "spike was uplink only");
        assert_eq!(at(&up, 4_500_000).rate.unwrap().bytes_per_s, 125_000);
        assert!(at(&up, 5_500_000).rate.is_none());
        assert!(at(&up, 6_100_000).loss.is_set());
        assert_eq!(at(&up, 7_000_000).delay_us, 50_000);
        assert_eq!(at(&p.schedule(false), 7_000_000).delay_us, 60_000);
    }

    #[test]
    fn inline_strings_lists_and_unknown_names() {
        let p = Profile::resolve("delay 50ms loss 2%", &[]).unwrap();
        assert_eq!(p.uplink.delay_us, 50_000);
        assert_eq!(p.uplink, p.downlink);
        let e = Profile::resolve("delay banana", &[]).unwrap_err();
        assert!(e.to_string().contains("banana"), "{e}");
        let e = Profile::resolve("marsnet", &[]).unwrap_err();
        assert!(e.message.contains("unknown profile"), "{e}");
        let e = Profile::resolve("DELAY 5ms", &[]).unwrap_err();
        assert!(e.message.contains("netem's keywords are lower case (`delay`)"), "{e}");
        assert_eq!(Profile::resolve("seed 5 delay 1ms", &[]).unwrap().uplink.seed, Some(5));
        let e = Profile::resolve(&"x".repeat(100_000), &[]).unwrap_err();
        assert!(e.to_string().len() < 2_000, "{}", e.to_string().len());
    }

    /// The schedule as first written: every event applied at every
    /// instant (O(n²)), kept as the oracle for the sweep.
    fn schedule_naive(p: &Profile, uplink: bool) -> Vec<(Micros, Netem)> {
        let len = |e: &Event| match &e.kind {
            EventKind::Outage { duration_us }
            | EventKind::Spike { duration_us, .. }
            | EventKind::Bandwidth { duration_us, .. } => *duration_us,
            EventKind::Handover { outage_us, .. } => *outage_us,
        };
        let mut points: Vec<Micros> = vec![Micros::ZERO];
        for e in &p.events {
            points.push(e.at);
            points.push(e.at.plus(len(e)));
        }
        points.sort();
        points.dedup();
        let mut out: Vec<(Micros, Netem)> = Vec::new();
        for t in points {
            let mut spec = if uplink { p.uplink.clone() } else { p.downlink.clone() };
            for e in &p.events {
                if !e.direction.touches(uplink) || e.at > t {
                    continue;
                }
                let active = t < e.at.plus(len(e));
                match &e.kind {
                    EventKind::Handover { uplink: u, downlink: d, .. } => {
                        if active {
                            spec.loss = LossModel::Random { p: Prob::ALWAYS, corr: Prob::NEVER };
                        } else {
                            spec = if uplink { (**u).clone() } else { (**d).clone() };
                        }
                    }
                    EventKind::Outage { .. } if active => {
                        spec.loss = LossModel::Random { p: Prob::ALWAYS, corr: Prob::NEVER };
                    }
                    EventKind::Spike { delay_us, .. } if active => spec.delay_us += delay_us,
                    EventKind::Bandwidth { rate, .. } if active => spec.rate = Some(*rate),
                    _ => {}
                }
            }
            if out.last().is_none_or(|(_, s)| *s != spec) {
                out.push((t, spec));
            }
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]

        /// The sweep gives exactly the schedule of applying every event at
        /// every instant, for any mix of overlapping, touching, zero-length
        /// and one-directional events.
        #[test]
        fn the_sweep_equals_the_naive_schedule(
            evs in proptest::collection::vec((0u64..20, 0u64..6, 0u8..4, 0u8..3, 1u64..50), 0..24),
        ) {
            let mut p = Profile::parse("uplink = \"delay 5ms\"\ndownlink = \"delay 7ms\"", "t", &Source::BuiltIn("t".into())).unwrap();
            for (at, len, kind, dir, x) in evs {
                let (at, len) = (Micros(at * 100_000), len * 100_000);
                let kind = match kind {
                    0 => EventKind::Outage { duration_us: len },
                    1 => EventKind::Spike { duration_us: len, delay_us: x * 1_000 },
                    2 => EventKind::Bandwidth {
                        duration_us: len,
                        rate: crate::net::netem::Rate { bytes_per_s: x * 1_000, packet_overhead: 0, cell_size: 0, cell_overhead: 0 },
                    },
                    _ => EventKind::Handover {
                        outage_us: len,
                        uplink: Box::new(Netem::parse(&format!("delay {x}ms")).unwrap()),
                        downlink: Box::new(Netem::parse(&format!("delay {}ms", x + 1)).unwrap()),
                    },
                };
                let direction = [Direction::Both, Direction::Up, Direction::Down][dir as usize];
                p.events.push(Event { at, direction, kind });
            }
            p.events.sort_by_key(|e| e.at);
            for up in [true, false] {
                proptest::prop_assert_eq!(p.schedule(up), schedule_naive(&p, up));
            }
        }
    }
}
