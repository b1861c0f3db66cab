//! Conversions between the library's values and Python ones: states as dicts in
//! overcooked_ai's `OvercookedState.to_dict()` shape (and back, through the library's
//! own validated reader), actions from ints, letters, names or overcooked_ai tuples,
//! and JSON values to Python objects.

use proagent_overcooked::env::trace::{player_from_json, state_from_json};
use proagent_overcooked::env::{Action, Layout, Object, Pos, Soup, State, Tile};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use pyo3::{IntoPyObjectExt, intern};
use serde_json::{Map, Value, json};

fn pos_tuple<'py>(py: Python<'py>, p: Pos) -> PyResult<Bound<'py, PyTuple>> {
    PyTuple::new(py, [p.x as i64, p.y as i64])
}

fn object_dict<'py>(py: Python<'py>, o: &Object, pos: Pos) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(intern!(py, "name"), o.name())?;
    d.set_item(intern!(py, "position"), pos_tuple(py, pos)?)?;
    if let Object::Soup(s) = o {
        soup_fields(py, &d, s, pos)?;
    }
    Ok(d)
}

/// The soup keys of overcooked_ai's `SoupState.to_dict()`; each ingredient is an object
/// lying on the soup's cell, and `cook_time` is -1 while the soup is idle.
fn soup_fields(py: Python<'_>, d: &Bound<'_, PyDict>, s: &Soup, pos: Pos) -> PyResult<()> {
    let ings = PyList::empty(py);
    for i in s.ingredients() {
        let ing = PyDict::new(py);
        ing.set_item(intern!(py, "name"), i.name())?;
        ing.set_item(intern!(py, "position"), pos_tuple(py, pos)?)?;
        ings.append(ing)?;
    }
    d.set_item(intern!(py, "_ingredients"), ings)?;
    d.set_item(intern!(py, "cooking_tick"), s.cooking_tick)?;
    d.set_item(intern!(py, "is_cooking"), s.is_cooking())?;
    d.set_item(intern!(py, "is_ready"), s.is_ready())?;
    d.set_item(intern!(py, "is_idle"), s.is_idle())?;
    d.set_item(intern!(py, "cook_time"), if s.is_idle() { -1 } else { s.cook_time as i64 })?;
    d.set_item(intern!(py, "_cooking_tick"), s.cooking_tick)?;
    Ok(())
}

/// The orders of a layout as overcooked_ai's `Recipe.to_dict()` list (empty: every recipe
/// pays); a recipe's ingredients are a sorted tuple there, and so here.
fn orders_list<'py>(py: Python<'py>, layout: &Layout) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for r in &layout.rules.orders {
        let mut names = vec!["onion"; r.onions as usize];
        names.extend(std::iter::repeat_n("tomato", r.tomatoes as usize));
        let d = PyDict::new(py);
        d.set_item(intern!(py, "ingredients"), PyTuple::new(py, names)?)?;
        out.append(d)?;
    }
    Ok(out)
}

/// `state` as the dict `OvercookedState.to_dict()` gives for the same state: players
/// (`position`, `orientation` as (dx, dy), `held_object`), `objects` sorted by (y, x),
/// `bonus_orders`, `all_orders` and `timestep`. Positions are (x, y) tuples.
pub fn state_to_dict<'py>(py: Python<'py>, layout: &Layout, state: &State) -> PyResult<Bound<'py, PyDict>> {
    let players = PyList::empty(py);
    for p in &state.players {
        let d = PyDict::new(py);
        d.set_item(intern!(py, "position"), pos_tuple(py, p.pos)?)?;
        let (dx, dy) = p.dir.delta();
        d.set_item(intern!(py, "orientation"), PyTuple::new(py, [dx as i64, dy as i64])?)?;
        match &p.held {
            Some(o) => d.set_item(intern!(py, "held_object"), object_dict(py, o, p.pos)?)?,
            None => d.set_item(intern!(py, "held_object"), py.None())?,
        }
        players.append(d)?;
    }
    let objects = PyList::empty(py);
    for (pos, o) in state.objects_sorted(layout) {
        objects.append(object_dict(py, o, pos)?)?;
    }
    let d = PyDict::new(py);
    d.set_item(intern!(py, "players"), players)?;
    d.set_item(intern!(py, "objects"), objects)?;
    d.set_item(intern!(py, "bonus_orders"), PyList::empty(py))?;
    d.set_item(intern!(py, "all_orders"), orders_list(py, layout)?)?;
    d.set_item(intern!(py, "timestep"), state.timestep)?;
    Ok(d)
}

/// A Python value (dicts, lists, tuples, numbers, strings, None) as JSON.
pub fn to_json(v: &Bound<'_, PyAny>) -> PyResult<Value> {
    if v.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        if let Ok(i) = v.extract::<i64>() {
            return Ok(json!(i));
        }
        return Ok(json!(v.extract::<u64>()?));
    }
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(json!(f.value()));
    }
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_string()));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut m = Map::new();
        for (k, val) in d.iter() {
            let key = match k.cast::<PyString>() {
                Ok(s) => s.to_str()?.to_string(),
                Err(_) => k.str()?.to_str()?.to_string(),
            };
            m.insert(key, to_json(&val)?);
        }
        return Ok(Value::Object(m));
    }
    if let Ok(l) = v.cast::<PyList>() {
        return l.iter().map(|x| to_json(&x)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        return t.iter().map(|x| to_json(&x)).collect::<PyResult<Vec<_>>>().map(Value::Array);
    }
    // numpy scalars and other number-likes.
    if let Ok(i) = v.extract::<i64>() {
        return Ok(json!(i));
    }
    if let Ok(f) = v.extract::<f64>() {
        return Ok(json!(f));
    }
    Err(PyTypeError::new_err(format!("cannot read a {} as JSON", v.get_type().name()?)))
}

/// A JSON value as a Python object (dicts, lists, ints, floats, strings, None).
pub fn from_json<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_bound_py_any(py)?,
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_bound_py_any(py)?,
            (None, Some(u)) => u.into_bound_py_any(py)?,
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py)?,
        },
        Value::String(s) => s.into_bound_py_any(py)?,
        Value::Array(a) => {
            let l = PyList::empty(py);
            for x in a {
                l.append(from_json(py, x)?)?;
            }
            l.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, from_json(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// One object of an overcooked_ai dict, rewritten into the trace schema the library reads.
fn object_to_trace(o: &Value, with_pos: bool, path: &str) -> PyResult<Value> {
    let name = o.get("name").and_then(Value::as_str).ok_or_else(|| bad(path, "an object needs a `name`"))?;
    let mut out = json!({ "name": name });
    if with_pos {
        let p = o.get("position").or_else(|| o.get("pos")).ok_or_else(|| bad(path, "an object needs a `position`"))?;
        out["pos"] = p.clone();
    }
    if name == "soup" {
        if o.get("state").is_some() {
            return Err(bad(path, "the legacy soup `state` triple is not supported; use `_ingredients`"));
        }
        let ings = o.get("_ingredients").or_else(|| o.get("ingredients")).and_then(Value::as_array);
        let ings = ings.ok_or_else(|| bad(path, "a soup needs `_ingredients`"))?;
        let names: Vec<Value> = ings
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(json!(s)),
                other => other.get("name").cloned().ok_or_else(|| bad(path, "each ingredient needs a `name`")),
            })
            .collect::<PyResult<_>>()?;
        out["ingredients"] = Value::Array(names);
        let tick = o.get("cooking_tick").or_else(|| o.get("_cooking_tick")).cloned().unwrap_or(json!(-1));
        out["cooking_tick"] = tick;
    }
    Ok(out)
}

fn bad(path: &str, msg: &str) -> PyErr {
    PyValueError::new_err(format!("{path}: {msg}"))
}

/// Reads a state dict: overcooked_ai's `to_dict()` shape (as [`state_to_dict`] writes it)
/// or the reference-trace schema (`pos`, `or`, `held`). Every field is checked by the
/// library's reader; errors name the field.
pub fn state_from_dict(layout: &Layout, v: &Bound<'_, PyAny>) -> PyResult<State> {
    let j = to_json(v)?;
    let players = j.get("players").and_then(Value::as_array).ok_or_else(|| bad("state", "needs a `players` list"))?;
    let mut tp = Vec::with_capacity(players.len());
    for (i, p) in players.iter().enumerate() {
        let path = format!("state.players[{i}]");
        let pos = p.get("position").or_else(|| p.get("pos")).ok_or_else(|| bad(&path, "needs a `position`"))?;
        let or = p.get("orientation").or_else(|| p.get("or")).ok_or_else(|| bad(&path, "needs an `orientation`"))?;
        let held = match p.get("held_object").or_else(|| p.get("held")) {
            None | Some(Value::Null) => Value::Null,
            Some(h) => object_to_trace(h, false, &format!("{path}.held_object"))?,
        };
        let tj = json!({ "pos": pos, "or": or, "held": held });
        player_from_json(layout, &tj).map_err(|e| bad(&path, &e.to_string()))?;
        tp.push(tj);
    }
    let mut objs = Vec::new();
    if let Some(list) = j.get("objects") {
        // overcooked_ai's in-memory `objects` is a dict keyed by position; `to_dict` makes it a list.
        let items: Vec<&Value> = match list {
            Value::Array(a) => a.iter().collect(),
            Value::Object(m) => m.values().collect(),
            _ => return Err(bad("state.objects", "must be a list of objects")),
        };
        for (i, o) in items.into_iter().enumerate() {
            objs.push(object_to_trace(o, true, &format!("state.objects[{i}]"))?);
        }
    }
    let ts = j.get("timestep").cloned().unwrap_or(json!(0));
    if ts.as_u64().is_none_or(|t| t > u64::from(u32::MAX)) {
        return Err(bad("state.timestep", &format!("must be a non-negative integer, got {ts}")));
    }
    let t = json!({ "players": tp, "objects": objs, "timestep": ts });
    let state = state_from_json(layout, &t).map_err(|e| PyValueError::new_err(format!("state: {e}")))?;
    if state.players[0].pos == state.players[1].pos {
        return Err(bad("state.players", &format!("both players stand on {}", state.players[0].pos)));
    }
    // Soups the old dynamics can produce: cooking only once full, never past their cook
    // time, and outside a pot only when ready (plated).
    let soup_ok = |soup: &proagent_overcooked::env::Soup, in_pot: bool| -> Result<(), String> {
        if !soup.is_idle() && soup.len() < layout.rules.num_items {
            return Err(format!("a soup of {} ingredient(s) cannot be cooking", soup.len()));
        }
        if soup.cooking_tick > soup.cook_time as i16 {
            return Err(format!("cooking_tick {} is past the cook time {}", soup.cooking_tick, soup.cook_time));
        }
        if !in_pot && !soup.is_ready() {
            return Err("a soup outside a pot must be ready (plated)".into());
        }
        Ok(())
    };
    for (i, p) in state.players.iter().enumerate() {
        if let Some(Object::Soup(soup)) = &p.held {
            soup_ok(soup, false).map_err(|m| bad(&format!("state.players[{i}].held_object"), &m))?;
        }
    }
    for (i, o) in state.objects.iter().enumerate() {
        if let Some(Object::Soup(soup)) = o {
            let p = layout.pos_of(i);
            soup_ok(soup, layout.tile(p) == Tile::Pot).map_err(|m| bad(&format!("state.objects at {p}"), &m))?;
        }
    }
    // The trace reader places objects on any cell; the game only ever has them on
    // counters, and soups in pots.
    for (i, o) in state.objects.iter().enumerate() {
        let Some(o) = o else { continue };
        let p = layout.pos_of(i);
        match (layout.tile(p), o) {
            (Tile::Counter, _) | (Tile::Pot, Object::Soup(_)) => {}
            (t, o) => {
                return Err(bad(
                    "state.objects",
                    &format!("a {} at {p} lies on a {t:?} cell: objects lie on counters, soups in pots", o.name()),
                ));
            }
        }
    }
    Ok(state)
}

/// Reads one action: an index 0..6 (N, S, E, W, stay, interact), a letter or name
/// ("N", "north", "interact", …), or overcooked_ai's (dx, dy) tuple / "interact".
pub fn action_from_py(v: &Bound<'_, PyAny>) -> PyResult<Action> {
    if v.is_instance_of::<PyBool>() || v.is_instance_of::<PyFloat>() {
        return Err(PyTypeError::new_err(format!("an action is an int 0..6 or a name, not {}", v.repr()?)));
    }
    if let Ok(i) = v.extract::<i64>() {
        return usize::try_from(i)
            .ok()
            .and_then(Action::from_index)
            .ok_or_else(|| PyValueError::new_err(format!("action index {i} is not in 0..6")));
    }
    if let Ok(s) = v.cast::<PyString>() {
        let s = s.to_str()?;
        return Action::parse(s).ok_or_else(|| PyValueError::new_err(format!("unknown action {s:?}")));
    }
    if let Ok((dx, dy)) = v.extract::<(i64, i64)>() {
        return match (dx, dy) {
            (0, 0) => Ok(Action::Stay),
            _ => proagent_overcooked::env::Dir::from_delta(dx, dy)
                .map(Action::from_dir)
                .ok_or_else(|| PyValueError::new_err(format!("({dx}, {dy}) is not a direction"))),
        };
    }
    Err(PyTypeError::new_err(format!(
        "an action is an int 0..6, a name like \"north\"/\"interact\", or a (dx, dy) tuple; got a {}",
        v.get_type().name()?
    )))
}

/// Reads a joint action: a pair of actions.
pub fn joint_from_py(v: &Bound<'_, PyAny>) -> PyResult<[Action; 2]> {
    let n = v.len().map_err(|_| PyTypeError::new_err("a joint action is a pair (player 0's, player 1's)"))?;
    if n != 2 {
        return Err(PyValueError::new_err(format!("a joint action has 2 entries, got {n}")));
    }
    Ok([action_from_py(&v.get_item(0)?)?, action_from_py(&v.get_item(1)?)?])
}

/// Any serialisable library value (events, reports, records) as Python objects, through its serde form.
pub fn json_to_py<T: serde::Serialize>(py: Python<'_>, v: &T) -> PyResult<Py<PyAny>> {
    let j = serde_json::to_value(v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(from_json(py, &j)?.unbind())
}
