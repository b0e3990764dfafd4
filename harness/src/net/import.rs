//! Importing a link recording a user can make today into the timed CSV a
//! profile replays ([`super::recorded::timed_csv`]).
//!
//! Three inputs, told apart by their text:
//!
//! - **`ping -D` output** (iputils): a reply line is
//!   `[SECONDS.MICROS] 64 bytes from HOST: icmp_seq=N ttl=T time=X ms`.
//!   The bracketed stamp is when the reply was printed, so a probe's send
//!   time is the stamp less its round trip. A sequence number with no reply
//!   is a lost probe, placed at the send time its neighbours imply. Only
//!   round trips: the CSV says `rtt_ms` and a replay halves each.
//! - **IRTT's JSON** (`irtt client -o FILE.json`): `round_trips[]`, each
//!   with `seqno`, `lost` (`"false"`, `"true"`, `"true_up"`,
//!   `"true_down"`), `timestamps.client.send.wall` (ns) and `delay`
//!   (`rtt`, `send`, `receive`, ns). One-way delays are kept (`up_ms`,
//!   `down_ms`) when every received probe has both and none is negative
//!   (the clocks agree); otherwise round trips. A probe lost up is lost
//!   up and not measured down; one lost down the other way round; one lost
//!   in an unknown direction is lost both ways.
//! - **A CSV** with a header: a time column (`time_ms`, `time`, or
//!   `time_s` in seconds) and `rtt_ms` (or `rtt`), `delay_ms` (or `delay`,
//!   one-way), or `up_ms` and `down_ms`; optionally `lost` (`1`/`true`).
//!
//! Times are made relative to the first probe. Every probe sent is a row
//! (ping's and IRTT's sequence numbers account for each), so a profile
//! replaying an import says `gaps = "unsent"`. Every error names the file,
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

/// One cell of a direction: a delay (µs), lost, or not measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cell {
    /// The delay, µs.
    Delay(u32),
    /// The probe was lost.
    Lost,
    /// Not measured.
    Unknown,
}

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
    // (seq, send µs, rtt µs) of the first reply to each sequence number.
    let mut replies: Vec<(u64, u64, u32)> = Vec::new();
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
            .ok_or_else(|| bad("expected a `[SECONDS.MICROS]` stamp first: record with `ping -D`"))?;
        let rtt_ms: f64 = time
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0 && *t <= 60_000.0)
            .ok_or_else(|| bad("expected `time=X ms` with X from 0 to 60000"))?;
        let rtt_us = (rtt_ms * 1e3).round() as u64;
        let stamp_us = (stamp * 1e6).round() as u64;
        let send_us = stamp_us.saturating_sub(rtt_us);
        if !replies.iter().rev().take(64).any(|r| r.0 == seq) {
            replies.push((seq, send_us, rtt_us as u32));
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
    let mut out: Vec<(u64, Cell)> = Vec::new();
    let mut k = 0;
    for seq in seq0..=last_seq {
        match replies.get(k) {
            Some(&(s, send, rtt)) if s == seq => {
                out.push((send, Cell::Delay(rtt)));
                k += 1;
            }
            // A lost probe: between the replies either side of it, in
            // proportion to its sequence number.
            next => {
                let (s_a, t_a, _) = replies[k - 1];
                let t = match next {
                    Some(&(s_b, t_b, _)) => {
                        t_a as f64 + (seq - s_a) as f64 * (t_b as f64 - t_a as f64) / (s_b - s_a) as f64
                    }
                    None => t_a as f64 + (seq - s_a) as f64 * interval,
                };
                out.push((t as u64, Cell::Lost));
            }
        }
    }
    Ok(Imported { tool: Tool::Ping, samples: Samples::Rtt(relative(monotone(out))), note: None })
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
    // (send ns, rtt, up, down) per round trip.
    let mut rows: Vec<(u64, Cell, Cell, Cell)> = Vec::with_capacity(trips.len());
    for (i, t) in trips.iter().enumerate() {
        let bad = |what: String| InputError::at(source, None, format!("round_trips[{i}]: {what}"));
        let send = t
            .pointer("/timestamps/client/send/wall")
            .and_then(|w| w.as_u64())
            .ok_or_else(|| bad("no `timestamps.client.send.wall` (ns)".into()))?;
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
        let row = match t.get("lost").and_then(|l| l.as_str()) {
            Some("false") => (send, cell(ns("rtt")?), cell(ns("send")?), cell(ns("receive")?)),
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
        if row.1 == Cell::Unknown {
            return Err(bad("a received probe without `delay.rtt`".into()));
        }
        rows.push(row);
    }
    rows.sort_by_key(|r| r.0);
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

fn csv(text: &str, source: &Source) -> Result<Imported, InputError> {
    let mut lines =
        text.lines().enumerate().map(|(i, l)| (i + 1, l.trim())).filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    let Some((header_line, header)) = lines.next() else {
        return Err(InputError::at(source, None, "an empty file: expected ping -D output, IRTT JSON or a CSV"));
    };
    let cols: Vec<String> = header.split(',').map(|c| c.trim().to_ascii_lowercase()).collect();
    let find = |names: &[&str]| cols.iter().position(|c| names.contains(&c.as_str()));
    let expected = "expected a header with a time column (time_ms, time, time_s) and rtt_ms, delay_ms, or up_ms and down_ms (optionally lost): a CSV, ping -D output or IRTT JSON";
    let time =
        find(&["time_ms", "time", "t_ms"]).map(|c| (c, 1e3)).or_else(|| find(&["time_s", "t_s"]).map(|c| (c, 1e6)));
    let Some((time_col, to_us)) = time else {
        return Err(InputError::at(
            source,
            Some(header_line),
            format!("header `{}`: {expected}", crate::error::echo(header)),
        ));
    };
    let rtt = find(&["rtt_ms", "rtt"]);
    let delay = find(&["delay_ms", "delay", "one_way_ms", "owd_ms"]);
    let (up, down) = (find(&["up_ms", "up"]), find(&["down_ms", "down"]));
    let lost_col = find(&["lost", "loss"]);
    let mut rtt_rows: Vec<(u64, Cell)> = Vec::new();
    let mut one_way_rows: Vec<(u64, Cell, Cell)> = Vec::new();
    for (number, line) in lines {
        if rtt_rows.len() + one_way_rows.len() >= crate::net::recorded::MAX_SAMPLES {
            return Err(InputError::at(source, Some(number), "more probes than the limit"));
        }
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        if cells.len() != cols.len() {
            return Err(InputError::at(
                source,
                Some(number),
                format!("{} cells: expected {}", cells.len(), cols.len()),
            ));
        }
        let bad = |what: &str, c: &str| {
            InputError::at(source, Some(number), format!("`{}`: expected {what}", crate::error::echo(c)))
        };
        let t: f64 = cells[time_col]
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0 && *t < 1e15)
            .ok_or_else(|| bad("a time of 0 or more", cells[time_col]))?;
        let lost = lost_col.is_some_and(|c| matches!(cells[c], "1" | "true" | "lost"));
        let ms = |c: usize| -> Result<Cell, InputError> {
            match cells[c] {
                "" | "lost" => Ok(Cell::Lost),
                "-" => Ok(Cell::Unknown),
                v if lost => {
                    let _ = v;
                    Ok(Cell::Lost)
                }
                v => v
                    .parse::<f64>()
                    .ok()
                    .filter(|d| d.is_finite() && (0.0..=60_000.0).contains(d))
                    .map(|d| Cell::Delay((d * 1e3).round() as u32))
                    .ok_or_else(|| bad("a delay in ms from 0 to 60000, empty or `lost`", v)),
            }
        };
        let t_us = (t * to_us).round() as u64;
        match (rtt, delay, up, down) {
            (Some(r), None, None, None) => rtt_rows.push((t_us, ms(r)?)),
            (None, Some(d), None, None) => {
                let c = ms(d)?;
                one_way_rows.push((t_us, c, c));
            }
            (None, None, Some(u), Some(d)) => one_way_rows.push((t_us, ms(u)?, ms(d)?)),
            _ => {
                return Err(InputError::at(
                    source,
                    Some(header_line),
                    format!("header `{}`: {expected}", crate::error::echo(header)),
                ))
            }
        }
    }
    let check = |times: Vec<u64>| -> Result<(), InputError> {
        match times.windows(2).position(|w| w[1] <= w[0]) {
            Some(k) => {
                Err(InputError::at(source, None, format!("row {}: its time is not after the row before", k + 2)))
            }
            None => Ok(()),
        }
    };
    let samples = if rtt.is_some() {
        check(rtt_rows.iter().map(|r| r.0).collect())?;
        Samples::Rtt(relative(rtt_rows))
    } else {
        check(one_way_rows.iter().map(|r| r.0).collect())?;
        one_way(relative(one_way_rows.into_iter().map(|(t, u, d)| (t, (u, d))).collect()))
    };
    Ok(Imported { tool: Tool::Csv, samples, note: None })
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
        format!(
            r#"{{"seqno": {seq}, "lost": "{lost}", "timestamps": {{"client": {{"receive": {{}}, "send": {{"wall": {}, "monotonic": 5}}}}, "server": {{"receive": {{}}, "send": {{}}}}, "late": false}}, "delay": {{{delays}}}, "ipdv": {{}}}}"#,
            1_700_000_000_000_000_000u64 + send_ms * 1_000_000
        )
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
    fn a_csv_takes_common_column_names() {
        let got = import("time_s,rtt,lost\n0.5,20,0\n0.51,,1\n0.52,22.5,0\n", &src()).unwrap();
        assert_eq!(
            got.samples,
            Samples::Rtt(vec![(0, Cell::Delay(20_000)), (10_000, Cell::Lost), (20_000, Cell::Delay(22_500))])
        );
        let got = import("time_ms,delay_ms\n0,7\n10,8\n", &src()).unwrap();
        assert_eq!(
            got.samples,
            Samples::OneWay(vec![
                (0, Cell::Delay(7_000), Cell::Delay(7_000)),
                (10_000, Cell::Delay(8_000), Cell::Delay(8_000))
            ])
        );
        for (text, what) in [
            ("when,rtt\n", "expected a header"),
            ("time_ms,rtt_ms\n0,-5\n", "rec:2"),
            ("time_ms,rtt_ms\n5,1\n5,1\n", "row 2"),
            ("time_ms,rtt_ms\n0,1,2\n", "3 cells"),
            ("", "an empty file"),
        ] {
            let e = import(text, &src()).unwrap_err().to_string();
            assert!(e.contains(what), "{text:?}: {e}");
        }
    }
}
