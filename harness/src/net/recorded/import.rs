//! Importing a link recording a user can make today into the timed CSV a
//! profile replays ([`super::timed_csv`]).
//!
//! Three inputs, told apart by their text:
//!
//! - **`ping -D` output** (iputils): a reply line is
//!   `[SECONDS.MICROS] 64 bytes from HOST: icmp_seq=N ttl=T time=X ms`.
//!   The bracketed stamp is when the reply was printed, so a probe's send
//!   time is the stamp less its round trip. A sequence number with no reply
//!   is a lost probe, placed at the send time its neighbours imply. Only
//!   round trips: the CSV says `rtt_ms` and a replay halves each. The
//!   stamps are wall-clock time: a reply sent before the one with the
//!   sequence number below it, by more than ping's rounding of the two
//!   round trips, is a step of the clock and refused naming its line;
//!   within the rounding it is placed 1 µs after, and a forward jump far
//!   beyond the probe interval is kept; both are said in the import's note.
//! - **IRTT's JSON** (`irtt client -o FILE.json`): `round_trips[]`, each
//!   with `seqno`, `lost` (`"false"`, `"true"`, `"true_up"`,
//!   `"true_down"`), `timestamps.client.send` (ns: `monotonic`, the
//!   client's monotonic clock, where every round trip has it, else `wall`)
//!   and `delay` (`rtt`, `send`, `receive`, ns). The round trips are taken
//!   in the file's order, IRTT's sending order: a send time not after the
//!   one before is refused, naming both. One-way delays are kept (`up_ms`,
//!   `down_ms`) when every received probe has both and none is negative
//!   (the clocks agree); otherwise round trips. A probe lost up is lost
//!   up and not measured down; one lost down the other way round; one lost
//!   in an unknown direction is lost both ways.
//! - **A CSV**, read as `--profile FILE.csv` reads it ([`super::csv`]):
//!   the same columns and units, and the probes its gaps missed inferred
//!   lost the same way (a note says how many), so the import replays the
//!   link the file does.
//!
//! Times are made relative to the first probe, and a probe further from
//! it than a recording may span is refused naming its line (or round
//! trip). A CSV's times must increase row by row. Every probe sent is a row
//! of the import (ping's and IRTT's sequence numbers account for each, a
//! CSV's gaps are filled), so a profile replaying an import says
//! `gaps = "unsent"`. Every error names the file,
//! the line (JSON: the round trip) and what was expected.

use crate::error::{InputError, Source};

/// Which tool wrote a recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    /// iputils' `ping -D`.
    Ping,
    /// IRTT's JSON.
    Irtt,
    /// A CSV.
    Csv,
}

impl Tool {
    /// Its name in messages and provenance.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Ping => "ping -D",
            Tool::Irtt => "IRTT JSON",
            Tool::Csv => "CSV",
        }
    }
}

pub use super::csv::Cell;

/// What an imported recording holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Samples {
    /// Round trips: `(time µs, rtt)`.
    Rtt(Vec<(u64, Cell)>),
    /// One-way delays: `(time µs, up, down)`.
    OneWay(Vec<(u64, Cell, Cell)>),
}

/// An imported recording.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The tool that wrote it.
    pub tool: Tool,
    /// Its samples, times relative to the first.
    pub samples: Samples,
    /// Why one-way delays were not kept, if the tool had them.
    pub note: Option<String>,
}

impl Imported {
    /// Probes in the recording.
    pub fn len(&self) -> usize {
        match &self.samples {
            Samples::Rtt(v) => v.len(),
            Samples::OneWay(v) => v.len(),
        }
    }

    /// Whether it holds no probe (never: [`import`] refuses one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Probes lost (in either direction).
    pub fn lost(&self) -> usize {
        match &self.samples {
            Samples::Rtt(v) => v.iter().filter(|(_, c)| *c == Cell::Lost).count(),
            Samples::OneWay(v) => v.iter().filter(|(_, u, d)| *u == Cell::Lost || *d == Cell::Lost).count(),
        }
    }

    /// The recording as a timed CSV, `header` lines (provenance) first as
    /// comments.
    pub fn to_csv(&self, header: &[String]) -> String {
        let mut out: String = header.iter().map(|h| format!("# {h}\n")).collect();
        let ms = |c: Cell| match c {
            Cell::Delay(us) => trim_ms(us as u64),
            Cell::Lost => String::new(),
            Cell::Unknown => "-".into(),
        };
        match &self.samples {
            Samples::Rtt(v) => {
                out += "time_ms,rtt_ms\n";
                for &(t, c) in v {
                    out += &format!("{},{}\n", trim_ms(t), ms(c));
                }
            }
            Samples::OneWay(v) => {
                out += "time_ms,up_ms,down_ms\n";
                for &(t, u, d) in v {
                    out += &format!("{},{},{}\n", trim_ms(t), ms(u), ms(d));
                }
            }
        }
        out
    }
}

/// Milliseconds with up to three decimals, trailing zeros dropped.
fn trim_ms(us: u64) -> String {
    let s = format!("{}.{:03}", us / 1000, us % 1000);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Reads a recording written by ping, IRTT or as a CSV (see the module
/// docs).
pub fn import(text: &str, source: &Source) -> Result<Imported, InputError> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap_or("");
    let imported = if first.starts_with('{') {
        irtt(text, source)?
    } else if text.contains("icmp_seq=") || first.starts_with("PING ") {
        ping(text, source)?
    } else {
        csv(text, source)?
    };
    if imported.is_empty() {
        return Err(InputError::at(source, None, format!("no probe in this {} recording", imported.tool.name())));
    }
    Ok(imported)
}

fn ping(text: &str, source: &Source) -> Result<Imported, InputError> {
    // (seq, send µs, rtt µs, line, rounding µs) of the first reply to each
    // sequence number; the rounding is half the last digit ping printed
    // of the round trip (`time=12.3 ms`: 50 µs).
    let mut replies: Vec<(u64, u64, u32, usize, u64)> = Vec::new();
    let mut seqs_seen: Vec<u64> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let line = line.trim();
        let Some(seq) = field(line, "icmp_seq=") else { continue };
        let bad = |what: &str| InputError::at(source, Some(number), format!("`{}`: {what}", crate::error::echo(line)));
        let seq: u64 = seq.parse().map_err(|_| bad("expected a whole icmp_seq"))?;
        crate::net::recorded::MAX_SAMPLES
            .checked_sub(seqs_seen.len())
            .filter(|&left| left > 0)
            .ok_or_else(|| bad("more probes than the limit"))?;
        seqs_seen.push(seq);
        let Some(time) = field(line, "time=") else { continue }; // "no answer yet", an error line
        if line.contains("(DUP!)") {
            continue;
        }
        let stamp = line
            .strip_prefix('[')
            .and_then(|l| l.split_once(']'))
            .and_then(|(s, _)| s.parse::<f64>().ok())
            .filter(|s| s.is_finite() && (0.0..1e12).contains(s))
            .ok_or_else(|| {
                bad("expected a `[SECONDS.MICROS]` stamp first, 0 or more seconds since 1970: record with `ping -D`")
            })?;
        let rtt_ms: f64 = time
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0 && *t <= 60_000.0)
            .ok_or_else(|| bad("expected `time=X ms` with X from 0 to 60000"))?;
        let rtt_us = (rtt_ms * 1e3).round() as u64;
        let stamp_us = (stamp * 1e6).round() as u64;
        let send_us = stamp_us.saturating_sub(rtt_us);
        let decimals = time.split_once('.').map_or(0, |(_, d)| d.len()).min(3);
        let rounding_us = 500 / 10u64.pow(decimals as u32);
        if !replies.iter().rev().take(64).any(|r| r.0 == seq) {
            replies.push((seq, send_us, rtt_us as u32, number, rounding_us.max(1)));
        }
    }
    if replies.is_empty() {
        return Err(InputError::at(
            source,
            None,
            "no ping reply with a time: expected lines such as `[1700000000.123456] 64 bytes from …: icmp_seq=1 ttl=57 time=12.3 ms` (ping -D)",
        ));
    }
    replies.sort_unstable();
    // Send order is sequence order: a send time that goes back from one
    // reply to the next by more than the round trips' rounding is the
    // wall clock (`-D` stamps are wall-clock time) stepped back.
    let mut rounded = 0;
    for w in replies.windows(2) {
        let (a, b) = (&w[0], &w[1]);
        if a.0 == b.0 || b.1 > a.1 {
            continue;
        }
        if a.1 - b.1 > a.4 + b.4 {
            return Err(InputError::at(
                source,
                Some(b.3),
                format!(
                    "icmp_seq={} was sent {} before icmp_seq={} (line {}), by their stamps less their round trips: the wall clock stepped back (ping -D stamps are wall-clock time): expected send times in sequence order; record again, or cut the file at this line",
                    b.0,
                    span(a.1 - b.1),
                    a.0,
                    a.3
                ),
            ));
        }
        rounded += 1;
    }
    // The probe interval beyond the last reply: the median send spacing
    // per sequence step.
    let mut steps: Vec<f64> = replies
        .windows(2)
        .filter(|w| w[1].0 > w[0].0)
        .map(|w| (w[1].1 as f64 - w[0].1 as f64) / (w[1].0 - w[0].0) as f64)
        .collect();
    steps.sort_by(|a, b| a.total_cmp(b));
    let interval = steps.get(steps.len() / 2).copied().unwrap_or(1e6).max(1.0);
    let seq0 = replies[0].0;
    if replies.windows(2).any(|w| w[0].0 == w[1].0) {
        return Err(InputError::at(
            source,
            None,
            "an icmp_seq repeats (ping's sequence wraps at 65536, after 11 minutes at -i 0.01): record a shorter run",
        ));
    }
    let last_seq = seqs_seen.iter().copied().max().unwrap_or(seq0).max(replies[replies.len() - 1].0);
    if last_seq - seq0 >= crate::net::recorded::MAX_SAMPLES as u64 {
        return Err(InputError::at(
            source,
            None,
            format!(
                "icmp_seq {seq0} to {last_seq}: more probes than the limit of {}",
                crate::net::recorded::MAX_SAMPLES
            ),
        ));
    }
    check_span(replies[0].1, replies.iter().map(|r| (r.1, r.3)), source)?;
    let mut out: Vec<(u64, Cell)> = Vec::new();
    let mut k = 0;
    for seq in seq0..=last_seq {
        match replies.get(k) {
            Some(&(s, send, rtt, _, _)) if s == seq => {
                out.push((send, Cell::Delay(rtt)));
                k += 1;
            }
            // A lost probe: between the replies either side of it, in
            // proportion to its sequence number.
            next => {
                let (s_a, t_a, ..) = replies[k - 1];
                let t = match next {
                    Some(&(s_b, t_b, ..)) => {
                        t_a as f64 + (seq - s_a) as f64 * (t_b as f64 - t_a as f64) / (s_b - s_a) as f64
                    }
                    None => t_a as f64 + (seq - s_a) as f64 * interval,
                };
                out.push((t as u64, Cell::Lost));
            }
        }
    }
    let mut notes = Vec::new();
    if rounded > 0 {
        notes.push(format!(
            "{rounded} repl{} sent no later than the reply before, within the rounding of ping's printed round trips: each placed 1 µs after it",
            if rounded == 1 { "y was" } else { "ies were" }
        ));
    }
    // A forward step of the wall clock: a send gap far beyond what the
    // sequence numbers between say (kept as recorded, and said).
    let jump = replies
        .windows(2)
        .filter(|w| w[1].1 > w[0].1)
        .map(|w| (w[1].1 - w[0].1, (w[1].0 - w[0].0) as f64 * interval, w[1].3))
        .filter(|&(gap, expected, _)| gap > 1_000_000 && gap as f64 > 10.0 * expected)
        .max_by_key(|j| j.0);
    if let Some((gap, expected, line)) = jump {
        notes.push(format!(
            "line {line}: the send times jump {} forward where the sequence numbers say about {} (the wall clock stepped forward, or ping was paused): kept as recorded",
            span(gap),
            span(expected as u64)
        ));
    }
    let note = (!notes.is_empty()).then(|| notes.join("; "));
    Ok(Imported { tool: Tool::Ping, samples: Samples::Rtt(relative(monotone(out))), note })
}

/// A duration in words: `3.2 ms`, `1.5 s`, `57.0 years`.
fn span(us: u64) -> String {
    let s = us as f64 / 1e6;
    if s < 1.0 {
        format!("{:.1} ms", us as f64 / 1e3)
    } else if s < 86_400.0 * 365.0 {
        format!("{s:.1} s")
    } else {
        format!("{:.1} years", s / (86_400.0 * 365.25))
    }
}

/// Refuses a probe sent further after the first than a recording may span
/// (a wall clock stepped forward), naming its line: `(time µs, line)` in
/// send order, `t0` the first probe's time.
fn check_span(t0: u64, times: impl Iterator<Item = (u64, usize)>, source: &Source) -> Result<(), InputError> {
    let limit_us = (crate::net::recorded::MAX_TIME_MS * 1e3) as u64;
    for (t, line) in times {
        let after = t.saturating_sub(t0);
        if after > limit_us {
            return Err(InputError::at(
                source,
                Some(line),
                format!(
                    "this probe was sent {} after the first: a recording spans at most {} (the wall clock stepped forward?): record again, or cut the file at this line",
                    span(after),
                    span(limit_us)
                ),
            ));
        }
    }
    Ok(())
}

/// The text after `key` up to the next space.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let at = line.find(key)? + key.len();
    line[at..].split_whitespace().next()
}

/// Times strictly increasing (a lost probe's estimate may collide with a
/// reply's real send time): each at least 1 µs after the one before.
fn monotone<T>(mut v: Vec<(u64, T)>) -> Vec<(u64, T)> {
    for i in 1..v.len() {
        if v[i].0 <= v[i - 1].0 {
            v[i].0 = v[i - 1].0.saturating_add(1);
        }
    }
    v
}

fn relative<T>(v: Vec<(u64, T)>) -> Vec<(u64, T)> {
    let t0 = v.first().map_or(0, |s| s.0);
    v.into_iter().map(|(t, c)| (t - t0, c)).collect()
}

fn one_way(v: Vec<(u64, (Cell, Cell))>) -> Samples {
    Samples::OneWay(v.into_iter().map(|(t, (u, d))| (t, u, d)).collect())
}

fn irtt(text: &str, source: &Source) -> Result<Imported, InputError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        InputError::at(
            source,
            Some(e.line()),
            format!("invalid JSON ({e}): expected IRTT's `irtt client -o FILE.json`"),
        )
    })?;
    let trips = v.get("round_trips").and_then(|r| r.as_array()).ok_or_else(|| {
        InputError::at(source, None, "no `round_trips` array: expected the JSON `irtt client -o FILE.json` writes")
    })?;
    if trips.len() > crate::net::recorded::MAX_SAMPLES {
        return Err(InputError::at(source, None, format!("{} round trips: more than the limit", trips.len())));
    }
    // The send times: the client's monotonic clock where every round trip
    // has it (IRTT 0.9 and later), which no step of the wall clock moves;
    // else the wall clock.
    let monotonic = !trips.is_empty()
        && trips.iter().all(|t| t.pointer("/timestamps/client/send/monotonic").is_some_and(|m| m.is_u64()));
    let clock = if monotonic { "monotonic" } else { "wall" };
    // (send ns, rtt, up, down) per round trip, in the file's order: the
    // order IRTT sent them in.
    let mut rows: Vec<(u64, Cell, Cell, Cell)> = Vec::with_capacity(trips.len());
    for (i, t) in trips.iter().enumerate() {
        let bad = |what: String| InputError::at(source, None, format!("round_trips[{i}]: {what}"));
        let send = t
            .pointer(&format!("/timestamps/client/send/{clock}"))
            .and_then(|w| w.as_u64())
            .ok_or_else(|| bad(format!("no `timestamps.client.send.{clock}` (whole ns)")))?;
        if let Some(&(before, ..)) = rows.last() {
            if send <= before {
                let seqno = |k: usize| trips[k].get("seqno").map_or("?".to_string(), |s| s.to_string());
                let when = if send == before {
                    "at the same time as".to_string()
                } else {
                    format!("{} before", span((before - send).div_ceil(1000)))
                };
                return Err(bad(format!(
                    "seqno {} was sent {when} round_trips[{}] (seqno {}) by `timestamps.client.send.{clock}`{}: expected send times in the order of the round trips",
                    seqno(i),
                    i - 1,
                    seqno(i - 1),
                    if monotonic { "" } else { " (wall-clock stamps only, no `monotonic`: the wall clock stepped back?)" }
                )));
            }
        }
        if let Some(&(first, ..)) = rows.first() {
            let limit_ns = (crate::net::recorded::MAX_TIME_MS * 1e6) as u64;
            if send - first > limit_ns {
                return Err(bad(format!(
                    "sent {} after the first round trip by `timestamps.client.send.{clock}`: a recording spans at most {}",
                    span((send - first) / 1000),
                    span(limit_ns / 1000)
                )));
            }
        }
        let ns = |key: &str| -> Result<Option<i64>, InputError> {
            match t.pointer(&format!("/delay/{key}")) {
                None => Ok(None),
                Some(d) => d.as_i64().map(Some).ok_or_else(|| bad(format!("`delay.{key}` must be whole nanoseconds"))),
            }
        };
        let cell = |d: Option<i64>| match d {
            Some(ns) if (0..=60_000_000_000).contains(&ns) => Cell::Delay((ns as u64).div_ceil(1000) as u32),
            Some(_) => Cell::Unknown,
            None => Cell::Unknown,
        };
        // A round trip is measured on the client's own clock: never
        // negative (a one-way delay may be, when the clocks disagree).
        let rtt = |d: Option<i64>| match d {
            Some(ns) if ns < 0 => Err(bad(format!(
                "`delay.rtt` is {ns} ns: expected a round trip of 0 or more (IRTT measures it on the client's clock)"
            ))),
            Some(ns) if ns > 60_000_000_000 => {
                Err(bad(format!("`delay.rtt` is {ns} ns: expected at most 60 s (60000000000 ns)")))
            }
            Some(_) => Ok(cell(d)),
            None => Err(bad("a received probe without `delay.rtt`: expected its round trip in ns".into())),
        };
        let row = match t.get("lost").and_then(|l| l.as_str()) {
            Some("false") => (send, rtt(ns("rtt")?)?, cell(ns("send")?), cell(ns("receive")?)),
            Some("true") => (send, Cell::Lost, Cell::Lost, Cell::Lost),
            Some("true_up") => (send, Cell::Lost, Cell::Lost, Cell::Unknown),
            Some("true_down") => (send, Cell::Lost, Cell::Unknown, Cell::Lost),
            other => {
                return Err(bad(format!(
                    "`lost` is {}: expected \"false\", \"true\", \"true_up\" or \"true_down\"",
                    other.map_or("missing".to_string(), |o| format!("\"{o}\""))
                )))
            }
        };
        rows.push(row);
    }
    let received: Vec<&(u64, Cell, Cell, Cell)> = rows.iter().filter(|r| matches!(r.1, Cell::Delay(_))).collect();
    let both_ways =
        !received.is_empty() && received.iter().all(|r| matches!((r.2, r.3), (Cell::Delay(_), Cell::Delay(_))));
    let to_us = |ns: u64| ns / 1000;
    if both_ways {
        let v = rows.iter().map(|r| (to_us(r.0), (r.2, r.3))).collect();
        return Ok(Imported { tool: Tool::Irtt, samples: one_way(relative(monotone(v))), note: None });
    }
    let note = (!received.is_empty()).then(|| {
        "one-way delays missing or negative (server timestamps off, or clocks not synchronised): round trips kept, half each way"
            .to_string()
    });
    let v = rows.iter().map(|r| (to_us(r.0), r.1)).collect();
    Ok(Imported { tool: Tool::Irtt, samples: Samples::Rtt(relative(monotone(v))), note })
}

/// A timed CSV, read by the reader `--profile FILE.csv` uses, its gaps
/// filled with the probes they missed as that replay infers them (a CSV
/// has no sequence numbers), and a note saying how many.
fn csv(text: &str, source: &Source) -> Result<Imported, InputError> {
    let read = super::csv::read(text, source)?;
    let t0 = read.rows.first().map_or(0, |r| r.t_us);
    check_span(t0, read.rows.iter().map(|r| (r.t_us, r.line)), source)?;
    let written = read.rows.len();
    let (read, missed) = read.with_missed();
    if read.rows.len() > super::MAX_SAMPLES {
        return Err(InputError::at(
            source,
            None,
            format!(
                "{written} probes with the {missed} its gaps missed: more than the limit of {}",
                super::MAX_SAMPLES
            ),
        ));
    }
    let rows: Vec<(u64, (Cell, Cell))> = read.rows.iter().map(|r| (r.t_us, (r.up, r.down))).collect();
    let samples = match read.measure {
        super::csv::Measure::RoundTrip => Samples::Rtt(relative(rows.into_iter().map(|(t, (u, _))| (t, u)).collect())),
        super::csv::Measure::OneWay => one_way(relative(rows)),
    };
    let note = (missed > 0).then(|| {
        format!(
            "{missed} probes inferred lost from gaps of {} median spacings or more, as `--profile FILE.csv` replays them (a CSV has no sequence numbers: give a lost probe a row with an empty delay to say so yourself)",
            super::LOST_GAP
        )
    });
    Ok(Imported { tool: Tool::Csv, samples, note })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::recorded::{timed_csv, Gaps};

    fn src() -> Source {
        Source::File("rec".into())
    }

    #[test]
    fn ping_output_becomes_round_trips_with_lost_probes_placed() {
        let text = "PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n\
            [1700000000.012300] 64 bytes from 10.0.0.2: icmp_seq=1 ttl=64 time=12.3 ms\n\
            [1700000000.019870] 64 bytes from 10.0.0.2: icmp_seq=2 ttl=64 time=9.87 ms\n\
            [1700000000.030000] no answer yet for icmp_seq=3\n\
            [1700000000.132000] 64 bytes from 10.0.0.2: icmp_seq=4 ttl=64 time=102 ms\n\
            [1700000000.132100] 64 bytes from 10.0.0.2: icmp_seq=4 ttl=64 time=102 ms (DUP!)\n\
            [1700000000.040000] no answer yet for icmp_seq=5\n\
            \n--- 10.0.0.2 ping statistics ---\n5 packets transmitted, 3 received, 40% packet loss, time 40ms\n";
        let got = import(text, &src()).unwrap();
        assert_eq!(got.tool, Tool::Ping);
        // Sends at 0, 10, (20), 30, (40) ms: replies' stamps less their RTTs.
        assert_eq!(
            got.samples,
            Samples::Rtt(vec![
                (0, Cell::Delay(12_300)),
                (10_000, Cell::Delay(9_870)),
                (20_000, Cell::Lost),
                (30_000, Cell::Delay(102_000)),
                (40_000, Cell::Lost),
            ])
        );
        let csv = got.to_csv(&["from ping".into()]);
        assert!(csv.starts_with("# from ping\ntime_ms,rtt_ms\n0,12.3\n10,9.87\n20,\n"), "{csv}");
        // The CSV replays: half each way, the lost probes lost.
        let t = timed_csv(&csv, &src(), Gaps::Unsent).unwrap();
        assert_eq!(t.up.iter().nth(1), Some((10_000, Some(4_935))));
        assert_eq!(t.up.iter().nth(2), Some((20_000, None)));
        let e = import("64 bytes from x: icmp_seq=1 ttl=1 time=3 ms\n", &src()).unwrap_err().to_string();
        assert!(e.contains("rec:1") && e.contains("ping -D"), "{e}");
        let e = import("[1.0] 64 bytes from x: icmp_seq=1 ttl=1 time=abc ms\n", &src()).unwrap_err().to_string();
        assert!(e.contains("rec:1") && e.contains("time=X ms"), "{e}");
    }

    fn trip(seq: u64, send_ms: u64, lost: &str, delays: &str) -> String {
        trip_at(seq, send_ms, send_ms, lost, delays)
    }

    /// A round trip sent at `wall_ms` by the wall clock and `mono_ms` by
    /// the monotonic one.
    fn trip_at(seq: u64, wall_ms: u64, mono_ms: u64, lost: &str, delays: &str) -> String {
        format!(
            r#"{{"seqno": {seq}, "lost": "{lost}", "timestamps": {{"client": {{"receive": {{}}, "send": {{"wall": {}, "monotonic": {}}}}}, "server": {{"receive": {{}}, "send": {{}}}}, "late": false}}, "delay": {{{delays}}}, "ipdv": {{}}}}"#,
            1_700_000_000_000_000_000u64 + wall_ms * 1_000_000,
            5 + mono_ms * 1_000_000
        )
    }

    fn irtt_json(trips: Vec<String>) -> String {
        format!(r#"{{"version": {{}}, "round_trips": [{}]}}"#, trips.join(","))
    }

    #[test]
    fn irtt_keeps_the_monotonic_order_through_a_wall_clock_step() {
        let rtt = r#""rtt": 10000000"#;
        // The wall clock steps back 1 s after the second probe: the
        // monotonic stamps keep the probes 10 ms apart, in order.
        let text = irtt_json(vec![
            trip_at(0, 1000, 0, "false", rtt),
            trip_at(1, 1010, 10, "false", rtt),
            trip_at(2, 20, 20, "false", rtt),
            trip_at(3, 30, 30, "false", rtt),
        ]);
        let got = import(&text, &src()).unwrap();
        let times: Vec<u64> = match got.samples {
            Samples::Rtt(v) => v.iter().map(|s| s.0).collect(),
            other => panic!("{other:?}"),
        };
        assert_eq!(times, [0, 10_000, 20_000, 30_000]);
        // Without monotonic stamps the step is refused, naming the round
        // trips: never reordered.
        let wall_only = text.replace(r#", "monotonic": "#, r#", "other": "#);
        let e = import(&wall_only, &src()).unwrap_err().to_string();
        assert!(e.contains("round_trips[2]: seqno 2 was sent 990.0 ms before round_trips[1] (seqno 1)"), "{e}");
        assert!(e.contains("send.wall") && e.contains("stepped back"), "{e}");
        // A negative round trip is named as one.
        let neg = irtt_json(vec![trip(0, 0, "false", r#""rtt": -5"#)]);
        let e = import(&neg, &src()).unwrap_err().to_string();
        assert!(e.contains("round_trips[0]: `delay.rtt` is -5 ns: expected a round trip of 0 or more"), "{e}");
        let none = irtt_json(vec![trip(0, 0, "false", "")]);
        assert!(import(&none, &src()).unwrap_err().to_string().contains("without `delay.rtt`"));
    }

    /// A ping -D reply line sent at `send_s` (its stamp less `rtt`).
    fn reply(seq: u64, send_s: f64, rtt: &str) -> String {
        let stamp = send_s + rtt.parse::<f64>().unwrap() / 1e3;
        format!("[{stamp:.6}] 64 bytes from 10.0.0.2: icmp_seq={seq} ttl=64 time={rtt} ms\n")
    }

    #[test]
    fn ping_stamps_keep_time_as_recorded() {
        let ok = |lines: &[String]| import(&lines.concat(), &src());
        // The wall clock steps back 1 s at the third reply: refused, naming
        // its line and the line before.
        let back = [reply(1, 1000.0, "10.0"), reply(2, 1000.01, "10.0"), reply(3, 999.02, "10.0")];
        let e = ok(&back).unwrap_err().to_string();
        assert!(e.contains("rec:3: icmp_seq=3 was sent 990.0 ms before icmp_seq=2 (line 2)"), "{e}");
        assert!(e.contains("stepped back"), "{e}");
        // 57 years either way: back is a step back; forward is past what a
        // recording may span, named by its input line.
        let year = 365.25 * 86_400.0;
        let e = ok(&[reply(1, 2e9, "10.0"), reply(2, 2e9 - 57.0 * year, "10.0")]).unwrap_err().to_string();
        assert!(e.contains("rec:2:") && e.contains("stepped back"), "{e}");
        let e = ok(&[reply(1, 1e8, "10.0"), reply(2, 1e8 + 57.0 * year, "10.0")]).unwrap_err().to_string();
        assert!(e.contains("rec:2: this probe was sent 57.0 years after the first"), "{e}");
        // Within the rounding of the printed round trips (`time=102 ms` is
        // ±0.5 ms), a reply sent "before" the one below it is rounding:
        // placed 1 µs after, and said.
        let got = ok(&[reply(1, 1000.0, "102"), reply(2, 999.9996, "102")]).unwrap();
        assert_eq!(got.samples, Samples::Rtt(vec![(0, Cell::Delay(102_000)), (1, Cell::Delay(102_000))]));
        assert!(got.note.unwrap().contains("1 reply was sent no later than the reply before"));
        // A forward jump far beyond the interval is kept, and said with its line.
        let mut lines: Vec<String> = (0..5).map(|k| reply(k + 1, 1000.0 + 0.01 * k as f64, "10.0")).collect();
        lines.push(reply(6, 1005.05, "10.0"));
        let note = ok(&lines).unwrap().note.unwrap();
        assert!(
            note.contains("line 6: the send times jump 5.0 s forward where the sequence numbers say about 10.0 ms"),
            "{note}"
        );
    }

    #[test]
    fn irtt_keeps_one_way_delays_when_the_clocks_agree() {
        let json = |trips: Vec<String>| format!(r#"{{"version": {{}}, "round_trips": [{}]}}"#, trips.join(","));
        let text = json(vec![
            trip(0, 0, "false", r#""receive": 5010000, "rtt": 10010000, "send": 5000000"#),
            trip(1, 10, "true_down", ""),
            trip(2, 20, "true_up", ""),
            trip(3, 30, "true", ""),
        ]);
        let got = import(&text, &src()).unwrap();
        assert_eq!(
            got.samples,
            Samples::OneWay(vec![
                (0, Cell::Delay(5_000), Cell::Delay(5_010)),
                (10_000, Cell::Unknown, Cell::Lost),
                (20_000, Cell::Lost, Cell::Unknown),
                (30_000, Cell::Lost, Cell::Lost),
            ])
        );
        assert_eq!(got.lost(), 3);
        let csv = got.to_csv(&[]);
        assert!(csv.contains("time_ms,up_ms,down_ms\n0,5,5.01\n10,-,\n20,,-\n30,,\n"), "{csv}");
        timed_csv(&csv, &src(), Gaps::Unsent).unwrap();
        // A negative one-way delay: the clocks disagree; round trips kept.
        let text = json(vec![trip(0, 0, "false", r#""receive": 15010000, "rtt": 10010000, "send": -5000000"#)]);
        let got = import(&text, &src()).unwrap();
        assert_eq!(got.samples, Samples::Rtt(vec![(0, Cell::Delay(10_010))]));
        assert!(got.note.unwrap().contains("clocks"));
        let bad = json(vec![trip(0, 0, "maybe", "")]);
        let e = import(&bad, &src()).unwrap_err().to_string();
        assert!(e.contains("round_trips[0]") && e.contains("\"maybe\""), "{e}");
        let e = import("{\"x\": 1}", &src()).unwrap_err().to_string();
        assert!(e.contains("round_trips"), "{e}");
        let e = import("{\"x\": ", &src()).unwrap_err().to_string();
        assert!(e.contains("invalid JSON"), "{e}");
    }

    #[test]
    fn a_csv_is_read_as_the_replay_reads_it() {
        let got = import("time_s,rtt_ms,lost\n0.5,20,0\n0.51,,1\n0.52,22.5,0\n", &src()).unwrap();
        assert_eq!(
            got.samples,
            Samples::Rtt(vec![(0, Cell::Delay(20_000)), (10_000, Cell::Lost), (20_000, Cell::Delay(22_500))])
        );
        assert_eq!(got.note, None);
        let got = import("time_ms,delay_ms\n0,7\n10,8\n", &src()).unwrap();
        assert_eq!(
            got.samples,
            Samples::OneWay(vec![
                (0, Cell::Delay(7_000), Cell::Delay(7_000)),
                (10_000, Cell::Delay(8_000), Cell::Delay(8_000))
            ])
        );
        // A gap of three spacings: two probes missed, filled as the replay
        // infers them, and said.
        let text = "time_ms,rtt_ms\n0,20\n10,20\n40,20\n50,20\n";
        let got = import(text, &src()).unwrap();
        assert_eq!(got.lost(), 2);
        assert!(got.note.as_deref().is_some_and(|n| n.starts_with("2 probes inferred lost")), "{:?}", got.note);
        let direct = timed_csv(text, &src(), crate::net::recorded::Gaps::Lost).unwrap();
        let imported = timed_csv(&got.to_csv(&[]), &src(), Gaps::Unsent).unwrap();
        assert_eq!(direct, imported, "the same link either way");
        for (text, what) in [
            ("when,rtt_ms\n", "expected a time column"),
            ("time,rtt_ms\n", "column `time` has no unit: name it time_ms or time_s"),
            ("time_ms,rtt_ms\n0,-5\n", "rec:2"),
            ("time_ms,rtt_ms\n5,1\n5,1\n", "rec:3: `5`: not after the row before (line 2)"),
            ("time_ms,rtt_ms\n0,1,2\n", "3 cells"),
            ("", "an empty"),
        ] {
            let e = import(text, &src()).unwrap_err().to_string();
            assert!(e.contains(what), "{text:?}: {e}");
        }
    }
}
