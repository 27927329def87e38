#!/usr/bin/env python3
# Finds the accumulation rule of the H100's mma.sync (m16n8k16, f16/bf16 -> f32) from the raw
# inputs and outputs that 'tensor_async numerics DIR' writes (DIR/mma-numerics-{bf16,f16}.bin):
# tries alignment width F, final rounding (RZ/RNE), exponent by field sum or true msb, the
# accumulator truncated or exact, groups of 16 or 8 products, and prints the best rules.
#   python3 mma_numerics_rules.py   (paths below: the committed 2026-11-26 H100 files)
import struct, sys, math, itertools
W=256
def load(path):
    b=open(path,'rb').read()
    A=struct.unpack('<%dH'%(W*256), b[:W*512]); o=W*512
    B=struct.unpack('<%dH'%(W*128), b[o:o+W*256]); o+=W*256
    C=struct.unpack('<%df'%(W*128), b[o:o+W*512]); o+=W*512
    D=struct.unpack('<%df'%(W*128), b[o:o+W*512])
    return A,B,C,D
S=400
def hv(h,bf):
    s=-1 if h>>15 else 1
    if bf:
        e=(h>>7)&0xff; m=h&0x7f
        if e==0: return s*m, -133, -126  # value m*2^-133
        return s*(128+m), e-134, e-127
    e=(h>>10)&0x1f; m=h&0x3ff
    if e==0: return s*m,-24,-14
    return s*(1024+m), e-25, e-15
def fv(x):
    if x==0: return 0,0,-200
    m,e=math.frexp(x); im=int(m*(1<<24)); return im, e-24, e-1
def units(m,e): return m<<(e+S) if e+S>=0 else None
def rnd(v,rne,bits=24):
    if v==0: return 0
    neg=v<0; u=-v if neg else v
    msb=u.bit_length()-1
    if msb>=bits:
        sh=msb-bits+1; q=u>>sh; rem=u&((1<<sh)-1); half=1<<(sh-1)
        if rne and (rem>half or (rem==half and q&1)): q+=1
        u=q<<sh
    return -u if neg else u
def trunc(v,sh):
    if sh<=0: return v
    neg=v<0; u=-v if neg else v; u=(u>>sh)<<sh; return -u if neg else u
def run(path,bf):
    A,B,C,D=load(path)
    cases=[]
    for w in range(W):
        for m in range(16):
            for n in range(8):
                prods=[]
                for k in range(16):
                    ma,ea,xa=hv(A[w*256+m*16+k],bf); mb,eb,xb=hv(B[w*128+k*8+n],bf)
                    prods.append((units(ma*mb,ea+eb), xa+xb))  # value, exponent field sum
                mc,ec,xc=fv(C[w*128+m*8+n])
                md,ed,xd=fv(D[w*128+m*8+n])
                cases.append((w%4,prods,(units(mc,ec),xc),units(md,ed)))
    return cases
def rule(case, F, rne, use_field, cmode, group=16):
    prods, (c,xc) = case[1], case[2]
    acc=c; accx=xc
    for g0 in range(0,16,group):
        terms=[(acc,accx)]+prods[g0:g0+group]
        if use_field:
            xs=[x for (v,x) in terms if v!=0]
            emax=max(xs) if xs else 0
            sh=emax+S-F  # keep F fraction bits below 2^emax
        else:
            ms=[abs(v).bit_length()-1 for (v,x) in terms if v!=0]
            emax=max(ms) if ms else 0
            sh=emax-F
        tot=0
        for i,(v,x) in enumerate(terms):
            if i==0 and cmode=='exact': tot+=v
            else: tot+=trunc(v,sh)
        acc=rnd(tot,rne); accx = (abs(acc).bit_length()-1-S) if acc else -200
    return acc
# Other files (wgmma_numerics.cu writes the same format): python3 mma_numerics_rules.py BF16.bin F16.bin
FILES = sys.argv[1:3] if len(sys.argv) > 2 else ['h100-mma-numerics-bf16-2026-11-26.bin', 'h100-mma-numerics-f16-2026-11-26.bin']
for path,bf in ((FILES[0],1),(FILES[1],0)):
    cases=[c for c in run(path,bf) if c[0]!=0][::4]
    res=[]
    for F in range(22,30):
        for rne in (0,1):
            for use_field in (0,1):
                for cmode in ('trunc','exact'):
                  for group in (16,8):
                    n=sum(1 for cs in cases if rule(cs,F,rne,use_field,cmode,group)==cs[3])
                    res.append((n,F,rne,use_field,cmode,group))
    res.sort(reverse=True)
    print(path, len(cases))
    for r in res[:8]: print(r)
