#!/bin/sh
# The ProAgent targets table: `proagent` (scripted model) with the `greedy` partner,
# 10 seeds x both seats x the five layouts. Prints one Markdown row per layout and seat:
# mean score, min-max, mean LLM calls per episode (planner + verificator), re-plans,
# fallbacks, parse failures, mean belief accuracy.
# Usage: scripts/agent_targets.sh [path/to/proagent] [extra play options...]
set -eu
BIN=${1:-target/release/proagent}
[ $# -gt 0 ] && shift
echo "| layout | seat | mean score | min-max | LLM calls/episode | re-plans | fallbacks | parse failures | belief accuracy |"
echo "|---|---|---|---|---|---|---|---|---|"
for layout in cramped_room asymmetric_advantages coordination_ring forced_coordination counter_circuit; do
  for seat in 0 1; do
    "$BIN" play --layout "$layout" --seat "$seat" --partner greedy --episodes 10 --seed 0 --json "$@" | jq -rs --arg l "$layout" --arg s "$seat" '
      def mean(f): (map(f) | add) / length;
      "| \($l) | \($s) | \(mean(.score)) | \(map(.score) | min)-\(map(.score) | max) | \(mean(.llm_calls)) | \(mean(.replans)) | \(mean(.fallbacks)) | \(mean(.parse_failures)) | \(mean(.belief_accuracy // 0) * 1000 | round / 1000) |"'
  done
done
