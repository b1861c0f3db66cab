//! OvercookedV2 in the evaluation layer: its seats (the scripted cook, the baselines, the
//! ProAgent agent with the V2 prompts), its summaries, trajectories (JaxMARL-style states)
//! and the hand-over analysis of its episodes.

use super::catalog::{AnyGame, Catalogued, GymId, RecordedGame, TraceCheck, TraceError};
use super::hooks::{ProAgentHooks, ProAgentOn};
use super::interdependence::{AnalysedEpisode, EpisodeSource, Interdependence};
use super::playable::{
    GameError, GameOptions, GameSettings, HandOverMark, PartnerOptions, Playable, RecordError, SavedTeamwork,
    SeatError, Teamwork, default_proagent_config, unknown_spec,
};
use super::playable::{GenericCodec, ObsEncoder, VectorCodec};
use super::saved::{SavedEpisode, SavedStep, skill_events_of};
use proagent_agent::OvercookedV2Grounding;
use proagent_core::Game;
use proagent_core::Seat;
use proagent_core::episode::EpisodeResult;
use proagent_core::episode::env_chance;
use proagent_core::files::{FileAccess, LocalFiles, read_named_text};
use proagent_overcooked::env::Action;
use proagent_overcooked::env::layout::MAX_LAYOUT_TEXT_BYTES;
use proagent_overcooked_v2::env::trace::{TraceState, trace_state};
use proagent_overcooked_v2::env::{Event, Layout, Settings, State, StepOutcome};
use proagent_overcooked_v2::game::OvercookedV2;
use proagent_partners::basic::{RandomSeat, StaySeat};
use proagent_partners::rl::{RlAgent, RlSpec};
use proagent_partners::v2::ScriptedV2;
use serde_json::{Map, Value, json};
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

/// A V2 layout by built-in name or file path (without the `v2:` prefix; a file on this
/// machine: the command line's policy, [`LocalFiles`]), with the file's text (`None` for a
/// built-in layout).
pub fn load_v2_layout(spec: &str) -> Result<(Layout, Option<String>), GameError> {
    load_v2_layout_in(spec, &LocalFiles)
}

/// A V2 layout by built-in name or file path (without the `v2:` prefix), the file opened
/// only as `files` allows, with the file's text (`None` for a built-in layout).
pub fn load_v2_layout_in(spec: &str, files: &dyn FileAccess) -> Result<(Layout, Option<String>), GameError> {
    if let Some(l) = Layout::builtin(spec) {
        return Ok((l, None));
    }
    let text = read_named_text(files, spec, MAX_LAYOUT_TEXT_BYTES as u64, "layout files").map_err(|e| {
        GameError::of_named_read(e, || {
            let known: Vec<&str> = Layout::builtin_names().collect();
            GameError::Unknown { what: "OvercookedV2 layout", spec: spec.to_string(), known: known.join(", ") }
        })
    })?;
    let layout = Layout::parse(&text, spec).map_err(|e| GameError::Parse(e.to_string()))?;
    Ok((layout, Some(text)))
}

/// The episodes of a V2 reference-trace file recorded from JaxMARL
/// (`tests/fixtures/v2_traces`, schema `proagent-v2-trace/1`), for the viewer and
/// `show`: each trajectory is first checked step for step as `verify-trace` checks it (a
/// divergence is an error naming its line and step), then re-played from its recorded
/// start with its recorded recipe draws.
pub fn read_reference_traces(source: &str, text: &str) -> Result<Vec<SavedEpisode<OvercookedV2>>, RecordError> {
    use proagent_overcooked_v2::env::trace::{self, action_from_id};
    /// Serves the step's recorded draw.
    struct Recorded(Option<usize>);
    impl proagent_core::game::Chance for Recorded {
        fn pick(&mut self, _n: usize) -> usize {
            self.0.take().unwrap_or(0)
        }
    }
    let trajectories = trace::parse_v2_trace_file(text).map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(trajectories.len());
    for traj in &trajectories {
        let at = |m: String| RecordError::Bad(format!("line {}: {m}", traj.line));
        let report = trace::verify(traj);
        if let Some(d) = report.divergence {
            let step = d.t.map_or_else(|| "the start".to_string(), |t| format!("step {t}"));
            return Err(at(format!(
                "{step}: {} differs from the simulator's: recorded {}, simulated {}",
                d.field, d.expected, d.got
            )));
        }
        let h = &traj.header;
        let layout = trace::layout_for(h).map_err(|d| at(format!("{}: {}", d.field, d.got)))?;
        let start = trace::start_state(&layout, h).map_err(|d| at(format!("{}: {}", d.field, d.got)))?;
        let settings = h.settings.to_settings();
        let game = Arc::new(OvercookedV2::new(Arc::new(layout), settings));
        let mut state = start.clone();
        let mut steps = Vec::with_capacity(traj.steps.len());
        for s in &traj.steps {
            let actions: Vec<Option<Action>> = s.actions.iter().map(|&id| action_from_id(id)).collect();
            let outcome = game.step(&mut state, &actions, &mut Recorded(s.draw));
            steps.push(SavedStep {
                actions,
                reward: i64::from(outcome.reward),
                outcome: Some(outcome),
                state: state.clone(),
                skill_events: Vec::new(),
                beliefs: Vec::new(),
            });
        }
        let policy = h.policy.get("kind").and_then(Value::as_str).unwrap_or("?").to_string();
        let name = format!("{source}:{} {} {policy}", traj.line, game.report_name());
        let agents = vec![format!("jaxmarl {policy}"); game.num_players()];
        out.push(SavedEpisode { game, name, line: Some(traj.line), agents, seed: None, start, steps });
    }
    Ok(out)
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

    fn proagent_hooks(&self) -> Option<&'static dyn ProAgentHooks<OvercookedV2>> {
        Some(&ProAgentOn::<OvercookedV2Grounding>::HOOKS)
    }

    fn partner(&self, spec: &str) -> Result<Box<dyn Seat<OvercookedV2>>, SeatError> {
        self.partner_with(spec, &PartnerOptions::default())
    }

    fn partner_with(&self, spec: &str, options: &PartnerOptions) -> Result<Box<dyn Seat<OvercookedV2>>, SeatError> {
        Ok(match spec.trim() {
            "scripted" => Box::new(ScriptedV2::new()),
            "random" => Box::new(RandomSeat::<OvercookedV2>::new()),
            "stay" => Box::new(StaySeat),
            "proagent" => self.proagent_or_refuse()?.seat(default_proagent_config(self)?),
            other if other.starts_with("proagent[") => return Err(SeatError::Unresolved(other.to_string())),
            other if let Some(rl) = RlSpec::parse(other) => {
                Box::new(RlAgent::from_spec(&rl, other, self, options.allow_model_mismatch)?)
            }
            other => return Err(unknown_spec(other, &self.report_name(), KNOWN_SPECS)),
        })
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

    const SETTINGS_KEY: Option<&'static str> = Some("v2");

    fn env_settings(&self) -> Option<Value> {
        Some(json!(self.settings))
    }

    fn interdependence(
        &self,
        episode: &SavedEpisode<Self>,
        from: EpisodeSource<'_>,
        into: &mut Interdependence,
    ) -> Option<Result<AnalysedEpisode, proagent_analysis::AnalysisError>> {
        let e = v2_episode(from.file, episode);
        let json = json!({"file": from.file, "at": e.at, "kind": "overcooked_v2", "layout": e.layout, "seed": e.seed, "steps": e.steps, "teamwork": e.teamwork});
        let line = AnalysedEpisode { json, text: v2_line(&e) };
        into.v2.push((e.layout, e.teamwork));
        Some(Ok(line))
    }
    fn vector_codec(&self) -> Box<dyn VectorCodec<Self>> {
        Box::new(GenericCodec::with_encoder(self, JaxTensor))
    }
    fn with_horizon(&self, horizon: u32) -> OvercookedV2 {
        let settings = proagent_overcooked_v2::env::Settings { max_steps: horizon, ..self.settings.clone() };
        OvercookedV2::new(Arc::clone(&self.layout), settings)
    }

    fn legend(&self) -> &'static str {
        LEGEND
    }

    /// The layout's name and size, its start board for the episode seed `seed` (with the
    /// recipe that seed draws, as `play --seed` plays it) and the recipes it may ask for.
    fn start_text(&self, seed: u64) -> String {
        let layout = &self.layout;
        // The start `play --seed` plays: the recipe (and any other draw) of this seed.
        let state = self.initial_state(&mut env_chance(seed));
        let recipes: Vec<String> = layout.recipes.iter().map(|r| r.describe(&layout.ingredient_names)).collect();
        format!(
            "{V2_PREFIX}{} ({}x{}), seed {seed}\n{}possible recipes: {}\n",
            layout.name,
            layout.width,
            layout.height,
            proagent_overcooked_v2::env::render::render(layout, &state),
            recipes.join("; ")
        )
    }

    /// Size, players, ingredients, recipes and the grid.
    fn start_json(&self) -> Option<Value> {
        let layout = &self.layout;
        let names = &layout.ingredient_names;
        Some(json!({
            "layout": format!("{V2_PREFIX}{}", layout.name),
            "width": layout.width,
            "height": layout.height,
            "players": layout.num_agents(),
            "ingredients": names,
            "recipes": layout.recipes.iter().map(|r| r.describe(names)).collect::<Vec<_>>(),
            "grid": layout.grid,
        }))
    }

    fn outcome_text(&self, r: &EpisodeResult<OvercookedV2>) -> String {
        let t = r.tally;
        format!(
            "{} correct, {}, {}",
            t.correct,
            super::plural::counted(t.wrong, "wrong delivery", "wrong deliveries"),
            super::plural::counted(t.presses, "button press", "button presses")
        )
    }

    fn read_action(&self, token: &str) -> Option<Action> {
        Action::parse(token)
    }

    /// A V2 trajectory is re-played from its seed with its recorded actions (the
    /// simulator draws the start and the recipes as `play` did); the start, every state
    /// and every reward must be the recorded ones.
    fn read_trajectory(
        source: &str,
        line: usize,
        v: &Value,
        _files: &dyn FileAccess,
    ) -> Result<SavedEpisode<OvercookedV2>, RecordError> {
        let layout_text = v.get("layout_text").and_then(Value::as_str).ok_or("no `layout_text`")?;
        let layout = Layout::parse(layout_text, &format!("{source}:{line} layout_text")).map_err(|e| e.to_string())?;
        let settings: Settings = serde_json::from_value(v.get("settings").cloned().unwrap_or_default())
            .map_err(|e| format!("`settings`: {e}"))?;
        let seed = v.get("seed").and_then(Value::as_u64).ok_or("no `seed` (a V2 trajectory is re-played from it)")?;
        let game = Arc::new(OvercookedV2::new(Arc::new(layout), settings));
        let mut chance = env_chance(seed);
        let start = game.initial_state(&mut chance);
        let recorded = |s: Option<&Value>, what: &str| -> Result<TraceState, RecordError> {
            serde_json::from_value(s.cloned().unwrap_or_default()).map_err(|e| RecordError::Bad(format!("{what}: {e}")))
        };
        if recorded(v.get("start"), "`start`")? != trace_state(&game.layout, &game.settings, &start) {
            return Err(format!("`start` is not the state seed {seed} starts from on this layout and settings").into());
        }
        let events = skill_events_of(v.get("skill_events"));
        let mut state = start.clone();
        let mut steps = Vec::new();
        for (k, s) in v.get("steps").and_then(Value::as_array).ok_or("no `steps`")?.iter().enumerate() {
            let at = |m: String| RecordError::Bad(format!("step {k}: {m}"));
            let tokens = s.get("actions").and_then(Value::as_array).ok_or_else(|| at("no `actions`".into()))?;
            if tokens.len() != game.num_players() {
                return Err(at(format!("{} actions for {} players", tokens.len(), game.num_players())));
            }
            let actions = tokens
                .iter()
                .map(|t| t.as_str().and_then(Action::parse).map(Some).ok_or_else(|| at(format!("unknown action {t}"))))
                .collect::<Result<Vec<_>, _>>()?;
            let outcome = game.step(&mut state, &actions, &mut chance);
            let reward = i64::from(outcome.reward);
            if let Some(r) = s.get("reward").and_then(Value::as_i64)
                && r != reward
            {
                return Err(at(format!(
                    "the recorded reward is {r}, the simulator gives {reward} (not an episode of this layout, seed and settings)"
                )));
            }
            if recorded(s.get("state"), "`state`").map_err(|e| at(e.to_string()))?
                != trace_state(&game.layout, &game.settings, &state)
            {
                return Err(at("the recorded state is not the one the actions lead to".into()));
            }
            steps.push(SavedStep {
                actions,
                reward,
                outcome: Some(outcome),
                state: state.clone(),
                skill_events: events.iter().filter(|e| e.t as usize == k).cloned().collect(),
                beliefs: Vec::new(),
            });
        }
        let agents = v
            .get("agents")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|n| n.as_str().unwrap_or("?").to_string()).collect())
            .unwrap_or_default();
        let name = format!("{source}:{line} {}", game.report_name());
        Ok(SavedEpisode { game, name, line: Some(line), agents, seed: Some(seed), start, steps })
    }

    fn saved_teamwork(&self, e: &SavedEpisode<OvercookedV2>) -> SavedTeamwork {
        let Some(steps) = e
            .steps
            .iter()
            .map(|s| s.outcome.as_ref().map(|o| events(self, o).to_vec()))
            .collect::<Option<Vec<Vec<Option<Event>>>>>()
        else {
            let error = "the episode's events are not known (it was not re-played)";
            return SavedTeamwork {
                json: json!({ "error": error }),
                line: format!("teamwork: {error}"),
                handovers: Vec::new(),
            };
        };
        let t = proagent_analysis::v2::teamwork(&self.layout, &steps);
        let handovers = proagent_analysis::v2::handovers(&self.layout, &steps)
            .into_iter()
            .map(|h| HandOverMark {
                at: h.at,
                t_give: h.t_give,
                t_receive: h.t_receive,
                constructive: h.constructive,
                json: json!({
                    "giver": h.giver, "receiver": h.receiver, "t_give": h.t_give, "t_receive": h.t_receive,
                    "object": h.object, "link": h.kind, "constructive": h.constructive, "at": [h.at.x, h.at.y],
                }),
            })
            .collect();
        let line = format!(
            "correct dishes {}, wrong {}; hand-overs: {} constructive, {} other; shared-pot soups {}; button presses {} ({} constructive signals)",
            t.correct_dishes,
            t.wrong_dishes,
            t.constructive,
            t.handovers - t.constructive,
            t.shared_pot_soups,
            t.button_presses,
            t.signals.constructive
        );
        SavedTeamwork { json: json!(t), line, handovers }
    }
}

/// V2's own settings from [`GameOptions::settings`] (every switch not given keeps its
/// default; `max_steps` is the horizon).
pub fn settings_of(options: &GameOptions) -> Result<Settings, GameError> {
    settings_from(&options.settings, options.horizon)
}

/// V2's settings from settings by name over the defaults, with `max_steps` = `horizon`.
fn settings_from(given: &GameSettings, horizon: u32) -> Result<Settings, GameError> {
    let mut all = match serde_json::to_value(Settings::default()) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    };
    all.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
    let settings: Settings = serde_json::from_value(Value::Object(all))
        .map_err(|e| GameError::BadSettings { game: OvercookedV2::TITLE, message: e.to_string() })?;
    Ok(Settings { max_steps: horizon, ..settings })
}

/// OvercookedV2's observation for learning code: JaxMARL's per-agent tensor (rows,
/// columns, layers; within the view radius when the layout has one), flattened; its codec
/// is the [`GenericCodec`] over the six actions in [`Action::ALL`]'s order with the game's
/// own seats.
struct JaxTensor;

impl ObsEncoder<OvercookedV2> for JaxTensor {
    fn obs_len(&self, game: &OvercookedV2, _actions: &[Action]) -> usize {
        let (h, w, c) = proagent_overcooked_v2::env::obs::shape(&game.layout, &game.settings);
        h * w * c
    }
    fn encode(
        &self,
        game: &OvercookedV2,
        _actions: &[Action],
        state: &State,
        player: usize,
        _last: &[Option<Action>],
        out: &mut Vec<f32>,
    ) {
        let mut ints = Vec::new();
        proagent_overcooked_v2::env::obs::encode(&game.layout, &game.settings, state, player, &mut ints);
        out.clear();
        out.extend(ints.iter().map(|&v| v as f32));
    }
}

/// One analysed OvercookedV2 episode.
struct V2Episode {
    /// Where it was read: `FILE:LINE` for a trajectory, the file for a transcript.
    at: String,
    layout: String,
    seed: Value,
    steps: usize,
    teamwork: proagent_analysis::v2::TeamworkV2,
}

/// An OvercookedV2 episode's teamwork, from the interact events of its re-played steps.
fn v2_episode(source: &str, e: &SavedEpisode<OvercookedV2>) -> V2Episode {
    let n = e.game.layout.num_agents();
    let events: Vec<Vec<Option<Event>>> = e
        .steps
        .iter()
        .map(|s| {
            s.outcome.as_ref().map(|o| o.events[..n.min(o.events.len())].to_vec()).unwrap_or_else(|| vec![None; n])
        })
        .collect();
    V2Episode {
        at: e.line.map_or_else(|| source.to_string(), |l| format!("{source}:{l}")),
        layout: e.game.report_name(),
        seed: json!(e.seed),
        steps: events.len(),
        teamwork: proagent_analysis::v2::teamwork(&e.game.layout, &events),
    }
}

/// Hand-overs as `constructive/total`.
fn handovers_text(h: &proagent_analysis::v2::Handovers) -> String {
    format!("{}/{}", h.constructive, h.total)
}

/// An OvercookedV2 episode's teamwork as `analyze` prints it.
fn v2_line(e: &V2Episode) -> String {
    let t = &e.teamwork;
    let kinds: Vec<String> = t.ingredient_kinds.iter().map(|(k, h)| format!("{k} {}", handovers_text(h))).collect();
    let dishes: Vec<String> = t
        .dishes_by_recipe
        .iter()
        .map(|(k, d)| format!("[{k}] {} correct, {} wrong, {} handed over", d.correct, d.wrong, d.handed_over))
        .collect();
    format!(
        "{} {} seed {}: {}, {} correct / {} wrong {}, hand-overs {} ({} constructive; ingredients {} [{}], plates {}, dishes {}), shared-pot soups {}, button presses {} ({}); dishes: {}",
        e.at,
        e.layout,
        e.seed,
        super::plural::counted(e.steps as u64, "step", "steps"),
        t.correct_dishes,
        t.wrong_dishes,
        if t.correct_dishes + t.wrong_dishes == 1 { "dish" } else { "dishes" },
        t.handovers,
        t.constructive,
        handovers_text(&t.ingredients),
        kinds.join(", "),
        handovers_text(&t.plates),
        handovers_text(&t.dishes),
        t.shared_pot_soups,
        t.button_presses,
        super::plural::counted(t.signals.constructive as u64, "constructive signal", "constructive signals"),
        if dishes.is_empty() { "none".to_string() } else { dishes.join("; ") }
    )
}

/// OvercookedV2 claims `v2:NAME` and `v2:PATH`; `v2:all` stands for every built-in
/// layout. Its settings are the JaxMARL switches ([`Settings`]), recorded under `v2`.
impl Catalogued for OvercookedV2 {
    const KIND: &'static str = "overcooked_v2";
    const TITLE: &'static str = "OvercookedV2";
    const SPEC: &'static str = "v2:NAME";
    const SETTINGS: &'static [&'static str] = &[
        "view_radius",
        "random_agent_positions",
        "start_cooking_interaction",
        "negative_rewards",
        "sample_recipe_on_delivery",
        "indicate_successful_delivery",
    ];

    fn claims(spec: &str) -> bool {
        spec.starts_with(V2_PREFIX)
    }
    fn is_reference_trace(text: &str) -> bool {
        proagent_overcooked_v2::env::trace::is_v2_trace(text)
    }
    const TRACE_TALLY: Option<(&'static str, (&'static str, &'static str))> =
        Some(("v2_steps_matched", ("V2 step", "V2 steps")));
    const TRACE_FORMAT: Option<&'static str> = Some("OvercookedV2 (tests/fixtures/v2_traces/SCHEMA.md)");
    /// JaxMARL's episodes (tests/fixtures/v2_traces/SCHEMA.md), replayed step by step with
    /// the recorded recipe draws.
    fn verify_trace(file: &str, text: &str) -> Result<Vec<TraceCheck>, TraceError> {
        use proagent_overcooked_v2::env::trace;
        let trajs = trace::parse_v2_trace_file(text).map_err(|e| TraceError::parse(file, e))?;
        let mut checks = Vec::new();
        for traj in trajs {
            let policy = traj.header.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?").to_string();
            let name = format!("{file}:{} v2:{} {policy}", traj.line, traj.header.layout);
            let report = trace::verify(&traj);
            let line = if report.passed {
                format!(
                    "{name} ({}, reward {}, {} correct / {} wrong {}, {} replayed)",
                    super::plural::counted(report.steps as u64, "step", "steps"),
                    report.total_reward,
                    report.correct_deliveries,
                    report.wrong_deliveries,
                    if report.correct_deliveries + report.wrong_deliveries == 1 { "delivery" } else { "deliveries" },
                    super::plural::counted(report.draws_replayed as u64, "recipe draw", "recipe draws")
                )
            } else {
                let d = report.divergence.as_ref();
                format!(
                    "{name}: t={} field={} expected={} got={} ({} matched)",
                    d.and_then(|d| d.t).map_or("start".to_string(), |t| t.to_string()),
                    d.map_or("?", |d| d.field.as_str()),
                    d.map_or(String::new(), |d| d.expected.to_string()),
                    d.map_or(String::new(), |d| d.got.to_string()),
                    super::plural::counted(report.steps_matched as u64, "step", "steps"),
                )
            };
            let json = json!({"file": file, "line": traj.line, "v2": true, "report": report});
            checks.push(TraceCheck { passed: report.passed, line, report: json, matched: report.steps_matched });
        }
        Ok(checks)
    }
    fn split_path(spec: &str) -> (&'static str, &str) {
        match spec.strip_prefix(V2_PREFIX) {
            Some(rest) => (V2_PREFIX, rest),
            None => ("", spec),
        }
    }
    fn builtin_specs() -> Vec<String> {
        Layout::builtin_names().map(|n| format!("{V2_PREFIX}{n}")).collect()
    }
    /// `OvercookedV2-NAME` for every built-in layout.
    fn gym_ids() -> Vec<GymId> {
        Layout::builtin_names().map(|n| GymId::new("OvercookedV2", n, format!("{V2_PREFIX}{n}"))).collect()
    }
    fn expand_all(spec: &str) -> Option<Vec<String>> {
        (spec.strip_prefix(V2_PREFIX)?.trim() == "all").then(Self::builtin_specs)
    }
    fn load(spec: &str, options: &GameOptions, files: &dyn FileAccess) -> Result<(AnyGame, Option<String>), GameError> {
        let rest = spec.strip_prefix(V2_PREFIX).unwrap_or(spec).trim();
        let (layout, text) = load_v2_layout_in(rest, files)?;
        Ok((AnyGame::from(Arc::new(OvercookedV2::new(Arc::new(layout), settings_of(options)?))), text))
    }
    /// The recorded layout file's text when the header keeps one, else the spec (older
    /// headers may give the layout's name without `v2:`).
    fn load_recorded(rec: &RecordedGame<'_>, files: &dyn FileAccess) -> Result<AnyGame, GameError> {
        let settings = settings_of(rec.options)?;
        if let Some(text) = rec.file {
            let layout = Layout::parse(text, rec.source).map_err(|e| GameError::Parse(e.to_string()))?;
            return Ok(AnyGame::from(Arc::new(OvercookedV2::new(Arc::new(layout), settings))));
        }
        let spec =
            if rec.spec.starts_with(V2_PREFIX) { rec.spec.to_string() } else { format!("{V2_PREFIX}{}", rec.spec) };
        Self::load(&spec, rec.options, files)
            .or_else(|e| Self::load(rec.name, rec.options, files).map_err(|_| e))
            .map(|(g, _)| g)
    }
    /// The layout's text and the switches: changing either never reuses old results.
    fn definition(&self, _file: Option<&str>) -> String {
        let settings = serde_json::to_string(&self.settings).unwrap_or_default();
        format!("{}\n{settings}", self.layout.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codec numbers actions in [`Action::ALL`]'s order and writes exactly JaxMARL's
    /// tensor (`obs::encode`), with and without a view radius, at every step of a played
    /// episode.
    #[test]
    fn the_codec_is_the_action_order_and_jaxmarl_s_tensor() {
        for radius in [None, Some(2)] {
            let (layout, _) = load_v2_layout("grounded_coord_simple").unwrap();
            let settings = Settings { max_steps: 40, view_radius: radius, ..Settings::default() };
            let game = OvercookedV2::new(Arc::new(layout), settings);
            let codec = game.vector_codec();
            assert_eq!(codec.n_actions(&game), 6);
            for a in Action::ALL {
                assert_eq!(codec.action_index(&game, a), a.index());
                assert_eq!(codec.action_at(&game, a.index()), Some(a));
            }
            let (h, w, c) = proagent_overcooked_v2::env::obs::shape(&game.layout, &game.settings);
            assert_eq!(codec.obs_len(&game), h * w * c);
            let mut chance = env_chance(5);
            let mut state = game.initial_state(&mut chance);
            let (mut out, mut ints) = (Vec::new(), Vec::new());
            for t in 0..40usize {
                for p in 0..game.num_players() {
                    codec.encode(&game, &state, p, &[], &mut out);
                    proagent_overcooked_v2::env::obs::encode(&game.layout, &game.settings, &state, p, &mut ints);
                    let want: Vec<f32> = ints.iter().map(|&v| v as f32).collect();
                    assert_eq!(out, want, "radius {radius:?} t={t} p={p}");
                }
                let joint = [Some(Action::ALL[t % 6]), Some(Action::ALL[(t * 5 + 1) % 6])];
                game.step(&mut state, &joint, &mut chance);
            }
        }
    }
}
