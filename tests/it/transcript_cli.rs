//! Episode transcripts end to end: `proagent play` writes them (scripted model and
//! the HTTP backend against the in-process mock server, with and without faults),
//! `proagent replay` re-runs them offline and reports the first divergence.

use crate::support::{run, text};
use proagent::agent::grounding::overcooked::scripted::ScriptedModel;
use proagent::transcript::{Transcript, without_wall_clock};
use proagent_mock::{MockConfig, MockFault, MockServer};
use std::path::Path;
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

fn bin() -> Command {
    crate::support::bin()
}

fn play(transcript: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args(["play", "--horizon", "40", "--seed", "3", "--json", "--transcript"]).arg(transcript).args(extra);
    c
}

fn replay(file: &Path) -> Output {
    bin().arg("replay").arg(file).output().unwrap()
}

#[test]
fn play_transcripts_are_deterministic_and_replay_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    for p in [&a, &b] {
        let out = play(p, &[]).output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let (ta, tb) = (std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
    assert!(ta.contains("\"wall\""), "wall-clock fields are written by default");
    assert_eq!(without_wall_clock(&ta, "a").unwrap(), without_wall_clock(&tb, "b").unwrap());
    let t = Transcript::read(&a).unwrap();
    assert!(!t.exchanges.is_empty());
    assert_eq!(t.steps.len(), 40);
    assert_eq!(t.header.config["seed"], 3);
    assert!(t.header.prompt_hashes.keys().any(|k| k.starts_with("agent/")), "{:?}", t.header.prompt_hashes);
    let footer = t.require_complete().unwrap();
    assert_eq!(footer.data["llm_calls"].as_u64(), Some(t.exchanges.len() as u64));
    let out = replay(&a);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).starts_with("identical"), "{}", text(&out.stdout));

    // Without wall-clock fields the files themselves are byte-identical.
    let (c, d) = (dir.path().join("c.jsonl"), dir.path().join("d.jsonl"));
    for p in [&c, &d] {
        assert!(play(p, &["--no-wall-clock"]).output().unwrap().status.success());
    }
    assert_eq!(std::fs::read(&c).unwrap(), std::fs::read(&d).unwrap());

    // A partner-only run of a scripted agent writes nothing; --no-transcript skips it.
    let e = dir.path().join("e.jsonl");
    let out = play(&e, &["--agent", "scripted"]).output().unwrap();
    assert!(!out.status.success(), "--transcript without a proagent seat is refused");
    let out = bin().current_dir(dir.path()).args(["play", "--horizon", "5", "--no-transcript"]).output().unwrap();
    assert!(out.status.success());
    assert!(!dir.path().join("transcripts").exists());
    let out = bin().current_dir(dir.path()).args(["play", "--horizon", "5", "--episodes", "2"]).output().unwrap();
    assert!(out.status.success());
    assert_eq!(std::fs::read_dir(dir.path().join("transcripts")).unwrap().count(), 2, "one per episode");
}

#[test]
fn committed_transcripts_replay_exactly() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts/committed");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("jsonl") {
            continue;
        }
        let out = replay(&path);
        assert!(out.status.success(), "{}: {}{}", path.display(), text(&out.stdout), text(&out.stderr));
        n += 1;
    }
    assert_eq!(n, 5, "one committed transcript per built-in layout");
}

#[test]
fn replay_misses_and_broken_files_are_loud() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    assert!(play(&a, &["--no-wall-clock"]).output().unwrap().status.success());
    let original = std::fs::read_to_string(&a).unwrap();

    // A changed switch: the re-run asks for something that was never recorded.
    let switched = dir.path().join("switched.jsonl");
    // (The header holds each seat's settings and repeats the agent's as the shared ones.)
    std::fs::write(&switched, original.replace("\"memory_k\":1", "\"memory_k\":3")).unwrap();
    let out = replay(&switched);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(err.contains("replay miss at t="), "{err}");
    assert!(err.contains("differs at character"), "names the first differing message: {err}");
    // Editing only one of the two copies is refused.
    let half = dir.path().join("half.jsonl");
    std::fs::write(&half, original.replacen("\"memory_k\":1", "\"memory_k\":3", 1)).unwrap();
    let out = replay(&half);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("half.jsonl:1: the header's config.proagent"), "{}", text(&out.stderr));

    // An edited recorded request (the first exchange's prompt) is caught when reading.
    let mut lines: Vec<String> = original.lines().map(str::to_string).collect();
    let i = lines.iter().position(|l| l.contains("\"type\":\"exchange\"")).unwrap();
    lines[i] = lines[i].replacen("<Player 0>", "<Player 9>", 1);
    let edited = dir.path().join("edited.jsonl");
    std::fs::write(&edited, lines.join("\n") + "\n").unwrap();
    let out = replay(&edited);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains(&format!("edited.jsonl:{}", i + 1)) && err.contains("sha256"), "{err}");

    // Cut mid-line: the error names the file and the line.
    let cut_at = original.len() / 2;
    let cut = dir.path().join("cut.jsonl");
    std::fs::write(&cut, &original.as_bytes()[..cut_at]).unwrap();
    let line = original[..cut_at].lines().count();
    let out = replay(&cut);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains(&format!("cut.jsonl:{line}")), "line {line}: {err}");

    // Whole lines only, but no footer: an interrupted run is not replayed as complete.
    let head: String = original.lines().take(5).map(|l| format!("{l}\n")).collect();
    let short = dir.path().join("short.jsonl");
    std::fs::write(&short, head).unwrap();
    let out = replay(&short);
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("no footer after line 5"), "{}", text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_backend_against_the_mock_server_replays_offline() {
    let s = MockServer::start_local(Arc::new(ScriptedModel::new()), MockConfig::default()).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("http.jsonl");
    let out = run(play(&a, &["--model", "mock-model", "--base-url", &s.base_url()])).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let stats = s.stats();
    s.shutdown().await;
    assert_eq!(summary["agent"], "proagent[mock-model]");
    assert_eq!(summary["llm_failures"], 0);
    let t = Transcript::read(&a).unwrap();
    assert_eq!(stats.requests, t.exchanges.len() as u64);
    assert_eq!(t.header.config["model"]["model"], "mock-model");
    // The server is gone: replay is offline.
    let out = replay(&a);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_are_survived_and_every_one_is_in_the_transcript() {
    let cfg = MockConfig {
        fault_rate: 0.3,
        seed: 11,
        // Prose is a well-formed reply (a parse failure, not a transport fault).
        fault_kinds: MockFault::ALL.iter().copied().filter(|f| *f != MockFault::Prose).collect(),
        retry_after_secs: 0,
        hang: Duration::from_millis(400),
        ..MockConfig::default()
    };
    let s = MockServer::start_local(Arc::new(ScriptedModel::new()), cfg).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("faults.jsonl");
    let flags = ["--model", "mock-model", "--base-url", &s.base_url(), "--request-timeout", "0.2", "--backoff-ms", "1"];
    let out = run(play(&a, &flags)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stats = s.stats();
    s.shutdown().await;
    let injected: u64 = stats.faults.values().sum();
    assert!(injected > 0, "{stats:?}");
    let t = Transcript::read(&a).unwrap();
    t.require_complete().unwrap();
    assert_eq!(t.steps.len(), 40, "the episode completed");
    let recorded: usize = t.exchanges.iter().map(|e| e.outcome.faults().len()).sum();
    assert_eq!(recorded as u64, injected, "every injected fault is in the transcript: {stats:?}");
    let out = replay(&a);
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_key_never_leaves_the_request() {
    let canary = "sk-canary-transcript-7c41d09e";
    let cfg = MockConfig { api_key: Some(canary.to_string()), ..MockConfig::default() };
    let s = MockServer::start_local(Arc::new(ScriptedModel::new()), cfg).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("canary.jsonl");
    let mut cmd = play(&a, &["--model", "mock-model", "--base-url", &s.base_url()]);
    cmd.env("OPENAI_API_KEY", canary).env("RUST_LOG", "debug");
    let out = run(cmd).await;
    s.shutdown().await;
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "the server only answers with the right key: {stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["llm_failures"], 0, "the key reached the server");
    assert!(stderr.contains("DEBUG"), "debug logging was on");
    let transcript = std::fs::read_to_string(&a).unwrap();
    for (what, s) in [("stdout", &stdout), ("stderr", &stderr), ("transcript", &transcript)] {
        assert!(!s.contains(canary) && !s.contains("7c41d09e"), "the API key leaked into {what}");
    }
}

#[test]
fn step_records_carry_belief_corrections() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("transcripts/committed/cramped_room.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let mut corrections = 0;
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["type"] == "step" {
            let beliefs = v.to_string();
            assert!(beliefs.contains("\"belief\":["), "{v}");
            corrections += beliefs.matches("\"predicted_at\"").count();
        }
    }
    assert!(corrections > 0, "a 60-step ProAgent episode resolves some predictions");
}

/// Every file under `dir`, with its text.
fn files_under(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            let bytes = std::fs::read(&path).unwrap();
            out.push((path.display().to_string(), String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    out
}

/// A prompts folder whose planner system prompt carries `secret` (the way a key pasted
/// into a template would reach the model).
fn prompts_with_secret(dir: &Path, secret: &str) -> std::path::PathBuf {
    let root = dir.join("prompts");
    std::fs::create_dir_all(root.join("agent")).unwrap();
    let system =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts/agent/system.j2")).unwrap();
    std::fs::write(root.join("agent/system.j2"), format!("{system}\nDeployment note: key {secret}.\n")).unwrap();
    root
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn canaries_reach_no_output_file_and_no_log_line() {
    let api_key = "sk-canary-e2e-31b7c9d2";
    let hf_token = "hf-canary-e2e-8a6f0e14";
    let password = "canarypass-55c3";
    let query_key = "querycanary-90ab";
    // What an HTTP client would send for the URL's user-info (base64 of user:password).
    let basic = "dXNlcjpjYW5hcnlwYXNzLTU1YzM=";
    let canaries = [api_key, hf_token, password, query_key, basic, "e2e-31b7", "e2e-8a6f"];
    let cfg = MockConfig { api_key: Some(api_key.to_string()), ..MockConfig::default() };
    let s = MockServer::start_local(Arc::new(ScriptedModel::new()), cfg).await.unwrap();
    let url =
        s.base_url().replacen("http://", &format!("http://user:{password}@"), 1) + &format!("?api_key={query_key}");
    let dir = tempfile::tempdir().unwrap();
    let prompts = prompts_with_secret(dir.path(), hf_token);
    let prompts = prompts.to_str().unwrap();
    let with_env = |mut c: Command| {
        c.env("OPENAI_API_KEY", api_key).env("HF_TOKEN", hf_token).env("RUST_LOG", "trace");
        c
    };
    let model = ["--model", "mock-model", "--base-url", &url, "--prompts", prompts];
    let mut logs = Vec::new();

    // play: transcript, trajectory, stdout, stderr.
    let a = dir.path().join("out/play.jsonl");
    std::fs::create_dir_all(dir.path().join("out")).unwrap();
    let mut cmd = play(&a, &model);
    cmd.arg("--trajectory").arg(dir.path().join("out/trajectory.jsonl"));
    let out = run(with_env(cmd)).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["llm_failures"], 0, "the key and the URL reached the server: {stderr}");
    assert!(stderr.contains("TRACE") || stderr.contains("DEBUG"), "logging was on");
    assert!(stderr.contains("chat request") && stderr.contains("127.0.0.1"), "URLs are logged, cleaned");
    logs.push(("play", text(&out.stdout), stderr));

    // The prompt held a secret: the transcript holds [REDACTED], says so, and passes its own checks.
    let t = Transcript::read(&a).unwrap();
    assert!(!t.exchanges.is_empty());
    assert!(t.exchanges.iter().all(|e| e.scrubbed >= 1), "each planner prompt carried the key");
    assert!(t.exchanges[0].request.messages[0].content.contains("Deployment note: key [REDACTED]."));
    assert!(t.header.config["model"]["base_url"].as_str().unwrap().ends_with("/v1?api_key=REDACTED"));

    // Replay with the same secrets known: the live prompts scrub to the recorded ones.
    let out = run(with_env(bin_with(&["replay"], &a))).await;
    assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(text(&out.stdout).starts_with("identical"), "{}", text(&out.stdout));
    logs.push(("replay", text(&out.stdout), text(&out.stderr)));
    // Without the variable that held the secret, the transcript still replays: the
    // scrubbed spans are read as wildcards, and replay says so.
    let mut cmd = bin_with(&["replay", "--json"], &a);
    cmd.env("OPENAI_API_KEY", api_key).env_remove("HF_TOKEN");
    let out = run(cmd).await;
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{}{stderr}", text(&out.stdout));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["identical"], true, "{v}");
    assert_eq!(v["wildcard_matches"].as_u64(), Some(t.exchanges.len() as u64), "{v}");
    assert!(stderr.contains("read as wildcards"), "{stderr}");
    logs.push(("replay without the secret", text(&out.stdout), stderr));

    // eval: results.jsonl, reports, per-episode transcripts.
    let mut cmd = bin();
    cmd.args(["eval", "--layouts", "cramped_room", "--agents", "proagent", "--partners", "greedy", "--seats", "0"])
        .args(["--episodes", "1", "--horizon", "20", "--quiet", "--out"])
        .arg(dir.path().join("out/sweep"))
        .args(model);
    let out = run(with_env(cmd)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    logs.push(("eval", text(&out.stdout), text(&out.stderr)));

    // chat: a prompt carrying the secret, recorded, then replayed from the recording.
    let c = dir.path().join("out/chat.jsonl");
    let prompt = format!("Plan for Player 1: my token is {hf_token}");
    let mut cmd = bin();
    cmd.args(["chat", "--model", "mock-model", "--base-url", &url, "--json", "--transcript"]).arg(&c).arg(&prompt);
    let out = run(with_env(cmd)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let live: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    logs.push(("chat", text(&out.stdout), text(&out.stderr)));
    let mut cmd = bin();
    cmd.args(["chat", "--json", "--model"]).arg(format!("replay:{}", c.display())).arg(&prompt);
    let out = run(with_env(cmd)).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let replayed: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(replayed["text"], live["text"]);
    logs.push(("chat replay", text(&out.stdout), text(&out.stderr)));

    // CoordinationQA through the same server: transcript and report.
    let mut cmd = bin();
    cmd.args(["qa", "--json", "--no-progress", "--trials", "1", "--filter", "game=Hanabi", "--transcript"])
        .arg(dir.path().join("out/qa.jsonl"))
        .args(["--model", "mock-model", "--base-url", &url]);
    let out = run(with_env(cmd)).await;
    logs.push(("qa", text(&out.stdout), text(&out.stderr)));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // The scripted responder answers with plans, not letters: unmatched, but not failed.
    assert!(report["exchanges"].as_u64().unwrap_or(0) > 0 && report["failed"] == 0, "{report}");
    s.shutdown().await;

    let files = files_under(&dir.path().join("out"));
    let names: Vec<&str> = files.iter().map(|(p, _)| p.rsplit('/').next().unwrap()).collect();
    let written =
        ["play.jsonl", "trajectory.jsonl", "results.jsonl", "report.json", "report.csv", "chat.jsonl", "qa.jsonl"];
    for want in written {
        assert!(names.contains(&want), "{want} was written: {names:?}");
    }
    assert!(files.iter().filter(|(p, _)| p.contains("/sweep/") && p.ends_with(".jsonl")).count() >= 2, "{names:?}");
    let outputs = files.iter().map(|(p, t)| (p.clone(), t.clone()));
    let streams = logs.into_iter().flat_map(|(cmd, o, e)| [(format!("{cmd} stdout"), o), (format!("{cmd} stderr"), e)]);
    for (what, content) in outputs.chain(streams) {
        for c in canaries {
            assert!(!content.contains(c), "{c} leaked into {what}");
        }
    }
}

/// Issue 25: `FOO_TOKEN=cooperative`, a word the prompts use, is no secret: the
/// transcript keeps the word and replays on a machine without the variable (and on one
/// with it).
#[test]
fn a_plain_word_in_a_token_variable_is_not_scrubbed_and_replays_anywhere() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a.jsonl");
    let out = play(&a, &[]).env("FOO_TOKEN", "cooperative").output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let recorded = std::fs::read_to_string(&a).unwrap();
    assert!(recorded.contains("cooperative"), "the prompts use the word");
    assert!(!recorded.contains("[REDACTED]") && !recorded.contains("\"scrubbed\""), "nothing was scrubbed");
    for with in [false, true] {
        let mut cmd = bin();
        cmd.arg("replay").arg(&a).env_remove("FOO_TOKEN");
        if with {
            cmd.env("FOO_TOKEN", "cooperative");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{}{}", text(&out.stdout), text(&out.stderr));
        assert!(text(&out.stdout).starts_with("identical"), "{}", text(&out.stdout));
        assert!(!text(&out.stderr).contains("wildcards"), "{}", text(&out.stderr));
    }
}

fn bin_with(args: &[&str], file: &Path) -> Command {
    let mut c = bin();
    c.args(args).arg(file);
    c
}
