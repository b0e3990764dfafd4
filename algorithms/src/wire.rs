//! Little-endian byte writer and a reader that never panics: every decoder
//! in this crate reads untrusted bytes (the simulator can corrupt them, and
//! live mode receives whatever arrives) and returns `None` on anything
//! malformed.

/// Appends little-endian values to a buffer.
#[derive(Debug, Default)]
pub struct Writer(pub Vec<u8>);

impl Writer {
    /// A writer with room for `n` bytes.
    pub fn with_capacity(n: usize) -> Writer {
        Writer(Vec::with_capacity(n))
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
    /// Whether every byte was read.
    pub fn is_done(&self) -> bool {
        self.pos == self.bytes.len()
    }
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
}
