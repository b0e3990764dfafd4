//! The userspace impairment relay: a socket per node that is its access
//! link, applying the sender's uplink and then the receiver's downlink
//! with the simulator's netem model, and delivering from the sender's
//! relay socket.

use super::*;

/// Node `i`'s access link: takes what the node sends, applies its uplink,
/// hands each surviving copy on.
pub(super) async fn relay_task(sess: Rc<RefCell<Session>>, net: Rc<Net>, i: usize, drop_corrupted: bool) {
    let sock = net.relay_socks[i].clone();
    let mut buf = vec![0u8; 65_536];
    loop {
        let Ok((len, src)) = sock.recv_from(&mut buf).await else { continue };
        let n = net.node_addrs.len();
        let env = Envelope::read(&buf[..len.min(buf.len())]);
        let Some(e) = env.filter(|e| src == net.node_addrs[i] && e.from as usize == i && (e.to as usize) < n) else {
            sess.borrow_mut().relay_refused += 1;
            continue;
        };
        let datagram = buf[..len].to_vec();
        let copies: Vec<_> = {
            let mut s = sess.borrow_mut();
            let now = s.now();
            let path_mtu = s.links[i][0].mtu().min(s.links[e.to as usize][0].mtu());
            s.links[i][0].send_on_path(now, len - HEADER, path_mtu).iter().collect()
        };
        for c in copies {
            let Some(d) = copy_through(&datagram, &c, drop_corrupted) else { continue };
            tokio::task::spawn_local(core(sess.clone(), net.clone(), i, e.to as usize, d, c.time, drop_corrupted));
        }
    }
}

/// One copy of an enveloped datagram as a link delivers it: with netem's
/// flipped bit in the payload (the envelope stays intact, as the simulator
/// corrupts only the algorithm's bytes), or `None` when corrupted copies
/// are dropped, as a receiver's checksum would.
pub(super) fn copy_through(datagram: &[u8], c: &Delivery, drop_corrupted: bool) -> Option<Vec<u8>> {
    let mut d = datagram.to_vec();
    if d.len() >= HEADER && c.corrupt(&mut d[HEADER..]) && drop_corrupted {
        return None;
    }
    Some(d)
}

/// A copy left `from`'s uplink at `t`: through `to`'s downlink, delivered
/// from `from`'s relay socket.
pub(super) async fn core(
    sess: Rc<RefCell<Session>>,
    net: Rc<Net>,
    from: usize,
    to: usize,
    d: Vec<u8>,
    t: Micros,
    drop_corrupted: bool,
) {
    let start = sess.borrow().start;
    sleep_until(at(start, t)).await;
    let copies: Vec<_> = {
        let mut s = sess.borrow_mut();
        let now = s.now();
        let path_mtu = s.links[from][0].mtu().min(s.links[to][0].mtu());
        let link = &mut s.links[to][1];
        if link.is_clean() {
            vec![Delivery { time: now, corrupt_bit: None, held: None }]
        } else {
            link.send_on_path(now, d.len() - HEADER, path_mtu).iter().collect()
        }
    };
    for c in copies {
        let Some(d2) = copy_through(&d, &c, drop_corrupted) else { continue };
        let t2 = c.time;
        let (sess, net) = (sess.clone(), net.clone());
        tokio::task::spawn_local(async move {
            sleep_until(at(start, t2)).await;
            if net.relay_socks[from].send_to(&d2, net.node_addrs[to]).await.is_ok() {
                net.sent_to[to].set(net.sent_to[to].get() + 1);
                let mut s = sess.borrow_mut();
                s.relay_delivered += 1;
                if from == 1 && to == 0 {
                    s.captured.push_back(d2);
                    if s.captured.len() > 64 {
                        s.captured.pop_front();
                    }
                }
            }
        });
    }
}
