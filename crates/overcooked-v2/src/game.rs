//! OvercookedV2 as a [`Game`]: every agent moves at once, an episode lasts
//! `settings.max_steps`, recipes (and random starts) are drawn by chance, and each agent's
//! view is the whole state: seats that play under a view radius filter it themselves
//! through [`crate::knowledge`], as JaxMARL's agents get a cropped observation.

use crate::env::{Chance as V2Chance, Event, Layout, Settings, State, StepOutcome, render, trace};
use proagent_core::game::{Chance, Game, Turn};
use proagent_overcooked::env::Action;
use serde::Serialize;
use std::sync::Arc;

/// One V2 kitchen with its environment switches.
#[derive(Clone, Debug)]
pub struct OvercookedV2 {
    /// The kitchen.
    pub layout: Arc<Layout>,
    /// The switches (episode length, view radius, ...).
    pub settings: Settings,
}

impl OvercookedV2 {
    /// `layout` under `settings`.
    pub fn new(layout: Arc<Layout>, settings: Settings) -> Self {
        OvercookedV2 { layout, settings }
    }
}

/// The V2 game's counters of an episode.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Correct dishes delivered.
    pub correct: u32,
    /// Wrong dishes delivered.
    pub wrong: u32,
    /// Button presses.
    pub presses: u32,
}

/// A `dyn Chance` seen through the simulator's generic parameter.
struct Draws<'c>(&'c mut dyn Chance);

impl V2Chance for Draws<'_> {
    fn pick(&mut self, n: usize) -> usize {
        self.0.pick(n)
    }
}

impl Game for OvercookedV2 {
    type State = State;
    type Action = Action;
    type Event = Event;
    type Outcome = StepOutcome;
    type Tally = Tally;
    type View<'a> = &'a State;

    fn kind(&self) -> &'static str {
        "overcooked_v2"
    }

    fn spec(&self) -> String {
        format!("v2:{}", self.layout.name)
    }

    fn num_players(&self) -> usize {
        self.layout.num_agents()
    }

    fn max_steps(&self) -> u32 {
        self.settings.max_steps
    }

    fn initial_state(&self, chance: &mut dyn Chance) -> State {
        self.layout.start_state(&self.settings, &mut Draws(chance))
    }

    fn turn(&self, _state: &State) -> Turn {
        Turn::All
    }

    fn legal_actions(&self, _view: &State, player: usize) -> Vec<Action> {
        if player < self.num_players() { Action::ALL.to_vec() } else { Vec::new() }
    }

    fn step(&self, state: &mut State, actions: &[Option<Action>], chance: &mut dyn Chance) -> StepOutcome {
        let mut joint = [Action::Stay; crate::env::MAX_AGENTS];
        for (slot, a) in joint.iter_mut().zip(actions) {
            *slot = a.unwrap_or(Action::Stay);
        }
        let n = self.num_players().min(joint.len());
        self.layout.step(&self.settings, state, &joint[..n], &mut Draws(chance))
    }

    fn reward(&self, outcome: &StepOutcome) -> i32 {
        outcome.reward
    }

    fn event<'o>(&self, outcome: &'o StepOutcome, player: usize) -> Option<&'o Event> {
        outcome.events.get(player).and_then(Option::as_ref)
    }

    fn tally(&self, tally: &mut Tally, _before: &State, _after: &State, outcome: &StepOutcome) {
        let n = self.num_players().min(outcome.events.len());
        tally.correct = tally.correct.saturating_add(outcome.correct_deliveries);
        tally.wrong = tally.wrong.saturating_add(outcome.wrong_deliveries);
        let presses = outcome.events[..n].iter().filter(|e| matches!(e, Some(Event::PressButton { .. }))).count();
        tally.presses = tally.presses.saturating_add(presses as u32);
    }

    fn idle(&self, before: &State, after: &State, outcome: &StepOutcome) -> bool {
        let n = self.num_players().min(outcome.events.len());
        before.agents.iter().zip(&after.agents).all(|(b, a)| b.pos == a.pos)
            && outcome.events[..n].iter().all(Option::is_none)
    }

    fn is_over(&self, state: &State) -> bool {
        state.done(&self.settings)
    }

    fn time(&self, state: &State) -> u32 {
        state.step
    }

    fn view<'a>(&'a self, state: &'a State, _player: usize) -> &'a State {
        state
    }

    fn idle_action(&self) -> Option<Action> {
        Some(Action::Stay)
    }

    fn action_token(&self, action: Action) -> String {
        action.letter().to_string()
    }

    fn parse_action(&self, token: &str) -> Option<Action> {
        let mut chars = token.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => Action::from_letter(c),
            _ => None,
        }
    }

    fn render_text(&self, state: &State) -> String {
        render::render(&self.layout, state)
    }

    fn state_json(&self, state: &State) -> serde_json::Value {
        serde_json::to_value(trace::trace_state(&self.layout, &self.settings, state)).unwrap_or_default()
    }
}
