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
//! | `lockstep` | frame sync, strict | [`frame::lockstep`] |
//! | `framelock` | frame sync, key frames relayed by a server | [`frame::framelock`] |
//! | `bucket` | frame sync, optimistic: no waiting for slow players | [`frame::bucket`] |
//! | `rollback` | frame sync, GGPO-style prediction and rollback | [`frame::rollback`] |
//! | `ggrs` | the real `ggrs` crate under test (feature `ggrs`, on by default) | [`adapters`] |
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
