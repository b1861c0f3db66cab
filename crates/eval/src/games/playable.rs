//! What the evaluation layer needs of a game ([`Playable`]), the errors of building its
//! seats ([`SeatError`]) and of loading it ([`GameError`]), and its options.

use super::hooks::{LlmcoHooks, ProAgentHooks};
use super::interdependence::{AnalysedEpisode, EpisodeSource, Interdependence};
use super::saved::SavedEpisode;
use proagent_agent::ProAgentConfig;
use proagent_agent::llmco::LlmcoConfig;
use proagent_agent::prompts::PromptError;
use proagent_agent::prompts::{Family, PromptLibrary};
use proagent_core::episode::EpisodeResult;
use proagent_core::files::{FileAccess, FileRefusal, NamedReadError};
use proagent_core::{Game, Seat};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Teamwork of one episode: the figures `play --json` shows, and the totals sweeps keep.
#[derive(Clone, Debug, PartialEq)]
pub struct Teamwork {
    /// The game's own teamwork record (or `{"error": ...}` when it could not be computed).
    pub json: Value,
    /// Deliveries, constructive and non-constructive interdependencies, for eval reports
    /// (`None` when the analysis failed).
    pub totals: Option<proagent_analysis::TeamworkTotals>,
}

/// Why a recorded episode (a trajectory record, a reference trace) could not be read back:
/// what is wrong with it (the caller adds the file and line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// What is wrong with the record.
    #[error("{0}")]
    Bad(String),
    /// A field of the record names a file the caller's file-access policy refuses: nothing
    /// was opened, and the message names only the path as the record gives it.
    #[error("`{field}`: {refusal}")]
    Refused {
        /// The field (`spec`).
        field: &'static str,
        /// Why the file is not opened.
        refusal: FileRefusal,
    },
}

impl From<String> for RecordError {
    fn from(s: String) -> Self {
        RecordError::Bad(s)
    }
}

impl From<&str> for RecordError {
    fn from(s: &str) -> Self {
        RecordError::Bad(s.to_string())
    }
}

/// Teamwork of a saved episode as the viewer shows it: the game's teamwork record, a line
/// of text, and every hand-over with the cell to mark on the board.
#[derive(Clone, Debug, PartialEq)]
pub struct SavedTeamwork {
    /// The game's teamwork record (or `{"error": ...}` when it could not be computed).
    pub json: Value,
    /// The figures in one line ("deliveries 2, hand-overs: 3 constructive, 1 other").
    pub line: String,
    /// The hand-overs, in the order they were completed.
    pub handovers: Vec<HandOverMark>,
}

/// One hand-over of a saved episode: an item put down by one player and picked up by another.
#[derive(Clone, Debug, PartialEq)]
pub struct HandOverMark {
    /// The counter.
    pub at: proagent_overcooked::env::Pos,
    /// The step in which it was put down (`None`: it lay there from the start).
    pub t_give: Option<u32>,
    /// The step in which it was picked up.
    pub t_receive: u32,
    /// The item ended in a delivery that counted.
    pub constructive: bool,
    /// Everything the viewer lists about it (`giver`, `receiver`, `object`, `link`, ...).
    pub json: Value,
}

/// How partner seats are built beyond their spec (set on the seat factory).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PartnerOptions {
    /// Let a BC or RL model file play a layout (or V2 switches) other than the one it was
    /// trained on (`--allow-model-mismatch`); without it such a seat is refused.
    pub allow_model_mismatch: bool,
}

/// What the evaluation layer needs of a game. Implemented once per game; every command,
/// the sweeps, transcripts and the Python bindings go through it.
pub trait Playable: Game + Sized {
    /// The game's name in reports and transcript headers (`cramped_room`, `v2:two_rooms`,
    /// `hanabi:3p`, `capture:1`).
    fn report_name(&self) -> String;
    /// The agent a command seats under test when none is named (`proagent`, `llmco`).
    fn default_agent(&self) -> &'static str {
        "proagent"
    }
    /// The partner a command seats when none is named.
    fn default_partner(&self) -> &'static str;
    /// The seat specs this game knows (for errors and help).
    fn known_specs(&self) -> &'static [&'static str];
    /// A seat that talks to no model, from its spec (`greedy`, `random`, `bc:train`, ...).
    fn partner(&self, spec: &str) -> Result<Box<dyn Seat<Self>>, SeatError>;
    /// [`Playable::partner`] with the factory's options (games without model-file
    /// partners ignore them).
    fn partner_with(&self, spec: &str, options: &PartnerOptions) -> Result<Box<dyn Seat<Self>>, SeatError> {
        let _ = options;
        self.partner(spec)
    }
    /// The ProAgent agent on this game, when it has a ProAgent grounding (`None`: a
    /// `proagent` seat is refused with [`SeatError::NoAgent`]).
    fn proagent_hooks(&self) -> Option<&'static dyn ProAgentHooks<Self>> {
        None
    }
    /// The LLM-Coordination agent on this game, when it has an LLM-Co grounding (`None`: an
    /// `llmco` seat is refused with [`SeatError::NoAgent`]).
    fn llmco_hooks(&self) -> Option<&'static dyn LlmcoHooks<Self>> {
        None
    }
    /// The ProAgent hooks, or the error that says this game has none.
    fn proagent_or_refuse(&self) -> Result<&'static dyn ProAgentHooks<Self>, SeatError> {
        self.proagent_hooks().ok_or_else(|| no_agent("proagent", &self.report_name(), self.llmco_hooks().is_some()))
    }
    /// The LLM-Co hooks, or the error that says this game has none.
    fn llmco_or_refuse(&self) -> Result<&'static dyn LlmcoHooks<Self>, SeatError> {
        self.llmco_hooks().ok_or_else(|| no_agent("llmco", &self.report_name(), self.proagent_hooks().is_some()))
    }
    /// The longest stretch without progress of player `seat`, in steps: in Overcooked the
    /// longest run in which it held an item and neither moved nor changed what it held (an
    /// agent stuck waiting with a dish, say); in a turn game the longest run of moves in
    /// which the game made no progress (see the game's impl). An episode over the game's
    /// [`Catalogued::STUCK_AFTER`](super::catalog::Catalogued::STUCK_AFTER) is flagged
    /// stuck in reports. `None` for games that do not measure it.
    fn held_wait_max(&self, _result: &EpisodeResult<Self>, _seat: usize) -> Option<u32> {
        None
    }
    /// Why the ProAgent agent's skills cannot score on this layout, if they cannot (a
    /// classic layout whose orders all need tomatoes: the agent cooks onion soup only).
    fn proagent_unsupported(&self) -> Option<String> {
        None
    }
    /// The game's own fields of an episode summary (the layout, deliveries, ...), merged
    /// into the common ones by [`crate::runner::summary`].
    fn summary_fields(&self, result: &EpisodeResult<Self>) -> Map<String, Value>;
    /// Correct deliveries (or the game's measure of success) of an episode, for reports.
    fn deliveries(&self, result: &EpisodeResult<Self>) -> u32;
    /// The teamwork analysis of an episode.
    fn teamwork(&self, result: &EpisodeResult<Self>) -> Teamwork;
    /// The episode as one trajectory record (JSON Lines), as `verify-trace`, `analyze` and
    /// the viewer read it.
    fn trajectory_json(&self, result: &EpisodeResult<Self>) -> Value;
    /// Extra fields of a transcript step record beyond the actions, reward, skill events
    /// and belief corrections (V2: the interact events).
    fn step_fields(&self, outcome: &Self::Outcome) -> Map<String, Value>;
    /// The key a transcript header records the game's own settings under (`None`: the
    /// game has none). OvercookedV2's is `v2`, as every header has written it.
    const SETTINGS_KEY: Option<&'static str> = None;
    /// The environment switches a transcript header records for this game (`None`: none).
    fn env_settings(&self) -> Option<Value>;
    /// The game's own settings as a transcript header records them: the key
    /// ([`Playable::SETTINGS_KEY`]) and [`Playable::env_settings`].
    fn header_settings(&self) -> Option<(&'static str, Value)> {
        Some((Self::SETTINGS_KEY?, self.env_settings()?))
    }
    /// The game's action indices, observation vectors and built-in seats for learning code
    /// (the Python bindings' `GameEnv`). The default: [`GenericCodec`], from the game's
    /// rules alone.
    fn vector_codec(&self) -> Box<dyn VectorCodec<Self>> {
        Box::new(GenericCodec::of(self))
    }
    /// The interdependence analysis of a saved episode (`proagent analyze`): its line, with
    /// what the summaries need kept in `into`; `None`: the game has no such analysis.
    fn interdependence(
        &self,
        episode: &SavedEpisode<Self>,
        from: EpisodeSource<'_>,
        into: &mut Interdependence,
    ) -> Option<Result<AnalysedEpisode, proagent_analysis::AnalysisError>> {
        let _ = (episode, from, into);
        None
    }
    /// The same game with episodes of `horizon` steps (sharing what was precomputed).
    fn with_horizon(&self, horizon: u32) -> Self;
    /// What the characters of [`proagent_core::Game::render_text`] mean.
    fn legend(&self) -> &'static str;
    /// The game's start as `show --layout` prints it for the episode seed `seed` (the
    /// start `play --seed` plays: the same deal, recipe or draw). The default: the legend,
    /// then that start state.
    fn start_text(&self, seed: u64) -> String {
        let mut chance = proagent_core::episode::env_chance(seed);
        format!("{}\n{}", self.legend(), self.render_text(&self.initial_state(&mut chance)))
    }
    /// The layout's facts as one JSON object (`show --layout ... --json`); `None` for games
    /// that have none to print.
    fn start_json(&self) -> Option<Value> {
        None
    }
    /// The episode's outcome in words for a `play` line (`12 deliveries`).
    fn outcome_text(&self, result: &EpisodeResult<Self>) -> String;
    /// Reads an action as people and files write it: [`Game::parse_action`]'s tokens, and
    /// whatever else the game accepts (Overcooked: `n`, `north`, `INTERACT`, ...).
    fn read_action(&self, token: &str) -> Option<Self::Action> {
        self.parse_action(token)
    }
    /// Reads back one record written by [`Playable::trajectory_json`] (line `line` of
    /// `source`): the game it was played in and its episode. Errors say what is wrong
    /// (the caller adds the file and line). A file the record names (a maze) is opened only
    /// as `files` allows.
    fn read_trajectory(
        source: &str,
        line: usize,
        record: &Value,
        files: &dyn FileAccess,
    ) -> Result<SavedEpisode<Self>, RecordError>;
    /// The teamwork of a saved episode with its hand-overs, for the viewer.
    fn saved_teamwork(&self, episode: &SavedEpisode<Self>) -> SavedTeamwork;
    /// The episode in the game's human-data schema, one line per step (classic
    /// Overcooked: the 2019 study's, read by `bc train` and `analyze`), for games played by a
    /// person in `proagent serve`; `None` for games without one. `trial` names the game.
    fn human_game_lines(&self, _result: &EpisodeResult<Self>, _trial: &str) -> Option<String> {
        None
    }
}

/// The error for a seat of `agent` on a game without its grounding; `other` says the other
/// agent plays it.
fn no_agent(agent: &'static str, game: &str, other: bool) -> SeatError {
    let hint = match (agent, other) {
        ("proagent", true) => "; seat llmco (the LLM-Coordination agent) instead",
        ("llmco", true) => "; seat proagent instead",
        _ => "",
    };
    SeatError::NoAgent { agent, game: game.to_string(), hint }
}

/// Why a seat could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    /// A language-model agent the game has no grounding for (ProAgent on Hanabi, ...).
    #[error("{agent} cannot play {game}: the agent has no grounding for this game{hint}")]
    NoAgent {
        /// `proagent` or `llmco`.
        agent: &'static str,
        /// The game's report name.
        game: String,
        /// Which agent does play it.
        hint: &'static str,
    },
    /// A spec no seat of this game answers to.
    #[error("unknown agent {spec:?} for {game} (known: {known}){hint}")]
    Unknown {
        /// The spec as given.
        spec: String,
        /// The game's report name.
        game: String,
        /// The specs that exist.
        known: String,
        /// A hint when the spec looks like a model name.
        hint: String,
    },
    /// A `proagent[...]` or `llmco[...]` spec that does not parse.
    #[error("{spec:?}: {message}")]
    BadProAgentSpec {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        message: String,
    },
    /// A `proagent[...]` or `llmco[...]` seat whose settings were not resolved by the
    /// caller (a programming error: the caller must register every such spec).
    #[error("{0:?}: this command cannot seat a configured language-model agent here")]
    Unresolved(String),
    /// A BC model that could not be loaded.
    #[error(transparent)]
    Bc(#[from] proagent_partners::bc::BcError),
    /// An RL policy that could not be loaded.
    #[error(transparent)]
    Rl(#[from] proagent_partners::rl::model::LoadError),
    /// The agent's model could not be built.
    #[error("{label}: --model: {source}")]
    Model {
        /// The seat's name.
        label: String,
        /// Why.
        #[source]
        source: crate::runner::models::ModelError,
    },
    /// A prompt template that does not render (or load) for this game and seat.
    #[error("prompt templates for {layout}, seat {seat}: {source}")]
    Prompts {
        /// The game's report name.
        layout: String,
        /// The seat (player index).
        seat: usize,
        /// What went wrong.
        #[source]
        source: PromptError,
    },
    /// A layout the ProAgent agent cannot play for points ([`Playable::proagent_unsupported`]).
    #[error("the ProAgent agent cannot play {layout}: {message}")]
    Unsupported {
        /// The game's report name.
        layout: String,
        /// Why.
        message: String,
    },
}

/// The longest run of `true`s in `still` (the steps in which nothing progressed).
pub fn longest_run(still: impl Iterator<Item = bool>) -> u32 {
    let (mut run, mut best) = (0u32, 0u32);
    for s in still {
        run = if s { run + 1 } else { 0 };
        best = best.max(run);
    }
    best
}

/// The longest run of steps of `r` in which nothing happened ([`Game::idle`]).
pub fn idle_run<G: Game>(r: &EpisodeResult<G>) -> u32 {
    let mut before = &r.start;
    longest_run(r.steps.iter().map(|s| {
        let idle = r.game.idle(before, &s.state, &s.outcome);
        before = &s.state;
        idle
    }))
}

pub use super::plural::counted;

/// The error for a spec no seat of `game` answers to, with a hint when it looks like a
/// model name (naming the language-model agent the game's `known` specs offer).
pub fn unknown_spec(spec: &str, game: &str, known: &[&str]) -> SeatError {
    let looks_like_a_model = ["gpt", "llama", "qwen", "mistral", "claude", "gemma", "phi", "o1", "o3", "deepseek"]
        .iter()
        .any(|m| spec.to_ascii_lowercase().starts_with(m))
        || spec.contains(':') && !spec.starts_with("bc") && !spec.starts_with("rl");
    let agent = if known.contains(&"proagent") { "proagent" } else { "llmco" };
    let hint = if looks_like_a_model {
        format!("; to seat a language model, use {agent}[model={spec}] (or {agent} with --model {spec})")
    } else {
        String::new()
    };
    SeatError::Unknown { spec: spec.to_string(), game: game.to_string(), known: known.join(", "), hint }
}

/// Why a game could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum GameError {
    /// Not a built-in name nor an existing file.
    #[error("unknown {what} {spec:?}: not a built-in name ({known}) nor an existing file")]
    Unknown {
        /// Which kind of layout.
        what: &'static str,
        /// The spec as given.
        spec: String,
        /// The built-in names.
        known: String,
    },
    /// The file could not be read.
    #[error("reading layout file {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a layout (the message names file, line and column).
    #[error("{0}")]
    Parse(String),
    /// The caller's file-access policy refused the file the spec names: nothing was opened.
    #[error(transparent)]
    Refused(FileRefusal),
    /// Settings the game takes but whose values do not parse.
    #[error("{game} settings: {message}")]
    BadSettings {
        /// The game's title.
        game: &'static str,
        /// What is wrong.
        message: String,
    },
}

impl GameError {
    /// A failed read of the file a spec names: a file the policy says is missing is an
    /// unknown spec (`unknown`), another refusal [`GameError::Refused`], a failed read
    /// [`GameError::Io`].
    pub fn of_named_read(e: NamedReadError, unknown: impl FnOnce() -> GameError) -> GameError {
        match e {
            NamedReadError::Refused(FileRefusal::Missing(_)) => unknown(),
            NamedReadError::Refused(refusal) => GameError::Refused(refusal),
            NamedReadError::Io { path, source } => GameError::Io { path, source },
        }
    }
}

/// A game's own settings by name (`view_radius` for OvercookedV2), as the command line's
/// switches, a request or a transcript header give them: the game the spec names parses
/// them into its typed settings when it is loaded (a bad value is
/// [`GameError::BadSettings`]); games without settings ignore them, as they always have
/// (the command line refuses a switch its layout's game does not take).
pub type GameSettings = Map<String, Value>;

/// The options of a game beyond its layout: episode length and the game's own settings.
#[derive(Clone, Debug, PartialEq)]
pub struct GameOptions {
    /// Steps in an episode (games with their own turn limits keep them).
    pub horizon: u32,
    /// The game's own settings ([`GameSettings`]; empty: the game's defaults).
    pub settings: GameSettings,
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions { horizon: proagent_overcooked::env::DEFAULT_HORIZON, settings: GameSettings::new() }
    }
}

/// The configuration plain `proagent` gets on `game` when nothing else is configured: the
/// default switches, the game's `scripted` stand-in model, its embedded templates, its
/// episode length. Refused on a game without a ProAgent grounding.
pub fn default_proagent_config<G: Playable>(game: &G) -> Result<ProAgentConfig, SeatError> {
    let hooks = game.proagent_or_refuse()?;
    let mut cfg = ProAgentConfig::new(hooks.scripted_model());
    cfg.prompts = Arc::new(PromptLibrary::embedded_family(hooks.family()));
    cfg.horizon = game.max_steps();
    Ok(cfg)
}

/// The configuration plain `llmco` gets on `game` when nothing else is configured: the
/// paper's switches for the game, its `scripted` stand-in model and the embedded
/// templates. Refused on a game without an LLM-Co grounding.
pub fn default_llmco_config<G: Playable>(game: &G) -> Result<LlmcoConfig, SeatError> {
    let hooks = game.llmco_or_refuse()?;
    let mut cfg = LlmcoConfig::new(hooks.scripted_model());
    cfg.prompts = Arc::new(PromptLibrary::embedded_family(Family::Llmco));
    Ok(cfg)
}

// ---- Learning codecs ----
// How a game is numbered and encoded for learning code (the Python bindings' `GameEnv`):
// the game's [`VectorCodec`], chosen by the game itself ([`Playable::vector_codec`]), so
// the bindings name no game.
//
// Guarantees: a codec's action indices are fixed for a game (they do not depend on the
// state), [`VectorCodec::action_at`] inverts [`VectorCodec::action_index`] on every action
// of the game, and [`VectorCodec::encode`] writes exactly [`VectorCodec::obs_len`]
// values. [`GenericCodec`] serves every game from [`proagent_core::Game`] and
// [`Playable`] alone; a game with its own indices and encoding (Hanabi's move uids and
// canonical encoding, the mazes' rooms) returns its own from [`Playable::vector_codec`].

/// A game's action indices, observation vectors and built-in seats for learning code.
pub trait VectorCodec<G: Game>: Send + Sync {
    /// Size of the action index space.
    fn n_actions(&self, game: &G) -> usize;
    /// The index of an action.
    fn action_index(&self, game: &G, a: G::Action) -> usize;
    /// The action of an index (`None`: not an action of this game).
    fn action_at(&self, game: &G, i: usize) -> Option<G::Action>;
    /// Length of one player's observation vector.
    fn obs_len(&self, game: &G) -> usize;
    /// `player`'s observation of `state`, written into `out` (resized to
    /// [`VectorCodec::obs_len`]); `last` is the last joint action (empty before the first).
    fn encode(&self, game: &G, state: &G::State, player: usize, last: &[Option<G::Action>], out: &mut Vec<f32>);
    /// A built-in seat by name, or why not (in words that name the known seats).
    fn seat(&self, game: &G, name: &str) -> Result<Box<dyn Seat<G>>, UnknownSeat>;
}

/// A seat name a game's codec does not know; the message names the known seats.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownSeat(pub String);

/// How a [`GenericCodec`] writes one player's observation: the one part of a codec a
/// game with fixed action indices writes itself (classic Overcooked's 96 features,
/// OvercookedV2's tensor); [`LastActions`] is the default.
pub trait ObsEncoder<G: Game>: Send + Sync {
    /// Length of one player's observation vector; `actions` is the codec's action table.
    fn obs_len(&self, game: &G, actions: &[G::Action]) -> usize;
    /// `player`'s observation of `state`, written into `out` (cleared first, exactly
    /// [`ObsEncoder::obs_len`] values); `last` is the last joint action (empty before the
    /// first) and `actions` the codec's action table.
    fn encode(
        &self,
        game: &G,
        actions: &[G::Action],
        state: &G::State,
        player: usize,
        last: &[Option<G::Action>],
        out: &mut Vec<f32>,
    );
}

/// The default observation of [`GenericCodec`], from [`Game`] alone: for each player (the
/// observer first, then the others in seat order) a one-hot of its action in the last step
/// over the action indices, then the share of the step limit played. Built from what every
/// player saw, so it hides nothing a game's own view would show less of only for games
/// that show all actions.
pub struct LastActions;

impl<G: Game> ObsEncoder<G> for LastActions {
    fn obs_len(&self, game: &G, actions: &[G::Action]) -> usize {
        game.num_players() * actions.len() + 1
    }
    fn encode(
        &self,
        game: &G,
        actions: &[G::Action],
        state: &G::State,
        player: usize,
        last: &[Option<G::Action>],
        out: &mut Vec<f32>,
    ) {
        let (n, k) = (game.num_players(), actions.len());
        out.clear();
        out.resize(n * k + 1, 0.0);
        for slot in 0..n {
            let p = (player + slot) % n;
            if let Some(i) = last.get(p).copied().flatten().and_then(|a| actions.iter().position(|&b| b == a)) {
                out[slot * k + i] = 1.0;
            }
        }
        out[n * k] = (game.time(state) as f32 / game.max_steps().max(1) as f32).clamp(0.0, 1.0);
    }
}

/// The codec of a game with a fixed action list, written once: the action indices, the
/// seats, and an observation encoder `E` ([`ObsEncoder`]; by default [`LastActions`]).
///
/// - **Actions**: every action some player may take in the start state (seed 0), in the
///   order the game lists them; index `i` is the `i`-th of that list. (Both Overcookeds
///   list [`proagent_overcooked::env::Action::ALL`] for every cook, so their indices are
///   overcooked-ai's.)
/// - **Observation**: the encoder's.
/// - **Partners**: the game's own seat factory ([`Playable::partner`]).
pub struct GenericCodec<G: Game, E = LastActions> {
    table: Vec<G::Action>,
    encoder: E,
}

impl<G: Game> GenericCodec<G, LastActions> {
    /// The codec of `game` with the default observation ([`LastActions`]).
    pub fn of(game: &G) -> Self {
        GenericCodec::with_encoder(game, LastActions)
    }
}

impl<G: Game, E: ObsEncoder<G>> GenericCodec<G, E> {
    /// The codec of `game` whose observations `encoder` writes.
    pub fn with_encoder(game: &G, encoder: E) -> Self {
        let state = game.initial_state(&mut proagent_core::episode::env_chance(0));
        let mut table: Vec<G::Action> = Vec::new();
        for p in 0..game.num_players() {
            for a in game.legal_actions(game.view(&state, p), p) {
                if !table.contains(&a) {
                    table.push(a);
                }
            }
        }
        GenericCodec { table, encoder }
    }
}

impl<G: Playable, E: ObsEncoder<G>> VectorCodec<G> for GenericCodec<G, E> {
    fn n_actions(&self, _game: &G) -> usize {
        self.table.len()
    }
    fn action_index(&self, _game: &G, a: G::Action) -> usize {
        self.table.iter().position(|&b| b == a).unwrap_or(0)
    }
    fn action_at(&self, _game: &G, i: usize) -> Option<G::Action> {
        self.table.get(i).copied()
    }
    fn obs_len(&self, game: &G) -> usize {
        self.encoder.obs_len(game, &self.table)
    }
    fn encode(&self, game: &G, state: &G::State, player: usize, last: &[Option<G::Action>], out: &mut Vec<f32>) {
        self.encoder.encode(game, &self.table, state, player, last, out);
    }
    fn seat(&self, game: &G, name: &str) -> Result<Box<dyn Seat<G>>, UnknownSeat> {
        game.partner(name).map_err(|e| UnknownSeat(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::unknown_spec;

    #[test]
    fn a_model_name_hints_at_the_agent_the_game_has() {
        let e = unknown_spec("gpt-4o", "cramped_room", &["greedy", "proagent"]).to_string();
        assert!(e.contains("use proagent[model=gpt-4o]"), "{e}");
        let e = unknown_spec("gpt-4o", "hanabi", &["random", "llmco"]).to_string();
        assert!(e.contains("use llmco[model=gpt-4o]") && !e.contains("proagent"), "{e}");
        let e = unknown_spec("nobody", "hanabi", &["random", "llmco"]).to_string();
        assert!(!e.contains("language model"), "{e}");
    }
}
