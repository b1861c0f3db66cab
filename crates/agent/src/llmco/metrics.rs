//! What an LLM-Coordination seat counts over one episode ([`LlmcoMetrics`]), reported in
//! `play --json` summaries and eval records.

use serde::{Deserialize, Serialize};

/// Per-episode counters of an LLM-Coordination seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmcoMetrics {
    /// Model requests sent (every kind, failed ones included).
    pub llm_calls: u32,
    /// Action requests (first proposals and re-proposals after a rejection).
    pub calls_action: u32,
    /// Theory-of-Mind requests.
    pub calls_tom: u32,
    /// Verification requests.
    pub calls_verify: u32,
    /// Decisions made (each is one action chosen; Overcooked's last several steps).
    pub decisions: u32,
    /// Action replies that named none of the offered actions.
    pub parse_failures: u32,
    /// Decisions that played the fallback (an unreadable reply, or no reply).
    pub fallbacks: u32,
    /// Verifications that answered "Not Okay".
    pub verify_rejections: u32,
    /// Verification replies with no readable verdict (the proposal is then played).
    pub verify_unreadable: u32,
    /// Decisions where the verifier still rejected after the last allowed re-prompt (the
    /// last proposal was played).
    pub verify_cap_reached: u32,
    /// Requests that failed after every retry.
    pub llm_failures: u32,
    /// Templates that failed to render (the decision then plays the fallback).
    pub prompt_errors: u32,
    /// Prompt tokens over all replies (the server's, or the estimate).
    pub prompt_tokens: u64,
    /// Completion tokens over all replies.
    pub completion_tokens: u64,
    /// Of the completion tokens, reasoning tokens (servers that report them; `--json`
    /// shows the count only when there are any).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Of the prompt tokens, those read from the server's prompt cache (servers that
    /// report them; `--json` shows the count only when there are any).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
}

impl LlmcoMetrics {
    /// The `--json` report form; the per-kind call counters nest under `llm_calls_by_kind`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "agent_kind": "llmco",
            "llm_calls": self.llm_calls,
            "llm_calls_by_kind": {"action": self.calls_action, "tom": self.calls_tom, "verify": self.calls_verify},
            "decisions": self.decisions,
            "parse_failures": self.parse_failures,
            "fallbacks": self.fallbacks,
            "verify_rejections": self.verify_rejections,
            "verify_unreadable": self.verify_unreadable,
            "verify_cap_reached": self.verify_cap_reached,
            "llm_failures": self.llm_failures,
            "prompt_errors": self.prompt_errors,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
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

impl crate::call::CallCounters for LlmcoMetrics {
    fn replied(&mut self, usage: &proagent_llm::Usage) {
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

/// Whether a count is zero (serde's test for leaving it out).
fn is_zero(n: &u64) -> bool {
    *n == 0
}
