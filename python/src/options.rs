//! The ProAgent options of the CLI (`--model`, `--base-url`, `--memory-k`, `--belief`, …)
//! read from a Python dict and turned into the library's one configuration
//! (`AgentSettings`, `ModelSpec`), with the CLI's range checks.

use proagent_agent::config::MAX_REPLANS;
use proagent_agent::names::UnknownName;
use proagent_agent::preset::Preset;
use proagent_agent::{AgentSettings, ModelSpec};
use proagent_eval::runner::seats::ProAgentSeat;
use proagent_eval::transcript::Scrubber;
use proagent_llm::{ModelChoice, apply_model_option, classify_model, served_model};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use serde_json::Value;
use std::path::PathBuf;

/// The option names understood, as the CLI's flags with `_` for `-`.
pub const KNOWN: [&str; 22] = [
    "model",
    "base_url",
    "temperature",
    "top_p",
    "max_tokens",
    "connect_timeout",
    "request_timeout",
    "retries",
    "backoff_ms",
    "backoff_max_ms",
    "memory_k",
    "max_replans",
    "verificator",
    "belief",
    "analysis",
    "intention",
    "align",
    "prompts",
    "wait_interrupt",
    "effort",
    "family",
    "token_param",
];

/// A checked set of ProAgent options.
#[derive(Clone, Debug)]
pub struct AgentOptions {
    /// The agent's switches, as a transcript header records them.
    pub settings: AgentSettings,
    /// The model (a header records it without the key and the URL's password).
    pub model: ModelSpec,
}

fn err(name: &str, msg: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{name}: {msg}"))
}

impl AgentOptions {
    /// Reads options from a JSON object (a Python dict); missing keys take the CLI's
    /// defaults, unknown keys and out-of-range values are errors naming the option.
    pub fn from_json(v: &Value) -> PyResult<AgentOptions> {
        let empty = serde_json::Map::new();
        let m = match v {
            Value::Null => &empty,
            Value::Object(m) => m,
            _ => return Err(PyTypeError::new_err("the ProAgent options must be a dict")),
        };
        for k in m.keys() {
            if !KNOWN.contains(&k.as_str()) {
                return Err(err(k, format!("unknown ProAgent option (known: {})", KNOWN.join(", "))));
            }
        }
        let get = |k: &str| m.get(k).filter(|v| !v.is_null());
        let f = |k: &str, d: f64| -> PyResult<f64> {
            get(k).map_or(Ok(d), |v| v.as_f64().ok_or_else(|| err(k, format!("must be a number, got {v}"))))
        };
        let u = |k: &str, d: u64| -> PyResult<u64> {
            get(k)
                .map_or(Ok(d), |v| v.as_u64().ok_or_else(|| err(k, format!("must be a non-negative integer, got {v}"))))
        };
        let b = |k: &str, d: bool| -> PyResult<bool> {
            get(k).map_or(Ok(d), |v| v.as_bool().ok_or_else(|| err(k, format!("must be True or False, got {v}"))))
        };
        let s = |k: &str, d: &str| -> PyResult<String> {
            get(k).map_or(Ok(d.to_string()), |v| {
                v.as_str().map(str::to_string).ok_or_else(|| err(k, format!("must be a string, got {v}")))
            })
        };
        let model = s("model", proagent_llm::STAND_IN)?;
        let base_url = get("base_url")
            .map(|v| v.as_str().map(str::to_string).ok_or_else(|| err("base_url", "must be a URL string")))
            .transpose()?;
        // The values, type-checked above, go through the library's one option parser (the
        // ranges the CLI checks); the base URL defaults there too.
        let mut spec = served_model(&model, base_url.as_deref());
        let backoff_ms = u("backoff_ms", 500)?;
        let model_options = [
            ("model", model.clone()),
            ("temperature", (f("temperature", 0.0)? as f32).to_string()),
            ("top_p", (f("top_p", 1.0)? as f32).to_string()),
            ("max_tokens", u("max_tokens", 256)?.to_string()),
            ("connect_timeout", f("connect_timeout", 10.0)?.to_string()),
            ("request_timeout", f("request_timeout", 120.0)?.to_string()),
            ("retries", u("retries", 4)?.to_string()),
            ("backoff_ms", backoff_ms.to_string()),
            ("backoff_max_ms", u("backoff_max_ms", 30_000)?.max(backoff_ms).to_string()),
        ];
        for (key, value) in &model_options {
            apply_model_option(&mut spec, key, value).map_err(|e| PyValueError::new_err(e.to_string()))?;
        }
        // A reasoning model's request rules, only when given (`None`: the family table's).
        for key in ["effort", "family", "token_param"] {
            if let Some(v) = get(key) {
                let v = v.as_str().ok_or_else(|| err(key, format!("must be a string, got {v}")))?;
                apply_model_option(&mut spec, key, v).map_err(|e| err(key, e))?;
            }
        }
        if !matches!(classify_model(&spec.model), ModelChoice::Http(_)) {
            spec = spec.without_http();
        }
        let max_replans = u("max_replans", u64::from(AgentSettings::for_preset(Preset::Default).max_replans))?;
        if max_replans > MAX_REPLANS as u64 {
            return Err(err("max_replans", format!("must be at most {MAX_REPLANS}")));
        }
        let parse = |k: &str, d: &str| -> PyResult<String> { s(k, d) };
        let preset: Preset =
            parse("preset", "default")?.parse().map_err(|e: UnknownName| err("preset", e.to_string()))?;
        let base = AgentSettings::for_preset(preset);
        let settings = AgentSettings {
            preset,
            memory_k: u("memory_k", base.memory_k as u64)? as usize,
            max_replans: max_replans as u32,
            verificator: match get("verificator") {
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| err("verificator", "must be a string"))?
                    .parse()
                    .map_err(|e: UnknownName| err("verificator", e.to_string()))?,
                None => base.verificator,
            },
            belief: match get("belief") {
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| err("belief", "must be a string"))?
                    .parse()
                    .map_err(|e: UnknownName| err("belief", e.to_string()))?,
                None => base.belief,
            },
            analysis: b("analysis", base.analysis)?,
            intention: b("intention", base.intention)?,
            align: match get("align") {
                Some(v) => v
                    .as_str()
                    .ok_or_else(|| err("align", "must be a string"))?
                    .parse()
                    .map_err(|e: UnknownName| err("align", e.to_string()))?,
                None => base.align,
            },
            prompts: get("prompts")
                .map(|v| v.as_str().map(PathBuf::from).ok_or_else(|| err("prompts", "must be a path")))
                .transpose()?,
            wait_interrupt: b("wait_interrupt", base.wait_interrupt)?,
        };
        Ok(AgentOptions { settings, model: spec })
    }

    /// The seat these options describe, for the seat factory (`seed` seeds an HTTP
    /// backend's retry jitter); it is named like the CLI names it.
    pub fn seat(&self, seed: u64) -> ProAgentSeat {
        let mut model = self.model.clone();
        model.seed = seed;
        ProAgentSeat {
            label: proagent_agent::config::label(&self.settings, &self.model),
            settings: self.settings.clone(),
            model,
        }
    }

    /// Everything that must never reach a transcript: the API key and the usual env secrets.
    pub fn scrubber(&self) -> Scrubber {
        self.model.scrubber()
    }
}
