//! Reference trajectories in the schema of `shared/overcooked_traces/README.md`
//! (recorded from the Python simulator): reading them, converting states to and
//! from that schema, and checking our simulator against them step by step.
//!
//! Pure functions over text and values; the CLI does the file I/O.

use crate::env::{Action, Dir, Ingredient, Layout, Object, Player, Pos, Soup, State};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One recorded trajectory (one line of a trace file).
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Trajectory {
    /// ProAgent layout name (also the trace file's name), e.g. `cramped_room`.
    pub layout: String,
    /// Name of the overcooked_ai `.layout` file the trace was recorded on, when given.
    #[serde(default)]
    pub package_layout: Option<String>,
    /// Whether the recorder ran the old dynamics; the traces we check all say `true`.
    #[serde(default)]
    pub old_dynamics: Option<bool>,
    /// Episode length the trajectory was recorded with, in ticks.
    pub horizon: u32,
    /// The layout grid, one string per row (stripped), with the start digits `1` and `2`.
    pub grid: Vec<String>,
    /// The recording policy as the recorder described it (`kind`, `seed`, parameters); kept as raw JSON.
    #[serde(default)]
    pub policy: Value,
    /// Both players' start cells and facings (timestep 0, no objects).
    pub start: StartState,
    /// Sum of the steps' sparse team rewards.
    pub total_reward: u32,
    /// Number of soups served during the trajectory.
    pub deliveries: u32,
    /// One entry per tick, `t` = 0, 1, …
    pub steps: Vec<TraceStep>,
}

/// The `start` object of a trajectory: the players at timestep 0.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct StartState {
    /// Both players as `{"pos": [x, y], "or": [dx, dy]}`; checked to hold exactly 2 entries.
    pub players: Vec<Value>,
}

/// One recorded tick: the joint action and what it produced.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct TraceStep {
    /// 0-based index of the step; the state before it is the previous step's `state` (or `start`).
    pub t: u32,
    /// The joint action as letters `N S E W X I`, one per player.
    pub actions: Vec<String>,
    /// Sparse team reward of this step (a served soup's value).
    pub reward: u32,
    /// The same sparse reward split by the player who served.
    pub sparse_by_player: Vec<u32>,
    /// The simulator's shaped reward per player (potting, useful dish, soup pickup).
    pub shaped_by_player: Vec<u32>,
    /// The state after the step, in the trace schema (see [`state_json`]).
    pub state: Value,
}

/// A problem reading a trace file; `line` is 1-based.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// A line that is not a trajectory in the expected schema (or a file with no trajectory, at line 1).
    #[error("line {line}: {message}")]
    Malformed {
        /// 1-based line of the trace file.
        line: usize,
        /// What is wrong with it, including serde's own message when JSON failed to parse.
        message: String,
    },
}

/// A value that does not fit the trace schema (a state, player or object in JSON):
/// what is wrong, prefixed with the path of the field where it was found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SchemaError {
    /// `path: problem`, e.g. "steps[3].state: player at (0, 0) is not on a floor cell".
    pub message: String,
}

impl SchemaError {
    /// The same problem, found inside the field `path`.
    pub fn within(self, path: impl std::fmt::Display) -> SchemaError {
        SchemaError { message: format!("{path}: {}", self.message) }
    }
}

impl From<String> for SchemaError {
    fn from(message: String) -> Self {
        SchemaError { message }
    }
}

impl From<&str> for SchemaError {
    fn from(message: &str) -> Self {
        SchemaError { message: message.to_string() }
    }
}

/// Parses a JSON Lines trace file; every non-blank line is one trajectory.
pub fn parse_trace_file(text: &str) -> Result<Vec<(usize, Trajectory)>, TraceError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let traj: Trajectory = serde_json::from_str(line)
            .map_err(|e| TraceError::Malformed { line: i + 1, message: format!("not a trajectory object: {e}") })?;
        if traj.start.players.len() != 2 {
            return Err(TraceError::Malformed { line: i + 1, message: "`start.players` must have 2 entries".into() });
        }
        out.push((i + 1, traj));
    }
    if out.is_empty() {
        return Err(TraceError::Malformed { line: 1, message: "the file holds no trajectory".into() });
    }
    Ok(out)
}

fn dir_json(d: Dir) -> Value {
    let (dx, dy) = d.delta();
    json!([dx, dy])
}

fn pos_json(p: Pos) -> Value {
    json!([p.x, p.y])
}

/// An object in the trace schema (`pos` added for objects on the grid).
pub fn object_json(o: &Object, pos: Option<Pos>) -> Value {
    let mut v = json!({ "name": o.name() });
    if let Some(p) = pos {
        v["pos"] = pos_json(p);
    }
    if let Object::Soup(s) = o {
        v["ingredients"] = Value::Array(s.ingredients().iter().map(|i| json!(i.name())).collect());
        v["cooking_tick"] = json!(s.cooking_tick);
        v["is_cooking"] = json!(s.is_cooking());
        v["is_ready"] = json!(s.is_ready());
    }
    v
}

/// A state in the trace schema.
pub fn state_json(layout: &Layout, s: &State) -> Value {
    let players: Vec<Value> = s
        .players
        .iter()
        .map(|p| {
            json!({
                "pos": pos_json(p.pos),
                "or": dir_json(p.dir),
                "held": p.held.as_ref().map_or(Value::Null, |o| object_json(o, None)),
            })
        })
        .collect();
    let objects: Vec<Value> = s.objects_sorted(layout).map(|(p, o)| object_json(o, Some(p))).collect();
    json!({ "timestep": s.timestep, "players": players, "objects": objects })
}

fn get_pos(v: &Value, what: &str) -> Result<Pos, SchemaError> {
    let a = v.as_array().ok_or_else(|| format!("{what} must be [x, y]"))?;
    match (a.first().and_then(Value::as_u64), a.get(1).and_then(Value::as_u64), a.len()) {
        (Some(x), Some(y), 2) if x < 256 && y < 256 => Ok(Pos::new(x as u8, y as u8)),
        _ => Err(format!("{what} must be [x, y] with small non-negative integers").into()),
    }
}

fn get_dir(v: &Value, what: &str) -> Result<Dir, SchemaError> {
    let a = v.as_array().ok_or_else(|| format!("{what} must be [dx, dy]"))?;
    match (a.first().and_then(Value::as_i64), a.get(1).and_then(Value::as_i64), a.len()) {
        (Some(dx), Some(dy), 2) => {
            Dir::from_delta(dx, dy).ok_or_else(|| format!("{what} {v} is not a direction").into())
        }
        _ => Err(format!("{what} must be [dx, dy]").into()),
    }
}

/// Reads an object in the trace schema.
pub fn object_from_json(layout: &Layout, v: &Value) -> Result<Object, SchemaError> {
    let name = v.get("name").and_then(Value::as_str).ok_or("object without a `name`")?;
    Ok(match name {
        "onion" => Object::Ingredient(Ingredient::Onion),
        "tomato" => Object::Ingredient(Ingredient::Tomato),
        "dish" => Object::Dish,
        "soup" => {
            let ings = v.get("ingredients").and_then(Value::as_array).ok_or("soup without `ingredients`")?;
            let mut list = Vec::new();
            for i in ings {
                list.push(match i.as_str() {
                    Some("onion") => Ingredient::Onion,
                    Some("tomato") => Ingredient::Tomato,
                    _ => return Err(format!("unknown ingredient {i}").into()),
                });
            }
            let tick = v.get("cooking_tick").and_then(Value::as_i64).unwrap_or(-1).clamp(-1, i16::MAX as i64) as i16;
            let time = layout.rules.cook_time_for(&list);
            Object::Soup(Soup::with_ingredients(&list, tick, time).ok_or("soup with too many ingredients")?)
        }
        other => return Err(format!("unknown object {other:?}").into()),
    })
}

/// Reads a player (`pos`, `or`, optional `held`).
pub fn player_from_json(layout: &Layout, v: &Value) -> Result<Player, SchemaError> {
    let pos = get_pos(v.get("pos").ok_or("player without `pos`")?, "player `pos`")?;
    let dir = get_dir(v.get("or").ok_or("player without `or`")?, "player `or`")?;
    let held = match v.get("held") {
        None | Some(Value::Null) => None,
        Some(h) => Some(object_from_json(layout, h)?),
    };
    if !layout.is_walkable(pos) {
        return Err(format!("player at {pos} is not on a floor cell").into());
    }
    Ok(Player { pos, dir, held })
}

/// Reads a full state in the trace schema.
pub fn state_from_json(layout: &Layout, v: &Value) -> Result<State, SchemaError> {
    let players = v.get("players").and_then(Value::as_array).ok_or("state without `players`")?;
    if players.len() != 2 {
        return Err("a state must have 2 players".into());
    }
    let mut s = layout.start_state();
    s.players = [player_from_json(layout, &players[0])?, player_from_json(layout, &players[1])?];
    s.timestep = v.get("timestep").and_then(Value::as_u64).unwrap_or(0) as u32;
    if let Some(objs) = v.get("objects").and_then(Value::as_array) {
        for o in objs {
            let p = get_pos(o.get("pos").ok_or("object without `pos`")?, "object `pos`")?;
            let idx = layout.index(p).ok_or_else(|| format!("object at {p} is outside the grid"))?;
            s.objects[idx] = Some(object_from_json(layout, o)?);
        }
    }
    Ok(s)
}

/// The first place where two JSON values differ, as (field path, expected, got).
pub fn first_difference(path: &str, expected: &Value, got: &Value) -> Option<(String, Value, Value)> {
    match (expected, got) {
        (Value::Object(e), Value::Object(g)) => {
            for (k, ev) in e {
                let sub = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                match g.get(k) {
                    Some(gv) => {
                        if let Some(d) = first_difference(&sub, ev, gv) {
                            return Some(d);
                        }
                    }
                    None => return Some((sub, ev.clone(), Value::Null)),
                }
            }
            for (k, gv) in g {
                if !e.contains_key(k) {
                    let sub = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                    return Some((sub, Value::Null, gv.clone()));
                }
            }
            None
        }
        (Value::Array(e), Value::Array(g)) => {
            for (i, (ev, gv)) in e.iter().zip(g).enumerate() {
                if let Some(d) = first_difference(&format!("{path}[{i}]"), ev, gv) {
                    return Some(d);
                }
            }
            if e.len() != g.len() {
                return Some((format!("{path}.length"), json!(e.len()), json!(g.len())));
            }
            None
        }
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        _ if expected == got => None,
        _ => Some((path.to_string(), expected.clone(), got.clone())),
    }
}

/// Where a replay first departed from a recorded trajectory.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Divergence {
    /// Step index `t` at which the replay differed (the steps' count for a `total_reward` mismatch).
    pub t: u32,
    /// Path of the first differing field, e.g. `state.players[0].pos[1]` or `reward`.
    pub field: String,
    /// The recorded value.
    pub expected: Value,
    /// Our simulator's value.
    pub got: Value,
}

/// The outcome of replaying one trajectory.
#[derive(Clone, Debug, Serialize)]
pub struct VerifyReport {
    /// The trajectory's layout name.
    pub layout: String,
    /// The recording policy's `kind` (`?` when missing).
    pub policy: String,
    /// Number of steps in the trajectory (not the number replayed before a divergence).
    pub steps: usize,
    /// Sparse team reward our simulator earned over the steps replayed.
    pub total_reward: u32,
    /// True when every replayed step matched and the total reward agreed.
    pub passed: bool,
    /// The first mismatch, when there was one.
    pub divergence: Option<Divergence>,
}

/// Replays a trajectory's joint actions from its start state on a layout built
/// from its own grid, and compares every step's state and rewards.
pub fn verify(traj: &Trajectory) -> Result<VerifyReport, SchemaError> {
    let rows: Vec<&str> = traj.grid.iter().map(String::as_str).collect();
    let layout = Layout::from_grid(&traj.layout, &rows).map_err(|e| format!("bad grid: {e}"))?;
    let mut state = layout.start_state();
    for (i, p) in traj.start.players.iter().enumerate() {
        state.players[i] = player_from_json(&layout, p).map_err(|e| e.within(format_args!("start.players[{i}]")))?;
    }
    let policy = traj.policy.get("kind").and_then(Value::as_str).unwrap_or("?").to_string();
    let mut report = VerifyReport {
        layout: traj.layout.clone(),
        policy,
        steps: traj.steps.len(),
        total_reward: 0,
        passed: false,
        divergence: None,
    };
    let fail =
        |t: u32, field: &str, e: Value, g: Value| Divergence { t, field: field.to_string(), expected: e, got: g };
    for (k, step) in traj.steps.iter().enumerate() {
        if step.t as usize != k {
            return Err(format!("step {k} has t = {}", step.t).into());
        }
        if step.actions.len() != 2 {
            return Err(format!("step {k}: `actions` must have 2 entries").into());
        }
        let mut joint = [Action::Stay; 2];
        for (i, a) in step.actions.iter().enumerate() {
            joint[i] = Action::parse(a).ok_or_else(|| format!("step {k}: unknown action {a:?}"))?;
        }
        let out = layout.step(&mut state, joint);
        report.total_reward += out.reward;
        let checks = [
            ("reward", json!(step.reward), json!(out.reward)),
            ("sparse_by_player", json!(step.sparse_by_player), json!(out.sparse_by_player)),
            ("shaped_by_player", json!(step.shaped_by_player), json!(out.shaped_by_player)),
        ];
        for (field, e, g) in checks {
            if let Some((f, e, g)) = first_difference(field, &e, &g) {
                report.passed = false;
                report.divergence = Some(fail(step.t, &f, e, g));
                return Ok(report);
            }
        }
        let got = state_json(&layout, &state);
        if let Some((f, e, g)) = first_difference("state", &step.state, &got) {
            report.passed = false;
            report.divergence = Some(fail(step.t, &f, e, g));
            return Ok(report);
        }
    }
    if report.total_reward != traj.total_reward {
        report.divergence =
            Some(fail(traj.steps.len() as u32, "total_reward", json!(traj.total_reward), json!(report.total_reward)));
    }
    // Every step was replayed and matched (each difference above returned early).
    report.passed = report.divergence.is_none();
    Ok(report)
}
