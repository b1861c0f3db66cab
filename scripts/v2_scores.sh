#!/bin/sh
# OvercookedV2 scores: the `scripted` V2 cook and the ProAgent agent (scripted model), each
# with the `scripted` partner in every other seat, on every built-in V2 layout and in every
# seat, EPISODES seeds (0..EPISODES-1, default 5) of 400 steps. One Markdown row per layout;
# each cell is "mean score (correct / wrong deliveries per episode)" for the agent in that
# seat, then ProAgent's mean LLM calls per episode and button presses per episode (both seats).
# Usage: scripts/v2_scores.sh [path/to/proagent] [extra play options, e.g. --view-radius 2]
set -eu
BIN=${1:-target/release/proagent}
[ $# -gt 0 ] && shift
EPISODES=${EPISODES:-5}
echo "| layout | scripted P0 | scripted P1 | ProAgent P0 | ProAgent P1 | ProAgent LLM calls/ep | button presses/ep |"
echo "|---|---|---|---|---|---|---|"
for layout in $("$BIN" show --v2-list); do
  players=$("$BIN" show --layout "v2:$layout" --json | jq -r '.players')
  row="| $layout"
  calls=""
  presses=""
  for agent in scripted proagent; do
    for seat in 0 1; do
      if [ "$seat" -ge "$players" ]; then
        row="$row | -"
        continue
      fi
      out=$("$BIN" play --layout "v2:$layout" --agent "$agent" --partner scripted --seat "$seat" \
          --episodes "$EPISODES" --seed 0 --no-transcript --json "$@")
      row="$row | $(echo "$out" | jq -rs 'def m(f): ((map(f) | add) / length * 10 | round / 10);
          "\(m(.score)) (\(m(.deliveries)) / \(m(.wrong_deliveries)))"')"
      if [ "$agent" = proagent ]; then
        calls="$calls $(echo "$out" | jq -rs '(map(.llm_calls) | add) / length | round')"
      fi
      presses="$presses $(echo "$out" | jq -rs '(map(.button_presses) | add) / length * 10 | round / 10')"
    done
  done
  echo "$row | $(echo $calls | tr ' ' '/') | $(echo $presses | tr ' ' '/') |"
done
