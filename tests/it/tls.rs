//! The HTTPS path of the HTTP backend: reqwest is built without a crypto provider of
//! its own (src/llm/http.rs installs rustls' ring provider), so an `https://` base URL
//! must give a working TLS client, and a server that does not speak TLS must end in a
//! recorded, retried fault, never a panic.

use proagent::llm::http::{HttpConfig, OpenAiModel};
use proagent::llm::{ChatRequest, LanguageModel, LlmError, Message, Sampling};
use std::io::Write;
use std::time::Duration;

#[tokio::test]
async fn https_against_a_plain_tcp_server_is_a_recorded_fault() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Answers every connection with plain text: not a TLS server hello.
    let server = std::thread::spawn(move || {
        for _ in 0..2 {
            if let Ok((mut s, _)) = listener.accept() {
                let _ = s.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
            }
        }
    });
    let mut cfg = HttpConfig::new();
    cfg.base_url = format!("https://127.0.0.1:{port}/v1");
    cfg.max_retries = 1;
    cfg.backoff_base = Duration::from_millis(1);
    cfg.connect_timeout = Duration::from_secs(2);
    cfg.request_timeout = Duration::from_secs(2);
    let model = OpenAiModel::new("m", cfg).expect("an https client builds");
    let request = ChatRequest::new(vec![Message::user("Scene 0: hello")], Sampling::default());
    let err = model.chat(&request).await.expect_err("no TLS server there");
    match &err {
        LlmError::Unreachable { faults } => assert_eq!(faults.len(), 2, "{faults:?}"),
        other => panic!("expected a retried transport fault, got {other:?}"),
    }
    let _ = server.join();
}
