//! The games a run can play, and what the evaluation layer needs of each beyond its
//! rules ([`Playable`]): which seats it knows, how a ProAgent seat is built on it, and how
//! its episodes are summarised, recorded as trajectories and analysed for teamwork.
//!
//! Everything above this module is written once over [`Playable`]; a command turns its
//! `--layout` into an [`AnyGame`] ([`AnyGame::load`]) and runs the generic code with
//! [`on_game!`](crate::on_game). Adding a game means implementing [`proagent_core::Game`]
//! in its own crate, [`Playable`] here, and one variant of [`AnyGame`]
//! (docs/architecture.md, "Adding a game").

pub mod collab;
pub mod hanabi;
pub mod hooks;
pub mod lever;
pub mod overcooked;
pub mod overcooked_v2;
pub mod playable;
pub mod replayed;
pub mod saved;

use proagent_collab::{Capture, CollabGame, Escape};
use proagent_core::Game;
use proagent_core::files::{FileAccess, LocalFiles};
use proagent_hanabi::Hanabi;
use proagent_lever::Lever;
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::game::OvercookedV2;
use std::sync::Arc;

pub use collab::load_collab_in;
pub use overcooked::{load_layout, load_layout_in};
pub use overcooked_v2::{V2_PREFIX, load_v2_layout, load_v2_layout_in};
pub use playable::{
    GameError, GameOptions, HandOverMark, PartnerOptions, Playable, RecordError, SavedTeamwork, SeatError, Teamwork,
    unknown_spec,
};

/// A game chosen on the command line (or from Python, or in a transcript header).
#[derive(Clone, Debug)]
pub enum AnyGame {
    /// Classic Overcooked-AI (old dynamics).
    Overcooked(Arc<Overcooked>),
    /// OvercookedV2.
    V2(Arc<OvercookedV2>),
    /// Hanabi (`hanabi`, `hanabi:3p`, ...).
    Hanabi(Arc<Hanabi>),
    /// CollabCapture (`capture:1` ... `capture:4`, a capture `.maze` file).
    Capture(Arc<Capture>),
    /// CollabEscape (`escape:1`, `escape:2`, an escape `.maze` file).
    Escape(Arc<Escape>),
    /// The lever game of Other-Play (`lever`, `lever:5r`).
    Lever(Arc<Lever>),
}

/// Runs `$body` with `$g` bound to the concrete game (`&Arc<G>`) inside an [`AnyGame`]:
/// the one place generic code meets the list of games.
#[macro_export]
macro_rules! on_game {
    ($any:expr, |$g:ident| $body:expr) => {
        match $any {
            $crate::games::AnyGame::Overcooked($g) => $body,
            $crate::games::AnyGame::V2($g) => $body,
            $crate::games::AnyGame::Hanabi($g) => $body,
            $crate::games::AnyGame::Capture($g) => $body,
            $crate::games::AnyGame::Escape($g) => $body,
            $crate::games::AnyGame::Lever($g) => $body,
        }
    };
}

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
        let trimmed = spec.trim();
        if trimmed == "hanabi" || trimmed.starts_with("hanabi:") {
            return Ok((AnyGame::Hanabi(Arc::new(hanabi::load_hanabi(trimmed)?)), None));
        }
        if lever::is_spec(trimmed) {
            return Ok((AnyGame::Lever(Arc::new(lever::load_lever(trimmed)?)), None));
        }
        if collab::is_maze_spec(trimmed) {
            let (game, text) = collab::load_collab_in(trimmed, files)?;
            return Ok((
                match game {
                    CollabGame::Capture(g) => AnyGame::Capture(Arc::new(g)),
                    CollabGame::Escape(g) => AnyGame::Escape(Arc::new(g)),
                },
                text,
            ));
        }
        if let Some(rest) = proagent_overcooked_v2::env::layout::strip_v2_prefix(spec) {
            let (layout, text) = load_v2_layout_in(rest, files)?;
            let settings = proagent_overcooked_v2::env::Settings { max_steps: options.horizon, ..options.v2.clone() };
            return Ok((AnyGame::V2(Arc::new(OvercookedV2::new(Arc::new(layout), settings))), text));
        }
        let (layout, text) = load_layout_in(spec, files)?;
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

    /// The agent a command seats under test when none is named (`proagent`, `llmco`).
    pub fn default_agent(&self) -> &'static str {
        on_game!(self, |g| g.default_agent())
    }

    /// The partner a command seats when none is named.
    pub fn default_partner(&self) -> &'static str {
        on_game!(self, |g| g.default_partner())
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
        match self {
            AnyGame::Overcooked(g) => AnyGame::Overcooked(Arc::new(g.with_horizon(horizon))),
            AnyGame::V2(g) => AnyGame::V2(Arc::new(g.with_horizon(horizon))),
            AnyGame::Hanabi(g) => AnyGame::Hanabi(Arc::clone(g)),
            // Hanabi and the maze games end by their own rules and turn limits.
            AnyGame::Capture(g) => AnyGame::Capture(Arc::clone(g)),
            AnyGame::Escape(g) => AnyGame::Escape(Arc::clone(g)),
            AnyGame::Lever(g) => AnyGame::Lever(Arc::clone(g)),
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
            saved::AnyEpisode::Hanabi(e) => AnyGame::Hanabi(Arc::clone(&e.game)),
            saved::AnyEpisode::Capture(e) => AnyGame::Capture(Arc::clone(&e.game)),
            saved::AnyEpisode::Escape(e) => AnyGame::Escape(Arc::clone(&e.game)),
            saved::AnyEpisode::Lever(e) => AnyGame::Lever(Arc::clone(&e.game)),
        }
    }
}

/// The games whose trajectory records are re-played from their seed, by the `game` field
/// of a record: reads one record (line `line` of `source`), opening a file the record names
/// only as `files` allows.
pub fn read_replayed_trajectory(
    kind: &str,
    source: &str,
    line: usize,
    v: &serde_json::Value,
    files: &dyn FileAccess,
) -> Option<Result<saved::AnyEpisode, RecordError>> {
    Some(match kind {
        "hanabi" => Hanabi::read_trajectory(source, line, v, files).map(Into::into),
        "collab_capture" => Capture::read_trajectory(source, line, v, files).map(Into::into),
        "collab_escape" => Escape::read_trajectory(source, line, v, files).map(Into::into),
        lever::KIND => Lever::read_trajectory(source, line, v, files).map(Into::into),
        _ => return None,
    })
}

/// Whether trajectories of the game `kind` (a record's `game` field) are re-played from
/// their seed ([`read_replayed_trajectory`] reads them).
pub fn is_replayed_kind(kind: &str) -> bool {
    matches!(kind, "hanabi" | "collab_capture" | "collab_escape" | lever::KIND)
}
