//! What a run starts from, simulated or live: the configuration checked
//! and turned into the game, the nodes' setup and the recorder.

use super::config::{RunConfig, RunError, MAX_ENTITIES};
use crate::contract::{Algorithm, Node, NodeId, Setup};
use crate::game::Game;
use crate::metrics::recorder::Recorder;
use crate::net::plan::NetworkPlan;
use crate::net::{Link, Profile};
use crate::parallel;
use crate::rng::{derive, Purpose, Stream};
use crate::time::LocalClock;
use crate::trace::Trace;
use crate::world::Aoi;

/// What every run starts from, simulated or live: the checked
/// configuration turned into the game, the nodes' setup and the recorder.
pub(crate) struct Prepared {
    pub(crate) game: Game,
    pub(crate) setup: Setup,
    pub(crate) recorder: Recorder,
}

/// Checks that `cfg` describes a run `algorithm` can make on `plan`: every
/// range, the run's size, the options, what the algorithm supports. Every
/// run calls it first; `replay` calls it to tell a malformed scenario (exit
/// 2) from a failing one.
pub fn check_config(algorithm: &dyn Algorithm, plan: &NetworkPlan, cfg: &RunConfig) -> Result<(), RunError> {
    if cfg.clients == 0 || cfg.clients > 4096 {
        return Err(RunError::Config(format!("clients must be 1..=4096, got {}", cfg.clients)));
    }
    if !(1..=1000).contains(&cfg.tick_hz) {
        return Err(RunError::Config(format!("tick rate must be 1..=1000 Hz, got {}", cfg.tick_hz)));
    }
    if cfg.render_hz.iter().any(|&r| !(1..=1000).contains(&r)) {
        return Err(RunError::Config("render rates must be 1..=1000 Hz".into()));
    }
    if cfg.duration_us < 100_000 {
        return Err(RunError::Config(format!("duration must be at least 100 ms, got {} us", cfg.duration_us)));
    }
    if plan.clients.is_empty() {
        return Err(RunError::Config("no network profile".into()));
    }
    cfg.options.check(algorithm).map_err(RunError::Config)?;
    cfg.game.check_room(cfg.world).map_err(RunError::Config)?;
    let entities = cfg.clients.saturating_add(cfg.bots);
    if entities > MAX_ENTITIES {
        return Err(RunError::Config(format!("players + bots must be at most {MAX_ENTITIES}, got {entities}")));
    }
    crate::limits::check_run(entities, cfg.duration_us).map_err(RunError::Config)?;
    let fastest = (0..cfg.clients).map(|i| cfg.render_hz_of(i)).max().unwrap_or(0);
    crate::limits::check_work(cfg.clients, entities, fastest, cfg.duration_us).map_err(RunError::Config)?;
    if cfg.bots > 0 && !algorithm.handles_bots() {
        return Err(RunError::Config(format!("{} does not handle server-driven bots (--bots)", algorithm.name())));
    }
    if !cfg.drop_corrupted {
        if let Err(why) = algorithm.takes_corruption() {
            return Err(RunError::Config(format!(
                "{} does not take corrupted packets delivered (--corrupted deliver): {why}",
                algorithm.name()
            )));
        }
    }
    if let Some(aoi) = cfg.aoi {
        if aoi.filters() && !algorithm.handles_aoi() {
            return Err(RunError::Config(format!(
                "{} does not filter by area of interest (--aoi {})",
                algorithm.name(),
                aoi.method.as_str()
            )));
        }
        if !(0..=Aoi::MAX_UM).contains(&aoi.radius_um) || !(0..=Aoi::MAX_UM).contains(&aoi.hysteresis_um) {
            return Err(RunError::Config("area-of-interest radius and hysteresis must be 0..=1000 m".into()));
        }
    }
    Ok(())
}

/// Checks `cfg` against `algorithm` and `plan` and builds the run's game,
/// setup and recorder.
pub(crate) fn prepare(
    algorithm: &dyn Algorithm,
    plan: &NetworkPlan,
    trace: &Trace,
    cfg: &RunConfig,
) -> Result<Prepared, RunError> {
    check_config(algorithm, plan, cfg)?;
    let session_seed = derive(cfg.seed, Purpose::Session, 0);
    let game = Game::new(cfg.game.config(cfg.world, cfg.tick_hz, cfg.bots, session_seed));
    // The session's random seed is in the initial state every node is given:
    // the game's pick-ups appear in the same places for everyone.
    let initial = game.initial_state_seeded(cfg.clients, session_seed);
    let topology = algorithm.topology();
    let setup = Setup {
        players: cfg.clients,
        tick_hz: cfg.tick_hz,
        initial: initial.clone(),
        topology,
        options: cfg.options.clone(),
        session_seed,
        aoi: cfg.aoi,
    };
    let mut recorder = Recorder::new(topology, &game, &initial, trace.clone(), cfg.duration_us, cfg.header_bytes);
    recorder.set_render_hz((0..cfg.clients).map(|p| cfg.render_hz_of(p)).max().unwrap_or(60));
    if let Some(aoi) = cfg.aoi {
        recorder.enable_interest(aoi);
    }
    if let Some(probe) = cfg.probe {
        recorder.enable_probe(probe);
    }
    if let Some(mark) = cfg.checks {
        recorder.enable_checks(mark);
    }
    recorder.set_mtus(
        (0..setup.nodes())
            .map(|n| setup.player_of_node(NodeId(n as u16)).map_or(plan.server.mtu, |p| plan.client(p).mtu))
            .collect(),
    );
    Ok(Prepared { game, setup, recorder })
}

/// Node `n` of a run, simulated or live: its code (the server's or a
/// player's), its clock, its player, its profile and its two links
/// (uplink, downlink), each drawing from its own stream of the run seed.
pub(crate) struct NodeParts<'p> {
    pub(crate) node: Box<dyn Node>,
    pub(crate) clock: LocalClock,
    pub(crate) player: Option<usize>,
    pub(crate) profile: &'p Profile,
    pub(crate) links: [Link; 2],
}

/// Builds node `n` of `algorithm` on `plan` (see [`NodeParts`]).
pub(crate) fn node_parts<'p>(
    algorithm: &dyn Algorithm,
    setup: &Setup,
    plan: &'p NetworkPlan,
    cfg: &RunConfig,
    n: usize,
) -> NodeParts<'p> {
    let player = setup.player_of_node(NodeId(n as u16));
    let (node, clock, profile) = match player {
        Some(p) => (algorithm.client(setup, p), cfg.clock_of(p), plan.client(p)),
        None => (algorithm.server(setup), LocalClock::EXACT, &plan.server),
    };
    let link = |up: bool| {
        let purpose = if up { Purpose::Uplink } else { Purpose::Downlink };
        profile.link(up, cfg.seed, n as u64, Stream::new(cfg.seed, purpose, n as u64))
    };
    NodeParts { node, clock, player, profile, links: [link(true), link(false)] }
}

/// Whether a run of `cfg` should go through [`crate::parallel::on_pool`]
/// (a single run; a caller running many at once should not): when it is
/// big enough that its screens may be judged on several cores, and not
/// paced — a paced run waits for the wall clock between events, and
/// keeping the pool's threads awake for it would only burn them.
pub fn runs_on_pool(cfg: &RunConfig) -> bool {
    let batch = cfg.clients.saturating_mul(cfg.clients.saturating_add(cfg.bots));
    parallel::parts(batch, cfg.clients) > 1 && !cfg.paced
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A big run goes on the pool; a small one, or a paced one (which waits
    /// on the wall clock and would keep the pool's threads spinning for
    /// nothing), does not.
    #[test]
    fn which_runs_go_on_the_pool() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        pool.install(|| {
            let big = RunConfig { clients: 200, bots: 2000, ..RunConfig::default() };
            assert!(runs_on_pool(&big));
            assert!(!runs_on_pool(&RunConfig { paced: true, ..big.clone() }));
            assert!(!runs_on_pool(&RunConfig { clients: 4, ..RunConfig::default() }));
        });
        let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
        one.install(|| assert!(!runs_on_pool(&RunConfig { clients: 200, bots: 2000, ..RunConfig::default() })));
    }
}
