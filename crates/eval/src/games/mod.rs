//! The games a run can play, and what the evaluation layer needs of each beyond its
//! rules ([`Playable`]): which seats it knows, how a ProAgent seat is built on it, and how
//! its episodes are summarised, recorded as trajectories and analysed for teamwork.
//!
//! Everything above this module is written once over [`Playable`]; a command turns its
//! `--layout` into an [`AnyGame`] ([`AnyGame::load`]) and runs the generic code with
//! [`on_game!`](crate::on_game). Adding a game means implementing [`proagent_core::Game`]
//! in its own crate, [`Playable`] here, and one variant of [`AnyGame`]
//! (docs/architecture.md, "Adding a game").

pub mod overcooked;
pub mod overcooked_v2;

use crate::runner::seats::SeatError;
use proagent_agent::ProAgentConfig;
use proagent_agent::prompts::{Family, PromptError};
use proagent_core::episode::EpisodeResult;
use proagent_core::{Game, Seat};
use proagent_llm::LanguageModel;
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::game::OvercookedV2;
use serde_json::{Map, Value};
use std::sync::Arc;

pub use overcooked::load_layout;
pub use overcooked_v2::{V2_PREFIX, load_v2_layout};

/// Teamwork of one episode: the figures `play --json` shows, and the totals sweeps keep.
#[derive(Clone, Debug, PartialEq)]
pub struct Teamwork {
    /// The game's own teamwork record (or `{"error": ...}` when it could not be computed).
    pub json: Value,
    /// Deliveries, constructive and non-constructive interdependencies, for eval reports
    /// (`None` when the analysis failed).
    pub totals: Option<proagent_analysis::TeamworkTotals>,
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
    /// The game's name in reports and transcript headers (`cramped_room`, `v2:two_rooms`).
    fn report_name(&self) -> String;
    /// The partner a command seats when none is named.
    fn default_partner(&self) -> &'static str;
    /// The seat specs this game knows besides `proagent` (for errors and help).
    fn known_specs(&self) -> &'static [&'static str];
    /// A seat that talks to no model, from its spec (`greedy`, `random`, `bc:train`, ...).
    fn partner(&self, spec: &str) -> Result<Box<dyn Seat<Self>>, SeatError> {
        self.partner_with(spec, &PartnerOptions::default())
    }
    /// [`Playable::partner`] with the factory's options.
    fn partner_with(&self, spec: &str, options: &PartnerOptions) -> Result<Box<dyn Seat<Self>>, SeatError>;
    /// The prompt templates a ProAgent reads on this game.
    fn prompt_family(&self) -> Family;
    /// The built-in `scripted` stand-in model for this game's prompts.
    fn scripted_model(&self) -> Arc<dyn LanguageModel>;
    /// A ProAgent seat with `cfg` (its prompts are this game's family).
    fn proagent(&self, cfg: ProAgentConfig) -> Box<dyn Seat<Self>>;
    /// Renders every template a ProAgent with `cfg` uses in `seat`, before anything runs.
    fn check_prompts(&self, cfg: &ProAgentConfig, seat: usize) -> Result<(), PromptError>;
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
    /// The environment switches a transcript header records for this game (`None`: none).
    fn env_settings(&self) -> Option<Value>;
    /// The same game with episodes of `horizon` steps (sharing what was precomputed).
    fn with_horizon(&self, horizon: u32) -> Self;
    /// What the characters of [`proagent_core::Game::render_text`] mean.
    fn legend(&self) -> &'static str;
    /// The episode's outcome in words for a `play` line (`12 deliveries`).
    fn outcome_text(&self, result: &EpisodeResult<Self>) -> String;
}

/// A game chosen on the command line (or from Python, or in a transcript header).
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Classic Overcooked-AI (old dynamics).
    Overcooked(Arc<Overcooked>),
    /// OvercookedV2.
    V2(Arc<OvercookedV2>),
}

/// Runs `$body` with `$g` bound to the concrete game (`&Arc<G>`) inside an [`AnyGame`]:
/// the one place generic code meets the list of games.
#[macro_export]
macro_rules! on_game {
    ($any:expr, |$g:ident| $body:expr) => {
        match $any {
            $crate::games::AnyGame::Overcooked($g) => $body,
            $crate::games::AnyGame::V2($g) => $body,
        }
    };
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
}

/// The options of a game beyond its layout: episode length and the OvercookedV2 switches
/// (ignored by the other games).
#[derive(Clone, Debug, PartialEq)]
pub struct GameOptions {
    /// Steps in an episode.
    pub horizon: u32,
    /// The OvercookedV2 switches (`max_steps` is replaced by `horizon`).
    pub v2: proagent_overcooked_v2::env::Settings,
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions {
            horizon: proagent_overcooked::env::DEFAULT_HORIZON,
            v2: proagent_overcooked_v2::env::Settings::default(),
        }
    }
}

impl AnyGame {
    /// The game a `--layout` spec names: a classic built-in name or layout file, or
    /// `v2:NAME` / `v2:PATH` for OvercookedV2. Also returns the layout file's text for a
    /// layout that is not built in (transcript headers keep it, so a run replays anywhere).
    pub fn load(spec: &str, options: &GameOptions) -> Result<(AnyGame, Option<String>), GameError> {
        if let Some(rest) = proagent_overcooked_v2::env::layout::strip_v2_prefix(spec) {
            let (layout, text) = load_v2_layout(rest)?;
            let settings = proagent_overcooked_v2::env::Settings { max_steps: options.horizon, ..options.v2.clone() };
            return Ok((AnyGame::V2(Arc::new(OvercookedV2::new(Arc::new(layout), settings))), text));
        }
        let (layout, text) = load_layout(spec)?;
        Ok((AnyGame::Overcooked(Arc::new(Overcooked::new(Arc::new(layout), options.horizon))), text))
    }

    /// The game's name in reports (`cramped_room`, `v2:two_rooms`).
    pub fn report_name(&self) -> String {
        on_game!(self, |g| g.report_name())
    }

    /// How many players take part.
    pub fn num_players(&self) -> usize {
        on_game!(self, |g| g.num_players())
    }

    /// The game's family (`overcooked`, `overcooked_v2`).
    pub fn kind(&self) -> &'static str {
        on_game!(self, |g| g.kind())
    }

    /// The partner a command seats when none is named.
    pub fn default_partner(&self) -> &'static str {
        on_game!(self, |g| g.default_partner())
    }

    /// Steps in an episode.
    pub fn horizon(&self) -> u32 {
        on_game!(self, |g| g.max_steps())
    }

    /// The same game with episodes of `horizon` steps (sharing what was precomputed).
    pub fn with_horizon(&self, horizon: u32) -> AnyGame {
        if self.horizon() == horizon {
            return self.clone();
        }
        match self {
            AnyGame::Overcooked(g) => AnyGame::Overcooked(Arc::new(g.with_horizon(horizon))),
            AnyGame::V2(g) => AnyGame::V2(Arc::new(g.with_horizon(horizon))),
        }
    }

    /// The start state as text.
    pub fn render_start(&self) -> String {
        on_game!(self, |g| {
            let mut chance = proagent_core::episode::env_chance(0);
            g.render_text(&g.initial_state(&mut chance))
        })
    }
}
