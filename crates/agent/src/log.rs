//! What the agent keeps of an episode for reports and transcripts: the
//! per-episode counters ([`AgentMetrics`]) and the shared list its finished
//! model exchanges go to ([`ExchangeSink`]), and the episode's own list of them
//! ([`ExchangeLog`], one for every agent). Exchanges themselves are
//! [`proagent_llm::record::Exchange`], the one record the transcript stores.

use proagent_llm::record::Exchange;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// A shared list the agent appends its finished exchanges to.
pub type ExchangeSink = Arc<Mutex<Vec<Exchange>>>;

/// Takes everything out of a sink. A poisoned lock only means another holder
/// panicked; the list itself is still usable.
pub fn drain_sink(sink: &ExchangeSink) -> Vec<Exchange> {
    std::mem::take(&mut *sink.lock().unwrap_or_else(|e| e.into_inner()))
}

/// One episode's model exchanges, in order, and how many of them already went to the sink.
/// Every agent keeps one: what a reply was read as is noted on its exchange after the
/// call, and the finished exchanges are flushed to the sink after each step, so a
/// transcript gets them even when the agent stops on a failing call.
#[derive(Debug, Default)]
pub(crate) struct ExchangeLog {
    list: Vec<Exchange>,
    flushed: usize,
}

impl ExchangeLog {
    /// Appends an exchange; returns its index for [`ExchangeLog::note`].
    pub(crate) fn push(&mut self, ex: Exchange) -> usize {
        self.list.push(ex);
        self.list.len() - 1
    }

    /// Records what the reply of exchange `idx` was read as, or why it could not be read.
    /// An unknown index (the call was not logged) is ignored.
    pub(crate) fn note(&mut self, idx: usize, parsed: Option<String>, parse_error: Option<String>) {
        if let Some(ex) = self.list.get_mut(idx) {
            ex.parsed = parsed.map(serde_json::Value::String);
            ex.parse_error = parse_error;
        }
    }

    /// The exchanges so far, in order.
    pub(crate) fn all(&self) -> &[Exchange] {
        &self.list
    }

    /// Appends the exchanges not yet flushed to `sink` (when there is one).
    pub(crate) fn flush(&mut self, sink: Option<&ExchangeSink>) {
        if let Some(sink) = sink {
            if let Some(new) = self.list.get(self.flushed..).filter(|n| !n.is_empty()) {
                // A poisoned lock only means another holder panicked; the list itself is still usable.
                sink.lock().unwrap_or_else(|e| e.into_inner()).extend(new.iter().cloned());
            }
        }
        self.flushed = self.list.len();
    }

    /// Flushes, then takes every exchange out (the log starts empty).
    pub(crate) fn drain(&mut self, sink: Option<&ExchangeSink>) -> Vec<Exchange> {
        self.flush(sink);
        self.flushed = 0;
        std::mem::take(&mut self.list)
    }
}

/// Per-episode counters, reported under `--json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentMetrics {
    /// Model requests sent, planner and verificator together (failed ones included).
    pub llm_calls: u32,
    /// Model requests sent by the planner, re-plans included.
    pub llm_calls_planner: u32,
    /// Model requests sent by the verificator (two per verification: check, then double-check;
    /// one per explanation in the paper preset).
    pub llm_calls_verificator: u32,
    /// Re-plans after a plan was rejected (bad parse or failed preconditions).
    pub replans: u32,
    /// Planning rounds that ended in the `wait(1)` fallback (no valid plan, model down, or prompt error).
    pub fallbacks: u32,
    /// Replies no skill (planner) or no failed condition (verificator) could be read from; both kinds counted.
    pub parse_failures: u32,
    /// The verificator's share of `parse_failures`: double-check replies naming no failed condition.
    pub parse_failures_verificator: u32,
    /// Model requests that returned an error instead of a reply (after the backend's own retries).
    pub llm_failures: u32,
    /// Templates that failed to render; each one falls back to the rule reason or to `wait(1)`.
    pub prompt_errors: u32,
    /// Prompt tokens over all replies, as reported by the backend (or its estimate).
    pub prompt_tokens: u64,
    /// Completion tokens over all replies, as reported by the backend (or its estimate).
    pub completion_tokens: u64,
    /// Of the completion tokens, reasoning tokens (servers that report them; `--json`
    /// shows the count only when there are any).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Of the prompt tokens, those read from the server's prompt cache (servers that
    /// report them; `--json` shows the count only when there are any).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
    /// Planning rounds that reached the model (a round's re-plans count once).
    pub plans: u32,
    /// Skills that finished successfully, interrupted waits included.
    pub skills_completed: u32,
    /// Skills the controller gave up on (precondition lost or way blocked), and in the paper
    /// preset skills whose preconditions stopped holding midway.
    pub skills_failed: u32,
    /// Paper preset: running skills whose preconditions stopped holding midway (found by
    /// the per-step validation, then explained and re-planned).
    pub skills_invalidated: u32,
    /// Waits cut short because the kitchen changed (`wait_interrupt` on).
    pub waits_interrupted: u32,
    /// Teammate-intention predictions scored so far.
    pub belief_predictions: u32,
    /// Scored predictions that matched the teammate's real next skill.
    pub belief_correct: u32,
}

impl AgentMetrics {
    /// `belief_correct / belief_predictions`; `None` before any prediction was scored.
    pub fn belief_accuracy(&self) -> Option<f64> {
        (self.belief_predictions > 0).then(|| self.belief_correct as f64 / self.belief_predictions as f64)
    }

    /// The `--json` report form; the two per-kind call counters nest under `llm_calls_by_kind`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "llm_calls": self.llm_calls,
            "llm_calls_by_kind": {"planner": self.llm_calls_planner, "verificator": self.llm_calls_verificator},
            "replans": self.replans,
            "fallbacks": self.fallbacks,
            "parse_failures": self.parse_failures,
            "parse_failures_verificator": self.parse_failures_verificator,
            "llm_failures": self.llm_failures,
            "prompt_errors": self.prompt_errors,
            "belief_accuracy": self.belief_accuracy(),
            "belief_predictions": self.belief_predictions,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "plans": self.plans,
            "skills_completed": self.skills_completed,
            "skills_failed": self.skills_failed,
            "skills_invalidated": self.skills_invalidated,
            "waits_interrupted": self.waits_interrupted,
        });
        // Counted apart, and only when a server reported them: the lines of runs
        // without them stay as they were.
        for (key, n) in [("reasoning_tokens", self.reasoning_tokens), ("cached_tokens", self.cached_tokens)] {
            if n > 0 {
                v[key] = n.into();
            }
        }
        v
    }
}

/// Whether a count is zero (serde's test for leaving it out).
fn is_zero(n: &u64) -> bool {
    *n == 0
}
