#!/usr/bin/env python3
"""A game-like message stream over real Linux TCP, for
scripts/kernel-validation/transport-validate.sh (runs inside User-Mode Linux).

  recv PORT OUT_PART [options]        -- in namespace b: accepts one
                                         connection, reassembles the byte
                                         stream into messages
  send HOST PORT OUT_PART [options]   -- in namespace a: connects and sends
  merge SEND_PART RECV_PART OUT_JSON --profile P --hops H
                                      -- joins the two halves into one run:
                                         "latencies_us" a->b per message in
                                         send order (-1 = never delivered),
                                         with --both "back_latencies_us" b->a

options (give both ends the same ones):
  --duration S   seconds of traffic (default 60)
  --rate HZ      messages per second (default 60)
  --both         the receiver sends the same stream back (a game peer does);
                 both directions are measured
  --nagle        leave Nagle on (default: TCP_NODELAY)
  --grace S      how long after the last send a message may still arrive
                 before it counts as never delivered (default 20)

Each message is 20 bytes: u32 index, u64 send time (CLOCK_MONOTONIC, ns,
taken just before send()), 8 bytes padding. Sends are paced on absolute
CLOCK_MONOTONIC deadlines (clock_nanosleep TIMER_ABSTIME), so the stream
does not drift. Both ends run in the same kernel, so the receiver's
delivery time (when recv() returned the message's last byte) minus the send
time is the exact one-way latency, including queueing in the socket.

With --both the receiver's stream runs half a period behind the sender's
(as in syncbench's model), so the two ends' sends do not coincide.

Each end snapshots its namespace's /proc/net/snmp and /proc/net/netstat
(what `nstat -az` reads) before connecting and after closing. The merged
JSON's "counters" hold, as syncbench's `profile stream` counts them (A =
the sender, B = the receiver):
  segments      datagrams A sent (OutSegs + RetransSegs: Linux's OutSegs
                leaves retransmissions out)
  acks          datagrams B sent (its ACKs, and its data with --both)
  retransmits   A's RetransSegs    rtos             A's TCPTimeouts
  loss_probes   A's TCPLossProbes  sack_recoveries  A's TCPSackRecovery
  delayed_acks  B's DelayedACKs (delayed-ACK timer expiries)
and per end ("sender", "receiver") the same split into data segments
(TCPOrigDataSent + RetransSegs) and segments without data (OutSegs -
TCPOrigDataSent: pure ACKs and the handshake), with the raw deltas.
"""
import argparse
import ctypes
import ctypes.util
import errno
import json
import math
import os
import select
import socket
import struct
import sys
import threading
import time

MSG = 20
HEADER = struct.Struct("<IQ")
PAD = b"\0" * (MSG - HEADER.size)
CLOCK_MONOTONIC = 1
TIMER_ABSTIME = 1

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


class _Timespec(ctypes.Structure):
    _fields_ = [("tv_sec", ctypes.c_long), ("tv_nsec", ctypes.c_long)]


def sleep_until(deadline_ns):
    """Sleeps until CLOCK_MONOTONIC reaches deadline_ns (absolute)."""
    ts = _Timespec(deadline_ns // 1_000_000_000, deadline_ns % 1_000_000_000)
    while True:
        rc = _libc.clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, ctypes.byref(ts), None)
        if rc != errno.EINTR:
            return


def proc_counters():
    """{"Tcp.OutSegs": n, "TcpExt.TCPTimeouts": n, ...} for this namespace."""
    out = {}
    for path in ("/proc/net/snmp", "/proc/net/netstat"):
        with open(path) as f:
            lines = f.read().splitlines()
        for names, values in zip(lines[::2], lines[1::2]):
            prefix, names = names.split(":", 1)
            _, values = values.split(":", 1)
            for n, v in zip(names.split(), values.split()):
                try:
                    out[f"{prefix}.{n}"] = int(v)
                except ValueError:
                    pass
    return out


TCP_INFO_FMT = struct.Struct("<8B24I")  # struct tcp_info up to total_retrans


def tcp_info(sock):
    raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, TCP_INFO_FMT.size)
    if len(raw) < TCP_INFO_FMT.size:
        return None
    f = TCP_INFO_FMT.unpack(raw)
    u = f[8:]
    # rto, ato, snd_mss, rcv_mss, unacked, sacked, lost, retrans, fackets,
    # last_data_sent, last_ack_sent, last_data_recv, last_ack_recv, pmtu,
    # rcv_ssthresh, rtt, rttvar, snd_ssthresh, snd_cwnd, ...
    return {"rto_us": u[0], "unacked": u[4], "srtt_us": u[15], "rttvar_us": u[16], "cwnd": u[18]}


def quantiles(xs):
    if not xs:
        return None
    s = sorted(xs)
    pick = lambda p: s[max(0, math.ceil(p / 100 * len(s)) - 1)]
    return {"p10": pick(10), "p50": pick(50), "p90": pick(90), "max": s[-1]}


def lag_summary(lag_ns):
    if not lag_ns:
        return None
    s = sorted(lag_ns)
    pick = lambda p: round(s[max(0, math.ceil(p / 100 * len(s)) - 1)] / 1000)
    return {"p50": pick(50), "p99": pick(99), "p999": pick(99.9), "max": round(s[-1] / 1000)}


class Stream:
    """One end of the connection: sends (optionally) and receives (optionally)."""

    def __init__(self, sock, args, sending, receiving):
        self.sock, self.args = sock, args
        self.sending, self.receiving = sending, receiving
        self.n = round(args.duration * args.rate)
        self.latency_ns = [-1] * self.n
        self.info = []
        self.lag_ns = []
        self.start_ns = None
        self.errors = []

    def send_loop(self, start_ns, phase_ns):
        period = 1e9 / self.args.rate
        try:
            for i in range(self.n):
                due = start_ns + phase_ns + round(i * period)
                sleep_until(due)
                now = time.monotonic_ns()
                self.lag_ns.append(now - due)
                self.sock.sendall(HEADER.pack(i, now) + PAD)
                if i % 6 == 0:  # tcp_info ten times a second: cwnd and RTO over the run
                    ti = tcp_info(self.sock)
                    if ti:
                        self.info.append(ti)
            self.sock.shutdown(socket.SHUT_WR)
        except OSError as e:
            self.errors.append(f"send: {e}")

    def recv_loop(self, deadline_ns):
        buf = bytearray()
        poller = select.poll()
        poller.register(self.sock, select.POLLIN)
        try:
            while True:
                left_ms = (deadline_ns - time.monotonic_ns()) // 1_000_000
                # poll, not settimeout: the send thread shares the socket
                if left_ms <= 0 or not poller.poll(left_ms):
                    break
                data = self.sock.recv(65536)
                now = time.monotonic_ns()
                if not data:
                    break
                buf += data
                whole = len(buf) - len(buf) % MSG
                for off in range(0, whole, MSG):
                    i, sent = HEADER.unpack_from(buf, off)
                    if i < self.n and self.latency_ns[i] < 0:
                        self.latency_ns[i] = now - sent
                del buf[:whole]
        except OSError as e:
            self.errors.append(f"recv: {e}")

    def run(self, start_ns, phase_ns=0):
        # Everything sent by start + duration; allow `grace` more for the tail.
        deadline = start_ns + int((self.args.duration + self.args.grace) * 1e9)
        threads = []
        if self.sending:
            threads.append(threading.Thread(target=self.send_loop, args=(start_ns, phase_ns)))
        if self.receiving:
            threads.append(threading.Thread(target=self.recv_loop, args=(deadline,)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def part(args, role, stream, before, after):
    info = stream.info
    return {
        "role": role,
        "kernel": os.uname().release,
        "nodelay": not args.nagle,
        "both": args.both,
        "duration_s": args.duration,
        "rate_hz": args.rate,
        "messages_sent": stream.n if stream.sending else 0,
        # what this end received (the other end's stream), in send order
        "latencies_us": [round(x / 1000) if x >= 0 else -1 for x in stream.latency_ns] if stream.receiving else None,
        "counters_before": before,
        "counters_after": after,
        "tcp_info": {
            "cwnd": quantiles([x["cwnd"] for x in info]),
            "rto_ms": quantiles([x["rto_us"] / 1000 for x in info]),
            "srtt_ms": quantiles([x["srtt_us"] / 1000 for x in info]),
            "unacked": quantiles([x["unacked"] for x in info]),
        } if info else None,
        # how late the sends left against their deadlines (timer noise), us
        "send_lag_us": lag_summary(stream.lag_ns),
        "errors": stream.errors,
    }


def setup(sock, args):
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 0 if args.nagle else 1)


def cmd_recv(args):
    before = proc_counters()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("0.0.0.0", args.port))
    ls.listen(1)
    ls.settimeout(60)
    sock, _ = ls.accept()
    setup(sock, args)
    # The sender's first message (index 0) leaves at its start time; the
    # start time is agreed by a 8-byte hello the sender writes first.
    hello = b""
    while len(hello) < 8:
        chunk = sock.recv(8 - len(hello))
        if not chunk:
            raise SystemExit("connection closed before the hello")
        hello += chunk
    (start_ns,) = struct.unpack("<Q", hello)
    st = Stream(sock, args, sending=args.both, receiving=True)
    st.run(start_ns, phase_ns=round(0.5e9 / args.rate))
    sock.close()
    ls.close()
    time.sleep(0.5)  # let the FIN exchange finish before the "after" snapshot
    after = proc_counters()
    with open(args.out, "w") as f:
        json.dump(part(args, "receiver", st, before, after), f)


def cmd_send(args):
    before = proc_counters()
    deadline = time.monotonic() + 30
    while True:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        setup(sock, args)
        try:
            sock.connect((args.host, args.port))
            break
        except (ConnectionRefusedError, socket.timeout, OSError):
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    # Start half a second after the connection is up: the hello (and the
    # handshake's last ACK) cross the link first.
    start_ns = time.monotonic_ns() + 500_000_000
    sock.sendall(struct.pack("<Q", start_ns))
    st = Stream(sock, args, sending=True, receiving=args.both)
    st.run(start_ns)
    if not args.both:
        # Wait for the receiver's FIN so the last data is ACKed before the snapshot.
        sock.settimeout(args.grace + 5)
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
    sock.close()
    time.sleep(0.5)
    after = proc_counters()
    with open(args.out, "w") as f:
        json.dump(part(args, "sender", st, before, after), f)


def delta(p):
    b, a = p["counters_before"], p["counters_after"]
    return {k: a[k] - b.get(k, 0) for k in a if a[k] - b.get(k, 0) != 0}


def summary(d):
    # Linux counts a segment in OutSegs only if it carries new data or no
    # data at all: retransmissions are in RetransSegs alone.
    orig = d.get("TcpExt.TCPOrigDataSent", 0)
    rtx = d.get("Tcp.RetransSegs", 0)
    return {
        "datagrams": d.get("Tcp.OutSegs", 0) + rtx,
        "data_segments": orig + rtx,
        "pure_acks": d.get("Tcp.OutSegs", 0) - orig,
        "retransmits": d.get("Tcp.RetransSegs", 0),
        "rtos": d.get("TcpExt.TCPTimeouts", 0),
        "loss_probes": d.get("TcpExt.TCPLossProbes", 0),
        "sack_recoveries": d.get("TcpExt.TCPSackRecovery", 0),
        "delayed_acks": d.get("TcpExt.DelayedACKs", 0),
    }


def cmd_merge(args):
    s = json.load(open(args.send_part))
    r = json.load(open(args.recv_part))
    ds, dr = delta(s), delta(r)
    ss, sr = summary(ds), summary(dr)
    counters = {
        "segments": ss["datagrams"],
        "acks": sr["datagrams"],
        "retransmits": ss["retransmits"],
        "rtos": ss["rtos"],
        "loss_probes": ss["loss_probes"],
        "sack_recoveries": ss["sack_recoveries"],
        "delayed_acks": sr["delayed_acks"],
    }
    counters["sender"] = ss  # namespace a (one hop) / a2 (two hops)
    counters["receiver"] = sr  # namespace b / b2
    counters["raw"] = {"sender": ds, "receiver": dr}
    out = {
        "source": "linux",
        "profile": args.profile,
        "nodelay": s["nodelay"],
        "hops": args.hops,
        "both": s["both"],
        "duration_s": s["duration_s"],
        "rate_hz": s["rate_hz"],
        "size_bytes": MSG,
        # per direction: the messages sent, and each one's latency in send
        # order (a->b; with --both also b->a in back_latencies_us)
        "messages": len(r["latencies_us"]),
        "latencies_us": r["latencies_us"],
        **({"back_latencies_us": s["latencies_us"]} if s["both"] else {}),
        "counters": counters,
        "tcp_info": {"sender": s["tcp_info"], "receiver": r["tcp_info"]},
        "send_lag_us": {"sender": s.get("send_lag_us"), "receiver": r.get("send_lag_us")},
        "kernel": s.get("kernel", os.uname().release),
        "errors": s["errors"] + r["errors"],
    }
    with open(args.out, "w") as f:
        json.dump(out, f)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)

    def common(sp):
        sp.add_argument("--duration", type=float, default=60)
        sp.add_argument("--rate", type=float, default=60)
        sp.add_argument("--both", action="store_true")
        sp.add_argument("--nagle", action="store_true")
        sp.add_argument("--grace", type=float, default=20)

    r = sub.add_parser("recv")
    r.add_argument("port", type=int)
    r.add_argument("out")
    common(r)
    s = sub.add_parser("send")
    s.add_argument("host")
    s.add_argument("port", type=int)
    s.add_argument("out")
    common(s)
    m = sub.add_parser("merge")
    m.add_argument("send_part")
    m.add_argument("recv_part")
    m.add_argument("out")
    m.add_argument("--profile", required=True)
    m.add_argument("--hops", type=int, default=1)
    args = p.parse_args()
    {"recv": cmd_recv, "send": cmd_send, "merge": cmd_merge}[args.cmd](args)


if __name__ == "__main__":
    main()
