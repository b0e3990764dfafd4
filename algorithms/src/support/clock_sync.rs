//! Clock synchronization as thc describes it.
//!
//! The client measures 12 request/response round trips, sorts them, drops
//! the smallest and the largest, and averages the other 10; then it asks
//! for the server's time and sets `offset = server time + rtt/2 − client
//! time`. `server_time()` is then `local time + offset`. The procedure
//! repeats every `resync_us` so a drifting clock is tracked. A lost message
//! is re-sent after a timeout: a second, or twice the longest round trip
//! measured, if longer. A ping's answer that comes after its timeout
//! still counts (it echoes the time it was sent): on a round trip over a
//! second every ping times out before its answer, and a client that took
//! only the outstanding one's would never synchronize.
//!
//! The rtt/2 rule assumes symmetric paths: with up and down delays `u` and
//! `d` the estimate is off by `(u − d)/2`, which the harness measures.
//!
//! Wire (little-endian): ping `20, id: u8, client_time: i64`; pong `21, id,
//! client_time: i64`; time request `22, id`; time response `23, id,
//! server_time: i64`.

use crate::wire::{Reader, Writer};

const PING: u8 = 20;
const PONG: u8 = 21;
const TIME_REQ: u8 = 22;
const TIME_RESP: u8 = 23;
/// Round trips measured per synchronization.
pub const ROUNDS: usize = 12;
const TIMEOUT_US: i64 = 1_000_000;
/// Pings remembered after their timeout, for answers that come late.
const LATE_PINGS: usize = 8;

fn i64_le(r: &mut Reader<'_>) -> Option<i64> {
    Some(i64::from_le_bytes(r.take(8)?.try_into().ok()?))
}

/// The client side of clock synchronization.
#[derive(Clone, Debug)]
pub struct ClockSync {
    rtts: Vec<i64>,
    avg_rtt: Option<i64>,
    outstanding: Option<(u8, i64)>,
    /// Pings timed out, newest last: (id, sent).
    timed_out: Vec<(u8, i64)>,
    next_id: u8,
    offset: Option<i64>,
    next_sync_at: i64,
    resync_us: i64,
}

impl ClockSync {
    /// A synchronizer that re-synchronizes every `resync_us` (0: once).
    pub fn new(resync_us: i64) -> ClockSync {
        ClockSync {
            rtts: Vec::new(),
            avg_rtt: None,
            outstanding: None,
            timed_out: Vec::new(),
            next_id: 0,
            offset: None,
            next_sync_at: i64::MIN,
            resync_us,
        }
    }

    /// The estimated `server − local` offset, once known.
    pub fn offset(&self) -> Option<i64> {
        self.offset
    }

    /// The trimmed mean round trip of the last synchronization.
    pub fn rtt(&self) -> Option<i64> {
        self.avg_rtt
    }

    /// The server's time now, by the estimate.
    pub fn server_time(&self, local_now: i64) -> Option<i64> {
        self.offset.map(|o| local_now + o)
    }

    /// Called every tick: the message to send, if one is due.
    pub fn poll(&mut self, now: i64) -> Option<Vec<u8>> {
        if let Some((id, sent)) = self.outstanding {
            if now - sent < self.timeout() {
                return None;
            }
            // Lost, or slower than the timeout: ask again.
            self.outstanding = None;
            if self.rtts.len() < ROUNDS {
                if self.timed_out.len() == LATE_PINGS {
                    self.timed_out.remove(0);
                }
                self.timed_out.push((id, sent));
            }
        }
        if now < self.next_sync_at {
            return None;
        }
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        self.outstanding = Some((id, now));
        let mut w = Writer::with_capacity(10);
        if self.rtts.len() < ROUNDS {
            w.u8(PING).u8(id);
            w.0.extend_from_slice(&now.to_le_bytes());
        } else {
            w.u8(TIME_REQ).u8(id);
        }
        Some(w.finish())
    }

    /// How long an answer is awaited before asking again.
    fn timeout(&self) -> i64 {
        let longest = self.rtts.iter().copied().max().or(self.avg_rtt).unwrap_or(0);
        TIMEOUT_US.max(2 * longest)
    }

    /// Counts a round trip while a synchronization measures them.
    fn measured(&mut self, rtt: i64) {
        if self.rtts.len() >= ROUNDS {
            return;
        }
        self.rtts.push(rtt);
        if self.rtts.len() == ROUNDS {
            let mut v = self.rtts.clone();
            v.sort_unstable();
            let mid = &v[1..ROUNDS - 1];
            self.avg_rtt = Some(mid.iter().sum::<i64>() / mid.len() as i64);
            self.timed_out.clear();
        }
    }

    /// Handles a server message; `true` if it was a clock-sync message.
    pub fn on_packet(&mut self, now: i64, bytes: &[u8]) -> bool {
        let mut r = Reader::new(bytes);
        let tag = r.u8();
        if tag != Some(PONG) && tag != Some(TIME_RESP) {
            return false;
        }
        let (Some(id), Some(value)) = (r.u8(), i64_le(&mut r)) else { return true };
        if !r.is_done() {
            return true;
        }
        if tag == Some(PONG) {
            if let Some(k) = self.timed_out.iter().position(|&p| p == (id, value)) {
                self.timed_out.remove(k);
                self.measured(now - value);
                return true;
            }
        }
        let Some((want, sent)) = self.outstanding else { return true };
        if id != want {
            return true;
        }
        self.outstanding = None;
        if tag == Some(PONG) {
            if value == sent {
                self.measured(now - sent);
            }
        } else if let Some(rtt) = self.avg_rtt {
            self.offset = Some(value + rtt / 2 - now);
            self.rtts.clear();
            self.next_sync_at = if self.resync_us > 0 { now + self.resync_us } else { i64::MAX };
        }
        true
    }

    /// The server's answer to a clock-sync request, if `bytes` is one.
    pub fn answer(server_now: i64, bytes: &[u8]) -> Option<Vec<u8>> {
        let mut r = Reader::new(bytes);
        let (tag, id) = (r.u8()?, r.u8()?);
        // Read whole before a reply is written: most packets a server hears
        // are not clock requests, and each reply takes a pooled buffer.
        let (reply, time) = match tag {
            PING => (PONG, i64_le(&mut r)?),
            TIME_REQ => (TIME_RESP, server_now),
            _ => return None,
        };
        if !r.is_done() {
            return None;
        }
        let mut w = Writer::with_capacity(10);
        w.u8(reply).u8(id);
        w.0.extend_from_slice(&time.to_le_bytes());
        Some(w.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the exchange with fixed up/down delays and a true offset.
    fn sync(up: i64, down: i64, true_offset: i64) -> i64 {
        let mut c = ClockSync::new(0);
        let mut t = 0i64; // server (true) time
        for _ in 0..100 {
            let local = t - true_offset;
            if let Some(msg) = c.poll(local) {
                t += up;
                let resp = ClockSync::answer(t, &msg).unwrap();
                t += down;
                assert!(c.on_packet(t - true_offset, &resp));
            }
            if let Some(o) = c.offset() {
                return o;
            }
            t += 1_000;
        }
        panic!("never synchronized")
    }

    #[test]
    fn symmetric_paths_give_the_true_offset() {
        assert_eq!(sync(30_000, 30_000, 123_456), 123_456);
    }

    #[test]
    fn asymmetric_paths_bias_by_half_the_asymmetry() {
        // up 80 ms, down 20 ms: estimate − truth = (80 − 20)/2 = 30 ms.
        assert_eq!(sync(80_000, 20_000, -5_000) - (-5_000), 30_000);
    }

    /// Runs the exchange on a clock of 1 ms steps with messages in flight
    /// for `up` and `down` µs; the offset and when it was known.
    fn sync_in_flight(up: i64, down: i64) -> (i64, i64) {
        let mut c = ClockSync::new(0);
        let mut to_server: Vec<(i64, Vec<u8>)> = Vec::new();
        let mut to_client: Vec<(i64, Vec<u8>)> = Vec::new();
        for t in (0..120_000_000).step_by(1_000) {
            for (_, m) in to_server.extract_if(.., |(at, _)| *at <= t) {
                to_client.push((t + down, ClockSync::answer(t, &m).unwrap()));
            }
            for (_, m) in to_client.extract_if(.., |(at, _)| *at <= t) {
                assert!(c.on_packet(t, &m));
            }
            if let Some(o) = c.offset() {
                return (o, t);
            }
            if let Some(m) = c.poll(t) {
                to_server.push((t + up, m));
            }
        }
        panic!("never synchronized")
    }

    #[test]
    fn a_round_trip_over_the_timeout_still_synchronizes() {
        // 1.4 s round trips: each ping times out before its answer comes.
        let (offset, at) = sync_in_flight(700_000, 700_000);
        assert_eq!(offset, 0);
        // The first ping's late answer lengthens the timeout to 2.8 s; the
        // rest wait for theirs: 13 round trips and a timeout, not forever.
        assert!(at <= 14 * 1_400_000 + 1_000_000, "synchronized at {at} µs");
        let (offset, at) = sync_in_flight(30_000, 30_000);
        assert_eq!((offset, at), (0, 13 * 60_000), "a short round trip is unchanged");
    }

    #[test]
    fn garbage_is_ignored() {
        let mut c = ClockSync::new(0);
        assert!(!c.on_packet(0, &[]));
        assert!(c.on_packet(0, &[PONG]));
        assert!(ClockSync::answer(0, &[PING, 1, 2]).is_none());
        assert!(ClockSync::answer(0, &[99]).is_none());
    }
}
