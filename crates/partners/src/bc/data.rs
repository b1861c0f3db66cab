//! The human-game demonstrations in the JSON Lines schema of the 2019 data
//! (see docs/bc.md, "BC human proxies"): reading them into simulator states, and
//! writing our own games in the same schema (for tests and user-made data).
//!
//! One line is one timestep:
//! `{"trial","layout","t","players":[{"pos":[x,y],"dir":"NORTH","held":obj|null}×2],
//!   "objects":[{"pos":[x,y],"name":..}],"actions":["STAY","INTERACT"],"reward","score"}`
//! where an object is `{"name":"onion"|"dish"|"tomato"}` or
//! `{"name":"soup","onions":n,"cook_time":c}`. The human data's cook counter keeps
//! rising after the soup is ready; it is read as `min(cook_time, cook time of the recipe)`.
//!
//! Pure functions over text; the caller reads (and un-gzips) the files.

use proagent_overcooked::env::trace::SchemaError;
use proagent_overcooked::env::{Action, Dir, Ingredient, Layout, Object, Player, Pos, Soup, State, Tile};
use serde::Deserialize;
use serde_json::{Value, json};

/// One demonstration step: the state and what both players did in it.
#[derive(Clone, Debug)]
pub struct DemoStep {
    /// Identifier of the game (trial) the step belongs to; steps of one trial share it.
    pub trial: String,
    /// Timestep within the trial, as recorded.
    pub t: u32,
    /// The state both players acted in, rebuilt on our simulator.
    pub state: State,
    /// What player 0 and player 1 did in `state` (the BC training labels).
    pub actions: [Action; 2],
}

/// A problem in a demonstration file; `line` is 1-based.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct DataError {
    /// 1-based line of the demonstration file.
    pub line: usize,
    /// What is wrong with the line, for a human reader.
    pub message: String,
}

#[derive(Deserialize)]
struct LineRec {
    trial: String,
    layout: String,
    t: u32,
    players: Vec<PlayerRec>,
    #[serde(default)]
    objects: Vec<ObjRec>,
    actions: Vec<String>,
}

#[derive(Deserialize)]
struct PlayerRec {
    pos: (i64, i64),
    dir: String,
    held: Option<ObjBody>,
}

#[derive(Deserialize)]
struct ObjBody {
    name: String,
    onions: Option<i64>,
    cook_time: Option<i64>,
}

#[derive(Deserialize)]
struct ObjRec {
    pos: (i64, i64),
    #[serde(flatten)]
    body: ObjBody,
}

/// The `layout` field of the first non-blank line, if it can be read.
pub fn first_layout_name(text: &str) -> Option<String> {
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    let v: Value = serde_json::from_str(line).ok()?;
    v.get("layout")?.as_str().map(str::to_string)
}

/// Parses a whole demonstration file for `layout`. Every line must name the
/// same layout; positions must fit the layout's grid.
pub fn parse(text: &str, layout: &Layout) -> Result<Vec<DemoStep>, DataError> {
    let mut steps = Vec::new();
    let mut layout_name: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let err = |message: String| DataError { line: i + 1, message };
        let rec: LineRec = serde_json::from_str(line).map_err(|e| err(format!("not a demonstration step: {e}")))?;
        match &layout_name {
            None => layout_name = Some(rec.layout.clone()),
            Some(n) if *n != rec.layout => {
                return Err(err(format!("layout {:?} differs from the first line's {n:?}", rec.layout)));
            }
            Some(_) => {}
        }
        let step = to_step(rec, layout).map_err(|e| err(e.message))?;
        steps.push(step);
    }
    if steps.is_empty() {
        return Err(DataError { line: 1, message: "the file holds no demonstration step".into() });
    }
    Ok(steps)
}

fn to_pos(layout: &Layout, (x, y): (i64, i64), what: &str) -> Result<Pos, SchemaError> {
    if x < 0 || y < 0 || x as usize >= layout.width || y as usize >= layout.height {
        return Err(format!("{what} [{x}, {y}] is outside the {}x{} grid", layout.width, layout.height).into());
    }
    Ok(Pos::new(x as u8, y as u8))
}

fn parse_dir(s: &str) -> Result<Dir, SchemaError> {
    match s.to_ascii_uppercase().as_str() {
        "NORTH" => Ok(Dir::North),
        "SOUTH" => Ok(Dir::South),
        "EAST" => Ok(Dir::East),
        "WEST" => Ok(Dir::West),
        _ => Err(format!("unknown direction {s:?} (expected NORTH, SOUTH, EAST or WEST)").into()),
    }
}

/// A soup of `onions` onions; `in_pot` soups with fewer than a full recipe are idle.
fn soup(layout: &Layout, b: &ObjBody, in_pot: bool) -> Result<Option<Object>, SchemaError> {
    let n = b.onions.ok_or("soup without `onions`")?;
    let cap = layout.rules.num_items as i64;
    if !(0..=cap).contains(&n) || (n == 0 && !in_pot) {
        return Err(format!("soup with {n} onions (expected 1 to {cap})").into());
    }
    if n == 0 {
        return Ok(None);
    }
    let ings = vec![Ingredient::Onion; n as usize];
    let cook = layout.rules.cook_time_for(&ings);
    let c = b.cook_time.unwrap_or(0);
    if c < 0 {
        return Err(format!("soup with negative cook_time {c}").into());
    }
    // A partial pot is idle; a full soup counts from 1 once cooking started. The
    // human data's counter runs on past the cook time: clamp to "ready".
    let tick = if in_pot && n < cap { -1 } else { c.min(cook as i64) as i16 };
    Ok(Some(Object::Soup(Soup::with_ingredients(&ings, tick, cook).ok_or("too many ingredients")?)))
}

fn object(layout: &Layout, b: &ObjBody, in_pot: bool) -> Result<Option<Object>, SchemaError> {
    Ok(Some(match b.name.as_str() {
        "onion" => Object::ONION,
        "tomato" => Object::Ingredient(Ingredient::Tomato),
        "dish" => Object::Dish,
        "soup" => return soup(layout, b, in_pot),
        other => return Err(format!("unknown object {other:?}").into()),
    }))
}

fn to_step(rec: LineRec, layout: &Layout) -> Result<DemoStep, SchemaError> {
    if rec.players.len() != 2 {
        return Err(format!("`players` has {} entries (expected 2)", rec.players.len()).into());
    }
    if rec.actions.len() != 2 {
        return Err(format!("`actions` has {} entries (expected 2)", rec.actions.len()).into());
    }
    let mut state = layout.start_state();
    state.timestep = rec.t;
    for (k, p) in rec.players.iter().enumerate() {
        let pos = to_pos(layout, p.pos, &format!("player {k} position"))?;
        if !layout.is_walkable(pos) {
            return Err(format!("player {k} stands on {pos}, which is not a floor cell").into());
        }
        let held = match &p.held {
            None => None,
            Some(b) => Some(object(layout, b, false)?.ok_or("a player holds an empty soup")?),
        };
        state.players[k] = Player { pos, dir: parse_dir(&p.dir)?, held };
    }
    if state.players[0].pos == state.players[1].pos {
        return Err(format!("both players stand on {}", state.players[0].pos).into());
    }
    for o in &rec.objects {
        let pos = to_pos(layout, o.pos, "object position")?;
        let tile = layout.tile(pos);
        let in_pot = match tile {
            Tile::Pot => true,
            Tile::Counter => false,
            _ => return Err(format!("object {:?} at {pos} lies on a {tile:?} tile", o.body.name).into()),
        };
        if in_pot && o.body.name != "soup" {
            return Err(format!("a pot at {pos} holds {:?} (only soups go in pots)", o.body.name).into());
        }
        let idx = layout.index(pos).ok_or("object outside the grid")?;
        if state.objects[idx].is_some() {
            return Err(format!("two objects at {pos}").into());
        }
        state.objects[idx] = object(layout, &o.body, in_pot)?;
    }
    let mut actions = [Action::Stay; 2];
    for (k, a) in rec.actions.iter().enumerate() {
        actions[k] = Action::parse(a).ok_or_else(|| format!("unknown action {a:?} for player {k}"))?;
    }
    Ok(DemoStep { trial: rec.trial, t: rec.t, state, actions })
}

/// The schema name of an action (NORTH, SOUTH, EAST, WEST, STAY, INTERACT).
pub fn action_name(a: Action) -> &'static str {
    match a {
        Action::North => "NORTH",
        Action::South => "SOUTH",
        Action::East => "EAST",
        Action::West => "WEST",
        Action::Stay => "STAY",
        Action::Interact => "INTERACT",
    }
}

fn object_value(o: &Object) -> Value {
    match o {
        Object::Soup(s) => json!({"name": "soup", "onions": s.len(), "cook_time": s.cooking_tick.max(0)}),
        other => json!({"name": other.name()}),
    }
}

/// One step of one of our own games as a line of the demonstration schema.
pub fn step_line(trial: &str, layout: &Layout, state: &State, actions: [Action; 2], reward: u32, score: u32) -> String {
    let players: Vec<Value> = state
        .players
        .iter()
        .map(|p| {
            json!({
                "pos": [p.pos.x, p.pos.y],
                "dir": p.dir.name().to_ascii_uppercase(),
                "held": p.held.as_ref().map_or(Value::Null, object_value),
            })
        })
        .collect();
    let objects: Vec<Value> = state
        .objects_sorted(layout)
        .map(|(p, o)| {
            let mut v = object_value(o);
            v["pos"] = json!([p.x, p.y]);
            v
        })
        .collect();
    json!({
        "trial": trial,
        "layout": layout.name,
        "t": state.timestep,
        "players": players,
        "objects": objects,
        "actions": [action_name(actions[0]), action_name(actions[1])],
        "reward": reward,
        "score": score,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = r#"{"trial":"hh2019_w10_cramped_room","layout":"cramped_room","t":413,"players":[{"pos":[3,2],"dir":"SOUTH","held":{"name":"soup","onions":3,"cook_time":24}},{"pos":[2,1],"dir":"NORTH","held":{"name":"onion"}}],"objects":[{"pos":[1,0],"name":"onion"},{"pos":[2,0],"name":"soup","onions":1,"cook_time":0}],"actions":["INTERACT","INTERACT"],"reward":5,"score":25}"#;

    #[test]
    fn reads_the_documented_example_line() {
        let l = Layout::builtin("cramped_room").unwrap();
        let steps = parse(LINE, &l).unwrap();
        let s = &steps[0];
        assert_eq!((s.t, s.actions), (413, [Action::Interact, Action::Interact]));
        let held = s.state.players[0].held.unwrap();
        let soup = held.soup().unwrap();
        assert!(soup.is_ready() && soup.cooking_tick == 20, "cook time clamped to 20");
        assert_eq!(s.state.players[1].held, Some(Object::ONION));
        let pot = s.state.soup_at(&l, Pos::new(2, 0)).unwrap();
        assert!(pot.is_idle() && pot.len() == 1);
        assert_eq!(s.state.object_at(&l, Pos::new(1, 0)), Some(&Object::ONION));
        // Round trip through our writer.
        let line = step_line("x", &l, &s.state, s.actions, 5, 25);
        let again = parse(&line, &l).unwrap();
        assert_eq!(again[0].state, s.state);
    }

    #[test]
    fn malformed_lines_name_the_line() {
        let l = Layout::builtin("cramped_room").unwrap();
        let bad_dir = LINE.replace("\"SOUTH\"", "\"UPWARDS\"");
        let e = parse(&format!("{LINE}\n\n{bad_dir}\n"), &l).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("UPWARDS"), "{e}");
        let e = parse("{not json", &l).unwrap_err();
        assert_eq!(e.line, 1);
        let wall = LINE.replace("[3,2]", "[0,0]");
        assert!(parse(&wall, &l).unwrap_err().message.contains("not a floor cell"));
        let outside = LINE.replace("[1,0]", "[9,9]");
        assert!(parse(&outside, &l).unwrap_err().message.contains("outside"));
        let act = LINE.replace("[\"INTERACT\",\"INTERACT\"]", "[\"JUMP\",\"STAY\"]");
        assert!(parse(&act, &l).unwrap_err().message.contains("JUMP"));
        let other = LINE.replace("\"layout\":\"cramped_room\"", "\"layout\":\"random0\"");
        assert!(parse(&format!("{LINE}\n{other}"), &l).unwrap_err().message.contains("differs"));
        assert!(parse("\n\n", &l).is_err());
    }
}
