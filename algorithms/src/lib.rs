//! # syncbench algorithms
//!
//! One module per synchronization algorithm, each implementing the
//! harness's [`harness::contract::Algorithm`], and the [`registry`] that
//! makes them selectable by name. Algorithms reach the world only through
//! the contract's context: they never read a clock, do I/O, or use
//! unseeded randomness.
//!
//! | name | family | module |
//! |---|---|---|
//! | `server-verified` | state sync, no prediction | [`state::server_verified`] |
//! | `prediction` | state sync: client prediction + reconciliation, interpolation, lag compensation | [`state::prediction`] |
//! | `snapshot` | state sync: the whole world every tick, interpolated | [`state::snapshot`] |
//! | `delta-snapshot` | state sync: deltas against the acknowledged snapshot, area of interest | [`state::snapshot`] |
//! | `periodic` | state sync: everyone about once a second, dead-reckoned between | [`state::dead_reckoning`] |
//! | `dead-reckoning` | state sync: updates when the shared extrapolation drifts | [`state::dead_reckoning`] |
//! | `latency-corrected` | state sync: updates moved on by the measured latency | [`state::latency_corrected`] |
//! | `shadow-follow` | state sync: a shadow the copy follows | [`state::shadow_follow`] |
//! | `lockstep` | frame sync, strict | [`frame::lockstep`] |
//! | `framelock` | frame sync, key frames relayed by a server | [`frame::framelock`] |
//! | `bucket` | frame sync, optimistic: no waiting for slow players | [`frame::bucket`] |
//! | `rollback` | frame sync, GGPO-style prediction and rollback | [`frame::rollback`] |
//! | `ggrs` | the real `ggrs` crate under test (feature `ggrs`, on by default) | [`adapters`] |
//!
//! The [`registry`] lists them in this order; `syncbench list algorithms`
//! shows each one's options.
//!
//! Shared components live in [`support`]: clock sync, the snapshot codec,
//! the interpolation buffer. Deliberately broken variants the conformance
//! suite must catch live in [`controls`].

pub mod adapters;
pub mod controls;
pub mod frame;
pub mod interest;
pub mod registry;
pub mod state;
pub mod support;
pub mod wire;
