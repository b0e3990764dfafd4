//! The runner: builds a run's world — nodes, clocks, links, recorder — and
//! drives the event loop until the simulated duration is over.
//!
//! A run is a pure function of (algorithm, network plan, trace, seed,
//! config): the only randomness comes from streams split off the seed,
//! events are ordered by `(time, class, insertion)`, and nothing reads the
//! wall clock.
//!
//! The entry points are here; `event_loop` runs a run, `prepare` checks
//! its configuration and builds what it starts from.

mod config;
mod event_loop;
mod events;
mod network;
mod prepare;
mod recording;

pub use config::{RunConfig, RunError, RunResult, MAX_ENTITIES};
pub use prepare::{check_config, runs_on_pool};
pub(crate) use prepare::{node_parts, prepare, NodeParts, Prepared};

use crate::contract::Algorithm;
use crate::net::plan::NetworkPlan;
use crate::net::Profile;
use crate::time::Micros;
use crate::trace::Trace;
use event_loop::EventLoop;

/// Runs `algorithm` on one profile for every client (see [`run_plan`]).
pub fn run(
    algorithm: &dyn Algorithm,
    profile: &Profile,
    trace: &Trace,
    cfg: &RunConfig,
) -> Result<RunResult, RunError> {
    run_plan(algorithm, &NetworkPlan::uniform(profile.clone()), trace, cfg)
}

/// Runs `algorithm` on `plan` (a profile per client) with `trace`.
pub fn run_plan(
    algorithm: &dyn Algorithm,
    plan: &NetworkPlan,
    trace: &Trace,
    cfg: &RunConfig,
) -> Result<RunResult, RunError> {
    run_plan_observed(algorithm, plan, trace, cfg, &mut |_| {})
}

/// [`run_plan`], calling `progress` with the simulated time at each whole
/// simulated second reached (for a progress line on long runs; it sees
/// the clock only, so it cannot change the run).
pub fn run_plan_observed(
    algorithm: &dyn Algorithm,
    plan: &NetworkPlan,
    trace: &Trace,
    cfg: &RunConfig,
    progress: &mut dyn FnMut(Micros),
) -> Result<RunResult, RunError> {
    Ok(EventLoop::new(algorithm, plan, trace, cfg)?.run(progress))
}
