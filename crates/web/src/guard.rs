//! The checks every request to `proagent serve` passes before it reaches a handler, so
//! that another web page the user visits cannot use the server (cross-site requests,
//! DNS rebinding) and a request that is not the page's own is refused:
//!
//! - **Host** must name this server: `localhost`, or an IP address literal, with the
//!   server's port (a DNS-rebinding page sends its own host name), or a host name given
//!   with `--allow-host`;
//! - **Origin**, when sent (browsers send it with every POST and every cross-origin
//!   request), must be `http://` + that Host; **Sec-Fetch-Site**, when sent, must be
//!   `same-origin` or `none` (an `<img>` or a form on another site says `cross-site`);
//! - every `/api/` request carries the **token** of this server start in the
//!   `x-proagent-token` header; the page gets it inside its HTML (another origin cannot
//!   read that page, and a custom header forces a CORS preflight that this server never
//!   grants);
//! - a body is read only with its own content type: JSON endpoints take
//!   `application/json` only, uploads `application/octet-stream` only (never the types a
//!   plain HTML form or a "simple" cross-site request can send: `text/plain`, forms).
//!
//! Every refusal is a JSON error with status 403 (415 for a content type) that says which
//! rule failed, and is decided from the headers alone: no body is read.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;
use std::sync::Arc;

/// The header the page sends the token in.
pub const TOKEN_HEADER: &str = "x-proagent-token";

/// What a request must match.
#[derive(Clone, Debug)]
pub struct Guard {
    /// The token of this server start (the page receives it).
    pub token: String,
    /// The port the server listens on.
    pub port: u16,
    /// Host names accepted besides `localhost` and IP literals (`--allow-host`).
    pub hosts: Vec<String>,
}

/// A fresh token from the operating system's random source (hex, 128 bits).
pub fn new_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Compares in time independent of where the strings differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn refuse(status: StatusCode, message: String) -> Response {
    (status, axum::Json(json!({ "error": message }))).into_response()
}

/// What a body's content type must be for this method and path (`None`: no body is read).
fn body_type(method: &Method, path: &str) -> Option<&'static str> {
    if method != Method::POST {
        return None;
    }
    if path == "/api/upload" {
        Some("application/octet-stream")
    } else if path == "/api/play" || path.ends_with("/key") {
        Some("application/json")
    } else {
        None
    }
}

impl Guard {
    /// Whether a Host header value names this server.
    pub fn host_ok(&self, host: &str) -> bool {
        let (name, port) = match host.rsplit_once(':') {
            Some((n, p)) if !n.ends_with(']') || n.starts_with('[') => (n, p),
            _ => return false,
        };
        if port.parse::<u16>().ok() != Some(self.port) {
            return false;
        }
        let name = name.to_ascii_lowercase();
        if name == "localhost" || self.hosts.iter().any(|h| h.eq_ignore_ascii_case(&name)) {
            return true;
        }
        match name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
            Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
            None => name.parse::<std::net::Ipv4Addr>().is_ok(),
        }
    }

    /// The reason a request is refused, if it is.
    pub fn check(&self, method: &Method, path: &str, headers: &HeaderMap) -> Result<(), (StatusCode, String)> {
        let forbidden = |m: String| Err((StatusCode::FORBIDDEN, m));
        let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
        if !self.host_ok(host) {
            return forbidden(format!(
                "Host {host:?} does not name this server (open it as http://127.0.0.1:{}/ or http://localhost:{}/; other names need --allow-host)",
                self.port, self.port
            ));
        }
        if let Some(origin) = headers.get(header::ORIGIN) {
            let origin = origin.to_str().unwrap_or("");
            if !origin.eq_ignore_ascii_case(&format!("http://{host}")) {
                return forbidden(format!(
                    "Origin {origin:?} is not this server's own (requests from other pages are refused)"
                ));
            }
        }
        if let Some(site) = headers.get("sec-fetch-site") {
            let site = site.to_str().unwrap_or("");
            if site != "same-origin" && site != "none" {
                return forbidden(format!(
                    "a {site} request (Sec-Fetch-Site); only this server's own page may call it"
                ));
            }
        }
        if path.starts_with("/api/") {
            let sent = headers.get(TOKEN_HEADER).map(|v| v.as_bytes()).unwrap_or(b"");
            if !same(sent, self.token.as_bytes()) {
                return forbidden(format!(
                    "missing or wrong {TOKEN_HEADER} header: the API answers only the page this server start served (reload it)"
                ));
            }
        }
        if let Some(want) = body_type(method, path) {
            let got = headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
            let essence = got.split(';').next().unwrap_or("").trim();
            if !essence.eq_ignore_ascii_case(want) {
                return Err((
                    StatusCode::UNSUPPORTED_MEDIA_TYPE,
                    format!("this endpoint takes a body of Content-Type {want}, not {got:?}"),
                ));
            }
        }
        Ok(())
    }
}

/// The middleware: refuses a request that fails [`Guard::check`].
pub async fn guard(State(g): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    match g.check(req.method(), req.uri().path(), req.headers()) {
        Ok(()) => next.run(req).await,
        Err((status, message)) => {
            tracing::debug!("serve: refused {} {}: {message}", req.method(), req.uri().path());
            refuse(status, message)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn g() -> Guard {
        Guard { token: "t0k".into(), port: 8080, hosts: vec!["lab-box".into()] }
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn hosts_name_this_server_or_are_refused() {
        let g = g();
        for ok in ["127.0.0.1:8080", "localhost:8080", "LOCALHOST:8080", "[::1]:8080", "10.0.0.2:8080", "lab-box:8080"]
        {
            assert!(g.host_ok(ok), "{ok}");
        }
        for bad in ["evil.example:8080", "127.0.0.1:9000", "127.0.0.1", "", "[::1]", "localhost.evil:8080"] {
            assert!(!g.host_ok(bad), "{bad}");
        }
    }

    #[test]
    fn origin_token_and_content_type_rules() {
        let g = g();
        let post = Method::POST;
        let base = [("host", "127.0.0.1:8080"), (TOKEN_HEADER, "t0k"), ("content-type", "application/json")];
        assert!(g.check(&post, "/api/play", &headers(&base)).is_ok());
        // From another page: its Origin, or its Sec-Fetch-Site.
        let mut h = headers(&base);
        h.insert(header::ORIGIN, HeaderValue::from_static("http://evil.example"));
        assert_eq!(g.check(&post, "/api/play", &h).unwrap_err().0, StatusCode::FORBIDDEN);
        let mut h = headers(&base);
        h.insert(header::ORIGIN, HeaderValue::from_static("http://127.0.0.1:8080"));
        assert!(g.check(&post, "/api/play", &h).is_ok());
        let mut h = headers(&base);
        h.insert("sec-fetch-site", HeaderValue::from_static("cross-site"));
        assert!(g.check(&Method::GET, "/api/files", &h).is_err());
        // No token, or a wrong one.
        let h = headers(&[("host", "127.0.0.1:8080"), ("content-type", "application/json")]);
        assert!(g.check(&post, "/api/play", &h).unwrap_err().1.contains("x-proagent-token"));
        let h = headers(&[("host", "127.0.0.1:8080"), (TOKEN_HEADER, "t0x")]);
        assert!(g.check(&Method::GET, "/api/files", &h).is_err());
        // The page itself needs no token.
        assert!(g.check(&Method::GET, "/", &headers(&[("host", "localhost:8080")])).is_ok());
        // text/plain (a "simple" cross-site POST) is not JSON here.
        let h = headers(&[("host", "127.0.0.1:8080"), (TOKEN_HEADER, "t0k"), ("content-type", "text/plain")]);
        assert_eq!(g.check(&post, "/api/play", &h).unwrap_err().0, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert!(g.check(&post, "/api/upload", &h).is_err());
        let h = headers(&[
            ("host", "127.0.0.1:8080"),
            (TOKEN_HEADER, "t0k"),
            ("content-type", "application/json; charset=utf-8"),
        ]);
        assert!(g.check(&post, "/api/play/abc/key", &h).is_ok());
    }

    #[test]
    fn tokens_are_fresh() {
        let (a, b) = (new_token().unwrap(), new_token().unwrap());
        assert_eq!(a.len(), 32);
        assert_ne!(a, b);
    }
}
