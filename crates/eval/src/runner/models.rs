//! `--model NAME` → a backend: `scripted` (the agent's built-in rule-based
//! stand-in), `replay:FILE` (a recorded transcript served offline) or any other
//! name (the OpenAI-compatible HTTP backend). The other built-in names
//! (`oracle`, `random`) belong to CoordinationQA and are resolved there.

use crate::transcript::{Scrubber, Transcript, TranscriptError};
use proagent_agent::grounding::overcooked::scripted::ScriptedModel;
use proagent_llm::LanguageModel;
use proagent_llm::LlmError;
use std::path::Path;
use std::sync::Arc;

pub use proagent_llm::spec::{BUILTIN_MODELS, ModelChoice, ModelSpec, REPLAY_PREFIX, classify_model};

/// Why a model could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The name is a CoordinationQA built-in, which the agent cannot use.
    #[error(
        "model {0:?} is a CoordinationQA built-in (for `proagent qa`); a ProAgent seat takes scripted, \
         replay:FILE or a model name an OpenAI-compatible server serves"
    )]
    NotForTheAgent(String),
    /// `replay:` without a file.
    #[error("replay: needs a transcript file, e.g. replay:transcripts/run.jsonl")]
    NoReplayFile,
    /// The recording could not be read.
    #[error("cannot replay: {0}")]
    Replay(#[from] TranscriptError),
    /// An empty name.
    #[error("empty model name")]
    EmptyName,
    /// The HTTP backend refused its configuration.
    #[error(transparent)]
    Http(#[from] LlmError),
}

/// Reads a transcript file and serves its replies, scrubbing live requests with
/// `scrubber` first (the recording was scrubbed before it was hashed). A transcript
/// without a footer is accepted (replaying the prefix of an interrupted run is
/// useful); malformed lines are errors.
pub fn open_replay(path: &Path, scrubber: Scrubber) -> Result<proagent_llm::replay::ReplayModel, TranscriptError> {
    Ok(Transcript::read(path)?.replayer(scrubber))
}

/// Builds the backend a spec names for the classic game: `scripted`, `replay:FILE` or a
/// served model.
pub fn build_model(spec: &ModelSpec) -> Result<Arc<dyn LanguageModel>, ModelError> {
    build_model_with(spec, || Arc::new(ScriptedModel::new()))
}

/// Builds the backend a spec names: `scripted` (the stand-in `scripted` returns: each
/// game has its own, since it reads that game's prompts), `replay:FILE` or a served model.
pub fn build_model_with(
    spec: &ModelSpec,
    scripted: impl FnOnce() -> Arc<dyn LanguageModel>,
) -> Result<Arc<dyn LanguageModel>, ModelError> {
    match spec.choice() {
        // A structured seat's stand-in answers in the schema its requests carry.
        ModelChoice::Builtin(n) if proagent_llm::is_stand_in(&n) && spec.structured => {
            Ok(Arc::new(proagent_llm::structured::SchemaAnswers::new(scripted())))
        }
        ModelChoice::Builtin(n) if proagent_llm::is_stand_in(&n) => Ok(scripted()),
        ModelChoice::Builtin(n) => Err(ModelError::NotForTheAgent(n)),
        ModelChoice::Replay(path) => {
            if path.as_os_str().is_empty() {
                return Err(ModelError::NoReplayFile);
            }
            Ok(Arc::new(open_replay(&path, spec.scrubber())?))
        }
        ModelChoice::Http(name) => {
            if name.trim().is_empty() {
                return Err(ModelError::EmptyName);
            }
            Ok(Arc::new(spec.open_ai()?))
        }
    }
}

/// What identifies the model behind a spec beyond its name, for eval keys: nothing for
/// the built-in models (the code version covers them), the sha256 of a `replay:` file,
/// and a served model's entry in the server's model list
/// ([`proagent_llm::http::OpenAiModel::server_identity`]). The built-in mock server's entry
/// also carries `"stand_in"` ([`MOCK_SERVED_MARK`]): records and reports label what it served.
pub async fn model_identity(spec: &ModelSpec) -> Result<serde_json::Value, ModelError> {
    let mut v = served_identity(spec).await?;
    if proagent_llm::is_mock_server(&v)
        && let Some(o) = v.as_object_mut()
    {
        o.insert("stand_in".into(), MOCK_SERVED_MARK.into());
    }
    Ok(v)
}

/// How records and tables label a seat whose replies came from the built-in mock server.
pub const MOCK_SERVED_MARK: &str = "served by the built-in mock server: rule-based stand-in replies, not an LLM";

/// What `play` adds to an episode's line (and its JSON's `stand_in`) when the built-in mock
/// server served replies in this process ([`proagent_llm::mock_server_answered`], from the
/// header it puts on every answer): [`MOCK_SERVED_MARK`]; `None` when it did not, so the
/// output of a run no mock served is unchanged.
pub fn mock_served_note() -> Option<&'static str> {
    proagent_llm::mock_server_answered().then_some(MOCK_SERVED_MARK)
}

async fn served_identity(spec: &ModelSpec) -> Result<serde_json::Value, ModelError> {
    match spec.choice() {
        ModelChoice::Builtin(_) => Ok(serde_json::Value::Null),
        ModelChoice::Replay(path) => {
            let bytes =
                proagent_core::limits::read_file(&path, proagent_core::limits::MAX_TRANSCRIPT_BYTES, "transcripts")
                    .map_err(|source| {
                        ModelError::Replay(TranscriptError::Io { path: path.display().to_string(), source })
                    })?;
            Ok(serde_json::json!({ "replay_sha256": proagent_llm::sha256_hex(&bytes) }))
        }
        ModelChoice::Http(_) => Ok(spec.open_ai()?.server_identity().await?),
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
        assert!(matches!(build_model(&ModelSpec::new("oracle")), Err(ModelError::NotForTheAgent(_))));
        assert!(matches!(build_model(&ModelSpec::new("replay:")), Err(ModelError::NoReplayFile)));
        let e = build_model(&ModelSpec::new("replay:/nonexistent/x.jsonl")).err().unwrap().to_string();
        assert!(e.contains("/nonexistent/x.jsonl"), "{e}");
        assert_eq!(build_model(&ModelSpec::new("scripted")).unwrap().name(), "scripted");
        let m = build_model(&ModelSpec::new("my-local-model")).unwrap();
        assert_eq!(m.name(), "my-local-model");
    }
}
