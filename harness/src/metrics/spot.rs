//! The worst render of a kind — the deepest inside a wall, the farthest
//! off its path, the furthest behind its name — kept so a failure can say
//! where it was seen.

/// A render worth naming: its measure, then time, screen, entity and
/// drawn position. The larger measure wins; on a tie the earlier render,
/// then the lower screen and entity — whatever order tallies merge in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Spot {
    /// How bad, in the unit of its kind (µm, thousandths of a frame; 0 to
    /// keep the earliest).
    pub(super) measure: u64,
    /// Render time, µs.
    pub(super) t: u64,
    /// The screen's player.
    pub(super) viewer: usize,
    /// The entity drawn.
    pub(super) entity: usize,
    /// The drawn position, µm.
    pub(super) at: [i32; 3],
}

impl Spot {
    /// The worse of `a` and `b` (see the type's docs).
    pub(super) fn worse(a: Option<Spot>, b: Option<Spot>) -> Option<Spot> {
        worst_by(a, b, |s| *s)
    }
}

/// The worse of `a` and `b` by the [`Spot`] each carries.
pub(super) fn worst_by<T: Copy>(a: Option<T>, b: Option<T>, spot: impl Fn(&T) -> Spot) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => {
            let key = |x: &T| {
                let s = spot(x);
                (std::cmp::Reverse(s.measure), s.t, s.viewer, s.entity)
            };
            Some(if key(&b) < key(&a) { b } else { a })
        }
        (a, b) => a.or(b),
    }
}
