//! The OvercookedV2 seat trait (transitional: it becomes `proagent_core::Seat<OvercookedV2>`).

use crate::env::{Event, Layout, Settings, State};
use async_trait::async_trait;
use proagent_core::seat::{AgentError, BeliefCorrection, LlmUsage, SkillEvent};
use proagent_overcooked::env::Action;
use serde_json::Value;

/// What a seat sees before choosing its action: the full state, which a seat must filter
/// by its view radius itself (the built-in seats do, through `Knowledge`).
#[derive(Copy, Clone)]
pub struct V2Observation<'a> {
    /// The kitchen.
    pub layout: &'a Layout,
    /// The environment switches (view radius among them).
    pub settings: &'a Settings,
    /// The state before this step.
    pub state: &'a State,
    /// The player this seat controls.
    pub seat: usize,
    /// What each player's interact did in the previous step (all `None` at the start).
    pub last_events: &'a [Option<Event>],
}

/// One seat of a V2 game.
#[async_trait]
pub trait V2Agent: Send {
    /// A short name for reports.
    fn name(&self) -> String;
    /// Called once before an episode.
    fn reset(&mut self, layout: &Layout, settings: &Settings, seat: usize, seed: u64);
    /// This seat's action.
    async fn act(&mut self, obs: &V2Observation<'_>) -> Action;
    /// Skill events since the last call.
    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        Vec::new()
    }
    /// Belief corrections since the last call.
    fn drain_belief_events(&mut self) -> Vec<BeliefCorrection> {
        Vec::new()
    }
    /// Agent metrics merged into the summary.
    fn metrics(&self) -> Value {
        Value::Null
    }
    /// Model use this episode.
    fn llm_usage(&self) -> LlmUsage {
        LlmUsage::default()
    }
    /// The last model call that failed after every retry, if any.
    fn last_llm_failure(&self) -> Option<String> {
        None
    }
    /// Why the agent cannot go on (its model refused the run's configuration), once; the
    /// episode then stops. Agents without a model never fail.
    fn take_failure(&mut self) -> Option<AgentError> {
        None
    }
}
