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
//!
//! [`TokenCounter::shared_prefix`] counts the part of a request that repeats an earlier
//! request's beginning: what a server's prompt-prefix cache (OpenAI's and DeepSeek's
//! automatic caching, vLLM's prefix cache) can serve and bill at its cached-input price.
//! [`RecentPrompts`] keeps a seat's last [`CACHE_WINDOW`] requests and counts each new one
//! against the one it shares the longest beginning with (a cache keeps many prefixes:
//! an agent that alternates prompt kinds, such as LLM-Co's Theory-of-Mind, action and
//! verification calls, finds each kind's prefix from its last call of that kind).

use crate::{ChatRequest, ChatResponse, LanguageModel, LlmError, Message, Role, Usage, estimate_tokens};
use async_trait::async_trait;
use std::sync::{Arc, Mutex};
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
        let body: u64 = messages.iter().map(|m| self.text(role_name(m.role)) + self.text(&m.content)).sum();
        body + TOKENS_PER_MESSAGE * messages.len() as u64 + REPLY_PRIMING
    }

    /// Prompt tokens of `current` that repeat the beginning of `previous`: every leading
    /// message the two share whole (role, content and framing), then, in the first message
    /// that differs but has the same role, its framing and the content's common beginning
    /// up to the last whitespace before the first difference (so a token cut in two by the
    /// difference is not counted). At most [`TokenCounter::prompt`] of `current`.
    pub fn shared_prefix(&self, previous: &[Message], current: &[Message]) -> u64 {
        let mut shared = 0u64;
        for (p, c) in previous.iter().zip(current) {
            if p.role != c.role {
                break;
            }
            let framing = self.text(role_name(c.role)) + TOKENS_PER_MESSAGE;
            if p.content == c.content {
                shared += framing + self.text(&c.content);
                continue;
            }
            let common = common_prefix(&p.content, &c.content);
            let cut = common.rfind(char::is_whitespace).map_or(0, |i| i);
            shared += framing + self.text(&common[..cut]);
            break;
        }
        shared.min(self.prompt(current))
    }
}

/// How many of a seat's latest requests a new one is compared with for the prompt-cache
/// estimate: prompt caches keep a prefix for minutes, far longer than a few calls.
pub const CACHE_WINDOW: usize = 16;

/// A seat's latest requests, for the prompt-cache estimate.
#[derive(Clone, Debug, Default)]
pub struct RecentPrompts {
    recent: std::collections::VecDeque<Vec<Message>>,
}

impl RecentPrompts {
    /// The tokens of `messages` that repeat the beginning of one of the latest
    /// [`CACHE_WINDOW`] requests (the longest such beginning; 0 for the first request);
    /// `messages` then becomes the latest request.
    pub fn cached(&mut self, counter: &TokenCounter, messages: &[Message]) -> u64 {
        // Every candidate shares a beginning of the same `messages`, so the longest one in
        // characters is also the longest in tokens: only that one is tokenized.
        let best = self
            .recent
            .iter()
            .max_by_key(|p| shared_chars(p, messages))
            .map_or(0, |p| counter.shared_prefix(p, messages));
        if self.recent.len() == CACHE_WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back(messages.to_vec());
        best
    }
}

/// How many characters of `current` repeat `previous`'s beginning, cut as
/// [`TokenCounter::shared_prefix`] cuts it (whole messages, then the common words).
fn shared_chars(previous: &[Message], current: &[Message]) -> usize {
    let mut shared = 0;
    for (p, c) in previous.iter().zip(current) {
        if p.role != c.role {
            break;
        }
        if p.content == c.content {
            shared += c.content.len() + 1;
            continue;
        }
        let common = common_prefix(&p.content, &c.content);
        shared += common.rfind(char::is_whitespace).unwrap_or(0) + 1;
        break;
    }
    shared
}

/// The name a role has on the wire.
fn role_name(r: Role) -> &'static str {
    match r {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
    }
}

/// The longest common beginning of two strings, cut at a character boundary.
fn common_prefix<'a>(a: &'a str, b: &str) -> &'a str {
    let end = a.char_indices().zip(b.chars()).find(|((_, x), y)| x != y).map_or(a.len().min(b.len()), |((i, _), _)| i);
    let mut end = end.min(a.len());
    while !a.is_char_boundary(end) {
        end -= 1;
    }
    &a[..end]
}

/// A model whose replies carry token counts made by a [`TokenCounter`] (not by the model):
/// what `--dry-run` puts in a served model's place, around the offline stand-in, to count
/// the prompts a run would send with the served model's tokenizer. Each reply's
/// `cached_tokens` are the prompt tokens that repeat a recent request's beginning
/// ([`RecentPrompts::cached`]; 0 for the first request).
pub struct CountingModel {
    inner: Arc<dyn LanguageModel>,
    counter: TokenCounter,
    recent: Mutex<RecentPrompts>,
}

impl CountingModel {
    /// `inner`'s replies, counted with `counter`.
    pub fn new(inner: Arc<dyn LanguageModel>, counter: TokenCounter) -> Self {
        CountingModel { inner, counter, recent: Mutex::new(RecentPrompts::default()) }
    }
}

#[async_trait]
impl LanguageModel for CountingModel {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let cached = self.recent.lock().unwrap_or_else(|p| p.into_inner()).cached(&self.counter, &request.messages);
        let mut r = self.inner.chat(request).await?;
        r.usage = Usage {
            cached_tokens: cached,
            ..Usage::new(self.counter.prompt(&request.messages), self.counter.text(&r.text))
        };
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

    #[test]
    fn shared_prefixes_count_whole_messages_then_the_common_words() {
        let o = TokenCounter::for_model("gpt-4o");
        let rules = Message::system("hello world");
        let a = [rules.clone(), Message::user("the state is one two")];
        let b = [rules.clone(), Message::user("the state is three four")];
        // system framing + content (6), then user framing (1 + 3) and "the state is" (3).
        assert_eq!(o.shared_prefix(&a, &b), 6 + 4 + 3);
        assert_eq!(o.shared_prefix(&a, &a), o.prompt(&a) - REPLY_PRIMING);
        // A different first message shares nothing but its framing; another role nothing.
        assert_eq!(o.shared_prefix(&[Message::system("x y")], &[Message::system("z y")]), 4);
        assert_eq!(o.shared_prefix(&[Message::user("x")], &[Message::system("x")]), 0);
        assert_eq!(o.shared_prefix(&[], &b), 0);
        // Multi-byte text is cut at a character boundary.
        let e = TokenCounter::Estimate;
        assert!(e.shared_prefix(&[Message::user("é é x")], &[Message::user("é é y")]) > 0);
    }

    #[tokio::test]
    async fn the_counting_model_reports_the_repeated_prefix_as_cached() {
        let stand_in: Arc<dyn LanguageModel> = Arc::new(Echo);
        let m = CountingModel::new(stand_in, TokenCounter::for_model("gpt-4o"));
        let req = |u: &str| {
            ChatRequest::new(vec![Message::system("rules ".repeat(50)), Message::user(u)], Default::default())
        };
        let first = m.chat(&req("state one")).await.unwrap().usage;
        let second = m.chat(&req("state two")).await.unwrap().usage;
        assert_eq!(first.cached_tokens, 0);
        assert!(second.cached_tokens > 50 && second.cached_tokens < second.prompt_tokens, "{second:?}");
        // Another kind of prompt in between: the next state prompt finds its prefix anyway.
        let other = ChatRequest::new(vec![Message::system("check ".repeat(50))], Default::default());
        assert!(m.chat(&other).await.unwrap().usage.cached_tokens < 10);
        assert_eq!(m.chat(&req("state three")).await.unwrap().usage.cached_tokens, second.cached_tokens);
    }

    struct Echo;

    #[async_trait]
    impl LanguageModel for Echo {
        fn name(&self) -> String {
            "echo".into()
        }
        async fn chat(&self, _: &ChatRequest) -> Result<ChatResponse, LlmError> {
            Ok(ChatResponse::simple("ok", Usage::default()))
        }
    }
}
