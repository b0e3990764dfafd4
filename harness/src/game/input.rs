//! A player's input at one instant: held buttons and an aim direction.
//!
//! Three bytes on the wire ([`Input::encode`]): button bits, then the aim as
//! two signed bytes. The aim need not be normalised; `(0, 0)` aims where the
//! player last moved.

use std::fmt;

/// Held buttons and aim.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Input {
    /// Bit set of [`Input::UP`] … [`Input::SHOOT`].
    pub buttons: u8,
    /// Aim direction, x component.
    pub aim_x: i8,
    /// Aim direction, y component.
    pub aim_y: i8,
}

/// An input together with the sequence number the harness gave it when the
/// player's device was sampled. Sequence numbers start at 1 per player and
/// increase by one per sample; 0 means "no input yet".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeqInput {
    /// The sample's sequence number.
    pub seq: u32,
    /// What was held.
    pub input: Input,
}

impl Input {
    /// Move towards +y.
    pub const UP: u8 = 1;
    /// Move towards −y.
    pub const DOWN: u8 = 2;
    /// Move towards −x.
    pub const LEFT: u8 = 4;
    /// Move towards +x.
    pub const RIGHT: u8 = 8;
    /// Jump (on press, when on the ground).
    pub const JUMP: u8 = 16;
    /// Fire the hitscan weapon (when off cooldown).
    pub const SHOOT: u8 = 32;
    /// The eight directions the arrow keys make, counter-clockwise from
    /// east (+x) in 45° steps: diagonals at odd indices.
    pub const DIRECTIONS: [u8; 8] = [
        Self::RIGHT,
        Self::RIGHT | Self::UP,
        Self::UP,
        Self::UP | Self::LEFT,
        Self::LEFT,
        Self::LEFT | Self::DOWN,
        Self::DOWN,
        Self::DOWN | Self::RIGHT,
    ];
    /// Every defined button bit.
    pub const ALL: u8 = 63;
    /// Bytes in [`Input::encode`].
    pub const WIRE_BYTES: usize = 3;

    /// No buttons, no aim.
    pub const IDLE: Input = Input { buttons: 0, aim_x: 0, aim_y: 0 };

    /// From button bits, no aim.
    pub const fn buttons(buttons: u8) -> Input {
        Input { buttons, aim_x: 0, aim_y: 0 }
    }

    /// Whether `button` is held.
    pub fn held(self, button: u8) -> bool {
        self.buttons & button != 0
    }

    /// Horizontal and vertical intent in {−1, 0, 1}.
    pub fn direction(self) -> (i64, i64) {
        let x = self.held(Self::RIGHT) as i64 - self.held(Self::LEFT) as i64;
        let y = self.held(Self::UP) as i64 - self.held(Self::DOWN) as i64;
        (x, y)
    }

    /// Appends the 3-byte wire form.
    pub fn encode(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&[self.buttons, self.aim_x as u8, self.aim_y as u8]);
    }

    /// Reads the 3-byte wire form; `None` if too short or with undefined bits.
    pub fn decode(bytes: &[u8]) -> Option<Input> {
        let b = bytes.get(..3)?;
        (b[0] & !Self::ALL == 0).then_some(Input { buttons: b[0], aim_x: b[1] as i8, aim_y: b[2] as i8 })
    }

    /// The key letters used by trace files: `U D L R J S`, `.` for none.
    pub fn keys(self) -> String {
        let mut s = String::new();
        for (bit, c) in [
            (Self::UP, 'U'),
            (Self::DOWN, 'D'),
            (Self::LEFT, 'L'),
            (Self::RIGHT, 'R'),
            (Self::JUMP, 'J'),
            (Self::SHOOT, 'S'),
        ] {
            if self.held(bit) {
                s.push(c);
            }
        }
        if s.is_empty() {
            s.push('.');
        }
        s
    }
}

impl fmt::Display for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.keys())?;
        if self.aim_x != 0 || self.aim_y != 0 {
            write!(f, "@{},{}", self.aim_x, self.aim_y)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_round_trip_and_rejects_garbage() {
        let i = Input { buttons: Input::UP | Input::SHOOT, aim_x: -5, aim_y: 127 };
        let mut v = Vec::new();
        i.encode(&mut v);
        assert_eq!(v.len(), Input::WIRE_BYTES);
        assert_eq!(Input::decode(&v), Some(i));
        assert_eq!(Input::decode(&v[..2]), None);
        assert_eq!(Input::decode(&[0xff, 0, 0]), None);
    }

    #[test]
    fn direction_cancels_opposites() {
        assert_eq!(Input::buttons(Input::LEFT | Input::RIGHT | Input::UP).direction(), (0, 1));
        assert_eq!(Input::buttons(Input::DOWN | Input::LEFT).direction(), (-1, -1));
        assert_eq!(Input::IDLE.to_string(), ".");
        assert_eq!(Input { buttons: Input::RIGHT | Input::JUMP, aim_x: 1, aim_y: -1 }.to_string(), "RJ@1,-1");
    }
}
