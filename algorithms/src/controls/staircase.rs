//! `staircase` (negative control): `snapshot` whose remote players are
//! redrawn only every third tick (20 Hz at 60 Hz ticks) and held in place
//! between — interpolation by whole snapshots, each shown until the next.
//!
//! It looks the same at every render rate, so `frame-rate-independent`
//! passes it; `smooth-remote` catches it: on a 144 Hz screen its remote
//! players stand still for most renders while they move.

use super::{unchanged, Variant};
use crate::state::snapshot::SNAPSHOT;
use harness::contract::{Ctx, EntityView, Node, NodeId, RenderCtx, View};

/// Ticks between redraws of the remote players.
const EVERY: u64 = 3;

/// The control.
pub const STAIRCASE: Variant = Variant {
    name: "staircase",
    description: "NEGATIVE CONTROL: snapshot with remote players redrawn every third tick and held between",
    base: &SNAPSHOT,
    adjust: unchanged,
    wrap: |inner| Box::new(Client { inner, ticks: 0, redraw: true, held: Vec::new() }),
};

struct Client {
    inner: Box<dyn Node>,
    ticks: u64,
    /// Whether the next render redraws the remote players.
    redraw: bool,
    /// The remote players as last redrawn.
    held: Vec<EntityView>,
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        self.inner.on_tick(ctx);
        self.ticks += 1;
        self.redraw |= self.ticks.is_multiple_of(EVERY);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        self.inner.on_packet(ctx, from, bytes);
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        self.inner.render(ctx, view);
        let me = ctx.player().map(|p| p as u16);
        if self.redraw {
            self.held.clear();
            self.held.extend(view.entities.iter().filter(|e| Some(e.id) != me));
            self.redraw = false;
        } else {
            view.entities.retain(|e| Some(e.id) == me);
            view.entities.extend_from_slice(&self.held);
        }
    }
}
