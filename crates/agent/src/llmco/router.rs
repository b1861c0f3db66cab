//! One stand-in for every game's LLM-Coordination prompts ([`LlmcoStandIns`]): it tells the
//! game from the game description in the request (the rules' first words) and answers with
//! that game's `scripted` stand-in; any other request goes to a fallback model. The mock
//! server serves it, so an `llmco` seat pointed at the mock plays a real game offline.
//! Like the stand-ins it routes to, it is **not a language model**.

use super::capture::CaptureStandIn;
use super::escape::EscapeStandIn;
use super::hanabi::HanabiStandIn;
use super::lever::LeverStandIn;
use super::overcooked::OvercookedStandIn;
use super::standin::StandInModel;
use async_trait::async_trait;
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, LlmError, Role};
use std::sync::Arc;

/// How the shipped `llmco/system/default.j2` starts: requests under another system prompt
/// (CoordinationQA's, a custom template's) are not routed to the stand-ins.
pub const SYSTEM_PREFIX: &str = "You are a helpful assistant playing a cooperative game";

/// Which game's LLM-Coordination prompt a request is, by its system prompt and the words
/// its game description starts with (`None`: not an LLM-Coordination prompt).
pub fn game_of(request: &ChatRequest) -> Option<&'static str> {
    // Every LLM-Co request opens with the shipped system prompt, then the game description
    // (or the ToM or verification primer) as the first user message. A CoordinationQA
    // question may quote the same rules in the same shape, under its own system prompt.
    let system = request.messages.iter().find(|m| m.role == Role::System)?;
    if !system.content.starts_with(SYSTEM_PREFIX) {
        return None;
    }
    let text = request.messages.iter().find(|m| m.role == Role::User)?.content.as_str();
    if text.starts_with("The card game Hanabi") {
        Some("hanabi")
    } else if text.starts_with("The game Collab Capture") {
        Some("collab_capture")
    } else if text.starts_with("The game Collab Escape") {
        Some("collab_escape")
    } else if text.starts_with("The lever game") {
        Some("lever")
    } else if text.starts_with("Overcooked: two cooks") {
        Some("overcooked")
    } else {
        None
    }
}

/// Every game's stand-in behind one model, with a fallback for other requests.
pub struct LlmcoStandIns {
    hanabi: StandInModel<HanabiStandIn>,
    capture: StandInModel<CaptureStandIn>,
    escape: StandInModel<EscapeStandIn>,
    overcooked: StandInModel<OvercookedStandIn>,
    lever: StandInModel<LeverStandIn>,
    fallback: Arc<dyn LanguageModel>,
}

impl LlmcoStandIns {
    /// The router, sending requests that are no LLM-Coordination prompt to `fallback`.
    pub fn new(fallback: Arc<dyn LanguageModel>) -> LlmcoStandIns {
        LlmcoStandIns {
            hanabi: HanabiStandIn::model(),
            capture: CaptureStandIn::model(),
            escape: EscapeStandIn::model(),
            overcooked: OvercookedStandIn::model(),
            lever: LeverStandIn::model(),
            fallback,
        }
    }
}

#[async_trait]
impl LanguageModel for LlmcoStandIns {
    fn name(&self) -> String {
        self.fallback.name()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        match game_of(request) {
            Some("hanabi") => self.hanabi.chat(request).await,
            Some("collab_capture") => self.capture.chat(request).await,
            Some("collab_escape") => self.escape.chat(request).await,
            Some("lever") => self.lever.chat(request).await,
            Some(_) => self.overcooked.chat(request).await,
            None => self.fallback.chat(request).await,
        }
    }
}
