//! Counting tokens before a run: [`TokenCounter`] counts a chat request and a reply the way
//! the model's server will bill them when the model's tokenizer is known (OpenAI's BPE
//! encodings, bundled in `tiktoken-rs`: `o200k_base` for gpt-4o, gpt-4.1, gpt-5, o1, o3
//! ...; `cl100k_base` for gpt-4 and gpt-3.5), and otherwise estimates them at four
//! characters a token ([`crate::estimate_tokens`]).
//!
//! Guarantees: the same text always gives the same count; nothing is fetched (the
//! encodings are compiled in); [`TokenCounter::is_exact`] says which of the two a count is.
//! A chat request is counted with the framing OpenAI documents for its chat models (three
//! tokens per message, three to prime the reply).

use crate::{ChatRequest, ChatResponse, LanguageModel, LlmError, Message, Role, Usage, estimate_tokens};
use async_trait::async_trait;
use std::sync::Arc;
use tiktoken_rs::CoreBPE;
use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};

/// Tokens a chat model adds around each message.
const TOKENS_PER_MESSAGE: u64 = 3;
/// Tokens that prime the assistant's reply, once per request.
const REPLY_PRIMING: u64 = 3;

/// How a model's tokens are counted.
#[derive(Clone, Copy)]
pub enum TokenCounter {
    /// The model's own BPE encoding.
    Bpe {
        /// The encoding's name (`o200k_base`, `cl100k_base`).
        encoding: &'static str,
        /// The encoding.
        bpe: &'static CoreBPE,
    },
    /// No known tokenizer: four characters a token.
    Estimate,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl TokenCounter {
    /// The counter for a model name: the model's BPE encoding when it is an OpenAI chat
    /// model `tiktoken` knows (a provider prefix such as `openai/` is ignored), else the
    /// estimate.
    pub fn for_model(model: &str) -> TokenCounter {
        let name = model.trim();
        let name = name.rsplit_once('/').map_or(name, |(_, n)| n);
        match get_tokenizer(name) {
            Some(Tokenizer::O200kBase) => {
                TokenCounter::Bpe { encoding: "o200k_base", bpe: tiktoken_rs::o200k_base_singleton() }
            }
            Some(Tokenizer::O200kHarmony) => {
                TokenCounter::Bpe { encoding: "o200k_harmony", bpe: tiktoken_rs::o200k_harmony_singleton() }
            }
            Some(Tokenizer::Cl100kBase) => {
                TokenCounter::Bpe { encoding: "cl100k_base", bpe: tiktoken_rs::cl100k_base_singleton() }
            }
            _ => TokenCounter::Estimate,
        }
    }

    /// Whether counts are the model's own tokens (not an estimate).
    pub fn is_exact(&self) -> bool {
        matches!(self, TokenCounter::Bpe { .. })
    }

    /// How counts are made, for a reader: `o200k_base` or `estimate (4 characters a token)`.
    pub fn describe(&self) -> String {
        match self {
            TokenCounter::Bpe { encoding, .. } => (*encoding).to_string(),
            TokenCounter::Estimate => "estimate (4 characters a token)".to_string(),
        }
    }

    /// Tokens of a piece of text (a reply).
    pub fn text(&self, text: &str) -> u64 {
        match self {
            TokenCounter::Bpe { bpe, .. } => bpe.encode_ordinary(text).len() as u64,
            TokenCounter::Estimate => estimate_tokens(text),
        }
    }

    /// Prompt tokens of a chat request: every message's role and content plus the chat
    /// framing.
    pub fn prompt(&self, messages: &[Message]) -> u64 {
        let role = |r: Role| match r {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let body: u64 = messages.iter().map(|m| self.text(role(m.role)) + self.text(&m.content)).sum();
        body + TOKENS_PER_MESSAGE * messages.len() as u64 + REPLY_PRIMING
    }
}

/// A model whose replies carry token counts made by a [`TokenCounter`] (not by the model):
/// what `--dry-run` puts in a served model's place, around the offline stand-in, to count
/// the prompts a run would send with the served model's tokenizer.
pub struct CountingModel {
    inner: Arc<dyn LanguageModel>,
    counter: TokenCounter,
}

impl CountingModel {
    /// `inner`'s replies, counted with `counter`.
    pub fn new(inner: Arc<dyn LanguageModel>, counter: TokenCounter) -> Self {
        CountingModel { inner, counter }
    }
}

#[async_trait]
impl LanguageModel for CountingModel {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut r = self.inner.chat(request).await?;
        r.usage = Usage::new(self.counter.prompt(&request.messages), self.counter.text(&r.text));
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_models_get_their_encoding() {
        assert_eq!(TokenCounter::for_model("gpt-4o").describe(), "o200k_base");
        assert_eq!(TokenCounter::for_model("openai/gpt-4o-mini").describe(), "o200k_base");
        assert_eq!(TokenCounter::for_model("gpt-4").describe(), "cl100k_base");
        assert_eq!(TokenCounter::for_model("gpt-3.5-turbo-0125").describe(), "cl100k_base");
        let c = TokenCounter::for_model("llama3.1:8b");
        assert!(!c.is_exact() && c.describe().contains("estimate"));
    }

    #[test]
    fn counts_match_the_published_encodings() {
        // tiktoken: "hello world" is two tokens in both encodings; o200k_base reads
        // "tiktoken is great!" as 6 tokens.
        let o = TokenCounter::for_model("gpt-4o");
        assert_eq!(o.text("hello world"), 2);
        assert_eq!(o.text("tiktoken is great!"), 6);
        assert_eq!(TokenCounter::for_model("gpt-4").text("hello world"), 2);
        // The OpenAI cookbook's framing: 3 per message + role + content, 3 to prime the reply.
        let msgs = [Message::system("hello world"), Message::user("hello world")];
        assert_eq!(o.prompt(&msgs), 2 * (3 + 1 + 2) + 3);
        assert_eq!(TokenCounter::Estimate.text("abcdefgh"), 2);
    }
}
