//! Third-party netcode libraries put through the same harness as our own
//! algorithms, so the suite is proven on code nobody here wrote.

#[cfg(feature = "ggrs")]
pub mod ggrs;
#[cfg(feature = "naia")]
pub mod naia;
