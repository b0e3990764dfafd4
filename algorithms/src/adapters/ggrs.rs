//! `ggrs`: the real [`ggrs`] crate (0.13, a Rust GGPO) running the reference
//! game, peer to peer, over the simulated network.
//!
//! Each peer is a ggrs `P2PSession` whose `NonBlockingSocket` is a pair of
//! queues: what ggrs sends (bincode-encoded `Message`s, as ggrs's own UDP
//! socket encodes them) goes out through the harness's link on the next
//! tick or packet, what arrives is handed to ggrs when it polls. Every tick
//! the peer polls, adds its input, advances, and serves ggrs's requests —
//! save, load (a rollback), advance — with the reference game; frames up to
//! ggrs's confirmed frame are published for the harness's desync check.
//!
//! ggrs reads the wall clock (`instant::Instant`) for its handshake retries,
//! keep-alives, disconnect timers and the RTT behind its time sync, and
//! draws its handshake nonces from unseeded randomness. Under pure virtual
//! time hundreds of simulated seconds pass in one wall second, so those
//! timers barely move: run it *paced* (`--paced`: virtual time follows the
//! wall clock) to see ggrs as its authors intend, and unpaced to see what
//! breaks (the suite's tests and the guide's ggrs chapter record it).

use harness::contract::{Algorithm, Ctx, Node, NodeId, OptionSpec, RenderCtx, Report, Setup, Topology, View};
use harness::game::{Input, SeqInput, State};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

const DELAY: OptionSpec = OptionSpec::count("delay", "2", 0, 30, "input delay, frames");
const WINDOW: OptionSpec = OptionSpec::count("window", "8", 1, 64, "max prediction window, frames");

/// The adapter.
pub struct Ggrs;

/// ggrs's compile-time configuration for the reference game.
pub struct GameConfig;

impl ggrs::Config for GameConfig {
    type Input = u32;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = State;
    type Address = usize;
}

fn pack(i: Input) -> u32 {
    i.buttons as u32 | (i.aim_x as u8 as u32) << 8 | (i.aim_y as u8 as u32) << 16
}

fn unpack(v: u32) -> Input {
    Input::decode(&[v as u8, (v >> 8) as u8, (v >> 16) as u8]).unwrap_or_default()
}

/// Shared between the node and its socket (only the node's own thread
/// touches either; the lock makes the node `Send`, as nodes must be).
type Queue = Arc<Mutex<Vec<(usize, Vec<u8>)>>>;

fn lock(q: &Queue) -> std::sync::MutexGuard<'_, Vec<(usize, Vec<u8>)>> {
    q.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The checksum ggrs compares between peers: the world without the
/// last-input sequence numbers, which are the harness's bookkeeping (they
/// depend on whether an input was still predicted when a frame ran; no
/// game rule reads them).
fn game_checksum(s: &State) -> u128 {
    let mut g = s.clone();
    for p in g.players.iter_mut() {
        p.last_seq = 0;
    }
    g.checksum() as u128
}

/// The socket ggrs sees: two queues the node drains and fills.
struct SimSocket {
    outbox: Queue,
    inbox: Queue,
}

impl ggrs::NonBlockingSocket<usize> for SimSocket {
    fn send_to(&mut self, msg: &ggrs::Message, addr: &usize) {
        if let Ok(bytes) = bincode::serialize(msg) {
            lock(&self.outbox).push((*addr, bytes));
        }
    }

    fn receive_all_messages(&mut self) -> Vec<(usize, ggrs::Message)> {
        lock(&self.inbox).drain(..).filter_map(|(a, b)| Some((a, bincode::deserialize(&b).ok()?))).collect()
    }
}

impl Algorithm for Ggrs {
    fn name(&self) -> &'static str {
        "ggrs"
    }
    fn description(&self) -> &'static str {
        "Rust GGPO running the reference game over the simulated network; reads the wall clock: try --paced"
    }
    fn topology(&self) -> Topology {
        Topology::PeerToPeer
    }
    fn library(&self) -> Option<&'static str> {
        Some("ggrs 0.13.0")
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[DELAY, WINDOW]
    }
    fn client(&self, s: &Setup, player: usize) -> Box<dyn Node> {
        let outbox: Queue = Arc::default();
        let inbox: Queue = Arc::default();
        let delay = s.options.number(&DELAY).clamp(0.0, 60.0) as usize;
        let build = || -> Result<ggrs::P2PSession<GameConfig>, ggrs::GgrsError> {
            let mut b = ggrs::SessionBuilder::<GameConfig>::new()
                .with_num_players(s.players)?
                .with_input_delay(delay)
                .with_max_prediction_window(s.options.number(&WINDOW).clamp(1.0, 120.0) as usize)
                .with_fps(s.tick_hz as usize)?
                .with_desync_detection_mode(ggrs::DesyncDetection::On { interval: 10 });
            for q in 0..s.players {
                let t = if q == player { ggrs::PlayerType::Local } else { ggrs::PlayerType::Remote(q) };
                b = b.add_player(t, q)?;
            }
            b.start_p2p_session(SimSocket { outbox: outbox.clone(), inbox: inbox.clone() })
        };
        // Drawn with render interpolation, as every tick-state algorithm.
        Box::new(crate::support::render_lerp::Smooth::new(
            Peer {
                me: player,
                session: build().ok(),
                outbox,
                inbox,
                state: s.initial.clone(),
                delay: delay as u32,
                pending: None,
                history: BTreeMap::new(),
                published: 0,
                skip: 0,
            },
            s,
        ))
    }
}

struct Peer {
    me: usize,
    session: Option<ggrs::P2PSession<GameConfig>>,
    outbox: Queue,
    inbox: Queue,
    state: State,
    delay: u32,
    /// The sample for the frame ggrs has not advanced past yet.
    pending: Option<SeqInput>,
    /// Our frame number → the state after it and the inputs that made it.
    history: BTreeMap<u32, (State, Vec<SeqInput>)>,
    published: u32,
    skip: u32,
}

impl Peer {
    fn flush(&self, ctx: &mut Ctx<'_>) {
        for (addr, bytes) in lock(&self.outbox).drain(..) {
            ctx.send(ctx.setup().node_of_player(addr), bytes);
        }
    }

    fn serve(&mut self, ctx: &mut Ctx<'_>, requests: Vec<ggrs::GgrsRequest<GameConfig>>) {
        // (frame before the load, frame loaded) of a rollback.
        let mut rollback: Option<(u32, u32)> = None;
        for r in requests {
            match r {
                ggrs::GgrsRequest::SaveGameState { cell, frame } => {
                    cell.save(frame, Some(self.state.clone()), Some(game_checksum(&self.state)));
                }
                ggrs::GgrsRequest::LoadGameState { cell, .. } => {
                    if let Some(s) = cell.load() {
                        rollback = Some((self.state.frame, s.frame));
                        self.state = s;
                    }
                }
                ggrs::GgrsRequest::AdvanceFrame { inputs } => {
                    let f = self.state.frame;
                    let si: Vec<SeqInput> = inputs
                        .iter()
                        .map(|(v, status)| {
                            let known = *status == ggrs::InputStatus::Confirmed;
                            let seq = if known && f >= self.delay { f - self.delay + 1 } else { 0 };
                            SeqInput { seq, input: unpack(*v) }
                        })
                        .collect();
                    ctx.game().step(&mut self.state, &si);
                    self.history.insert(self.state.frame, (self.state.clone(), si));
                }
            }
        }
        if let Some((was, to)) = rollback {
            ctx.report(Report::Rollback { depth: was.saturating_sub(to) });
        }
    }

    fn publish(&mut self, ctx: &mut Ctx<'_>) {
        let Some(session) = &self.session else { return };
        let confirmed = session.confirmed_frame();
        if confirmed < 0 {
            return;
        }
        // ggrs frame g confirmed: our states after g + 1 steps are final,
        // and every input up to it is known — also the ones that confirmed
        // a prediction, which ggrs does not re-simulate: stamp their
        // sequence numbers into the shown state, as our own rollback does.
        let upto = (confirmed as u32 + 1).min(self.state.frame);
        if upto > self.delay {
            for p in self.state.players.iter_mut() {
                p.last_seq = p.last_seq.max(upto - self.delay);
            }
        }
        while self.published < upto {
            let f = self.published + 1;
            let Some((state, inputs)) = self.history.get(&f) else { break };
            // Inputs confirmed later than their frame was simulated carry
            // their sequence numbers now.
            let inputs: Vec<SeqInput> =
                inputs.iter().map(|i| SeqInput { seq: f.saturating_sub(self.delay), input: i.input }).collect();
            let mut state = state.clone();
            for pl in state.players.iter_mut() {
                pl.last_seq = f.saturating_sub(self.delay);
            }
            ctx.publish_confirmed(&state, &inputs);
            self.published = f;
        }
        let keep = self.published.saturating_sub(16);
        self.history = self.history.split_off(&keep);
    }
}

impl crate::support::render_lerp::Picture for Peer {}

impl Node for Peer {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let Some(session) = self.session.as_mut() else {
            ctx.report(Report::Stalled);
            return;
        };
        session.poll_remote_clients();
        let mut events = Vec::new();
        for e in session.events() {
            events.push(e);
        }
        for e in events {
            match e {
                ggrs::GgrsEvent::WaitRecommendation { skip_frames } => self.skip += skip_frames,
                ggrs::GgrsEvent::DesyncDetected { frame, .. } => {
                    ctx.report(Report::DesyncDetected { frame: frame.max(0) as u32 })
                }
                _ => {}
            }
        }
        let session = self.session.as_mut().expect("checked");
        if session.current_state() != ggrs::SessionState::Running || self.skip > 0 {
            self.skip = self.skip.saturating_sub(1);
            ctx.report(Report::Stalled);
            self.flush(ctx);
            return;
        }
        // One sample per frame: keep it until ggrs advances past it.
        let sample = match self.pending {
            Some(s) => s,
            None => match ctx.sample_input() {
                Some(s) => s,
                None => return,
            },
        };
        self.pending = Some(sample);
        let session = self.session.as_mut().expect("checked");
        let before = session.current_frame();
        let advanced = session.add_local_input(self.me, pack(sample.input)).and_then(|_| session.advance_frame());
        let moved = session.current_frame() > before;
        match advanced {
            Ok(requests) => {
                // At the prediction threshold ggrs returns Ok without moving
                // to the next frame (possibly after re-simulating old ones):
                // the sample is still for the frame ahead.
                if moved {
                    self.pending = None;
                } else {
                    ctx.report(Report::Stalled);
                }
                self.serve(ctx, requests);
                // Only right after a successful advance has ggrs rolled back
                // for every input it has confirmed.
                self.publish(ctx);
            }
            Err(_) => ctx.report(Report::Stalled),
        }
        self.flush(ctx);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        if let Some(q) = ctx.setup().player_of_node(from) {
            lock(&self.inbox).push((q, bytes.to_vec()));
        }
    }

    fn render(&mut self, _ctx: &RenderCtx<'_>, view: &mut View) {
        view.show_game(&self.state);
    }
}
