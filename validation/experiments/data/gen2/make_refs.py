#!/usr/bin/env python3
"""Expected results of the second generalization set (validation/experiments/gen2-*.toml).

Plain Python (no numpy): the sparse structures, keys and inputs that the generator kernels make
on the device are rebuilt here from the same integer mix (validation/kernels/gen2/mix.h), and
every expected value is computed from them in exact integer arithmetic (or in double, for the
PageRank step, which the experiment checks with a tolerance). Writes the .npy files beside this
script. Run: python3 make_refs.py
"""
import os
import struct

M = 0xFFFFFFFF
HERE = os.path.dirname(os.path.abspath(__file__))


def mix32(x):
    x = (x * 2654435761) & M
    x ^= x >> 16
    x = (x * 2246822519) & M
    x ^= x >> 13
    return x


def write_npy(name, descr, values):
    fmt = {"<f4": "f", "<i4": "i", "<u4": "I"}[descr]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(values))
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * pad + "\n"
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))


def sparse(n=16384):
    lens = [max(1, 256 // (1 + mix32(r) % 256)) for r in range(n)]
    row_ptr = [0]
    for ln in lens:
        row_ptr.append(row_ptr[-1] + ln)
    sell = sum(32 * max(lens[s * 32:s * 32 + 32]) for s in range(n // 32))
    x = [(mix32(r + 7) % 7) - 3 for r in range(n)]
    cols = []
    y = []
    for r in range(n):
        start = row_ptr[r]
        row = [mix32((r * 1024 + j) & M) % n for j in range(lens[r])]
        vals = [1 + (mix32((start + j) ^ 0x9E3779B9) & 3) for j in range(lens[r])]
        cols.append(row)
        y.append(float(sum(v * x[c] for v, c in zip(vals, row))))
    write_npy("spmv_y.npy", "<f4", y)
    # BFS step from the vertices v % 16 == 0 (distance 0).
    dist = [0 if v % 16 == 0 else -1 for v in range(n)]
    found = 0
    for v in range(0, n, 16):
        for u in cols[v]:
            if dist[u] == -1:
                dist[u] = 1
                found += 1
    write_npy("bfs_dist.npy", "<i4", dist)
    write_npy("bfs_next_size.npy", "<i4", [found])
    # One PageRank pull step from rank = 1/n, damping 0.85 (double; the check allows rounding).
    rank = 1.0 / n
    nxt = [0.15 / n + 0.85 * sum(rank / lens[u] for u in cols[v]) for v in range(n)]
    write_npy("pagerank_next.npy", "<f4", nxt)
    print("sparse n=%d nnz=%d (%.2f per row) sell=%d (%.2f per row) bfs found=%d"
          % (n, row_ptr[-1], row_ptr[-1] / n, sell, sell / n, found))


def walks(n=1 << 22, threads=4096, steps=256):
    out = []
    for t in range(threads):
        v = t
        for _ in range(steps):
            v = (v * 1103515245 + 12345) & M & (n - 1)
        out.append(v)
    write_npy("pointer_chase.npy", "<i4", out)


def shuffles():
    # butterfly_allreduce, x = iota, 32 rounds: the first 4096 lanes (128 warps).
    out = []
    for w in range(128):
        v = [w * 32 + lane for lane in range(32)]
        for r in range(32):
            s = sum(v) & M
            v = [((s ^ (s >> 7)) + lane * (r + 1)) & M for lane in range(32)]
        out.extend(v)
    write_npy("butterfly.npy", "<u4", out)
    # match_scatter, keys = iota: each block of 256 sorted stably by bucket (first 32 blocks).
    out = []
    for b in range(32):
        idx = list(range(b * 256, b * 256 + 256))
        out.extend(sorted(idx, key=lambda i: (mix32(i) >> 28, i)))
    write_npy("match_scatter.npy", "<i4", out)
    # ballot_compact, x = iota: kept values in order per block of 256, the rest of the block 0.
    n = 1 << 18
    counts, out = [], []
    for b in range(n // 256):
        kept = [v for v in range(b * 256, b * 256 + 256) if mix32(v) & 3 == 0]
        counts.append(len(kept))
        if b < 32:
            out.extend(kept + [0] * (256 - len(kept)))
    write_npy("ballot_counts.npy", "<i4", counts)
    write_npy("ballot_out.npy", "<u4", out)


def misc():
    n = 1 << 20
    hist = [0] * 1024
    for i in range(n):
        h = mix32(i) >> 22
        hist[(h * h) >> 10] += 1
    write_npy("histogram.npy", "<u4", hist)
    # transpose of iota (rows x cols): out[c][r] = r * cols + c; first 4 and last output rows.
    rows, cols = 500, 999
    first = [float(r * cols + c) for c in range(4) for r in range(rows)]
    last = [float(r * cols + cols - 1) for r in range(rows)]
    write_npy("transpose_first.npy", "<f4", first)
    write_npy("transpose_last.npy", "<f4", last)
    # stencil_halo on iota (w x h), zero outside: rows 0, 1 and h - 1.
    w, h = 1003, 997

    def at(x, y):
        return y * w + x if 0 <= x < w and 0 <= y < h else 0

    def row(y):
        return [float(at(x, y) + at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1))
                for x in range(w)]

    write_npy("stencil_first.npy", "<f4", row(0) + row(1))
    write_npy("stencil_last.npy", "<f4", row(h - 1))
    # hash tables: keys mix32(2 i) for i < 2^20 must be distinct from the empty key, and
    # probe keys mix32(j) too (mix32 is a bijection, so keys are distinct).
    assert all(mix32(j) != M for j in range(1 << 21))
    m = 1 << 19
    write_npy("hash_probe_first.npy", "<i4", [j // 2 if j % 2 == 0 else -1 for j in range(8192)])
    write_npy("hash_probe_last.npy", "<i4",
              [j // 2 if j % 2 == 0 else -1 for j in range(m - 8192, m)])


if __name__ == "__main__":
    sparse()
    walks()
    shuffles()
    misc()
