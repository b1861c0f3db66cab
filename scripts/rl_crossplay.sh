#!/bin/sh
# Cross-play matrices per layout: the shipped SP (seed 1, or the seed docs/rl.md says was
# picked), the extra SP seeds 2 and 3 that exist in the seeds directory (from
# scripts/rl_train_all.sh) and the shipped PBT, FCP, MEP and COLE policies, each as player
# 0 with each as player 1, 10 episodes per cell (seeds 0-9). Writes OUT/<layout>/
# (report.md, heatmap-<layout>.svg, ...).
# Usage: scripts/rl_crossplay.sh [path/to/proagent] [dir-with-extra-seeds] [out-dir] [layouts...]
set -eu
BIN=${1:-target/release/proagent}
XP=${2:-runs/rl}
OUT=${3:-runs/crossplay}
[ $# -ge 3 ] && shift 3 || set --
LAYOUTS=${*:-cramped_room asymmetric_advantages coordination_ring forced_coordination counter_circuit}
for L in $LAYOUTS; do
  M=sp
  for S in 2 3; do
    if [ -f "$XP/${L}_sp_s$S.safetensors" ]; then M="$M,rl:$XP/${L}_sp_s$S.safetensors"; fi
  done
  M="$M,pbt,fcp,mep,cole"
  "$BIN" eval --layouts "$L" --agents "$M" --partners "$M" --seats 0 --episodes 10 --seed 0 --concurrency 2 \
    --quiet --out "$OUT/$L" > /dev/null
done
