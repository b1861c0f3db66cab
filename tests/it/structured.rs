//! Structured answers end to end: the seat option and flags ask the server for a JSON
//! schema, the built-in mock server answers in it (or enforces it, or refuses it), the
//! agents and QA read the answers strictly, a refused schema falls back to text once and
//! for the rest of the run, and recorded structured exchanges replay exactly.

use crate::support::{bin, mock_server as mock, ok, scratch, text};
use proagent::llm::http::{HttpConfig, OpenAiModel};
use proagent::llm::structured::Field;
use proagent::llm::{ChatRequest, LanguageModel, Message, ResponseSchema, STRUCTURED_FALLBACK, Sampling};
use proagent_mock::{EchoPlanner, MockConfig, MockServer, StructuredMode};
use std::path::PathBuf;
use std::process::Output;
use std::sync::Arc;

fn schema_request() -> ChatRequest {
    let sampling = Sampling { structured: true, ..Sampling::default() };
    ChatRequest::new(
        vec![Message::system("You are a chef."), Message::user("The pot is empty. Plan for Player 0:")],
        sampling,
    )
    .with_schema(|| {
        ResponseSchema::object("plan", &[Field::text("analysis", "a"), Field::text("plan", "the next skill")])
    })
}

async fn client(mode: StructuredMode) -> (MockServer, OpenAiModel) {
    let cfg = MockConfig { structured: mode, ..MockConfig::default() };
    let server = MockServer::start_local(Arc::new(EchoPlanner), cfg).await.expect("bind 127.0.0.1:0");
    let mut http = HttpConfig::new();
    http.base_url = server.base_url();
    http.max_retries = 0;
    let model = OpenAiModel::new("m", http).unwrap();
    (server, model)
}

#[tokio::test]
async fn the_mock_answers_a_schema_in_json_and_the_reply_is_structured() {
    let (server, model) = client(StructuredMode::Enforce).await;
    let req = schema_request();
    let reply = model.chat(&req).await.unwrap();
    assert!(reply.is_structured(&req), "{reply:?}");
    let v: serde_json::Value = serde_json::from_str(&reply.text).unwrap_or_else(|e| panic!("{e}: {}", reply.text));
    assert!(v["plan"].as_str().is_some_and(|p| p.contains('(')), "{v}");
    assert_eq!(server.stats().structured, 1);
    // Enforcing: a request without a schema is refused, naming the parameter.
    let plain = ChatRequest { response_format: None, ..req };
    let e = model.chat(&plain).await.unwrap_err();
    assert!(e.is_fatal() && e.to_string().contains("response_format"), "{e}");
    server.shutdown().await;
}

#[tokio::test]
async fn a_refused_schema_falls_back_to_text_once_and_for_the_rest_of_the_run() {
    let (server, model) = client(StructuredMode::Refuse).await;
    let req = schema_request();
    let first = model.chat(&req).await.unwrap();
    assert!(first.text_fallback && !first.is_structured(&req), "{first:?}");
    assert!(first.text.contains("Plan for Player 0:"), "{}", first.text);
    // The refused attempt, then the fall-back.
    let kinds: Vec<&str> = first.faults.iter().map(|f| f.kind.as_str()).collect();
    assert_eq!(kinds, ["status_400", STRUCTURED_FALLBACK]);
    assert!(first.faults[1].detail.contains("HTTP 400") && first.faults[1].detail.contains("response_format"));
    assert_eq!(first.attempts, 2);
    // Remembered: the next request asks for text at once.
    let second = model.chat(&req).await.unwrap();
    assert!(second.text_fallback && second.faults.is_empty() && second.attempts == 1, "{second:?}");
    let st = server.stats();
    assert_eq!((st.rejected, st.requests), (1, 2), "{st:?}");
    server.shutdown().await;
}

fn file(name: &str) -> PathBuf {
    scratch().join(format!("structured-{name}"))
}

/// Plays `layout` with `agent` seats against the server at `url`, structured, with a transcript.
fn play(url: &str, layout: &str, agent: &str, t: &PathBuf, structured: bool) -> Output {
    let mut cmd = bin();
    cmd.args(["play", "--layout", layout, "--agent", agent, "--partner", agent, "--model", "proagent-mock"])
        .args(["--base-url", url, "--no-wall-clock", "--force", "--json", "--retries", "0", "--transcript"])
        .arg(t);
    if structured {
        cmd.arg("--structured");
    }
    cmd.output().unwrap()
}

#[test]
fn both_agents_and_qa_play_with_structured_answers_against_an_enforcing_mock() {
    let (mut child, url) = mock(&["--structured", "enforce"]);
    // ProAgent's verificator and explainer ask in text: its seat plays against `auto`.
    let (mut auto, auto_url) = mock(&[]);
    for (layout, agent, url) in
        [("hanabi", "llmco", &url), ("capture:1", "llmco", &url), ("cramped_room", "proagent", &auto_url)]
    {
        let t = file(&format!("{}-{agent}.jsonl", layout.replace(':', "-")));
        let out = ok(&play(url, layout, agent, &t, true));
        let line: serde_json::Value = serde_json::from_str(out.lines().last().unwrap_or("")).unwrap();
        assert_eq!(line["parse_failures"], 0, "{layout} {agent}: {out}");
        assert!(line["llm_calls"].as_u64().is_some_and(|n| n > 0), "{out}");
        let recorded = std::fs::read_to_string(&t).unwrap();
        let decisions =
            recorded.lines().filter(|l| l.contains("\"kind\":\"action\"") || l.contains("\"kind\":\"planner\""));
        assert!(decisions.clone().count() > 0, "{layout}: no decision recorded");
        assert!(decisions.clone().all(|l| l.contains("\"response_format\"")), "{layout}: a decision without a schema");
        assert!(!recorded.contains(STRUCTURED_FALLBACK), "{layout}: a fall-back against an enforcing server");
        // Recorded structured exchanges replay exactly.
        let replay = ok(&bin().arg("replay").arg(&t).output().unwrap());
        assert!(replay.contains("re-runs exactly"), "{layout}: {replay}");
    }
    // Without --structured the enforcing server refuses, and the run stops with its message.
    let t = file("refused.jsonl");
    let out = play(&url, "hanabi", "llmco", &t, false);
    assert!(!out.status.success() && text(&out.stderr).contains("response_format"), "{}", text(&out.stderr));
    // QA: `--structured` asks for `{"answer": letter}`, read strictly.
    let qt = file("qa.jsonl");
    let out = bin()
        .args(["qa", "--model", "proagent-mock", "--base-url", &url, "--structured", "--filter", "row=0"])
        .args(["--trials", "1", "--json", "--no-progress", "--force", "--transcript"])
        .arg(&qt)
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_str(&ok(&out)).unwrap();
    assert_eq!(report["unmatched"], 0, "{report}");
    let recorded = std::fs::read_to_string(&qt).unwrap();
    assert!(recorded.contains("\"method\":\"structured\"") && recorded.contains("coordination_qa_answer"));
    let replayed = bin()
        .args(["qa", "--model", &format!("replay:{}", qt.display()), "--structured", "--filter", "row=0"])
        .args(["--trials", "1", "--json", "--no-progress", "--no-transcript"])
        .output()
        .unwrap();
    let again: serde_json::Value = serde_json::from_str(&ok(&replayed)).unwrap();
    assert_eq!(again["accuracy"], report["accuracy"], "{again}");
    for c in [&mut child, &mut auto] {
        let _ = c.kill();
        let _ = c.wait();
    }
}

#[test]
fn a_server_that_refuses_schemas_gets_text_and_the_fall_back_is_recorded_and_replayed() {
    let (mut child, url) = mock(&["--structured", "refuse"]);
    let t = file("fallback.jsonl");
    let out = ok(&play(&url, "escape:2", "llmco", &t, true));
    let line: serde_json::Value = serde_json::from_str(out.lines().last().unwrap_or("")).unwrap();
    assert_eq!(line["parse_failures"], 0, "text replies are read by the text parser: {out}");
    let recorded = std::fs::read_to_string(&t).unwrap();
    // One fall-back per seat's model, then text for the rest of the run.
    let falls = recorded.matches(STRUCTURED_FALLBACK).count();
    assert!((1..=2).contains(&falls), "{falls} fall-backs");
    assert!(recorded.contains("\"text_fallback\":true"));
    let replay = ok(&bin().arg("replay").arg(&t).output().unwrap());
    assert!(replay.contains("re-runs exactly"), "{replay}");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn the_stand_in_answers_a_structured_seat_in_the_schema_offline() {
    let t = file("offline.jsonl");
    let out = bin()
        .args(["play", "--layout", "lever", "--agent", "llmco[structured=on]", "--partner", "llmco[structured=on]"])
        .args(["--no-wall-clock", "--force", "--json", "--transcript"])
        .arg(&t)
        .output()
        .unwrap();
    let out = ok(&out);
    assert!(out.contains("llmco[rule-based,structured=on]"), "{out}");
    let line: serde_json::Value = serde_json::from_str(out.lines().last().unwrap_or("")).unwrap();
    assert_eq!(line["parse_failures"], 0, "{out}");
    assert!(std::fs::read_to_string(&t).unwrap().contains("llmco_action"));
    let e = bin().args(["play", "--layout", "lever", "--agent", "llmco[structured=maybe]"]).output().unwrap();
    assert_eq!(e.status.code(), Some(2), "{}", text(&e.stderr));
    assert!(text(&e.stderr).contains("structured"), "{}", text(&e.stderr));
}
