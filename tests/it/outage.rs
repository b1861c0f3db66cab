//! An outage never becomes a score. The real commands (`eval` with the real
//! ProAgent episode runner, `play`, `qa`) against a loopback address where nothing
//! listens, a server that refuses the key (401) or the request (400, 404), and a
//! server that starts failing mid-episode: exit codes, what stderr says, that
//! `results.jsonl` holds no such episode, and that a later run with a working
//! server plays them.

use crate::fake_server::{Canned, CannedServer, dead_port};
use crate::support::{run, text};
use proagent::agent::grounding::overcooked::scripted::ScriptedModel;
use proagent_mock::{MockConfig, MockFault, MockServer};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn bin() -> Command {
    crate::support::bin()
}

/// `proagent eval` of ProAgent with greedy, seat 0, `episodes` seeds of 30 steps, one at
/// a time unless `extra` sets `--concurrency`, against `base_url`.
fn eval(out: &Path, base_url: &str, episodes: u32, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args(["eval", "--layouts", "cramped_room", "--agents", "proagent", "--partners", "greedy", "--seats", "0"])
        .args(["--episodes", &episodes.to_string(), "--horizon", "30", "--quiet"])
        .args(["--model", "m", "--base-url", base_url, "--retries", "1", "--backoff-ms", "1", "--backoff-max-ms", "2"])
        .args(if extra.contains(&"--concurrency") { &[][..] } else { &["--concurrency", "1"][..] })
        .args(extra)
        .arg("--out")
        .arg(out);
    c
}

fn play(base_url: &str, transcript: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args(["play", "--horizon", "30", "--json", "--no-wall-clock", "--model", "m", "--base-url", base_url])
        .args(["--retries", "1", "--backoff-ms", "1", "--backoff-max-ms", "2"])
        .args(extra)
        .arg("--transcript")
        .arg(transcript);
    c
}

fn records(dir: &Path) -> Vec<Value> {
    match std::fs::read_to_string(dir.join("results.jsonl")) {
        Ok(t) => t.lines().map(|l| serde_json::from_str(l).unwrap()).collect(),
        Err(_) => Vec::new(),
    }
}

async fn working_server(cfg: MockConfig) -> MockServer {
    MockServer::start_local(Arc::new(ScriptedModel::new()), cfg).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eval_against_a_dead_server_records_nothing_and_a_rerun_plays_the_episodes() {
    let dir = tempfile::tempdir().unwrap();
    let dead = format!("http://127.0.0.1:{}/v1", dead_port());
    let out = run(eval(dir.path(), &dead, 2, &[])).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("played 0 of 2 episodes") && err.contains("2 failed, 0 results written"), "{err}");
    assert!(err.contains("Connection refused") && err.contains("--max-llm-failures"), "{err}");
    assert!(err.contains("run the same command again to retry them"), "{err}");
    assert!(out.stdout.is_empty(), "no report of zero episodes: {}", text(&out.stdout));
    assert!(records(dir.path()).is_empty());
    // The failed episodes' transcripts say so, under names that never look finished.
    let partial: Vec<_> =
        std::fs::read_dir(dir.path().join("transcripts")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(partial.len(), 2);
    for p in &partial {
        assert!(p.to_str().unwrap().ends_with(".jsonl.partial"), "{}", p.display());
        let last: Value = serde_json::from_str(std::fs::read_to_string(p).unwrap().lines().last().unwrap()).unwrap();
        assert_eq!((last["type"].as_str(), last["data"]["failed"].as_bool()), (Some("footer"), Some(true)), "{last}");
    }

    let server = working_server(MockConfig::default()).await;
    let out = run(eval(dir.path(), &server.base_url(), 2, &[])).await;
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("already finished: 0; to play: 2"), "{err}");
    let recs = records(dir.path());
    assert_eq!(recs.len(), 2);
    assert!(recs.iter().all(|r| r["metrics"]["llm_failures"] == 0 && r["llm_calls"].as_u64() > Some(0)), "{recs:?}");
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_failing_mid_episode_fails_that_episode_only() {
    // Two replies, then one call fails on both of its attempts (--retries 1), then all is well.
    let plan = vec![None, None, Some(MockFault::ServerError), Some(MockFault::ServerError)];
    let server = working_server(MockConfig { fault_plan: plan, ..MockConfig::default() }).await;
    let dir = tempfile::tempdir().unwrap();
    let out = run(eval(dir.path(), &server.base_url(), 2, &[])).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("1 failed, 1 results written"), "{err}");
    assert!(err.contains("failed: cramped_room proagent[m] vs greedy seat 0 seed 0"), "{err}");
    assert!(err.contains("HTTP 500"), "{err}");
    let recs = records(dir.path());
    assert_eq!(recs.len(), 1);
    assert_eq!(recs[0]["seed"], 1, "the other episode was played and recorded");
    let failed_at = err.split("by t=").nth(1).and_then(|s| s.split(',').next()).and_then(|t| t.parse::<u32>().ok());
    assert!(failed_at.is_some_and(|t| t > 0), "it failed mid-episode: {err}");

    // The server is healthy now: the rerun plays the failed episode only.
    let out = run(eval(dir.path(), &server.base_url(), 2, &[])).await;
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("already finished: 1; to play: 1"), "{err}");
    let mut seeds: Vec<u64> = records(dir.path()).iter().map(|r| r["seed"].as_u64().unwrap()).collect();
    seeds.sort();
    assert_eq!(seeds, [0, 1]);
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn max_llm_failures_sets_how_many_failed_calls_an_episode_survives() {
    // The second call fails on both attempts; the rest answer.
    let plan = || vec![None, Some(MockFault::ServerError), Some(MockFault::ServerError)];
    let dir = tempfile::tempdir().unwrap();

    let server = working_server(MockConfig { fault_plan: plan(), ..MockConfig::default() }).await;
    let t = dir.path().join("strict.jsonl");
    let out = run(play(&server.base_url(), &t, &[])).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "no score for a failed episode: {}", text(&out.stdout));
    assert!(err.contains("failed, no score") && err.contains("(marked failed)"), "{err}");
    let footer: Value = serde_json::from_str(std::fs::read_to_string(&t).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(footer["data"]["failed"], true, "{footer}");
    assert_eq!(footer["data"]["llm_failures"], 1, "{footer}");
    // A failed episode is not replayed as if it had been played.
    let out = bin().arg("replay").arg(&t).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("records a failed episode"), "{}", text(&out.stderr));
    server.shutdown().await;

    let server = working_server(MockConfig { fault_plan: plan(), ..MockConfig::default() }).await;
    let t = dir.path().join("tolerant.jsonl");
    let out = run(play(&server.base_url(), &t, &["--max-llm-failures", "1"])).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((summary["llm_failures"].as_u64(), summary["steps"].as_u64()), (Some(1), Some(30)), "{summary}");
    let out = bin().arg("replay").arg(&t).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    server.shutdown().await;
}

/// Issue 25: a model that only answers prose is not scored 0 for ever. Against a server
/// whose every reply names no skill, `eval` records nothing, lists the episodes as failed
/// for that reason and exits 1; a later run against a working server plays them; `play`
/// gives no score unless the check is turned off; and a model whose replies are mostly
/// read is scored, with its share of unread replies in the report.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_names_no_skill_is_not_scored() {
    let prose = || MockConfig { fault_rate: 1.0, fault_kinds: vec![MockFault::Prose], ..MockConfig::default() };
    let server = working_server(prose()).await;
    let dir = tempfile::tempdir().unwrap();
    let out = run(eval(dir.path(), &server.base_url(), 2, &[])).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("played 0 of 2 episodes") && err.contains("2 failed, 0 results written"), "{err}");
    assert!(err.contains("named no usable action, more than the 50% allowed"), "{err}");
    assert!(err.contains("(100%)") && err.contains("--max-parse-failure-share"), "{err}");
    assert!(err.contains("2 of them: the model's replies named no usable action"), "{err}");
    assert!(out.stdout.is_empty(), "no report of zero episodes: {}", text(&out.stdout));
    assert!(records(dir.path()).is_empty(), "kept out of results, means and heatmaps");
    for e in std::fs::read_dir(dir.path().join("transcripts")).unwrap() {
        let p = e.unwrap().path();
        assert!(p.to_str().unwrap().ends_with(".jsonl.partial"), "{}", p.display());
        let last: Value = serde_json::from_str(std::fs::read_to_string(&p).unwrap().lines().last().unwrap()).unwrap();
        assert_eq!(last["data"]["failed"], true, "{last}");
        assert_eq!(last["data"]["failed_at"], 30, "played to its end: {last}");
    }
    server.shutdown().await;

    // A working server: the next run plays both episodes.
    let server = working_server(MockConfig::default()).await;
    let out = run(eval(dir.path(), &server.base_url(), 2, &[])).await;
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("already finished: 0; to play: 2"), "{err}");
    let recs = records(dir.path());
    assert_eq!(recs.len(), 2);
    assert!(recs.iter().all(|r| r["parse_failures"] == 0), "{recs:?}");
    assert!(text(&out.stdout).contains("| 0.0% |"), "{}", text(&out.stdout));
    server.shutdown().await;

    // play: no score, unless the check is off.
    let server = working_server(prose()).await;
    let t = dir.path().join("prose.jsonl");
    let out = run(play(&server.base_url(), &t, &[])).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        out.stdout.is_empty() && err.contains("failed, no score") && err.contains("named no usable action"),
        "{err}"
    );
    let t = dir.path().join("prose-allowed.jsonl");
    let out = run(play(&server.base_url(), &t, &["--max-parse-failure-share", "1"])).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(summary["score"], 0, "{summary}");
    assert!(summary["parse_failures"].as_u64() > Some(0), "{summary}");
    let out = run(bin_args(&["play", "--max-parse-failure-share", "1.5"])).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--max-parse-failure-share"), "{}", text(&out.stderr));
    server.shutdown().await;

    // One reply in five is prose: the episodes are scored, and the report shows the share.
    let some = MockConfig { fault_rate: 0.2, fault_kinds: vec![MockFault::Prose], ..MockConfig::default() };
    let server = working_server(some).await;
    let dir = tempfile::tempdir().unwrap();
    let out = run(eval(dir.path(), &server.base_url(), 2, &[])).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let recs = records(dir.path());
    let (unread, calls) = recs
        .iter()
        .fold((0, 0), |(u, c), r| (u + r["parse_failures"].as_u64().unwrap(), c + r["llm_calls"].as_u64().unwrap()));
    assert!(unread > 0 && 2 * unread <= calls, "{unread} of {calls}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    let share = report["cells"][0]["parse_failure_share"].as_f64().unwrap();
    assert!((share - unread as f64 / calls as f64).abs() < 1e-12, "{share}");
    assert!(text(&out.stdout).contains(&format!("| {:.1}% |", 100.0 * share)), "{}", text(&out.stdout));
    server.shutdown().await;
}

fn bin_args(args: &[&str]) -> Command {
    let mut c = bin();
    c.args(args);
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_against_a_dead_server_exits_1_without_a_score() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("dead.jsonl");
    let out = run(play(&format!("http://127.0.0.1:{}/v1", dead_port()), &t, &["--episodes", "3"])).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(err.contains("seed 0 failed, no score") && err.contains("Connection refused"), "{err}");
    assert!(!err.contains("seed 1"), "play stops at the first failed episode: {err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_key_stops_eval_play_and_qa_at_once() {
    let key = "sk-right-key-0d6f2a";
    let wrong = "sk-wrong-key-93b1c7";
    let server = working_server(MockConfig { api_key: Some(key.into()), ..MockConfig::default() }).await;
    let url = format!("http://bob:pa55word@{}/v1", server.addr());
    let dir = tempfile::tempdir().unwrap();

    let mut cmd = eval(dir.path(), &url, 6, &["--concurrency", "3"]);
    cmd.env("OPENAI_API_KEY", wrong);
    let out = run(cmd).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("the sweep was stopped"), "{err}");
    assert!(err.contains("HTTP 401 Unauthorized") && err.contains("Incorrect API key provided."), "{err}");
    assert!(err.contains("OPENAI_API_KEY"), "the message says what to check: {err}");
    assert!(records(dir.path()).is_empty());
    // At most the episodes already in flight asked; none after the refusal.
    let rejected = server.stats().rejected;
    assert!((1..=3).contains(&rejected), "{rejected} requests");

    let mut cmd = play(&url, &dir.path().join("p.jsonl"), &[]);
    cmd.env("OPENAI_API_KEY", wrong);
    let out = run(cmd).await;
    let err_play = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err_play}");
    assert!(err_play.contains("HTTP 401 Unauthorized") && out.stdout.is_empty(), "{err_play}");

    let mut cmd = bin();
    cmd.args(["qa", "--model", "m", "--base-url", &url, "--filter", "game=Overcooked", "--trials", "2"])
        .args(["--no-transcript", "--no-progress", "--retries", "3"])
        .env("OPENAI_API_KEY", wrong);
    let before = server.stats().rejected;
    let out = run(cmd).await;
    let err_qa = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err_qa}");
    assert!(err_qa.contains("HTTP 401 Unauthorized"), "{err_qa}");
    assert!(out.stdout.is_empty(), "no report: {}", text(&out.stdout));
    assert!(server.stats().rejected - before <= 8, "at most one request per slot in flight");

    for (what, e) in [("eval", &err), ("play", &err_play), ("qa", &err_qa)] {
        for secret in [wrong, "pa55word"] {
            assert!(!e.contains(secret), "{what} printed a secret: {e}");
        }
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_request_or_model_stops_the_sweep() {
    let cases = [
        (
            Canned::openai_error(400, "This model's maximum context length is 4096 tokens."),
            "HTTP 400 Bad Request",
            "maximum context length is 4096 tokens",
        ),
        (
            Canned::json(404, r#"{"error":"model \"m\" not found, try pulling it first"}"#),
            "HTTP 404 Not Found",
            "not found, try pulling it first",
        ),
    ];
    for (canned, status, message) in cases {
        let server = CannedServer::start(vec![canned]).await;
        let dir = tempfile::tempdir().unwrap();
        let out = run(eval(dir.path(), &server.base_url(), 4, &[])).await;
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(status) && err.contains(message) && err.contains("the sweep was stopped"), "{err}");
        // The /v1/models probe (a refusal there is only a warning: many servers have no
        // such endpoint), then one chat request, refused: the sweep stops.
        assert_eq!(server.hits(), 2, "one refusal stops the sweep: {err}");
        assert!(records(dir.path()).is_empty());
    }
}
