#!/usr/bin/env python3
"""A dumb forwarder for `syncbench live --relay HOST:PORT`: learns each
node's address from the envelope's sender field of what it sends, and
passes every datagram on to the address of the envelope's receiver. It
impairs nothing: in scripts/kernel-validation/netem-live.sh the kernel's netem on the veth
pair between the nodes' namespace and this one does.

Envelope (harness/src/live/envelope.rs): "SB", version 2, from: u16,
to: u16 (little-endian), seq: u32, a 32-byte HMAC tag, payload. The
forwarder cannot check the tag (it has no key; the receiving node does);
anything that does not start like an envelope is dropped.

usage: udp_reflector.py LISTEN_IP PORT SECONDS
"""
import socket
import struct
import sys
import time

ip, port, seconds = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
sock.bind((ip, port))
sock.settimeout(0.2)
nodes = {}
forwarded = dropped = 0
end = time.monotonic() + seconds
while time.monotonic() < end:
    try:
        data, addr = sock.recvfrom(65536)
    except socket.timeout:
        continue
    if len(data) < 43 or data[:3] != b"SB\x02":
        dropped += 1
        continue
    frm, to = struct.unpack_from("<HH", data, 3)
    nodes[frm] = addr
    if to == frm or to not in nodes:
        dropped += 1  # a hello, or a receiver not heard from yet
        continue
    sock.sendto(data, nodes[to])
    forwarded += 1
print(f"reflector: {forwarded} forwarded, {dropped} dropped, {len(nodes)} nodes", file=sys.stderr)
