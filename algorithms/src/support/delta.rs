//! The delta-snapshot codec (Quake 3 style): a world quantized to
//! millimetres, encoded against a baseline the client acknowledged.
//!
//! Per entity: a change mask (x, y, z) and, for each changed field, the
//! zigzag-varint difference from the baseline (whole bytes: a mask byte,
//! then 7-bit varint groups; no bit packing). An entity that did not
//! change costs one byte; a snapshot with no baseline is encoded against
//! an all-zero world, so the same decoder serves both.
//!
//! Wire: `31, frame: u32, baseline: u32 (0 = none), n: u16, n × (mask: u8,
//! varints…)`.

/// Snapshots kept on each side for delta compression: Quake 3's
/// `PACKET_BACKUP` ("number of old messages that must be kept on client
/// and server for delta compression", qcommon.h). A client whose newest
/// acknowledgement the server no longer holds gets a whole snapshot.
/// The whole-world and area-of-interest snapshots both keep this many.
pub(crate) const HISTORY: usize = 32;

/// One entity as the codec carries it: position in millimetres.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quantized {
    /// x, mm.
    pub x: i32,
    /// y, mm.
    pub y: i32,
    /// z, mm.
    pub z: i32,
}

/// Every entity of `s`, quantized as the snapshot codecs (whole-world and
/// area-of-interest) carry it.
pub fn quantize(s: &harness::game::State) -> Vec<Quantized> {
    let mut out = Vec::with_capacity(s.players.len());
    quantize_into(s, &mut out);
    out
}

/// [`quantize`] into `out` (cleared first; its buffer reused).
pub fn quantize_into(s: &harness::game::State, out: &mut Vec<Quantized>) {
    out.clear();
    out.extend(s.players.iter().map(|p| Quantized::from_um(p.x, p.y, p.z)));
}

impl Quantized {
    /// From micrometres, rounded to the nearest millimetre.
    pub fn from_um(x: i32, y: i32, z: i32) -> Quantized {
        let q = |v: i32| ((v as i64 + if v >= 0 { 500 } else { -500 }) / 1000) as i32;
        Quantized { x: q(x), y: q(y), z: q(z) }
    }

    /// Back to micrometres.
    pub fn um(&self) -> [i32; 3] {
        [self.x * 1000, self.y * 1000, self.z * 1000]
    }
}

const TAG: u8 = 31;

pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn get_varint(b: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *b.get(*pos)?;
        *pos += 1;
        v |= ((byte & 0x7f) as u64) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

pub(crate) fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub(crate) fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Encodes `world` (frame `frame`) against `baseline` (`None`: no baseline).
pub fn encode(frame: u32, world: &[Quantized], baseline: Option<(u32, &[Quantized])>) -> Vec<u8> {
    // Room for the worst case: a mask and three 5-byte varints an entity.
    encoded(11 + world.len() * 16, |out| encode_into(out, frame, world, baseline))
}

/// The datagram `write` appends to an empty buffer: written into one each
/// thread keeps (`room` bytes reserved), then copied out into a packet
/// buffer from [`harness::buffers`] (reused once delivered; a large one at
/// its exact size): no growing and copying on the way, and no unused
/// capacity travelling with a large packet. A server encodes a snapshot per client per tick.
pub(crate) fn encoded(room: usize, write: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    thread_local! {
        static ENCODED: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    ENCODED.with_borrow_mut(|out| {
        out.clear();
        out.reserve(room);
        write(out);
        let mut packet = harness::buffers::take(out.len());
        packet.extend_from_slice(out);
        packet
    })
}

fn encode_into(out: &mut Vec<u8>, frame: u32, world: &[Quantized], baseline: Option<(u32, &[Quantized])>) {
    out.push(TAG);
    out.extend_from_slice(&frame.to_le_bytes());
    out.extend_from_slice(&baseline.map_or(0, |b| b.0).to_le_bytes());
    out.extend_from_slice(&(world.len() as u16).to_le_bytes());
    let zero = Quantized::default();
    for (i, e) in world.iter().enumerate() {
        let base = baseline.and_then(|b| b.1.get(i)).unwrap_or(&zero);
        let diffs = [e.x as i64 - base.x as i64, e.y as i64 - base.y as i64, e.z as i64 - base.z as i64];
        let mask = diffs.iter().enumerate().fold(0u8, |m, (k, d)| if *d != 0 { m | 1 << k } else { m });
        out.push(mask);
        for d in diffs.iter().filter(|d| **d != 0) {
            put_varint(out, zigzag(*d));
        }
    }
}

/// The frame and baseline frame a datagram claims, without decoding it.
pub fn header(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.first() != Some(&TAG) || bytes.len() < 11 {
        return None;
    }
    Some((u32::from_le_bytes(bytes[1..5].try_into().ok()?), u32::from_le_bytes(bytes[5..9].try_into().ok()?)))
}

/// Decodes against `baseline` (which must be the world of the frame the
/// datagram names, or `None` when it names none).
pub fn decode(bytes: &[u8], baseline: Option<&[Quantized]>) -> Option<(u32, Vec<Quantized>)> {
    let (frame, base_frame) = header(bytes)?;
    if (base_frame == 0) != baseline.is_none() {
        return None;
    }
    let n = u16::from_le_bytes(bytes[9..11].try_into().ok()?) as usize;
    let mut pos = 11;
    let zero = Quantized::default();
    let mut world = Vec::with_capacity(n);
    for i in 0..n {
        let mask = *bytes.get(pos)?;
        pos += 1;
        if mask & !0x07 != 0 {
            return None;
        }
        let base = baseline.and_then(|b| b.get(i)).unwrap_or(&zero);
        let mut field = |k: u8, v: i64| -> Option<i64> {
            if mask & (1 << k) == 0 {
                return Some(v);
            }
            Some(v + unzigzag(get_varint(bytes, &mut pos)?))
        };
        let x = field(0, base.x as i64)?;
        let y = field(1, base.y as i64)?;
        let z = field(2, base.z as i64)?;
        let fit = |v: i64| i32::try_from(v).ok();
        world.push(Quantized { x: fit(x)?, y: fit(y)?, z: fit(z)? });
    }
    (pos == bytes.len()).then_some((frame, world))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn unchanged_entities_cost_one_byte() {
        let w = vec![Quantized { x: 4000, y: -7, z: 0 }; 10];
        let full = encode(5, &w, None);
        let delta = encode(6, &w, Some((5, &w)));
        assert_eq!(delta.len(), 11 + 10);
        assert!(full.len() > delta.len());
        assert_eq!(decode(&delta, Some(&w)), Some((6, w.clone())));
        assert_eq!(decode(&full, None), Some((5, w.clone())));
        assert_eq!(decode(&delta, None), None, "needs its baseline");
        for cut in 0..full.len() {
            assert!(decode(&full[..cut], None).is_none());
        }
    }

    proptest! {
        /// Whatever snapshots are lost, a client that decodes each delta
        /// against the baseline it acknowledged gets exactly the server's
        /// (quantized) world of that frame.
        #[test]
        fn delta_decoding_survives_any_loss_pattern(
            moves in proptest::collection::vec(proptest::collection::vec((-3000i32..3000, -3000i32..3000, 0i32..900), 4), 1..60),
            lost in proptest::collection::vec(any::<bool>(), 60),
        ) {
            let mut world = vec![Quantized::default(); 4];
            let mut server_sent: Vec<(u32, Vec<Quantized>)> = Vec::new();
            let mut client_acked: Option<(u32, Vec<Quantized>)> = None;
            for (f, step) in moves.iter().enumerate() {
                let frame = f as u32 + 1;
                for (e, (dx, dy, z)) in world.iter_mut().zip(step) {
                    e.x += dx;
                    e.y += dy;
                    e.z = *z;
                }
                // The server encodes against what the client last acked.
                let base = client_acked.as_ref().map(|(bf, bw)| (*bf, bw.as_slice()));
                let bytes = encode(frame, &world, base);
                server_sent.push((frame, world.clone()));
                if lost[f] {
                    continue;
                }
                let (bf, _) = header(&bytes).unwrap();
                let baseline = if bf == 0 { None } else { client_acked.as_ref().map(|(_, w)| w.as_slice()) };
                let (df, decoded) = decode(&bytes, baseline).expect("decodable");
                prop_assert_eq!(df, frame);
                prop_assert_eq!(&decoded, &world);
                client_acked = Some((frame, decoded));
            }
        }
    }
}
