//! End-to-end checks of the Hanabi commands: verify-trace on the HLE reference games (and
//! on broken ones), bench env --game hanabi, bench hanabi-bots.

use crate::support::bin;
use std::path::PathBuf;

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/hanabi_traces");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_hle_reference_game_replays() {
    let out = bin().arg("verify-trace").args(fixtures()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let passed = stdout.lines().filter(|l| l.starts_with("PASS ")).count();
    assert!(passed >= 30, "{stdout}");
    assert!(stdout.contains(&format!("{passed} passed, 0 failed")), "{stdout}");
    for status in ["out_of_life_tokens", "out_of_cards", "completed_fireworks"] {
        assert!(stdout.contains(status), "no {status} game: {stdout}");
    }
    assert!(stdout.contains("HLE score 25, cards played 25"), "{stdout}");
}

#[test]
fn a_tampered_hanabi_trace_names_the_line_and_field() {
    let text = std::fs::read_to_string(fixtures().iter().find(|p| p.ends_with("cheat_2p.jsonl")).unwrap()).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Change the information tokens of state t=5 (header on line 1, state t on line 2 + 2t).
    let mut v: serde_json::Value = serde_json::from_str(&lines[11]).unwrap();
    assert_eq!(v["t"], 5);
    v["info_tokens"] = serde_json::json!(v["info_tokens"].as_u64().unwrap() ^ 1);
    lines[11] = v.to_string();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL") && stdout.contains("line 12 t=5 field=info_tokens"), "{stdout}");
    // A torn line is an error naming the file and line, not a panic.
    lines[20].truncate(30);
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("bad.jsonl") && stderr.contains("line 21"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn bench_env_runs_hanabi() {
    let out = bin()
        .args(["bench", "env", "--game", "hanabi:3p", "--steps", "20000", "--rl-steps", "2000", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["game"], "hanabi:3p");
    assert_eq!(v["proagent"]["vector_len"], 956);
    assert!(v["proagent"]["moves_per_sec"].as_f64().unwrap() > 0.0);
    assert!(v["proagent"]["rl_steps_per_sec"].as_f64().unwrap() > 0.0);
    let out = bin().args(["bench", "env", "--game", "chess"]).output().unwrap();
    assert!(!out.status.success());
}

#[test]
fn bench_hanabi_bots_reports_both_scores() {
    let out = bin()
        .args(["bench", "hanabi-bots", "--games", "20", "--players", "2", "--bots", "simple,convention", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1]["bots"], "convention+convention");
    assert!(rows[1]["mean_cards_played"].as_f64().unwrap() > rows[0]["mean_cards_played"].as_f64().unwrap());
    // HLE's simple agent loses every life: HLE's score 0, cards still counted.
    assert_eq!(rows[0]["mean_score"], 0.0);
    let out = bin().args(["bench", "hanabi-bots", "--bots", "nobody"]).output().unwrap();
    assert!(!out.status.success());
}
