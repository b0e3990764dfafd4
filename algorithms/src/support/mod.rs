//! Components shared by algorithms: the input uplink (redundant client
//! inputs, server queues), clock synchronization, the full and delta
//! snapshot codecs (and the area-of-interest codec of enter / leave / move
//! events), the interpolation buffer, render interpolation between ticks,
//! the own player's prediction and reconciliation, world-aware coasting of
//! remote entities, decoded snapshots shared by a process's clients, and
//! the round trip to each peer a frame-sync buffer is sized to, which
//! slice of an unacknowledged backlog a packet carries, and the playout
//! delay that paces frames arriving with jitter.

pub mod arrival_clock;
pub mod backlog;
pub mod clock_sync;
pub mod coast;
pub mod delta;
pub mod input_queue;
pub mod interpolation;
pub mod own_prediction;
pub mod playout;
pub mod render_lerp;
pub mod round_trip;
pub mod shared_decode;
pub mod snapshot;
pub mod sparse_delta;
pub mod step_grid;
pub mod uplink;
