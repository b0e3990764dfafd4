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

use harness::contract::Algorithm;
use harness::report::RunReport;
use harness::runner::RunConfig;

/// A change to the checked configuration ([`Match::configure`]).
type Tweak = Box<dyn FnOnce(&mut RunConfig)>;

/// A match to run: everything but the algorithm has the command line's
/// defaults (`wifi`, `random-walk`, 4 players, 60 s, seed 1, the reference
/// game). The settings go through the same parsing and checks as `syncbench
/// run`'s flags.
pub struct Match {
    algorithm: &'static dyn Algorithm,
    profile: String,
    trace: String,
    seed: u64,
    /// The `run` flags the setters stand for (`--clients 2`, `--game …`).
    flags: Vec<String>,
    configure: Vec<Tweak>,
}

impl Match {
    /// `algorithm` with the defaults.
    pub fn new(algorithm: &'static dyn Algorithm) -> Match {
        Match {
            algorithm,
            profile: "wifi".into(),
            trace: "random-walk".into(),
            seed: 1,
            flags: Vec::new(),
            configure: Vec::new(),
        }
    }

    fn flag(mut self, name: &str, value: String) -> Match {
        self.flags.push(name.into());
        self.flags.push(value);
        self
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
    pub fn game(self, game: &str) -> Match {
        self.flag("--game", game.into())
    }

    /// An algorithm option `key=value` (as `--opt`).
    pub fn option(self, key_value: &str) -> Match {
        self.flag("--opt", key_value.into())
    }

    /// A transport (as `--transport`).
    pub fn transport(self, transport: &str) -> Match {
        self.flag("--transport", transport.into())
    }

    /// Players.
    pub fn clients(self, clients: usize) -> Match {
        self.flag("--clients", clients.to_string())
    }

    /// Simulated duration, seconds.
    pub fn seconds(self, seconds: u64) -> Match {
        self.flag("--duration", format!("{seconds}s"))
    }

    /// Run seed.
    pub fn seed(mut self, seed: u64) -> Match {
        self.seed = seed;
        self
    }

    /// Anything else of the run's configuration — tick and render rates,
    /// clocks, bots, the arena, the area of interest, `drop_corrupted` —
    /// set directly on the checked configuration (fields of [`RunConfig`]).
    pub fn configure(mut self, f: impl FnOnce(&mut RunConfig) + 'static) -> Match {
        self.configure.push(Box::new(f));
        self
    }

    /// Runs the match: its report entry, or what was wrong with the setup
    /// (the message the command line would print).
    pub fn run(self) -> Result<RunReport, String> {
        use clap::Parser;
        #[derive(Parser)]
        struct Flags {
            #[command(flatten)]
            common: crate::cli::MatchArgs,
        }
        let flags =
            Flags::try_parse_from(std::iter::once("match".to_string()).chain(self.flags)).map_err(|e| e.to_string())?;
        let cfg = crate::commands::run_config(&flags.common, self.seed, "60s").map_err(|e| e.to_string())?;
        let mut cfg = crate::commands::options_for_one(self.algorithm, cfg).map_err(|e| e.to_string())?;
        for f in self.configure {
            f(&mut cfg);
        }
        let plan = crate::commands::resolve_profile(&self.profile).map_err(|e| e.to_string())?;
        let spec = crate::commands::resolve_trace(&self.trace).map_err(|e| e.to_string())?;
        crate::commands::run_one(self.algorithm, &plan, &spec, &cfg).map_err(|e| e.to_string())
    }
}
