//! World-aware extrapolation of a remote entity from its last known state.
//!
//! `pos + vel × t` runs through walls and off the map; a copy that coasts
//! by the game's own rules ([`harness::game::Game::glide`]) stops at walls
//! and bounds (Wei's remote copy stuck on a tree), comes down from a
//! jump, and stops altogether once it has coasted for `cap` (Source's
//! 0.25 s `cl_extrapolate_amount`; Wei freezes a silent player's
//! shadow after 5 s).
//!
//! The coast moves in whole ticks counted from the known state's instant,
//! and a query between two ticks takes the last one's state the rest of
//! the way; so where the copy is at `t` is a function of `t` alone, not of
//! the instants asked before. (It was not: a cache advanced by whatever
//! span lay between two renders, and the walls the game's x-then-y moves
//! meet depend on those spans — at 30 and 60 Hz a copy running up-right
//! past the central pillar's corner caught on it and stopped, 3.2 m off,
//! while at 144 Hz it went by: `conform --cases 10000`'s
//! `frame-rate-independent` finding.) The whole ticks are cached: a screen
//! asks for later and later instants, so each render costs about one
//! tick's glide, not the whole way from the last update.

use harness::contract::OptionSpec;
use harness::game::Game;

/// `extrapolate-max`, for an algorithm that coasts remote entities on from
/// their last update: how long, ms, before it stops them. Name, default and
/// range are shared; `description` says it in the algorithm's own terms.
pub const fn extrapolate_max(description: &'static str) -> OptionSpec {
    OptionSpec::number("extrapolate-max", "1000", 0.0, 600000.0, description)
}

/// `teleport`, for an algorithm that corrects a coasting entity toward an
/// update: how far off, m, the entity jumps instead. Name, default and
/// range are shared; `description` says it in the algorithm's own terms.
pub const fn teleport(description: &'static str) -> OptionSpec {
    OptionSpec::number("teleport", "2", 0.0, 1000.0, description)
}

/// A state at an instant and where it has coasted to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coast {
    /// Time of the known state, µs (the sender's clock).
    pub origin: i64,
    /// Known position, µm.
    pub pos: [i32; 3],
    /// Known velocity, µm/s.
    pub vel: [i32; 3],
    /// Cached: the position and velocity after coasting whole ticks.
    moved: Ticks<([i32; 3], [i32; 3])>,
    /// The velocity at the last instant asked for.
    qvel: [i32; 3],
    /// Cached apart, for [`Coast::height_at`]: the height and vertical
    /// speed after coasting whole ticks.
    height: Ticks<(i32, i32)>,
}

impl Coast {
    /// An entity known to be at `pos` moving at `vel` at time `origin`.
    pub fn new(origin: i64, pos: [i32; 3], vel: [i32; 3]) -> Coast {
        Coast {
            origin,
            pos,
            vel,
            moved: Ticks { us: 0, state: (pos, vel) },
            qvel: vel,
            height: Ticks { us: 0, state: (pos[2], vel[2]) },
        }
    }

    /// Where it is at time `t`, having coasted at most `cap` µs (with
    /// gravity when `gravity`).
    pub fn at(&mut self, game: &Game, t: i64, cap: i64, gravity: bool) -> [i32; 3] {
        let start = || (self.pos, self.vel);
        let (pos, vel) = self.moved.at(start, self.coasted(game, t, cap), |(p, v), us| game.glide(p, v, us, gravity));
        self.qvel = vel;
        pos
    }

    /// The height [`Coast::at`] gives at time `t` (and the same cache
    /// rule, kept apart): heights do not meet walls, so this does not move
    /// the copy across the map. It leaves [`Coast::velocity`] alone.
    pub fn height_at(&mut self, game: &Game, t: i64, cap: i64, gravity: bool) -> i32 {
        let start = || (self.pos[2], self.vel[2]);
        self.height.at(start, self.coasted(game, t, cap), |(z, vz), us| game.height_after(z, vz, us, gravity)).0
    }

    /// How long the copy has coasted at `t` (at most `cap`), and the whole
    /// ticks of it.
    fn coasted(&self, game: &Game, t: i64, cap: i64) -> (i64, i64) {
        let since = t.saturating_sub(self.origin).clamp(0, cap.max(0));
        let dt = (game.dt_us() as i64).max(1);
        (since, since - since % dt)
    }

    /// `pos + vel × t`, kept above the ground: the straight line, through
    /// walls, off the map and without a cap, that [`Coast::at`] bends to
    /// the world's rules.
    pub fn straight_at(&self, t: i64) -> [i32; 3] {
        let s = t.saturating_sub(self.origin).max(0);
        let at = |k: usize| (self.pos[k] as i64 + self.vel[k] as i64 * s / 1_000_000) as i32;
        [at(0), at(1), at(2).max(0)]
    }

    /// The velocity at the last instant asked for (0 on an axis that hit
    /// something, and once the cap is reached).
    pub fn velocity(&self, t: i64, cap: i64) -> [i32; 3] {
        if t.saturating_sub(self.origin) >= cap {
            [0; 3]
        } else {
            self.qvel
        }
    }
}

/// A coasting state cached after whole ticks: a screen asks for later and
/// later instants, so each answer moves the cache on by about one tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ticks<S> {
    /// Coasted this long from the origin (whole ticks), µs.
    us: i64,
    /// The state then.
    state: S,
}

impl<S: Copy> Ticks<S> {
    /// The state after `since` µs (`whole` of them in whole ticks), from
    /// the origin's state `start()`, `go(state, µs)` moving a state on: the whole
    /// ticks from the cache (from `start` again if it is past them), the
    /// rest from there without keeping it. So the answer is the same
    /// whatever was asked before.
    #[inline]
    fn at(&mut self, start: impl FnOnce() -> S, (since, whole): (i64, i64), go: impl Fn(S, i64) -> S) -> S {
        if whole < self.us {
            *self = Ticks { us: 0, state: start() };
        }
        if whole > self.us {
            self.state = go(self.state, whole - self.us);
            self.us = whole;
        }
        if since == whole {
            self.state
        } else {
            go(self.state, since - whole)
        }
    }
}

/// Straight-line distance, µm.
pub fn distance(a: [i32; 3], b: [i32; 3]) -> i64 {
    harness::math::distance(a, b) as i64
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::game::GameConfig;

    #[test]
    fn coasting_stops_at_walls_and_at_the_cap_and_is_the_same_cached_or_not() {
        let game = Game::new(GameConfig::default());
        // 3 m left of the left bound's reach, running left at 6 m/s.
        let mut c = Coast::new(0, [3_400_000, 4_000_000, 0], [-6_000_000, 0, 0]);
        assert_eq!(c.at(&game, 250_000, 1_000_000, true)[0], 1_900_000);
        assert_eq!(c.at(&game, 900_000, 1_000_000, true)[0], 400_000, "stopped at the bound");
        assert_eq!(c.velocity(900_000, 1_000_000), [0; 3]);
        // Capped at 100 ms: 0.6 m, however long after.
        let mut capped = Coast::new(0, [10_000_000, 3_000_000, 0], [6_000_000, 0, 0]);
        assert_eq!(capped.at(&game, 5_000_000, 100_000, true)[0], 10_600_000);
        // Asked step by step or at once: the same place.
        let mut a = Coast::new(0, [10_000_000, 3_000_000, 500_000], [6_000_000, 2_000_000, 3_000_000]);
        let mut b = a;
        for t in (0..=600_000).step_by(16_666) {
            a.at(&game, t, 1_000_000, true);
        }
        let (pa, pb) = (a.at(&game, 600_000, 1_000_000, true), b.at(&game, 600_000, 1_000_000, true));
        assert_eq!(pa, pb);
        assert_eq!(pa[2], 0, "landed (at 0.42 s)");
    }

    #[test]
    fn a_copy_passing_a_corner_goes_by_it_at_every_render_rate() {
        // The known failure's case: up-right, just past the central
        // pillar's top-left corner (18–22 × 13–17 m; players 0.8 m).
        let game = Game::new(GameConfig::default());
        let start = Coast::new(2_983_214, [17_377_871, 17_207_010, 0], [4_192_109, 4_292_577, 0]);
        let at = |hz: i64| {
            let mut c = start;
            let mut t = 2_983_214;
            while t < 3_400_000 {
                c.at(&game, t, 1_000_000, true);
                t += 1_000_000 / hz;
            }
            c.at(&game, 3_400_000, 1_000_000, true)
        };
        let want = at(144);
        for hz in [30, 60, 75, 240] {
            assert_eq!(at(hz), want, "{hz} Hz");
        }
        assert!(want[0] > 18_500_000, "went by the corner: {want:?}");
    }

    #[test]
    fn a_copy_at_the_top_of_a_jump_falls_on_however_it_was_asked() {
        // At 20 Hz a 3 m/s take-off loses exactly 1 m/s a tick: the speed
        // is 0 at the apex (150 ms), and the copy must not float there.
        let game = Game::new(GameConfig { tick_hz: 20, ..GameConfig::default() });
        let start = Coast::new(0, [20_000_000, 5_000_000, 1_000_000], [0, 0, 3_000_000]);
        let (mut once, mut stepwise) = (start, start);
        stepwise.at(&game, 150_000, 1_000_000, true);
        let (a, b) = (once.at(&game, 300_000, 1_000_000, true), stepwise.at(&game, 300_000, 1_000_000, true));
        assert_eq!(a, b);
        assert!(a[2] < 1_150_000, "fell from the apex: {a:?}");
    }

    proptest::proptest! {
        /// Where the copy is at `t` does not depend on when it was asked before.
        #[test]
        fn the_place_at_t_is_the_same_whatever_was_asked_before(
            asks in proptest::collection::vec(0i64..2_000_000, 0..20),
            t in 0i64..2_000_000,
            x in 1_000_000i32..39_000_000, y in 1_000_000i32..29_000_000,
            vx in -6_000_000i32..6_000_000, vy in -6_000_000i32..6_000_000, vz in 0i32..6_000_000,
            still in proptest::bool::ANY, tick_hz in proptest::sample::select(vec![20u32, 30, 50, 60, 144]),
        ) {
            let game = Game::new(GameConfig { tick_hz, ..GameConfig::default() });
            let (vx, vy, vz) = if still { (0, 0, vz - vz % 1_000_000) } else { (vx, vy, vz) };
            let fresh = Coast::new(0, [x, y, 0], [vx, vy, vz]);
            let mut asked = fresh;
            for a in asks {
                asked.at(&game, a, 1_500_000, true);
            }
            let mut once = fresh;
            proptest::prop_assert_eq!(asked.at(&game, t, 1_500_000, true), once.at(&game, t, 1_500_000, true));
            proptest::prop_assert_eq!(asked.velocity(t, 1_500_000), once.velocity(t, 1_500_000));
        }

        /// `height_at` is `at`'s height, whatever either was asked before,
        /// with and without gravity.
        #[test]
        fn the_height_alone_is_the_height_of_the_place(
            asks in proptest::collection::vec((0i64..2_000_000, proptest::bool::ANY), 0..20),
            t in -100_000i64..2_000_000,
            x in 1_000_000i32..39_000_000, y in 1_000_000i32..29_000_000, z in 0i32..2_000_000,
            vx in -6_000_000i32..6_000_000, vy in -6_000_000i32..6_000_000, vz in -6_000_000i32..6_000_000,
            gravity in proptest::bool::ANY,
            cap in 0i64..1_500_000, tick_hz in proptest::sample::select(vec![20u32, 30, 60, 144]),
        ) {
            let game = Game::new(GameConfig { tick_hz, ..GameConfig::default() });
            let fresh = Coast::new(0, [x, y, z], [vx, vy, vz]);
            let mut asked = fresh;
            for (a, height_only) in asks {
                if height_only {
                    asked.height_at(&game, a, cap, gravity);
                } else {
                    asked.at(&game, a, cap, gravity);
                }
            }
            let mut once = fresh;
            proptest::prop_assert_eq!(asked.height_at(&game, t, cap, gravity), once.at(&game, t, cap, gravity)[2]);
        }
    }
}
