//! Frame synchronization (lockstep family): every peer simulates the same
//! inputs for every frame; the algorithms differ in what they do when an
//! input is late — wait for it (`lockstep`, `framelock`), play on with
//! the previous one (`bucket`), or predict it and roll back when wrong
//! (`rollback`).

pub mod bucket;
pub mod framelock;
pub mod lockstep;
pub mod rollback;
