//! The size of a run's world and what each client may see of it: the
//! arena (the standard 40 m × 30 m room, or an open field for large
//! scenarios), server-driven bots, and the area of interest.
//!
//! These are run settings, like the profile and the trace: the runner
//! builds the game from [`World`], gives every node the [`Aoi`] in its
//! `Setup`, and the recorder measures leaks and awareness latency against
//! the same radius the algorithm filters with.
//!
//! ```
//! use harness::world::{Aoi, AoiMethod, World};
//! let w = World::parse_arena("400x300").unwrap();
//! assert_eq!(w, World::Field { width_m: 400, height_m: 300 });
//! let aoi = Aoi::parse("grid").unwrap();
//! assert_eq!(aoi.method, AoiMethod::Grid);
//! ```

/// The arena a run plays in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum World {
    /// The standard 40 m × 30 m arena with its five walls.
    #[default]
    Standard,
    /// An open field with a pillar every 50 m (`game::Arena::field`).
    Field {
        /// Width, m.
        width_m: u32,
        /// Height, m.
        height_m: u32,
    },
}

impl World {
    /// Largest field side, m (positions are `i32` micrometres).
    pub const MAX_SIDE_M: u32 = 2000;

    /// Parses `standard` or `WxH` (metres, 10..=2000 each).
    pub fn parse_arena(s: &str) -> Result<World, String> {
        if s == "standard" {
            return Ok(World::Standard);
        }
        let bad = || format!("expected `standard` or WIDTHxHEIGHT in metres (e.g. 400x400), got `{s}`");
        let (w, h) = s.split_once('x').ok_or_else(bad)?;
        let (w, h): (u32, u32) = (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?);
        let ok = 10..=Self::MAX_SIDE_M;
        if !ok.contains(&w) || !ok.contains(&h) {
            return Err(format!("field sides must be 10..={} m, got `{s}`", Self::MAX_SIDE_M));
        }
        Ok(World::Field { width_m: w, height_m: h })
    }

    /// `standard` or `WxH`, as parsed.
    pub fn label(self) -> String {
        match self {
            World::Standard => "standard".into(),
            World::Field { width_m, height_m } => format!("{width_m}x{height_m}"),
        }
    }
}

/// How a server decides which entities a client is told about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AoiMethod {
    /// Everyone is told about everything (the measurement baseline: leaks
    /// and awareness are still measured against the radius).
    None,
    /// The nine-grid of antsmallant.
    Grid,
    /// The orthogonal (cross) linked lists of antsmallant.
    CrossList,
}

impl AoiMethod {
    /// The name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            AoiMethod::None => "none",
            AoiMethod::Grid => "grid",
            AoiMethod::CrossList => "crosslist",
        }
    }
}

/// The area of interest of a run: the method, the radius at which an
/// entity enters a client's view and the extra distance before it leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aoi {
    /// Filtering method.
    pub method: AoiMethod,
    /// View radius, µm: an entity closer than this is shown.
    pub radius_um: i64,
    /// Hysteresis, µm: an entity leaves beyond `radius + hysteresis`; a
    /// client shown an entity farther than that was told too much (a leak).
    pub hysteresis_um: i64,
}

impl Aoi {
    /// The default view radius, µm (30 m).
    pub const DEFAULT_RADIUS_UM: i64 = 30_000_000;
    /// The default hysteresis, µm (2 m).
    pub const DEFAULT_HYSTERESIS_UM: i64 = 2_000_000;
    /// Largest radius or hysteresis, µm (1 km).
    pub const MAX_UM: i64 = 1_000_000_000;

    /// Parses a method name with the default radius and hysteresis.
    pub fn parse(s: &str) -> Result<Aoi, String> {
        let method = match s {
            "none" => AoiMethod::None,
            "grid" => AoiMethod::Grid,
            "crosslist" => AoiMethod::CrossList,
            _ => return Err(format!("expected none, grid or crosslist, got `{s}`")),
        };
        Ok(Aoi { method, radius_um: Self::DEFAULT_RADIUS_UM, hysteresis_um: Self::DEFAULT_HYSTERESIS_UM })
    }

    /// Whether the server filters (any method but `none`).
    pub fn filters(&self) -> bool {
        self.method != AoiMethod::None
    }

    /// The distance beyond which an entity must not be shown, µm.
    pub fn leave_radius_um(&self) -> i64 {
        self.radius_um + self.hysteresis_um
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        assert_eq!(World::parse_arena("standard"), Ok(World::Standard));
        assert_eq!(World::parse_arena("50x2000").map(World::label), Ok("50x2000".to_string()));
        for bad in ["", "400", "400x", "x400", "5x400", "400x2001", "-4x400", "4.5x400"] {
            assert!(World::parse_arena(bad).is_err(), "{bad}");
        }
        assert!(Aoi::parse("crosslist").unwrap().filters());
        assert!(!Aoi::parse("none").unwrap().filters());
        assert!(Aoi::parse("quad").is_err());
    }
}
