//! CoordinationQA against a local OpenAI-compatible test server (127.0.0.1 only) that
//! answers in many reply styles, fails some requests, and can add latency.
//!
//! `styles_through_the_http_backend` drives `proagent qa` through the real HTTP backend.
//! `styles_through_the_runner` runs the same style table through the QA runner in-process,
//! so extraction and failure accounting of every style are checked today.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use proagent::llm::{ChatRequest, ChatResponse, LanguageModel, LlmError, Usage};
use proagent::qa::data::{self, Category, Question};
use proagent::qa::prompt::Prompts;
use proagent::qa::score::build_report;
use proagent::qa::{self, Mode, RunConfig};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// How the test server phrases its answer for a question.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Style {
    Bare,
    Dot,
    Parens,
    CloseParen,
    Bold,
    Sentence,
    OptionColon,
    Think,
    TextOnly,
    ActionLine,
    Unsure,
    ServerError,
}

const STYLES: [Style; 12] = [
    Style::Bare,
    Style::Dot,
    Style::Parens,
    Style::CloseParen,
    Style::Bold,
    Style::Sentence,
    Style::OptionColon,
    Style::Think,
    Style::TextOnly,
    Style::ActionLine,
    Style::Unsure,
    Style::ServerError,
];

fn style_of(q: &Question) -> Style {
    let c = Category::ALL.iter().position(|&c| c == q.category).unwrap();
    STYLES[(q.row * 3 + c) % STYLES.len()]
}

/// The reply text for a question in its style, or `None` for a server error.
fn reply_for(q: &Question) -> Option<String> {
    let l = q.accepted.iter().copied().find(|&c| q.has_option(c)).unwrap_or(q.accepted[0]);
    let t = q.option_text(l).unwrap_or("").to_string();
    Some(match style_of(q) {
        Style::Bare => format!("{l}"),
        Style::Dot => format!("{l}."),
        Style::Parens => format!("Explanation: it follows from the state.\nAnswer: ({l})"),
        Style::CloseParen => format!("{l}) {t}"),
        Style::Bold => format!("**{l}**"),
        Style::Sentence => format!("After weighing options A and B, the answer is {l}."),
        Style::OptionColon => format!("Option {l}: {t}"),
        Style::Think => format!("<think>Option A looks tempting. Answer: A.</think>\nAnswer: {l}"),
        Style::TextOnly => format!("Explanation: Alice should act now.\nAnswer: {t}"),
        Style::ActionLine => format!("Explanation: Bob is busy.\nAction: {l}. {t}"),
        Style::Unsure => "I am not sure which of these is right.".to_string(),
        Style::ServerError => return None,
    })
}

struct Server {
    by_question: HashMap<String, Question>,
    latency: Duration,
    requests: AtomicUsize,
}

async fn completions(State(s): State<Arc<Server>>, Json(body): Json<Value>) -> Response {
    s.requests.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(s.latency).await;
    let last = body["messages"].as_array().and_then(|m| m.last()).and_then(|m| m["content"].as_str()).unwrap_or("");
    let Some(q) = s.by_question.get(last) else {
        return (StatusCode::BAD_REQUEST, Json(json!({"error": {"message": "unknown question"}}))).into_response();
    };
    match reply_for(q) {
        None => (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({"error": {"message": "boom"}}))).into_response(),
        Some(text) => Json(json!({
            "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": body["model"],
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}
        }))
        .into_response(),
    }
}

/// Starts the server on 127.0.0.1 and returns its base URL (…/v1).
async fn start_server(latency: Duration) -> (String, Arc<Server>) {
    let d = data::embedded().unwrap();
    let state = Arc::new(Server {
        by_question: d.questions.into_iter().map(|q| (q.question.clone(), q)).collect(),
        latency,
        requests: AtomicUsize::new(0),
    });
    let app = Router::new().route("/v1/chat/completions", post(completions)).with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/v1"), state)
}

/// What a perfect reader of the style table gets: (correct, unmatched, failed) per trial.
fn expected_counts(questions: &[Question]) -> (usize, usize, usize) {
    let mut out = (0, 0, 0);
    for q in questions {
        match style_of(q) {
            Style::Unsure => out.1 += 1,
            Style::ServerError => out.2 += 1,
            _ if q.is_scorable() => out.0 += 1,
            _ => {}
        }
    }
    out
}

/// The same table without the network, to check extraction of every style today.
struct StyleModel {
    by_question: HashMap<String, Question>,
}

#[async_trait::async_trait]
impl LanguageModel for StyleModel {
    fn name(&self) -> String {
        "styles".into()
    }
    async fn chat(&self, r: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let last = &r.messages.last().unwrap().content;
        let q = self.by_question.get(last).ok_or_else(|| LlmError::Config("unknown question".into()))?;
        match reply_for(q) {
            Some(text) => Ok(ChatResponse::simple(text, Usage::default())),
            None => Err(LlmError::Unreachable { faults: vec![] }),
        }
    }
}

#[test]
fn styles_through_the_runner() {
    let d = data::embedded().unwrap();
    let model =
        Arc::new(StyleModel { by_question: d.questions.iter().map(|q| (q.question.clone(), q.clone())).collect() });
    let prompts = Prompts::embedded().unwrap();
    let cfg = RunConfig {
        trials: 2,
        concurrency: 16,
        sampling: qa::default_sampling(),
        mode: Mode::Default,
        max_failures_in_a_row: None,
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let recs = rt.block_on(qa::run(&d.questions, &prompts, model, &cfg, &mut |_| Ok(()))).unwrap();
    for x in &recs {
        let q = d.questions.iter().find(|q| q.id == x.id).unwrap();
        let style = style_of(q);
        match style {
            Style::Unsure => assert_eq!(x.extracted, None, "{} {style:?}", x.id),
            Style::ServerError => assert!(x.failure.is_some()),
            _ => assert_eq!(x.correct, q.is_scorable(), "{} {style:?}: {:?} -> {:?}", x.id, x.reply, x.extracted),
        }
    }
    let r = build_report("styles", &d.questions, &recs, 2, Mode::Default, None);
    let (c, u, f) = expected_counts(&d.questions);
    assert_eq!((r.correct, r.unmatched, r.failed), (2 * c, 2 * u, 2 * f));
    assert!(f > 10 && u > 10);
}

/// The `--model` arguments that select the HTTP backend for a server at `base_url`.
/// One quick retry keeps the always-failing style's questions from waiting out the default backoff.
fn http_model_args(base_url: &str) -> (Vec<String>, Vec<(&'static str, String)>) {
    (
        vec![
            "--model".into(),
            "test-model".into(),
            "--base-url".into(),
            base_url.into(),
            "--retries".into(),
            "1".into(),
            "--backoff-ms".into(),
            "10".into(),
        ],
        vec![("OPENAI_API_KEY", "test-key".to_string()), ("OPENAI_BASE_URL", base_url.to_string())],
    )
}

#[test]
fn styles_through_the_http_backend() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let (url, server) = rt.block_on(start_server(Duration::from_millis(200)));
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("http.jsonl");
    let (args, env) = http_model_args(&url);
    let started = std::time::Instant::now();
    let out = crate::support::bin()
        .args(["qa", "--json", "--no-progress", "--concurrency", "16", "--trials", "3", "--transcript"])
        .arg(&t)
        .args(&args)
        .envs(env)
        .output()
        .unwrap();
    eprintln!("198 x 3 requests at 0.2 s latency, concurrency 16: {:.1} s", started.elapsed().as_secs_f64());
    // Failed requests make the exit code 1; the report is printed regardless.
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = data::embedded().unwrap();
    let (c, u, f) = expected_counts(&d.questions);
    assert_eq!(v["correct"], 3 * c);
    assert_eq!(v["unmatched"], 3 * u);
    assert_eq!(v["failed"], 3 * f);
    assert!(server.requests.load(Ordering::SeqCst) >= 594);
    // The transcript replays offline to the same report (failures included).
    let out = crate::support::bin()
        .args(["qa", "--json", "--no-progress", "--no-transcript", "--model"])
        .arg(format!("replay:{}", t.display()))
        .output()
        .unwrap();
    let w: Value = serde_json::from_slice(&out.stdout).unwrap();
    for k in ["correct", "unmatched", "failed", "by_category"] {
        assert_eq!(w[k], v[k], "{k}");
    }
}

#[test]
fn the_test_server_speaks_the_openai_shape() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let (url, server) = start_server(Duration::ZERO).await;
        let d = data::embedded().unwrap();
        let prompts = Prompts::embedded().unwrap();
        proagent::llm::http::install_tls_provider();
        let ask = |q: &Question| {
            let body = json!({"model": "m", "messages": prompts.messages(q).unwrap()});
            reqwest::Client::new().post(format!("{url}/chat/completions")).json(&body).send()
        };
        let ok = d.questions.iter().find(|q| style_of(q) == Style::Dot).unwrap();
        let r = ask(ok).await.unwrap();
        assert!(r.status().is_success());
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], reply_for(ok).unwrap());
        assert_eq!(v["usage"]["completion_tokens"], 5);
        let bad = d.questions.iter().find(|q| style_of(q) == Style::ServerError).unwrap();
        assert_eq!(ask(bad).await.unwrap().status().as_u16(), 500);
        assert_eq!(server.requests.load(Ordering::SeqCst), 2);
    });
}
