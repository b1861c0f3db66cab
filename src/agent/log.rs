//! What the agent keeps of an episode for reports and transcripts: the
//! per-episode counters ([`AgentMetrics`]) and the shared list its finished
//! model exchanges go to ([`ExchangeSink`]). Exchanges themselves are
//! [`crate::llm::record::Exchange`], the one record the transcript stores.

use crate::llm::record::Exchange;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, Mutex};

/// A shared list the agent appends its finished exchanges to.
pub type ExchangeSink = Arc<Mutex<Vec<Exchange>>>;

/// Takes everything out of a sink. A poisoned lock only means another holder
/// panicked; the list itself is still usable.
pub fn drain_sink(sink: &ExchangeSink) -> Vec<Exchange> {
    std::mem::take(&mut *sink.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Per-episode counters, reported under `--json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentMetrics {
    pub llm_calls: u32,
    pub llm_calls_planner: u32,
    pub llm_calls_verificator: u32,
    pub replans: u32,
    pub fallbacks: u32,
    pub parse_failures: u32,
    pub parse_failures_verificator: u32,
    pub llm_failures: u32,
    pub prompt_errors: u32,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub plans: u32,
    pub skills_completed: u32,
    pub skills_failed: u32,
    pub waits_interrupted: u32,
    pub belief_predictions: u32,
    pub belief_correct: u32,
}

impl AgentMetrics {
    pub fn belief_accuracy(&self) -> Option<f64> {
        (self.belief_predictions > 0).then(|| self.belief_correct as f64 / self.belief_predictions as f64)
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
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
            "waits_interrupted": self.waits_interrupted,
        })
    }
}
