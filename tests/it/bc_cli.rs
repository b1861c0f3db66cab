//! End-to-end checks of `proagent bc …` on demonstrations the test makes itself
//! (a scripted cook with 10% random actions), never on the human data.

use proagent::env::motion::{MotionTable, first_step};
use proagent::env::{Action, Layout, ObjKind, Pos, State};
use proagent::partners::bc::data::step_line;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    crate::support::bin()
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn stdout_json(o: &Output) -> Value {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Where the scripted cook wants to interact next.
fn targets(l: &Layout, s: &State, seat: usize) -> Vec<Pos> {
    let busy = |p: &Pos| s.soup_at(l, *p).is_some_and(|x| !x.is_idle());
    match s.players[seat].held.map(|o| o.kind()) {
        None if l.pots.iter().any(busy) => l.dish_sources.clone(),
        None => l.onion_sources.clone(),
        Some(ObjKind::Onion) => l.pots.iter().filter(|p| !busy(p)).copied().collect(),
        Some(ObjKind::Dish) => l.pots.iter().filter(|p| busy(p)).copied().collect(),
        Some(ObjKind::Soup) => l.serving.clone(),
        Some(ObjKind::Tomato) => vec![],
    }
}

fn scripted(l: &Layout, m: &MotionTable, s: &State, seat: usize, rng: &mut ChaCha8Rng) -> Action {
    if rng.random_bool(0.1) {
        return Action::ALL[rng.random_range(0..6)];
    }
    let me = s.players[seat];
    let best = targets(l, s, seat)
        .iter()
        .filter_map(|&t| m.cost_to_interact(l, (me.pos, me.dir), t))
        .min_by_key(|&(c, spot)| (c, spot));
    best.and_then(|(_, spot)| first_step(m, l, (me.pos, me.dir), spot)).unwrap_or(Action::Stay)
}

/// Writes `trials` games of `steps` steps on cramped_room as gzipped JSON Lines.
fn write_demos(path: &Path, trials: u32, steps: u32, seed: u64) {
    let l = Layout::builtin("cramped_room").unwrap();
    let m = MotionTable::new(&l);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut text = String::new();
    for trial in 0..trials {
        let mut s = l.start_state();
        let mut score = 0;
        for _ in 0..steps {
            let joint = [scripted(&l, &m, &s, 0, &mut rng), scripted(&l, &m, &s, 1, &mut rng)];
            let before = s.clone();
            let reward = l.step(&mut s, joint).reward;
            score += reward;
            text += &step_line(&format!("demo{trial}"), &l, &before, joint, reward, score);
            text.push('\n');
        }
    }
    let mut gz = flate2::write::GzEncoder::new(std::fs::File::create(path).unwrap(), flate2::Compression::default());
    gz.write_all(text.as_bytes()).unwrap();
    gz.finish().unwrap();
}

/// The share of the most frequent action among all samples of a demonstration file.
fn majority_share(path: &Path) -> f64 {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()).read_to_string(&mut text).unwrap();
    let mut counts = std::collections::HashMap::new();
    let mut n = 0;
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        for a in v["actions"].as_array().unwrap() {
            *counts.entry(a.as_str().unwrap().to_string()).or_insert(0) += 1;
            n += 1;
        }
    }
    *counts.values().max().unwrap() as f64 / n as f64
}

#[test]
fn train_eval_and_determinism_on_made_up_demonstrations() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    write_demos(&data.join("cramped_room_train.jsonl.gz"), 2, 400, 1);
    write_demos(&data.join("cramped_room_test.jsonl.gz"), 1, 400, 2);
    let out = dir.path().join("m.safetensors");
    let d = data.to_str().unwrap();
    let args = ["bc", "train", "--layout", "simple", "--split", "train", "--data", d, "--epochs", "25", "--seed", "3"];
    let o = run(&[&args[..], &["--out", out.to_str().unwrap(), "--json"]].concat());
    let summary = stdout_json(&o);
    let val = summary["validation"]["accuracy"].as_f64().unwrap();
    let held = summary["held_out"]["accuracy"].as_f64().unwrap();
    assert_eq!(summary["samples"], 1600);
    assert_eq!(summary["layout"], "cramped_room");
    // The cook's own choice is made 90% of the time; STAY alone is far rarer than that.
    let majority = majority_share(&data.join("cramped_room_test.jsonl.gz"));
    assert!(val > 0.7 && held > 0.7 && held > majority + 0.2, "validation {val}, held-out {held}, majority {majority}");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("epoch  25:") && stderr.contains("val accuracy"), "{stderr}");

    // The metadata file records the data hash and the command.
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("m.json")).unwrap()).unwrap();
    let bytes = std::fs::read(data.join("cramped_room_train.jsonl.gz")).unwrap();
    use sha2::Digest;
    assert_eq!(meta["data_sha256"], hex::encode(sha2::Sha256::digest(&bytes)));
    assert!(meta["command"].as_str().unwrap().contains("--seed 3"));
    assert_eq!(meta["history"].as_array().unwrap().len(), 25);

    // Same command and seed: the same weights, byte for byte.
    let out2 = dir.path().join("m2.safetensors");
    let o = run(&[&args[..], &["--out", out2.to_str().unwrap()]].concat());
    assert!(o.status.success());
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&out2).unwrap());
    // The same --out again is refused (nothing trained) unless --force is given.
    let o = run(&[&args[..], &["--out", out2.to_str().unwrap()]].concat());
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("pass --force"));
    let o = run(&[&args[..], &["--out", out2.to_str().unwrap(), "--force"]].concat());
    assert!(o.status.success());

    // `bc eval` on the other split agrees with the held-out figure.
    let test_file = data.join("cramped_room_test.jsonl.gz");
    let e = stdout_json(&run(&[
        "bc",
        "eval",
        "--policy",
        out.to_str().unwrap(),
        "--data",
        test_file.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(e["accuracy"], summary["held_out"]["accuracy"]);
    let e2 = stdout_json(&run(&[
        "bc",
        "eval",
        "--policy",
        out.to_str().unwrap(),
        "--data",
        d,
        "--layout",
        "cramped_room",
        "--split",
        "test",
        "--json",
    ]));
    assert_eq!(e2["accuracy"], e["accuracy"]);

    // The trained file plays through `bc:PATH`.
    let spec = format!("bc:{}", out.display());
    let sp = stdout_json(&run(&[
        "bc",
        "selfplay",
        "--layout",
        "cramped_room",
        "--policy",
        &spec,
        "--episodes",
        "1",
        "--horizon",
        "50",
        "--json",
    ]));
    assert_eq!(sp["scores"].as_array().unwrap().len(), 1);
}

#[test]
fn bad_data_and_weight_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let good = r#"{"trial":"a","layout":"cramped_room","t":0,"players":[{"pos":[1,2],"dir":"NORTH","held":null},{"pos":[3,1],"dir":"NORTH","held":null}],"objects":[],"actions":["STAY","STAY"],"reward":0,"score":0}"#;
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, format!("{good}\n{}\n", good.replace("STAY\",\"STAY", "STAY\",\"DANCE"))).unwrap();
    let o = run(&["bc", "eval", "--policy", "bc", "--data", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.contains("bad.jsonl: line 2") && err.contains("DANCE"), "{err}");

    let gz = dir.path().join("cramped_room_train.jsonl.gz");
    std::fs::write(&gz, b"not gzip at all").unwrap();
    let o = run(&[
        "bc",
        "train",
        "--layout",
        "cramped_room",
        "--split",
        "train",
        "--data",
        dir.path().to_str().unwrap(),
        "--out",
        dir.path().join("m.safetensors").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("cramped_room_train.jsonl.gz") && err.contains("gzip"), "{err}");

    let o = run(&[
        "bc",
        "train",
        "--layout",
        "cramped_room",
        "--split",
        "test",
        "--data",
        dir.path().to_str().unwrap(),
        "--out",
        "x.safetensors",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("no human data") && err.contains("BC human proxies"), "{err}");

    let weights = dir.path().join("w.safetensors");
    std::fs::write(&weights, b"\x10\x00\x00\x00\x00\x00\x00\x00{\"a\":").unwrap();
    let spec = format!("bc:{}", weights.display());
    let o = run(&["bc", "selfplay", "--layout", "cramped_room", "--policy", &spec, "--episodes", "1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("w.safetensors") && err.contains("safetensors"), "{err}");
}

#[test]
fn shipped_self_play_is_seeded() {
    let args = ["bc", "selfplay", "--layout", "forced_coordination", "--episodes", "2", "--horizon", "100", "--json"];
    let a = run(&[&args[..], &["--seed", "5"]].concat());
    let b = run(&[&args[..], &["--seed", "5"]].concat());
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let v = stdout_json(&a);
    assert_eq!(v["model"], "bc:train");
    assert_eq!(v["scores"].as_array().unwrap().len(), 2);
}

#[test]
fn play_accepts_bc_in_either_seat_and_as_the_agent() {
    let o =
        run(&["play", "--layout", "coordination_ring", "--partner", "bc", "--seat", "1", "--horizon", "60", "--json"]);
    let v = stdout_json(&o);
    assert_eq!(v["partner_metrics"]["model"], "shipped:coordination_ring_test");
    assert_eq!(v["partner_metrics"]["decisions"], 60);
    let o = run(&[
        "play",
        "--layout",
        "counter_circuit",
        "--agent",
        "bc:train",
        "--partner",
        "bc",
        "--horizon",
        "60",
        "--json",
    ]);
    let v = stdout_json(&o);
    assert_eq!(v["partner_metrics"]["model"], "shipped:counter_circuit_test");
    let o = run(&["play", "--layout", "cramped_room", "--partner", "bc:missing.safetensors"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("missing.safetensors"), "{err}");
}

/// A JSON value written as Python's `repr` writes the same dict or list (single quotes,
/// `True`/`False`/`None`): the form of the 1.1.0 pickles' state and action cells.
fn py_repr(v: &Value) -> String {
    match v {
        Value::Null => "None".into(),
        Value::Bool(b) => if *b { "True" } else { "False" }.into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{s}'"),
        Value::Array(a) => format!("[{}]", a.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(o) => {
            // The key order of the recorded dicts.
            const ORDER: [&str; 8] =
                ["players", "objects", "order_list", "pot_explosion", "name", "position", "orientation", "held_object"];
            let rank = |k: &str| ORDER.iter().position(|x| *x == k).unwrap_or(ORDER.len());
            let mut keys: Vec<&String> = o.keys().collect();
            keys.sort_by_key(|k| rank(k));
            format!("{{{}}}", keys.iter().map(|k| format!("'{k}': {}", py_repr(&o[*k]))).collect::<Vec<_>>().join(", "))
        }
    }
}

fn delta(a: Action) -> Value {
    match a {
        Action::Interact => Value::Null,
        Action::Stay => serde_json::json!([0, 0]),
        Action::North => serde_json::json!([0, -1]),
        Action::South => serde_json::json!([0, 1]),
        Action::East => serde_json::json!([1, 0]),
        Action::West => serde_json::json!([-1, 0]),
    }
}

/// One object (held or on the grid) in the 1.1.0 schema (`later` false) or in
/// overcooked_ai's later schema.
fn export_object(o: &proagent::env::Object, pos: Pos, later: bool) -> Value {
    use serde_json::json;
    let mut v = json!({"name": o.name(), "position": [pos.x, pos.y]});
    if let Some(s) = o.soup() {
        if later {
            v["_ingredients"] = json!(vec![json!({"name": "onion", "position": [pos.x, pos.y]}); s.len()]);
            v["cooking_tick"] = json!(s.cooking_tick);
            v["cook_time"] = json!(20);
            v["is_idle"] = json!(s.cooking_tick < 0);
            v["is_cooking"] = json!(s.cooking_tick >= 0 && !s.is_ready());
            v["is_ready"] = json!(s.is_ready());
        } else {
            v["state"] = json!(["onion", s.len(), s.cooking_tick.max(0)]);
        }
    }
    v
}

/// The state cell of a DataFrame row, in the 1.1.0 form (a Python literal, objects keyed by
/// "x,y") or the later form (JSON, objects a list).
fn export_state(l: &Layout, s: &State, later: bool) -> String {
    use serde_json::json;
    let players: Vec<Value> = s
        .players
        .iter()
        .map(|p| {
            let (dx, dy) = p.dir.delta();
            let mut v = json!({"position": [p.pos.x, p.pos.y], "orientation": [dx, dy]});
            if let Some(h) = &p.held {
                v["held_object"] = export_object(h, p.pos, later);
            } else if later {
                v["held_object"] = Value::Null;
            }
            v
        })
        .collect();
    if later {
        let objects: Vec<Value> = s.objects_sorted(l).map(|(p, o)| export_object(o, p, true)).collect();
        json!({"players": players, "objects": objects, "bonus_orders": [], "all_orders": [{"ingredients": ["onion", "onion", "onion"]}], "timestep": s.timestep}).to_string()
    } else {
        let mut objects = serde_json::Map::new();
        for (p, o) in s.objects_sorted(l) {
            objects.insert(format!("{},{}", p.x, p.y), export_object(o, p, false));
        }
        py_repr(&json!({"players": players, "objects": objects, "order_list": ["onion"], "pot_explosion": false}))
    }
}

fn export_joint(joint: [Action; 2], later: bool) -> String {
    let parts: Vec<String> = joint
        .iter()
        .map(|&a| match (delta(a), later) {
            (Value::Null, false) => "'INTERACT'".to_string(),
            (Value::Null, true) => "\"interact\"".to_string(),
            (d, _) => d.to_string().replace(',', ", "),
        })
        .collect();
    format!("[{}]", parts.join(", "))
}

/// A synthetic game in the real human-data format: `steps` steps of the scripted cook on
/// cramped_room, as DataFrame rows of the 1.1.0 pickles (old dynamics) and of overcooked_ai's
/// later re-encoding (with the later dynamics' extra INTERACT before each cooking start),
/// and the lines the exporter must write for it.
fn synthetic_human_game(steps: u32) -> (Vec<Value>, Vec<Value>, Vec<String>, Vec<usize>) {
    use serde_json::json;
    let l = Layout::builtin("cramped_room").unwrap();
    let m = MotionTable::new(&l);
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let mut s = l.start_state();
    let (mut old, mut later, mut expected) = (vec![], vec![], vec![]);
    let (mut score, mut inserted) = (0, vec![]);
    // The recorded layout marks the start cells with 1 and 2 (the cells the bug refused).
    let mut grid: Vec<Vec<char>> = ["XXPXX", "O   O", "X   X", "XDXSX"].iter().map(|r| r.chars().collect()).collect();
    for (k, p) in s.players.iter().enumerate() {
        grid[p.pos.y as usize][p.pos.x as usize] = char::from(b'1' + k as u8);
    }
    let grid: Vec<String> = grid.into_iter().map(|r| r.into_iter().collect()).collect();
    for t in 0..steps {
        let joint = [scripted(&l, &m, &s, 0, &mut rng), scripted(&l, &m, &s, 1, &mut rng)];
        let before = s.clone();
        let reward = l.step(&mut s, joint).reward / 4;
        score += reward;
        expected.push(step_line("hh2019_w7_cramped_room", &l, &before, joint, reward, score));
        old.push(json!({
            "Unnamed: 0": 6011 + t, "Unnamed: 0.1": 20964 + t, "cur_gameloop": t as f64,
            "datetime": 1557859032612.0 + 150.0 * t as f64, "is_leader": true,
            "joint_action": export_joint(joint, false), "layout": py_repr(&json!(grid)),
            "layout_name": "cramped_room", "next_state": export_state(&l, &s, false), "reward": reward as f64,
            "round_num": 0.0, "round_type": "main", "score": score as f64,
            "state": export_state(&l, &before, false), "time_elapsed": 0.15 * t as f64,
            "time_left": 180.0, "is_wait": false, "completed": true, "run": "run-1", "workerid_num": 7,
            "reward_norm": 4.0 * reward as f64, "cur_gameloop_total": steps, "reward_norm_total": 0.0,
        }));
        // Later dynamics: a full pot that just started cooking needed an INTERACT first.
        let started = before.objects_sorted(&l).find(|(_, o)| o.soup().is_some_and(|x| x.cooking_tick == 1));
        if let Some((pot, _)) = started {
            let mut idle = before.clone();
            let idx = l.index(pot).unwrap();
            let ings = idle.objects[idx].unwrap().soup().unwrap().ingredients().to_vec();
            idle.objects[idx] =
                Some(proagent::env::Object::Soup(proagent::env::Soup::with_ingredients(&ings, -1, 20).unwrap()));
            let faces = |k: usize| {
                let p = before.players[k];
                let (dx, dy) = p.dir.delta();
                (p.pos.x as i16 + dx as i16, p.pos.y as i16 + dy as i16) == (pot.x as i16, pot.y as i16)
            };
            let act = |k| if faces(k) { Action::Interact } else { Action::Stay };
            inserted.push(later.len());
            later.push(later_row(&l, &idle, &before, [act(0), act(1)], 0, score - reward, &grid));
        }
        later.push(later_row(&l, &before, &s, joint, reward, score, &grid));
    }
    assert!(score >= 10, "the synthetic game delivers soups (score {score})");
    assert!(inserted.len() >= 2, "the synthetic game starts pots ({inserted:?})");
    (old, later, expected, inserted)
}

fn later_row(
    l: &Layout,
    s: &State,
    next: &State,
    joint: [Action; 2],
    reward: u32,
    score: u32,
    grid: &[String],
) -> Value {
    serde_json::json!({
        "state": export_state(l, s, true), "joint_action": export_joint(joint, true), "reward": reward as f64,
        "time_left": 180.0, "score": score as f64, "time_elapsed": 0.0, "cur_gameloop": s.timestep as f64,
        "layout": py_repr(&serde_json::json!(grid)), "layout_name": "cramped_room", "trial_id": 3,
        "player_0_id": "6", "player_1_id": "7", "player_0_is_human": true, "player_1_is_human": true,
        "next_state": export_state(l, next, true),
    })
}

fn export(dir: &Path, name: &str, rows: &[Value]) -> Output {
    let records = dir.join(format!("{name}.json"));
    std::fs::write(&records, serde_json::to_vec(rows).unwrap()).unwrap();
    crate::support::script("export_human_data.py")
        .arg("--records")
        .arg(format!("test={}", records.display()))
        .arg("--out")
        .arg(dir.join(name))
        .output()
        .expect("python3 runs scripts/export_human_data.py")
}

fn gunzip_lines(path: &Path) -> Vec<String> {
    use std::io::Read;
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap()).read_to_string(&mut text).unwrap();
    text.lines().map(str::to_string).collect()
}

/// The human data is not in the repository (its terms forbid redistribution), so this is a
/// synthetic game written in the real files' formats, with the features the 1.1.0 data has
/// (start digits in the layout, Python-literal cells, objects keyed by "x,y", a cook counter
/// running past 20 is tested in partners::bc::data) and those of the later re-encoding.
#[test]
fn export_human_data_reads_both_schemas_of_the_real_files() {
    let dir = tempfile::tempdir().unwrap();
    let (old, later, expected, inserted) = synthetic_human_game(150);

    // 1.1.0 pickles: the lines our own writer gives for the same game, and `bc` reads them.
    let o = export(dir.path(), "old", &old);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let file = dir.path().join("old/cramped_room_test.jsonl.gz");
    let got = gunzip_lines(&file);
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        let (g, e): (Value, Value) = (serde_json::from_str(g).unwrap(), serde_json::from_str(e).unwrap());
        assert_eq!(g, e);
    }
    let layouts: Value = serde_json::from_slice(&std::fs::read(dir.path().join("old/layouts.json")).unwrap()).unwrap();
    assert_eq!(layouts["cramped_room"]["grid"], serde_json::json!(["XXPXX", "O  2O", "X1  X", "XDXSX"]));
    let e = stdout_json(&run(&["bc", "eval", "--policy", "bc:test", "--data", file.to_str().unwrap(), "--json"]));
    assert_eq!(e["samples"], 300, "{e}");

    // The later re-encoding: the same lines once its cooking-start steps are dropped.
    let o = export(dir.path(), "later", &later);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dropped = inserted.len();
    assert!(String::from_utf8_lossy(&o.stdout).contains(&format!("dropped {dropped} cooking-start steps")));
    let got_later = gunzip_lines(&dir.path().join("later/cramped_room_test.jsonl.gz"));
    assert_eq!(got_later, got.iter().map(|l| l.replace("hh2019_w7_", "hh2019_t3_")).collect::<Vec<_>>());
    let trials: Value = serde_json::from_slice(&std::fs::read(dir.path().join("later/trials.json")).unwrap()).unwrap();
    assert_eq!(trials[0]["cooking_start_steps_dropped"], dropped);
    assert_eq!(trials[0]["steps"], 150);

    // A full pot that waits to be started is a game under the later dynamics: refused.
    let at = inserted[0];
    let mut waiting = later.clone();
    let r = waiting[at].clone();
    waiting.insert(at, r);
    for (t, row) in waiting.iter_mut().enumerate() {
        row["cur_gameloop"] = serde_json::json!(t as f64);
    }
    let o = export(dir.path(), "waiting", &waiting);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("has not started cooking") && err.contains("hh2019_t3"), "{err}");

    // A player on a counter is named with the trial and the step.
    let mut wall = old.clone();
    wall[5]["state"] = serde_json::json!(wall[5]["state"].as_str().unwrap().replacen(
        "'position': [",
        "'position': [0, 0], 'x': [",
        1
    ));
    let o = export(dir.path(), "wall", &wall);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("hh2019_w7_cramped_room cur_gameloop=5.0: player 0 stands on 'X'"),
        "{err}"
    );
}

#[test]
fn model_is_a_deprecated_name_of_policy() {
    let new = crate::support::bin()
        .args([
            "bc",
            "selfplay",
            "--layout",
            "cramped_room",
            "--policy",
            "bc:test",
            "--episodes",
            "1",
            "--horizon",
            "30",
            "--json",
        ])
        .output()
        .unwrap();
    let old = crate::support::bin()
        .args([
            "bc",
            "selfplay",
            "--layout",
            "cramped_room",
            "--model",
            "bc:test",
            "--episodes",
            "1",
            "--horizon",
            "30",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(new.status.success() && old.status.success(), "{}", String::from_utf8_lossy(&old.stderr));
    assert_eq!(new.stdout, old.stdout);
    assert!(String::from_utf8_lossy(&old.stderr).contains("--model is deprecated here"));
    assert!(!String::from_utf8_lossy(&new.stderr).contains("deprecated"));
    let both = crate::support::bin()
        .args(["rl", "eval", "--layout", "cramped_room", "--policy", "sp", "--model", "sp", "--episodes", "1"])
        .output()
        .unwrap();
    assert!(!both.status.success() && String::from_utf8_lossy(&both.stderr).contains("give --policy only"));
}

#[test]
fn scores_read_mean_plus_minus_standard_error_everywhere() {
    let o = crate::support::bin()
        .args(["bc", "selfplay", "--layout", "cramped_room", "--episodes", "2", "--horizon", "30"])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && s.contains(" ± ") && s.contains("(mean ± standard error) over 2 episodes"), "{s}");
    let o = crate::support::bin()
        .args(["rl", "eval", "--layout", "cramped_room", "--policy", "sp", "--episodes", "2", "--horizon", "30"])
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && s.contains("(mean ± standard error) over 2 episodes"), "{s}");
}
