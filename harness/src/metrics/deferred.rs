//! What the nodes tell the recorder while it is away judging a batch of
//! renders on another core, logged in order and replayed into it when it
//! is back.
//!
//! A large world's judging of one render instant is a third of its work,
//! and nothing the event loop does until the next render instant reads
//! what judging writes: the nodes only *tell* the recorder things
//! (`Observer`), and the one answer they get back — a sampled input and
//! its sequence number — comes from the trace and a count. So the runner
//! hands the recorder to another core with the batch, goes on with the
//! events up to the next render instant against a [`Deferred`], and at
//! that instant hands the recorder the [`Log`] of those events with the
//! next batch: the job replays the log into the recorder, then judges —
//! so the replay (the authority frames' area-of-interest pass, above all)
//! is off the event loop's thread too. At the end the last log is
//! replayed where the run is. The recorder sees exactly the calls it
//! would have seen, in the same order, so the report is the same byte
//! for byte.
//!
//! ```text
//! render k:   recorder ──▶ other core: replay(log k−1..k); record_views(k)
//!             events k..k+1 ──▶ Deferred (samples answered from the trace)
//! render k+1: recorder ◀── back; ──▶ replay(log k..k+1); record_views(k+1)
//! ```

use crate::contract::{NodeId, Observer, Report};
use crate::game::{Input, SeqInput, State};
use crate::metrics::recorder::Recorder;
use crate::time::Micros;
use crate::trace::Trace;

/// One call the recorder missed.
enum Call {
    Sample { p: usize, t: Micros, input: Input },
    Authority { t: Micros, state: State },
    Confirmed { node: NodeId, t: Micros, state: State, inputs: Vec<SeqInput> },
    Report { node: NodeId, t: Micros, local: i64, tick: u64, what: Report },
    Send { from: NodeId, to: NodeId, payload: usize },
    Loss { from: NodeId, sent: Micros },
}

/// The recorder's stand-in while it is away (see the module docs).
pub(crate) struct Deferred<'t> {
    trace: &'t Trace,
    /// Per player, [`Trace::input_near`]'s hint.
    hints: Vec<usize>,
    /// Per player, the inputs sampled so far (the recorder's count when it
    /// first left, plus every sample logged since).
    taken: Vec<usize>,
    /// The calls since the last hand-over.
    log: Log,
    /// A replayed log come back, its buffers kept for the next.
    spare: Log,
}

/// Calls the recorder missed, in order: handed to it with a batch and
/// replayed first ([`Log::replay_into`]).
#[derive(Default)]
pub(crate) struct Log {
    calls: Vec<Call>,
    /// States of replayed calls, for the next ones' copies.
    spare_states: Vec<State>,
}

impl<'t> Deferred<'t> {
    /// A stand-in for a recorder of `players` players fed `trace` (the
    /// recorder's own).
    pub(crate) fn new(trace: &'t Trace, players: usize) -> Deferred<'t> {
        Deferred { trace, hints: vec![0; players], taken: vec![0; players], log: Log::default(), spare: Log::default() }
    }

    /// Takes the recorder's sample counts as it leaves with nothing to
    /// replay (the log is empty).
    pub(crate) fn start(&mut self, recorder: &Recorder) {
        debug_assert!(self.log.calls.is_empty(), "the log was replayed");
        for (p, n) in self.taken.iter_mut().enumerate() {
            *n = recorder.samples_taken(p);
        }
    }

    /// The calls logged so far, to go with the recorder; the log starts
    /// again empty (on the buffers of the last one given back).
    pub(crate) fn take_log(&mut self) -> Log {
        std::mem::replace(&mut self.log, std::mem::take(&mut self.spare))
    }

    /// A log replayed elsewhere, back: its buffers serve the next.
    pub(crate) fn give_back(&mut self, log: Log) {
        debug_assert!(log.calls.is_empty(), "given back once replayed");
        self.spare = log;
    }

    /// Replays the calls logged since the last hand-over into `recorder`.
    pub(crate) fn replay_into(&mut self, recorder: &mut Recorder) {
        self.log.replay_into(recorder);
    }

    /// Bytes sent from `from` to `to` (see [`Recorder::count_send`]).
    pub(crate) fn count_send(&mut self, from: NodeId, to: NodeId, payload: usize) {
        self.log.calls.push(Call::Send { from, to, payload });
    }

    /// A packet the network lost (see [`Recorder::count_loss`]).
    pub(crate) fn count_loss(&mut self, from: NodeId, sent: Micros) {
        self.log.calls.push(Call::Loss { from, sent });
    }

    fn copy(&mut self, state: &State) -> State {
        let mut copy = self.log.spare_states.pop().unwrap_or_default();
        copy.clone_from(state);
        copy
    }
}

impl Log {
    /// Replays the log into `recorder`, in order, and empties it.
    pub(crate) fn replay_into(&mut self, recorder: &mut Recorder) {
        for call in self.calls.drain(..) {
            match call {
                Call::Sample { p, t, input } => {
                    recorder.record_sample(p, t, input);
                }
                Call::Authority { t, state } => {
                    recorder.publish_authority(t, &state);
                    self.spare_states.push(state);
                }
                Call::Confirmed { node, t, state, inputs } => {
                    recorder.publish_confirmed(node, t, &state, &inputs);
                    self.spare_states.push(state);
                }
                Call::Report { node, t, local, tick, what } => recorder.report(node, t, local, tick, what),
                Call::Send { from, to, payload } => recorder.count_send(from, to, payload),
                Call::Loss { from, sent } => recorder.count_loss(from, sent),
            }
        }
    }
}

impl Observer for Deferred<'_> {
    fn sample_input(&mut self, p: usize, t: Micros) -> SeqInput {
        // As the recorder answers: the trace's input, the next number.
        let input = self.trace.input_hinted(p, t.0, &mut self.hints);
        let seq = match self.taken.get_mut(p) {
            Some(n) => {
                *n += 1;
                *n as u32
            }
            None => 0,
        };
        self.log.calls.push(Call::Sample { p, t, input });
        SeqInput { seq, input }
    }
    fn publish_authority(&mut self, t: Micros, state: &State) {
        let state = self.copy(state);
        self.log.calls.push(Call::Authority { t, state });
    }
    fn publish_confirmed(&mut self, node: NodeId, t: Micros, state: &State, inputs: &[SeqInput]) {
        let state = self.copy(state);
        self.log.calls.push(Call::Confirmed { node, t, state, inputs: inputs.to_vec() });
    }
    fn report(&mut self, node: NodeId, t: Micros, local: i64, tick: u64, what: Report) {
        self.log.calls.push(Call::Report { node, t, local, tick, what });
    }
}
