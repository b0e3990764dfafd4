//! The `tc qdisc ... netem` grammar: a profile direction written the way
//! Linux users already write it.
//!
//! ```
//! use harness::net::netem::Netem;
//! let n = Netem::parse("delay 50ms 10ms distribution normal loss gemodel 1% 30% rate 5mbit limit 200").unwrap();
//! assert_eq!(n.delay_us, 50_000);
//! assert!(Netem::parse("delay 50").is_err()); // a bare number has no unit
//! ```
//!
//! Parsing follows iproute2 (`tc/q_netem.c`): percentages are `5` or `5%`;
//! times need a unit (`s`, `ms`, `us`, `ns`: a bare number is rejected,
//! because iproute2 changed its meaning from µs to ns in 6.9); rates take
//! iproute2's units (a bare number is bit/s; `kbit`/`mbit`/`gbit` ×1000,
//! `kibit`/`mibit` ×1024, `bps`/`kbps`/`mbps` are bytes); `reorder` needs a
//! delay and sets `gap 1` by default; `gap` without `reorder` is an error;
//! `loss state` and `loss gemodel` fill in netem's defaults. Options:
//!
//! ```text
//! delay TIME [JITTER [CORRELATION]]   distribution {uniform|normal|pareto|paretonormal}
//! loss [random] PERCENT [CORRELATION] | loss state P13 [P31 [P32 [P23 [P14]]]]
//! loss gemodel P [R [1-H [1-K]]]      duplicate PERCENT [CORRELATION]
//! corrupt PERCENT [CORRELATION]       reorder PERCENT [CORRELATION] [gap DISTANCE]
//! rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]   limit PACKETS   ecn
//! slot MIN_DELAY [MAX_DELAY] [packets N] [bytes N]
//! slot distribution DIST DELAY JITTER [packets N] [bytes N]
//! ```

use super::dist::Distribution;
use std::fmt;

/// A probability as netem stores it: `P · (2³² − 1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Prob(pub u32);

impl Prob {
    /// Zero probability.
    pub const NEVER: Prob = Prob(0);
    /// Probability one.
    pub const ALWAYS: Prob = Prob(u32::MAX);
    /// From a percentage in `[0, 100]`, rounded as iproute2 does (`rint`).
    pub fn from_percent(p: f64) -> Prob {
        Prob((p / 100.0 * u32::MAX as f64).round_ties_even() as u32)
    }
    /// As a percentage.
    pub fn percent(self) -> f64 {
        self.0 as f64 / u32::MAX as f64 * 100.0
    }
    /// As a fraction.
    pub fn fraction(self) -> f64 {
        self.0 as f64 / u32::MAX as f64
    }
    /// Whether non-zero.
    pub fn is_set(self) -> bool {
        self.0 != 0
    }
    /// `1 − P`.
    pub fn complement(self) -> Prob {
        Prob(u32::MAX - self.0)
    }
}

/// Which loss process drops packets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossModel {
    /// Independent (or kernel-"correlated") loss.
    Random {
        /// Loss probability.
        p: Prob,
        /// Correlation.
        corr: Prob,
    },
    /// The 4-state Markov model (`loss state`), netem's p13 … p14.
    State {
        /// Good → burst loss.
        p13: Prob,
        /// Burst loss → good.
        p31: Prob,
        /// Burst loss → good within burst.
        p32: Prob,
        /// Good within burst → burst loss.
        p23: Prob,
        /// Good → isolated loss.
        p14: Prob,
    },
    /// Gilbert–Elliott (`loss gemodel p r 1-h 1-k`).
    GilbertElliott {
        /// Good → bad.
        p: Prob,
        /// Bad → good.
        r: Prob,
        /// Loss probability in the bad state (`1-h`).
        bad_loss: Prob,
        /// Loss probability in the good state (`1-k`).
        good_loss: Prob,
    },
}

impl Default for LossModel {
    fn default() -> Self {
        LossModel::Random { p: Prob::NEVER, corr: Prob::NEVER }
    }
}

impl LossModel {
    /// Whether it can ever drop a packet.
    pub fn is_set(&self) -> bool {
        match *self {
            LossModel::Random { p, .. } => p.is_set(),
            LossModel::State { p13, p14, .. } => p13.is_set() || p14.is_set(),
            LossModel::GilbertElliott { p, good_loss, .. } => p.is_set() || good_loss.is_set(),
        }
    }
}

/// `rate RATE [PACKETOVERHEAD [CELLSIZE [CELLOVERHEAD]]]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Bytes per second.
    pub bytes_per_s: u64,
    /// Added to each packet's length (may be negative).
    pub packet_overhead: i32,
    /// Round lengths up to whole cells of this size (0 = off).
    pub cell_size: u32,
    /// Added to each cell.
    pub cell_overhead: i32,
}

/// `slot`: packets leave in bursts (Wi-Fi / LTE aggregation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    /// Minimum gap between slots, µs (or the distribution's delay).
    pub min_us: u64,
    /// Maximum gap between slots, µs (or the distribution's jitter).
    pub max_us: u64,
    /// `Some(d)`: slot gaps drawn from `d` with delay `min_us` and jitter `max_us`.
    pub distribution: Option<Distribution>,
    /// Packets per slot (0 = unlimited).
    pub packets: u32,
    /// Bytes per slot (0 = unlimited).
    pub bytes: u32,
}

/// One direction of a link in netem's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Netem {
    /// Base one-way delay, µs.
    pub delay_us: u64,
    /// Jitter (σ for tables, half-width for uniform), µs.
    pub jitter_us: u64,
    /// Delay correlation.
    pub delay_corr: Prob,
    /// Delay distribution.
    pub distribution: Distribution,
    /// Loss process.
    pub loss: LossModel,
    /// Duplication probability.
    pub duplicate: Prob,
    /// Duplication correlation.
    pub duplicate_corr: Prob,
    /// Single-bit corruption probability.
    pub corrupt: Prob,
    /// Corruption correlation.
    pub corrupt_corr: Prob,
    /// Reorder probability (packets sent at once, skipping the delay).
    pub reorder: Prob,
    /// Reorder correlation.
    pub reorder_corr: Prob,
    /// Reorder gap: 0 = no reordering.
    pub gap: u32,
    /// Queue limit in packets (default 1000).
    pub limit: u32,
    /// Rate limit.
    pub rate: Option<Rate>,
    /// Slotting.
    pub slot: Option<Slot>,
    /// Mark ECN-capable packets instead of dropping them. Game traffic over
    /// UDP is not ECN-capable, so this changes nothing in the simulator.
    pub ecn: bool,
    /// netem's own `seed`: when set, this direction's random stream is seeded
    /// from it instead of the run seed.
    pub seed: Option<u64>,
}

impl Default for Netem {
    fn default() -> Self {
        Netem {
            delay_us: 0,
            jitter_us: 0,
            delay_corr: Prob::NEVER,
            distribution: Distribution::Uniform,
            loss: LossModel::default(),
            duplicate: Prob::NEVER,
            duplicate_corr: Prob::NEVER,
            corrupt: Prob::NEVER,
            corrupt_corr: Prob::NEVER,
            reorder: Prob::NEVER,
            reorder_corr: Prob::NEVER,
            gap: 0,
            limit: DEFAULT_LIMIT,
            rate: None,
            slot: None,
            ecn: false,
            seed: None,
        }
    }
}

/// Why a netem string did not parse: the token and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetemError {
    /// The offending token (or the end of input).
    pub token: String,
    /// What was expected instead.
    pub expected: String,
}

impl fmt::Display for NetemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "netem: at `{}`: {}", crate::error::echo(&self.token), self.expected)
    }
}

impl std::error::Error for NetemError {}

/// netem's default queue limit.
pub const DEFAULT_LIMIT: u32 = 1000;

/// Words that start a netem option; an inline `--profile` string must begin
/// with one of these.
pub const KEYWORDS: &[&str] = &[
    "delay",
    "latency",
    "loss",
    "drop",
    "duplicate",
    "corrupt",
    "reorder",
    "gap",
    "limit",
    "rate",
    "slot",
    "distribution",
    "ecn",
    "seed",
];

struct Tokens<'a> {
    toks: Vec<&'a str>,
    i: usize,
}

impl<'a> Tokens<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.toks.get(self.i).copied()
    }
    fn next(&mut self) -> Option<&'a str> {
        let t = self.peek();
        self.i += 1;
        t
    }
    fn err(&self, expected: impl Into<String>) -> NetemError {
        NetemError { token: self.peek().unwrap_or("end of input").to_string(), expected: expected.into() }
    }
    /// The next token if it parses with `f`.
    fn optional<T>(&mut self, f: impl Fn(&str) -> Option<T>) -> Option<T> {
        let v = self.peek().and_then(&f)?;
        self.i += 1;
        Some(v)
    }
    fn required<T>(&mut self, f: impl Fn(&str) -> Option<T>, expected: &str) -> Result<T, NetemError> {
        match self.peek().and_then(&f) {
            Some(v) => {
                self.i += 1;
                Ok(v)
            }
            None => Err(self.err(expected)),
        }
    }
    /// A time of at most [`MAX_TIME_US`]; `expected` describes the syntax.
    fn time_arg(&mut self, expected: &str) -> Result<u64, NetemError> {
        match self.peek().and_then(time) {
            None => Err(self.err(expected)),
            Some(v) if v > MAX_TIME_US => Err(self.err("a time of at most 1h (3600s)")),
            Some(v) => {
                self.i += 1;
                Ok(v)
            }
        }
    }
    fn next_is_number(&self) -> bool {
        self.peek().and_then(|t| t.chars().next()).is_some_and(|c| c.is_ascii_digit() || c == '.' || c == '-')
    }
}

impl Netem {
    /// A clean link: no delay, no loss.
    pub fn clean() -> Netem {
        Netem::default()
    }

    /// Whether this direction changes nothing (packets pass at once).
    pub fn is_clean(&self) -> bool {
        self.delay_us == 0
            && self.jitter_us == 0
            && !self.loss.is_set()
            && !self.duplicate.is_set()
            && !self.corrupt.is_set()
            && !self.reorder.is_set()
            && self.rate.is_none()
            && self.slot.is_none()
    }

    /// Parses a netem option string (everything after `netem` in a `tc`
    /// command line) — or a whole pasted `[sudo] tc qdisc add|change|replace
    /// dev IF … netem OPTIONS` line, whose options are taken.
    pub fn parse(text: &str) -> Result<Netem, NetemError> {
        let text = strip_tc_command(text)?;
        let mut t = Tokens { toks: text.split_whitespace().collect(), i: 0 };
        let mut n = Netem::clean();
        let mut gap_seen = false;
        while let Some(word) = t.next() {
            match word {
                "delay" | "latency" => {
                    n.delay_us = t.time_arg("a delay with a unit, e.g. `50ms`")?;
                    if t.peek().and_then(time).is_some() {
                        n.jitter_us = t.time_arg("a jitter with a unit, e.g. `10ms`")?;
                        if let Some(c) = t.optional(percent) {
                            n.delay_corr = c;
                        }
                    } else if t.next_is_number() {
                        return Err(t.err("a jitter with a unit, e.g. `10ms`"));
                    }
                }
                "distribution" => {
                    n.distribution = t.required(Distribution::from_name, "uniform, normal, pareto or paretonormal")?;
                }
                "loss" | "drop" => n.loss = parse_loss(&mut t)?,
                "duplicate" | "corrupt" | "reorder" => {
                    let p = t.required(percent, &format!("a {word} percentage 0-100, e.g. `1%`"))?;
                    let c = t.optional(percent).unwrap_or(Prob::NEVER);
                    match word {
                        "duplicate" => (n.duplicate, n.duplicate_corr) = (p, c),
                        "corrupt" => (n.corrupt, n.corrupt_corr) = (p, c),
                        _ => (n.reorder, n.reorder_corr) = (p, c),
                    }
                }
                "gap" => {
                    n.gap = t.required(|s| s.parse().ok(), "a packet count, e.g. `gap 5`")?;
                    gap_seen = true;
                }
                "limit" => {
                    n.limit = t.required(
                        |s| s.parse().ok().filter(|&l: &u32| l > 0),
                        "a queue limit in packets, e.g. `limit 1000`",
                    )?;
                }
                "rate" => {
                    if t.peek().and_then(rate_bytes).is_some() && t.peek().and_then(rate).is_none() {
                        return Err(t.err(RATE_RANGE));
                    }
                    let bytes_per_s =
                        t.required(rate, "a rate, e.g. `5mbit`, `500kbit`, `100kbps` (a bare number is bit/s)")?;
                    let mut r = Rate { bytes_per_s, packet_overhead: 0, cell_size: 0, cell_overhead: 0 };
                    if let Some(o) = t.optional(|s| s.parse::<i32>().ok()) {
                        r.packet_overhead = o;
                        if let Some(c) = t.optional(|s| s.parse::<u32>().ok()) {
                            r.cell_size = c;
                            if let Some(co) = t.optional(|s| s.parse::<i32>().ok()) {
                                r.cell_overhead = co;
                            }
                        }
                    }
                    n.rate = Some(r);
                }
                "slot" => n.slot = Some(parse_slot(&mut t)?),
                "ecn" => n.ecn = true,
                "seed" => n.seed = Some(t.required(|v| v.parse().ok(), "a seed value (an unsigned integer)")?),
                _ => {
                    t.i -= 1;
                    return Err(t.err("a netem option: delay, distribution, loss, duplicate, corrupt, reorder, gap, limit, rate, slot or ecn"));
                }
            }
        }
        if n.reorder.is_set() {
            if n.delay_us == 0 {
                return Err(NetemError {
                    token: "reorder".into(),
                    expected: "a `delay`: reordering is not possible without some delay".into(),
                });
            }
            if n.gap == 0 {
                n.gap = 1;
            }
        } else if gap_seen && n.gap > 0 {
            return Err(NetemError {
                token: "gap".into(),
                expected: "a `reorder` probability: gap without reorder is an error".into(),
            });
        }
        if n.distribution != Distribution::Uniform && n.jitter_us == 0 {
            // iproute2 accepts this; the table then has no effect. Keep it.
        }
        Ok(n)
    }
}

fn parse_loss(t: &mut Tokens<'_>) -> Result<LossModel, NetemError> {
    let pct = |t: &mut Tokens<'_>, what: &str| t.required(percent, &format!("{what} as a percentage 0-100"));
    match t.peek() {
        Some("state") => {
            t.next();
            let p13 = pct(t, "p13")?;
            let mut m =
                LossModel::State { p13, p31: p13.complement(), p32: Prob::NEVER, p23: Prob::ALWAYS, p14: Prob::NEVER };
            if let LossModel::State { p31, p32, p23, p14, .. } = &mut m {
                for slot in [p31, p32, p23, p14] {
                    match t.optional(percent) {
                        Some(v) => *slot = v,
                        None => break,
                    }
                }
            }
            Ok(m)
        }
        Some("gemodel" | "gmodel") => {
            t.next();
            let p = pct(t, "p")?;
            let mut m =
                LossModel::GilbertElliott { p, r: p.complement(), bad_loss: Prob::ALWAYS, good_loss: Prob::NEVER };
            if let LossModel::GilbertElliott { r, bad_loss, good_loss, .. } = &mut m {
                for slot in [r, bad_loss, good_loss] {
                    match t.optional(percent) {
                        Some(v) => *slot = v,
                        None => break,
                    }
                }
            }
            Ok(m)
        }
        Some("random") => {
            t.next();
            let p = pct(t, "a loss probability")?;
            Ok(LossModel::Random { p, corr: t.optional(percent).unwrap_or(Prob::NEVER) })
        }
        _ => {
            let p = t.required(percent, "a loss percentage 0-100 (e.g. `2%`), or `random`, `state`, `gemodel`")?;
            Ok(LossModel::Random { p, corr: t.optional(percent).unwrap_or(Prob::NEVER) })
        }
    }
}

fn parse_slot(t: &mut Tokens<'_>) -> Result<Slot, NetemError> {
    let mut s = Slot { min_us: 0, max_us: 0, distribution: None, packets: 0, bytes: 0 };
    if t.peek() == Some("distribution") {
        t.next();
        let d = t.required(Distribution::from_name, "uniform, normal, pareto or paretonormal")?;
        s.distribution = Some(d);
        s.min_us = t.time_arg("the slot delay with a unit, e.g. `10ms`")?;
        s.max_us = t.time_arg("the slot jitter with a unit, e.g. `2ms`")?;
    } else {
        s.min_us = t.time_arg("a minimum slot delay with a unit, e.g. `800us`")?;
        s.max_us = if t.peek().and_then(time).is_some() { t.time_arg("a maximum slot delay")? } else { s.min_us };
        if s.max_us < s.min_us {
            t.i -= 1;
            return Err(t.err("a maximum slot delay not below the minimum"));
        }
    }
    loop {
        match t.peek() {
            Some("packets") => {
                t.next();
                s.packets = t.required(|v| v.parse().ok(), "a packet count per slot")?;
            }
            Some("bytes") => {
                t.next();
                s.bytes = t.required(size, "a byte count per slot, e.g. `6400` or `64k`")?;
            }
            _ => return Ok(s),
        }
    }
}

impl fmt::Display for Netem {
    /// The canonical netem form, which parses back to the same value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let pc = |p: Prob| format!("{}%", trim(p.percent()));
        if self.delay_us > 0 || self.jitter_us > 0 {
            let mut s = format!("delay {}", fmt_time(self.delay_us));
            if self.jitter_us > 0 {
                s += &format!(" {}", fmt_time(self.jitter_us));
                if self.delay_corr.is_set() {
                    s += &format!(" {}", pc(self.delay_corr));
                }
            }
            parts.push(s);
        }
        if self.distribution != Distribution::Uniform {
            parts.push(format!("distribution {}", self.distribution.name()));
        }
        match self.loss {
            LossModel::Random { p, corr } if p.is_set() => {
                parts.push(if corr.is_set() {
                    format!("loss {} {}", pc(p), pc(corr))
                } else {
                    format!("loss {}", pc(p))
                });
            }
            LossModel::Random { .. } => {}
            LossModel::State { p13, p31, p32, p23, p14 } => {
                parts.push(format!("loss state {} {} {} {} {}", pc(p13), pc(p31), pc(p32), pc(p23), pc(p14)));
            }
            LossModel::GilbertElliott { p, r, bad_loss, good_loss } => {
                parts.push(format!("loss gemodel {} {} {} {}", pc(p), pc(r), pc(bad_loss), pc(good_loss)));
            }
        }
        let mut opt = |name: &str, p: Prob, c: Prob| {
            if p.is_set() {
                let mut s = format!("{name} {}", pc(p));
                if c.is_set() {
                    s += &format!(" {}", pc(c));
                }
                parts.push(s);
            }
        };
        opt("duplicate", self.duplicate, self.duplicate_corr);
        opt("corrupt", self.corrupt, self.corrupt_corr);
        opt("reorder", self.reorder, self.reorder_corr);
        if self.reorder.is_set() && self.gap > 1 {
            parts.push(format!("gap {}", self.gap));
        }
        if let Some(r) = self.rate {
            // In bits, the unit a reader checks against a link's rating
            // (tc's `bps` is bytes per second, a common surprise).
            let mut s = format!("rate {}bit", r.bytes_per_s * 8);
            if r.packet_overhead != 0 || r.cell_size != 0 {
                s += &format!(" {}", r.packet_overhead);
                if r.cell_size != 0 {
                    s += &format!(" {}", r.cell_size);
                    if r.cell_overhead != 0 {
                        s += &format!(" {}", r.cell_overhead);
                    }
                }
            }
            parts.push(s);
        }
        if let Some(sl) = self.slot {
            let mut s = match sl.distribution {
                Some(d) => format!("slot distribution {} {} {}", d.name(), fmt_time(sl.min_us), fmt_time(sl.max_us)),
                None => format!("slot {} {}", fmt_time(sl.min_us), fmt_time(sl.max_us)),
            };
            if sl.packets > 0 {
                s += &format!(" packets {}", sl.packets);
            }
            if sl.bytes > 0 {
                s += &format!(" bytes {}", sl.bytes);
            }
            parts.push(s);
        }
        if self.limit != DEFAULT_LIMIT {
            parts.push(format!("limit {}", self.limit));
        }
        if self.ecn {
            parts.push("ecn".into());
        }
        if let Some(seed) = self.seed {
            parts.push(format!("seed {seed}"));
        }
        if parts.is_empty() {
            write!(f, "(clean)")
        } else {
            write!(f, "{}", parts.join(" "))
        }
    }
}

fn trim(x: f64) -> String {
    let s = format!("{:.6}", x);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn fmt_time(us: u64) -> String {
    if us.is_multiple_of(1000) {
        format!("{}ms", us / 1000)
    } else {
        format!("{us}us")
    }
}

/// Parses a netem time: a decimal number and a unit. Rounds to µs.
pub fn time(t: &str) -> Option<u64> {
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().ok()?;
    let scale = match unit {
        "s" | "sec" | "secs" => 1e6,
        "ms" | "msec" | "msecs" => 1e3,
        "us" | "usec" | "usecs" => 1.0,
        "ns" | "nsec" | "nsecs" => 1e-3,
        _ => return None,
    };
    let us = (value * scale).round();
    (0.0..1e18).contains(&us).then_some(us as u64)
}

/// What is dropped from a pasted `tc … netem …` line, said to the user:
/// `None` when `text` is a plain option string (or no netem line at all).
pub fn tc_prefix_note(text: &str) -> Option<String> {
    let options = strip_tc_command(text).ok()?;
    if options.len() == text.len() {
        return None;
    }
    let prefix = text[..text.len() - options.len()].trim();
    let device = prefix.split_whitespace().skip_while(|w| *w != "dev").nth(1).unwrap_or("?");
    Some(format!(
        "took the netem options of a pasted tc line: `{prefix}` dropped, device {device} ignored; the options apply to both directions of every client's link"
    ))
}

/// A warning for each rate written in tc's byte units (`kbps`, `mbps`, …):
/// tc reads `1mbps` as 1 MB/s = 8 Mbit/s, which is rarely what was meant.
pub fn byte_rate_notes(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut notes = Vec::new();
    for w in words.windows(2).filter(|w| w[0] == "rate") {
        let unit = w[1].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.').to_ascii_lowercase();
        if unit.ends_with("bps") {
            if let Some(bytes) = rate(w[1]) {
                let bits =
                    format!("{}{}", &w[1][..w[1].len() - unit.len()], unit.trim_end_matches("ps").to_owned() + "it");
                notes.push(format!(
                    "`rate {}` is bytes per second to tc: {:.3} Mbit/s; for bits write `rate {bits}`",
                    w[1],
                    bytes as f64 * 8.0 / 1e6
                ));
            }
        }
    }
    notes
}

/// The options of a pasted `tc … netem …` line, or `text` unchanged.
fn strip_tc_command(text: &str) -> Result<&str, NetemError> {
    let trimmed = text.trim_start();
    let rest = trimmed.strip_prefix("sudo ").map(str::trim_start).unwrap_or(trimmed);
    if rest.split_whitespace().next() != Some("tc") {
        return Ok(text);
    }
    // `tc [-options] qdisc add|change|replace …`: a line that deletes or
    // shows a qdisc applies nothing.
    let mut words = rest.split_whitespace().skip(1).skip_while(|w| w.starts_with('-'));
    let (object, verb) = (words.next(), words.next());
    if object != Some("qdisc") || !matches!(verb, Some("add" | "change" | "replace")) {
        let said = [object, verb].iter().flatten().copied().collect::<Vec<_>>().join(" ");
        return Err(NetemError {
            token: crate::error::echo(if said.is_empty() { "tc" } else { &said }),
            expected: "`tc qdisc add|change|replace … netem OPTIONS`: only a line that adds netem is a profile".into(),
        });
    }
    match rest.find(" netem") {
        Some(i) => Ok(&rest[i + " netem".len()..]),
        None => Err(NetemError {
            token: "tc".into(),
            expected: "a `tc qdisc … netem OPTIONS` line (this one names no netem qdisc)".into(),
        }),
    }
}

/// The longest delay, jitter or slot time a description may state.
pub const MAX_TIME_US: u64 = 3_600_000_000;

/// Parses a netem percentage: `5` or `5%`, 0–100.
pub fn percent(t: &str) -> Option<Prob> {
    let num = t.strip_suffix('%').unwrap_or(t);
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    (0.0..=100.0).contains(&v).then(|| Prob::from_percent(v))
}

/// Parses a size with iproute2's `get_size` units (`k`/`kb` ×1024, `m`/`mb`,
/// `g`/`gb`, `kbit`/`mbit`/`gbit` in bits) into bytes.
pub fn size(t: &str) -> Option<u32> {
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().ok()?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1024.0,
        "m" | "mb" => 1024.0 * 1024.0,
        "g" | "gb" => 1024.0 * 1024.0 * 1024.0,
        "kbit" => 1024.0 / 8.0,
        "mbit" => 1024.0 * 1024.0 / 8.0,
        "gbit" => 1024.0 * 1024.0 * 1024.0 / 8.0,
        _ => return None,
    };
    let v = (value * scale).floor();
    (0.0..=u32::MAX as f64).contains(&v).then_some(v as u32)
}

/// Parses a rate with iproute2's units into bytes per second, within
/// [`RATE_RANGE`].
pub fn rate(t: &str) -> Option<u64> {
    rate_bytes(t).filter(|b| (1.0..1e15).contains(b)).map(|b| b as u64)
}

/// The rates [`rate`] takes, as a message says it.
pub const RATE_RANGE: &str = "a rate from 8bit (1 byte/s) to 8pbit (10¹⁵ bytes/s)";

/// A rate's bytes per second (rounded), in or out of range; `None` when
/// it is not written as a rate.
pub fn rate_bytes(t: &str) -> Option<f64> {
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let value: f64 = num.parse().ok()?;
    let bits = match unit.to_ascii_lowercase().as_str() {
        "" | "bit" => 1.0,
        "kibit" => 1024.0,
        "kbit" => 1e3,
        "mibit" => 1024.0 * 1024.0,
        "mbit" => 1e6,
        "gibit" => 1024.0 * 1024.0 * 1024.0,
        "gbit" => 1e9,
        "tibit" => 1024f64.powi(4),
        "tbit" => 1e12,
        "bps" => 8.0,
        "kibps" => 8.0 * 1024.0,
        "kbps" => 8e3,
        "mibps" => 8.0 * 1024.0 * 1024.0,
        "mbps" => 8e6,
        "gibps" => 8.0 * 1024.0 * 1024.0 * 1024.0,
        "gbps" => 8e9,
        "tibps" => 8.0 * 1024f64.powi(4),
        "tbps" => 8e12,
        _ => return None,
    };
    Some((value * bits / 8.0).round())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pasted_tc_line_and_byte_rates_are_pointed_out() {
        let note = tc_prefix_note("sudo tc qdisc add dev eth0 root netem delay 50ms loss 1%").unwrap();
        assert!(note.contains("device eth0 ignored"), "{note}");
        assert!(note.contains("`sudo tc qdisc add dev eth0 root netem` dropped"), "{note}");
        assert_eq!(tc_prefix_note("delay 50ms"), None);
        let notes = byte_rate_notes("delay 5ms rate 1mbps limit 20");
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("8.000 Mbit/s") && notes[0].contains("`rate 1mbit`"), "{}", notes[0]);
        assert!(byte_rate_notes("rate 1mbit rate 5kibps")[0].contains("`rate 5kibit`"));
        // The canonical form spells the rate in bits and reads back the same.
        let n = Netem::parse("rate 1mbps").unwrap();
        assert_eq!(n.to_string(), "rate 8000000bit");
        assert_eq!(Netem::parse(&n.to_string()).unwrap(), n);
    }

    #[test]
    fn parses_the_common_forms() {
        let n = Netem::parse(
            "delay 100ms 10ms 25% loss random 0.3% 25% duplicate 1% corrupt 0.1% reorder 25% 50% gap 5 limit 500",
        )
        .unwrap();
        assert_eq!((n.delay_us, n.jitter_us), (100_000, 10_000));
        assert!((n.delay_corr.percent() - 25.0).abs() < 1e-6);
        assert!(matches!(n.loss, LossModel::Random { p, .. } if (p.percent() - 0.3).abs() < 1e-6));
        assert!((n.reorder.percent() - 25.0).abs() < 1e-6);
        assert_eq!((n.gap, n.limit), (5, 500));
        assert!(n.duplicate.is_set() && n.corrupt.is_set());
    }

    #[test]
    fn units_are_netems() {
        let d = |s: &str| Netem::parse(s).map(|n| n.delay_us);
        assert_eq!(d("delay 1s"), Ok(1_000_000));
        assert_eq!(d("delay 1.5ms"), Ok(1_500));
        assert_eq!(d("delay 250us"), Ok(250));
        assert_eq!(d("delay 2000ns"), Ok(2));
        assert_eq!(d("latency 7msec"), Ok(7_000));
        assert!(d("delay 50").is_err());
        assert!(d("delay banana").is_err());
        assert!(Netem::parse("delay 50ms 10").is_err());
        assert!(Netem::parse("loss 101%").is_err());
        assert!(Netem::parse("loss").is_err());
        let r = |s: &str| Netem::parse(s).map(|n| n.rate.unwrap().bytes_per_s);
        assert_eq!(r("rate 8000"), Ok(1_000));
        assert_eq!(r("rate 1mbit"), Ok(125_000));
        assert_eq!(r("rate 1Mbit"), Ok(125_000));
        assert_eq!(r("rate 1kibit"), Ok(128));
        assert_eq!(r("rate 100kbps"), Ok(100_000));
        assert_eq!(r("rate 1Bps"), Ok(1));
        assert!(Netem::parse("rate fast").is_err());
    }

    #[test]
    fn loss_models_fill_in_netems_defaults() {
        let n = Netem::parse("loss state 1%").unwrap();
        let LossModel::State { p13, p31, p32, p23, p14 } = n.loss else { panic!() };
        assert_eq!(
            (p13, p31, p32, p23, p14),
            (Prob::from_percent(1.0), Prob::from_percent(1.0).complement(), Prob::NEVER, Prob::ALWAYS, Prob::NEVER)
        );
        let n = Netem::parse("loss state 1% 30% 2% 40%").unwrap();
        assert!(
            matches!(n.loss, LossModel::State { p23, p14, .. } if p23 == Prob::from_percent(40.0) && p14 == Prob::NEVER)
        );
        let n = Netem::parse("loss gemodel 2%").unwrap();
        let LossModel::GilbertElliott { p, r, bad_loss, good_loss } = n.loss else { panic!() };
        assert_eq!(
            (p, r, bad_loss, good_loss),
            (Prob::from_percent(2.0), Prob::from_percent(2.0).complement(), Prob::ALWAYS, Prob::NEVER)
        );
        let n = Netem::parse("loss gemodel 1% 10% 70% 0.1%").unwrap();
        assert!(matches!(n.loss, LossModel::GilbertElliott { bad_loss, .. } if bad_loss == Prob::from_percent(70.0)));
    }

    #[test]
    fn every_man_page_example_the_kernel_accepts_parses() {
        // The examples of tc-netem(8) and one instance of each SYNOPSIS
        // form, minus the `tc qdisc add dev eth0 root netem` prefix.
        for s in [
            "delay 100ms",
            "delay 100ms 10ms",
            "delay 100ms 10ms 25%",
            "delay 100ms 20ms distribution normal",
            "loss 0.1%",
            "loss 0.3% 25%",
            "duplicate 1%",
            "corrupt 0.1%",
            "delay 10ms reorder 25% 50%",
            "gap 5 delay 10ms",
            "rate 5kbit 20 100 5",
            "delay 100ms 10ms 25% distribution normal loss 0.3% 25%",
            "slot 800us 4ms packets 42 bytes 64k",
            "slot distribution pareto 4ms 1ms",
            "delay 10ms reorder 25% gap 5",
            "loss state 1% 30% 0.1% 10% 0.01%",
            "loss gemodel 1% 10% 70% 0.1%",
            "limit 1000 delay 50ms ecn loss 1%",
            "delay 10ms seed 42",
        ] {
            let r = Netem::parse(s);
            if s.starts_with("gap 5 delay") {
                // `gap` without `reorder`: rejected, see below.
                assert!(r.is_err(), "{s}");
                continue;
            }
            assert!(r.is_ok(), "{s}: {:?}", r.err());
        }
        // gap without reorder is rejected, as the kernel's parser does.
        assert_eq!(Netem::parse("gap 5 delay 10ms").unwrap_err().token, "gap");
    }

    #[test]
    fn reorder_rules_follow_iproute2() {
        assert_eq!(Netem::parse("delay 10ms reorder 25%").unwrap().gap, 1);
        assert!(Netem::parse("reorder 25%").is_err(), "reorder needs a delay");
        let e = Netem::parse("delay 10ms gap 5").unwrap_err();
        assert_eq!(e.token, "gap");
    }

    #[test]
    fn a_pasted_tc_line_is_its_netem_options() {
        let want = Netem::parse("delay 50ms 10ms loss 1%").unwrap();
        for line in [
            "tc qdisc add dev eth0 root netem delay 50ms 10ms loss 1%",
            "sudo tc qdisc change dev wlan0 parent 1:1 handle 10: netem delay 50ms 10ms loss 1%",
        ] {
            assert_eq!(Netem::parse(line).unwrap(), want, "{line}");
        }
        assert!(Netem::parse("tc qdisc add dev eth0 root tbf rate 1mbit").unwrap_err().to_string().contains("netem"));
        assert_eq!(Netem::parse("tc -s qdisc replace dev eth0 root netem delay 50ms 10ms loss 1%").unwrap(), want);
        // Lines that delete or show a qdisc apply nothing.
        for line in [
            "tc qdisc del dev eth0 root netem delay 100ms",
            "tc qdisc show dev eth0 root netem loss 100%",
            "sudo tc filter add dev eth0 netem delay 5ms",
        ] {
            let e = Netem::parse(line).unwrap_err().to_string();
            assert!(e.contains("add|change|replace"), "{line}: {e}");
        }
    }

    #[test]
    fn errors_name_the_token() {
        let e = Netem::parse("delay banana").unwrap_err();
        assert_eq!(e.token, "banana");
        assert!(e.expected.contains("unit"));
        let e = Netem::parse("delay 5ms wobble 3").unwrap_err();
        assert_eq!(e.token, "wobble");
        let e = Netem::parse("distribution gaussian").unwrap_err();
        assert_eq!(e.token, "gaussian");
        let e = Netem::parse("loss gemodel").unwrap_err();
        assert_eq!(e.token, "end of input");
        // A rate written right but out of range says so.
        let e = Netem::parse("rate 1bit").unwrap_err();
        assert!(e.expected.contains("from 8bit"), "{e}");
        assert!(Netem::parse("rate 1banana").unwrap_err().expected.contains("e.g. `5mbit`"));
        // A long token is cut in the message.
        let e = Netem::parse(&format!("delay {}", "9".repeat(1_000))).unwrap_err();
        assert!(e.to_string().len() < 400, "{}", e.to_string().len());
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "delay 50ms 10ms 25% loss 2% duplicate 1%",
            "delay 30ms reorder 25% gap 5",
            "loss 0.5%",
            "",
            "delay 20ms 5ms distribution paretonormal loss gemodel 1% 10% 70% 0.1% rate 5mbit 20 100 5 limit 50",
            "loss state 1% 30% 0.1% 10% 0.01% slot 800us 4ms packets 42 bytes 6400 ecn",
            "slot distribution pareto 4ms 1ms",
            "delay 1ms seed 7",
        ] {
            let n = Netem::parse(s).unwrap();
            let again = Netem::parse(&n.to_string().replace("(clean)", "")).unwrap();
            assert_eq!(n, again, "{s} -> {n}");
        }
    }
}
