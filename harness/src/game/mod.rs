//! The deterministic reference game every algorithm synchronizes.
//!
//! A 2-D arena with walls; players with inertia (acceleration, friction, max
//! speed) who collide with walls and push each other; a jump with take-off
//! and landing; hitscan shots; a pick-up that appears at random spots drawn
//! from a generator inside the state, seeded once per session. All integer
//! arithmetic: `step(state,
//! inputs)` gives bit-identical results everywhere, [`State::checksum`] is
//! what peers compare, and each player's `last_seq` records the sequence
//! number of the last input applied — which is how the harness measures
//! input latency without trusting the algorithm.

mod arena;
mod bot_track;
mod input;
mod rules;
mod settings;
mod state;
mod wall_bands;
mod wall_cells;

pub use arena::{Aabb, Arena};
pub use input::{Input, SeqInput};
pub use rules::{Game, GameConfig};
pub use settings::{GameSettings, PRESETS as GAME_PRESETS};
pub use state::{lane_hash, word_hash, Fnv64, Item, PlayerState, State};
