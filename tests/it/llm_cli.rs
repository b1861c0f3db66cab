//! The model commands end to end: `proagent mock-server`, `proagent chat` over
//! loopback HTTP with transcripts, offline replay of those transcripts, and the
//! API-key canary (the key must reach the server and nothing else).

use crate::support::{run, text};
use proagent_mock::{EchoPlanner, MockConfig, MockFault, MockServer};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

fn bin() -> Command {
    crate::support::bin()
}

fn chat(base_url: &str, prompt: &str, transcript: &Path) -> Command {
    let mut c = bin();
    c.args([
        "chat",
        "--model",
        "local-model",
        "--base-url",
        base_url,
        "--system",
        "You are a chef.",
        "--backoff-ms",
        "5",
    ])
    .arg("--transcript")
    .arg(transcript)
    .arg(prompt);
    c
}

#[test]
fn mock_server_command_prints_its_address_and_serves() {
    let mut child = bin()
        .args(["mock-server", "--addr", "127.0.0.1:0", "--latency-ms", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("{line:?}")).to_string();
    assert!(addr.starts_with("http://127.0.0.1:"), "{addr}");
    let out = bin()
        .args(["chat", "--model", "anything", "--json", "--base-url", &format!("{addr}/v1"), "Plan for Player 0:"])
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The command serves the scripted planner, which always answers with some plan text.
    assert!(!v["text"].as_str().unwrap().trim().is_empty(), "{v}");
    assert_eq!(v["attempts"], 1);
    assert!(v["usage"]["prompt_tokens"].as_u64().unwrap() > 0);
}

#[test]
fn mock_server_rejects_bad_arguments() {
    let out = bin().args(["mock-server", "--fault-rate", "1.5"]).output().unwrap();
    assert!(!out.status.success());
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'--fault-rate <FAULT_RATE>': 1.5 is not in [0, 1]"), "{}", text(&out.stderr));
    let out = bin().args(["mock-server", "--faults", "rate_limited,gremlins"]).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("unknown fault \"gremlins\""), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_key_canary_reaches_the_server_and_nothing_else() {
    let canary = "sk-canary-5b1e0c9d7a4f42e8";
    let cfg = MockConfig {
        api_key: Some(canary.to_string()),
        // A rate limit and a server error first, so error paths get logged too.
        fault_plan: vec![Some(MockFault::RateLimited), Some(MockFault::ServerError)],
        retry_after_secs: 0,
        ..MockConfig::default()
    };
    let s = MockServer::start_local(Arc::new(EchoPlanner), cfg).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("canary.jsonl");
    let mut cmd = chat(&s.base_url(), "Plan for Player 1:", &path);
    cmd.env("OPENAI_API_KEY", canary).env("RUST_LOG", "trace");
    let out = run(cmd).await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "the server only answers with the right key: {stderr}");
    assert!(stderr.contains("status_429") || stderr.contains("429"), "trace logging was on: {stderr}");
    let transcript = std::fs::read_to_string(&path).unwrap();
    assert!(transcript.contains("status_500"), "the faults are in the transcript");
    for (what, s) in [("stdout", &stdout), ("stderr", &stderr), ("transcript", &transcript)] {
        assert!(!s.contains(canary), "the API key leaked into {what}");
        assert!(!s.contains("5b1e0c9d7a4f42e8"), "part of the API key leaked into {what}");
    }

    // A rejected key: the error output must not echo it either.
    let wrong = "sk-canary-0000111122223333";
    let mut cmd = chat(&s.base_url(), "Plan for Player 1:", &dir.path().join("wrong.jsonl"));
    cmd.env("OPENAI_API_KEY", wrong).env("RUST_LOG", "trace");
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(2), "a refused key is a configuration error");
    let stderr = text(&out.stderr);
    assert!(stderr.contains("status_401") && stderr.contains("HTTP 401 Unauthorized"), "{stderr}");
    let transcript = std::fs::read_to_string(dir.path().join("wrong.jsonl")).unwrap();
    for s in [&text(&out.stdout), &stderr, &transcript] {
        assert!(!s.contains(wrong) && !s.contains("0000111122223333"));
    }
    s.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_transcripts_are_deterministic_and_replay_offline() {
    let cfg = MockConfig { fault_plan: vec![Some(MockFault::Truncated)], ..MockConfig::default() };
    let s = MockServer::start_local(Arc::new(EchoPlanner), cfg).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    let prompt = "Plan for Player 0: the pot has 2 onions.";
    for p in [&a, &b] {
        let mut cmd = chat(&s.base_url(), prompt, p);
        cmd.arg("--no-wall-clock");
        let out = run(cmd).await;
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let live = std::fs::read_to_string(&a).unwrap();
    // The first run met the truncated body; the second did not, so compare the
    // deterministic parts of a run that saw no fault with a fresh one.
    assert!(live.contains("bad_body"), "{live}");
    let c = dir.path().join("c.jsonl");
    let mut cmd = chat(&s.base_url(), prompt, &c);
    cmd.arg("--no-wall-clock");
    assert!(run(cmd).await.status.success());
    assert_eq!(std::fs::read(&b).unwrap(), std::fs::read(&c).unwrap(), "same command, same bytes");
    s.shutdown().await;

    // Offline: the server is gone; replay serves the recorded reply, faults included.
    let replay = format!("replay:{}", a.display());
    let mut cmd = bin();
    cmd.args(["chat", "--json", "--model", &replay, "--system", "You are a chef.", prompt]);
    let out = run(cmd).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["attempts"], 2);
    assert_eq!(v["faults"][0]["kind"], "bad_body");
    assert!(v["text"].as_str().unwrap().contains("Plan for Player 0:"));

    // A request that is not in the recording: a loud miss naming the difference.
    let mut cmd = bin();
    cmd.args(["chat", "--model", &replay, "--system", "You are a chef.", "Plan for Player 0: the pot has 3 onions."]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("replay miss"), "{stderr}");
    assert!(stderr.contains("#0 at t=0 (chat)"), "{stderr}");
    assert!(stderr.contains("message 1 (user) differs at character 31"), "{stderr}");

    // A torn transcript is refused with the line number.
    let full = std::fs::read_to_string(&a).unwrap();
    let torn = dir.path().join("torn.jsonl");
    let second_line_end = full.match_indices('\n').nth(1).unwrap().0;
    std::fs::write(&torn, &full[..second_line_end - 10]).unwrap();
    let mut cmd = bin();
    cmd.args(["chat", "--model", &format!("replay:{}", torn.display()), prompt]);
    let out = run(cmd).await;
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("torn.jsonl:2: truncated record"), "{stderr}");
}

#[test]
fn chat_refuses_built_in_models_and_bad_settings() {
    let out = bin().args(["chat", "--model", "scripted", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("built in"), "{}", text(&out.stderr));
    let out = bin().args(["chat", "--model", "m", "--top-p", "0", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("'--top-p <TOP_P>': 0 is not in (0, 1]"), "{}", text(&out.stderr));
    let out = bin().args(["chat", "--model", "m", "--base-url", "ftp://x", "hi"]).output().unwrap();
    assert!(text(&out.stderr).contains("must start with http"), "{}", text(&out.stderr));
}
