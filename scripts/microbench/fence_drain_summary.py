#!/usr/bin/env python3
"""Figures of scripts/microbench/fence_drain/fence_drain.toml's dump: python3 scripts/microbench/fence_drain_summary.py DIR
(per launch, the median over rounds 1..15 of each recorded span: fence_drain.cu's header)."""
import struct, ast, glob, sys
def load(p):
    d = open(p, 'rb').read(); h = struct.unpack('<H', d[8:10])[0]; hd = ast.literal_eval(d[10:10 + h].decode())
    c = {'<i8': 'q', '<u4': 'I', '<f4': 'f'}[hd['descr']]; b = d[10 + h:]
    return struct.unpack('<%d%s' % (len(b) // struct.calcsize(c), c), b)
names = {0: 'issue', 1: 'fence', 2: 'w1_issue', 3: 'w1_fence', 4: 'w1_stream', 5: 'w1_stream_fence', 6: 'last_stream'}
for f in sorted(glob.glob(sys.argv[1] + '/d_*.npy')):
    v = load(f); row = []
    for j, nm in names.items():
        xs = sorted(v[r * 8 + j] for r in range(1, 16))
        if any(xs): row.append('%s %d (%d..%d)' % (nm, xs[7], xs[0], xs[-1]))
    print(f.split('/')[-1][2:-4], ' '.join(row))
