#!/usr/bin/env python3
"""UDP probe for scripts/kernel-validation/netem-corrupt.sh (runs inside User-Mode Linux).

send HOST PORT COUNT SPACING_US NOCHECK -- COUNT datagrams of 100 bytes, a
                                           sequence number then a pattern
                                           derived from it; NOCHECK=1 turns
                                           the UDP checksum off (SO_NO_CHECK)
recv PORT OUT_FILE IDLE_S               -- counts what arrived: intact
                                           datagrams and datagrams whose
                                           bytes differ from the pattern,
                                           and the kernel's UDP/IP error
                                           counters before and after
"""
import socket
import struct
import sys
import time

PAYLOAD = 100
SO_NO_CHECK = 11


def pattern(seq):
    return struct.pack("<I", seq) + bytes((seq * 7 + i * 13) & 0xFF for i in range(PAYLOAD - 4))


def snmp():
    """{'Udp.InCsumErrors': n, 'Ip.InHdrErrors': n, ...} of this namespace."""
    out = {}
    with open("/proc/net/snmp") as f:
        lines = f.read().splitlines()
    for head, vals in zip(lines[0::2], lines[1::2]):
        names, numbers = head.split()[1:], vals.split()[1:]
        proto = head.split(":")[0]
        for n, v in zip(names, numbers):
            out[f"{proto}.{n}"] = int(v)
    return out


def send(host, port, count, spacing_us, nocheck):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if nocheck:
        s.setsockopt(socket.SOL_SOCKET, SO_NO_CHECK, 1)
    for seq in range(count):
        s.sendto(pattern(seq), (host, port))
        time.sleep(spacing_us / 1e6)


def recv(port, out_file, idle_s):
    before = snmp()
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", port))
    s.settimeout(30.0)
    intact = corrupted = 0
    try:
        while True:
            data, _ = s.recvfrom(2048)
            seq = struct.unpack("<I", data[:4])[0] if len(data) >= 4 else 0
            if data == pattern(seq):
                intact += 1
            else:
                corrupted += 1
            s.settimeout(idle_s)
    except socket.timeout:
        pass
    after = snmp()
    keys = ["Udp.InCsumErrors", "Udp.InErrors", "Ip.InHdrErrors", "Ip.InAddrErrors", "Ip.InUnknownProtos"]
    with open(out_file, "w") as f:
        f.write(f"intact {intact}\ncorrupted {corrupted}\n")
        for k in keys:
            f.write(f"{k} {after.get(k, 0) - before.get(k, 0)}\n")


if __name__ == "__main__":
    if sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1")
    else:
        recv(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
