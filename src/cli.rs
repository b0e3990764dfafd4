//! Command-line definitions (clap).

use clap::{Args, Parser, Subcommand, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  syncbench compare --profile wifi
  syncbench run --algo lockstep --profile 4g --trace zigzag --duration 30s
  syncbench run --algo server-verified --profile \"delay 50ms 5ms loss 1%\" --format json
  syncbench list algorithms

Exit codes: 0 fine, 1 a violation found, 2 bad usage or bad input.";

/// A benchmark and conformance suite for game network synchronization.
#[derive(Parser, Debug)]
#[command(name = "syncbench", version, about, after_help = EXAMPLES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// List algorithms, network profiles or traces.
    #[command(after_help = "Examples:\n  syncbench list\n  syncbench list profiles --format json")]
    List {
        /// What to list (everything if omitted).
        what: Option<ListWhat>,
        /// Also list the negative controls (deliberately broken algorithms).
        #[arg(long)]
        all: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
    },
    /// Run one algorithm on one profile and trace, and print its metrics.
    #[command(
        after_help = "Examples:\n  syncbench run --algo lockstep --profile wifi --trace zigzag\n  syncbench run --algo server-verified --profile \"delay 50ms\" --clients 2 --duration 10s --format json\n  syncbench run --algo lockstep --profile lan --trace traces/dodge.trace --seed 7\n  syncbench run --algo delta-snapshot --clients 200 --bots 2000 --arena 400x400 --aoi grid --duration 20s\n\nA large world (32 players, or fewer with bots) keeps every core busy for its whole length; RAYON_NUM_THREADS=N limits it to N.\nThe report is the same byte for byte on any number of cores."
    )]
    Run(RunArgs),
    /// Run one algorithm live: real UDP sockets on 127.0.0.1, real timers, a userspace relay
    /// applying the profile with netem semantics; prints a report like `run` ("mode": "live").
    #[command(
        after_help = "Examples:\n  syncbench live --algo prediction --profile wifi --trace zigzag --duration 10s\n  syncbench live --algo server-verified --profile \"delay 25ms\" --clients 2 --against-sim   # live vs simulated, with ratios\n  syncbench live --algo snapshot --profile lan --hostile 200   # flood node 0 with bad datagrams while it plays\n\nLive runs take their duration in wall time and are not reproducible bit for bit."
    )]
    Live(LiveArgs),
    /// Run a matrix of algorithms × profiles × traces × seeds in parallel and write
    /// report.json, .csv, .md and .html.
    #[command(
        after_help = "Examples:\n  syncbench matrix --quick                      # the CI matrix, into reports/quick\n  syncbench matrix --jobs 2 --out reports/full  # every algorithm × 6 profiles × 4 traces × 3 seeds\n  syncbench matrix --shard 2/3 --out shard2     # one third of it (merge the thirds with `merge`)"
    )]
    Matrix(MatrixArgs),
    /// Compare two reports run by run; exit 1 if a quality metric regressed.
    /// Runs that differ only by seed are judged together: with several seeds
    /// a worsening must also exceed the spread across seeds (paired Student's
    /// t, 95%).
    #[command(
        after_help = "Examples:\n  syncbench diff reports/baseline/quick.json reports/quick/report.json\n  syncbench diff old.json new.json --tolerance 10 --metric latency.own.p99\n  syncbench diff old.json new.json --gate syncbench-gate.toml --format md >> \"$GITHUB_STEP_SUMMARY\"\n\nA gate file sets tolerances in percent — `tolerance = 5` and a [metrics] table — and absolute floors in each\nmetric's unit in a [floors] table, e.g.\n  [metrics]\n  \"snaps.per_client_min\" = 25\n  [floors]\n  \"snaps.per_client_min\" = 0.1\n\nA metric fails when new > base × (1 + tolerance) + floor. Default floors: divergence 0.001 m, latency 0.5 ms,\nunshown changes 0.1%, bandwidth 1 B/s, corrections, stalls (ms), snaps, inputs repeated/dropped 1,\nimpossible share 0.0001, unaware wait 1 ms; desyncs and leaks 0 (any increase fails). The output says when a\nfloor, not the tolerance, let a worsening pass. A metric worse in every one of an algorithm's configurations, 5 or more,\nfails however small each move. Values are compared at their printed precision."
    )]
    Diff {
        /// The baseline report.json.
        base: std::path::PathBuf,
        /// The new report.json.
        new: std::path::PathBuf,
        /// Allowed worsening, percent (every metric the gate file does not name).
        #[arg(long)]
        tolerance: Option<f64>,
        /// A gate file of tolerances (TOML; see below).
        #[arg(long)]
        gate: Option<std::path::PathBuf>,
        /// Only these metrics (repeatable); default: every quality metric.
        #[arg(long)]
        metric: Vec<String>,
        /// Output: aligned text, Markdown for a pull-request comment or a CI
        /// step summary (summary first, details collapsed), or JSON.
        #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
        format: DiffFormat,
        /// Pass when runs ran on a changed network or trace under the same
        /// name (they are reported, not compared); without it they fail the
        /// gate, which cannot judge them.
        #[arg(long = "accept-input-changes")]
        accept_input_changes: bool,
    },
    /// Merge shard reports into one (the same as the unsharded run).
    #[command(
        after_help = "Examples:\n  syncbench merge s1/report.json s2/report.json s3/report.json --out reports/full\n  syncbench merge s1/report.json --partial --out reports/so-far   # what the shards done so far hold"
    )]
    Merge {
        /// The shard reports.
        #[arg(required = true)]
        inputs: Vec<std::path::PathBuf>,
        /// Where to write the merged reports.
        #[arg(long)]
        out: std::path::PathBuf,
        /// Merge shards that do not cover their matrix; every format then
        /// says "partial: k of n runs". Without it such a set is refused.
        #[arg(long)]
        partial: bool,
        /// No messages on stderr.
        #[arg(long)]
        quiet: bool,
    },
    /// Start a crate of your own: an algorithm, its binary, its tests, a gate and a CI workflow.
    #[command(
        after_help = "Examples:\n  syncbench new ../dash-sync\n  syncbench new dash-sync --git https://github.com/YOUR-ORG/syncbench\n  syncbench new netcode/sync --name dash-sync --path ~/src/syncbench\n\nThe crate is examples/my-netcode renamed, with syncbench's Cargo.lock and its `release` and `fast`\nprofiles. Next, in its folder: scripts/gate.sh --baseline (the first build takes minutes), then\nscripts/gate.sh; its README says the rest."
    )]
    New {
        /// The folder to write (it must not exist, or be empty).
        dir: std::path::PathBuf,
        /// The crate's and the algorithm's name (default: the folder's name).
        #[arg(long)]
        name: Option<String>,
        /// Depend on syncbench from this git repository.
        #[arg(long, conflicts_with = "path")]
        git: Option<String>,
        /// Depend on the syncbench checkout in this folder (default: the one this binary was built from).
        #[arg(long)]
        path: Option<std::path::PathBuf>,
        /// No messages on stderr.
        #[arg(long)]
        quiet: bool,
    },
    /// Check algorithms against the conformance contracts on generated scenarios.
    #[command(
        after_help = "Examples:\n  syncbench conform\n  syncbench conform --algo lockstep --cases 1000\n  syncbench conform --controls --junit reports/conform.xml   # the negative controls must be caught\n\nA failing case is shrunk and written to --out as a scenario file; `syncbench replay FILE` re-runs it."
    )]
    Conform(ConformArgs),
    /// Run algorithms on generated adversarial links — delay spikes,
    /// bufferbloat ramps, outages with and without loss, delay in runs,
    /// satellite and 2G/3G delays, loss bursts, duplication, reordering —
    /// and check what the harness measured against invariants: every
    /// change shown or in flight, no violation, real time kept, recovery
    /// after a disturbance, rates that do not depend on run length, nothing
    /// shown sooner than the link allows.
    #[command(
        after_help = "Examples:\n  syncbench stress\n  syncbench stress --algos rollback,prediction --links 3 --duration 120s\n  syncbench stress --families spike,outage --seed 7\n\nA failure is shrunk (its disturbance halved while it still fails) and written to --out as a profile;\n`syncbench run --algo ALGO --profile FILE --seed SEED --duration D` replays it. Exit code 1 when an invariant fails."
    )]
    Stress(StressArgs),
    /// Re-run a scenario file (as `conform` writes them) and check its contract.
    #[command(after_help = "Example:\n  syncbench replay reports/conform/lockstep-own-seed.no-desync.toml")]
    Replay {
        /// The scenario file.
        file: std::path::PathBuf,
    },
    /// Inspect a network profile: resolved parameters and measured behaviour.
    #[command(subcommand)]
    Profile(ProfileCmd),
    /// Traces from play: turn a CSV of timestamped inputs into a trace script.
    #[command(subcommand)]
    Trace(TraceCmd),
    /// Run several algorithms on one profile and print them side by side.
    #[command(
        after_help = "Examples:\n  syncbench compare --profile wifi\n  syncbench compare --profile 4g --algos lockstep,server-verified --traces zigzag,random-walk --seeds 3\n  syncbench compare --algos lockstep --vary transport=unreliable,tcp-like,kcp --metrics own-lat,frozen,up\n  syncbench compare --vary profile=leo-starlink,fit:leo-starlink,model:leo-starlink   # a recording, its netem fit, its regime model\n  syncbench compare --profile lan --out reports/lan   # also writes report.json and report.md"
    )]
    Compare(CompareArgs),
    /// Run two configurations on the same seeds and traces and say which
    /// metrics differ, by how much, and whether the difference outlasts the
    /// spread across seeds (paired Student's t, 95%).
    #[command(
        after_help = "Examples:\n  syncbench ab --algo prediction --a-opt interp=100 --b-opt interp=150 --profile 4g\n  syncbench ab --algo lockstep --a-transport kcp --b-transport tcp-like --profile \"delay 30ms 5ms loss 2%\"\n  syncbench ab --a-algo snapshot --b-algo delta-snapshot --profile 4g --seeds 20\n  syncbench ab --algo prediction --a-profile wifi --b-profile 4g\n\nEverything else (--clients, --duration, --opt for both, …) applies to both sides.\nExit code 1 when B is significantly worse on any metric."
    )]
    Ab(AbArgs),
    /// Search an algorithm's numeric options on your players' networks,
    /// every setting on the same seeds: the Pareto front of what trades,
    /// a recommendation under a goal, and the published rules of thumb
    /// (Source, lightyear, Mirror, Photon Quantum, GGRS) on the same front.
    #[command(
        after_help = "Examples:\n  syncbench tune --algo snapshot --profile 4g\n  syncbench tune --algo rollback --profile \"delay 60ms 5ms\" --opts delay=0..6:1 --opts window=4,8,12\n  syncbench tune --algo prediction --profile wifi:0.6,4g:0.4 --goal \"min remote-lat; snaps<=1; frozen<=50ms\"\n  syncbench tune --algo my-netcode --opts smoothing=0..200:50 --format json\n  syncbench tune --algo snapshot --profile 4g --html front.html   # the front as a picture"
    )]
    Tune(TuneArgs),
    /// Not for users: one run of a third-party library, for the command
    /// that started this process (the job on stdin, the report on stdout;
    /// see `commands::isolate`).
    #[command(name = "isolated-run", hide = true)]
    IsolatedRun,
}

/// `ab`.
#[derive(Args, Debug)]
pub struct AbArgs {
    /// The algorithm of both sides (unless --a-algo/--b-algo say otherwise).
    #[arg(long)]
    pub algo: Option<String>,
    /// Side A's algorithm.
    #[arg(long = "a-algo")]
    pub a_algo: Option<String>,
    /// Side B's algorithm.
    #[arg(long = "b-algo")]
    pub b_algo: Option<String>,
    /// Options of side A only (key=value), on top of --opt.
    #[arg(long = "a-opt")]
    pub a_opt: Vec<String>,
    /// Options of side B only (key=value), on top of --opt.
    #[arg(long = "b-opt")]
    pub b_opt: Vec<String>,
    /// Side A's transport (default: --transport).
    #[arg(long = "a-transport")]
    pub a_transport: Option<String>,
    /// Side B's transport (default: --transport).
    #[arg(long = "b-transport")]
    pub b_transport: Option<String>,
    /// The network of both sides.
    #[arg(long, default_value = "wifi")]
    pub profile: String,
    /// Side A's network (default: --profile).
    #[arg(long = "a-profile")]
    pub a_profile: Option<String>,
    /// Side B's network (default: --profile).
    #[arg(long = "b-profile")]
    pub b_profile: Option<String>,
    /// Traces, comma-separated; each side runs each trace with each seed.
    #[arg(long, default_value = "random-walk", value_delimiter = ',')]
    pub traces: Vec<String>,
    /// Seeds per trace, the pairs the test is on: a count N (seeds 1..=N),
    /// or a list with ranges, e.g. 914,2718 or 1-5,42.
    #[arg(long, default_value = "10")]
    pub seeds: Seeds,
    /// Cores to use (default: all): parallel runs, and the pool that judges a
    /// large world's screens. The output does not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Markdown instead of aligned text.
    #[arg(long)]
    pub md: bool,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub common: MatchArgs,
}

/// `tune`.
#[derive(Args, Debug)]
pub struct TuneArgs {
    /// The algorithm to tune (see `syncbench list algorithms`).
    #[arg(long)]
    pub algo: String,
    /// The networks, comma-separated, each for every client of its runs; a
    /// trailing `:W` weights a network in the population (wifi:0.6,4g:0.4).
    #[arg(long, default_value = "wifi")]
    pub profile: String,
    /// An option searched: NAME=LO..HI:STEP or NAME=V1,V2,… (at most four;
    /// three or more by successive halving over the seeds;
    /// default: the options the published rules speak about, interp,
    /// delay, window or max-ahead, over their range to twice the default).
    #[arg(long = "opts")]
    pub opts: Vec<String>,
    /// Also write the front as a picture here: an HTML page with the
    /// minimised metric against each limit's, the recommendation and the
    /// rules named.
    #[arg(long)]
    pub html: Option<std::path::PathBuf>,
    /// What to look for: `min METRIC` and limits `METRIC<=VALUE`, joined by `;`.
    #[arg(long, default_value = harness::tune::goal::DEFAULT)]
    pub goal: String,
    /// Traces, comma-separated; every setting runs each with each seed.
    #[arg(long, default_value = "random-walk", value_delimiter = ',')]
    pub traces: Vec<String>,
    /// Seeds per trace, the same for every setting: a count N (seeds
    /// 1..=N) or a list with ranges.
    #[arg(long, default_value = "5")]
    pub seeds: Seeds,
    /// Cores to use (default: all). The output does not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub common: MatchArgs,
}

/// `--seeds`: a count N (seeds 1..=N), or seeds listed with commas, each
/// a seed or an inclusive range `A-B` (`914,2718`, `1-5,42`, `7,` for the
/// one seed 7). Every algorithm runs the same seeds, so rows pair by seed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seeds(pub Vec<u64>);

/// The most seeds one `--seeds` may name.
const MAX_SEEDS: u64 = 10_000;

impl std::str::FromStr for Seeds {
    type Err = String;
    fn from_str(text: &str) -> Result<Seeds, String> {
        let t = text.trim();
        let number = |w: &str| {
            w.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{w}` is not a whole number (expected N, or a list like 914,2718 or 1-5,42)"))
        };
        if !t.contains([',', '-']) {
            let n = number(t)?;
            if !(1..=MAX_SEEDS).contains(&n) {
                return Err(format!("{n} seeds: expected 1..={MAX_SEEDS}"));
            }
            return Ok(Seeds((1..=n).collect()));
        }
        let mut out: Vec<u64> = Vec::new();
        for item in t.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            let (a, b) = match item.split_once('-') {
                Some((a, b)) => (number(a)?, number(b)?),
                None => (number(item)?, number(item)?),
            };
            if a > b {
                return Err(format!("`{item}`: a range runs from the smaller seed to the larger"));
            }
            if (out.len() as u64).saturating_add(b - a + 1) > MAX_SEEDS {
                return Err(format!("more than {MAX_SEEDS} seeds"));
            }
            for seed in a..=b {
                if out.contains(&seed) {
                    return Err(format!("seed {seed} is named twice"));
                }
                out.push(seed);
            }
        }
        if out.is_empty() {
            return Err("no seeds: expected N, or a list like 914,2718 or 1-5,42".into());
        }
        Ok(Seeds(out))
    }
}

/// `matrix`.
#[derive(Args, Debug)]
pub struct MatrixArgs {
    /// Algorithms, comma-separated, or `all`.
    #[arg(long, default_value = "all", value_delimiter = ',')]
    pub algos: Vec<String>,
    /// Profiles, comma-separated (default: lan, wifi, 4g, cable, 3g, very-bad; --quick: lan, wifi, 4g).
    #[arg(long, value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// Traces, comma-separated (default: random-walk, zigzag, wall-run, strafe-shoot; --quick: random-walk, wall-run).
    #[arg(long, value_delimiter = ',')]
    pub traces: Vec<String>,
    /// Seeds per cell: a count N (seeds 1..=N; default 3, --quick 1), or a
    /// list with ranges, e.g. 914,2718 or 1-5,42.
    #[arg(long)]
    pub seeds: Option<Seeds>,
    /// The small matrix CI runs (20 s matches unless --duration says otherwise).
    #[arg(long)]
    pub quick: bool,
    /// Cores to use (default: all): parallel runs, and the pool that judges a
    /// large world's screens. The reports do not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Run only shard K of N (K/N), for a CI job matrix; merge the shards with `merge`.
    #[arg(long)]
    pub shard: Option<String>,
    /// Output directory (default reports/matrix, or reports/quick).
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Also write each run's latency and divergence distributions as
    /// HdrHistogram interval logs (one .hlog per run) into this directory.
    #[arg(long, value_name = "DIR")]
    pub hlog: Option<std::path::PathBuf>,
    /// No progress or messages on stderr.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub common: MatchArgs,
}

/// `conform`.
#[derive(Args, Debug)]
pub struct ConformArgs {
    /// Algorithm name, or `all` (every registered algorithm).
    #[arg(long, default_value = "all")]
    pub algo: String,
    /// Also check that every negative control is caught by its contract.
    #[arg(long)]
    pub controls: bool,
    /// Generated scenarios per contract.
    #[arg(long, default_value_t = 20)]
    pub cases: u64,
    /// Seed of the case generator.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Write JUnit XML here (`-`: standard output; a device or FIFO is
    /// written through).
    #[arg(long)]
    pub junit: Option<std::path::PathBuf>,
    /// Where failing scenarios are written.
    #[arg(long, default_value = "reports/conform")]
    pub out: std::path::PathBuf,
}

/// `stress`.
#[derive(Args, Debug)]
pub struct StressArgs {
    /// Algorithms, comma-separated, or `all`.
    #[arg(long, default_value = "all")]
    pub algos: String,
    /// Link families, comma-separated, or `all`: spike, ramp, outage,
    /// outage-loss, runs, satellite, cellular, burst-loss, duplicate,
    /// reorder.
    #[arg(long, default_value = "all")]
    pub families: String,
    /// Links generated per family.
    #[arg(long, default_value_t = 1)]
    pub links: u64,
    /// Seed of the links and the runs.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Each run's length (disturbances come a quarter in and are over by
    /// the middle).
    #[arg(long, default_value = "60s")]
    pub duration: String,
    /// Players.
    #[arg(long, default_value_t = 4)]
    pub clients: usize,
    /// Where failing links are written, shrunk.
    #[arg(long, default_value = "reports/stress")]
    pub out: std::path::PathBuf,
    /// Documented properties: a TOML file of `[[known]]` entries
    /// (`algorithm`, `invariant`, `family`, `why`); a failure it names is
    /// listed as known and does not fail the campaign.
    #[arg(long)]
    pub known: Option<std::path::PathBuf>,
    /// Output: table or md (json is not offered: the table lists every
    /// failure with its file).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// `trace` subcommands.
#[derive(Subcommand, Debug)]
pub enum TraceCmd {
    /// Read a CSV recording of play (time_ms|time_s|time_us, player, keys or up/down/left/right/jump/
    /// shoot columns, optional aim_x, aim_y; one row per change) and write it as a trace script
    /// that plays the same inputs. `--trace FILE.csv` also runs a recording directly.
    #[command(
        after_help = "Examples:\n  syncbench trace convert match-0412.csv --out traces/duel-human.trace\n  syncbench trace convert inputs.csv            # the script on stdout\n\nCSV:\n  # a duel, logged by my game\n  time_ms,player,keys,aim_x,aim_y\n  0,0,,0,0\n  183.4,0,R,0,0\n  201,1,U+S,12,-40"
    )]
    Convert {
        /// The CSV recording.
        file: std::path::PathBuf,
        /// Write the script to this file (a symlink is followed, a device
        /// or FIFO written through; `-` or none: standard output).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
    },
    /// Read a recording of real play in another format and write it as a trace script.
    /// FORMAT `doom`: a Doom v1.9 demo lump (.lmp), each player's moves turned into the
    /// reference game's eight directions through the player's own facing, fire as shoot,
    /// the facing as aim, at the demo's own 35 Hz instants. `--trace FILE.lmp` also runs
    /// one directly.
    #[command(after_help = "Examples:
  syncbench trace import doom demo1_dm.lmp --out traces/my-deathmatch.trace
  syncbench trace import doom demo2_p1.lmp --threshold 24   # count only walking speed and up as a move
  syncbench trace stats traces/my-deathmatch.trace

The rule, and what a demo cannot say (where a player respawned or teleported), is in
docs/book/src/human-play.md.")]
    Import {
        /// The format: `doom`.
        #[arg(value_enum)]
        format: TraceFormat,
        /// The recording.
        file: std::path::PathBuf,
        /// Write the script to this file (`-` or none: standard output).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// World-frame move length under which a tic holds no direction
        /// (Doom units per tic; walking strafe is 24, running forward 50).
        #[arg(long, default_value_t = harness::trace::doom::MOVE_THRESHOLD)]
        threshold: f64,
        /// The trace's description (its first comment line).
        #[arg(long)]
        description: Option<String>,
        /// A comment line to add under the description (provenance, licence); repeatable.
        #[arg(long)]
        note: Vec<String>,
    },
    /// How each player of a trace plays: input changes per second, how long directions are
    /// held, stops, simultaneous keys, direction reversals, fire duty cycle and aim turn rate.
    /// A recording is measured over its own length; a generator over --duration.
    #[command(after_help = "Examples:
  syncbench trace stats freedoom-dm
  syncbench trace stats human --players 4 --duration 10m   # a generator, over ten minutes
  syncbench trace stats freedoom-dm --fit                   # the `human` generator that plays like it
  syncbench trace stats freedoom-dm,freedoom-coop,freedoom-e1m6 --fit   # and the population of their players
  syncbench trace stats freedoom-dm06,freedoom-map22 --band    # each player against the `human` population
  syncbench trace stats freedoom-dm,freedoom-coop,freedoom-e1m6 --leave-one-out
  syncbench trace stats my-match.csv --format json
  syncbench trace stats freedoom-dm,human,random-walk,lanes   # a row per trace, players pooled")]
    Stats {
        /// The trace: a name, a path (.trace, .csv, .lmp) or a generator; several,
        /// comma-separated, give a row each (every player pooled).
        #[arg(value_delimiter = ',', required = true)]
        traces: Vec<String>,
        /// Players of a generator or script without a recording's own count.
        #[arg(long, default_value_t = 4)]
        players: usize,
        /// The window for a trace that does not repeat [default: 10m].
        #[arg(long)]
        duration: Option<String>,
        /// Seed of a generator.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Also print the `human` generator calibrated to each trace and, with several
        /// players, the population of their parameters.
        #[arg(long)]
        fit: bool,
        /// Place each player's statistics in the `human` population's 90% band (5th to
        /// 95th percentile of 200 simulated players over 60 s, drawn with --seed).
        #[arg(long, conflicts_with_all = ["fit", "leave_one_out"])]
        band: bool,
        /// For each trace, fit the population to the other traces' players and place
        /// this trace's players in its 90% band: how far the population misses a
        /// recording it did not see.
        #[arg(long, conflicts_with = "fit")]
        leave_one_out: bool,
        /// Output format.
        #[arg(long, value_enum, default_value_t = StatsFormat::Table)]
        format: StatsFormat,
    },
}

/// Output of `trace stats`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StatsFormat {
    /// Aligned text.
    Table,
    /// Markdown table.
    Md,
    /// JSON.
    Json,
}

/// Formats `trace import` reads.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// A Doom v1.9 demo lump (.lmp).
    Doom,
}

/// `profile` subcommands.
#[derive(Subcommand, Debug)]
pub enum ProfileCmd {
    /// Print both directions as resolved, their timed events, and what a probe
    /// measures through each (one-way delay percentiles, loss, reorder and
    /// duplicate shares).
    #[command(
        after_help = "Examples:\n  syncbench profile show wifi\n  syncbench profile show \"delay 50ms 10ms distribution normal loss gemodel 1% 20%\"\n  syncbench profile show bufferbloat --packets 5000 --spacing 1ms --format json\n  syncbench profile show leo-starlink --spacing 10ms --packets 12000\n  syncbench profile show \"./cell.up delay 20ms\"   (a Mahimahi pair cell.up, cell.down)"
    )]
    Show {
        /// A profile name, a .toml path, an inline netem string, or a
        /// recording's path (`trace.up`, `link.csv`, `delays.txt`).
        profile: String,
        /// Probe packets per direction.
        #[arg(long, default_value_t = 20_000)]
        packets: u64,
        /// Time between probe packets: 2ms, 500us.
        #[arg(long, default_value = "2ms")]
        spacing: String,
        /// Probe UDP payload, bytes.
        #[arg(long, default_value_t = 100)]
        payload: usize,
        /// Probe seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
    },
    /// Import a recording of your own link (`ping -D` output, IRTT's JSON, or
    /// a CSV of times and delays) as a profile that replays it: writes
    /// NAME.toml and the recording as NAME.csv beside it.
    #[command(
        after_help = "Examples:\n  ping -D -i 0.01 -c 6000 game.example.net > wifi.ping   # a minute of 10 ms probes\n  syncbench profile import wifi.ping --out netem-profiles/my-wifi.toml\n  irtt client -i 10ms -d 1m -o wifi.json game.example.net\n  syncbench profile import wifi.json --out netem-profiles/my-wifi.toml\n  syncbench compare --profile my-wifi"
    )]
    Import {
        /// The recording: ping -D output, IRTT JSON, or a CSV.
        file: std::path::PathBuf,
        /// The profile to write (NAME.toml; the recording goes to NAME.csv).
        #[arg(long)]
        out: std::path::PathBuf,
        /// One line on what link this is, for the profile's description.
        #[arg(long)]
        description: Option<String>,
    },
    /// Fit netem to a recorded link: for each direction, the delay and jitter
    /// of every netem distribution closest to the recording (1-Wasserstein
    /// distance between the delay distributions), a Gilbert loss model from
    /// its loss bursts, rescaled to the packet interval, and what netem
    /// cannot say (time correlation, reordering); beside it a regime model
    /// whose delay and loss move in runs, and the time structure of the
    /// recording, the fit and the model (autocorrelation, slow runs, loss
    /// bursts) with each one's distance from the recording.
    #[command(
        after_help = "Examples:\n  syncbench profile fit leo-starlink\n  syncbench profile fit my-link.csv --packet-hz 30 --out netem-profiles/my-link-fit.toml\n  syncbench compare --profile my-link-fit   # then compare the two\n  syncbench compare --vary profile=my-link.csv,fit:my-link.csv,model:my-link.csv --seeds 5 --duration 30s"
    )]
    Fit {
        /// A recorded profile's name or path, or a recording's path.
        profile: String,
        /// The packet rate the loss model is rescaled to, per second (a
        /// 60 Hz game sends about 60).
        #[arg(long, default_value_t = 60)]
        packet_hz: u32,
        /// Write the fitted profile (TOML) here.
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = ListFormat::Table)]
        format: ListFormat,
    },
    /// Send a steady message stream through a transport over the profile and
    /// time every message from send to delivery (the model side of
    /// scripts/kernel-validation/transport-validate.sh, which sends the same stream through
    /// Linux TCP under the kernel's netem).
    #[command(
        after_help = "Examples:\n  syncbench profile stream \"delay 30ms 5ms loss 2%\" --transport tcp-like\n  syncbench profile stream \"delay 30ms 5ms loss 2%\" --transport tcp-like,kcp,quic --hops 2 --both --seeds 5\n  syncbench profile stream wifi --transport quic --duration 10s --format json"
    )]
    Stream {
        /// A profile name, a .toml path, an inline netem string, or a
        /// recording's path (`trace.up`, `link.csv`, `delays.txt`).
        profile: String,
        /// Transports, comma-separated, a row each: tcp-like[:nodelay=0],
        /// kcp[:…], quic, quic-datagram or redundant:N.
        #[arg(long, default_value = "tcp-like")]
        transport: String,
        /// Messages per second.
        #[arg(long, default_value_t = 60)]
        rate: u32,
        /// Bytes per message.
        #[arg(long, default_value_t = 20)]
        size: usize,
        /// How long the stream runs: 60s, 2m.
        #[arg(long, default_value = "60s")]
        duration: String,
        /// Impaired links in series per direction (2: through a relay).
        #[arg(long, default_value_t = 1)]
        hops: usize,
        /// The receiver sends the same stream back.
        #[arg(long)]
        both: bool,
        /// Nagle's algorithm on (tcp-like only; the same as tcp-like:nodelay=0).
        #[arg(long)]
        nagle: bool,
        /// Link seeds: a count N (seeds 1..=N) or a list with ranges, e.g.
        /// 914,2718 or 1-5,42. Every message of every seed's run is pooled
        /// into one row per transport.
        #[arg(long, default_value = "1", conflicts_with = "seed")]
        seeds: Seeds,
        /// One link seed (the same as `--seeds N,`).
        #[arg(long)]
        seed: Option<u64>,
        /// Output format: a table, Markdown, or JSON listing every message's
        /// latency (one transport and one seed).
        #[arg(long, value_enum, default_value_t = StreamFormat::Table)]
        format: StreamFormat,
    },
}

/// `profile stream --format`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamFormat {
    /// Aligned text.
    Table,
    /// Markdown table.
    Md,
    /// JSON: every message's latency, for one transport and one seed.
    Json,
}

/// `diff --format`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum DiffFormat {
    /// Aligned text.
    Text,
    /// Markdown: a summary line and tables, details in `<details>`.
    Md,
    /// JSON.
    Json,
    /// JUnit XML: a test case per configuration.
    Junit,
}

/// What `list` shows.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListWhat {
    /// Synchronization algorithms.
    Algorithms,
    /// Network profiles in netem-profiles/.
    Profiles,
    /// Traces in traces/ and the generators.
    Traces,
}

/// Format of `list`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListFormat {
    /// Aligned text.
    Table,
    /// JSON.
    Json,
}

/// Format of run and compare output.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned text table.
    Table,
    /// The syncbench.report.v3 JSON document.
    Json,
    /// Markdown table.
    Md,
}

/// Settings shared by every command that runs matches.
#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    /// Players (one client or peer each).
    #[arg(long, default_value_t = 4)]
    pub clients: usize,
    /// Duration per run: 60s, 2m, 1500ms [default: 60s; 10s for `live`; 20s for `matrix --quick`].
    #[arg(long)]
    pub duration: Option<String>,
    /// Game step and node tick rate, Hz [default: the game's `tick_hz`, else 60].
    #[arg(long = "tick-rate")]
    pub tick_rate: Option<u32>,
    /// The reference game's numbers: a preset (arena, brawler, shooter, mmo) or a game file
    /// (TOML: max_speed, acceleration, friction, gravity, jump_speed, player_size, shot_cooldown_ms,
    /// shot_range, arena, arena_scale, tick_hz; see games/) [default: arena — 6 m/s, 0.8 m players,
    /// a 40 m x 30 m room, 60 Hz].
    #[arg(long)]
    pub game: Option<String>,
    /// Render rate of the clients, Hz; a list gives one per client (the last repeats): 60,144,30.
    #[arg(long = "render-rate", default_value = "60", value_delimiter = ',')]
    pub render_rate: Vec<u32>,
    /// Clients' local clocks, OFFSET or OFFSET@DRIFTppm per client (the last repeats; the server's is
    /// exact): `--clock=-40ms@+200ppm,0,+25ms`. Tests clock sync and timers against drift.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub clock: Vec<String>,
    /// What a receiver gets of a packet netem's `corrupt` damaged: `drop` (default) — the UDP
    /// checksum discards it, as Linux does with the kernel's netem (reports/netem-corrupt.md);
    /// `deliver` — the flipped bytes arrive, as to a sender with SO_NO_CHECK, so decoders are
    /// tested against them.
    #[arg(long, value_enum, default_value_t = Corrupted::Drop)]
    pub corrupted: Corrupted,
    /// Algorithm option key=value (repeatable); `list algorithms` shows each algorithm's.
    #[arg(long = "opt")]
    pub opt: Vec<String>,
    /// What carries the algorithm's messages: unreliable, redundant or redundant:N, tcp-like, kcp or kcp:key=value,… (the real KCP), quic or quic-datagram (QUIC through quinn), renet:reliable-ordered|reliable-unordered|unreliable[,resend=D,update=D] (a real renet channel).
    #[arg(long, default_value = "unreliable")]
    pub transport: String,
    /// The arena: `standard` (40 m x 30 m, five walls) or an open field WIDTHxHEIGHT in
    /// metres with a pillar every 50 m: `--arena 400x400` [default: the game's arena].
    #[arg(long)]
    pub arena: Option<String>,
    /// Server-driven entities that wander by the game's rules (entity ids after the players).
    #[arg(long, default_value_t = 0)]
    pub bots: usize,
    /// Area of interest: the server tells each client only about entities within the radius
    /// (grid: antsmallant's nine-grid; crosslist: its orthogonal lists). `none` filters nothing
    /// but still measures leaks and awareness against the radius.
    #[arg(long, value_parser = ["none", "grid", "crosslist"])]
    pub aoi: Option<String>,
    /// View radius for --aoi, metres [default: 30].
    #[arg(long = "aoi-radius")]
    pub aoi_radius: Option<f64>,
    /// Extra distance before an entity leaves a client's view, metres [default: 2].
    #[arg(long = "aoi-hysteresis")]
    pub aoi_hysteresis: Option<f64>,
    /// Pace virtual time to the wall clock (runs take their simulated duration; not
    /// reproducible). For code under test that reads the clock itself, like `ggrs`.
    #[arg(long)]
    pub paced: bool,
}

/// `run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// Algorithm name (see `syncbench list algorithms`).
    #[arg(long)]
    pub algo: String,
    /// Network profile: a name from netem-profiles/, a .toml path, an inline
    /// netem string, or a recording's path (`trace.up` for a Mahimahi pair,
    /// `.csv` timed delays, else one delay per 10 ms line), netem extras after it;
    /// `fit:ITEM` or `model:ITEM` for a recording's netem fit or regime model.
    #[arg(long, default_value = "wifi")]
    pub profile: String,
    /// Input trace: a generator (zigzag, random-walk:seed=3, human, ...), a name from traces/, or a path
    /// (.trace, a .csv recording of play, a Doom .lmp demo).
    #[arg(long, default_value = "random-walk")]
    pub trace: String,
    /// Run seed: network draws and generated traces derive from it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Also write each run's latency and divergence distributions as
    /// HdrHistogram interval logs (one .hlog per run) into this directory.
    #[arg(long, value_name = "DIR")]
    pub hlog: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub common: MatchArgs,
}

/// `live`.
#[derive(Args, Debug)]
pub struct LiveArgs {
    /// What to run, as for `run` (the profile is what the relay applies).
    #[command(flatten)]
    pub run: RunArgs,
    /// Also run the same match in the simulator and print both with their ratios.
    #[arg(long = "against-sim")]
    pub against_sim: bool,
    /// Hostile datagrams of each kind (truncated, oversized, garbage, forged, replayed, from an
    /// unknown address) sent at node 0 during the run; the report counts what its gate dropped.
    #[arg(long, default_value_t = 0)]
    pub hostile: u32,
    /// `userspace`: syncbench's relay applies the profile; `none`: nodes talk directly;
    /// HOST:PORT: every datagram goes through that forwarder (scripts/kernel-validation/udp_reflector.py). With
    /// `none` or a forwarder something else impairs the path (scripts/kernel-validation/netem-live.sh: kernel netem).
    #[arg(long, default_value = "userspace")]
    pub relay: String,
    /// The address the nodes' sockets bind (the forwarder must reach it).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
}

/// `compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Network profile: a name, a .toml path, an inline netem string, or a
    /// recording's path (`trace.up`, `link.csv`, `delays.txt`), netem extras after it;
    /// `fit:ITEM` or `model:ITEM` for a recording's netem fit or regime model.
    #[arg(long, default_value = "wifi")]
    pub profile: String,
    /// Algorithms, comma-separated, or `all`.
    #[arg(long, default_value = "all", value_delimiter = ',')]
    pub algos: Vec<String>,
    /// Traces, comma-separated (generators, names or paths).
    #[arg(long, default_value = "random-walk", value_delimiter = ',')]
    pub traces: Vec<String>,
    /// Seeds per (algorithm, trace): a count N (seeds 1..=N), or a list
    /// with ranges, e.g. 914,2718 or 1-5,42; tables show the mean and its
    /// 95% confidence interval, the JSON report every seed's run.
    #[arg(long, default_value = "5")]
    pub seeds: Seeds,
    /// Cores to use (default: all): parallel runs, and the pool that judges a
    /// large world's screens. The output does not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Also write report.json, .csv, .md and .html into this directory.
    #[arg(long)]
    pub out: Option<std::path::PathBuf>,
    /// Also write each run's latency and divergence distributions as
    /// HdrHistogram interval logs (one .hlog per run) into this directory.
    #[arg(long, value_name = "DIR")]
    pub hlog: Option<std::path::PathBuf>,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Table columns (algorithms as rows), comma-separated, in text or
    /// `--format md`: own-lat, remote-lat, own-lat-p99, remote-lat-p99,
    /// own-div, remote-div, own-div-p99, remote-div-p99, own-div-size,
    /// remote-div-size, own-ideal, remote-ideal, frozen, freezes,
    /// longest-stall, lag, snaps, jump, down, up, down-packets, server-up,
    /// retransmissions, corrections, unshown, desyncs, dropped, late,
    /// repeated (inputs per client-minute after the warm-ups; late: never
    /// run though the network lost nothing that carried them), connect
    /// (the mean time to connect), and with --aoi visible,
    /// shown, awareness, awareness-max, leaks. Default: the full table if
    /// it fits the terminal ($COLUMNS, else 100), else own-lat … down,
    /// with the algorithms that dropped or were late with inputs named
    /// under it.
    #[arg(long, value_delimiter = ',')]
    pub metrics: Vec<String>,
    /// Run each algorithm once per value, a row each: the transport
    /// (`transport=unreliable,redundant:3,kcp`), the area of interest
    /// (`aoi=none,grid,crosslist`), the profile (`profile=leo-starlink,
    /// leo-starlink-fit`: one profile per value, for every client) or any
    /// algorithm option (`remote=interp,raw,ghost`).
    #[arg(long, value_name = "NAME=V1,V2,…")]
    pub vary: Option<String>,
    /// Every metric, metrics as rows, however wide.
    #[arg(long = "all-metrics")]
    pub all_metrics: bool,
    /// No progress on stderr.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub common: MatchArgs,
}

/// What a receiver gets of a corrupted packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Corrupted {
    /// Discarded by the UDP checksum (what the kernel's netem leads to).
    Drop,
    /// Delivered with the flipped bit.
    Deliver,
}
