//! The classic game's seat trait (transitional: it becomes `proagent_core::Seat<Overcooked>`).

use crate::env::{Action, Event, Layout, State};
use async_trait::async_trait;
pub use proagent_core::seat::{
    AgentError, BeliefCorrection, EpisodeAbort, LlmUsage, SeatStatus, SkillEvent, SkillOutcome, derive_seed, seat_seed,
};

/// What a seat sees before choosing its action.
#[derive(Copy, Clone, Debug)]
pub struct Observation<'a> {
    /// The kitchen being played.
    pub layout: &'a Layout,
    /// The state this seat must act in (before this step's joint action).
    pub state: &'a State,
    /// The player index this seat controls (0 or 1).
    pub seat: usize,
    /// The previous step's joint action and interact events (`None` at t = 0).
    pub last_joint: Option<[Action; 2]>,
    /// What each player's interact did in the previous step (`[None, None]` at t = 0).
    pub last_events: [Option<Event>; 2],
}

/// One seat's decision maker. `act` is async because some agents wait for a model.
#[async_trait]
pub trait Agent: Send {
    /// A short name for reports (e.g. `greedy`, `proagent[scripted]`).
    fn name(&self) -> String;
    /// Called once before an episode.
    fn reset(&mut self, layout: &Layout, seat: usize, seed: u64);
    /// Chooses this seat's action for the current state, or says why the agent cannot
    /// go on (agents without a model never fail).
    async fn act(&mut self, obs: &Observation<'_>) -> Result<Action, AgentError>;
    /// Skill events since the last call (empty for agents without skills).
    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        Vec::new()
    }
    /// Belief corrections since the last call (empty for agents without beliefs).
    fn drain_belief_events(&mut self) -> Vec<BeliefCorrection> {
        Vec::new()
    }
    /// Agent-specific metrics for the episode report (replans, skills, ...), merged into
    /// the `play --json` summary.
    fn metrics(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// What this seat asked of a language model this episode (zero for agents without one).
    fn llm_usage(&self) -> LlmUsage {
        LlmUsage::default()
    }
    /// The last model failure this episode (a request that failed after every retry),
    /// for the message of an episode stopped by too many of them.
    fn last_llm_failure(&self) -> Option<String> {
        None
    }

    /// The current skill and plan (empty for agents without skills).
    fn status(&self) -> SeatStatus {
        SeatStatus::default()
    }
}
