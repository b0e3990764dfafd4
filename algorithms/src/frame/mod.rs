//! Frame synchronization (lockstep family): every peer simulates the same
//! inputs for every frame; the algorithms differ in what they do when an
//! input is late — wait for it (`lockstep`, `framelock`) or play on with
//! the previous one (`bucket`).

pub mod bucket;
pub mod framelock;
pub mod lockstep;
