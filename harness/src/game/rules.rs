//! The reference game's rules: `step(state, inputs)`, in integer arithmetic.
//!
//! Each step, in this order: every player (by id) accelerates towards its
//! held direction (friction on idle axes, half control in the air), is
//! clamped to the max speed, jumps on a press edge, falls under gravity and
//! moves, x then y, stopping at walls and bounds. Then overlapping players
//! push each other apart along the axis of least penetration, sharing
//! their velocity along it (so one player's input moves another). Last,
//! every player holding SHOOT off cooldown fires a hitscan ray, blocked by
//! walls, at the final positions of the step.
//!
//! ```
//! use harness::game::{Game, GameConfig, Input, SeqInput};
//! let game = Game::new(GameConfig::default());
//! let mut s = game.initial_state(2);
//! let x0 = s.players[0].x;
//! let right = SeqInput { seq: 1, input: Input::buttons(Input::RIGHT) };
//! game.step(&mut s, &[right, SeqInput::default()]);
//! assert!(s.players[0].x > x0);
//! assert_eq!(s.players[0].last_seq, 1);
//! assert_eq!(game.steps_executed(), 1);
//! ```

use super::arena::{ray_enter, t_less, Aabb, Arena};
use super::bot_track::{BotTrack, Plan};
use super::input::{Input, SeqInput};
use super::state::{Item, PlayerState, State};
use super::wall_bands::WallBands;
use super::wall_cells::WallCells;
use crate::time::period_us;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Tunable constants of the game (SI units in the names, integers inside).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameConfig {
    /// Steps per second; `dt = 10⁶ / tick_hz` µs.
    pub tick_hz: u32,
    /// Max horizontal speed, µm/s.
    pub max_speed: i64,
    /// Horizontal acceleration when a direction is held, µm/s².
    pub accel: i64,
    /// Deceleration on an axis with no direction held, µm/s².
    pub friction: i64,
    /// Gravity, µm/s².
    pub gravity: i64,
    /// Take-off vertical speed, µm/s.
    pub jump_speed: i64,
    /// Half the side of a player's square, µm.
    pub half_size: i64,
    /// Time between shots, µs.
    pub shot_cooldown_us: u64,
    /// Hitscan range, µm.
    pub shot_range: i64,
    /// The world.
    pub arena: Arena,
    /// Server-driven entities after the players (ids `players..`): they
    /// move by the same rules on inputs the game derives from `bot_seed`,
    /// frame and id, pass through each other and through players (crowds
    /// in large worlds usually do), and neither shoot, are shot nor pick
    /// up items. 0 in every small scenario.
    pub bots: usize,
    /// Seed of the bots' spawn points and wandering (the session seed).
    pub bot_seed: u64,
}

impl Default for GameConfig {
    fn default() -> Self {
        GameConfig {
            tick_hz: 60,
            max_speed: 6_000_000,
            accel: 30_000_000,
            friction: 20_000_000,
            gravity: 20_000_000,
            jump_speed: 6_000_000,
            half_size: 400_000,
            shot_cooldown_us: 250_000,
            shot_range: 30_000_000,
            arena: Arena::standard(),
            bots: 0,
            bot_seed: 0,
        }
    }
}

/// The game: its configuration, derived per-step constants, and a counter
/// of the steps executed (the harness reports it as simulation cost).
#[derive(Debug)]
pub struct Game {
    config: GameConfig,
    dt_us: i64,
    accel_dt: i64,
    friction_dt: i64,
    gravity_dt: i64,
    cooldown_steps: u16,
    /// The walls a box moving along x (`[0]`) or y (`[1]`) can meet.
    bands: [WallBands; 2],
    /// Where a box can meet no wall (a move ending there tests none).
    cells: WallCells,
    /// Steps through this value: atomic, so screens drawn on several
    /// cores can step copies of the game (a sum, whatever the order).
    steps: AtomicU64,
    /// Per entity id, what of its bot input depends on the id alone
    /// ([`BotPlan`]), made on the first step with bots: a large world's
    /// bots would otherwise draw it again every step.
    bot_plans: OnceLock<Vec<BotPlan>>,
    /// The bots' last frames, shared with this game's copies: a bot's step
    /// is taken from it when another world stepped the same bots already.
    bot_track: Arc<BotTrack>,
}

/// What of bot `id`'s input depends on the id alone: how long it keeps a
/// direction, its phase, and the generator's state after drawing them.
#[derive(Clone, Copy, Debug)]
struct BotPlan {
    g: u64,
    span: u32,
    phase: u32,
}

/// A copy shares the bots' track and counts on from the original's steps
/// (see [`Game::counting_apart`] for one that counts its own).
impl Clone for Game {
    fn clone(&self) -> Self {
        let g = self.counting_apart();
        g.steps.store(self.steps_executed(), Ordering::Relaxed);
        g
    }
}

/// Work units (see [`crate::parallel::parts`]) of one bot's move: from
/// 1,024 bots on, they are split over the cores.
const BOT_MOVE_WORK: usize = 4;
/// Diagonal scale ≈ 1/√2 as 181/256.
const DIAG_NUM: i64 = 181;
const DIAG_DEN: i64 = 256;

impl Game {
    /// A game with `config`.
    pub fn new(config: GameConfig) -> Game {
        let dt_us = period_us(config.tick_hz) as i64;
        let per_step = |a: i64| a * dt_us / 1_000_000;
        Game {
            accel_dt: per_step(config.accel),
            friction_dt: per_step(config.friction),
            gravity_dt: per_step(config.gravity),
            cooldown_steps: config.shot_cooldown_us.div_ceil(dt_us as u64).min(u16::MAX as u64) as u16,
            dt_us,
            bands: [
                WallBands::new(&config.arena, config.half_size, false),
                WallBands::new(&config.arena, config.half_size, true),
            ],
            cells: WallCells::new(&config.arena, config.half_size),
            config,
            steps: AtomicU64::new(0),
            bot_plans: OnceLock::new(),
            bot_track: Arc::default(),
        }
    }

    /// The same game with a step count of its own, from 0 — the harness's
    /// copy, whose steps are not the algorithm's — sharing the bots' track
    /// (a world it steps takes the bots' states another world's step of
    /// the same bots made).
    pub fn counting_apart(&self) -> Game {
        Game { bot_track: Arc::clone(&self.bot_track), ..Game::new(self.config.clone()) }
    }

    /// Steps whose bots were not moved but taken from another world's step
    /// of the same bots (through this game or a copy; see [`Game::step`]).
    pub fn bot_steps_shared(&self) -> u64 {
        self.bot_track.replayed()
    }

    /// The configuration.
    pub fn config(&self) -> &GameConfig {
        &self.config
    }

    /// Step length, µm of time (`10⁶ / tick_hz`).
    pub fn dt_us(&self) -> u64 {
        self.dt_us as u64
    }

    /// Steps executed so far through this value (re-simulation included).
    pub fn steps_executed(&self) -> u64 {
        self.steps.load(Ordering::Relaxed)
    }

    /// The farthest a player can legitimately travel horizontally in
    /// `interval_us`: its max speed plus an equal allowance for being pushed.
    /// Displayed motion beyond this is a snap.
    pub fn max_travel(&self, interval_us: u64) -> i64 {
        2 * self.config.max_speed * interval_us as i64 / 1_000_000
    }

    /// The state at frame 0 for `players` players, standing on spawn points,
    /// with the game's random generator seeded with 0.
    pub fn initial_state(&self, players: usize) -> State {
        self.initial_state_seeded(players, 0)
    }

    /// The state at frame 0 with the game's random generator seeded with
    /// `seed` (a session decides it once and every peer must use it).
    /// `players` players stand on spawn points; the configured bots follow
    /// them (entity ids `players..players + bots`) at free spots drawn from
    /// `bot_seed`.
    pub fn initial_state_seeded(&self, players: usize, seed: u64) -> State {
        let mut spawns = self.config.arena.spawns(players, self.config.half_size);
        let arena = &self.config.arena;
        let mut g = self.config.bot_seed ^ 0xB075_B075_B075_B075;
        let (w, h) = ((arena.width - 2_000_000).max(1) as u64, (arena.height - 2_000_000).max(1) as u64);
        for _ in 0..self.config.bots {
            let mut at = (arena.width / 2, arena.height / 2);
            for _ in 0..64 {
                let x = 1_000_000 + (splitmix(&mut g) % w) as i64;
                let y = 1_000_000 + (splitmix(&mut g) % h) as i64;
                if arena.is_free(x, y, self.config.half_size) {
                    at = (x, y);
                    break;
                }
            }
            spawns.push(at);
        }
        State {
            rng: seed,
            item: Item { active: false, x: 0, y: 0, next_frame: ITEM_EVERY_FRAMES },
            frame: 0,
            players: spawns
                .into_iter()
                .map(|(x, y)| PlayerState {
                    x: x as i32,
                    y: y as i32,
                    last_target: PlayerState::NO_TARGET,
                    ..Default::default()
                })
                .collect(),
        }
    }

    /// Players (as opposed to bots) in `state`: every entity but the
    /// configured bots.
    pub fn humans(&self, state: &State) -> usize {
        state.players.len().saturating_sub(self.config.bots)
    }

    /// What bot `id` holds on the step that makes frame `frame`: a direction
    /// (or standing still) kept for one to three seconds, then a new one,
    /// all drawn from `bot_seed`, the id and the segment — a pure function,
    /// so every peer and every re-simulation agrees.
    pub fn bot_input(&self, id: usize, frame: u32) -> Input {
        let plan = self.bot_plans.get().and_then(|p| p.get(id)).copied().unwrap_or_else(|| self.bot_plan(id));
        self.planned_bot_input(plan, frame)
    }

    fn bot_plan(&self, id: usize) -> BotPlan {
        let mut g = self.config.bot_seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let span = 60 + (splitmix(&mut g) % 121) as u32;
        let phase = (splitmix(&mut g) % span as u64) as u32;
        BotPlan { g, span, phase }
    }

    fn planned_bot_input(&self, BotPlan { g, span, phase }: BotPlan, frame: u32) -> Input {
        let mut g = g ^ ((frame.wrapping_add(phase) / span) as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
        const DIRS: [u8; 10] = [
            0,
            0,
            Input::UP,
            Input::DOWN,
            Input::LEFT,
            Input::RIGHT,
            Input::UP | Input::LEFT,
            Input::UP | Input::RIGHT,
            Input::DOWN | Input::LEFT,
            Input::DOWN | Input::RIGHT,
        ];
        Input::buttons(DIRS[(splitmix(&mut g) % DIRS.len() as u64) as usize])
    }

    /// Advances `state` by one step with one input per player (missing
    /// entries and `seq == 0` mean "nothing held, no new input"); bots take
    /// [`Game::bot_input`].
    pub fn step(&self, state: &mut State, inputs: &[SeqInput]) {
        self.steps.fetch_add(1, Ordering::Relaxed);
        state.frame = state.frame.wrapping_add(1);
        let humans = self.humans(state);
        let frame = state.frame;
        let plans = if humans < state.players.len() {
            self.bot_plans.get_or_init(|| (0..state.players.len()).map(|i| self.bot_plan(i)).collect()).as_slice()
        } else {
            &[][..]
        };
        let split = humans.min(state.players.len());
        let (players, bots) = state.players.split_at_mut(split);
        for (i, p) in players.iter_mut().enumerate() {
            self.move_player(p, inputs.get(i).copied().unwrap_or_default());
        }
        // Bots move by their own plans and touch nothing else: many are
        // moved on several cores, a range each.
        let move_bots = |first: usize, bots: &mut [PlayerState]| {
            for (k, p) in bots.iter_mut().enumerate() {
                let i = humans + first + k;
                let plan = plans.get(i).copied().unwrap_or_else(|| self.bot_plan(i));
                self.move_player(p, SeqInput { seq: 0, input: self.planned_bot_input(plan, frame) });
            }
        };
        // No bots: nothing to step (and nothing for the track).
        let plan = if bots.is_empty() { Plan::Replayed } else { self.bot_track.replay(frame, humans, bots) };
        if plan != Plan::Replayed {
            let parts = crate::parallel::parts(bots.len() * BOT_MOVE_WORK, bots.len());
            if parts > 1 {
                let per = bots.len().div_ceil(parts);
                let chunks = bots.chunks_mut(per).enumerate();
                crate::parallel::for_each(parts, chunks, |(c, chunk)| move_bots(c * per, chunk));
            } else {
                move_bots(0, bots);
            }
            if let Plan::StepAndExtend(generation) = plan {
                self.bot_track.extend(frame, generation, bots);
            }
        }
        self.push_apart(&mut state.players[..humans]);
        self.update_item(state, humans);
        for i in 0..humans {
            let input = inputs.get(i).map(|s| s.input).unwrap_or_default();
            if input.held(Input::SHOOT) && state.players[i].cooldown == 0 {
                let target = self.hitscan(&state.players[..humans], i, input);
                let p = &mut state.players[i];
                p.shots += 1;
                p.cooldown = self.cooldown_steps;
                p.last_target = target.map_or(PlayerState::NO_TARGET, |t| t as u8);
                if target.is_some() {
                    p.hits += 1;
                }
            }
        }
    }

    /// Spawns the pick-up at a random free spot when it is due; gives it to
    /// the first player (by id) standing on it.
    fn update_item(&self, state: &mut State, humans: usize) {
        let reach = self.config.half_size + 300_000;
        if state.item.active {
            let (ix, iy) = (state.item.x as i64, state.item.y as i64);
            if let Some(p) = state.players[..humans]
                .iter_mut()
                .find(|p| (p.x as i64 - ix).abs() <= reach && (p.y as i64 - iy).abs() <= reach)
            {
                p.items = p.items.saturating_add(1);
                state.item.active = false;
                state.item.next_frame = state.frame.wrapping_add(ITEM_EVERY_FRAMES);
            }
        } else if state.frame >= state.item.next_frame {
            let arena = &self.config.arena;
            for _ in 0..16 {
                let x = 1_000_000 + (splitmix(&mut state.rng) % (arena.width - 2_000_000) as u64) as i64;
                let y = 1_000_000 + (splitmix(&mut state.rng) % (arena.height - 2_000_000) as u64) as i64;
                if arena.is_free(x, y, 300_000) {
                    state.item = Item { active: true, x: x as i32, y: y as i32, next_frame: 0 };
                    break;
                }
            }
        }
    }

    #[inline(always)]
    fn move_player(&self, p: &mut PlayerState, si: SeqInput) {
        let input = si.input;
        if si.seq != 0 {
            p.last_seq = si.seq;
        }
        p.cooldown = p.cooldown.saturating_sub(1);
        let (dx, dy) = input.direction();
        let grounded = p.grounded();
        let mut accel = if grounded { self.accel_dt } else { self.accel_dt / 2 };
        if dx != 0 && dy != 0 {
            accel = accel * DIAG_NUM / DIAG_DEN;
        }
        let mut vx = p.vx as i64;
        let mut vy = p.vy as i64;
        vx = if dx != 0 { vx + dx * accel } else { toward_zero(vx, self.friction_dt) };
        vy = if dy != 0 { vy + dy * accel } else { toward_zero(vy, self.friction_dt) };
        let max = self.config.max_speed;
        let sp2 = (vx * vx + vy * vy) as u64;
        if sp2 > (max * max) as u64 {
            let sp = crate::math::isqrt(sp2) as i64;
            vx = vx * max / sp;
            vy = vy * max / sp;
        }
        if dx != 0 || dy != 0 {
            p.facing_x = dx as i8;
            p.facing_y = dy as i8;
        }
        // Jump on the press edge, while standing.
        let pressed = input.buttons & !p.prev_buttons;
        let mut vz = p.vz as i64;
        let mut z = p.z as i64;
        if pressed & Input::JUMP != 0 && grounded {
            vz = self.config.jump_speed;
        }
        if z > 0 || vz != 0 {
            vz -= self.gravity_dt;
            z += vz * self.dt_us / 1_000_000;
            if z <= 0 {
                z = 0;
                vz = 0;
            }
        }
        p.z = z as i32;
        p.vz = vz as i32;
        p.prev_buttons = input.buttons;
        p.vx = vx as i32;
        p.vy = vy as i32;
        self.move_axis(p, true, vx * self.dt_us / 1_000_000);
        self.move_axis(p, false, vy * self.dt_us / 1_000_000);
    }

    /// Moves `p` by `delta` along one axis, stopping at bounds and walls
    /// (and zeroing its velocity on that axis if it hits). Returns the
    /// distance actually moved.
    #[inline(always)]
    fn move_axis(&self, p: &mut PlayerState, x_axis: bool, delta: i64) -> i64 {
        if delta == 0 {
            return 0;
        }
        let h = self.config.half_size;
        let arena = &self.config.arena;
        let (pos, other, limit) =
            if x_axis { (p.x as i64, p.y as i64, arena.width) } else { (p.y as i64, p.x as i64, arena.height) };
        let mut new = (pos + delta).clamp(h, limit - h);
        // A box that ends where no wall can meet it meets none: the pass
        // below would leave `new` as it is.
        let (x, y) = if x_axis { (new, other) } else { (other, new) };
        if !self.cells.clear(x, y) {
            // Only walls that meet the box across the axis can stop it; in
            // the arena's order, so the result is a pass over every wall's.
            for &i in self.bands[usize::from(!x_axis)].candidates(other) {
                let w = &arena.walls[i as usize];
                let b = if x_axis { Aabb::around(new, other, h) } else { Aabb::around(other, new, h) };
                if b.overlaps(w) {
                    let (lo, hi) = if x_axis { (w.min_x, w.max_x) } else { (w.min_y, w.max_y) };
                    new = if delta > 0 { lo - h } else { hi + h };
                }
            }
        }
        let blocked = new != pos + delta;
        if x_axis {
            p.x = new as i32;
            if blocked {
                p.vx = 0;
            }
        } else {
            p.y = new as i32;
            if blocked {
                p.vy = 0;
            }
        }
        new - pos
    }

    /// Where an entity last known at `pos` moving at `vel` is `us` µs later
    /// if it keeps going with no input: along its horizontal velocity,
    /// stopping on an axis at walls and the arena's bounds (that axis's
    /// speed becomes 0), and — with `gravity` — falling back to the ground.
    /// Sub-stepped by ticks, so it never passes through a wall: how a
    /// remote copy is extrapolated without leaving the map. Returns the
    /// position and velocity then.
    ///
    /// ```
    /// use harness::game::{Game, GameConfig};
    /// let game = Game::new(GameConfig::default());
    /// // 2 m from the left bound at 6 m/s to the left, for a second: stops there.
    /// let (pos, vel) = game.glide([2_400_000, 4_000_000, 0], [-6_000_000, 0, 0], 1_000_000, true);
    /// assert_eq!((pos, vel), ([400_000, 4_000_000, 0], [0, 0, 0]));
    /// ```
    pub fn glide(&self, pos: [i32; 3], vel: [i32; 3], us: i64, gravity: bool) -> ([i32; 3], [i32; 3]) {
        let mut p =
            PlayerState { x: pos[0], y: pos[1], z: pos[2], vx: vel[0], vy: vel[1], vz: vel[2], ..Default::default() };
        let mut left = us.max(0);
        while left > 0 {
            let h = left.min(self.dt_us);
            left -= h;
            let (dx, dy) = (p.vx as i64 * h / 1_000_000, p.vy as i64 * h / 1_000_000);
            self.move_axis(&mut p, true, dx);
            self.move_axis(&mut p, false, dy);
            (p.z, p.vz) = self.fall(p.z, p.vz, h, gravity);
            // At rest only on the ground (or with no gravity): at a jump's
            // apex the speed is 0 for an instant and it falls on.
            if p.vx == 0 && p.vy == 0 && p.vz == 0 && (p.z == 0 || !gravity) {
                break;
            }
        }
        ([p.x, p.y, p.z], [p.vx, p.vy, p.vz])
    }

    /// The height and vertical speed [`Game::glide`] gives after `us` µs:
    /// what happens in height does not depend on walls, so a caller that
    /// needs only the height need not move the entity across the map.
    ///
    /// ```
    /// use harness::game::{Game, GameConfig};
    /// let game = Game::new(GameConfig::default());
    /// let (pos, vel) = ([20_000_000, 5_000_000, 300_000], [4_000_000, -1_000_000, 2_000_000]);
    /// for us in [0, 10_000, 16_666, 250_000, 1_000_000] {
    ///     let (p, v) = game.glide(pos, vel, us, true);
    ///     assert_eq!(game.height_after(pos[2], vel[2], us, true), (p[2], v[2]));
    /// }
    /// ```
    pub fn height_after(&self, z: i32, vz: i32, us: i64, gravity: bool) -> (i32, i32) {
        let (mut z, mut vz) = (z, vz);
        let mut left = us.max(0);
        // The same sub-steps as `glide`; a height at rest stays so (with
        // gravity only on the ground), where `glide` may stop early.
        while left > 0 && !(vz == 0 && (z == 0 || !gravity)) {
            let h = left.min(self.dt_us);
            left -= h;
            (z, vz) = self.fall(z, vz, h, gravity);
        }
        (z, vz)
    }

    /// One sub-step of `h` µs in height: gravity (when `gravity`) pulls
    /// down while off the ground or moving, and the ground stops a fall.
    #[inline(always)]
    fn fall(&self, z: i32, vz: i32, h: i64, gravity: bool) -> (i32, i32) {
        let (mut z, mut vz) = (z as i64, vz as i64);
        if gravity && (z > 0 || vz != 0) {
            vz -= self.config.gravity * h / 1_000_000;
        }
        z += vz * h / 1_000_000;
        if z <= 0 {
            (z, vz) = (0, if gravity { 0 } else { vz.max(0) });
        }
        (z as i32, vz as i32)
    }

    /// Moves an entity drawn at `from` toward `to` in a straight line as
    /// far as walls and bounds allow (x, then y, in steps short enough not
    /// to pass through a wall).
    pub fn slide(&self, from: [i32; 3], to: [i32; 3]) -> [i32; 3] {
        let mut p = PlayerState { x: from[0], y: from[1], ..Default::default() };
        let (dx, dy) = (to[0] as i64 - from[0] as i64, to[1] as i64 - from[1] as i64);
        let steps = ((dx.abs().max(dy.abs()) + 199_999) / 200_000).max(1);
        for k in 0..steps {
            let part = |d: i64| d * (k + 1) / steps - d * k / steps;
            self.move_axis(&mut p, true, part(dx));
            self.move_axis(&mut p, false, part(dy));
        }
        [p.x, p.y, to[2].max(0)]
    }

    /// Separates overlapping players, pair by pair in id order.
    fn push_apart(&self, players: &mut [PlayerState]) {
        let h2 = 2 * self.config.half_size;
        // Crowds: when no two players overlap, no pair below moves anyone
        // (a sweep along x finds that in n log n instead of n² tests).
        if players.len() > 16 && !any_overlap(players, h2) {
            return;
        }
        for i in 0..players.len() {
            for j in i + 1..players.len() {
                let (a, b) = (players[i], players[j]);
                let dx = b.x as i64 - a.x as i64;
                let dy = b.y as i64 - a.y as i64;
                let pen_x = h2 - dx.abs();
                let pen_y = h2 - dy.abs();
                if pen_x <= 0 || pen_y <= 0 {
                    continue;
                }
                let x_axis = pen_x <= pen_y;
                let (pen, d) = if x_axis { (pen_x, dx) } else { (pen_y, dy) };
                // Direction from a to b; ties push b towards +.
                let sign = if d >= 0 { 1 } else { -1 };
                let (mut pa, mut pb) = (a, b);
                let moved_a = self.move_axis(&mut pa, x_axis, -sign * (pen / 2)).abs();
                let moved_b = self.move_axis(&mut pb, x_axis, sign * (pen - moved_a)).abs();
                let rest = pen - moved_a - moved_b;
                if rest > 0 {
                    self.move_axis(&mut pa, x_axis, -sign * rest);
                }
                // Share velocity along the push axis when approaching.
                let (va, vb) = if x_axis { (pa.vx, pb.vx) } else { (pa.vy, pb.vy) };
                if (vb as i64 - va as i64) * sign < 0 {
                    let avg = ((va as i64 + vb as i64) / 2) as i32;
                    if x_axis {
                        pa.vx = avg;
                        pb.vx = avg;
                    } else {
                        pa.vy = avg;
                        pb.vy = avg;
                    }
                }
                players[i] = pa;
                players[j] = pb;
            }
        }
    }

    /// The player hit by `shooter` aiming `input`'s aim (or where it last
    /// moved) from the given positions, if any: the nearest player box the
    /// ray enters within range, unless a wall is nearer.
    pub fn hitscan(&self, players: &[PlayerState], shooter: usize, input: Input) -> Option<usize> {
        let s = &players[shooter];
        let (mut ax, mut ay) = (input.aim_x as i64, input.aim_y as i64);
        if ax == 0 && ay == 0 {
            (ax, ay) = (s.facing_x as i64, s.facing_y as i64);
            if ax == 0 && ay == 0 {
                ax = 1;
            }
        }
        let (ox, oy) = (s.x as i64, s.y as i64);
        let h = self.config.half_size;
        let range2 = (self.config.shot_range as i128).pow(2);
        let d2 = (ax * ax + ay * ay) as i128;
        let mut best: Option<(usize, (i128, i128))> = None;
        for (k, p) in players.iter().enumerate() {
            if k == shooter {
                continue;
            }
            if let Some(t) = ray_enter(ox, oy, ax, ay, &Aabb::around(p.x as i64, p.y as i64, h)) {
                let in_range = t.0 * t.0 * d2 <= range2 * t.1 * t.1;
                if in_range && best.is_none_or(|(_, bt)| t_less(t, bt)) {
                    best = Some((k, t));
                }
            }
        }
        let (k, t) = best?;
        let blocked =
            self.config.arena.walls.iter().any(|w| ray_enter(ox, oy, ax, ay, w).is_some_and(|wt| t_less(wt, t)));
        (!blocked).then_some(k)
    }
}

/// Whether any two of `players` are closer than `h2` on both axes (their
/// boxes overlap): a sweep over the players sorted by x.
fn any_overlap(players: &[PlayerState], h2: i64) -> bool {
    let mut by_x: Vec<(i64, i64)> = players.iter().map(|p| (p.x as i64, p.y as i64)).collect();
    by_x.sort_unstable();
    by_x.iter()
        .enumerate()
        .any(|(i, a)| by_x[i + 1..].iter().take_while(|b| b.0 - a.0 < h2).any(|b| (b.1 - a.1).abs() < h2))
}

/// Frames between a pick-up being taken (or the start) and the next one.
pub const ITEM_EVERY_FRAMES: u32 = 120;

/// splitmix64: the game's random generator (its whole state is one `u64`
/// in [`State::rng`], so it is saved, restored and checksummed with the
/// world).
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn toward_zero(v: i64, by: i64) -> i64 {
    if v > 0 {
        (v - by).max(0)
    } else {
        (v + by).min(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn si(seq: u32, buttons: u8) -> SeqInput {
        SeqInput { seq, input: Input::buttons(buttons) }
    }

    fn run(game: &Game, s: &mut State, steps: u32, inputs: &[SeqInput]) {
        for _ in 0..steps {
            game.step(s, inputs);
        }
    }

    #[test]
    fn accelerates_to_max_speed_and_stops_with_friction() {
        let g = Game::new(GameConfig::default());
        let mut s = g.initial_state(1);
        run(&g, &mut s, 30, &[si(1, Input::UP)]);
        assert_eq!(s.players[0].vy as i64, g.config().max_speed);
        run(&g, &mut s, 30, &[si(2, 0)]);
        assert_eq!(s.players[0].vy, 0);
        assert_eq!(s.players[0].last_seq, 2);
    }

    #[test]
    fn walls_block_movement() {
        let g = Game::new(GameConfig::default());
        let mut s = g.initial_state(1);
        // Run right for 10 s: the player stops at a wall or the bound,
        // never inside one.
        run(&g, &mut s, 600, &[si(1, Input::RIGHT)]);
        let p = s.players[0];
        assert!(g.config().arena.is_free(p.x as i64, p.y as i64, g.config().half_size));
        assert_eq!(p.vx, 0, "stopped by something");
    }

    #[test]
    fn jump_takes_off_and_lands() {
        let g = Game::new(GameConfig::default());
        let mut s = g.initial_state(1);
        g.step(&mut s, &[si(1, Input::JUMP)]);
        assert!(s.players[0].z > 0);
        let mut peak = 0;
        let mut landed_at = None;
        for k in 0..120 {
            g.step(&mut s, &[si(1, Input::JUMP)]); // held: no second jump
            peak = peak.max(s.players[0].z);
            if s.players[0].grounded() {
                landed_at = Some(k);
                break;
            }
        }
        // v²/2g = 0.9 m; air time 2v/g = 0.6 s = 36 steps.
        assert!((800_000..1_000_000).contains(&peak), "{peak}");
        assert!(landed_at.is_some_and(|k| (30..40).contains(&k)), "{landed_at:?}");
    }

    #[test]
    fn a_runner_pushes_a_standing_player() {
        let g = Game::new(GameConfig::default());
        let mut s = g.initial_state(2);
        // Put player 1 just right of player 0 in open space.
        s.players[0].x = 4_000_000;
        s.players[0].y = 27_000_000;
        s.players[1].x = 5_500_000;
        s.players[1].y = 27_000_000;
        let before = s.players[1].x;
        run(&g, &mut s, 60, &[si(1, Input::RIGHT), si(1, 0)]);
        assert!(s.players[1].x > before + 1_000_000, "pushed {}", s.players[1].x - before);
        let gap = (s.players[1].x - s.players[0].x) as i64;
        assert!(gap >= 2 * g.config().half_size - 1, "no overlap left: {gap}");
    }

    #[test]
    fn hitscan_hits_nearest_and_walls_block() {
        let g = Game::new(GameConfig::default());
        let mut s = g.initial_state(3);
        s.players[0].x = 4_000_000;
        s.players[0].y = 27_000_000;
        s.players[1].x = 10_000_000;
        s.players[1].y = 27_000_000;
        s.players[2].x = 12_000_000;
        s.players[2].y = 27_000_000;
        let aim_right = Input { buttons: Input::SHOOT, aim_x: 1, aim_y: 0 };
        assert_eq!(g.hitscan(&s.players, 0, aim_right), Some(1));
        assert_eq!(g.hitscan(&s.players, 2, Input { aim_x: -1, ..aim_right }), Some(1));
        assert_eq!(g.hitscan(&s.players, 0, Input { aim_x: 0, aim_y: 1, ..aim_right }), None);
        // Through the central pillar (18..22 m, 13..17 m): blocked.
        s.players[0].x = 16_000_000;
        s.players[0].y = 15_000_000;
        s.players[1].x = 24_000_000;
        s.players[1].y = 15_000_000;
        s.players[2].y = 2_000_000;
        assert_eq!(g.hitscan(&s.players, 0, aim_right), None);
        // A fired shot is counted and starts the cooldown.
        g.step(&mut s, &[SeqInput { seq: 1, input: aim_right }, si(0, 0), si(0, 0)]);
        assert_eq!(s.players[0].shots, 1);
        assert!(s.players[0].cooldown > 0);
    }

    #[test]
    fn items_spawn_from_the_session_seed_and_are_picked_up() {
        let g = Game::new(GameConfig::default());
        let idle = [SeqInput::default(); 2];
        let mut a = g.initial_state_seeded(2, 1);
        let mut b = g.initial_state_seeded(2, 2);
        run(&g, &mut a, ITEM_EVERY_FRAMES + 1, &idle);
        run(&g, &mut b, ITEM_EVERY_FRAMES + 1, &idle);
        assert!(a.item.active && b.item.active);
        assert_ne!((a.item.x, a.item.y), (b.item.x, b.item.y), "the seed decides where");
        assert!(g.config().arena.is_free(a.item.x as i64, a.item.y as i64, 300_000));
        // Put player 0 on it: taken, and the next is scheduled.
        a.players[0].x = a.item.x;
        a.players[0].y = a.item.y;
        g.step(&mut a, &idle);
        assert_eq!(a.players[0].items, 1);
        assert!(!a.item.active);
        assert_eq!(a.item.next_frame, a.frame + ITEM_EVERY_FRAMES);
    }

    #[test]
    fn bots_wander_by_the_rules_through_each_other_and_never_take_inputs() {
        let arena = super::super::Arena::field(100_000_000, 100_000_000);
        let g = Game::new(GameConfig { bots: 50, bot_seed: 7, arena, ..GameConfig::default() });
        let mut s = g.initial_state_seeded(2, 1);
        assert_eq!((s.players.len(), g.humans(&s)), (52, 2));
        let start: Vec<_> = s.players.iter().map(|p| (p.x, p.y)).collect();
        // Stand a bot on player 0: bots pass through, so nothing pushes it.
        s.players[2].x = s.players[0].x;
        s.players[2].y = s.players[0].y;
        let p0 = s.players[0];
        let mut t = s.clone();
        let inputs = [si(1, 0), si(1, 0), si(9, Input::RIGHT)]; // an entry for a bot is ignored
        run(&g, &mut s, 600, &inputs);
        // Another game: this one's copy would take the bots' steps from the first.
        run(&Game::new(g.config().clone()), &mut t, 600, &inputs);
        assert_eq!(s, t, "deterministic");
        assert_eq!((s.players[0].x, s.players[0].y), (p0.x, p0.y), "not pushed by a bot");
        let moved = s.players[2..].iter().zip(&start[2..]).filter(|(p, a)| (p.x, p.y) != **a).count();
        assert!(moved > 40, "bots wander: {moved} of 50 moved");
        for p in &s.players[2..] {
            assert_eq!(p.last_seq, 0);
            assert!(g.config().arena.is_free(p.x as i64, p.y as i64, g.config().half_size));
        }
        let other = Game::new(GameConfig { bot_seed: 8, ..g.config().clone() });
        assert_ne!(other.initial_state_seeded(2, 1).players[2..], t.players[2..], "the seed decides");
    }

    #[test]
    fn many_bots_move_on_several_cores_exactly_as_on_one() {
        let arena = super::super::Arena::field(400_000_000, 400_000_000);
        let config = GameConfig { bots: 3_000, bot_seed: 3, arena, ..GameConfig::default() };
        let start = Game::new(config.clone()).initial_state_seeded(4, 1);
        let inputs = [si(1, Input::RIGHT), si(1, Input::UP), si(1, 0), si(1, Input::JUMP)];
        let on = |threads: usize| {
            // A game each: one game's second world would take its bots from the first's.
            let g = Game::new(config.clone());
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut s = start.clone();
            pool.install(|| run(&g, &mut s, 120, &inputs));
            assert_eq!(g.bot_steps_shared(), 0);
            s
        };
        let one = on(1);
        assert_ne!(one.players[4..], start.players[4..], "the bots moved");
        assert_eq!(on(3), one);
    }

    #[test]
    fn a_bots_planned_input_is_the_one_drawn_afresh() {
        // The input as drawn before plans were kept: everything from the
        // id and the frame, every time.
        let drawn = |seed: u64, id: usize, frame: u32| {
            let mut g = seed ^ (id as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let span = 60 + (splitmix(&mut g) % 121) as u32;
            let phase = (splitmix(&mut g) % span as u64) as u32;
            let mut g = g ^ ((frame.wrapping_add(phase) / span) as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
            let dirs = [0, 0, Input::UP, Input::DOWN, Input::LEFT, Input::RIGHT];
            let diag = [
                Input::UP | Input::LEFT,
                Input::UP | Input::RIGHT,
                Input::DOWN | Input::LEFT,
                Input::DOWN | Input::RIGHT,
            ];
            let k = (splitmix(&mut g) % 10) as usize;
            Input::buttons(if k < 6 { dirs[k] } else { diag[k - 6] })
        };
        let g = Game::new(GameConfig { bots: 20, bot_seed: 11, ..GameConfig::default() });
        let mut s = g.initial_state_seeded(3, 1);
        for frame in [0u32, 1, 59, 60, 61, 179, 180, 1_000, u32::MAX] {
            for id in [3usize, 10, 22, 23, 500] {
                assert_eq!(g.bot_input(id, frame), drawn(11, id, frame), "before any step: id {id}, frame {frame}");
            }
        }
        g.step(&mut s, &[]); // the plans are made
        for frame in [0u32, 1, 59, 60, 61, 179, 180, 1_000, u32::MAX] {
            for id in [3usize, 10, 22, 23, 500] {
                assert_eq!(g.bot_input(id, frame), drawn(11, id, frame), "planned: id {id}, frame {frame}");
            }
        }
    }

    #[test]
    fn a_second_world_of_the_same_bots_takes_their_steps_from_the_first() {
        let arena = super::super::Arena::field(100_000_000, 100_000_000);
        let g = Game::new(GameConfig { bots: 200, bot_seed: 5, arena, ..GameConfig::default() });
        let copy = g.counting_apart();
        let start = g.initial_state_seeded(2, 1);
        let inputs = [si(1, Input::RIGHT), si(1, Input::JUMP)];
        let (mut first, mut second) = (start.clone(), start.clone());
        run(&g, &mut first, 10, &inputs);
        assert_eq!(g.bot_steps_shared(), 0, "the first world steps its bots");
        // The copy steps the second world after the first has stepped all ten.
        run(&copy, &mut second, 10, &[]);
        assert_eq!(copy.bot_steps_shared(), 10, "every step taken from the track");
        assert_eq!((g.steps_executed(), copy.steps_executed()), (10, 10), "counted apart");
        assert_eq!(second, alone(&g, &start, 10));
        assert_ne!(second.players[2..], start.players[2..], "the bots moved");
    }

    /// A lone game's world after `steps` steps from `start`.
    fn alone(g: &Game, start: &State, steps: u32) -> State {
        let mut s = start.clone();
        run(&Game::new(g.config().clone()), &mut s, steps, &[]);
        s
    }

    #[test]
    fn a_world_far_behind_or_far_ahead_steps_its_own_bots_and_agrees() {
        let arena = super::super::Arena::field(100_000_000, 100_000_000);
        let g = Game::new(GameConfig { bots: 100, bot_seed: 4, arena, ..GameConfig::default() });
        let start = g.initial_state_seeded(3, 2);
        let mut lead = start.clone();
        run(&g, &mut lead, 100, &[]);
        // 10 frames behind: within the frames kept, so taken from the track.
        let mut near = alone(&g, &start, 90);
        let before = g.bot_steps_shared();
        run(&g, &mut near, 10, &[]);
        assert_eq!(g.bot_steps_shared() - before, 10);
        assert_eq!(near, lead);
        // 60 frames behind: forgotten, so stepped (until it reaches the
        // frames kept).
        let mut far = alone(&g, &start, 40);
        let before = g.bot_steps_shared();
        run(&g, &mut far, 30, &[]);
        assert_eq!(g.bot_steps_shared(), before, "forgotten frames are stepped");
        run(&g, &mut far, 30, &[]);
        assert_eq!(far, lead);
        // 100 frames ahead of the track: it begins anew from this world,
        // and a second world following it takes every step.
        let mut ahead = alone(&g, &start, 200);
        run(&g, &mut ahead, 10, &[]);
        let mut follower = alone(&g, &start, 200);
        let before = g.bot_steps_shared();
        run(&g, &mut follower, 10, &[]);
        assert_eq!(g.bot_steps_shared() - before, 10, "the track followed the world ahead");
        assert_eq!((&ahead, &follower), (&alone(&g, &start, 210), &alone(&g, &start, 210)));
    }

    #[test]
    fn the_same_bots_after_other_players_are_other_bots() {
        // A bot's plan is drawn from its id: after 3 players instead of 2,
        // the same states step otherwise.
        let arena = super::super::Arena::field(100_000_000, 100_000_000);
        let g = Game::new(GameConfig { bots: 30, bot_seed: 6, arena, ..GameConfig::default() });
        let two = g.initial_state_seeded(2, 1);
        let mut three = g.initial_state_seeded(3, 1);
        three.players[3..].copy_from_slice(&two.players[2..]);
        let mut first = two.clone();
        run(&g, &mut first, 30, &[]);
        let want = alone(&g, &three, 30);
        let before = g.bot_steps_shared();
        run(&g, &mut three, 30, &[]);
        assert_eq!(g.bot_steps_shared(), before);
        assert_eq!(three, want);
        assert_ne!(three.players[3..], first.players[2..], "the ids make them differ");
    }

    proptest! {
        /// A world whose bots differ in any field from the ones another
        /// world stepped (at any frame) steps its own: the result is a
        /// lone game's.
        #[test]
        fn a_world_with_other_bots_steps_them_itself(
            frame in 0u32..12,
            bot in 0usize..40,
            field in 0usize..15,
            by in prop_oneof![Just(1i32), Just(-1), -300_000i32..300_000],
        ) {
            let arena = super::super::Arena::field(60_000_000, 60_000_000);
            let g = Game::new(GameConfig { bots: 40, bot_seed: 9, arena, ..GameConfig::default() });
            let start = g.initial_state_seeded(2, 1);
            let mut first = start.clone();
            run(&g, &mut first, 16, &[]);
            // Another world: the same up to `frame`, then one field of one bot off.
            let mut other = alone(&g, &start, frame);
            let p = &mut other.players[2 + bot];
            let by = if by == 0 { 1 } else { by };
            let wide = [&mut p.x, &mut p.y, &mut p.z, &mut p.vx, &mut p.vy, &mut p.vz];
            match field {
                0..6 => *wide.into_iter().nth(field).unwrap() += by,
                6 => p.prev_buttons ^= (by as u8).max(1),
                7 => p.facing_x = if p.facing_x == 1 { -1 } else { 1 },
                8 => p.facing_y = if p.facing_y == 1 { -1 } else { 1 },
                9 => p.cooldown = p.cooldown.wrapping_add((by as u16).max(1)),
                10 => p.last_seq = p.last_seq.wrapping_add((by as u32).max(1)),
                11 => p.shots = p.shots.wrapping_add((by as u32).max(1)),
                12 => p.hits = p.hits.wrapping_add((by as u32).max(1)),
                13 => p.last_target ^= (by as u8).max(1),
                _ => p.items = p.items.wrapping_add((by as u16).max(1)),
            }
            let want = alone(&g, &other, 4);
            let shared = g.bot_steps_shared();
            run(&g, &mut other, 1, &[]);
            prop_assert_eq!(g.bot_steps_shared(), shared, "the first step is its own");
            // (Later ones may be the track's: a velocity off by 1 µm/s is
            // soon lost to the speed limit, and the worlds agree again.)
            run(&g, &mut other, 3, &[]);
            prop_assert_eq!(&other, &want);
        }

        /// The sweep finds an overlap exactly when some pair overlaps.
        #[test]
        fn the_sweep_agrees_with_every_pair(pos in proptest::collection::vec((0i32..20_000_000, 0i32..20_000_000), 0..60)) {
            let players: Vec<PlayerState> = pos.iter().map(|&(x, y)| PlayerState { x, y, ..Default::default() }).collect();
            let h2 = 800_000;
            let pairwise = players.iter().enumerate().any(|(i, a)| {
                players[i + 1..].iter().any(|b| ((b.x - a.x) as i64).abs() < h2 && ((b.y - a.y) as i64).abs() < h2)
            });
            prop_assert_eq!(any_overlap(&players, h2), pairwise);
        }

        #[test]
        fn stepping_is_deterministic_and_players_stay_in_free_space(
            seq in proptest::collection::vec(proptest::collection::vec(0u8..64, 4), 1..200)
        ) {
            let g = Game::new(GameConfig::default());
            let mut a = g.initial_state(4);
            let mut b = a.clone();
            for (k, row) in seq.iter().enumerate() {
                let inputs: Vec<SeqInput> = row.iter().map(|&bt| si(k as u32 + 1, bt)).collect();
                g.step(&mut a, &inputs);
                g.step(&mut b, &inputs);
                prop_assert_eq!(a.checksum(), b.checksum());
                for p in &a.players {
                    let arena = &g.config().arena;
                    let h = g.config().half_size;
                    let bx = Aabb::around(p.x as i64, p.y as i64, h);
                    prop_assert!(bx.min_x >= 0 && bx.max_x <= arena.width && bx.min_y >= 0 && bx.max_y <= arena.height);
                    prop_assert!(!arena.walls.iter().any(|w| w.overlaps(&bx)), "inside a wall: {:?}", p);
                }
            }
        }
    }
}
