//! Trajectory records of the games whose every state follows from the episode seed and the
//! actions (Hanabi, CollabCapture, CollabEscape): written with each state as the game's
//! own JSON ([`proagent_core::Game::state_json`]), read back by re-playing the recorded
//! actions from the seed ([`read_replayed`]).
//!
//! Guarantees: a record is accepted only when the start, every recorded reward and every
//! recorded state are the ones the simulator gives; errors name the step and what differs.

use super::playable::RecordError;
use super::saved::{SavedEpisode, SavedStep};
use proagent_core::Game;
use proagent_core::episode::{EpisodeResult, env_chance};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The trajectory record of an episode: the game's kind and spec, the players, the seed,
/// the start and per step the actions (tokens, `null` for a player who did not move), the
/// reward and the state; `extra` adds the game's own totals.
pub fn trajectory_json<G: Game>(game: &G, r: &EpisodeResult<G>, extra: Map<String, Value>) -> Value {
    let steps: Vec<Value> = r
        .steps
        .iter()
        .enumerate()
        .map(|(t, s)| {
            json!({
                "t": t,
                "actions": proagent_core::game::action_tokens(game, &s.actions),
                "reward": game.reward(&s.outcome),
                "state": game.state_json(&s.state),
            })
        })
        .collect();
    let mut out = Map::new();
    out.insert("game".into(), json!(game.kind()));
    out.insert("spec".into(), json!(game.spec()));
    out.insert("agents".into(), json!(r.agents));
    out.insert("seed".into(), json!(r.seed));
    out.insert("start".into(), game.state_json(&r.start));
    out.insert("total_reward".into(), json!(r.score));
    out.extend(extra);
    out.insert("steps".into(), Value::Array(steps));
    Value::Object(out)
}

/// Reads back a record of [`trajectory_json`] on `game` (the game its `spec` names): the
/// recorded actions are re-played from the recorded seed and must give the recorded start,
/// rewards and states.
pub fn read_replayed<G: Game>(
    game: Arc<G>,
    source: &str,
    line: usize,
    v: &Value,
) -> Result<SavedEpisode<G>, RecordError> {
    let seed = v.get("seed").and_then(Value::as_u64).ok_or("no `seed` (the trajectory is re-played from it)")?;
    let mut chance = env_chance(seed);
    let start = game.initial_state(&mut chance);
    if v.get("start") != Some(&game.state_json(&start)) {
        return Err(format!("`start` is not the state seed {seed} starts {} from", game.spec()).into());
    }
    let n = game.num_players();
    let mut state = start.clone();
    let mut steps = Vec::new();
    for (k, s) in v.get("steps").and_then(Value::as_array).ok_or("no `steps`")?.iter().enumerate() {
        let at = |m: String| RecordError::Bad(format!("step {k}: {m}"));
        let tokens = s.get("actions").and_then(Value::as_array).ok_or_else(|| at("no `actions`".into()))?;
        if tokens.len() != n {
            return Err(at(format!("{} actions for {n} players", tokens.len())));
        }
        let actions = tokens
            .iter()
            .map(|t| match t {
                Value::Null => Ok(None),
                t => t
                    .as_str()
                    .and_then(|t| game.parse_action(t))
                    .map(Some)
                    .ok_or_else(|| at(format!("unknown action {t}"))),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let outcome = game.step(&mut state, &actions, &mut chance);
        let reward = i64::from(game.reward(&outcome));
        if let Some(r) = s.get("reward").and_then(Value::as_i64)
            && r != reward
        {
            return Err(at(format!("the recorded reward is {r}, the simulator gives {reward}")));
        }
        if s.get("state") != Some(&game.state_json(&state)) {
            return Err(at("the recorded state is not the one the actions lead to".into()));
        }
        steps.push(SavedStep {
            actions,
            reward,
            outcome: Some(outcome),
            state: state.clone(),
            skill_events: Vec::new(),
            beliefs: Vec::new(),
        });
    }
    let agents = v
        .get("agents")
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|n| n.as_str().unwrap_or("?").to_string()).collect())
        .unwrap_or_default();
    let name = format!("{source}:{line} {}", game.spec());
    Ok(SavedEpisode { game, name, line: Some(line), agents, seed: Some(seed), start, steps })
}
