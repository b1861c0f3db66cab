//! One stand-in for every game's LLM-Coordination prompts ([`LlmcoStandIns`]): it tells the
//! game from the game description in the request (the rules' first words) and answers with
//! that game's `scripted` stand-in; any other request goes to a fallback model. The mock
//! server serves it, so an `llmco` seat pointed at the mock plays a real game offline.
//! Like the stand-ins it routes to, it is **not a language model**.

pub use super::standin::Route;
use async_trait::async_trait;
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, LlmError, Role};
use std::sync::Arc;

/// How the shipped `llmco/system/default.j2` starts: requests under another system prompt
/// (CoordinationQA's, a custom template's) are not routed to the stand-ins.
pub const SYSTEM_PREFIX: &str = "You are a helpful assistant playing a cooperative game";

/// The route of the LLM-Coordination prompt a request is, by its system prompt and the
/// words its game description starts with (`None`: not an LLM-Coordination prompt).
fn route_of(request: &ChatRequest) -> Option<usize> {
    // Every LLM-Co request opens with the shipped system prompt, then the game description
    // (or the ToM or verification primer) as the first user message. A CoordinationQA
    // question may quote the same rules in the same shape, under its own system prompt.
    let system = request.messages.iter().find(|m| m.role == Role::System)?;
    if !system.content.starts_with(SYSTEM_PREFIX) {
        return None;
    }
    let text = request.messages.iter().find(|m| m.role == Role::User)?.content.as_str();
    super::STAND_INS.iter().position(|r| text.starts_with(r.opening))
}

/// Which game's LLM-Coordination prompt a request is (`None`: not an LLM-Coordination
/// prompt), as [`Route::game`] names it.
pub fn game_of(request: &ChatRequest) -> Option<&'static str> {
    route_of(request).map(|i| super::STAND_INS[i].game)
}

/// Every game's stand-in behind one model, with a fallback for other requests.
pub struct LlmcoStandIns {
    /// The stand-ins, in the order of [`super::STAND_INS`].
    stand_ins: Vec<Arc<dyn LanguageModel>>,
    fallback: Arc<dyn LanguageModel>,
}

impl LlmcoStandIns {
    /// The router, sending requests that are no LLM-Coordination prompt to `fallback`.
    pub fn new(fallback: Arc<dyn LanguageModel>) -> LlmcoStandIns {
        LlmcoStandIns { stand_ins: super::STAND_INS.iter().map(|r| (r.model)()).collect(), fallback }
    }
}

#[async_trait]
impl LanguageModel for LlmcoStandIns {
    fn name(&self) -> String {
        self.fallback.name()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        match route_of(request).and_then(|i| self.stand_ins.get(i)) {
            Some(model) => model.chat(request).await,
            None => self.fallback.chat(request).await,
        }
    }
}
