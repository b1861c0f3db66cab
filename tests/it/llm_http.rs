//! The OpenAI-compatible HTTP backend against the in-process mock server on
//! 127.0.0.1: replies, usage, every injected fault retried and recorded,
//! Retry-After, timeouts, exhaustion, concurrency, and the API-key canary.

use proagent::llm::http::{ApiKey, HttpConfig, OpenAiModel};
use proagent::llm::{ChatRequest, LanguageModel, LlmError, Message, Sampling};
use proagent_mock::{EchoPlanner, MockConfig, MockFault, MockServer, PROSE_REPLY};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn request(n: usize) -> ChatRequest {
    ChatRequest::new(
        vec![
            Message::system("You are a cooperative chef in Overcooked."),
            Message::user(format!("Scene {n}: the pot is empty. Plan for Player 1:")),
        ],
        Sampling::default(),
    )
}

/// Client settings for loopback tests: short timeouts and backoffs.
fn client_cfg(server: &MockServer) -> HttpConfig {
    let mut cfg = HttpConfig::new();
    cfg.base_url = server.base_url();
    cfg.connect_timeout = Duration::from_secs(2);
    cfg.request_timeout = Duration::from_millis(800);
    cfg.max_retries = 3;
    cfg.backoff_base = Duration::from_millis(5);
    cfg.backoff_max = Duration::from_millis(20);
    cfg
}

async fn server(cfg: MockConfig) -> MockServer {
    MockServer::start_local(Arc::new(EchoPlanner), cfg).await.expect("bind 127.0.0.1:0")
}

fn plan(faults: &[Option<MockFault>]) -> MockConfig {
    MockConfig {
        fault_plan: faults.to_vec(),
        retry_after_secs: 0,
        hang: Duration::from_secs(3),
        ..MockConfig::default()
    }
}

#[tokio::test]
async fn happy_path_returns_the_responders_reply_and_usage() {
    let s = server(MockConfig::default()).await;
    let model = OpenAiModel::new("test-model", client_cfg(&s)).unwrap();
    let req = request(1);
    let reply = model.chat(&req).await.unwrap();
    let direct = EchoPlanner.chat(&req).await.unwrap();
    assert_eq!(reply.text, direct.text);
    assert!(reply.text.contains("Plan for Player 1:"), "{}", reply.text);
    assert_eq!(reply.usage, direct.usage, "usage comes from the server's usage field");
    assert_eq!(reply.attempts, 1);
    assert!(reply.faults.is_empty());
    assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
    assert_eq!(model.name(), "test-model");
    let st = s.stats();
    assert_eq!((st.requests, st.ok), (1, 1));
    s.shutdown().await;
}

#[tokio::test]
async fn each_fault_kind_is_retried_and_recorded() {
    let cases = [
        (MockFault::RateLimited, "status_429"),
        (MockFault::ServerError, "status_500"),
        (MockFault::Hang, "timeout"),
        (MockFault::Truncated, "bad_body"),
        (MockFault::EmptyChoices, "empty_choices"),
    ];
    for (fault, kind) in cases {
        let s = server(plan(&[Some(fault)])).await;
        let model = OpenAiModel::new("test-model", client_cfg(&s)).unwrap();
        let reply = model.chat(&request(2)).await.unwrap_or_else(|e| panic!("{fault:?}: {e}"));
        assert_eq!(reply.attempts, 2, "{fault:?}");
        assert_eq!(reply.faults.len(), 1, "{fault:?}");
        assert_eq!(reply.faults[0].kind, kind, "{fault:?}: {}", reply.faults[0].detail);
        assert_eq!(reply.faults[0].attempt, 1);
        assert!(reply.faults[0].detail.contains("retrying in"), "{}", reply.faults[0].detail);
        assert_eq!(s.stats().requests, 2);
        s.shutdown().await;
    }
}

#[tokio::test]
async fn prose_passes_through_as_text() {
    let s = server(plan(&[Some(MockFault::Prose)])).await;
    let model = OpenAiModel::new("test-model", client_cfg(&s)).unwrap();
    let reply = model.chat(&request(3)).await.unwrap();
    assert_eq!(reply.text, PROSE_REPLY);
    assert_eq!(reply.attempts, 1);
    s.shutdown().await;
}

#[tokio::test]
async fn exhausted_retries_are_unreachable_with_every_fault() {
    let s = server(plan(&[Some(MockFault::ServerError); 10])).await;
    let model = OpenAiModel::new("test-model", client_cfg(&s)).unwrap();
    let err = model.chat(&request(4)).await.unwrap_err();
    let LlmError::Unreachable { faults } = &err else { panic!("{err:?}") };
    assert_eq!(faults.len(), 4, "1 attempt + 3 retries");
    for (i, f) in faults.iter().enumerate() {
        assert_eq!(f.attempt, i as u32 + 1);
        assert_eq!(f.kind, "status_500");
    }
    assert!(!faults[3].detail.contains("retrying"), "the last attempt is not retried");
    assert!(err.to_string().contains("after 4 attempts"), "{err}");
    assert_eq!(s.stats().requests, 4);
    s.shutdown().await;
}

#[tokio::test]
async fn empty_choices_every_time_is_a_bad_reply_with_the_raw_body() {
    let s = server(plan(&[Some(MockFault::EmptyChoices); 10])).await;
    let model = OpenAiModel::new("test-model", client_cfg(&s)).unwrap();
    let err = model.chat(&request(5)).await.unwrap_err();
    let LlmError::BadReply { raw, faults, .. } = &err else { panic!("{err:?}") };
    assert!(raw.contains(r#""choices":[]"#), "{raw}");
    assert_eq!(faults.len(), 4);
    assert!(faults.iter().all(|f| f.kind == "empty_choices"));
    s.shutdown().await;
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let cfg =
        MockConfig { fault_plan: vec![Some(MockFault::RateLimited)], retry_after_secs: 1, ..MockConfig::default() };
    let s = server(cfg).await;
    let model = OpenAiModel::new("test-model", client_cfg(&s)).unwrap();
    let started = Instant::now();
    let reply = model.chat(&request(6)).await.unwrap();
    let waited = started.elapsed();
    assert!(waited >= Duration::from_secs(1), "waited only {waited:?} despite Retry-After: 1");
    assert_eq!(reply.faults[0].kind, "status_429");
    assert!(reply.faults[0].detail.contains("Retry-After 1000 ms"), "{}", reply.faults[0].detail);
    s.shutdown().await;
}

#[tokio::test]
async fn connection_refused_is_unreachable() {
    // Bind and release a port so nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut cfg = HttpConfig::new();
    cfg.base_url = format!("http://127.0.0.1:{port}/v1");
    cfg.max_retries = 2;
    cfg.backoff_base = Duration::from_millis(1);
    let err = OpenAiModel::new("m", cfg).unwrap().chat(&request(7)).await.unwrap_err();
    let LlmError::Unreachable { faults } = &err else { panic!("{err:?}") };
    assert_eq!(faults.len(), 3);
    assert!(faults.iter().all(|f| f.kind == "connect"), "{faults:?}");
}

#[tokio::test]
async fn wrong_key_is_not_retried_and_right_key_works() {
    let cfg = MockConfig { api_key: Some("sk-right-key-123".into()), ..MockConfig::default() };
    let s = server(cfg).await;
    let mut c = client_cfg(&s);
    c.api_key = ApiKey::new("sk-wrong-key-456");
    let err = OpenAiModel::new("m", c.clone()).unwrap().chat(&request(8)).await.unwrap_err();
    let LlmError::Refused { status, message, faults, .. } = &err else { panic!("{err:?}") };
    assert_eq!(faults.len(), 1, "a 401 is not retried");
    assert_eq!(faults[0].kind, "status_401");
    assert_eq!(*status, 401);
    assert_eq!(message, "Incorrect API key provided.", "the server's error.message");
    assert!(err.is_fatal(), "a refused configuration stops the run");
    let shown = err.to_string();
    assert!(shown.contains("HTTP 401 Unauthorized") && shown.contains("OPENAI_API_KEY"), "{shown}");
    assert!(!shown.contains("sk-wrong-key-456"), "{shown}");
    assert_eq!(s.stats().requests, 0, "a rejected key never reaches the model");
    c.api_key = ApiKey::new("sk-right-key-123");
    assert!(OpenAiModel::new("m", c).unwrap().chat(&request(8)).await.is_ok());
    s.shutdown().await;
}

/// Fault rate 0.3: every request ends (reply or error), and the client recorded
/// exactly the faults the server injected, kind by kind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seeded_fault_injection_is_fully_recorded() {
    async fn run(seed: u64) -> (Vec<String>, std::collections::BTreeMap<String, u64>, u64) {
        let cfg = MockConfig {
            fault_rate: 0.3,
            seed,
            retry_after_secs: 0,
            hang: Duration::from_secs(2),
            ..MockConfig::default()
        };
        let s = server(cfg).await;
        let mut c = client_cfg(&s);
        // Far above a loopback reply's few milliseconds, so only hangs time out.
        c.request_timeout = Duration::from_millis(750);
        c.max_retries = 6;
        let model = OpenAiModel::new("m", c).unwrap();
        let mut recorded: std::collections::BTreeMap<String, u64> = Default::default();
        let mut failures = 0;
        for n in 0..40 {
            let faults = match model.chat(&request(n)).await {
                Ok(r) => r.faults,
                Err(e) => {
                    failures += 1;
                    e.faults().to_vec()
                }
            };
            for f in faults {
                *recorded.entry(f.kind).or_insert(0) += 1;
            }
        }
        let st = s.stats();
        s.shutdown().await;
        let mut injected: std::collections::BTreeMap<String, u64> = Default::default();
        for (name, n) in &st.faults {
            let f: MockFault = name.parse().unwrap();
            if let Some(kind) = f.client_kind() {
                *injected.entry(kind.to_string()).or_insert(0) += n;
            }
        }
        eprintln!("seed {seed}: injected {:?}, {failures} requests failed after all retries", st.faults);
        assert_eq!(recorded, injected, "every injected fault is recorded by the client");
        assert!(st.faults.values().sum::<u64>() >= 5, "a 0.3 fault rate over 40+ requests injects faults: {st:?}");
        (st.sequence.into(), recorded, failures)
    }
    let ((seq_a, rec_a, fail_a), (seq_b, rec_b, fail_b)) = tokio::join!(run(11), run(11));
    assert_eq!(seq_a, seq_b, "same seed, same faults");
    assert_eq!((rec_a, fail_a), (rec_b, fail_b));
}

/// Requests in flight wait in parallel: 8 requests against 1000 ms of latency take
/// about one latency, not eight.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_overlap() {
    const N: usize = 8;
    let latency = Duration::from_millis(1000);
    let s = server(MockConfig { latency, ..MockConfig::default() }).await;
    let mut c = client_cfg(&s);
    c.request_timeout = Duration::from_secs(10);
    let model = Arc::new(OpenAiModel::new("m", c).unwrap());
    let started = Instant::now();
    let handles: Vec<_> = (0..N)
        .map(|n| {
            let m = model.clone();
            tokio::spawn(async move { m.chat(&request(n)).await })
        })
        .collect();
    for h in handles {
        assert!(h.await.unwrap().is_ok());
    }
    let elapsed = started.elapsed();
    eprintln!("{N} concurrent requests at {latency:?} latency took {elapsed:?}");
    assert!(elapsed >= latency);
    assert!(elapsed < latency * (N as u32) / 2, "{elapsed:?}: requests did not overlap");
    s.shutdown().await;
}

#[tokio::test]
async fn models_endpoint_lists_the_mock() {
    let s = server(MockConfig::default()).await;
    proagent::llm::http::install_tls_provider();
    let body = reqwest::get(format!("{}/models", s.base_url())).await.unwrap().text().await.unwrap();
    let v: async_openai::types::models::ListModelResponse = serde_json::from_str(&body).unwrap();
    assert_eq!(v.data[0].id, "proagent-mock");
    s.shutdown().await;
}

/// A server that answers every request with HTTP 400 and the request itself (line,
/// headers, body) as the body: the worst case of a proxy echoing what it got.
async fn echo_server() -> (u16, tokio::task::JoinHandle<()>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let task = tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let mut buf = vec![0u8; 65536];
            let n = sock.read(&mut buf).await.unwrap_or(0);
            let body = String::from_utf8_lossy(&buf[..n]).replace("\r\n", " | ");
            let reply = format!(
                "HTTP/1.1 400 Bad Request\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = sock.write_all(reply.as_bytes()).await;
        }
    });
    (port, task)
}

#[tokio::test]
async fn url_credentials_and_keys_stay_out_of_errors_faults_and_logs() {
    let password = "canarypass-h77";
    let query_key = "querycanary-h42";
    let api_key = "sk-canary-http-91";
    let basic = "dXNlcjpjYW5hcnlwYXNzLWg3Nw=="; // base64("user:canarypass-h77")
    // A real server behind a URL with credentials: the query stays after the endpoint path.
    let s = server(plan(&[Some(MockFault::ServerError)])).await;
    let mut cfg = client_cfg(&s);
    cfg.base_url = s.base_url().replacen("http://", &format!("http://user:{password}@"), 1) + "?api_key=" + query_key;
    let model = OpenAiModel::new("m", cfg.clone()).unwrap();
    let reply = model.chat(&request(1)).await.unwrap();
    assert_eq!(reply.attempts, 2, "the 500 was retried, the retry reached the endpoint");
    let mut seen = format!("{reply:?} {cfg:?} {}", model.url());
    s.shutdown().await;

    // A server echoing the request (path with the query key, Authorization header) into its error.
    let (port, task) = echo_server().await;
    for key in [None, Some(api_key)] {
        let mut cfg = HttpConfig::new();
        cfg.base_url = format!("http://user:{password}@127.0.0.1:{port}/v1?api_key={query_key}");
        cfg.api_key = key.and_then(ApiKey::new);
        cfg.max_retries = 0;
        let err = OpenAiModel::new("m", cfg).unwrap().chat(&request(2)).await.unwrap_err();
        // A 400 is a refusal of the run's configuration (never retried).
        let LlmError::Refused { faults, .. } = &err else { panic!("{err:?}") };
        assert_eq!(faults[0].kind, "status_400");
        let echo = &faults[0].detail;
        assert!(echo.contains("POST /v1/chat/completions?api_key=") && echo.contains("authorization:"), "{echo}");
        seen.push_str(&format!("{err} {err:?}"));
    }
    task.abort();
    // Nothing listening: the connect error.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut cfg = HttpConfig::new();
    cfg.base_url = format!("http://user:{password}@127.0.0.1:{closed}/v1?key={query_key}");
    cfg.max_retries = 0;
    let err = OpenAiModel::new("m", cfg).unwrap().chat(&request(3)).await.unwrap_err();
    seen.push_str(&format!("{err} {err:?}"));
    for c in [password, query_key, api_key, basic] {
        assert!(!seen.contains(c), "{c} leaked: {seen}");
    }
}
