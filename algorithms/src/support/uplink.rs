//! The input uplink client/server algorithms share: each tick a client
//! sends its newest input with the previous ones again (so a lost packet
//! loses nothing); the server buffers them per client and takes one per
//! tick ([`InputQueue`]). With the adaptive buffer the server tells each
//! client ten times a second how far its buffer is from the depth the
//! jitter calls for when it is off ([`PACE_TAG`]), and the client's [`Pacer`] shifts its
//! input clock by a sample to correct it.
//!
//! The server also sizes each client's redundancy to its link: it asks for
//! one input per packet more than the longest run of packets it lost
//! lately ([`InputQueue::redundancy`]), so a burst of loss loses no input.
//!
//! Wire: input, client → server: `1, newest_seq: u32, tick: var, n: u8, n ×
//! input(3)` (newest first; `tick`: the client tick that sent it, for the
//! server's jitter measurement and loss runs), then whatever the algorithm
//! appends (an acknowledgement, say); pace, server → client: `90, ticks:
//! i8, redundancy: u8`.

use super::input_queue::{InputQueue, Mode, MAX_REDUNDANCY};
use crate::wire::{Reader, Writer};
use harness::contract::{Ctx, OptionSpec, Options};
use harness::game::{Input, SeqInput};
use std::collections::VecDeque;

const TAG: u8 = 1;

/// The pace message's tag.
pub const PACE_TAG: u8 = 90;

/// `--opt input-buffer=adaptive|queue`.
pub const INPUT_BUFFER: OptionSpec = OptionSpec::choice(
    "input-buffer",
    "adaptive",
    &["adaptive", "queue"],
    "server input buffer: adaptive (every input once, depth follows the jitter, the client paces itself) or queue (max-queue deep, drops the oldest, repeats the last)",
);
/// `--opt max-queue=N` (queue mode).
pub const MAX_QUEUE: OptionSpec =
    OptionSpec::count("max-queue", "2", 1, 1000, "input-buffer=queue: inputs kept per client; older ones are dropped");

/// The buffer mode the options ask for.
pub fn buffer_mode(o: &Options) -> Mode {
    if o.word(&INPUT_BUFFER) == "queue" {
        Mode::Queue { max: o.number(&MAX_QUEUE).clamp(1.0, 1000.0) as usize }
    } else {
        Mode::Adaptive
    }
}

/// `--opt redundancy=N` of the algorithms on this uplink: the inputs a
/// packet carries at least (the server asks for more on a lossy link).
pub const REDUNDANCY: OptionSpec = OptionSpec::count(
    "redundancy",
    "3",
    1,
    32,
    "inputs carried per packet at least (the newest and the ones before it; prediction: those not yet acknowledged); the server asks for more when the link loses packets in runs",
);

/// Ten times a second, sends each player the pace of its buffer when it
/// is off its target (adaptive buffers), and the redundancy its link
/// calls for when that changed.
pub fn send_paces<T: Clone>(ctx: &mut Ctx<'_>, queues: &mut [InputQueue<T>]) {
    let every = (ctx.setup().tick_hz / 10).max(1) as u64;
    if ctx.tick() % every != every - 1 {
        return;
    }
    for (p, q) in queues.iter_mut().enumerate() {
        let pace = q.pace().unwrap_or(0);
        let redundancy = q.redundancy_news(every as u32);
        if pace != 0 || redundancy.is_some() {
            let to = ctx.setup().node_of_player(p);
            let mut msg = harness::buffers::take(3);
            msg.extend_from_slice(&[PACE_TAG, pace as u8, redundancy.unwrap_or(0)]);
            ctx.send(to, msg);
        }
    }
}

/// Ticks between two adjustments of a client's input clock (half a second
/// at 60 Hz).
const ADJUST_EVERY: u32 = 30;

/// Ticks of excess from which a correction drains the whole excess at
/// once rather than one tick.
const DRAIN_AT_ONCE: i32 = 2;

/// Client side of pacing: how many samples to take this tick.
#[derive(Clone, Debug, Default)]
pub struct Pacer {
    /// Ticks the server's buffer is beyond its target (negative: short),
    /// as its latest pace message said.
    owed: i32,
    /// The correction under way: samples still to leave out (positive) or
    /// to take twice (negative), one a tick.
    correcting: i32,
    /// The inputs per packet the server last asked for (0: not asked).
    redundancy: u8,
    /// Ticks since the last correction ended.
    since: u32,
}

impl Pacer {
    /// Reads a pace message; `false` if `bytes` is something else.
    pub fn on_packet(&mut self, bytes: &[u8]) -> bool {
        match bytes {
            [PACE_TAG, pace, redundancy] => {
                self.owed = *pace as i8 as i32;
                if *redundancy > 0 {
                    self.redundancy = (*redundancy).min(MAX_REDUNDANCY);
                }
                true
            }
            _ => false,
        }
    }

    /// The inputs per packet to carry: `floor`, or more if the server
    /// asked for more.
    pub fn redundancy(&self, floor: usize) -> usize {
        floor.max(self.redundancy as usize)
    }

    /// Samples to take this tick: usually one; none to drain a deep
    /// buffer, two to fill a shallow one. A drain of more than
    /// two ticks makes up the whole excess the server
    /// reported, a tick at a time — so a buffer a delay
    /// spike filled a second and a half deep drains in a second and a
    /// half, not one tick every half second for the rest of the run — but
    /// a fill adds one tick at a time: a buffer fills to cover the jitter
    /// it measured, and a lone spike measures as a second of jitter for
    /// the two seconds it stays in the window; latency is added slowly and
    /// taken away at once. The next correction starts no sooner than half
    /// a second after one ends (the server's word is a round trip old: a
    /// faster loop overshoots, and a drained buffer makes the server run
    /// an input twice).
    pub fn samples(&mut self) -> usize {
        if self.correcting == 0 {
            self.since = self.since.saturating_add(1);
            if self.owed == 0 || self.since < ADJUST_EVERY {
                return 1;
            }
            // A buffer a tick or two off its target moves a tick at a time
            // (as jitter moves it); a spike's excess goes at once.
            let owed = std::mem::take(&mut self.owed);
            self.correcting = if owed > DRAIN_AT_ONCE { owed } else { owed.signum() };
        }
        let n = if self.correcting > 0 { 0 } else { 2 };
        self.correcting -= self.correcting.signum();
        if self.correcting == 0 {
            self.since = 0;
            // What the server said during the correction predates it.
            self.owed = 0;
        }
        n
    }
}

/// Client side: the newest inputs, repeated in every packet, paced by
/// the server.
#[derive(Clone, Debug)]
pub struct InputUplink {
    recent: VecDeque<SeqInput>,
    n: usize,
    /// Follows the server's pace messages.
    pub pacer: Pacer,
}

impl InputUplink {
    /// Carrying the newest `n` inputs per packet at least (more when the
    /// server asks).
    pub fn new(n: usize) -> InputUplink {
        InputUplink { recent: VecDeque::new(), n: n.clamp(1, MAX_REDUNDANCY as usize), pacer: Pacer::default() }
    }

    /// As the run's options say (`redundancy`).
    pub fn from_options(o: &Options) -> InputUplink {
        InputUplink::new(o.number(&REDUNDANCY).clamp(1.0, MAX_REDUNDANCY as f64) as usize)
    }

    /// Takes this tick's samples (usually one; see [`Pacer::samples`]).
    pub fn sample(&mut self, ctx: &mut Ctx<'_>) -> Samples {
        let mut out = Samples::default();
        // Never more than two (the pacer's most), which `Samples` holds.
        for _ in 0..self.pacer.samples().min(2) {
            if let Some(s) = ctx.sample_input() {
                out.taken[out.len] = s;
                out.len += 1;
            }
        }
        out
    }

    /// Samples this tick's input (if the node has a player) and sends the
    /// server its packet — every tick, also when pacing took no sample;
    /// `trailer` may append to it.
    pub fn send_tick(&mut self, ctx: &mut Ctx<'_>, trailer: impl FnOnce(&mut Writer)) {
        if ctx.player().is_none() {
            return;
        }
        for s in self.sample(ctx) {
            self.remember(s);
        }
        let packet = self.packet(ctx.tick() as u32, trailer);
        ctx.send(ctx.setup().server(), packet);
    }

    /// Adds a new sample to the ones every packet carries.
    pub fn remember(&mut self, s: SeqInput) {
        self.recent.push_front(s);
        self.recent.truncate(MAX_REDUNDANCY as usize);
    }

    /// The packet client tick `tick` sends: the newest samples
    /// [remembered](InputUplink::remember); `trailer` may append to it.
    pub fn packet(&self, tick: u32, trailer: impl FnOnce(&mut Writer)) -> Vec<u8> {
        let newest = self.recent.front().map_or(0, |s| s.seq);
        let n = self.recent.len().min(self.pacer.redundancy(self.n));
        let mut w = Writer::with_capacity(9 + 3 * n + 8);
        w.u8(TAG).u32(newest).var(tick).u8(n as u8);
        for r in self.recent.iter().take(n) {
            r.input.encode(&mut w.0);
        }
        trailer(&mut w);
        w.finish()
    }
}

/// One tick's samples, oldest first: none, one or two ([`Pacer::samples`]);
/// kept in place, as every client takes them every tick.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Samples {
    taken: [SeqInput; 2],
    len: usize,
}

impl IntoIterator for Samples {
    type Item = SeqInput;
    type IntoIter = std::iter::Take<std::array::IntoIter<SeqInput, 2>>;
    fn into_iter(self) -> Self::IntoIter {
        self.taken.into_iter().take(self.len)
    }
}

/// Server side: every client's input queue and the inputs in force.
#[derive(Clone, Debug)]
pub struct ServerInputs {
    queues: Vec<InputQueue<Input>>,
    current: Vec<SeqInput>,
}

impl ServerInputs {
    /// For `players` clients, buffers run in `mode`, ticks of `dt` µs.
    pub fn new(players: usize, mode: Mode, dt: i64) -> ServerInputs {
        ServerInputs {
            queues: (0..players).map(|_| InputQueue::new(mode, dt)).collect(),
            current: vec![SeqInput::default(); players],
        }
    }

    /// As the run's options say (`input-buffer`, `max-queue`).
    pub fn from_setup(s: &harness::contract::Setup) -> ServerInputs {
        ServerInputs::new(s.players, buffer_mode(&s.options), 1_000_000 / s.tick_hz.max(1) as i64)
    }

    /// Takes an input packet from player `p`. `trailer` reads what the
    /// algorithm appended; the inputs are queued only if the whole packet
    /// parses — inputs, then a trailer that returns `Some` and consumes the
    /// rest exactly — so a damaged packet changes nothing.
    pub fn receive<T>(
        &mut self,
        p: usize,
        now: i64,
        bytes: &[u8],
        trailer: impl FnOnce(&mut Reader<'_>) -> Option<T>,
    ) -> Option<T> {
        let mut r = Reader::new(bytes);
        if r.u8()? != TAG {
            return None;
        }
        let newest = r.u32()?;
        let tick = r.var()?;
        let n = r.u8()? as usize;
        // Checked whole first, decoded again as they are offered (every
        // client sends one a tick: no list of them is made).
        let inputs = r.take(3 * n)?;
        if (newest as usize) < n || inputs.chunks_exact(3).any(|b| Input::decode(b).is_none()) {
            return None;
        }
        let extra = trailer(&mut r)?;
        if !r.is_done() {
            return None;
        }
        let q = self.queues.get_mut(p)?;
        q.arrived(tick, now);
        // The k-th input has sequence newest − k: offer them oldest first.
        for (k, b) in inputs.chunks_exact(3).enumerate().rev() {
            // Every input decodes: the packet was checked whole above.
            if let Some(input) = Input::decode(b) {
                q.offer(newest - k as u32, input);
            }
        }
        Some(extra)
    }

    /// The inputs for this tick: each client's next queued one, or its
    /// last.
    pub fn for_tick(&mut self) -> &[SeqInput] {
        for (p, q) in self.queues.iter_mut().enumerate() {
            if let Some(&(seq, input)) = q.for_tick() {
                self.current[p] = SeqInput { seq, input };
            }
        }
        &self.current
    }

    /// Ten times a second, tells each client its buffer's pace (call after
    /// [`ServerInputs::for_tick`]).
    pub fn send_paces(&mut self, ctx: &mut Ctx<'_>) {
        send_paces(ctx, &mut self.queues);
    }

    /// Number of clients.
    pub fn players(&self) -> usize {
        self.current.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packets_carry_the_newest_inputs_and_a_trailer() {
        let mut up = InputUplink::new(3);
        let mut down = ServerInputs::new(1, Mode::Queue { max: 4 }, 16_666);
        let mut last = Vec::new();
        for seq in 1..=4u32 {
            up.remember(SeqInput { seq, input: Input::buttons(Input::UP) });
            last = up.packet(seq - 1, |w| {
                w.u32(99);
            });
        }
        // A packet that does not parse whole queues nothing: a missing
        // trailer, a byte too many, a count lowered by a bit flip.
        assert_eq!(down.receive(0, 0, &last, |_| Some(())), None, "trailer left unread");
        assert_eq!(down.receive(0, 0, &last[..last.len() - 1], |r| r.u32()), None, "trailer cut short");
        let mut longer = last.clone();
        longer.push(0);
        assert_eq!(down.receive(0, 0, &longer, |r| r.u32()), None, "a byte too many");
        let mut fewer = last.clone();
        fewer[6] = 2;
        assert_eq!(down.receive(0, 0, &fewer, |r| r.u32()), None, "input count lowered");
        assert!(
            down.receive(0, 0, &[TAG, 1, 0, 0, 0, 0, 5], |_| Some(())).is_none(),
            "more inputs than sequence numbers"
        );
        assert!(down.receive(0, 0, &[], |_| Some(())).is_none());
        assert_eq!(down.for_tick()[0].seq, 0, "nothing was queued");
        // Only the last packet arrives: it still carries inputs 2..=4.
        assert_eq!(down.receive(0, 0, &last, |r| r.u32()), Some(99));
        let got: Vec<u32> = (0..3).map(|_| down.for_tick()[0].seq).collect();
        assert_eq!(got, vec![2, 3, 4]);
    }
}
