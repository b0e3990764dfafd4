//! `framelock`: the key-frame lock of Wei ("帧锁定算法").
//!
//! Clients run the game frame by frame on inputs the server hands out per
//! *key frame*. At key frame K1 a client needs the server's UPDATE for K1
//! — the inputs of every player to use until the next key frame K2, and K2
//! itself. If it has it, it samples its own input, sends it to the server
//! as its CTRL for K1, and plays on; if not, it waits (a stall). The server
//! collects every client's CTRL for K1, then broadcasts the UPDATE for K2:
//! those inputs, and the key frame after it, K3 = K2 + D. D, the key-frame
//! distance, follows the largest client round trip, smoothed: the CTRL for
//! K1 has to reach the server and the UPDATE for K2 come back within the
//! D frames between them, or everyone waits.
//!
//! A client that waited makes the ticks up afterwards, up to `catchup`
//! frames a tick (Wei's clients never do, so their game falls behind
//! the clock for good; `catchup=1`). Making up needs room: a key-frame
//! cycle (the CTRL up, the UPDATE down, and every resend a loss burst
//! costs) must take less time than the D frames it yields, and the round
//! trip's D leaves none for a lossy link's resends (on long loss bursts
//! Wei's distance falls seconds behind the clock). So each CTRL says how
//! many ticks its client is behind, and the server adds frames to D
//! (`pace=1`, see `Pace`): one more each cycle the most behind does not
//! catch up, and a quarter of the backlog while there is one.
//!
//! Over the unreliable link a client re-sends its latest CTRL every tick
//! until the UPDATE it enables arrives, and the server re-sends the latest
//! UPDATE every tick to each client that has not answered it.
//!
//! Wire (little-endian): CTRL `5, key: u32, seq: u32, input(3),
//! echo: i64, held: u32, behind: u16` (echo: the server time of the
//! newest UPDATE received, held: how long ago, so the server can measure
//! the round trip; behind: ticks waited and not yet made up); UPDATE `6, key: u32, next: u32, server_time: i64, n: u8, n ×
//! (seq: u32, input(3))`.

use crate::support::render_lerp::{Picture, Smooth};
use crate::wire::{stamped_input, Reader, Writer, STAMPED_INPUT_BYTES};
use harness::contract::{Algorithm, Ctx, Node, NodeId, OptionSpec, Options, RenderCtx, Report, Setup, Topology, View};
use harness::game::{Input, SeqInput, State};
use std::collections::BTreeMap;

const TAG_CTRL: u8 = 5;
const TAG_UPDATE: u8 = 6;

const KEY_INIT: OptionSpec =
    OptionSpec::count("key-init", "5", 1, 600, "key-frame distance at the start, frames (Wei's 5)");
const KEY_MIN: OptionSpec = OptionSpec::count("key-min", "2", 1, 600, "smallest key-frame distance, frames");
const KEY_MAX: OptionSpec = OptionSpec::count("key-max", "600", 1, 600, "largest key-frame distance, frames (Wei names none; the distance follows the round trip, and a smaller cap stalls a longer one)");
const ADAPT: OptionSpec =
    OptionSpec::count("adapt", "1", 0, 1, "1: the server adapts the distance to the largest smoothed RTT");
const CATCHUP: OptionSpec = OptionSpec::count(
    "catchup",
    "2",
    1,
    8,
    "frames a client may play in one tick to make up for ticks it waited (1: never catches up, as Wei)",
);
const PACE: OptionSpec = OptionSpec::count(
    "pace",
    "1",
    0,
    1,
    "1: the key distance grows beyond the round trip's while a client falls behind and does not catch up (0: the round trip's alone, as Wei)",
);

/// The algorithm.
pub struct Framelock;

impl Algorithm for Framelock {
    fn name(&self) -> &'static str {
        "framelock"
    }
    fn description(&self) -> &'static str {
        "key-frame lock: the server relays every client's input per key frame; the distance follows the largest RTT (Wei)"
    }
    fn topology(&self) -> Topology {
        Topology::Relay
    }
    fn handles_bots(&self) -> bool {
        true
    }
    fn options(&self) -> &'static [OptionSpec] {
        &[KEY_INIT, KEY_MIN, KEY_MAX, ADAPT, CATCHUP, PACE]
    }
    fn check_options(&self, o: &Options) -> Result<(), String> {
        let (init, min, max) = (o.number(&KEY_INIT), o.number(&KEY_MIN), o.number(&KEY_MAX));
        if min > max {
            return Err(format!("key-min ({min}) must not exceed key-max ({max})"));
        }
        if !(min..=max).contains(&init) {
            return Err(format!("key-init ({init}) must lie in key-min..=key-max ({min}..={max})"));
        }
        Ok(())
    }
    fn server(&self, s: &Setup) -> Box<dyn Node> {
        let o = &s.options;
        let init = o.number(&KEY_INIT).clamp(1.0, 1000.0) as u32;
        let mut updates = BTreeMap::new();
        updates.insert(0, Update { next: init, server_time: 0, inputs: vec![SeqInput::default(); s.players] });
        Box::new(Server {
            updates,
            collecting: 0,
            ctrls: vec![None; s.players],
            pace: Pace {
                on: o.number(&PACE) != 0.0,
                catchup: o.number(&CATCHUP).clamp(1.0, 8.0) as u32,
                ..Pace::default()
            },
            last_ctrl_key: vec![None; s.players],
            srtt: vec![None; s.players],
            min: o.number(&KEY_MIN).clamp(1.0, 1000.0) as u32,
            max: o.number(&KEY_MAX).clamp(1.0, 1000.0) as u32,
            distance: init,
            adapt: o.number(&ADAPT) != 0.0,
            dt: 1_000_000 / s.tick_hz.max(1) as i64,
        })
    }
    fn client(&self, s: &Setup, _player: usize) -> Box<dyn Node> {
        let init = s.options.number(&KEY_INIT).clamp(1.0, 1000.0) as u32;
        let mut updates = BTreeMap::new();
        updates.insert(0, Update { next: init, server_time: 0, inputs: vec![SeqInput::default(); s.players] });
        Box::new(Smooth::new(
            Client {
                state: s.initial.clone(),
                updates,
                key: 0,
                inputs: vec![SeqInput::default(); s.players],
                ctrl: None,
                newest_update: None,
                catchup: s.options.number(&CATCHUP).clamp(1.0, 8.0) as u32,
                behind: 0,
            },
            s,
        ))
    }
}

/// The server's word for one key frame.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Update {
    next: u32,
    server_time: i64,
    inputs: Vec<SeqInput>,
}

fn encode_update(key: u32, u: &Update) -> Vec<u8> {
    let mut w = Writer::with_capacity(18 + 7 * u.inputs.len());
    w.u8(TAG_UPDATE).u32(key).u32(u.next);
    w.0.extend_from_slice(&u.server_time.to_le_bytes());
    w.u8(u.inputs.len() as u8);
    for i in &u.inputs {
        w.u32(i.seq);
        i.input.encode(&mut w.0);
    }
    w.finish()
}

/// An UPDATE read off the wire and checked whole, its inputs left as bytes:
/// the server resends the newest UPDATE every tick until a client answers,
/// and the client keeps the first copy (only that one's inputs are decoded).
struct UpdateBytes<'a> {
    key: u32,
    next: u32,
    server_time: i64,
    /// `seq: u32, input(3)` per player, all valid.
    inputs: &'a [u8],
}

impl UpdateBytes<'_> {
    fn players(&self) -> usize {
        self.inputs.len() / STAMPED_INPUT_BYTES
    }

    fn update(&self) -> Update {
        // Every input decodes: the UPDATE was checked whole.
        let inputs = self.inputs.chunks_exact(STAMPED_INPUT_BYTES).filter_map(stamped_input).collect();
        Update { next: self.next, server_time: self.server_time, inputs }
    }
}

fn read_update(bytes: &[u8]) -> Option<UpdateBytes<'_>> {
    let mut r = Reader::new(bytes);
    if r.u8()? != TAG_UPDATE {
        return None;
    }
    let key = r.u32()?;
    let next = r.u32()?;
    let server_time = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
    let n = r.u8()? as usize;
    let inputs = r.take(n * STAMPED_INPUT_BYTES)?;
    let valid = inputs.chunks_exact(STAMPED_INPUT_BYTES).all(|c| stamped_input(c).is_some());
    (valid && r.is_done() && next > key).then_some(UpdateBytes { key, next, server_time, inputs })
}

/// A client's CTRL: its input for a key frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ctrl {
    key: u32,
    sample: SeqInput,
    /// Ticks the client waited and has not made up, when it sent this.
    behind: u16,
}

struct Client {
    state: State,
    updates: BTreeMap<u32, Update>,
    /// The next key frame to reach.
    key: u32,
    /// The inputs in force until then.
    inputs: Vec<SeqInput>,
    /// The latest CTRL sent, re-sent until the UPDATE it enables arrives.
    ctrl: Option<Ctrl>,
    /// (server time, local arrival) of the newest UPDATE, for RTT echo.
    newest_update: Option<(i64, i64)>,
    /// Frames a tick at most, catching up.
    catchup: u32,
    /// Ticks waited and not yet made up for.
    behind: u32,
}

impl Client {
    /// Whether the next frame may run: at a key frame, only with its
    /// UPDATE — then the inputs until the next key frame are taken and
    /// this key frame's input sampled for the CTRL.
    fn pass_key(&mut self, ctx: &mut Ctx<'_>) -> bool {
        if self.state.frame != self.key {
            return true;
        }
        let Some(u) = self.updates.remove(&self.key) else { return false };
        self.inputs = u.inputs;
        if let Some(sample) = ctx.sample_input() {
            self.ctrl = Some(Ctrl { key: self.key, sample, behind: 0 });
        }
        self.key = u.next;
        self.updates.retain(|k, _| *k >= self.key);
        true
    }

    fn step(&mut self, ctx: &mut Ctx<'_>) {
        ctx.game().step(&mut self.state, &self.inputs);
        ctx.publish_confirmed(&self.state, &self.inputs);
    }

    fn ctrl_packet(&self, c: Ctrl, now: i64) -> Vec<u8> {
        let (echo, held) =
            self.newest_update.map_or((0, 0), |(st, at)| (st, (now - at).clamp(0, u32::MAX as i64) as u32));
        let behind = self.behind.min(u16::MAX as u32) as u16;
        let mut w = Writer::with_capacity(26);
        w.u8(TAG_CTRL).u32(c.key).u32(c.sample.seq);
        c.sample.input.encode(&mut w.0);
        w.0.extend_from_slice(&echo.to_le_bytes());
        w.u32(held).u16(behind);
        w.finish()
    }
}

impl Picture for Client {
    /// The state changes only by stepping a frame.
    fn picture_stamp(&self) -> Option<u64> {
        Some(self.state.frame as u64)
    }
}

impl Node for Client {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        let server = ctx.setup().server();
        let ran = self.pass_key(ctx);
        if let Some(c) = self.ctrl {
            let p = self.ctrl_packet(c, ctx.now());
            ctx.send(server, p);
        }
        if !ran {
            ctx.report(Report::Stalled);
            self.behind += 1;
            return;
        }
        self.step(ctx);
        // Ticks waited are made up for, `catchup` frames a tick at most,
        // as DOOM's NetUpdate does: the game keeps to the clock.
        for _ in 1..self.catchup {
            let key = self.key;
            if self.behind == 0 || !self.pass_key(ctx) {
                break;
            }
            if self.key != key {
                if let Some(c) = self.ctrl {
                    let p = self.ctrl_packet(c, ctx.now());
                    ctx.send(server, p);
                }
            }
            self.step(ctx);
            self.behind -= 1;
        }
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, _from: NodeId, bytes: &[u8]) {
        let Some(u) = read_update(bytes) else { return };
        let key = u.key;
        if u.players() != ctx.setup().players || key < self.key {
            return;
        }
        if self.newest_update.is_none_or(|(t, _)| u.server_time > t) {
            self.newest_update = Some((u.server_time, ctx.now()));
        }
        // An UPDATE past our CTRL's key means the server has it.
        if self.ctrl.is_some_and(|c| key > c.key) {
            self.ctrl = None;
        }
        self.updates.entry(key).or_insert_with(|| u.update());
    }

    fn render(&mut self, _ctx: &RenderCtx<'_>, view: &mut View) {
        view.show_game(&self.state);
    }
}

struct Server {
    updates: BTreeMap<u32, Update>,
    /// The key frame whose CTRLs are being collected.
    collecting: u32,
    /// Per player, the CTRL for the collected key frame, and how far behind
    /// its newest copy said the client was.
    ctrls: Vec<Option<(SeqInput, u16)>>,
    pace: Pace,
    last_ctrl_key: Vec<Option<u32>>,
    srtt: Vec<Option<i64>>,
    min: u32,
    max: u32,
    distance: u32,
    adapt: bool,
    dt: i64,
}

fn decode_ctrl(bytes: &[u8]) -> Option<(Ctrl, i64, u32)> {
    let mut r = Reader::new(bytes);
    if r.u8()? != TAG_CTRL {
        return None;
    }
    let key = r.u32()?;
    let seq = r.u32()?;
    let input = Input::decode(r.take(3)?)?;
    let echo = i64::from_le_bytes(r.take(8)?.try_into().ok()?);
    let held = r.u32()?;
    let behind = r.u16()?;
    r.is_done().then_some((Ctrl { key, sample: SeqInput { seq, input }, behind }, echo, held))
}

impl Node for Server {
    fn on_tick(&mut self, ctx: &mut Ctx<'_>) {
        // Re-send the newest UPDATE to every client that has not answered it.
        let Some((&key, u)) = self.updates.iter().next_back() else { return };
        let msg = encode_update(key, u);
        let setup = ctx.setup();
        let behind = (0..setup.players).filter(|&p| self.last_ctrl_key[p].is_none_or(|k| k < key));
        ctx.send_to_each(behind.map(|p| setup.node_of_player(p)), msg);
    }

    fn on_packet(&mut self, ctx: &mut Ctx<'_>, from: NodeId, bytes: &[u8]) {
        let Some(p) = ctx.setup().player_of_node(from) else { return };
        let Some((ctrl, echo, held)) = decode_ctrl(bytes) else { return };
        if echo > 0 {
            let sample = ctx.now() - echo - held as i64;
            if sample >= 0 {
                self.srtt[p] = Some(self.srtt[p].map_or(sample, |s| (7 * s + sample) / 8));
            }
        }
        self.last_ctrl_key[p] = Some(self.last_ctrl_key[p].map_or(ctrl.key, |k| k.max(ctrl.key)));
        if ctrl.key != self.collecting {
            return;
        }
        // The first copy's input, the newest copy's word on how far behind.
        let sample = self.ctrls[p].map_or(ctrl.sample, |(s, _)| s);
        self.ctrls[p] = Some((sample, ctrl.behind));
        if self.ctrls.iter().any(|c| c.is_none()) {
            return;
        }
        // Every CTRL for K1 is in: the UPDATE for K2, announcing K3.
        let behind = self.ctrls.iter().flatten().map(|&(_, b)| b).max().unwrap_or(0);
        if self.adapt {
            if let Some(worst) = self.srtt.iter().flatten().max() {
                // Room for the round trip plus two frames, and the pace's.
                let rtt = ((worst + self.dt - 1) / self.dt).clamp(0, u32::MAX as i64) as u32;
                let slack = self.pace.cycle(behind, rtt);
                self.distance = (rtt + 2).saturating_add(slack).clamp(self.min, self.max);
            }
        }
        let k2 = self.updates.get(&self.collecting).map_or(self.collecting + self.distance, |u| u.next);
        let inputs: Vec<SeqInput> =
            self.ctrls.iter_mut().map(|c| c.take().map(|(s, _)| s).unwrap_or_default()).collect();
        let update = Update { next: k2 + self.distance, server_time: ctx.now().max(1), inputs };
        let msg = encode_update(k2, &update);
        self.updates.insert(k2, update);
        while self.updates.len() > 4 {
            self.updates.pop_first();
        }
        self.collecting = k2;
        ctx.send_to_players(msg);
    }
}

/// The frames the key distance takes beyond the round trip's so that
/// clients behind the clock can catch up: a part that stays (a frame more
/// each cycle the most behind does not catch up, an eighth back after
/// eight cycles with nobody behind) and a part for the backlog itself
/// (a quarter of it, at most what clients can run in the extra frames
/// `catchup` gives them).
#[derive(Clone, Copy, Debug, Default)]
struct Pace {
    on: bool,
    /// Frames a client runs a tick at most.
    catchup: u32,
    stays: u32,
    /// The most behind at the last collected key frame.
    last: u16,
    /// Key frames collected in a row with nobody behind.
    calm: u32,
}

impl Pace {
    /// Takes a collected key frame whose most behind client was `behind`
    /// ticks behind, on a round trip of `rtt` frames; the slack to add.
    fn cycle(&mut self, behind: u16, rtt: u32) -> u32 {
        if !self.on {
            return 0;
        }
        if behind == 0 {
            self.calm += 1;
            if self.calm >= 8 {
                self.stays -= self.stays.div_ceil(8);
                self.calm = 0;
            }
        } else {
            self.calm = 0;
            if behind >= self.last {
                self.stays += 1;
            }
        }
        self.last = behind;
        let backlog = (behind as u32).div_ceil(4).min(self.catchup.saturating_sub(1) * rtt);
        self.stays + backlog
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_reject_garbage() {
        let u = Update {
            next: 12,
            server_time: 99,
            inputs: vec![SeqInput { seq: 4, input: Input::buttons(Input::UP) }; 3],
        };
        let b = encode_update(7, &u);
        let read = read_update(&b).expect("a whole UPDATE");
        assert_eq!((read.key, read.players(), read.update()), (7, 3, u));
        for cut in 0..b.len() {
            assert!(read_update(&b[..cut]).is_none());
        }
        let mut bad = b.clone();
        bad[18 + 4] = 0xff;
        assert!(read_update(&bad).is_none(), "an input with undefined button bits");
        let c = Client {
            state: State::default(),
            updates: BTreeMap::new(),
            key: 0,
            inputs: vec![],
            ctrl: None,
            newest_update: Some((50, 10)),
            catchup: 1,
            behind: 0,
        };
        let ctrl = Ctrl { key: 3, sample: SeqInput { seq: 2, input: Input::buttons(Input::JUMP) }, behind: 0 };
        let p = c.ctrl_packet(ctrl, 30);
        assert_eq!(decode_ctrl(&p), Some((ctrl, 50, 20)));
        let far = Client { behind: 70_000, ..c };
        let p = far.ctrl_packet(ctrl, 30);
        assert_eq!(decode_ctrl(&p), Some((Ctrl { behind: u16::MAX, ..ctrl }, 50, 20)), "behind saturates");
        assert!(decode_ctrl(&p[..p.len() - 1]).is_none());
    }

    #[test]
    fn the_slack_grows_while_nobody_catches_up_and_shrinks_when_calm() {
        let mut off = Pace::default();
        assert_eq!(off.cycle(30, 10), 0, "pace=0 adds nothing");
        let mut p = Pace { on: true, catchup: 2, ..Pace::default() };
        assert_eq!([p.cycle(4, 10), p.cycle(8, 10), p.cycle(8, 10)], [2, 4, 5], "behind and not catching up");
        assert_eq!(p.cycle(4, 10), 4, "catching up: the part that stays held, the backlog's a quarter");
        assert_eq!(p.cycle(200, 10), 14, "the backlog's part is at most what catchup can run");
        assert_eq!((0..7).map(|_| p.cycle(0, 10)).last(), Some(4), "seven calm cycles: held");
        assert_eq!(p.cycle(0, 10), 3, "the eighth gives an eighth back");
        let mut never = Pace { on: true, catchup: 1, ..Pace::default() };
        assert_eq!(never.cycle(40, 10), 1, "catchup=1 makes nothing up: no room for a backlog");
    }
}
