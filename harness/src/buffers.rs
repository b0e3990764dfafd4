//! A per-thread pool of packet buffers, so a run does not allocate and free
//! a `Vec<u8>` for every packet.
//!
//! A node writes a packet into [`take`]'s buffer and hands it to
//! [`Ctx::send`](crate::contract::Ctx::send); once the receiver has read it,
//! the runner hands it back with [`give`] (through a transport, the
//! transport's delivered copy), and the next packet written on the thread
//! reuses it. A new buffer has room for [`MIN_CAPACITY`] bytes at least, so a
//! small packet waiting in a link's queue holds that much. Buffers are always handed out empty, so what a run
//! sends never depends on the pool. The pool is bounded: at most
//! [`KEPT`] buffers of at most [`KEPT_CAPACITY`] bytes each (a small match's
//! packets; a large world's snapshots are allocated as before).
//!
//! ```
//! let mut b = harness::buffers::take(16);
//! b.extend_from_slice(b"hello");
//! harness::buffers::give(b);
//! assert!(harness::buffers::take(16).is_empty(), "handed out empty");
//! ```

use std::cell::RefCell;

/// Buffers kept per thread, at most.
pub const KEPT: usize = 256;
/// Larger buffers are freed, not kept (bytes of capacity).
pub const KEPT_CAPACITY: usize = 4096;
/// A new buffer has room for at least this many bytes, so a kept one fits
/// most packets without growing (a small match's are tens of bytes).
pub const MIN_CAPACITY: usize = 512;

thread_local! {
    static POOL: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// An empty buffer with room for at least `capacity` bytes: a kept one if
/// the thread has one, else a new one. Past [`KEPT_CAPACITY`] always a new
/// one of exactly that room (the pool would not keep it: a kept buffer
/// grown for it would be lost to the pool).
pub fn take(capacity: usize) -> Vec<u8> {
    if capacity > KEPT_CAPACITY {
        return Vec::with_capacity(capacity);
    }
    let kept = POOL.with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.pop()));
    match kept {
        Some(mut b) => {
            b.reserve(capacity);
            b
        }
        None => Vec::with_capacity(capacity.max(MIN_CAPACITY)),
    }
}

/// Hands a buffer back for [`take`] to reuse (cleared; freed instead when
/// the pool is full or the buffer large).
pub fn give(mut buffer: Vec<u8>) {
    if buffer.capacity() == 0 || buffer.capacity() > KEPT_CAPACITY {
        return;
    }
    buffer.clear();
    POOL.with(|p| {
        if let Ok(mut p) = p.try_borrow_mut() {
            if p.len() < KEPT {
                p.push(buffer);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_empty_with_room_and_the_pool_is_bounded() {
        let mut b = take(8);
        b.extend_from_slice(&[1, 2, 3]);
        give(b);
        let again = take(100);
        assert!(again.is_empty());
        assert!(again.capacity() >= 100);
        give(again);
        let small = take(2);
        assert!(small.is_empty() && small.capacity() >= 2);
        // Large buffers are not kept; the pool never exceeds KEPT.
        give(Vec::with_capacity(KEPT_CAPACITY + 1));
        for _ in 0..KEPT + 10 {
            give(Vec::with_capacity(16));
        }
        assert_eq!(POOL.with(|p| p.borrow().len()), KEPT);
        assert!(POOL.with(|p| p.borrow().iter().all(|b| b.capacity() <= KEPT_CAPACITY && b.is_empty())));
    }
}
