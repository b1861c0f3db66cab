//! CollabCapture / CollabEscape from the command line: `verify-trace` on the reference
//! rollouts recorded from the LLM-Coordination code, and `bench env --game capture|escape`.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    crate::support::bin()
}

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/collab_traces");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

fn count_lines(kind: &str) -> usize {
    let needle = format!("\"kind\": \"{kind}\"");
    fixtures().iter().map(|p| std::fs::read_to_string(p).unwrap().lines().filter(|l| l.contains(&needle)).count()).sum()
}

#[test]
fn every_collab_reference_rollout_passes() {
    let files = fixtures();
    assert_eq!(files.len(), 6);
    let (rollouts, turns) = (count_lines("header"), count_lines("step"));
    let out = bin().arg("verify-trace").args(&files).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("{rollouts} passed, 0 failed ({turns} collab turns matched)")), "{stdout}");
    assert_eq!(stdout.lines().filter(|l| l.starts_with("PASS ")).count(), rollouts);
    assert!(stdout.contains("escape:1 scripted seed 4") && stdout.contains("killer picks replayed"), "{stdout}");
}

#[test]
fn a_tampered_rollout_fails_and_names_the_turn() {
    let text = std::fs::read_to_string(&fixtures()[1]).unwrap();
    // The thief of the first recorded turn moved elsewhere.
    let bad = text.replacen("\"thief\": 3,", "\"thief\": 7,", 1);
    assert_ne!(bad, text);
    let path = crate::support::scratch().join("tampered_capture.jsonl");
    std::fs::write(&path, bad).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL") && stdout.contains("field=state.thief expected=7 got=3"), "{stdout}");
    // A broken line is an error naming the file and line.
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&path, format!("{}\n{{not json\n", lines[0])).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("tampered_capture.jsonl:2: not a trace record"), "{stderr}");
}

#[test]
fn bench_env_runs_both_games() {
    for (game, layout) in [("capture", "capture:3"), ("escape", "escape:2")] {
        let out = bin()
            .args(["bench", "env", "--game", game, "--layout", layout, "--steps", "20000", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (v["game"].as_str(), v["layout"].as_str(), v["steps"].as_u64()),
            (Some(game), Some(layout), Some(20000))
        );
        assert!(v["proagent"]["turns_per_sec"].as_f64().unwrap() > 0.0);
        assert!(v["proagent"]["episodes"].as_u64().unwrap() > 0);
    }
    let out =
        bin().args(["bench", "env", "--game", "escape", "--layout", "capture:1", "--steps", "10"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("maze for CollabCapture, not CollabEscape"));
    let maze = crate::support::scratch().join("bad.maze");
    std::fs::write(&maze, "game: capture\nrooms: 3\nroom 1: 2\nroom 2: 1 4\n").unwrap();
    let out =
        bin().args(["bench", "env", "--game", "capture", "--steps", "10", "--layout"]).arg(&maze).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("bad.maze:4: exits of room 2: \"4\" is not a room"), "{stderr}");
    let out =
        bin().args(["bench", "env", "--game", "capture", "--steps", "10", "--reference", "python3"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--reference-src"));
}
