import sys, gzip, collections, statistics as st
D=sys.argv[1]
def rows(name):
    try: f=gzip.open(f"{D}/{name}.gz","rt")
    except: f=open(f"{D}/{name}")
    try:
        lines=f.read().splitlines()
    except FileNotFoundError:
        return []
    h=lines[0].split('\t')
    return [dict(zip(h,l.split('\t'))) for l in lines[1:]]
# GPC map
g=rows("gpcmap.tsv")
parent={}
def find(x):
    while parent.setdefault(x,x)!=x: x=parent[x]
    return x
clus=collections.defaultdict(set)
for r in g: clus[(r['C'],r['rep'],r['peer_smid'])].add(int(r['smid']))
for s in clus.values():
    s=list(s)
    for x in s[1:]: parent[find(x)]=find(s[0])
groups=collections.defaultdict(list)
for x in list(parent): groups[find(x)].append(x)
print("GPC groups (from 1-block/SM cluster launches):", sorted([sorted(v) for v in groups.values()], key=lambda v:v[0]))
print("sizes", sorted(len(v) for v in groups.values()), "total", sum(len(v) for v in groups.values()))
for C in ("2",):
    pairs=[sorted(s) for k,s in clus.items() if k[0]==C]
    tpc=sum(1 for p in pairs if len(p)==2 and p[0]//2==p[1]//2)
    print(f"C=2 clusters on one TPC (smid//2): {tpc} of {len(pairs)}")
gpc_of={x:find(x) for x in parent}
# sync
s=rows("sync.tsv")
by=collections.defaultdict(list)
for r in s: by[(r['kernel'],r['C'],r['rep'])].append(r)
for k,rs in sorted(by.items()):
    C=int(k[1]); ev=float(rs[0]['event_us'])
    per_sm=collections.Counter(r['smid'] for r in rs)
    cl=collections.defaultdict(list)
    for r in rs: cl[int(r['block'])//C].append(r)
    worst=max(cl.values(), key=lambda v:max(int(x['cycles']) for x in v))
    wc=max(int(x['cycles']) for x in worst)/256
    med=st.median(max(int(x['cycles']) for x in v)/256 for v in cl.values())
    shared_cl=[v for v in cl.values() if any(int(x['blocks_on_sm'])>1 for x in v)]
    sc=[max(int(x['cycles']) for x in v)/256 for v in shared_cl]
    nsc=[max(int(x['cycles']) for x in v)/256 for v in cl.values() if v not in shared_cl]
    gpcs=collections.Counter(gpc_of.get(int(r['smid']),-1) for r in rs)
    print(f"{k[0]} C={C} rep={k[2]} ev={ev:.1f}us cyc/bar: median cluster {med:.0f} worst {wc:.0f} | SMs used {len(per_sm)} max blocks/SM {max(per_sm.values())} | clusters sharing an SM {len(shared_cl)}: {st.mean(sc) if sc else 0:.0f}, others {st.mean(nsc) if nsc else 0:.0f} | worst cluster blocks_on_sm {[x['blocks_on_sm'] for x in worst]} | blocks per GPC {sorted(gpcs.values())}")
# neighbor
n=rows("neighbor.tsv")
by=collections.defaultdict(list)
for r in n: by[(r['kernel'],r['C'],r['dist'],r['grid'],r['rep'])].append(r)
for k,rs in sorted(by.items(), key=lambda kv:(kv[0][0],int(kv[0][1]),int(kv[0][2]),int(kv[0][3]),kv[0][4])):
    ev=float(rs[0]['event_us'])
    same=[262144/int(r['cycles']) for r in rs if int(r['smid'])//2==int(r['peer_smid'])//2 and r['smid']!=r['peer_smid']]
    cross=[262144/int(r['cycles']) for r in rs if int(r['smid'])//2!=int(r['peer_smid'])//2]
    samesm=[262144/int(r['cycles']) for r in rs if r['smid']==r['peer_smid']]
    bos=collections.Counter(r['blocks_on_sm'] for r in rs)
    f=lambda v: f"{len(v)}x med {st.median(v):.1f} min {min(v):.1f}" if v else "-"
    print(f"{k[0]} C={k[1]} d={k[2]} grid={k[3]} rep={k[4]} ev={ev:.2f}us B/cyc same-TPC [{f(same)}] cross [{f(cross)}] same-SM [{f(samesm)}] blocks_on_sm {dict(bos)}")
c=rows("chase.tsv")
by=collections.defaultdict(list)
for r in c: by[(r['C'],r['dist'])].append(r)
for k,rs in sorted(by.items()):
    same=[int(r['cycles'])/512 for r in rs if int(r['smid'])//2==int(r['peer_smid'])//2 and r['smid']!=r['peer_smid']]
    cross=[int(r['cycles'])/512 for r in rs if int(r['smid'])//2!=int(r['peer_smid'])//2]
    samesm=[int(r['cycles'])/512 for r in rs if r['smid']==r['peer_smid']]
    f=lambda v: f"{len(v)}x med {st.median(v):.1f} [{min(v):.1f},{max(v):.1f}]" if v else "-"
    print(f"chase C={k[0]} d={k[1]} cyc/step same-TPC {f(same)} cross {f(cross)} same-SM {f(samesm)}")
t=rows("tma.tsv")
by=collections.defaultdict(list)
for r in t: by[(r['W'],r['H'],r['mode'])].append(r)
for k,rs in sorted(by.items()):
    L=[int(r['load_cycles']) for r in rs]; S=[int(r['store_cycles']) for r in rs]
    t0=min(int(r['t0_ns']) for r in rs); t1=max(int(r['t1_ns']) for r in rs)
    bos=collections.Counter(int(r['blocks_on_sm']) for r in rs)
    q=lambda v: f"p10 {sorted(v)[len(v)//10]} med {st.median(v):.0f} p90 {sorted(v)[9*len(v)//10]}"
    print(f"tma W={k[0]} H={k[1]} mode={k[2]} ev={rs[0]['event_us']} span {(t1-t0)/1000:.2f}us load [{q(L)}] store [{q(S)}] blocks/SM {min(bos)}..{max(bos)}")
