//! A full-world snapshot: the server's state for one frame and the input it
//! last applied for each player (so clients can predict the others).
//!
//! Wire: `30`, the state's canonical encoding, then one 3-byte input per
//! player (bots, after the players in the state, have none). 6 + 45 bytes
//! per player.

use harness::game::{Input, State};

const TAG: u8 = 30;

/// A decoded snapshot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorldSnapshot {
    /// The authoritative state (its `frame` is the snapshot's frame).
    pub state: State,
    /// The input last applied to each player.
    pub inputs: Vec<Input>,
}

impl WorldSnapshot {
    /// Encodes a snapshot.
    pub fn encode(state: &State, inputs: &[Input]) -> Vec<u8> {
        let mut out = harness::buffers::take(7 + 45 * state.players.len());
        out.push(TAG);
        state.encode(&mut out);
        for i in inputs {
            i.encode(&mut out);
        }
        out
    }

    /// Decodes a snapshot of a game with `players` players (the entities
    /// after them are bots); `None` on anything malformed.
    pub fn decode(bytes: &[u8], players: usize) -> Option<WorldSnapshot> {
        let mut s = WorldSnapshot::default();
        s.decode_into(bytes, players).then_some(s)
    }

    /// [`WorldSnapshot::decode`] into `self`, its buffers reused (a client
    /// receives one every tick); `false` on anything malformed, and then
    /// what `self` holds is unspecified (use a scratch snapshot).
    pub fn decode_into(&mut self, bytes: &[u8], players: usize) -> bool {
        if bytes.first() != Some(&TAG) {
            return false;
        }
        let Some(used) = self.state.decode_into(&bytes[1..]) else { return false };
        let rest = &bytes[1 + used..];
        if rest.len() != 3 * players || players > self.state.players.len() {
            return false;
        }
        self.inputs.clear();
        for b in rest.chunks_exact(3) {
            let Some(input) = Input::decode(b) else { return false };
            self.inputs.push(input);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness::game::{Game, GameConfig};

    #[test]
    fn round_trip_and_truncation() {
        let g = Game::new(GameConfig::default());
        let s = g.initial_state(3);
        let inputs = vec![Input::buttons(Input::UP), Input::IDLE, Input { buttons: Input::SHOOT, aim_x: 3, aim_y: -4 }];
        let b = WorldSnapshot::encode(&s, &inputs);
        assert_eq!(WorldSnapshot::decode(&b, 3), Some(WorldSnapshot { state: s, inputs }));
        for cut in 0..b.len() {
            assert_eq!(WorldSnapshot::decode(&b[..cut], 3), None);
        }
    }
}
