//! What naia carries for the reference game: each entity's [`Body`] (its
//! id, position and velocity, replicated property by property) and each
//! client's [`Command`]s on a tick-buffered channel, as naia's own
//! macroquad demo carries its `Position` and `KeyCommand`.

use harness::game::{Input, PlayerState, SeqInput};
use naia_shared::{Channel, ChannelDirection, ChannelMode, Message, Property, Protocol, Replicate, TickBufferSettings};
use std::time::Duration;

/// One entity of the world as naia replicates it. The id is the harness's
/// entity id (players first, then bots), sent once when the entity enters
/// a client's scope; the other fields are sent when they change.
#[derive(Replicate)]
pub struct Body {
    /// Entity id.
    pub id: Property<u16>,
    /// Position, µm.
    pub x: Property<i32>,
    /// Position, µm.
    pub y: Property<i32>,
    /// Height, µm.
    pub z: Property<i32>,
    /// Velocity, µm/s.
    pub vx: Property<i32>,
    /// Velocity, µm/s.
    pub vy: Property<i32>,
    /// Vertical velocity, µm/s.
    pub vz: Property<i32>,
}

impl Body {
    /// Entity `id` as `p` has it.
    pub fn of(id: u16, p: &PlayerState) -> Body {
        Body::new_complete(id, p.x, p.y, p.z, p.vx, p.vy, p.vz)
    }

    /// Copies `p`'s position and velocity in, touching (and so sending)
    /// only the properties that changed.
    pub fn set(&mut self, p: &PlayerState) {
        for (prop, v) in [
            (&mut self.x, p.x),
            (&mut self.y, p.y),
            (&mut self.z, p.z),
            (&mut self.vx, p.vx),
            (&mut self.vy, p.vy),
            (&mut self.vz, p.vz),
        ] {
            if **prop != v {
                **prop = v;
            }
        }
    }

    /// Writes the position and velocity into `p`.
    pub fn apply(&self, p: &mut PlayerState) {
        (p.x, p.y, p.z, p.vx, p.vy, p.vz) = (*self.x, *self.y, *self.z, *self.vx, *self.vy, *self.vz);
    }

    /// The position, µm.
    pub fn pos(&self) -> [i32; 3] {
        [*self.x, *self.y, *self.z]
    }
}

/// A client's input for one of its ticks, with the harness's sequence
/// number (the server stamps it into the state, so the harness can time
/// the input's way to every screen).
#[derive(Message, Copy)]
pub struct Command {
    /// Input sequence number.
    pub seq: u32,
    /// Buttons held.
    pub buttons: u8,
    /// Aim x.
    pub aim_x: i8,
    /// Aim y.
    pub aim_y: i8,
}

impl Command {
    /// The command for `s`.
    pub fn of(s: SeqInput) -> Command {
        Command { seq: s.seq, buttons: s.input.buttons, aim_x: s.input.aim_x, aim_y: s.input.aim_y }
    }

    /// The input it carries.
    pub fn input(&self) -> SeqInput {
        SeqInput { seq: self.seq, input: Input { buttons: self.buttons, aim_x: self.aim_x, aim_y: self.aim_y } }
    }
}

/// The tick-buffered channel commands travel on: the server reads a
/// command on the server tick it was sent for.
#[derive(Channel)]
pub struct Commands;

/// The protocol, with naia ticking every `tick` (see [`super::tick_interval`]).
pub fn protocol(tick: Duration) -> Protocol {
    Protocol::builder()
        .tick_interval(tick)
        .add_component::<Body>()
        .add_message::<Command>()
        .add_channel::<Commands>(
            ChannelDirection::ClientToServer,
            ChannelMode::TickBuffered(TickBufferSettings::default()),
        )
        .build()
}
