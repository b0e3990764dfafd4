//! The reference game's numbers as a run setting (`--game NAME|FILE`):
//! how fast players run, how big they are, how they accelerate, jump and
//! shoot, how large the room is and how often the game steps — so results
//! read at the scale of the user's own game.
//!
//! A game file is TOML in SI units; every key is optional and defaults to
//! the reference game (`arena`: 6 m/s, 0.8 m players, a 40 m × 30 m room,
//! 60 Hz). Presets ship in `games/` and are built into the binary.
//!
//! ```
//! use harness::game::GameSettings;
//! let g = GameSettings::parse("name = \"fast\"\nmax_speed = 12.0\nplayer_size = 1.6\n", "fast.toml").unwrap();
//! assert_eq!(g.max_speed, 12.0);
//! let cfg = g.config(harness::world::World::Standard, 60, 0, 1);
//! assert_eq!(cfg.max_speed, 12_000_000);
//! assert_eq!(cfg.half_size, 800_000);
//! assert_eq!(GameSettings::default().config(harness::world::World::Standard, 60, 0, 0), harness::game::GameConfig::default());
//! ```

use super::{Arena, GameConfig};
use crate::error::{InputError, Source};
use crate::world::World;
use serde::{Deserialize, Serialize};

/// The presets, by name: the text of `games/NAME.toml`.
pub const PRESETS: &[(&str, &str)] = &[
    ("arena", include_str!("../../games/arena.toml")),
    ("brawler", include_str!("../../games/brawler.toml")),
    ("shooter", include_str!("../../games/shooter.toml")),
    ("mmo", include_str!("../../games/mmo.toml")),
];

/// The reference game's tunable numbers, in SI units as a user writes them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GameSettings {
    /// A name for titles and reports.
    pub name: String,
    /// What the settings stand for (free text; not part of the behaviour).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Steps per second, when `--tick-rate` does not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tick_hz: Option<u32>,
    /// Top horizontal speed, m/s.
    pub max_speed: f64,
    /// Acceleration while a direction is held, m/s².
    pub acceleration: f64,
    /// Deceleration on an axis with no direction held, m/s² (inertia: low
    /// values slide, high values stop at once).
    pub friction: f64,
    /// Gravity on a jump, m/s².
    pub gravity: f64,
    /// Take-off speed of a jump, m/s.
    pub jump_speed: f64,
    /// The side of a player's square, m: the unit of "divergence in player
    /// sizes".
    pub player_size: f64,
    /// Time between shots, ms.
    pub shot_cooldown_ms: f64,
    /// Hitscan range, m.
    pub shot_range: f64,
    /// The room: `standard` (40 m × 30 m, five walls) or an open field
    /// `WxH` in metres; `--arena` overrides it.
    pub arena: String,
    /// The standard room scaled by this factor (walls and all), so a game
    /// whose players are twice as big keeps the same room in player sizes.
    pub arena_scale: f64,
}

impl Default for GameSettings {
    fn default() -> Self {
        GameSettings {
            name: "arena".into(),
            description: String::new(),
            tick_hz: None,
            max_speed: 6.0,
            acceleration: 30.0,
            friction: 20.0,
            gravity: 20.0,
            jump_speed: 6.0,
            player_size: 0.8,
            shot_cooldown_ms: 250.0,
            shot_range: 30.0,
            arena: "standard".into(),
            arena_scale: 1.0,
        }
    }
}

/// `(key, lowest, highest, unit)` of every number a game file may set.
/// The bounds keep the game's integer arithmetic exact: a speed plus one
/// step of acceleration, squared and summed over two axes, stays inside
/// i64 µm²/s² at any tick rate (500 m/s + 1000 m/s² · 1 s → 4.5·10¹⁸), and
/// positions and heights inside i32 µm (±2147 m).
const RANGES: &[(&str, f64, f64, &str)] = &[
    ("max_speed", 0.01, 500.0, "m/s"),
    ("acceleration", 0.0, 1000.0, "m/s²"),
    ("friction", 0.0, 1000.0, "m/s²"),
    ("gravity", 0.0, 1000.0, "m/s²"),
    ("jump_speed", 0.0, 500.0, "m/s"),
    ("player_size", 0.01, 100.0, "m"),
    ("shot_cooldown_ms", 1.0, 60_000.0, "ms"),
    ("shot_range", 0.0, 100_000.0, "m"),
    ("arena_scale", 0.25, 50.0, "×"),
];

/// The highest a jump may reach, m (heights are i32 µm).
const MAX_JUMP_HEIGHT_M: f64 = 1000.0;

impl GameSettings {
    /// A preset by name, a path to a game file, or an error naming both.
    pub fn resolve(arg: &str) -> Result<GameSettings, InputError> {
        if let Some((_, text)) = PRESETS.iter().find(|(n, _)| *n == arg) {
            return Self::parse_source(text, &Source::BuiltIn(format!("games/{arg}.toml")));
        }
        let path = std::path::Path::new(arg);
        if path.exists() || arg.ends_with(".toml") {
            let source = Source::File(path.display().to_string());
            let text = crate::limits::read_text(path, crate::limits::MAX_INPUT_FILE, "game file")?;
            let mut g = Self::parse_source(&text, &source)?;
            // A file that names itself keeps its name; else the file's stem.
            let named = text.parse::<toml::Table>().is_ok_and(|t| t.contains_key("name"));
            if !named || g.name.is_empty() {
                g.name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("game").to_string();
            }
            return Ok(g);
        }
        let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
        Err(InputError::at(
            &Source::Inline(arg.to_string()),
            None,
            format!("unknown game `{arg}`: expected a preset ({}) or a path to a .toml file", names.join(", ")),
        ))
    }

    /// Parses a game file's text (`file` names it in errors).
    pub fn parse(text: &str, file: &str) -> Result<GameSettings, InputError> {
        Self::parse_source(text, &Source::File(file.to_string()))
    }

    fn parse_source(text: &str, source: &Source) -> Result<GameSettings, InputError> {
        let g: GameSettings = toml::from_str(text).map_err(|e: toml::de::Error| {
            let line = e.span().map(|s| crate::error::line_at(text, s.start));
            InputError::at(source, line, format!("game file: {}", e.message()))
        })?;
        let key_line = |key: &str| crate::error::line_of_key(text, key, 0);
        for &(key, lo, hi, unit) in RANGES {
            let v = g.number(key);
            if !(v.is_finite() && (lo..=hi).contains(&v)) {
                return Err(InputError::at(
                    source,
                    key_line(key),
                    format!("`{key}` = {}: expected a number of {unit} in {lo}..={hi}", crate::error::number(v)),
                ));
            }
        }
        if let Some(hz) = g.tick_hz {
            if !(1..=1000).contains(&hz) {
                return Err(InputError::at(
                    source,
                    key_line("tick_hz"),
                    format!("`tick_hz` = {hz}: expected 1..=1000"),
                ));
            }
        }
        let world = World::parse_arena(&g.arena).map_err(|e| InputError::at(source, key_line("arena"), e))?;
        if g.arena_scale != 1.0 && world != World::Standard {
            return Err(InputError::at(
                source,
                key_line("arena_scale"),
                "`arena_scale` scales the standard room; a field is sized by `arena = \"WxH\"` itself",
            ));
        }
        if g.jump_speed > 0.0 && g.gravity == 0.0 {
            return Err(InputError::at(
                source,
                key_line("gravity"),
                "`gravity` = 0 with a jump: a jumping player would never land (set gravity, or jump_speed = 0)",
            ));
        }
        if g.jump_speed > 0.0 && g.jump_speed * g.jump_speed / (2.0 * g.gravity) > MAX_JUMP_HEIGHT_M {
            // Name which of the two the file set: the other is the default.
            let from = |key: &str| match key_line(key) {
                Some(l) => format!("`{key}`, line {l}"),
                None => format!("the default `{key}`"),
            };
            return Err(InputError::at(
                source,
                key_line("gravity").or(key_line("jump_speed")),
                format!(
                    "a jump of {} m/s ({}) under {} m/s² ({}) rises {:.0} m: at most {MAX_JUMP_HEIGHT_M} m (raise `gravity` or lower `jump_speed`)",
                    g.jump_speed,
                    from("jump_speed"),
                    g.gravity,
                    from("gravity"),
                    g.jump_speed * g.jump_speed / (2.0 * g.gravity)
                ),
            ));
        }
        g.check_room(world).map_err(|m| InputError::at(source, key_line("player_size"), m))?;
        Ok(g)
    }

    /// Whether these settings can play in `world` (which `--arena` may have
    /// chosen instead of the file's own room): the players must fit it.
    /// The runner checks this before every run.
    pub fn check_room(&self, world: World) -> Result<(), String> {
        let smallest_side_m = match world {
            World::Standard => 30.0 * self.arena_scale,
            World::Field { width_m, height_m } => width_m.min(height_m) as f64,
        };
        if self.player_size * 8.0 > smallest_side_m {
            return Err(format!(
                "game `{}`: players of {} m do not fit a room {smallest_side_m} m across (at most an eighth of it)",
                self.name, self.player_size
            ));
        }
        Ok(())
    }

    fn number(&self, key: &str) -> f64 {
        match key {
            "max_speed" => self.max_speed,
            "acceleration" => self.acceleration,
            "friction" => self.friction,
            "gravity" => self.gravity,
            "jump_speed" => self.jump_speed,
            "player_size" => self.player_size,
            "shot_cooldown_ms" => self.shot_cooldown_ms,
            "shot_range" => self.shot_range,
            "arena_scale" => self.arena_scale,
            _ => f64::NAN,
        }
    }

    /// Whether `other` plays the same game: every number, the room and the
    /// tick rate equal (the name and description are labels: rewording a
    /// file changes no result).
    pub fn same_game(&self, other: &GameSettings) -> bool {
        let strip = |g: &GameSettings| GameSettings { name: String::new(), description: String::new(), ..g.clone() };
        strip(self) == strip(other)
    }

    /// The room these settings name (`--arena` may override it).
    pub fn world(&self) -> World {
        World::parse_arena(&self.arena).unwrap_or_default()
    }

    /// Whether these are the reference game's own numbers (a report then
    /// needs no mention of them in titles).
    pub fn is_reference(&self) -> bool {
        let d = GameSettings::default();
        RANGES.iter().all(|(k, ..)| self.number(k) == d.number(k)) && self.arena == d.arena
    }

    /// The game's integer configuration for `world` at `tick_hz`, with
    /// `bots` bots seeded by `seed`.
    pub fn config(&self, world: World, tick_hz: u32, bots: usize, seed: u64) -> GameConfig {
        let um = |m: f64| (m * 1e6).round() as i64;
        let arena = match world {
            World::Standard if self.arena_scale != 1.0 => Arena::standard().scaled(self.arena_scale),
            w => w.arena(),
        };
        GameConfig {
            tick_hz,
            max_speed: um(self.max_speed),
            accel: um(self.acceleration),
            friction: um(self.friction),
            gravity: um(self.gravity),
            jump_speed: um(self.jump_speed),
            half_size: um(self.player_size / 2.0),
            shot_cooldown_us: (self.shot_cooldown_ms * 1e3).round() as u64,
            shot_range: um(self.shot_range),
            arena,
            bots,
            bot_seed: seed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_the_reference_game_and_the_arena_preset() {
        let d = GameSettings::default();
        assert_eq!(d.config(World::Standard, 60, 0, 0), GameConfig::default());
        let preset = GameSettings::resolve("arena").unwrap();
        assert!(preset.is_reference());
        assert_eq!(preset.config(World::Standard, 60, 0, 0), GameConfig::default());
    }

    #[test]
    fn every_preset_parses_and_differs() {
        for (name, _) in PRESETS {
            let g = GameSettings::resolve(name).unwrap();
            assert_eq!(&g.name, name);
            assert_eq!(g.is_reference(), *name == "arena", "{name}");
        }
    }

    #[test]
    fn bad_files_name_the_line_and_what_was_expected() {
        let e = GameSettings::parse("name = \"x\"\nmax_speed = -3\n", "g.toml").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().contains("g.toml:2") && e.message.contains("0.01..=500"), "{e}");
        let e = GameSettings::parse("speed = 3\n", "g.toml").unwrap_err();
        assert!(e.message.contains("unknown field `speed`"), "{e}");
        assert_eq!(e.line, Some(1));
        // A key at the start of a later line is on that line, not the one before.
        let e = GameSettings::parse("name = \"x\"\nspeed = 3\n", "g.toml").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        let e = GameSettings::parse("jump_speed = 6.0\ngravity = 0\n", "g.toml").unwrap_err();
        assert!(e.message.contains("never land") && e.line == Some(2), "{e}");
        let e = GameSettings::parse("jump_speed = 100\ngravity = 1\n", "g.toml").unwrap_err();
        assert!(e.message.contains("rises 5000 m"), "{e}");
        let e = GameSettings::parse("# tiny gravity\ngravity = 0.001\n", "g.toml").unwrap_err();
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("(the default `jump_speed`) under 0.001 m/s² (`gravity`, line 2)"), "{e}");
        // Played in a room --arena chose, the players must still fit.
        let big = GameSettings::parse("player_size = 20\narena = \"1000x1000\"\n", "g.toml").unwrap();
        assert!(big.check_room(World::Field { width_m: 10, height_m: 10 }).unwrap_err().contains("do not fit"));
        let e = GameSettings::parse("player_size = 5.0\n", "g.toml").unwrap_err();
        assert!(e.message.contains("do not fit a room"), "{e}");
        let e = GameSettings::parse("arena = \"400x\"\n", "g.toml").unwrap_err();
        assert!(e.message.contains("WIDTHxHEIGHT"), "{e}");
        let e = GameSettings::parse("max_speed = \"fast\"\n", "g.toml").unwrap_err();
        assert!(e.message.contains("invalid type"), "{e}");
        assert!(GameSettings::resolve("racing").unwrap_err().message.contains("brawler"));
    }

    #[test]
    fn a_scaled_room_scales_its_walls() {
        let g = GameSettings { arena_scale: 2.0, ..GameSettings::default() };
        let a = g.config(World::Standard, 60, 0, 0).arena;
        let s = Arena::standard();
        assert_eq!(a.width, 2 * s.width);
        assert_eq!(a.walls[0].max_x, 2 * s.walls[0].max_x);
    }
}
