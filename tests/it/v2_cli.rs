//! End-to-end checks of the OvercookedV2 commands: verify-trace on the JaxMARL traces,
//! play/replay/eval/analyze with `--layout v2:NAME`, and bench env.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_proagent"))
}

fn v2_traces() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2_traces");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn all_v2_reference_trajectories_pass() {
    let files = v2_traces();
    assert_eq!(files.len(), 23);
    let out = bin().arg("verify-trace").arg("--json").args(&files).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["passed"], 46);
    assert_eq!(v["failed"], 0);
    assert_eq!(v["v2_steps_matched"], 46 * 250);
}

#[test]
fn a_tampered_v2_trace_fails_and_a_broken_one_names_the_line() {
    let text = std::fs::read_to_string(&v2_traces()[0]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut step: serde_json::Value = serde_json::from_str(&lines[11]).unwrap();
    step["state"]["agents"][0][0] = serde_json::json!(step["state"]["agents"][0][0].as_u64().unwrap() + 1);
    lines[11] = step.to_string();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL") && stdout.contains("t=10 field=state"), "{stdout}");
    std::fs::write(&path, format!("{}\n{{\"kind\":\"step\"}}\n", lines[0])).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.jsonl") && stderr.contains("line 2"), "{stderr}");
}
