//! OvercookedV2 in the evaluation layer: its seats (the scripted cook, the baselines, the
//! ProAgent agent with the V2 prompts), its summaries, trajectories (JaxMARL-style states)
//! and the hand-over analysis of its episodes.

use super::{GameError, PartnerOptions, Playable, Teamwork};
use crate::runner::seats::{SeatError, unknown_spec};
use proagent_agent::prompts::{Family, PromptError};
use proagent_agent::v2::agent::ProAgentV2;
use proagent_agent::v2::model::ScriptedV2Model;
use proagent_agent::{ProAgentConfig, prompts::PromptLibrary};
use proagent_core::Seat;
use proagent_core::episode::EpisodeResult;
use proagent_core::limits::read_file_text;
use proagent_llm::LanguageModel;
use proagent_overcooked::env::Action;
use proagent_overcooked::env::layout::MAX_LAYOUT_TEXT_BYTES;
use proagent_overcooked_v2::env::trace::trace_state;
use proagent_overcooked_v2::env::{Event, Layout, StepOutcome};
use proagent_overcooked_v2::game::OvercookedV2;
use proagent_partners::basic::{RandomSeat, StaySeat};
use proagent_partners::rl::{RlAgent, RlSpec};
use proagent_partners::v2::ScriptedV2;
use serde_json::{Map, Value, json};
use std::path::Path;
use std::sync::Arc;

/// The prefix of OvercookedV2 layout specs.
pub const V2_PREFIX: &str = "v2:";

/// What the characters of a V2 board mean.
pub const LEGEND: &str = "legend: W counter · P pot · X delivery window · B plate pile · R recipe indicator · \
L recipe button · 0-9 among the walls: ingredient piles (by kind) · blank floor · * an item on a counter\n        \
a digit on the floor: that agent (its index); the lines below the grid say where each agent faces and what it holds";

/// The specs a V2 seat understands.
pub const KNOWN_SPECS: &[&str] =
    &["proagent", "proagent[model=NAME,key=value,...]", "scripted", "random", "stay", "sp", "fcp", "rl:PATH"];

/// A V2 layout by built-in name or file path (without the `v2:` prefix), with the file's
/// text (`None` for a built-in layout).
pub fn load_v2_layout(spec: &str) -> Result<(Layout, Option<String>), GameError> {
    if let Some(l) = Layout::builtin(spec) {
        return Ok((l, None));
    }
    let path = Path::new(spec);
    if !path.exists() {
        let known: Vec<&str> = Layout::builtin_names().collect();
        return Err(GameError::Unknown {
            what: "OvercookedV2 layout",
            spec: spec.to_string(),
            known: known.join(", "),
        });
    }
    let text = read_file_text(path, MAX_LAYOUT_TEXT_BYTES as u64, "layout files")
        .map_err(|source| GameError::Io { path: path.display().to_string(), source })?;
    let layout = Layout::parse(&text, &path.display().to_string()).map_err(|e| GameError::Parse(e.to_string()))?;
    Ok((layout, Some(text)))
}

/// The interact events of the players of a V2 step (the outcome has room for more agents).
fn events<'o>(game: &OvercookedV2, outcome: &'o StepOutcome) -> &'o [Option<Event>] {
    let n = game.layout.num_agents().min(outcome.events.len());
    &outcome.events[..n]
}

impl Playable for OvercookedV2 {
    fn report_name(&self) -> String {
        format!("{V2_PREFIX}{}", self.layout.name)
    }

    fn default_partner(&self) -> &'static str {
        "scripted"
    }

    fn known_specs(&self) -> &'static [&'static str] {
        KNOWN_SPECS
    }

    fn partner_with(&self, spec: &str, options: &PartnerOptions) -> Result<Box<dyn Seat<OvercookedV2>>, SeatError> {
        Ok(match spec.trim() {
            "scripted" => Box::new(ScriptedV2::new()),
            "random" => Box::new(RandomSeat::<OvercookedV2>::new()),
            "stay" => Box::new(StaySeat),
            "proagent" => {
                let mut cfg = ProAgentConfig::new(self.scripted_model());
                cfg.prompts = Arc::new(PromptLibrary::embedded_family(Family::V2));
                self.proagent(cfg)
            }
            other if other.starts_with("proagent[") => return Err(SeatError::Unresolved(other.to_string())),
            other if let Some(rl) = RlSpec::parse(other) => {
                Box::new(RlAgent::from_spec(&rl, other, self, options.allow_model_mismatch)?)
            }
            other => return Err(unknown_spec(other, &self.report_name(), KNOWN_SPECS)),
        })
    }

    fn prompt_family(&self) -> Family {
        Family::V2
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(ScriptedV2Model)
    }

    fn proagent(&self, cfg: ProAgentConfig) -> Box<dyn Seat<OvercookedV2>> {
        Box::new(ProAgentV2::new(cfg))
    }

    fn check_prompts(&self, cfg: &ProAgentConfig, seat: usize) -> Result<(), PromptError> {
        ProAgentV2::check_prompts(cfg, &self.layout, &self.settings, seat)
    }

    fn summary_fields(&self, r: &EpisodeResult<OvercookedV2>) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("game".into(), json!("overcooked_v2"));
        m.insert("layout".into(), json!(self.report_name()));
        m.insert("deliveries".into(), json!(r.tally.correct));
        m.insert("wrong_deliveries".into(), json!(r.tally.wrong));
        m.insert("button_presses".into(), json!(r.tally.presses));
        m.insert("settings".into(), json!(self.settings));
        m
    }

    fn deliveries(&self, r: &EpisodeResult<OvercookedV2>) -> u32 {
        r.tally.correct
    }

    fn teamwork(&self, r: &EpisodeResult<OvercookedV2>) -> Teamwork {
        let steps: Vec<Vec<Option<Event>>> = r.steps.iter().map(|s| events(self, &s.outcome).to_vec()).collect();
        let t = proagent_analysis::v2::teamwork(&self.layout, &steps);
        Teamwork {
            json: json!(t),
            totals: Some(proagent_analysis::TeamworkTotals {
                deliveries: r.tally.correct as usize,
                constructive: t.constructive_total(),
                non_constructive: t.non_constructive_total(),
            }),
        }
    }

    fn trajectory_json(&self, r: &EpisodeResult<OvercookedV2>) -> Value {
        let layout = &*self.layout;
        let steps: Vec<Value> = r
            .steps
            .iter()
            .enumerate()
            .map(|(t, s)| {
                let n = layout.num_agents().min(s.outcome.shaped.len());
                json!({
                    "t": t,
                    "actions": s.actions.iter().map(|a| a.unwrap_or(Action::Stay).letter().to_string()).collect::<Vec<_>>(),
                    "reward": s.outcome.reward,
                    "shaped": &s.outcome.shaped[..n],
                    "events": events(self, &s.outcome),
                    "state": trace_state(layout, &self.settings, &s.state),
                })
            })
            .collect();
        json!({
            "game": "overcooked_v2",
            "layout": layout.name,
            "layout_text": layout.to_text(),
            "settings": self.settings,
            "agents": r.agents,
            "seed": r.seed,
            "start": trace_state(layout, &self.settings, &r.start),
            "total_reward": r.score,
            "correct_deliveries": r.tally.correct,
            "wrong_deliveries": r.tally.wrong,
            "steps": steps,
            "skill_events": r.skill_events,
        })
    }

    fn step_fields(&self, outcome: &StepOutcome) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("events".into(), json!(events(self, outcome)));
        m
    }

    fn env_settings(&self) -> Option<Value> {
        Some(json!(self.settings))
    }

    fn with_horizon(&self, horizon: u32) -> OvercookedV2 {
        let settings = proagent_overcooked_v2::env::Settings { max_steps: horizon, ..self.settings.clone() };
        OvercookedV2::new(Arc::clone(&self.layout), settings)
    }

    fn legend(&self) -> &'static str {
        LEGEND
    }

    fn outcome_text(&self, r: &EpisodeResult<OvercookedV2>) -> String {
        let t = r.tally;
        format!("{} correct, {} wrong deliveries, {} button presses", t.correct, t.wrong, t.presses)
    }
}
