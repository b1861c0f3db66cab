//! End-to-end checks of `proagent play` and the controller/partner benchmarks.

use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_proagent"))
}

fn run_ok(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn play_json_summary_is_deterministic_per_seed() {
    let args =
        ["play", "--layout", "cramped_room", "--agent", "scripted", "--partner", "greedy", "--seed", "3", "--json"];
    let a = run_ok(&args);
    assert_eq!(a, run_ok(&args), "same command and seed, same output");
    let v: serde_json::Value = serde_json::from_str(a.trim()).unwrap();
    for key in ["layout", "agent", "partner", "seat", "seed", "score", "deliveries", "steps", "stuck_steps"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["layout"], "cramped_room");
    assert_eq!(v["agent"], "scripted");
    assert_eq!(v["partner"], "greedy");
    assert_eq!(v["seed"], 3);
    assert_eq!(v["steps"], 400);
    assert!(v["score"].as_u64().unwrap() >= 100, "{v}");
    assert_eq!(v["score"].as_u64().unwrap(), 20 * v["deliveries"].as_u64().unwrap());
    assert_eq!(v["deadlock"], false);
}

#[test]
fn episodes_seats_and_trajectory_file() {
    let dir = tempfile::tempdir().unwrap();
    let traj = dir.path().join("t.jsonl");
    let out = run_ok(&[
        "play",
        "--layout",
        "forced_coordination",
        "--agent",
        "scripted",
        "--partner",
        "scripted",
        "--seat",
        "1",
        "--seed",
        "5",
        "--episodes",
        "2",
        "--horizon",
        "150",
        "--json",
        "--trajectory",
        traj.to_str().unwrap(),
    ]);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["seed"], 5);
    assert_eq!(lines[1]["seed"], 6);
    assert_eq!(lines[0]["seat"], 1);
    assert_eq!(lines[0]["steps"], 150);
    // The recorded trajectories replay exactly on the simulator.
    let verify = run_ok(&["verify-trace", traj.to_str().unwrap()]);
    assert!(verify.contains("2 passed, 0 failed"), "{verify}");
    let first: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&traj).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["agents"], serde_json::json!(["scripted", "scripted"]));
    assert!(first["skill_events"].as_array().is_some_and(|e| !e.is_empty()));
    assert_eq!(first["total_reward"], lines[0]["score"]);
}

#[test]
fn render_prints_a_board_per_step() {
    let out = run_ok(&[
        "play",
        "--layout",
        "cramped_room",
        "--agent",
        "random",
        "--partner",
        "stay",
        "--horizon",
        "3",
        "--render",
    ]);
    assert_eq!(out.matches("t=0 actions=").count(), 1);
    assert_eq!(out.matches("t=2 actions=").count(), 1);
    assert!(out.contains("score"), "{out}");
}

#[test]
fn unknown_partner_is_a_clear_error() {
    let out = bin().args(["play", "--partner", "nobody"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown partner \"nobody\"") && err.contains("greedy"), "{err}");
}

#[test]
fn bench_controller_reports_the_fields() {
    let out = run_ok(&["bench", "controller", "--episodes", "1", "--repeats", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["precompute_ms"].as_object().unwrap().len(), 5);
    assert!(v["precompute_ms_total"].as_f64().unwrap() > 0.0);
    assert!(v["decision_us"].as_f64().unwrap() > 0.0);
    assert!(v["decisions"].as_u64().unwrap() >= 800);
}
