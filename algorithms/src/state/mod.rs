//! State synchronization: an authoritative server simulates the world and
//! sends state; clients differ in how they show it (wait, predict,
//! interpolate, extrapolate).

mod aoi_snapshot;
pub mod dead_reckoning;
pub mod latency_corrected;
pub mod prediction;
pub mod server_verified;
pub mod shadow_follow;
pub mod snapshot;
