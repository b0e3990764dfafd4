//! Recorded links: what a real path did, read from a file, to be replayed
//! per direction.
//!
//! Two kinds of recording:
//!
//! - a **delay recording** ([`Delays`]): the one-way delay in force from
//!   each instant on, or that the path lost what was sent then. Read from a
//!   delay series (LeoReplayer's format: line *i* is the delay in ms of the
//!   *i*-th interval, 10 ms unless said otherwise) or from timestamped
//!   samples (`time_ms,delay_ms`, an empty delay or `lost` marking a lost
//!   probe);
//! - a **delivery-opportunity trace** ([`Opportunities`], Mahimahi's
//!   format): one millisecond timestamp per line, each an opportunity to
//!   carry 1,504 bytes; the trace repeats with the last timestamp as its
//!   period.
//!
//! A timed CSV ([`timed_csv`]) gives both directions' delay recordings at
//! once. Both kinds repeat when shorter than a run. Every value is checked as it is
//! read: a bad line is an [`InputError`] naming the file, the line and what
//! was expected, and a file longer than [`MAX_SAMPLES`] lines is refused.
//!
//! Beside the readers: their replay after netem ([`replay`]), ping and
//! IRTT output imported as a recording ([`import`]), the netem
//! description closest to a recording ([`fit`]), a model of its regimes
//! ([`regimes`]) and the time structure both are measured on
//! ([`time_structure`]).

use crate::error::{InputError, Source};

pub mod csv;
pub mod fit;
pub mod import;
pub mod regimes;
pub mod replay;
pub mod time_structure;

/// What a profile argument naming a recording by path should say before
/// it runs: the probes a timed CSV's gaps are read as having lost (a CSV
/// has no sequence numbers), and a Mahimahi pair's missing propagation
/// delay when the argument adds none. Nothing for anything else, or a
/// file that does not read (the run says why).
pub fn path_notes(arg: &str) -> Vec<String> {
    let mut words = arg.split_whitespace();
    let Some(first) = words.next() else { return Vec::new() };
    let path = std::path::Path::new(first);
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "csv" => {
            let Ok(text) = crate::limits::read_text(path, crate::limits::MAX_INPUT_FILE, "recording") else {
                return Vec::new();
            };
            let Ok(read) = csv::read(&text, &Source::File(first.to_string())) else { return Vec::new() };
            let missed = read.with_missed().1;
            (missed > 0)
                .then(|| {
                    format!(
                        "{first}: {missed} probes inferred lost from gaps of {LOST_GAP} median spacings or more (a CSV has no sequence numbers: give a lost probe a row with an empty delay to say so yourself)"
                    )
                })
                .into_iter()
                .collect()
        }
        "up" | "down" if !words.any(|w| w == "delay") => vec![format!(
            "{first}: a Mahimahi trace has no propagation delay (its packets meet only the queueing its opportunities make): add the path's own, e.g. --profile \"{first} delay 20ms\""
        )],
        _ => Vec::new(),
    }
}

/// The most samples (lines) a recording may hold: 2·10⁶, five and a half
/// hours of 10 ms intervals.
pub const MAX_SAMPLES: usize = 2_000_000;

/// The largest delay a recording may state: 60 s.
pub const MAX_DELAY_US: u64 = 60_000_000;

/// The latest time a timed recording may state, ms (about 31 years: any
/// run ends before).
pub const MAX_TIME_MS: f64 = 1e12;

/// Bytes one delivery opportunity carries (Mahimahi's `PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u32 = 1_504;

/// A delay recording: from `times_us[i]` on (until the next sample), a
/// packet sent meets `delays_us[i]`, or is lost when that is `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct Delays {
    times_us: Vec<u64>,
    delays_us: Vec<Option<u32>>,
    period_us: u64,
}

impl Delays {
    /// Reads a delay series: one delay in milliseconds per line (decimals
    /// allowed), each line `interval_us` after the one before. Blank lines
    /// and lines starting with `#` are skipped.
    pub fn series(text: &str, interval_us: u64, source: &Source) -> Result<Delays, InputError> {
        if interval_us == 0 || interval_us > MAX_DELAY_US {
            return Err(InputError::at(source, None, "a delay series needs an interval above 0 and at most 60 s"));
        }
        let mut delays = Vec::new();
        for (number, line) in data_lines(text) {
            check_count(delays.len(), source, number)?;
            delays.push(Some(delay_ms(line, source, number)?));
        }
        if delays.is_empty() {
            return Err(InputError::at(source, None, "an empty delay series: expected one delay in ms per line"));
        }
        let times_us = (0..delays.len() as u64).map(|i| i * interval_us).collect();
        Ok(Delays { period_us: delays.len() as u64 * interval_us, times_us, delays_us: delays })
    }

    /// Timestamped samples: `(time µs, delay µs or lost)`, times strictly
    /// increasing. The recording repeats after its last sample plus the
    /// median spacing of its samples.
    pub fn samples(samples: Vec<(u64, Option<u32>)>, source: &Source) -> Result<Delays, InputError> {
        if samples.is_empty() {
            return Err(InputError::at(source, None, "no samples: expected at least one timed delay"));
        }
        if let Some(w) = samples.windows(2).position(|w| w[1].0 <= w[0].0) {
            return Err(InputError::at(
                source,
                None,
                format!("sample {}: its time is not after the one before", w + 2),
            ));
        }
        let first = samples[0].0;
        let spacing = median_spacing(samples.iter().map(|s| s.0)).unwrap_or(10_000);
        let period_us = samples[samples.len() - 1].0 - first + spacing;
        let (times_us, delays_us) = samples.into_iter().map(|(t, d)| (t - first, d)).unzip();
        Ok(Delays { times_us, delays_us, period_us })
    }

    /// How long the recording lasts before it repeats, µs.
    pub fn period_us(&self) -> u64 {
        self.period_us
    }

    /// The samples: `(time µs from the start, delay µs or lost)`.
    pub fn iter(&self) -> impl Iterator<Item = (u64, Option<u32>)> + '_ {
        self.times_us.iter().copied().zip(self.delays_us.iter().copied())
    }

    /// The sample in force at `t_us` into the (repeating) recording, found
    /// from `cursor` (where the last lookup ended: times asked in order
    /// cost O(1) each, without a division).
    pub fn at(&self, t_us: u64, cursor: &mut Cursor) -> Option<u32> {
        if t_us < cursor.base_us || t_us - cursor.base_us >= self.period_us {
            // Another repetition, or asked out of order: place the cursor.
            cursor.base_us = t_us - t_us % self.period_us;
            let t = t_us - cursor.base_us;
            cursor.index = self.times_us.partition_point(|&s| s <= t).saturating_sub(1);
        }
        let t = t_us - cursor.base_us;
        let mut i = cursor.index;
        if self.times_us[i] > t {
            i = self.times_us.partition_point(|&s| s <= t).saturating_sub(1);
        }
        while self.times_us.get(i + 1).is_some_and(|&s| s <= t) {
            i += 1;
        }
        cursor.index = i;
        self.delays_us[i]
    }
}

/// Where a reading of a [`Delays`] stands: the sample found last and the
/// start of its repetition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    index: usize,
    base_us: u64,
}

/// A delivery-opportunity trace: opportunity `k` is at `times_ms[k]`
/// within each repetition of `period_ms`.
#[derive(Clone, Debug, PartialEq)]
pub struct Opportunities {
    times_ms: Vec<u64>,
    period_ms: u64,
}

impl Opportunities {
    /// Reads Mahimahi's format: one non-decreasing integer millisecond
    /// timestamp per line; the last one, above 0, is the period.
    pub fn parse(text: &str, source: &Source) -> Result<Opportunities, InputError> {
        let mut times_ms: Vec<u64> = Vec::new();
        for (number, line) in data_lines(text) {
            check_count(times_ms.len(), source, number)?;
            let t: u64 = line.parse().map_err(|_| {
                // A timed CSV (its header first) is another format, named.
                let csv = times_ms.is_empty()
                    && line.contains(',')
                    && line.split(',').next().is_some_and(|c| c.trim().to_ascii_lowercase().starts_with("time"));
                let why = if csv {
                    "a timed CSV's header, not a delivery-opportunity trace: give the file as `samples = \"…\"` (delays over time), or give `opportunities` Mahimahi's format, one whole millisecond timestamp per line".to_string()
                } else {
                    "expected a whole number of milliseconds (Mahimahi's format: one timestamp per line)".to_string()
                };
                InputError::at(source, Some(number), format!("`{}`: {why}", crate::error::echo(line)))
            })?;
            if t > MAX_TIME_MS as u64 {
                return Err(InputError::at(
                    source,
                    Some(number),
                    format!("{t} ms: expected at most {MAX_TIME_MS} ms (about 31 years)"),
                ));
            }
            if times_ms.last().is_some_and(|&last| t < last) {
                return Err(InputError::at(
                    source,
                    Some(number),
                    format!("{t} ms comes before the line above it: timestamps must not decrease"),
                ));
            }
            times_ms.push(t);
        }
        let period_ms = times_ms.last().copied().unwrap_or(0);
        if period_ms == 0 {
            return Err(InputError::at(
                source,
                None,
                "no delivery opportunity after 0 ms: expected one millisecond timestamp per line, the last above 0",
            ));
        }
        Ok(Opportunities { times_ms, period_ms })
    }

    /// How long the trace lasts before it repeats, ms.
    pub fn period_ms(&self) -> u64 {
        self.period_ms
    }

    /// Opportunities in each `bin_ms` of one repetition (the last bin
    /// holds what is left of the period).
    pub fn counts(&self, bin_ms: u64) -> Vec<u32> {
        let bin_ms = bin_ms.max(1);
        let mut counts = vec![0u32; self.period_ms.div_ceil(bin_ms) as usize];
        for &t in &self.times_ms {
            let b = ((t / bin_ms) as usize).min(counts.len() - 1);
            counts[b] = counts[b].saturating_add(1);
        }
        counts
    }

    /// A trace of `counts[b]` opportunities in bin `b` of `bin_ms`, spread
    /// evenly within it; the period is the bins' length. `None` with no
    /// opportunity at all.
    pub fn from_counts(counts: &[u32], bin_ms: u64) -> Option<Opportunities> {
        let bin_ms = bin_ms.max(1);
        let times_ms: Vec<u64> = counts
            .iter()
            .enumerate()
            .flat_map(|(b, &c)| (0..c as u64).map(move |k| b as u64 * bin_ms + k * bin_ms / c as u64))
            .collect();
        (!times_ms.is_empty()).then(|| Opportunities { times_ms, period_ms: counts.len() as u64 * bin_ms })
    }

    /// Opportunities per repetition.
    pub fn len(&self) -> usize {
        self.times_ms.len()
    }

    /// Whether the trace has no opportunity (never: [`Opportunities::parse`]
    /// refuses one).
    pub fn is_empty(&self) -> bool {
        self.times_ms.is_empty()
    }

    /// The mean rate the trace carries, bits per second.
    pub fn mean_bits_per_s(&self) -> f64 {
        self.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 / (self.period_ms as f64 / 1e3)
    }

    /// The first opportunity at or after `t_ms`.
    pub fn first_from(&self, t_ms: u64) -> Opportunity {
        let (rep, within) = (t_ms / self.period_ms, t_ms % self.period_ms);
        let index = self.times_ms.partition_point(|&s| s < within);
        self.wrap(Opportunity { rep, index })
    }

    /// The first opportunity at or after `t_ms`, counting on from `from`
    /// (the common case — a few steps ahead — without a search).
    pub fn first_at_or_after_from(&self, from: Opportunity, t_ms: u64) -> Opportunity {
        let mut o = from;
        for _ in 0..16 {
            if self.time_of(o) >= t_ms {
                return o;
            }
            o = self.next(o);
        }
        self.first_from(t_ms)
    }

    /// The opportunity after `o`.
    pub fn next(&self, o: Opportunity) -> Opportunity {
        self.wrap(Opportunity { rep: o.rep, index: o.index + 1 })
    }

    /// When `o` is, ms.
    pub fn time_of(&self, o: Opportunity) -> u64 {
        o.rep * self.period_ms + self.times_ms[o.index]
    }

    fn wrap(&self, o: Opportunity) -> Opportunity {
        if o.index >= self.times_ms.len() {
            Opportunity { rep: o.rep + 1, index: 0 }
        } else {
            o
        }
    }
}

/// An opportunity of an [`Opportunities`] trace, counted as its
/// repetition and its index within it: stepping and timing it take no
/// division.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Opportunity {
    rep: u64,
    index: usize,
}

/// A gap between timed samples of at least this many times their median
/// spacing holds lost probes: `round(gap / spacing) − 1` of them.
pub const LOST_GAP: u64 = 2;

/// What a gap between a timed recording's rows means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Gaps {
    /// Probes the recording missed: lost ([`LOST_GAP`] median spacings or
    /// more).
    #[default]
    Lost,
    /// Nothing was sent then: every probe sent is a row (ping and IRTT
    /// imports, whose sequence numbers account for each).
    Unsent,
}

impl Gaps {
    /// From a profile's `gaps = "..."`.
    pub fn from_name(s: &str) -> Option<Gaps> {
        match s {
            "lost" => Some(Gaps::Lost),
            "unsent" => Some(Gaps::Unsent),
            _ => None,
        }
    }
}

/// The two directions of a timed recording.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedDelays {
    /// Node → network.
    pub up: Delays,
    /// Network → node.
    pub down: Delays,
}

/// Reads a timed CSV recording (see [`csv`] for its columns and cells):
/// a round trip counts half each way; a direction not measured keeps the
/// sample before in force (a probe lost on the way up says nothing of the
/// way down). With [`Gaps::Lost`], a gap between rows of [`LOST_GAP`]
/// median spacings or more holds lost probes too (the recording missed
/// them).
pub fn timed_csv(text: &str, source: &Source, gaps: Gaps) -> Result<TimedDelays, InputError> {
    let read = csv::read(text, source)?;
    let read = if gaps == Gaps::Lost { read.with_missed().0 } else { read };
    let halve = read.measure == csv::Measure::RoundTrip;
    let cell = |c: csv::Cell| match c {
        csv::Cell::Unknown => None,
        csv::Cell::Lost => Some(None),
        csv::Cell::Delay(d) => Some(Some(if halve { d.div_ceil(2) } else { d })),
    };
    // (time, up, down): per cell, Some(sample) or None for "not measured".
    let rows: Vec<Row> = read.rows.iter().map(|r| (r.t_us, cell(r.up), cell(r.down))).collect();
    if rows.len() > MAX_SAMPLES {
        return Err(InputError::at(
            source,
            None,
            format!("{} samples with the probes its gaps missed: more than the limit of {MAX_SAMPLES}", rows.len()),
        ));
    }
    // Both directions start at the file's first row and repeat with the
    // file's period, so a node's one offset reads the same instant of both.
    let (Some(&(t0, _, _)), Some(&(last, _, _))) = (rows.first(), rows.last()) else {
        return Err(InputError::at(source, None, "no samples: expected at least one timed delay"));
    };
    let period_us = last - t0 + median_spacing(rows.iter().map(|r| r.0)).unwrap_or(10_000);
    let direction = |pick: fn(&Row) -> Option<Option<u32>>, name: &str| {
        let mut samples: Vec<(u64, Option<u32>)> = rows.iter().filter_map(|r| pick(r).map(|c| (r.0 - t0, c))).collect();
        if samples.is_empty() {
            return Err(InputError::at(source, None, format!("no {name} sample: every cell is `-`")));
        }
        // Before the direction's first measurement, its first one holds.
        samples[0].0 = 0;
        let (times_us, delays_us) = samples.into_iter().unzip();
        Ok(Delays { times_us, delays_us, period_us })
    };
    Ok(TimedDelays { up: direction(|r| r.1, "uplink")?, down: direction(|r| r.2, "downlink")? })
}

/// The median gap between consecutive increasing times, at least 1;
/// `None` for fewer than two times.
pub(crate) fn median_spacing(times: impl Iterator<Item = u64>) -> Option<u64> {
    let times: Vec<u64> = times.collect();
    let mut gaps: Vec<u64> = times.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
    gaps.sort_unstable();
    gaps.get(gaps.len() / 2).map(|&g| g.max(1))
}

/// A timed row: time µs, then per direction `Some(delay µs or lost)` or
/// `None` (not measured).
type Row = (u64, Option<Option<u32>>, Option<Option<u32>>);

/// The lines that hold data, with their 1-based numbers: blank lines and
/// `#` comments skipped.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
}

fn check_count(count: usize, source: &Source, number: usize) -> Result<(), InputError> {
    if count >= MAX_SAMPLES {
        return Err(InputError::at(source, Some(number), format!("more than {MAX_SAMPLES} samples: the limit")));
    }
    Ok(())
}

/// A delay in milliseconds (decimals allowed) as µs, checked.
fn delay_ms(text: &str, source: &Source, number: usize) -> Result<u32, InputError> {
    delay_us(text).map_err(|why| {
        InputError::at(
            source,
            Some(number),
            format!("`{}`: expected a delay in milliseconds {why}", crate::error::echo(text)),
        )
    })
}

/// A delay in milliseconds (decimals allowed) as µs: what it is not, if
/// it is not a number from 0 to [`MAX_DELAY_US`]. The one rule for every
/// recording's delays.
fn delay_us(text: &str) -> Result<u32, String> {
    let ms: f64 = text.parse().map_err(|_| "(a number such as 12 or 11.5)".to_string())?;
    if !ms.is_finite() || ms < 0.0 {
        return Err("of 0 or more".into());
    }
    let us = (ms * 1e3).round();
    if us > MAX_DELAY_US as f64 {
        return Err(format!("of at most {} s", MAX_DELAY_US / 1_000_000));
    }
    Ok(us as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counting a trace in bins and spreading the counts back keeps every
    /// bin's count and the period.
    #[test]
    fn opportunities_count_and_spread_back() {
        let o = Opportunities::parse("3\n3\n7\n51\n99\n100\n", &Source::Inline("t".into())).unwrap();
        assert_eq!(o.counts(50), vec![3, 3]);
        let back = Opportunities::from_counts(&o.counts(50), 50).unwrap();
        assert_eq!(back.counts(50), vec![3, 3]);
        assert_eq!((back.len(), back.period_ms()), (6, 100));
        assert!(Opportunities::from_counts(&[0, 0], 50).is_none());
    }

    fn src() -> Source {
        Source::File("t.txt".into())
    }

    #[test]
    fn a_series_is_a_delay_per_interval_and_repeats() {
        let d = Delays::series("# one-way ms\n11\n12.5\n\n68\n", 10_000, &src()).unwrap();
        assert_eq!(d.period_us(), 30_000);
        let mut c = Cursor::default();
        let got: Vec<Option<u32>> =
            [0, 9_999, 10_000, 25_000, 30_000, 41_000].iter().map(|&t| d.at(t, &mut c)).collect();
        assert_eq!(got, [Some(11_000), Some(11_000), Some(12_500), Some(68_000), Some(11_000), Some(12_500)]);
        // Out of order, from any cursor: the same answers.
        for (t, want) in [(25_000, 68_000), (0, 11_000), (10_000, 12_500)] {
            let mut c = Cursor { index: 2, base_us: 30_000 };
            assert_eq!(d.at(t, &mut c), Some(want));
        }
    }

    #[test]
    fn samples_keep_losses_and_repeat_after_the_median_spacing() {
        let d = Delays::samples(vec![(1_000, Some(20_000)), (11_000, None), (21_000, Some(30_000))], &src()).unwrap();
        assert_eq!(d.period_us(), 30_000);
        let mut c = Cursor::default();
        assert_eq!(
            [5_000, 15_000, 25_000, 35_000].map(|t| d.at(t, &mut c)),
            [Some(20_000), None, Some(30_000), Some(20_000)]
        );
        let back = Delays::samples(vec![(0, Some(1)), (0, Some(2))], &src()).unwrap_err().to_string();
        assert!(back.contains("sample 2") && back.contains("not after"), "{back}");
    }

    #[test]
    fn bad_series_name_the_line() {
        for (text, line, what) in [
            ("11\n-3\n", 2, "of 0 or more"),
            ("11\nabc\n", 2, "a number such as"),
            ("1\n2\n99999999\n", 3, "at most 60 s"),
            ("NaN\n", 1, "of 0 or more"),
        ] {
            let e = Delays::series(text, 10_000, &src()).unwrap_err().to_string();
            assert!(e.contains(&format!("t.txt:{line}")) && e.contains(what), "{text:?}: {e}");
        }
        let e = Delays::series("# nothing\n\n", 10_000, &src()).unwrap_err().to_string();
        assert!(e.contains("empty delay series"), "{e}");
    }

    #[test]
    fn a_long_file_is_refused_at_the_limit() {
        let text = "1\n".repeat(MAX_SAMPLES + 1);
        let e = Delays::series(&text, 10_000, &src()).unwrap_err().to_string();
        assert!(e.contains(&format!("t.txt:{}", MAX_SAMPLES + 1)) && e.contains("limit"), "{e}");
    }

    #[test]
    fn opportunities_repeat_with_the_last_timestamp_as_period() {
        let o = Opportunities::parse("0\n5\n5\n20\n", &src()).unwrap();
        assert_eq!((o.period_ms(), o.len()), (20, 4));
        let mut k = o.first_from(0);
        let times: Vec<u64> = (0..6)
            .map(|_| {
                let t = o.time_of(k);
                k = o.next(k);
                t
            })
            .collect();
        assert_eq!(times, [0, 5, 5, 20, 20, 25]);
        // From any start.
        let at = |t| o.time_of(o.first_from(t));
        assert_eq!([0, 1, 6, 21].map(at), [0, 5, 20, 25]);
        let from = o.first_from(0);
        assert_eq!(o.time_of(o.first_at_or_after_from(from, 21)), 25);
        assert_eq!(o.time_of(o.first_at_or_after_from(from, 10_000)), 10_000);
        // 4 opportunities of 1,504 B in 20 ms.
        assert!((o.mean_bits_per_s() - 4.0 * 1504.0 * 8.0 / 0.02).abs() < 1e-6);
        for (text, line, what) in [
            ("1\n3\n2\n", 3, "must not decrease"),
            ("1\nx\n", 2, "whole number"),
            ("0\n0\n", 0, "after 0 ms"),
            // A timed CSV where a Mahimahi trace belongs: said so.
            ("time_ms,rtt_ms\n0,20\n10,21\n", 1, "a timed CSV's header, not a delivery-opportunity trace"),
        ] {
            let e = Opportunities::parse(text, &src()).unwrap_err().to_string();
            let at = if line == 0 { "t.txt".to_string() } else { format!("t.txt:{line}") };
            assert!(e.contains(&at) && e.contains(what), "{text:?}: {e}");
        }
    }

    #[test]
    fn a_recording_by_path_says_what_it_infers_and_what_it_lacks() {
        let dir = std::env::temp_dir().join(format!("syncbench-path-notes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gappy = dir.join("gappy.csv");
        std::fs::write(&gappy, "time_ms,rtt_ms\n0,20\n10,20\n40,20\n50,20\n").unwrap();
        let even = dir.join("even.csv");
        std::fs::write(&even, "time_ms,rtt_ms\n0,20\n10,20\n20,20\n").unwrap();
        let g = gappy.display().to_string();
        let notes = path_notes(&format!("{g} loss 1%"));
        assert!(notes.len() == 1 && notes[0].contains("2 probes inferred lost"), "{notes:?}");
        assert!(path_notes(&even.display().to_string()).is_empty());
        let pair = path_notes("traces/cell.up");
        assert!(pair.len() == 1 && pair[0].contains("no propagation delay"), "{pair:?}");
        assert!(path_notes("traces/cell.up delay 20ms").is_empty());
        assert!(path_notes("wifi").is_empty() && path_notes("").is_empty());
        assert!(path_notes("/no/such/file.csv").is_empty(), "the run says why");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_timed_csv_halves_round_trips_and_fills_gaps_with_losses() {
        let t = timed_csv("# c\ntime_ms,rtt_ms\n0,24\n55,lost\n110,15\n220,30\n275,\n", &src(), Gaps::Lost).unwrap();
        assert_eq!(t.up, t.down);
        let got: Vec<(u64, Option<u32>)> = t.up.iter().collect();
        // 110 → 220 is two spacings: one probe missed at 165.
        assert_eq!(
            got,
            [
                (0, Some(12_000)),
                (55_000, None),
                (110_000, Some(7_500)),
                (165_000, None),
                (220_000, Some(15_000)),
                (275_000, None)
            ]
        );
        let t = timed_csv("time_ms,up_ms,down_ms\n0,10,20\n10,,21\n20,11,-\n30,12,22\n", &src(), Gaps::Lost).unwrap();
        assert_eq!(
            t.up.iter().collect::<Vec<_>>(),
            [(0, Some(10_000)), (10_000, None), (20_000, Some(11_000)), (30_000, Some(12_000))]
        );
        // `-`: not measured; the sample before stays in force.
        assert_eq!(
            t.down.iter().collect::<Vec<_>>(),
            [(0, Some(20_000)), (10_000, Some(21_000)), (30_000, Some(22_000))]
        );
        assert!(timed_csv("time_ms,up_ms,down_ms\n0,1,-\n", &src(), Gaps::Lost)
            .unwrap_err()
            .to_string()
            .contains("no downlink sample"));
        for (text, line, what) in [
            ("time_ms,rtt\n", 1, "column `rtt` has no unit: name it rtt_ms"),
            ("time_ms,seq\n", 1, "expected a time column"),
            ("time_ms,delay_ms\n0,1\n0,2\n", 3, "times must increase"),
            ("time_ms,delay_ms\n0,1,2\n", 2, "3 cells: expected 2"),
            ("time_ms,delay_ms\n0,-1\n", 2, "expected a delay in ms from 0 to 60000"),
            ("time_ms,delay_ms\nx,1\n", 2, "expected a time from 0"),
        ] {
            let e = timed_csv(text, &src(), Gaps::Lost).unwrap_err().to_string();
            assert!(e.contains(&format!("t.txt:{line}")) && e.contains(what), "{text:?}: {e}");
        }
        assert!(timed_csv("# only\n", &src(), Gaps::Lost).unwrap_err().to_string().contains("empty recording"));
        // A gap that would hold more lost probes than the limit.
        let e = timed_csv("time_ms,delay_ms\n0,10\n10,10\n20,10\n1000000000,10\n", &src(), Gaps::Lost).unwrap_err();
        assert!(e.to_string().contains("more than the limit"), "{e}");
        // Both directions share the file's start and period.
        let t = timed_csv("time_ms,up_ms,down_ms\n0,-,20\n10,11,21\n20,12,-\n", &src(), Gaps::Lost).unwrap();
        assert_eq!((t.up.period_us(), t.down.period_us()), (30_000, 30_000));
        // Any column order, seconds, and extra columns: the same link.
        let s = timed_csv("seq,RTT_MS,time_s\n1,24,0\n2,lost,0.055\n", &src(), Gaps::Lost).unwrap();
        let ms = timed_csv("time_ms,rtt_ms\n0,24\n55,lost\n", &src(), Gaps::Lost).unwrap();
        assert_eq!(s, ms);
        assert_eq!(t.up.iter().next(), Some((0, Some(11_000))));
    }
}
