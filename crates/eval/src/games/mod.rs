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
pub mod playable;
pub mod saved;

use proagent_core::Game;
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::game::OvercookedV2;
use std::sync::Arc;

pub use overcooked::load_layout;
pub use overcooked_v2::{V2_PREFIX, load_v2_layout};
pub use playable::{
    GameError, GameOptions, HandOverMark, PartnerOptions, Playable, SavedTeamwork, SeatError, Teamwork, unknown_spec,
};

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

impl saved::AnyEpisode {
    /// The game it was played in.
    pub fn game(&self) -> AnyGame {
        match self {
            saved::AnyEpisode::Overcooked(e) => AnyGame::Overcooked(Arc::clone(&e.game)),
            saved::AnyEpisode::V2(e) => AnyGame::V2(Arc::clone(&e.game)),
        }
    }
}
