//! Readers that turn recorded trajectories into [`Trajectory`] values. Pure: they take
//! the text (already unzipped) and never touch files.
//!
//! - reference traces (`tests/fixtures/traces`, `shared/overcooked_traces`) and our own
//!   episodes, which are written in the same schema (extra fields are ignored);
//! - the 2019 human-human games (`shared/human_data`, one JSON line per timestep, several
//!   trials per file);
//! - anything that records only actions: [`Trajectory::from_actions`] rebuilds the states.

use super::Trajectory;
use proagent_overcooked::env::trace::{self, SchemaError, parse_trace_file, player_from_json, state_from_json};
use proagent_overcooked::env::{
    Action, Dir, Ingredient, Layout, Object, Player, Pos, Soup, State, layout::canonical_name,
};
use serde_json::Value;

/// A problem reading a trajectory file; `line` is 1-based.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// A line that is not what its file kind requires.
    #[error("line {line}: {message}")]
    Line {
        /// 1-based line of the file.
        line: usize,
        /// What is wrong with it.
        message: String,
    },
    /// A whole-file problem (empty file, no timestep), or a trace-file error that names its own line.
    #[error("{0}")]
    Format(String),
}

fn at_line(line: usize) -> impl Fn(String) -> ReadError {
    move |message| ReadError::Line { line, message }
}

/// The kinds of file `proagent analyze` understands.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FileKind {
    /// JSON Lines, one trajectory object (`grid`, `start`, `steps`) per line.
    ReferenceTrace,
    /// JSON Lines, one timestep (`trial`, `t`, `players`, `objects`, `actions`) per line.
    HumanGames,
}

impl FileKind {
    /// Human-readable name for messages: `reference trace` or `human games`.
    pub const fn name(self) -> &'static str {
        match self {
            FileKind::ReferenceTrace => "reference trace",
            FileKind::HumanGames => "human games",
        }
    }
}

/// Tells the file kind from the first non-blank line.
pub fn detect(text: &str) -> Result<FileKind, ReadError> {
    let Some((i, line)) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) else {
        return Err(ReadError::Format("the file is empty".into()));
    };
    let v: Value = serde_json::from_str(line)
        .map_err(|e| ReadError::Line { line: i + 1, message: format!("not a JSON object: {e}") })?;
    let has = |k: &str| v.get(k).is_some();
    if has("steps") && has("grid") && has("start") {
        Ok(FileKind::ReferenceTrace)
    } else if has("trial") && has("players") && has("t") {
        Ok(FileKind::HumanGames)
    } else {
        Err(ReadError::Line {
            line: i + 1,
            message: "unrecognised record: expected a reference trajectory (`grid`, `start`, `steps`) \
                      or a human-game timestep (`trial`, `t`, `players`)"
                .into(),
        })
    }
}

/// Reads any supported file; `source` names the trajectories (e.g. the file path).
pub fn read(source: &str, text: &str) -> Result<(FileKind, Vec<Trajectory>), ReadError> {
    let kind = detect(text)?;
    let trajs = match kind {
        FileKind::ReferenceTrace => read_reference(source, text)?,
        FileKind::HumanGames => read_human(text)?,
    };
    Ok((kind, trajs))
}

/// Reads a reference-trace file (several trajectories, one per line).
pub fn read_reference(source: &str, text: &str) -> Result<Vec<Trajectory>, ReadError> {
    let parsed = parse_trace_file(text).map_err(|e| ReadError::Format(e.to_string()))?;
    let mut out = Vec::with_capacity(parsed.len());
    for (line, t) in parsed {
        let policy = t.policy.get("kind").and_then(Value::as_str).unwrap_or("?");
        let name = format!("{source}:{line} {} {policy}", t.layout);
        out.push(from_reference(&name, &t).map_err(|e| at_line(line)(e.message))?);
    }
    Ok(out)
}

/// Converts one trajectory of the reference schema; its recorded states are used as is.
pub fn from_reference(name: &str, t: &trace::Trajectory) -> Result<Trajectory, SchemaError> {
    let rows: Vec<&str> = t.grid.iter().map(String::as_str).collect();
    let layout = Layout::from_grid(&t.layout, &rows).map_err(|e| format!("bad grid: {e}"))?;
    let mut start = layout.start_state();
    if t.start.players.len() != 2 {
        return Err("`start.players` must have 2 entries".into());
    }
    for (i, p) in t.start.players.iter().enumerate() {
        start.players[i] = player_from_json(&layout, p).map_err(|e| e.within(format_args!("start.players[{i}]")))?;
    }
    let mut states = vec![start];
    let mut joint_actions = Vec::with_capacity(t.steps.len());
    let mut rewards = Vec::with_capacity(t.steps.len());
    for (k, step) in t.steps.iter().enumerate() {
        if step.actions.len() != 2 {
            return Err(format!("steps[{k}]: `actions` must have 2 entries").into());
        }
        let mut joint = [Action::Stay; 2];
        for (i, a) in step.actions.iter().enumerate() {
            joint[i] = Action::parse(a).ok_or_else(|| format!("steps[{k}]: unknown action {a:?}"))?;
        }
        joint_actions.push(joint);
        rewards.push(step.reward);
        states.push(state_from_json(&layout, &step.state).map_err(|e| e.within(format_args!("steps[{k}].state")))?);
    }
    Ok(Trajectory { name: name.to_string(), layout, states, joint_actions, rewards })
}

/// The grids of the 2019 human games, as the data recorded them (only the start cells of
/// counter_circuit differ from the built-in layout: the humans started at (6,3) and (1,3)).
const HUMAN_GRIDS: [(&str, &[&str]); 5] = [
    ("cramped_room", &["XXPXX", "O  2O", "X1  X", "XDXSX"]),
    ("asymmetric_advantages", &["XXXXXXXXX", "O XSXOX S", "X   P 1 X", "X2  P   X", "XXXDXDXXX"]),
    ("coordination_ring", &["XXXPX", "X 1 P", "D2X X", "O   X", "XOSXX"]),
    ("forced_coordination", &["XXXPX", "O X1P", "O2X X", "D X X", "XXXSX"]),
    ("counter_circuit", &["XXXPPXXX", "X      X", "D XXXX S", "X2    1X", "XXXOOXXX"]),
];

/// The layout of the human games for a layout name or old alias.
pub fn human_layout(name: &str) -> Option<Layout> {
    let canon = canonical_name(name)?;
    let (_, rows) = HUMAN_GRIDS.iter().find(|(n, _)| *n == canon)?;
    Layout::from_grid(canon, rows).ok()
}

fn h_pos(v: Option<&Value>, what: &str) -> Result<Pos, SchemaError> {
    let a = v.and_then(Value::as_array).ok_or_else(|| format!("{what} must be [x, y]"))?;
    match (a.first().and_then(Value::as_u64), a.get(1).and_then(Value::as_u64), a.len()) {
        (Some(x), Some(y), 2) if x < 256 && y < 256 => Ok(Pos::new(x as u8, y as u8)),
        _ => Err(format!("{what} must be [x, y] with small non-negative integers").into()),
    }
}

fn h_dir(v: Option<&Value>, what: &str) -> Result<Dir, SchemaError> {
    match v.and_then(Value::as_str) {
        Some("NORTH") => Ok(Dir::North),
        Some("SOUTH") => Ok(Dir::South),
        Some("EAST") => Ok(Dir::East),
        Some("WEST") => Ok(Dir::West),
        _ => Err(format!("{what} must be NORTH, SOUTH, EAST or WEST").into()),
    }
}

/// An object of the human data: `{"name": "onion" | "dish" | "soup", "onions": n, "cook_time": c}`.
fn h_object(layout: &Layout, v: &Value) -> Result<Object, SchemaError> {
    let name = v.get("name").and_then(Value::as_str).ok_or("object without a `name`")?;
    Ok(match name {
        "onion" => Object::ONION,
        "tomato" => Object::Ingredient(Ingredient::Tomato),
        "dish" => Object::Dish,
        "soup" => {
            let count = |k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
            let (onions, tomatoes) = (count("onions"), count("tomatoes"));
            // Saturating: counts near u64::MAX must be an error, not an overflow.
            if onions.saturating_add(tomatoes) > proagent_overcooked::env::MAX_INGREDIENTS as u64 {
                return Err(format!("soup with {onions} onions and {tomatoes} tomatoes").into());
            }
            let mut ings = vec![Ingredient::Onion; onions as usize];
            ings.extend(std::iter::repeat_n(Ingredient::Tomato, tomatoes as usize));
            let cook_time = layout.rules.cook_time_for(&ings);
            let c = v.get("cook_time").and_then(Value::as_i64).ok_or("soup without `cook_time`")?;
            // The data shows 0 while a pot is filling and lets the clock run on past
            // ready; the simulator keeps -1 while idle and stops at the cook time.
            let tick = if ings.len() < layout.rules.num_items || c <= 0 { -1 } else { c.min(cook_time as i64) as i16 };
            Object::Soup(Soup::with_ingredients(&ings, tick, cook_time).ok_or("soup with too many ingredients")?)
        }
        other => return Err(format!("unknown object {other:?}").into()),
    })
}

/// One line of the human data as a state, its joint action and its reward.
fn human_line(layout: &Layout, v: &Value) -> Result<(State, [Action; 2], u32), SchemaError> {
    let mut s = layout.start_state();
    s.timestep = v.get("t").and_then(Value::as_u64).ok_or("line without `t`")? as u32;
    let players = v.get("players").and_then(Value::as_array).ok_or("line without `players`")?;
    if players.len() != 2 {
        return Err("`players` must have 2 entries".into());
    }
    for (i, p) in players.iter().enumerate() {
        let pos = h_pos(p.get("pos"), &format!("players[{i}].pos"))?;
        if !layout.is_walkable(pos) {
            return Err(format!("players[{i}] at {pos} is not on a floor cell").into());
        }
        let dir = h_dir(p.get("dir"), &format!("players[{i}].dir"))?;
        let held = match p.get("held") {
            None | Some(Value::Null) => None,
            Some(h) => Some(h_object(layout, h).map_err(|e| e.within(format_args!("players[{i}].held")))?),
        };
        s.players[i] = Player { pos, dir, held };
    }
    for (k, o) in v.get("objects").and_then(Value::as_array).map_or(&[][..], Vec::as_slice).iter().enumerate() {
        let p = h_pos(o.get("pos"), &format!("objects[{k}].pos"))?;
        let idx = layout.index(p).ok_or_else(|| format!("objects[{k}] at {p} is outside the grid"))?;
        s.objects[idx] = Some(h_object(layout, o).map_err(|e| e.within(format_args!("objects[{k}]")))?);
    }
    let acts = v.get("actions").and_then(Value::as_array).ok_or("line without `actions`")?;
    if acts.len() != 2 {
        return Err("`actions` must have 2 entries".into());
    }
    let mut joint = [Action::Stay; 2];
    for (i, a) in acts.iter().enumerate() {
        let a = a.as_str().ok_or_else(|| format!("actions[{i}] must be a string"))?;
        joint[i] = Action::parse(a).ok_or_else(|| format!("actions[{i}]: unknown action {a:?}"))?;
    }
    let reward = v.get("reward").and_then(Value::as_u64).unwrap_or(0) as u32;
    Ok((s, joint, reward))
}

/// Reads human-game JSON Lines: one trajectory per trial, with the trial id as its name.
/// Each line holds a state and the joint action taken in it; the game's terminal state
/// was not recorded, so the last transition is re-simulated.
pub fn read_human(text: &str) -> Result<Vec<Trajectory>, ReadError> {
    let mut out: Vec<Trajectory> = Vec::new();
    let mut last_t: Option<u64> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let err = at_line(line);
        let v: Value = serde_json::from_str(raw).map_err(|e| err(format!("not a JSON object: {e}")))?;
        let trial = v.get("trial").and_then(Value::as_str).ok_or_else(|| err("line without `trial`".into()))?;
        let t = v.get("t").and_then(Value::as_u64).ok_or_else(|| err("line without `t`".into()))?;
        let same = out.last().is_some_and(|tr| tr.name == trial);
        if !same {
            if out.iter().any(|tr| tr.name == trial) {
                return Err(err(format!("trial {trial:?} continues after another trial started")));
            }
            let lname = v.get("layout").and_then(Value::as_str).ok_or_else(|| err("line without `layout`".into()))?;
            let layout = human_layout(lname).ok_or_else(|| err(format!("unknown layout {lname:?}")))?;
            out.push(Trajectory {
                name: trial.to_string(),
                layout,
                states: Vec::new(),
                joint_actions: Vec::new(),
                rewards: Vec::new(),
            });
        } else if last_t.is_some_and(|p| t != p + 1) {
            return Err(err(format!("trial {trial:?}: t = {t} follows t = {}", last_t.unwrap_or(0))));
        }
        last_t = Some(t);
        let Some(tr) = out.last_mut() else { continue };
        let (state, joint, reward) = human_line(&tr.layout, &v).map_err(|e| err(e.message))?;
        tr.states.push(state);
        tr.joint_actions.push(joint);
        tr.rewards.push(reward);
    }
    if out.is_empty() {
        return Err(ReadError::Format("the file holds no timestep".into()));
    }
    for tr in &mut out {
        if let (Some(s), Some(&joint)) = (tr.states.last(), tr.joint_actions.last()) {
            let mut next = s.clone();
            tr.layout.step(&mut next, joint);
            tr.states.push(next);
        }
    }
    Ok(out)
}
