//! `rollback-no-resim` (negative control): `rollback` that restores the
//! saved state on a misprediction and carries it to the present frame
//! without re-simulating.
//!
//! Its confirmed frames hold a world that never saw the corrected inputs,
//! so `no-desync` catches it: the checksums it publishes differ from the
//! harness's replay of the agreed inputs.

use crate::frame::rollback::{Peer, Rollback};
use harness::contract::Ctx;

/// The control.
pub const ROLLBACK_NO_RESIM: Rollback = Rollback {
    name: "rollback-no-resim",
    description: "NEGATIVE CONTROL: rollback that restores the saved state but skips the re-simulation",
    replay: skip_replay,
};

/// The flaw: the restored state is relabelled frame by frame up to `now`,
/// each frame saved as if it had been simulated.
fn skip_replay(peer: &mut Peer, _ctx: &mut Ctx<'_>, now: u32) {
    while peer.frame() < now {
        peer.state.frame += 1;
        peer.save();
    }
}
