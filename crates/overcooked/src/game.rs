//! Classic Overcooked as a [`Game`]: two players move at once, the game never ends by its
//! own rules (an episode lasts its horizon), nothing is drawn by chance, and both players
//! see the whole kitchen.

use crate::controller::Kitchen;
use crate::env::{Action, Event, Layout, State, StepOutcome, render, trace};
use proagent_core::game::{Chance, Game, Turn};
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// One classic kitchen played for `horizon` steps.
#[derive(Clone)]
pub struct Overcooked {
    /// The kitchen.
    pub layout: Arc<Layout>,
    /// Steps in an episode.
    pub horizon: u32,
    /// The layout's precomputed search tables, built on first use and shared by every
    /// seat that plays this game (cloning the game shares them too).
    kitchen: OnceLock<Arc<Kitchen>>,
}

impl std::fmt::Debug for Overcooked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Overcooked").field("layout", &self.layout.name).field("horizon", &self.horizon).finish()
    }
}

impl Overcooked {
    /// `layout` played for `horizon` steps.
    pub fn new(layout: Arc<Layout>, horizon: u32) -> Self {
        Overcooked { layout, horizon, kitchen: OnceLock::new() }
    }

    /// `kitchen`'s layout, reusing its tables, played for `horizon` steps.
    pub fn with_kitchen(kitchen: Arc<Kitchen>, horizon: u32) -> Self {
        let g = Overcooked::new(Arc::clone(&kitchen.layout), horizon);
        let _ = g.kitchen.set(kitchen);
        g
    }

    /// The layout's search tables (motion costs, regions) for the controller and the
    /// partners, built once per game.
    pub fn kitchen(&self) -> Arc<Kitchen> {
        Arc::clone(self.kitchen.get_or_init(|| Arc::new(Kitchen::new(Arc::clone(&self.layout)))))
    }
}

/// The classic game's counters of an episode.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Soups served by either player.
    pub deliveries: u32,
}

impl Game for Overcooked {
    type State = State;
    type Action = Action;
    type Event = Event;
    type Outcome = StepOutcome;
    type Tally = Tally;
    type View<'a> = &'a State;

    fn kind(&self) -> &'static str {
        "overcooked"
    }

    fn spec(&self) -> String {
        self.layout.name.clone()
    }

    fn num_players(&self) -> usize {
        2
    }

    fn max_steps(&self) -> u32 {
        self.horizon
    }

    fn initial_state(&self, _chance: &mut dyn Chance) -> State {
        self.layout.start_state()
    }

    fn turn(&self, _state: &State) -> Turn {
        Turn::All
    }

    fn legal_actions(&self, _view: &State, player: usize) -> Vec<Action> {
        if player < 2 { Action::ALL.to_vec() } else { Vec::new() }
    }

    fn step(&self, state: &mut State, actions: &[Option<Action>], _chance: &mut dyn Chance) -> StepOutcome {
        let act = |i: usize| actions.get(i).copied().flatten().unwrap_or(Action::Stay);
        self.layout.step(state, [act(0), act(1)])
    }

    fn reward(&self, outcome: &StepOutcome) -> i32 {
        i32::try_from(outcome.reward).unwrap_or(i32::MAX)
    }

    fn event<'o>(&self, outcome: &'o StepOutcome, player: usize) -> Option<&'o Event> {
        outcome.events.get(player).and_then(Option::as_ref)
    }

    fn tally(&self, tally: &mut Tally, _before: &State, _after: &State, outcome: &StepOutcome) {
        let served = outcome.events.iter().filter(|e| matches!(e, Some(Event::Deliver { .. }))).count();
        tally.deliveries = tally.deliveries.saturating_add(served as u32);
    }

    fn idle(&self, before: &State, after: &State, outcome: &StepOutcome) -> bool {
        before.players.iter().zip(&after.players).all(|(b, a)| b.pos == a.pos)
            && outcome.events.iter().all(Option::is_none)
    }

    fn is_over(&self, _state: &State) -> bool {
        false
    }

    fn time(&self, state: &State) -> u32 {
        state.timestep
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
        trace::state_json(&self.layout, state)
    }
}
