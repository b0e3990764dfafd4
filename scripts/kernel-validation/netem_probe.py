#!/usr/bin/env python3
"""UDP probe for scripts/kernel-validation/netem-validate.sh (runs inside User-Mode Linux).

send HOST PORT COUNT SPACING_US   -- COUNT datagrams, one every SPACING_US,
                                     each carrying its sequence number and
                                     send time (CLOCK_MONOTONIC, ns), padded
                                     to 100 bytes of payload.
recv PORT OUT_FILE IDLE_S          -- writes "seq delay_ns" per datagram
                                     received until IDLE_S seconds pass
                                     without one.
Both ends run on the same kernel, so their monotonic clocks agree.
"""
import socket
import struct
import sys
import time

PAYLOAD = 100


def send(host, port, count, spacing_us):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    start = time.monotonic_ns() + 50_000_000
    for seq in range(count):
        target = start + seq * spacing_us * 1000
        while True:
            now = time.monotonic_ns()
            if now >= target:
                break
            if target - now > 1_000_000:
                time.sleep((target - now - 500_000) / 1e9)
        body = struct.pack("<IQ", seq, time.monotonic_ns())
        s.sendto(body + b"\0" * (PAYLOAD - len(body)), (host, port))


def recv(port, out_file, idle_s):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.bind(("0.0.0.0", port))
    s.settimeout(30.0)
    rows = []
    try:
        while True:
            data, _ = s.recvfrom(2048)
            now = time.monotonic_ns()
            if len(data) >= 12:
                seq, sent = struct.unpack("<IQ", data[:12])
                rows.append((seq, now - sent))
            s.settimeout(idle_s)
    except socket.timeout:
        pass
    with open(out_file, "w") as f:
        for seq, d in rows:
            f.write(f"{seq} {d}\n")


if __name__ == "__main__":
    if sys.argv[1] == "send":
        send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
    else:
        recv(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
