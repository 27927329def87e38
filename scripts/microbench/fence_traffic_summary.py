#!/usr/bin/env python3
"""Figures of lessons/calibration/fence_traffic.toml's dump: python3 scripts/microbench/fence_traffic_summary.py DIR
(cycles a fence and a store + fence of warp 0, per launch: median, min and max over blocks)."""
import struct,ast,glob,sys
def load(p):
    d=open(p,'rb').read(); h=struct.unpack('<H',d[8:10])[0]; hd=ast.literal_eval(d[10:10+h].decode())
    c={'<i8':'q','<u4':'I','<f4':'f'}[hd['descr']]; b=d[10+h:]; return struct.unpack('<%d%s'%(len(b)//struct.calcsize(c),c),b)
for f in sorted(glob.glob(sys.argv[1]+'/f_*.npy')):
    v=load(f); n=sum(1 for i in range(0,1024,4) if v[i]>0)
    fs=sorted(v[i]/32 for i in range(0,4*n,4)); sf=sorted(v[i+1]/32 for i in range(0,4*n,4))
    print(f.split('/')[-1][2:-4], 'blocks', n, 'fence median %.1f (min %.1f max %.1f)' % (fs[len(fs)//2], fs[0], fs[-1]), 'store+fence median %.1f (min %.1f max %.1f)' % (sf[len(sf)//2], sf[0], sf[-1]))
