//! One model call as every agent makes it ([`Calls::make`]): timed, recorded as an
//! [`Exchange`] when the agent logs exchanges, its tokens or its failure counted, and a
//! failure sorted into one the agent survives ([`CallFailure::Down`]) and one that ends its
//! run ([`CallFailure::Unusable`], see [`LlmError::is_fatal`]). Each agent keeps one
//! [`Calls`] per episode; what kind of call it was, the agent counts itself.

use crate::log::{AgentMetrics, ExchangeLog, ExchangeSink};
use proagent_llm::record::{Exchange, Outcome};
use proagent_llm::{ChatRequest, LanguageModel, LlmError, Usage};
use std::time::{Duration, Instant};

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
    }

    fn failed(&mut self) {
        self.llm_failures = self.llm_failures.saturating_add(1);
    }
}

/// One episode's model calls: their exchanges, the time spent waiting, the last failure.
#[derive(Debug, Default)]
pub(crate) struct Calls {
    /// The episode's exchanges (only when the agent logs them).
    pub(crate) exchanges: ExchangeLog,
    wait: Duration,
    last_failure: Option<String>,
}

impl Calls {
    /// Sends `request` to `model` at timestep `t` as a call of `kind`, counts the result in
    /// `counters` and records the exchange when `log` is set. Returns the reply text and the
    /// exchange's index for [`ExchangeLog::note`] (`usize::MAX` when nothing was logged).
    pub(crate) async fn make(
        &mut self,
        model: &dyn LanguageModel,
        request: ChatRequest,
        t: u32,
        kind: &str,
        log: bool,
        counters: &mut impl CallCounters,
    ) -> Result<(String, usize), CallFailure> {
        let t0 = Instant::now();
        let res = model.chat(&request).await;
        let latency = t0.elapsed();
        self.wait += latency;
        let idx = if log {
            self.exchanges.push(Exchange {
                seq: 0,
                t,
                kind: kind.into(),
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
                counters.replied(&r.usage);
                Ok((r.text, idx))
            }
            Err(e) => {
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
        self.wait = Duration::ZERO;
        self.last_failure = None;
    }
}
