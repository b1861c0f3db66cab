//! End-to-end checks of the foundation commands: verify-trace, show, bench env.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    crate::support::bin()
}

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/traces");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn all_fifteen_reference_trajectories_pass() {
    let files = fixtures();
    assert_eq!(files.len(), 5);
    let out = bin().arg("verify-trace").args(&files).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("15 passed, 0 failed"), "{stdout}");
    assert_eq!(stdout.lines().filter(|l| l.starts_with("PASS ")).count(), 15);
}

#[test]
fn verify_trace_json_report() {
    let out = bin().arg("verify-trace").arg("--json").args(fixtures()).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["passed"], 15);
    assert_eq!(v["failed"], 0);
    assert_eq!(v["trajectories"].as_array().unwrap().len(), 15);
}

#[test]
fn a_tampered_trajectory_fails_with_the_first_divergence() {
    let text = std::fs::read_to_string(&fixtures()[3]).unwrap(); // cramped_room
    let mut traj: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    // Change the recorded position of player 1 after step 57.
    let old = traj["steps"][57]["state"]["players"][1]["pos"][0].as_u64().unwrap();
    traj["steps"][57]["state"]["players"][1]["pos"][0] = serde_json::json!(old + 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, format!("{traj}\n")).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL"), "{stdout}");
    assert!(stdout.contains("t=57 field=state.players[1].pos[0]"), "{stdout}");
    assert!(stdout.contains("0 passed, 1 failed"), "{stdout}");
}

#[test]
fn malformed_trace_files_name_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(&fixtures()[3]).unwrap();
    let first = good.lines().next().unwrap();
    let path = dir.path().join("torn.jsonl");
    // A good line, then a truncated one.
    std::fs::write(&path, format!("{first}\n{}\n", &first[..first.len() / 2])).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("line 2"), "{stderr}");
    assert!(stderr.contains("torn.jsonl"), "{stderr}");
    // An action letter that does not exist.
    let bad =
        first.replacen("\"actions\": [\"", "\"actions\": [\"Q", 1).replacen("\"actions\":[\"", "\"actions\":[\"Q", 1);
    std::fs::write(&path, format!("{bad}\n")).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains(":1:") && stderr.contains("unknown action"), "{stderr}");
    // Missing file.
    let out = bin().arg("verify-trace").arg(dir.path().join("nope.jsonl")).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.jsonl"));
}

#[test]
fn show_builtin_alias_and_bad_layout_file() {
    let out = bin().args(["show", "--layout", "random3"]).output().unwrap();
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.starts_with("counter_circuit (8x5)"), "{s}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.layout");
    std::fs::write(
        &path,
        "{\n  \"grid\": \"\"\"XXPXX\n              O  2O\n              X1 X\n              XDXSX\"\"\"\n}\n",
    )
    .unwrap();
    let out = bin().args(["show", "--layout"]).arg(&path).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(e.contains("bad.layout:4:19") && e.contains("ragged"), "{e}");
    let out = bin().args(["show", "--layout", "no_such_layout"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown layout"));
}

#[test]
fn bench_env_json_reports_a_rate() {
    let out = bin().args(["bench", "env", "--steps", "20000", "--json"]).output().unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["layout"], "cramped_room");
    assert_eq!(v["steps"], 20000);
    assert!(v["steps_per_sec"].as_f64().unwrap() > 0.0);
    assert!(v["seconds"].as_f64().unwrap() > 0.0);
}
