//! Little-endian byte writer and a reader that never panics: every decoder
//! in this crate reads untrusted bytes (the simulator can corrupt them, and
//! live mode receives whatever arrives) and returns `None` on anything
//! malformed.

use harness::game::{Input, SeqInput};

/// Appends little-endian values to a buffer (taken from the thread's
/// [`harness::buffers`] pool, which delivered packets return to).
#[derive(Debug)]
pub struct Writer(pub Vec<u8>);

impl Default for Writer {
    fn default() -> Self {
        Writer::with_capacity(0)
    }
}

impl Writer {
    /// A writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Writer {
        Writer(harness::buffers::take(n))
    }
    /// One byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    /// Two bytes.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Four bytes.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// Four bytes, signed.
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// A LEB128 varint: one byte below 128 (entity ids and counts, so a
    /// small game's bytes are those of a `u8`), up to five.
    pub fn var(&mut self, mut v: u32) -> &mut Self {
        while v >= 0x80 {
            self.0.push(v as u8 | 0x80);
            v >>= 7;
        }
        self.0.push(v as u8);
        self
    }
    /// The bytes written.
    pub fn finish(self) -> Vec<u8> {
        self.0
    }
}

/// Reads little-endian values; every read is checked.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`.
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }
    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    /// One byte.
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    /// Two bytes.
    pub fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    /// Four bytes.
    pub fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    /// Four bytes, signed.
    pub fn i32(&mut self) -> Option<i32> {
        Some(i32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    /// A LEB128 varint of at most five bytes that fits a `u32`.
    pub fn var(&mut self) -> Option<u32> {
        let mut v = 0u64;
        for shift in (0..35).step_by(7) {
            let b = self.u8()?;
            v |= ((b & 0x7f) as u64) << shift;
            if b & 0x80 == 0 {
                return u32::try_from(v).ok();
            }
        }
        None
    }
    /// A count of items at least `min_bytes` long each: refused when the
    /// bytes left cannot hold that many (so a hostile count never sizes an
    /// allocation).
    pub fn count(&mut self, min_bytes: usize) -> Option<usize> {
        let n = self.var()? as usize;
        (n.checked_mul(min_bytes.max(1))? <= self.bytes.len() - self.pos).then_some(n)
    }
    /// Whether every byte was read.
    pub fn is_done(&self) -> bool {
        self.pos == self.bytes.len()
    }
}

/// A stamped input's bytes: `seq: u32`, then the 3-byte input (bucket's
/// and framelock's frames carry one per player).
pub const STAMPED_INPUT_BYTES: usize = 7;

/// Reads one stamped input from its [`STAMPED_INPUT_BYTES`] bytes; `None`
/// if short or with undefined input bits.
pub fn stamped_input(b: &[u8]) -> Option<SeqInput> {
    let seq = u32::from_le_bytes(b.get(..4)?.try_into().ok()?);
    Some(SeqInput { seq, input: Input::decode(b.get(4..)?)? })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_short_reads() {
        let mut w = Writer::default();
        w.u8(7).u16(300).u32(70_000).i32(-5);
        let b = w.finish();
        let mut r = Reader::new(&b);
        assert_eq!((r.u8(), r.u16(), r.u32(), r.i32()), (Some(7), Some(300), Some(70_000), Some(-5)));
        assert!(r.is_done());
        assert_eq!(r.u8(), None);
        let mut r = Reader::new(&b[..2]);
        assert_eq!(r.u8(), Some(7));
        assert_eq!(r.u16(), None);
        assert_eq!(Reader::new(&[]).take(usize::MAX), None);
    }

    #[test]
    fn varints_are_one_byte_below_128_and_refuse_overlong_or_hostile_counts() {
        let mut w = Writer::default();
        w.var(5).var(127).var(128).var(u32::MAX);
        let b = w.finish();
        assert_eq!(&b[..3], &[5, 127, 0x80]);
        let mut r = Reader::new(&b);
        assert_eq!((r.var(), r.var(), r.var(), r.var()), (Some(5), Some(127), Some(128), Some(u32::MAX)));
        assert!(r.is_done());
        assert_eq!(Reader::new(&[0xff, 0xff, 0xff, 0xff, 0x7f]).var(), None, "beyond u32");
        assert_eq!(Reader::new(&[0x80, 0x80]).var(), None, "cut short");
        assert_eq!(Reader::new(&[0xff, 0xff, 0x03, 1, 2, 3]).count(1), None, "65535 items in 3 bytes");
        assert_eq!(Reader::new(&[3, 1, 2, 3]).count(1), Some(3));
    }
}
