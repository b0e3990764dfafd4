//! The reference game's world geometry: the arena bounds, its walls, spawn
//! points, and the integer ray cast used by hitscan shots.
//!
//! Lengths are integer micrometres (µm). Walls are axis-aligned boxes; so
//! are players, which keeps collision exact and deterministic.

use crate::world::World;

/// An axis-aligned box `[min_x, max_x] × [min_y, max_y]`, µm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aabb {
    /// Left edge.
    pub min_x: i64,
    /// Bottom edge.
    pub min_y: i64,
    /// Right edge.
    pub max_x: i64,
    /// Top edge.
    pub max_y: i64,
}

impl Aabb {
    /// A box from metres (for readable constants).
    pub const fn metres(min_x: f32, min_y: f32, max_x: f32, max_y: f32) -> Aabb {
        Aabb {
            min_x: (min_x * 1e6) as i64,
            min_y: (min_y * 1e6) as i64,
            max_x: (max_x * 1e6) as i64,
            max_y: (max_y * 1e6) as i64,
        }
    }

    /// The box of half-size `h` centred on `(x, y)`.
    pub fn around(x: i64, y: i64, h: i64) -> Aabb {
        Aabb { min_x: x - h, min_y: y - h, max_x: x + h, max_y: y + h }
    }

    /// Whether the interiors overlap (touching edges do not).
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min_x < o.max_x && o.min_x < self.max_x && self.min_y < o.max_y && o.min_y < self.max_y
    }

    /// This box grown by `h` on every side.
    pub fn grown(&self, h: i64) -> Aabb {
        Aabb { min_x: self.min_x - h, min_y: self.min_y - h, max_x: self.max_x + h, max_y: self.max_y + h }
    }
}

/// A non-negative fraction `num / den` (den > 0), compared exactly.
#[derive(Clone, Copy, Debug)]
struct Frac {
    num: i128,
    den: i128,
}

impl Frac {
    fn new(num: i128, den: i128) -> Frac {
        if den < 0 {
            Frac { num: -num, den: -den }
        } else {
            Frac { num, den }
        }
    }
    fn lt(self, o: Frac) -> bool {
        self.num * o.den < o.num * self.den
    }
    fn max(self, o: Frac) -> Frac {
        if self.lt(o) {
            o
        } else {
            self
        }
    }
    fn min(self, o: Frac) -> Frac {
        if o.lt(self) {
            o
        } else {
            self
        }
    }
}

/// Where a ray from `(ox, oy)` along `(dx, dy)` enters `b`, as the ray
/// parameter `t` (position = origin + t·direction), if it does at `t ≥ 0`.
/// Exact integer arithmetic; returns `(num, den)` for comparison.
pub fn ray_enter(ox: i64, oy: i64, dx: i64, dy: i64, b: &Aabb) -> Option<(i128, i128)> {
    let mut enter = Frac { num: 0, den: 1 };
    let mut exit: Option<Frac> = None;
    for (o, d, lo, hi) in [(ox, dx, b.min_x, b.max_x), (oy, dy, b.min_y, b.max_y)] {
        if d == 0 {
            if o < lo || o > hi {
                return None;
            }
            continue;
        }
        let t1 = Frac::new((lo - o) as i128, d as i128);
        let t2 = Frac::new((hi - o) as i128, d as i128);
        let (near, far) = if t1.lt(t2) { (t1, t2) } else { (t2, t1) };
        enter = enter.max(near);
        exit = Some(exit.map_or(far, |e| e.min(far)));
    }
    let exit = exit?;
    if exit.lt(enter) || exit.num < 0 {
        return None;
    }
    Some((enter.num, enter.den))
}

/// Whether ray parameter `a` is smaller than `b` (both `(num, den)`).
pub fn t_less(a: (i128, i128), b: (i128, i128)) -> bool {
    Frac { num: a.0, den: a.1 }.lt(Frac { num: b.0, den: b.1 })
}

// The game builds its arena from a run's `World` here, so that the world
// settings, like the profile and the trace, depend on nothing in the game.
impl World {
    /// The arena.
    pub fn arena(self) -> Arena {
        match self {
            World::Standard => Arena::standard(),
            World::Field { width_m, height_m } => Arena::field(width_m as i64 * 1_000_000, height_m as i64 * 1_000_000),
        }
    }
}

/// The arena: bounds, walls, spawns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arena {
    /// Width, µm (x from 0 to width).
    pub width: i64,
    /// Height, µm (y from 0 to height).
    pub height: i64,
    /// Interior walls.
    pub walls: Vec<Aabb>,
    /// Spread the players' spawn points over the whole arena (large open
    /// worlds) instead of packing them from the corner.
    pub spread_spawns: bool,
}

impl Arena {
    /// The standard 40 m × 30 m arena: a central pillar and four bars that
    /// players run into (so mispredicted turns really diverge).
    pub fn standard() -> Arena {
        Arena {
            width: 40_000_000,
            height: 30_000_000,
            walls: vec![
                Aabb::metres(18.0, 13.0, 22.0, 17.0),
                Aabb::metres(7.0, 8.0, 7.6, 22.0),
                Aabb::metres(32.4, 8.0, 33.0, 22.0),
                Aabb::metres(14.0, 24.0, 26.0, 24.6),
                Aabb::metres(14.0, 5.4, 26.0, 6.0),
            ],
            spread_spawns: false,
        }
    }

    /// This arena with every length multiplied by `k` (a game whose
    /// players are `k` times bigger keeps the same room in player sizes).
    pub fn scaled(self, k: f64) -> Arena {
        let s = |v: i64| (v as f64 * k).round() as i64;
        Arena {
            width: s(self.width),
            height: s(self.height),
            walls: self
                .walls
                .iter()
                .map(|w| Aabb { min_x: s(w.min_x), min_y: s(w.min_y), max_x: s(w.max_x), max_y: s(w.max_y) })
                .collect(),
            spread_spawns: self.spread_spawns,
        }
    }

    /// An open field of `width` × `height` µm (large-world scenarios): a
    /// 2 m × 2 m pillar every 50 m for entities to bump into, and spawn
    /// points spread over the whole field.
    pub fn field(width: i64, height: i64) -> Arena {
        let (pitch, half) = (50_000_000, 1_000_000);
        let mut walls = Vec::new();
        let mut y = pitch / 2;
        while y + half < height {
            let mut x = pitch / 2;
            while x + half < width {
                walls.push(Aabb::around(x, y, half));
                x += pitch;
            }
            y += pitch;
        }
        Arena { width, height, walls, spread_spawns: true }
    }

    /// Whether a player box of half-size `h` at `(x, y)` is inside the
    /// bounds and clear of every wall.
    pub fn is_free(&self, x: i64, y: i64, h: i64) -> bool {
        let b = Aabb::around(x, y, h);
        b.min_x >= 0
            && b.min_y >= 0
            && b.max_x <= self.width
            && b.max_y <= self.height
            && !self.walls.iter().any(|w| w.overlaps(&b))
    }

    /// `n` distinct free spawn points on a 3 m grid from (4 m, 4 m), row by
    /// row. Players that do not fit are stacked on the last free point
    /// (the push rule then separates them).
    ///
    /// With `spread_spawns` the grid's step grows to cover the whole arena
    /// (`√(area / n)`, at least 3 m) and starts half a step in.
    pub fn spawns(&self, n: usize, h: i64) -> Vec<(i64, i64)> {
        // 3 m apart, or more for big players (two of them and a gap), so
        // nobody starts overlapping anybody.
        let min_step = (2 * h + 400_000).max(3_000_000);
        if !self.spread_spawns || n == 0 {
            return self.grid_spawns(n, h, (min_step + 1_000_000).max(4_000_000), min_step);
        }
        let per = (self.width as u128 * self.height as u128 / n as u128) as u64;
        let mut step = (crate::math::isqrt(per) as i64).max(min_step);
        loop {
            // Shrink the step until n free points fit (walls take some).
            let out = self.grid_spawns(n, h, step / 2, step);
            if step <= min_step || n == 1 || out[n - 1] != out[n - 2] {
                return out;
            }
            step = (step * 9 / 10).max(min_step);
        }
    }

    /// Up to `n` free points on a `step` grid from `(start, start)`, row by
    /// row; the last one repeats if fewer fit.
    fn grid_spawns(&self, n: usize, h: i64, start: i64, step: i64) -> Vec<(i64, i64)> {
        let mut out = Vec::with_capacity(n);
        let mut y = start;
        while y + h <= self.height && out.len() < n {
            let mut x = start;
            while x + h <= self.width && out.len() < n {
                if self.is_free(x, y, h + 200_000) {
                    out.push((x, y));
                }
                x += step;
            }
            y += step;
        }
        let last = out.last().copied().unwrap_or((self.width / 2, self.height / 2));
        out.resize(n, last);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ray_hits_box_ahead_not_behind() {
        let b = Aabb { min_x: 10, min_y: -5, max_x: 20, max_y: 5 };
        assert_eq!(ray_enter(0, 0, 1, 0, &b).map(|(n, d)| n / d), Some(10));
        assert_eq!(ray_enter(0, 0, -1, 0, &b), None);
        assert_eq!(ray_enter(0, 10, 1, 0, &b), None);
        // Diagonal into the corner region.
        assert!(ray_enter(0, 0, 3, 1, &b).is_some());
        assert!(ray_enter(0, 0, 1, 3, &b).is_none());
        // Origin inside the box: t = 0.
        assert_eq!(ray_enter(15, 0, 1, 0, &b).map(|(n, _)| n), Some(0));
    }

    #[test]
    fn spawns_are_free_and_distinct() {
        for (a, n) in [(Arena::standard(), 16), (Arena::field(400_000_000, 300_000_000), 200)] {
            let s = a.spawns(n, 400_000);
            assert_eq!(s.len(), n);
            for (i, p) in s.iter().enumerate() {
                assert!(a.is_free(p.0, p.1, 400_000), "{p:?}");
                assert!(!s[..i].contains(p));
            }
        }
    }

    #[test]
    fn a_field_spreads_its_spawns_over_the_whole_area() {
        let a = Arena::field(400_000_000, 400_000_000);
        assert_eq!(a.walls.len(), 64);
        let s = a.spawns(100, 400_000);
        let (max_x, max_y) = s.iter().fold((0, 0), |m, p| (m.0.max(p.0), m.1.max(p.1)));
        assert!(max_x > 300_000_000 && max_y > 300_000_000, "{max_x} {max_y}");
    }
}
