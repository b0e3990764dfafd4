//! Replaying a recorded link: the stage a packet crosses after netem's when
//! a profile direction names a recording ([`Replay`]).
//!
//! Per packet, in order, from the instant netem lets it go:
//!
//! 1. **Bandwidth** (a delivery-opportunity trace, Mahimahi's model): the
//!    packet waits in a FIFO queue for opportunities at or after the
//!    millisecond it arrives; each opportunity carries 1,504 bytes, a
//!    packet larger than what is left of one carries on into the next, and
//!    an opportunity no packet uses is lost, as in Mahimahi's `LinkQueue`.
//!    The queue is unlimited unless a drop-tail limit is set (packets or
//!    bytes still waiting, this one included); a packet over it is dropped.
//! 2. **Delay and loss** (a delay recording), read at the instant the
//!    packet leaves that queue (or netem, without one): the recording's
//!    delay in force then is added, or the packet is lost if the recording
//!    lost what was sent then.
//! 3. **Order**: a real path is FIFO, so by default a packet never
//!    arrives before one that entered the stage before it (arrival =
//!    max(its own, the last)); `order = "by-arrival"` lets a short delay
//!    overtake a long one, as LeoReplayer's time-sorted `DelayQueue` does.
//!
//! A recording repeats when shorter than the run. Each node starts reading
//! its recordings at its own offset ([`Replayer::draw`] from the run seed and
//! the node, modulo the recording's period), the same for its uplink and downlink, so seeds differ as
//! they do for netem and an outage in a shared recording hits both
//! directions at once.
//!
//! Recorded losses count as the link's losses and queue drops as its limit
//! drops.

use super::{Cursor, Delays, Gaps, Opportunities, Opportunity, OPPORTUNITY_BYTES};
use crate::error::{InputError, Source};
use crate::rng::{Purpose, Stream};
use std::collections::VecDeque;
use std::sync::Arc;

/// How many packets or bytes the opportunity queue holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    /// No limit (Mahimahi's default).
    Unlimited,
    /// At most this many packets waiting.
    Packets(u32),
    /// At most this many bytes waiting.
    Bytes(u64),
}

/// Whether a recorded path keeps packets in order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Order {
    /// In the order they entered (a real path).
    #[default]
    Fifo,
    /// Each at its own time: a shorter delay overtakes (LeoReplayer).
    ByArrival,
}

impl Order {
    /// Its name in a profile.
    pub fn name(self) -> &'static str {
        match self {
            Order::Fifo => "fifo",
            Order::ByArrival => "by-arrival",
        }
    }
}

/// What one direction replays. The recordings are shared, not copied: a
/// matrix reads each file once however many runs replay it.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// The delay (and loss) recording, if any.
    pub delays: Option<Arc<Delays>>,
    /// The delivery-opportunity trace, if any.
    pub opportunities: Option<Arc<Opportunities>>,
    /// The opportunity queue's drop-tail limit.
    pub queue: QueueLimit,
    /// Whether arrivals keep their order.
    pub order: Order,
    /// Whether every node reads the recordings from their start (`start =
    /// "aligned"`: a scripted disturbance hits every node at the same
    /// instant) rather than from its own seeded offset.
    pub aligned: bool,
    /// The files replayed, for display.
    pub from: String,
}

impl QueueLimit {
    /// From a profile's `queue = "..."`: `unlimited`, `N packets` or
    /// `N bytes`.
    pub fn parse(text: &str) -> Option<QueueLimit> {
        let mut words = text.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("unlimited"), None, None) => Some(QueueLimit::Unlimited),
            (Some(n), Some("packets"), None) => n.parse().ok().filter(|&n| n > 0).map(QueueLimit::Packets),
            (Some(n), Some("bytes"), None) => n.parse().ok().filter(|&n| n > 0).map(QueueLimit::Bytes),
            _ => None,
        }
    }
}

impl std::fmt::Display for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.from)?;
        if let Some(o) = &self.opportunities {
            write!(f, ", {:.2} Mbit/s mean", o.mean_bits_per_s() / 1e6)?;
            match self.queue {
                QueueLimit::Unlimited => write!(f, ", unlimited queue")?,
                QueueLimit::Packets(n) => write!(f, ", queue {n} packets")?,
                QueueLimit::Bytes(n) => write!(f, ", queue {n} bytes")?,
            }
        }
        if self.delays.is_some() && self.order == Order::ByArrival {
            write!(f, ", by arrival")?;
        }
        if self.aligned {
            write!(f, ", every node from the start")?;
        }
        Ok(())
    }
}

/// Keys a `[replay]` table (and its `up` and `down` tables) takes.
const KEYS: &str = "delays, interval, samples, gaps, opportunities, queue, order, start, up or down";

/// Reads a profile's `[replay]` table: what the uplink and the downlink
/// replay. Keys at the top apply to both directions; `[replay.up]` and
/// `[replay.down]` add to or override them for one. A file named in it is
/// found beside the profile (`source`); a built-in profile's in the
/// shipped recordings. `line(key)` is where `key` is written.
pub fn from_table(
    table: &toml::Table,
    source: &Source,
    line: &dyn Fn(&str) -> Option<usize>,
) -> Result<[Option<Replay>; 2], InputError> {
    let err = |key: &str, msg: String| InputError::at(source, line(key), msg);
    for (k, v) in table {
        let known =
            ["delays", "interval", "samples", "gaps", "opportunities", "queue", "order", "start"].contains(&k.as_str());
        let direction = k == "up" || k == "down";
        if !(known || direction) {
            return Err(err(k, format!("unknown key `{k}` in [replay]: expected {KEYS}")));
        }
        if direction != v.is_table() {
            return Err(err(
                k,
                format!("`{k}` in [replay] must be {}", if direction { "a table" } else { "a string" }),
            ));
        }
    }
    let mut files = Files::default();
    let mut out: [Option<Replay>; 2] = [None, None];
    for (i, dir) in ["up", "down"].into_iter().enumerate() {
        let own = table.get(dir).and_then(|v| v.as_table());
        if let Some(own) = own {
            if let Some(k) = own.keys().find(|k| {
                !["delays", "interval", "samples", "gaps", "opportunities", "queue", "order", "start"]
                    .contains(&k.as_str())
            }) {
                return Err(err(k, format!("unknown key `{k}` in [replay.{dir}]: expected delays, interval, samples, gaps, opportunities, queue, order or start")));
            }
        }
        let get = |key: &str| -> Result<Option<&str>, InputError> {
            match own.and_then(|t| t.get(key)).or_else(|| table.get(key)) {
                None => Ok(None),
                Some(v) => {
                    v.as_str().map(Some).ok_or_else(|| err(key, format!("`{key}` in [replay] must be a string")))
                }
            }
        };
        let interval_us = match get("interval")? {
            None => 10_000,
            Some(t) => crate::time::parse_duration(t).ok().filter(|&us| us > 0).ok_or_else(|| {
                err(
                    "interval",
                    format!("interval `{}`: expected a duration above 0 such as \"10ms\"", crate::error::echo(t)),
                )
            })?,
        };
        let delays = match (get("delays")?, get("samples")?) {
            (Some(_), Some(_)) => {
                return Err(err("samples", "give `delays` (a series) or `samples` (a timed CSV), not both".into()))
            }
            (Some(f), None) => Some(files.series(f, interval_us, source, line)?),
            (None, Some(f)) => {
                let gaps = match get("gaps")? {
                    None => Gaps::Lost,
                    Some(g) => Gaps::from_name(g).ok_or_else(|| {
                        err("gaps", format!("gaps `{}`: expected \"lost\" or \"unsent\"", crate::error::echo(g)))
                    })?,
                };
                let timed = files.timed(f, gaps, source, line)?;
                Some(if i == 0 { timed.0 } else { timed.1 })
            }
            (None, None) => None,
        };
        let opportunities = match get("opportunities")? {
            Some(f) => Some(files.opportunities(f, source, line)?),
            None => None,
        };
        let queue = match get("queue")? {
            None => QueueLimit::Unlimited,
            Some(q) => QueueLimit::parse(q).ok_or_else(|| {
                err(
                    "queue",
                    format!("queue `{}`: expected \"unlimited\", \"N packets\" or \"N bytes\"", crate::error::echo(q)),
                )
            })?,
        };
        let order = match get("order")? {
            None | Some("fifo") => Order::Fifo,
            Some("by-arrival") => Order::ByArrival,
            Some(o) => {
                return Err(err(
                    "order",
                    format!("order `{}`: expected \"fifo\" or \"by-arrival\"", crate::error::echo(o)),
                ))
            }
        };
        let aligned = match get("start")? {
            None | Some("per-node") => false,
            Some("aligned") => true,
            Some(o) => {
                return Err(err(
                    "start",
                    format!("start `{}`: expected \"per-node\" or \"aligned\"", crate::error::echo(o)),
                ))
            }
        };
        // A key that shapes a recording needs that recording (a key at the
        // top may serve the other direction alone).
        for (key, needs, what) in [
            ("interval", "delays", "the spacing of a `delays` series"),
            ("gaps", "samples", "how a `samples` CSV's gaps read"),
            ("queue", "opportunities", "the queue before an `opportunities` trace"),
        ] {
            let here = own.map_or(table.contains_key(key), |t| t.contains_key(key));
            if here && get(needs)?.is_none() {
                return Err(err(key, format!("`{key}` without `{needs}`: it sets {what}")));
            }
        }
        if delays.is_none() && opportunities.is_none() {
            if own.is_some() || table.keys().any(|k| k != "up" && k != "down") {
                return Err(err(
                    dir,
                    format!("[replay] gives the {dir}link nothing to replay: expected `delays`, `samples` or `opportunities`"),
                ));
            }
            continue;
        }
        let from = [get("delays")?, get("samples")?, get("opportunities")?]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" + ");
        out[i] = Some(Replay { delays, opportunities, queue, order, aligned, from });
    }
    Ok(out)
}

/// What a recording given by path replays each way, told by its name and
/// text: a Mahimahi pair (`NAME.up` and `NAME.down`, either named: uplink
/// and downlink opportunities), a timed CSV (`.csv`), `ping -D` output or
/// IRTT's JSON (imported as `profile import` does), or else a delay series
/// of one delay per 10 ms line (LeoReplayer's format), both ways.
pub fn from_path(path: &std::path::Path) -> Result<[Option<Replay>; 2], InputError> {
    let shown = path.display().to_string();
    let source = Source::Inline(shown.clone());
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    let mut files = Files::default();
    let none = &|_: &str| None;
    let replay = |delays, opportunities, from: String| Replay {
        delays,
        opportunities,
        queue: QueueLimit::Unlimited,
        order: Order::Fifo,
        aligned: false,
        from,
    };
    match ext {
        "up" | "down" => {
            let up = path.with_extension("up");
            let down = path.with_extension("down");
            for p in [&up, &down] {
                if !p.is_file() {
                    return Err(InputError::at(
                        &source,
                        None,
                        format!(
                            "a Mahimahi trace pair needs both {} and {}: {} is missing",
                            up.display(),
                            down.display(),
                            p.display()
                        ),
                    ));
                }
            }
            let (u, d) = (up.display().to_string(), down.display().to_string());
            Ok([
                Some(replay(None, Some(files.opportunities(&u, &source, none)?), u.clone())),
                Some(replay(None, Some(files.opportunities(&d, &source, none)?), d)),
            ])
        }
        "csv" => {
            let (u, d) = files.timed(&shown, Gaps::Lost, &source, none)?;
            Ok([Some(replay(Some(u), None, shown.clone())), Some(replay(Some(d), None, shown))])
        }
        _ => {
            // ping -D output or IRTT's JSON: imported on the way in.
            let (text, at) = read(&shown, &source, None)?;
            if text.trim_start().starts_with('{') || text.contains("icmp_seq=") {
                let csv = super::import::import(&text, &at)?.to_csv(&[]);
                let t = super::timed_csv(&csv, &at, Gaps::Unsent)?;
                let (u, d) = (Arc::new(t.up), Arc::new(t.down));
                return Ok([Some(replay(Some(u), None, shown.clone())), Some(replay(Some(d), None, shown))]);
            }
            let d = Arc::new(Delays::series(&text, 10_000, &at)?);
            Ok([Some(replay(Some(d.clone()), None, shown.clone())), Some(replay(Some(d), None, shown))])
        }
    }
}

/// The recordings a profile names, each read once.
#[derive(Default)]
struct Files {
    series: Vec<(String, u64, Arc<Delays>)>,
    timed: Vec<(String, Gaps, Arc<Delays>, Arc<Delays>)>,
    opportunities: Vec<(String, Arc<Opportunities>)>,
}

impl Files {
    fn series(
        &mut self,
        name: &str,
        interval_us: u64,
        source: &Source,
        line: &dyn Fn(&str) -> Option<usize>,
    ) -> Result<Arc<Delays>, InputError> {
        if let Some((_, _, d)) = self.series.iter().find(|(n, i, _)| n == name && *i == interval_us) {
            return Ok(d.clone());
        }
        let (text, at) = read(name, source, line("delays"))?;
        let d = Arc::new(Delays::series(&text, interval_us, &at)?);
        self.series.push((name.to_string(), interval_us, d.clone()));
        Ok(d)
    }

    fn timed(
        &mut self,
        name: &str,
        gaps: Gaps,
        source: &Source,
        line: &dyn Fn(&str) -> Option<usize>,
    ) -> Result<(Arc<Delays>, Arc<Delays>), InputError> {
        if let Some((_, _, u, d)) = self.timed.iter().find(|(n, g, _, _)| n == name && *g == gaps) {
            return Ok((u.clone(), d.clone()));
        }
        let (text, at) = read(name, source, line("samples"))?;
        let t = super::timed_csv(&text, &at, gaps)?;
        let (u, d) = (Arc::new(t.up), Arc::new(t.down));
        self.timed.push((name.to_string(), gaps, u.clone(), d.clone()));
        Ok((u, d))
    }

    fn opportunities(
        &mut self,
        name: &str,
        source: &Source,
        line: &dyn Fn(&str) -> Option<usize>,
    ) -> Result<Arc<Opportunities>, InputError> {
        if let Some((_, o)) = self.opportunities.iter().find(|(n, _)| n == name) {
            return Ok(o.clone());
        }
        let (text, at) = read(name, source, line("opportunities"))?;
        let o = Arc::new(Opportunities::parse(&text, &at)?);
        self.opportunities.push((name.to_string(), o.clone()));
        Ok(o)
    }
}

/// The text of recording `name` a profile from `source` names, and where it
/// was read: beside a profile file, among the shipped recordings for a
/// built-in profile (`recordings/FILE`), else as a path.
fn read(name: &str, source: &Source, line: Option<usize>) -> Result<(String, Source), InputError> {
    let cap = crate::limits::MAX_INPUT_FILE;
    match source {
        Source::BuiltIn(_) => {
            let file = name.strip_prefix("recordings/").unwrap_or(name);
            match crate::library::shipped_recordings().iter().find(|(n, _)| *n == file) {
                Some((_, text)) => Ok((text.to_string(), Source::BuiltIn(format!("recording {file}")))),
                None => {
                    Err(InputError::at(source, line, format!("no shipped recording `{}`", crate::error::echo(name))))
                }
            }
        }
        Source::File(profile) => {
            let path = std::path::Path::new(profile).parent().unwrap_or(std::path::Path::new("")).join(name);
            let text = crate::limits::read_text(&path, cap, "recording")
                .map_err(|e| InputError::at(source, line, e.to_string()))?;
            Ok((text, Source::File(path.display().to_string())))
        }
        Source::Inline(_) => {
            let path = std::path::Path::new(name);
            let text = crate::limits::read_text(path, cap, "recording")?;
            Ok((text, Source::File(name.to_string())))
        }
    }
}

/// What became of a packet in the replay stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// It reaches the far end at this time, ns.
    Arrives(u64),
    /// The recording lost it.
    Lost,
    /// The opportunity queue was full.
    Dropped,
}

/// One direction's replay in progress.
#[derive(Clone, Debug)]
pub struct Replayer {
    replay: Replay,
    /// Where this node reads the delay recording from, µs into it.
    delay_offset_us: u64,
    cursor: Cursor,
    /// Where it reads the opportunity trace from, ms into it.
    opp_offset_ms: u64,
    /// The opportunity with room left, and the bytes of it already used.
    opp_next: Opportunity,
    opp_used: u32,
    /// `(leaves ns, bytes)` of the packets still in the opportunity queue.
    waiting: VecDeque<(u64, u32)>,
    waiting_bytes: u64,
    last_arrival_ns: u64,
}

impl Replayer {
    /// The replay of `replay` for the node whose draw is `draw` (any u64:
    /// each recording is entered at `draw` modulo its period).
    pub fn new(replay: Replay, draw: u64) -> Replayer {
        let draw = if replay.aligned { 0 } else { draw };
        let delay_offset_us = replay.delays.as_ref().map_or(0, |d| draw % d.period_us());
        let opp_offset_ms = replay.opportunities.as_ref().map_or(0, |o| draw % o.period_ms());
        let opp_next = replay.opportunities.as_ref().map_or(Opportunity::default(), |o| o.first_from(opp_offset_ms));
        Replayer {
            replay,
            delay_offset_us,
            cursor: Cursor::default(),
            opp_offset_ms,
            opp_next,
            opp_used: 0,
            waiting: VecDeque::new(),
            waiting_bytes: 0,
            last_arrival_ns: 0,
        }
    }

    /// The draw that places node `node` of a run seeded `seed` in every
    /// recording it replays: the same for both its directions.
    pub fn draw(seed: u64, node: u64) -> u64 {
        Stream::new(seed, Purpose::Replay, node).next_u64()
    }

    /// A packet of `bytes` (IP header included) entering the stage at
    /// `t_ns`.
    pub fn pass(&mut self, t_ns: u64, bytes: u32) -> Outcome {
        let mut leave_ns = t_ns;
        if let Some(opp) = self.replay.opportunities.as_deref() {
            while self.waiting.front().is_some_and(|&(leaves, _)| leaves <= t_ns) {
                let (_, b) = self.waiting.pop_front().expect("checked");
                self.waiting_bytes -= b as u64;
            }
            let full = match self.replay.queue {
                QueueLimit::Unlimited => false,
                QueueLimit::Packets(n) => self.waiting.len() as u64 >= n as u64,
                QueueLimit::Bytes(n) => self.waiting_bytes + bytes as u64 > n,
            };
            if full {
                return Outcome::Dropped;
            }
            // The first opportunity the packet may use: at or after the
            // millisecond it arrives, and not before the queue ahead of it.
            let arrive_ms = t_ns.div_ceil(1_000_000) + self.opp_offset_ms;
            let first = opp.first_at_or_after_from(self.opp_next, arrive_ms);
            if first != self.opp_next {
                self.opp_next = first;
                self.opp_used = 0;
            }
            let mut left = bytes;
            loop {
                let room = OPPORTUNITY_BYTES - self.opp_used;
                if left <= room {
                    self.opp_used += left;
                    break;
                }
                left -= room;
                self.opp_next = opp.next(self.opp_next);
                self.opp_used = 0;
            }
            leave_ns = (opp.time_of(self.opp_next) - self.opp_offset_ms) * 1_000_000;
            if self.opp_used == OPPORTUNITY_BYTES {
                self.opp_next = opp.next(self.opp_next);
                self.opp_used = 0;
            }
            self.waiting.push_back((leave_ns, bytes));
            self.waiting_bytes += bytes as u64;
        }
        let mut arrival_ns = leave_ns;
        if let Some(delays) = &self.replay.delays {
            match delays.at(leave_ns / 1000 + self.delay_offset_us, &mut self.cursor) {
                Some(d) => arrival_ns += d as u64 * 1000,
                None => return Outcome::Lost,
            }
        }
        if self.replay.order == Order::Fifo {
            arrival_ns = arrival_ns.max(self.last_arrival_ns);
            self.last_arrival_ns = arrival_ns;
        }
        Outcome::Arrives(arrival_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source::File("t".into())
    }

    fn replay(delays: Option<&str>, opps: Option<&str>, queue: QueueLimit, order: Order) -> Replay {
        Replay {
            delays: delays.map(|t| Arc::new(Delays::series(t, 10_000, &src()).unwrap())),
            opportunities: opps.map(|t| Arc::new(Opportunities::parse(t, &src()).unwrap())),
            queue,
            order,
            aligned: false,
            from: "test".into(),
        }
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn each_packet_takes_the_delay_in_force_when_it_leaves() {
        // 10 ms, then 50 ms, then 20 ms, repeating every 30 ms.
        let r = replay(Some("10\n50\n20\n"), None, QueueLimit::Unlimited, Order::ByArrival);
        let mut at0 = Replayer::new(r.clone(), 0);
        assert_eq!(at0.pass(0, 100), Outcome::Arrives(10 * MS));
        assert_eq!(at0.pass(12 * MS, 100), Outcome::Arrives(62 * MS));
        assert_eq!(at0.pass(25 * MS, 100), Outcome::Arrives(45 * MS), "by arrival: overtakes");
        assert_eq!(at0.pass(31 * MS, 100), Outcome::Arrives(41 * MS), "repeats");
        // Entered 10 ms in: the node reads the 50 ms interval first.
        let mut at10 = Replayer::new(r, 10_000 + 30_000 * 7);
        assert_eq!(at10.pass(0, 100), Outcome::Arrives(50 * MS));
    }

    #[test]
    fn fifo_holds_a_packet_behind_the_one_before() {
        let r = replay(Some("10\n50\n20\n"), None, QueueLimit::Unlimited, Order::Fifo);
        let mut l = Replayer::new(r, 0);
        assert_eq!(l.pass(12 * MS, 100), Outcome::Arrives(62 * MS));
        assert_eq!(l.pass(25 * MS, 100), Outcome::Arrives(62 * MS));
        assert_eq!(l.pass(80 * MS, 100), Outcome::Arrives(100 * MS));
    }

    #[test]
    fn a_lost_sample_loses_what_is_sent_then() {
        let d = Delays::samples(vec![(0, Some(5_000)), (10_000, None), (20_000, Some(7_000))], &src()).unwrap();
        let r = Replay {
            delays: Some(Arc::new(d)),
            opportunities: None,
            queue: QueueLimit::Unlimited,
            order: Order::Fifo,
            aligned: false,
            from: "t".into(),
        };
        let mut l = Replayer::new(r, 0);
        assert_eq!(l.pass(MS, 60), Outcome::Arrives(6 * MS));
        assert_eq!(l.pass(15 * MS, 60), Outcome::Lost);
        assert_eq!(l.pass(21 * MS, 60), Outcome::Arrives(28 * MS));
    }

    #[test]
    fn opportunities_carry_1504_bytes_each_in_order() {
        // Opportunities at 2, 4, 4, 10 ms; the trace repeats every 10 ms.
        let r = replay(None, Some("2\n4\n4\n10\n"), QueueLimit::Unlimited, Order::Fifo);
        let mut l = Replayer::new(r, 0);
        // Two 700 B packets share the opportunity at 2 ms.
        assert_eq!(l.pass(0, 700), Outcome::Arrives(2 * MS));
        assert_eq!(l.pass(0, 700), Outcome::Arrives(2 * MS));
        // 1,000 B: 104 B left at 2 ms, the rest at 4 ms.
        assert_eq!(l.pass(MS, 1_000), Outcome::Arrives(4 * MS));
        // 3,000 B: 608 B left of the first at 4 ms, 1,504 of the second,
        // the last 888 at 10 ms.
        assert_eq!(l.pass(MS, 3_000), Outcome::Arrives(10 * MS));
        // Arriving at 10.5 ms: the opportunities of 10 ms are past; the
        // next is the repetition's 2 ms, at 12 ms.
        assert_eq!(l.pass(10 * MS + MS / 2, 100), Outcome::Arrives(12 * MS));
    }

    #[test]
    fn opportunities_join_with_delays_and_the_queue_drops_at_its_limit() {
        // One opportunity every ms; 5 ms of delay after it.
        let opps: String = (1..=100).map(|i| format!("{i}\n")).collect();
        let r = replay(Some("5\n"), Some(&opps), QueueLimit::Packets(2), Order::Fifo);
        let mut l = Replayer::new(r, 0);
        // A burst of four full packets at 0: two fit the queue.
        let got: Vec<Outcome> = (0..4).map(|_| l.pass(0, 1_504)).collect();
        assert_eq!(got, [Outcome::Arrives(6 * MS), Outcome::Arrives(7 * MS), Outcome::Dropped, Outcome::Dropped]);
        // At 1 ms the first has left: room for one.
        assert_eq!(l.pass(MS, 1_504), Outcome::Arrives(8 * MS));
        let r = replay(None, Some(&opps), QueueLimit::Bytes(2_000), Order::Fifo);
        let mut l = Replayer::new(r, 0);
        assert_eq!(l.pass(0, 1_500), Outcome::Arrives(MS));
        assert_eq!(l.pass(0, 600), Outcome::Dropped, "2,100 B would wait");
        assert_eq!(l.pass(0, 500), Outcome::Arrives(2 * MS));
    }

    #[test]
    fn offsets_differ_by_node_and_seed() {
        let a = Replayer::draw(1, 1);
        assert_eq!(a, Replayer::draw(1, 1));
        assert_ne!(a, Replayer::draw(1, 2));
        assert_ne!(a, Replayer::draw(2, 1));
    }
}
