//! The run's recorder, judging a render instant's batch on another core
//! while the event loop goes on.

use crate::contract::{NodeId, Observer, View};
use crate::metrics::deferred::{Deferred, Log};
use crate::metrics::recorder::Recorder;
use crate::parallel;
use crate::time::Micros;
use std::sync::mpsc::{Receiver, TryRecvError};

/// The run's recorder: here, or away on another core judging a render
/// instant's batch while the event loop goes on against a log of what the
/// nodes tell it meanwhile (`metrics::deferred`). The log goes with the
/// next batch and is replayed first, on that core; the last one is
/// replayed here at the end. Nothing the events do reads what judging
/// writes, and the recorder gets every call in the order it would have,
/// so the report is the same.
pub(super) struct Recording<'t> {
    here: Option<Recorder>,
    /// Back from judging with the log since it left not yet replayed: it
    /// leaves again with the next batch and that log.
    returned: Option<Recorder>,
    log: Deferred<'t>,
    away: Option<Receiver<Judged>>,
}

/// What a batch judged away sends back: the recorder, the views buffer and
/// the replayed log's buffers, or the panic that stopped it.
type Judged = std::thread::Result<(Recorder, Vec<(usize, View)>, Log)>;

impl<'t> Recording<'t> {
    /// The recorder, here, with an empty log for what it misses away.
    pub(super) fn new(recorder: Recorder, log: Deferred<'t>) -> Recording<'t> {
        Recording { here: Some(recorder), returned: None, log, away: None }
    }

    /// The recorder back for good, with every call made.
    pub(super) fn into_recorder(mut self, views: &mut Vec<(usize, View)>) -> Recorder {
        self.back(views);
        self.here.take().expect("the recorder is back")
    }

    /// What the nodes report to now.
    pub(super) fn observer(&mut self) -> &mut dyn Observer {
        match &mut self.here {
            Some(r) => r,
            None => &mut self.log,
        }
    }

    pub(super) fn count_loss(&mut self, from: NodeId, sent: Micros) {
        match &mut self.here {
            Some(r) => r.count_loss(from, sent),
            None => self.log.count_loss(from, sent),
        }
    }

    pub(super) fn count_send(&mut self, from: NodeId, to: NodeId, payload: usize) {
        match &mut self.here {
            Some(r) => r.count_send(from, to, payload),
            None => self.log.count_send(from, to, payload),
        }
    }

    /// Waits for the batch away, if any, and takes its views buffer into
    /// `views`; the recorder waits in `returned` for its next batch.
    /// Waiting, this thread runs the pool's work (its batch's other parts,
    /// say) instead of sleeping.
    pub(super) fn views_back(&mut self, views: &mut Vec<(usize, View)>) {
        let Some(away) = self.away.take() else { return };
        let mut judged = None;
        parallel::help_until(|| match away.try_recv() {
            Ok(done) => {
                judged = Some(done);
                true
            }
            Err(TryRecvError::Empty) => false,
            Err(TryRecvError::Disconnected) => unreachable!("the judging job answers before it ends"),
        });
        let judged = judged.expect("help_until returns once answered");
        let (recorder, batch, log) = judged.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        *views = batch;
        self.log.give_back(log);
        self.returned = Some(recorder);
    }

    /// The recorder, here, with every call so far — its batch's views in
    /// `views` and what it missed replayed.
    pub(super) fn back(&mut self, views: &mut Vec<(usize, View)>) -> &mut Recorder {
        self.views_back(views);
        if let Some(mut recorder) = self.returned.take() {
            self.log.replay_into(&mut recorder);
            self.here = Some(recorder);
        }
        self.here.as_mut().expect("the recorder is here unless away")
    }

    /// Judges the first `n` of `views`, rendered at `now`, on the pool,
    /// after replaying what the recorder missed; the views come back with
    /// the recorder ([`Recording::views_back`]).
    pub(super) fn judge_away(&mut self, now: Micros, views: &mut Vec<(usize, View)>, n: usize) {
        let mut recorder = match self.here.take() {
            Some(recorder) => {
                self.log.start(&recorder);
                recorder
            }
            None => self.returned.take().expect("judged once at a time"),
        };
        let mut log = self.log.take_log();
        let mut batch = std::mem::take(views);
        let (answer, away) = std::sync::mpsc::sync_channel(1);
        rayon::spawn(move || {
            let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                log.replay_into(&mut recorder);
                recorder.record_views(now, &mut batch[..n]);
                (recorder, batch, log)
            }));
            let _ = answer.send(done);
        });
        self.away = Some(away);
    }
}
