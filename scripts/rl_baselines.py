#!/usr/bin/env python3
"""The baseline columns of ProAgent's Table 1 beside ours: each learned-partner algorithm
with all the others (P0 and P1), from `table1.csv` of

    proagent eval --protocol table1 --agents sp,pbt,fcp,mep,cole --out runs/t1-baselines

and the published cells (crates/eval/src/sweep/report.rs, copied from Zhang et al.,
Table 1), with the difference, the ordering of the five algorithms per layout and seat,
and how many cells are within ±25 %.

Usage: python3 scripts/rl_baselines.py [runs/t1-baselines/table1.csv]
"""
import csv
import sys
pub = {}
for line in open('crates/eval/src/sweep/report.rs'):
    line=line.strip()
    if line.startswith('("') and line.count(',')==4:
        a,l,p0,p1 = [x.strip(' "()') for x in line.rstrip(',').split(',')]
        pub[(a,l)] = (float(p0), float(p1))
rows = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else 'runs/t1-baselines/table1.csv')))
L=["cramped_room","asymmetric_advantages","coordination_ring","forced_coordination","counter_circuit"]
A=["sp","pbt","fcp","mep","cole"]
ours={(r['layout'],int(r['seat']),r['agent']):(float(r['others_mean']),float(r['others_se'])) for r in rows}
print("| layout | seat | " + " | ".join(f"{a.upper()} ours / published" for a in A) + " | order, ours | order, published |")
print("|---|---|" + "---|"*(len(A)+2))
within=0; total=0
for l in L:
    for s in (0,1):
        cells=[]
        for a in A:
            o,se=ours[(l,s,a)]; p=pub[(a,l)][s]
            d=(o-p)/p*100
            total+=1; within+= abs(d)<=25
            cells.append(f"{o:.1f} / {p:.1f} ({d:+.0f} %)")
        oo=" > ".join(a.upper() for a in sorted(A,key=lambda a:-ours[(l,s,a)][0]))
        po=" > ".join(a.upper() for a in sorted(A,key=lambda a:-pub[(a,l)][s]))
        print(f"| {l} | P{s} | " + " | ".join(cells) + f" | {oo} | {po} |")
print()
print(f"within ±25 %: {within} of {total} cells")
