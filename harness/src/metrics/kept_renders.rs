//! Renders kept for a closer look: one screen's pictures of one entity
//! over a window of time, each beside where the authority and the ideal
//! world had that entity — what `replay` prints around a failure.

use crate::contract::EntityView;

/// Which renders to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Probe {
    /// The screen's player.
    pub client: usize,
    /// The entity.
    pub entity: u16,
    /// The window, µs of simulated time, inclusive.
    pub from_us: u64,
    /// Its end.
    pub to_us: u64,
}

impl Probe {
    /// Whether the render of `client` at `t_us` is one to keep.
    pub(crate) fn wants(&self, client: usize, t_us: u64) -> bool {
        client == self.client && (self.from_us..=self.to_us).contains(&t_us)
    }
}

/// One kept render.
#[derive(Clone, Debug, PartialEq)]
pub struct Probed {
    /// When it was drawn, µs.
    pub t_us: u64,
    /// What the view said of the entity: the drawn position and its names.
    pub view: EntityView,
    /// Where the authority had the entity at that instant (its frame in
    /// force, on the way to the next), µm; `None` if that frame never came.
    pub authority: Option<[i32; 3]>,
    /// Where the ideal world (every input applied the tick it was given)
    /// had it, µm.
    pub ideal: Option<[i32; 3]>,
    /// The authority's instant, resolved once its frames exist.
    pub(crate) instant: (usize, u64),
}
