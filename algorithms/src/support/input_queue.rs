//! A server's per-client input queue: a jitter buffer of sequenced inputs.
//!
//! Inputs arrive (possibly repeated by redundancy, possibly out of order
//! across packets) and leave one per server tick. Only inputs newer than
//! the newest seen are queued; when the queue grows past its limit the
//! oldest are dropped, bounding the latency it adds. When it is empty the
//! server repeats the last input (see [`InputQueue::for_tick`]).

use std::collections::VecDeque;

/// Queued inputs of one client, each with its sequence number.
#[derive(Clone, Debug)]
pub struct InputQueue<T: Clone> {
    queue: VecDeque<(u32, T)>,
    newest: u32,
    max: usize,
    current: Option<(u32, T)>,
}

impl<T: Clone> InputQueue<T> {
    /// A queue holding at most `max` inputs.
    pub fn new(max: usize) -> InputQueue<T> {
        InputQueue { queue: VecDeque::new(), newest: 0, max: max.max(1), current: None }
    }

    /// Offers input `seq`; ignored unless newer than every input seen.
    pub fn offer(&mut self, seq: u32, item: T) {
        if seq > self.newest {
            self.newest = seq;
            self.queue.push_back((seq, item));
            while self.queue.len() > self.max {
                self.queue.pop_front();
            }
        }
    }

    /// The input for this tick: the next queued one, or the last one again.
    pub fn for_tick(&mut self) -> Option<&(u32, T)> {
        if let Some(n) = self.queue.pop_front() {
            self.current = Some(n);
        }
        self.current.as_ref()
    }

    /// Inputs waiting.
    pub fn len(&self) -> usize {
        self.queue.len()
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dedups_orders_bounds_and_repeats() {
        let mut q = InputQueue::new(2);
        assert!(q.for_tick().is_none());
        q.offer(1, 'a');
        q.offer(1, 'a');
        q.offer(2, 'b');
        q.offer(3, 'c'); // drops 1
        assert_eq!(q.len(), 2);
        assert_eq!(q.for_tick().map(|x| x.0), Some(2));
        assert_eq!(q.for_tick().map(|x| x.0), Some(3));
        assert_eq!(q.for_tick().map(|x| x.0), Some(3), "repeats the last input");
        q.offer(2, 'z');
        assert!(q.is_empty(), "older than the newest seen");
    }
}
