//! Doom v1.9 demo lumps: real multiplayer games, recorded by the players'
//! own engines, read as traces.
//!
//! A demo holds inputs only. After a 13-byte header (version 109, skill,
//! episode, map, deathmatch, respawn, fast, nomonsters, console player,
//! then four "player in game" bytes) come the tics, 35 a second: per tic
//! four bytes for each player in game — forward move (i8), side move (i8,
//! positive to the right), turn (the high byte of the tic's angle turn, as
//! i8: 1/256 of a circle a unit) and buttons (bit 0 fire; with bit 7 set
//! the byte is a pause or save, not a press). Byte 0x80 where a tic would
//! start ends the demo; bytes after it are ignored, as Doom ignores them.
//!
//! **The conversion rule** ([`Conversion`]):
//!
//! 1. The facing starts at Doom's angle 0 (east, +x) and each tic adds its
//!    turn before the tic's move, as the engine does. A death, respawn or
//!    teleport turns the player in the game but not here, so the facing is
//!    the player's own turning, integrated.
//! 2. The tic's move in the world frame is `forward · (cos a, sin a) +
//!    side · (sin a, −cos a)` for facing `a`. Shorter than the threshold
//!    (default [`MOVE_THRESHOLD`], half of Doom's walking strafe of 24) it
//!    is no move: small mouse or analogue-stick drift is not a key. Else
//!    its angle, rounded to the nearest multiple of 45°, picks one of the
//!    reference game's eight directions (`R`, `RU`, `U`, `UL`, `L`, `LD`,
//!    `D`, `DR`), the combinations of its arrow keys.
//! 3. Fire (bit 0, bit 7 clear) holds `S`; use and weapon changes are
//!    dropped (the reference game has neither); nothing maps to jump.
//! 4. The aim is the facing, `(round(127 cos a), round(127 sin a))`.
//! 5. Tic `k` holds from `k / 35` s, rounded to the microsecond: the
//!    trace changes at the recording's own instants, not at the
//!    simulation's ticks. A change is written only where the input
//!    differs from the tic before. The track repeats after the last tic,
//!    so runs longer than the game replay it.
//!
//! Present players are numbered in slot order from 0 (slots 1 and 3 in
//! game become players 0 and 1).

use super::script::{Body, Players, Script};
use super::Track;
use crate::error::{InputError, Source};
use crate::game::Input;

/// Tics per second.
pub const TIC_HZ: u64 = 35;
/// The version byte of Doom v1.9 demos.
pub const VERSION: u8 = 109;
/// The end-of-demo marker.
pub const END: u8 = 0x80;
/// Bytes before the first tic.
pub const HEADER_BYTES: usize = 13;
/// Default world-frame move length under which a tic holds no direction:
/// half of Doom's walking strafe (24; running strafe is 40, walking and
/// running forward 25 and 50).
pub const MOVE_THRESHOLD: f64 = 12.0;

/// One player's command for one tic, as recorded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ticcmd {
    /// Forward (+) or backward move.
    pub forward: i8,
    /// Strafe right (+) or left.
    pub side: i8,
    /// Turn, 1/256 of a circle per unit, counter-clockwise positive.
    pub turn: i8,
    /// Buttons: bit 0 fire, bit 1 use, bits 2–5 weapon change, bit 7 special.
    pub buttons: u8,
}

/// A parsed demo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Demo {
    /// Skill 0–4.
    pub skill: u8,
    /// Episode (1 in Doom II and FreeDM).
    pub episode: u8,
    /// Map number.
    pub map: u8,
    /// 0 cooperative or single player, 1 deathmatch, 2 altdeath.
    pub deathmatch: u8,
    /// The slot of the player whose view was recorded.
    pub console_player: u8,
    /// The slots (0–3) in game, in order.
    pub slots: Vec<u8>,
    /// Per present player, one command per tic.
    pub tics: Vec<Vec<Ticcmd>>,
    /// Bytes after the end marker (ignored).
    pub trailing: usize,
}

/// How a demo's commands become held inputs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Conversion {
    /// World-frame move length under which a tic holds no direction.
    pub move_threshold: f64,
}

impl Default for Conversion {
    fn default() -> Conversion {
        Conversion { move_threshold: MOVE_THRESHOLD }
    }
}

/// Reads a demo lump and converts it with the default rule.
pub fn load(path: &std::path::Path) -> Result<Script, InputError> {
    let source = Source::File(path.display().to_string());
    let bytes = crate::limits::read_bytes(path, crate::limits::MAX_INPUT_FILE, "demo lump")?;
    let demo = Demo::parse(&bytes, &source)?;
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("demo");
    Ok(demo.to_script(stem, &source, Conversion::default()))
}

/// Whether `bytes` begin as a v1.9 demo lump does: the version byte, and
/// "player in game" bytes of 0 or 1 (how a lump is told from text, whatever
/// its file is called).
pub fn looks_like(bytes: &[u8]) -> bool {
    bytes.len() > HEADER_BYTES && bytes[0] == VERSION && bytes[9..13].iter().all(|&b| b <= 1)
}

impl Demo {
    /// Parses the bytes of a v1.9 demo lump.
    pub fn parse(bytes: &[u8], source: &Source) -> Result<Demo, InputError> {
        let err = |m: String| InputError::at(source, None, m);
        let Some(header) = bytes.get(..HEADER_BYTES) else {
            return Err(err(format!("{} bytes: a Doom v1.9 demo has a 13-byte header and then tics", bytes.len())));
        };
        if header[0] != VERSION {
            let hint =
                if header[0] <= 4 { " (an older demo without a version byte, from Doom 1.2 or before)" } else { "" };
            return Err(err(format!("version byte {}: expected {VERSION}, Doom v1.9's demo format{hint}", header[0])));
        }
        // The header's settings, as Doom v1.9 takes them (G_InitNew): skill
        // 0-4 (sk_baby to sk_nightmare), episode 1-4, map 1-32 (Doom II's
        // MAP01-MAP32; E1M1-E4M9 in Doom), deathmatch 0-2 (altdeath is 2),
        // respawn, fast and nomonsters 0 or 1, console player 0-3.
        for (at, name, lo, hi) in [
            (1, "skill", 0, 4),
            (2, "episode", 1, 4),
            (3, "map", 1, 32),
            (4, "deathmatch", 0, 2),
            (5, "respawn", 0, 1),
            (6, "fast", 0, 1),
            (7, "nomonsters", 0, 1),
            (8, "console player", 0, 3),
        ] {
            let b = header[at];
            if !(lo..=hi).contains(&b) {
                return Err(err(format!("byte {at}: {name} is {b}, expected {lo} to {hi} (a Doom v1.9 demo header)")));
            }
        }
        for (i, &b) in header[9..13].iter().enumerate() {
            if b > 1 {
                return Err(err(format!("byte {}: player {} in game is {b}, expected 0 or 1", 9 + i, i + 1)));
            }
        }
        let slots: Vec<u8> = (0..4).filter(|&i| header[9 + i as usize] == 1).collect();
        if slots.is_empty() {
            return Err(err("no player in game: bytes 9–12 are all 0, expected at least one 1".into()));
        }
        let console_player = header[8];
        if !slots.contains(&console_player) {
            return Err(err(format!(
                "byte 8: the console player is slot {console_player}, which is not in game (slots {:?} are)",
                slots
            )));
        }
        let n = slots.len();
        let mut tics: Vec<Vec<Ticcmd>> = vec![Vec::new(); n];
        let mut at = HEADER_BYTES;
        loop {
            match bytes.get(at) {
                None => {
                    return Err(err(format!(
                        "no end marker: the data stops after {} tics (byte {at}), expected 0x80 there",
                        tics[0].len()
                    )))
                }
                Some(&END) => break,
                Some(_) => {}
            }
            let tic = tics[0].len();
            for (p, cmds) in tics.iter_mut().enumerate() {
                let start = at + 4 * p;
                if p > 0 && bytes.get(start) == Some(&END) {
                    return Err(err(format!(
                        "tic {tic}: the end marker at byte {start} falls inside the tic (before player {p} of {n}): expected {n} players' commands, 4 bytes each"
                    )));
                }
                let Some(b) = bytes.get(start..start + 4) else {
                    return Err(err(format!(
                        "truncated tic {tic}: the file ends at byte {} inside it, expected {} bytes ({n} players × 4)",
                        bytes.len(),
                        4 * n
                    )));
                };
                cmds.push(Ticcmd { forward: b[0] as i8, side: b[1] as i8, turn: b[2] as i8, buttons: b[3] });
            }
            at += 4 * n;
        }
        if tics[0].is_empty() {
            return Err(err("no tics: the end marker follows the header".into()));
        }
        Ok(Demo {
            skill: header[1],
            episode: header[2],
            map: header[3],
            deathmatch: header[4],
            console_player,
            slots,
            tics,
            trailing: bytes.len() - at - 1,
        })
    }

    /// Tics recorded.
    pub fn tic_count(&self) -> usize {
        self.tics[0].len()
    }

    /// What game this is, in words: "4-player altdeath, map 21".
    pub fn summary(&self) -> String {
        let mode = match self.deathmatch {
            0 if self.slots.len() == 1 => "single-player",
            0 => "cooperative",
            1 => "deathmatch",
            _ => "altdeath",
        };
        let place =
            if self.episode > 1 { format!("E{}M{}", self.episode, self.map) } else { format!("map {:02}", self.map) };
        format!(
            "{}-player {mode}, {place}, skill {}, {} tics ({:.1} s)",
            self.slots.len(),
            u16::from(self.skill) + 1,
            self.tic_count(),
            self.tic_count() as f64 / TIC_HZ as f64
        )
    }

    /// The instant tic `k` starts, µs.
    pub fn tic_us(k: usize) -> u64 {
        (k as u64 * 1_000_000 + TIC_HZ / 2) / TIC_HZ
    }

    /// Player `p`'s held inputs.
    pub fn track(&self, p: usize, conv: Conversion) -> Track {
        let mut segments: Vec<(u64, Input)> = Vec::new();
        let mut facing: u32 = 0;
        for (k, cmd) in self.tics[p].iter().enumerate() {
            // The turn byte is the high byte of a 16-bit turn that Doom
            // shifts into the top of its 32-bit angle.
            facing = facing.wrapping_add(((cmd.turn as i32) << 24) as u32);
            let input = convert(*cmd, facing, conv);
            if segments.last().is_none_or(|&(_, last)| last != input) {
                segments.push((Demo::tic_us(k), input));
            }
        }
        Track { segments, repeat_us: Some(Demo::tic_us(self.tic_count())) }
    }

    /// The demo as a recorded trace: one section per present player.
    pub fn to_script(&self, name: &str, source: &Source, conv: Conversion) -> Script {
        Script {
            name: name.to_string(),
            description: format!("recorded play: {name}, a {}", self.summary()),
            sections: (0..self.slots.len()).map(|p| (Players::One(p), Body::Segments(self.track(p, conv)))).collect(),
            exact: None,
            recorded: true,
            source: source.clone(),
        }
    }
}

/// One tic's command at `facing` (Doom's binary angle) as a held input.
fn convert(cmd: Ticcmd, facing: u32, conv: Conversion) -> Input {
    let a = facing as f64 * (std::f64::consts::TAU / 4_294_967_296.0);
    let (sin, cos) = (libm::sin(a), libm::cos(a));
    let (f, s) = (cmd.forward as f64, cmd.side as f64);
    let (vx, vy) = (f * cos + s * sin, f * sin - s * cos);
    let mut buttons = 0;
    let length = libm::hypot(vx, vy);
    if length > 0.0 && length >= conv.move_threshold {
        let sector = ((libm::atan2(vy, vx) / std::f64::consts::FRAC_PI_4).round() as i64).rem_euclid(8);
        buttons = Input::DIRECTIONS[sector as usize];
    }
    if cmd.buttons & 0x80 == 0 && cmd.buttons & 1 != 0 {
        buttons |= Input::SHOOT;
    }
    Input { buttons, aim_x: (127.0 * cos).round() as i8, aim_y: (127.0 * sin).round() as i8 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src() -> Source {
        Source::Inline("test".into())
    }

    /// A v1.9 lump of `players` players (slots 0..players) with these tics.
    pub(crate) fn lump(players: usize, tics: &[Vec<[u8; 4]>]) -> Vec<u8> {
        let mut b = vec![VERSION, 3, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        for s in 0..players {
            b[9 + s] = 1;
        }
        for t in tics {
            for c in t {
                b.extend_from_slice(c);
            }
        }
        b.push(END);
        b
    }

    #[test]
    fn moves_turn_with_the_facing() {
        // Tic 0: forward while facing east. Tic 1: turn 64 units (90°
        // counter-clockwise) and go forward: north. Tic 2: strafe right
        // while facing north: east. Tic 3: forward + strafe right, run
        // speeds, facing north: up-right. Tic 4: mouse drift only.
        let cmds = [[50, 0, 0, 0], [50, 0, 64, 0], [0, 40, 0, 1], [50, 40, 0, 0], [3, 0, 0, 0]];
        let d = Demo::parse(&lump(1, &cmds.iter().map(|c| vec![*c]).collect::<Vec<_>>()), &src()).unwrap();
        let t = d.track(0, Conversion::default());
        let east = Input { buttons: Input::RIGHT, aim_x: 127, aim_y: 0 };
        let up = Input { buttons: Input::UP, aim_x: 0, aim_y: 127 };
        assert_eq!(
            t.segments,
            vec![
                (0, east),
                (28_571, up),
                (57_143, Input { buttons: Input::RIGHT | Input::SHOOT, ..up }),
                (85_714, Input { buttons: Input::RIGHT | Input::UP, ..up }),
                (114_286, Input { buttons: 0, ..up }),
            ]
        );
        assert_eq!(t.repeat_us, Some(142_857));
    }

    #[test]
    fn bad_lumps_say_what_was_expected() {
        let ok = lump(2, &[vec![[0; 4], [0; 4]]]);
        let e = |b: &[u8]| Demo::parse(b, &src()).unwrap_err().to_string();
        assert!(e(&ok[..5]).contains("13-byte header"));
        let mut v = ok.clone();
        v[0] = 2;
        assert!(e(&v).contains("expected 109") && e(&v).contains("older demo"));
        assert!(e(&ok[..ok.len() - 1]).contains("no end marker"));
        assert!(e(&ok[..ok.len() - 3]).contains("truncated tic 0"));
        let mut v = ok.clone();
        v[11] = 1; // a third player in game, but two players' bytes
        assert!(e(&v).contains("inside the tic") || e(&v).contains("truncated"), "{}", e(&v));
        let mut v = ok.clone();
        v[8] = 3;
        assert!(e(&v).contains("console player"));
        let mut v = ok.clone();
        v[10] = 7;
        assert!(e(&v).contains("expected 0 or 1"));
        // Header settings out of Doom's range, each named by its byte.
        for (at, value, says) in [
            (1, 255, "byte 1: skill is 255, expected 0 to 4"),
            (2, 0, "byte 2: episode is 0, expected 1 to 4"),
            (3, 33, "byte 3: map is 33, expected 1 to 32"),
            (4, 3, "byte 4: deathmatch is 3, expected 0 to 2"),
            (7, 2, "byte 7: nomonsters is 2, expected 0 to 1"),
        ] {
            let mut v = ok.clone();
            v[at] = value;
            assert!(e(&v).contains(says), "{}", e(&v));
        }
        assert!(looks_like(&ok) && !looks_like(b"m 0ms R\n\n\n\n\n\n\n\n\n\n"));
        assert!(e(&lump(1, &[])).contains("no tics"));
        let mut v = ok;
        v.extend_from_slice(b"footer");
        assert_eq!(Demo::parse(&v, &src()).unwrap().trailing, 6);
    }

    #[test]
    fn a_zero_threshold_still_leaves_standing_still_a_stop() {
        let d = Demo::parse(&lump(1, &[vec![[0, 0, 0, 0]], vec![[1, 0, 0, 0]]]), &src()).unwrap();
        let t = d.track(0, Conversion { move_threshold: 0.0 });
        assert_eq!(t.segments[0].1.direction(), (0, 0));
        assert_eq!(t.segments[1].1.direction(), (1, 0), "any move counts at 0");
        let mut b = lump(1, &[vec![[0; 4]]]);
        b[1] = 4;
        assert!(Demo::parse(&b, &src()).unwrap().summary().contains("skill 5"));
    }

    #[test]
    fn pause_and_save_bytes_are_not_fire() {
        let d = Demo::parse(&lump(1, &[vec![[0, 0, 0, 0x81]]]), &src()).unwrap();
        assert!(!d.track(0, Conversion::default()).segments[0].1.held(Input::SHOOT));
    }
}
