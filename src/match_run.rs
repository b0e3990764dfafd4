//! One match as a value, for tests: an algorithm on a profile and a trace,
//! with the report entry the command line would print — so a netcode
//! crate can assert on its own metrics.
//!
//! ```
//! use syncbench::Match;
//! let lockstep = syncbench::catalog::find("lockstep").unwrap();
//! let r = Match::new(lockstep).profile("wifi").trace("zigzag").clients(2).seconds(10).seed(3).run().unwrap();
//! assert_eq!((r.metrics.desyncs, r.clients, r.seed), (0, 2, 3));
//! assert!(r.metrics.input_latency_ms.own.p50 > 0.0);
//! ```

use harness::contract::{Algorithm, Options};
use harness::report::RunReport;
use harness::runner::RunConfig;

/// A match to run: everything but the algorithm has the command line's
/// defaults (`wifi`, `random-walk`, 4 players, 60 s, seed 1, the reference
/// game).
pub struct Match {
    algorithm: &'static dyn Algorithm,
    profile: String,
    trace: String,
    game: Option<String>,
    options: Vec<String>,
    transport: Option<String>,
    cfg: RunConfig,
}

impl Match {
    /// `algorithm` with the defaults.
    pub fn new(algorithm: &'static dyn Algorithm) -> Match {
        Match {
            algorithm,
            profile: "wifi".into(),
            trace: "random-walk".into(),
            game: None,
            options: Vec::new(),
            transport: None,
            cfg: RunConfig::default(),
        }
    }

    /// A profile name, file or netem string (as `--profile`).
    pub fn profile(mut self, profile: &str) -> Match {
        self.profile = profile.into();
        self
    }

    /// A trace generator, name or file (as `--trace`).
    pub fn trace(mut self, trace: &str) -> Match {
        self.trace = trace.into();
        self
    }

    /// A game preset or file (as `--game`).
    pub fn game(mut self, game: &str) -> Match {
        self.game = Some(game.into());
        self
    }

    /// An algorithm option `key=value` (as `--opt`).
    pub fn option(mut self, key_value: &str) -> Match {
        self.options.push(key_value.into());
        self
    }

    /// A transport (as `--transport`).
    pub fn transport(mut self, transport: &str) -> Match {
        self.transport = Some(transport.into());
        self
    }

    /// Players.
    pub fn clients(mut self, clients: usize) -> Match {
        self.cfg.clients = clients;
        self
    }

    /// Simulated duration, seconds.
    pub fn seconds(mut self, seconds: u64) -> Match {
        self.cfg.duration_us = seconds.saturating_mul(1_000_000);
        self
    }

    /// Run seed.
    pub fn seed(mut self, seed: u64) -> Match {
        self.cfg.seed = seed;
        self
    }

    /// Anything else of the run's configuration — tick and render rates,
    /// clocks, bots, the arena, the area of interest, `drop_corrupted` —
    /// set directly (fields of [`RunConfig`]; the setters above win).
    pub fn configure(mut self, f: impl FnOnce(&mut RunConfig)) -> Match {
        f(&mut self.cfg);
        self
    }

    /// Runs the match: its report entry, or what was wrong with the setup
    /// (the message the command line would print).
    pub fn run(self) -> Result<RunReport, String> {
        let mut cfg = self.cfg;
        harness::limits::check_run(cfg.clients, cfg.duration_us).map_err(|e| e.to_string())?;
        if let Some(g) = &self.game {
            cfg.game = harness::game::GameSettings::resolve(g).map_err(|e| e.to_string())?;
            cfg.world = cfg.game.world();
            cfg.tick_hz = cfg.game.tick_hz.unwrap_or(cfg.tick_hz);
        }
        cfg.options = Options::parse(&self.options).map_err(|e| e.to_string())?;
        let mut cfg = crate::commands::options_for_one(self.algorithm, cfg).map_err(|e| e.to_string())?;
        if let Some(t) = &self.transport {
            cfg.transport = harness::net::transport::TransportKind::parse(t).map_err(|e| e.to_string())?;
        }
        let plan = crate::commands::resolve_profile(&self.profile).map_err(|e| e.to_string())?;
        let spec = crate::commands::resolve_trace(&self.trace).map_err(|e| e.to_string())?;
        crate::commands::run_one(self.algorithm, &plan, &spec, &cfg).map_err(|e| e.to_string())
    }
}
