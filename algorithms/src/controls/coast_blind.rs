//! `coast-blind` (negative control): `dead-reckoning` whose remote copies
//! coast `pos + vel × t` on screen: through walls, off the map, without
//! end — what [`Coast`](crate::support::coast::Coast) exists to prevent.
//!
//! The wrapper reads the same updates as the client it wraps, on the same
//! arrival clock, and redraws every remote entity on the straight line of
//! its newest update. `on-map` catches it: its screens show players inside
//! walls.

use super::{unchanged, Variant};
use crate::state::dead_reckoning::{read_update, Model, DEAD_RECKONING};
use crate::support::arrival_clock::ArrivalClock;
use harness::contract::{Ctx, Node, NodeId, RenderCtx, View};

/// The control.
pub const COAST_BLIND: Variant = Variant {
    name: "coast-blind",
    description: "NEGATIVE CONTROL: dead reckoning that extrapolates pos + vel × t through walls and off the map",
    base: &DEAD_RECKONING,
    adjust: unchanged,
    wrap: |inner| Box::new(Client { inner, models: Vec::new(), clock: ArrivalClock::default(), read: Vec::new() }),
};

struct Client {
    inner: Box<dyn Node>,
    /// Per entity, the newest update's model.
    models: Vec<Option<Model>>,
    /// Server time from the least-delayed arrival, as the client keeps it.
    clock: ArrivalClock,
    /// The update being read (the buffer kept).
    read: Vec<(usize, Model)>,
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        self.inner.on_tick(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        self.inner.on_packet(ctx, from, bytes);
        let dt = 1_000_000 / ctx.setup().tick_hz.max(1) as i64;
        if let Some(frame) = read_update(bytes, dt, &mut self.read) {
            self.clock.on_frame(frame, dt, ctx.now());
            for &(id, model) in &self.read {
                if self.models.len() <= id {
                    self.models.resize(id + 1, None);
                }
                if self.models[id].is_none_or(|m| m.frame <= frame) {
                    self.models[id] = Some(model);
                }
            }
        }
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        self.inner.render(ctx, view);
        let t = ctx.now() + self.clock.offset().unwrap_or(0);
        let me = ctx.player().map(|p| p as u16);
        for e in view.entities.iter_mut().filter(|e| Some(e.id) != me) {
            if let Some(Some(m)) = self.models.get(e.id as usize) {
                [e.x, e.y, e.z] = m.coast.straight_at(t);
            }
        }
    }
}
