//! Input traces: what each player holds over time.
//!
//! A trace is, per player, a list of segments `(start, input)`: the input
//! held from `start` until the next segment (optionally looping). Traces
//! come from four places, all compiled to the same [`Trace`]:
//!
//! - **scripts**: the human-writable text format in `traces/*.trace`
//!   (see [`script`] for the grammar);
//! - **recordings of play**: a CSV of timestamped inputs from the user's
//!   own game (`--trace play.csv`; `syncbench trace convert` turns one
//!   into a script), see [`csv`], or a Doom demo lump (`--trace
//!   game.lmp`; `syncbench trace import doom`), see [`doom`];
//! - **generators**: seeded, named patterns (`idle`, `random-walk`,
//!   `zigzag`, `stop-go`, `strafe-shoot`), see [`generate`];
//! - the **exact per-tick form** that failing property tests write out: one
//!   row per tick, one column per player.
//!
//! The harness samples a player's input by global time with
//! [`Trace::input_at`]; the ideal world uses the same function.

pub mod csv;
pub mod doom;
pub mod generate;
pub mod human;
pub mod population;
pub mod script;
pub mod stats;

use crate::error::{InputError, Source};
use crate::game::Input;
use std::path::{Path, PathBuf};

/// One player's inputs over time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Track {
    /// `(start µs, input)`, sorted by start, first start 0.
    pub segments: Vec<(u64, Input)>,
    /// Loop period, µs: the track repeats with this period.
    pub repeat_us: Option<u64>,
}

impl Track {
    /// A track that holds nothing, forever.
    pub fn idle() -> Track {
        Track { segments: vec![(0, Input::IDLE)], repeat_us: None }
    }

    /// The track started `offset_us` into this one: a repeating track
    /// wraps round to its start, another holds its last input.
    pub fn shifted(&self, offset_us: u64) -> Track {
        let mut segments = vec![(0, self.input_at(offset_us))];
        match self.repeat_us {
            Some(p) if p > 0 => {
                let o = offset_us % p;
                // Segments at or past the period never play.
                let played = || self.segments.iter().filter(|s| s.0 < p);
                let later = played().filter(|s| s.0 > o).map(|&(s, i)| (s - o, i));
                let wrapped = played().filter(|s| s.0 <= o).map(|&(s, i)| (s + p - o, i));
                segments.extend(later.chain(wrapped).filter(|s| s.0 < p));
            }
            _ => segments.extend(self.segments.iter().filter(|s| s.0 > offset_us).map(|&(s, i)| (s - offset_us, i))),
        }
        segments.dedup_by(|b, a| a.1 == b.1);
        Track { segments, repeat_us: self.repeat_us }
    }

    /// The input held at `t_us`.
    pub fn input_at(&self, t_us: u64) -> Input {
        let t = match self.repeat_us {
            Some(p) if p > 0 => t_us % p,
            _ => t_us,
        };
        let idx = self.segments.partition_point(|&(s, _)| s <= t);
        if idx == 0 {
            Input::IDLE
        } else {
            self.segments[idx - 1].1
        }
    }

    /// [`Track::input_at`] for callers that ask about times in order: `hint`
    /// (start it at 0; one per caller) remembers the segment of the last
    /// answer, and a time in it or in the next one is answered without a
    /// search. Any time may be asked; the answer is always `input_at`'s.
    pub fn input_near(&self, t_us: u64, hint: &mut usize) -> Input {
        let t = match self.repeat_us {
            Some(p) if p > 0 => t_us % p,
            _ => t_us,
        };
        let segs = &self.segments;
        // `idx` as in `input_at`: the number of segments starting at or
        // before `t`. The hint holds iff segs[idx-1].0 <= t < segs[idx].0.
        let fits = |idx: usize| {
            idx <= segs.len() && (idx == 0 || segs[idx - 1].0 <= t) && segs.get(idx).is_none_or(|&(s, _)| s > t)
        };
        let idx = if fits(*hint) {
            *hint
        } else if fits(*hint + 1) {
            *hint + 1
        } else {
            segs.partition_point(|&(s, _)| s <= t)
        };
        *hint = idx;
        if idx == 0 {
            Input::IDLE
        } else {
            segs[idx - 1].1
        }
    }

    /// The first instant in `(lo, hi]` at which the held input stops being
    /// `from` (a press, a release, a new direction or aim), if any.
    pub fn first_change(&self, lo: u64, hi: u64, from: Input) -> Option<u64> {
        let mut t = lo;
        while t < hi {
            let next = self.next_boundary(t)?.min(hi);
            if self.input_at(next) != from {
                return Some(next);
            }
            t = next;
        }
        None
    }

    /// The first segment start strictly after `t` (loops included).
    fn next_boundary(&self, t: u64) -> Option<u64> {
        match self.repeat_us {
            Some(p) if p > 0 => {
                let (base, r) = (t - t % p, t % p);
                let i = self.segments.partition_point(|&(s, _)| s <= r);
                // A segment later in this loop, or the next loop's start.
                Some(self.segments.get(i).filter(|&&(s, _)| s < p).map_or(base + p, |&(s, _)| base + s))
            }
            _ => {
                let i = self.segments.partition_point(|&(s, _)| s <= t);
                self.segments.get(i).map(|&(s, _)| s)
            }
        }
    }
}

/// Inputs for every player of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Trace {
    /// Display name (file stem or generator name).
    pub name: String,
    /// One track per player.
    pub tracks: Vec<Track>,
}

impl Trace {
    /// Player `p`'s input at global time `t_us` (idle for unknown players).
    pub fn input_at(&self, p: usize, t_us: u64) -> Input {
        self.tracks.get(p).map_or(Input::IDLE, |t| t.input_at(t_us))
    }

    /// [`Trace::input_at`] with a caller's hint per player (see
    /// [`Track::input_near`]).
    pub fn input_near(&self, p: usize, t_us: u64, hint: &mut usize) -> Input {
        self.tracks.get(p).map_or(Input::IDLE, |t| t.input_near(t_us, hint))
    }

    /// [`Trace::input_near`] with player `p`'s hint in `hints`, or
    /// [`Trace::input_at`] for a player without one.
    pub fn input_hinted(&self, p: usize, t_us: u64, hints: &mut [usize]) -> Input {
        match hints.get_mut(p) {
            Some(hint) => self.input_near(p, t_us, hint),
            None => self.input_at(p, t_us),
        }
    }

    /// The first instant in `(lo, hi]` at which player `p`'s held input
    /// stops being `from`.
    pub fn first_change(&self, p: usize, lo: u64, hi: u64, from: Input) -> Option<u64> {
        self.tracks.get(p).and_then(|t| t.first_change(lo, hi, from))
    }
}

/// A trace before it is instantiated for a number of players, a duration and
/// a seed.
#[derive(Clone, Debug, PartialEq)]
pub enum TraceSpec {
    /// A parsed script file.
    Script(script::Script),
    /// A named generator for every player.
    Generator(generate::Generator),
}

impl TraceSpec {
    /// Display name.
    pub fn name(&self) -> String {
        match self {
            TraceSpec::Script(s) => s.name.clone(),
            TraceSpec::Generator(g) => g.to_string(),
        }
    }

    /// A note for a run of `players` players that leaves players of a
    /// recording out.
    pub fn players_note(&self, players: usize) -> Option<String> {
        match self {
            TraceSpec::Script(s) => s.players_note(players),
            TraceSpec::Generator(_) => None,
        }
    }

    /// How many players a recording holds (`None` for a script or
    /// generator, which serve any number).
    pub fn recorded_players(&self) -> Option<usize> {
        match self {
            TraceSpec::Script(s) if s.recorded => Some(s.sections.len()),
            _ => None,
        }
    }

    /// The concrete trace for `players` players over `duration_us`.
    /// Generators without their own seed use `seed`.
    pub fn instantiate(&self, players: usize, duration_us: u64, seed: u64) -> Result<Trace, InputError> {
        match self {
            TraceSpec::Script(s) => s.instantiate(players, duration_us, seed),
            TraceSpec::Generator(g) => {
                let changes = (players as u64).saturating_mul(g.changes(duration_us));
                if changes > crate::limits::MAX_TRACE_CHANGES {
                    return Err(InputError::at(
                        &Source::BuiltIn(format!("trace {g}")),
                        None,
                        format!(
                            "{changes} input changes for {players} players over {} s: the limit is {} (a longer period or a shorter run)",
                            duration_us / 1_000_000,
                            crate::limits::MAX_TRACE_CHANGES
                        ),
                    ));
                }
                Ok(Trace { name: g.to_string(), tracks: (0..players).map(|p| g.track(p, duration_us, seed)).collect() })
            }
        }
    }

    /// Resolves a `--trace` argument: a generator (`zigzag`,
    /// `random-walk:seed=3`), a name in one of `dirs` (`dodge` →
    /// `traces/dodge.trace`), or a path to a trace file.
    pub fn resolve(arg: &str, dirs: &[PathBuf]) -> Result<TraceSpec, InputError> {
        let path = Path::new(arg);
        // Extensions in any case (WAD tools extract lumps as `DEMO2.LMP`).
        let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("csv") => return Self::load_csv(path),
            Some("lmp") => return doom::load(path).map(TraceSpec::Script),
            Some("trace") => return Self::load(path),
            _ if arg.contains('/') => return Self::load(path),
            _ => {}
        }
        if let Some(g) = generate::Generator::parse(arg, &Source::Inline(format!("--trace {arg}")))? {
            return Ok(TraceSpec::Generator(g));
        }
        for d in dirs {
            let p = d.join(format!("{arg}.trace"));
            if p.is_file() {
                return Self::load(&p);
            }
        }
        if let Some((name, text)) = crate::library::shipped_traces().iter().find(|(n, _)| *n == arg) {
            let source = Source::BuiltIn(format!("trace {name}"));
            return Ok(TraceSpec::Script(script::Script::parse(text, name, &source)?));
        }
        let mut known: Vec<String> = generate::Generator::NAMES.iter().map(|s| s.to_string()).collect();
        known.extend(list(dirs).into_iter().map(|(n, _)| n));
        Err(InputError::at(
            &Source::Inline(format!("--trace {arg}")),
            None,
            format!("unknown trace `{arg}`: expected a generator, a name from traces/, or a path to a .trace file (known: {})", known.join(", ")),
        ))
    }

    /// Loads a CSV recording of play ([`csv`]).
    pub fn load_csv(path: &Path) -> Result<TraceSpec, InputError> {
        csv::load(path).map(TraceSpec::Script)
    }

    /// Loads a trace file: a trace script, or a Doom demo lump told by its
    /// content (binary, with a v1.9 header) whatever its name.
    pub fn load(path: &Path) -> Result<TraceSpec, InputError> {
        let source = Source::File(path.display().to_string());
        let bytes = crate::limits::read_bytes(path, crate::limits::MAX_INPUT_FILE, "trace file")?;
        if std::str::from_utf8(&bytes).is_err() && doom::looks_like(&bytes) {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("demo");
            return doom::Demo::parse(&bytes, &source)
                .map(|d| TraceSpec::Script(d.to_script(stem, &source, doom::Conversion::default())));
        }
        let text = crate::limits::read_text(path, crate::limits::MAX_INPUT_FILE, "trace file")?;
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("trace");
        Ok(TraceSpec::Script(script::Script::parse(&text, stem, &source)?))
    }
}

/// `--traces` pieces as clap splits them at commas, with each generator's
/// `key=value` settings joined back to it: `human:hold=124ms`,
/// `spread=0.9` is one trace, because a piece with `=` and no `:` is a
/// setting, never a trace.
pub fn rejoin_specs(pieces: &[String]) -> Vec<String> {
    crate::net::transport::split_list(&pieces.join(","))
}

/// The trace files in `dirs`: `(name, first comment line)`, sorted by name,
/// first directory winning on duplicates.
pub fn list(dirs: &[PathBuf]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files {
            if f.extension().is_some_and(|e| e == "trace") {
                let name = f.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
                if out.iter().any(|(n, _)| *n == name) {
                    continue;
                }
                let desc = std::fs::read_to_string(&f).ok().map(|t| first_comment(&t)).unwrap_or_default();
                out.push((name, desc));
            }
        }
    }
    for (name, text) in crate::library::shipped_traces() {
        if !out.iter().any(|(n, _)| n == name) {
            out.push((name.to_string(), first_comment(text)));
        }
    }
    out.sort();
    out
}

/// A trace file's first comment line: its description.
fn first_comment(text: &str) -> String {
    text.lines().find_map(|l| l.trim().strip_prefix('#').map(|s| s.trim().to_string())).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn track_lookup_and_repeat() {
        let r = Input::buttons(Input::RIGHT);
        let l = Input::buttons(Input::LEFT);
        let t = Track { segments: vec![(0, r), (1_000, l)], repeat_us: Some(2_000) };
        assert_eq!(t.input_at(0), r);
        assert_eq!(t.input_at(999), r);
        assert_eq!(t.input_at(1_000), l);
        assert_eq!(t.input_at(2_500), r);
        assert_eq!(t.input_at(3_500), l);
    }

    proptest::proptest! {
        /// The hinted lookup answers every query as the search does, in
        /// order or not, looping or not.
        #[test]
        fn input_near_is_input_at(
            gaps in proptest::collection::vec(1u64..500, 0..12),
            repeat in proptest::option::of(1u64..4_000),
            queries in proptest::collection::vec(0u64..10_000, 1..60),
            sorted in proptest::bool::ANY,
        ) {
            let mut start = 0;
            let mut segments = vec![(0, Input::IDLE)];
            for (k, g) in gaps.iter().enumerate() {
                start += g;
                segments.push((start, Input::buttons(1 << (k % 4))));
            }
            let t = Track { segments, repeat_us: repeat };
            let mut queries = queries;
            if sorted {
                queries.sort_unstable();
            }
            let mut hint = 0;
            for q in queries {
                proptest::prop_assert_eq!(t.input_near(q, &mut hint), t.input_at(q), "at {}", q);
            }
        }
    }

    proptest::proptest! {
        /// A shifted track plays what the original plays `offset` later.
        #[test]
        fn shifted_tracks_play_the_original_later(
            gaps in proptest::collection::vec(1u64..500, 0..12),
            repeat in proptest::option::of(1u64..4_000),
            offset in 0u64..10_000,
            queries in proptest::collection::vec(0u64..10_000, 1..40),
        ) {
            let mut start = 0;
            let mut segments = vec![(0, Input::buttons(Input::SHOOT))];
            for (k, g) in gaps.iter().enumerate() {
                start += g;
                segments.push((start, Input::buttons(1 << (k % 5))));
            }
            let t = Track { segments, repeat_us: repeat };
            let s = t.shifted(offset);
            proptest::prop_assert_eq!(s.segments[0].0, 0);
            for q in queries {
                proptest::prop_assert_eq!(s.input_at(q), t.input_at(q + offset), "at {}", q);
            }
        }
    }

    #[test]
    fn first_change_finds_presses_releases_and_loop_restarts() {
        let r = Input::buttons(Input::RIGHT);
        let l = Input::buttons(Input::LEFT);
        let t = Track { segments: vec![(0, r), (1_000, r), (1_500, l)], repeat_us: Some(2_000) };
        // The 1,000 boundary repeats the input: not a change.
        assert_eq!(t.first_change(0, 1_400, r), None);
        assert_eq!(t.first_change(0, 1_600, r), Some(1_500));
        assert_eq!(t.first_change(1_500, 2_500, l), Some(2_000), "the loop restarts with R");
        assert_eq!(t.first_change(1_600, 1_999, l), None);
        assert_eq!(t.first_change(9_999, 12_000, r), Some(11_500));
        let once = Track { segments: vec![(0, Input::IDLE), (700, r)], repeat_us: None };
        assert_eq!(once.first_change(0, 700, Input::IDLE), Some(700), "the upper end is included");
        assert_eq!(once.first_change(700, 5_000, r), None);
    }
}
