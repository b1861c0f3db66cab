//! One model as a run uses it: [`ModelSpec`]. Which model, how it samples and how it is
//! reached — the one type that the command line fills, a transcript header records, an
//! eval key hashes and the backends are built from.
//!
//! Guarantees: the serde form never holds a secret. The API key and the run's other
//! secrets live beside the recorded fields but are never serialised, and the base URL is
//! recorded without its password. A header read back gives a spec that builds the same
//! model (its key comes from the environment again).

use crate::LlmError;
use crate::Sampling;
use crate::family::{Effort, Family, ParamRules, REASONING_MAX_TOKENS, TokenParam};
use crate::http::{ApiKey, HttpConfig, OpenAiModel, default_base_url};
pub use crate::http::{MOCK_SERVER_HEADER, mock_server_answered};
use crate::scrub::{Scrubber, redact_url};
use proagent_core::limits::{MAX_MILLIS, MAX_RETRIES, MAX_TOKENS, RangeError, check_float, check_int};
use serde::{Deserialize, Serialize, Serializer};
use std::time::Duration;

/// A model: its name, its sampling and, for a model served over HTTP, how it is reached.
/// The built-in and replayed models (`scripted`, `replay:FILE`) have no HTTP fields.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModelSpec {
    /// `scripted`, `replay:FILE` or a served model's name.
    pub model: String,
    /// Sampling temperature.
    pub temperature: f32,
    /// Nucleus sampling.
    pub top_p: f32,
    /// Maximum tokens per reply.
    pub max_tokens: u32,
    /// Ask for structured answers (`structured=on`): decision and QA requests carry a JSON
    /// schema (see [`crate::structured`]). Recorded only when on.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub structured: bool,
    /// Base URL of a served model (recorded without any password).
    #[serde(default, skip_serializing_if = "Option::is_none", serialize_with = "redacted")]
    pub base_url: Option<String>,
    /// Seconds allowed to open a connection (served models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_timeout_s: Option<f64>,
    /// Seconds allowed for one request attempt (served models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_s: Option<f64>,
    /// Retries after a failed attempt (served models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
    /// First retry backoff in milliseconds (served models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_ms: Option<u64>,
    /// Longest backoff in milliseconds (served models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_max_ms: Option<u64>,
    /// The model family forced by `--model-family` / `family=` (`None`: the family table,
    /// [`crate::family::family_of`]). Absent from records that do not force one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
    /// The token-cap parameter forced by `--token-param` / `token_param=` (`None`: the
    /// family's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_param: Option<TokenParam>,
    /// `--reasoning-effort` / `effort=`, sent as `reasoning_effort` (reasoning models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<Effort>,
    /// The sampling options the user set (`temperature`, `top_p`, `max_tokens`): a
    /// reasoning model is sent these as set, and a server's refusal of one is never
    /// worked around (not recorded: it changes no reply).
    #[serde(skip)]
    pub explicit: std::collections::BTreeSet<String>,
    /// The API key (never recorded).
    #[serde(skip)]
    pub api_key: Option<ApiKey>,
    /// The run's other secrets (`*_API_KEY`, `*_TOKEN` environment values), scrubbed from
    /// everything written (never recorded).
    #[serde(skip)]
    pub secrets: Scrubber,
    /// Seeds the HTTP backend's retry jitter (not recorded: it does not change replies).
    #[serde(skip)]
    pub seed: u64,
}

fn redacted<S: Serializer>(url: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    match url {
        Some(u) => s.serialize_some(&redact_url(u)),
        None => s.serialize_none(),
    }
}

/// Two specs are the same model when their recorded fields are (keys and secrets aside).
impl PartialEq for ModelSpec {
    fn eq(&self, o: &Self) -> bool {
        serde_json::to_value(self).ok() == serde_json::to_value(o).ok()
    }
}

/// The prefix of a `--model` value that replays a transcript.
pub const REPLAY_PREFIX: &str = "replay:";

/// Model names served in-process, never over HTTP.
pub const BUILTIN_MODELS: &[&str] = &[STAND_IN, "scripted", "oracle", "random"];

/// The name of the ProAgent's offline stand-in model: a rule-based planner that answers
/// the agent's prompts by reading the scene, not a language model. `scripted`, its old
/// name, is an accepted alias (records that say `scripted` keep saying it).
pub const STAND_IN: &str = "rule-based";

/// Whether a model name is the rule-based stand-in (`rule-based` or its alias `scripted`).
pub fn is_stand_in(name: &str) -> bool {
    matches!(name.trim(), STAND_IN | "scripted")
}

/// The `owned_by` of the model the built-in mock server (`proagent mock-server`) lists at
/// `GET /v1/models`: it marks the server whose replies come from the rule-based stand-ins,
/// so reports label runs it served as stand-in output. No real server sends it.
pub const MOCK_SERVER_OWNER: &str = "proagent-mock (rule-based stand-ins)";

/// Whether a server identity (as `OpenAiModel::server_identity` returns it) is the built-in
/// mock server's: its replies come from the rule-based stand-ins, not from a language model.
pub fn is_mock_server(identity: &serde_json::Value) -> bool {
    identity.get("owned_by").and_then(serde_json::Value::as_str) == Some(MOCK_SERVER_OWNER)
}

/// What a `--model` value means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    /// A model served in-process (`rule-based` alias `scripted`, `oracle`, `random`).
    Builtin(String),
    /// A recorded transcript served offline.
    Replay(std::path::PathBuf),
    /// A model name an OpenAI-compatible server knows.
    Http(String),
}

/// Reads a `--model` value.
pub fn classify_model(name: &str) -> ModelChoice {
    let name = name.trim();
    if BUILTIN_MODELS.contains(&name) {
        ModelChoice::Builtin(name.to_string())
    } else if let Some(path) = name.strip_prefix(REPLAY_PREFIX) {
        ModelChoice::Replay(std::path::PathBuf::from(path))
    } else {
        ModelChoice::Http(name.to_string())
    }
}

impl ModelSpec {
    /// Model `model` with the paper's sampling (temperature 0, top_p 1, 256 tokens) and no
    /// HTTP settings (a served model then uses [`HttpConfig::new`]'s defaults).
    pub fn new(model: impl Into<String>) -> Self {
        let s = Sampling::default();
        ModelSpec {
            model: model.into(),
            temperature: s.temperature,
            top_p: s.top_p,
            max_tokens: s.max_tokens,
            structured: false,
            base_url: None,
            connect_timeout_s: None,
            request_timeout_s: None,
            retries: None,
            backoff_ms: None,
            backoff_max_ms: None,
            family: None,
            token_param: None,
            reasoning_effort: None,
            explicit: Default::default(),
            api_key: None,
            secrets: Scrubber::new(),
            seed: 0,
        }
    }

    /// What the model name means.
    pub fn choice(&self) -> ModelChoice {
        classify_model(&self.model)
    }

    /// Checks the numbers against their limits (sampling ranges, [`MAX_TOKENS`],
    /// time-outs up to a day, [`MAX_RETRIES`], backoffs up to [`MAX_MILLIS`]); the
    /// error names the field.
    pub fn check(&self) -> Result<(), RangeError> {
        check_float("temperature", f64::from(self.temperature), 0.0, 2.0, false)?;
        check_float("top_p", f64::from(self.top_p), 0.0, 1.0, true)?;
        check_int("max_tokens", self.max_tokens, 1, MAX_TOKENS)?;
        for (field, v) in [("connect_timeout_s", self.connect_timeout_s), ("request_timeout_s", self.request_timeout_s)]
        {
            if let Some(v) = v {
                check_float(field, v, 0.0, 86_400.0, true)?;
            }
        }
        if let Some(r) = self.retries {
            check_int("retries", r, 0, MAX_RETRIES)?;
        }
        for (field, v) in [("backoff_ms", self.backoff_ms), ("backoff_max_ms", self.backoff_max_ms)] {
            if let Some(v) = v {
                check_int(field, v, 0, MAX_MILLIS)?;
            }
        }
        Ok(())
    }

    /// The sampling settings of every request. A served reasoning model (by the family
    /// table or `family=`) whose cap is the chat default and was not set explicitly gets
    /// [`REASONING_MAX_TOKENS`] instead: its hidden reasoning counts against the cap.
    pub fn sampling(&self) -> Sampling {
        let chat_default = Family::Chat.default_max_tokens();
        let max_tokens = if matches!(self.choice(), ModelChoice::Http(_))
            && self.params().family(&self.model) == Family::Reasoning
            && !self.explicit.contains("max_tokens")
            && self.max_tokens == chat_default
        {
            REASONING_MAX_TOKENS
        } else {
            self.max_tokens
        };
        Sampling {
            temperature: self.temperature,
            top_p: self.top_p,
            max_tokens,
            stop: Vec::new(),
            structured: self.structured,
            no_cap: false,
        }
    }

    /// The rules that decide this model's request parameters beyond its sampling.
    pub fn params(&self) -> ParamRules {
        ParamRules {
            family: self.family,
            token_param: self.token_param,
            effort: self.reasoning_effort,
            explicit: self.explicit.clone(),
        }
    }

    /// Refuses option pairs that contradict each other for a served model
    /// ([`ParamRules::check`]); built-in and replayed models send no parameters.
    pub fn check_params(&self) -> Result<(), crate::family::ParamRuleError> {
        match self.choice() {
            ModelChoice::Http(_) => self.params().check(&self.model),
            _ => Ok(()),
        }
    }

    /// How the HTTP backend reaches the model: these fields, with [`HttpConfig::new`]'s
    /// defaults for those not set.
    pub fn http(&self) -> HttpConfig {
        let mut c = HttpConfig::new();
        c.base_url = default_base_url(self.base_url.as_deref());
        c.api_key = self.api_key.clone();
        let secs = |v: Option<f64>, d: Duration| {
            v.filter(|s| s.is_finite() && *s > 0.0 && *s <= 86_400.0).map_or(d, Duration::from_secs_f64)
        };
        c.connect_timeout = secs(self.connect_timeout_s, c.connect_timeout);
        c.request_timeout = secs(self.request_timeout_s, c.request_timeout);
        if let Some(r) = self.retries {
            c.max_retries = r;
        }
        if let Some(ms) = self.backoff_ms {
            c.backoff_base = Duration::from_millis(ms);
        }
        if let Some(ms) = self.backoff_max_ms {
            c.backoff_max = Duration::from_millis(ms);
        }
        c.seed = self.seed;
        c.params = self.params();
        c
    }

    /// The HTTP backend of this model (see [`ModelSpec::http`]).
    pub fn open_ai(&self) -> Result<OpenAiModel, LlmError> {
        OpenAiModel::new(self.model.trim(), self.http())
    }

    /// Everything secret in this run: [`ModelSpec::secrets`], the API key and the base
    /// URL's credentials. Transcript writers scrub with it, and a `replay:FILE` model
    /// scrubs live requests with it before looking them up.
    pub fn scrubber(&self) -> Scrubber {
        let mut s = self.secrets.clone();
        if let Some(k) = &self.api_key {
            s.add_credential(k.expose());
        }
        if let Some(u) = &self.base_url {
            s.add_url_credentials(u);
        }
        s
    }

    /// The same model with no HTTP fields and no request-parameter rules (what a header
    /// records of a built-in model).
    pub fn without_http(mut self) -> Self {
        self.base_url = None;
        self.connect_timeout_s = None;
        self.request_timeout_s = None;
        self.retries = None;
        self.backoff_ms = None;
        self.backoff_max_ms = None;
        self.family = None;
        self.token_param = None;
        self.reasoning_effort = None;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recorded_form_has_no_secret_and_reads_back() {
        let mut m = ModelSpec::new("gpt-4o");
        m.base_url = Some("http://user:correct-horse-battery@127.0.0.1:8000/v1".into());
        m.retries = Some(2);
        m.api_key = ApiKey::new("sk-secret-key");
        let v = serde_json::to_value(&m).unwrap();
        let text = v.to_string();
        assert!(!text.contains("correct-horse-battery") && !text.contains("sk-secret"), "{text}");
        assert_eq!(v["retries"], 2);
        let back: ModelSpec = serde_json::from_value(v).unwrap();
        assert!(back.api_key.is_none());
        assert_eq!(back.http().max_retries, 2);
        assert!(!m.scrubber().scrub("sk-secret-key and correct-horse-battery").contains("correct-horse-battery"));
    }

    #[test]
    fn built_in_models_record_only_name_and_sampling() {
        let v = serde_json::to_value(ModelSpec::new("scripted")).unwrap();
        assert_eq!(v.to_string(), r#"{"max_tokens":256,"model":"scripted","temperature":0.0,"top_p":1.0}"#);
        assert_eq!(classify_model("replay:a.jsonl"), ModelChoice::Replay("a.jsonl".into()));
        assert_eq!(classify_model(" oracle "), ModelChoice::Builtin("oracle".into()));
        assert_eq!(classify_model("llama3.1:8b"), ModelChoice::Http("llama3.1:8b".into()));
    }
}
