//! `prediction-no-replay` (negative control): `prediction` that adopts
//! every newer server state and drops the moves the server has not seen
//! instead of replaying them.
//!
//! The own player snaps back a round trip's worth of movement at every
//! snapshot, and the inputs dropped never reach its screen again:
//! `predicted-own-bound` catches it.

use crate::state::prediction::{Client, Prediction};
use crate::support::own_prediction::differs;
use harness::contract::{Ctx, Report};
use harness::game::State;

/// The control.
pub const PREDICTION_NO_REPLAY: Prediction = Prediction {
    name: "prediction-no-replay",
    description: "NEGATIVE CONTROL: prediction that takes the server's state without replaying pending inputs",
    reconcile: adopt_without_replay,
};

/// The flaw: the server's (past) world is adopted and the pending moves
/// are forgotten.
fn adopt_without_replay(client: &mut Client, ctx: &mut Ctx<'_>, server: &State, _mispredicted: bool) {
    let me = client.me;
    if differs(&client.predicted.players[me], &server.players[me], client.threshold_um) {
        ctx.report(Report::Correction);
    }
    client.predicted.clone_from(server);
    client.moves.clear();
}
