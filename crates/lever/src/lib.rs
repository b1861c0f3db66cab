//! proagent-lever: the lever game of Other-Play (Hu et al., "Other-Play for Zero-Shot
//! Coordination"), the standard illustration of zero-shot coordination, played over a
//! fixed number of rounds (docs/lever.md).
//!
//! Two players each pull one of ten levers at the same time. When they pull the same lever
//! both score its payoff: 10 for nine of the levers, 9 for the one special lever (the
//! paper's 1.0 and 0.9, scaled to the runtime's integer rewards); otherwise nobody scores.
//! Each round both see every earlier round's pulls, so a pair can settle on a lever.
//!
//! Guarantees: [`Lever`] implements [`proagent_core::Game`] with simultaneous moves; it is
//! pure and total. The only draw is the special lever's position, taken once from the
//! [`Chance`] at the start, so a seed fixes the game and a recorded seed replays it. The
//! game is fully observable: the view is the state.

#![warn(missing_docs)]

use proagent_core::{Chance, Game, Turn};
use serde::Serialize;
use serde_json::json;
use std::fmt::Write as _;

/// Levers on the board.
pub const LEVERS: u8 = 10;
/// What a matched pull of an ordinary lever scores (the paper's 1.0).
pub const PAYOFF: i32 = 10;
/// What a matched pull of the special lever scores (the paper's 0.9).
pub const SPECIAL_PAYOFF: i32 = 9;
/// Rounds of plain `lever`.
pub const DEFAULT_ROUNDS: u32 = 10;
/// The most rounds a spec may ask for.
pub const MAX_ROUNDS: u32 = 100;
/// The spec's name.
pub const NAME: &str = "lever";

/// One player's move: pull lever `0..LEVERS` (shown 1-based: lever 1 … lever 10).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Pull(pub u8);

impl Pull {
    /// The lever as numbered in text (1-based).
    pub fn number(self) -> u8 {
        self.0 + 1
    }
}

/// The state of an episode: the special lever and every round's pulls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeverState {
    /// The special lever (0-based).
    pub special: u8,
    /// Every round played, in order: each player's lever (0-based), `None` for a player
    /// who did not pull.
    pub rounds: Vec<[Option<u8>; 2]>,
    /// Points scored so far (the team's).
    pub score: i32,
}

impl LeverState {
    /// Rounds played.
    pub fn t(&self) -> u32 {
        self.rounds.len() as u32
    }

    /// The last round's pulls, if a round was played.
    pub fn last(&self) -> Option<[Option<u8>; 2]> {
        self.rounds.last().copied()
    }
}

/// What one player's pull did in a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeverEvent {
    /// The lever pulled (1-based, as in text).
    pub lever: u8,
    /// Whether it was the special lever.
    pub special: bool,
    /// Whether the partner pulled the same lever.
    pub matched: bool,
}

/// Everything one round did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LeverOutcome {
    /// Each player's pull (`None`: it did not pull).
    pub events: [Option<LeverEvent>; 2],
    /// The team's points this round.
    pub reward: i32,
}

/// Counters of an episode.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LeverTally {
    /// Rounds in which both pulled the same lever.
    pub coordinated: u32,
    /// Of those, rounds on the special lever.
    pub on_special: u32,
    /// The first round (1-based) the players matched in, if they did.
    pub first_match: Option<u32>,
    /// Pulls of the special lever, per player.
    pub special_pulls: [u32; 2],
    /// Times a player pulled another lever than in its previous round, per player.
    pub switches: [u32; 2],
}

/// Why a spec names no lever game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    /// Not `lever` nor `lever:Nr`.
    #[error(
        "unknown lever game {0:?}: write `lever` ({DEFAULT_ROUNDS} rounds) or `lever:Nr` (N rounds, 1 to {MAX_ROUNDS})"
    )]
    Unknown(String),
}

/// One configured lever game: how many rounds it lasts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lever {
    rounds: u32,
}

impl Lever {
    /// A game of `rounds` rounds (clamped to `1..=MAX_ROUNDS`).
    pub fn new(rounds: u32) -> Lever {
        Lever { rounds: rounds.clamp(1, MAX_ROUNDS) }
    }

    /// Whether `spec` names a lever game (`lever`, `lever:…`): a spec this crate answers,
    /// with a game or an error.
    pub fn is_spec(spec: &str) -> bool {
        let s = spec.trim();
        s == NAME || s.starts_with("lever:")
    }

    /// The game a spec names: `lever` ([`DEFAULT_ROUNDS`] rounds) or `lever:Nr` (N rounds).
    pub fn from_spec(spec: &str) -> Result<Lever, SpecError> {
        let s = spec.trim();
        if s == NAME {
            return Ok(Lever::new(DEFAULT_ROUNDS));
        }
        s.strip_prefix("lever:")
            .and_then(|r| r.strip_suffix('r'))
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0'))
            .and_then(|n| n.parse::<u32>().ok())
            .filter(|n| (1..=MAX_ROUNDS).contains(n))
            .map(Lever::new)
            .ok_or_else(|| SpecError::Unknown(s.to_string()))
    }

    /// The built-in specs, for help and errors.
    pub fn builtin_names() -> &'static [&'static str] {
        &["lever", "lever:Nr"]
    }

    /// Rounds in an episode.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// The payoff of a matched pull of `lever` (0-based) when `special` is the special one.
    pub fn payoff(lever: u8, special: u8) -> i32 {
        if lever == special { SPECIAL_PAYOFF } else { PAYOFF }
    }
}

impl Default for Lever {
    fn default() -> Self {
        Lever::new(DEFAULT_ROUNDS)
    }
}

fn lever_text(p: Option<u8>) -> String {
    p.map_or_else(|| "-".to_string(), |l| (l + 1).to_string())
}

impl Game for Lever {
    type State = LeverState;
    type Action = Pull;
    type Event = LeverEvent;
    type Outcome = LeverOutcome;
    type Tally = LeverTally;
    type View<'a> = &'a LeverState;

    fn kind(&self) -> &'static str {
        "lever"
    }

    fn spec(&self) -> String {
        if self.rounds == DEFAULT_ROUNDS { NAME.to_string() } else { format!("lever:{}r", self.rounds) }
    }

    fn num_players(&self) -> usize {
        2
    }

    fn max_steps(&self) -> u32 {
        self.rounds
    }

    fn initial_state(&self, chance: &mut dyn Chance) -> LeverState {
        let special = (chance.pick(LEVERS as usize) % LEVERS as usize) as u8;
        LeverState { special, rounds: Vec::new(), score: 0 }
    }

    fn turn(&self, state: &LeverState) -> Turn {
        if self.is_over(state) { Turn::Over } else { Turn::All }
    }

    fn legal_actions(&self, state: &LeverState, player: usize) -> Vec<Pull> {
        if player > 1 || self.is_over(state) {
            return Vec::new();
        }
        (0..LEVERS).map(Pull).collect()
    }

    fn step(&self, state: &mut LeverState, actions: &[Option<Pull>], _chance: &mut dyn Chance) -> LeverOutcome {
        if self.is_over(state) {
            return LeverOutcome { events: [None, None], reward: 0 };
        }
        // A lever out of range is no pull (the rules ignore an action that is not legal).
        let pull = |p: usize| actions.get(p).copied().flatten().map(|a| a.0).filter(|&l| l < LEVERS);
        let pulls = [pull(0), pull(1)];
        let matched = matches!(pulls, [Some(a), Some(b)] if a == b);
        let reward = match pulls {
            [Some(a), Some(_)] if matched => Lever::payoff(a, state.special),
            _ => 0,
        };
        let events = pulls.map(|p| p.map(|l| LeverEvent { lever: l + 1, special: l == state.special, matched }));
        state.rounds.push(pulls);
        state.score = state.score.saturating_add(reward);
        LeverOutcome { events, reward }
    }

    fn reward(&self, outcome: &LeverOutcome) -> i32 {
        outcome.reward
    }

    fn event<'o>(&self, outcome: &'o LeverOutcome, player: usize) -> Option<&'o LeverEvent> {
        outcome.events.get(player).and_then(Option::as_ref)
    }

    fn tally(&self, tally: &mut LeverTally, before: &LeverState, after: &LeverState, outcome: &LeverOutcome) {
        let Some(now) = after.last().filter(|_| after.rounds.len() > before.rounds.len()) else { return };
        let prev = before.last();
        for p in 0..2 {
            if outcome.events[p].as_ref().is_some_and(|e| e.special) {
                tally.special_pulls[p] += 1;
            }
            if let (Some(a), Some(b)) = (prev.and_then(|r| r[p]), now[p])
                && a != b
            {
                tally.switches[p] += 1;
            }
        }
        if outcome.events[0].as_ref().is_some_and(|e| e.matched) {
            tally.coordinated += 1;
            if outcome.events[0].as_ref().is_some_and(|e| e.special) {
                tally.on_special += 1;
            }
            tally.first_match.get_or_insert(after.t());
        }
    }

    fn idle(&self, _before: &LeverState, _after: &LeverState, outcome: &LeverOutcome) -> bool {
        outcome.events.iter().all(Option::is_none)
    }

    fn is_over(&self, state: &LeverState) -> bool {
        state.t() >= self.rounds
    }

    fn time(&self, state: &LeverState) -> u32 {
        state.t()
    }

    fn view<'a>(&'a self, state: &'a LeverState, _player: usize) -> &'a LeverState {
        state
    }

    fn action_token(&self, action: Pull) -> String {
        format!("L{}", action.number())
    }

    fn parse_action(&self, token: &str) -> Option<Pull> {
        let n = token.strip_prefix('L')?;
        if n.is_empty() || n.len() > 2 || !n.bytes().all(|b| b.is_ascii_digit()) || n.starts_with('0') {
            return None;
        }
        let n: u8 = n.parse().ok()?;
        (1..=LEVERS).contains(&n).then(|| Pull(n - 1))
    }

    fn render_text(&self, s: &LeverState) -> String {
        let mut out = String::new();
        let status = if self.is_over(s) { "  OVER" } else { "" };
        let _ = writeln!(out, "{} round {}/{}  score {}{status}", self.spec(), s.t(), self.rounds, s.score);
        let levers: Vec<String> = (1..=LEVERS).map(|l| format!("{l:>3}")).collect();
        let pays: Vec<String> = (0..LEVERS).map(|l| format!("{:>3}", Lever::payoff(l, s.special))).collect();
        let _ = writeln!(out, "lever  {}", levers.join(""));
        let _ = writeln!(out, "pays   {}", pays.join(""));
        for (i, r) in s.rounds.iter().enumerate() {
            let points = match r {
                [Some(a), Some(b)] if a == b => Lever::payoff(*a, s.special),
                _ => 0,
            };
            let _ =
                writeln!(out, "round {:>3}: A {:>2}  B {:>2}  +{points}", i + 1, lever_text(r[0]), lever_text(r[1]));
        }
        out
    }

    fn state_json(&self, s: &LeverState) -> serde_json::Value {
        let rounds: Vec<Vec<Option<u8>>> =
            s.rounds.iter().map(|r| r.iter().map(|p| p.map(|l| l + 1)).collect()).collect();
        json!({"t": s.t(), "special": s.special + 1, "rounds": rounds, "score": s.score})
    }
}

#[cfg(test)]
mod tests;
