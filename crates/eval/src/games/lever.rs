//! The lever game (`proagent_lever`) as a game of the evaluation layer: its seats (the rule
//! bots of `proagent_partners::lever`, the LLM-Coordination agent), summaries (points,
//! coordinated rounds, the first round the pair met in) and trajectories re-played from
//! their seed. The number of rounds is the spec's (`lever`, `lever:5r`), not `--horizon`.
//!
//! Everything the runtime needs of the game is in this file; the catalog lists it in one
//! line.

use super::catalog::{AnyGame, Catalogued};
use super::hooks::{LlmcoHooks, LlmcoOn};
use super::playable::{
    GameError, GameOptions, Playable, RecordError, SavedTeamwork, SeatError, Teamwork, default_llmco_config,
    unknown_spec,
};
use super::replayed::{read_replayed, trajectory_json};
use super::saved::SavedEpisode;
use proagent_agent::llmco::lever::LeverLlmco;
use proagent_core::episode::EpisodeResult;
use proagent_core::files::FileAccess;
use proagent_core::{Game, Seat};
use proagent_lever::{Lever, LeverOutcome};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The `game` field of its records.
pub const KIND: &str = "lever";

/// The seat specs a lever game knows.
pub const KNOWN_SPECS: &[&str] =
    &["random", "special", "first", "copy", "llmco", "llmco[model=NAME,tom=on|off,verify=on|off,...]"];

const LEGEND: &str = "The lever game: the round and the score; the ten levers and what a matched pull of \
each pays (9 marks the special lever); then per round the levers Alice (A) and Bob (B) pulled and the points";

/// Whether a `--layout` spec names the lever game (`lever`, `lever:Nr`).
pub fn is_spec(spec: &str) -> bool {
    Lever::is_spec(spec)
}

/// The game a `--layout` spec names: `lever` (10 rounds) or `lever:Nr` (N rounds).
pub fn load_lever(spec: &str) -> Result<Lever, GameError> {
    Lever::from_spec(spec).map_err(|e| GameError::Parse(e.to_string()))
}

impl Playable for Lever {
    fn report_name(&self) -> String {
        self.spec()
    }

    fn default_agent(&self) -> &'static str {
        "llmco"
    }

    /// `copy` (it repeats the other player's last pull), except in a one-round game, where
    /// there is no last pull to copy and it guessed among ten levers: there `special`.
    fn default_partner(&self) -> &'static str {
        if self.rounds() <= 1 { "special" } else { "copy" }
    }

    fn known_specs(&self) -> &'static [&'static str] {
        KNOWN_SPECS
    }

    fn llmco_hooks(&self) -> Option<&'static dyn LlmcoHooks<Lever>> {
        Some(&LlmcoOn::<LeverLlmco>::HOOKS)
    }

    fn partner(&self, spec: &str) -> Result<Box<dyn Seat<Lever>>, SeatError> {
        match spec.trim() {
            "llmco" => Ok(self.llmco_or_refuse()?.seat(default_llmco_config(self)?)),
            "proagent" => Err(self.proagent_or_refuse().err().unwrap_or(SeatError::Unresolved(spec.into()))),
            s if s.starts_with("llmco[") || s.starts_with("proagent[") => Err(SeatError::Unresolved(s.to_string())),
            s => {
                proagent_partners::lever::lever_seat(s).ok_or_else(|| unknown_spec(s, &self.report_name(), KNOWN_SPECS))
            }
        }
    }

    fn summary_fields(&self, r: &EpisodeResult<Lever>) -> Map<String, Value> {
        let t = &r.tally;
        let mut m = Map::new();
        m.insert("game".into(), json!(KIND));
        m.insert("layout".into(), json!(self.report_name()));
        m.insert("rounds".into(), json!(r.steps.len()));
        m.insert("coordinated".into(), json!(t.coordinated));
        m.insert("on_special".into(), json!(t.on_special));
        m.insert("first_match".into(), json!(t.first_match));
        m.insert("special_pulls".into(), json!(t.special_pulls));
        m.insert("switches".into(), json!(t.switches));
        m
    }

    /// Rounds in which both pulled the same lever.
    fn deliveries(&self, r: &EpisodeResult<Lever>) -> u32 {
        r.tally.coordinated
    }

    /// No teamwork analysis beyond the tally: who switched levers, and how often.
    fn teamwork(&self, r: &EpisodeResult<Lever>) -> Teamwork {
        Teamwork { json: json!({"switches": r.tally.switches, "first_match": r.tally.first_match}), totals: None }
    }

    fn trajectory_json(&self, r: &EpisodeResult<Lever>) -> Value {
        let mut extra = Map::new();
        extra.insert("coordinated".into(), json!(r.tally.coordinated));
        extra.insert("first_match".into(), json!(r.tally.first_match));
        trajectory_json(self, r, extra)
    }

    fn step_fields(&self, o: &LeverOutcome) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("events".into(), json!(o.events));
        m
    }

    fn env_settings(&self) -> Option<Value> {
        None
    }

    /// The rounds are the spec's (`lever:5r`): `--horizon` does not change them.
    fn with_horizon(&self, _horizon: u32) -> Lever {
        self.clone()
    }

    fn legend(&self) -> &'static str {
        LEGEND
    }

    fn outcome_text(&self, r: &EpisodeResult<Lever>) -> String {
        let t = &r.tally;
        let first = t.first_match.map_or_else(|| "never matched".to_string(), |f| format!("first match in round {f}"));
        format!(
            "{} {}, {} of {} coordinated ({first})",
            r.score,
            if r.score == 1 { "point" } else { "points" },
            t.coordinated,
            super::plural::counted(r.steps.len() as u64, "round", "rounds")
        )
    }

    /// Reads `L1` … `L10`, and a bare lever number (`3`).
    fn read_action(&self, token: &str) -> Option<proagent_lever::Pull> {
        let t = token.trim();
        self.parse_action(t).or_else(|| self.parse_action(&format!("L{t}")))
    }

    /// A lever record's `spec` is a game (`lever:5r`), never a file: `files` is not asked.
    fn read_trajectory(
        source: &str,
        line: usize,
        v: &Value,
        _files: &dyn FileAccess,
    ) -> Result<SavedEpisode<Lever>, RecordError> {
        let spec = v.get("spec").and_then(Value::as_str).ok_or("no `spec`")?;
        let game = load_lever(spec).map_err(|e| RecordError::Bad(format!("`spec`: {e}")))?;
        read_replayed(Arc::new(game), source, line, v)
    }

    fn saved_teamwork(&self, e: &SavedEpisode<Lever>) -> SavedTeamwork {
        match e.result() {
            Some(r) => {
                SavedTeamwork { line: self.outcome_text(&r), json: self.teamwork(&r).json, handovers: Vec::new() }
            }
            None => SavedTeamwork {
                json: json!({"error": "the episode was not re-played"}),
                line: String::new(),
                handovers: Vec::new(),
            },
        }
    }
}

impl Catalogued for Lever {
    const KIND: &'static str = KIND;
    const TITLE: &'static str = "the lever game";
    const SPEC: &'static str = "lever or lever:Nr";

    fn claims(spec: &str) -> bool {
        is_spec(spec)
    }
    fn builtin_specs() -> Vec<String> {
        ["lever", "lever:1r"].map(String::from).to_vec()
    }
    fn load(
        spec: &str,
        _options: &GameOptions,
        _files: &dyn FileAccess,
    ) -> Result<(AnyGame, Option<String>), GameError> {
        Ok((AnyGame::from(Arc::new(load_lever(spec)?)), None))
    }
    fn definition(&self, _file: Option<&str>) -> String {
        self.report_name()
    }
}
