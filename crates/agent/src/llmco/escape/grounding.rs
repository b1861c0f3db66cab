//! CollabEscape as the LLM-Coordination agent sees it (the published escape agent's
//! prompt, in our words): the map, the generators and the exit in the game description;
//! the rooms of both players, who was fixing, where the killer is and whom it will follow,
//! each generator's progress and the gate in the state description; the legal actions as
//! "move to room N", "fix generator in room N", "wait" (the released agent's words). The game
//! is fully observable. The paper preset leaves out the turn count, which the released
//! agent did not show.
//!
//! Fallback for a reply that names no offered action: "wait", as the published agent does.

use super::standin::EscapeStandIn;
use crate::llmco::grounding::{Exec, LlmcoGrounding, player_name};
use crate::llmco::maze_text::map_vars;
use crate::llmco::settings::{LlmcoPreset, PaperSteps};
use proagent_collab::{Escape, EscapeAction, EscapeEvent, EscapeState};
use proagent_core::{Game, Observation};
use proagent_llm::LanguageModel;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::fmt::Write as _;
use std::sync::Arc;

/// The LLM-Coordination grounding of CollabEscape.
#[derive(Clone, Copy, Debug, Default)]
pub struct EscapeLlmco;

/// What the grounding keeps for an episode.
#[derive(Clone, Debug)]
pub struct EscapeEpisode {
    me: usize,
    vars: serde_json::Value,
    game: Escape,
    /// Show the turn count (not in the paper preset).
    show_turn: bool,
}

/// An action as it is offered.
pub fn action_words(room: u8, a: EscapeAction) -> String {
    match a {
        EscapeAction::Wait => "wait".to_string(),
        EscapeAction::Move(r) => format!("move to room {r}"),
        EscapeAction::Fix => format!("fix generator in room {room}"),
    }
}

/// The state from `me`'s seat (with the turn count when `show_turn`).
pub fn state_words(game: &Escape, me: usize, s: &EscapeState, show_turn: bool) -> String {
    let maze = game.maze();
    let mate = 1 - me;
    let mut out = String::new();
    if show_turn {
        let _ = writeln!(out, "Turn {} of {}.", s.t + 1, game.max_steps());
    }
    let fixing = |p: usize| -> Option<String> {
        let room = s.players[p];
        let g = game.generator_in(room)?;
        s.last_fixing[p].then(|| {
            if game.is_fixed(s, g) {
                "My last fix completed the generator here: it is repaired".to_string()
            } else {
                "I worked on the generator here last turn, and it is not repaired yet".to_string()
            }
        })
    };
    let _ = write!(out, "I ({}) am in room {}.", player_name(me), s.players[me]);
    if let Some(f) = fixing(me) {
        let _ = write!(out, " {f}.");
    }
    let _ = write!(out, " {} is in room {}.", player_name(mate), s.players[mate]);
    if s.last_fixing[mate] {
        let _ = write!(
            out,
            " {} spent the last turn repairing the generator in room {}.",
            player_name(mate),
            s.players[mate]
        );
    }
    let _ = writeln!(out);
    let _ = write!(out, "The killer is in room {}. ", s.adversary);
    match game.intent(s) {
        Some(p) if p == me => {
            let _ = writeln!(out, "The killer has seen me and will move into the room I am in now.");
        }
        Some(p) => {
            let _ = writeln!(
                out,
                "The killer has seen {} and will move into the room {} is in now.",
                player_name(p),
                player_name(p)
            );
        }
        None => {
            let _ = writeln!(out, "The killer does not know where we are; it will move to a random neighbouring room.");
        }
    }
    for (i, &g) in maze.generators.iter().enumerate() {
        if game.is_fixed(s, i) {
            let _ = writeln!(out, "The generator in room {g} is repaired.");
        } else {
            let need = maze.fixes.saturating_sub(s.fix_counts[i]);
            let _ =
                writeln!(out, "The generator in room {g} needs {need} more fix{}.", if need == 1 { "" } else { "es" });
        }
    }
    if game.gate_open(s) {
        let _ = write!(out, "The exit gate in room {} is open: one of us must reach it.", maze.exit);
    } else {
        let _ = write!(out, "The exit gate in room {} is closed.", maze.exit);
    }
    out
}

impl LlmcoGrounding for EscapeLlmco {
    type Game = Escape;
    type Choice = EscapeAction;
    type Episode = EscapeEpisode;

    const KEY: &'static str = "collab_escape";
    const PAPER: PaperSteps = PaperSteps { tom: true, verify: false, history: 0 };

    fn begin(&self, game: &Escape, me: usize, _seed: u64) -> EscapeEpisode {
        let maze = game.maze();
        let vars = json!({
            "game_name": "Collab Escape",
            "rooms": maze.rooms,
            "map": map_vars(maze),
            "generators": maze.generators,
            "fixes": maze.fixes,
            "exit": maze.exit,
            "turns": game.max_steps(),
        });
        EscapeEpisode { me: me.min(1), vars, game: game.clone(), show_turn: true }
    }

    fn set_preset(&self, ep: &mut EscapeEpisode, preset: LlmcoPreset) {
        ep.show_turn = preset == LlmcoPreset::Default;
    }

    fn game_vars(&self, ep: &EscapeEpisode) -> serde_json::Value {
        ep.vars.clone()
    }

    fn state_text(&self, ep: &EscapeEpisode, obs: &Observation<'_, Escape>) -> String {
        state_words(&ep.game, ep.me, obs.view, ep.show_turn)
    }

    fn options(&self, ep: &EscapeEpisode, obs: &Observation<'_, Escape>) -> Vec<(EscapeAction, String)> {
        let room = obs.view.players[ep.me];
        obs.legal_actions().into_iter().map(|a| (a, action_words(room, a))).collect()
    }

    fn partner_action(&self, ep: &EscapeEpisode, obs: &Observation<'_, Escape>) -> Option<String> {
        let mate = 1 - ep.me;
        let who = player_name(mate);
        let what = match obs.last_events.get(mate)? {
            Some(EscapeEvent::Moved { from, to }) => format!("moved from room {from} to room {to}"),
            Some(EscapeEvent::Waited { room }) => format!("waited in room {room}"),
            Some(EscapeEvent::Blocked { room, to }) => {
                format!("tried to move from room {room} to room {to} but could not")
            }
            Some(EscapeEvent::Fixed { room, repaired, .. }) => {
                if *repaired {
                    format!("fixed the generator in room {room}, which is now repaired")
                } else {
                    format!("worked on the generator in room {room}")
                }
            }
            Some(EscapeEvent::NoGenerator { room }) => {
                format!("tried to fix a generator in room {room}, where there is none")
            }
            None if obs.last_actions.is_empty() => return None,
            None => format!("waited in room {}", obs.view.players[mate]),
        };
        Some(format!("{who}'s last action: {who} {what}."))
    }

    fn fallback(&self, _ep: &EscapeEpisode, options: &[(EscapeAction, String)], _rng: &mut ChaCha8Rng) -> usize {
        options.iter().position(|(a, _)| *a == EscapeAction::Wait).unwrap_or(0)
    }

    fn execute(
        &self,
        _ep: &mut EscapeEpisode,
        choice: EscapeAction,
        _obs: &Observation<'_, Escape>,
    ) -> Exec<EscapeAction> {
        Exec::ActAndFinish(choice)
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(EscapeStandIn::model())
    }
}
