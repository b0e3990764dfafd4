//! The round trip to each peer, in ticks, measured from acknowledgements
//! of one's own per-frame inputs: what `lockstep`'s input buffer and
//! `rollback`'s prediction window are sized to by default.
//!
//! ```
//! use algorithms::support::round_trip::RoundTrips;
//! let mut r = RoundTrips::new(2);
//! r.made(0, 10);
//! r.made(1, 11);
//! assert_eq!(r.ticks(0, &[0, 0], 15), 5.0, "frame 0, made at 10, unacknowledged at 15");
//! r.acked(1, 2, 17); // frame 1's input acknowledged 6 ticks after it was made
//! assert_eq!(r.ticks(0, &[0, 2], 17), 6.0);
//! ```

/// Per peer, the round trip in ticks, and the tick each own input was made on.
#[derive(Clone, Debug)]
pub struct RoundTrips {
    /// By frame: the tick its own input was made on (`None`: never made).
    made_at: Vec<Option<u64>>,
    /// Per peer: the largest sample, decaying toward newer ones.
    rtt: Vec<f64>,
}

impl RoundTrips {
    /// For a match of `players` players.
    pub fn new(players: usize) -> RoundTrips {
        RoundTrips { made_at: Vec::new(), rtt: vec![0.0; players] }
    }

    /// The own input for `frame` was made on tick `tick`.
    pub fn made(&mut self, frame: u32, tick: u64) {
        let f = frame as usize;
        if self.made_at.len() <= f {
            self.made_at.resize(f + 1, None);
        }
        self.made_at[f] = Some(tick);
    }

    /// Peer `q` now holds `ack` of the own inputs (frames `0..ack`),
    /// learnt on tick `now`: the newest one's age is a sample.
    pub fn acked(&mut self, q: usize, ack: u32, now: u64) {
        let made = ack.checked_sub(1).and_then(|f| self.made_at.get(f as usize).copied().flatten());
        if let (Some(made), Some(r)) = (made, self.rtt.get_mut(q)) {
            let sample = now.saturating_sub(made) as f64;
            *r = if sample >= *r { sample } else { *r + (sample - *r) / 64.0 };
        }
    }

    /// The round trip to the slowest peer other than `me`, ticks, at tick
    /// `now`, each peer having acknowledged `acked_by[q]` inputs: an input
    /// it has not acknowledged yet bounds its round trip from below by its
    /// age, so the first round trip on a long link counts before the first
    /// acknowledgement is back.
    pub fn ticks(&self, me: usize, acked_by: &[u32], now: u64) -> f64 {
        (0..self.rtt.len()).filter(|&q| q != me).fold(0.0f64, |a, q| {
            let first = acked_by.get(q).map_or(0, |&k| k as usize);
            let unacked = self.made_at.iter().skip(first).find_map(|t| *t);
            let waiting = unacked.map_or(0, |t| now.saturating_sub(t));
            a.max(self.rtt[q]).max(waiting as f64)
        })
    }
}
