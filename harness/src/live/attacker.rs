//! The attacker of `--hostile`: truncated, oversized and garbage
//! datagrams, replays and forgeries at node 0 through node 1's relay
//! socket, and copies of real datagrams from a socket of its own.

use super::*;

/// The attacker: `n` datagrams of each kind at node 0, spread over the
/// middle of the session.
pub(super) async fn hostile_task(
    sess: Rc<RefCell<Session>>,
    net: Rc<Net>,
    stranger: Rc<UdpSocket>,
    n: u32,
    duration_us: u64,
) {
    let start = sess.borrow().start;
    let (from, to) = (duration_us / 5, duration_us * 7 / 10);
    let step = (to - from) / (6 * n as u64).max(1);
    let victim = net.node_addrs[0];
    let trusted = net.relay_socks[1].clone();
    let mut k = 0u64;
    for round in 0..n as usize {
        for kind in 0..6 {
            sleep_until(at(start, Micros(from + k * step))).await;
            k += 1;
            let (via, bytes) = match kind {
                0 => (&trusted, vec![0x53; 1 + round % (HEADER - 1)]),
                1 => (&trusted, vec![0xA5; MAX_DATAGRAM + 1 + (round * 997) % 8_000]),
                2 => {
                    let mut b: Vec<u8> = (0..HEADER + round % 100).map(|x| (x * 31 + round) as u8).collect();
                    b[0] = b'X'; // never the magic
                    (&trusted, b)
                }
                3 => match sess.borrow().captured.back() {
                    Some(d) => (&trusted, d.clone()),
                    None => continue,
                },
                // A real datagram with its sequence number pushed to the end
                // of the space: accepted, it would lock node 1 out.
                5 => match sess.borrow().captured.back() {
                    Some(d) => {
                        let mut f = d.clone();
                        f[7..11].copy_from_slice(&u32::MAX.to_le_bytes());
                        (&trusted, f)
                    }
                    None => continue,
                },
                _ => match sess.borrow().captured.back() {
                    Some(d) => (&stranger, d.clone()),
                    None => (&stranger, vec![0; HEADER]),
                },
            };
            if via.send_to(&bytes, victim).await.is_ok() {
                net.sent_to[0].set(net.sent_to[0].get() + 1);
                let mut s = sess.borrow_mut();
                let c = &mut s.hostile_sent;
                match kind {
                    0 => c.truncated += 1,
                    1 => c.oversized += 1,
                    2 => c.garbage += 1,
                    3 => c.replayed += 1,
                    5 => c.forged += 1,
                    _ => c.unknown_address += 1,
                }
            }
        }
    }
}
