//! CollabCapture as the LLM-Coordination agent sees it (the published capture agent's
//! prompt, in our words): the map, the doors and their buttons in the game description; the
//! rooms of both players and the thief and every door's state in the state description; the
//! legal actions in the released agent's words: "stay in current room", "move to room N",
//! "press button in room N". The game is fully observable, so the view is the state.
//!
//! Fallback for a reply that names no offered action: a seeded random legal action, as the
//! published agent does. The released capture code has no Theory-of-Mind step, but the
//! paper's Table 2 reports CollabCapture with and without it; the step here predicts the
//! room the partner is likely to move to next before the action is chosen
//! (`prompts/llmco/tom/collab_capture.j2`), on by default (`tom=off` leaves it out).
//! The paper preset leaves out the turn count, which the released agent did not show.

use super::standin::CaptureStandIn;
use crate::llmco::grounding::{Exec, LlmcoGrounding, player_name};
use crate::llmco::maze_text::map_vars;
use crate::llmco::settings::{LlmcoPreset, PaperSteps};
use proagent_collab::{Capture, CaptureAction, CaptureEvent, CaptureState, CatchRule};
use proagent_core::{Game, Observation};
use proagent_llm::LanguageModel;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::fmt::Write as _;
use std::sync::Arc;

/// The LLM-Coordination grounding of CollabCapture.
#[derive(Clone, Copy, Debug, Default)]
pub struct CaptureLlmco;

/// What the grounding keeps for an episode.
#[derive(Clone, Debug)]
pub struct CaptureEpisode {
    me: usize,
    vars: serde_json::Value,
    /// Door rooms and buttons, in maze order.
    doors: Vec<([u8; 2], u8)>,
    turns: u32,
    /// Show the turn count (not in the paper preset).
    show_turn: bool,
}

/// An action as it is offered.
pub fn action_words(room: u8, a: CaptureAction) -> String {
    match a {
        CaptureAction::Stay => "stay in current room".to_string(),
        CaptureAction::Move(r) => format!("move to room {r}"),
        CaptureAction::Press => format!("press button in room {room}"),
    }
}

/// The state from `me`'s seat.
pub fn state_words(ep: &CaptureEpisode, s: &CaptureState) -> String {
    let mut out = String::new();
    let mate = 1 - ep.me.min(1);
    if ep.show_turn {
        let _ = writeln!(out, "Turn {} of {}.", s.t + 1, ep.turns);
    }
    let _ = writeln!(
        out,
        "I ({}) am in room {}. {} is in room {}. The thief is in room {}.",
        player_name(ep.me),
        s.players[ep.me.min(1)],
        player_name(mate),
        s.players[mate],
        s.thief
    );
    for (i, (rooms, _)) in ep.doors.iter().enumerate() {
        let _ = writeln!(
            out,
            "The door between room {} and room {} is {}.",
            rooms[0],
            rooms[1],
            if s.door_open(i) { "open" } else { "closed" }
        );
    }
    out.trim_end().to_string()
}

impl LlmcoGrounding for CaptureLlmco {
    type Game = Capture;
    type Choice = CaptureAction;
    type Episode = CaptureEpisode;

    const KEY: &'static str = "collab_capture";
    const PAPER: PaperSteps = PaperSteps { tom: true, verify: false, history: 0 };

    fn begin(&self, game: &Capture, me: usize, _seed: u64) -> CaptureEpisode {
        let maze = game.maze();
        let doors: Vec<([u8; 2], u8)> = maze.doors.iter().map(|d| (d.rooms, d.button)).collect();
        let vars = json!({
            "game_name": "Collab Capture",
            "rooms": maze.rooms,
            "map": map_vars(maze),
            "doors": maze.doors.iter().map(|d| json!({"rooms": d.rooms, "button": d.button})).collect::<Vec<_>>(),
            "turns": game.max_steps(),
            "swap_catches": maze.catch == CatchRule::SameRoomOrSwap,
        });
        CaptureEpisode { me: me.min(1), vars, doors, turns: game.max_steps(), show_turn: true }
    }

    fn set_preset(&self, ep: &mut CaptureEpisode, preset: LlmcoPreset) {
        ep.show_turn = preset == LlmcoPreset::Default;
    }

    fn game_vars(&self, ep: &CaptureEpisode) -> serde_json::Value {
        ep.vars.clone()
    }

    fn state_text(&self, ep: &CaptureEpisode, obs: &Observation<'_, Capture>) -> String {
        state_words(ep, obs.view)
    }

    fn options(&self, ep: &CaptureEpisode, obs: &Observation<'_, Capture>) -> Vec<(CaptureAction, String)> {
        let room = obs.view.players[ep.me];
        obs.legal_actions().into_iter().map(|a| (a, action_words(room, a))).collect()
    }

    fn partner_action(&self, ep: &CaptureEpisode, obs: &Observation<'_, Capture>) -> Option<String> {
        let mate = 1 - ep.me;
        let who = player_name(mate);
        let what = match obs.last_events.get(mate)? {
            Some(CaptureEvent::Moved { from, to }) => format!("moved from room {from} to room {to}"),
            Some(CaptureEvent::Stayed { room }) => format!("stayed in room {room}"),
            Some(CaptureEvent::Blocked { room, to }) => {
                format!("tried to move from room {room} to room {to} but could not")
            }
            Some(CaptureEvent::Pressed { room, door, open }) => format!(
                "pressed the button in room {room}: the door between room {} and room {} is now {}",
                door[0],
                door[1],
                if *open { "open" } else { "closed" }
            ),
            Some(CaptureEvent::NoButton { room }) => {
                format!("pressed for a button in room {room}, where there is none")
            }
            None if obs.last_actions.is_empty() => return None,
            None => format!("stayed in room {}", obs.view.players[mate]),
        };
        Some(format!("{who}'s last action: {who} {what}."))
    }

    fn fallback(&self, _ep: &CaptureEpisode, options: &[(CaptureAction, String)], rng: &mut ChaCha8Rng) -> usize {
        rng.random_range(0..options.len().max(1))
    }

    fn execute(
        &self,
        _ep: &mut CaptureEpisode,
        choice: CaptureAction,
        _obs: &Observation<'_, Capture>,
    ) -> Exec<CaptureAction> {
        Exec::ActAndFinish(choice)
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(CaptureStandIn::model())
    }
}
