//! A saved episode of any game, as episode files are read back ([`SavedEpisode`]; the
//! catalog's `AnyEpisode` holds one of any game): the game, the start state and per step every player's action, the
//! reward, the state after it and — where the states were re-simulated — what the step
//! did. Reading the files is the runner's; this is the data.

use proagent_core::Game;
use proagent_core::episode::{EpisodeResult, StepRecord};
use proagent_core::seat::{BeliefCorrection, SkillEvent};
use serde_json::Value;
use std::sync::Arc;

/// One step of a saved episode.
#[derive(Clone, Debug)]
pub struct SavedStep<G: Game> {
    /// Every player's action (`None` for a player who did not move).
    pub actions: Vec<Option<G::Action>>,
    /// The team reward (the simulator's, or as recorded when the states were read).
    pub reward: i64,
    /// What the step did, when the episode was re-simulated; `None` when its states were
    /// read as recorded (classic reference traces and human games).
    pub outcome: Option<G::Outcome>,
    /// The state after the step.
    pub state: G::State,
    /// The skill events recorded for this step (all players).
    pub skill_events: Vec<SkillEvent>,
    /// The belief corrections recorded for this step (transcripts).
    pub beliefs: Vec<BeliefCorrection>,
}

/// One episode read back from a file, typed by its game.
#[derive(Clone, Debug)]
pub struct SavedEpisode<G: Game> {
    /// The game it was played in (its horizon: the steps recorded, or the transcript's).
    pub game: Arc<G>,
    /// A label for reports (`FILE:LINE layout policy`, the trial id, `FILE layout agent+partner seed S`).
    pub name: String,
    /// The 1-based line of the file the episode starts on, for files of several.
    pub line: Option<usize>,
    /// The players' names as the file records them (empty when it names none).
    pub agents: Vec<String>,
    /// The episode seed, when recorded.
    pub seed: Option<u64>,
    /// The start state.
    pub start: G::State,
    /// The steps, in order.
    pub steps: Vec<SavedStep<G>>,
}

impl<G: Game> SavedEpisode<G> {
    /// Frames: the start state and one per step.
    pub fn frames(&self) -> usize {
        self.steps.len() + 1
    }

    /// The state of frame `f` (0 = the start), clamped to the last.
    pub fn state(&self, f: usize) -> &G::State {
        match f.checked_sub(1) {
            None => &self.start,
            Some(k) => self.steps.get(k).or(self.steps.last()).map_or(&self.start, |s| &s.state),
        }
    }

    /// The score after each frame (frame 0: 0).
    pub fn scores(&self) -> Vec<i64> {
        let mut out = Vec::with_capacity(self.frames());
        let mut sum = 0i64;
        out.push(0);
        for s in &self.steps {
            sum = sum.saturating_add(s.reward);
            out.push(sum);
        }
        out
    }

    /// Every skill event of the episode, in step order.
    pub fn skill_events(&self) -> impl Iterator<Item = &SkillEvent> {
        self.steps.iter().flat_map(|s| &s.skill_events)
    }

    /// The episode as the runner would have returned it, when it was re-simulated (every
    /// step's outcome known): for the game's tally, teamwork and summary fields.
    pub fn result(&self) -> Option<EpisodeResult<G>> {
        let game = &*self.game;
        let mut tally = G::Tally::default();
        let (mut score, mut stuck, mut tail) = (0i64, 0u32, 0u32);
        let mut steps = Vec::with_capacity(self.steps.len());
        let mut before = &self.start;
        for s in &self.steps {
            let outcome = s.outcome.clone()?;
            score = score.saturating_add(s.reward);
            game.tally(&mut tally, before, &s.state, &outcome);
            if game.idle(before, &s.state, &outcome) {
                stuck += 1;
                tail += 1;
            } else {
                tail = 0;
            }
            steps.push(StepRecord { actions: s.actions.clone(), outcome, state: s.state.clone() });
            before = &s.state;
        }
        let n = game.num_players();
        let agents =
            (0..n).map(|i| self.agents.get(i).cloned().unwrap_or_else(|| format!("player {i}"))).collect::<Vec<_>>();
        Some(EpisodeResult {
            game: Arc::clone(&self.game),
            agents,
            seed: self.seed.unwrap_or(0),
            start: self.start.clone(),
            steps,
            skill_events: self.skill_events().cloned().collect(),
            metrics: vec![Value::Null; n],
            llm: vec![Default::default(); n],
            score,
            tally,
            stuck_steps: stuck,
            idle_tail: tail,
        })
    }
}

/// The skill events a record lists (`skill_events`), leniently: entries that are not
/// skill events are skipped.
pub fn skill_events_of(v: Option<&Value>) -> Vec<SkillEvent> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|e| serde_json::from_value(e.clone()).ok()).collect())
        .unwrap_or_default()
}
