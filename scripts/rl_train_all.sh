#!/bin/sh
# Re-trains every shipped RL partner (data/rl/<layout>_<algo>.safetensors + .json), one
# process at a time at the lowest priority, then the extra SP seeds of the cross-play
# matrices (runs/rl/<layout>_sp_s{2,3}, not shipped). The same commands give the same
# bytes (docs/rl.md). About 100 minutes on the 2-core project machine (one run at a time).
# Usage: scripts/rl_train_all.sh [path/to/proagent] [out-dir-for-extra-seeds]
set -eu
BIN=${1:-target/release/proagent}
XP=${2:-runs/rl}
LAYOUTS="cramped_room asymmetric_advantages coordination_ring forced_coordination counter_circuit"
mkdir -p data/rl "$XP"
for L in $LAYOUTS; do
  nice -n 19 "$BIN" rl train --algo sp --layout "$L" --seed 1 --steps 3000000 --out "data/rl/${L}_sp.safetensors" --quiet --force
done
for L in $LAYOUTS; do
  nice -n 19 "$BIN" rl train --algo pbt --layout "$L" --seed 1 --steps 3000000 --population 3 --out "data/rl/${L}_pbt.safetensors" --quiet --force
  for A in fcp mep; do
    # counter_circuit's MEP members need longer: with 3 M steps two of the three never
    # scored (the entropy bonus slows the first soups), and the learner learned nothing.
    POOL=3000000
    if [ "$L.$A" = counter_circuit.mep ]; then POOL=6000000; fi
    nice -n 19 "$BIN" rl train --algo "$A" --layout "$L" --seed 1 --steps 6000000 --pool-steps "$POOL" --population 3 \
      --out "data/rl/${L}_${A}.safetensors" --quiet --force
  done
done
for L in $LAYOUTS; do
  for S in 2 3; do
    nice -n 19 "$BIN" rl train --algo sp --layout "$L" --seed "$S" --steps 3000000 --out "$XP/${L}_sp_s${S}.safetensors" --quiet --force
  done
done
