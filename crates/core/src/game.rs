//! The game interface: what every game of the runtime (classic Overcooked, OvercookedV2,
//! the card game, the Collab mazes, the lever game) gives the layers above it. The episode runner, the seats,
//! transcripts, sweeps and every front end are written once over [`Game`].
//!
//! Guarantees an implementation keeps:
//! - **Pure.** No I/O, no clock, no async. The only randomness is the [`Chance`] the
//!   caller passes to [`Game::initial_state`] and [`Game::step`], so the same chance
//!   stream gives the same game, and a recorded stream replays it.
//! - **Both kinds of turn.** [`Game::turn`] says who moves: everybody at once
//!   ([`Turn::All`], Overcooked) or one player ([`Turn::Player`], a card game). `step` takes one
//!   slot per player; a player who does not move has `None` there.
//! - **Per-player views.** [`Game::view`] is what one player may see. A game with hidden
//!   information (a card game: your own cards) gives a view that cannot show it; a fully
//!   observable game gives the state itself. Seats only ever get views.
//! - **Total.** No state, action or chance value makes a method panic; an action that is
//!   not legal is ignored or refused by `step` as the game's own rules say (see
//!   [`Game::legal_actions`]).

use serde::Serialize;
use std::fmt::Debug;

/// Random draws of the environment itself (recipes, random starts, the deck). Games draw
/// only through this, so a seeded generator plays a game and a recording replays one.
pub trait Chance {
    /// A uniform index in `0..n` (`n` ≥ 1; `n` = 0 is read as 1).
    fn pick(&mut self, n: usize) -> usize;
}

impl Chance for rand_chacha::ChaCha8Rng {
    fn pick(&mut self, n: usize) -> usize {
        use rand::Rng;
        self.random_range(0..n.max(1))
    }
}

/// A [`Chance`] for games that never draw (classic Overcooked): every pick is 0.
#[derive(Copy, Clone, Debug, Default)]
pub struct NoChance;

impl Chance for NoChance {
    fn pick(&mut self, _n: usize) -> usize {
        0
    }
}

/// Who chooses an action in a state.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    /// Every player at once (simultaneous moves, as in Overcooked).
    All,
    /// This player alone (turn-based, as in a card game); the others' slots are `None`.
    Player(usize),
    /// Nobody: the game is over.
    Over,
}

impl Turn {
    /// Whether `player` chooses an action in this turn.
    pub fn includes(self, player: usize) -> bool {
        match self {
            Turn::All => true,
            Turn::Player(p) => p == player,
            Turn::Over => false,
        }
    }
}

/// A game: its rules, applied to states it owns. One value is one configured game (a
/// layout with its settings, a player count): cheap to share behind an `Arc`.
pub trait Game: Send + Sync + 'static {
    /// Everything the simulator needs, hidden information included.
    type State: Clone + Send + Sync + Debug + 'static;
    /// One player's move.
    type Action: Copy + Eq + Send + Sync + Debug + 'static;
    /// What one player's move did in a step, as recorded in trajectories and transcripts.
    type Event: Clone + Send + Sync + Debug + Serialize + 'static;
    /// Everything one step did (rewards, events, anything game-specific such as shaped
    /// rewards); read through [`Game::reward`] and [`Game::event`].
    type Outcome: Clone + Send + Sync + Debug + 'static;
    /// Per-episode counters of the game's own (deliveries, wrong dishes, lives lost),
    /// updated by [`Game::tally`] after every step and merged into episode summaries.
    type Tally: Default + Clone + Send + Sync + Debug + Serialize + 'static;
    /// What one player may see of a state. Fully observable games use `&'a Self::State`.
    type View<'a>: Copy + Send + Sync
    where
        Self: 'a;

    /// The game's family as written in records: `overcooked`, `overcooked_v2`, `lever`, ...
    fn kind(&self) -> &'static str;
    /// The game as named on the command line (`cramped_room`, `v2:two_rooms`, `lever:3r`).
    fn spec(&self) -> String;
    /// How many players take part.
    fn num_players(&self) -> usize;
    /// The most steps an episode may last (the horizon, or a turn limit).
    fn max_steps(&self) -> u32;

    /// The state an episode starts from.
    fn initial_state(&self, chance: &mut dyn Chance) -> Self::State;
    /// Who moves in `state`.
    fn turn(&self, state: &Self::State) -> Turn;
    /// The actions `player` may take, from what it sees (empty when it is not that
    /// player's turn). A view always holds enough to know them.
    fn legal_actions(&self, view: Self::View<'_>, player: usize) -> Vec<Self::Action>;
    /// Applies one slot per player (`None`: that player does not move) and advances time.
    fn step(&self, state: &mut Self::State, actions: &[Option<Self::Action>], chance: &mut dyn Chance)
    -> Self::Outcome;
    /// The team reward of a step (negative for penalties).
    fn reward(&self, outcome: &Self::Outcome) -> i32;
    /// What `player`'s action did in a step, if anything worth recording.
    fn event<'o>(&self, outcome: &'o Self::Outcome, player: usize) -> Option<&'o Self::Event>;
    /// Counts a step into the episode's tally (`before` and `after` are the states around it).
    fn tally(&self, tally: &mut Self::Tally, before: &Self::State, after: &Self::State, outcome: &Self::Outcome);
    /// Whether nothing happened in a step (nobody moved or did anything with effect);
    /// the runner counts such steps and reports an episode that ends in a long run of them
    /// as deadlocked.
    fn idle(&self, before: &Self::State, after: &Self::State, outcome: &Self::Outcome) -> bool;
    /// Whether the game has ended by its own rules (not counting [`Game::max_steps`]).
    fn is_over(&self, state: &Self::State) -> bool;
    /// Steps played so far in `state`.
    fn time(&self, state: &Self::State) -> u32;

    /// What `player` may see of `state`.
    fn view<'a>(&'a self, state: &'a Self::State, player: usize) -> Self::View<'a>;

    /// The action that does nothing, if the game has one (Overcooked's stay; a card game has
    /// none): the `stay` baseline plays it, and stand-ins use it while they wait.
    fn idle_action(&self) -> Option<Self::Action> {
        None
    }

    /// An action as one short token for transcripts and trajectories (`N`, `I`, `P3`, `H1R`).
    fn action_token(&self, action: Self::Action) -> String;
    /// Reads a token written by [`Game::action_token`] back.
    fn parse_action(&self, token: &str) -> Option<Self::Action>;
    /// The state as text (a board, a table), for `show` and `--render`.
    fn render_text(&self, state: &Self::State) -> String;
    /// The state as the game's trajectory record (JSON), for trajectories and viewers.
    fn state_json(&self, state: &Self::State) -> serde_json::Value;
}

/// The actions of one step as transcript tokens, `null` for a player who did not move.
pub fn action_tokens<G: Game>(game: &G, actions: &[Option<G::Action>]) -> Vec<Option<String>> {
    actions.iter().map(|a| a.map(|a| game.action_token(a))).collect()
}
