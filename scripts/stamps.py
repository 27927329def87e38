#!/usr/bin/env python3
"""Summarises the per-warp clock64 stamps of lessons/calibration/latency_under_load.toml.

    python3 scripts/stamps.py DIR/stamps.npy [WARPS_PER_BLOCK]

Prints, in SM cycles: the warps' start-to-store-issued time (address math, two loads, the add,
the store's issue), as median / 10th / 90th percentile / max; each block's span (first start to
last stamp); and the gap on one SM from a block's last stamp to the next block's first start
(store drain, retirement, launch), meaningful when one block fits per SM. Python only, no NumPy.
"""
import ast
import struct
import sys


def load_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not a .npy file")
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    if header["descr"] != "<i8":
        sys.exit(f"{path}: expected int64 stamps, got {header['descr']}")
    body = data[10 + hlen:]
    return struct.unpack(f"<{len(body) // 8}q", body)


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


def main():
    v = load_npy(sys.argv[1])
    wpb = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    warps = [v[i:i + 4] for i in range(0, len(v), 4)]
    lat = [w[1] - w[0] for w in warps]
    print(f"warps {len(warps)}: start->store issued, cycles: median {pct(lat, 50)}, "
          f"p10 {pct(lat, 10)}, p90 {pct(lat, 90)}, max {max(lat)}")
    blocks = {}
    for w in warps:
        b = blocks.setdefault(w[3], [w[2], w[0], w[1]])
        b[1] = min(b[1], w[0])
        b[2] = max(b[2], w[1])
    span = [b[2] - b[1] for b in blocks.values()]
    print(f"blocks {len(blocks)}: span (first start -> last stamp) median {pct(span, 50)}, "
          f"p10 {pct(span, 10)}, p90 {pct(span, 90)}")
    per_sm = {}
    for b in blocks.values():
        per_sm.setdefault(b[0], []).append((b[1], b[2]))
    gaps = []
    for lst in per_sm.values():
        lst.sort()
        for a, b in zip(lst, lst[1:]):
            gaps.append(b[0] - a[1])
    if gaps:
        print(f"SMs {len(per_sm)}: next block's start - previous block's last stamp (one block "
              f"per SM): median {pct(gaps, 50)}, p10 {pct(gaps, 10)}, p90 {pct(gaps, 90)}")
        per = [(lst[-1][1] - lst[0][0]) / max(1, len(lst) - 1) for lst in per_sm.values()]
        print(f"cycles per block on an SM (first start to last stamp / blocks-1): median "
              f"{pct(per, 50):.0f}")


if __name__ == "__main__":
    main()
