//! The games a run can play, and what the evaluation layer needs of each beyond its
//! rules ([`Playable`]): which seats it knows, how a ProAgent seat is built on it, and how
//! its episodes are summarised, recorded as trajectories and analysed for teamwork.
//!
//! Everything above this module is written once over [`Playable`]; a command turns its
//! `--layout` into an [`AnyGame`] ([`AnyGame::load`], asking the [`catalog`]) and runs the
//! generic code with [`on_game!`](crate::on_game). Adding a game means implementing
//! [`proagent_core::Game`] in its own crate, [`Playable`] and [`Catalogued`] in its file
//! here, and one line in the [`catalog`] (docs/architecture.md, "Adding a game").

#[macro_use]
pub mod catalog;
pub mod collab;
pub mod hanabi;
pub mod hooks;
pub mod interdependence;
pub mod lever;
pub mod overcooked;
pub mod overcooked_v2;
pub mod playable;
pub mod plural;
pub mod replayed;
pub mod saved;

use proagent_core::Game;
use proagent_core::files::{FileAccess, LocalFiles};
use serde_json::Value;
use std::sync::Arc;

pub use catalog::{AnyEpisode, AnyGame, Catalogued, GameEntry, RecordedGame, entries};
pub use collab::load_collab_in;
pub use overcooked::{load_layout, load_layout_in};
pub use overcooked_v2::{V2_PREFIX, load_v2_layout, load_v2_layout_in};
pub use playable::{
    GameError, GameOptions, GameSettings, HandOverMark, PartnerOptions, Playable, RecordError, SavedTeamwork,
    SeatError, Teamwork, counted, unknown_spec,
};

impl AnyGame {
    /// The game a `--layout` spec names: a classic built-in name or layout file,
    /// `v2:NAME` / `v2:PATH` for OvercookedV2, `hanabi` / `hanabi:Np` for Hanabi, or a maze
    /// scenario (`capture:1` ... `capture:4`, `escape:1`, `escape:2`, a `.maze` file; their
    /// turn limit is the scenario's, not `options.horizon`). Also returns the layout file's
    /// text for a layout that is not built in (transcript headers keep it, so a run
    /// replays anywhere). A file is one on this machine, as the command line reads it
    /// ([`LocalFiles`]); [`AnyGame::load_in`] takes the caller's policy.
    pub fn load(spec: &str, options: &GameOptions) -> Result<(AnyGame, Option<String>), GameError> {
        AnyGame::load_in(spec, options, &LocalFiles)
    }

    /// [`AnyGame::load`] for a spec from input (a request, a transcript header): a layout or
    /// maze file is opened only as `files` allows, and a refusal is
    /// [`GameError::Refused`] (or, where the policy says the file is missing, the unknown
    /// spec error).
    pub fn load_in(
        spec: &str,
        options: &GameOptions,
        files: &dyn FileAccess,
    ) -> Result<(AnyGame, Option<String>), GameError> {
        catalog::load_in(spec, options, files)
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

    /// The agent a command seats under test when none is named (`proagent`, `llmco`).
    pub fn default_agent(&self) -> &'static str {
        on_game!(self, |g| g.default_agent())
    }

    /// The partner a command seats when none is named.
    pub fn default_partner(&self) -> &'static str {
        on_game!(self, |g| g.default_partner())
    }

    /// The seat specs this game knows ([`Playable::known_specs`]).
    pub fn known_specs(&self) -> &'static [&'static str] {
        on_game!(self, |g| g.known_specs())
    }

    /// Steps in an episode.
    pub fn horizon(&self) -> u32 {
        on_game!(self, |g| g.max_steps())
    }

    /// The same game with episodes of `horizon` steps (sharing what was precomputed);
    /// Hanabi and the maze games keep their own limits.
    pub fn with_horizon(&self, horizon: u32) -> AnyGame {
        if self.horizon() == horizon {
            return self.clone();
        }
        on_game!(self, |g| AnyGame::from(Arc::new(g.with_horizon(horizon))))
    }

    /// The game's own settings as a transcript header records them: its key
    /// ([`Playable::SETTINGS_KEY`]) and value; `None` for a game without settings.
    pub fn header_settings(&self) -> Option<(&'static str, Value)> {
        on_game!(self, |g| g.header_settings())
    }

    /// The catalog's entry of this game.
    pub fn entry(&self) -> &'static GameEntry {
        fn of<G: Catalogued>(_: &G) -> &'static GameEntry {
            catalog::entry_of_kind(G::KIND).unwrap_or(&catalog::entries()[0])
        }
        on_game!(self, |g| of(&**g))
    }

    /// What an evaluation key hashes for this game ([`Catalogued::definition`]); `file` is
    /// the layout file's text when there is one.
    pub fn definition(&self, file: Option<&str>) -> String {
        on_game!(self, |g| g.definition(file))
    }

    /// The start state as text.
    pub fn render_start(&self) -> String {
        on_game!(self, |g| {
            let mut chance = proagent_core::episode::env_chance(0);
            g.render_text(&g.initial_state(&mut chance))
        })
    }
}

impl AnyEpisode {
    /// Its label for reports.
    pub fn name(&self) -> &str {
        on_episode!(self, |e| &e.name)
    }

    /// Its steps.
    pub fn steps(&self) -> usize {
        on_episode!(self, |e| e.steps.len())
    }

    /// Its frames (the start state and one per step).
    pub fn frames(&self) -> usize {
        on_episode!(self, |e| e.frames())
    }

    /// The game it was played in.
    pub fn game(&self) -> AnyGame {
        on_episode!(self, |e| AnyGame::from(Arc::clone(&e.game)))
    }
}
