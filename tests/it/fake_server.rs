//! A loopback HTTP server that answers every request with canned responses, for the
//! failures the mock server does not produce: refusals (400/401/403/404), odd
//! `Retry-After` values, and bodies too large to read. It speaks just enough
//! HTTP/1.1: it reads the request head and body, writes one response and closes.

#![allow(dead_code)] // each test file uses part of it

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// What the body of a canned response is.
#[derive(Clone, Debug)]
pub enum Body {
    /// This text.
    Text(String),
    /// Zeros until the client hangs up (or `max` bytes), announced with a
    /// `Content-Length` of `announce` or, without one, sent chunked.
    Endless { announce: Option<u64>, max: u64 },
}

/// One response.
#[derive(Clone, Debug)]
pub struct Canned {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Body,
}

impl Canned {
    /// A JSON response.
    pub fn json(status: u16, body: impl Into<String>) -> Self {
        Canned {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: Body::Text(body.into()),
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// OpenAI's error object.
    pub fn openai_error(status: u16, message: &str) -> Self {
        let body = serde_json::json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}});
        Canned::json(status, body.to_string())
    }

    /// A well-formed chat completion saying `text`.
    pub fn reply(text: &str) -> Self {
        Canned::reply_with_usage(text, 12, 3)
    }

    /// A chat completion with the given usage numbers (any u64, as a server may send).
    pub fn reply_with_usage(text: &str, prompt: u64, completion: u64) -> Self {
        let body = format!(
            r#"{{"choices":[{{"index":0,"message":{{"role":"assistant","content":{}}},"finish_reason":"stop"}}],"usage":{{"prompt_tokens":{prompt},"completion_tokens":{completion}}}}}"#,
            serde_json::to_string(text).unwrap()
        );
        Canned::json(200, body)
    }
}

/// A running canned server.
pub struct CannedServer {
    pub addr: SocketAddr,
    /// Requests answered so far.
    pub hits: Arc<AtomicUsize>,
    /// The last request head (and body) received, for checking what the client sent.
    pub last_request: Arc<std::sync::Mutex<String>>,
    /// Every request's body, in the order they arrived (a recording server).
    pub requests: Arc<std::sync::Mutex<Vec<String>>>,
    task: JoinHandle<()>,
}

impl CannedServer {
    /// Answers request i with `script[i]`, and every later one with the last entry.
    pub async fn start(script: Vec<Canned>) -> CannedServer {
        assert!(!script.is_empty());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let hits = Arc::new(AtomicUsize::new(0));
        let last_request = Arc::new(std::sync::Mutex::new(String::new()));
        let requests = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (h, l, r) = (hits.clone(), last_request.clone(), requests.clone());
        let task = tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else { return };
                let (script, hits, last, all) = (script.clone(), h.clone(), l.clone(), r.clone());
                tokio::spawn(async move {
                    let _ = answer(stream, &script, &hits, &last, &all).await;
                });
            }
        });
        CannedServer { addr, hits, last_request, requests, task }
    }

    /// `http://ADDR/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Requests answered so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }

    /// The JSON body of every request received so far, in order.
    pub fn request_bodies(&self) -> Vec<serde_json::Value> {
        self.requests
            .lock()
            .unwrap()
            .iter()
            .map(|r| {
                let body = r.split_once("\r\n\r\n").map_or("", |(_, b)| b);
                serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}"))
            })
            .collect()
    }
}

impl Drop for CannedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn answer(
    mut s: TcpStream,
    script: &[Canned],
    hits: &AtomicUsize,
    last: &std::sync::Mutex<String>,
    all: &std::sync::Mutex<Vec<String>>,
) -> std::io::Result<()> {
    // The request head, then as much body as it announces.
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut chunk)).await??;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_lowercase();
    let len: usize =
        head.lines().find_map(|l| l.strip_prefix("content-length:")).and_then(|v| v.trim().parse().ok()).unwrap_or(0);
    while buf.len() < head_end + len {
        let n = tokio::time::timeout(Duration::from_secs(10), s.read(&mut chunk)).await??;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    *last.lock().unwrap() = String::from_utf8_lossy(&buf).into_owned();
    // Recorded and counted under one lock, so the i-th request gets the i-th answer.
    let i = {
        let mut all = all.lock().unwrap();
        all.push(String::from_utf8_lossy(&buf).into_owned());
        hits.fetch_add(1, Ordering::SeqCst)
    };
    let c = &script[i.min(script.len() - 1)];
    let mut out = format!("HTTP/1.1 {} Canned\r\nconnection: close\r\n", c.status);
    for (k, v) in &c.headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    match &c.body {
        Body::Text(t) => {
            out.push_str(&format!("content-length: {}\r\n\r\n", t.len()));
            s.write_all(out.as_bytes()).await?;
            s.write_all(t.as_bytes()).await?;
        }
        Body::Endless { announce, max } => {
            match announce {
                Some(n) => out.push_str(&format!("content-length: {n}\r\n\r\n")),
                None => out.push_str("transfer-encoding: chunked\r\n\r\n"),
            }
            s.write_all(out.as_bytes()).await?;
            let block = vec![b' '; 64 * 1024];
            let mut sent = 0u64;
            // Stops with an error as soon as the client hangs up.
            while sent < *max {
                if announce.is_none() {
                    s.write_all(format!("{:x}\r\n", block.len()).as_bytes()).await?;
                }
                s.write_all(&block).await?;
                if announce.is_none() {
                    s.write_all(b"\r\n").await?;
                }
                sent += block.len() as u64;
            }
        }
    }
    s.flush().await?;
    Ok(())
}

/// A loopback port with nothing listening on it (bound, then released).
pub fn dead_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}
