//! Classic Overcooked in the evaluation layer: its seats (greedy, scripted, courier, BC and
//! RL partners, the ProAgent agent), its summaries, reference-schema trajectories and the
//! interdependence analysis of its episodes.

use super::catalog::{AnyGame, Catalogued, GymId, RecordedGame, TraceCheck, TraceError};
use super::hooks::{LlmcoHooks, LlmcoOn, ProAgentHooks, ProAgentOn};
use super::interdependence::{AnalysedEpisode, EpisodeSource, Interdependence, pct};
use super::playable::{
    GameError, GameOptions, HandOverMark, PartnerOptions, Playable, RecordError, SavedTeamwork, SeatError, Teamwork,
    default_llmco_config, default_proagent_config, unknown_spec,
};
use super::playable::{GenericCodec, ObsEncoder, VectorCodec};
use super::saved::{SavedEpisode, SavedStep, skill_events_of};
use proagent_agent::OvercookedGrounding;
use proagent_agent::llmco::overcooked::OvercookedLlmco;
use proagent_core::Seat;
use proagent_core::episode::EpisodeResult;
use proagent_core::files::{FileAccess, LocalFiles, read_named_text};
use proagent_overcooked::env::ai_features::{AI_NUM_FEATURES, ai_featurize};
use proagent_overcooked::env::layout::{self, MAX_LAYOUT_TEXT_BYTES};
use proagent_overcooked::env::trace::{self, state_json};
use proagent_overcooked::env::{Action, Layout, State};
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
    "llmco",
    "llmco[model=NAME,key=value,...]",
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

/// A classic episode read by the trajectory readers of `proagent-analysis` (reference
/// traces, human games) as a saved episode; `raw` is its trajectory record (for the
/// players' names, the seed and the skill events), `line` where it starts in its file.
pub fn saved_from_trajectory(
    t: proagent_analysis::Trajectory,
    line: Option<usize>,
    raw: Option<&Value>,
) -> SavedEpisode<Overcooked> {
    let proagent_analysis::Trajectory { name, layout, states, joint_actions, rewards } = t;
    let game = Arc::new(Overcooked::new(Arc::new(layout), joint_actions.len() as u32));
    let mut states = states.into_iter();
    let start = states.next().unwrap_or_else(|| game.layout.start_state());
    let events = skill_events_of(raw.and_then(|r| r.get("skill_events")));
    let steps = joint_actions
        .into_iter()
        .zip(states)
        .enumerate()
        .map(|(k, (joint, state))| SavedStep {
            actions: joint.map(Some).to_vec(),
            reward: rewards.get(k).copied().map_or(0, i64::from),
            outcome: None,
            state,
            skill_events: events.iter().filter(|e| e.t as usize == k).cloned().collect(),
            beliefs: Vec::new(),
        })
        .collect();
    let agents = raw
        .and_then(|r| r.get("agents"))
        .and_then(Value::as_array)
        .map(|a| a.iter().map(|n| n.as_str().unwrap_or("?").to_string()).collect())
        .unwrap_or_default();
    let seed = raw.and_then(|r| r.get("seed")).and_then(Value::as_u64);
    SavedEpisode { game, name, line, agents, seed, start, steps }
}

/// A saved classic episode as the interdependence analysis reads it.
pub fn analysis_trajectory(e: &SavedEpisode<Overcooked>) -> proagent_analysis::Trajectory {
    let mut states = Vec::with_capacity(e.frames());
    states.push(e.start.clone());
    states.extend(e.steps.iter().map(|s| s.state.clone()));
    proagent_analysis::Trajectory {
        name: e.name.clone(),
        layout: (*e.game.layout).clone(),
        states,
        joint_actions: e
            .steps
            .iter()
            .map(|s| {
                let a = |i: usize| s.actions.get(i).copied().flatten().unwrap_or(Action::Stay);
                [a(0), a(1)]
            })
            .collect(),
        rewards: e.steps.iter().map(|s| u32::try_from(s.reward).unwrap_or(0)).collect(),
    }
}

/// A classic layout by built-in name or file path (a file on this machine: the command
/// line's policy, [`LocalFiles`]), with the file's text (`None` for a built-in layout).
pub fn load_layout(spec: &str) -> Result<(Layout, Option<String>), GameError> {
    load_layout_in(spec, &LocalFiles)
}

/// A classic layout by built-in name or file path, the file opened only as `files` allows,
/// with the file's text (`None` for a built-in layout).
pub fn load_layout_in(spec: &str, files: &dyn FileAccess) -> Result<(Layout, Option<String>), GameError> {
    if let Some(l) = Layout::builtin(spec) {
        return Ok((l, None));
    }
    let text = read_named_text(files, spec, MAX_LAYOUT_TEXT_BYTES as u64, "layout files").map_err(|e| {
        GameError::of_named_read(e, || {
            let known: Vec<&str> = layout::BUILTIN.iter().map(|(n, _)| *n).collect();
            GameError::Unknown { what: "layout", spec: spec.to_string(), known: known.join(", ") }
        })
    })?;
    let name = Path::new(spec).file_stem().and_then(|s| s.to_str()).unwrap_or("custom").to_string();
    let l = Layout::parse(&name, &text, spec).map_err(|e| GameError::Parse(e.to_string()))?;
    Ok((l, Some(text)))
}

/// The layouts whose default partner is not `greedy`, with theirs: on forced_coordination
/// the two players stand on either side of a counter and every soup needs a hand-over;
/// `greedy` never passes anything across, so the default agent scored 0 beside it in
/// seat 0, while `scripted` hands ingredients and dishes over (docs/partners.md, "Default
/// partners", has the scores of every default pairing and the command that measures them).
pub const DEFAULT_PARTNERS: &[(&str, &str)] = &[("forced_coordination", "scripted")];

/// The partner a command seats on the classic layout `name` when none is named.
pub fn default_partner_of(name: &str) -> &'static str {
    DEFAULT_PARTNERS.iter().find(|(l, _)| *l == name).map_or("greedy", |(_, p)| p)
}

impl Playable for Overcooked {
    fn report_name(&self) -> String {
        self.layout.name.clone()
    }

    fn held_wait_max(&self, r: &EpisodeResult<Overcooked>, seat: usize) -> Option<u32> {
        let mut prev = r.start.players.get(seat)?;
        let (mut run, mut best) = (0u32, 0u32);
        for s in &r.steps {
            let p = s.state.players.get(seat)?;
            if p.held.is_some() && p.pos == prev.pos && p.held == prev.held {
                run += 1;
                best = best.max(run);
            } else {
                run = 0;
            }
            prev = p;
        }
        Some(best)
    }

    fn proagent_unsupported(&self) -> Option<String> {
        let orders = &self.layout.rules.orders;
        if orders.is_empty() || orders.iter().any(|r| r.tomatoes == 0) {
            return None;
        }
        let list: Vec<String> =
            orders.iter().map(|r| format!("{} onion(s) + {} tomato(es)", r.onions, r.tomatoes)).collect();
        Some(format!(
            "every order of this layout needs tomatoes ({}); the agent's skills, scene text and knowledge cover \
             onion soup only, so every soup it served would pay 0. Use a layout with an onion-only order \
             (or no `start_all_orders`, where every soup pays)",
            list.join("; ")
        ))
    }

    fn default_partner(&self) -> &'static str {
        default_partner_of(&self.layout.name)
    }

    fn known_specs(&self) -> &'static [&'static str] {
        KNOWN_SPECS
    }

    fn proagent_hooks(&self) -> Option<&'static dyn ProAgentHooks<Overcooked>> {
        Some(&ProAgentOn::<OvercookedGrounding>::HOOKS)
    }

    fn llmco_hooks(&self) -> Option<&'static dyn LlmcoHooks<Overcooked>> {
        Some(&LlmcoOn::<OvercookedLlmco>::HOOKS)
    }

    fn partner(&self, spec: &str) -> Result<Box<dyn Seat<Overcooked>>, SeatError> {
        self.partner_with(spec, &PartnerOptions::default())
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
            "proagent" => self.proagent_or_refuse()?.seat(default_proagent_config(self)?),
            "llmco" => self.llmco_or_refuse()?.seat(default_llmco_config(self)?),
            other if bc::BcSpec::parse(other).is_some() => {
                Box::new(bc::BcAgent::from_spec_with(other, &self.layout, mismatch)?)
            }
            other if let Some(rl) = RlSpec::parse(other) => Box::new(RlAgent::from_spec(&rl, other, self, mismatch)?),
            // A configured agent needs its model built by the caller (`SeatFactory::with_seat`).
            other if other.starts_with("proagent[") || other.starts_with("llmco[") => {
                return Err(SeatError::Unresolved(other.to_string()));
            }
            other => return Err(unknown_spec(other, &self.report_name(), KNOWN_SPECS)),
        })
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

    fn interdependence(
        &self,
        episode: &SavedEpisode<Self>,
        from: EpisodeSource<'_>,
        into: &mut Interdependence,
    ) -> Option<Result<AnalysedEpisode, proagent_analysis::AnalysisError>> {
        Some(proagent_analysis::analyze(&analysis_trajectory(episode)).map(|r| {
            if r.trace.repairs > 0 {
                tracing::warn!(trajectory = %r.trajectory, repairs = r.trace.repairs, "objects appeared or vanished without an explaining action");
            }
            let mut json = proagent_analysis::report_json(&r, from.detail);
            json["file"] = json!(from.file);
            json["kind"] = json!(from.file_kind);
            let line = AnalysedEpisode { json, text: text_line(&r) };
            into.classic.push(r);
            line
        }))
    }
    fn vector_codec(&self) -> Box<dyn VectorCodec<Self>> {
        Box::new(GenericCodec::with_encoder(self, Featurized))
    }
    fn with_horizon(&self, horizon: u32) -> Overcooked {
        Overcooked::with_kitchen(self.kitchen(), horizon)
    }

    fn legend(&self) -> &'static str {
        proagent_overcooked::env::render::LEGEND
    }

    /// The layout's name and size, then its start board (the same for every seed).
    fn start_text(&self, _seed: u64) -> String {
        let layout = &self.layout;
        let board = proagent_overcooked::env::render::render(layout, &layout.start_state());
        format!("{} ({}x{})\n{board}", layout.name, layout.width, layout.height)
    }

    fn outcome_text(&self, r: &EpisodeResult<Overcooked>) -> String {
        super::plural::counted(r.tally.deliveries, "delivery", "deliveries")
    }

    fn read_action(&self, token: &str) -> Option<Action> {
        Action::parse(token)
    }

    fn read_trajectory(
        source: &str,
        line: usize,
        record: &Value,
        _files: &dyn FileAccess,
    ) -> Result<SavedEpisode<Overcooked>, RecordError> {
        let t: trace::Trajectory =
            serde_json::from_value(record.clone()).map_err(|e| format!("not a trajectory object: {e}"))?;
        let policy = t.policy.get("kind").and_then(Value::as_str).unwrap_or("?");
        let name = format!("{source}:{line} {} {policy}", t.layout);
        let traj = proagent_analysis::readers::from_reference(&name, &t).map_err(|e| e.message)?;
        Ok(saved_from_trajectory(traj, Some(line), Some(record)))
    }

    fn saved_teamwork(&self, e: &SavedEpisode<Overcooked>) -> SavedTeamwork {
        let report = match proagent_analysis::analyze(&analysis_trajectory(e)) {
            Ok(r) => r,
            Err(err) => {
                return SavedTeamwork {
                    json: json!({ "error": err.to_string() }),
                    line: format!("teamwork: {err}"),
                    handovers: Vec::new(),
                };
            }
        };
        let handovers = report
            .interdependencies
            .iter()
            .filter_map(|i| {
                let at = report.trace.actions.get(i.give)?.at;
                Some(HandOverMark {
                    at,
                    t_give: Some(i.t_give),
                    t_receive: i.t_receive,
                    constructive: i.constructive(),
                    json: json!({
                        "giver": i.giver, "receiver": i.receiver, "t_give": i.t_give, "t_receive": i.t_receive,
                        "object": i.obj_kind.name(), "link": i.link.name(), "constructive": i.constructive(),
                        "at": [at.x, at.y],
                    }),
                })
            })
            .collect();
        let line = format!(
            "deliveries {}, hand-overs: {} constructive, {} other; shared-pot links {}",
            report.deliveries, report.constructive, report.non_constructive, report.pot_links.constructive
        );
        SavedTeamwork { json: proagent_analysis::metrics_json(&report), line, handovers }
    }

    fn human_game_lines(&self, r: &EpisodeResult<Overcooked>, trial: &str) -> Option<String> {
        let mut lines = String::new();
        let mut state = &r.start;
        let mut score = 0u32;
        for s in &r.steps {
            score = score.saturating_add(s.outcome.reward);
            let a = |i: usize| s.actions.get(i).copied().flatten().unwrap_or(Action::Stay);
            lines.push_str(&proagent_partners::bc::data::step_line(
                trial,
                &self.layout,
                state,
                [a(0), a(1)],
                s.outcome.reward,
                score,
            ));
            lines.push('\n');
            state = &s.state;
        }
        Some(lines)
    }
}

/// Classic Overcooked's observation for learning code: overcooked-ai 1.x's
/// `featurize_state` (96 values) of each player; its codec is the [`GenericCodec`] over the
/// six actions in [`Action::ALL`]'s order (N, S, E, W, stay, interact) with the game's own
/// seats.
struct Featurized;

impl ObsEncoder<Overcooked> for Featurized {
    fn obs_len(&self, _game: &Overcooked, _actions: &[Action]) -> usize {
        AI_NUM_FEATURES
    }
    fn encode(
        &self,
        game: &Overcooked,
        _actions: &[Action],
        state: &State,
        player: usize,
        _last: &[Option<Action>],
        out: &mut Vec<f32>,
    ) {
        let k = game.kitchen();
        out.clear();
        out.extend_from_slice(&ai_featurize(&k.layout, &k.motion, state, player, false));
    }
}

/// A classic episode's interdependencies as `analyze` prints them.
fn text_line(r: &proagent_analysis::Report) -> String {
    let links: Vec<String> =
        r.links.iter().map(|(k, c)| format!("{k} {}/{}", c.constructive, c.non_constructive)).collect();
    let players: Vec<String> = r
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| format!("p{i} triggered {} accepted {} ({})", p.triggered, p.accepted, pct(p.accepted_share())))
        .collect();
    format!(
        "{}: {}, {}, constructive {}, non-constructive {} [{}]; {}; shared-pot links {}/{}",
        r.trajectory,
        super::plural::counted(r.steps as u64, "step", "steps"),
        super::plural::counted(r.deliveries as u64, "soup", "soups"),
        r.constructive,
        r.non_constructive,
        links.join(", "),
        players.join("; "),
        r.pot_links.constructive,
        r.pot_links.non_constructive
    )
}

/// Classic Overcooked claims every spec no other game claims: a built-in layout name (or
/// alias) or a layout file; `all` stands for every built-in layout.
impl Catalogued for Overcooked {
    const KIND: &'static str = "overcooked";
    const TITLE: &'static str = "Overcooked";
    const SPEC: &'static str = "NAME or PATH";

    fn claims(_spec: &str) -> bool {
        true
    }
    const TRACE_FORMAT: Option<&'static str> = Some("classic Overcooked (JSON Lines, one trajectory per line)");
    /// Trajectory files in overcooked-ai's schema (JSON Lines, one trajectory per line),
    /// replayed step by step; the catalog hands this game every file no other game's trace
    /// format claims.
    fn verify_trace(file: &str, text: &str) -> Result<Vec<TraceCheck>, TraceError> {
        let trajs = trace::parse_trace_file(text).map_err(|e| TraceError::parse(file, e))?;
        let mut checks = Vec::new();
        for (line, traj) in trajs {
            let policy = traj.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?");
            let name = format!("{file}:{line} {} {policy}", traj.layout);
            let report = trace::verify(&traj).map_err(|e| TraceError::Replay(format!("{file}:{line}: {e}")))?;
            let text = if report.passed {
                format!(
                    "{name} ({}, reward {})",
                    super::plural::counted(report.steps as u64, "step", "steps"),
                    report.total_reward
                )
            } else {
                let d = report.divergence.as_ref();
                format!(
                    "{name}: t={} field={} expected={} got={}",
                    d.map_or(0, |d| d.t),
                    d.map_or("?", |d| d.field.as_str()),
                    d.map_or(String::new(), |d| d.expected.to_string()),
                    d.map_or(String::new(), |d| d.got.to_string()),
                )
            };
            let json = json!({"file": file, "line": line, "report": report});
            checks.push(TraceCheck { passed: report.passed, line: text, report: json, matched: 0 });
        }
        Ok(checks)
    }
    fn builtin_specs() -> Vec<String> {
        layout::BUILTIN.iter().map(|(n, _)| n.to_string()).collect()
    }
    /// `Overcooked-NAME` for every built-in layout.
    fn gym_ids() -> Vec<GymId> {
        layout::BUILTIN.iter().map(|(n, _)| GymId::new("Overcooked", n, *n)).collect()
    }
    fn expand_all(spec: &str) -> Option<Vec<String>> {
        (spec == "all").then(Self::builtin_specs)
    }
    fn load(spec: &str, options: &GameOptions, files: &dyn FileAccess) -> Result<(AnyGame, Option<String>), GameError> {
        let (layout, text) = load_layout_in(spec, files)?;
        Ok((AnyGame::from(Arc::new(Overcooked::new(Arc::new(layout), options.horizon))), text))
    }
    /// The recorded layout file's text when the header keeps one, else the spec.
    fn load_recorded(rec: &RecordedGame<'_>, files: &dyn FileAccess) -> Result<AnyGame, GameError> {
        let Some(text) = rec.file else {
            return Self::load(rec.spec, rec.options, files)
                .or_else(|e| Self::load(rec.name, rec.options, files).map_err(|_| e))
                .map(|(g, _)| g);
        };
        let layout = Layout::parse(rec.name, text, rec.source).map_err(|e| GameError::Parse(e.to_string()))?;
        Ok(AnyGame::from(Arc::new(Overcooked::new(Arc::new(layout), rec.options.horizon))))
    }
    /// A built-in layout's shipped text, a file's text.
    fn definition(&self, file: Option<&str>) -> String {
        let name = layout::canonical_name(&self.layout.name);
        match (file, name.and_then(|n| layout::BUILTIN.iter().find(|(b, _)| *b == n))) {
            (Some(text), _) => text.to_string(),
            (None, Some((_, text))) => text.to_string(),
            (None, None) => self.layout.name.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_core::Game as _;

    /// The codec numbers actions as overcooked-ai does ([`Action::index`]) and writes
    /// exactly `ai_featurize`'s values, at every step of a played episode.
    #[test]
    fn the_codec_is_overcooked_ai_s_indices_and_features() {
        let (layout, _) = load_layout("cramped_room").unwrap();
        let game = Overcooked::new(Arc::new(layout), 40);
        let codec = game.vector_codec();
        assert_eq!(codec.n_actions(&game), 6);
        for a in Action::ALL {
            assert_eq!(codec.action_index(&game, a), a.index());
            assert_eq!(codec.action_at(&game, a.index()), Some(a));
        }
        assert_eq!(codec.action_at(&game, 6), None);
        assert_eq!(codec.obs_len(&game), AI_NUM_FEATURES);
        let mut chance = proagent_core::episode::env_chance(5);
        let mut state = game.initial_state(&mut chance);
        let mut out = Vec::new();
        let k = game.kitchen();
        for t in 0..40usize {
            for p in 0..2 {
                codec.encode(&game, &state, p, &[], &mut out);
                assert_eq!(out, ai_featurize(&k.layout, &k.motion, &state, p, false).to_vec(), "t={t} p={p}");
            }
            let joint = [Some(Action::ALL[t % 6]), Some(Action::ALL[(t * 5 + 1) % 6])];
            game.step(&mut state, &joint, &mut chance);
        }
    }
}
