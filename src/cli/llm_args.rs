//! The language-model options shared by every command that talks to a model:
//! [`HttpArgs`] (how a served model is reached: `play`, `eval`, `bench agent`, `chat`
//! and `qa` all flatten the same group) and [`LlmArgs`] (the model and its sampling,
//! for the commands that seat a ProAgent or chat). Each command words `--model`'s help
//! for what it accepts (`#[command(mut_arg("model", ...))]`). Every number is
//! range-checked by the parser (exit 2, naming the flag).

use super::common;
use anyhow::{Result, anyhow, bail};
use proagent::limits::{MAX_MILLIS, MAX_RETRIES, MAX_TOKENS};
use proagent::llm::http::MAX_BACKOFF;
use proagent::llm::{ModelChoice, ModelSpec, Sampling, classify_model, served_model};
use std::time::Duration;

/// How a model served over the OpenAI-compatible HTTP API is reached.
#[derive(clap::Args, Debug, Clone)]
pub struct HttpArgs {
    /// Base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:8000/v1 (default:
    /// $OPENAI_BASE_URL, else OpenAI). The key comes from $OPENAI_API_KEY (optional for local servers).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Seconds allowed to open a connection to the model server.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = common::seconds)]
    pub connect_timeout: f64,
    /// Seconds allowed for one whole request attempt.
    #[arg(long, value_name = "SECS", default_value_t = 120.0, value_parser = common::seconds)]
    pub request_timeout: f64,
    /// Retries after a failed attempt (429, 5xx, timeouts, broken replies).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=MAX_RETRIES as i64))]
    pub retries: u32,
    /// First retry backoff in milliseconds; doubles per retry, with seeded jitter (at most --backoff-max-ms).
    #[arg(long, value_name = "MS", default_value_t = 500, value_parser = clap::value_parser!(u64).range(0..=MAX_MILLIS))]
    pub backoff_ms: u64,
    /// Longest backoff in milliseconds, at most 3600000 (a server's Retry-After is honoured up to 60 s).
    #[arg(long, value_name = "MS", default_value_t = 30_000, value_parser = clap::value_parser!(u64).range(0..=MAX_MILLIS))]
    pub backoff_max_ms: u64,
    /// Reasoning effort sent as `reasoning_effort` to reasoning models (low, medium, high;
    /// default: none sent). A chat model refuses it unless --model-family reasoning.
    #[arg(long, value_name = "LEVEL", value_parser = model_flag("effort"))]
    pub reasoning_effort: Option<String>,
    /// The model family, overriding the name table of docs/llm.md: chat (temperature,
    /// top_p, max_tokens) or reasoning (max_completion_tokens, no sampling parameters).
    #[arg(long, value_name = "FAMILY", value_parser = model_flag("family"))]
    pub model_family: Option<String>,
    /// The token-cap parameter's name, overriding the family's: max_tokens or max_completion_tokens.
    #[arg(long, value_name = "NAME", value_parser = model_flag("token_param"))]
    pub token_param: Option<String>,
}

/// The value parser of the flag of model option `key` (`--reasoning-effort` for `effort`,
/// `--model-family` for `family`, `--token-param`): the library's option parser decides
/// (on a scratch spec), so the flag takes exactly what a seat spec's `key=` takes.
fn model_flag(key: &'static str) -> impl Fn(&str) -> Result<String, String> + Clone + Send + Sync + 'static {
    move |s| {
        ModelSpec::new("")
            .apply_option(key, s)
            .map(|_| s.trim().to_string())
            .map_err(|e| format!("must be {}", e.expected))
    }
}

/// `--backoff-ms` and `--backoff-max-ms`, checked: each at most [`MAX_BACKOFF`], and the
/// first backoff no longer than the longest (it is never raised silently).
pub fn backoffs(backoff_ms: u64, backoff_max_ms: u64) -> Result<(Duration, Duration)> {
    let limit = MAX_BACKOFF.as_millis();
    if u128::from(backoff_max_ms) > limit {
        bail!("--backoff-max-ms must be at most {limit} (one hour), got {backoff_max_ms}");
    }
    if backoff_ms > backoff_max_ms {
        bail!("--backoff-ms ({backoff_ms}) must not be larger than --backoff-max-ms ({backoff_max_ms})");
    }
    Ok((Duration::from_millis(backoff_ms), Duration::from_millis(backoff_max_ms)))
}

/// Sets the model-spec options `opts` on `spec` with the library's one option parser; a
/// refusal is worded for the flag.
fn apply(spec: &mut ModelSpec, opts: &[(&str, String)]) -> Result<()> {
    for (key, value) in opts {
        spec.apply_option(key, value).map_err(|e| anyhow!(e.as_flag()))?;
    }
    Ok(())
}

impl HttpArgs {
    /// The spec of model `name` with the paper's sampling and these flags' way of reaching a
    /// served model: base URL from the flag or the library's default ($OPENAI_BASE_URL,
    /// else OpenAI), key from $OPENAI_API_KEY, the environment's other secrets (`*_API_KEY`,
    /// `*_TOKEN`, ...) for scrubbing, time-outs and backoffs checked; `seed` seeds the retry
    /// jitter.
    pub fn model_spec(&self, name: &str, seed: u64) -> Result<ModelSpec> {
        let mut spec = served_model(name, self.base_url.as_deref());
        apply(
            &mut spec,
            &[
                ("connect_timeout", self.connect_timeout.to_string()),
                ("request_timeout", self.request_timeout.to_string()),
            ],
        )?;
        backoffs(self.backoff_ms, self.backoff_max_ms)?;
        apply(
            &mut spec,
            &[
                ("retries", self.retries.to_string()),
                ("backoff_ms", self.backoff_ms.to_string()),
                ("backoff_max_ms", self.backoff_max_ms.to_string()),
            ],
        )?;
        for (key, value) in
            [("effort", &self.reasoning_effort), ("family", &self.model_family), ("token_param", &self.token_param)]
        {
            if let Some(v) = value {
                apply(&mut spec, &[(key, v.clone())])?;
            }
        }
        spec.seed = seed;
        Ok(spec)
    }
}

/// The model and its sampling, plus how a served one is reached.
#[derive(clap::Args, Debug, Clone)]
pub struct LlmArgs {
    /// The model (each command's help says which it accepts).
    #[arg(long, default_value = proagent::llm::STAND_IN)]
    pub model: String,
    /// Sampling temperature [default: 0, the paper's setting; not sent to reasoning models
    /// unless given].
    #[arg(long, value_parser = common::temperature)]
    pub temperature: Option<f32>,
    /// Nucleus sampling [default: 1, the paper's setting; not sent to reasoning models
    /// unless given].
    #[arg(long, value_parser = common::top_p)]
    pub top_p: Option<f32>,
    /// Maximum tokens per reply [default: 256, the paper's setting; 16384 for reasoning
    /// models, whose reasoning counts against it].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_TOKENS as i64))]
    pub max_tokens: Option<u32>,
    /// Ask the server for structured answers (a JSON schema per decision, OpenAI's
    /// response_format), read strictly; the same as `structured=on` in a seat spec. A
    /// server that refuses the schema is asked for text instead (recorded as a fault).
    #[arg(long)]
    pub structured: bool,
    /// How a served model is reached.
    #[command(flatten)]
    pub http: HttpArgs,
}

impl LlmArgs {
    /// The sampling settings, checked: the flags given, the paper's settings for the rest
    /// (for `--model`'s family: a reasoning model's token cap is larger).
    pub fn sampling(&self) -> Result<Sampling> {
        let mut spec = ModelSpec::new(self.model.trim());
        self.sample(&mut spec)?;
        if let Some(f) = &self.http.model_family {
            apply(&mut spec, &[("family", f.clone())])?;
        }
        Ok(spec.sampling())
    }

    /// The spec of `--model` with these flags' sampling and HTTP settings (recorded as
    /// they are, e.g. by `chat`); `seed` seeds the retry jitter.
    pub fn model_spec(&self, seed: u64) -> Result<ModelSpec> {
        let mut m = self.http.model_spec(&self.model, seed)?;
        self.sample(&mut m)?;
        Ok(m)
    }

    /// The spec of model `name` as a ProAgent seat records it: these flags' sampling, and
    /// the HTTP settings only for a served model (a built-in or replayed model has none).
    /// Never the key (it is kept, but not recorded).
    pub fn seat_model(&self, name: &str, seed: u64) -> Result<ModelSpec> {
        let mut m = self.http.model_spec(name, seed)?;
        self.sample(&mut m)?;
        if !matches!(classify_model(name), ModelChoice::Http(_)) {
            m = m.without_http();
        }
        Ok(m)
    }

    /// Sets the sampling flags that were given (they count as set explicitly); the others
    /// keep the spec's defaults.
    fn sample(&self, m: &mut ModelSpec) -> Result<()> {
        let given = [
            ("temperature", self.temperature.map(|t| t.to_string())),
            ("top_p", self.top_p.map(|t| t.to_string())),
            ("max_tokens", self.max_tokens.map(|n| n.to_string())),
        ];
        for (key, value) in given {
            if let Some(v) = value {
                apply(m, &[(key, v)])?;
            }
        }
        if self.structured {
            apply(m, &[("structured", "on".to_string())])?;
        }
        Ok(())
    }
}
