//! Built-in models for checking the pipeline (`oracle`, `random`, `random-original`), the
//! transcript replayer (`replay:FILE`) and a latency wrapper for benchmarks. They all
//! implement [`LanguageModel`], so the QA runner treats them like any backend.

use super::baseline::{Policy, original_letters};
use super::data::{Question, parse_options};
use super::prompt::Prompts;
use super::transcript;
use async_trait::async_trait;
use proagent_llm::{
    ChatRequest, ChatResponse, LanguageModel, LlmError, Message, Role, Usage, estimate_tokens, sha256_hex,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The model names this module understands.
pub const BUILTIN_NAMES: &str = "oracle, random, random-original, replay:FILE";

fn messages_key(messages: &[Message]) -> String {
    sha256_hex(serde_json::to_string(messages).unwrap_or_default().as_bytes())
}

fn usage_for(request: &ChatRequest, reply: &str) -> Usage {
    Usage::new(request.messages.iter().map(|m| estimate_tokens(&m.content)).sum(), estimate_tokens(reply))
}

fn last_user(request: &ChatRequest) -> &str {
    request.messages.iter().rev().find(|m| m.role == Role::User).map_or("", |m| m.content.as_str())
}

/// Why a built-in CoordinationQA model could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A question's prompt did not render (the oracle precomputes every prompt).
    #[error("rendering a question's prompt: {0}")]
    Prompt(#[from] super::prompt::PromptError),
    /// The `replay:FILE` transcript could not be read.
    #[error(transparent)]
    Replay(#[from] transcript::TranscriptError),
}

/// Answers every question with its key: a pipeline check whose only misses are the
/// questions no answer can get right. It recognises a question by its exact messages.
pub struct Oracle {
    answers: HashMap<String, String>,
}

impl Oracle {
    /// Precomputes the answer to each question's exact messages under `prompts`; fails only when a prompt cannot render.
    pub fn new(questions: &[Question], prompts: &Prompts) -> Result<Oracle, ModelError> {
        let mut answers = HashMap::new();
        for q in questions {
            let messages = prompts.messages(q)?;
            // Prefer a keyed letter that is printed; a key naming no option is answered as written.
            let letter = q.accepted.iter().copied().find(|&c| q.has_option(c)).or(q.accepted.first().copied());
            let Some(letter) = letter else { continue };
            let reply = match q.option_text(letter) {
                Some(text) => format!("Explanation: the answer key.\nAnswer: {letter}. {text}"),
                None => format!("Explanation: the answer key.\nAnswer: {letter}."),
            };
            answers.insert(messages_key(&messages), reply);
        }
        Ok(Oracle { answers })
    }
}

#[async_trait]
impl LanguageModel for Oracle {
    fn name(&self) -> String {
        "oracle".into()
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        match self.answers.get(&messages_key(&request.messages)) {
            Some(reply) => Ok(ChatResponse::simple(reply.clone(), usage_for(request, reply))),
            None => Err(LlmError::Config("oracle: not a CoordinationQA question it knows".into())),
        }
    }
}

/// Picks a letter at random from the question it is shown. Draws depend only on the seed,
/// the request and how many times that request was seen before, so results do not depend
/// on the order concurrent requests arrive in (the runner asks one question's trials in turn).
pub struct RandomModel {
    seed: u64,
    policy: Policy,
    seen: Mutex<HashMap<String, u64>>,
}

impl RandomModel {
    /// A random model drawing by `policy`, reproducible from `seed`.
    pub fn new(seed: u64, policy: Policy) -> RandomModel {
        RandomModel { seed, policy, seen: Mutex::new(HashMap::new()) }
    }
}

#[async_trait]
impl LanguageModel for RandomModel {
    fn name(&self) -> String {
        match self.policy {
            Policy::Uniform => "random".into(),
            Policy::Original => "random-original".into(),
        }
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let question = last_user(request);
        let letters: Vec<char> = match self.policy {
            Policy::Uniform => parse_options(question)
                .map_err(|e| LlmError::BadReply {
                    reason: format!("random: cannot read the options: {e}"),
                    raw: question.chars().take(200).collect(),
                    faults: Vec::new(),
                })?
                .iter()
                .map(|o| o.letter)
                .collect(),
            Policy::Original => original_letters(question),
        };
        if letters.is_empty() {
            return Err(LlmError::BadReply {
                reason: "random: no options".into(),
                raw: String::new(),
                faults: Vec::new(),
            });
        }
        let hash = request.canonical_hash();
        let n = {
            let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            let c = seen.entry(hash.clone()).or_insert(0);
            *c += 1;
            *c - 1
        };
        let seed = sha256_hex(format!("{}:{hash}:{n}", self.seed).as_bytes());
        let mut bytes = [0u8; 32];
        if let Ok(b) = hex::decode(&seed) {
            bytes.copy_from_slice(&b[..32]);
        }
        let mut rng = ChaCha8Rng::from_seed(bytes);
        let letter = letters[rng.random_range(0..letters.len())];
        let reply = format!("Answer: {letter}.");
        Ok(ChatResponse::simple(reply.clone(), usage_for(request, &reply)))
    }
}

/// Serves the replies of a QA transcript, matched by the request's canonical hash; a
/// request asked several times gets the recorded trials in order. A request that is not
/// in the recording is an error (`ReplayMiss`), never a guess.
pub struct Replay {
    model: String,
    queues: Mutex<HashMap<String, VecDeque<Result<ChatResponse, LlmError>>>>,
}

impl Replay {
    /// Loads a QA transcript (hashes checked); fails naming the file, and the line for a bad one.
    pub fn load(path: &Path) -> Result<Replay, transcript::TranscriptError> {
        let t = transcript::read(path)?;
        let mut exchanges = t.exchanges;
        exchanges.sort_by(|a, b| (a.request_hash.as_str(), a.trial).cmp(&(b.request_hash.as_str(), b.trial)));
        let mut queues: HashMap<String, VecDeque<_>> = HashMap::new();
        for x in exchanges {
            queues.entry(x.request_hash.clone()).or_default().push_back(x.outcome());
        }
        Ok(Replay { model: t.header.model, queues: Mutex::new(queues) })
    }
}

#[async_trait]
impl LanguageModel for Replay {
    fn name(&self) -> String {
        format!("replay[{}]", self.model)
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let hash = request.canonical_hash();
        let mut queues = self.queues.lock().unwrap_or_else(|p| p.into_inner());
        match queues.get_mut(&hash) {
            Some(q) => q.pop_front().unwrap_or_else(|| {
                Err(LlmError::ReplayMiss(format!("request {hash} was asked more often than the recording holds")))
            }),
            None => Err(LlmError::ReplayMiss(format!(
                "request {hash} is not in the recording (same data, prompts, --temperature/--top-p/--max-tokens?)"
            ))),
        }
    }
}

/// Adds a fixed latency before every request (for `proagent bench qa`).
pub struct Delayed {
    /// The model that answers.
    pub inner: Arc<dyn LanguageModel>,
    /// Waited before each request is passed on (an async sleep: concurrent requests wait in parallel).
    pub delay: Duration,
}

#[async_trait]
impl LanguageModel for Delayed {
    fn name(&self) -> String {
        format!("{}+{}ms", self.inner.name(), self.delay.as_millis())
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        tokio::time::sleep(self.delay).await;
        self.inner.chat(request).await
    }
}

/// How the mock server answers a CoordinationQA question (`mock-server --qa-answer`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QaAnswer {
    /// The answer key's letter (a question the mock cannot find in the benchmark is
    /// answered at random): `qa` should then score what `--model oracle` scores.
    Key,
    /// A letter drawn uniformly from the printed options, seeded by the request.
    Random,
    /// Always this letter, printed or not.
    Letter(char),
}

/// A `--qa-answer` value that is none of `key`, `random` or a letter A–Z.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a QA answer policy (key, random, or one letter A-Z)")]
pub struct BadQaAnswer(pub String);

impl std::str::FromStr for QaAnswer {
    type Err = BadQaAnswer;
    fn from_str(s: &str) -> Result<Self, BadQaAnswer> {
        let t = s.trim();
        match t.to_ascii_lowercase().as_str() {
            "key" => return Ok(QaAnswer::Key),
            "random" => return Ok(QaAnswer::Random),
            _ => {}
        }
        let mut chars = t.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() => Ok(QaAnswer::Letter(c.to_ascii_uppercase())),
            _ => Err(BadQaAnswer(s.to_string())),
        }
    }
}

/// The responder of `proagent mock-server`: CoordinationQA questions (a last user
/// message with an `Available Answers:` / `Available Actions:` list) are answered by a
/// [`QaAnswer`] policy, recognised in the benchmark by their question text; every other
/// request goes to `other` (the agent's scripted planner), so one mock serves both
/// `qa` and `play`.
pub struct MockResponder {
    policy: QaAnswer,
    seed: u64,
    questions: Vec<Question>,
    other: Arc<dyn LanguageModel>,
}

impl MockResponder {
    /// A responder answering `questions` (the benchmark) by `policy`; `seed` seeds the random answers.
    pub fn new(policy: QaAnswer, seed: u64, questions: Vec<Question>, other: Arc<dyn LanguageModel>) -> Self {
        MockResponder { policy, seed, questions, other }
    }

    /// The benchmark question a prompt asks: the one whose text is the prompt, else the
    /// longest one the prompt contains (custom templates wrap the question in more text).
    fn find(&self, prompt: &str) -> Option<&Question> {
        let p = prompt.trim();
        self.questions.iter().find(|q| q.question.trim() == p).or_else(|| {
            self.questions.iter().filter(|q| p.contains(q.question.trim())).max_by_key(|q| q.question.len())
        })
    }

    fn random_letter(&self, request: &ChatRequest, letters: &[char]) -> char {
        let seed = sha256_hex(format!("{}:{}", self.seed, request.canonical_hash()).as_bytes());
        let mut bytes = [0u8; 32];
        if let Ok(b) = hex::decode(&seed) {
            bytes.copy_from_slice(&b[..32]);
        }
        letters[ChaCha8Rng::from_seed(bytes).random_range(0..letters.len())]
    }
}

#[async_trait]
impl LanguageModel for MockResponder {
    fn name(&self) -> String {
        "mock".into()
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let prompt = last_user(request);
        let Ok(options) = parse_options(prompt) else { return self.other.chat(request).await };
        let letters: Vec<char> = options.iter().map(|o| o.letter).collect();
        let letter = match self.policy {
            QaAnswer::Letter(c) => c,
            QaAnswer::Random => self.random_letter(request, &letters),
            QaAnswer::Key => match self.find(prompt) {
                Some(q) => q.accepted.iter().copied().find(|&c| q.has_option(c)).or(q.accepted.first().copied()),
                None => {
                    tracing::warn!("mock: a CoordinationQA question not in the benchmark; answering at random");
                    None
                }
            }
            .unwrap_or_else(|| self.random_letter(request, &letters)),
        };
        let reply = match options.iter().find(|o| o.letter == letter) {
            Some(o) => format!("Explanation: mock reply ({}).\nAnswer: {letter}. {}", self.policy_name(), o.text),
            None => format!("Explanation: mock reply ({}).\nAnswer: {letter}.", self.policy_name()),
        };
        Ok(ChatResponse::simple(reply.clone(), usage_for(request, &reply)))
    }
}

impl MockResponder {
    fn policy_name(&self) -> String {
        match self.policy {
            QaAnswer::Key => "the answer key".into(),
            QaAnswer::Random => "a random option".into(),
            QaAnswer::Letter(c) => format!("always {c}"),
        }
    }
}

/// The built-in model for a `--model` name, or `None` when the name is not a built-in
/// (the caller then asks the other backends).
pub fn builtin_model(
    name: &str,
    questions: &[Question],
    prompts: &Prompts,
    seed: u64,
) -> Option<Result<Arc<dyn LanguageModel>, ModelError>> {
    let m: Result<Arc<dyn LanguageModel>, ModelError> = match name {
        "oracle" => Oracle::new(questions, prompts).map(|o| Arc::new(o) as Arc<dyn LanguageModel>),
        "random" => Ok(Arc::new(RandomModel::new(seed, Policy::Uniform))),
        "random-original" => Ok(Arc::new(RandomModel::new(seed, Policy::Original))),
        _ => match name.strip_prefix("replay:") {
            Some(path) => {
                Replay::load(Path::new(path)).map(|r| Arc::new(r) as Arc<dyn LanguageModel>).map_err(ModelError::from)
            }
            None => return None,
        },
    };
    Some(m)
}
