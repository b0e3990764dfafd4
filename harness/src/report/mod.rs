//! Reports: the `syncbench.report.v3` JSON document and the text and
//! Markdown tables people read.
//!
//! A report is `{"schema": "syncbench.report.v3", "tool": ..., "runs":
//! [...]}`; each run names its full configuration and carries its
//! [`Metrics`]. Field names are a contract users and CI scripts rely on;
//! the schema id changes when a metric's meaning does (v2: latency from the
//! input change, snaps as events, stalls as runs with freezes, input
//! fidelity, impossible screens, hit agreement over hits).

pub mod ab;
pub mod csv;
pub mod diff;
pub mod hlog;
pub mod html;
pub mod ranks;
pub(crate) mod svg;
pub mod table;

use crate::metrics::Metrics;
use serde::{Deserialize, Serialize};

/// The schema identifier written in every JSON report.
pub const SCHEMA: &str = "syncbench.report.v3";

/// The schema before corruption was dropped by default: still read, with
/// its runs' corruption setting carried over (in v2 a run without
/// `drop_corrupted` had its corrupted packets delivered).
pub const SCHEMA_V2: &str = "syncbench.report.v2";

/// One run: its configuration and what was measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    /// Position in the job list of the command that ran it (sharded runs
    /// keep their place, so merged reports equal unsharded ones).
    #[serde(default)]
    pub index: usize,
    /// Algorithm name.
    pub algorithm: String,
    /// What `compare --vary` set for this run's row (`transport=kcp`,
    /// `remote=ghost`); empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub variant: String,
    /// Profile name (or inline string).
    pub profile: String,
    /// Trace name.
    pub trace: String,
    /// Run seed.
    pub seed: u64,
    /// Players.
    pub clients: usize,
    /// Simulated duration, seconds.
    pub duration_s: f64,
    /// Tick rate, Hz.
    pub tick_hz: u32,
    /// Render rate of each client, Hz.
    pub render_hz: Vec<u32>,
    /// `client-server` or `peer-to-peer`.
    pub topology: String,
    /// Uplink netem string as resolved.
    pub uplink: String,
    /// Downlink netem string as resolved.
    pub downlink: String,
    /// Algorithm options given.
    pub options: std::collections::BTreeMap<String, String>,
    /// Every option the algorithm declares as it took effect (defaults
    /// filled in, numbers canonical): what runs are matched by.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub effective_options: std::collections::BTreeMap<String, String>,
    /// Fingerprint of the network as resolved (every client's and the
    /// server's profile, events included): a profile edited under the same
    /// name is a network change, not a regression.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub network_digest: String,
    /// Fingerprint of the trace as played (per-player inputs).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub trace_digest: String,
    /// What carried the messages (`unreliable`, `redundant:N`, `tcp-like`, `kcp[:…]`, `quic`, `quic-datagram`).
    pub transport: String,
    /// `simulated` (virtual time: reproducible) or `paced` (virtual time
    /// following the wall clock).
    #[serde(default = "simulated")]
    pub mode: String,
    /// Each client's local clock as given (`OFFSET@DRIFTppm`); empty when
    /// every clock was exact.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clocks: Vec<String>,
    /// Corrupted packets were delivered with their flipped bits
    /// (`--corrupted deliver`) rather than dropped by the UDP checksum;
    /// written only when set.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deliver_corrupted: bool,
    /// The reference game's numbers the run played (`--game`): speeds,
    /// player size, jump, shot, room.
    #[serde(default)]
    pub game: crate::game::GameSettings,
    /// The arena (`--arena`): written only when not `standard`.
    #[serde(default = "standard", skip_serializing_if = "is_standard")]
    pub arena: String,
    /// Server-driven bots (`--bots`); written only when there are some.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bots: usize,
    /// The area of interest (`--aoi`), when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aoi: Option<AoiSetting>,
    /// Live runs: what the nodes' gates dropped and what the relay did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub live: Option<crate::live::LiveCounters>,
    /// The measurements.
    pub metrics: Metrics,
    /// The distributions the measurements summarise, in full, for as long
    /// as the run's command keeps them (`--hlog` writes them); never in the
    /// report's JSON.
    #[serde(skip)]
    pub distributions: Option<Box<crate::metrics::distributions::RunDistributions>>,
}

impl RunReport {
    /// The row a table shows the run in: the algorithm, and what
    /// `compare --vary` set for it.
    pub fn label(&self) -> String {
        if self.variant.is_empty() {
            self.algorithm.clone()
        } else {
            format!("{} {}", self.algorithm, self.variant)
        }
    }

    /// The world settings when not the defaults, for titles and keys:
    /// ` · arena 400x400 · 2000 bots · aoi grid 30m+2m`.
    pub fn world_suffix(&self) -> String {
        let mut s = String::new();
        if !self.game.is_reference() {
            s += &format!(" · game {}", self.game.name);
        }
        if self.arena != "standard" {
            s += &format!(" · arena {}", self.arena);
        }
        if self.bots > 0 {
            s += &format!(" · {} bots", self.bots);
        }
        if let Some(a) = &self.aoi {
            s += &format!(" · aoi {} {}m+{}m", a.method, a.radius_m, a.hysteresis_m);
        }
        s
    }
}

fn simulated() -> String {
    "simulated".into()
}

fn standard() -> String {
    "standard".into()
}

fn is_standard(s: &str) -> bool {
    s == "standard"
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A run's area of interest as reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AoiSetting {
    /// `none`, `grid` or `crosslist`.
    pub method: String,
    /// View radius, m.
    pub radius_m: f64,
    /// Hysteresis, m.
    pub hysteresis_m: f64,
}

impl AoiSetting {
    /// The report form of `aoi`.
    pub fn of(aoi: &crate::world::Aoi) -> AoiSetting {
        AoiSetting {
            method: aoi.method.as_str().into(),
            radius_m: aoi.radius_um as f64 / 1e6,
            hysteresis_m: aoi.hysteresis_um as f64 / 1e6,
        }
    }
}

/// A whole report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// `syncbench <version>`.
    pub tool: String,
    /// The command line that made the report, shell-quoted (options that
    /// cannot change the results, such as `--out` and `--jobs`, left out);
    /// empty when not recorded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub command: String,
    /// The runs, in a stable order.
    pub runs: Vec<RunReport>,
    /// Runs that could not complete (an error or a panic), with the reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<FailedRun>,
    /// A shard's place in its matrix; absent for a whole matrix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// A merge that does not cover its matrix (`merge --partial`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<Partial>,
}

/// Which part of a matrix a shard ran: the runs whose index is `k − 1`
/// modulo `n`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// This shard, 1-based.
    pub k: usize,
    /// Shards in all.
    pub n: usize,
    /// Runs in the whole matrix.
    pub matrix_runs: usize,
}

/// How much of its matrix a partial merge holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partial {
    /// Runs present (completed or failed).
    pub runs: usize,
    /// Runs in the whole matrix.
    pub of: usize,
    /// The shards missing, as `k/n`.
    pub missing_shards: Vec<String>,
}

impl std::fmt::Display for Partial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "partial: {} of {} runs (missing shards {})", self.runs, self.of, self.missing_shards.join(", "))
    }
}

/// A run that did not complete.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FailedRun {
    /// Position in the job list.
    pub index: usize,
    /// What was being run.
    pub what: String,
    /// Why it failed.
    pub error: String,
}

impl Report {
    /// A report of `runs` by tool version `version`.
    pub fn new(version: &str, runs: Vec<RunReport>) -> Report {
        Report {
            schema: SCHEMA.to_string(),
            tool: format!("syncbench {version}"),
            command: String::new(),
            runs,
            failed: Vec::new(),
            shard: None,
            partial: None,
        }
    }

    /// Parses a report, checking its schema.
    pub fn from_json(text: &str) -> Result<Report, String> {
        // The schema first: an older report fails on it, not on a missing field.
        #[derive(Deserialize)]
        struct Head {
            schema: String,
        }
        let head: Head = serde_json::from_str(text).map_err(|e| format!("not a syncbench report: {e}"))?;
        if head.schema == SCHEMA_V2 {
            return Self::from_v2(text);
        }
        if head.schema != SCHEMA {
            return Err(format!(
                "schema `{}`: expected `{SCHEMA}` (reports of another schema measure differently; regenerate it with this syncbench)",
                head.schema
            ));
        }
        serde_json::from_str(text).map_err(|e| format!("not a syncbench report: {e}"))
    }

    /// A v2 report read as v3: the same metrics; a run whose links
    /// corrupted packets and that did not say `drop_corrupted` delivered
    /// them (v2's default), which v3 writes as `deliver_corrupted`.
    fn from_v2(text: &str) -> Result<Report, String> {
        #[derive(Deserialize)]
        struct V2Run {
            #[serde(default)]
            drop_corrupted: bool,
            #[serde(default)]
            uplink: String,
            #[serde(default)]
            downlink: String,
        }
        #[derive(Deserialize)]
        struct V2 {
            runs: Vec<V2Run>,
        }
        let v2: V2 = serde_json::from_str(text).map_err(|e| format!("not a syncbench report: {e}"))?;
        let mut report: Report = serde_json::from_str(text).map_err(|e| format!("not a syncbench report: {e}"))?;
        for (r, old) in report.runs.iter_mut().zip(&v2.runs) {
            let corrupting = old.uplink.contains("corrupt") || old.downlink.contains("corrupt");
            r.deliver_corrupted = corrupting && !old.drop_corrupted;
        }
        report.schema = SCHEMA.to_string();
        Ok(report)
    }

    /// Pretty JSON with a trailing newline; byte-identical for equal reports.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("reports serialize");
        s.push('\n');
        s
    }
}
