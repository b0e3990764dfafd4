//! Frame synchronization (lockstep family): every peer simulates the same
//! inputs for every frame; the algorithms differ in what they do when an
//! input is late.

pub mod lockstep;
