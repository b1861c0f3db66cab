//! `--model NAME` → a backend. Built-in models (`scripted`, `oracle`, `random`)
//! live with the agent and are resolved by the caller first; this maps
//! `replay:FILE` to the transcript replayer and any other name to the
//! OpenAI-compatible HTTP backend.

use super::LanguageModel;
use super::LlmError;
use super::http::{HttpConfig, OpenAiModel};
use super::replay::ReplayModel;
use std::path::PathBuf;
use std::sync::Arc;

/// Model names served in-process, never over HTTP.
pub const BUILTIN_MODELS: &[&str] = &["scripted", "oracle", "random"];

/// The prefix that selects the replay backend.
pub const REPLAY_PREFIX: &str = "replay:";

/// What a `--model` value means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelChoice {
    Builtin(String),
    Replay(PathBuf),
    Http(String),
}

pub fn classify_model(name: &str) -> ModelChoice {
    if BUILTIN_MODELS.contains(&name) {
        ModelChoice::Builtin(name.to_string())
    } else if let Some(path) = name.strip_prefix(REPLAY_PREFIX) {
        ModelChoice::Replay(PathBuf::from(path))
    } else {
        ModelChoice::Http(name.to_string())
    }
}

/// A `--model` value with everything needed to build it; `http.model` is ignored
/// (the name is the model).
#[derive(Clone, Debug)]
pub struct ModelSpec {
    pub name: String,
    pub http: HttpConfig,
}

impl ModelSpec {
    pub fn new(name: impl Into<String>) -> Self {
        let name = name.into();
        ModelSpec { http: HttpConfig::new(name.clone()), name }
    }
}

/// Builds a replay or HTTP backend. Built-in names are an error here: the caller
/// constructs those itself (they need the layout and the agent's state).
pub fn build_model(spec: &ModelSpec) -> Result<Arc<dyn LanguageModel>, LlmError> {
    match classify_model(&spec.name) {
        ModelChoice::Builtin(n) => Err(LlmError::Config(format!(
            "model {n:?} is built in and must be created by the caller, not by build_model"
        ))),
        ModelChoice::Replay(path) => {
            if path.as_os_str().is_empty() {
                return Err(LlmError::Config(
                    "replay: needs a transcript file, e.g. replay:transcripts/run.jsonl".into(),
                ));
            }
            let model = ReplayModel::open(&path).map_err(|e| LlmError::Config(format!("cannot replay: {e}")))?;
            Ok(Arc::new(model))
        }
        ModelChoice::Http(name) => {
            if name.trim().is_empty() {
                return Err(LlmError::Config("empty model name".into()));
            }
            let mut cfg = spec.http.clone();
            cfg.model = name;
            Ok(Arc::new(OpenAiModel::new(cfg)?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_map_to_backends() {
        assert_eq!(classify_model("scripted"), ModelChoice::Builtin("scripted".into()));
        assert_eq!(classify_model("replay:a/b.jsonl"), ModelChoice::Replay("a/b.jsonl".into()));
        assert_eq!(classify_model("gpt-4o"), ModelChoice::Http("gpt-4o".into()));
        assert_eq!(classify_model("llama3.1:8b"), ModelChoice::Http("llama3.1:8b".into()));
        assert!(matches!(build_model(&ModelSpec::new("oracle")), Err(LlmError::Config(_))));
        assert!(matches!(build_model(&ModelSpec::new("replay:")), Err(LlmError::Config(_))));
        let e = build_model(&ModelSpec::new("replay:/nonexistent/x.jsonl")).err().unwrap().to_string();
        assert!(e.contains("/nonexistent/x.jsonl"), "{e}");
        let m = build_model(&ModelSpec::new("my-local-model")).unwrap();
        assert_eq!(m.name(), "my-local-model");
    }
}
