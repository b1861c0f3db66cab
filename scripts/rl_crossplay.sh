#!/bin/sh
# Cross-play matrices per layout: the shipped SP (seed 1), the extra SP seeds 2 and 3
# (from scripts/rl_train_all.sh) and the shipped PBT, FCP and MEP policies, each as
# player 0 with each as player 1, 10 episodes per cell. Writes runs/crossplay/<layout>/
# (report.md, heatmap-<layout>.svg, ...).
# Usage: scripts/rl_crossplay.sh [path/to/proagent] [dir-with-extra-seeds]
set -eu
BIN=${1:-target/release/proagent}
XP=${2:-runs/rl}
for L in cramped_room asymmetric_advantages coordination_ring forced_coordination counter_circuit; do
  M="sp,rl:$XP/${L}_sp_s2.safetensors,rl:$XP/${L}_sp_s3.safetensors,pbt,fcp,mep"
  "$BIN" eval --layouts "$L" --agents "$M" --partners "$M" --seats 0 --episodes 10 --seed 0 --concurrency 2 \
    --quiet --out "runs/crossplay/$L" > /dev/null
done
