//! The area-of-interest snapshot codec: a client's *view* of the world
//! (the entities it may see, by id) encoded against the view it
//! acknowledged, as antsmallant's three events:
//!
//! - **leave**: ids in the baseline but not in the new view (old − new);
//! - **enter**: entities not in the baseline, sent whole (new − old);
//! - **move**: entities in both whose quantized state changed, as the delta
//!   codec's change mask and zigzag varints (unchanged ones cost nothing).
//!
//! Without a baseline every entity enters. Ids are ascending in each list
//! and coded as gaps, so a dense neighbourhood costs a byte an id.
//!
//! Wire: `32, frame: u32, baseline: u32 (0 = none)`, then three lists,
//! each `count: varint` and its items: leave `gap`; enter `gap, mask,
//! varints`; move `gap, mask, varints` (mask ≠ 0). A gap is `id − (previous
//! id + 1)` (the first against 0). The decoder rejects anything
//! inconsistent with its baseline (a leave or move of an entity it does
//! not hold, an enter of one it does), as well as truncation and trailing
//! bytes.

use super::delta::{encoded, get_varint, put_varint, unzigzag, zigzag, Quantized};

/// A client's view: `(entity id, state)`, ascending by id.
pub type SparseWorld = Vec<(u16, Quantized)>;

const TAG: u8 = 32;
const HEADER: usize = 9;

fn fields(e: &Quantized, base: &Quantized) -> [i64; 3] {
    [e.x as i64 - base.x as i64, e.y as i64 - base.y as i64, e.z as i64 - base.z as i64]
}

fn put_entity(out: &mut Vec<u8>, diffs: [i64; 3]) {
    let mask = diffs.iter().enumerate().fold(0u8, |m, (k, d)| if *d != 0 { m | 1 << k } else { m });
    out.push(mask);
    for d in diffs.iter().filter(|d| **d != 0) {
        put_varint(out, zigzag(*d));
    }
}

struct Ids {
    next: u32,
}

impl Ids {
    fn put(&mut self, out: &mut Vec<u8>, id: u16) {
        put_varint(out, (id as u32 - self.next) as u64);
        self.next = id as u32 + 1;
    }
    fn get(&mut self, b: &[u8], pos: &mut usize) -> Option<u16> {
        let id = self.next as u64 + get_varint(b, pos)?;
        let id = u16::try_from(id).ok()?;
        self.next = id as u32 + 1;
        Some(id)
    }
}

/// Encodes `view` (frame `frame`, ascending ids) against `baseline`.
pub fn encode(frame: u32, view: &[(u16, Quantized)], baseline: Option<(u32, &[(u16, Quantized)])>) -> Vec<u8> {
    // The event lists are made in buffers each thread keeps, the datagram
    // as the whole-world codec makes its own (`delta::encoded`).
    thread_local! {
        static EVENTS: std::cell::RefCell<Events> = std::cell::RefCell::new(Events::default());
    }
    EVENTS.with_borrow_mut(|events| encoded(0, |out| encode_into(events, out, frame, view, baseline)))
}

/// [`encode`]'s event lists.
#[derive(Default)]
struct Events {
    leave: Vec<u16>,
    enter: Vec<(u16, [i64; 3])>,
    moved: Vec<(u16, [i64; 3])>,
}

fn encode_into(
    events: &mut Events,
    out: &mut Vec<u8>,
    frame: u32,
    view: &[(u16, Quantized)],
    baseline: Option<(u32, &[(u16, Quantized)])>,
) {
    let base: &[(u16, Quantized)] = baseline.map_or(&[], |b| b.1);
    let Events { leave, enter, moved } = events;
    leave.clear();
    enter.clear();
    moved.clear();
    let (mut i, mut j) = (0, 0);
    while i < base.len() || j < view.len() {
        match (base.get(i), view.get(j)) {
            (Some(a), Some(b)) if a.0 == b.0 => {
                if a.1 != b.1 {
                    moved.push((b.0, fields(&b.1, &a.1)));
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.0 < b.0 => {
                leave.push(a.0);
                i += 1;
            }
            (Some(a), None) => {
                leave.push(a.0);
                i += 1;
            }
            (_, Some(b)) => {
                enter.push((b.0, fields(&b.1, &Quantized::default())));
                j += 1;
            }
            (None, None) => unreachable!("loop condition"),
        }
    }
    out.reserve(HEADER + 3 + leave.len() * 2 + (enter.len() + moved.len()) * 8);
    out.push(TAG);
    out.extend_from_slice(&frame.to_le_bytes());
    out.extend_from_slice(&baseline.map_or(0, |b| b.0).to_le_bytes());
    put_varint(out, leave.len() as u64);
    let mut ids = Ids { next: 0 };
    for &id in leave.iter() {
        ids.put(out, id);
    }
    for list in [&*enter, &*moved] {
        put_varint(out, list.len() as u64);
        let mut ids = Ids { next: 0 };
        for &(id, diffs) in list {
            ids.put(out, id);
            put_entity(out, diffs);
        }
    }
}

/// The frame and baseline frame a datagram claims, without decoding it.
pub fn header(bytes: &[u8]) -> Option<(u32, u32)> {
    if bytes.first() != Some(&TAG) || bytes.len() < HEADER {
        return None;
    }
    Some((u32::from_le_bytes(bytes[1..5].try_into().ok()?), u32::from_le_bytes(bytes[5..9].try_into().ok()?)))
}

fn get_entity(b: &[u8], pos: &mut usize, base: &Quantized) -> Option<Quantized> {
    let mask = *b.get(*pos)?;
    *pos += 1;
    if mask & !0x07 != 0 {
        return None;
    }
    let mut v = [base.x as i64, base.y as i64, base.z as i64];
    for (k, f) in v.iter_mut().enumerate() {
        if mask & (1 << k) != 0 {
            *f += unzigzag(get_varint(b, pos)?);
        }
    }
    let fit = |v: i64| i32::try_from(v).ok();
    Some(Quantized { x: fit(v[0])?, y: fit(v[1])?, z: fit(v[2])? })
}

/// The place in `view` (ascending by id) from `from` on of the first entity
/// whose id is `id` or more: where `id` is, or would be. Walking a view
/// alongside an ascending list of ids takes one of these per id.
pub fn seek(view: &[(u16, Quantized)], from: usize, id: u16) -> usize {
    from + view.get(from..).map_or(0, |rest| rest.iter().take_while(|e| e.0 < id).count())
}

/// The frame a datagram carries and the baseline it decodes against, if
/// it names one exactly when one is given.
fn opened<'a>(bytes: &[u8], baseline: Option<&'a [(u16, Quantized)]>) -> Option<(u32, &'a [(u16, Quantized)])> {
    let (frame, base_frame) = header(bytes)?;
    ((base_frame == 0) == baseline.is_none()).then_some((frame, baseline.unwrap_or(&[])))
}

/// A list's length, read at `pos`: never more than the bytes left, so a
/// hostile count cannot allocate more than the datagram sent.
fn list_len(bytes: &[u8], pos: &mut usize) -> Option<usize> {
    let n = get_varint(bytes, pos)?;
    (n <= (bytes.len() - *pos) as u64).then_some(n as usize)
}

/// Decodes against `baseline` (the view of the frame the datagram names,
/// or `None` when it names none). Lists are bounded by the datagram's
/// length, so a hostile count cannot allocate more than the bytes it sent.
pub fn decode(bytes: &[u8], baseline: Option<&[(u16, Quantized)]>) -> Option<(u32, SparseWorld)> {
    let (frame, base) = opened(bytes, baseline)?;
    let mut pos = HEADER;
    // Every list is ascending (ids travel as gaps), and so is the
    // baseline (a decoded view): each is matched against the baseline or
    // the view by walking it alongside, not by a search per id.
    // Leave: drop from the baseline (each must be in it).
    let n = list_len(bytes, &mut pos)?;
    let mut view: SparseWorld = Vec::with_capacity(base.len());
    let mut ids = Ids { next: 0 };
    let mut k = 0;
    for _ in 0..n {
        let id = ids.get(bytes, &mut pos)?;
        let at = seek(base, k, id);
        view.extend_from_slice(&base[k..at]);
        if base.get(at).is_none_or(|e| e.0 != id) {
            return None;
        }
        k = at + 1;
    }
    view.extend_from_slice(&base[k..]);
    // Enter: new ids (in no baseline), whole.
    let n = list_len(bytes, &mut pos)?;
    let mut ids = Ids { next: 0 };
    let mut entered = Vec::with_capacity(n);
    let mut k = 0;
    for _ in 0..n {
        let id = ids.get(bytes, &mut pos)?;
        k = seek(base, k, id);
        if base.get(k).is_some_and(|e| e.0 == id) {
            return None;
        }
        entered.push((id, get_entity(bytes, &mut pos, &Quantized::default())?));
    }
    // Move: changed entities the view holds.
    let n = list_len(bytes, &mut pos)?;
    let mut ids = Ids { next: 0 };
    let mut k = 0;
    for _ in 0..n {
        let id = ids.get(bytes, &mut pos)?;
        k = seek(&view, k, id);
        if view.get(k).is_none_or(|e| e.0 != id) {
            return None;
        }
        let e = get_entity(bytes, &mut pos, &view[k].1)?;
        if e == view[k].1 {
            return None; // a move must change something
        }
        view[k].1 = e;
    }
    if pos != bytes.len() {
        return None;
    }
    if entered.is_empty() {
        return Some((frame, view));
    }
    // Both ascending, no id in both (an entering id is in no baseline):
    // merged, they are the view in id order.
    let mut merged = Vec::with_capacity(view.len() + entered.len());
    let (mut a, mut b) = (view.into_iter().peekable(), entered.into_iter().peekable());
    while let (Some(x), Some(y)) = (a.peek(), b.peek()) {
        merged.push(if x.0 < y.0 { a.next() } else { b.next() }.expect("peeked"));
    }
    merged.extend(a.chain(b));
    Some((frame, merged))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn q(x: i32) -> Quantized {
        Quantized { x, y: -x, z: 0 }
    }

    #[test]
    fn events_are_leave_enter_move_and_unchanged_costs_nothing() {
        let old: SparseWorld = vec![(1, q(10)), (5, q(50)), (9, q(90))];
        let new: SparseWorld = vec![(1, q(10)), (5, q(55)), (12, q(120))];
        let b = encode(8, &new, Some((7, &old)));
        // header, leave [9], enter [12 whole], move [5]; entity 1 absent.
        assert_eq!(decode(&b, Some(&old)), Some((8, new.clone())));
        let same = encode(9, &new, Some((8, &new)));
        assert_eq!(same.len(), HEADER + 3, "nothing changed: three empty lists");
        assert_eq!(decode(&same, None), None, "needs its baseline");
        assert_eq!(decode(&b, Some(&new)), None, "a leave of 9, which this baseline lacks");
        let full = encode(8, &new, None);
        assert_eq!(decode(&full, None), Some((8, new)));
        for cut in 0..full.len() {
            assert!(decode(&full[..cut], None).is_none());
        }
        // A count larger than the datagram is refused before allocating.
        let mut hostile = full[..HEADER].to_vec();
        hostile.extend_from_slice(&[0xff, 0xff, 0xff, 0x0f]);
        assert_eq!(decode(&hostile, None), None);
    }

    /// The decoder as it was, with a search per id: what the walking one
    /// must equal on any bytes.
    fn decode_by_search(bytes: &[u8], baseline: Option<&[(u16, Quantized)]>) -> Option<(u32, SparseWorld)> {
        let (frame, base) = opened(bytes, baseline)?;
        let mut pos = HEADER;
        let count = |pos: &mut usize| list_len(bytes, pos);
        let n = count(&mut pos)?;
        let mut keep = vec![true; base.len()];
        let mut ids = Ids { next: 0 };
        for _ in 0..n {
            let id = ids.get(bytes, &mut pos)?;
            let k = base.binary_search_by_key(&id, |e| e.0).ok()?;
            keep[k] = false;
        }
        let mut view: SparseWorld = base.iter().zip(&keep).filter(|(_, k)| **k).map(|(e, _)| *e).collect();
        let n = count(&mut pos)?;
        let mut ids = Ids { next: 0 };
        let mut entered = Vec::new();
        for _ in 0..n {
            let id = ids.get(bytes, &mut pos)?;
            if base.binary_search_by_key(&id, |e| e.0).is_ok() {
                return None;
            }
            entered.push((id, get_entity(bytes, &mut pos, &Quantized::default())?));
        }
        let n = count(&mut pos)?;
        let mut ids = Ids { next: 0 };
        for _ in 0..n {
            let id = ids.get(bytes, &mut pos)?;
            let k = view.binary_search_by_key(&id, |e| e.0).ok()?;
            let e = get_entity(bytes, &mut pos, &view[k].1)?;
            if e == view[k].1 {
                return None;
            }
            view[k].1 = e;
        }
        if pos != bytes.len() {
            return None;
        }
        view.extend(entered);
        view.sort_by_key(|e| e.0);
        Some((frame, view))
    }

    proptest! {
        /// Walking the lists alongside the baseline decodes any bytes —
        /// valid datagrams and damaged ones — exactly as searching did.
        #[test]
        fn walking_decodes_as_searching(
            old in proptest::collection::btree_map(0u16..60, -5000i32..5000, 0..20),
            new in proptest::collection::btree_map(0u16..60, -5000i32..5000, 0..20),
            flips in proptest::collection::vec((any::<usize>(), 0u8..8), 0..3),
            cut in any::<usize>(),
            whole in any::<bool>(),
        ) {
            let world = |m: &std::collections::BTreeMap<u16, i32>| -> SparseWorld {
                m.iter().map(|(id, x)| (*id, q(*x))).collect()
            };
            let (old, new) = (world(&old), world(&new));
            let mut bytes = encode(9, &new, (!whole).then_some((8, old.as_slice())));
            for (at, bit) in flips {
                let k = at % bytes.len();
                bytes[k] ^= 1 << bit;
            }
            if cut % 4 == 0 {
                bytes.truncate(cut % (bytes.len() + 1));
            }
            for baseline in [None, Some(old.as_slice()), Some(new.as_slice())] {
                prop_assert_eq!(decode(&bytes, baseline), decode_by_search(&bytes, baseline));
            }
        }

        /// Whatever views the server sends and whatever is lost, a client
        /// decoding against the view it acknowledged gets exactly the
        /// server's view of that frame.
        #[test]
        fn views_decode_exactly_after_any_loss(
            frames in proptest::collection::vec(
                proptest::collection::btree_map(0u16..40, (-5000i32..5000, 0i32..900, 0u32..3), 0..12), 1..40),
            lost in proptest::collection::vec(any::<bool>(), 40),
        ) {
            let mut acked: Option<(u32, SparseWorld)> = None;
            for (f, m) in frames.iter().enumerate() {
                let frame = f as u32 + 1;
                let view: SparseWorld =
                    m.iter().map(|(id, (x, z, _))| (*id, Quantized { x: *x, y: *x / 2, z: *z })).collect();
                let base = acked.as_ref().map(|(bf, bw)| (*bf, bw.as_slice()));
                let bytes = encode(frame, &view, base);
                if lost[f] {
                    continue;
                }
                let (_, bf) = header(&bytes).unwrap();
                let baseline = if bf == 0 { None } else { acked.as_ref().map(|(_, w)| w.as_slice()) };
                let (df, got) = decode(&bytes, baseline).expect("decodable");
                prop_assert_eq!(df, frame);
                prop_assert_eq!(&got, &view);
                acked = Some((frame, got));
            }
        }
    }
}
