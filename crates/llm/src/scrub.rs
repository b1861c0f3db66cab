//! Secrets out of everything proagent writes, prints or logs.
//!
//! A [`Scrubber`] knows secret *values* (API keys, `*_TOKEN` environment values,
//! the password of a base URL) and replaces every occurrence of them by
//! [`REDACTED`], together with `Bearer` tokens and the values of secret-named JSON
//! keys (`api_key`, `authorization`, ...). Every scrubbing call returns how many
//! replacements it made, so a record can say *that* it was scrubbed without saying
//! what was there.
//!
//! [`redact_url`] takes the credentials out of a URL (its user-info and the values of
//! secret-looking query parameters) before the URL is logged, printed or stored.
//!
//! Values that are secrets only by a naming convention (`FOO_TOKEN`) are added only if
//! they could be one ([`could_be_secret`]): at least [`MIN_SECRET_CHARS`] characters and
//! not one plain English word in any case ([`is_common_word`]; the word list is
//! SCOWL's, in `common_words.txt`). Scrubbing every "cooperative" or "coordination" out
//! of prompts would make a transcript unreadable, and no generated key looks like that.
//! Credentials given for the connection (the API key, a URL's password) are secrets by
//! where they stand and are added from [`MIN_CREDENTIAL_CHARS`] characters on
//! ([`Scrubber::add_credential`]).
//!
//! Guarantees: scrubbing is deterministic (the same secrets and text give the same
//! output) and idempotent (scrubbing scrubbed text changes nothing), so the same
//! request scrubbed when it is recorded and again when it is replayed gives the same
//! text and the same hash.

use super::ChatRequest;
use serde_json::Value;
use std::borrow::Cow;

/// What replaces a secret in anything written.
pub const REDACTED: &str = "[REDACTED]";

/// What replaces a secret query value in a URL (brackets would be percent-encoded there).
pub const URL_REDACTED: &str = "REDACTED";

/// Object keys whose values are always redacted, whatever they hold.
const SECRET_KEYS: &[&str] = &["api_key", "apikey", "openai_api_key", "authorization", "proxy-authorization"];

/// Secret values shorter than this (in characters) are ignored: redacting every
/// "onion" or "cooperative" in prompts would destroy the transcript, and no generated
/// key is that short.
pub const MIN_SECRET_CHARS: usize = 12;

/// Credentials given for the connection itself (the API key, the base URL's password or
/// user token, secret query values) are scrubbed from this many characters on, words or
/// not: they are secrets by where they stand, not by a naming convention.
pub const MIN_CREDENTIAL_CHARS: usize = 8;

/// English words of [`MIN_SECRET_CHARS`] letters or more, one per line in byte order,
/// after a `#` comment block (SCOWL's notice; `scripts/common_words.sh` makes it).
const COMMON_WORDS: &str = include_str!("common_words.txt");

/// Whether `value` is one plain English word (letters only, any case) from the shipped
/// word list: such a value is never treated as a secret, however it was named.
pub fn is_common_word(value: &str) -> bool {
    let value = value.trim();
    if value.is_empty() || !value.chars().all(char::is_alphabetic) {
        return false;
    }
    let lower = value.to_lowercase();
    static WORDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    let words = WORDS.get_or_init(|| COMMON_WORDS.lines().filter(|l| !l.starts_with('#')).collect());
    words.binary_search(&lower.as_str()).is_ok()
}

/// Whether a value may be a secret: long enough and not a plain word (see the module doc).
pub fn could_be_secret(value: &str) -> bool {
    let value = value.trim();
    value.chars().count() >= MIN_SECRET_CHARS && !is_common_word(value)
}

/// Replaces known secret values, `Bearer` tokens and secret-named JSON values by
/// [`REDACTED`]; see the module doc.
#[derive(Clone, Default)]
pub struct Scrubber {
    /// Every form a secret may take in text (as is, and JSON-escaped), longest first
    /// so that a secret containing another one is replaced whole.
    forms: Vec<String>,
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scrubber({} secret forms)", self.forms.len())
    }
}

impl PartialEq for Scrubber {
    fn eq(&self, other: &Self) -> bool {
        self.forms == other.forms
    }
}

impl Scrubber {
    /// A scrubber that knows no secret values (it still redacts `Bearer` tokens and
    /// secret-named keys).
    pub fn new() -> Self {
        Scrubber::default()
    }

    /// A scrubber that knows the values of `OPENAI_API_KEY` and of every other
    /// `*_API_KEY`, `*_TOKEN`, `*_SECRET` or `*_PASSWORD` environment variable (those
    /// that [`could_be_secret`]).
    pub fn from_env() -> Self {
        let mut s = Scrubber::new();
        for (name, value) in std::env::vars_os() {
            let name = name.to_string_lossy().to_ascii_uppercase();
            if ["_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD"].iter().any(|suffix| name.ends_with(suffix)) {
                if let Some(v) = value.to_str() {
                    s.add(v);
                }
            }
        }
        s
    }

    /// Adds a secret value; one that [`could_be_secret`] rules out (under
    /// [`MIN_SECRET_CHARS`] characters, or a plain word) is ignored.
    pub fn add(&mut self, secret: &str) {
        if could_be_secret(secret) {
            self.add_form(secret.trim());
        }
    }

    /// Adds a credential given for the connection (the API key, a URL's password): any
    /// value of [`MIN_CREDENTIAL_CHARS`] characters or more, plain word or not.
    pub fn add_credential(&mut self, credential: &str) {
        let credential = credential.trim();
        if credential.chars().count() >= MIN_CREDENTIAL_CHARS {
            self.add_form(credential);
        }
    }

    /// Adds a value as a secret, whatever it is (for tests that need a scrubber of
    /// older, stricter rules).
    #[cfg(test)]
    pub(crate) fn add_unchecked(&mut self, secret: &str) {
        self.add_form(secret);
    }

    fn add_form(&mut self, secret: &str) {
        // Inside JSON text (a raw reply body, a serialised record) a secret with quotes
        // or backslashes appears escaped.
        let escaped = serde_json::to_string(secret).map(|q| q[1..q.len() - 1].to_string()).unwrap_or_default();
        for form in [secret.to_string(), escaped] {
            if !form.is_empty() && !self.forms.contains(&form) {
                self.forms.push(form);
            }
        }
        self.forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    }

    /// The scrubber with one more secret.
    pub fn with(mut self, secret: &str) -> Self {
        self.add(secret);
        self
    }

    /// Adds the credentials a URL carries (see [`Scrubber::add_credential`]): the
    /// password of its user-info (or the user name when there is no password:
    /// `https://TOKEN@host` puts the token there), the `Authorization: Basic` value an
    /// HTTP client makes of them, and the values of secret-looking query parameters.
    pub fn add_url_credentials(&mut self, url: &str) {
        let parts = UrlParts::split(url);
        if let Some(userinfo) = parts.userinfo {
            let (user, password) = match userinfo.split_once(':') {
                Some((u, p)) => (u, Some(p)),
                None => (userinfo, None),
            };
            match password {
                Some(p) if !p.is_empty() => {
                    self.add_credential(p);
                    self.add_credential(&percent_decode(p));
                }
                _ => {
                    self.add_credential(user);
                    self.add_credential(&percent_decode(user));
                }
            }
            let plain = format!("{}:{}", percent_decode(user), password.map(percent_decode).unwrap_or_default());
            self.add_credential(&base64(plain.as_bytes()));
        }
        for (_, value) in parts.query_pairs().into_iter().filter(|(name, _)| is_secret_param(name)) {
            self.add_credential(value);
            self.add_credential(&percent_decode(value));
        }
    }

    /// Adds every secret another scrubber knows.
    pub fn merge(&mut self, other: &Scrubber) {
        for form in &other.forms {
            if !self.forms.contains(form) {
                self.forms.push(form.clone());
            }
        }
        self.forms.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    }

    /// Whether the scrubber knows no secret values.
    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }

    /// Whether `text` holds anything [`Scrubber::scrub`] would replace.
    pub fn finds_secret(&self, text: &str) -> bool {
        self.scrub_counted(text).1 > 0
    }

    /// The text with every known secret and every bearer token replaced.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        self.scrub_counted(text).0
    }

    /// The text with every known secret and every bearer token replaced, and how many
    /// replacements that took.
    pub fn scrub_counted<'a>(&self, text: &'a str) -> (Cow<'a, str>, u64) {
        let mut out = Cow::Borrowed(text);
        let mut n = 0u64;
        for form in &self.forms {
            let found = out.matches(form.as_str()).count();
            if found > 0 {
                n += found as u64;
                out = Cow::Owned(out.replace(form.as_str(), REDACTED));
            }
        }
        if out.to_ascii_lowercase().contains("bearer ") {
            let (clean, found) = redact_bearer(&out);
            if found > 0 {
                n += found;
                out = Cow::Owned(clean);
            }
        }
        (out, n)
    }

    /// Scrubs a string in place; returns the number of replacements.
    pub fn scrub_string(&self, s: &mut String) -> u64 {
        let (clean, n) = self.scrub_counted(s);
        if let Cow::Owned(clean) = clean {
            *s = clean;
        }
        n
    }

    /// Scrubs every string of a JSON value and blanks the values of secret-named keys;
    /// returns the number of replacements.
    pub fn scrub_value(&self, v: &mut Value) -> u64 {
        match v {
            Value::String(s) => self.scrub_string(s),
            Value::Array(items) => items.iter_mut().map(|i| self.scrub_value(i)).sum(),
            Value::Object(map) => {
                let mut n = 0;
                for (k, val) in map.iter_mut() {
                    let secret_key = SECRET_KEYS.contains(&k.to_ascii_lowercase().as_str());
                    if secret_key && !val.is_null() && val.as_str() != Some(REDACTED) {
                        *val = Value::String(REDACTED.into());
                        n += 1;
                    } else if !secret_key {
                        n += self.scrub_value(val);
                    }
                }
                n
            }
            _ => 0,
        }
    }

    /// Scrubs every message and stop string of a request; returns the number of replacements.
    pub fn scrub_request(&self, req: &mut ChatRequest) -> u64 {
        let messages: u64 = req.messages.iter_mut().map(|m| self.scrub_string(&mut m.content)).sum();
        messages + req.sampling.stop.iter_mut().map(|s| self.scrub_string(s)).sum::<u64>()
    }
}

/// Whether a bearer token looks like a credential rather than the next English word
/// ("the bearer of bad news"): at least 6 characters with a digit in them, or 20+.
fn looks_like_token(token: &str) -> bool {
    let n = token.chars().count();
    (n >= 6 && token.bytes().any(|b| b.is_ascii_digit())) || n >= 20
}

/// "Bearer sk-abc123" → "Bearer [REDACTED]" (case-insensitive scheme), and the count.
fn redact_bearer(text: &str) -> (String, u64) {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut n = 0;
    while let Some(found) = lower[i..].find("bearer ") {
        let start = i + found + "bearer ".len();
        out.push_str(&text[i..start]);
        let token_len = text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/=".contains(c)))
            .unwrap_or(text.len() - start);
        let token = &text[start..start + token_len];
        if looks_like_token(token) {
            out.push_str(REDACTED);
            n += 1;
        } else {
            out.push_str(token);
        }
        i = start + token_len;
    }
    out.push_str(&text[i..]);
    (out, n)
}

/// Whether a URL query parameter's name says its value is a credential
/// (`api_key`, `key`, `token`, `access_token`, `password`, `sig`, ...).
pub fn is_secret_param(name: &str) -> bool {
    let name = percent_decode(name).to_ascii_lowercase();
    ["key", "token", "secret", "pass", "pwd", "auth", "sig", "credential", "session"].iter().any(|w| name.contains(w))
}

/// A URL without credentials, for logs, messages and stored configs: the user-info
/// (`user:password@`) is dropped and the values of secret-looking query and fragment
/// parameters ([`is_secret_param`]) read [`URL_REDACTED`]. The rest is kept as written;
/// text that is not a URL at all goes through the same rules.
pub fn redact_url(url: &str) -> String {
    let parts = UrlParts::split(url);
    let mut out = String::with_capacity(url.len());
    out.push_str(parts.scheme);
    out.push_str(parts.host_and_path);
    for (sep, params) in [('?', parts.query), ('#', parts.fragment)] {
        let Some(params) = params else { continue };
        out.push(sep);
        let redacted: Vec<String> = params
            .split('&')
            .map(|p| match p.split_once('=') {
                Some((name, _)) if is_secret_param(name) => format!("{name}={URL_REDACTED}"),
                _ => p.to_string(),
            })
            .collect();
        out.push_str(&redacted.join("&"));
    }
    out
}

/// A URL cut into the pieces credentials hide in, by text alone (so a URL that does
/// not parse is still cleaned before it appears in an error message).
struct UrlParts<'a> {
    /// Everything up to and including `://` (empty without a scheme).
    scheme: &'a str,
    /// `user:password` before the `@`, if any.
    userinfo: Option<&'a str>,
    /// Host, port and path.
    host_and_path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

impl<'a> UrlParts<'a> {
    fn split(url: &'a str) -> Self {
        let (scheme, rest) = match url.find("://") {
            Some(i) => url.split_at(i + 3),
            None => ("", url),
        };
        let (rest, fragment) = match rest.split_once('#') {
            Some((r, f)) => (r, Some(f)),
            None => (rest, None),
        };
        let (before_query, query) = match rest.split_once('?') {
            Some((r, q)) => (r, Some(q)),
            None => (rest, None),
        };
        let authority_end = before_query.find('/').unwrap_or(before_query.len());
        let (userinfo, host_and_path) = match before_query[..authority_end].rfind('@') {
            Some(at) => (Some(&before_query[..at]), &before_query[at + 1..]),
            None => (None, before_query),
        };
        UrlParts { scheme, userinfo, host_and_path, query, fragment }
    }

    /// `name=value` pairs of the query and the fragment.
    fn query_pairs(&self) -> Vec<(&'a str, &'a str)> {
        let (query, fragment) = (self.query.unwrap_or(""), self.fragment.unwrap_or(""));
        query.split('&').chain(fragment.split('&')).filter_map(|p| p.split_once('=')).collect()
    }
}

/// `%41` → `A`; malformed escapes are kept as written.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Standard base64 with padding (what `Authorization: Basic` carries).
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Message, Sampling};

    #[test]
    fn secrets_are_replaced_and_counted() {
        let s = Scrubber::new().with("sk-canary-123456").with("short");
        let (out, n) = s.scrub_counted("a sk-canary-123456 b sk-canary-123456");
        assert_eq!(out, "a [REDACTED] b [REDACTED]");
        assert_eq!(n, 2);
        assert_eq!(s.scrub("short stays"), "short stays", "short values are not secrets");
        // Idempotent: scrubbing scrubbed text changes nothing.
        assert_eq!(s.scrub_counted(&out), (Cow::Borrowed(&*out), 0));
        // A secret containing another is replaced whole.
        let nested = Scrubber::new().with("abcdefgh-1234").with("xx-abcdefgh-1234-yy");
        assert_eq!(nested.scrub("[xx-abcdefgh-1234-yy]"), "[[REDACTED]]");
        // JSON-escaped forms too.
        let quoted = Scrubber::new().with("pa\"ss-word-1");
        assert_eq!(quoted.scrub(r#"{"k":"pa\"ss-word-1"}"#), r#"{"k":"[REDACTED]"}"#);
    }

    #[test]
    fn short_values_and_plain_words_are_not_secrets() {
        // The case of issue 25: FOO_TOKEN=cooperative, a word of the prompts.
        let s = Scrubber::new().with("cooperative").with("Coordination").with("INTERDEPENDENCE").with("hunter2-x");
        assert!(s.is_empty(), "{s:?}");
        let prose = "a cooperative agent; Coordination and interdependence";
        assert_eq!(s.scrub(prose), prose);
        assert!(is_common_word("coordination") && is_common_word(" Coordination ") && !is_common_word("coordinat1on"));
        assert!(!is_common_word("xkqzvbwmplrtyhge"), "random letters are not a word");
        assert!(could_be_secret("xkqzvbwmplrtyhge") && could_be_secret("sk-proj-0123456789"));
        assert!(
            !could_be_secret("cooperative") && !could_be_secret("abc123defgh") && !could_be_secret("collaboration")
        );
        // A credential given for the connection is one from 8 characters on, word or not.
        let mut c = Scrubber::new();
        c.add_credential("cooperative");
        c.add_credential("short");
        assert_eq!(c.scrub("a cooperative short"), "a [REDACTED] short");
        // Words joined up are no plain word: a passphrase is a secret.
        assert!(could_be_secret("correcthorsebatterystaple"));
        assert!(!Scrubber::new().with("correcthorsebatterystaple").is_empty());
    }

    #[test]
    fn bearer_tokens_but_not_prose() {
        let s = Scrubber::new();
        assert_eq!(s.scrub("Authorization: Bearer abc.def-123"), "Authorization: Bearer [REDACTED]");
        assert_eq!(s.scrub("bearer xyz987, then"), "bearer [REDACTED], then");
        assert_eq!(s.scrub("the bearer of bad news"), "the bearer of bad news");
        assert_eq!(s.scrub_counted("Bearer [REDACTED]").1, 0);
    }

    #[test]
    fn values_and_requests() {
        let s = Scrubber::new().with("hf-canary-42424242");
        let mut v = serde_json::json!({"api_key": "x", "nested": ["hf-canary-42424242"], "n": 1});
        assert_eq!(s.scrub_value(&mut v), 2);
        assert_eq!(v, serde_json::json!({"api_key": REDACTED, "nested": [REDACTED], "n": 1}));
        assert_eq!(s.scrub_value(&mut v), 0, "idempotent");
        let mut req = ChatRequest::new(
            vec![Message::user("token hf-canary-42424242 here")],
            Sampling { stop: vec![], ..Default::default() },
        );
        assert_eq!(s.scrub_request(&mut req), 1);
        assert_eq!(req.messages[0].content, "token [REDACTED] here");
    }

    #[test]
    fn urls_lose_their_credentials() {
        assert_eq!(redact_url("http://user:canarypass@127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
        assert_eq!(redact_url("https://TOKEN123@host/v1?x=1"), "https://host/v1?x=1");
        assert_eq!(
            redact_url("https://h/v1?api_key=abc&api-version=2024&key=k&Token=t#access_token=z"),
            "https://h/v1?api_key=REDACTED&api-version=2024&key=REDACTED&Token=REDACTED#access_token=REDACTED"
        );
        assert_eq!(redact_url("http://127.0.0.1:8000/v1"), "http://127.0.0.1:8000/v1");
        // Not a URL: cleaned all the same.
        assert_eq!(redact_url("user:canarypass@localhost:8000"), "localhost:8000");
        assert_eq!(redact_url("http://host/a@b"), "http://host/a@b", "an @ in the path is not user-info");
    }

    #[test]
    fn url_credentials_become_secrets() {
        let mut s = Scrubber::new();
        s.add_url_credentials("http://user:canary%70ass-1234@127.0.0.1:1/v1?api_key=query-canary-1");
        assert_eq!(s.scrub("canary%70ass-1234 canarypass-1234 query-canary-1"), "[REDACTED] [REDACTED] [REDACTED]");
        // What an HTTP client sends for user:canarypass-1234.
        assert_eq!(base64(b"user:canarypass-1234"), "dXNlcjpjYW5hcnlwYXNzLTEyMzQ=");
        assert_eq!(s.scrub("Basic dXNlcjpjYW5hcnlwYXNzLTEyMzQ="), "Basic [REDACTED]");
        let mut t = Scrubber::new();
        t.add_url_credentials("https://ghp_tokentoken@host/");
        assert_eq!(t.scrub("ghp_tokentoken"), REDACTED);
        assert_eq!(base64(b""), "");
        assert_eq!(base64(b"a"), "YQ==");
        assert_eq!(base64(b"ab"), "YWI=");
        assert_eq!(percent_decode("a%2"), "a%2");
    }
}
