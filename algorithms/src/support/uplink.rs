//! The input uplink most client/server algorithms share: each tick a client
//! sends its newest input with the previous ones again (so a lost packet
//! loses nothing); the server queues them per client and takes one per
//! tick ([`InputQueue`]).
//!
//! Wire: `1, newest_seq: u32, n: u8, n × input(3)` (newest first), then
//! whatever the algorithm appends (an acknowledgement, say).

use super::input_queue::InputQueue;
use crate::wire::{Reader, Writer};
use harness::contract::Ctx;
use harness::game::{Input, SeqInput};
use std::collections::VecDeque;

const TAG: u8 = 1;

/// Client side: the newest inputs, repeated in every packet.
#[derive(Clone, Debug)]
pub struct InputUplink {
    recent: VecDeque<SeqInput>,
    n: usize,
}

impl InputUplink {
    /// Carrying the newest `n` inputs per packet.
    pub fn new(n: usize) -> InputUplink {
        InputUplink { recent: VecDeque::new(), n: n.clamp(1, 255) }
    }

    /// Samples this tick's input (if the node has a player) and sends the
    /// server its packet; `trailer` may append to it.
    pub fn send_tick(&mut self, ctx: &mut Ctx<'_>, trailer: impl FnOnce(&mut Writer)) {
        let Some(s) = ctx.sample_input() else { return };
        let packet = self.packet(s, trailer);
        ctx.send(ctx.setup().server(), packet);
    }

    /// The packet for a new sample; `trailer` may append to it.
    pub fn packet(&mut self, s: SeqInput, trailer: impl FnOnce(&mut Writer)) -> Vec<u8> {
        self.recent.push_front(s);
        self.recent.truncate(self.n);
        let mut w = Writer::with_capacity(6 + 3 * self.recent.len() + 8);
        w.u8(TAG).u32(s.seq).u8(self.recent.len() as u8);
        for r in &self.recent {
            r.input.encode(&mut w.0);
        }
        trailer(&mut w);
        w.finish()
    }
}

/// Server side: every client's input queue and the inputs in force.
#[derive(Clone, Debug)]
pub struct ServerInputs {
    queues: Vec<InputQueue<Input>>,
    current: Vec<SeqInput>,
}

impl ServerInputs {
    /// For `players` clients, each queue holding at most `max_queue`.
    pub fn new(players: usize, max_queue: usize) -> ServerInputs {
        ServerInputs {
            queues: (0..players).map(|_| InputQueue::new(max_queue)).collect(),
            current: vec![SeqInput::default(); players],
        }
    }

    /// Takes an input packet from player `p`. `trailer` reads what the
    /// algorithm appended; the inputs are queued only if the whole packet
    /// parses — inputs, then a trailer that returns `Some` and consumes the
    /// rest exactly — so a damaged packet changes nothing.
    pub fn receive<T>(
        &mut self,
        p: usize,
        bytes: &[u8],
        trailer: impl FnOnce(&mut Reader<'_>) -> Option<T>,
    ) -> Option<T> {
        let mut r = Reader::new(bytes);
        if r.u8()? != TAG {
            return None;
        }
        let newest = r.u32()?;
        let n = r.u8()? as usize;
        let inputs = (0..n).map(|_| r.take(3).and_then(Input::decode)).collect::<Option<Vec<_>>>()?;
        if (newest as usize) < inputs.len() {
            return None;
        }
        let extra = trailer(&mut r)?;
        if !r.is_done() {
            return None;
        }
        let q = self.queues.get_mut(p)?;
        // inputs[k] has sequence newest − k: offer them oldest first.
        for (k, input) in inputs.iter().enumerate().rev() {
            q.offer(newest - k as u32, *input);
        }
        Some(extra)
    }

    /// The inputs for this tick: each client's next queued one, or its last.
    pub fn for_tick(&mut self) -> &[SeqInput] {
        for (p, q) in self.queues.iter_mut().enumerate() {
            if let Some(&(seq, input)) = q.for_tick() {
                self.current[p] = SeqInput { seq, input };
            }
        }
        &self.current
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
        let mut down = ServerInputs::new(1, 4);
        let mut last = Vec::new();
        for seq in 1..=4u32 {
            last = up.packet(SeqInput { seq, input: Input::buttons(Input::UP) }, |w| {
                w.u32(99);
            });
        }
        // A packet that does not parse whole queues nothing: a missing
        // trailer, a byte too many, a count lowered by a bit flip.
        assert_eq!(down.receive(0, &last, |_| Some(())), None, "trailer left unread");
        assert_eq!(down.receive(0, &last[..last.len() - 1], |r| r.u32()), None, "trailer cut short");
        let mut longer = last.clone();
        longer.push(0);
        assert_eq!(down.receive(0, &longer, |r| r.u32()), None, "a byte too many");
        let mut fewer = last.clone();
        fewer[5] = 2;
        assert_eq!(down.receive(0, &fewer, |r| r.u32()), None, "input count lowered");
        assert!(down.receive(0, &[TAG, 1, 0, 0, 0, 5], |_| Some(())).is_none(), "more inputs than sequence numbers");
        assert!(down.receive(0, &[], |_| Some(())).is_none());
        assert_eq!(down.for_tick()[0].seq, 0, "nothing was queued");
        // Only the last packet arrives: it still carries inputs 2..=4.
        assert_eq!(down.receive(0, &last, |r| r.u32()), Some(99));
        let got: Vec<u32> = (0..3).map(|_| down.for_tick()[0].seq).collect();
        assert_eq!(got, vec![2, 3, 4]);
    }
}
