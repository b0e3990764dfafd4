//! # syncbench harness
//!
//! The deterministic simulator every syncbench algorithm runs in. It owns
//! virtual time ([`time`], [`event`]), the network ([`net`]: netem-syntax
//! profiles applied per direction), the reference game ([`game`]), input
//! traces ([`trace`]), the plug-in contract algorithms implement
//! ([`contract`]), the metrics it derives from what nodes publish
//! ([`metrics`]), the [`runner`] that ties them together, the [`report`]
//! writers, [`live`] mode (the same nodes over real sockets), and the [`world`] settings of large scenarios (field arenas,
//! bots, area of interest).
//!
//! The harness names no algorithm: algorithms live in the `algorithms`
//! crate and reach the harness only through [`contract`]. A run is a pure
//! function of (algorithm, profile, trace, seed, config) — no wall clock,
//! no hash-order iteration, no unseeded randomness.
//!
//! See [`contract`] for a complete worked example of adding an algorithm.

pub mod buffers;
pub mod conform;
pub mod contract;
pub mod error;
pub mod event;
pub mod game;
pub mod id_sort;
pub mod library;
pub mod limits;
pub mod live;
pub mod math;
pub mod metrics;
pub mod net;
pub mod parallel;
pub mod report;
pub mod rng;
pub mod runner;
pub mod stress;
pub mod time;
pub mod trace;
pub mod tune;
pub mod world;
