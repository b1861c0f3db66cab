#!/bin/sh
# Held-out evaluation of the learned partners: each shipped policy (sp, pbt, fcp, mep,
# cole) with partners it never trained with — the BC human proxy (bc), the rule-based
# greedy partner, and SP policies of seeds outside every pool (runs/rl/<layout>_sp_s<N>
# for N in SP_SEEDS, by default 2 21 22 23, trained by scripts/rl_train_all.sh; the
# summary judges them as one partner, their mean) — in both seats, 50 episodes per seat
# (seeds 0-49; EPISODES overrides: with 10 the standard error of a cell was about the
# size of the differences the summary compares). A seed whose run never learned (under
# one soup in self-play: counter_circuit seed 23) is no convention to meet, so the next
# seed stands in for it (counter_circuit: 24). Writes OUT/<layout>/ (report.md,
# results.jsonl, ...); summarise with `python3 scripts/rl_heldout.py OUT`.
# AGENTS overrides the policies (e.g. AGENTS="sp,rl:/tmp/cand.safetensors").
# Usage: scripts/rl_heldout.sh [path/to/proagent] [dir-with-the-sp-seeds] [out-dir] [layouts...]
set -eu
BIN=${1:-target/release/proagent}
XP=${2:-runs/rl}
OUT=${3:-runs/heldout}
[ $# -ge 3 ] && shift 3 || set --
LAYOUTS=${*:-cramped_room asymmetric_advantages coordination_ring forced_coordination counter_circuit}
for L in $LAYOUTS; do
  A=${AGENTS:-sp,pbt,fcp,mep,cole}
  P=bc,greedy
  D="2 21 22 23"
  [ "$L" = counter_circuit ] && D="2 21 22 24"
  for S in ${SP_SEEDS:-$D}; do P="$P,rl:$XP/${L}_sp_s$S.safetensors"; done
  "$BIN" eval --layouts "$L" --agents "$A" --partners "$P" \
    --episodes "${EPISODES:-50}" --seed 0 --concurrency 2 --quiet --out "$OUT/$L" > /dev/null
done
