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
        "--model",
        out.to_str().unwrap(),
        "--data",
        test_file.to_str().unwrap(),
        "--json",
    ]));
    assert_eq!(e["accuracy"], summary["held_out"]["accuracy"]);
    let e2 = stdout_json(&run(&[
        "bc",
        "eval",
        "--model",
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
        "--model",
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
    let o = run(&["bc", "eval", "--model", "bc", "--data", bad.to_str().unwrap()]);
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
    let o = run(&["bc", "selfplay", "--layout", "cramped_room", "--model", &spec, "--episodes", "1"]);
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
