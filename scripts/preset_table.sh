#!/bin/sh
# The preset comparison table: the ProAgent agent with the built-in `scripted` model
# (a rule-based stand-in, NOT a language model) under `--preset paper` and
# `--preset default`, on the five layouts x both seats x the partners greedy, random4,
# stay and bc, N episodes per cell (seeds 0..N-1, 400 steps). Prints one Markdown row
# per layout, seat and partner: mean score and mean LLM calls per episode for each
# preset, and the paper preset's mean re-plans per episode.
# Usage: scripts/preset_table.sh [path/to/proagent] [episodes] [extra play options...]
set -eu
BIN=${1:-target/release/proagent}
N=${2:-5}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
# One preset's columns for a layout, seat and partner; the extra play options follow.
cell() { # preset layout seat partner columns [extra...]
  p=$1 l=$2 s=$3 q=$4 cols=$5
  shift 5
  "$BIN" play --preset "$p" --layout "$l" --seat "$s" --partner "$q" --episodes "$N" --seed 0 \
    --json --no-transcript "$@" | jq -rs --arg cols "$cols" '
      def mean(f): (map(f) | add) / length | . * 10 | round / 10;
      if $cols == "3" then "\(mean(.score)) | \(mean(.llm_calls)) | \(mean(.replans))"
      else "\(mean(.score)) | \(mean(.llm_calls))" end'
}
echo "| layout | seat | partner | paper: mean score | paper: LLM calls/episode | paper: re-plans/episode | default: mean score | default: LLM calls/episode |"
echo "|---|---|---|---|---|---|---|---|"
for layout in cramped_room asymmetric_advantages coordination_ring forced_coordination counter_circuit; do
  for seat in 0 1; do
    for partner in greedy random4 stay bc; do
      paper=$(cell paper "$layout" "$seat" "$partner" 3 "$@")
      default=$(cell default "$layout" "$seat" "$partner" 2 "$@")
      echo "| $layout | $seat | $partner | $paper | $default |"
    done
  done
done
