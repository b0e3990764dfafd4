//! One reader of timed CSV recordings, for `profile import` and for
//! `--profile FILE.csv` alike: one table of column names and their units,
//! one reading of a cell, so a file gives the same link either way.
//!
//! The header names the columns, in any order (case ignored, other columns
//! ignored): a time ([`TIME_COLUMNS`]), then a round trip (`rtt_ms`), a
//! one-way delay both ways (`delay_ms`, `one_way_ms`, `owd_ms`) or each way
//! (`up_ms` and `down_ms`), and optionally `lost` (`1`, `true` or `lost`:
//! the probe was lost whatever its delay cells say). A name without a unit
//! (`time`, `rtt`, `delay`, …) is refused with the names to use: `time`
//! read as milliseconds by one tool is seconds to another. A delay cell is
//! milliseconds; empty or `lost` marks a lost probe, `-` a direction not
//! measured then.

use super::{median_spacing, LOST_GAP, MAX_DELAY_US, MAX_SAMPLES, MAX_TIME_MS};
use crate::error::{InputError, Source};

/// Time column names and how many µs one unit of each is.
pub const TIME_COLUMNS: [(&str, f64); 4] = [("time_ms", 1e3), ("t_ms", 1e3), ("time_s", 1e6), ("t_s", 1e6)];

/// Names that lack a unit, and what to call the column instead.
const UNITLESS: [(&str, &str); 7] = [
    ("time", "time_ms or time_s"),
    ("t", "t_ms or t_s"),
    ("rtt", "rtt_ms"),
    ("delay", "delay_ms"),
    ("up", "up_ms"),
    ("down", "down_ms"),
    ("owd", "owd_ms"),
];

/// What a cell of a delay column says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// The delay, µs.
    Delay(u32),
    /// The probe was lost.
    Lost,
    /// Not measured.
    Unknown,
}

/// What the delay columns measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Round trips (`rtt_ms`): `up` and `down` of each row are the round
    /// trip.
    RoundTrip,
    /// One-way delays, the same both ways (`delay_ms`) or each way.
    OneWay,
}

/// A row: its line, its time (µs, as written) and its two directions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// The file's line.
    pub line: usize,
    /// The time, µs.
    pub t_us: u64,
    /// Node → network (or the round trip).
    pub up: Cell,
    /// Network → node (or the round trip).
    pub down: Cell,
}

/// A timed CSV, read.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedCsv {
    /// What its delays measure.
    pub measure: Measure,
    /// Its rows, times increasing.
    pub rows: Vec<Row>,
}

/// Reads a timed CSV (lines starting with `#` are comments).
pub fn read(text: &str, source: &Source) -> Result<TimedCsv, InputError> {
    let mut lines =
        text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((header_line, header)) = lines.next() else {
        return Err(InputError::at(source, None, "an empty recording: expected a header such as `time_ms,rtt_ms`"));
    };
    let columns: Vec<String> = header.split(',').map(|c| c.trim().to_ascii_lowercase()).collect();
    let at_header = |why: String| InputError::at(source, Some(header_line), why);
    if let Some((name, instead)) = UNITLESS.iter().find(|(n, _)| columns.iter().any(|c| c == n)) {
        return Err(at_header(format!("column `{name}` has no unit: name it {instead}")));
    }
    let find = |names: &[&str]| columns.iter().position(|c| names.contains(&c.as_str()));
    let expected =
        "expected a time column (time_ms, time_s) and rtt_ms, delay_ms, or up_ms and down_ms (optionally lost)";
    let time = TIME_COLUMNS.iter().find_map(|(n, unit)| find(&[n]).map(|c| (c, *unit)));
    let (rtt, delay) = (find(&["rtt_ms"]), find(&["delay_ms", "one_way_ms", "owd_ms"]));
    let (up, down) = (find(&["up_ms"]), find(&["down_ms"]));
    let lost_col = find(&["lost", "loss"]);
    let ((time_col, unit_us), (up_col, down_col, measure)) = match (time, rtt, delay, up, down) {
        (Some(t), Some(r), None, None, None) => (t, (r, r, Measure::RoundTrip)),
        (Some(t), None, Some(d), None, None) => (t, (d, d, Measure::OneWay)),
        (Some(t), None, None, Some(u), Some(d)) => (t, (u, d, Measure::OneWay)),
        _ => return Err(at_header(format!("header `{}`: {expected}", crate::error::echo(header)))),
    };
    let mut rows: Vec<Row> = Vec::new();
    for (number, line) in lines {
        if rows.len() >= MAX_SAMPLES {
            return Err(InputError::at(
                source,
                Some(number),
                format!("more than {MAX_SAMPLES} probes: cut the recording"),
            ));
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != columns.len() {
            return Err(InputError::at(
                source,
                Some(number),
                format!("{} cells: expected {} (`{}`)", cells.len(), columns.len(), crate::error::echo(header)),
            ));
        }
        let bad = |what: String| InputError::at(source, Some(number), what);
        let limit = MAX_TIME_MS * 1e3 / unit_us;
        let t_us = cells[time_col]
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && (0.0..=limit).contains(t))
            .map(|t| (t * unit_us).round() as u64)
            .ok_or_else(|| {
                bad(format!(
                    "`{}`: expected a time from 0 to {limit} in the unit of `{}` (about 31 years)",
                    crate::error::echo(cells[time_col]),
                    columns[time_col]
                ))
            })?;
        if let Some(before) = rows.last() {
            if t_us <= before.t_us {
                return Err(bad(format!(
                    "`{}`: not after the row before (line {}): times must increase",
                    crate::error::echo(cells[time_col]),
                    before.line
                )));
            }
        }
        let lost = lost_col.is_some_and(|c| matches!(cells[c].to_ascii_lowercase().as_str(), "1" | "true" | "lost"));
        let cell = |i: usize| -> Result<Cell, InputError> {
            match cells[i] {
                "-" => Ok(Cell::Unknown),
                _ if lost => Ok(Cell::Lost),
                "" | "lost" => Ok(Cell::Lost),
                c => super::delay_us(c).ok().map(Cell::Delay).ok_or_else(|| {
                    bad(format!(
                        "`{}`: expected a delay in ms from 0 to {}, empty or `lost` (or `-`: not measured)",
                        crate::error::echo(c),
                        MAX_DELAY_US / 1000
                    ))
                }),
            }
        };
        rows.push(Row { line: number, t_us, up: cell(up_col)?, down: cell(down_col)? });
    }
    Ok(TimedCsv { measure, rows })
}

impl TimedCsv {
    /// The recording with the probes its gaps missed as rows lost both
    /// ways (see `missed`; each carries the line of the row after its
    /// gap), and how many. The one filling for the replay and for
    /// `profile import`, so both infer the same losses.
    pub fn with_missed(mut self) -> (TimedCsv, usize) {
        let times: Vec<u64> = self.rows.iter().map(|r| r.t_us).collect();
        let missed = missed(&times);
        let count = missed.len();
        let mut rows = Vec::with_capacity(self.rows.len() + count);
        let mut lost = missed.into_iter().peekable();
        for r in self.rows {
            while let Some(t_us) = lost.next_if(|&t| t < r.t_us) {
                rows.push(Row { line: r.line, t_us, up: Cell::Lost, down: Cell::Lost });
            }
            rows.push(r);
        }
        self.rows = rows;
        (self, count)
    }
}

/// The times of the probes a timed recording missed, given its rows'
/// increasing `times` (µs): in each gap of [`LOST_GAP`] median spacings or
/// more, `round(gap / spacing) − 1` probes a spacing apart; it stops past
/// [`MAX_SAMPLES`] (the caller refuses so many).
fn missed(times: &[u64]) -> Vec<u64> {
    let Some(spacing) = median_spacing(times.iter().copied()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for w in times.windows(2) {
        let gap = w[1] - w[0];
        if gap >= LOST_GAP * spacing {
            let missing = (gap + spacing / 2) / spacing - 1;
            out.extend((1..=missing).map(|k| w[0] + k * spacing).take_while(|t| *t < w[1]).take(MAX_SAMPLES + 1));
            if out.len() > MAX_SAMPLES {
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source::File("rec".into())
    }

    #[test]
    fn the_column_table_names_units_and_refuses_names_without_one() {
        let seconds = read("time_s,rtt_ms,seq\n0.5,20,1\n0.51,,2\n", &src()).unwrap();
        assert_eq!(seconds.measure, Measure::RoundTrip);
        assert_eq!(
            seconds.rows,
            vec![
                Row { line: 2, t_us: 500_000, up: Cell::Delay(20_000), down: Cell::Delay(20_000) },
                Row { line: 3, t_us: 510_000, up: Cell::Lost, down: Cell::Lost },
            ]
        );
        // The same recording in milliseconds, columns in another order.
        let ms = read("RTT_MS,Time_ms\n20,500\n,510\n", &src()).unwrap();
        assert_eq!(
            ms.rows.iter().map(|r| (r.t_us, r.up)).collect::<Vec<_>>(),
            vec![(500_000, Cell::Delay(20_000)), (510_000, Cell::Lost)]
        );
        for (header, says) in [
            ("time,rtt_ms", "column `time` has no unit: name it time_ms or time_s"),
            ("time_ms,rtt", "column `rtt` has no unit: name it rtt_ms"),
            ("time_ms,delay", "column `delay` has no unit"),
            ("time_ms,seq", "expected a time column"),
            ("rtt_ms,delay_ms,time_ms", "expected a time column"),
        ] {
            let e = read(&format!("{header}\n0,1\n"), &src()).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("rec:1"), "{header}: {e}");
        }
    }

    #[test]
    fn gaps_of_two_spacings_or_more_hold_missed_probes() {
        // Spacing 10 ms; a 30 ms gap holds two, a 15 ms one none.
        assert_eq!(missed(&[0, 10_000, 40_000, 50_000, 65_000, 75_000]), vec![20_000, 30_000]);
        assert!(missed(&[0]).is_empty() && missed(&[]).is_empty());
        // A gap of a year at 10 ms stops past the limit.
        assert_eq!(missed(&[0, 10_000, 20_000, 31_536_000_000_000]).len(), MAX_SAMPLES + 1);
    }

    #[test]
    fn cells_read_alike_whatever_the_columns() {
        let t = read("time_ms,up_ms,down_ms,lost\n0,10,-,0\n10,,12,0\n20,11,12,1\n", &src()).unwrap();
        let cells: Vec<(Cell, Cell)> = t.rows.iter().map(|r| (r.up, r.down)).collect();
        assert_eq!(
            cells,
            vec![(Cell::Delay(10_000), Cell::Unknown), (Cell::Lost, Cell::Delay(12_000)), (Cell::Lost, Cell::Lost),]
        );
        for (text, line, says) in [
            ("time_ms,rtt_ms\n5,1\n5,1\n", 3, "not after the row before (line 2)"),
            ("time_ms,rtt_ms\n0,1,2\n", 2, "3 cells: expected 2"),
            ("time_ms,rtt_ms\n0,-5\n", 2, "expected a delay in ms from 0 to 60000"),
            ("time_ms,rtt_ms\n-1,5\n", 2, "expected a time from 0"),
            ("# only a comment\n", 0, "an empty recording"),
        ] {
            let e = read(text, &src()).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
            if line > 0 {
                assert!(e.contains(&format!("rec:{line}")), "{text}: {e}");
            }
        }
    }
}
