//! A scenario: everything one run needs, in one small TOML file that
//! `syncbench replay` re-runs bit for bit. Failing conformance cases are
//! written in this form.
//!
//! ```toml
//! contract = "no-desync"              # what to check when replayed
//! algorithm = "lockstep"
//! options = { max-ahead = "6" }
//! clients = 3
//! duration = "6000ms"
//! seed = 42
//! tick_rate = 60
//! render_rate = [60]
//! transport = "unreliable"
//! uplink = "delay 40ms 10ms loss 5%"
//! downlink = "delay 40ms 10ms loss 5%"
//! heal_at = "4000ms"                  # optional: the link is clean from here on
//! outage_at = "2000ms"                # optional: every packet lost from here
//! outage_for = "5000ms"               #   for this long
//! lead_in = "3800ms"                  # optional: the players stood still this long, until every client had connected
//! arena = "150x150"                   # optional: an open field (default: standard)
//! bots = 80                           # optional: server-driven bots
//! aoi = "grid"                        # optional: area of interest, with
//! aoi_radius_um = 20000000            #   radius and hysteresis in µm
//! aoi_hysteresis_um = 2000000
//! trace = """
//! syncbench-trace 1
//! exact 60
//! R . U
//! ...
//! """
//! ```

use crate::contract::Options;
use crate::error::{InputError, Source};
use crate::net::netem::Netem;
use crate::net::plan::NetworkPlan;
use crate::net::profile::{Direction, Event, EventKind, Profile};
use crate::net::transport::TransportKind;
use crate::runner::RunConfig;
use crate::time::{parse_duration, Micros};
use crate::trace::script::{write_changes, Script};
use crate::trace::Trace;
use crate::world::{Aoi, World};
use std::collections::BTreeMap;

/// One reproducible run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The contract the scenario was generated for.
    pub contract: String,
    /// Algorithm name.
    pub algorithm: String,
    /// Algorithm options.
    pub options: BTreeMap<String, String>,
    /// Players.
    pub clients: usize,
    /// Duration, µs.
    pub duration_us: u64,
    /// Run seed.
    pub seed: u64,
    /// Tick rate, Hz.
    pub tick_hz: u32,
    /// Render rates, Hz.
    pub render_hz: Vec<u32>,
    /// Transport.
    pub transport: TransportKind,
    /// Uplink of every client.
    pub uplink: Netem,
    /// Downlink of every client.
    pub downlink: Netem,
    /// From this instant on the link is clean.
    pub heal_at_us: Option<u64>,
    /// How long the players stood still at the start, until every client
    /// had connected (see `contracts::after_connecting`); the trace, heal
    /// and outage already start after it. The shrinker keeps it whole.
    pub lead_in_us: u64,
    /// An outage `(start, end)`, µs: every packet lost between them.
    pub outage_us: Option<(u64, u64)>,
    /// The exact per-tick input of every player.
    pub trace: Trace,
    /// The arena.
    pub world: World,
    /// Server-driven bots.
    pub bots: usize,
    /// The area of interest, if any.
    pub aoi: Option<Aoi>,
}

impl Scenario {
    /// The network plan: the impaired link, healed at `heal_at`.
    pub fn plan(&self) -> NetworkPlan {
        let mut p = Profile {
            name: "scenario".into(),
            description: String::new(),
            source: String::new(),
            uplink: self.uplink.clone(),
            downlink: self.downlink.clone(),
            ..Profile::clean()
        };
        if let Some(h) = self.heal_at_us {
            p.events.push(Event {
                at: Micros(h),
                direction: Direction::Both,
                kind: EventKind::Handover {
                    outage_us: 0,
                    uplink: Box::new(Netem::clean()),
                    downlink: Box::new(Netem::clean()),
                },
            });
        }
        if let Some((from, to)) = self.outage_us {
            p.events.push(Event {
                at: Micros(from),
                direction: Direction::Both,
                kind: EventKind::Outage { duration_us: to.saturating_sub(from) },
            });
        }
        NetworkPlan::uniform(p)
    }

    /// The run configuration.
    pub fn config(&self) -> RunConfig {
        RunConfig {
            clients: self.clients,
            duration_us: self.duration_us,
            seed: self.seed,
            tick_hz: self.tick_hz,
            render_hz: self.render_hz.clone(),
            options: Options(self.options.clone()),
            transport: self.transport,
            checks: Some(self.heal_at_us),
            world: self.world,
            bots: self.bots,
            aoi: self.aoi,
            ..RunConfig::default()
        }
    }

    /// The TOML form.
    pub fn to_toml(&self, comment: &str) -> String {
        let mut s = String::new();
        for l in comment.lines() {
            s.push_str(&format!("# {l}\n"));
        }
        s.push_str("# Replay with: syncbench replay THIS_FILE\n");
        s.push_str(&format!("contract = {:?}\nalgorithm = {:?}\n", self.contract, self.algorithm));
        let opts: Vec<String> = self.options.iter().map(|(k, v)| format!("{k:?} = {v:?}")).collect();
        s.push_str(&format!("options = {{ {} }}\n", opts.join(", ")));
        s.push_str(&format!(
            "clients = {}\nduration = \"{}us\"\nseed = {}\ntick_rate = {}\n",
            self.clients, self.duration_us, self.seed, self.tick_hz
        ));
        s.push_str(&format!("render_rate = {:?}\ntransport = {:?}\n", self.render_hz, self.transport.to_string()));
        s.push_str(&format!("uplink = {:?}\ndownlink = {:?}\n", show(&self.uplink), show(&self.downlink)));
        if let Some(h) = self.heal_at_us {
            s.push_str(&format!("heal_at = \"{h}us\"\n"));
        }
        if self.lead_in_us > 0 {
            s.push_str(&format!("lead_in = \"{}us\"\n", self.lead_in_us));
        }
        if let Some((from, to)) = self.outage_us {
            s.push_str(&format!("outage_at = \"{from}us\"\noutage_for = \"{}us\"\n", to.saturating_sub(from)));
        }
        if self.world != World::Standard {
            s.push_str(&format!("arena = {:?}\n", self.world.label()));
        }
        if self.bots > 0 {
            s.push_str(&format!("bots = {}\n", self.bots));
        }
        if let Some(a) = self.aoi {
            s.push_str(&format!(
                "aoi = {:?}\naoi_radius_um = {}\naoi_hysteresis_um = {}\n",
                a.method.as_str(),
                a.radius_um,
                a.hysteresis_um
            ));
        }
        s.push_str("trace = \"\"\"\n");
        s.push_str(&write_changes(&self.trace));
        s.push_str("\"\"\"\n");
        s
    }

    /// Reads the TOML form.
    pub fn parse(text: &str, source: &Source) -> Result<Scenario, InputError> {
        let err = |key: &str, msg: String| {
            let line = text.lines().position(|l| l.trim_start().starts_with(key)).map(|i| i + 1);
            InputError::at(source, line, msg)
        };
        let t: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let line = e.span().map(|s| crate::error::line_at(text, s.start));
            InputError::at(source, line, format!("invalid TOML: {}", e.message()))
        })?;
        let str_of = |k: &str| -> Result<&str, InputError> {
            match t.get(k) {
                None => Err(err(k, format!("missing key `{k}` (a string)"))),
                Some(v) => v.as_str().ok_or_else(|| err(k, format!("`{k}`: expected a string"))),
            }
        };
        let int_of = |k: &str| -> Result<i64, InputError> {
            match t.get(k) {
                None => Err(err(k, format!("missing key `{k}` (an integer)"))),
                Some(v) => v.as_integer().ok_or_else(|| err(k, format!("`{k}`: expected an integer"))),
            }
        };
        let dur = |k: &str| -> Result<u64, InputError> {
            parse_duration(str_of(k)?).map_err(|m| err(k, format!("`{k}`: {m}")))
        };
        let netem = |k: &str| -> Result<Netem, InputError> {
            let v = str_of(k)?;
            if v.is_empty() || v == "(clean)" {
                return Ok(Netem::clean());
            }
            Netem::parse(v).map_err(|e| err(k, format!("`{k}`: {e}")))
        };
        for k in t.keys() {
            if ![
                "contract",
                "algorithm",
                "options",
                "clients",
                "duration",
                "seed",
                "tick_rate",
                "render_rate",
                "transport",
                "uplink",
                "downlink",
                "heal_at",
                "outage_at",
                "outage_for",
                "lead_in",
                "trace",
                "arena",
                "bots",
                "aoi",
                "aoi_radius_um",
                "aoi_hysteresis_um",
            ]
            .contains(&k.as_str())
            {
                return Err(err(k, format!("unknown key `{k}`")));
            }
        }
        let mut options = BTreeMap::new();
        if let Some(o) = t.get("options") {
            let tbl = o.as_table().ok_or_else(|| err("options", "`options`: expected a table of strings".into()))?;
            for (k, v) in tbl {
                let v = v.as_str().ok_or_else(|| err("options", format!("option `{k}`: expected a string")))?;
                options.insert(k.clone(), v.to_string());
            }
        }
        let clients = int_of("clients")?;
        if !(1..=4096).contains(&clients) {
            return Err(err("clients", "`clients`: expected 1..=4096".into()));
        }
        let tick = int_of("tick_rate")?;
        if !(1..=1000).contains(&tick) {
            return Err(err("tick_rate", "`tick_rate`: expected 1..=1000".into()));
        }
        let render_hz = match t.get("render_rate") {
            None => vec![60],
            Some(v) => v
                .as_array()
                .and_then(|a| {
                    a.iter()
                        .map(|x| x.as_integer().filter(|r| (1..=1000).contains(r)).map(|r| r as u32))
                        .collect::<Option<Vec<_>>>()
                })
                .filter(|v| !v.is_empty())
                .ok_or_else(|| err("render_rate", "`render_rate`: expected a list of rates 1..=1000".into()))?,
        };
        let transport = match t.get("transport") {
            None => TransportKind::Unreliable,
            Some(_) => TransportKind::parse(str_of("transport")?).map_err(|m| err("transport", m))?,
        };
        let seed = u64::try_from(int_of("seed")?)
            .map_err(|_| err("seed", "`seed`: expected a whole number 0..=9223372036854775807".into()))?;
        let trace_text = str_of("trace")?;
        let trace_line = text.lines().position(|l| l.trim_start().starts_with("trace")).unwrap_or(0);
        let script = Script::parse(trace_text, "scenario", source)
            // TOML drops the newline after `"""`: the script's line 1 is
            // the line after `trace = """` (0-based `trace_line`).
            .map_err(|e| InputError { line: e.line.map(|l| l + trace_line + 1), ..e })?;
        let duration_us = dur("duration")?;
        if duration_us < 100_000 {
            return Err(err("duration", "`duration`: expected at least 100ms".into()));
        }
        crate::limits::check_run(clients as usize, duration_us)
            .map_err(|m| err("duration", format!("`duration`: {m}")))?;
        let trace = script.instantiate(clients as usize, duration_us, 0)?;
        let world = match t.get("arena") {
            None => World::Standard,
            Some(_) => World::parse_arena(str_of("arena")?).map_err(|m| err("arena", format!("`arena`: {m}")))?,
        };
        let bots = match t.get("bots") {
            None => 0,
            Some(_) => usize::try_from(int_of("bots")?)
                .ok()
                .filter(|b| *b <= crate::runner::MAX_ENTITIES)
                .ok_or_else(|| err("bots", format!("`bots`: expected 0..={}", crate::runner::MAX_ENTITIES)))?,
        };
        let aoi = match t.get("aoi") {
            None => None,
            Some(_) => {
                let mut a = Aoi::parse(str_of("aoi")?).map_err(|m| err("aoi", format!("`aoi`: {m}")))?;
                for (k, field) in [("aoi_radius_um", &mut a.radius_um), ("aoi_hysteresis_um", &mut a.hysteresis_um)] {
                    if t.contains_key(k) {
                        let v = int_of(k)?;
                        if !(0..=Aoi::MAX_UM).contains(&v) {
                            return Err(err(k, format!("`{k}`: expected 0..={} (micrometres)", Aoi::MAX_UM)));
                        }
                        *field = v;
                    }
                }
                Some(a)
            }
        };
        Ok(Scenario {
            contract: str_of("contract")?.to_string(),
            algorithm: str_of("algorithm")?.to_string(),
            options,
            clients: clients as usize,
            duration_us,
            seed,
            tick_hz: tick as u32,
            render_hz,
            transport,
            uplink: netem("uplink")?,
            downlink: netem("downlink")?,
            heal_at_us: if t.contains_key("heal_at") { Some(dur("heal_at")?) } else { None },
            lead_in_us: if t.contains_key("lead_in") { dur("lead_in")? } else { 0 },
            outage_us: match (t.contains_key("outage_at"), t.contains_key("outage_for")) {
                (false, false) => None,
                (true, true) => {
                    let from = dur("outage_at")?;
                    Some((from, from.saturating_add(dur("outage_for")?)))
                }
                _ => return Err(err("outage_at", "`outage_at` and `outage_for` go together".into())),
            },
            trace,
            world,
            bots,
            aoi,
        })
    }
}

fn show(n: &Netem) -> String {
    let s = n.to_string();
    if s == "(clean)" {
        String::new()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "contract = \"converges\"\nalgorithm = \"lockstep\"\nclients = 2\nduration = \"1s\"\nseed = 7\ntick_rate = 60\nuplink = \"delay 5ms\"\ndownlink = \"delay 5ms\"\ntrace = \"\"\"\nsyncbench-trace 1\nplayer *\n0s R\n\"\"\"\n";

    fn parse(text: &str) -> Result<Scenario, InputError> {
        Scenario::parse(text, &Source::File("case.toml".into()))
    }

    /// Values of the wrong sign or type are refused with the key's line,
    /// not read as something else.
    #[test]
    fn wrong_values_name_their_key_and_line() {
        assert_eq!(parse(GOOD).unwrap().seed, 7);
        for (from, to, key) in [
            ("seed = 7", "seed = -1", "seed"),
            ("seed = 7", "seed = -9223372036854775808", "seed"),
            ("seed = 7", "seed = 7\ntransport = 0", "transport"),
        ] {
            let e = parse(&GOOD.replace(from, to)).unwrap_err();
            let shown = e.to_string();
            assert!(shown.contains(&format!("`{key}`")) && shown.contains("case.toml"), "{to}: {shown}");
            assert!(e.line.is_some(), "{to}: {shown}");
        }
    }
}
