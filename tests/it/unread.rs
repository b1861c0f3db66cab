//! Failed is failed, for every agent on every game (issue 37, item 3). A model server
//! that answers every chat completion with prose, naming no action, is put behind each
//! language agent on each game it plays: `play` gives no score and exits 1, `eval` records
//! nothing and a later run plays the episode again. The rule is about decisions (the
//! replies that choose an action): the LLM-Coordination agent's Theory-of-Mind and
//! verification replies, and ProAgent's verificator and explainer replies, are never
//! counted as read decisions, so a Theory-of-Mind step answered in prose no longer lifts
//! the share of read replies to exactly one half. A model that is down or refuses the run
//! is no score for the LLM-Coordination agent either (ProAgent's cases are in
//! `outage.rs`).

use crate::fake_server::{Canned, CannedServer, dead_port};
use crate::support::{run, text};
use proagent::agent::grounding::overcooked::scripted::ScriptedModel;
use proagent::agent::grounding::overcooked_v2::scripted::ScriptedV2Model;
use proagent::agent::llmco::router::LlmcoStandIns;
use proagent::llm::LanguageModel;
use proagent_mock::{MockConfig, MockFault, MockServer};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

/// A loopback server answering every chat completion with prose (no `Action:`, no skill).
async fn prose_server() -> MockServer {
    let cfg = MockConfig { fault_rate: 1.0, fault_kinds: vec![MockFault::Prose], ..MockConfig::default() };
    MockServer::start_local(Arc::new(LlmcoStandIns::new(Arc::new(ScriptedModel::new()))), cfg).await.unwrap()
}

/// A loopback server answering every game's prompts with its rule-based stand-in (the
/// OvercookedV2 one for `v2`).
async fn working_server(v2: bool) -> MockServer {
    let fallback: Arc<dyn LanguageModel> = if v2 { Arc::new(ScriptedV2Model) } else { Arc::new(ScriptedModel::new()) };
    MockServer::start_local(Arc::new(LlmcoStandIns::new(fallback)), MockConfig::default()).await.unwrap()
}

/// One case: a game, the agent under test (with its options) and a partner without a model.
struct Case {
    layout: &'static str,
    agent: &'static str,
    partner: &'static str,
    /// `--horizon`, for the Overcooked games (the others end by their own rules).
    horizon: Option<&'static str>,
}

const CASES: [Case; 7] = [
    Case { layout: "cramped_room", agent: "proagent", partner: "greedy", horizon: Some("30") },
    Case { layout: "cramped_room", agent: "proagent[preset=paper]", partner: "greedy", horizon: Some("30") },
    Case { layout: "cramped_room", agent: "llmco", partner: "greedy", horizon: Some("30") },
    Case { layout: "v2:cramped_room_v2", agent: "proagent", partner: "scripted", horizon: Some("30") },
    Case { layout: "hanabi", agent: "llmco", partner: "convention", horizon: None },
    Case { layout: "capture:1", agent: "llmco", partner: "greedy_baseline", horizon: None },
    Case { layout: "escape:1", agent: "llmco", partner: "fixer", horizon: None },
];

fn model_args(c: &mut Command, base_url: &str) {
    c.args(["--model", "m", "--base-url", base_url, "--retries", "1", "--backoff-ms", "1", "--backoff-max-ms", "2"]);
}

fn play(case: &Case, base_url: &str, transcript: &Path, extra: &[&str]) -> Command {
    let mut c = crate::support::bin();
    c.args(["play", "--layout", case.layout, "--agent", case.agent, "--partner", case.partner]);
    c.args(["--json", "--no-wall-clock", "--force"]);
    if let Some(h) = case.horizon {
        c.args(["--horizon", h]);
    }
    model_args(&mut c, base_url);
    c.args(extra).arg("--transcript").arg(transcript);
    c
}

fn eval(case: &Case, base_url: &str, out: &Path) -> Command {
    let mut c = crate::support::bin();
    c.args(["eval", "--layouts", case.layout, "--agents", case.agent, "--partners", case.partner]);
    c.args(["--seats", "0", "--episodes", "1", "--quiet", "--concurrency", "1"]);
    if let Some(h) = case.horizon {
        c.args(["--horizon", h]);
    }
    model_args(&mut c, base_url);
    c.arg("--out").arg(out);
    c
}

fn records(dir: &Path) -> Vec<Value> {
    match std::fs::read_to_string(dir.join("results.jsonl")) {
        Ok(t) => t.lines().map(|l| serde_json::from_str(l).unwrap()).collect(),
        Err(_) => Vec::new(),
    }
}

fn footer(transcript: &Path) -> Value {
    let t = std::fs::read_to_string(transcript).unwrap_or_else(|e| panic!("{}: {e}", transcript.display()));
    serde_json::from_str(t.lines().last().unwrap()).unwrap()
}

/// `play` against the prose server: no score, exit 1, a message naming the unread decisions,
/// the transcript marked failed.
async fn play_is_no_score(case: &Case, url: &str, dir: &Path) {
    let what = format!("{} {}", case.layout, case.agent);
    let t = dir.join(format!("{}-{}.jsonl", case.layout.replace(':', "_"), case.agent.len()));
    let out = run(play(case, url, &t, &[])).await;
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{what}: {err}\n{}", text(&out.stdout));
    assert!(out.stdout.is_empty(), "{what}: no score for an unread episode: {}", text(&out.stdout));
    assert!(err.contains("failed, no score") && err.contains("named no usable action"), "{what}: {err}");
    assert!(err.contains("decisions") && err.contains("(100%)"), "{what}: every decision was unread: {err}");
    let last = footer(&t);
    assert_eq!(last["data"]["failed"], true, "{what}: {last}");
}

/// `eval` against the prose server records nothing; run again, it plays the episode again
/// (and records nothing again); against a working server it is played and recorded.
async fn eval_records_nothing_and_plays_again(case: &Case, url: &str, working: &str, dir: &Path) {
    let what = format!("{} {}", case.layout, case.agent);
    for round in 0..2 {
        let out = run(eval(case, url, dir)).await;
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what} round {round}: {err}");
        assert!(err.contains("already finished: 0; to play: 1"), "{what} round {round}: {err}");
        assert!(err.contains("1 failed, 0 results written") && err.contains("named no usable action"), "{what}: {err}");
        assert!(records(dir).is_empty(), "{what} round {round}: kept out of results");
    }
    let out = run(eval(case, working, dir)).await;
    let err = text(&out.stderr);
    assert!(out.status.success(), "{what}: {err}");
    assert!(err.contains("already finished: 0; to play: 1"), "{what}: {err}");
    assert_eq!(records(dir).len(), 1, "{what}: {err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_only_replies_are_no_score_for_proagent_on_classic_overcooked() {
    let (prose, working) = (prose_server().await, working_server(false).await);
    let dir = tempfile::tempdir().unwrap();
    for case in &CASES[..2] {
        play_is_no_score(case, &prose.base_url(), dir.path()).await;
    }
    eval_records_nothing_and_plays_again(&CASES[0], &prose.base_url(), &working.base_url(), &dir.path().join("e"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_only_replies_are_no_score_for_llmco_on_classic_overcooked() {
    let (prose, working) = (prose_server().await, working_server(false).await);
    let dir = tempfile::tempdir().unwrap();
    play_is_no_score(&CASES[2], &prose.base_url(), dir.path()).await;
    eval_records_nothing_and_plays_again(&CASES[2], &prose.base_url(), &working.base_url(), &dir.path().join("e"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_only_replies_are_no_score_for_proagent_on_overcooked_v2() {
    let (prose, working) = (prose_server().await, working_server(true).await);
    let dir = tempfile::tempdir().unwrap();
    play_is_no_score(&CASES[3], &prose.base_url(), dir.path()).await;
    eval_records_nothing_and_plays_again(&CASES[3], &prose.base_url(), &working.base_url(), &dir.path().join("e"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_only_replies_are_no_score_for_llmco_on_hanabi() {
    let (prose, working) = (prose_server().await, working_server(false).await);
    let dir = tempfile::tempdir().unwrap();
    play_is_no_score(&CASES[4], &prose.base_url(), dir.path()).await;
    eval_records_nothing_and_plays_again(&CASES[4], &prose.base_url(), &working.base_url(), &dir.path().join("e"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_only_replies_are_no_score_for_llmco_on_collab_capture() {
    let (prose, working) = (prose_server().await, working_server(false).await);
    let dir = tempfile::tempdir().unwrap();
    play_is_no_score(&CASES[5], &prose.base_url(), dir.path()).await;
    eval_records_nothing_and_plays_again(&CASES[5], &prose.base_url(), &working.base_url(), &dir.path().join("e"))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_only_replies_are_no_score_for_llmco_on_collab_escape() {
    let (prose, working) = (prose_server().await, working_server(false).await);
    let dir = tempfile::tempdir().unwrap();
    play_is_no_score(&CASES[6], &prose.base_url(), dir.path()).await;
    eval_records_nothing_and_plays_again(&CASES[6], &prose.base_url(), &working.base_url(), &dir.path().join("e"))
        .await;
}

/// With the check turned off the same prose episode is played out and scored, and its
/// summary counts only the action replies as unread: the Theory-of-Mind replies are calls,
/// not decisions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helper_replies_are_calls_not_decisions() {
    let prose = prose_server().await;
    let dir = tempfile::tempdir().unwrap();
    for case in [&CASES[4], &CASES[6]] {
        let t = dir.path().join(format!("{}.jsonl", case.layout.replace(':', "_")));
        let out = run(play(case, &prose.base_url(), &t, &["--max-parse-failure-share", "1"])).await;
        assert!(out.status.success(), "{}: {}", case.layout, text(&out.stderr));
        let s: Value = serde_json::from_slice(&out.stdout).unwrap();
        let (calls, tom) = (s["llm_calls"].as_u64().unwrap(), s["llm_calls_by_kind"]["tom"].as_u64().unwrap());
        assert!(tom > 0 && calls == 2 * tom, "{}: one ToM and one action call per decision: {s}", case.layout);
        assert_eq!(s["parse_failures"], s["decisions"], "{}: every decision unread: {s}", case.layout);
    }
}

/// The LLM-Coordination agent against a dead server and a server refusing the key:
/// `play` and `eval` give no score (ProAgent's cases are in `outage.rs`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_down_or_refusing_model_is_no_score_for_llmco() {
    let dir = tempfile::tempdir().unwrap();
    let dead = format!("http://127.0.0.1:{}/v1", dead_port());
    for case in [&CASES[4], &CASES[6]] {
        let what = case.layout;
        let t = dir.path().join(format!("dead-{}.jsonl", what.replace(':', "_")));
        let out = run(play(case, &dead, &t, &[])).await;
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(out.stdout.is_empty() && err.contains("failed, no score"), "{what}: {err}");
        assert!(err.contains("Connection refused") && err.contains("--max-llm-failures"), "{what}: {err}");
        assert_eq!(footer(&t)["data"]["failed"], true);
        let out_dir = dir.path().join(format!("dead-{}", what.replace(':', "_")));
        let out = run(eval(case, &dead, &out_dir)).await;
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(err.contains("1 failed, 0 results written"), "{what}: {err}");
        assert!(records(&out_dir).is_empty());

        let refusing = CannedServer::start(vec![Canned::openai_error(401, "Incorrect API key provided.")]).await;
        let t = dir.path().join(format!("refused-{}.jsonl", what.replace(':', "_")));
        let out = run(play(case, &refusing.base_url(), &t, &[])).await;
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(out.stdout.is_empty() && err.contains("HTTP 401"), "{what}: {err}");
        let out_dir = dir.path().join(format!("refused-{}", what.replace(':', "_")));
        let out = run(eval(case, &refusing.base_url(), &out_dir)).await;
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: {err}");
        assert!(err.contains("HTTP 401") && err.contains("the sweep was stopped"), "{what}: {err}");
        assert!(records(&out_dir).is_empty());
    }
}
