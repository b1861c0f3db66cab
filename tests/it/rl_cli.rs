//! End-to-end checks of `proagent rl …` with tiny trainings (seconds in a debug build),
//! of `rl:PATH` seats in `play` and `eval`, and of the table1 protocol's flag handling.

use crate::support::ok;
use proagent::rl::model::load_file;
use serde_json::Value;
use std::process::Output;

fn run(args: &[&str]) -> Output {
    crate::support::bin().args(args).output().unwrap()
}

const TINY: [&str; 14] = [
    "--steps",
    "800",
    "--envs",
    "4",
    "--horizon",
    "100",
    "--hidden",
    "16",
    "--eval-episodes",
    "2",
    "--quiet",
    "--json",
    "--seed",
    "3",
];

fn train(algo: &str, out: &str, extra: &[&str]) -> Value {
    let mut args = vec!["rl", "train", "--algo", algo, "--layout", "cramped_room", "--out", out];
    args.extend_from_slice(&TINY);
    args.extend_from_slice(extra);
    serde_json::from_str(&ok(&run(&args))).unwrap()
}

#[test]
fn train_writes_weights_and_metadata_deterministically_and_the_model_plays_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.safetensors");
    let b = dir.path().join("b.safetensors");
    let (a_s, b_s) = (a.to_str().unwrap(), b.to_str().unwrap());
    let summary = train("sp", a_s, &[]);
    train("sp", b_s, &["--threads", "2"]);
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap(), "same command, same bytes");
    let meta: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("a.json")).unwrap()).unwrap();
    let cmd = meta["command"].as_str().unwrap();
    assert!(cmd.starts_with("proagent rl train --algo sp --layout cramped_room --seed 3 --steps 800"), "{cmd}");
    assert_eq!(meta["config"]["envs"], 4);
    assert_eq!(meta["env_steps"], 800);
    assert_eq!(meta["history"]["score"].as_array().unwrap().len(), 2);
    assert_eq!(meta["evaluations"][0]["partner"], "self");
    assert_eq!(meta["evaluations"][0]["scores"].as_array().unwrap().len(), 2);
    assert!(meta["rollout_steps_per_s"].as_f64().unwrap() > 0.0);
    assert_eq!(summary["self_play"]["episodes"], 2);
    let m = load_file(&a).unwrap();
    assert_eq!(m.net.sizes, vec![62, 16, 7]);
    assert_eq!(m.checkpoints.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>(), ["early", "middle"]);

    // The file is a seat in play (either seat) and in rl eval.
    let spec = format!("rl:{a_s}");
    let out = ok(&run(&["play", "--agent", &spec, "--partner", "greedy", "--seat", "1", "--horizon", "50", "--json"]));
    let v: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!((v["agent"].as_str(), v["seat"].as_u64()), (Some(spec.as_str()), Some(1)), "{v}");
    assert_eq!(v["decisions"], 50, "{v}");
    let out = ok(&run(&[
        "rl",
        "eval",
        "--policy",
        a_s,
        "--partner",
        "stay",
        "--layout",
        "cramped_room",
        "--episodes",
        "2",
        "--horizon",
        "30",
        "--json",
    ]));
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 2, "both seats");

    // FCP reuses SP files as its pool: their early, middle and final weights.
    let f = dir.path().join("f.safetensors");
    let fcp = train("fcp", f.to_str().unwrap(), &["--pool", &format!("{a_s},{b_s}")]);
    let partners: Vec<&str> =
        fcp["evaluations"].as_array().unwrap().iter().filter_map(|e| e["partner"].as_str()).collect();
    assert!(partners.contains(&"a.middle") && partners.contains(&"b.final"), "{partners:?}");
}

#[test]
fn bad_flags_and_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.safetensors");
    let o =
        run(&["rl", "train", "--algo", "sp", "--layout", "cramped_room", "--out", out.to_str().unwrap(), "--lr", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--lr"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&["rl", "train", "--algo", "sp", "--layout", "cramped_room", "--out", "x.json"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("must not end in .json"));
    let o = run(&["rl", "train", "--algo", "sp", "--layout", "cramped_room", "--out", "x.st", "--pool", "a"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--pool is only used by --algo fcp"));
    std::fs::write(&out, b"not weights").unwrap();
    let spec = format!("rl:{}", out.display());
    let o = run(&["play", "--agent", &spec, "--partner", "greedy", "--horizon", "5"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("m.safetensors") && err.contains("not a safetensors file"), "{err}");
    // A layout no model is shipped for.
    let grid = dir.path().join("tiny.layout");
    std::fs::write(&grid, "XXPXX\nO1 2O\nXDXSX\n").unwrap();
    let o =
        run(&["play", "--layout", grid.to_str().unwrap(), "--agent", "mep", "--partner", "greedy", "--horizon", "5"]);
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no shipped mep model"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `--init` starts FCP's learner from a model file's weights and is recorded in the
/// command, so the same command writes the same bytes; `--fcp-ratio` likewise. Weights of
/// another size, another layout or an algorithm without a learner are refused.
#[test]
fn fcp_learner_can_start_from_a_model_file_and_mix_in_self_play() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let (sp, a, b, c) = (p("sp.safetensors"), p("a.safetensors"), p("b.safetensors"), p("c.safetensors"));
    train("sp", &sp, &[]);
    let extra = ["--pool", sp.as_str(), "--init", sp.as_str(), "--fcp-ratio", "1:3"];
    let summary = train("fcp", &a, &extra);
    let cmd = summary["command"].as_str().unwrap();
    assert!(cmd.contains(&format!("--pool {sp} --fcp-ratio 1:3 --init {sp} ")), "{cmd}");
    assert_eq!(summary["init"], sp.as_str());
    assert_eq!(summary["config"]["fcp_ratio"], serde_json::json!([1, 3]));
    // The recorded command, run again, writes the same weights.
    let again: Vec<String> = cmd.split(' ').skip(1).map(|w| if w == a { b.clone() } else { w.to_string() }).collect();
    let again: Vec<&str> = again.iter().map(String::as_str).chain(["--quiet", "--json"]).collect();
    ok(&run(&again));
    assert_eq!(std::fs::read(&a).unwrap(), std::fs::read(&b).unwrap());
    // Without --init the learner starts elsewhere.
    train("fcp", &c, &["--pool", sp.as_str(), "--fcp-ratio", "1:3"]);
    assert_ne!(std::fs::read(&a).unwrap(), std::fs::read(&c).unwrap());
    let x = p("x.safetensors");
    let refused = |args: &[&str], want: &str| {
        let mut all = vec!["rl", "train", "--layout", "cramped_room", "--out", x.as_str()];
        all.extend_from_slice(&TINY);
        all.extend_from_slice(args);
        let o = run(&all);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!o.status.success() && err.contains(want), "{args:?}: {err}");
    };
    refused(&["--algo", "sp", "--init", &sp], "--init is for the learner");
    refused(
        &["--algo", "fcp", "--pool", &sp, "--init", &sp, "--hidden", "8"],
        "layers [62, 16, 7], this run's are [62, 16, 8, 7]",
    );
    refused(&["--algo", "fcp", "--pool", &sp, "--fcp-ratio", "1:0"], "--fcp-ratio takes A:B");
    refused(&["--algo", "cole", "--fcp-ratio", "1:3"], "--fcp-ratio is only used by --algo fcp");
    let other = p("ring.safetensors");
    let mut args = vec!["rl", "train", "--algo", "sp", "--layout", "coordination_ring", "--out", other.as_str()];
    args.extend_from_slice(&TINY);
    ok(&run(&args));
    refused(&["--algo", "fcp", "--pool", &sp, "--init", &other], "--init");
}

#[test]
fn table1_protocol_fixes_seats_and_episodes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let o = run(&["eval", "--protocol", "table1", "--agents", "greedy", "--seats", "0", "--out", d]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--seats"));
    // `--episodes N`: a pilot of N episodes per pairing and seat, labelled as one.
    let pilot = tempfile::tempdir().unwrap();
    let o = run(&[
        "eval",
        "--protocol",
        "table1",
        "--agents",
        "greedy",
        "--partners",
        "stay,random",
        "--layouts",
        "cramped_room",
        "--horizon",
        "20",
        "--episodes",
        "2",
        "--quiet",
        "--out",
        pilot.path().to_str().unwrap(),
    ]);
    let text = ok(&o);
    assert!(String::from_utf8_lossy(&o.stderr).contains("pilot: the table1 protocol with 2 episodes"), "{o:?}");
    assert!(
        text.contains("**Pilot:** 2 episodes per pairing and seat") && text.contains("(n=4, 2 partners)"),
        "{text}"
    );
    let written = std::fs::read_to_string(pilot.path().join("table1-paper.md")).unwrap();
    assert!(written.contains("**Pilot:**"), "{written}");
    // With explicit partners (no shipped models needed), the paper-shaped table is written.
    let o = run(&[
        "eval",
        "--protocol",
        "table1",
        "--agents",
        "greedy",
        "--partners",
        "stay,random",
        "--layouts",
        "cramped_room",
        "--horizon",
        "20",
        "--quiet",
        "--out",
        d,
    ]);
    let text = ok(&o);
    assert!(text.contains("## Agent as player 1"), "{text}");
    assert!(
        text.contains("| published: ProAgent, GPT-3.5, mean over SP/PBT/FCP/MEP/COLE (paper's partners) | 197.3 |")
    );
    assert!(text.contains("(n=20, 2 partners)") && !text.contains("Pilot"), "{text}");
    assert!(dir.path().join("table1-paper.md").is_file());
}

#[test]
fn an_existing_model_is_never_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.safetensors");
    std::fs::write(dir.path().join("m.json"), "{}").unwrap();
    let mut args = vec!["rl", "train", "--algo", "sp", "--layout", "cramped_room", "--out", out.to_str().unwrap()];
    args.extend_from_slice(&TINY);
    let o = run(&args);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("m.json already exists") && err.contains("--force"), "{err}");
    assert!(!out.exists(), "nothing trained, nothing written");
    args.push("--force");
    ok(&run(&args));
    assert!(out.exists());
}

#[test]
fn v2_layouts_train_and_play_and_models_play_only_their_own_game() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("v2.safetensors");
    let m_s = m.to_str().unwrap();
    // A tiny SP run on an OvercookedV2 layout with partial view.
    let mut args = vec!["rl", "train", "--algo", "sp", "--layout", "v2:cramped_room_v2", "--view-radius", "2"];
    args.extend_from_slice(&["--out", m_s]);
    args.extend_from_slice(&TINY);
    let summary: Value = serde_json::from_str(&ok(&run(&args))).unwrap();
    assert_eq!(summary["game"], "overcooked_v2");
    assert_eq!(summary["settings"]["view_radius"], 2);
    let cmd = summary["command"].as_str().unwrap();
    assert!(cmd.contains("--layout v2:cramped_room_v2") && cmd.contains("--view-radius 2"), "{cmd}");
    let model = load_file(&m).unwrap();
    assert_eq!(model.encoder, "v2-view/1");
    // It plays its own game anywhere a seat is taken.
    let spec = format!("rl:{m_s}");
    let play = |extra: &[&str]| {
        let mut a = vec!["play", "--layout", "v2:cramped_room_v2", "--agent", &spec, "--partner", "scripted"];
        a.extend_from_slice(&["--horizon", "20", "--json"]);
        a.extend_from_slice(extra);
        run(&a)
    };
    let v: Value = serde_json::from_str(ok(&play(&["--view-radius", "2"])).lines().next().unwrap()).unwrap();
    assert_eq!(v["decisions"], 20, "{v}");
    // Another view radius than the one it was trained with: refused, naming the switch and the override.
    let o = play(&[]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("view_radius") && err.contains("--allow-model-mismatch"), "{err}");
    ok(&play(&["--allow-model-mismatch"]));
    // A V2 policy on a classic layout, even with the override: the encodings differ.
    let o = run(&["play", "--layout", "cramped_room", "--agent", &spec, "--horizon", "5", "--allow-model-mismatch"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot play cramped_room"), "{o:?}");
    // rl eval takes V2 layouts too.
    let o = ok(&run(&[
        "rl",
        "eval",
        "--model",
        m_s,
        "--layout",
        "v2:cramped_room_v2",
        "--view-radius",
        "2",
        "--episodes",
        "2",
        "--horizon",
        "20",
        "--json",
    ]));
    let v: Value = serde_json::from_str(&o).unwrap();
    assert_eq!(v["layout"], "v2:cramped_room_v2");

    // A classic cramped_room policy does not silently play counter_circuit.
    let c = dir.path().join("c.safetensors");
    train("sp", c.to_str().unwrap(), &[]);
    let cspec = format!("rl:{}", c.display());
    let o = run(&["play", "--layout", "counter_circuit", "--agent", &cspec, "--partner", "greedy", "--horizon", "5"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("trained on layout \"cramped_room\"") && err.contains("counter_circuit"), "{err}");
    ok(&run(&[
        "play",
        "--layout",
        "counter_circuit",
        "--agent",
        &cspec,
        "--partner",
        "greedy",
        "--horizon",
        "5",
        "--allow-model-mismatch",
        "--json",
    ]));
    // A file whose first layer is not 62 wide is refused, not run.
    let wide = dir.path().join("wide.safetensors");
    let mut m = load_file(&c).unwrap();
    m.net = proagent::rl::net::Net::new(100, &[16], 1);
    m.checkpoints.clear();
    std::fs::write(&wide, m.to_safetensors()).unwrap();
    let o = run(&["play", "--agent", &format!("rl:{}", wide.display()), "--partner", "greedy", "--horizon", "5"]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("takes 100 inputs"), "{o:?}");
}

#[test]
fn training_flags_that_would_exhaust_memory_are_refused_before_training() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.safetensors");
    let o = run(&[
        "rl",
        "train",
        "--algo",
        "sp",
        "--layout",
        "cramped_room",
        "--out",
        out.to_str().unwrap(),
        "--envs",
        "10000",
        "--horizon",
        "100000",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("training budget") && err.contains("docs/limits.md"), "{err}");
    let hidden = vec!["64"; 200].join(",");
    let o = run(&[
        "rl",
        "train",
        "--algo",
        "sp",
        "--layout",
        "cramped_room",
        "--out",
        out.to_str().unwrap(),
        "--hidden",
        &hidden,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("layers"), "{o:?}");
    assert!(!out.exists());
}

/// `scripts/rl_pick_seed.py` (how the shipped SP and PBT runs are chosen, docs/rl.md): of
/// two runs that cook together and one that has barely trained, it picks one of the two,
/// also when the weak run is listed first (ties go to the first listed); bad input is a
/// clear error with a non-zero exit.
#[test]
fn pick_seed_script_picks_a_run_that_partners_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let weak = dir.path().join("weak.safetensors");
    train("sp", weak.to_str().unwrap(), &[]);
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let (sp, pbt) =
        (root.join("data/rl/cramped_room_sp.safetensors"), root.join("data/rl/cramped_room_pbt.safetensors"));
    let pick = |models: &[&std::path::Path]| {
        let mut c = crate::support::script("rl_pick_seed.py");
        c.args(["--bin", env!("CARGO_BIN_EXE_proagent"), "--episodes", "2", "--out"])
            .arg(dir.path().join("pick"))
            .arg("cramped_room");
        c.args(models).output().expect("python3 runs scripts/rl_pick_seed.py")
    };
    let o = pick(&[&weak, &sp, &pbt]);
    let chosen = ok(&o);
    assert!(chosen.trim() == sp.to_str().unwrap() || chosen.trim() == pbt.to_str().unwrap(), "{chosen}");
    let table = String::from_utf8_lossy(&o.stderr);
    assert_eq!(table.lines().filter(|l| l.contains(".safetensors")).count(), 3, "{table}");
    assert_eq!(table.matches("<- picked").count(), 1, "{table}");

    let missing = dir.path().join("missing.safetensors");
    let o = pick(&[&sp, &missing]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("missing.safetensors: no such file"));
    let o = pick(&[&sp, &sp]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("listed twice"));
}

/// `scripts/rl_roles.py` (who does what, docs/results.md "Held-out partners"): on played
/// episodes its per-seat deliveries add up to the team's, every delivered soup had three
/// onions potted, and a truncated line is refused naming the file and line.
#[test]
fn roles_script_counts_the_sub_tasks_of_played_episodes() {
    let dir = tempfile::tempdir().unwrap();
    let traj = dir.path().join("t.jsonl");
    let o = run(&[
        "play",
        "--layout",
        "cramped_room",
        "--agent",
        "greedy",
        "--partner",
        "greedy",
        "--episodes",
        "3",
        "--horizon",
        "150",
        "--json",
        "--trajectory",
        traj.to_str().unwrap(),
    ]);
    let out = ok(&o);
    let episodes: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(episodes.len(), 3);
    let deliveries: f64 = episodes.iter().map(|e| e["deliveries"].as_f64().unwrap()).sum::<f64>() / 3.0;
    assert!(deliveries >= 1.0, "greedy pair delivered nothing: {out}");
    let roles = |file: &std::path::Path| {
        crate::support::script("rl_roles.py")
            .args(["--bin", env!("CARGO_BIN_EXE_proagent"), "--json"])
            .arg(file)
            .output()
            .expect("python3 runs scripts/rl_roles.py")
    };
    let rows: Vec<Value> = serde_json::from_str(&ok(&roles(&traj))).unwrap();
    assert_eq!(rows.len(), 2, "{rows:?}");
    let sum = |k: &str| rows.iter().map(|r| r[k].as_f64().unwrap()).sum::<f64>();
    assert!((sum("deliver soup") - deliveries).abs() < 0.02, "{rows:?} against {deliveries}");
    assert!(sum("put-in-pot onion") >= 3.0 * deliveries - 0.02, "{rows:?}");
    assert!(sum("pick-from-dispenser onion") >= sum("put-in-pot onion") - 0.02, "{rows:?}");
    assert_eq!(rows[0]["team"], "greedy + greedy");

    let text = std::fs::read_to_string(&traj).unwrap();
    let first = text.lines().next().unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, format!("{first}\n{}\n", &first[..first.len() / 2])).unwrap();
    let o = roles(&bad);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.jsonl:2: not JSON"), "{err}");
}

/// `scripts/rl_heldout.py`: the held-out SP seeds are judged as one partner (their mean); a
/// policy under a quarter of the best policy's score with a held-out partner (or under one
/// soup) is weak, listed with that partner, its score and the bar; a policy that clears every
/// bar is not, and a seed it fails alone is listed apart, as information.
#[test]
fn heldout_script_names_each_weak_policy_with_the_partner_it_fails() {
    let dir = tempfile::tempdir().unwrap();
    let layout = dir.path().join("cramped_room");
    std::fs::create_dir_all(&layout).unwrap();
    let mut lines = String::new();
    let s2 = "rl:runs/rl/cramped_room_sp_s2.safetensors";
    let s21 = "rl:runs/rl/cramped_room_sp_s21.safetensors";
    // SP seeds' mean: sp 100, pbt 55, fcp 15 (under 25 = a quarter of sp's 100). Alone, sp
    // fails seed 2 (20 against a quarter of pbt's 100) and pbt seed 21 (10 against 45).
    for (agent, partner, scores) in [
        ("sp", "bc", [100, 100]),
        ("sp", "greedy", [100, 100]),
        ("sp", s2, [10, 30]),
        ("sp", s21, [180, 180]),
        ("pbt", "bc", [100, 100]),
        ("pbt", "greedy", [100, 100]),
        ("pbt", s2, [100, 100]),
        ("pbt", s21, [5, 15]),
        ("fcp", "bc", [100, 100]),
        ("fcp", "greedy", [100, 100]),
        ("fcp", s2, [10, 10]),
        ("fcp", s21, [20, 20]),
    ] {
        for s in scores {
            lines.push_str(&format!("{{\"agent\":\"{agent}\",\"partner\":\"{partner}\",\"score\":{s}}}\n"));
        }
    }
    std::fs::write(layout.join("results.jsonl"), &lines).unwrap();
    let heldout = |d: &std::path::Path| {
        crate::support::script("rl_heldout.py").arg(d).output().expect("python3 runs scripts/rl_heldout.py")
    };
    let out = ok(&heldout(dir.path()));
    assert!(out.contains("| with the SP seeds (mean) |"), "{out}");
    assert!(out.contains("\nSP seeds: cramped_room 2, 21\n"), "{out}");
    assert!(out.contains("| cramped_room | sp | 100.0 | 100.0 | 100.0 | 100.0 | yes | 20.0 (seed 2) |"), "{out}");
    assert!(out.contains("| cramped_room | pbt | 100.0 | 100.0 | 55.0 | 85.0 | yes | 10.0 (seed 21) |"), "{out}");
    assert!(out.contains("| cramped_room | fcp | 100.0 | 100.0 | 15.0 | 71.7 | **no** | 10.0 (seed 2) |"), "{out}");
    assert!(out.contains("weak: cramped_room fcp\n- cramped_room fcp with sp seeds: 15.0 ± 2.9, bar 25.0\n"), "{out}");
    assert!(out.contains("- cramped_room sp with sp seed 2: 20.0 ± 10.0, bar 25.0\n"), "{out}");
    assert!(out.contains("- cramped_room pbt with sp seed 21: 10.0 ± 5.0, bar 45.0\n"), "{out}");

    // A policy played with fewer seeds than the others would be judged on another mean.
    let partial: String =
        lines.lines().filter(|l| !(l.contains("\"fcp\"") && l.contains("_s21"))).map(|l| format!("{l}\n")).collect();
    std::fs::write(layout.join("results.jsonl"), partial).unwrap();
    let o = heldout(dir.path());
    assert!(!o.status.success());
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("cramped_room fcp: results with SP seeds [2], expected [2, 21]"),
        "{o:?}"
    );

    // A learned partner that is not an SP seed's file, and a cut line: errors naming the line.
    let results = layout.join("results.jsonl");
    let first = lines.lines().next().unwrap();
    for (text, want) in [
        (
            format!("{first}\n{{\"agent\":\"sp\",\"partner\":\"rl:x/pbt.safetensors\",\"score\":1}}\n"),
            "results.jsonl:2: partner \"rl:x/pbt.safetensors\" is not an SP seed's file",
        ),
        (format!("{first}\n{{\"agent\":\"sp\",\n"), "results.jsonl:2: not JSON"),
    ] {
        std::fs::write(&results, text).unwrap();
        let o = heldout(dir.path());
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains(want), "{o:?}");
    }

    // A directory without results is an error, not an empty table that reads "weak: none".
    let empty = tempfile::tempdir().unwrap();
    let o = heldout(empty.path());
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no results under"), "{o:?}");
}
