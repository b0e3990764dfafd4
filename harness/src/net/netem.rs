//! The `tc qdisc ... netem` grammar: a profile direction written the way
//! Linux users already write it.
//!
//! ```
//! use harness::net::netem::Netem;
//! let n = Netem::parse("delay 50ms 10ms 25% loss 2% duplicate 0.5%").unwrap();
//! assert_eq!(n.delay_us, 50_000);
//! assert_eq!(n.jitter_us, 10_000);
//! assert!(Netem::parse("delay 50").is_err()); // a bare number has no unit
//! ```
//!
//! Parsing follows iproute2 (`tc/q_netem.c`): percentages are `5` or `5%`,
//! times need a unit (`s`, `ms`, `us`, `ns`; a bare number is rejected because
//! iproute2 changed its meaning from µs to ns in 6.9), `reorder` needs a
//! delay and sets `gap 1` by default, `gap` without `reorder` is an error.
//! This version of the simulator implements delay with uniform jitter,
//! random loss, duplication, corruption, reordering with gap, `limit`, and
//! the kernel's correlation; the remaining netem options (`distribution`,
//! `loss state`, `loss gemodel`, `rate`, `slot`) are recognised and rejected
//! with a message saying they are not implemented yet.

use std::fmt;

/// A probability as netem stores it: `P · (2³² − 1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Prob(pub u32);

impl Prob {
    /// Zero probability.
    pub const NEVER: Prob = Prob(0);
    /// From a percentage in `[0, 100]`, rounded as iproute2 does (`rint`).
    pub fn from_percent(p: f64) -> Prob {
        Prob((p / 100.0 * u32::MAX as f64).round() as u32)
    }
    /// As a percentage.
    pub fn percent(self) -> f64 {
        self.0 as f64 / u32::MAX as f64 * 100.0
    }
    /// Whether non-zero.
    pub fn is_set(self) -> bool {
        self.0 != 0
    }
}

/// One direction of a link in netem's terms.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Netem {
    /// Base one-way delay, µs.
    pub delay_us: u64,
    /// Jitter (half-width of the uniform spread), µs.
    pub jitter_us: u64,
    /// Delay correlation (kernel semantics).
    pub delay_corr: Prob,
    /// Random loss probability.
    pub loss: Prob,
    /// Loss correlation.
    pub loss_corr: Prob,
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
        write!(f, "netem: at `{}`: {}", self.token, self.expected)
    }
}

impl std::error::Error for NetemError {}

const DEFAULT_LIMIT: u32 = 1000;

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
];

impl Netem {
    /// A clean link: no delay, no loss.
    pub fn clean() -> Netem {
        Netem {
            limit: DEFAULT_LIMIT,
            ..Netem::default()
        }
    }

    /// Whether this direction changes nothing (packets pass at once).
    pub fn is_clean(&self) -> bool {
        self.delay_us == 0
            && self.jitter_us == 0
            && !self.loss.is_set()
            && !self.duplicate.is_set()
            && !self.corrupt.is_set()
            && !self.reorder.is_set()
    }

    /// Parses a netem option string (everything after `netem` in a `tc`
    /// command line).
    pub fn parse(text: &str) -> Result<Netem, NetemError> {
        let toks: Vec<&str> = text.split_whitespace().collect();
        let mut n = Netem::clean();
        let mut i = 0;
        let err = |tok: Option<&&str>, expected: &str| NetemError {
            token: tok
                .map(|t| t.to_string())
                .unwrap_or_else(|| "end of input".into()),
            expected: expected.to_string(),
        };
        while i < toks.len() {
            let word = toks[i];
            i += 1;
            match word {
                "delay" | "latency" => {
                    n.delay_us = time(toks.get(i)).ok_or_else(|| {
                        err(toks.get(i), "a delay with a unit, e.g. `50ms`")
                    })?;
                    i += 1;
                    if let Some(j) = time(toks.get(i)) {
                        n.jitter_us = j;
                        i += 1;
                        if let Some(c) = percent(toks.get(i)) {
                            n.delay_corr = c;
                            i += 1;
                        }
                    } else if looks_numeric(toks.get(i)) {
                        return Err(err(toks.get(i), "a jitter with a unit, e.g. `10ms`"));
                    }
                }
                "distribution" => {
                    let d = toks.get(i).copied().unwrap_or("");
                    if d == "uniform" {
                        i += 1;
                    } else if matches!(d, "normal" | "pareto" | "paretonormal") {
                        return Err(err(
                            toks.get(i),
                            "a supported distribution: only `uniform` is implemented in this version (normal, pareto and paretonormal tables are not yet)",
                        ));
                    } else {
                        return Err(err(toks.get(i), "uniform, normal, pareto or paretonormal"));
                    }
                }
                "loss" | "drop" => {
                    match toks.get(i).copied() {
                        Some("random") => i += 1,
                        Some("state" | "gemodel") => {
                            return Err(err(
                                toks.get(i),
                                "`loss random P`: the `state` and `gemodel` loss models are not implemented in this version",
                            ))
                        }
                        _ => {}
                    }
                    n.loss = percent(toks.get(i))
                        .ok_or_else(|| err(toks.get(i), "a loss percentage 0-100, e.g. `2%`"))?;
                    i += 1;
                    if let Some(c) = percent(toks.get(i)) {
                        n.loss_corr = c;
                        i += 1;
                    }
                }
                "duplicate" | "corrupt" | "reorder" => {
                    let p = percent(toks.get(i)).ok_or_else(|| {
                        err(toks.get(i), &format!("a {word} percentage 0-100, e.g. `1%`"))
                    })?;
                    i += 1;
                    let c = if let Some(c) = percent(toks.get(i)) {
                        i += 1;
                        c
                    } else {
                        Prob::NEVER
                    };
                    match word {
                        "duplicate" => (n.duplicate, n.duplicate_corr) = (p, c),
                        "corrupt" => (n.corrupt, n.corrupt_corr) = (p, c),
                        _ => (n.reorder, n.reorder_corr) = (p, c),
                    }
                }
                "gap" => {
                    n.gap = count(toks.get(i))
                        .ok_or_else(|| err(toks.get(i), "a packet count, e.g. `gap 5`"))?;
                    i += 1;
                }
                "limit" => {
                    n.limit = count(toks.get(i))
                        .filter(|&l| l > 0)
                        .ok_or_else(|| err(toks.get(i), "a queue limit in packets, e.g. `limit 1000`"))?;
                    i += 1;
                }
                "rate" | "slot" | "ecn" => {
                    return Err(err(
                        Some(&word),
                        "an option this version implements: delay, distribution uniform, loss [random], duplicate, corrupt, reorder, gap, limit (rate, slot and ecn are not implemented yet)",
                    ))
                }
                _ => {
                    return Err(err(
                        Some(&word),
                        "a netem option: delay, distribution, loss, duplicate, corrupt, reorder, gap, limit, rate or slot",
                    ))
                }
            }
        }
        if n.reorder.is_set() {
            if n.delay_us == 0 {
                return Err(err(
                    Some(&"reorder"),
                    "a `delay`: reordering is not possible without some delay",
                ));
            }
            if n.gap == 0 {
                n.gap = 1;
            }
        } else if n.gap > 0 {
            return Err(err(
                Some(&"gap"),
                "a `reorder` probability: gap without reorder is an error",
            ));
        }
        Ok(n)
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
        let mut opt = |name: &str, p: Prob, c: Prob| {
            if p.is_set() {
                let mut s = format!("{name} {}", pc(p));
                if c.is_set() {
                    s += &format!(" {}", pc(c));
                }
                parts.push(s);
            }
        };
        opt("loss", self.loss, self.loss_corr);
        opt("duplicate", self.duplicate, self.duplicate_corr);
        opt("corrupt", self.corrupt, self.corrupt_corr);
        opt("reorder", self.reorder, self.reorder_corr);
        if self.reorder.is_set() && self.gap > 1 {
            parts.push(format!("gap {}", self.gap));
        }
        if self.limit != DEFAULT_LIMIT {
            parts.push(format!("limit {}", self.limit));
        }
        if parts.is_empty() {
            write!(f, "(clean)")
        } else {
            write!(f, "{}", parts.join(" "))
        }
    }
}

fn trim(x: f64) -> String {
    let s = format!("{:.4}", x);
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn fmt_time(us: u64) -> String {
    if us % 1000 == 0 {
        format!("{}ms", us / 1000)
    } else {
        format!("{us}us")
    }
}

fn looks_numeric(tok: Option<&&str>) -> bool {
    tok.and_then(|t| t.chars().next())
        .is_some_and(|c| c.is_ascii_digit() || c == '.' || c == '-')
}

/// Parses a netem time: a decimal number and a unit. Rounds to µs.
pub fn time(tok: Option<&&str>) -> Option<u64> {
    let t = tok?;
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
    (0.0..1e13).contains(&us).then_some(us as u64)
}

/// Parses a netem percentage: `5` or `5%`, 0–100.
pub fn percent(tok: Option<&&str>) -> Option<Prob> {
    let t = tok?;
    let num = t.strip_suffix('%').unwrap_or(t);
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let v: f64 = num.parse().ok()?;
    (0.0..=100.0).contains(&v).then(|| Prob::from_percent(v))
}

fn count(tok: Option<&&str>) -> Option<u32> {
    tok?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_common_forms() {
        let n = Netem::parse("delay 100ms 10ms 25% loss random 0.3% 25% duplicate 1% corrupt 0.1% reorder 25% 50% gap 5 limit 500").unwrap();
        assert_eq!((n.delay_us, n.jitter_us), (100_000, 10_000));
        assert!((n.delay_corr.percent() - 25.0).abs() < 1e-6);
        assert!((n.loss.percent() - 0.3).abs() < 1e-6);
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
    }

    #[test]
    fn reorder_rules_follow_iproute2() {
        assert_eq!(Netem::parse("delay 10ms reorder 25%").unwrap().gap, 1);
        assert!(
            Netem::parse("reorder 25%").is_err(),
            "reorder needs a delay"
        );
        let e = Netem::parse("delay 10ms gap 5").unwrap_err();
        assert_eq!(e.token, "gap");
    }

    #[test]
    fn errors_name_the_token() {
        let e = Netem::parse("delay banana").unwrap_err();
        assert_eq!(e.token, "banana");
        assert!(e.expected.contains("unit"));
        let e = Netem::parse("delay 5ms wobble 3").unwrap_err();
        assert_eq!(e.token, "wobble");
        let e = Netem::parse("rate 1mbit").unwrap_err();
        assert!(e.expected.contains("not implemented"));
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "delay 50ms 10ms 25% loss 2% duplicate 1%",
            "delay 30ms reorder 25% gap 5",
            "loss 0.5%",
            "",
        ] {
            let n = Netem::parse(s).unwrap();
            let again = Netem::parse(&n.to_string().replace("(clean)", "")).unwrap();
            assert_eq!(n, again, "{s}");
        }
    }
}
