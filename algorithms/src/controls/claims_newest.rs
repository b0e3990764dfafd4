//! `claims-newest` (negative control): `snapshot`'s picture, drawn
//! `interp` behind the newest snapshot as usual, with every remote entity
//! named by the *newest* snapshot's frame — a netcode that tells the
//! harness its screen is fresher than it is.
//!
//! Latency held to the picture makes the lie worthless (the control's
//! latency is never better than `snapshot`'s), and the `honest-names`
//! contract catches it: its pictures lie frames behind what they name.

use super::{unchanged, Variant};
use crate::state::snapshot::SNAPSHOT;
use crate::support::delta;
use harness::contract::{Ctx, Node, NodeId, RenderCtx, View};

/// The control.
pub const CLAIMS_NEWEST: Variant = Variant {
    name: "claims-newest",
    description: "NEGATIVE CONTROL: snapshot's interpolated picture, named by the newest snapshot's frame",
    base: &SNAPSHOT,
    adjust: unchanged,
    wrap: |inner| Box::new(Client { inner, newest: 0 }),
};

struct Client {
    inner: Box<dyn Node>,
    /// The newest snapshot frame received.
    newest: u32,
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        self.inner.on_tick(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        if let Some((frame, _)) = delta::header(bytes) {
            self.newest = self.newest.max(frame);
        }
        self.inner.on_packet(ctx, from, bytes);
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        self.inner.render(ctx, view);
        let me = ctx.player().map(|p| p as u16);
        for e in view.entities.iter_mut().filter(|e| Some(e.id) != me && e.frame > 0) {
            e.frame = e.frame.max(self.newest);
        }
    }
}
