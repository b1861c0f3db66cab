//! The core both maze games share: a maze with its name in records and its exit lookup
//! ([`MazeCore`]), the moves every maze game has (stay, move to a room, the game's one
//! action in a room: [`MazeAction`]), and one implementation of `proagent_core::Game`
//! over the rules a game adds ([`MazeRules`], and the crate's `maze_game!` macro): two
//! players moving at once, the turn limit of the maze file, the action tokens (`S`/`W`,
//! `P`/`F`, `M<room>`) and the text board (one line per room).
//!
//! Guarantees: the shared parts behave the same for every maze game; a game's own rules
//! (what its action does, its adversary, its end, its counters, its JSON) are only in its
//! [`MazeRules`] implementation.

use crate::maze::{ExitTable, Maze, Room};
use proagent_core::Chance;
use serde::Serialize;
use std::fmt::Debug;
use std::fmt::Write as _;

/// A move in a maze game: stay, move to a room, or the game's one action in the room it
/// is in (press a button, fix a generator).
pub trait MazeAction: Copy + Eq + Send + Sync + Debug + 'static {
    /// Staying where one is.
    const STAY: Self;
    /// The game's one action in a room.
    const ACT: Self;
    /// The token of [`MazeAction::STAY`].
    const STAY_TOKEN: &'static str;
    /// The token of [`MazeAction::ACT`].
    const ACT_TOKEN: &'static str;
    /// The move to `room`.
    fn to(room: Room) -> Self;
    /// The room this action moves to, if it is a move.
    fn room(self) -> Option<Room>;
}

/// The part of a maze game that does not depend on its rules: the maze, the name it goes
/// by in records (`capture:1`, a file path) and its exit lookup.
#[derive(Clone, Debug)]
pub struct MazeCore {
    /// The maze.
    pub maze: Maze,
    /// The spec the game goes by in records.
    pub spec: String,
    /// The exits of every room.
    pub exits: ExitTable,
}

impl MazeCore {
    /// The core of the game on `maze`, named `spec`.
    pub fn new(maze: Maze, spec: &str) -> MazeCore {
        let exits = ExitTable::new(&maze);
        MazeCore { maze, spec: spec.to_string(), exits }
    }

    /// The token of `action` (`S`, `P`, `M7`, ...).
    pub fn action_token<A: MazeAction>(&self, action: A) -> String {
        match action.room() {
            Some(r) => Maze::move_token(r),
            None if action == A::ACT => A::ACT_TOKEN.to_string(),
            None => A::STAY_TOKEN.to_string(),
        }
    }

    /// The action a token names, if any (a move only to a room of this maze).
    pub fn parse_action<A: MazeAction>(&self, token: &str) -> Option<A> {
        match token {
            t if t == A::STAY_TOKEN => Some(A::STAY),
            t if t == A::ACT_TOKEN => Some(A::ACT),
            _ => self.maze.parse_move(token).map(A::to),
        }
    }
}

/// What one maze game adds to the shared core: its state, events and counters, what a
/// step does, and what its board shows besides the rooms. The crate's `maze_game!` macro
/// turns it into a `proagent_core::Game`.
pub trait MazeRules: Clone + Send + Sync + 'static {
    /// The state of an episode.
    type State: Clone + Send + Sync + Debug + 'static;
    /// One player's move.
    type Action: MazeAction;
    /// What one player's action did in a step.
    type Event: Clone + Send + Sync + Debug + Serialize + 'static;
    /// Everything one step did.
    type Outcome: Clone + Send + Sync + Debug + 'static;
    /// The counters of an episode.
    type Tally: Default + Clone + Send + Sync + Debug + Serialize + 'static;
    /// The game's kind in records (`collab_capture`).
    const KIND: &'static str;
    /// The game's name in messages (`CollabCapture`).
    const NAME: &'static str;
    /// The adversary's letter on the board (`T` the thief, `K` the killer).
    const ADVERSARY: char;

    /// The maze, its name and its exits.
    fn core(&self) -> &MazeCore;
    /// The state at the start.
    fn start(&self) -> Self::State;
    /// The players' rooms.
    fn players(s: &Self::State) -> [Room; 2];
    /// The adversary's room.
    fn adversary(s: &Self::State) -> Room;
    /// Turns played.
    fn turns(s: &Self::State) -> u32;
    /// Whether the episode is over.
    fn over(s: &Self::State) -> bool;
    /// The legal actions of `player`, into `out` (cleared first).
    fn legal(&self, s: &Self::State, player: usize, out: &mut Vec<Self::Action>);
    /// One step of an episode that may already be over, with each player's action.
    fn play(&self, s: &mut Self::State, acts: [Option<Self::Action>; 2], chance: &mut dyn Chance) -> Self::Outcome;
    /// The shared reward of a step.
    fn step_reward(&self, outcome: &Self::Outcome) -> i32;
    /// What each player's action did in a step.
    fn events(outcome: &Self::Outcome) -> &[Self::Event; 2];
    /// Whether an event is staying put (not reported as an event).
    fn stayed(event: &Self::Event) -> bool;
    /// Adds a step to the counters.
    fn count(&self, tally: &mut Self::Tally, after: &Self::State, outcome: &Self::Outcome);
    /// Whether a step changed nothing the players did.
    fn changed_nothing(&self, before: &Self::State, after: &Self::State, outcome: &Self::Outcome) -> bool;
    /// What the board's first line adds after the turn (`  THIEF CAUGHT`), if anything.
    fn status(&self, s: &Self::State) -> &'static str;
    /// What a room's board line adds after its exits (a button, a generator, the gate).
    fn room_notes(&self, s: &Self::State, room: Room, out: &mut String);
    /// The board's lines after the rooms.
    fn footer(&self, s: &Self::State, out: &mut String);
    /// The state as JSON.
    fn to_json(&self, s: &Self::State) -> serde_json::Value;

    /// The text board: the spec, the turn and the status, then one line per room (who is
    /// in it: A Alice, B Bob and the adversary; its exits and its notes), then the footer.
    fn board(&self, s: &Self::State) -> String {
        let core = self.core();
        let mut out = String::new();
        let _ = writeln!(out, "{} turn {}/{}{}", core.spec, Self::turns(s), core.maze.turns, self.status(s));
        let players = Self::players(s);
        for r in 1..=core.maze.rooms as Room {
            let mut who = String::new();
            for (p, name) in ["A", "B"].iter().enumerate() {
                if players[p] == r {
                    who.push_str(name);
                }
            }
            if Self::adversary(s) == r {
                who.push(Self::ADVERSARY);
            }
            let exits: Vec<String> = core.maze.exits(r).iter().map(|x| x.to_string()).collect();
            let mut notes = String::new();
            self.room_notes(s, r, &mut notes);
            let _ = writeln!(out, "room {r:>2} [{who:<3}] -> {}{notes}", exits.join(" "));
        }
        self.footer(s, &mut out);
        out
    }
}

/// `proagent_core::Game` for a type implementing [`MazeRules`]: simultaneous moves while
/// the episode lasts, the maze file's turn limit, the shared tokens and board.
macro_rules! maze_game {
    ($game:ty) => {
        impl proagent_core::Game for $game {
            type State = <$game as $crate::game_core::MazeRules>::State;
            type Action = <$game as $crate::game_core::MazeRules>::Action;
            type Event = <$game as $crate::game_core::MazeRules>::Event;
            type Outcome = <$game as $crate::game_core::MazeRules>::Outcome;
            type Tally = <$game as $crate::game_core::MazeRules>::Tally;
            type View<'a> = &'a Self::State;

            fn kind(&self) -> &'static str {
                <$game as $crate::game_core::MazeRules>::KIND
            }
            fn spec(&self) -> String {
                $crate::game_core::MazeRules::core(self).spec.clone()
            }
            fn num_players(&self) -> usize {
                2
            }
            fn max_steps(&self) -> u32 {
                $crate::game_core::MazeRules::core(self).maze.turns
            }
            fn initial_state(&self, _chance: &mut dyn proagent_core::Chance) -> Self::State {
                $crate::game_core::MazeRules::start(self)
            }
            fn turn(&self, state: &Self::State) -> proagent_core::Turn {
                if <$game as $crate::game_core::MazeRules>::over(state) {
                    proagent_core::Turn::Over
                } else {
                    proagent_core::Turn::All
                }
            }
            fn legal_actions(&self, state: &Self::State, player: usize) -> Vec<Self::Action> {
                let mut out = Vec::new();
                $crate::game_core::MazeRules::legal(self, state, player, &mut out);
                out
            }
            fn step(
                &self,
                state: &mut Self::State,
                actions: &[Option<Self::Action>],
                chance: &mut dyn proagent_core::Chance,
            ) -> Self::Outcome {
                let acts = [actions.first().copied().flatten(), actions.get(1).copied().flatten()];
                $crate::game_core::MazeRules::play(self, state, acts, chance)
            }
            fn reward(&self, outcome: &Self::Outcome) -> i32 {
                $crate::game_core::MazeRules::step_reward(self, outcome)
            }
            fn event<'o>(&self, outcome: &'o Self::Outcome, player: usize) -> Option<&'o Self::Event> {
                <$game as $crate::game_core::MazeRules>::events(outcome)
                    .get(player)
                    .filter(|e| !<$game as $crate::game_core::MazeRules>::stayed(e))
            }
            fn tally(
                &self,
                tally: &mut Self::Tally,
                _before: &Self::State,
                after: &Self::State,
                outcome: &Self::Outcome,
            ) {
                $crate::game_core::MazeRules::count(self, tally, after, outcome)
            }
            fn idle(&self, before: &Self::State, after: &Self::State, outcome: &Self::Outcome) -> bool {
                $crate::game_core::MazeRules::changed_nothing(self, before, after, outcome)
            }
            fn is_over(&self, state: &Self::State) -> bool {
                <$game as $crate::game_core::MazeRules>::over(state)
            }
            fn time(&self, state: &Self::State) -> u32 {
                <$game as $crate::game_core::MazeRules>::turns(state)
            }
            fn view<'a>(&'a self, state: &'a Self::State, _player: usize) -> &'a Self::State {
                state
            }
            fn action_token(&self, action: Self::Action) -> String {
                $crate::game_core::MazeRules::core(self).action_token(action)
            }
            fn parse_action(&self, token: &str) -> Option<Self::Action> {
                $crate::game_core::MazeRules::core(self).parse_action(token)
            }
            fn render_text(&self, state: &Self::State) -> String {
                $crate::game_core::MazeRules::board(self, state)
            }
            fn state_json(&self, state: &Self::State) -> serde_json::Value {
                $crate::game_core::MazeRules::to_json(self, state)
            }
        }
    };
}
pub(crate) use maze_game;
