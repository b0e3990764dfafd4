#!/usr/bin/env python3
"""An independent implementation of harness::game::word_hash and lane_hash,
written from their doc comments: the values `state.rs`'s test pins.

usage: python3 scripts/hash-reference.py
"""

M = (1 << 64) - 1
K = 0xA0761D6478BD642F
SEEDS = [0x243F6A8885A308D3, 0x13198A2E03707344, 0xA4093822299F31D0, 0x082EFA98EC4E6C89]


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def mum(h, w):
    m = ((h ^ w) & M) * ((K ^ rotl(w, 32)) | 1)
    return (m & M) ^ (m >> 64)


def fmix64(h):
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & M
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & M
    return h ^ (h >> 33)


def length_seed(b):
    return ((len(b) * 0x9E3779B97F4A7C15) & M) ^ K


def word(b, i):
    return int.from_bytes(b[i : i + 8], "little")


def word_hash(b):
    h = length_seed(b)
    padded = b + bytes(-len(b) % 8)
    for i in range(0, len(padded), 8):
        h = mum(h, word(padded, i))
    return fmix64(h)


def lane_hash(b):
    lanes = list(SEEDS)
    padded = b + bytes(-len(b) % 32)
    for i in range(0, len(padded), 32):
        for lane in range(4):
            lanes[lane] = mum(lanes[lane], word(padded, i + 8 * lane))
    h = length_seed(b)
    for lane in lanes:
        h = mum(h, lane)
    return fmix64(h)


if __name__ == "__main__":
    base = bytes((i * 37 % 251) for i in range(150))
    for name, data in [("the test's 150 bytes", base), ("no bytes", b"")]:
        print(f"{name}: word_hash {word_hash(data):#018x}, lane_hash {lane_hash(data):#018x}")
