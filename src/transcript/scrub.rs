//! Secret scrubbing: configured strings (API keys) wherever they occur,
//! `Bearer` tokens, and the values of secret-named keys are replaced by
//! [`REDACTED`] in everything a transcript writer writes.

use serde_json::Value;
use std::borrow::Cow;

/// What replaces a secret in anything written.
pub const REDACTED: &str = "[REDACTED]";

/// Object keys whose values are always redacted, whatever they hold.
const SECRET_KEYS: &[&str] = &["api_key", "apikey", "openai_api_key", "authorization", "proxy-authorization"];

/// Removes secrets from everything a writer writes: configured strings (API keys)
/// wherever they occur, `Bearer` tokens, and the values of keys such as `api_key`
/// or `authorization`.
#[derive(Clone, Default)]
pub struct Scrubber {
    secrets: Vec<String>,
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scrubber({} secrets)", self.secrets.len())
    }
}

impl Scrubber {
    /// A scrubber that knows no secrets yet (it still redacts bearer tokens and secret-named keys).
    pub fn new() -> Self {
        Scrubber::default()
    }

    /// A scrubber that knows the values of `OPENAI_API_KEY` and any other `*_API_KEY`
    /// or `*_TOKEN` environment variable.
    pub fn from_env() -> Self {
        let mut s = Scrubber::new();
        for (name, value) in std::env::vars_os() {
            let name = name.to_string_lossy().to_ascii_uppercase();
            if name.ends_with("_API_KEY") || name.ends_with("_TOKEN") {
                if let Some(v) = value.to_str() {
                    s.add(v);
                }
            }
        }
        s
    }

    /// Adds a secret. Very short values are ignored: redacting every "abc" in
    /// prompts would destroy the transcript, and no real key is that short.
    pub fn add(&mut self, secret: &str) {
        let secret = secret.trim();
        if secret.chars().count() < 8 {
            return;
        }
        // Inside JSON text a secret with quotes or backslashes appears escaped.
        let escaped = serde_json::to_string(secret).map(|q| q[1..q.len() - 1].to_string()).unwrap_or_default();
        for form in [secret.to_string(), escaped] {
            if !form.is_empty() && !self.secrets.contains(&form) {
                self.secrets.push(form);
            }
        }
    }

    /// [`Scrubber::add`], builder style.
    pub fn with(mut self, secret: &str) -> Self {
        self.add(secret);
        self
    }

    /// The text with every known secret and every bearer token replaced.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = Cow::Owned(out.replace(s.as_str(), REDACTED));
            }
        }
        if contains_ignore_case(&out, "bearer ") {
            out = Cow::Owned(redact_bearer(&out));
        }
        out
    }

    /// Scrubs every string of a JSON value, and blanks secret-named keys.
    pub fn scrub_value(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                if let Cow::Owned(clean) = self.scrub(s) {
                    *s = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.scrub_value(i)),
            Value::Object(map) => {
                for (k, val) in map.iter_mut() {
                    if SECRET_KEYS.contains(&k.to_ascii_lowercase().as_str()) && !val.is_null() {
                        *val = Value::String(REDACTED.into());
                    } else {
                        self.scrub_value(val);
                    }
                }
            }
            _ => {}
        }
    }
}

fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    hay.to_ascii_lowercase().contains(needle)
}

/// "Bearer sk-abc" → "Bearer [REDACTED]" (case-insensitive scheme).
fn redact_bearer(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(found) = lower[i..].find("bearer ") {
        let start = i + found + "bearer ".len();
        out.push_str(&text[i..start]);
        let token_len = text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/=".contains(c)))
            .unwrap_or(text.len() - start);
        if token_len > 0 {
            out.push_str(REDACTED);
        }
        i = start + token_len;
    }
    out.push_str(&text[i..]);
    out
}
