//! Counts printed with the noun in the form the count needs (`1 step`, `2 steps`) by
//! `verify-trace`, `analyze`, `bench` and `qa`: each command is run where one of its
//! counts is 1, and the line is read as printed.

use crate::support::bin;
use std::process::Output;

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A one-step game of `layout` saved as a trajectory file.
fn one_step_trajectory(dir: &std::path::Path, layout: &str) -> String {
    let path = dir.join(format!("{}.jsonl", layout.replace(':', "_")));
    let out = bin()
        .args(["play", "--layout", layout, "--partner", "stay", "--horizon", "1", "--no-transcript", "--trajectory"])
        .arg(&path)
        .output()
        .unwrap();
    stdout(&out);
    path.display().to_string()
}

#[test]
fn verify_trace_says_1_step() {
    let dir = tempfile::tempdir().unwrap();
    let classic = one_step_trajectory(dir.path(), "cramped_room");
    let said = stdout(&bin().args(["verify-trace", &classic]).output().unwrap());
    assert!(said.contains("(1 step, reward 0)"), "{said}");
}

#[test]
fn analyze_says_1_step_and_1_trajectory() {
    let dir = tempfile::tempdir().unwrap();
    let classic = one_step_trajectory(dir.path(), "cramped_room");
    let said = stdout(&bin().args(["analyze", &classic]).output().unwrap());
    assert!(said.contains(": 1 step, 0 soups, constructive 0"), "{said}");
    let said = stdout(&bin().args(["analyze", "--summary", &classic]).output().unwrap());
    assert!(said.contains("cramped_room: 1 trajectory (1 without a soup), 0 soups"), "{said}");
    let v2 = one_step_trajectory(dir.path(), "v2:cramped_room_v2");
    let said = stdout(&bin().args(["analyze", &v2]).output().unwrap());
    assert!(said.contains(": 1 step, 0 correct / 0 wrong dishes"), "{said}");
    let said = stdout(&bin().args(["analyze", "--summary", &v2]).output().unwrap());
    assert!(said.contains(": 1 episode (1 without a correct dish)"), "{said}");
}

#[test]
fn bench_says_1_step_1_turn_and_1_episode() {
    let said = stdout(&bin().args(["bench", "env", "--steps", "1"]).output().unwrap());
    assert!(said.starts_with("cramped_room: 1 step in "), "{said}");
    let said = stdout(&bin().args(["bench", "env", "--game", "capture", "--steps", "10"]).output().unwrap());
    assert!(said.contains("(1 episode, 1 won;"), "{said}");
    let said = stdout(&bin().args(["bench", "env", "--game", "capture", "--steps", "1"]).output().unwrap());
    assert!(said.contains(": 1 turn in "), "{said}");
}

#[test]
fn qa_says_1_question_1_trial_1_request() {
    let out = bin()
        .args(["qa", "--model", "oracle", "--filter", "row=0,cat=ec", "--trials", "1", "--dry-run", "--no-progress"])
        .output()
        .unwrap();
    let said = stdout(&out);
    assert!(said.contains("dry run: 1 question x 1 trial = 1 request to oracle"), "{said}");
    let out = bin()
        .args([
            "qa",
            "--model",
            "oracle",
            "--filter",
            "row=0,cat=ec",
            "--trials",
            "1",
            "--no-progress",
            "--no-transcript",
        ])
        .output()
        .unwrap();
    let said = stdout(&out);
    assert!(said.starts_with("CoordinationQA: model oracle, 1 question x 1 trial, scoring default"), "{said}");
    let said = stdout(&bin().args(["qa", "baseline", "--filter", "row=0,cat=ec", "--samples", "1"]).output().unwrap());
    assert!(
        said.contains("Random baselines on 1 question (exact expectation; sampled mean ± s.e. over 1 trial,"),
        "{said}"
    );
}
