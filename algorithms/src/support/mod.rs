//! Components shared by algorithms: clock synchronization, the snapshot
//! codec, the interpolation buffer, lag compensation.

pub mod clock_sync;
pub mod delta;
pub mod input_queue;
pub mod interpolation;
pub mod snapshot;
pub mod uplink;
