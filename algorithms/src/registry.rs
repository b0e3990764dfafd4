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

/// Third-party libraries under test (see [`crate::adapters`]), selected
/// by name in every command. They are not in [`all`], whose algorithms
/// the suite's own tests hold to every contract and invariant: a real
/// library's shortfalls are findings, pinned in its own tests. `naia`
/// runs on virtual time, byte-identical run to run, and has a gate
/// baseline of its own; `ggrs` reads the wall clock (run it `--paced`).
pub fn under_test() -> &'static [&'static dyn Algorithm] {
    static UNDER_TEST: &[&dyn Algorithm] = &[
        #[cfg(feature = "naia")]
        &crate::adapters::naia::Naia,
        #[cfg(feature = "ggrs")]
        &crate::adapters::ggrs::Ggrs,
    ];
    UNDER_TEST
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

#[cfg(test)]
mod tests {
    use harness::contract::Options;

    #[test]
    fn every_option_default_is_allowed_and_every_range_is_real() {
        let controls = crate::controls::all().iter().map(|(a, _)| *a);
        for a in super::all().iter().copied().chain(super::under_test().iter().copied()).chain(controls) {
            for o in a.options() {
                assert!(o.check(o.default).is_ok(), "{}: {} default {}", a.name(), o.name, o.default);
                if o.choices.is_empty() {
                    assert!(o.min <= o.max && o.min.is_finite() && o.max.is_finite(), "{}: {}", a.name(), o.name);
                    // Just outside the range is refused, naming the range.
                    let e = o.check(&format!("{}", o.max + 1.0)).unwrap_err();
                    assert!(e.contains(&format!("{}..={}", o.min, o.max)), "{e}");
                }
            }
            assert_eq!(Options::default().check(a), Ok(()), "{}", a.name());
        }
    }
}
