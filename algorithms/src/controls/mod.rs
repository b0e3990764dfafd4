//! Negative controls: deliberately broken algorithms the conformance suite
//! must catch. They are kept out of the default listings (`syncbench list
//! algorithms --all` shows them) and each names the contract that catches
//! it; a test asserts that every one is caught.

pub mod claims_newest;
pub mod frame_based;
pub mod staircase;

use crate::frame::lockstep::Lockstep;
use crate::frame::rollback::Rollback;
use crate::state::dead_reckoning::DeadReckoning;
use crate::state::prediction::{Flaw, Prediction};
use crate::state::snapshot::{Snapshots, SNAPSHOT};
use harness::contract::{Algorithm, Node, OptionSpec, Options, Setup, Topology};

/// `lockstep` whose peers seed the game's random generator themselves.
pub const LOCKSTEP_OWN_SEED: Lockstep = Lockstep { name: "lockstep-own-seed", own_seed: true };

/// `prediction` that adopts the server's state without replaying pending
/// moves.
pub const PREDICTION_NO_REPLAY: Prediction = Prediction {
    name: "prediction-no-replay",
    description: "NEGATIVE CONTROL: prediction that takes the server's state without replaying pending inputs",
    flaw: Flaw::NoReplay,
};

/// `prediction` whose remote players are extrapolated without bound.
pub const EXTRAPOLATE_UNBOUNDED: Prediction = Prediction {
    name: "extrapolate-unbounded",
    description: "NEGATIVE CONTROL: remote players extrapolated to the present along their velocity, without bound",
    flaw: Flaw::UnboundedExtrapolation,
};

/// `rollback` that restores the saved state on a misprediction but skips
/// the re-simulation.
pub const ROLLBACK_NO_RESIM: Rollback = Rollback { name: "rollback-no-resim", skip_resimulation: true };

/// `delta-snapshot` whose area of interest never sends a leave: a client
/// keeps being told about everything it ever saw (a map hack's dream).
pub const AOI_NEVER_LEAVES: Snapshots = Snapshots { name: "aoi-never-leaves", delta: true, never_leave: true };

/// `dead-reckoning` whose remote copies coast `pos + vel × t`: through
/// walls, off the map, without end.
pub const COAST_BLIND: DeadReckoning = DeadReckoning { name: "coast-blind", periodic: false, blind: true };

/// `snapshot` with its client wrapped: everything else — topology,
/// options, waivers, the server — is `snapshot`'s, so a control differs
/// only in what its wrapper does to the client.
pub struct OnSnapshot {
    /// Name on the command line.
    pub name: &'static str,
    /// One line for `list algorithms --all`.
    pub description: &'static str,
    /// Wraps `snapshot`'s client.
    pub wrap: fn(Box<dyn Node>) -> Box<dyn Node>,
}

impl Algorithm for OnSnapshot {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn topology(&self) -> Topology {
        SNAPSHOT.topology()
    }
    fn options(&self) -> &'static [OptionSpec] {
        SNAPSHOT.options()
    }
    fn check_options(&self, options: &Options) -> Result<(), String> {
        SNAPSHOT.check_options(options)
    }
    fn waived_contracts(&self) -> &'static [(&'static str, &'static str)] {
        SNAPSHOT.waived_contracts()
    }
    fn server(&self, setup: &Setup) -> Box<dyn Node> {
        SNAPSHOT.server(setup)
    }
    fn client(&self, setup: &Setup, player: usize) -> Box<dyn Node> {
        (self.wrap)(SNAPSHOT.client(setup, player))
    }
}

/// Every control with the contract that must catch it.
pub fn all() -> &'static [(&'static dyn Algorithm, &'static str)] {
    static ALL: [(&dyn Algorithm, &str); 9] = [
        (&ROLLBACK_NO_RESIM, "no-desync"),
        (&frame_based::FrameBased, "frame-rate-independent"),
        (&LOCKSTEP_OWN_SEED, "no-desync"),
        (&PREDICTION_NO_REPLAY, "predicted-own-bound"),
        (&EXTRAPOLATE_UNBOUNDED, "remote-on-path"),
        (&AOI_NEVER_LEAVES, "no-leak"),
        (&COAST_BLIND, "on-map"),
        (&claims_newest::CLAIMS_NEWEST, "honest-names"),
        (&staircase::STAIRCASE, "smooth-remote"),
    ];
    &ALL
}
