//! The ProAgent options of the CLI (`--model`, `--base-url`, `--memory-k`, `--belief`, …)
//! read from a Python dict and turned into the library's one configuration
//! (`AgentSettings`, `ModelSpec`), with the CLI's range checks.

use proagent_agent::config::{self, SWITCH_OPTIONS};
use proagent_agent::{AgentSettings, ModelSpec};
use proagent_eval::runner::seats::ProAgentSeat;
use proagent_eval::transcript::Scrubber;
use proagent_llm::{MODEL_OPTIONS, ModelChoice, classify_model, join_options, served_model};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use serde_json::Value;

/// The option names understood, as the CLI's flags with `_` for `-`: the library's model
/// options ([`MODEL_OPTIONS`]), the preset and the ProAgent's switches ([`SWITCH_OPTIONS`]).
pub const KNOWN: [&str; 24] = join_options(&[&MODEL_OPTIONS, &["preset"], &SWITCH_OPTIONS]);

/// The options that take a number from Python (the others take a string, or True/False).
const NUMBERS: [&str; 10] = [
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
];

/// The options that take True or False from Python.
const SWITCHES: [&str; 4] = ["analysis", "intention", "wait_interrupt", "structured"];

/// The CLI's defaults of the model options a dict may leave out (the Python wrappers pass
/// them all); `backoff_max_ms` is then raised to `backoff_ms` when it is lower.
const MODEL_DEFAULTS: [(&str, &str); 8] = [
    ("temperature", "0"),
    ("top_p", "1"),
    ("max_tokens", "256"),
    ("connect_timeout", "10"),
    ("request_timeout", "120"),
    ("retries", "4"),
    ("backoff_ms", "500"),
    ("backoff_max_ms", "30000"),
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

/// Option `key`'s value as the seat-spec text the library's parsers read, after checking
/// its Python type (a number, True/False, or a string).
fn text(key: &str, v: &Value) -> PyResult<String> {
    let wrong = |what: &str| err(key, format!("must be {what}, got {v}"));
    if NUMBERS.contains(&key) {
        return match v {
            Value::Number(n) => Ok(n.to_string()),
            _ => Err(wrong("a number")),
        };
    }
    if SWITCHES.contains(&key) {
        return v.as_bool().map(|b| b.to_string()).ok_or_else(|| wrong("True or False"));
    }
    v.as_str().map(str::to_string).ok_or_else(|| wrong("a string"))
}

impl AgentOptions {
    /// Reads options from a JSON object (a Python dict); missing keys take the CLI's
    /// defaults, unknown keys, values of the wrong type and out-of-range values are errors
    /// naming the option. The values go through the library's one option parser
    /// ([`ModelSpec::apply_option`], and [`config::apply_option`] for the switches), so
    /// they are checked and labelled as the CLI's flags and seat specs are.
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
        let given = |k: &str| m.get(k).filter(|v| !v.is_null()).map(|v| text(k, v)).transpose();
        let model = given("model")?.unwrap_or_else(|| proagent_llm::STAND_IN.to_string());
        // The base URL defaults in the library (`served_model`); a given one replaces it.
        let mut spec = served_model(&model, None);
        let bad = |e: proagent_llm::ModelOptionError| PyValueError::new_err(e.to_string());
        spec.apply_option("model", &model).map_err(bad)?;
        for (key, default) in MODEL_DEFAULTS {
            let value = given(key)?.unwrap_or_else(|| default.to_string());
            spec.apply_option(key, &value).map_err(bad)?;
        }
        // The longest backoff is never below the first one.
        spec.backoff_max_ms = spec.backoff_max_ms.max(spec.backoff_ms);
        for key in ["base_url", "effort", "family", "token_param", "structured"] {
            if let Some(value) = given(key)? {
                spec.apply_option(key, &value).map_err(bad)?;
            }
        }
        if !matches!(classify_model(&spec.model), ModelChoice::Http(_)) {
            spec = spec.without_http();
        }
        // The preset first (it sets every switch), then the switches given, through the
        // seat-spec parser.
        let mut settings = AgentSettings::default();
        for key in ["preset"].into_iter().chain(SWITCH_OPTIONS) {
            if let Some(value) = given(key)? {
                config::apply_option(&mut settings, &mut spec, key, &value)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
            }
        }
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
