#!/usr/bin/env python3
"""The baseline columns of ProAgent's Table 1 beside ours: each learned-partner algorithm
with all the others (P0 and P1), from `table1.csv` of

    proagent eval --protocol table1 --agents sp,pbt,fcp,mep,cole --out runs/t1-baselines

and the published cells (crates/eval/src/sweep/report.rs, copied from Zhang et al.,
Table 1), with the difference, the ordering of the five algorithms per layout and seat,
how many cells are within ±25 %, and how alike the two orderings are (Kendall's τ over
the ten pairs of algorithms: 1 the same order, 0 unrelated, −1 reversed).

Usage: python3 scripts/rl_baselines.py [runs/t1-baselines/table1.csv]
"""
import csv
import os
import sys
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
pub = {}
for line in open(os.path.join(ROOT, 'crates/eval/src/sweep/report.rs'), encoding='utf-8'):
    line=line.strip()
    if line.startswith('("') and line.count(',')==4:
        a,l,p0,p1 = [x.strip(' "()') for x in line.rstrip(',').split(',')]
        pub[(a,l)] = (float(p0), float(p1))
path = sys.argv[1] if len(sys.argv) > 1 else 'runs/t1-baselines/table1.csv'
L=["cramped_room","asymmetric_advantages","coordination_ring","forced_coordination","counter_circuit"]
A=["sp","pbt","fcp","mep","cole"]
ours = {}
try:
    with open(path, newline='', encoding='utf-8') as fh:
        for n, r in enumerate(csv.DictReader(fh), start=2):
            try:
                ours[(r['layout'], int(r['seat']), r['agent'])] = (float(r['others_mean']), float(r['others_se']))
            except (KeyError, TypeError, ValueError) as e:
                sys.exit(f"rl_baselines: {path}:{n}: not a table1.csv row of `eval --protocol table1` ({e!r})")
except OSError as e:
    sys.exit(f"rl_baselines: {path}: {e.strerror}")
missing = [f"{l} P{s} {a}" for l in L for s in (0, 1) for a in A if (l, s, a) not in ours]
if missing:
    sys.exit(f"rl_baselines: {path} lacks {len(missing)} cells, e.g. {missing[0]} "
             "(run `proagent eval --protocol table1 --agents sp,pbt,fcp,mep,cole` to the end)")
def kendall_tau(x, y):
    """Kendall's τ-a of two score lists over the same items (ties count as neither)."""
    n = len(x); c = d = 0
    for i in range(n):
        for j in range(i + 1, n):
            sx = (x[i] > x[j]) - (x[i] < x[j]); sy = (y[i] > y[j]) - (y[i] < y[j])
            c += sx * sy > 0; d += sx * sy < 0
    return (c - d) / (n * (n - 1) / 2)

print("| layout | seat | " + " | ".join(f"{a.upper()} ours / published" for a in A) + " | order, ours | order, published | τ |")
print("|---|---|" + "---|"*(len(A)+3))
within=0; total=0; taus=[]
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
        tau=kendall_tau([ours[(l,s,a)][0] for a in A],[pub[(a,l)][s] for a in A])
        taus.append(tau)
        print(f"| {l} | P{s} | " + " | ".join(cells) + f" | {oo} | {po} | {tau:+.1f} |")
print()
print(f"within ±25 %: {within} of {total} cells")
print(f"orderings: Kendall's τ {sum(taus)/len(taus):+.2f} on average; positive on {sum(t > 0 for t in taus)} of {len(taus)} rows")
