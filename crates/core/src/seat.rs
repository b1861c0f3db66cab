//! What sits in a seat: anything that chooses one player's actions — the LLM agents,
//! scripted, behaviour-cloned and RL partners, random and stay baselines, a person in the
//! browser or a Python callable. The episode runner knows only [`Seat`].
//!
//! A seat sees the game through [`Observation`]: the game's rules and the view of its own
//! player ([`Game::view`]), never more. It may fail only for a reason that ends the whole
//! run ([`AgentError`]); every other trouble (an unreadable reply, a model that timed out)
//! is the seat's to absorb and count.

use crate::game::Game;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

/// What a seat sees before choosing its action.
pub struct Observation<'a, G: Game> {
    /// The game being played (its rules and configuration).
    pub game: &'a G,
    /// What this seat's player may see of the state before this step's actions.
    pub view: G::View<'a>,
    /// The player this seat controls.
    pub seat: usize,
    /// Steps played so far.
    pub t: u32,
    /// The previous step's actions by player (`None` for a player who did not move);
    /// empty before the first step.
    pub last_actions: &'a [Option<G::Action>],
    /// What each player's action did in the previous step, by player (all `None`, or
    /// empty, before the first): read it with `get`.
    pub last_events: &'a [Option<G::Event>],
}

impl<'a, G: Game> Observation<'a, G> {
    /// What `seat` sees of `view` at step `t` with nothing known of a previous step (the
    /// start of an episode, or a caller outside the runner).
    pub fn new(game: &'a G, view: G::View<'a>, seat: usize, t: u32) -> Self {
        Observation { game, view, seat, t, last_actions: &[], last_events: &[] }
    }
}

impl<G: Game> Observation<'_, G> {
    /// The actions this seat may take now ([`Game::legal_actions`] of its view).
    pub fn legal_actions(&self) -> Vec<G::Action> {
        self.game.legal_actions(self.view, self.seat)
    }
}

impl<G: Game> Clone for Observation<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Game> Copy for Observation<'_, G> {}

/// How a skill attempt ended (or that it started).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum SkillOutcome {
    /// The player was given the skill this step.
    Started,
    /// The controller reached the skill's goal.
    Succeeded,
    /// The controller gave up on the skill.
    Failed {
        /// The controller's first-person sentence, e.g. "I made no progress for 12 steps, since the way is blocked."
        reason: String,
    },
}

/// A skill-level event of one player, for trajectories and transcripts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillEvent {
    /// Timestep of the state in which the event happened.
    pub t: u32,
    /// Index (0 or 1) of the player the skill belongs to.
    pub player: usize,
    /// The skill as written in prompts, e.g. `pickup(onion)` or `wait(3)`.
    pub skill: String,
    /// How the attempt stood; flattened into the record as `outcome` (+ `reason`).
    #[serde(flatten)]
    pub outcome: SkillOutcome,
}

/// One resolved prediction of the teammate's skill: what was predicted when, what the
/// teammate really did, and what belief correction did with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeliefCorrection {
    /// Timestep of the prediction.
    pub predicted_at: u32,
    /// The predicted skill.
    pub predicted: String,
    /// The skill the teammate was seen doing.
    pub real: String,
    /// When it was seen.
    pub real_at: u32,
    /// Whether the prediction matched.
    pub correct: bool,
    /// The correction mode in force: `replace`, `annotate` or `off`.
    pub correction: String,
}

/// Whether a count is zero (serde's test for leaving it out).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A seat's use of a language model over one episode.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmUsage {
    /// Requests sent.
    pub calls: u64,
    /// Requests that produced no reply after every retry.
    pub failures: u64,
    /// Decision replies that named no usable action (a planner reply from which no skill
    /// could be read, an action reply naming none of the offered actions); they are
    /// counted in `decisions` and `calls` too. Helper replies (Theory of Mind,
    /// verification, explanations) never count here. Absent in records written before
    /// it was counted.
    #[serde(default)]
    pub parse_failures: u64,
    /// Decisions: the calls whose reply chooses an action (a ProAgent planner call, an
    /// LLM-Coordination action proposal or re-proposal), failed ones included; counted
    /// in `calls` too. Calls that only help a decision (Theory of Mind, verification,
    /// the verificator's explanations) are not decisions.
    #[serde(default)]
    pub decisions: u64,
    /// Of the `decisions`, those whose reply was not read as an action: it named no
    /// usable action (`parse_failures`) or never came (the call failed). Only these
    /// enter the share that fails an episode ([`LlmUsage::unread_share`]).
    #[serde(default)]
    pub decisions_unread: u64,
    /// Prompt tokens (from the server, or estimated by built-in models).
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Of the completion tokens, a reasoning model's reasoning tokens (as the server
    /// reports them); absent from records when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Of the prompt tokens, those the server read from its prompt-prefix cache (as it
    /// reports them; in a dry run, those a prefix cache could serve); absent from records
    /// when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
    /// Wall time spent waiting for replies, in microseconds.
    pub wait_us: u64,
}

impl LlmUsage {
    /// Both seats' usage together. Token counts come from servers, so every sum
    /// saturates at `u64::MAX` instead of wrapping or panicking.
    pub fn plus(self, o: LlmUsage) -> LlmUsage {
        LlmUsage {
            calls: self.calls.saturating_add(o.calls),
            failures: self.failures.saturating_add(o.failures),
            parse_failures: self.parse_failures.saturating_add(o.parse_failures),
            decisions: self.decisions.saturating_add(o.decisions),
            decisions_unread: self.decisions_unread.saturating_add(o.decisions_unread),
            prompt_tokens: self.prompt_tokens.saturating_add(o.prompt_tokens),
            completion_tokens: self.completion_tokens.saturating_add(o.completion_tokens),
            reasoning_tokens: self.reasoning_tokens.saturating_add(o.reasoning_tokens),
            cached_tokens: self.cached_tokens.saturating_add(o.cached_tokens),
            wait_us: self.wait_us.saturating_add(o.wait_us),
        }
    }

    /// The share of decisions whose reply was not read as an action (it named none, or
    /// never came); `None` without decisions. Helper calls are in neither part: a
    /// Theory-of-Mind or verification reply read as prose is no decision read.
    pub fn unread_share(&self) -> Option<f64> {
        (self.decisions > 0).then(|| self.decisions_unread.min(self.decisions) as f64 / self.decisions as f64)
    }
}

/// Why an agent cannot go on with its episode. The runner stops the episode, and with
/// it the whole run: every other episode would end the same way.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    /// The agent's model cannot serve this run: its server refused the configuration
    /// (wrong key, unknown model, prompt too long, ...) or the backend is misconfigured.
    /// The error itself (an `llm::LlmError`) is kept and can be downcast.
    #[error(transparent)]
    ModelUnusable(Box<dyn std::error::Error + Send + Sync + 'static>),
    /// The seat was asked to act in a state where its player has no legal action (a
    /// caller outside the episode runner asked out of turn).
    #[error("player {0} has no legal action here")]
    NoLegalAction(usize),
    /// The seat's player left the game (a person pressed Stop, or their page went quiet):
    /// the episode ends before this step, with what was played.
    #[error("{0}")]
    Withdrew(String),
}

/// What a seat is doing right now, for progress lines and `--render`. Agents without
/// skills report nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatStatus {
    /// The skill being carried out, as written in prompts (e.g. `pickup(onion)`).
    pub skill: Option<String>,
    /// The teammate's skill as this seat last predicted or inferred it.
    pub intention: Option<String>,
    /// The reasoning behind the current plan (a planner's "Analysis"), whitespace-collapsed.
    pub analysis: Option<String>,
}

/// One seat's decision maker in game `G`. `act` is async because some seats wait for a model.
#[async_trait]
pub trait Seat<G: Game>: Send {
    /// A short name for reports (e.g. `greedy`, `proagent[scripted]`).
    fn name(&self) -> String;
    /// Called once before an episode, with this seat's player and seed.
    fn reset(&mut self, game: &G, seat: usize, seed: u64);
    /// Chooses this seat's action when it is its player's turn, or says why the seat cannot
    /// go on (seats without a model never fail).
    async fn act(&mut self, obs: &Observation<'_, G>) -> Result<G::Action, AgentError>;
    /// Skill events since the last call (empty for seats without skills).
    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        Vec::new()
    }
    /// Belief corrections since the last call (empty for seats without beliefs).
    fn drain_belief_events(&mut self) -> Vec<BeliefCorrection> {
        Vec::new()
    }
    /// Seat-specific metrics for the episode report (re-plans, skills, ...), merged into
    /// the `play --json` summary.
    fn metrics(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
    /// What this seat asked of a language model this episode (zero for seats without one).
    fn llm_usage(&self) -> LlmUsage {
        LlmUsage::default()
    }
    /// The last model failure this episode (a request that failed after every retry),
    /// for the message of an episode stopped by too many of them.
    fn last_llm_failure(&self) -> Option<String> {
        None
    }
    /// The current skill and plan (empty for seats without skills).
    fn status(&self) -> SeatStatus {
        SeatStatus::default()
    }
}

/// A seed for one part of an agent, derived from the agent's seed (SplitMix64 finaliser).
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed a seat's agent gets for an episode seed.
pub fn seat_seed(episode_seed: u64, player: usize) -> u64 {
    derive_seed(episode_seed, 100 + player as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_of_both_seats_saturates() {
        let big = LlmUsage {
            calls: u64::MAX,
            failures: 1,
            parse_failures: u64::MAX,
            decisions: u64::MAX,
            decisions_unread: u64::MAX,
            prompt_tokens: u64::MAX,
            completion_tokens: 3,
            reasoning_tokens: u64::MAX,
            cached_tokens: 2,
            wait_us: 9,
        };
        let sum = big.plus(big);
        assert_eq!((sum.reasoning_tokens, sum.cached_tokens), (u64::MAX, 4));
        assert_eq!((sum.calls, sum.failures, sum.prompt_tokens, sum.completion_tokens), (u64::MAX, 2, u64::MAX, 6));
        assert_eq!((sum.parse_failures, sum.decisions, sum.unread_share()), (u64::MAX, u64::MAX, Some(1.0)));
        assert_eq!(LlmUsage::default().unread_share(), None);
        let half = LlmUsage { calls: 8, decisions: 8, decisions_unread: 4, ..LlmUsage::default() };
        assert_eq!(half.unread_share(), Some(0.5));
    }

    #[test]
    fn only_decisions_enter_the_unread_share() {
        // One Theory-of-Mind call and one action call per decision, every action reply
        // unread: the share is all of the decisions, not half of the calls.
        let prose =
            LlmUsage { calls: 40, decisions: 20, decisions_unread: 20, parse_failures: 20, ..LlmUsage::default() };
        assert_eq!(prose.unread_share(), Some(1.0));
        // Calls without decisions (helpers only) say nothing about reading.
        let helpers = LlmUsage { calls: 5, ..LlmUsage::default() };
        assert_eq!(helpers.unread_share(), None);
    }
}

/// Why an episode (classic or OvercookedV2) stopped before its horizon.
#[derive(Debug, thiserror::Error)]
pub enum EpisodeAbort {
    /// A seat's agent cannot go on: its model refused the run's configuration.
    #[error("player {player} ({agent}) stopped at t={t}: {error}")]
    Agent {
        /// The timestep being decided.
        t: u32,
        /// The player whose agent stopped.
        player: usize,
        /// That agent's name.
        agent: String,
        /// Why.
        error: AgentError,
    },
    /// The seats' model calls failed after every retry more often than allowed.
    #[error(
        "{failures} model call(s) failed after every retry by t={t}, more than the {limit} allowed (--max-llm-failures); last failure: {}",
        last.as_deref().unwrap_or("unknown")
    )]
    LlmFailures {
        /// The timestep being decided.
        t: u32,
        /// Failed calls so far, both seats.
        failures: u64,
        /// The limit that was passed.
        limit: u64,
        /// The last failure's message.
        last: Option<String>,
    },
    /// More than the allowed share of the episode's decisions (the calls whose reply
    /// chooses an action) were not read as an action: the model's choices were not being
    /// read, so its score measures the fallback, not the model. Helper calls (Theory of
    /// Mind, verification, explanations) are no decisions and count for nothing here.
    #[error(
        "{unread} of {decisions} decisions ({:.0}%) named no usable action{}, more than the {:.0}% allowed \
         (--max-parse-failure-share {limit}); the replies that choose the actions were not read, so the episode is \
         no result (helper calls such as Theory of Mind, verification and explanations are not decisions; the \
         transcript's exchanges say why each reply did not parse)",
        100.0 * *unread as f64 / (*decisions).max(1) as f64,
        no_reply_note(*unread, *parse_failures),
        100.0 * limit
    )]
    ParseFailures {
        /// The step the episode ended at (its horizon, or where it stopped).
        t: u32,
        /// Decisions whose reply was not read as an action, all seats.
        unread: u64,
        /// Of those, the ones whose reply came and named no usable action (the rest got
        /// no reply).
        parse_failures: u64,
        /// Decisions, all seats.
        decisions: u64,
        /// The share that was passed.
        limit: f64,
    },
}

/// " or got no reply (N of them)" when some unread decisions got no reply at all.
fn no_reply_note(unread: u64, parse_failures: u64) -> String {
    match unread.saturating_sub(parse_failures) {
        0 => String::new(),
        n => format!(" or got no reply ({n} of them)"),
    }
}

impl EpisodeAbort {
    /// Whether the whole run must stop: every other episode would fail the same way.
    pub fn stops_run(&self) -> bool {
        matches!(self, EpisodeAbort::Agent { .. })
    }

    /// The timestep at which the episode stopped.
    pub fn t(&self) -> u32 {
        match self {
            EpisodeAbort::Agent { t, .. }
            | EpisodeAbort::LlmFailures { t, .. }
            | EpisodeAbort::ParseFailures { t, .. } => *t,
        }
    }
}
