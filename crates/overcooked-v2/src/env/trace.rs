//! OvercookedV2 reference traces recorded from JaxMARL (format:
//! tests/fixtures/v2_traces/SCHEMA.md): reading them and replaying them through the
//! simulator state for state.
//!
//! The recorded start state and recipe draws are fed in (JaxMARL draws them with
//! `jax.random`, which we do not reimplement); movement, collisions, interactions, cooking,
//! rewards, shaped rewards and both agents' observation tensors are computed and compared.
//! Pure functions over text and values; the CLI does the file I/O.

use super::item::{Item, Recipe};
use super::{Agent, Chance, Layout, Settings, State, Tile, obs};
use proagent_overcooked::env::{Action, Dir, Pos};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The `schema` string of the header line.
pub const SCHEMA: &str = "proagent-v2-trace/1";

/// The environment flags a trace was recorded with (JaxMARL's keyword arguments).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSettings {
    /// Episode length.
    pub max_steps: u32,
    /// `agent_view_size`.
    pub agent_view_size: Option<u8>,
    /// Whether the start was drawn by JaxMARL's `random_reset` (replayed, not re-drawn).
    pub random_reset: bool,
    /// Random start cells.
    pub random_agent_positions: bool,
    /// Pots start on interaction.
    pub start_cooking_interaction: bool,
    /// Wrong deliveries cost.
    pub negative_rewards: bool,
    /// New recipe after a correct delivery.
    pub sample_recipe_on_delivery: bool,
    /// Delivery indicator layer.
    pub indicate_successful_delivery: bool,
}

impl TraceSettings {
    /// The simulator settings these flags mean.
    pub fn to_settings(&self) -> Settings {
        Settings {
            max_steps: self.max_steps,
            view_radius: self.agent_view_size,
            random_agent_positions: self.random_agent_positions,
            start_cooking_interaction: self.start_cooking_interaction,
            negative_rewards: self.negative_rewards,
            sample_recipe_on_delivery: self.sample_recipe_on_delivery,
            indicate_successful_delivery: self.indicate_successful_delivery,
        }
    }
}

/// A state as the traces write it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceState {
    /// JaxMARL's step counter.
    pub step: u32,
    /// `step >= max_steps`.
    pub done: bool,
    /// `[x, y, direction id, item code]` per agent.
    pub agents: Vec<[u64; 4]>,
    /// `[x, y, item code, timer]` for every cell with an item or a timer, sorted by (y, x).
    pub cells: Vec<[u64; 4]>,
    /// The current recipe, sorted kinds.
    pub recipe: Vec<u8>,
    /// A correct delivery happened in the step that led here.
    pub new_correct_delivery: bool,
    /// Only in the start state: the index of the recipe in `possible_recipes`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recipe_index: Option<usize>,
}

/// The header line of a trajectory.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Header {
    /// Always `header`.
    pub kind: String,
    /// [`SCHEMA`].
    pub schema: String,
    /// JaxMARL's layout name.
    pub layout: String,
    /// The layout string's rows.
    pub grid: Vec<String>,
    /// Start cells in agent order, `[x, y]`.
    pub agent_order: Vec<[u8; 2]>,
    /// Ingredient kinds.
    pub num_ingredients: u8,
    /// Recipes in JaxMARL's order.
    pub possible_recipes: Vec<Vec<u8>>,
    /// The environment flags.
    pub settings: TraceSettings,
    /// How the actions were chosen (kept as recorded).
    pub policy: Value,
    /// Steps that follow.
    pub steps: usize,
    /// The recorder and package versions.
    #[serde(default)]
    pub generator: Value,
    /// The start state.
    pub start: TraceState,
    /// Observation digests at the start, per agent.
    pub start_obs: Vec<String>,
}

/// One step line.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceStep {
    /// Always `step`.
    pub kind: String,
    /// 0-based step index.
    pub t: u32,
    /// JaxMARL action ids, one per agent.
    pub actions: Vec<u8>,
    /// The team reward.
    pub reward: i64,
    /// Shaped reward per agent.
    pub shaped: Vec<i64>,
    /// The state after the step.
    pub state: TraceState,
    /// Observation digests after the step, per agent.
    pub obs: Vec<String>,
    /// The recipe index drawn in this step, if one was.
    #[serde(default)]
    pub draw: Option<usize>,
}

/// The end line.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceEnd {
    /// Always `end`.
    pub kind: String,
    /// Steps recorded.
    pub steps: usize,
    /// Sum of the team rewards.
    pub total_reward: i64,
    /// Correct deliveries.
    pub correct_deliveries: u32,
}

/// One recorded trajectory.
#[derive(Clone, Debug)]
pub struct V2Trajectory {
    /// 1-based line of the header in its file.
    pub line: usize,
    /// The header.
    pub header: Header,
    /// The steps, in order.
    pub steps: Vec<TraceStep>,
    /// The end line.
    pub end: TraceEnd,
}

/// A problem reading a V2 trace file.
#[derive(Debug, thiserror::Error)]
pub enum V2TraceError {
    /// A line that does not fit the schema; `line` is 1-based.
    #[error("line {line}: {message}")]
    Malformed {
        /// 1-based line.
        line: usize,
        /// What is wrong (serde's message included).
        message: String,
    },
}

/// Whether a trace file's first line is a V2 header.
pub fn is_v2_trace(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    serde_json::from_str::<Value>(first)
        .ok()
        .and_then(|v| v.get("schema").and_then(|s| s.as_str()).map(|s| s == SCHEMA))
        == Some(true)
}

/// Reads every trajectory of a V2 trace file.
pub fn parse_v2_trace_file(text: &str) -> Result<Vec<V2Trajectory>, V2TraceError> {
    let bad = |line: usize, message: String| V2TraceError::Malformed { line, message };
    let mut out = Vec::new();
    let mut open: Option<(usize, Header, Vec<TraceStep>)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(raw).map_err(|e| bad(line, format!("not JSON: {e}")))?;
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or("").to_string();
        match kind.as_str() {
            "header" => {
                if open.is_some() {
                    return Err(bad(line, "a header before the previous trajectory's end line".into()));
                }
                let h: Header = serde_json::from_value(v).map_err(|e| bad(line, format!("header: {e}")))?;
                if h.schema != SCHEMA {
                    return Err(bad(line, format!("schema {:?}, expected {SCHEMA:?}", h.schema)));
                }
                open = Some((line, h, Vec::new()));
            }
            "step" => {
                let Some((_, _, steps)) = open.as_mut() else {
                    return Err(bad(line, "a step outside a trajectory (no header before it)".into()));
                };
                let s: TraceStep = serde_json::from_value(v).map_err(|e| bad(line, format!("step: {e}")))?;
                if s.t as usize != steps.len() {
                    return Err(bad(line, format!("step t={} where t={} was expected", s.t, steps.len())));
                }
                steps.push(s);
            }
            "end" => {
                let Some((hline, header, steps)) = open.take() else {
                    return Err(bad(line, "an end line without a header".into()));
                };
                let end: TraceEnd = serde_json::from_value(v).map_err(|e| bad(line, format!("end: {e}")))?;
                if end.steps != steps.len() || header.steps != steps.len() {
                    return Err(bad(
                        line,
                        format!(
                            "{} step lines, but the header says {} and the end line {}",
                            steps.len(),
                            header.steps,
                            end.steps
                        ),
                    ));
                }
                out.push(V2Trajectory { line: hline, header, steps, end });
            }
            other => return Err(bad(line, format!("unknown line kind {other:?} (header, step or end)"))),
        }
    }
    if let Some((hline, _, _)) = open {
        return Err(bad(hline, "the trajectory starting here has no end line".into()));
    }
    if out.is_empty() {
        return Err(bad(1, "no trajectory in the file".into()));
    }
    Ok(out)
}

/// Where the replay first differed from the recording.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Divergence {
    /// The step (its `t`); `None` for the start state.
    pub t: Option<u32>,
    /// What differed: `state`, `reward`, `shaped`, `obs[i]`, `draw`, `layout`, ….
    pub field: String,
    /// The recording's value.
    pub expected: Value,
    /// The simulator's value.
    pub got: Value,
}

/// The result of replaying one trajectory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct V2Report {
    /// JaxMARL's layout name.
    pub layout: String,
    /// The recording policy's kind.
    pub policy: String,
    /// Steps recorded.
    pub steps: usize,
    /// Steps replayed with everything equal (all of them when it passed).
    pub steps_matched: usize,
    /// Everything matched, start included.
    pub passed: bool,
    /// The first difference.
    pub divergence: Option<Divergence>,
    /// Sum of the replayed team rewards.
    pub total_reward: i64,
    /// Correct deliveries in the replay.
    pub correct_deliveries: u32,
    /// Wrong deliveries in the replay.
    pub wrong_deliveries: u32,
    /// Recorded recipe draws fed to the simulator.
    pub draws_replayed: u32,
}

/// Serves the one recorded draw of the current step, and notes whether it was asked for.
struct Replayed {
    next: Option<usize>,
    asked: bool,
}

impl Chance for Replayed {
    fn pick(&mut self, _n: usize) -> usize {
        self.asked = true;
        self.next.take().unwrap_or(usize::MAX)
    }
}

/// JaxMARL's action ids: right, down, left, up, stay, interact.
pub fn action_from_id(id: u8) -> Option<Action> {
    Some(match id {
        0 => Action::East,
        1 => Action::South,
        2 => Action::West,
        3 => Action::North,
        4 => Action::Stay,
        5 => Action::Interact,
        _ => return None,
    })
}

/// The JaxMARL action id of an action.
pub fn action_id(a: Action) -> u8 {
    match a {
        Action::East => 0,
        Action::South => 1,
        Action::West => 2,
        Action::North => 3,
        Action::Stay => 4,
        Action::Interact => 5,
    }
}

/// A state in the trace form.
pub fn trace_state(layout: &Layout, settings: &Settings, state: &State) -> TraceState {
    let agents = state
        .agents
        .iter()
        .map(|a| [a.pos.x as u64, a.pos.y as u64, a.dir.index() as u64, a.held.code() as u64])
        .collect();
    let cells = (0..layout.cells())
        .filter(|&i| !state.items[i].is_empty() || state.timers[i] != 0)
        .map(|i| {
            let p = layout.pos_of(i);
            [p.x as u64, p.y as u64, state.items[i].code() as u64, state.timers[i] as u64]
        })
        .collect();
    TraceState {
        step: state.step,
        done: state.done(settings),
        agents,
        cells,
        recipe: state.recipe.0.to_vec(),
        new_correct_delivery: state.new_correct_delivery,
        recipe_index: None,
    }
}

/// The layout a header describes: the built-in of that name (checked against the recorded
/// grid, agent order and recipe set), or one built from the header when we ship none.
/// Its recipe list is put in the recording's order so that recorded draws index it.
pub fn layout_for(h: &Header) -> Result<Layout, Divergence> {
    let diverge = |field: &str, expected: Value, got: Value| Divergence { t: None, field: field.into(), expected, got };
    let recorded: Vec<Recipe> = h
        .possible_recipes
        .iter()
        .map(|r| <[u8; 3]>::try_from(r.as_slice()).map(Recipe::new))
        .collect::<Result<_, _>>()
        .map_err(|_| diverge("possible_recipes", json!(h.possible_recipes), json!("recipes of three ingredients")))?;
    let mut layout = match Layout::builtin(&h.layout) {
        Some(l) => l,
        None => {
            let list: Vec<String> =
                recorded.iter().map(|r| r.0.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(" ")).collect();
            let text = format!("name: {}\nrecipes: {}\ngrid:\n{}\n", h.layout, list.join("; "), h.grid.join("\n"));
            Layout::parse(&text, "trace header").map_err(|e| diverge("layout", json!(h.grid), json!(e.to_string())))?
        }
    };
    if layout.grid != h.grid {
        return Err(diverge("grid", json!(h.grid), json!(layout.grid)));
    }
    let starts: Vec<[u8; 2]> = layout.starts.iter().map(|p| [p.x, p.y]).collect();
    if starts != h.agent_order {
        return Err(diverge("agent_order", json!(h.agent_order), json!(starts)));
    }
    if layout.num_kinds != h.num_ingredients {
        return Err(diverge("num_ingredients", json!(h.num_ingredients), json!(layout.num_kinds)));
    }
    let (mut a, mut b) = (recorded.clone(), layout.recipes.clone());
    a.sort();
    b.sort();
    if a != b {
        return Err(diverge("possible_recipes", json!(h.possible_recipes), json!(layout.recipes)));
    }
    layout.recipes = recorded;
    Ok(layout)
}

/// The start state a header records, checked against the rules (cells, rooms, items).
pub fn start_state(layout: &Layout, h: &Header) -> Result<State, Divergence> {
    let s = &h.start;
    let diverge = |field: String, expected: Value, got: Value| Divergence { t: None, field, expected, got };
    let pos_of = |x: u64, y: u64| -> Option<Pos> {
        let p = Pos::new(u8::try_from(x).ok()?, u8::try_from(y).ok()?);
        layout.index(p).map(|_| p)
    };
    if s.agents.len() != layout.num_agents() {
        return Err(diverge("start.agents".into(), json!(s.agents.len()), json!(layout.num_agents())));
    }
    let mut agents = Vec::new();
    for (i, a) in s.agents.iter().enumerate() {
        let field = format!("start.agents[{i}]");
        let pos = pos_of(a[0], a[1]).filter(|&p| layout.tile(p).is_floor());
        let Some(pos) = pos else { return Err(diverge(field, json!(a), json!("a floor cell"))) };
        let Some(&dir) = Dir::ALL.get(a[2] as usize) else {
            return Err(diverge(field, json!(a), json!("direction 0-3")));
        };
        let held = Item::from_code(a[3]).map_err(|e| diverge(field.clone(), json!(a), json!(e.to_string())))?;
        let randomised = h.settings.random_reset || h.settings.random_agent_positions;
        if !randomised && (pos != layout.starts[i] || dir != Dir::North || !held.is_empty()) {
            return Err(diverge(field, json!(a), json!([layout.starts[i].x, layout.starts[i].y, 0, 0])));
        }
        if randomised && layout.room_of(pos) != layout.room_of(layout.starts[i]) {
            return Err(diverge(field, json!(a), json!("a cell in the room of the agent's start")));
        }
        if !h.settings.random_reset && !held.is_empty() {
            return Err(diverge(field, json!(a), json!("empty hands")));
        }
        agents.push(Agent { pos, dir, held });
    }
    let mut items = vec![Item::EMPTY; layout.cells()];
    let mut timers = vec![0u8; layout.cells()];
    for (k, c) in s.cells.iter().enumerate() {
        let field = format!("start.cells[{k}]");
        let Some(p) = pos_of(c[0], c[1]) else { return Err(diverge(field, json!(c), json!("a cell of the grid"))) };
        let item = Item::from_code(c[2]).map_err(|e| diverge(field.clone(), json!(c), json!(e.to_string())))?;
        let timer = u8::try_from(c[3]).map_err(|_| diverge(field.clone(), json!(c), json!("a timer below 256")))?;
        let ok = match layout.tile(p) {
            Tile::Counter => timer == 0,
            Tile::Pot => !item.has_plate() && timer <= super::COOK_TIME,
            Tile::Button => item.is_empty() && timer <= super::BUTTON_TIME,
            _ => false,
        };
        if !ok {
            return Err(diverge(field, json!(c), json!("an item on a counter, or pot/button contents")));
        }
        let i = layout.index(p).unwrap_or(0);
        items[i] = item;
        timers[i] = timer;
    }
    let recipe = <[u8; 3]>::try_from(s.recipe.as_slice()).map(Recipe::new).ok().filter(|r| layout.recipes.contains(r));
    let Some(recipe) = recipe else {
        return Err(diverge("start.recipe".into(), json!(s.recipe), json!("one of the layout's recipes")));
    };
    if let Some(k) = s.recipe_index
        && layout.recipes.get(k) != Some(&recipe)
    {
        return Err(diverge(
            "start.recipe_index".into(),
            json!(k),
            json!(layout.recipes.iter().position(|r| *r == recipe)),
        ));
    }
    Ok(State { agents, items, timers, recipe, step: s.step, new_correct_delivery: s.new_correct_delivery })
}

/// Replays a trajectory and compares every step.
pub fn verify(traj: &V2Trajectory) -> V2Report {
    let h = &traj.header;
    let mut report = V2Report {
        layout: h.layout.clone(),
        policy: h.policy.get("kind").and_then(Value::as_str).unwrap_or("?").to_string(),
        steps: traj.steps.len(),
        steps_matched: 0,
        passed: false,
        divergence: None,
        total_reward: 0,
        correct_deliveries: 0,
        wrong_deliveries: 0,
        draws_replayed: 0,
    };
    let fail = |mut r: V2Report, d: Divergence| {
        r.divergence = Some(d);
        r
    };
    let layout = match layout_for(h) {
        Ok(l) => l,
        Err(d) => return fail(report, d),
    };
    let settings = h.settings.to_settings();
    let mut state = match start_state(&layout, h) {
        Ok(s) => s,
        Err(d) => return fail(report, d),
    };
    let mut buf = Vec::new();
    let digests = |state: &State, buf: &mut Vec<i32>| -> Vec<String> {
        (0..state.agents.len())
            .map(|i| {
                obs::encode(&layout, &settings, state, i, buf);
                obs::digest(buf)
            })
            .collect()
    };
    let start_obs = digests(&state, &mut buf);
    if start_obs != h.start_obs {
        return fail(
            report,
            Divergence { t: None, field: "start_obs".into(), expected: json!(h.start_obs), got: json!(start_obs) },
        );
    }
    let mut actions = Vec::with_capacity(layout.num_agents());
    for s in &traj.steps {
        let t = Some(s.t);
        let diverge = |field: &str, expected: Value, got: Value| Divergence { t, field: field.into(), expected, got };
        actions.clear();
        for &id in &s.actions {
            match action_from_id(id) {
                Some(a) => actions.push(a),
                None => return fail(report, diverge("actions", json!(s.actions), json!("action ids 0-5"))),
            }
        }
        if actions.len() != layout.num_agents() {
            return fail(report, diverge("actions", json!(s.actions.len()), json!(layout.num_agents())));
        }
        let mut chance = Replayed { next: s.draw, asked: false };
        let out = layout.step(&settings, &mut state, &actions, &mut chance);
        if chance.asked != s.draw.is_some() {
            return fail(report, diverge("draw", json!(s.draw), json!(chance.asked)));
        }
        if s.draw.is_some() {
            if s.draw.is_some_and(|k| k >= layout.recipes.len()) {
                return fail(
                    report,
                    diverge("draw", json!(s.draw), json!(format!("an index below {}", layout.recipes.len()))),
                );
            }
            report.draws_replayed += 1;
        }
        let got = trace_state(&layout, &settings, &state);
        if got != s.state {
            return fail(report, diverge("state", json!(s.state), json!(got)));
        }
        if i64::from(out.reward) != s.reward {
            return fail(report, diverge("reward", json!(s.reward), json!(out.reward)));
        }
        let shaped: Vec<i64> = out.shaped[..layout.num_agents()].iter().map(|&v| i64::from(v)).collect();
        if shaped != s.shaped {
            return fail(report, diverge("shaped", json!(s.shaped), json!(shaped)));
        }
        let seen = digests(&state, &mut buf);
        if seen != s.obs {
            return fail(report, diverge("obs", json!(s.obs), json!(seen)));
        }
        report.total_reward += i64::from(out.reward);
        report.correct_deliveries += out.correct_deliveries;
        report.wrong_deliveries += out.wrong_deliveries;
        report.steps_matched += 1;
    }
    if report.total_reward != traj.end.total_reward || report.correct_deliveries != traj.end.correct_deliveries {
        let d = Divergence {
            t: None,
            field: "end".into(),
            expected: json!([traj.end.total_reward, traj.end.correct_deliveries]),
            got: json!([report.total_reward, report.correct_deliveries]),
        };
        return fail(report, d);
    }
    // Passed only when every recorded step was replayed and matched.
    if report.steps_matched != traj.steps.len() {
        let d = Divergence {
            t: None,
            field: "steps".into(),
            expected: json!(traj.steps.len()),
            got: json!(report.steps_matched),
        };
        return fail(report, d);
    }
    report.passed = true;
    report
}
