#!/bin/sh
# OvercookedV2 scores: the `scripted` V2 cook and the ProAgent agent (scripted model), each
# with the `scripted` partner in every other seat, on every built-in V2 layout and in every
# seat. Prints one Markdown row per layout, agent and seat: mean score over the episodes,
# min-max, mean correct and wrong deliveries per episode, mean button presses, and for
# ProAgent the mean LLM calls per episode.
# Usage: scripts/v2_scores.sh [path/to/proagent] [extra play options, e.g. --view-radius 2]
set -eu
BIN=${1:-target/release/proagent}
[ $# -gt 0 ] && shift
EPISODES=${EPISODES:-5}
echo "| layout | agent | seat | mean score | min-max | correct/ep | wrong/ep | button presses/ep | LLM calls/ep |"
echo "|---|---|---|---|---|---|---|---|---|"
for layout in $("$BIN" show --v2-list); do
  players=$("$BIN" show --layout "v2:$layout" --json | jq -r '.players')
  for agent in scripted proagent; do
    seat=0
    while [ "$seat" -lt "$players" ]; do
      "$BIN" play --layout "v2:$layout" --agent "$agent" --partner scripted --seat "$seat" \
          --episodes "$EPISODES" --seed 0 --no-transcript --json "$@" | jq -rs --arg l "$layout" --arg a "$agent" --arg s "$seat" '
        def mean(f): ((map(f) | add) / length * 100 | round / 100);
        "| \($l) | \($a) | \($s) | \(mean(.score)) | \(map(.score) | min)-\(map(.score) | max) | \(mean(.deliveries)) | \(mean(.wrong_deliveries)) | \(mean(.button_presses)) | \(if $a == "proagent" then mean(.llm_calls) else "-" end) |"'
      seat=$((seat + 1))
    done
  done
done
