#!/bin/sh
# Held-out evaluation of the learned partners: each shipped policy (sp, pbt, fcp, mep,
# cole) with partners it never trained with — the BC human proxy (bc), the rule-based
# greedy partner, and an SP policy of another seed (runs/rl/<layout>_sp_s2, trained by
# scripts/rl_train_all.sh, outside every pool) — in both seats, 50 episodes per seat
# (seeds 0-49; EPISODES overrides: with 10 the standard error of a cell was about the
# size of the differences the summary compares). Writes OUT/<layout>/ (report.md,
# results.jsonl, ...); summarise with `python3 scripts/rl_heldout.py OUT`.
# AGENTS overrides the policies (e.g. AGENTS="sp,rl:/tmp/cand.safetensors").
# Usage: scripts/rl_heldout.sh [path/to/proagent] [dir-with-sp-seed-2] [out-dir] [layouts...]
set -eu
BIN=${1:-target/release/proagent}
XP=${2:-runs/rl}
OUT=${3:-runs/heldout}
[ $# -ge 3 ] && shift 3 || set --
LAYOUTS=${*:-cramped_room asymmetric_advantages coordination_ring forced_coordination counter_circuit}
for L in $LAYOUTS; do
  A=${AGENTS:-sp,pbt,fcp,mep,cole}
  "$BIN" eval --layouts "$L" --agents "$A" --partners "bc,greedy,rl:$XP/${L}_sp_s2.safetensors" \
    --episodes "${EPISODES:-50}" --seed 0 --concurrency 2 --quiet --out "$OUT/$L" > /dev/null
done
