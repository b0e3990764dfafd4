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
//! | `server-verified` | state sync, no prediction | [`server_verified`] |
//! | `lockstep` | frame sync, strict | [`lockstep`] |

pub mod lockstep;
pub mod registry;
pub mod server_verified;
pub mod wire;
