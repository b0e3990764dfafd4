//! syncbench's integration tests: one binary, one module per area.

mod cli;
mod conformance;
mod defaults;
mod determinism;
mod frame;
mod game;
mod ggrs;
mod hlog;
mod human;
mod interest;
mod lockstep;
mod metrics;
mod naia;
mod network;
mod prediction;
mod recorded;
mod reports;
mod rollback;
mod server_verified;
mod state_sync;
mod stress;
mod toys;
mod tune;
mod util;
