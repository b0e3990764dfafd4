//! Datagrams the kernel dropped at a UDP socket before anyone read them
//! (its receive buffer was full), as Linux counts them per socket: the
//! `drops` column of `/proc/net/udp` and `/proc/net/udp6`. A live run reads
//! them for its own sockets so that what was sent to a node reconciles
//! with what the node read.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

/// The kernel's drop count for the UDP socket bound to `addr`, or `None`
/// where it cannot be read (not Linux, or no such socket).
pub fn kernel_drops(addr: SocketAddr) -> Option<u64> {
    let table = if addr.is_ipv4() { "/proc/net/udp" } else { "/proc/net/udp6" };
    let text = std::fs::read_to_string(table).ok()?;
    drops_in(&text, addr)
}

/// `addr`'s drop count in the text of a `/proc/net/udp[6]` table.
fn drops_in(text: &str, addr: SocketAddr) -> Option<u64> {
    text.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local = parse_address(fields.get(1)?)?;
        (local == addr).then(|| fields.last()?.parse().ok())?
    })
}

/// `0100007F:1F90` (the address as the kernel's `%08X` of its in-memory
/// bytes, so in host byte order; the port in hex) as a socket address.
fn parse_address(field: &str) -> Option<SocketAddr> {
    let (ip, port) = field.split_once(':')?;
    let port = u16::from_str_radix(port, 16).ok()?;
    let word = |i: usize| u32::from_str_radix(ip.get(8 * i..8 * i + 8)?, 16).ok().map(u32::to_ne_bytes);
    let ip = match ip.len() {
        8 => IpAddr::V4(Ipv4Addr::from(word(0)?)),
        32 => {
            let mut bytes = [0u8; 16];
            for i in 0..4 {
                bytes[4 * i..4 * i + 4].copy_from_slice(&word(i)?);
            }
            IpAddr::V6(Ipv6Addr::from(bytes))
        }
        _ => return None,
    };
    Some(SocketAddr::new(ip, port))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_drops_column_of_the_socket_asked_for() {
        let le = cfg!(target_endian = "little");
        let (a, b) = if le { ("0100007F", "0200007F") } else { ("7F000001", "7F000002") };
        let text = format!(
            "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n\
             \x20 1: {a}:1F90 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 1 2 0000000000000000 17\n\
             \x20 2: {b}:1F90 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 2 2 0000000000000000 5\n"
        );
        assert_eq!(drops_in(&text, "127.0.0.1:8080".parse().unwrap()), Some(17));
        assert_eq!(drops_in(&text, "127.0.0.2:8080".parse().unwrap()), Some(5));
        assert_eq!(drops_in(&text, "127.0.0.1:8081".parse().unwrap()), None);
        assert_eq!(parse_address("00000000000000000000000001000000:0035").unwrap().port(), 53);
    }

    /// A socket nobody reads overflows: every datagram sent to it was
    /// either read or counted as a kernel drop.
    #[cfg(target_os = "linux")]
    #[test]
    fn sent_equals_read_plus_kernel_drops() {
        let rx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let tx = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        let to = rx.local_addr().unwrap();
        let sent = 5_000u64;
        for _ in 0..sent {
            tx.send_to(&[0u8; 1_000], to).unwrap();
        }
        let dropped = kernel_drops(to).expect("this socket's row");
        rx.set_nonblocking(true).unwrap();
        let mut read = 0u64;
        let mut buf = [0u8; 2_000];
        while rx.recv_from(&mut buf).is_ok() {
            read += 1;
        }
        assert!(dropped > 0, "a 5 MB burst fits no default receive buffer");
        assert_eq!(read + dropped, sent);
    }
}
