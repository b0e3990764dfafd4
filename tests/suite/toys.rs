//! Toy algorithms with known answers, used to test the harness's metrics.
//!
//! `Oracle` is a peer-to-peer "algorithm" that cheats: its peers share the
//! sampled inputs through memory instead of the network, so every peer runs
//! frame k one tick after it was sampled. Its true latency, divergence and
//! bandwidth are known exactly, and it can be told to misbehave (perturb
//! its state, fabricate an input, teleport an entity on screen) so the
//! tests can check that the harness catches each.

use harness::contract::{Algorithm, Ctx, Node, NodeId, RenderCtx, Setup, Topology, View};
use harness::game::{SeqInput, State};
use std::sync::{Arc, Mutex};

/// How the oracle misbehaves.
#[derive(Clone, Copy, Debug, Default)]
pub struct Faults {
    /// Peer that adds 1 µm to player 0's x after stepping this frame.
    pub perturb: Option<(usize, u32)>,
    /// Frame whose published input of player 0 is replaced by a fake.
    pub fake_input_at: Option<u32>,
    /// Every this many renders, peer 0 shows entity 1 five metres off.
    pub teleport_every: Option<u64>,
    /// Bytes each peer sends to the next one every tick.
    pub chatter: Option<usize>,
    /// From render `.0` on, for `.1` renders, peer 0 shows entity 1 sliding
    /// `.2` µm along x, and keeps it there.
    pub slide: Option<(u64, u64, i32)>,
    /// Renders on which peer 0 shows entity 1 five metres off (for one
    /// render each).
    pub teleports: &'static [u64],
    /// Every this many renders, peer 0 shows entity 1 three metres left of
    /// the arena.
    pub off_map_every: Option<u64>,
    /// Peer 0 reports its game stalled on these ticks `(first, count)`.
    pub stalls: &'static [(u64, u64)],
    /// Frame on which every peer runs player 0's previous input again
    /// instead of the new one (one repeated, one dropped).
    pub repeat_at: Option<u32>,
    /// From this render on, peer 0's screen keeps showing that render's
    /// state (a frozen screen).
    pub frozen_from: Option<u64>,
    /// Every screen shows the state this many ticks old — naming the
    /// newest state's inputs when `.1` (a screen that claims more than it
    /// draws), the shown state's own when not.
    pub lag: Option<(usize, bool)>,
    /// Every screen names the frame of the state it shows (`show_game`),
    /// plus this many frames (0: its true frame).
    pub names_game: Option<u32>,
}

/// The cheating peer-to-peer oracle.
pub struct Oracle {
    shared: Arc<Mutex<Vec<Vec<SeqInput>>>>,
    faults: Faults,
}

impl Oracle {
    pub fn new(faults: Faults) -> Oracle {
        Oracle { shared: Arc::new(Mutex::new(Vec::new())), faults }
    }
}

impl Algorithm for Oracle {
    fn name(&self) -> &'static str {
        "oracle"
    }
    fn description(&self) -> &'static str {
        "test toy: shares inputs through memory"
    }
    fn topology(&self) -> Topology {
        Topology::PeerToPeer
    }
    fn client(&self, setup: &Setup, player: usize) -> Box<dyn Node> {
        Box::new(OraclePeer {
            me: player,
            state: setup.initial.clone(),
            shared: self.shared.clone(),
            faults: self.faults,
            renders: 0,
            frozen: None,
            history: std::collections::VecDeque::new(),
        })
    }
}

struct OraclePeer {
    me: usize,
    state: State,
    shared: Arc<Mutex<Vec<Vec<SeqInput>>>>,
    faults: Faults,
    renders: u64,
    frozen: Option<State>,
    /// The states of the last few ticks, newest last (with `lag`).
    history: std::collections::VecDeque<State>,
}

impl Node for OraclePeer {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let k = ctx.tick() as usize;
        let n = ctx.setup().players;
        let s = ctx.sample_input().expect("peers have players");
        let mut shared = self.shared.lock().unwrap();
        if shared.len() <= k {
            shared.resize(k + 1, vec![SeqInput::default(); n]);
        }
        shared[k][self.me] = s;
        if k >= 1 {
            let mut inputs = shared[k - 1].clone();
            if self.faults.repeat_at == Some(k as u32) && k >= 2 {
                inputs[0] = shared[k - 2][0];
            }
            drop(shared);
            ctx.game().step(&mut self.state, &inputs);
            if self.faults.perturb == Some((self.me, self.state.frame)) {
                self.state.players[0].x += 1;
            }
            let mut published = inputs.clone();
            if self.faults.fake_input_at == Some(self.state.frame) {
                published[0].input.buttons ^= harness::game::Input::JUMP;
            }
            ctx.publish_confirmed(&self.state, &published);
        }
        if let Some((ticks, _)) = self.faults.lag {
            self.history.push_back(self.state.clone());
            if self.history.len() > ticks + 1 {
                self.history.pop_front();
            }
        }
        if self.me == 0 && self.faults.stalls.iter().any(|&(first, n)| (first..first + n).contains(&(k as u64))) {
            ctx.report(harness::contract::Report::Stalled);
        }
        if let Some(bytes) = self.faults.chatter {
            let next = (self.me + 1) % n;
            ctx.send(ctx.setup().node_of_player(next), vec![0u8; bytes]);
        }
    }

    fn on_packet(&mut self, _ctx: &mut Ctx<'_>, _from: NodeId, _bytes: &[u8]) {}

    fn render(&mut self, _ctx: &RenderCtx<'_>, view: &mut View) {
        if self.me == 0 && self.faults.frozen_from.is_some_and(|r| self.renders >= r) {
            let frozen = self.frozen.get_or_insert_with(|| self.state.clone());
            view.show_state(frozen);
        } else if let (Some((_, names_newest)), Some(old)) = (self.faults.lag, self.history.front()) {
            view.show_state(old);
            if names_newest {
                for (e, p) in view.entities.iter_mut().zip(&self.state.players) {
                    e.seq = p.last_seq;
                }
            }
        } else {
            view.show_state(&self.state);
        }
        if let Some(more) = self.faults.names_game {
            let frame = match (self.faults.lag, self.history.front()) {
                (Some(_), Some(old)) => old.frame,
                _ => self.state.frame,
            };
            for e in &mut view.entities {
                e.frame = frame + more;
            }
        }
        self.renders += 1;
        if self.me != 0 {
            return;
        }
        if let Some(every) = self.faults.teleport_every {
            if self.renders.is_multiple_of(every) {
                view.entities[1].x += 5_000_000;
            }
        }
        if self.faults.teleports.contains(&self.renders) {
            view.entities[1].x += 5_000_000;
        }
        if let Some((start, renders, total)) = self.faults.slide {
            let done = self.renders.saturating_sub(start).min(renders) as i64;
            view.entities[1].x += (total as i64 * done / renders as i64) as i32;
        }
        if let Some(every) = self.faults.off_map_every {
            if self.renders.is_multiple_of(every) {
                view.entities[1].x = -3_000_000;
            }
        }
    }
}
