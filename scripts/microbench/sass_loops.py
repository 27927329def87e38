#!/usr/bin/env python3
"""Loads in flight per loop body, from SASS dumps (cuobjdump -sass; scripts/microbench/run.sh).

    scripts/microbench/sass_loops.py DIR_WITH_SASS_FILES

For each backward branch (a loop body), prints the body's LDG/LDS/LDL count, how many issue before
the first instruction that reads one of their results, and the most results outstanding at once
(loads issued minus results read, in program order): what ptxas's schedule lets one warp keep in
flight, to compare with `warplab ptx --schedule` (validation/README.md).
"""
import glob
import re
import sys
inst_re=re.compile(r'/\*([0-9a-f]{4})\*/\s+(.*?);')
def parse(path):
    funcs={};cur=None
    for line in open(path):
        m=re.search(r'Function : (\S+)',line)
        if m: cur=m.group(1);funcs[cur]=[];continue
        m=inst_re.search(line)
        if m and cur: funcs[cur].append((int(m.group(1),16),m.group(2).strip()))
    return funcs
def regs_of(tok):
    # R12, R12.64 -> list
    out=[]
    for r in re.findall(r'\bR(\d+)\b',tok): out.append(int(r))
    return out
def analyze(name,ins):
    res=[]
    for idx,(addr,text) in enumerate(ins):
        m=re.search(r'BRA (?:\S+ )?0x([0-9a-f]+)',text)
        if not m: continue
        tgt=int(m.group(1),16)
        if tgt>=addr: continue
        body=[(a,t) for a,t in ins if tgt<=a<=addr]
        out={} # reg -> load id
        loads=0;maxo=0;first_use=None
        for a,t in body:
            t2=re.sub(r'^@!?U?P\w+\s+','',t)
            op=t2.split()[0]
            parts=t2[len(op):].split(',')
            dst=parts[0] if parts else ''
            srcs=','.join(parts[1:])
            # consumption
            used=set(regs_of(srcs)) | (set(regs_of(dst)) if op.startswith(('ST','RED','ATOM')) else set())
            if op.startswith(('LDG','LDS','LD.','LDL')):
                used=set(regs_of(srcs))
            for r in list(out):
                if r in used:
                    if first_use is None: first_use=loads
                    del out[r]
            if op.startswith(('LDG','LDS','LDL')):
                w=1
                if '.128' in op: w=4
                elif '.64' in op: w=2
                d=regs_of(dst)
                if d:
                    loads+=1
                    for k in range(w): out[d[0]+k]=loads
                # count loads by distinct ids
                maxo=max(maxo,len(set(out.values())))
        res.append((hex(tgt),hex(addr),loads,first_use,maxo))
    return res
for f in sorted(glob.glob(sys.argv[1]+'/*.sass')):
    for fn,ins in parse(f).items():
        regs=None
        for r in analyze(fn,ins):
            if r[2]>=2: print(f.split('/')[-1][:-5],fn,'body',r[0],r[1],'loads',r[2],'before_first_use',r[3],'max_outstanding',r[4])
