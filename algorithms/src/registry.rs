//! The registry: every algorithm by name, in a stable order.
//!
//! ```
//! let a = algorithms::registry::find("lockstep").unwrap();
//! assert_eq!(a.name(), "lockstep");
//! assert!(algorithms::registry::find("telepathy").is_none());
//! ```

use harness::contract::Algorithm;

static ALL: &[&dyn Algorithm] = &[
    &crate::state::server_verified::ServerVerified,
    &crate::state::prediction::PREDICTION,
    &crate::state::snapshot::SNAPSHOT,
    &crate::state::snapshot::DELTA_SNAPSHOT,
    &crate::state::dead_reckoning::PERIODIC,
    &crate::state::dead_reckoning::DEAD_RECKONING,
    &crate::state::latency_corrected::LatencyCorrected,
    &crate::state::shadow_follow::ShadowFollow,
    &crate::frame::lockstep::LOCKSTEP,
    &crate::frame::framelock::Framelock,
    &crate::frame::bucket::Bucket,
    &crate::frame::rollback::ROLLBACK,
];

/// Every algorithm, in listing order.
pub fn all() -> &'static [&'static dyn Algorithm] {
    ALL
}

/// Third-party libraries under test (see [`crate::adapters`]). They are
/// not in [`all`]: they read the wall clock and draw unseeded randomness,
/// so their runs are not reproducible and they stay out of `all`-matrices
/// and baselines; select them by name.
pub fn under_test() -> &'static [&'static dyn Algorithm] {
    #[cfg(feature = "ggrs")]
    {
        static UNDER_TEST: [&dyn Algorithm; 1] = [&crate::adapters::ggrs::Ggrs];
        &UNDER_TEST
    }
    #[cfg(not(feature = "ggrs"))]
    {
        &[]
    }
}

/// The algorithm called `name`: registered, under test, or a negative
/// control.
pub fn find(name: &str) -> Option<&'static dyn Algorithm> {
    ALL.iter()
        .copied()
        .chain(under_test().iter().copied())
        .chain(crate::controls::all().iter().map(|(a, _)| *a))
        .find(|a| a.name() == name)
}

/// The names, in listing order.
pub fn names() -> Vec<&'static str> {
    ALL.iter().map(|a| a.name()).collect()
}
