//! Classic Overcooked in the evaluation layer: its seats (greedy, scripted, courier, BC and
//! RL partners, the ProAgent agent), its summaries, reference-schema trajectories and the
//! interdependence analysis of its episodes.

use super::{GameError, PartnerOptions, Playable, Teamwork};
use crate::runner::seats::{SeatError, unknown_spec};
use proagent_agent::prompts::{Family, PromptError};
use proagent_agent::scripted_model::ScriptedModel;
use proagent_agent::{ProAgent, ProAgentConfig};
use proagent_core::Seat;
use proagent_core::episode::EpisodeResult;
use proagent_core::limits::read_file_text;
use proagent_llm::LanguageModel;
use proagent_overcooked::env::layout::{self, MAX_LAYOUT_TEXT_BYTES};
use proagent_overcooked::env::trace::state_json;
use proagent_overcooked::env::{Action, Layout};
use proagent_overcooked::game::Overcooked;
use proagent_partners::basic::{RandomSeat, StaySeat, random4};
use proagent_partners::rl::{RlAgent, RlSpec};
use proagent_partners::{bc, courier, greedy, scripted};
use serde_json::{Map, Value, json};
use std::path::Path;
use std::sync::Arc;

/// The specs a classic seat understands.
pub const KNOWN_SPECS: &[&str] = &[
    "greedy",
    "random",
    "random4",
    "stay",
    "courier",
    "scripted",
    "proagent",
    "proagent[model=NAME,key=value,...]",
    "bc",
    "bc:test",
    "bc:train",
    "bc:PATH",
    "sp",
    "pbt",
    "fcp",
    "mep",
    "cole",
    "rl:PATH",
];

/// A classic layout by built-in name or file path, with the file's text (`None` for a
/// built-in layout).
pub fn load_layout(spec: &str) -> Result<(Layout, Option<String>), GameError> {
    if let Some(l) = Layout::builtin(spec) {
        return Ok((l, None));
    }
    let path = Path::new(spec);
    if !path.exists() {
        let known: Vec<&str> = layout::BUILTIN.iter().map(|(n, _)| *n).collect();
        return Err(GameError::Unknown { what: "layout", spec: spec.to_string(), known: known.join(", ") });
    }
    let text = read_file_text(path, MAX_LAYOUT_TEXT_BYTES as u64, "layout files")
        .map_err(|source| GameError::Io { path: path.display().to_string(), source })?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("custom").to_string();
    let l = Layout::parse(&name, &text, &path.display().to_string()).map_err(|e| GameError::Parse(e.to_string()))?;
    Ok((l, Some(text)))
}

impl Playable for Overcooked {
    fn report_name(&self) -> String {
        self.layout.name.clone()
    }

    fn default_partner(&self) -> &'static str {
        "greedy"
    }

    fn known_specs(&self) -> &'static [&'static str] {
        KNOWN_SPECS
    }

    fn partner_with(&self, spec: &str, options: &PartnerOptions) -> Result<Box<dyn Seat<Overcooked>>, SeatError> {
        let k = self.kitchen();
        let mismatch = options.allow_model_mismatch;
        Ok(match spec.trim() {
            "greedy" => Box::new(greedy::GreedyPartner::new(k)),
            "random" => Box::new(RandomSeat::<Overcooked>::new()),
            "random4" => Box::new(random4::<Overcooked>()),
            "stay" => Box::new(StaySeat),
            "courier" => Box::new(courier::CourierPartner::new(k)),
            "scripted" => Box::new(scripted::ScriptedPartner::new(k)),
            "proagent" => Box::new(ProAgent::new(ProAgentConfig::new(self.scripted_model())).with_kitchen(k)),
            other if bc::BcSpec::parse(other).is_some() => {
                Box::new(bc::BcAgent::from_spec_with(other, &self.layout, mismatch)?)
            }
            other if let Some(rl) = RlSpec::parse(other) => Box::new(RlAgent::from_spec(&rl, other, self, mismatch)?),
            // A configured ProAgent needs its model built by the caller (`SeatFactory::with_seat`).
            other if other.starts_with("proagent[") => return Err(SeatError::Unresolved(other.to_string())),
            other => return Err(unknown_spec(other, &self.report_name(), KNOWN_SPECS)),
        })
    }

    fn prompt_family(&self) -> Family {
        Family::Classic
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(ScriptedModel::new())
    }

    fn proagent(&self, cfg: ProAgentConfig) -> Box<dyn Seat<Overcooked>> {
        Box::new(ProAgent::new(cfg).with_kitchen(self.kitchen()))
    }

    fn check_prompts(&self, cfg: &ProAgentConfig, seat: usize) -> Result<(), PromptError> {
        ProAgent::check_prompts(cfg, &self.layout, seat)
    }

    fn summary_fields(&self, r: &EpisodeResult<Overcooked>) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("layout".into(), json!(self.layout.name));
        m.insert("deliveries".into(), json!(r.tally.deliveries));
        m
    }

    fn deliveries(&self, r: &EpisodeResult<Overcooked>) -> u32 {
        r.tally.deliveries
    }

    fn teamwork(&self, r: &EpisodeResult<Overcooked>) -> Teamwork {
        let joint: Vec<[Action; 2]> = r
            .steps
            .iter()
            .map(|s| {
                let a = |i: usize| s.actions.get(i).copied().flatten().unwrap_or(Action::Stay);
                [a(0), a(1)]
            })
            .collect();
        match proagent_analysis::episode_report(&self.layout, &r.start, &joint) {
            Ok(report) => Teamwork {
                json: proagent_analysis::metrics_json(&report),
                totals: Some(proagent_analysis::TeamworkTotals::from(&report)),
            },
            Err(e) => Teamwork { json: json!({ "error": e.to_string() }), totals: None },
        }
    }

    fn trajectory_json(&self, r: &EpisodeResult<Overcooked>) -> Value {
        let layout = &*self.layout;
        let players: Vec<Value> = r
            .start
            .players
            .iter()
            .map(|p| {
                let (dx, dy) = p.dir.delta();
                json!({"pos": [p.pos.x, p.pos.y], "or": [dx, dy]})
            })
            .collect();
        let steps: Vec<Value> = r
            .steps
            .iter()
            .enumerate()
            .map(|(t, s)| {
                let letters: Vec<String> =
                    s.actions.iter().map(|a| a.unwrap_or(Action::Stay).letter().to_string()).collect();
                json!({
                    "t": t,
                    "actions": letters,
                    "reward": s.outcome.reward,
                    "sparse_by_player": s.outcome.sparse_by_player,
                    "shaped_by_player": s.outcome.shaped_by_player,
                    "state": state_json(layout, &s.state),
                })
            })
            .collect();
        json!({
            "layout": layout.name,
            "old_dynamics": true,
            "horizon": self.horizon,
            "grid": layout.grid,
            "policy": {"kind": "play", "agents": r.agents, "seed": r.seed},
            "agents": r.agents,
            "seed": r.seed,
            "start": {"players": players},
            "total_reward": r.score,
            "deliveries": r.tally.deliveries,
            "steps": steps,
            "skill_events": r.skill_events,
        })
    }

    fn step_fields(&self, _outcome: &proagent_overcooked::env::StepOutcome) -> Map<String, Value> {
        Map::new()
    }

    fn env_settings(&self) -> Option<Value> {
        None
    }

    fn with_horizon(&self, horizon: u32) -> Overcooked {
        Overcooked::with_kitchen(self.kitchen(), horizon)
    }

    fn legend(&self) -> &'static str {
        proagent_overcooked::env::render::LEGEND
    }

    fn outcome_text(&self, r: &EpisodeResult<Overcooked>) -> String {
        format!("{} deliveries", r.tally.deliveries)
    }
}
