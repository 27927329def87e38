#!/usr/bin/env python3
"""Prints tma_order.cu's intervals (SM cycles) from one or more Stamps.npy dumps, side by side.

usage: tma_order.py LABEL=DIR/Stamps.npy [LABEL=...]
"""
import ast
import struct
import sys


def load_npy(path):
    """A 1-D little-endian int64 .npy (what `warplab run --dump` writes for an i64 buffer)."""
    with open(path, "rb") as f:
        data = f.read()
    hlen = struct.unpack_from("<H", data, 8)[0]
    header = ast.literal_eval(data[10 : 10 + hlen].decode("latin1"))
    assert header["descr"] == "<i8", header
    body = data[10 + hlen :]
    return list(struct.unpack(f"<{len(body) // 8}q", body))

ROWS = [  # (mode, name, stamp a, stamp b): interval = stamp[b] - stamp[a]
    (0, "store_alone: store + wait_group.read", 0, 1),
    (0, "store_alone: store + wait_group (whole write)", 1, 2),
    (1, "load_alone: cold load", 0, 1),
    (1, "load_alone: L2-hit load", 1, 2),
    (1, "load_alone: 4 cold loads, 1st", 2, 3),
    (1, "load_alone: 4 cold loads, 4th", 2, 6),
    (2, "store_behind_load: load issue -> store issue", 0, 1),
    (2, "store_behind_load: store read", 1, 2),
    (2, "store_behind_load: cold load", 0, 3),
    (3, "store_behind_4: store read", 1, 2),
    (3, "store_behind_4: 1st cold load", 0, 3),
    (3, "store_behind_4: 4th cold load", 0, 6),
    (4, "store_behind_warm: store read", 1, 2),
    (4, "store_behind_warm: 1st L2-hit load", 0, 3),
    (4, "store_behind_warm: 4th L2-hit load", 0, 6),
    (5, "load_behind_4st: 4 stores issue -> load issue", 0, 1),
    (5, "load_behind_4st: L2-hit load", 1, 2),
    (5, "load_behind_4st: 4 stores read", 0, 3),
    (6, "stores_in_turn: read 1st", 0, 1),
    (6, "stores_in_turn: read 2nd", 0, 2),
    (6, "stores_in_turn: read 3rd", 0, 3),
    (6, "stores_in_turn: read 4th", 0, 4),
    (6, "stores_in_turn: whole writes", 0, 5),
    (7, "store_after_own: store read", 0, 1),
    (7, "store_after_own: cold load", 0, 2),
]


def wide(s, mode, name):
    starts = s[mode * 128 : mode * 128 + 64 : 2]
    ends = [e - min(starts) for e in s[mode * 128 + 1 : mode * 128 + 64 : 2]]
    return [
        (f"{name}: makespan (128 ops)", max(ends)),
        (f"{name}: per op per SM", round(max(ends) / 128, 1)),
        (f"{name}: first warp done", min(ends)),
    ]


def main():
    runs = []
    for a in sys.argv[1:]:
        label, path = a.split("=", 1)
        try:
            runs.append((label, load_npy(path)))
        except OSError as e:
            print(f"# {label}: {e}", file=sys.stderr)
    print("interval\t" + "\t".join(l for l, _ in runs))
    for mode, name, a, b in ROWS:
        vals = [int(s[mode * 128 + b] - s[mode * 128 + a]) for _, s in runs]
        print(name + "\t" + "\t".join(str(v) for v in vals))
    for mode, name in ((8, "pairs32"), (9, "loads32"), (10, "stores32"), (11, "pairs32_132sm"),
                       (12, "loads32_132sm"), (13, "stores32_132sm"), (14, "pairs32_l2"),
                       (15, "loads32_l2"), (16, "stores32_l2")):
        per = [wide(s, mode, name) for _, s in runs]
        for i in range(len(per[0])):
            print(per[0][i][0] + "\t" + "\t".join(str(p[i][1]) for p in per))


if __name__ == "__main__":
    main()
