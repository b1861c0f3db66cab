//! The two presets end to end: `proagent play --preset paper` on every built-in layout,
//! seat and the partners of the paper's set-ups (greedy, random4, stay, bc), with the
//! scripted model and through the HTTP backend against the loopback mock server; the
//! preset in transcript headers; exact replay of a paper-preset transcript.

use crate::support::text;
use proagent::agent::grounding::overcooked::scripted::ScriptedModel;
use proagent::transcript::Transcript;
use proagent_mock::{MockConfig, MockServer};
use std::process::{Command, Output};
use std::sync::Arc;

const LAYOUTS: [&str; 5] =
    ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"];
const PARTNERS: [&str; 4] = ["greedy", "random4", "stay", "bc"];

fn bin() -> Command {
    crate::support::bin()
}

fn summary(out: &Output, what: &str) -> serde_json::Value {
    assert!(out.status.success(), "{what}: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{what}: {e}: {}", text(&out.stdout)))
}

/// `play --preset paper` for every layout, seat and partner; `extra` picks the model.
fn every_cell(extra: &[String]) -> u64 {
    let mut calls = 0;
    for layout in LAYOUTS {
        for seat in ["0", "1"] {
            for partner in PARTNERS {
                let what = format!("{layout} seat {seat} with {partner}");
                let out = bin()
                    .args(["play", "--preset", "paper", "--layout", layout, "--seat", seat, "--partner", partner])
                    .args(["--horizon", "40", "--json", "--no-transcript"])
                    .args(extra)
                    .output()
                    .unwrap();
                let s = summary(&out, &what);
                assert_eq!(s["partner"], partner, "{what}");
                assert_eq!(s["llm_failures"], 0, "{what}: {s}");
                assert_eq!(s["parse_failures"], 0, "{what}: {s}");
                assert!(s["belief_accuracy"].is_null(), "{what}: the paper preset predicts no intention");
                let n = s["llm_calls"].as_u64().unwrap();
                assert!(n > 0, "{what}: {s}");
                calls += n;
            }
        }
    }
    calls
}

#[test]
fn paper_preset_plays_every_layout_seat_and_partner_with_the_scripted_model() {
    assert!(every_cell(&[]) > 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paper_preset_plays_every_layout_seat_and_partner_against_the_mock_server() {
    let s = MockServer::start_local(Arc::new(ScriptedModel::new()), MockConfig::default()).await.unwrap();
    let extra = vec!["--model".to_string(), "mock-model".to_string(), "--base-url".to_string(), s.base_url()];
    let calls = tokio::task::spawn_blocking(move || every_cell(&extra)).await.unwrap();
    let stats = s.stats();
    s.shutdown().await;
    assert_eq!(stats.requests, calls, "every call went over loopback HTTP");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn paper_transcripts_record_the_preset_and_replay_exactly() {
    let s = MockServer::start_local(Arc::new(ScriptedModel::new()), MockConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let base = s.base_url();
    let cases: Vec<(std::path::PathBuf, Vec<String>)> = vec![
        (dir.path().join("scripted.jsonl"), vec!["--layout".into(), "cramped_room".into()]),
        (
            dir.path().join("http.jsonl"),
            ["--layout", "forced_coordination", "--seat", "1", "--model", "mock-model", "--base-url", &base]
                .map(String::from)
                .to_vec(),
        ),
    ];
    for (path, args) in &cases {
        let mut cmd = bin();
        cmd.args(["play", "--preset", "paper", "--horizon", "150", "--seed", "5", "--json", "--transcript"])
            .arg(path)
            .args(args);
        let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
        summary(&out, &path.display().to_string());
    }
    s.shutdown().await;
    for (path, _) in &cases {
        let t = Transcript::read(path).unwrap();
        assert_eq!(t.header.config["proagent"]["preset"], "paper");
        assert_eq!(t.header.config["proagent"]["max_replans"], 4);
        assert_eq!(t.header.config["proagent"]["intention"], false);
        assert!(!t.header.prompt_hashes.is_empty());
        assert!(t.header.prompt_hashes.keys().all(|k| k.starts_with("paper/")), "{:?}", t.header.prompt_hashes);
        assert!(t.exchanges.iter().all(|e| e.kind == "planner" || e.kind == "explainer"));
        // The server is gone: replay is offline and exact.
        let out = bin().arg("replay").arg(path).output().unwrap();
        assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
        assert!(text(&out.stdout).starts_with("identical"), "{}", text(&out.stdout));
    }
    // The preset is read back from the header: switched to default, the re-run asks other questions.
    let (path, _) = &cases[0];
    let switched = dir.path().join("switched.jsonl");
    let original = std::fs::read_to_string(path).unwrap();
    std::fs::write(&switched, original.replacen("\"preset\":\"paper\"", "\"preset\":\"default\"", 2)).unwrap();
    let out = bin().arg("replay").arg(&switched).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("replay miss"), "{}", text(&out.stderr));
}

#[test]
fn flags_start_from_the_preset_and_override_it() {
    let dir = tempfile::tempdir().unwrap();
    let header = |args: &[&str]| {
        let path = dir.path().join("h.jsonl");
        let out = bin()
            .args(["play", "--horizon", "5", "--json", "--force", "--transcript"])
            .arg(&path)
            .args(args)
            .output()
            .unwrap();
        summary(&out, &format!("{args:?}"));
        Transcript::read(&path).unwrap().header.config["proagent"].clone()
    };
    let d = header(&[]);
    assert_eq!(
        (d["preset"].as_str(), d["intention"].as_bool(), d["max_replans"].as_u64()),
        (Some("default"), Some(true), Some(3))
    );
    let p = header(&["--preset", "paper", "--intention", "--memory-k", "3", "--wait-interrupt"]);
    assert_eq!(p["preset"], "paper");
    assert_eq!(
        (p["intention"].as_bool(), p["memory_k"].as_u64(), p["wait_interrupt"].as_bool()),
        (Some(true), Some(3), Some(true))
    );
    assert_eq!((p["belief"].as_str(), p["max_replans"].as_u64()), (Some("off"), Some(4)));
    let out = bin().args(["play", "--preset", "gpt", "--horizon", "5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--preset"), "{}", text(&out.stderr));
    let out = bin().args(["play", "--intention", "--no-intention", "--horizon", "5"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}
