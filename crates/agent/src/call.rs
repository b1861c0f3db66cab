//! One model call as every agent makes it ([`Calls::make`]): timed, recorded as an
//! [`Exchange`] when the agent logs exchanges, its tokens or its failure counted, and a
//! failure sorted into one the agent survives ([`CallFailure::Down`]) and one that ends its
//! run ([`CallFailure::Unusable`], see [`LlmError::is_fatal`]). Each agent keeps one
//! [`Calls`] per episode; the finer kinds of call (planner, ToM, ...) the agent counts itself.
//!
//! Guarantees: the episode's model use ([`Calls::usage`], what the seat reports to the
//! runner) is counted here and nowhere else. Every call says what it is for
//! ([`Purpose`]): only a [`Purpose::Decision`] (a call whose reply chooses an action) is a
//! decision, and a decision counts as unread until the agent hands its [`Unread`] token,
//! which only a decision's reply carries and which can be used once, to [`Calls::read`].
//! So a helper's reply (Theory of Mind, verification, an explanation) can never pass for
//! a decision read, and an agent that forgets to say it read a reply fails its episodes
//! rather than scoring a fallback.

use crate::log::{AgentMetrics, ExchangeLog, ExchangeSink};
use proagent_core::LlmUsage;
use proagent_llm::record::{Exchange, Outcome};
use proagent_llm::{ChatRequest, LanguageModel, LlmError, Usage};
use std::time::{Duration, Instant};

/// What a model call is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Purpose {
    /// Its reply chooses an action (a plan, an action proposal or re-proposal): the
    /// episode's unread share counts it.
    Decision,
    /// Its reply only informs a decision (Theory of Mind, verification, an explanation):
    /// it is a call, never a decision, whatever it says.
    Helper,
}

/// Which part of an agent sends a call: each agent's own list of kinds, each kind with
/// its transcript name and its [`Purpose`] (a new kind must say which it is).
pub(crate) trait CallKind: Copy {
    /// The exchange kind recorded in transcripts (`planner`, `tom`, ...).
    fn name(self) -> &'static str;
    /// Whether its reply chooses an action.
    fn purpose(self) -> Purpose;
}

/// A decision's reply not yet read as an action. Only [`Calls::make`] makes one, for a
/// [`Purpose::Decision`] call that got a reply; handing it to [`Calls::read`] counts the
/// decision read, dropping it leaves the decision unread.
#[derive(Debug)]
pub(crate) struct Unread(());

/// A reply that arrived.
#[derive(Debug)]
pub(crate) struct Reply {
    /// The reply text.
    pub(crate) text: String,
    /// The exchange's index for [`ExchangeLog::note`] (`usize::MAX` when nothing was logged).
    pub(crate) idx: usize,
    /// For a decision: the token to hand to [`Calls::read`] once an action was read from it.
    pub(crate) unread: Option<Unread>,
}

/// A call that brought no reply.
pub(crate) enum CallFailure {
    /// Failed after every retry (the message says why): the agent falls back and the
    /// runner counts the failure against the episode's limit.
    Down(String),
    /// The model cannot serve this run at all: the agent stops.
    Unusable(LlmError),
}

/// The counters a call's result goes to (each agent's own metrics type).
pub(crate) trait CallCounters {
    /// A reply arrived with these token counts.
    fn replied(&mut self, usage: &Usage);
    /// The call failed (after the backend's retries).
    fn failed(&mut self);
}

impl CallCounters for AgentMetrics {
    fn replied(&mut self, usage: &Usage) {
        // Token counts come from the server: saturate rather than wrap.
        self.prompt_tokens = self.prompt_tokens.saturating_add(usage.prompt_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(usage.completion_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(usage.reasoning_tokens);
        self.cached_tokens = self.cached_tokens.saturating_add(usage.cached_tokens);
    }

    fn failed(&mut self) {
        self.llm_failures = self.llm_failures.saturating_add(1);
    }
}

/// One episode's model calls: their exchanges, what they used, the time spent waiting,
/// the last failure.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    /// The episode's exchanges (only when the agent logs them).
    pub(crate) exchanges: ExchangeLog,
    /// Calls, failures, tokens and decisions so far (`wait_us`, `parse_failures` and
    /// `decisions_unread` are filled in by [`Calls::usage`]).
    usage: LlmUsage,
    /// Decisions whose call failed (no reply to read).
    decisions_failed: u64,
    /// Decisions read as an action ([`Calls::read`]).
    decisions_read: u64,
    wait: Duration,
    last_failure: Option<String>,
    /// Whether the last reply answered in its request's schema ([`Calls::structured`]).
    structured: bool,
}

impl Calls {
    /// Sends `request` to `model` at timestep `t` as a call of `kind`, counts the result
    /// here (a decision as such when `kind` is one) and in `counters`, and records the
    /// exchange when `log` is set.
    pub(crate) async fn make(
        &mut self,
        model: &dyn LanguageModel,
        request: ChatRequest,
        t: u32,
        kind: impl CallKind,
        log: bool,
        counters: &mut impl CallCounters,
    ) -> Result<Reply, CallFailure> {
        let decision = kind.purpose() == Purpose::Decision;
        self.usage.calls = self.usage.calls.saturating_add(1);
        if decision {
            self.usage.decisions = self.usage.decisions.saturating_add(1);
        }
        let t0 = Instant::now();
        let res = model.chat(&request).await;
        self.structured = res.as_ref().is_ok_and(|r| r.is_structured(&request));
        let latency = t0.elapsed();
        self.wait += latency;
        let idx = if log {
            self.exchanges.push(Exchange {
                seq: 0,
                t,
                kind: kind.name().into(),
                request,
                outcome: Outcome::from_result(&res),
                parsed: None,
                parse_error: None,
                latency: Some(latency),
                scrubbed: 0,
                seat: None,
            })
        } else {
            usize::MAX
        };
        match res {
            Ok(r) => {
                // Token counts come from the server: saturate rather than wrap.
                self.usage.prompt_tokens = self.usage.prompt_tokens.saturating_add(r.usage.prompt_tokens);
                self.usage.completion_tokens = self.usage.completion_tokens.saturating_add(r.usage.completion_tokens);
                self.usage.reasoning_tokens = self.usage.reasoning_tokens.saturating_add(r.usage.reasoning_tokens);
                self.usage.cached_tokens = self.usage.cached_tokens.saturating_add(r.usage.cached_tokens);
                counters.replied(&r.usage);
                Ok(Reply { text: r.text, idx, unread: decision.then_some(Unread(())) })
            }
            Err(e) => {
                self.usage.failures = self.usage.failures.saturating_add(1);
                if decision {
                    self.decisions_failed = self.decisions_failed.saturating_add(1);
                }
                counters.failed();
                self.last_failure = Some(e.to_string());
                if e.is_fatal() {
                    tracing::error!("model call refused at t={t}: {e}");
                    Err(CallFailure::Unusable(e))
                } else {
                    tracing::warn!("model call failed at t={t}: {e}");
                    Err(CallFailure::Down(e.to_string()))
                }
            }
        }
    }

    /// Whether the last call's reply is a structured answer: its request asked for a JSON
    /// schema and the server did not fall back to text, so the agent reads it strictly.
    pub(crate) fn structured(&self) -> bool {
        self.structured
    }

    /// Counts the decision whose reply carried `token` as read: an action was read from it.
    pub(crate) fn read(&mut self, token: Unread) {
        let Unread(()) = token;
        self.decisions_read = self.decisions_read.saturating_add(1);
    }

    /// The episode's model use so far, as the runner sums it: every call, and of the
    /// decisions those not read (their reply named no usable action, or never came).
    pub(crate) fn usage(&self) -> LlmUsage {
        let d = self.usage.decisions;
        let unread = d.saturating_sub(self.decisions_read);
        LlmUsage {
            parse_failures: unread.saturating_sub(self.decisions_failed),
            decisions_unread: unread,
            wait_us: u64::try_from(self.wait.as_micros()).unwrap_or(u64::MAX),
            ..self.usage
        }
    }

    /// Time spent waiting for the model this episode.
    pub(crate) fn wait(&self) -> Duration {
        self.wait
    }

    /// The last failure's message this episode.
    pub(crate) fn last_failure(&self) -> Option<String> {
        self.last_failure.clone()
    }

    /// Starts a new episode: what is left of the old one's exchanges goes to `sink`.
    pub(crate) fn reset(&mut self, sink: Option<&ExchangeSink>) {
        self.exchanges.drain(sink);
        self.usage = LlmUsage::default();
        self.decisions_failed = 0;
        self.decisions_read = 0;
        self.wait = Duration::ZERO;
        self.last_failure = None;
        self.structured = false;
    }
}
