//! Everything that configures a running LLM-Coordination seat ([`LlmcoConfig`]): the
//! written-down switches ([`LlmcoSettings`]) plus what cannot be written down (the model
//! object, the loaded templates, the exchange sink).

use super::settings::LlmcoSettings;
use crate::log::ExchangeSink;
use crate::prompts::{Family, PromptLibrary};
use proagent_llm::{LanguageModel, Sampling};
use std::sync::Arc;

/// Everything that configures a running LLM-Coordination seat.
#[derive(Clone)]
pub struct LlmcoConfig {
    /// The language model every call goes to.
    pub model: Arc<dyn LanguageModel>,
    /// Sampling settings of every request.
    pub sampling: Sampling,
    /// The switches.
    pub settings: LlmcoSettings,
    /// The templates (the `llmco/` folder).
    pub prompts: Arc<PromptLibrary>,
    /// Keep every model exchange in memory (for transcripts).
    pub log_exchanges: bool,
    /// Where finished exchanges are also appended (transcripts read them there).
    pub exchange_sink: Option<ExchangeSink>,
    /// The seat's name (`llmco::settings::label`); `None`: `llmco[<the model's name>]`.
    pub label: Option<String>,
}

impl LlmcoConfig {
    /// The default switches, the embedded templates and the default sampling.
    pub fn new(model: Arc<dyn LanguageModel>) -> LlmcoConfig {
        LlmcoConfig {
            model,
            sampling: Sampling::default(),
            settings: LlmcoSettings::default(),
            prompts: Arc::new(PromptLibrary::embedded_family(Family::Llmco)),
            log_exchanges: true,
            exchange_sink: None,
            label: None,
        }
    }

    /// sha256 of each `llmco/` template the seat's preset can read, for transcript headers
    /// ([`super::settings::preset_hashes`]).
    pub fn prompt_hashes(&self) -> std::collections::BTreeMap<String, String> {
        super::settings::preset_hashes(&self.prompts, self.settings.preset)
    }
}
