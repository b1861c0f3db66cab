//! The HTTP client and the mock server with hostile or broken peers, on loopback:
//! absurd `Retry-After` values, replies too large to read, refusals, token counts
//! that would overflow, idle and stalling connections, and the backoff flags.

use crate::fake_server::{Body, Canned, CannedServer};
use crate::support::{run, text};
use proagent::llm::http::{HttpConfig, MAX_REPLY_BYTES, OpenAiModel};
use proagent::llm::{ChatRequest, LanguageModel, LlmError, Message, Sampling};
use proagent_mock::{EchoPlanner, MockConfig, MockServer};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn request() -> ChatRequest {
    ChatRequest::new(vec![Message::system("You are a chef."), Message::user("Plan for Player 0:")], Sampling::default())
}

fn client(base_url: &str) -> HttpConfig {
    let mut cfg = HttpConfig::new();
    cfg.base_url = base_url.to_string();
    cfg.connect_timeout = Duration::from_secs(2);
    cfg.request_timeout = Duration::from_secs(20);
    cfg.max_retries = 2;
    cfg.backoff_base = Duration::from_millis(5);
    cfg.backoff_max = Duration::from_millis(20);
    cfg.retry_after_max = Duration::from_millis(100);
    cfg
}

#[tokio::test]
async fn absurd_retry_after_values_never_panic_and_are_capped() {
    let cases = [
        ("retry-after", "1e300"),
        ("retry-after", "1e400"),
        ("retry-after", "inf"),
        ("retry-after", "NaN"),
        ("retry-after", "-5"),
        ("retry-after", "184467440737095516160000"),
        ("retry-after", "Fri, 31 Dec 9999 23:59:59 GMT"),
        ("retry-after-ms", "1e300"),
        ("retry-after-ms", "-1"),
    ];
    for (name, value) in cases {
        let s = CannedServer::start(vec![
            Canned::openai_error(429, "slow down").header(name, value),
            Canned::reply("Plan for Player 0: \"pickup(onion)\""),
        ])
        .await;
        let model = OpenAiModel::new("test-model", client(&s.base_url())).unwrap();
        let t0 = Instant::now();
        let reply = model.chat(&request()).await.unwrap_or_else(|e| panic!("{name}: {value}: {e}"));
        let waited = t0.elapsed();
        assert_eq!(reply.attempts, 2, "{name}: {value}");
        assert_eq!(reply.faults[0].kind, "status_429");
        // Capped by retry_after_max (100 ms), never the hours (or eons) asked for.
        assert!(waited < Duration::from_secs(5), "{name}: {value}: waited {waited:?}");
    }
}

#[tokio::test]
async fn an_announced_huge_body_fails_before_reading_and_is_not_retried() {
    let s = CannedServer::start(vec![Canned {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body: Body::Endless { announce: Some(1 << 30), max: 1 << 30 },
    }])
    .await;
    let t0 = Instant::now();
    let err = OpenAiModel::new("test-model", client(&s.base_url())).unwrap().chat(&request()).await.unwrap_err();
    let LlmError::BadReply { faults, reason, .. } = &err else { panic!("{err:?}") };
    assert_eq!(faults.len(), 1, "an oversized reply is not retried: {faults:?}");
    assert_eq!(faults[0].kind, "body_too_large");
    assert!(reason.contains("1073741824-byte reply") && reason.contains(&MAX_REPLY_BYTES.to_string()), "{reason}");
    assert!(!err.is_fatal(), "a failed call, counted against the episode; not a configuration error");
    assert_eq!(s.hits(), 1);
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}

#[tokio::test]
async fn an_endless_chunked_body_is_cut_off_at_the_limit() {
    let s = CannedServer::start(vec![Canned {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body: Body::Endless { announce: None, max: 1 << 30 },
    }])
    .await;
    let t0 = Instant::now();
    let err = OpenAiModel::new("test-model", client(&s.base_url())).unwrap().chat(&request()).await.unwrap_err();
    let LlmError::BadReply { faults, raw, reason } = &err else { panic!("{err:?}") };
    assert_eq!((faults.len(), faults[0].kind.as_str()), (1, "body_too_large"), "{faults:?}");
    assert!(reason.contains("went on past"), "{reason}");
    assert!(raw.len() <= 4096, "only the start of the body is kept, not {} bytes", raw.len());
    assert!(t0.elapsed() < Duration::from_secs(10), "{:?}", t0.elapsed());
}

#[tokio::test]
async fn the_reply_limit_is_configurable() {
    let text = "x".repeat(3000);
    let s = CannedServer::start(vec![Canned::reply(&text)]).await;
    let mut cfg = client(&s.base_url());
    cfg.max_reply_bytes = 1000;
    let err = OpenAiModel::new("test-model", cfg.clone()).unwrap().chat(&request()).await.unwrap_err();
    assert_eq!(err.faults()[0].kind, "body_too_large", "{err}");
    cfg.max_reply_bytes = 4000;
    assert_eq!(OpenAiModel::new("test-model", cfg).unwrap().chat(&request()).await.unwrap().text, text);
}

#[tokio::test]
async fn refusals_are_fatal_carry_the_servers_text_and_no_credentials() {
    let cases = [
        (
            400,
            Canned::openai_error(
                400,
                "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
            ),
            "maximum context length is 8192 tokens",
            "HTTP 400 Bad Request",
        ),
        (
            401,
            Canned { status: 401, headers: vec![], body: Body::Text("Unauthorized".into()) },
            "Unauthorized",
            "OPENAI_API_KEY",
        ),
        (
            403,
            Canned::json(403, r#"{"error":"this key may not use gpt-5"}"#),
            "this key may not use gpt-5",
            "HTTP 403 Forbidden",
        ),
        (
            404,
            Canned::json(404, r#"{"error":"model \"llama9\" not found, try pulling it first"}"#),
            "model \"llama9\" not found",
            "check --model and --base-url",
        ),
        (422, Canned::json(422, r#"{"detail":[{"msg":"field required"}]}"#), "field required", "HTTP 422"),
    ];
    for (status, canned, text, shown_part) in cases {
        let s = CannedServer::start(vec![canned]).await;
        let url = format!("http://alice:hunter2@{}/v1", s.addr);
        let err = OpenAiModel::new("test-model", client(&url)).unwrap().chat(&request()).await.unwrap_err();
        let LlmError::Refused { status: got, message, url, faults } = &err else { panic!("{status}: {err:?}") };
        assert_eq!(*got, status);
        assert!(message.contains(text), "{status}: {message}");
        assert_eq!(faults.len(), 1, "{status}: a refusal is not retried");
        assert_eq!(s.hits(), 1);
        assert!(err.is_fatal());
        let shown = err.to_string();
        assert!(shown.contains(shown_part), "{status}: {shown}");
        for secret in ["hunter2", "alice"] {
            assert!(!shown.contains(secret) && !url.contains(secret), "{status}: {shown}");
        }
        // The credentials still reached the server (as basic auth), only the messages drop them.
        assert!(s.last_request.lock().unwrap().to_lowercase().contains("authorization: basic"), "{status}");
    }
}

#[tokio::test]
async fn server_token_counts_are_taken_as_given_and_never_wrap() {
    let s = CannedServer::start(vec![Canned::reply_with_usage("hi", u64::MAX, u64::MAX)]).await;
    let model = OpenAiModel::new("test-model", client(&s.base_url())).unwrap();
    let mut total = model.chat(&request()).await.unwrap().usage;
    assert_eq!(total.prompt_tokens, u64::MAX);
    total.add(model.chat(&request()).await.unwrap().usage);
    assert_eq!((total.prompt_tokens, total.completion_tokens), (u64::MAX, u64::MAX), "saturated, not wrapped");
}

fn bin() -> Command {
    let mut c = crate::support::bin();
    c.env_remove("OPENAI_API_KEY").env_remove("OPENAI_BASE_URL");
    c
}

/// A ProAgent whose server reports absurd token counts plays on: its metrics, the play
/// summary, the eval record and the eval report all saturate instead of panicking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn absurd_token_counts_saturate_in_play_eval_and_reports() {
    let s =
        CannedServer::start(vec![Canned::reply_with_usage("Plan for Player 0: \"pickup(onion)\"", u64::MAX, 7)]).await;
    let dir = tempfile::tempdir().unwrap();
    let mut play = bin();
    play.args(["play", "--horizon", "12", "--json", "--no-transcript", "--model", "m", "--base-url", &s.base_url()]);
    let out = run(play).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["llm_calls"].as_u64().unwrap() >= 2, "{v}");
    assert_eq!(v["prompt_tokens"].as_u64(), Some(u64::MAX), "{v}");
    assert_eq!(v["llm_failures"], 0);

    let mut eval = bin();
    eval.args(["eval", "--layouts", "cramped_room", "--agents", "proagent", "--partners", "greedy,stay"])
        .args(["--seats", "0", "--horizon", "12", "--quiet", "--model", "m", "--base-url", &s.base_url()])
        .arg("--out")
        .arg(dir.path());
    let out = run(eval).await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let results = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = results.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(records.len(), 2);
    assert!(records.iter().all(|r| r["prompt_tokens"].as_u64() == Some(u64::MAX)), "{results}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(report["totals"]["prompt_tokens"].as_u64(), Some(u64::MAX), "two records of u64::MAX tokens");
}

#[tokio::test]
async fn mock_server_closes_idle_and_stalling_connections() {
    let cfg = MockConfig { idle_timeout: Duration::from_millis(300), ..MockConfig::default() };
    let s = MockServer::start_local(Arc::new(EchoPlanner), cfg).await.unwrap();
    let within = Duration::from_secs(5);
    let mut buf = [0u8; 4096];

    // Connects and says nothing: closed.
    let mut c = tokio::net::TcpStream::connect(s.addr()).await.unwrap();
    let n = tokio::time::timeout(within, c.read(&mut buf)).await.expect("an idle connection is closed");
    assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");

    // Half a request head, then silence: closed.
    let mut c = tokio::net::TcpStream::connect(s.addr()).await.unwrap();
    c.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n").await.unwrap();
    let t0 = Instant::now();
    let mut seen = Vec::new();
    loop {
        match tokio::time::timeout(within, c.read(&mut buf)).await.expect("a stalled head is closed") {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    assert!(t0.elapsed() < within);

    // A head announcing 100 bytes of body, then 10 and silence: 408.
    let mut c = tokio::net::TcpStream::connect(s.addr()).await.unwrap();
    c.write_all(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"model\":").await.unwrap();
    let mut reply = Vec::new();
    loop {
        match tokio::time::timeout(within, c.read(&mut buf)).await.expect("a stalled body is answered") {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                reply.extend_from_slice(&buf[..n]);
                if reply.windows(4).any(|w| w == b"\r\n\r\n") {
                    break;
                }
            }
        }
    }
    assert!(text(&reply).starts_with("HTTP/1.1 408"), "{}", text(&reply));

    // A keep-alive connection that goes quiet after a request is closed too.
    let mut c = tokio::net::TcpStream::connect(s.addr()).await.unwrap();
    c.write_all(b"GET /v1/models HTTP/1.1\r\nhost: x\r\n\r\n").await.unwrap();
    let mut got = Vec::new();
    loop {
        match tokio::time::timeout(within, c.read(&mut buf)).await.expect("the idle keep-alive is closed") {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    assert!(text(&got).starts_with("HTTP/1.1 200"), "{}", text(&got));
    assert_eq!(s.stats().rejected, 1, "the stalled body");
    s.shutdown().await;
}

#[tokio::test]
async fn mock_server_stats_stay_bounded() {
    let cfg = MockConfig { sequence_cap: 4, ..MockConfig::default() };
    let s = MockServer::start_local(Arc::new(EchoPlanner), cfg).await.unwrap();
    let model = OpenAiModel::new("test-model", client(&s.base_url())).unwrap();
    for _ in 0..10 {
        model.chat(&request()).await.unwrap();
    }
    let st = s.stats();
    assert_eq!((st.requests, st.ok), (10, 10));
    assert_eq!(st.sequence.len(), 4, "only the most recent entries are kept");
    assert_eq!(st.sequence_dropped, 6);
    proagent::llm::http::install_tls_provider();
    let body = reqwest::get(format!("{}/stats", s.base_url())).await.unwrap().text().await.unwrap();
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["sequence"].as_array().unwrap().len(), 4);
    s.shutdown().await;
}

#[test]
fn backoff_flags_are_range_checked() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["chat", "--backoff-ms", "5000", "--backoff-max-ms", "100"],
            "--backoff-ms (5000) must not be larger than --backoff-max-ms (100)",
        ),
        (&["chat", "--backoff-ms", "40000"], "--backoff-ms (40000) must not be larger than --backoff-max-ms (30000)"),
        (&["chat", "--backoff-max-ms", "99999999999"], "99999999999 is not in 0..=3600000"),
        (&["qa", "--backoff-ms", "40000"], "--backoff-ms (40000) must not be larger than --backoff-max-ms (30000)"),
    ];
    for (args, expected) in cases {
        let mut cmd = bin();
        cmd.args(args).args([
            "--model",
            "m",
            "--base-url",
            &format!("http://127.0.0.1:{}/v1", crate::fake_server::dead_port()),
        ]);
        if args[0] == "chat" {
            cmd.arg("hello");
        } else {
            cmd.args(["--no-transcript", "--no-progress", "--trials", "1"]);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains(expected), "{args:?}: {}", text(&out.stderr));
    }
}
