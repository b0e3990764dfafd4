//! `frame-based` (negative control): movement by graphics frame, the wrong
//! way Liang & Chen §1.2 starts from.
//!
//! The server is right (it steps the game at its fixed rate, like
//! `server-verified`), but the client moves its own player itself, by a
//! fixed distance per *rendered frame* — tuned for 60 Hz — from where it
//! started. On a 144 Hz screen the player runs 2.4 times too fast,
//! on 30 Hz at half speed: what a player sees depends on their hardware.

use crate::wire::{Reader, Writer};
use harness::contract::{Algorithm, Ctx, Node, NodeId, RenderCtx, Setup, Topology, View};
use harness::game::{Input, SeqInput, State};

const TAG_INPUT: u8 = 40;
const TAG_STATE: u8 = 41;

/// The control.
pub struct FrameBased;

impl Algorithm for FrameBased {
    fn name(&self) -> &'static str {
        "frame-based"
    }
    fn description(&self) -> &'static str {
        "NEGATIVE CONTROL: the client moves its player a fixed step per rendered frame (Liang & Chen §1.2)"
    }
    fn topology(&self) -> Topology {
        Topology::ClientServer
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        Box::new(Server { state: s.initial.clone(), inputs: vec![SeqInput::default(); s.players] })
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        Box::new(Client { me: player, shown: s.initial.clone(), held: Input::IDLE, offset: (0, 0), seq: 0 })
    }
}

struct Server {
    state: State,
    inputs: Vec<SeqInput>,
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, &self.inputs);
        ctx.publish_authority(&self.state);
        let mut msg = vec![TAG_STATE];
        self.state.encode(&mut msg);
        ctx.send_to_players(msg);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        let mut r = Reader::new(bytes);
        let (Some(TAG_INPUT), Some(seq), Some(input)) = (r.u8(), r.u32(), r.take(3).and_then(Input::decode)) else {
            return;
        };
        if seq > self.inputs[p].seq {
            self.inputs[p] = SeqInput { seq, input };
        }
    }
}

struct Client {
    me: usize,
    shown: State,
    held: Input,
    /// Own movement accumulated per render frame since the start.
    offset: (i64, i64),
    seq: u32,
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let Some(s) = ctx.sample_input() else { return };
        self.held = s.input;
        self.seq = s.seq;
        let mut w = Writer::with_capacity(8);
        w.u8(TAG_INPUT).u32(s.seq);
        s.input.encode(&mut w.0);
        ctx.send(ctx.setup().server(), w.finish());
    }

    fn on_packet(&mut self, _ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        if bytes.first() != Some(&TAG_STATE) {
            return;
        }
        if let Some((s, _)) = State::decode(&bytes[1..]) {
            if s.frame > self.shown.frame && s.players.len() == self.shown.players.len() {
                self.shown = s;
            }
        }
    }

    fn render(&mut self, ctx: &RenderCtx<'_>, view: &mut View) {
        // The flaw: a fixed step per frame drawn, sized for 60 frames/s.
        let step = ctx.game().config().max_speed / 60;
        let (dx, dy) = self.held.direction();
        self.offset.0 += dx * step;
        self.offset.1 += dy * step;
        view.show_state(&self.shown);
        let start = &ctx.setup().initial.players[self.me];
        let own = &mut view.entities[self.me];
        own.x = (start.x as i64 + self.offset.0) as i32;
        own.y = (start.y as i64 + self.offset.1) as i32;
        own.seq = self.seq.max(own.seq);
    }
}
