#!/usr/bin/env python3
"""Figures of lessons/calibration/visibility.toml's dump (GPU or model): see visibility.cu.

  python3 scripts/microbench/visibility_summary.py DIR [ROUNDS]

Per flag run (rec_*.npy): for pollers in the writer's block (one SM's clock):
  seen  = back - ts   (store issue -> the poll that saw it has its value), median, min, max
  first = issue - ts  of the first load that saw the store (min over rounds: the earliest issue that
                      can see it), and last = prev - ts of the last load that did not (max over
                      rounds: the latest issue that cannot). A load issued D or more cycles after the
                      store sees it, with last < D <= first.
  load  = back - issue, the poll's own round trip (median).
For pollers in the other block (another SM's clock): the same per direction (block 0 writes,
block 1 writes); each direction has the SMs' clock offset with an opposite sign, so the mean of the
two directions' medians is free of it.
Per batch (cyc*.npy, ret*.npy): cycles a step (each warp's span / steps), and the middle step's
per-load return (cycles since the batch's first load) of warp 0 and the median over warps.
"""
import os
import sys

import ast
import statistics
import struct


def load(path):
    """A 1-D .npy of little-endian i64 / u32 / f32 (what warplab --dump writes), as a list."""
    with open(path, "rb") as f:
        data = f.read()
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10:10 + hlen].decode())
    code = {"<i8": "q", "<u4": "I", "<f4": "f", "<i4": "i", "<u8": "Q"}[header["descr"]]
    body = data[10 + hlen:]
    return list(struct.unpack("<%d%s" % (len(body) // struct.calcsize(code), code), body))


def flags(path, rounds):
    flat = load(path)
    P = len(flat) // ((rounds + 1) * 2 * 4)
    rec = lambda r, b, w: flat[((r * 2 + b) * P + w) * 4:((r * 2 + b) * P + w) * 4 + 4]
    same = {"seen": [], "first": [], "last": [], "load": []}
    cross = {0: {"seen": [], "first": [], "last": [], "load": []},
             1: {"seen": [], "first": [], "last": [], "load": []}}
    for r in range(2, rounds + 1):
        wb = r & 1
        ts = rec(r, wb, 0)[0]
        for b in range(2):
            for w in range(P):
                if b == wb and w == 0:
                    continue
                issue, back, prev, v = rec(r, b, w)
                if v != r or prev < 0:
                    continue
                d = same if b == wb else cross[wb]
                d["seen"].append(back - ts)
                d["first"].append(issue - ts)
                d["last"].append(prev - ts)
                d["load"].append(back - issue)
    out = []

    def line(name, d):
        if not d["seen"]:
            return f"{name}: no samples"
        s, f, l, ld = d["seen"], d["first"], d["last"], d["load"]
        return (f"{name}: n={len(s)} seen median {statistics.median(s):.0f} (min {min(s)}, "
                f"max {max(s)}) first-seeing issue min {min(f)} | last-not-seeing issue max "
                f"{max(l)} load median {statistics.median(ld):.0f}")

    out.append(line("  same SM", same))
    out.append(line("  other SM, block 0 writes", cross[0]))
    out.append(line("  other SM, block 1 writes", cross[1]))
    if cross[0]["seen"] and cross[1]["seen"]:
        m = (statistics.median(cross[0]["seen"]) + statistics.median(cross[1]["seen"])) / 2
        f = (min(cross[0]["first"]) + min(cross[1]["first"])) / 2
        l = (max(cross[0]["last"]) + max(cross[1]["last"])) / 2
        out.append(f"  other SM, offset-free: seen median {m:.0f}, first-seeing issue min {f:.0f}, "
                   f"last-not-seeing issue max {l:.0f}")
    return "\n".join(out)


def main():
    d = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    if os.path.exists(os.path.join(d, "sms.npy")):
        print("sms", load(os.path.join(d, "sms.npy")))
    for name in sorted(os.listdir(d)):
        if name.startswith("rec_") and name.endswith(".npy"):
            print(name[4:-4])
            print(flags(os.path.join(d, name), rounds))
    for B in (1, 16):
        c = os.path.join(d, f"cyc{B}.npy")
        if not os.path.exists(c):
            continue
        cyc = load(c)
        flat = load(os.path.join(d, f"ret{B}.npy"))
        W = sum(1 for x in cyc if x > 0)
        ret = [flat[w * 16:w * 16 + B] for w in range(W)]
        print(f"returns B={B} W={W}: cycles a step {statistics.median(cyc[:W]) / 32:.0f} "
              f"(min {min(cyc[:W]) / 32:.0f}, max {max(cyc[:W]) / 32:.0f})")
        print("  warp 0:", ret[0])
        print("  median over warps:", [int(statistics.median(x[k] for x in ret)) for k in range(B)])


if __name__ == "__main__":
    main()
