//! One model call as every agent makes it: timed, recorded as an [`Exchange`] when the
//! agent logs exchanges, and a failure logged and sorted into one the agent survives and
//! one that ends its run ([`LlmError::is_fatal`]). The agents keep their own counters.

use proagent_llm::record::{Exchange, Outcome};
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, LlmError};
use std::time::{Duration, Instant};

/// A failed call, sorted.
pub(crate) enum Failed {
    /// Failed after every retry: the agent falls back and the runner counts it.
    Transient(LlmError),
    /// The model cannot serve this run at all: the agent stops.
    Fatal(LlmError),
}

/// A sent request: its reply or failure, how long it took, and its record when asked for.
pub(crate) struct Sent {
    /// The reply, or the sorted failure.
    pub(crate) result: Result<ChatResponse, Failed>,
    /// Time spent waiting for the model.
    pub(crate) latency: Duration,
    /// The exchange to record (`None` unless `log` was set).
    pub(crate) exchange: Option<Exchange>,
}

/// Sends `request` to `model` at timestep `t` as a call of `kind`.
pub(crate) async fn send(model: &dyn LanguageModel, request: ChatRequest, t: u32, kind: &str, log: bool) -> Sent {
    let t0 = Instant::now();
    let res = model.chat(&request).await;
    let latency = t0.elapsed();
    let exchange = log.then(|| Exchange {
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
    });
    let result = res.map_err(|e| {
        if e.is_fatal() {
            tracing::error!("model call refused at t={t}: {e}");
            Failed::Fatal(e)
        } else {
            tracing::warn!("model call failed at t={t}: {e}");
            Failed::Transient(e)
        }
    });
    Sent { result, latency, exchange }
}
