//! What sits in a seat: anything that picks one player's action each step —
//! the ProAgent agent, scripted and BC partners, random and stay baselines.
//! The runner only knows this trait.

use crate::env::{Action, Event, Layout, State};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// What a seat sees before choosing its action.
#[derive(Copy, Clone, Debug)]
pub struct Observation<'a> {
    pub layout: &'a Layout,
    pub state: &'a State,
    /// The player index this seat controls (0 or 1).
    pub seat: usize,
    /// The previous step's joint action and interact events (`None` at t = 0).
    pub last_joint: Option<[Action; 2]>,
    pub last_events: [Option<Event>; 2],
}

/// How a skill attempt ended (or that it started).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum SkillOutcome {
    Started,
    Succeeded,
    Failed { reason: String },
}

/// A skill-level event of one player, for trajectories and transcripts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillEvent {
    pub t: u32,
    pub player: usize,
    pub skill: String,
    #[serde(flatten)]
    pub outcome: SkillOutcome,
}

/// One seat's decision maker. `act` is async because some agents wait for a model.
#[async_trait]
pub trait Agent: Send {
    /// A short name for reports (e.g. "greedy", "proagent[scripted]").
    fn name(&self) -> String;
    /// Called once before an episode.
    fn reset(&mut self, layout: &Layout, seat: usize, seed: u64);
    /// Chooses this seat's action for the current state.
    async fn act(&mut self, obs: &Observation<'_>) -> Action;
    /// Skill events since the last call (empty for agents without skills).
    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        Vec::new()
    }
    /// Belief corrections since the last call: each a JSON object (when the prediction was
    /// made, what was predicted, the teammate's real skill, whether it matched).
    fn drain_belief_events(&mut self) -> Vec<serde_json::Value> {
        Vec::new()
    }
    /// Agent-specific metrics for the episode report (LLM calls, replans, ...).
    fn metrics(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}
