//! Negative controls: deliberately broken algorithms the conformance suite
//! must catch. They are kept out of the default listings (`syncbench list
//! algorithms --all` shows them) and each names the contract that catches
//! it; a test asserts that every one is caught.

pub mod claims_newest;
pub mod coast_blind;
pub mod frame_based;
pub mod prediction_no_replay;
pub mod rollback_no_resim;
pub mod staircase;

use crate::frame::lockstep::LOCKSTEP;
use crate::state::prediction::PREDICTION;
use crate::state::snapshot::DELTA_SNAPSHOT;
use harness::contract::{Algorithm, Node, OptionSpec, Options, Setup, Topology};

/// A real algorithm changed from outside: the setup its nodes are made
/// with, or its clients wrapped. Everything else (topology, options,
/// waivers) is the base's, so a control differs from its base only in
/// what it changes, and the base carries no switch for it.
pub struct Variant {
    /// Name on the command line.
    pub name: &'static str,
    /// One line for `list algorithms --all`.
    pub description: &'static str,
    /// The algorithm changed.
    pub base: &'static dyn Algorithm,
    /// Changes the setup a node is made with: the server's (`None`) or
    /// a player's client.
    pub adjust: fn(&mut Setup, Option<usize>),
    /// Wraps a client.
    pub wrap: fn(Box<dyn Node>) -> Box<dyn Node>,
}

/// A [`Variant::adjust`] that changes nothing.
pub fn unchanged(_: &mut Setup, _: Option<usize>) {}

/// A [`Variant::wrap`] that wraps nothing.
pub fn bare(client: Box<dyn Node>) -> Box<dyn Node> {
    client
}

impl Variant {
    fn setup(&self, setup: &Setup, player: Option<usize>) -> Setup {
        let mut s = setup.clone();
        (self.adjust)(&mut s, player);
        s
    }
}

impl Algorithm for Variant {
    fn name(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn topology(&self) -> Topology {
        self.base.topology()
    }
    fn options(&self) -> &'static [OptionSpec] {
        self.base.options()
    }
    fn check_options(&self, options: &Options) -> Result<(), String> {
        self.base.check_options(options)
    }
    fn waived_contracts(&self) -> &'static [(&'static str, &'static str)] {
        self.base.waived_contracts()
    }
    fn handles_bots(&self) -> bool {
        self.base.handles_bots()
    }
    fn handles_aoi(&self) -> bool {
        self.base.handles_aoi()
    }
    fn takes_corruption(&self) -> Result<(), &'static str> {
        self.base.takes_corruption()
    }
    fn server(&self, setup: &Setup) -> Box<dyn Node> {
        self.base.server(&self.setup(setup, None))
    }
    fn client(&self, setup: &Setup, player: usize) -> Box<dyn Node> {
        (self.wrap)(self.base.client(&self.setup(setup, Some(player)), player))
    }
}

/// `lockstep` whose peers seed the game's random generator themselves
/// instead of taking the session's.
pub const LOCKSTEP_OWN_SEED: Variant = Variant {
    name: "lockstep-own-seed",
    description: "NEGATIVE CONTROL: lockstep whose peers seed the game's random generator themselves",
    base: &LOCKSTEP,
    adjust: |s, player| s.initial.rng = 0x0123_4567_89AB_CDEF ^ player.unwrap_or(0) as u64,
    wrap: bare,
};

/// `prediction` whose remote players are drawn at the estimated present,
/// extrapolated along their velocity without bound: no interpolation
/// delay, and an extrapolation limit no user may set.
pub const EXTRAPOLATE_UNBOUNDED: Variant = Variant {
    name: "extrapolate-unbounded",
    description: "NEGATIVE CONTROL: remote players extrapolated to the present along their velocity, without bound",
    base: &PREDICTION,
    adjust: |s, _| {
        for (key, value) in [("interp", "0"), ("dry", "extrapolate"), ("extrapolate-max", "1e15")] {
            s.options.0.insert(key.to_string(), value.to_string());
        }
    },
    wrap: bare,
};

/// A hysteresis as wide as the interest index reaches, past the diagonal
/// of the largest field (2 km × 2 km, 2.83 km across): an entity that
/// entered a client's view never leaves it.
const NEVER: i64 = crate::interest::MAX_RADIUS;

/// `delta-snapshot` whose area of interest never sends a leave: a client
/// keeps being told about everything it ever saw (a map hack's dream).
pub const AOI_NEVER_LEAVES: Variant = Variant {
    name: "aoi-never-leaves",
    description: "NEGATIVE CONTROL: delta-snapshot whose area of interest never sends a leave",
    base: &DELTA_SNAPSHOT,
    adjust: |s, _| {
        if let Some(aoi) = &mut s.aoi {
            aoi.hysteresis_um = NEVER;
        }
    },
    wrap: bare,
};

/// Every control with the contract that must catch it.
pub fn all() -> &'static [(&'static dyn Algorithm, &'static str)] {
    static ALL: [(&dyn Algorithm, &str); 9] = [
        (&rollback_no_resim::ROLLBACK_NO_RESIM, "no-desync"),
        (&frame_based::FrameBased, "frame-rate-independent"),
        (&LOCKSTEP_OWN_SEED, "no-desync"),
        (&prediction_no_replay::PREDICTION_NO_REPLAY, "predicted-own-bound"),
        (&EXTRAPOLATE_UNBOUNDED, "remote-on-path"),
        (&AOI_NEVER_LEAVES, "no-leak"),
        (&coast_blind::COAST_BLIND, "on-map"),
        (&claims_newest::CLAIMS_NEWEST, "honest-names"),
        (&staircase::STAIRCASE, "smooth-remote"),
    ];
    &ALL
}
